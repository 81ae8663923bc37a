#include "sampler.h"

#include "anim.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* The baseline arithmetic: SSE2 on x86-64, plain C elsewhere. */
#define KERNEL(name) vks_sampler_base_##name
#if defined(__SSE2__)
#define KERNEL_ISA VKS_SAMPLER_SSE2
#else
#define KERNEL_ISA VKS_SAMPLER_SCALAR
#endif
#include "sampler_kernel.h"
#undef KERNEL
#undef KERNEL_ISA
#undef KW

static bool cpu_has_avx2(void)
{
#if defined(VKS_SAMPLER_HAVE_AVX2)
    return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
#else
    return false;
#endif
}

static const vks_sampler_impl *impl_of(vks_sampler_isa isa)
{
    if (isa == vks_sampler_base_impl.isa)
        return &vks_sampler_base_impl;
#if defined(VKS_SAMPLER_HAVE_AVX2)
    if (isa == VKS_SAMPLER_AVX2 && cpu_has_avx2())
        return &vks_sampler_avx2_impl;
#endif
    return NULL;
}

vks_sampler_isa vks_sampler_current_isa(const vks_sampler *s)
{
    return s->impl->isa;
}

bool vks_sampler_use_isa(vks_sampler *s, vks_sampler_isa isa)
{
    const vks_sampler_impl *impl = impl_of(isa);
    if (impl)
        s->impl = impl;
    return impl != NULL;
}

const char *vks_sampler_isa_name(vks_sampler_isa isa)
{
    return isa == VKS_SAMPLER_AVX2 ? "avx2+fma" : isa == VKS_SAMPLER_SSE2 ? "sse2" : "scalar";
}

/* ---- Building: the clip onto the union of its key times ---- */

static int compare_floats(const void *a, const void *b)
{
    const float x = *(const float *)a, y = *(const float *)b;
    return (x > y) - (x < y);
}

/* The sorted distinct key times of every channel with 2 keys or more (a single key is a
 * constant, whatever its time). Returns the count, or 0 when out of memory; *times is freed by
 * the caller. At least 2 times: a clip with none (or one) gets a segment of length 0. */
static size_t union_times(const vks_skeleton *sk, const vks_clip *clip, float **times)
{
    size_t total = 0;
    for (uint32_t j = 0; clip && j < sk->joint_count; j++) {
        const vks_track *k = &clip->tracks[j];
        total += (k->t_count > 1 ? k->t_count : 0) + (k->r_count > 1 ? k->r_count : 0) +
                 (k->s_count > 1 ? k->s_count : 0);
    }
    float *all = malloc(sizeof *all * (total > 2 ? total : 2));
    if (!all)
        return 0;
    size_t at = 0;
    for (uint32_t j = 0; clip && j < sk->joint_count; j++) {
        const vks_track *k = &clip->tracks[j];
        const struct {
            const float *times;
            uint32_t count;
        } ch[3] = {{clip->t_times + k->t_first, k->t_count},
                   {clip->r_times + k->r_first, k->r_count},
                   {clip->s_times + k->s_first, k->s_count}};
        for (int c = 0; c < 3; c++)
            if (ch[c].count > 1) {
                memcpy(all + at, ch[c].times, sizeof *all * ch[c].count);
                at += ch[c].count;
            }
    }
    qsort(all, total, sizeof *all, compare_floats);
    size_t n = 0;
    for (size_t i = 0; i < total; i++)
        if (n == 0 || all[i] != all[n - 1])
            all[n++] = all[i];
    if (n < 2) { /* no animated channel, or all keys at one time */
        all[1] = all[0] = n ? all[0] : 0.0f;
        n = 2;
    }
    *times = all;
    return n;
}

/* Segment index and factor at t in a channel's keys, as vks_key_find and anim.c's lerp factor
 * (in double). */
