/* Dual-quaternion skinning's palette entries, the model check and the CPU reference (dqs.h). */
#include "dqs.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* The unit quaternion of rotation matrix r (rows; p' = r p), by the largest of its diagonal's
 * combinations (Shepperd's method: no division by a small number). */
static void quat_from_rotation(const float r[3][3], float q[4])
{
    const float tr = r[0][0] + r[1][1] + r[2][2];
    if (tr > 0.0f) {
        const float s = 2.0f * sqrtf(tr + 1.0f);
        q[3] = 0.25f * s;
        q[0] = (r[2][1] - r[1][2]) / s;
        q[1] = (r[0][2] - r[2][0]) / s;
        q[2] = (r[1][0] - r[0][1]) / s;
    } else if (r[0][0] > r[1][1] && r[0][0] > r[2][2]) {
        const float s = 2.0f * sqrtf(1.0f + r[0][0] - r[1][1] - r[2][2]);
        q[3] = (r[2][1] - r[1][2]) / s;
        q[0] = 0.25f * s;
        q[1] = (r[0][1] + r[1][0]) / s;
        q[2] = (r[0][2] + r[2][0]) / s;
    } else if (r[1][1] > r[2][2]) {
        const float s = 2.0f * sqrtf(1.0f + r[1][1] - r[0][0] - r[2][2]);
        q[3] = (r[0][2] - r[2][0]) / s;
        q[0] = (r[0][1] + r[1][0]) / s;
        q[1] = 0.25f * s;
        q[2] = (r[1][2] + r[2][1]) / s;
    } else {
        const float s = 2.0f * sqrtf(1.0f + r[2][2] - r[0][0] - r[1][1]);
        q[3] = (r[1][0] - r[0][1]) / s;
        q[0] = (r[0][2] + r[2][0]) / s;
        q[1] = (r[1][2] + r[2][1]) / s;
        q[2] = 0.25f * s;
    }
    const float len = sqrtf(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
    for (int k = 0; k < 4; k++)
        q[k] /= len;
}

static float det3(const vks_bone *b)
{
    const float(*m)[4] = b->row;
    return m[0][0] * (m[1][1] * m[2][2] - m[1][2] * m[2][1]) -
           m[0][1] * (m[1][0] * m[2][2] - m[1][2] * m[2][0]) +
           m[0][2] * (m[1][0] * m[2][1] - m[1][1] * m[2][0]);
}

void vks_dq_from_bone_fast(const vks_bone *bone, vks_dq *out)
{
    /* A similarity's columns share one length: its scale (the mean of their squares, rooted). */
    const float(*m)[4] = bone->row;
    float len2 = 0.0f;
    for (int r = 0; r < 3; r++)
        len2 += m[r][0] * m[r][0] + m[r][1] * m[r][1] + m[r][2] * m[r][2];
    const float s = sqrtf(len2 / 3.0f);
    float r[3][3]; /* (a zero scale, a part hidden: no rotation to find, the identity) */
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            r[i][j] = s > 0.0f ? bone->row[i][j] / s : (float)(i == j);
    quat_from_rotation(r, out->q);
    for (int i = 0; i < 3; i++)
        out->t[i] = bone->row[i][3];
    out->s = s;
}

void vks_dq_write(const vks_bone *palette, uint32_t joints, vks_bone *out)
{
    char *to = (char *)out;
    for (uint32_t j = 0; j < joints; j++) {
        vks_dq d;
        vks_dq_from_bone_fast(&palette[j], &d);
        memcpy(to + sizeof d * j, &d, sizeof d);
    }
}

/* Whether the 3x3 part of m (rows) is a positive multiple of a rotation within the tolerance:
 * its columns of one length, perpendicular, and a positive determinant. */
static bool is_similarity(const float m[3][4])
{
    float len2[3], dots[3];
    for (int c = 0; c < 3; c++) {
        const int d = (c + 1) % 3;
        len2[c] = m[0][c] * m[0][c] + m[1][c] * m[1][c] + m[2][c] * m[2][c];
        dots[c] = m[0][c] * m[0][d] + m[1][c] * m[1][d] + m[2][c] * m[2][d];
    }
    const float mean = (len2[0] + len2[1] + len2[2]) / 3.0f;
    if (!(mean > 0.0f) || !isfinite(mean))
        return false;
    /* Squared lengths within 2 tol of each other (lengths within tol); cosines within tol. */
    const float tol = VKS_DQ_SIMILARITY_TOLERANCE;
    for (int c = 0; c < 3; c++)
        if (fabsf(len2[c] - mean) > 2.0f * tol * mean || fabsf(dots[c]) > tol * mean)
            return false;
    vks_bone b;
    memcpy(b.row, m, sizeof b.row);
    return det3(&b) > 0.0f;
}

bool vks_dq_from_bone(const vks_bone *bone, vks_dq *out)
{
    if (!is_similarity(bone->row)) {
        memset(out, 0, sizeof *out);
        return false;
    }
    vks_dq_from_bone_fast(bone, out);
    return true;
}

/* A scale (x, y, z) that is uniform and positive within the tolerance, or exactly zero (a part
 * hidden by a scale key: the joint's vertices collapse onto it, as with linear blending). */
static bool uniform_scale(const float s[3])
{
    const float mean = (s[0] + s[1] + s[2]) / 3.0f;
    if (s[0] == 0.0f && s[1] == 0.0f && s[2] == 0.0f)
        return true;
    return mean > 0.0f && isfinite(mean) &&
           fabsf(s[0] - mean) <= VKS_DQ_SIMILARITY_TOLERANCE * mean &&
           fabsf(s[1] - mean) <= VKS_DQ_SIMILARITY_TOLERANCE * mean &&
           fabsf(s[2] - mean) <= VKS_DQ_SIMILARITY_TOLERANCE * mean;
}

static bool refuse_scale(const vks_model *m, uint32_t j, const char *where, const float s[3],
                         vks_error *err)
{
    return vks_fail_usage(
        err,
        "%s: joint '%s' scales by (%g, %g, %g) in %s: dual-quaternion skinning takes "
        "uniform, positive scale only (use linear skinning)",
        m->name, m->skeleton.names[j], (double)s[0], (double)s[1], (double)s[2], where);
}

bool vks_dq_check_model(const vks_model *model, vks_error *err)
{
    const vks_skeleton *sk = &model->skeleton;
    if (!is_similarity(sk->root_inverse.row))
        return vks_fail_usage(
            err,
            "%s: the scene's root transform scales non-uniformly, shears or mirrors: "
            "dual-quaternion skinning takes uniform, positive scale only (use linear "
            "skinning)",
            model->name);
    for (uint32_t j = 0; j < sk->joint_count; j++) {
        if (!is_similarity(sk->inverse_bind[j].row))
            return vks_fail_usage(
                err,
                "%s: joint '%s''s bind pose scales non-uniformly, shears or mirrors: "
                "dual-quaternion skinning takes uniform, positive scale only (use "
                "linear skinning)",
                model->name, sk->names[j]);
        if (!uniform_scale(sk->rest[j].s))
            return refuse_scale(model, j, "its rest transform", sk->rest[j].s, err);
    }
    for (uint32_t c = 0; c < model->clip_count; c++) {
        const vks_clip *clip = &model->clips[c];
        for (uint32_t j = 0; j < sk->joint_count; j++) {
            const vks_track *tr = &clip->tracks[j];
            for (uint32_t k = 0; k < tr->s_count; k++) {
                const float *s = clip->s_values[tr->s_first + k];
                if (!uniform_scale(s)) {
                    char where[160];
                    snprintf(where, sizeof where, "clip '%s' at %.4g s", clip->name,
                             (double)clip->s_times[tr->s_first + k]);
                    return refuse_scale(model, j, where, s, err);
                }
            }
        }
    }
    return true;
}

/* a * b for quaternions (x, y, z, w). */
static void quat_mul(const float a[4], const float b[4], float out[4])
{
    out[0] = a[3] * b[0] + b[3] * a[0] + (a[1] * b[2] - a[2] * b[1]);
    out[1] = a[3] * b[1] + b[3] * a[1] + (a[2] * b[0] - a[0] * b[2]);
    out[2] = a[3] * b[2] + b[3] * a[2] + (a[0] * b[1] - a[1] * b[0]);
    out[3] = a[3] * b[3] - (a[0] * b[0] + a[1] * b[1] + a[2] * b[2]);
}

/* R(c) x for a unit quaternion c: x + 2 v x (v x x + w x), v = c.xyz. */
static void quat_rotate(const float c[4], const float x[3], float out[3])
{
    const float u[3] = {c[1] * x[2] - c[2] * x[1] + c[3] * x[0],
                        c[2] * x[0] - c[0] * x[2] + c[3] * x[1],
                        c[0] * x[1] - c[1] * x[0] + c[3] * x[2]};
    out[0] = x[0] + 2.0f * (c[1] * u[2] - c[2] * u[1]);
    out[1] = x[1] + 2.0f * (c[2] * u[0] - c[0] * u[2]);
    out[2] = x[2] + 2.0f * (c[0] * u[1] - c[1] * u[0]);
}

/* v at unit length, 0 staying 0: a morphed normal or tangent (skin/morph.h) comes in at another
 * length, which the GPU's encodings undo. */
static void unit3(float v[3])
{
    const float len2 = v[0] * v[0] + v[1] * v[1] + v[2] * v[2];
    const float inv = len2 > 0.0f ? 1.0f / sqrtf(len2) : 0.0f;
    for (int k = 0; k < 3; k++)
        v[k] *= inv;
}

/* Adds w * sign * (q, qe) and w * s of the influences to the blend, the sign against q0. */
static void blend4(const vks_dq *palette, const uint16_t joints[4], const float weights[4],
                   const float q0[4], float b[4], float be[4], float *s)
{
    for (int i = 0; i < 4; i++) {
        const vks_dq *d = &palette[joints[i]];
        const float dot = q0[0] * d->q[0] + q0[1] * d->q[1] + q0[2] * d->q[2] + q0[3] * d->q[3];
        const float w = dot < 0.0f ? -weights[i] : weights[i];
        const float t[4] = {d->t[0], d->t[1], d->t[2], 0.0f};
        float qe[4];
        quat_mul(t, d->q, qe);
        for (int k = 0; k < 4; k++) {
            b[k] += w * d->q[k];
            be[k] += w * 0.5f * qe[k];
        }
        *s += weights[i] * d->s;
    }
}

void vks_skin_cpu_dq(const vks_skin_input *in, const vks_dq *palette, float (*out_positions)[3],
                     float (*out_normals)[3], float (*out_tangents)[4])
{
    const bool tangents = in->tangents && out_tangents;
    const bool wide = in->joints_extra && in->weights_extra;
    for (uint32_t v = 0; v < in->vertex_count; v++) {
        float b[4] = {0}, be[4] = {0}, s = 0.0f;
        const float *q0 = palette[in->joints[v][0]].q;
        blend4(palette, in->joints[v], in->weights[v], q0, b, be, &s);
        if (wide)
            blend4(palette, in->joints_extra[v], in->weights_extra[v], q0, b, be, &s);
        const float len2 = b[0] * b[0] + b[1] * b[1] + b[2] * b[2] + b[3] * b[3];
        const float *p = in->positions[v], *n = in->normals[v];
        if (!(len2 > 0.0f)) { /* weights that cancel: the bind pose */
            memcpy(out_positions[v], p, sizeof out_positions[v]);
            memcpy(out_normals[v], n, sizeof out_normals[v]);
            unit3(out_normals[v]);
            if (tangents) {
                memcpy(out_tangents[v], in->tangents[v], sizeof out_tangents[v]);
                unit3(out_tangents[v]);
            }
            continue;
        }
        const float inv = 1.0f / sqrtf(len2);
        float c[4], ce[4];
        for (int k = 0; k < 4; k++) {
            c[k] = b[k] * inv;
            ce[k] = be[k] * inv;
        }
        const float sp[3] = {s * p[0], s * p[1], s * p[2]};
        float rp[3];
        quat_rotate(c, sp, rp);
        /* t = 2 (c.w ce.xyz - ce.w c.xyz + c.xyz x ce.xyz) */
        const float t[3] = {2.0f * (c[3] * ce[0] - ce[3] * c[0] + (c[1] * ce[2] - c[2] * ce[1])),
                            2.0f * (c[3] * ce[1] - ce[3] * c[1] + (c[2] * ce[0] - c[0] * ce[2])),
                            2.0f * (c[3] * ce[2] - ce[3] * c[2] + (c[0] * ce[1] - c[1] * ce[0]))};
        for (int k = 0; k < 3; k++)
            out_positions[v][k] = rp[k] + t[k];
        quat_rotate(c, n, out_normals[v]);
        unit3(out_normals[v]);
        if (tangents) {
            quat_rotate(c, in->tangents[v], out_tangents[v]);
            unit3(out_tangents[v]);
            out_tangents[v][3] = in->tangents[v][3];
        }
    }
}
