/* Locomotion measured from the feet (gait.h). */
#include "gait.h"
#include "m34.h"
#include "root_motion.h"

#include "../anim/anim.h"
#include "../core/alloc.h"

#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

bool vks_gait_foot_name(const char *name)
{
    static const char *const words[] = {"foot", "toe", "ball", "ankle"};
    for (const char *p = name; p && *p; p++)
        for (size_t w = 0; w < sizeof words / sizeof words[0]; w++) {
            size_t k = 0;
            while (words[w][k] && tolower((unsigned char)p[k]) == words[w][k])
                k++;
            if (!words[w][k])
                return true;
        }
    return false;
}

/* The feet: joints named so, or the low leaves; *count of them into feet (room for every joint). */
static uint32_t find_feet(const vks_model *m, const m34 *root, double height, uint32_t *feet)
{
    const vks_skeleton *sk = &m->skeleton;
    uint32_t n = 0;
    for (uint32_t j = 0; j < sk->joint_count; j++)
        if (sk->names[j] && vks_gait_foot_name(sk->names[j]))
            feet[n++] = j;
    if (n)
        return n;
    /* The bind pose's joint heights, and which joints have children. */
    vks_xform *local = vks_malloc(sizeof *local * sk->joint_count);
    vks_affine *model = vks_malloc(sizeof *model * sk->joint_count);
    uint8_t *parent = vks_calloc(sk->joint_count, 1);
    if (local && model && parent) {
        vks_pose_rest(sk, local);
        vks_pose_model(sk, local, model);
        double lowest = INFINITY;
        for (uint32_t j = 0; j < sk->joint_count; j++) {
            if (sk->parents[j] >= 0)
                parent[sk->parents[j]] = 1;
            const m34 g = m34_of_affine(&model[j]), w = m34_mul(root, &g);
            lowest = fmin(lowest, w.m[1][3]);
        }
        for (uint32_t j = 0; j < sk->joint_count; j++) {
            const m34 g = m34_of_affine(&model[j]), w = m34_mul(root, &g);
            if (!parent[j] && w.m[1][3] <= lowest + VKS_GAIT_LOW * height)
                feet[n++] = j;
        }
    }
    vks_free(local);
    vks_free(model);
    vks_free(parent);
    return n;
}

