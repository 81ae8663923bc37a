/* The sampler's arithmetic (sampler.h), included once per instruction set: by sampler.c (the
 * baseline, SSE2 on x86-64) and sampler_avx2.c (compiled with -mavx2 -mfma). The including file
 * defines KERNEL(name) to give its functions their names and KERNEL_ISA; the compiler flags pick
 * the vector width, 8 lanes with AVX and 4 otherwise, and FMA where enabled. */
#include "sampler_impl.h"

#if defined(__SSE2__)
#include <immintrin.h>
#endif

#if defined(__AVX__)
#define KW 8
#else
#define KW 4
#endif
typedef float kvf __attribute__((vector_size(KW * sizeof(float)), may_alias));

/* sin and cos of x in [0, pi/2] (an arc's angle never exceeds it: the shorter way round): Taylor
 * series to x^11 and x^12, whose next terms are below 6e-8 and 7e-9 there. */
static inline void KERNEL(sincos)(kvf x, kvf *s, kvf *c)
{
    const kvf x2 = x * x;
    *s = x * (1.0f + x2 * (-1.0f / 6.0f +
                           x2 * (1.0f / 120.0f +
                                 x2 * (-1.0f / 5040.0f +
                                       x2 * (1.0f / 362880.0f + x2 * (-1.0f / 39916800.0f))))));
    *c = 1.0f +
         x2 * (-0.5f + x2 * (1.0f / 24.0f +
                             x2 * (-1.0f / 720.0f +
                                   x2 * (1.0f / 40320.0f +
                                         x2 * (-1.0f / 3628800.0f + x2 * (1.0f / 479001600.0f))))));
}

/* KW joints of one segment at u into their local matrices (vks_affine_from_xform's T * R * S). */
static inline void KERNEL(lanes)(const float *restrict seg, float u, float *restrict out)
{
#define LD(k) (*(const kvf *)(seg + (k)*VKS_SAMPLER_LANES))
#define ST(k, v) (*(kvf *)(out + (k)*VKS_SAMPLER_LANES) = (v))
    const kvf tx = LD(0) + LD(3) * u, ty = LD(1) + LD(4) * u, tz = LD(2) + LD(5) * u;
    const kvf sx = LD(6) + LD(9) * u, sy = LD(7) + LD(10) * u, sz = LD(8) + LD(11) * u;
    kvf sn, cs;
    KERNEL(sincos)(LD(20) * u, &sn, &cs);
    const kvf qx = LD(12) * cs + LD(16) * sn, qy = LD(13) * cs + LD(17) * sn;
    const kvf qz = LD(14) * cs + LD(18) * sn, qw = LD(15) * cs + LD(19) * sn;
    const kvf xx = qx * qx, yy = qy * qy, zz = qz * qz;
    const kvf xy = qx * qy, xz = qx * qz, yz = qy * qz;
    const kvf wx = qw * qx, wy = qw * qy, wz = qw * qz;
    ST(0, (1.0f - 2.0f * (yy + zz)) * sx);
    ST(1, 2.0f * (xy - wz) * sy);
    ST(2, 2.0f * (xz + wy) * sz);
    ST(3, tx);
    ST(4, 2.0f * (xy + wz) * sx);
    ST(5, (1.0f - 2.0f * (xx + zz)) * sy);
    ST(6, 2.0f * (yz - wx) * sz);
    ST(7, ty);
    ST(8, 2.0f * (xz - wy) * sx);
    ST(9, 2.0f * (yz + wx) * sy);
    ST(10, (1.0f - 2.0f * (xx + yy)) * sz);
    ST(11, tz);
#undef LD
#undef ST
}

static void KERNEL(local)(const float *seg, uint32_t block_count, float u, float *local)
{
    for (uint32_t b = 0; b < block_count; b++) {
        for (uint32_t h = 0; h < VKS_SAMPLER_LANES; h += KW)
            KERNEL(lanes)(seg + h, u, local + h);
        seg += VKS_SAMPLER_BLOCK_FLOATS;
        local += VKS_SAMPLER_LOCAL_FLOATS;
    }
}

