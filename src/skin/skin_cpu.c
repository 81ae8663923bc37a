#include "skin_cpu.h"
#include "dqs.h"
#include "morph.h"
#include "../core/alloc.h"

#include "../anim/anim.h"

#include <assert.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* m += weights[i] * palette[joints[i]] for i = 0..3 in order, as vks_blend4 in vks_skin.glsl. */
static void blend4(float m[3][4], const vks_bone *palette,
                   const uint16_t joints[VKS_MAX_INFLUENCES],
                   const float weights[VKS_MAX_INFLUENCES])
{
    for (uint32_t i = 0; i < VKS_MAX_INFLUENCES; i++) {
        float w = weights[i];
        const vks_bone *b = &palette[joints[i]];
        for (int r = 0; r < 3; r++)
            for (int c = 0; c < 4; c++)
                m[r][c] += w * b->row[r][c];
    }
}

void vks_skin_cpu(const vks_skin_input *in, const vks_bone *palette, float (*out_positions)[3],
                  float (*out_normals)[3], float (*out_tangents)[4])
{
    bool tangents = in->tangents && out_tangents;
    bool wide = in->joints_extra && in->weights_extra;
    assert(wide || (!in->joints_extra && !in->weights_extra));
    for (uint32_t v = 0; v < in->vertex_count; v++) {
        float m[3][4] = {{0}};
        blend4(m, palette, in->joints[v], in->weights[v]);
        if (wide) /* influences 5 to 8 add to the same sum, after the first 4 */
            blend4(m, palette, in->joints_extra[v], in->weights_extra[v]);
        const float *p = in->positions[v];
        for (int r = 0; r < 3; r++)
            out_positions[v][r] = m[r][0] * p[0] + m[r][1] * p[1] + m[r][2] * p[2] + m[r][3];

        /* Cofactor matrix = det * inverse-transpose; rows are cross products of the columns' pairs
         * written out: cof[r][c] = m[r+1][c+1] m[r+2][c+2] - m[r+1][c+2] m[r+2][c+1] (indices mod
         * 3). */
        float cof[3][3];
        for (int r = 0; r < 3; r++) {
            int r1 = (r + 1) % 3, r2 = (r + 2) % 3;
            for (int c = 0; c < 3; c++) {
                int c1 = (c + 1) % 3, c2 = (c + 2) % 3;
                cof[r][c] = m[r1][c1] * m[r2][c2] - m[r1][c2] * m[r2][c1];
            }
        }
        float det = m[0][0] * cof[0][0] + m[0][1] * cof[0][1] + m[0][2] * cof[0][2];
        const float *n = in->normals[v];
        float o[3], len2 = 0.0f;
        for (int r = 0; r < 3; r++) {
            o[r] = cof[r][0] * n[0] + cof[r][1] * n[1] + cof[r][2] * n[2];
            len2 += o[r] * o[r];
        }
        float inv = len2 > 0.0f ? (det < 0.0f ? -1.0f : 1.0f) / sqrtf(len2) : 0.0f;
        for (int r = 0; r < 3; r++)
            out_normals[v][r] = o[r] * inv;

        if (!tangents)
            continue;
        /* A tangent lies in the surface, so it follows M3x3 itself; only its length is undone. */
        const float *t = in->tangents[v];
        float t3[3], t_len2 = 0.0f;
        for (int r = 0; r < 3; r++) {
            t3[r] = m[r][0] * t[0] + m[r][1] * t[1] + m[r][2] * t[2];
            t_len2 += t3[r] * t3[r];
        }
        float t_len = sqrtf(t_len2);
        for (int r = 0; r < 3; r++)
            out_tangents[v][r] = t_len2 > 0.0f ? t3[r] / t_len : 0.0f;
        out_tangents[v][3] = t[3] * (det < 0.0f ? -1.0f : 1.0f);
    }
}

vks_skin_input vks_skin_input_of(const vks_model *model)
{
    return (vks_skin_input){
        .vertex_count = model->vertex_count,
        .positions = (const float(*)[3])model->positions,
        .normals = (const float(*)[3])model->normals,
        .tangents = (const float(*)[4])model->tangents,
        .joints = (const uint16_t(*)[VKS_MAX_INFLUENCES])model->joints,
        .weights = (const float(*)[VKS_MAX_INFLUENCES])model->weights,
        .joints_extra = (const uint16_t(*)[VKS_MAX_INFLUENCES])model->joints_extra,
        .weights_extra = (const float(*)[VKS_MAX_INFLUENCES])model->weights_extra,
    };
}

