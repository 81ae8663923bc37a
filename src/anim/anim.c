#include "anim.h"

#include <assert.h>
#include <string.h>

double vks_clip_time(const vks_clip *clip, double seconds, vks_wrap wrap)
{
    double d = clip->duration;
    if (!(d > 0.0))
        return 0.0;
    if (wrap == VKS_WRAP_CLAMP)
        return seconds < 0.0 ? 0.0 : seconds > d ? d : seconds;
    if (seconds >= 0.0 && seconds < d) /* already within: what fmod would return, sooner */
        return seconds;
    double t = fmod(seconds, d); /* exact */
    if (t < 0.0)
        t += d;
    return t < d ? t : 0.0; /* a tiny negative t plus d rounds up to d: wraps to 0 */
}

uint32_t vks_key_find(const float *times, uint32_t count, double t, uint32_t *hint)
{
    if (count < 2)
        return 0;
    uint32_t last = count - 2;
    if (hint && *hint <= last) {
        /* Time usually moves forward by less than a key per frame: try this segment and the
         * next. */
        uint32_t h = *hint;
        if (times[h] <= t) {
            if (h == last || t < times[h + 1])
                return h;
            if (h + 1 == last || t < times[h + 2])
                return *hint = h + 1;
        }
    }
    uint32_t lo = 0, hi = last; /* largest i in [0, last] with times[i] <= t, or 0 */
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo + 1) / 2;
        if (times[mid] <= t)
            lo = mid;
        else
            hi = mid - 1;
    }
    if (hint)
        *hint = lo;
    return lo;
}

float vks_key_factor(const float *times, uint32_t i, double t)
{
    double t0 = times[i], t1 = times[i + 1];
    if (t >= t1)
        return 1.0f;
    if (t <= t0)
        return 0.0f;
    return (float)((t - t0) / (t1 - t0));
}

static void sample_vec3(const float *times, const float (*values)[3], uint32_t count, double t,
                        uint32_t *hint, float out[3])
{
    if (count == 1) {
        memcpy(out, values[0], sizeof(float[3]));
        return;
    }
    uint32_t i = vks_key_find(times, count, t, hint);
    vks_vec3_lerp(values[i], values[i + 1], vks_key_factor(times, i, t), out);
}

static void sample_quat(const float *times, const float (*values)[4], uint32_t count, double t,
                        uint32_t *hint, float out[4])
{
    if (count == 1) {
        memcpy(out, values[0], sizeof(float[4]));
        return;
    }
    uint32_t i = vks_key_find(times, count, t, hint);
    vks_quat_slerp(values[i], values[i + 1], vks_key_factor(times, i, t), out);
}

void vks_clip_sample(const vks_skeleton *skeleton, const vks_clip *clip, double t, uint32_t *cursor,
                     vks_xform *local)
{
    for (uint32_t j = 0; j < skeleton->joint_count; j++) {
        const vks_track *k = &clip->tracks[j];
        uint32_t *hint = cursor ? cursor + 3 * j : NULL;
        local[j] = skeleton->rest[j];
        if (k->t_count)
            sample_vec3(clip->t_times + k->t_first, clip->t_values + k->t_first, k->t_count, t,
                        hint ? hint + 0 : NULL, local[j].t);
        if (k->r_count)
            sample_quat(clip->r_times + k->r_first, clip->r_values + k->r_first, k->r_count, t,
                        hint ? hint + 1 : NULL, local[j].r);
        if (k->s_count)
            sample_vec3(clip->s_times + k->s_first, clip->s_values + k->s_first, k->s_count, t,
                        hint ? hint + 2 : NULL, local[j].s);
    }
}

void vks_pose_rest(const vks_skeleton *skeleton, vks_xform *local)
{
    memcpy(local, skeleton->rest, sizeof(vks_xform) * skeleton->joint_count);
}

