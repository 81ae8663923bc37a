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
    {"motion", APP_ACT_MOTION},     {"root-motion", APP_ACT_ROOT_MOTION},
    {"camera", APP_ACT_CAMERA},
};

/* The most frames a time may count: view's --frames takes as many. */
#define MAX_FRAMES 100000000.0

/* A time, the text up to `end`: seconds from 0 to 1e6, or whole frames written Nf. */
static bool parse_time(const char *text, const char *end, double *at, bool *frames)
{
    const size_t length = (size_t)(end - text);
    const size_t digits = strspn(text, "0123456789");
    *frames = length > 1 && digits == length - 1 && digits <= 9 && text[digits] == 'f';
    if (*frames) {
        *at = (double)strtoul(text, NULL, 10);
        return *at <= MAX_FRAMES;
    }
    char *stop;
    *at = length ? strtod(text, &stop) : NAN;
    return length && stop == end && *at >= 0.0 && *at <= 1e6;
}

static bool parse_period(const char *text, app_script *s, vkskin_error *err)
{
    if (!parse_time(text, text + strlen(text), &s->period, &s->frames) ||
        (s->frames ? s->period < 1.0 : s->period < 0.1))
        return app_fail(err,
                        "--script-period needs seconds from 0.1 to 1000000, or frames from 1f to "
                        "%.0ff, not '%s'",
                        MAX_FRAMES, app_quote(text).text);
    return true;
}

static bool parse_action(const char *step, const char *action, app_script_step *st,
                         vkskin_error *err)
{
    for (size_t k = 0; k < sizeof names / sizeof names[0]; k++)
        if (strcmp(action, names[k].name) == 0) {
            st->action = names[k].action;
            return true;
        }
    if (strncmp(action, "resize=", 7) == 0) {
        vkskin_error size_err;
        if (!app_parse_size("resize=", action + 7, &st->width, &st->height, &size_err))
            return app_fail(err, "--script: '%s': %s", step, size_err.message);
        st->action = APP_ACT_RESIZE;
        return true;
    }
    return app_fail(err,
                    "--script: no action '%s' (pause, prev, next, faster, slower, bind, reset, "
                    "resize=WxH, minimise, restore, quit, help, ground, skeleton, screenshot)",
                    action);
}

bool app_script_parse(const char *text, const char *period, app_script *s, vkskin_error *err)
{
    *s = (app_script){0};
    if (period && !parse_period(period, s, err))
        return false;
    const char *at = text;
    while (*at) {
        const char *comma = strchr(at, ',');
        const size_t length = comma ? (size_t)(comma - at) : strlen(at);
        char step[64];
        if (length == 0 || length >= sizeof step)
            return app_fail(err, "--script: a step is TIME:ACTION, not '%.*s'",
                            (int)(length < 40 ? length : 40), at);
        memcpy(step, at, length);
        step[length] = '\0';
        if (s->count == APP_SCRIPT_MAX)
            return app_fail(err, "--script: at most %u steps", APP_SCRIPT_MAX);
        app_script_step *st = &s->steps[s->count];
        const char *colon = strchr(step, ':');
        bool frames = false;
        const bool timed = colon && parse_time(step, colon, &st->at, &frames);
        if (timed && (s->count || period) && frames != s->frames)
            return app_fail(err,
                            "--script: '%s' counts %s where %s counts %s: write every time in "
                            "one unit",
                            step, frames ? "frames" : "seconds",
                            s->count ? "the step before" : "--script-period",
                            s->frames ? "frames" : "seconds");
        if (!timed || (s->count && st->at < s->steps[s->count - 1].at) ||
            (s->period > 0.0 && st->at >= s->period))
            return app_fail(err,
                            "--script: '%s' needs a time in seconds or frames (Nf), ascending "
                            "(and below --script-period), then ':' and an action",
                            step);
        s->frames = frames;
        if (!parse_action(step, colon + 1, st, err))
            return false;
        s->count++;
        at += length + (comma ? 1 : 0);
    }
    if (!s->count)
        return app_fail(err, "--script needs at least one TIME:ACTION step");
    return true;
}

const app_script_step *app_script_due(app_script *s, double seconds, uint32_t frame)
{
    const double now = s->frames ? (double)frame : seconds;
    if (s->next == s->count) {
        if (s->period <= 0.0 || now < s->base + s->period)
            return NULL;
        s->base += s->period; /* the next period */
        s->next = 0;
    }
    if (now < s->base + s->steps[s->next].at)
        return NULL;
    return &s->steps[s->next++];
}