static double channel_u(const float *times, uint32_t count, double t, uint32_t *i)
{
    while (*i + 2 < count && times[*i + 1] <= t)
        (*i)++;
    const double t0 = times[*i], t1 = times[*i + 1];
    return t <= t0 ? 0.0 : t >= t1 ? 1.0 : (t - t0) / (t1 - t0);
}

/* A translation or scale channel at each of the ascending times `at` (rest when no key). */
static void eval_vec3(const float *times, const float (*values)[3], uint32_t count,
                      const float rest[3], const float *at, uint32_t n, double (*out)[3])
{
    uint32_t i = 0;
    for (uint32_t k = 0; k < n; k++) {
        const float *a = count ? values[0] : rest, *b = a;
        double u = 0.0;
        if (count > 1) {
            u = channel_u(times, count, at[k], &i);
            a = values[i], b = values[i + 1];
        }
        for (int c = 0; c < 3; c++)
            out[k][c] = a[c] + ((double)b[c] - a[c]) * u;
    }
}

static void quat_normalized(const float q[4], double out[4])
{
    double len =
        sqrt((double)q[0] * q[0] + (double)q[1] * q[1] + (double)q[2] * q[2] + (double)q[3] * q[3]);
    for (int c = 0; c < 4; c++)
        out[c] = len > 0.0 ? q[c] / len : (c == 3);
}

/* Rotation channel with 2 keys or more at the times `at`: slerp along the shorter arc of the
 * normalised keys, in double. */
static void eval_quat(const float *times, const float (*values)[4], uint32_t count, const float *at,
                      uint32_t n, double (*out)[4])
{
    uint32_t i = 0;
    for (uint32_t k = 0; k < n; k++) {
        const double u = channel_u(times, count, at[k], &i);
        double a[4], b[4];
        quat_normalized(values[i], a);
        quat_normalized(values[i + 1], b);
        double d = a[0] * b[0] + a[1] * b[1] + a[2] * b[2] + a[3] * b[3];
        const double sign = d < 0.0 ? -1.0 : 1.0;
        d = fabs(d);
        double wa = 1.0 - u, wb = u;
        if (d < 1.0 - 1e-15) {
            const double theta = acos(d), inv_sin = 1.0 / sin(theta);
            wa = sin((1.0 - u) * theta) * inv_sin;
            wb = sin(u * theta) * inv_sin;
        }
        double len2 = 0.0;
        for (int c = 0; c < 4; c++) {
            out[k][c] = a[c] * wa + sign * b[c] * wb;
            len2 += out[k][c] * out[k][c];
        }
        for (int c = 0; c < 4; c++)
            out[k][c] /= sqrt(len2);
    }
}

/* The arc from a to b (unit, double) as start, unit direction orthogonal to it and angle. */
static void arc_of(const double a[4], const double b_in[4], float *start, float *dir, float *angle)
{
    double b[4], d = 0.0;
    for (int c = 0; c < 4; c++)
        d += a[c] * b_in[c];
    for (int c = 0; c < 4; c++)
        b[c] = d < 0.0 ? -b_in[c] : b_in[c];
    d = fabs(d);
    double o[4], len2 = 0.0;
    for (int c = 0; c < 4; c++) {
        o[c] = b[c] - a[c] * d;
        len2 += o[c] * o[c];
    }
    const double len = sqrt(len2);
    for (int c = 0; c < 4; c++) {
        start[c * VKS_SAMPLER_LANES] = (float)a[c];
        dir[c * VKS_SAMPLER_LANES] = len > 1e-30 ? (float)(o[c] / len) : 0.0f;
    }
    *angle = len > 1e-30 ? (float)atan2(len, d) : 0.0f;
}

