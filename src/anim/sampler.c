#include "sampler.h"
#include "../core/alloc.h"

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
#if defined(VKS_SAMPLER_X86)
    return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
#else
    return false;
#endif
}

static const vks_sampler_impl *impl_of(vks_sampler_isa isa)
{
    if (isa == vks_sampler_base_impl.isa)
        return &vks_sampler_base_impl;
#if defined(VKS_SAMPLER_X86)
    if (isa == VKS_SAMPLER_AVX2 && cpu_has_avx2())
        return &vks_sampler_avx2_impl;
    if (isa == VKS_SAMPLER_SCALAR)
        return &vks_sampler_scalar_impl;
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
 * constant, whatever its time), in (*times)[1 ..], with room for one more before and after
 * (vks_sampler_build). Returns the count, at least 1 (a clip with no keyed channel gets one time,
 * 0), or 0 when out of memory; *times is freed by the caller. */
static size_t union_times(const vks_skeleton *sk, const vks_clip *clip, float **times)
{
    size_t total = 0;
    for (uint32_t j = 0; clip && j < sk->joint_count; j++) {
        const vks_track *k = &clip->tracks[j];
        total += (k->t_count > 1 ? k->t_count : 0) + (k->r_count > 1 ? k->r_count : 0) +
                 (k->s_count > 1 ? k->s_count : 0);
    }
    float *all = vks_malloc(sizeof *all * (total + 3));
    if (!all)
        return 0;
    size_t at = 1;
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
    qsort(all + 1, total, sizeof *all, compare_floats);
    size_t n = 0;
    for (size_t i = 1; i <= total; i++)
        if (n == 0 || all[i] != all[n])
            all[++n] = all[i];
    if (n == 0) /* no keyed channel: one time, 0 */
        all[++n] = 0.0f;
    *times = all;
    return n;
}

/* Segment index and factor at t in a channel's keys, as vks_key_find and anim.c's lerp factor
 * (in double). Where keys share a time (a step), the value there is the later key's, as the
 * direct path has it; `from_left` gives the limit from before (the earlier key's). */
static double channel_u(const float *times, uint32_t count, double t, bool from_left, uint32_t *i)
{
    while (*i + 2 < count && (from_left ? times[*i + 1] < t : times[*i + 1] <= t))
        (*i)++;
    const double t0 = times[*i], t1 = times[*i + 1];
    if (from_left) /* in a segment of length 0 at t: its start */
        return t <= t0 ? 0.0 : t >= t1 ? 1.0 : (t - t0) / (t1 - t0);
    return t >= t1 ? 1.0 : t <= t0 ? 0.0 : (t - t0) / (t1 - t0);
}

