/* The program's built-in motions (--motion wander|lanes), written on the library's batch calls:
 * each frame they give every instance a velocity (vkskin_crowd_set_velocities) and the crowd
 * walks them, its clips following their speeds. Seeded, computed on one thread from each
 * instance's index and the frame count: the same crowd walks the same way whatever the thread
 * count. Both keep the crowd within its field (the box its instances stood in at the start,
 * grown by a margin): wandering instances turn back towards its middle, lane walkers come back
 * in at the far end. */
#ifndef VKS_APP_MOTION_H
#define VKS_APP_MOTION_H

#include "vkskin/vkskin.h"

typedef enum app_motion_kind {
    APP_MOTION_NONE,   /* the instances stay where they stand */
    APP_MOTION_WANDER, /* each walks at its own pace, its heading turning slowly */
    APP_MOTION_LANES,  /* rows walking along z, every other one the other way */
} app_motion_kind;

typedef struct app_motion {
    app_motion_kind kind;
    uint32_t count; /* instances it moves (the crowd's at the start) */
    uint64_t frame;
    double time;
    float lo[2], hi[2]; /* the field: x and z */
    float pace;         /* world units a second of an average walker */
    float *position;    /* per instance: x, z (the crowd integrates the same velocities) */
    float *heading, *speed, *velocity, *phase;
    uint32_t *wrapped; /* lanes: instances brought back in this frame */
    float *wrap_at;    /* their positions (x, y, z) and headings */
    float *wrap_heading;
} app_motion;

/* --motion's word (NULL: none) into *kind; false, with the message, for any other. */
bool app_parse_motion(const char *text, app_motion_kind *kind, vkskin_error *err);
const char *app_motion_name(app_motion_kind kind);

/* Starts the motion on the crowd as it stands (none: nothing to do). False when out of memory. */
bool app_motion_start(app_motion *m, app_motion_kind kind, vkskin_crowd *crowd, uint32_t seed,
                      vkskin_error *err);
/* The velocities (and lanes' wraps) for the next dt seconds, given to the crowd before it
 * advances. */
bool app_motion_step(app_motion *m, vkskin_crowd *crowd, double dt, vkskin_error *err);
void app_motion_destroy(app_motion *m);

#endif
