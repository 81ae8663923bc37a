/* vkskin bench --anim-only: the crowd's per-frame CPU work alone, no GPU at all: the clocks,
 * culling, sampling, the hierarchy and the palettes, written into a buffer laid out like the
 * mapped one. Timed on one thread (the caller's) and on the pool's every thread, in ns per skin
 * joint (a palette entry that is a skin's bone, the unit ozz-animation is quoted in; vkskin also
 * evaluates the nodes around the bones, counted apart), with the parallel efficiency. --phases
 * times sampling, local-to-model and palette apart on one thread: indicative, since the normal
 * path fuses the last two and keeps nothing between them. Small crowds are timed over several
 * frames a sample (frames_per_sample). */
#include "bench_anim.h"

#include "anim/anim.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Frames a timed sample runs: enough that it poses about this many palette entries (tens of
 * microseconds), so that reading the clock (some 20 ns) stays out of small crowds' figures. */
#define BENCH_SAMPLE_ENTRIES 20000u

static uint32_t frames_per_sample(const vks_crowd *c)
{
    uint32_t n = c->palette_count ? BENCH_SAMPLE_ENTRIES / c->palette_count : 1;
    return n < 1 ? 1 : n;
}

/* Median ms per frame over `frames` samples of frames_per_sample frames (after `warmup`
 * samples) of clocks + culling + palettes on `pool` (NULL: the caller's thread alone), with the
 * scene's animation level of detail (--anim-lod): `posed` gets the instances posed, summed over
 * the measured frames. `clocks_ms`, when not NULL, gets clocks and culling alone, timed the same
 * way after. */
static double time_frames(app_scene *s, vks_pool *pool, const float view_proj[4][4],
                          const vks_lod_view *view, uint32_t *visible, uint32_t *count,
                          vks_bone *palette, uint32_t frames, uint32_t warmup, double *samples,
                          double *clocks_ms, uint64_t *posed)
{
    const uint32_t batch = frames_per_sample(&s->crowd);
    *posed = 0;
    for (uint32_t i = 0; i < warmup + frames; i++) {
        uint64_t posed_here = 0;
        const double t0 = app_now_ms();
        for (uint32_t b = 0; b < batch; b++) {
            vks_crowd_advance(&s->crowd, 1.0 / 60.0);
            *count = vks_crowd_cull(&s->crowd, view_proj, visible);
            if (s->anim_lod)
                vks_crowd_anim_periods(&s->crowd, view, visible, *count, s->periods);
            posed_here +=
                vks_crowd_animate(&s->crowd, pool, visible, s->anim_lod ? s->periods : NULL, *count,
                                  s->frame++, palette);
        }
        if (i >= warmup) {
            samples[i - warmup] = (app_now_ms() - t0) / batch;
            *posed += posed_here;
        }
    }
    const double ms = app_median(samples, frames);
    for (uint32_t i = 0; clocks_ms && i < warmup + frames; i++) {
        const double t0 = app_now_ms();
        for (uint32_t b = 0; b < batch; b++) {
            vks_crowd_advance(&s->crowd, 1.0 / 60.0);
            *count = vks_crowd_cull(&s->crowd, view_proj, visible);
        }
        if (i >= warmup)
            samples[i - warmup] = (app_now_ms() - t0) / batch;
    }
    if (clocks_ms)
        *clocks_ms = app_median(samples, frames);
    return ms;
}

/* Where the phases keep an instance's intermediate results (its joints' slots in each array). */
typedef struct phase_state {
    vks_xform *local;       /* the direct path's local poses */
    vks_affine *model;      /* ... and model transforms */
    float *soa;             /* the sampler's local matrices */
    float (*columns)[4][4]; /* ... and model transforms */
    uint32_t *cursor;       /* key hints */
} phase_state;

/* Phase p (0 sampling, 1 local-to-model, 2 palette) of instance i, its joints from `at` in the
 * arrays (at_soa in soa), on the crowd's path for it. */
static void pose_phase(const vks_crowd *c, uint32_t i, int p, const phase_state *st, size_t at,
                       size_t at_soa, vks_bone *palette)
{
    const vks_crowd_instance *in = &c->instances[i];
    const vks_model *m = c->models[in->model];
    const vks_skeleton *sk = &m->skeleton;
    const vks_sampler *sm = &c->samplers[in->model][in->clip + 1];
    const bool sampled = sm->segments && !(in->fade_left > 0.0);
    if (p == 0) {
        const double time =
            in->clip < 0 ? 0.0 : vks_clip_time(&m->clips[in->clip], in->time, VKS_WRAP_LOOP);
        if (sampled)
            vks_sampler_local(sm, time, st->cursor + 3 * at, st->soa + at_soa);
        else if (in->clip >= 0) /* the direct path (cross-fades are not blended here) */
            vks_clip_sample(sk, &m->clips[in->clip], time, st->cursor + 3 * at, st->local + at);
        else
            vks_pose_rest(sk, st->local + at);
    } else if (p == 1) {
        if (sampled)
            vks_sampler_model(sm, sk, st->soa + at_soa, st->columns + at);
        else
            vks_pose_model(sk, st->local + at, st->model + at);
    } else if (sampled) {
        vks_sampler_skin(sm, sk, (const float(*)[4][4])st->columns + at,
                         palette + c->palette_first[i]);
    } else {
        vks_pose_skin(sk, st->model + at, palette + c->palette_first[i]);
    }
}

