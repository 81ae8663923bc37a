/* vkskin bench --anim-only: the crowd's per-frame CPU work alone, no GPU at all: the clocks,
 * culling, sampling, the hierarchy and the palettes, written as the renderer's frames write them:
 * with the palette store (the default), the posed instances' palettes packed into a staging
 * buffer (vkskin_crowd_prepare_store); with --palettes host, every visible instance's into a
 * buffer laid out like the mapped one. Timed on one thread (the caller's) and on the pool's every
 * thread, in ns per skin joint (a palette entry that is a skin's bone, the unit ozz-animation is
 * quoted in; vkskin also evaluates the nodes around the bones, counted apart), with the parallel
 * efficiency. --phases times sampling, local-to-model and palette apart on one thread: indicative,
 * since the normal path fuses the last two and keeps nothing between them. Small crowds are timed
 * over several frames a sample (frames_per_sample). */
#include "bench_anim.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Frames a timed sample runs: enough that it poses about this many palette entries (tens of
 * microseconds), so that reading the clock (some 20 ns) stays out of small crowds' figures. */
#define BENCH_SAMPLE_ENTRIES 20000u

static uint32_t frames_per_sample(const vkskin_crowd *c)
{
    const uint32_t entries = vkskin_crowd_palette_count(c);
    uint32_t n = entries ? BENCH_SAMPLE_ENTRIES / entries : 1;
    return n < 1 ? 1 : n;
}

/* Median ms per frame over `frames` samples of frames_per_sample frames (after `warmup`
 * samples) of clocks + culling + palettes on `pool` (NULL: the caller's thread alone), with the
 * scene's animation level of detail (--anim-lod): `posed` gets the instances posed, summed over
 * the measured frames. `clocks_ms`, when not NULL, gets clocks and culling alone, timed the same
 * way after. */
static double time_frames(vkskin_crowd *crowd, const vkskin_prepare_desc *prepare,
                          vkskin_palette_store *store, uint32_t *visible, uint8_t *levels,
                          uint32_t *count, float *const palette[2], uint32_t frames,
                          uint32_t warmup, double *samples, double *clocks_ms, uint64_t *posed,
                          uint64_t *written, uint64_t *joints, app_progress *progress)
{
    const uint32_t batch = frames_per_sample(crowd);
    /* Each buffer as the caller allocated it: every instance, every palette entry (the store, made
     * of palette_count entries, stages into the same buffers). */
    const uint32_t room = vkskin_crowd_instance_count(crowd),
                   entries = vkskin_crowd_palette_count(crowd);
    uint64_t posed_total = 0, written_total = 0, joints_total = 0;
    uint32_t slot = 0;
    for (uint32_t i = 0; i < warmup + frames; i++) {
        app_progress_say(progress, "%s, sample %u of %u",
                         prepare->one_thread ? "1 thread" : "all threads", i + 1, warmup + frames);
        uint64_t posed_here = 0, written_here = 0, joints_here = 0;
        const double t0 = vks_now_ms();
        for (uint32_t b = 0; b < batch; b++) {
            (prepare->one_thread ? vkskin_crowd_advance_one_thread
                                 : vkskin_crowd_advance)(crowd, 1.0 / 60.0, NULL);
            vkskin_prepared out;
            /* The renderer's two frame slots, in turn. */
            if (store)
                vkskin_crowd_prepare_store(crowd, prepare, store, visible, levels, room,
                                           palette[slot], entries, &out, NULL);
            else
                vkskin_crowd_prepare(crowd, prepare, visible, levels, room, palette[slot], entries,
                                     &out, NULL);
            slot ^= 1;
            *count = out.visible;
            posed_here += out.posed;
            written_here += out.palette_bytes;
            joints_here += out.posed_joints;
        }
        if (i >= warmup) {
            samples[i - warmup] = (vks_now_ms() - t0) / batch;
            posed_total += posed_here;
            written_total += written_here;
            joints_total += joints_here;
        }
    }
    if (joints)
        *joints = joints_total;
    if (posed)
        *posed = posed_total;
    if (written)
        *written = written_total;
    const double ms = vks_median(samples, frames);
    for (uint32_t i = 0; clocks_ms && i < warmup + frames; i++) {
        const double t0 = vks_now_ms();
        for (uint32_t b = 0; b < batch; b++) {
            vkskin_crowd_advance_one_thread(crowd, 1.0 / 60.0, NULL); /* as the one-thread run */
            vkskin_crowd_cull(crowd, prepare->view->view_proj, visible, room, count, NULL);
        }
        if (i >= warmup)
            samples[i - warmup] = (vks_now_ms() - t0) / batch;
    }
    if (clocks_ms)
        *clocks_ms = vks_median(samples, frames);
    return ms;
}

