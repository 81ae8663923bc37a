/* vkskin bench --anim-only: the crowd's per-frame CPU work alone, no GPU at all: the clocks,
 * culling, sampling, the hierarchy and the palettes, written into a buffer laid out like the
 * mapped one. Timed on one thread (the caller's) and on the pool's every thread, in ns per skin
 * joint (a palette entry that is a skin's bone, the unit ozz-animation is quoted in; vkskin also
 * evaluates the nodes around the bones, counted apart), with the parallel efficiency. --phases
 * times sampling, local-to-model and palette apart on one thread: indicative, since the normal
 * path fuses the last two. */
#include "bench_anim.h"

#include "anim/anim.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Median ms of `frames` frames (after `warmup`) of clocks + culling + palettes on `pool` (NULL:
 * the caller's thread alone). */
/* ... with the scene's animation level of detail (--anim-lod): `posed` gets the instances
 * posed, summed over the measured frames. */
static double time_frames(app_scene *s, vks_pool *pool, const float view_proj[4][4],
                          const vks_lod_view *view, uint32_t *visible, uint32_t *count,
                          vks_bone *palette, uint32_t frames, uint32_t warmup, double *samples,
                          double *clocks_ms, uint64_t *posed)
{
    double *clocks = samples + frames; /* the caller gave room for 2 x frames */
    *posed = 0;
    for (uint32_t i = 0; i < warmup + frames; i++) {
        double t0 = app_now_ms();
        vks_crowd_advance(&s->crowd, 1.0 / 60.0);
        *count = vks_crowd_cull(&s->crowd, view_proj, visible);
        double t1 = app_now_ms();
        if (s->anim_lod)
            vks_crowd_anim_periods(&s->crowd, view, visible, *count, s->periods);
        uint32_t n = vks_crowd_animate(&s->crowd, pool, visible, s->anim_lod ? s->periods : NULL,
                                       *count, s->frame++, palette);
        if (i >= warmup) {
            samples[i - warmup] = app_now_ms() - t0;
            clocks[i - warmup] = t1 - t0;
            *posed += n;
        }
    }
    *clocks_ms = app_median(clocks, frames);
    return app_median(samples, frames);
}

