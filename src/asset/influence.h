/* Ranking a vertex's bone influences as they stream in from the file's bones: keep the 8 largest,
 * drop weights <= 0, and renormalise. The importer stores the first 4 in the model's main streams
 * and the rest, when any vertex has them, in its extra streams. Pure functions, used by the importer, tested on their own. */
#ifndef VKS_INFLUENCE_H
#define VKS_INFLUENCE_H

#include "../../shaders/vks_shared.h"

#include <stdbool.h>
#include <stdint.h>

typedef struct vks_influence_acc {
    uint16_t joint[VKS_WIDE_INFLUENCES];
    float weight[VKS_WIDE_INFLUENCES];
    uint32_t count;   /* positive influences seen, may exceed 8 */
    uint32_t dropped; /* influences with weight <= 0 */
    float sum;        /* of all positive weights seen */
} vks_influence_acc;

/* Adds one influence (weight must be finite). Among equal weights the first seen stays. */
void vks_influence_add(vks_influence_acc *acc, uint16_t joint, float weight);

/* Writes the kept influences largest first, weights divided by their sum, unused places joint 0
 * weight 0. Returns how many were kept (0 when none: the caller binds the vertex to its node). */
uint32_t vks_influence_finish(vks_influence_acc *acc, uint16_t joints[VKS_WIDE_INFLUENCES],
                              float weights[VKS_WIDE_INFLUENCES]);

#endif