/* Lane j of every segment: component k of segment s at lane[s * seg_stride + k * LANES]. */
static void fill_lane(float *lane, size_t seg_stride, uint32_t segs, const double (*t)[3],
                      const double (*s)[3], const double (*r)[4], const float *raw_r)
{
    for (uint32_t k = 0; k < segs; k++) {
        float *o = lane + k * seg_stride;
        for (int c = 0; c < 3; c++) {
            const float t0 = (float)t[k][c], t1 = (float)t[k + 1][c];
            const float s0 = (float)s[k][c], s1 = (float)s[k + 1][c];
            o[c * VKS_SAMPLER_LANES] = t0;
            o[(3 + c) * VKS_SAMPLER_LANES] = t1 - t0; /* anim.h's lerp: a + (b - a) * u */
            o[(6 + c) * VKS_SAMPLER_LANES] = s0;
            o[(9 + c) * VKS_SAMPLER_LANES] = s1 - s0;
        }
        if (raw_r) { /* a constant rotation, as the file has it */
            for (int c = 0; c < 4; c++) {
                o[(12 + c) * VKS_SAMPLER_LANES] = raw_r[c];
                o[(16 + c) * VKS_SAMPLER_LANES] = 0.0f;
            }
            o[20 * VKS_SAMPLER_LANES] = 0.0f;
        } else {
            arc_of(r[k], r[k + 1], o + 12 * VKS_SAMPLER_LANES, o + 16 * VKS_SAMPLER_LANES,
                   o + 20 * VKS_SAMPLER_LANES);
        }
    }
}

vks_sampler_result vks_sampler_build(const vks_skeleton *sk, const vks_clip *clip, size_t max_bytes,
                                     vks_sampler *out)
{
    *out = (vks_sampler){0};
    float *times = NULL;
    const size_t count = union_times(sk, clip, &times);
    if (count == 0)
        return VKS_SAMPLER_NO_MEMORY;
    if (count >
        UINT32_MAX) { /* three channels' keys, each count a uint32: their union may not be */
        free(times);
        return VKS_SAMPLER_TOO_LARGE;
    }
    const uint32_t n = (uint32_t)count, segs = n - 1,
                   blocks = (sk->joint_count + VKS_SAMPLER_LANES - 1) / VKS_SAMPLER_LANES;
    const size_t block_bytes = sizeof(float) * VKS_SAMPLER_BLOCK_FLOATS;
    if (blocks && (size_t)segs > max_bytes / block_bytes / blocks) {
        free(times);
        return VKS_SAMPLER_TOO_LARGE;
    }
    const size_t floats = (size_t)segs * (blocks ? blocks : 1) * VKS_SAMPLER_BLOCK_FLOATS;
    float *seg = aligned_alloc(64, (sizeof(float) * floats + 63) & ~(size_t)63);
    double(*t)[3] = malloc(sizeof *t * n), (*s)[3] = malloc(sizeof *s * n);
    double(*r)[4] = malloc(sizeof *r * n);
    if (!seg || !t || !s || !r) {
        free(times), free(seg), free(t), free(s), free(r);
        return VKS_SAMPLER_NO_MEMORY;
    }
    const size_t seg_stride = (size_t)blocks * VKS_SAMPLER_BLOCK_FLOATS;
    for (uint32_t j = 0; j < blocks * VKS_SAMPLER_LANES; j++) {
        float *lane = seg + (size_t)(j / VKS_SAMPLER_LANES) * VKS_SAMPLER_BLOCK_FLOATS +
                      j % VKS_SAMPLER_LANES;
        static const float zero[3] = {0, 0, 0}, one[3] = {1, 1, 1}, id[4] = {0, 0, 0, 1};
        if (j >= sk->joint_count) { /* padding: the identity */
            eval_vec3(NULL, NULL, 0, zero, times, n, t);
            eval_vec3(NULL, NULL, 0, one, times, n, s);
            fill_lane(lane, seg_stride, segs, (const double(*)[3])t, (const double(*)[3])s, NULL,
                      id);
            continue;
        }
        const vks_xform *rest = &sk->rest[j];
        const vks_track *k = clip ? &clip->tracks[j] : &(vks_track){0};
        eval_vec3(clip ? clip->t_times + k->t_first : NULL,
                  clip ? (const float(*)[3])clip->t_values + k->t_first : NULL, k->t_count, rest->t,
                  times, n, t);
        eval_vec3(clip ? clip->s_times + k->s_first : NULL,
                  clip ? (const float(*)[3])clip->s_values + k->s_first : NULL, k->s_count, rest->s,
                  times, n, s);
        const float *raw_r = NULL;
        if (k->r_count > 1)
            eval_quat(clip->r_times + k->r_first, (const float(*)[4])clip->r_values + k->r_first,
                      k->r_count, times, n, r);
        else
            raw_r = k->r_count ? clip->r_values[k->r_first] : rest->r;
        fill_lane(lane, seg_stride, segs, (const double(*)[3])t, (const double(*)[3])s,
                  (const double(*)[4])r, raw_r);
    }
    free(t), free(s), free(r);
    *out =
        (vks_sampler){.joint_count = sk->joint_count,
                      .block_count = blocks,
                      .segment_count = segs,
                      .times = times,
                      .segments = seg,
                      .impl = cpu_has_avx2() ? impl_of(VKS_SAMPLER_AVX2) : &vks_sampler_base_impl};
    return VKS_SAMPLER_BUILT;
}

