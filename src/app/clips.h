/* The viewer's clip keys over the public API: every instance steps to its model's next or
 * previous clip, or cross-fades into the bind pose and back into the clip it held. */
#ifndef VKS_APP_CLIPS_H
#define VKS_APP_CLIPS_H

#include "vkskin/vkskin.h"

#include <stdbool.h>
#include <stdint.h>

/* The clip each instance goes back to from the bind pose, learnt from its clip when first seen
 * (and after vkskin_crowd_reset: app_clips_forget). */
typedef struct app_clips {
    int32_t *held;
    uint32_t room;
} app_clips;

/* Every live instance steps `delta` clips (mod its model's clip count) and cross-fades into it
 * over `fade` seconds; instances of models without clips stay in the bind pose. */
bool app_clips_step(app_clips *c, vkskin_crowd *crowd, vkskin_model *const *models, int32_t delta,
                    double fade, vkskin_error *err);
/* on: every live instance cross-fades into the bind pose over `fade` seconds, holding its clip;
 * off: back into the clip it held, from its start. */
bool app_clips_bind_pose(app_clips *c, vkskin_crowd *crowd, bool on, double fade,
                         vkskin_error *err);
/* The instances' clips are new (the crowd was reset): each one's held clip is learnt again. */
void app_clips_forget(app_clips *c);
void app_clips_free(app_clips *c);

#endif
