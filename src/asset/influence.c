#include "influence.h"

#include <string.h>

void vks_influence_add(vks_influence_acc *acc, uint16_t joint, float weight)
{
    if (!(weight > 0.0f)) {
        acc->dropped++;
        return;
    }
    uint32_t kept = acc->count++;
    acc->sum += weight;
    if (kept < VKS_WIDE_INFLUENCES) {
        acc->joint[kept] = joint;
        acc->weight[kept] = weight;
        return;
    }
    uint32_t smallest = 0;
    for (uint32_t i = 1; i < VKS_WIDE_INFLUENCES; i++)
        if (acc->weight[i] < acc->weight[smallest])
            smallest = i;
    if (weight > acc->weight[smallest]) {
        acc->joint[smallest] = joint;
        acc->weight[smallest] = weight;
    }
}

uint32_t vks_influence_finish(vks_influence_acc *acc, uint16_t joints[VKS_WIDE_INFLUENCES],
                              float weights[VKS_WIDE_INFLUENCES])
{
    memset(joints, 0, sizeof(uint16_t[VKS_WIDE_INFLUENCES]));
    memset(weights, 0, sizeof(float[VKS_WIDE_INFLUENCES]));
    uint32_t kept = acc->count < VKS_WIDE_INFLUENCES ? acc->count : VKS_WIDE_INFLUENCES;
    /* Largest first (stable insertion sort of at most 8): the 4 largest go to the main streams,
     * which is all a 4-influence model has. */
    for (uint32_t i = 1; i < kept; i++)
        for (uint32_t k = i; k > 0 && acc->weight[k] > acc->weight[k - 1]; k--) {
            float w = acc->weight[k];
            acc->weight[k] = acc->weight[k - 1];
            acc->weight[k - 1] = w;
            uint16_t j = acc->joint[k];
            acc->joint[k] = acc->joint[k - 1];
            acc->joint[k - 1] = j;
        }
    float sum = 0.0f;
    for (uint32_t i = 0; i < kept; i++)
        sum += acc->weight[i];
    for (uint32_t i = 0; i < kept; i++) {
        joints[i] = acc->joint[i];
        weights[i] = acc->weight[i] / sum;
    }
    return kept;
}