/* --phases: each phase over every listed instance, one thread, medians of `frames`; each
 * instance on the crowd's path: its clip's sampler (anim/sampler.h) or, during a cross-fade or
 * for a clip without one, anim.h's direct path. */
static bool time_phases(app_scene *s, const uint32_t *visible, uint32_t count, vks_bone *palette,
                        uint32_t frames, double *samples, double ms[3])
{
    const vks_crowd *c = &s->crowd;
    const uint32_t batch = frames_per_sample(c); /* each phase repeated, as time_frames */
    size_t total_joints = 0, total_soa = 0;
    for (uint32_t k = 0; k < count; k++) {
        uint32_t n = c->models[c->instances[visible[k]].model]->skeleton.joint_count;
        total_joints += n;
        total_soa += vks_sampler_local_floats(n);
    }
    /* Every instance's local pose and model transforms kept between the phases, as a phased
     * runtime would keep them; one set of key hints per instance. */
    const size_t nj = total_joints ? total_joints : 1;
    phase_state st = {
        .local = malloc(sizeof *st.local * nj),
        .model = malloc(sizeof *st.model * nj),
        .soa = aligned_alloc(64, sizeof *st.soa * (total_soa ? total_soa : 16)),
        .columns = aligned_alloc(64, sizeof *st.columns * nj),
        .cursor = calloc(3 * nj, sizeof *st.cursor),
    };
    double *per = malloc(sizeof *per * 3 * frames);
    bool ok = st.local && st.model && st.soa && st.columns && st.cursor && per;
    for (uint32_t f = 0; ok && f < frames; f++) {
        double t[4];
        for (int p = 0; p < 3; p++) {
            t[p] = app_now_ms();
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
        t[3] = app_now_ms();
        for (int p = 0; p < 3; p++)
            per[(size_t)p * frames + f] = (t[p + 1] - t[p]) / batch;
        vks_crowd_advance(&s->crowd, 1.0 / 60.0);
    }
    for (int p = 0; ok && p < 3; p++) {
        memcpy(samples, per + (size_t)p * frames, sizeof *samples * frames);
        ms[p] = app_median(samples, frames);
    }
    free(st.local);
    free(st.model);
    free(st.soa);
    free(st.columns);
    free(st.cursor);
    free(per);
    return ok;
}

int app_bench_anim(app_scene *s, const app_bench_anim_desc *d)
{
    vks_crowd *c = &s->crowd;
    app_camera cam;
    app_camera_frame(&cam, c);
    vks_frame_uniforms u;
    app_camera_uniforms(&cam, (float)d->width / (float)d->height, &u);
    vks_lod_view view = {.force = -1};
    app_camera_lod_view(&cam, (float)d->width / (float)d->height, d->height, &view);
    uint32_t *visible = malloc(sizeof *visible * c->instance_count);
    /* Host memory in the mapped buffer's layout, 64-byte aligned like a mapping. */
    size_t palette_bytes = (sizeof(vks_bone) * c->palette_count + 63) & ~(size_t)63;
    vks_bone *palette = aligned_alloc(64, palette_bytes ? palette_bytes : 64);
    double *samples = malloc(sizeof *samples * d->frames);
    if (!visible || !palette || !samples) {
        free(visible);
        free(palette);
        free(samples);
        fprintf(stderr, "vkskin bench: out of memory\n");
        return APP_FAILED;
    }
    uint32_t count = 0;
    const uint32_t threads = vks_pool_threads(s->pool);
    double clocks1 = 0.0; /* of which clocks and culling (one thread) */
    uint64_t posed1 = 0, posedn = 0;
    const double ms1 = time_frames(s, NULL, (const float(*)[4])u.view_proj, &view, visible, &count,
                                   palette, d->frames, d->warmup, samples, &clocks1, &posed1);
    const double msn =
        threads > 1 ? time_frames(s, s->pool, (const float(*)[4])u.view_proj, &view, visible,
                                  &count, palette, d->frames, d->warmup, samples, NULL, &posedn)
                    : ms1;
    (void)posedn;
    /* The share of the visible instances posed a frame (1 without --anim-lod). */
    const uint32_t batch = frames_per_sample(c);
    const double posed_share = count ? (double)posed1 / ((double)count * d->frames * batch) : 0.0;
    uint64_t bones = 0, entries = 0;
    for (uint32_t k = 0; k < count; k++) {
        const vks_skeleton *sk = &c->models[c->instances[visible[k]].model]->skeleton;
        bones += sk->bone_count;
        entries += sk->joint_count;
    }
    double phase[3] = {-1.0, -1.0, -1.0};
    if (d->phases && !time_phases(s, visible, count, palette, d->frames, samples, phase)) {
        fprintf(stderr, "vkskin bench: out of memory\n");
        free(visible);
        free(palette);
        free(samples);
        return APP_FAILED;
    }
    const double per = bones ? 1e6 / (double)bones : 0.0; /* ms -> ns per skin joint */
    uint32_t sampler_total = 0;
    vks_sampler_isa isa = VKS_SAMPLER_SCALAR;
    const uint32_t sampled = vks_crowd_sampled_clips(c, &sampler_total, &isa);
    const double efficiency = msn > 0.0 ? ms1 / msn / threads : -1.0;
    char models[256] = "";
    for (uint32_t m = 0; m < c->model_count; m++)
        snprintf(models + strlen(models), sizeof models - strlen(models), "%s%s", m ? " + " : "",
                 c->models[m]->name);
    if (d->json) {
        printf("{\n  \"anim_only\": true,\n  \"models\": \"%s\",\n", models);
        printf("  \"instances\": %u,\n  \"visible\": %u,\n  \"skin_joints\": %llu,\n"
               "  \"palette_entries\": %llu,\n  \"frames\": %u,\n  \"warmup_frames\": %u,\n"
               "  \"frames_per_sample\": %u,\n  \"threads\": %u,\n",
               c->instance_count, count, (unsigned long long)bones, (unsigned long long)entries,
               d->frames, d->warmup, batch, threads);
        printf("  \"ms_1_thread\": %.17g,\n  \"ms_all_threads\": %.17g,\n", ms1, msn);
        printf("  \"ns_per_skin_joint_1_thread\": %.17g,\n", ms1 * per);
        printf("  \"ns_per_skin_joint_all_threads\": %.17g,\n", msn * per);
        printf("  \"ns_per_palette_entry_1_thread\": %.17g,\n",
               entries ? ms1 * 1e6 / (double)entries : 0.0);
        printf("  \"skin_joints_per_s_1_thread\": %.17g,\n", ms1 > 0 ? bones / (ms1 * 1e-3) : 0.0);
        printf("  \"skin_joints_per_s_all_threads\": %.17g,\n",
               msn > 0 ? bones / (msn * 1e-3) : 0.0);
        printf("  \"clocks_and_culling_ns_1_thread\": %.17g,\n", clocks1 * per);
        printf("  \"anim_lod\": %s,\n  \"posed_share\": %.17g,\n", s->anim_lod ? "true" : "false",
               posed_share);
        printf("  \"ns_per_posed_skin_joint_1_thread\": %.17g,\n",
               posed_share > 0.0 ? ms1 * per / posed_share : -1.0);
        printf("  \"sampled_clips\": %u,\n  \"clips\": %u,\n  \"simd\": \"%s\",\n", sampled,
               sampler_total, vks_sampler_isa_name(isa));
        printf("  \"parallel_efficiency\": %.17g", efficiency);
        if (d->phases)
            printf(",\n  \"phase_sample_ns\": %.17g,\n  \"phase_model_ns\": %.17g,\n"
                   "  \"phase_palette_ns\": %.17g",
                   phase[0] * per, phase[1] * per, phase[2] * per);
        printf("\n}\n");
    } else {
        printf("bench --anim-only: %s x %u, %u visible: %llu skin joints (%llu palette entries) "
               "a frame; median of %u samples after %u, each the mean of %u frame(s)\n",
               models, c->instance_count, count, (unsigned long long)bones,
               (unsigned long long)entries, d->frames, d->warmup, batch);
        printf("  1 thread       %.3f ms: %.1f ns per skin joint (%.1f per palette entry), %.1f M "
               "skin joints/s\n",
               ms1, ms1 * per, entries ? ms1 * 1e6 / (double)entries : 0.0,
               ms1 > 0 ? bones / (ms1 * 1e-3) / 1e6 : 0.0);
        if (threads > 1)
            printf("  %u threads     %.3f ms: %.1f ns per skin joint, %.1f M skin joints/s, "
                   "parallel efficiency %.0f%%\n",
                   threads, msn, msn * per, msn > 0 ? bones / (msn * 1e-3) / 1e6 : 0.0,
                   100.0 * efficiency);
        printf("  sampling        %u of %u clips and bind poses resampled (%s), the rest "
               "directly\n",
               sampled, sampler_total, vks_sampler_isa_name(isa));
        printf("  of which        clocks and culling %.1f ns per skin joint (1 thread)\n",
               clocks1 * per);
        if (s->anim_lod)
            printf("  animation lod   on: %.0f%% of the visible instances posed a frame, the "
                   "others kept their last pose: %.1f ns per posed skin joint (the figures above "
                   "are per skin joint shown; --anim-lod off poses every one)\n",
                   100.0 * posed_share, posed_share > 0.0 ? ms1 * per / posed_share : 0.0);
        if (d->phases)
            printf("  phases         sampling %.1f, local-to-model %.1f, palette %.1f ns per skin "
                   "joint (1 thread, each phase posing every instance)\n",
                   phase[0] * per, phase[1] * per, phase[2] * per);
    }
    free(visible);
    free(palette);
    free(samples);
    return APP_OK;
}
