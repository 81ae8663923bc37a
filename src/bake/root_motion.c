/* Root motion taken out of the clips (root_motion.h). The load-time arithmetic is in double:
 * affine transforms as row-major 3x4 (the fourth row 0 0 0 1 implied), like vks_affine. */
#include "root_motion.h"
#include "m34.h"

#include "../anim/anim.h"
#include "../core/alloc.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define PI 3.14159265358979323846

/* A travel as the affine transform of the placement frame it is. */
static m34 m34_of_travel(vks_travel t)
{
    const double c = cos((double)t.yaw), s = sin((double)t.yaw);
    return (m34){{{c, 0.0, s, t.x}, {0.0, 1.0, 0.0, 0.0}, {-s, 0.0, c, t.z}}};
}

/* The unit quaternion (x, y, z, w) of a rotation matrix (Shepperd's method). */
static void quat_of_rotation(const double r[3][3], float q[4])
{
    const double tr = r[0][0] + r[1][1] + r[2][2];
    double x, y, z, w;
    if (tr > 0.0) {
        const double s = 2.0 * sqrt(tr + 1.0);
        w = 0.25 * s, x = (r[2][1] - r[1][2]) / s, y = (r[0][2] - r[2][0]) / s,
        z = (r[1][0] - r[0][1]) / s;
    } else if (r[0][0] > r[1][1] && r[0][0] > r[2][2]) {
        const double s = 2.0 * sqrt(1.0 + r[0][0] - r[1][1] - r[2][2]);
        w = (r[2][1] - r[1][2]) / s, x = 0.25 * s, y = (r[0][1] + r[1][0]) / s,
        z = (r[0][2] + r[2][0]) / s;
    } else if (r[1][1] > r[2][2]) {
        const double s = 2.0 * sqrt(1.0 + r[1][1] - r[0][0] - r[2][2]);
        w = (r[0][2] - r[2][0]) / s, x = (r[0][1] + r[1][0]) / s, y = 0.25 * s,
        z = (r[1][2] + r[2][1]) / s;
    } else {
        const double s = 2.0 * sqrt(1.0 + r[2][2] - r[0][0] - r[1][1]);
        w = (r[1][0] - r[0][1]) / s, x = (r[0][2] + r[2][0]) / s, y = (r[1][2] + r[2][1]) / s,
        z = 0.25 * s;
    }
    const double n = sqrt(x * x + y * y + z * z + w * w);
    q[0] = (float)(x / n), q[1] = (float)(y / n), q[2] = (float)(z / n), q[3] = (float)(w / n);
}

/* ---- Sampling the clip's motion joint ---- */

/* What sampling a clip's pose needs, sized for the skeleton. */
typedef struct pose_scratch {
    vks_xform *local;
    vks_affine *model;
} pose_scratch;

/* The model-space (palette-space) transforms of every joint of `clip` at t. */
static void pose_at(const vks_model *m, const vks_clip *clip, double t, pose_scratch *s)
{
    vks_clip_sample(&m->skeleton, clip, t, NULL, s->local);
    vks_pose_model(&m->skeleton, s->local, s->model);
}

/* Joint j's transform in the placement frame: the root transform (the root inverse's inverse)
 * times its model-space transform. */
static m34 placed(const m34 *root, const pose_scratch *s, uint32_t j)
{
    const m34 model = m34_of_affine(&s->model[j]);
    return m34_mul(root, &model);
}

/* The heading of a placement-frame transform relative to `start`'s: the angle about +Y (+Z
 * towards +X) by which the rotation from `start` to `now` turns the forward axis (+Z, or +X where
 * +Z turns near the vertical). */
static double heading_from(const m34 *start, const m34 *now)
{
    const m34 inv = m34_inverse(start);
    m34 rel = m34_mul(now, &inv);
    for (int axis = 2; axis >= 0; axis -= 2) {
        /* The axis's image under the relative rotation (its linear part, scale and all). */
        const double x = rel.m[0][axis], y = rel.m[1][axis], z = rel.m[2][axis];
        const double h = sqrt(x * x + z * z), n = sqrt(x * x + y * y + z * z);
        if (axis == 0 || h > 0.5 * n) {
            const double angle = atan2(x, z);
            return axis == 2 ? angle : angle - PI / 2.0; /* +X's own heading is pi / 2 */
        }
    }
    return 0.0;
}

