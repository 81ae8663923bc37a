/* What the subcommands share: option parsing and its errors. The program uses vkskin's public API
 * alone (include/vkskin): from src/ outside src/app it includes only core/clock.h, whose source it
 * compiles itself. */
#ifndef VKS_APP_H
#define VKS_APP_H

#include "vkskin/vkskin.h"

/* vks_now_ms and vks_median: the library's clock.c, which it keeps private, compiled into the
 * program too (it needs nothing else of the library's: CMakeLists.txt). */
#include "../core/clock.h"

#include <stdbool.h>
#include <stdint.h>

enum { APP_OK = 0, APP_FAILED = 1, APP_USAGE = 2, APP_HELP = -1 };

/* One command-line option: `--name VALUE` when `value` is set, a repeatable `--name VALUE` when
 * `list` is, a plain `--name` flag otherwise. */
typedef struct app_option {
    const char *name;
    const char **value;
    bool *flag;
    const char *arg; /* the value's placeholder in the help, e.g. "SECONDS" */
    const char *help;
    const char **list; /* each occurrence's value, in order, at most list_max */
    uint32_t *list_count;
    uint32_t list_max;
} app_option;

typedef struct app_command {
    const char *name;
    const char *summary;
    const char *positional; /* e.g. "[MODEL]", or NULL for none */
    const app_option *options;
    uint32_t option_count;
} app_command;

/* Parses argv (argv[0] is the subcommand) into the options and at most one positional argument.
 * Prints the help on --help/-h and returns APP_HELP; prints one error line and returns APP_USAGE on
 * bad usage; returns APP_OK otherwise. */
int app_parse(const app_command *cmd, int argc, char **argv, const char **positional);

void app_print_help(const app_command *cmd);

/* A usage or run-time error: fills err->message (printf-style) and returns false. */
bool app_fail(vkskin_error *err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* The value of option `name` (named in the message): a finite, non-negative number of seconds;
 * WxH (each 1..16384); a count in [min, max]; a number in [min, max], `what` saying what kind
 * ("a number", "seconds", ...). */
bool app_parse_seconds(const char *name, const char *text, double *seconds, vkskin_error *err);
bool app_parse_size(const char *name, const char *text, uint32_t *width, uint32_t *height,
                    vkskin_error *err);
/* A value as a message quotes it: one longer than 40 characters cut there, with "...", so that
 * no typed value or name makes the line run on. */
typedef struct app_quoted {
    char text[48];
} app_quoted;
app_quoted app_quote(const char *value);
bool app_parse_count(const char *name, const char *text, uint32_t min, uint32_t max,
                     uint32_t *value, vkskin_error *err);
bool app_parse_real(const char *name, const char *text, const char *what, double min, double max,
                    double *value, vkskin_error *err);
/* --time: seconds into the clip, from 0 to APP_TIME_MAX (a million seconds, 11.6 days: there a
 * double still tells times 1e-10 s apart, and the time prints in a few characters). */
#define APP_TIME_MAX 1e6
bool app_parse_time(const char *text, double *seconds, vkskin_error *err);
/* --group-size: a power of two from 1 to 1024 (the device may allow fewer: the library says). */
bool app_parse_group_size(const char *text, uint32_t *group_size, vkskin_error *err);

/* The bind pose as a clip name: app_show_find_clip gives -1 for it. */
extern const char app_bind_pose[];

/* --bind-pose: sets *clip to app_bind_pose; fails when --clip was given too. */
bool app_bind_pose_option(const char **clip, bool bind_pose, vkskin_error *err);

/* JSON output, one "name": value line of an object: a number in its shortest form that reads
 * back as the same double, or null when unknown (negative or not finite); a string, escaped; the
 * models' names as an array of strings. */
void app_json_number(const char *name, double v, bool last);
void app_json_string(const char *name, const char *v);
void app_json_models(vkskin_model *const *models, uint32_t count);

/* Progress on stderr for long work: when stderr is a terminal, once the work has run a second (one
 * line, rewritten in place); when forced (--progress), a line at once and then every second. */
typedef struct app_progress {
    const char *cmd;
    bool on, tty, shown;
    double start, last;
} app_progress;

void app_progress_begin(app_progress *p, const char *cmd, bool forced);
/* The work's state now, e.g. "frame 3 of 100". */
void app_progress_say(app_progress *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Done: the terminal's line cleared. */
void app_progress_end(app_progress *p);

#endif
