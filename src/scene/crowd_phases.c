/* Posing's three steps timed apart (crowd.h, vks_crowd_time_phases): each instance on the crowd's
 * path for it, its clip's sampler (anim/sampler.h) or, during a cross-fade or for a clip without
 * one, anim.h's direct path (cross-fades are not blended here). */
#include "crowd_impl.h"
#include "../core/alloc.h"

#include "../anim/anim.h"
#include "../core/clock.h"

#include <stdlib.h>
#include <string.h>

/* Where the phases keep an instance's intermediate results (its joints' places in each array). */
typedef struct phase_state {
    vks_xform *local;       /* the direct path's local poses */
    vks_affine *model;      /* ... and model transforms */
    float *soa;             /* the sampler's local matrices */
    float (*columns)[4][4]; /* ... and model transforms */
    uint32_t *cursor;       /* key hints */
    vks_bone *ordered;      /* a palette in pose order (a skeleton level of detail's), placed */
} phase_state;

/* Phase p (0 sampling, 1 local-to-model, 2 palette) of instance i, its joints from `at` in the
 * arrays (at_soa in soa), on the crowd's path for it. */
static void pose_phase(const vks_crowd *c, uint32_t i, int p, const phase_state *st, size_t at,
                       size_t at_soa, vks_bone *palette)
{
    const vks_crowd_instance *in = &c->instances[i];
    const vks_model *m = c->models[in->model];
    const vks_skeleton *sk = &m->skeleton;
    const int32_t clip = vks_crowd__clip(in, in->clip);
    const vks_sampler *sm = vks_crowd__sampler(c, in->model, clip);
    /* The samplers of a model with a skeleton level of detail run on its skeleton in pose order
     * (crowd.c): their model transforms and entries come in that order, placed after. */
    const vks_skeleton *ssk = m->pose_order ? &c->pose_skeletons[in->model] : sk;
    const bool sampled = sm->segments && !(in->fade_left > 0.0);
    if (p == 0) {
        const double time =
            in->clip < 0 ? 0.0 : vks_clip_time(&m->clips[in->clip], in->time, VKS_WRAP_LOOP);
        if (sampled)
            vks_sampler_local(sm, time, st->cursor + 3 * at, st->soa + at_soa);
        else if (in->clip >= 0) /* the direct path (cross-fades are not blended here) */
            vks_clip_sample(sk, vks_model_clip(m, clip), time, st->cursor + 3 * at,
                            st->local + at);
        else
            vks_pose_rest(sk, st->local + at);
    } else if (p == 1) {
        if (sampled)
            vks_sampler_model(sm, ssk, st->soa + at_soa, st->columns + at);
        else
            vks_pose_model(sk, st->local + at, st->model + at);
    } else if (sampled && m->pose_order) {
        vks_sampler_skin(sm, ssk, (const float(*)[4][4])st->columns + at, st->ordered);
        for (uint32_t k = 0; k < sk->joint_count; k++)
            palette[c->palette_first[i] + m->pose_order[k]] = st->ordered[k];
    } else if (sampled) {
        vks_sampler_skin(sm, sk, (const float(*)[4][4])st->columns + at,
                         palette + c->palette_first[i]);
    } else {
        vks_pose_skin(sk, st->model + at, palette + c->palette_first[i]);
    }
}

bool vks_crowd_time_phases(vks_crowd *c, const uint32_t *visible, uint32_t count, uint32_t frames,
                           uint32_t batch, vks_bone *palette, double ms[3])
{
    size_t total_joints = 0, total_soa = 0, most = 1;
    for (uint32_t k = 0; k < count; k++) {
        uint32_t n = c->models[c->instances[visible[k]].model]->skeleton.joint_count;
        total_joints += n;
        total_soa += vks_sampler_local_floats(n);
        most = n > most ? n : most;
    }
    /* Every instance's local pose and model transforms kept between the phases, as a phased
     * runtime would keep them; one set of key hints per instance. */
    const size_t nj = total_joints ? total_joints : 1;
    phase_state st = {
        .local = vks_malloc(sizeof *st.local * nj),
        .model = vks_malloc(sizeof *st.model * nj),
        .soa = vks_aligned_alloc(64, sizeof *st.soa * (total_soa ? total_soa : 16)),
        .columns = vks_aligned_alloc(64, sizeof *st.columns * nj),
        .cursor = vks_calloc(3 * nj, sizeof *st.cursor),
        .ordered = vks_malloc(sizeof *st.ordered * most),
    };
    double *per = vks_malloc(sizeof *per * 3 * frames);
    bool ok = st.local && st.model && st.soa && st.columns && st.cursor && st.ordered && per;
    vks_crowd_forget_palettes(c); /* `palette` is written here */
    for (uint32_t f = 0; ok && f < frames; f++) {
        double t[4];
        for (int p = 0; p < 3; p++) {
            t[p] = vks_now_ms();
            for (uint32_t b = 0; b < batch; b++) {
                size_t at = 0, at_soa = 0;
                for (uint32_t k = 0; k < count; k++) {
                    const uint32_t n =
                        c->models[c->instances[visible[k]].model]->skeleton.joint_count;
                    pose_phase(c, visible[k], p, &st, at, at_soa, palette);
                    at += n;
                    at_soa += vks_sampler_local_floats(n);
                }
            }
        }
        t[3] = vks_now_ms();
        for (int p = 0; p < 3; p++)
            per[(size_t)p * frames + f] = (t[p + 1] - t[p]) / batch;
        vks_crowd_advance(c, NULL, 1.0 / 60.0);
    }
    for (int p = 0; ok && p < 3; p++)
        ms[p] = vks_median(per + (size_t)p * frames, frames);
    vks_free(st.local);
    vks_free(st.model);
    vks_free(st.soa);
    vks_free(st.columns);
    vks_free(st.cursor);
    vks_free(st.ordered);
    vks_free(per);
    return ok;
}