static double wrap_angle(double a)
{
    return a - 2.0 * PI * floor((a + PI) / (2.0 * PI));
}

/* ---- Choosing the motion joint ---- */

/* The bind-pose height of the model in the placement frame (its positions' box, carried by the
 * root transform); 1 for a model of no height. */
static double model_height(const vks_model *m, const m34 *root)
{
    double lo = INFINITY, hi = -INFINITY;
    for (uint32_t v = 0; v < m->vertex_count; v++) {
        const float *p = m->positions[v];
        const double y =
            root->m[1][0] * p[0] + root->m[1][1] * p[1] + root->m[1][2] * p[2] + root->m[1][3];
        lo = fmin(lo, y);
        hi = fmax(hi, y);
    }
    return hi > lo ? hi - lo : 1.0;
}

/* Per joint: whether it or one below it moves vertices, counted (the skin below it). */
static bool skin_below(const vks_model *m, uint32_t *below)
{
    const uint32_t n = m->skeleton.joint_count;
    uint8_t *moves = vks_calloc(n, 1);
    if (!moves)
        return false;
    for (uint32_t v = 0; v < m->vertex_count; v++) {
        uint16_t joints[VKS_WIDE_INFLUENCES];
        float weights[VKS_WIDE_INFLUENCES];
        const uint32_t k = vks_model_influences(m, v, joints, weights);
        for (uint32_t i = 0; i < k; i++)
            if (joints[i] < n)
                moves[joints[i]] = 1;
    }
    for (uint32_t i = 0; i < m->mesh_count; i++)
        if (!m->meshes[i].skinned && m->meshes[i].node_joint < n)
            moves[m->meshes[i].node_joint] = 1;
    for (uint32_t j = 0; j < n; j++)
        below[j] = moves[j];
    for (uint32_t j = n; j-- > 0;) /* children after parents: add each into its parent */
        if (m->skeleton.parents[j] >= 0)
            below[m->skeleton.parents[j]] += below[j];
    vks_free(moves);
    return true;
}

/* How far joint j travels in `clip`: the horizontal distance it reaches from its start and how
 * far it turns, over samples evenly spread. */
static void joint_reach(const vks_model *m, const m34 *root, const vks_clip *clip, uint32_t j,
                        pose_scratch *s, double *distance, double *turn)
{
    enum { SAMPLES = 33 };
    *distance = *turn = 0.0;
    m34 start;
    for (int k = 0; k < SAMPLES; k++) {
        pose_at(m, clip, clip->duration * k / (SAMPLES - 1), s);
        const m34 g = placed(root, s, j);
        if (k == 0) {
            start = g;
            continue;
        }
        const double dx = g.m[0][3] - start.m[0][3], dz = g.m[2][3] - start.m[2][3];
        *distance = fmax(*distance, sqrt(dx * dx + dz * dz));
        *turn = fmax(*turn, fabs(wrap_angle(heading_from(&start, &g))));
    }
}

/* The motion joint: the first above most of the skin that travels in some clip; -1 for none. */
static int32_t choose_joint(const vks_model *m, const m34 *root, double height, pose_scratch *s,
                            vks_error *err, bool *ok)
{
    const uint32_t n = m->skeleton.joint_count;
    uint32_t *below = vks_malloc(sizeof *below * n);
    *ok = below && skin_below(m, below);
    if (!*ok) {
        vks_free(below);
        vks_fail_memory(err, "out of memory for the root motion of %s", m->name);
        return -1;
    }
    uint32_t total = 0;
    for (uint32_t j = 0; j < n; j++)
        if (m->skeleton.parents[j] < 0)
            total += below[j];
    int32_t found = -1;
    for (uint32_t j = 0; j < n && found < 0 && total > 0; j++) {
        if (2 * below[j] < total)
            continue;
        for (uint32_t c = 0; c < m->clip_count && found < 0; c++) {
            double distance, turn;
            joint_reach(m, root, &m->clips[c], j, s, &distance, &turn);
            if (distance > VKS_ROOT_MOTION_MIN_DISTANCE * height || turn > VKS_ROOT_MOTION_MIN_TURN)
                found = (int32_t)j;
        }
    }
    vks_free(below);
    return found;
}

