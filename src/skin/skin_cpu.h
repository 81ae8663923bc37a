/* CPU reference skinning: the oracle for every GPU result. It computes exactly what
 * shaders/skin.comp computes, in the same order of operations:
 *   M  = sum_i weights[i] * palette[joints[i]]          (3x4, i = 0..3)
 *   p' = M * (p, 1)
 *   n' = normalize(cofactor(M3x3) * n) * sign(det M3x3) (the inverse-transpose up to a positive
 *        scale, so normals stay perpendicular under non-uniform scale; 0 stays 0). */
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
    const uint16_t (*joints)[VKS_MAX_INFLUENCES];
    const float (*weights)[VKS_MAX_INFLUENCES];
} vks_skin_input;

/* Skins every vertex of `in` with `palette` into out_positions and out_normals (vertex_count
 * entries each). Joint indices must be below the palette's length (the importer checks this). */
void vks_skin_cpu(const vks_skin_input *in, const vks_bone *palette, float (*out_positions)[3],
                  float (*out_normals)[3]);

/* The model's vertex streams as skinning input. */
vks_skin_input vks_skin_input_of(const vks_model *model);

/* The whole reference in one call, for tools and tests (it allocates): samples `clip` (-1: the
 * rest pose) at `seconds`, looping within the clip, builds the palette and skins every vertex
 * into positions and normals (vertex_count entries each). Returns false only when out of memory. */
bool vks_skin_cpu_pose(const vks_model *model, int32_t clip, double seconds, float (*positions)[3],
                       float (*normals)[3]);

#endif
