#include "quant.h"

#include <assert.h>
#include <math.h>
#include <stdbool.h>

/* The low `width` bits of `bits` as a two's-complement integer: the value GLSL's arithmetic
 * shifts give, without C's implementation-defined conversions and shifts of negative values. */
static int32_t sign_extend(uint32_t bits, unsigned width)
{
    int32_t half = (int32_t)1 << (width - 1);
    int32_t v = (int32_t)(bits & ((1u << width) - 1u));
    return v >= half ? v - 2 * half : v;
}

/* The low 16 bits of v's two's complement (well defined for negative v, unlike a shift). */
static uint32_t low16(int32_t v)
{
    return (uint32_t)v & 0xffffu;
}

vks_quant_box vks_quant_box_of(const float (*positions)[3], uint32_t count)
{
    vks_quant_box box = {{0}, {0}};
    for (int a = 0; a < 3 && count; a++) {
        float lo = positions[0][a], hi = lo;
        for (uint32_t i = 1; i < count; i++) {
            lo = fminf(lo, positions[i][a]);
            hi = fmaxf(hi, positions[i][a]);
        }
        box.offset[a] = lo;
        /* In double: the range of finite floats may overflow a float. */
        box.scale[a] = (float)(((double)hi - (double)lo) / 65535.0);
    }
    return box;
}

void vks_quant_position(const vks_quant_box *box, const float p[3], uint16_t q[4])
{
    for (int a = 0; a < 3; a++) {
        double u = 0.0;
        if (box->scale[a] > 0.0f)
            u = ((double)p[a] - (double)box->offset[a]) / (double)box->scale[a];
        u = u > 0.0 ? fmin(u, 65535.0) : 0.0; /* NaN goes to 0 */
        q[a] = (uint16_t)floor(u + 0.5);
    }
    q[3] = 0;
}

void vks_dequant_position(const vks_quant_box *box, const uint16_t q[4], float out[3])
{
    for (int a = 0; a < 3; a++)
        out[a] = box->offset[a] + box->scale[a] * (float)q[a];
}

int16_t vks_quant_snorm16(float v)
{
    if (isnan(v))
        return 0;
    return (int16_t)roundf(fminf(fmaxf(v, -1.0f), 1.0f) * 32767.0f);
}

float vks_dequant_snorm16(int16_t q)
{
    return fmaxf((float)q / 32767.0f, -1.0f);
}

/* The octahedral square's point for n (folded when n.z < 0); false for a zero or non-finite n.
 * The sum is in double so that no finite vector overflows it. */
static bool oct_encode(const float n[3], float o[2])
{
    double s = fabs((double)n[0]) + fabs((double)n[1]) + fabs((double)n[2]);
    if (!(s > 0.0) || !isfinite(s))
        return false;
    double x = n[0] / s, y = n[1] / s;
    if (n[2] < 0.0f) {
        double fx = (1.0 - fabs(y)) * (x >= 0.0 ? 1.0 : -1.0);
        double fy = (1.0 - fabs(x)) * (y >= 0.0 ? 1.0 : -1.0);
        x = fx;
        y = fy;
    }
    o[0] = (float)x;
    o[1] = (float)y;
    return true;
}

/* The unit vector at (x, y) of the octahedral square: the decoders' shared float operations. */
static void oct_decode(float x, float y, float n[3])
{
    float z = 1.0f - fabsf(x) - fabsf(y);
    float t = fmaxf(-z, 0.0f);
    x += x >= 0.0f ? -t : t;
    y += y >= 0.0f ? -t : t;
    float inv = 1.0f / sqrtf(x * x + y * y + z * z);
    n[0] = x * inv;
    n[1] = y * inv;
    n[2] = z * inv;
}

uint32_t vks_quant_oct(const float n[3])
{
    float o[2];
    if (!oct_encode(n, o))
        return VKS_QUANT_ZERO;
    return low16(vks_quant_snorm16(o[0])) | low16(vks_quant_snorm16(o[1])) << 16;
}

void vks_dequant_oct(uint32_t q, float n[3])
{
    if ((q & 0xffffu) == 0x8000u) {
        n[0] = n[1] = n[2] = 0.0f;
        return;
    }
    float x = vks_dequant_snorm16((int16_t)sign_extend(q, 16));
    float y = vks_dequant_snorm16((int16_t)sign_extend(q >> 16, 16));
    oct_decode(x, y, n);
}

uint32_t vks_quant_tangent(const float t[4])
{
    float o[2];
    if (!oct_encode(t, o))
        return VKS_QUANT_ZERO;
    /* o[1] is finite and within [-1, 1]: the conversion is defined. */
    int32_t y15 = (int32_t)roundf(o[1] * 16383.0f);
    int32_t hi = y15 * 2 + (t[3] < 0.0f ? 1 : 0);
    return low16(vks_quant_snorm16(o[0])) | low16(hi) << 16;
}

void vks_dequant_tangent(uint32_t q, float t[4])
{
    if ((q & 0xffffu) == 0x8000u) {
        t[0] = t[1] = t[2] = t[3] = 0.0f;
        return;
    }
    /* hi = (int32_t)q >> 16: hi >> 1 is the top 15 bits, sign-extended, and hi & 1 is bit 16. */
    int32_t y15 = sign_extend(q >> 17, 15);
    float x = vks_dequant_snorm16((int16_t)sign_extend(q, 16));
    float y = fmaxf((float)y15 / 16383.0f, -1.0f);
    oct_decode(x, y, t);
    t[3] = (q >> 16) & 1u ? -1.0f : 1.0f;
}