/* ---- One clip's travel ---- */

/* Averages over a window of one loop: values v[0 .. n) at n evenly spaced samples over the loop
 * (n - 1 = 2h intervals), extended past the ends by `extend` (k loops on: v(t + k T)), each
 * sample's average of the trapezoids within [k - h, k + h] into avg[k]. */
typedef double (*extend_fn)(const void *ctx, int64_t i);

static void loop_average(uint32_t n, extend_fn value, const void *ctx, double *avg)
{
    const int64_t h = (int64_t)(n - 1) / 2;
    /* prefix[i + h]: the trapezoids from sample -h up to sample i. */
    double *prefix = avg + n; /* the caller gives room for n + (n + 2h) */
    prefix[0] = 0.0;
    for (int64_t i = -h; i < (int64_t)n - 1 + h; i++)
        prefix[i + h + 1] = prefix[i + h] + 0.5 * (value(ctx, i) + value(ctx, i + 1));
    for (uint32_t k = 0; k < n; k++)
        avg[k] = (prefix[k + 2 * h] - prefix[k]) / (double)(2 * h);
}

/* The motion joint's sampled path over one loop: horizontal position and unwrapped heading. */
typedef struct path {
    uint32_t n;
    double *x, *z, *yaw;
    double loop_yaw, cos_l, sin_l; /* the loop's turn */
} path;

/* Sample i of the path extended by whole loops: the loop's transform applied k times to the
 * sample at i mod (n - 1) (loops are rigid: the end pose is the start's, moved). */
typedef struct extended {
    const path *p;
    int axis; /* 0: x, 1: z, 2: yaw */
} extended;

static double extended_value(const void *ctx, int64_t i)
{
    const extended *e = ctx;
    const path *p = e->p;
    const int64_t span = (int64_t)p->n - 1;
    int64_t k = i >= 0 ? i / span : -((-i + span - 1) / span);
    const int64_t r = i - k * span;
    if (e->axis == 2)
        return p->yaw[r] + (double)k * p->loop_yaw;
    double x = p->x[r], z = p->z[r];
    /* The loop: p -> end + R(loop_yaw) (p - start), applied k times (k is -1, 0 or 1 here). */
    for (; k > 0; k--) {
        const double dx = x - p->x[0], dz = z - p->z[0];
        x = p->x[span] + p->cos_l * dx + p->sin_l * dz;
        z = p->z[span] - p->sin_l * dx + p->cos_l * dz;
    }
    for (; k < 0; k++) {
        const double dx = x - p->x[span], dz = z - p->z[span];
        x = p->x[0] + p->cos_l * dx - p->sin_l * dz;
        z = p->z[0] + p->sin_l * dx + p->cos_l * dz;
    }
    return e->axis == 0 ? x : z;
}

