#include "app.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

bool app_fail(vkskin_error *err, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err->message, sizeof err->message, fmt, ap);
    va_end(ap);
    err->result = VKSKIN_ERROR_ARGUMENT;
    return false;
}

/* The help's option column: "  --name ARG" padded to HELP_COLUMN, then the description wrapped
 * to end by HELP_WIDTH (an 80-column terminal). A longer option gets a line of its own, its
 * description starting on the next, at the same column. */
#define HELP_COLUMN 26
#define HELP_WIDTH 79

/* `text` from column HELP_COLUMN, word by word, a new line where the next word would pass
 * HELP_WIDTH; `column` is where the cursor is now. */
static void print_wrapped(const char *text, int column)
{
    for (const char *word = text; *word;) {
        while (*word == ' ')
            word++;
        const int length = (int)strcspn(word, " ");
        if (!length)
            break;
        if (column > HELP_COLUMN && column + 1 + length > HELP_WIDTH) {
            printf("\n%*s", HELP_COLUMN, "");
            column = HELP_COLUMN;
        } else if (column > HELP_COLUMN) {
            putchar(' ');
            column++;
        }
        printf("%.*s", length, word);
        column += length;
        word += length;
    }
    putchar('\n');
}

static void print_option(const char *left, const char *help)
{
    const int width = printf("  %s", left);
    if (width + 2 > HELP_COLUMN)
        printf("\n");
    printf("%*s", width + 2 > HELP_COLUMN ? HELP_COLUMN : HELP_COLUMN - width, "");
    print_wrapped(help, HELP_COLUMN);
}

void app_print_help(const app_command *cmd)
{
    printf("usage: vkskin %s%s%s%s\n\n%s\n", cmd->name, cmd->positional ? " " : "",
           cmd->positional ? cmd->positional : "", cmd->option_count ? " [options]" : "",
           cmd->summary);
    if (cmd->positional && strstr(cmd->positional, "MODEL"))
        printf("\nMODEL is any file assimp reads (glTF, FBX, Collada, MD5, ...); without it the\n"
               "bundled default character is used.\n");
    printf("\noptions:\n");
    for (uint32_t i = 0; i < cmd->option_count; i++) {
        const app_option *o = &cmd->options[i];
        char left[64];
        bool takes = o->value || o->list;
        snprintf(left, sizeof left, "--%s%s%s", o->name, takes ? " " : "", takes ? o->arg : "");
        print_option(left, o->help);
    }
    print_option("--help", "show this help");
}

int app_parse(const app_command *cmd, int argc, char **argv, const char **positional)
{
    *positional = NULL;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            app_print_help(cmd);
            return APP_HELP;
        }
        if (a[0] == '-' && a[1] == '-') {
            /* --name VALUE, or --name=VALUE */
            const char *eq = strchr(a + 2, '=');
            const size_t name_length = eq ? (size_t)(eq - (a + 2)) : strlen(a + 2);
            const app_option *o = NULL;
            for (uint32_t k = 0; k < cmd->option_count && !o; k++)
                if (strlen(cmd->options[k].name) == name_length &&
                    strncmp(cmd->options[k].name, a + 2, name_length) == 0)
                    o = &cmd->options[k];
            if (!o) {
                fprintf(stderr, "vkskin %s: unknown option '%.*s' (see vkskin %s --help)\n",
                        cmd->name, (int)(name_length + 2), a, cmd->name);
                return APP_USAGE;
            }
            if (o->value || o->list) {
                if (!eq && i + 1 >= argc) {
                    fprintf(stderr, "vkskin %s: option '%s' needs a value %s\n", cmd->name, a,
                            o->arg);
                    return APP_USAGE;
                }
                const char *value = eq ? eq + 1 : argv[++i];
                if (o->value) {
                    *o->value = value;
                } else if (*o->list_count < o->list_max) {
                    o->list[(*o->list_count)++] = value;
                } else {
                    fprintf(stderr, "vkskin %s: at most %u times '%s'\n", cmd->name, o->list_max,
                            a);
                    return APP_USAGE;
                }
            } else if (eq) {
                fprintf(stderr, "vkskin %s: option '--%s' takes no value\n", cmd->name, o->name);
                return APP_USAGE;
            } else {
                *o->flag = true;
            }
        } else if (cmd->positional && !*positional && (a[0] != '-' || a[1] == '\0')) {
            *positional = a;
        } else {
            fprintf(stderr, "vkskin %s: unexpected argument '%s' (see vkskin %s --help)\n",
                    cmd->name, a, cmd->name);
            return APP_USAGE;
        }
    }
    return APP_OK;
}

app_quoted app_quote(const char *value)
{
    app_quoted q;
    if (strlen(value) > 40)
        snprintf(q.text, sizeof q.text, "%.40s...", value);
    else
        snprintf(q.text, sizeof q.text, "%s", value);
    return q;
}

bool app_parse_seconds(const char *name, const char *text, double *seconds, vkskin_error *err)
{
    char *end;
    double v = strtod(text, &end);
    if (end == text || *end != '\0' || !isfinite(v) || v < 0.0)
        return app_fail(err, "%s needs a finite number of seconds >= 0, not '%s'", name,
                        app_quote(text).text);
    *seconds = v;
    return true;
}