void vks_skin_cpu_palette(const vks_model *model, int32_t clip, double seconds, vks_xform *local,
                          vks_affine *world, vks_bone *palette)
{
    const vks_skeleton *sk = &model->skeleton;
    if (clip < 0) {
        vks_pose_rest(sk, local);
    } else {
        const vks_clip *c = vks_model_clip(model, clip);
        vks_clip_sample(sk, c, vks_clip_time(c, seconds, VKS_WRAP_LOOP), NULL, local);
    }
    vks_pose_palette(sk, local, world, palette);
}

bool vks_skin_cpu_pose(const vks_model *model, int32_t clip, double seconds, float (*positions)[3],
                       float (*normals)[3], float (*tangents)[4])
{
    if (model->target_count) /* morphed first */
        return vks_skin_cpu_pose_weighted(model, 0, clip, seconds, false, NULL, positions, normals,
                                          tangents);
    const vks_skeleton *sk = &model->skeleton;
    vks_xform *local = vks_malloc(sizeof *local * sk->joint_count);
    vks_affine *world = vks_malloc(sizeof *world * sk->joint_count);
    vks_bone *palette = vks_malloc(sizeof *palette * sk->joint_count);
    bool ok = local && world && palette;
    if (ok) {
        vks_skin_cpu_palette(model, clip, seconds, local, world, palette);
        vks_skin_input in = vks_skin_input_of(model);
        vks_skin_cpu(&in, palette, positions, normals, tangents);
    }
    vks_free(local);
    vks_free(world);
    vks_free(palette);
    return ok;
}

bool vks_skin_cpu_pose_level(const vks_model *model, uint32_t level, int32_t clip, double seconds,
                             float (*positions)[3], float (*normals)[3], float (*tangents)[4])
{
    return vks_skin_cpu_pose_level_as(model, level, clip, seconds, false, positions, normals,
                                      tangents);
}

/* The palette as dual quaternions, or as it is, then the skinning. */
static bool skin_with(const vks_skin_input *in, const vks_bone *palette, uint32_t joints, bool dq,
                      float (*positions)[3], float (*normals)[3], float (*tangents)[4])
{
    if (!dq) {
        vks_skin_cpu(in, palette, positions, normals, tangents);
        return true;
    }
    vks_dq *d = vks_malloc(sizeof *d * (joints ? joints : 1));
    if (!d)
        return false;
    for (uint32_t j = 0; j < joints; j++)
        vks_dq_from_bone_fast(&palette[j], &d[j]);
    vks_skin_cpu_dq(in, d, positions, normals, tangents);
    vks_free(d);
    return true;
}

bool vks_skin_cpu_pose_level_as(const vks_model *model, uint32_t level, int32_t clip,
                                double seconds, bool dq, float (*positions)[3], float (*normals)[3],
                                float (*tangents)[4])
{
    return vks_skin_cpu_pose_weighted(model, level, clip, seconds, dq, NULL, positions, normals,
                                      tangents);
}