void vks_pose_blend(const vks_xform *a, const vks_xform *b, float w, uint32_t joint_count,
                    vks_xform *out)
{
    for (uint32_t j = 0; j < joint_count; j++) {
        vks_xform x;
        vks_vec3_lerp(a[j].t, b[j].t, w, x.t);
        vks_quat_slerp(a[j].r, b[j].r, w, x.r);
        vks_vec3_lerp(a[j].s, b[j].s, w, x.s);
        out[j] = x;
    }
}

void vks_pose_palette(const vks_skeleton *skeleton, const vks_xform *local, vks_affine *model,
                      vks_bone *palette)
{
    for (uint32_t j = 0; j < skeleton->joint_count; j++) {
        vks_affine l;
        vks_affine_from_xform(&local[j], &l);
        int32_t p = skeleton->parents[j];
        assert(p < (int32_t)j);
        vks_affine_mul(p < 0 ? &skeleton->root_inverse : &model[p], &l, &model[j]);
        vks_affine_mul(&model[j], &skeleton->inverse_bind[j], &palette[j]);
    }
}

void vks_pose_model(const vks_skeleton *skeleton, const vks_xform *local, vks_affine *model)
{
    for (uint32_t j = 0; j < skeleton->joint_count; j++) {
        vks_affine l;
        vks_affine_from_xform(&local[j], &l);
        int32_t p = skeleton->parents[j];
        vks_affine_mul(p < 0 ? &skeleton->root_inverse : &model[p], &l, &model[j]);
    }
}

void vks_pose_skin(const vks_skeleton *skeleton, const vks_affine *model, vks_bone *palette)
{
    for (uint32_t j = 0; j < skeleton->joint_count; j++)
        vks_affine_mul(&model[j], &skeleton->inverse_bind[j], &palette[j]);
}

void vks_clip_weights(const vks_model *model, const vks_clip *clip, double t, float *weights)
{
    for (uint32_t i = 0; i < model->target_count; i++)
        weights[i] = model->targets[i].weight;
    for (uint32_t k = 0; clip && k < clip->weight_track_count; k++) {
        const vks_weight_track *tr = &clip->weight_tracks[k];
        const float *times = clip->w_times + tr->key_first;
        const uint32_t n = tr->weight_count, per_key = tr->interp == VKS_INTERP_CUBIC ? 3 * n : n;
        /* Where a key's values start in its record (CUBIC: after its in-tangents). */
        const uint32_t at_value = tr->interp == VKS_INTERP_CUBIC ? n : 0;
        const float *v = clip->w_values + tr->value_first;
        const uint32_t i = vks_key_find(times, tr->key_count, t, NULL);
        const float u = tr->key_count > 1 ? vks_key_factor(times, i, t) : 0.0f;
        const uint32_t j = tr->key_count > 1 ? i + 1 : i;
        const float *a = v + (size_t)i * per_key + at_value,
                    *b = v + (size_t)j * per_key + at_value;
        for (uint32_t w = 0; w < n; w++) {
            float value;
            if (tr->interp == VKS_INTERP_STEP || j == i) {
                value = u >= 1.0f ? b[w] : a[w];
            } else if (tr->interp == VKS_INTERP_LINEAR || u <= 0.0f || u >= 1.0f) {
                value = a[w] + (b[w] - a[w]) * u;
            } else { /* glTF's cubic spline: a's out-tangent, b's in-tangent, times dt */
                const float dt = times[j] - times[i], u2 = u * u, u3 = u2 * u;
                const float out_a = v[(size_t)i * per_key + 2 * n + w];
                const float in_b = v[(size_t)j * per_key + w];
                value = (2 * u3 - 3 * u2 + 1) * a[w] + (u3 - 2 * u2 + u) * dt * out_a +
                        (-2 * u3 + 3 * u2) * b[w] + (u3 - u2) * dt * in_b;
            }
            for (uint32_t p = 0; p < tr->parts; p++)
                weights[tr->target_first + p * n + w] = value;
        }
    }
}
