#include "script.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const struct {
    const char *name;
    app_action action;
} names[] = {
    {"pause", APP_ACT_PAUSE},       {"prev", APP_ACT_PREV},
    {"next", APP_ACT_NEXT},         {"faster", APP_ACT_FASTER},
    {"slower", APP_ACT_SLOWER},     {"bind", APP_ACT_BIND},
    {"reset", APP_ACT_RESET},       {"minimise", APP_ACT_MINIMISE},
    {"restore", APP_ACT_RESTORE},   {"quit", APP_ACT_QUIT},
    {"help", APP_ACT_HELP},         {"ground", APP_ACT_GROUND},
    {"skeleton", APP_ACT_SKELETON}, {"screenshot", APP_ACT_SCREENSHOT},
};

bool app_script_parse(const char *text, const char *period, app_script *s, vkskin_error *err)
{
    *s = (app_script){0};
    if (period && !app_parse_real("--script-period", period, "seconds", 0.1, 1e6, &s->period, err))
        return false;
    const char *at = text;
    while (*at) {
        const char *comma = strchr(at, ',');
        const size_t length = comma ? (size_t)(comma - at) : strlen(at);
        char step[64];
        if (length == 0 || length >= sizeof step)
            return app_fail(err, "--script: a step is TIME:ACTION, not '%.*s'", (int)length, at);
        memcpy(step, at, length);
        step[length] = '\0';
        char *colon = strchr(step, ':'), *end;
        if (s->count == APP_SCRIPT_MAX)
            return app_fail(err, "--script: at most %u steps", APP_SCRIPT_MAX);
        app_script_step *st = &s->steps[s->count];
        st->at = colon ? strtod(step, &end) : NAN;
        if (!colon || end != colon || !(st->at >= 0.0 && st->at <= 1e6) ||
            (s->count && st->at < s->steps[s->count - 1].at) ||
            (s->period > 0.0 && st->at >= s->period))
            return app_fail(err,
                            "--script: '%s' needs a time in seconds, ascending (and below "
                            "--script-period), then ':' and an action",
                            step);
        const char *action = colon + 1;
        bool known = false;
        for (size_t k = 0; k < sizeof names / sizeof names[0] && !known; k++)
            if (strcmp(action, names[k].name) == 0) {
                st->action = names[k].action;
                known = true;
            }
        if (!known && strncmp(action, "resize=", 7) == 0) {
            vkskin_error size_err;
            if (!app_parse_size("resize=", action + 7, &st->width, &st->height, &size_err))
                return app_fail(err, "--script: '%s': %s", step, size_err.message);
            st->action = APP_ACT_RESIZE;
            known = true;
        }
        if (!known)
            return app_fail(err,
                            "--script: no action '%s' (pause, prev, next, faster, slower, bind, "
                            "reset, resize=WxH, minimise, restore, quit, help, ground, skeleton, "
                            "screenshot)",
                            action);
        s->count++;
        at += length + (comma ? 1 : 0);
    }
    if (!s->count)
        return app_fail(err, "--script needs at least one TIME:ACTION step");
    return true;
}

const app_script_step *app_script_due(app_script *s, double seconds)
{
    if (s->next == s->count) {
        if (s->period <= 0.0 || seconds < s->base + s->period)
            return NULL;
        s->base += s->period; /* the next period */
        s->next = 0;
    }
    if (seconds < s->base + s->steps[s->next].at)
        return NULL;
    return &s->steps[s->next++];
}
