/* Morph targets before skinning (morph.h). */
#include "morph.h"

#include <string.h>

uint32_t vks_morph_write(const vks_model *m, const float *weights, vks_bone *dest)
{
    uint32_t *out = (uint32_t *)dest, count = 0;
    for (uint32_t t = 0; t < m->target_count; t++)
        if (weights[t] != 0.0f) {
            uint32_t bits;
            memcpy(&bits, &weights[t], sizeof bits);
            out[VKS_MORPH_LIST_HEADER + 2 * count] = t;
            out[VKS_MORPH_LIST_HEADER + 2 * count + 1] = bits;
            count++;
        }
    out[0] = count;
    for (uint32_t k = 1; k < VKS_MORPH_LIST_HEADER; k++)
        out[k] = 0;
    return count;
}

void vks_morph_apply(const vks_model *m, const float *weights, const uint32_t *source,
                     uint32_t count, float (*positions)[3], float (*normals)[3],
                     float (*tangents)[4])
{
    for (uint32_t t = 0; t < m->target_count; t++) {
        const float w = weights[t];
        if (w == 0.0f)
            continue;
        const vks_morph_target *tg = &m->targets[t];
        for (uint32_t i = 0; i < count; i++) {
            /* Unsigned: a vertex before the range wraps past its end, as in the shader. */
            const uint32_t d = (source ? source[i] : i) - tg->vertex_first;
            if (d >= tg->vertex_count)
                continue;
            const size_t at = (size_t)tg->delta_first + d;
            for (int k = 0; k < 3; k++) {
                positions[i][k] += w * m->morph_positions[at][k];
                if (m->morph_normals)
                    normals[i][k] += w * m->morph_normals[at][k];
                if (tangents && m->morph_tangents)
                    tangents[i][k] += w * m->morph_tangents[at][k];
            }
        }
    }
}