/* --phases: each phase over every listed instance, one thread, medians of `frames`. */
static bool time_phases(app_scene *s, const uint32_t *visible, uint32_t count, vks_bone *palette,
                        uint32_t frames, double *samples, double ms[3])
{
    const vks_crowd *c = &s->crowd;
    uint32_t max_joints = 0;
    size_t total_joints = 0;
    for (uint32_t k = 0; k < count; k++) {
        uint32_t n = c->models[c->instances[visible[k]].model]->skeleton.joint_count;
        max_joints = n > max_joints ? n : max_joints;
        total_joints += n;
    }
    /* Every instance's local pose and model transforms kept between the phases, as a phased
     * runtime would keep them; one set of key hints per instance. */
    vks_xform *local = malloc(sizeof *local * (total_joints ? total_joints : 1));
    vks_affine *model = malloc(sizeof *model * (total_joints ? total_joints : 1));
    uint32_t *cursor = calloc(3 * (total_joints ? total_joints : 1), sizeof *cursor);
    double *per = malloc(sizeof *per * 3 * frames);
    bool ok = local && model && cursor && per;
    for (uint32_t f = 0; ok && f < frames; f++) {
        size_t at = 0;
        double t0 = app_now_ms();
        for (uint32_t k = 0; k < count; k++) {
            const vks_crowd_instance *in = &c->instances[visible[k]];
            const vks_model *m = c->models[in->model];
            if (in->clip >= 0)
                vks_clip_sample(&m->skeleton, &m->clips[in->clip],
                                vks_clip_time(&m->clips[in->clip], in->time, VKS_WRAP_LOOP),
                                cursor + 3 * at, local + at);
            else
                vks_pose_rest(&m->skeleton, local + at);
            at += m->skeleton.joint_count;
        }
        double t1 = app_now_ms();
        at = 0;
        for (uint32_t k = 0; k < count; k++) {
            const vks_model *m = c->models[c->instances[visible[k]].model];
            vks_pose_model(&m->skeleton, local + at, model + at);
            at += m->skeleton.joint_count;
        }
        double t2 = app_now_ms();
        at = 0;
        for (uint32_t k = 0; k < count; k++) {
            const uint32_t i = visible[k];
            const vks_model *m = c->models[c->instances[i].model];
            vks_pose_skin(&m->skeleton, model + at, palette + c->palette_first[i]);
            at += m->skeleton.joint_count;
        }
        double t3 = app_now_ms();
        per[f] = t1 - t0, per[frames + f] = t2 - t1, per[2 * frames + f] = t3 - t2;
        vks_crowd_advance(&s->crowd, 1.0 / 60.0);
    }
    for (int p = 0; ok && p < 3; p++) {
        memcpy(samples, per + (size_t)p * frames, sizeof *samples * frames);
        ms[p] = app_median(samples, frames);
    }
    free(local);
    free(model);
    free(cursor);
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
    double *samples = malloc(sizeof *samples * 2 * d->frames);
    if (!visible || !palette || !samples) {
        free(visible);
        free(palette);
        free(samples);
        fprintf(stderr, "vkskin bench: out of memory\n");
        return APP_FAILED;
    }
    uint32_t count = 0;
    const uint32_t threads = vks_pool_threads(s->pool);
    double clocks1 = 0.0, clocksn = 0.0; /* of which clocks and culling (one thread) */
    uint64_t posed1 = 0, posedn = 0;
    const double ms1 = time_frames(s, NULL, (const float(*)[4])u.view_proj, &view, visible, &count,
                                   palette, d->frames, d->warmup, samples, &clocks1, &posed1);
    const double msn =
        threads > 1 ? time_frames(s, s->pool, (const float(*)[4])u.view_proj, &view, visible,
                                  &count, palette, d->frames, d->warmup, samples, &clocksn, &posedn)
                    : ms1;
    (void)clocksn;
    (void)posedn;
    /* The share of the visible instances posed a frame (1 without --anim-lod). */
    const double posed_share = count ? (double)posed1 / ((double)count * d->frames) : 0.0;
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
    const double efficiency = msn > 0.0 ? ms1 / msn / threads : -1.0;
    char models[256] = "";
    for (uint32_t m = 0; m < c->model_count; m++)
        snprintf(models + strlen(models), sizeof models - strlen(models), "%s%s", m ? " + " : "",
                 c->models[m]->name);
    if (d->json) {
        printf("{\n  \"anim_only\": true,\n  \"models\": \"%s\",\n", models);
        printf("  \"instances\": %u,\n  \"visible\": %u,\n  \"skin_joints\": %llu,\n"
               "  \"palette_entries\": %llu,\n  \"frames\": %u,\n  \"warmup_frames\": %u,\n"
               "  \"threads\": %u,\n",
               c->instance_count, count, (unsigned long long)bones, (unsigned long long)entries,
               d->frames, d->warmup, threads);
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
        printf("  \"parallel_efficiency\": %.17g", efficiency);
        if (d->phases)
            printf(",\n  \"phase_sample_ns\": %.17g,\n  \"phase_model_ns\": %.17g,\n"
                   "  \"phase_palette_ns\": %.17g",
                   phase[0] * per, phase[1] * per, phase[2] * per);
        printf("\n}\n");
    } else {
        printf("bench --anim-only: %s x %u, %u visible: %llu skin joints (%llu palette entries) "
               "a frame; median of %u frames after %u\n",
               models, c->instance_count, count, (unsigned long long)bones,
               (unsigned long long)entries, d->frames, d->warmup);
        printf("  1 thread       %.3f ms: %.1f ns per skin joint (%.1f per palette entry), %.1f M "
               "skin joints/s\n",
               ms1, ms1 * per, entries ? ms1 * 1e6 / (double)entries : 0.0,
               ms1 > 0 ? bones / (ms1 * 1e-3) / 1e6 : 0.0);
        printf("  %u thread(s)   %.3f ms: %.1f ns per skin joint, %.1f M skin joints/s, parallel "
               "efficiency %.0f%%\n",
               threads, msn, msn * per, msn > 0 ? bones / (msn * 1e-3) / 1e6 : 0.0,
               100.0 * efficiency);
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
