/* Scripted input for `view` (tests and soaks): actions at times, optionally repeated with a
 * period, e.g. "1:next,2:faster,3:pause,3.5:pause,4:resize=800x600,5:minimise,6:restore,7:reset".
 * A time is seconds since the start, or with an f frames: "12f:screenshot" runs before frame 12
 * is drawn (frames counted from 0; while minimised, each wait of up to 50 ms without a frame
 * counts as one). One script counts in one unit, its period too ("--script-period 30f").
 * Actions: pause (toggles), prev, next, faster, slower, bind (toggles the bind pose), reset,
 * resize=WxH, minimise, restore, quit, and the keys help (H), ground (G), skeleton (K),
 * motion (M), root-motion (T), camera (C), screenshot (F12). */
#ifndef VKS_APP_SCRIPT_H
#define VKS_APP_SCRIPT_H

#include "app.h"

typedef enum app_action {
    APP_ACT_PAUSE,
    APP_ACT_PREV,
    APP_ACT_NEXT,
    APP_ACT_FASTER,
    APP_ACT_SLOWER,
    APP_ACT_BIND,
    APP_ACT_RESET,
    APP_ACT_RESIZE,
    APP_ACT_MINIMISE,
    APP_ACT_RESTORE,
    APP_ACT_QUIT,
    APP_ACT_HELP,
    APP_ACT_GROUND,
    APP_ACT_SKELETON,
    APP_ACT_SCREENSHOT,
    APP_ACT_MOTION,
    APP_ACT_ROOT_MOTION,
    APP_ACT_CAMERA,
} app_action;

#define APP_SCRIPT_MAX 64

typedef struct app_script_step {
    double at; /* seconds, or frames, from the start (of each period) */
    app_action action;
    uint32_t width, height; /* APP_ACT_RESIZE */
} app_script_step;

typedef struct app_script {
    app_script_step steps[APP_SCRIPT_MAX]; /* ascending by time */
    uint32_t count;
    double period; /* the steps repeat every period seconds or frames (0: once) */
    bool frames;   /* the times and the period count frames, not seconds */
    uint32_t next; /* the next step to run */
    double base;   /* where the current period started, seconds or frames */
} app_script;

/* Parses --script TEXT (and --script-period S or Nf, may be NULL); a usage error on bad text. */
bool app_script_parse(const char *text, const char *period, app_script *script, vkskin_error *err);
/* The next step due by `seconds` since the start or before frame `frame` (the script's unit
 * decides), or NULL when none is. */
const app_script_step *app_script_due(app_script *script, double seconds, uint32_t frame);

#endif
