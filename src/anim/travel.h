/* Root motion at run time: the travel a clip carries (asset/model.h, vks_root_motion, taken out
 * of it at load by bake/root_motion.h), evaluated between two clocks. */
#ifndef VKS_TRAVEL_H
#define VKS_TRAVEL_H

#include "../asset/model.h"

#include <math.h>

/* M(t) of clip `clip` (root_motion[clip].sample_count > 0) at t in [0, duration] (clamped):
 * the samples around t interpolated linearly. */
vks_travel vks_travel_at(const vks_model *model, uint32_t clip, double t);

/* a then b: b's motion carried by a (the placement frame turned and moved by a). */
static inline vks_travel vks_travel_then(vks_travel a, vks_travel b)
{
    const float c = cosf(a.yaw), s = sinf(a.yaw);
    return (vks_travel){a.yaw + b.yaw, a.x + c * b.x + s * b.z, a.z - s * b.x + c * b.z};
}

/* The inverse: vks_travel_then(a, vks_travel_inverse(a)) is the identity. */
static inline vks_travel vks_travel_inverse(vks_travel a)
{
    const float c = cosf(a.yaw), s = sinf(a.yaw);
    return (vks_travel){-a.yaw, -(c * a.x - s * a.z), -(s * a.x + c * a.z)};
}

/* The travel of clip `clip` from time t0 to t0 + step (step may cross any number of loops, and be
 * negative), in the frame the character had at t0. */
vks_travel vks_travel_between(const vks_model *model, uint32_t clip, double t0, double step);

#endif