bool vks_skin_cpu_pose_weighted(const vks_model *model, uint32_t level, int32_t clip,
                                double seconds, bool dq, const float *weights,
                                float (*positions)[3], float (*normals)[3], float (*tangents)[4])
{
    if (level == 0 && !dq && !model->target_count)
        return vks_skin_cpu_pose(model, clip, seconds, positions, normals, tangents);
    /* The level's vertices as its own streams: copies of level-0 vertices, their joints folded
     * (skeleton_lod.h), skinned with the full palette (a kept joint's entry is the same whether
     * the folded ones are posed or not). */
    const vks_level lv = vks_model_level(model, level);
    const size_t n = lv.vertex_count ? lv.vertex_count : 1;
    const bool wide = model->joints_extra != NULL, tangent = model->tangents && tangents;
    float(*pos)[3] = vks_malloc(sizeof *pos * n), (*nrm)[3] = vks_malloc(sizeof *nrm * n);
    float(*tan)[4] = tangent ? vks_malloc(sizeof *tan * n) : NULL;
    uint16_t(*jnt)[VKS_MAX_INFLUENCES] = vks_malloc(sizeof *jnt * n);
    float(*wgt)[VKS_MAX_INFLUENCES] = vks_malloc(sizeof *wgt * n);
    uint16_t(*jx)[VKS_MAX_INFLUENCES] = wide ? vks_malloc(sizeof *jx * n) : NULL;
    float(*wx)[VKS_MAX_INFLUENCES] = wide ? vks_malloc(sizeof *wx * n) : NULL;
    const vks_skeleton *sk = &model->skeleton;
    vks_xform *local = vks_malloc(sizeof *local * sk->joint_count);
    vks_affine *world = vks_malloc(sizeof *world * sk->joint_count);
    vks_bone *palette = vks_malloc(sizeof *palette * sk->joint_count);
    float *clip_weights = model->target_count && !weights
                              ? vks_malloc(sizeof *clip_weights * model->target_count)
                              : NULL;
    bool ok = pos && nrm && (tan || !tangent) && jnt && wgt && (!wide || (jx && wx)) && local &&
              world && palette && (weights || clip_weights || !model->target_count);
    for (uint32_t i = 0; ok && i < lv.vertex_count; i++) {
        const uint32_t s = level ? model->lod_source[lv.vertex_first + i] : i;
        memcpy(pos[i], model->positions[s], sizeof pos[i]);
        memcpy(nrm[i], model->normals[s], sizeof nrm[i]);
        if (tan)
            memcpy(tan[i], model->tangents[s], sizeof tan[i]);
        memcpy(wgt[i], model->weights[s], sizeof wgt[i]);
        for (uint32_t k = 0; k < VKS_MAX_INFLUENCES; k++)
            jnt[i][k] = (uint16_t)vks_model_fold(model, level, model->joints[s][k]);
        if (wide) {
            memcpy(wx[i], model->weights_extra[s], sizeof wx[i]);
            for (uint32_t k = 0; k < VKS_MAX_INFLUENCES; k++)
                jx[i][k] = (uint16_t)vks_model_fold(model, level, model->joints_extra[s][k]);
        }
    }
    if (ok && model->target_count) { /* morphed first, with the clip's weights by default */
        if (!weights) {
            const vks_clip *k = vks_model_clip(model, clip);
            vks_clip_weights(model, k, k ? vks_clip_time(k, seconds, VKS_WRAP_LOOP) : 0.0,
                             clip_weights);
            weights = clip_weights;
        }
        vks_morph_apply(model, weights, level ? model->lod_source + lv.vertex_first : NULL,
                        lv.vertex_count, pos, nrm, tan);
    }
    if (ok) {
        vks_skin_cpu_palette(model, clip, seconds, local, world, palette);
        const vks_skin_input in = {.vertex_count = lv.vertex_count,
                                   .positions = (const float(*)[3])pos,
                                   .normals = (const float(*)[3])nrm,
                                   .tangents = (const float(*)[4])tan,
                                   .joints = (const uint16_t(*)[VKS_MAX_INFLUENCES])jnt,
                                   .weights = (const float(*)[VKS_MAX_INFLUENCES])wgt,
                                   .joints_extra = (const uint16_t(*)[VKS_MAX_INFLUENCES])jx,
                                   .weights_extra = (const float(*)[VKS_MAX_INFLUENCES])wx};
        ok =
            skin_with(&in, palette, sk->joint_count, dq, positions, normals, tan ? tangents : NULL);
    }
    vks_free(pos), vks_free(nrm), vks_free(tan), vks_free(jnt), vks_free(wgt), vks_free(jx),
        vks_free(wx);
    vks_free(local), vks_free(world), vks_free(palette), vks_free(clip_weights);
    return ok;
}

bool vks_skin_cpu_bind_box(const vks_model *model, float lo[3], float hi[3])
{
    const size_t n = model->vertex_count ? model->vertex_count : 1;
    float(*pos)[3] = vks_malloc(sizeof *pos * n), (*nrm)[3] = vks_malloc(sizeof *nrm * n);
    const bool ok = pos && nrm && vks_skin_cpu_pose(model, -1, 0.0, pos, nrm, NULL);
    if (ok)
        vks_points_box((const float(*)[3])pos, model->vertex_count, lo, hi);
    vks_free(pos);
    vks_free(nrm);
    return ok;
}