/* Joint j's local matrix component k (row * 4 + column) in the SoA local matrices. */
static inline const float *KERNEL(local_at)(const float *local, uint32_t j)
{
    return local + (size_t)(j / VKS_SAMPLER_LANES) * VKS_SAMPLER_LOCAL_FLOATS +
           j % VKS_SAMPLER_LANES;
}
#define L_(L, k) ((L)[(k)*VKS_SAMPLER_LANES])

#if defined(__SSE2__)
static inline __m128 KERNEL(madd)(__m128 a, __m128 b, __m128 c)
{
#if defined(__FMA__)
    return _mm_fmadd_ps(a, b, c);
#else
    return _mm_add_ps(_mm_mul_ps(a, b), c);
#endif
}

/* Model transform, as columns (lane 3 unused): model = parent * local, where the parent's
 * columns are P and local's entries are broadcast from the SoA matrices. */
static inline void KERNEL(model_columns)(const float *L, const __m128 P[4], __m128 C[4])
{
    for (int c = 0; c < 4; c++) {
        __m128 v = _mm_mul_ps(P[0], _mm_set1_ps(L_(L, c)));
        v = KERNEL(madd)(P[1], _mm_set1_ps(L_(L, 4 + c)), v);
        C[c] = KERNEL(madd)(P[2], _mm_set1_ps(L_(L, 8 + c)), v);
    }
    C[3] = _mm_add_ps(C[3], P[3]);
}

/* The parent's columns: still in registers when it is the joint before (chains, the common
 * case: the hierarchy is a chain of dependent products, and a round trip through memory would
 * add to each link), else from memory. */
static inline void KERNEL(parent_columns)(int32_t p, uint32_t j, const __m128 prev[4],
                                          const float (*root)[4], const float (*model)[4][4],
                                          __m128 P[4])
{
    if (p >= 0 && (uint32_t)p + 1 == j) {
        for (int c = 0; c < 4; c++)
            P[c] = prev[c];
    } else {
        const float(*cols)[4] = p < 0 ? root : model[p];
        for (int c = 0; c < 4; c++)
            P[c] = _mm_load_ps(cols[c]);
    }
}

/* Palette rows of model (columns C) * inverse bind: row r = sum_k C_k[r] * ib_row_k, plus the
 * model's translation C_3[r] in lane 3. */
static inline void KERNEL(palette_rows)(const __m128 C[4], const vks_affine *ib, __m128 R[3])
{
    const __m128 b0 = _mm_loadu_ps(ib->row[0]), b1 = _mm_loadu_ps(ib->row[1]);
    const __m128 b2 = _mm_loadu_ps(ib->row[2]), e3 = _mm_set_ps(1.0f, 0.0f, 0.0f, 0.0f);
#define BC(v, r) _mm_shuffle_ps((v), (v), _MM_SHUFFLE(r, r, r, r))
#define ROW(r)                                                                                     \
    R[r] = KERNEL(madd)(                                                                           \
        BC(C[3], r), e3,                                                                           \
        KERNEL(madd)(BC(C[2], r), b2, KERNEL(madd)(BC(C[1], r), b1, _mm_mul_ps(BC(C[0], r), b0))))
    ROW(0);
    ROW(1);
    ROW(2);
#undef ROW
#undef BC
}

static inline void KERNEL(store_rows)(vks_bone *out, const __m128 R[3], bool stream)
{
    if (stream) {
        for (int r = 0; r < 3; r++)
            _mm_stream_ps(out->row[r], R[r]);
    } else {
        for (int r = 0; r < 3; r++)
            _mm_storeu_ps(out->row[r], R[r]);
    }
}

static void KERNEL(model)(const vks_skeleton *sk, uint32_t n, const float *local,
                          float (*model)[4][4])
{
    float root[4][4] __attribute__((aligned(16)));
    vks_sampler_root_columns(&sk->root_inverse, root);
    __m128 C[4] = {_mm_setzero_ps(), _mm_setzero_ps(), _mm_setzero_ps(), _mm_setzero_ps()};
    for (uint32_t j = 0; j < n; j++) {
        __m128 P[4];
        KERNEL(parent_columns)
        (sk->parents[j], j, C, (const float(*)[4])root, (const float(*)[4][4])model, P);
        KERNEL(model_columns)(KERNEL(local_at)(local, j), P, C);
        for (int c = 0; c < 4; c++)
            _mm_store_ps(model[j][c], C[c]);
    }
}

