#include "app.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
        printf("  %-22s %s\n", left, o->help);
    }
    printf("  %-22s %s\n", "--help", "show this help");
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
            const app_option *o = NULL;
            for (uint32_t k = 0; k < cmd->option_count && !o; k++)
                if (strcmp(cmd->options[k].name, a + 2) == 0)
                    o = &cmd->options[k];
            if (!o) {
                fprintf(stderr, "vkskin %s: unknown option '%s' (see vkskin %s --help)\n",
                        cmd->name, a, cmd->name);
                return APP_USAGE;
            }
            if (o->value || o->list) {
                if (i + 1 >= argc) {
                    fprintf(stderr, "vkskin %s: option '%s' needs a value %s\n", cmd->name, a,
                            o->arg);
                    return APP_USAGE;
                }
                if (o->value) {
                    *o->value = argv[++i];
                } else if (*o->list_count < o->list_max) {
                    o->list[(*o->list_count)++] = argv[++i];
                } else {
                    fprintf(stderr, "vkskin %s: at most %u times '%s'\n", cmd->name, o->list_max,
                            a);
                    return APP_USAGE;
                }
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

bool app_parse_seconds(const char *text, double *seconds, vks_error *err)
{
    char *end;
    double v = strtod(text, &end);
    if (end == text || *end != '\0' || !isfinite(v) || v < 0.0)
        return vks_fail(err, "--time needs a finite number of seconds >= 0, not '%s'", text);
    *seconds = v;
    return true;
}
