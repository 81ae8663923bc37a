/* Transform math for animation: TRS local transforms, unit quaternions and 3x4 affine matrices.
 * Quaternions are (x, y, z, w). Affine matrices are row-major 3x4 (vks_bone, shaders/vks_shared.h):
 * the linear part is m[r][0..2], the translation m[r][3], and the fourth row (0, 0, 0, 1) is
 * implied. */
#ifndef VKS_XFORM_H
#define VKS_XFORM_H

#include "../../shaders/vks_shared.h"

#include <math.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

typedef vks_bone vks_affine;

/* A local joint transform: scale first, then rotate, then translate (glTF and assimp order). */
typedef struct vks_xform {
    float t[3];
    float r[4];
    float s[3];
} vks_xform;

static inline void vks_vec3_lerp(const float a[3], const float b[3], float u, float out[3])
{
    for (int i = 0; i < 3; i++)
        out[i] = a[i] + (b[i] - a[i]) * u;
}

/* Normalised lerp along the shortest path (b is negated when the two are more than 90 degrees
 * apart). Cheaper than slerp and within 0.3 degrees of it for neighbouring keys. */
static inline void vks_quat_nlerp(const float a[4], const float b[4], float u, float out[4])
{
    float d = a[0] * b[0] + a[1] * b[1] + a[2] * b[2] + a[3] * b[3];
    float ub = d < 0.0f ? -u : u;
    float q[4], len2 = 0.0f;
    for (int i = 0; i < 4; i++) {
        q[i] = a[i] * (1.0f - u) + b[i] * ub;
        len2 += q[i] * q[i];
    }
    float inv = len2 > 0.0f ? 1.0f / sqrtf(len2) : 0.0f;
    for (int i = 0; i < 4; i++)
        out[i] = q[i] * inv;
}

/* Spherical linear interpolation along the shortest path, renormalised. Falls back to nlerp when
 * the two are nearly parallel, where sin(theta) loses precision. */
static inline void vks_quat_slerp(const float a[4], const float b[4], float u, float out[4])
{
    float d = a[0] * b[0] + a[1] * b[1] + a[2] * b[2] + a[3] * b[3];
    float sign = 1.0f;
    if (d < 0.0f) {
        d = -d;
        sign = -1.0f;
    }
    if (d > 0.9995f) {
        vks_quat_nlerp(a, b, u, out);
        return;
    }
    float theta = acosf(d);
    float inv_sin = 1.0f / sinf(theta);
    float wa = sinf((1.0f - u) * theta) * inv_sin;
    float wb = sign * sinf(u * theta) * inv_sin;
    float len2 = 0.0f;
    for (int i = 0; i < 4; i++) {
        out[i] = a[i] * wa + b[i] * wb;
        len2 += out[i] * out[i];
    }
    float inv = 1.0f / sqrtf(len2);
    for (int i = 0; i < 4; i++)
        out[i] *= inv;
}

/* Affine matrix of a TRS transform: T * R * S. */
static inline void vks_affine_from_xform(const vks_xform *x, vks_affine *out)
{
    float qx = x->r[0], qy = x->r[1], qz = x->r[2], qw = x->r[3];
    float r[3][3] = {
        {1.0f - 2.0f * (qy * qy + qz * qz), 2.0f * (qx * qy - qz * qw), 2.0f * (qx * qz + qy * qw)},
        {2.0f * (qx * qy + qz * qw), 1.0f - 2.0f * (qx * qx + qz * qz), 2.0f * (qy * qz - qx * qw)},
        {2.0f * (qx * qz - qy * qw), 2.0f * (qy * qz + qx * qw), 1.0f - 2.0f * (qx * qx + qy * qy)},
    };
    for (int i = 0; i < 3; i++) {
        for (int j = 0; j < 3; j++)
            out->row[i][j] = r[i][j] * x->s[j];
        out->row[i][3] = x->t[i];
    }
}

/* out = a * b (out may alias a or b). The product is built in registers and stored once: `out`
 * may be the mapped palette buffer, write-combined memory across PCIe on a discrete GPU, where
 * every read back (the translation's `+=`, or a reload the compiler makes because out might alias
 * a or b) is a round trip across the bus (docs/performance.md, "Measurements behind the code"). With
 * SSE2 (every x86-64) each row is 3 broadcast multiplies and adds on whole rows, in the scalar
 * path's order of operations, so both give the same floats. */
#if defined(__SSE2__)
static inline void vks_affine_mul(const vks_affine *a, const vks_affine *b, vks_affine *out)
{
    const __m128 b0 = _mm_loadu_ps(b->row[0]), b1 = _mm_loadu_ps(b->row[1]);
    const __m128 b2 = _mm_loadu_ps(b->row[2]);
    __m128 r[3];
    for (int i = 0; i < 3; i++) {
        const float *ai = a->row[i];
        __m128 sum = _mm_add_ps(
            _mm_add_ps(_mm_mul_ps(_mm_set1_ps(ai[0]), b0), _mm_mul_ps(_mm_set1_ps(ai[1]), b1)),
            _mm_mul_ps(_mm_set1_ps(ai[2]), b2));
        /* The translation in lane 3; -0 elsewhere leaves every sum as it is, -0 included. */
        r[i] = _mm_add_ps(sum, _mm_set_ps(ai[3], -0.0f, -0.0f, -0.0f));
    }
    for (int i = 0; i < 3; i++)
        _mm_storeu_ps(out->row[i], r[i]);
}
#else
static inline void vks_affine_mul(const vks_affine *a, const vks_affine *b, vks_affine *out)
{
    vks_affine r;
    for (int i = 0; i < 3; i++) {
        for (int j = 0; j < 4; j++) {
            r.row[i][j] = a->row[i][0] * b->row[0][j] + a->row[i][1] * b->row[1][j] +
                          a->row[i][2] * b->row[2][j];
        }
        r.row[i][3] += a->row[i][3];
    }
    *out = r;
}
#endif

/* The box [lo, hi] around n points (all 0 when n is 0). */
static inline void vks_points_box(const float (*p)[3], uint32_t n, float lo[3], float hi[3])
{
    for (int k = 0; k < 3; k++)
        lo[k] = hi[k] = n ? p[0][k] : 0.0f;
    for (uint32_t v = 1; v < n; v++)
        for (int k = 0; k < 3; k++) {
            lo[k] = p[v][k] < lo[k] ? p[v][k] : lo[k];
            hi[k] = p[v][k] > hi[k] ? p[v][k] : hi[k];
        }
}

static inline vks_affine vks_affine_identity(void)
{
    return (vks_affine){{{1, 0, 0, 0}, {0, 1, 0, 0}, {0, 0, 1, 0}}};
}

#endif
