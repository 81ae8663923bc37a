/* CPU reference skinning: the oracle for every GPU result. It computes what shaders/skin.comp
 * computes, in the same order of operations (up to the GPU's rounding: it may fuse
 * multiply-adds and uses inversesqrt, src/asset/pack.h):
 *   M  = sum_i weights[i] * palette[joints[i]]          (3x4, i = 0..3, added in that order)
 *      + sum_i weights_extra[i] * palette[joints_extra[i]]   (then i = 0..3 again, added to the
 *                                                        same sum, for a wide model only)
 *   p' = M * (p, 1)
 *   n' = normalize(cofactor(M3x3) * n) * sign(det M3x3) (the inverse-transpose up to a positive
 *        scale, so normals stay perpendicular under non-uniform scale; 0 stays 0)
 *   t3 = M3x3 * t.xyz                                   (tangents lie in the surface: they
 *   t' = t3 / sqrt(dot(t3, t3))                          follow M, not the inverse-transpose;
 *                                                        0 when dot(t3, t3) is 0)
 *   w' = t.w * (det M3x3 < 0 ? -1 : 1)                  (a mirror flips the handedness)
 * sign(det) above is likewise -1 only when det < 0, with det = dot(row 0 of M3x3, row 0 of the
 * cofactor matrix). */
#ifndef VKS_SKIN_CPU_H
#define VKS_SKIN_CPU_H

#include "../../shaders/vks_shared.h"
#include "../asset/model.h"

#include <stdbool.h>
#include <stdint.h>

typedef struct vks_skin_input {
    uint32_t vertex_count;
    const float (*positions)[3];
    const float (*normals)[3];
    const float (*tangents)[4]; /* xyz, handedness w; NULL when the model has none */
    const uint16_t (*joints)[VKS_MAX_INFLUENCES];
    const float (*weights)[VKS_MAX_INFLUENCES];
    /* Influences 5 to 8 of a wide model; both NULL for 4 influences per vertex. */
    const uint16_t (*joints_extra)[VKS_MAX_INFLUENCES];
    const float (*weights_extra)[VKS_MAX_INFLUENCES];
} vks_skin_input;

/* Skins every vertex of `in` with `palette` into out_positions, out_normals and out_tangents
 * (vertex_count entries each). out_tangents may be NULL; it is written only when in->tangents is
 * not NULL either. Joint indices must be below the palette's length (the importer checks this). */
void vks_skin_cpu(const vks_skin_input *in, const vks_bone *palette, float (*out_positions)[3],
                  float (*out_normals)[3], float (*out_tangents)[4]);

/* The model's vertex streams as skinning input (with its extra streams when it is wide). */
vks_skin_input vks_skin_input_of(const vks_model *model);

/* The palette of `clip` (-1: the rest pose; with VKS_CLIP_IN_PLACE, its copy in place, asset/
 * model.h) at `seconds`, looping, through anim.h's direct path;
 * local and world are the skeleton's joint_count of scratch each. */
void vks_skin_cpu_palette(const vks_model *model, int32_t clip, double seconds, vks_xform *local,
                          vks_affine *world, vks_bone *palette);

/* The whole reference in one call, for tools and tests (it allocates): samples `clip` (-1: the
 * rest pose) at `seconds`, looping within the clip, builds the palette and skins every vertex
 * into positions, normals and tangents (vertex_count entries each; tangents may be NULL, and is
 * left untouched when the model has none). Returns false only when out of memory. */
bool vks_skin_cpu_pose(const vks_model *model, int32_t clip, double seconds, float (*positions)[3],
                       float (*normals)[3], float (*tangents)[4]);
/* The same at a level of detail (asset/model.h): the level's vertices, in its order (each a copy
 * of the level-0 vertex lod_source names), vks_model_level(model, level).vertex_count entries
 * each; level 0 is vks_skin_cpu_pose. */
bool vks_skin_cpu_pose_level(const vks_model *model, uint32_t level, int32_t clip, double seconds,
                             float (*positions)[3], float (*normals)[3], float (*tangents)[4]);
/* The same, dual-quaternion skinned when `dq` (skin/dqs.h: the palette converted entry by entry,
 * then vks_skin_cpu_dq); level 0 included. */
bool vks_skin_cpu_pose_level_as(const vks_model *model, uint32_t level, int32_t clip,
                                double seconds, bool dq, float (*positions)[3], float (*normals)[3],
                                float (*tangents)[4]);
/* The same with the model's morph targets at `weights` (target_count of them; NULL: the clip's at
 * that time, vks_clip_weights): each vertex morphed first (skin/morph.h), then skinned. Every
 * vks_skin_cpu_pose* of a model with targets morphs so, with the clip's weights. */
bool vks_skin_cpu_pose_weighted(const vks_model *model, uint32_t level, int32_t clip,
                                double seconds, bool dq, const float *weights,
                                float (*positions)[3], float (*normals)[3], float (*tangents)[4]);
/* The box around the bind pose's skinned vertices, in palette space (all 0 for a model without
 * vertices). Returns false only when out of memory. */
bool vks_skin_cpu_bind_box(const vks_model *model, float lo[3], float hi[3]);

#endif