/* A translation or scale channel at each of the ascending times `at` (rest when no key). */
static void eval_vec3(const float *times, const float (*values)[3], uint32_t count,
                      const float rest[3], const float *at, uint32_t n, bool from_left,
                      double (*out)[3])
{
    uint32_t i = 0;
    for (uint32_t k = 0; k < n; k++) {
        const float *a = count ? values[0] : rest, *b = a;
        double u = 0.0;
        if (count > 1) {
            u = channel_u(times, count, at[k], from_left, &i);
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

/* A rotation channel with 2 keys or more at the times `at`: slerp along the shorter arc of the
 * normalised keys, in double. */
static void eval_quat(const float *times, const float (*values)[4], uint32_t count, const float *at,
                      uint32_t n, bool from_left, double (*out)[4])
{
    uint32_t i = 0;
    for (uint32_t k = 0; k < n; k++) {
        const double u = channel_u(times, count, at[k], from_left, &i);
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

/* One joint's values at the union times, from the right (the value there) and from the left
 * (the limit before it: they differ at a step, keys sharing a time). */
typedef struct joint_values {
    double (*t[2])[3], (*s[2])[3], (*r[2])[4]; /* [0]: from the right, [1]: from the left */
    const float *raw_r; /* a constant rotation, as the file has it; NULL when keyed */
} joint_values;

/* Lane j of every segment (component k of segment g at lane[g * seg_stride + k * LANES]): the
 * zero-length segment before the first union time holds the limit from the left there, segment
 * g in 1 .. n - 1 runs from the value at time g - 1 to the limit before time g, and the
 * zero-length one after the last time holds the value there. */
static void fill_lane(float *lane, size_t seg_stride, uint32_t n, const joint_values *v)
{
    for (uint32_t g = 0; g <= n; g++) {
        /* (side, time) of the segment's start and end */
        const uint32_t k0 = g == 0 ? 0 : g - 1, k1 = g == n ? n - 1 : g;
        const int side0 = g == 0 ? 1 : 0, side1 = g == n ? 0 : 1;
        float *o = lane + g * seg_stride;
        for (int c = 0; c < 3; c++) {
            const float t0 = (float)v->t[side0][k0][c], t1 = (float)v->t[side1][k1][c];
            const float s0 = (float)v->s[side0][k0][c], s1 = (float)v->s[side1][k1][c];
            o[c * VKS_SAMPLER_LANES] = t0;
            o[(3 + c) * VKS_SAMPLER_LANES] = t1 - t0; /* anim.h's lerp: a + (b - a) * u */
            o[(6 + c) * VKS_SAMPLER_LANES] = s0;
            o[(9 + c) * VKS_SAMPLER_LANES] = s1 - s0;
        }
        if (v->raw_r) {
            for (int c = 0; c < 4; c++) {
                o[(12 + c) * VKS_SAMPLER_LANES] = v->raw_r[c];
                o[(16 + c) * VKS_SAMPLER_LANES] = 0.0f;
            }
            o[20 * VKS_SAMPLER_LANES] = 0.0f;
        } else {
            arc_of(v->r[side0][k0], v->r[side1][k1], o + 12 * VKS_SAMPLER_LANES,
                   o + 16 * VKS_SAMPLER_LANES, o + 20 * VKS_SAMPLER_LANES);
        }
    }
}

/* Joint j's values (or the identity for a padding lane, j >= joint_count). */
static void joint_values_of(const vks_skeleton *sk, const vks_clip *clip, uint32_t j,
                            const float *at, uint32_t n, joint_values *v)
{
    static const float zero[3] = {0, 0, 0}, one[3] = {1, 1, 1}, identity[4] = {0, 0, 0, 1};
    const bool pad = j >= sk->joint_count;
    const vks_track *k = clip && !pad ? &clip->tracks[j] : &(vks_track){0};
    for (int side = 0; side < 2; side++) {
        eval_vec3(clip ? clip->t_times + k->t_first : NULL,
                  clip ? (const float(*)[3])clip->t_values + k->t_first : NULL, k->t_count,
                  pad ? zero : sk->rest[j].t, at, n, side, v->t[side]);
        eval_vec3(clip ? clip->s_times + k->s_first : NULL,
                  clip ? (const float(*)[3])clip->s_values + k->s_first : NULL, k->s_count,
                  pad ? one : sk->rest[j].s, at, n, side, v->s[side]);
        if (k->r_count > 1)
            eval_quat(clip->r_times + k->r_first, (const float(*)[4])clip->r_values + k->r_first,
                      k->r_count, at, n, side, v->r[side]);
    }
    v->raw_r = k->r_count > 1 ? NULL
               : k->r_count   ? clip->r_values[k->r_first]
               : pad          ? identity
                              : sk->rest[j].r;
}

vks_sampler_result vks_sampler_build(const vks_skeleton *sk, const vks_clip *clip, size_t max_bytes,
                                     vks_sampler *out)
{
    *out = (vks_sampler){0};
    float *times = NULL;
    const size_t count = union_times(sk, clip, &times);
    if (count == 0)
        return VKS_SAMPLER_NO_MEMORY;
    /* A zero-length segment before and after the union's times: segments = count + 1. Three
     * channels' key counts are each a uint32, their union may not be. */
    const size_t block_bytes = sizeof(float) * VKS_SAMPLER_BLOCK_FLOATS;
    const uint32_t blocks = (sk->joint_count + VKS_SAMPLER_LANES - 1) / VKS_SAMPLER_LANES;
    max_bytes = max_bytes < SIZE_MAX / 2 ? max_bytes : SIZE_MAX / 2; /* no overflow below */
    if (count >= UINT32_MAX - 1 || count + 1 > max_bytes / block_bytes / (blocks ? blocks : 1)) {
        vks_free(times);
        return VKS_SAMPLER_TOO_LARGE;
    }
    const uint32_t n = (uint32_t)count, segs = n + 1;
    times[0] = times[1];
    times[n + 1] = times[n];
    const size_t seg_stride = (size_t)blocks * VKS_SAMPLER_BLOCK_FLOATS;
    const size_t seg_bytes = sizeof(float) * seg_stride * segs;
    float *seg = vks_aligned_alloc(64, seg_bytes ? (seg_bytes + 63) & ~(size_t)63 : 64);
    joint_values v;
    void *values[6];
    for (int i = 0; i < 6; i++)
        values[i] = vks_malloc(sizeof(double[4]) * n);
    v.t[0] = values[0], v.t[1] = values[1], v.s[0] = values[2], v.s[1] = values[3];
    v.r[0] = values[4], v.r[1] = values[5];
    bool ok = seg != NULL;
    for (int i = 0; i < 6; i++)
        ok = ok && values[i];
    for (uint32_t j = 0; ok && j < blocks * VKS_SAMPLER_LANES; j++) {
        joint_values_of(sk, clip, j, times + 1, n, &v);
        fill_lane(seg + (size_t)(j / VKS_SAMPLER_LANES) * VKS_SAMPLER_BLOCK_FLOATS +
                      j % VKS_SAMPLER_LANES,
                  seg_stride, n, &v);
    }
    for (int i = 0; i < 6; i++)
        vks_free(values[i]);
    if (!ok) {
        vks_free(times);
        vks_free(seg);
        return VKS_SAMPLER_NO_MEMORY;
    }
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
    vks_free(s->times);
    vks_free(s->segments);
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

/* The first `blocks` blocks of joints' local matrices at time t. */
static void sample_blocks(const vks_sampler *s, double t, uint32_t *cursor, uint32_t blocks,
                          float *local)
{
    const uint32_t i = vks_key_find(s->times, s->segment_count + 1, t, cursor);
    s->impl->local(s->segments + (size_t)i * s->block_count * VKS_SAMPLER_BLOCK_FLOATS, blocks,
                   vks_key_factor(s->times, i, t), local);
}

void vks_sampler_local(const vks_sampler *s, double t, uint32_t *cursor, float *local)
{
    sample_blocks(s, t, cursor, s->block_count, local);
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
    vks_sampler_pose_joints(s, skeleton, t, cursor, scratch, palette, stream, s->joint_count);
}

void vks_sampler_pose_joints(const vks_sampler *s, const vks_skeleton *skeleton, double t,
                             uint32_t *cursor, void *scratch, vks_bone *palette, bool stream,
                             uint32_t joints)
{
    joints = joints < s->joint_count ? joints : s->joint_count;
    float *local = scratch;
    float(*model)[4][4] = (void *)(local + vks_sampler_local_floats(s->joint_count));
    sample_blocks(s, t, cursor, (joints + VKS_SAMPLER_LANES - 1) / VKS_SAMPLER_LANES, local);
    s->impl->palette(skeleton, joints, local, model, palette, stream);
}

void vks_sampler_fence(void)
{
#if defined(__SSE2__)
    _mm_sfence();
#endif
}