/* Clip c's travel samples into rm (sample_count 0 when it travels too little). */
static bool clip_travel(const vks_model *m, const m34 *root, uint32_t c, uint32_t joint,
                        double height, pose_scratch *s, vks_root_motion *rm)
{
    const vks_clip *clip = &m->clips[c];
    *rm = (vks_root_motion){0};
    if (!(clip->duration > 0.0))
        return true;
    /* An odd count: an even number of intervals, the window h each side. */
    /* Clamped as a double: a damaged file's duration may be past any integer. */
    const double want = ceil(clip->duration * VKS_ROOT_MOTION_RATE / 2.0);
    const uint32_t half = !(want >= 16.0)                   ? 16 /* NaN too */
                          : want > VKS_ROOT_MOTION_MAX_HALF ? VKS_ROOT_MOTION_MAX_HALF
                                                            : (uint32_t)want;
    const uint32_t n = 2 * half + 1;
    path p = {.n = n};
    double *buffer = vks_malloc(sizeof *buffer * (size_t)n * 9);
    vks_travel *samples = vks_malloc(sizeof *samples * n);
    if (!buffer || !samples) {
        vks_free(buffer);
        vks_free(samples);
        return false;
    }
    p.x = buffer, p.z = buffer + n, p.yaw = buffer + 2 * n;
    double *avg = buffer + 3 * n; /* room for n averages and their 2n prefix sums */
    m34 start;
    for (uint32_t k = 0; k < n; k++) {
        pose_at(m, clip, clip->duration * k / (n - 1), s);
        const m34 g = placed(root, s, joint);
        if (k == 0)
            start = g;
        p.x[k] = g.m[0][3];
        p.z[k] = g.m[2][3];
        const double yaw = heading_from(&start, &g);
        p.yaw[k] = k == 0 ? 0.0 : p.yaw[k - 1] + wrap_angle(yaw - p.yaw[k - 1]);
    }
    p.loop_yaw = p.yaw[n - 1];
    p.cos_l = cos(p.loop_yaw);
    p.sin_l = sin(p.loop_yaw);
    double *cx = vks_malloc(sizeof *cx * (size_t)n * 3);
    if (!cx) {
        vks_free(buffer);
        vks_free(samples);
        return false;
    }
    for (int axis = 0; axis < 3; axis++) {
        loop_average(n, extended_value, &(extended){&p, axis}, avg);
        memcpy(cx + (size_t)axis * n, avg, sizeof *avg * n);
    }
    const double *cz = cx + n, *cyaw = cx + 2 * (size_t)n;
    /* M(t) = T(c(t)) Ry(yaw(t) - yaw(0)) T(-c(0)), c the averaged position. */
    for (uint32_t k = 0; k < n; k++) {
        const double yaw = cyaw[k] - cyaw[0], co = cos(yaw), si = sin(yaw);
        samples[k] = (vks_travel){(float)yaw, (float)(cx[k] - (co * cx[0] + si * cz[0])),
                                  (float)(cz[k] - (-si * cx[0] + co * cz[0]))};
    }
    vks_free(cx);
    vks_free(buffer);
    const vks_travel loop = samples[n - 1];
    const double distance = sqrt((double)loop.x * loop.x + (double)loop.z * loop.z);
    if (distance <= VKS_ROOT_MOTION_MIN_DISTANCE * height &&
        fabs((double)loop.yaw) <= VKS_ROOT_MOTION_MIN_TURN) {
        vks_free(samples);
        return true;
    }
    *rm = (vks_root_motion){
        .sample_count = n, .samples = samples, .distance = (float)distance, .heading = loop.yaw};
    return true;
}

/* ---- The clip in place ---- */

static int cmp_float(const void *a, const void *b)
{
    const float x = *(const float *)a, y = *(const float *)b;
    return (x > y) - (x < y);
}

/* The times the in-place track is keyed at: the travel's samples, and every translation and
 * rotation key of the motion joint and the joints above it, within [0, duration], sorted and
 * distinct; *count of them. NULL when out of memory. */
static float *key_times(const vks_model *m, const vks_clip *clip, uint32_t joint, uint32_t n,
                        uint32_t *count)
{
    size_t total = n;
    for (int32_t j = (int32_t)joint; j >= 0; j = m->skeleton.parents[j])
        total += clip->tracks[j].t_count + clip->tracks[j].r_count;
    float *times = vks_malloc(sizeof *times * total);
    if (!times)
        return NULL;
    size_t k = 0;
    for (uint32_t i = 0; i < n; i++)
        times[k++] = (float)(clip->duration * i / (n - 1));
    for (int32_t j = (int32_t)joint; j >= 0; j = m->skeleton.parents[j]) {
        const vks_track *t = &clip->tracks[j];
        for (uint32_t i = 0; i < t->t_count; i++)
            times[k++] = clip->t_times[t->t_first + i];
        for (uint32_t i = 0; i < t->r_count; i++)
            times[k++] = clip->r_times[t->r_first + i];
    }
    for (size_t i = 0; i < k; i++)
        times[i] = fminf(fmaxf(times[i], 0.0f), (float)clip->duration);
    qsort(times, k, sizeof *times, cmp_float);
    size_t distinct = 0;
    for (size_t i = 0; i < k; i++)
        if (distinct == 0 || times[i] != times[distinct - 1])
            times[distinct++] = times[i];
    *count = (uint32_t)distinct;
    return times;
}

static void *dup_array(const void *src, size_t bytes, size_t room)
{
    void *out = vks_malloc(room ? room : 1);
    if (out && bytes)
        memcpy(out, src, bytes);
    return out;
}

/* A copy of `clip` whose motion-joint track is keyed anew: `count` keys at `times`, translations
 * and rotations given (its scale keys as they were). False when out of memory (*out freed). */
