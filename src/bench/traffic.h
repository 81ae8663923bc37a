/* The skinning pass's traffic, from the compact streams' layout (shaders/vks_shared.h): what
 * `vkskin bench` divides by the pass's time. Pure arithmetic on a crowd. */
#ifndef VKS_TRAFFIC_H
#define VKS_TRAFFIC_H

#include "../scene/crowd.h"
#include "../../shaders/vks_shared.h"

typedef struct vks_traffic {
    double logical_bytes, stream_bytes, memory_bytes; /* as vkskin_traffic's (vkskin_render.h) */
} vks_traffic;

/* The skinning pass's traffic for the instances list[0 .. count) (0 .. count when list is NULL)
 * at levels[k] (NULL: 0):
 *   logical: every instance's streams read and output written (as if each instance's bind
 *            streams came from memory; a model with morph targets: each vertex's source word
 *            and, as if every target were active, every target's record and deltas), its
 *            palette read once (the workgroups of an instance share it through the cache), its
 *            morph targets' active list and its visible-list entry (which carries its model and
 *            palette: the pass reads nothing of the instance table);
 *   streams: the per-vertex part of that, bind streams + output (bytes_per_vertex's
 *            numerator);
 *   memory:  each distinct (model, level)'s bind streams once (its instances read the same
 *            addresses, which the cache keeps: a GPU's L2 holds a model's streams many times
 *            over), plus per instance its output, palette, active list and visible-list entry. */
vks_traffic vks_skin_traffic(const vks_crowd *crowd, const uint32_t *list, const uint8_t *levels,
                             uint32_t count);

#endif
