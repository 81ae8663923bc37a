/* `vkskin dump --joints`: where instance 0's joints are in the world, frame after frame, on the
 * CPU (a crowd of one at the origin, heading 0, in the model's own units). How a user, and the
 * tests, check that feet stay planted. */
#ifndef VKS_APP_DUMP_JOINTS_H
#define VKS_APP_DUMP_JOINTS_H

#include "vkskin/vkskin.h"

typedef struct app_joints_args {
    int32_t clip;     /* a clip index, or VKSKIN_CLIP_NONE */
    double seconds;   /* the clock at frame 0 */
    uint32_t frames;  /* lines of every joint */
    double fps;       /* frames a second */
    bool root_motion; /* the clip's travel moves the instance, posed in place */
    double speed;     /* > 0: the instance moves along its heading at this many units a second */
} app_joints_args;

/* Writes `FRAME NAME X Y Z` per joint per frame (FRAME from 0; NAME as the file has it, so the
 * last three fields are the coordinates) to `out` ('-': standard output), whole or not at all,
 * and says how many lines; APP_OK or APP_FAILED (said). */
int app_dump_joints(vkskin_model *model, const app_joints_args *a, const char *out);

#endif