static bool clip_with_track(const vks_clip *clip, uint32_t joint_count, uint32_t joint,
                            const float *times, const float (*t)[3], const float (*r)[4],
                            uint32_t count, vks_clip *out)
{
    *out = *clip;
    const size_t tk = clip->t_key_count, rk = clip->r_key_count;
    const size_t name = strlen(clip->name) + 1;
    out->name = dup_array(clip->name, name, name);
    out->tracks = dup_array(clip->tracks, sizeof *clip->tracks * joint_count,
                            sizeof *clip->tracks * joint_count);
    out->t_times =
        dup_array(clip->t_times, sizeof *clip->t_times * tk, sizeof *clip->t_times * (tk + count));
    out->t_values = dup_array(clip->t_values, sizeof *clip->t_values * tk,
                              sizeof *clip->t_values * (tk + count));
    out->r_times =
        dup_array(clip->r_times, sizeof *clip->r_times * rk, sizeof *clip->r_times * (rk + count));
    out->r_values = dup_array(clip->r_values, sizeof *clip->r_values * rk,
                              sizeof *clip->r_values * (rk + count));
    const size_t sk = clip->s_key_count;
    out->s_times = dup_array(clip->s_times, sizeof *clip->s_times * sk, sizeof *clip->s_times * sk);
    out->s_values =
        dup_array(clip->s_values, sizeof *clip->s_values * sk, sizeof *clip->s_values * sk);
    out->weight_tracks =
        dup_array(clip->weight_tracks, sizeof *clip->weight_tracks * clip->weight_track_count,
                  sizeof *clip->weight_tracks * clip->weight_track_count);
    size_t wk = 0, wv = 0; /* the weight arrays' lengths: past every track's last key and value */
    for (uint32_t i = 0; i < clip->weight_track_count; i++) {
        const vks_weight_track *w = &clip->weight_tracks[i];
        const size_t per = (size_t)w->weight_count * (w->interp == VKS_INTERP_CUBIC ? 3 : 1);
        wk = wk > (size_t)w->key_first + w->key_count ? wk : (size_t)w->key_first + w->key_count;
        const size_t end = (size_t)w->value_first + per * w->key_count;
        wv = wv > end ? wv : end;
    }
    out->w_times = dup_array(clip->w_times, sizeof *clip->w_times * wk, sizeof *clip->w_times * wk);
    out->w_values =
        dup_array(clip->w_values, sizeof *clip->w_values * wv, sizeof *clip->w_values * wv);
    if (!out->name || !out->tracks || !out->t_times || !out->t_values || !out->r_times ||
        !out->r_values || !out->s_times || !out->s_values || !out->weight_tracks || !out->w_times ||
        !out->w_values) {
        vks_clip_free(out);
        return false;
    }
    memcpy(out->t_times + tk, times, sizeof *times * count);
    memcpy(out->t_values + tk, t, sizeof *t * count);
    memcpy(out->r_times + rk, times, sizeof *times * count);
    memcpy(out->r_values + rk, r, sizeof *r * count);
    vks_track *track = &out->tracks[joint];
    if (!track->t_count && !track->r_count && !track->s_count)
        out->channel_count++;
    track->t_first = (uint32_t)tk, track->t_count = count;
    track->r_first = (uint32_t)rk, track->r_count = count;
    out->t_key_count = (uint32_t)(tk + count);
    out->r_key_count = (uint32_t)(rk + count);
    return true;
}

/* Clip c in place: at each key time, the motion joint's local transform such that its
 * placement-frame transform is M(t)^-1 times the clip's. */
