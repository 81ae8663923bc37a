/* Animation: clips sampled into local poses, poses blended, local -> model -> palette.
 * All functions write into caller-provided arrays and allocate nothing, so they can run per frame
 * and per instance, straight into a mapped storage buffer. */
#ifndef VKS_ANIM_H
#define VKS_ANIM_H

#include "../asset/model.h"

typedef enum vks_wrap {
    VKS_WRAP_LOOP,  /* time repeats within [0, duration) */
    VKS_WRAP_CLAMP, /* time stays within [0, duration] */
} vks_wrap;

/* Maps any finite time in seconds into the clip's range. A clip of duration 0 maps to 0. Times
 * stay in double down to the key search and the segment's factor: in float, a time near 64 s is
 * off by up to 4e-6 s, visibly far for a fast joint. */
double vks_clip_time(const vks_clip *clip, double seconds, vks_wrap wrap);

/* Index i of the key segment holding t: times[i] <= t < times[i + 1], clamped to [0, count - 2]
 * (0 when count < 2). `hint` (may be NULL) is the segment found last time for this track; when t
 * lies in it or the next one the search costs O(1), else a binary search runs. The hint is updated.
 */
uint32_t vks_key_find(const float *times, uint32_t count, double t, uint32_t *hint);

/* The interpolation factor at t within segment i (vks_key_find's): 0 at or before times[i], 1 at
 * or after times[i + 1]. At a step (keys sharing a time: a segment of length 0) the later key
 * holds from that time on, the end of the clip included. */
float vks_key_factor(const float *times, uint32_t i, double t);

/* Per-instance sampling state: three key hints (translation, rotation, scale) per joint.
 * vks_cursor_size gives the uint32 count; zero-initialise it, keep one per (instance, clip). */
static inline uint32_t vks_cursor_size(const vks_skeleton *skeleton)
{
    return skeleton->joint_count * 3u;
}

/* Samples `clip` at time t (seconds within [0, duration], see vks_clip_time) into one local
 * transform per joint: translation and scale lerped, rotation slerped along the shortest path;
 * before the first key the first value holds, after the last key the last. Joints without keys
 * take their rest transform. `cursor` may be NULL (stateless binary search). */
void vks_clip_sample(const vks_skeleton *skeleton, const vks_clip *clip, double t, uint32_t *cursor,
                     vks_xform *local);

/* The model's morph-target weights in `clip` (NULL: none) at t (seconds within [0, duration],
 * see vks_clip_time) into weights[model->target_count]: each target's default weight, then the
 * clip's weight tracks, each at t by its interpolation: LINEAR between the keys around t, STEP
 * the last key at or before t, CUBIC glTF's Hermite spline (the out-tangent of the key before
 * and the in-tangent of the key after, scaled by the keys' distance in time); before the first
 * key the first value holds, after the last the last. */
void vks_clip_weights(const vks_model *model, const vks_clip *clip, double t, float *weights);

/* The rest (bind) pose: every joint's rest transform. */
void vks_pose_rest(const vks_skeleton *skeleton, vks_xform *local);

/* Cross-fade: out = a * (1 - w) + b * w per joint (rotations by shortest-path slerp).
 * out may alias a or b. */
void vks_pose_blend(const vks_xform *a, const vks_xform *b, float w, uint32_t joint_count,
                    vks_xform *out);

/* Local pose -> palette in one pass over the parent-before-child joints:
 * model[j] = model[parent] * local[j] (root_inverse * local[j] for roots),
 * palette[j] = model[j] * inverse_bind[j].
 * `model` is caller scratch (joint_count entries) and holds the root-relative model transforms
 * afterwards; `palette` receives joint_count entries. */
void vks_pose_palette(const vks_skeleton *skeleton, const vks_xform *local, vks_affine *model,
                      vks_bone *palette);
/* The same in two passes, to time them apart (`bench --anim-only --phases`): local -> model, then
 * model -> palette. Together they give vks_pose_palette's result. */
void vks_pose_model(const vks_skeleton *skeleton, const vks_xform *local, vks_affine *model);
void vks_pose_skin(const vks_skeleton *skeleton, const vks_affine *model, vks_bone *palette);

#endif
