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
/* Lists instance i as moved (once), the list allocated. */
void vks_crowd__mark_moved(vks_crowd *crowd, uint32_t i);

/* A thread's block of vks_crowd.scratch, what posing needs for the crowd's largest skeleton:
 * byte offsets in the block (the direct path's local poses at 0), and the block's size. */
typedef struct vks_crowd__scratch {
    size_t local_from, model, sampler, pose, weights, stride;
} vks_crowd__scratch;
vks_crowd__scratch vks_crowd__scratch_of(const vks_crowd *crowd);

#endif