static bool clip_in_place(const vks_model *m, const m34 *root, uint32_t c, uint32_t joint,
                          pose_scratch *s, vks_root_motion *rm)
{
    const vks_clip *clip = &m->clips[c];
    uint32_t count = 0;
    float *times = key_times(m, clip, joint, rm->sample_count, &count);
    float(*t)[3] = vks_malloc(sizeof *t * (count ? count : 1));
    float(*r)[4] = vks_malloc(sizeof *r * (count ? count : 1));
    bool ok = times && t && r;
    const m34 root_inverse = m34_inverse(root);
    const int32_t parent = m->skeleton.parents[joint];
    for (uint32_t k = 0; ok && k < count; k++) {
        pose_at(m, clip, times[k], s);
        const m34 model = m34_of_affine(&s->model[joint]);
        /* The parent's model-space transform: the root inverse for a root. */
        const m34 above = parent >= 0 ? m34_of_affine(&s->model[parent])
                                      : m34_of_affine(&m->skeleton.root_inverse);
        const vks_travel back = vks_travel_inverse(vks_travel_at(m, c, times[k]));
        const m34 back_m = m34_of_travel(back), above_inv = m34_inverse(&above);
        const m34 a = m34_mul(&back_m, root), b = m34_mul(&root_inverse, &a);
        const m34 moved = m34_mul(&b, &model), d = m34_mul(&above_inv, &moved);
        /* d = local's T R S: the translation its column, the rotation its columns over the
         * local's own scale (left as it was). */
        const float *scale = s->local[joint].s;
        double rot[3][3];
        for (int i = 0; i < 3; i++) {
            t[k][i] = (float)d.m[i][3];
            for (int j = 0; j < 3; j++)
                rot[i][j] = d.m[i][j] / (scale[j] != 0.0f ? scale[j] : 1.0f);
        }
        quat_of_rotation((const double(*)[3])rot, r[k]);
        if (k > 0 && r[k][0] * r[k - 1][0] + r[k][1] * r[k - 1][1] + r[k][2] * r[k - 1][2] +
                             r[k][3] * r[k - 1][3] <
                         0.0f)
            for (int i = 0; i < 4; i++)
                r[k][i] = -r[k][i];
    }
    ok = ok && clip_with_track(clip, m->skeleton.joint_count, joint, times, (const float(*)[3])t,
                               (const float(*)[4])r, count, &rm->in_place);
    vks_free(times);
    vks_free(t);
    vks_free(r);
    return ok;
}

/* ---- The model ---- */

static int32_t find_joint(const vks_skeleton *sk, const char *name)
{
    for (uint32_t j = 0; j < sk->joint_count; j++)
        if (sk->names[j] && strcmp(sk->names[j], name) == 0)
            return (int32_t)j;
    return -1;
}

bool vks_model_extract_root_motion(vks_model *m, const char *joint, vks_error *err)
{
    m->root_motion = NULL;
    m->motion_joint = -1;
    const uint32_t n = m->skeleton.joint_count;
    int32_t j = -1;
    if (joint) {
        j = find_joint(&m->skeleton, joint);
        if (j < 0)
            return vks_fail_usage(err, "%s has no joint named '%s' to take root motion from",
                                  m->name, joint);
    }
    if (m->clip_count == 0 || n == 0)
        return true;
    pose_scratch s = {vks_malloc(sizeof *s.local * n), vks_malloc(sizeof *s.model * n)};
    vks_root_motion *rm = vks_calloc(m->clip_count, sizeof *rm);
    bool ok = s.local && s.model && rm;
    const m34 ri = m34_of_affine(&m->skeleton.root_inverse), root = m34_inverse(&ri);
    const double height = ok ? model_height(m, &root) : 1.0;
    if (ok && j < 0)
        j = choose_joint(m, &root, height, &s, err, &ok);
    else if (!ok)
        vks_fail_memory(err, "out of memory for the root motion of %s", m->name);
    bool any = false;
    if (ok && j >= 0) {
        m->root_motion = rm; /* vks_travel_at reads it */
        for (uint32_t c = 0; ok && c < m->clip_count; c++) {
            ok = clip_travel(m, &root, c, (uint32_t)j, height, &s, &rm[c]) &&
                 (rm[c].sample_count == 0 || clip_in_place(m, &root, c, (uint32_t)j, &s, &rm[c]));
            any |= rm[c].sample_count > 0;
        }
        if (!ok)
            vks_fail_memory(err, "out of memory for the root motion of %s", m->name);
    }
    vks_free(s.local);
    vks_free(s.model);
    if (!ok || !any) {
        for (uint32_t c = 0; rm && c < m->clip_count; c++) {
            vks_free(rm[c].samples);
            vks_clip_free(&rm[c].in_place);
        }
        vks_free(rm);
        m->root_motion = NULL;
        return ok;
    }
    m->motion_joint = j;
    return true;
}
