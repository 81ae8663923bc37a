/* A model's compact vertex streams, the form the GPU reads (shaders/vks_shared.h, "Compact
 * streams"), encoded once at load time:
 *
 *   positions  3 x unorm16 within the model's bind-pose bounds, padded to 8 bytes
 *   normals    octahedral, 2 x snorm16 (4 bytes)
 *   tangents   octahedral, snorm16 x, 15-bit y and the handedness bit (4 bytes)
 *   weights    4 x unorm16 summing to exactly 65535 (8 bytes; a wide model's 8 sum together)
 *   joints     the model's uint16 indices, which the renderer packs to 4 x 8 bits when the model
 *              has at most 256 joints (4 bytes), else keeps (8 bytes)
 *   morph      per morph-target delta, position and normal 3 x int16, tangent 3 x int10, each
 *              times its target's step (16 bytes; quant.h states the bound)
 *
 * vks_model_pack replaces the model's float streams by the decoded values, so that everything
 * on the CPU (the reference skinning, bounds, dump) sees the values the GPU decodes (up to the
 * GPU's rounding: fused multiply-adds, inversesqrt). */
#ifndef VKS_PACK_H
#define VKS_PACK_H

#include "../core/error.h"
#include "model.h"
#include "quant.h"

typedef struct vks_packed {
    vks_quant_box box;            /* positions decode as box.offset + box.scale * q */
    uint16_t (*positions)[4];     /* q[3] = 0 */
    uint32_t *normals;            /* vks_quant_oct */
    uint32_t *tangents;           /* vks_quant_tangent; NULL when the model has none */
    uint16_t (*weights)[4];       /* vks_quant_weights over all of a vertex's weights */
    uint16_t (*weights_extra)[4]; /* influences 5 to 8 of a wide model, else NULL */
    uint32_t (*morph)[4];         /* vks_quant_morph per delta; NULL without targets */
    float (*morph_steps)[3];      /* per target: its position, normal and tangent steps */
} vks_packed;

/* Encodes the model's streams into model->packed and writes their decoded values back into its
 * float streams. Does nothing when the model is packed already. Fails when out of memory or when
 * the positions' bounds are wider than a float holds (they would decode to infinity). */
bool vks_model_pack(vks_model *model, vks_error *err);
void vks_packed_free(vks_packed *packed);

#endif
