/* Morph targets before skinning (asset/model.h): the list of an instance's active targets that
 * travels beside its palette, and the CPU reference that applies them.
 *
 * An instance's targets are active where its weight is not 0 (its clip's weights at its time,
 * cross-fades blended: scene/crowd.h). Each frame its active list follows its palette entries in
 * its palette range (shaders/vks_shared.h, "Morph targets"), so that whatever moves a palette (the
 * staging and the store's scatter, the kept poses of animation level of detail) moves the list
 * with it, and the skinning pass reads no other per-instance data for it. */
#ifndef VKS_MORPH_H
#define VKS_MORPH_H

#include "../asset/model.h"
#include "../../shaders/vks_shared.h"

/* Palette entries (vks_bone, 48 bytes) a list of model m takes: room for every target active
 * (VKS_MORPH_LIST_WORDS(target_count) words); 0 for a model without targets. */
static inline uint32_t vks_morph_entries(const vks_model *m)
{
    const uint32_t per = sizeof(vks_bone) / 4;
    return m->target_count ? (VKS_MORPH_LIST_WORDS(m->target_count) + per - 1) / per : 0;
}

/* Bytes model m's targets take in the crowd's morph buffer (shaders/vks_shared.h): each
 * target's record and deltas, and a source word for each of `vertices` vertices; 0 without
 * targets. */
static inline uint64_t vks_morph_gpu_bytes(const vks_model *m, uint64_t vertices)
{
    return m->target_count ? (uint64_t)m->target_count * sizeof(vks_target_gpu) +
                                 (uint64_t)m->morph_delta_count * VKS_MORPH_DELTA_BYTES +
                                 vertices * VKS_MORPH_SOURCE_BYTES
                           : 0;
}

/* Writes the active list of `weights` (m->target_count) at dest (vks_morph_entries(m) entries of
 * room; the words past the list are left alone) and returns its count. Each word is written once
 * (dest may be write-combined memory), the header's after the pairs. */
uint32_t vks_morph_write(const vks_model *m, const float *weights, vks_bone *dest);

/* The CPU reference: adds each active target's deltas, in target order, to `count` vertices whose
 * level-0 vertex is source[i] (NULL: i): p += w * dp for the position, likewise the normal and the
 * tangent's xyz (tangents may be NULL), with the values the GPU decodes (asset/pack.h), in the
 * same order of operations as shaders/vks_skin.glsl. The skinning that follows undoes the
 * normal's and the tangent's lengths. */
void vks_morph_apply(const vks_model *m, const float *weights, const uint32_t *source,
                     uint32_t count, float (*positions)[3], float (*normals)[3],
                     float (*tangents)[4]);

#endif
