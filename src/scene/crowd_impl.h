/* What the crowd's files share (crowd.h's functions, one file per job): crowd.c lays the crowd
 * out and creates it, crowd_change.c adds and removes instances, crowd_clock.c runs the clocks
 * and cross-fades, crowd_cull.c culls, crowd_lod.c chooses levels, periods and the schedule,
 * crowd_pose.c writes the palettes. */
#ifndef VKS_CROWD_IMPL_H
#define VKS_CROWD_IMPL_H

#include "crowd.h"

/* The moved list, allocated at the first move (room for instance_capacity); false when out of
 * memory. */
bool vks_crowd__moved_list(vks_crowd *crowd);
/* Lists instance i as moved (once), the list allocated, and grows the crowd's box around its
 * sphere. */
void vks_crowd__mark_moved(vks_crowd *crowd, uint32_t i);
/* Places instance i at `world` (its sphere and scale following), neither listing it as moved nor
 * growing the crowd's box. */
void vks_crowd__place(vks_crowd *crowd, uint32_t i, const float world[4][4]);

/* The clip argument instance `in` poses `clip` by (asset/model.h): its copy in place when the
 * instance plays with root motion. */
static inline int32_t vks_crowd__clip(const vks_crowd_instance *in, int32_t clip)
{
    return clip >= 0 && (in->root_motion || in->driven) ? clip | VKS_CLIP_IN_PLACE : clip;
}

/* Instance i's world takes in the travel its clips have made so far (crowd_clock.c): what it
 * needs to stay where it is seen when it starts posing in place. */
void vks_crowd__take_travel(vks_crowd *crowd, uint32_t i);
/* A driven instance's clocks and place over dt (crowd_motion.c), on the pool's threads. */
void vks_crowd__drive(vks_crowd *crowd, uint32_t i, double dt);
/* The gaits of every model (vks_crowd.gaits), at creation; false when out of memory. */
bool vks_crowd__gaits(vks_crowd *crowd);
/* The sampler of model m for a clip argument: [0] the bind pose, [1 + c] clip c, [1 + clip_count
 * + c] clip c's copy in place (a model with root motion). */
static inline const vks_sampler *vks_crowd__sampler(const vks_crowd *crowd, uint32_t m,
                                                    int32_t clip)
{
    const vks_model *model = crowd->models[m];
    const int32_t c = vks_clip_index(clip);
    const bool in_place = clip >= 0 && (clip & VKS_CLIP_IN_PLACE) && vks_model_travels(model, c);
    return &crowd->samplers[m][in_place ? 1 + model->clip_count + (uint32_t)c : (uint32_t)(c + 1)];
}

/* A thread's block of vks_crowd.scratch, what posing needs for the crowd's largest skeleton:
 * byte offsets in the block (the direct path's local poses at 0), and the block's size. */
typedef struct vks_crowd__scratch {
    size_t local_from, model, sampler, pose, weights, stride;
} vks_crowd__scratch;
vks_crowd__scratch vks_crowd__scratch_of(const vks_crowd *crowd);

#endif