/* Host memory in the mapped buffer's layout (12 floats an entry), 64-byte aligned like a
 * mapping. */
static size_t palette_bytes_of(uint64_t palette_entries)
{
    return (size_t)((sizeof(float) * 12 * palette_entries + 63) & ~(uint64_t)63);
}

uint64_t app_bench_anim_bytes(uint32_t instances, uint64_t palette_entries)
{
    return 2 * palette_bytes_of(palette_entries) + sizeof(uint32_t) * (uint64_t)instances;
}

int app_bench_anim(app_show *s, const app_bench_anim_desc *d)
{
    vkskin_crowd *c = s->crowd;
    vkskin_crowd_info ci;
    vkskin_crowd_get_info(c, &ci, NULL);
    vkskin_view view;
    vkskin_crowd_frame_view(c, (float)d->width / (float)d->height, &view, NULL);
    vkskin_prepare_desc prepare = {.desc_size = sizeof(vkskin_prepare_desc),
                                   .view = &view,
                                   .height = d->height,
                                   .pose_every_frame = !d->anim_lod,
                                   .one_thread = true,
                                   .reuse_palettes = true};
    /* What app_bench_anim_bytes counts: the visible list and the palettes of two frame slots,
     * written in turn as the renderer's are. */
    uint32_t *visible = malloc(sizeof *visible * ci.instance_count);
    /* Levels of detail chosen as the renderer's frames choose them: the skeleton level of
     * detail poses only the joints an instance's level keeps. */
    uint8_t *levels = malloc(ci.instance_count);
    const size_t palette_bytes = palette_bytes_of(ci.palette_count);
    float *palettes[2] = {aligned_alloc(64, palette_bytes ? palette_bytes : 64),
                          aligned_alloc(64, palette_bytes ? palette_bytes : 64)};
    float *palette = palettes[0];
    double *samples = malloc(sizeof *samples * d->frames);
    /* The store holds every instance's palette (no device bounds it here): none is dropped. */
    vkskin_palette_store *store = NULL;
    if (d->store)
        vkskin_palette_store_create(c, (uint32_t)ci.palette_count, &store, NULL);
    if (!visible || !levels || !palettes[0] || !palettes[1] || !samples || (d->store && !store)) {
        vkskin_palette_store_destroy(store);
        free(levels);
        free(visible);
        free(palettes[0]);
        free(palettes[1]);
        free(samples);
        fprintf(stderr, "vkskin bench: out of memory\n");
        return APP_FAILED;
    }
    uint32_t count = 0;
    const uint32_t threads = ci.threads;
    double clocks1 = 0.0; /* of which clocks and culling (one thread) */
    uint64_t posed1 = 0, written1 = 0;
    app_progress progress;
    app_progress_begin(&progress, "bench", d->progress);
    uint64_t joints1 = 0;
    const double ms1 =
        time_frames(c, &prepare, store, visible, levels, &count, palettes, d->frames, d->warmup,
                    samples, &clocks1, &posed1, &written1, &joints1, &progress);
    prepare.one_thread = false;
    const double msn =
        threads > 1 ? time_frames(c, &prepare, store, visible, levels, &count, palettes, d->frames,
                                  d->warmup, samples, NULL, NULL, NULL, NULL, &progress)
                    : ms1;
    vkskin_palette_store_destroy(store);
    app_progress_say(&progress, "the phases");
    /* The share of the visible instances posed a frame (1 without --anim-lod). */
    const uint32_t batch = frames_per_sample(c);
    const double posed_share = count ? (double)posed1 / ((double)count * d->frames * batch) : 0.0;
    /* Palette bytes written for the GPU a frame (the one-thread run's mean). */
    const double upload_bytes = (double)written1 / ((double)d->frames * batch);
    /* Joints posed a frame: the posed instances' levels' (one thread's run). */
    const double posed_joints = (double)joints1 / ((double)d->frames * batch);
    uint64_t bones = 0, entries = 0;
    vkskin_model_info mi[VKSKIN_MAX_MODELS];
    for (uint32_t m = 0; m < s->model_count; m++)
        vkskin_model_get_info(s->models[m], &mi[m], NULL);
    for (uint32_t k = 0; k < count; k++) {
        vkskin_instance_info in;
        vkskin_crowd_get_instance(c, visible[k], &in, NULL);
        bones += mi[in.model].bone_count;
        entries += mi[in.model].joint_count;
    }
    double phase[3] = {-1.0, -1.0, -1.0};
    vkskin_pose_phases phases;
    vkskin_error e;
    const vkskin_result phases_result =
        d->phases ? vkskin_crowd_time_phases(c, visible, count, d->frames, batch, palette,
                                             (uint32_t)ci.palette_count, &phases, &e)
                  : VKSKIN_OK;
    app_progress_end(&progress);
    if (phases_result != VKSKIN_OK) {
        fprintf(stderr, "vkskin bench: %s\n", e.message);
        free(levels);
        free(visible);
        free(palettes[0]);
        free(palettes[1]);
        free(samples);
        return APP_FAILED;
    }
    if (d->phases) {
        phase[0] = phases.sample_ms;
        phase[1] = phases.model_ms;
        phase[2] = phases.palette_ms;
    }
    const double per = bones ? 1e6 / (double)bones : 0.0; /* ms -> ns per skin joint */
    const uint32_t sampled = ci.sampled_clips, sampler_total = ci.clips;
    const double efficiency = msn > 0.0 ? ms1 / msn / threads : -1.0;
    char models[256];
    app_show_model_names(s, " + ", models, sizeof models);
    if (d->json) {
        printf("{\n  \"anim_only\": true,\n");
        app_json_models(s->models, s->model_count);
        app_json_number("instances", ci.instance_count, false);
        app_json_number("visible", count, false);
        app_json_number("skin_joints", (double)bones, false);
        app_json_number("palette_entries", (double)entries, false);
        app_json_number("frames", d->frames, false);
        app_json_number("warmup_frames", d->warmup, false);
        app_json_number("frames_per_sample", batch, false);
        app_json_number("threads", threads, false);
        app_json_number("ms_1_thread", ms1, false);
        app_json_number("ms_all_threads", msn, false);
        app_json_number("ns_per_skin_joint_1_thread", ms1 * per, false);
        app_json_number("ns_per_skin_joint_all_threads", msn * per, false);
        app_json_number("ns_per_palette_entry_1_thread",
                        entries ? ms1 * 1e6 / (double)entries : 0.0, false);
        app_json_number("skin_joints_per_s_1_thread", ms1 > 0 ? bones / (ms1 * 1e-3) : 0.0, false);
        app_json_number("skin_joints_per_s_all_threads", msn > 0 ? bones / (msn * 1e-3) : 0.0,
                        false);
        app_json_number("clocks_and_culling_ns_1_thread", clocks1 * per, false);
        printf("  \"anim_lod\": %s,\n", d->anim_lod ? "true" : "false");
        app_json_number("posed_share", posed_share, false);
        app_json_number("palette_upload_bytes", upload_bytes, false);
        app_json_number("joints_posed", posed_joints, false);
        app_json_string("palettes", d->store ? "store" : "host");
        app_json_number("ns_per_posed_skin_joint_1_thread",
                        posed_share > 0.0 ? ms1 * per / posed_share : -1.0, false);
        app_json_number("sampled_clips", sampled, false);
        app_json_number("clips", sampler_total, false);
        app_json_string("simd", ci.simd);
        app_json_number("parallel_efficiency", efficiency, !d->phases);
        if (d->phases) {
            app_json_number("phase_sample_ns", phase[0] * per, false);
            app_json_number("phase_model_ns", phase[1] * per, false);
            app_json_number("phase_palette_ns", phase[2] * per, true);
        }
        printf("}\n");
    } else {
        printf("bench --anim-only: %s x %u, %u visible: %llu skin joints (%llu palette entries) "
               "a frame; median of %u samples after %u, each the mean of %u frame(s)\n",
               models, ci.instance_count, count, (unsigned long long)bones,
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
               sampled, sampler_total, ci.simd);
        printf("  of which        clocks and culling %.1f ns per skin joint (1 thread)\n",
               clocks1 * per);
        if (d->anim_lod)
            printf("  animation lod   on: %.0f%% of the visible instances posed a frame, the "
                   "others kept their last pose: %.1f ns per posed skin joint (the figures above "
                   "are per skin joint shown; --anim-lod off poses every one)\n",
                   100.0 * posed_share, posed_share > 0.0 ? ms1 * per / posed_share : 0.0);
        printf("  joints posed    %.0f a frame (the posed instances' levels' skeletons)\n",
               posed_joints);
        printf("  palettes out    %.2f MB a frame written for the GPU (%s)\n", upload_bytes / 1e6,
               d->store ? "the posed instances', staged for the palette store"
                        : "host palettes: two frame slots in turn");
        if (d->phases)
            printf("  phases         sampling %.1f, local-to-model %.1f, palette %.1f ns per skin "
                   "joint (1 thread, each phase posing every instance)\n",
                   phase[0] * per, phase[1] * per, phase[2] * per);
    }
    free(levels);
    free(visible);
    free(palettes[0]);
    free(palettes[1]);
    free(samples);
    return APP_OK;
}