/* The index of the nonzero weight to deal the next unit to (give) or take it from, by the
 * residual x[i] - q[i]: the largest when giving, the smallest (of those with q > 0) when taking;
 * ties go to the lower index. */
static uint32_t weights_pick(const double *x, const uint16_t *q, uint32_t n, bool give)
{
    uint32_t best = n;
    double best_r = 0.0;
    for (uint32_t i = 0; i < n; i++) {
        double r = x[i] - q[i];
        if (x[i] == 0.0 || (!give && q[i] == 0))
            continue;
        if (best == n || (give ? r > best_r : r < best_r)) {
            best = i;
            best_r = r;
        }
    }
    return best;
}

void vks_quant_weights(const float *w, uint32_t n, uint16_t *q)
{
    assert(n >= 1 && n <= 8);
    double x[8], sum = 0.0;
    for (uint32_t i = 0; i < n; i++) {
        x[i] = w[i] > 0.0f ? fmin(w[i], 1.0) * 65535.0 : 0.0; /* exact in double; NaN goes to 0 */
        sum += x[i];
    }
    bool fix = fabs(sum - 65535.0) <= 1e-3 * 65535.0;
    int32_t total = 0;
    for (uint32_t i = 0; i < n; i++) {
        q[i] = (uint16_t)(fix ? floor(x[i]) : floor(x[i] + 0.5));
        total += q[i];
    }
    if (!fix)
        return;
    /* The sum within 1e-3 of 1 bounds the remainder by 66 + n units either way, and a unit is
     * always there to give (a nonzero weight) or take (the q sum above 65535 is positive). */
    for (int32_t r = 65535 - total; r > 0; r--)
        q[weights_pick(x, q, n, true)]++;
    for (int32_t r = 65535 - total; r < 0; r++)
        q[weights_pick(x, q, n, false)]--;
}

float vks_dequant_unorm16(uint16_t q)
{
    return (float)q * (1.0f / 65535.0f);
}

uint32_t vks_quant_joints8(const uint16_t j[4])
{
    assert(j[0] < 256 && j[1] < 256 && j[2] < 256 && j[3] < 256);
    return (uint32_t)j[0] | (uint32_t)j[1] << 8 | (uint32_t)j[2] << 16 | (uint32_t)j[3] << 24;
}

/* d / step to the nearest integer within +-max (0 for a zero step or NaN). */
static int32_t morph_int(float d, float step, int32_t max)
{
    if (!(step > 0.0f) || isnan(d))
        return 0;
    const float q = roundf(d / step);
    return q > (float)max ? max : q < (float)-max ? -max : (int32_t)q;
}

static float morph_step(const float (*d)[3], uint32_t count, int32_t max)
{
    float largest = 0.0f;
    for (uint32_t v = 0; d && v < count; v++)
        for (int k = 0; k < 3; k++)
            largest = fmaxf(largest, fabsf(d[v][k]));
    return largest / (float)max;
}

void vks_quant_morph_steps(const float (*positions)[3], const float (*normals)[3],
                           const float (*tangents)[3], uint32_t count, float steps[3])
{
    steps[0] = morph_step(positions, count, VKS_MORPH_INT16_MAX);
    steps[1] = morph_step(normals, count, VKS_MORPH_INT16_MAX);
    steps[2] = morph_step(tangents, count, VKS_MORPH_INT10_MAX);
}

void vks_quant_morph(const float position[3], const float normal[3], const float tangent[3],
                     const float steps[3], uint32_t q[4])
{
    int32_t p[3], n[3] = {0, 0, 0}, t[3] = {0, 0, 0};
    for (int k = 0; k < 3; k++) {
        p[k] = morph_int(position[k], steps[0], VKS_MORPH_INT16_MAX);
        if (normal)
            n[k] = morph_int(normal[k], steps[1], VKS_MORPH_INT16_MAX);
        if (tangent)
            t[k] = morph_int(tangent[k], steps[2], VKS_MORPH_INT10_MAX);
    }
    q[0] = ((uint32_t)p[0] & 0xffffu) | (uint32_t)p[1] << 16;
    q[1] = ((uint32_t)p[2] & 0xffffu) | (uint32_t)n[0] << 16;
    q[2] = ((uint32_t)n[1] & 0xffffu) | (uint32_t)n[2] << 16;
    q[3] = ((uint32_t)t[0] & 0x3ffu) | ((uint32_t)t[1] & 0x3ffu) << 10 |
           ((uint32_t)t[2] & 0x3ffu) << 20;
}

void vks_dequant_morph(const uint32_t q[4], const float steps[3], float position[3],
                       float normal[3], float tangent[3])
{
    const int32_t p[3] = {sign_extend(q[0] >> 0, 16), sign_extend(q[0] >> 16, 16),
                          sign_extend(q[1] >> 0, 16)};
    const int32_t n[3] = {sign_extend(q[1] >> 16, 16), sign_extend(q[2] >> 0, 16),
                          sign_extend(q[2] >> 16, 16)};
    const int32_t t[3] = {sign_extend(q[3] >> 0, 10), sign_extend(q[3] >> 10, 10),
                          sign_extend(q[3] >> 20, 10)};
    for (int k = 0; k < 3; k++) {
        position[k] = (float)p[k] * steps[0];
        normal[k] = (float)n[k] * steps[1];
        tangent[k] = (float)t[k] * steps[2];
    }
}
