/* The compact vertex streams the skinning pass reads: load-time encoders, and their exact
 * decoders. The decoders are what the CPU reference uses, and shaders/vks_skin.glsl mirrors them
 * operation for operation (the float operations below are normative: change both or neither).
 * Pure: no Vulkan, no allocation. */
#ifndef VKS_QUANT_H
#define VKS_QUANT_H

#include <stdint.h>

/* Positions: 3 x unorm16 within a box (the model's bind-pose bounds), 8 bytes with padding. */
typedef struct vks_quant_box {
    float offset[3];
    float scale[3];
} vks_quant_box;

/* The bounds of count positions: offset = min per axis, scale = (max - min) / 65535 per axis
 * (0 for a flat axis). count 0 gives zeros. */
vks_quant_box vks_quant_box_of(const float (*positions)[3], uint32_t count);
/* q[a] = the nearest of 0..65535 to (p[a] - offset[a]) / scale[a] (clamped; 0 when scale is not
 * positive or the value is NaN), q[3] = 0. */
void vks_quant_position(const vks_quant_box *box, const float p[3], uint16_t q[4]);
/* out[a] = box->offset[a] + box->scale[a] * (float)q[a]  (a float multiply, then a float add). */
void vks_dequant_position(const vks_quant_box *box, const uint16_t q[4], float out[3]);

/* snorm16 as GLSL's packSnorm2x16 / unpackSnorm2x16:
 * encode = (int16)roundf(clamp(v, -1, 1) * 32767.0f), NaN gives 0;
 * decode = fmaxf((float)q / 32767.0f, -1.0f). */
int16_t vks_quant_snorm16(float v);
float vks_dequant_snorm16(int16_t q);

/* Unit vectors, octahedral (Cigolle et al. 2014, "A Survey of Efficient Representations for
 * Independent Unit Vectors"), in one uint32: x as snorm16 in the low 16 bits, y in the high 16
 * bits, exactly what GLSL's packSnorm2x16(vec2(x, y)) gives.
 * Encode: s = |n.x| + |n.y| + |n.z|; o = (n.x / s, n.y / s); if n.z < 0,
 * o = ((1 - |o.y|) * sgn(o.x), (1 - |o.x|) * sgn(o.y)) with sgn(v) = v >= 0 ? 1 : -1; each as
 * snorm16 (simple rounding). A zero or non-finite vector encodes as VKS_QUANT_ZERO (low half
 * -32768, which packSnorm never produces).
 * Decode: VKS_QUANT_ZERO's low half gives (0, 0, 0). Else x, y = the snorm16 halves;
 * v = (x, y, 1 - |x| - |y|); t = max(-v.z, 0); v.x += v.x >= 0 ? -t : t; likewise v.y;
 * n = v * (1 / sqrtf(v.x * v.x + v.y * v.y + v.z * v.z)). */
#define VKS_QUANT_ZERO 0x00008000u
uint32_t vks_quant_oct(const float n[3]);
void vks_dequant_oct(uint32_t q, float n[3]);

/* Tangents (xyz unit, w handedness) in one uint32: octahedral as above, but the high 16 bits hold
 * y as a 15-bit snorm (round(clamp(y, -1, 1) * 16383)) shifted left by one, with bit 16 set when
 * w < 0 (any other w, NaN included, reads as +1). A zero or non-finite xyz encodes as
 * VKS_QUANT_ZERO and decodes to (0, 0, 0, 0).
 * Decode: x from the low half as above; hi = (int32_t)q >> 16 (arithmetic);
 * y = fmaxf((float)(hi >> 1) / 16383.0f, -1.0f); w = (hi & 1) ? -1 : 1; then xyz as above. */
uint32_t vks_quant_tangent(const float t[4]);
void vks_dequant_tangent(uint32_t q, float t[4]);

/* n (1..8, asserted) weights in [0, 1] as unorm16. When they sum to 1 within 1e-3 (the importer
 * normalises), the integers sum to exactly 65535: each weight gets floor(w * 65535), then the
 * remainder is dealt one unit at a time to the nonzero weight whose w * 65535 - q is largest
 * (ties: lower index first), round after round while any remains; a negative remainder (a sum
 * above 1) takes units back one at a time from the nonzero q whose w * 65535 - q is smallest
 * (ties: lower index first). A weight of 0 stays 0. Otherwise each is the nearest unorm16, with no
 * fix-up. Weights outside [0, 1] are clamped first, NaN read as 0. */
void vks_quant_weights(const float *w, uint32_t n, uint16_t *q);
/* (float)q * (1.0f / 65535.0f): a multiply by the constant, not a division (65535 gives 1). */
float vks_dequant_unorm16(uint16_t q);

/* Morph-target deltas (asset/model.h), one uvec4 (16 bytes) each, every component a signed integer
 * times its target's step for that attribute (vks_quant_morph_steps):
 *   word 0: position x (bits 0-15), y (16-31)   int16
 *   word 1: position z (0-15), normal x (16-31)  int16
 *   word 2: normal y (0-15), z (16-31)            int16
 *   word 3: tangent x (0-9), y (10-19), z (20-29) int10 (bits 30-31 zero)
 * Encode: q = the nearest integer to d / step, clamped to +-32767 (+-511 for tangents); 0 when
 * step is 0 or d is NaN. Decode: d = (float)q * step (a float multiply).
 * With step = (largest |component| of that attribute over the target's deltas) / 32767 (or / 511),
 * each decoded component is within step / 2 of the file's (plus the floats' rounding, 2^-22 of
 * the largest): 1/65534 of the target's largest position or normal delta, 1/1022 of its largest
 * tangent delta (tests/test_quant.c). */
#define VKS_MORPH_INT16_MAX 32767
#define VKS_MORPH_INT10_MAX 511
/* steps[0..2] (position, normal, tangent) of the deltas given (normals or tangents may be NULL:
 * step 0). */
void vks_quant_morph_steps(const float (*positions)[3], const float (*normals)[3],
                           const float (*tangents)[3], uint32_t count, float steps[3]);
void vks_quant_morph(const float position[3], const float normal[3], const float tangent[3],
                     const float steps[3], uint32_t q[4]);
void vks_dequant_morph(const uint32_t q[4], const float steps[3], float position[3],
                       float normal[3], float tangent[3]);

/* Joint indices below 256 as 4 bytes, joint k in bits 8k..8k+7 (what GLSL reads as one uint).
 * Asserts every index is below 256: the caller chooses this stream only then. */
uint32_t vks_quant_joints8(const uint16_t j[4]);

#endif