bool app_parse_real(const char *name, const char *text, const char *what, double min, double max,
                    double *value, vkskin_error *err)
{
    char *end;
    double v = strtod(text, &end);
    if (end == text || *end || !(v >= min && v <= max))
        return app_fail(err, "%s needs %s from %.10g to %.10g, not '%s'", name, what, min, max,
                        app_quote(text).text);
    *value = v;
    return true;
}

bool app_parse_time(const char *text, double *seconds, vkskin_error *err)
{
    return app_parse_real("--time", text, "seconds", 0.0, APP_TIME_MAX, seconds, err);
}

bool app_parse_count(const char *name, const char *text, uint32_t min, uint32_t max,
                     uint32_t *value, vkskin_error *err)
{
    char *end;
    errno = 0;
    long long v = strtoll(text, &end, 10);
    if (end == text || *end || errno || v < (long long)min || v > (long long)max)
        return app_fail(err, "%s needs a whole number from %u to %u, not '%s'", name, min, max,
                        app_quote(text).text);
    *value = (uint32_t)v;
    return true;
}

bool app_parse_group_size(const char *text, uint32_t *group_size, vkskin_error *err)
{
    if (!app_parse_count("--group-size", text, 1, 1024, group_size, err))
        return false;
    if (*group_size & (*group_size - 1))
        return app_fail(err, "--group-size needs a power of two from 1 to 1024, not '%s'",
                        app_quote(text).text);
    return true;
}

/* One decimal number of 1 to 16384 pixels, no sign or space, ending at `end`. */
static bool parse_side(const char *text, const char *end, uint32_t *side)
{
    if (text == end || end - text > 5)
        return false;
    uint32_t v = 0;
    for (const char *c = text; c < end; c++) {
        if (*c < '0' || *c > '9')
            return false;
        v = v * 10 + (uint32_t)(*c - '0');
    }
    *side = v;
    return v >= 1 && v <= 16384;
}

bool app_parse_size(const char *name, const char *text, uint32_t *width, uint32_t *height,
                    vkskin_error *err)
{
    const char *x = strchr(text, 'x');
    if (!x || !parse_side(text, x, width) || !parse_side(x + 1, x + 1 + strlen(x + 1), height))
        return app_fail(err, "%s needs WIDTHxHEIGHT, each 1 to 16384, not '%s'", name,
                        app_quote(text).text);
    return true;
}

const char app_bind_pose[] = "none";

bool app_bind_pose_option(const char **clip, bool bind_pose, vkskin_error *err)
{
    if (!bind_pose)
        return true;
    if (*clip)
        return app_fail(err, "--bind-pose and --clip exclude each other");
    *clip = app_bind_pose;
    return true;
}

void app_progress_begin(app_progress *p, const char *cmd, bool forced)
{
    const bool tty = isatty(STDERR_FILENO) == 1;
    *p = (app_progress){.cmd = cmd, .on = forced || tty, .tty = tty && !forced};
    p->start = p->last = vks_now_ms();
}

void app_progress_say(app_progress *p, const char *fmt, ...)
{
    if (!p->on)
        return;
    /* On a terminal once the work has run a second, then every 0.1 s; asked for (--progress),
     * from the start, then every second. */
    const double now = vks_now_ms();
    if (p->tty ? now - p->start < 1000.0 || now - p->last < 100.0
               : p->shown && now - p->last < 1000.0)
        return;
    p->last = now;
    char text[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    if (p->tty)
        fprintf(stderr, "\r\033[Kvkskin %s: %s (%.0f s)", p->cmd, text, (now - p->start) * 1e-3);
    else
        fprintf(stderr, "vkskin %s: %s (%.0f s)\n", p->cmd, text, (now - p->start) * 1e-3);
    fflush(stderr);
    p->shown = true;
}

void app_progress_end(app_progress *p)
{
    if (p->on && p->tty && p->shown) { /* the terminal's line cleared, to be written anew */
        fprintf(stderr, "\r\033[K");
        p->shown = false;
    }
}

/* A JSON number in its shortest form that reads back as the same double (15 to 17 significant
 * digits), or null when unknown (negative or not finite). */
void app_json_number(const char *name, double v, bool last)
{
    if (v >= 0.0 && isfinite(v)) {
        char text[32];
        for (int digits = 15; digits <= 17; digits++) {
            snprintf(text, sizeof text, "%.*g", digits, v);
            if (strtod(text, NULL) == v)
                break;
        }
        printf("  \"%s\": %s%s\n", name, text, last ? "" : ",");
    } else {
        printf("  \"%s\": null%s\n", name, last ? "" : ",");
    }
}

/* A JSON string's quotes and contents, escaped. */
static void json_quoted(const char *v)
{
    putchar('"');
    for (const unsigned char *c = (const unsigned char *)v; *c; c++) {
        if (*c == '"' || *c == '\\')
            printf("\\%c", *c);
        else if (*c < 0x20)
            printf("\\u%04x", *c);
        else
            putchar(*c);
    }
    putchar('"');
}

void app_json_string(const char *name, const char *v)
{
    printf("  \"%s\": ", name);
    json_quoted(v);
    printf(",\n");
}

void app_json_models(vkskin_model *const *models, uint32_t count)
{
    printf("  \"models\": [");
    for (uint32_t m = 0; m < count; m++) {
        vkskin_model_info info;
        vkskin_model_get_info(models[m], &info, NULL);
        printf("%s", m ? ", " : "");
        json_quoted(info.name);
    }
    printf("],\n");
}