static void KERNEL(skin)(const vks_skeleton *sk, uint32_t n, const float (*model)[4][4],
                         vks_bone *palette)
{
    for (uint32_t j = 0; j < n; j++) {
        __m128 C[4], R[3];
        for (int c = 0; c < 4; c++)
            C[c] = _mm_load_ps(model[j][c]);
        KERNEL(palette_rows)(C, &sk->inverse_bind[j], R);
        KERNEL(store_rows)(&palette[j], R, false);
    }
}

/* The hierarchy and the palette in one pass: each entry built in registers and written once. */
static void KERNEL(palette)(const vks_skeleton *sk, uint32_t n, const float *local,
                            float (*model)[4][4], vks_bone *palette, bool stream)
{
    float root[4][4] __attribute__((aligned(16)));
    vks_sampler_root_columns(&sk->root_inverse, root);
    stream = stream && ((uintptr_t)palette & 15u) == 0;
    __m128 C[4] = {_mm_setzero_ps(), _mm_setzero_ps(), _mm_setzero_ps(), _mm_setzero_ps()};
    for (uint32_t j = 0; j < n; j++) {
        __m128 P[4], R[3];
        KERNEL(parent_columns)
        (sk->parents[j], j, C, (const float(*)[4])root, (const float(*)[4][4])model, P);
        KERNEL(model_columns)(KERNEL(local_at)(local, j), P, C);
        for (int c = 0; c < 4; c++)
            _mm_store_ps(model[j][c], C[c]);
        KERNEL(palette_rows)(C, &sk->inverse_bind[j], R);
        KERNEL(store_rows)(&palette[j], R, stream);
    }
}
#else
/* Plain C: the same products in the same order. */
static void KERNEL(model)(const vks_skeleton *sk, uint32_t n, const float *local,
                          float (*model)[4][4])
{
    float root[4][4];
    vks_sampler_root_columns(&sk->root_inverse, root);
    for (uint32_t j = 0; j < n; j++) {
        const int32_t p = sk->parents[j];
        const float(*P)[4] = p < 0 ? root : model[p];
        const float *L = KERNEL(local_at)(local, j);
        for (int c = 0; c < 4; c++)
            for (int r = 0; r < 3; r++)
                model[j][c][r] = P[0][r] * L_(L, c) + P[1][r] * L_(L, 4 + c) +
                                 P[2][r] * L_(L, 8 + c) + (c == 3 ? P[3][r] : 0.0f);
        for (int c = 0; c < 4; c++)
            model[j][c][3] = 0.0f;
    }
}

static void KERNEL(skin)(const vks_skeleton *sk, uint32_t n, const float (*model)[4][4],
                         vks_bone *palette)
{
    for (uint32_t j = 0; j < n; j++) {
        const vks_affine *ib = &sk->inverse_bind[j];
        for (int r = 0; r < 3; r++)
            for (int c = 0; c < 4; c++)
                palette[j].row[r][c] =
                    model[j][0][r] * ib->row[0][c] + model[j][1][r] * ib->row[1][c] +
                    model[j][2][r] * ib->row[2][c] + (c == 3 ? model[j][3][r] : 0.0f);
    }
}

static void KERNEL(palette)(const vks_skeleton *sk, uint32_t n, const float *local,
                            float (*model)[4][4], vks_bone *palette, bool stream)
{
    (void)stream;
    KERNEL(model)(sk, n, local, model);
    KERNEL(skin)(sk, n, (const float(*)[4][4])model, palette);
}
#endif
#undef L_

const vks_sampler_impl KERNEL(impl) = {
    .isa = KERNEL_ISA,
    .local = KERNEL(local),
    .model = KERNEL(model),
    .skin = KERNEL(skin),
    .palette = KERNEL(palette),
};
