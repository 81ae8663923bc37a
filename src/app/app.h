/* What the subcommands share: option parsing, and model loading (the embedded default character
 * when no path is given). */
#ifndef VKS_APP_H
#define VKS_APP_H

#include "anim/anim.h"
#include "asset/import.h"

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

/* A finite, non-negative number of seconds. */
bool app_parse_seconds(const char *text, double *seconds, vks_error *err);

/* Loads `path`, or the embedded default character when path is NULL. */
bool app_load_model(const char *path, vks_model *model, vks_error *err);

/* The bind pose as a clip name: app_find_clip gives -1 for it. */
extern const char app_bind_pose[];

/* --bind-pose: sets *clip to app_bind_pose; fails when --clip was given too. */
bool app_bind_pose_option(const char **clip, bool bind_pose, vks_error *err);

/* The clip named or numbered `clip` (NULL: the first clip, or -1 for a model without clips;
 * app_bind_pose, or "none" when no clip has that name: -1, the bind pose). */
bool app_find_clip(const vks_model *model, const char *clip, int32_t *index, vks_error *err);

#endif