void vks_sampler_free(vks_sampler *s)
{
    free(s->times);
    free(s->segments);
    *s = (vks_sampler){0};
}

size_t vks_sampler_bytes(const vks_sampler *s)
{
    return sizeof(float) * ((size_t)s->segment_count * s->block_count * VKS_SAMPLER_BLOCK_FLOATS +
                            s->segment_count + 1);
}

/* ---- Posing ---- */

size_t vks_sampler_local_floats(uint32_t joint_count)
{
    return (size_t)((joint_count + VKS_SAMPLER_LANES - 1) / VKS_SAMPLER_LANES) *
           VKS_SAMPLER_LOCAL_FLOATS;
}

size_t vks_sampler_scratch_bytes(uint32_t joint_count)
{
    /* Local blocks are 384 bytes: the model transforms after them stay 64-byte aligned. */
    return sizeof(float) * vks_sampler_local_floats(joint_count) +
           sizeof(float[4][4]) * joint_count;
}

void vks_sampler_local_joint(const float *local, uint32_t joint, vks_affine *out)
{
    const float *l = local + (size_t)(joint / VKS_SAMPLER_LANES) * VKS_SAMPLER_LOCAL_FLOATS +
                     joint % VKS_SAMPLER_LANES;
    for (int k = 0; k < 12; k++)
        out->row[k / 4][k % 4] = l[k * VKS_SAMPLER_LANES];
}

void vks_sampler_local(const vks_sampler *s, double t, uint32_t *cursor, float *local)
{
    const uint32_t i = vks_key_find(s->times, s->segment_count + 1, t, cursor);
    const double t0 = s->times[i], t1 = s->times[i + 1];
    const float u = t <= t0 ? 0.0f : t >= t1 ? 1.0f : (float)((t - t0) / (t1 - t0)); /* anim.c */
    s->impl->local(s->segments + (size_t)i * s->block_count * VKS_SAMPLER_BLOCK_FLOATS,
                   s->block_count, u, local);
}

void vks_sampler_model(const vks_sampler *s, const vks_skeleton *skeleton, const float *local,
                       float (*model)[4][4])
{
    s->impl->model(skeleton, s->joint_count, local, model);
}

void vks_sampler_skin(const vks_sampler *s, const vks_skeleton *skeleton,
                      const float (*model)[4][4], vks_bone *palette)
{
    s->impl->skin(skeleton, s->joint_count, model, palette);
}

void vks_sampler_pose(const vks_sampler *s, const vks_skeleton *skeleton, double t,
                      uint32_t *cursor, void *scratch, vks_bone *palette, bool stream)
{
    float *local = scratch;
    float(*model)[4][4] = (void *)(local + vks_sampler_local_floats(s->joint_count));
    vks_sampler_local(s, t, cursor, local);
    s->impl->palette(skeleton, s->joint_count, local, model, palette, stream);
}

void vks_sampler_fence(void)
{
#if defined(__SSE2__)
    _mm_sfence();
#endif
}