static int cmp_double(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The feet's positions over a loop of `clip` (n samples, placement frame) into at[foot][k]. */
static void sample_feet(const vks_model *m, const m34 *root, const vks_clip *clip,
                        const uint32_t *feet, uint32_t foot_count, uint32_t n, vks_xform *local,
                        vks_affine *model, double (*at)[3])
{
    for (uint32_t k = 0; k < n; k++) {
        vks_clip_sample(&m->skeleton, clip, clip->duration * k / n, NULL, local);
        vks_pose_model(&m->skeleton, local, model);
        for (uint32_t f = 0; f < foot_count; f++) {
            const m34 g = m34_of_affine(&model[feet[f]]), w = m34_mul(root, &g);
            for (int a = 0; a < 3; a++)
                at[(size_t)f * n + k][a] = w.m[a][3];
        }
    }
}

/* Clip c's ground speed and direction from its feet (gait.h), or 0. */
static bool measure_clip(vks_model *m, const m34 *root, double height, uint32_t c,
                         const uint32_t *feet, uint32_t foot_count, vks_xform *local,
                         vks_affine *model)
{
    vks_clip *clip = &m->clips[c];
    /* Clamped as a double: a damaged file's duration may be past any integer. */
    const double want = ceil(clip->duration * VKS_ROOT_MOTION_RATE);
    const uint32_t n = !(want >= 64.0)                         ? 64 /* NaN too */
                       : want > 2.0 * VKS_ROOT_MOTION_MAX_HALF ? 2 * VKS_ROOT_MOTION_MAX_HALF
                                                               : (uint32_t)want;
    double(*at)[3] = vks_malloc(sizeof *at * n * foot_count);
    double(*vel)[2] = vks_malloc(sizeof *vel * n * foot_count);
    if (!at || !vel) {
        vks_free(at);
        vks_free(vel);
        return false;
    }
    /* The samples cover [0, duration): the loop's end is its start again, so the velocity's
     * central difference wraps (the pose at the loop's end is the start's). */
    sample_feet(m, root, clip, feet, foot_count, n, local, model, at);
    const double dt = clip->duration / n;
    uint32_t contacts = 0;
    double sum[2] = {0.0, 0.0}, speed_sum = 0.0;
    for (uint32_t f = 0; f < foot_count; f++) {
        const double(*p)[3] = at + (size_t)f * n;
        double lo = INFINITY, hi = -INFINITY;
        for (uint32_t k = 0; k < n; k++)
            lo = fmin(lo, p[k][1]), hi = fmax(hi, p[k][1]);
        if (!(hi - lo >= VKS_GAIT_MIN_LIFT * height))
            continue;
        for (uint32_t k = 0; k < n; k++) {
            if (p[k][1] > lo + VKS_GAIT_CONTACT * (hi - lo))
                continue;
            const double *a = p[(k + n - 1) % n], *b = p[(k + 1) % n];
            double *v = vel[contacts++];
            v[0] = (b[0] - a[0]) / (2.0 * dt);
            v[1] = (b[2] - a[2]) / (2.0 * dt);
            sum[0] += v[0], sum[1] += v[1];
            speed_sum += sqrt(v[0] * v[0] + v[1] * v[1]);
        }
    }
    clip->ground_speed = 0.0f;
    const double mean = contacts ? sqrt(sum[0] * sum[0] + sum[1] * sum[1]) / contacts : 0.0;
    if (contacts && mean >= VKS_GAIT_AGREEMENT * speed_sum / contacts) {
        const double dir[2] = {-sum[0] / (mean * contacts), -sum[1] / (mean * contacts)};
        double *along = vks_malloc(sizeof *along * contacts);
        if (!along) {
            vks_free(at);
            vks_free(vel);
            return false;
        }
        for (uint32_t k = 0; k < contacts; k++)
            along[k] = -(vel[k][0] * dir[0] + vel[k][1] * dir[1]);
        qsort(along, contacts, sizeof *along, cmp_double);
        const double median = contacts % 2 ? along[contacts / 2]
                                           : 0.5 * (along[contacts / 2 - 1] + along[contacts / 2]);
        vks_free(along);
        if (median >= VKS_GAIT_MIN_SPEED * height) {
            clip->ground_speed = (float)median;
            clip->ground_dir[0] = (float)dir[0];
            clip->ground_dir[1] = (float)dir[1];
        }
    }
    vks_free(at);
    vks_free(vel);
    return true;
}

bool vks_model_measure_gaits(vks_model *m, vks_error *err)
{
    const vks_skeleton *sk = &m->skeleton;
    if (!m->clip_count || !sk->joint_count)
        return true;
    const m34 root = m34_root(sk);
    double lo = INFINITY, hi = -INFINITY;
    for (uint32_t v = 0; v < m->vertex_count; v++) {
        double p[3];
        m34_point(&root, m->positions[v], p);
        lo = fmin(lo, p[1]), hi = fmax(hi, p[1]);
    }
    const double height = hi > lo ? hi - lo : 1.0;
    uint32_t *feet = vks_malloc(sizeof *feet * sk->joint_count);
    vks_xform *local = vks_malloc(sizeof *local * sk->joint_count);
    vks_affine *model = vks_malloc(sizeof *model * sk->joint_count);
    bool ok = feet && local && model;
    const uint32_t foot_count = ok ? find_feet(m, &root, height, feet) : 0;
    for (uint32_t c = 0; ok && c < m->clip_count; c++) {
        vks_clip *clip = &m->clips[c];
        clip->ground_speed = 0.0f;
        clip->ground_dir[0] = 0.0f, clip->ground_dir[1] = 1.0f;
        if (vks_model_travels(m, (int32_t)c)) { /* its travel: distance a loop, along the loop */
            const vks_root_motion *rm = &m->root_motion[c];
            const vks_travel loop = rm->samples[rm->sample_count - 1];
            if (rm->distance >= VKS_GAIT_MIN_SPEED * height * clip->duration &&
                clip->duration > 0.0) { /* (a turn in place that drifts is no walk) */
                clip->ground_speed = (float)(rm->distance / clip->duration);
                clip->ground_dir[0] = loop.x / rm->distance;
                clip->ground_dir[1] = loop.z / rm->distance;
            }
            m->root_motion[c].in_place.ground_speed = clip->ground_speed;
            memcpy(m->root_motion[c].in_place.ground_dir, clip->ground_dir,
                   sizeof clip->ground_dir);
        } else if (foot_count && clip->duration > 0.0) {
            ok = measure_clip(m, &root, height, c, feet, foot_count, local, model);
        }
    }
    vks_free(feet);
    vks_free(local);
    vks_free(model);
    return ok || vks_fail_memory(err, "out of memory for the gaits of %s", m->name);
}
