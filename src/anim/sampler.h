/* Clips prepared for fast posing (the crowd's per-frame path; anim.h keeps the direct one).
 *
 * A sampler holds one clip resampled onto the union of its channels' key times. Inserting a key
 * is exact: a key placed on a lerp segment or a slerp arc is a point of that segment or arc, and
 * the curve through it is the same curve (up to float rounding). Most clips (every exporter that
 * bakes: Blender, gltfpack, FBX and Collada bakes, the long fixture) already share one set of
 * times, and then nothing is inserted. With one time line, one key search per instance finds
 * every joint's segment. Each segment runs from the channels' values at its start to their
 * limits before its end, so steps (keys sharing a time) stay steps; a segment of length 0 before
 * the first time and after the last holds what the direct path holds there.
 *
 * Each segment is stored per block of 8 joints as a structure of arrays (21 components of 8
 * floats): translation and scale as start and delta, so that lerp is start + delta * u as
 * anim.h computes it, and the rotation as an arc, start a, unit direction c orthogonal to it
 * and angle theta, so that slerp is a cos(u theta) + c sin(u theta), exact, without acos or a
 * division. A pose is then branch-free SIMD over 8 joints (4 at a time with SSE2, 8 with AVX2 and
 * FMA, chosen at run time), local matrices in SoA, followed by one pass over the joints that
 * builds each model transform and palette entry in registers and writes the entry once.
 *
 * Accuracy: within 1e-6 of the bind-pose box's diagonal of the double-precision walk
 * (tests/test_walk.c), like the direct path. */
#ifndef VKS_SAMPLER_H
#define VKS_SAMPLER_H

#include "../asset/model.h"

#include <stdbool.h>
#include <stddef.h>

#define VKS_SAMPLER_LANES 8u /* joints per block */
#define VKS_SAMPLER_COMPONENTS                                                                     \
    21 /* per joint and segment: T 3, dT 3, S 3, dS 3, a 4, c 4, theta                             \
        */

typedef enum vks_sampler_isa {
    VKS_SAMPLER_SCALAR, /* plain C (a CPU without SSE2) */
    VKS_SAMPLER_SSE2,   /* every x86-64 */
    VKS_SAMPLER_AVX2,   /* AVX2 and FMA, when the CPU has them */
} vks_sampler_isa;

typedef struct vks_sampler_impl vks_sampler_impl;

typedef struct vks_sampler {
    uint32_t joint_count, block_count;
    uint32_t segment_count; /* >= 1 */
    float *times;           /* segment_count + 1 ascending key times, seconds */
    float *segments;        /* segment_count x block_count x COMPONENTS x LANES, 32-byte aligned */
    const vks_sampler_impl *impl;
} vks_sampler;

typedef enum vks_sampler_result {
    VKS_SAMPLER_BUILT,
    VKS_SAMPLER_TOO_LARGE, /* the resampled clip would exceed max_bytes: use anim.h */
    VKS_SAMPLER_NO_MEMORY,
} vks_sampler_result;

/* Prepares `clip` (NULL: the rest pose) of `skeleton` with the CPU's best instruction set. The
 * clip's keys must be finite and each track's times ascending (what the importer guarantees).
 * On anything but VKS_SAMPLER_BUILT, *out is zeroed and owns nothing. */
vks_sampler_result vks_sampler_build(const vks_skeleton *skeleton, const vks_clip *clip,
                                     size_t max_bytes, vks_sampler *out);
void vks_sampler_free(vks_sampler *s);

/* Bytes the sampler holds: its segments and key times. */
size_t vks_sampler_bytes(const vks_sampler *s);

/* The instruction set in use, and a switch to another (false, nothing changed, when this CPU or
 * build lacks it). For tests and benchmarks: every set computes the same pose within rounding. */
vks_sampler_isa vks_sampler_current_isa(const vks_sampler *s);
bool vks_sampler_use_isa(vks_sampler *s, vks_sampler_isa isa);
const char *vks_sampler_isa_name(vks_sampler_isa isa);

/* Per-thread scratch for a pose of up to `joint_count` joints: the local matrices (SoA) and the
 * model transforms. Allocate with 64-byte alignment. */
size_t vks_sampler_scratch_bytes(uint32_t joint_count);

/* Poses the clip at time t (seconds within [0, duration], see vks_clip_time) into `palette`
 * (joint_count entries, as vks_pose_palette). `cursor` is one key hint per (instance, clip),
 * zero-initialised. With `stream` (and palette 16-byte aligned) the entries are written with
 * non-temporal stores, for memory the CPU will not read again (a mapped GPU buffer): call
 * vks_sampler_fence before another thread or the GPU reads them. */
void vks_sampler_pose(const vks_sampler *s, const vks_skeleton *skeleton, double t,
                      uint32_t *cursor, void *scratch, vks_bone *palette, bool stream);
void vks_sampler_fence(void);
/* The same for the first `joints` joints only (a prefix closed under parents: a skeleton in
 * bake/skeleton_lod.h's pose order), sampling only the blocks that hold them. */
void vks_sampler_pose_joints(const vks_sampler *s, const vks_skeleton *skeleton, double t,
                             uint32_t *cursor, void *scratch, vks_bone *palette, bool stream,
                             uint32_t joints);

/* The pose in its three steps, to time them apart (`bench --anim-only --phases`) and to test
 * them: sampling into local matrices (SoA, VKS_SAMPLER_LANES lanes per block of 12 components,
 * vks_sampler_local_floats of them, 32-byte aligned; read one with vks_sampler_local_joint),
 * local to model transforms (4 columns of 4 floats per joint, `model` 16-byte aligned), model
 * to palette. */
void vks_sampler_local(const vks_sampler *s, double t, uint32_t *cursor, float *local);
void vks_sampler_model(const vks_sampler *s, const vks_skeleton *skeleton, const float *local,
                       float (*model)[4][4]);
void vks_sampler_skin(const vks_sampler *s, const vks_skeleton *skeleton,
                      const float (*model)[4][4], vks_bone *palette);
size_t vks_sampler_local_floats(uint32_t joint_count);
void vks_sampler_local_joint(const float *local, uint32_t joint, vks_affine *out);

#endif
