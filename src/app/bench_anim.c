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

/* The buffers the timing writes beside the crowd (what app_bench_anim_bytes counts, and the
 * samples): the visible list and the palettes of two frame slots, written in turn as the
 * renderer's are; the levels of detail, chosen as the renderer's frames choose them (the skeleton
 * level of detail poses only the joints an instance's level keeps); the palette store with
 * --palettes store. */
typedef struct anim_buffers {
    uint32_t *visible;
    uint8_t *levels;
    float *palettes[2];
    double *samples;
    vkskin_palette_store *store;
} anim_buffers;

static void anim_buffers_free(anim_buffers *b)
{
    vkskin_palette_store_destroy(b->store);
    free(b->levels);
    free(b->visible);
    free(b->palettes[0]);
    free(b->palettes[1]);
    free(b->samples);
    *b = (anim_buffers){0};
}

/* False when out of memory (nothing is left allocated). */
static bool anim_buffers_create(vkskin_crowd *c, const vkskin_crowd_info *ci,
                                const app_bench_anim_desc *d, anim_buffers *b)
{
    const size_t palette_bytes = palette_bytes_of(ci->palette_count);
    *b = (anim_buffers){.visible = malloc(sizeof *b->visible * ci->instance_count),
                        .levels = malloc(ci->instance_count),
                        .palettes = {aligned_alloc(64, palette_bytes ? palette_bytes : 64),
                                     aligned_alloc(64, palette_bytes ? palette_bytes : 64)},
                        .samples = malloc(sizeof *b->samples * d->frames)};
    /* The store holds every instance's palette (no device bounds it here): none is dropped. */
    if (d->store)
        vkskin_palette_store_create(c, (uint32_t)ci->palette_count, &b->store, NULL);
    if (!b->visible || !b->levels || !b->palettes[0] || !b->palettes[1] || !b->samples ||
        (d->store && !b->store)) {
        anim_buffers_free(b);
        return false;
    }
    return true;
}

/* What the timing measured, and what it is per: the figures --json and the table print. */
typedef struct anim_figures {
    uint32_t count;          /* visible instances */
    uint32_t batch, threads; /* frames a sample; the pool's threads */
    uint64_t bones, entries; /* the visible instances' skin joints and palette entries */
    double ms1, msn;         /* a frame on one thread, on every thread */
    double clocks1;          /* of which clocks and culling (one thread) */
    double posed_share;      /* the share of the visible instances posed a frame */
    double upload_bytes;     /* palette bytes written for the GPU a frame */
    double posed_joints;     /* joints posed a frame */
    double phase[3];         /* --phases: sampling, local-to-model, palette (-1: not timed) */
    double per;              /* ms -> ns per skin joint */
    double efficiency;       /* the parallel efficiency (-1: unknown) */
} anim_figures;

/* A frame timed on one thread, then on every thread (the same figure with one): f's times and
 * the one-thread run's means a frame. */
static void time_threads(vkskin_crowd *c, vkskin_prepare_desc *prepare, anim_buffers *b,
                         const app_bench_anim_desc *d, anim_figures *f, app_progress *progress)
{
    uint64_t posed1 = 0, written1 = 0, joints1 = 0;
    f->ms1 =
        time_frames(c, prepare, b->store, b->visible, b->levels, &f->count, b->palettes, d->frames,
                    d->warmup, b->samples, &f->clocks1, &posed1, &written1, &joints1, progress);
    prepare->one_thread = false;
    f->msn = f->threads > 1
                 ? time_frames(c, prepare, b->store, b->visible, b->levels, &f->count, b->palettes,
                               d->frames, d->warmup, b->samples, NULL, NULL, NULL, NULL, progress)
                 : f->ms1;
    f->batch = frames_per_sample(c);
    /* The share of the visible instances posed a frame (1 without --anim-lod). */
    f->posed_share = f->count ? (double)posed1 / ((double)f->count * d->frames * f->batch) : 0.0;
    /* Palette bytes written for the GPU a frame (the one-thread run's mean). */
    f->upload_bytes = (double)written1 / ((double)d->frames * f->batch);
    /* Joints posed a frame: the posed instances' levels' (one thread's run). */
    f->posed_joints = (double)joints1 / ((double)d->frames * f->batch);
}

/* The skin joints and palette entries of the visible instances (the first f->count of
 * visible). */
static void count_joints(const app_show *s, const uint32_t *visible, anim_figures *f)
{
    vkskin_model_info mi[VKSKIN_MAX_MODELS];
    for (uint32_t m = 0; m < s->model_count; m++)
        vkskin_model_get_info(s->models[m], &mi[m], NULL);
    for (uint32_t k = 0; k < f->count; k++) {
        vkskin_instance_info in;
        vkskin_crowd_get_instance(s->crowd, visible[k], &in, NULL);
        f->bones += mi[in.model].bone_count;
        f->entries += mi[in.model].joint_count;
    }
}

static void print_json(const app_show *s, const app_bench_anim_desc *d, const vkskin_crowd_info *ci,
                       const anim_figures *f)
{
    const double ms1 = f->ms1, msn = f->msn, per = f->per;
    const uint64_t bones = f->bones, entries = f->entries;
    printf("{\n  \"anim_only\": true,\n");
    app_json_models(s->models, s->model_count);
    app_json_number("instances", ci->instance_count, false);
    app_json_number("visible", f->count, false);
    app_json_number("skin_joints", (double)bones, false);
    app_json_number("palette_entries", (double)entries, false);
    app_json_number("frames", d->frames, false);
    app_json_number("warmup_frames", d->warmup, false);
    app_json_number("frames_per_sample", f->batch, false);
    app_json_number("threads", f->threads, false);
    app_json_number("ms_1_thread", ms1, false);
    app_json_number("ms_all_threads", msn, false);
    app_json_number("ns_per_skin_joint_1_thread", ms1 * per, false);
    app_json_number("ns_per_skin_joint_all_threads", msn * per, false);
    app_json_number("ns_per_palette_entry_1_thread", entries ? ms1 * 1e6 / (double)entries : 0.0,
                    false);
    app_json_number("skin_joints_per_s_1_thread", ms1 > 0 ? bones / (ms1 * 1e-3) : 0.0, false);
    app_json_number("skin_joints_per_s_all_threads", msn > 0 ? bones / (msn * 1e-3) : 0.0, false);
    app_json_number("clocks_and_culling_ns_1_thread", f->clocks1 * per, false);
    printf("  \"anim_lod\": %s,\n", d->anim_lod ? "true" : "false");
    app_json_number("posed_share", f->posed_share, false);
    app_json_number("palette_upload_bytes", f->upload_bytes, false);
    app_json_number("joints_posed", f->posed_joints, false);
    app_json_string("palettes", d->store ? "store" : "host");
    app_json_number("ns_per_posed_skin_joint_1_thread",
                    f->posed_share > 0.0 ? ms1 * per / f->posed_share : -1.0, false);
    app_json_number("sampled_clips", ci->sampled_clips, false);
    app_json_number("clips", ci->clips, false);
    app_json_string("simd", ci->simd);
    app_json_number("parallel_efficiency", f->efficiency, !d->phases);
    if (d->phases) {
        app_json_number("phase_sample_ns", f->phase[0] * per, false);
        app_json_number("phase_model_ns", f->phase[1] * per, false);
        app_json_number("phase_palette_ns", f->phase[2] * per, true);
    }
    printf("}\n");
}

static void print_table(const app_show *s, const app_bench_anim_desc *d,
                        const vkskin_crowd_info *ci, const anim_figures *f)
{
    const double ms1 = f->ms1, msn = f->msn, per = f->per;
    const uint64_t bones = f->bones, entries = f->entries;
    char models[256];
    app_show_model_names(s, " + ", models, sizeof models);
    printf("bench --anim-only: %s x %u, %u visible: %llu skin joints (%llu palette entries) "
           "a frame; median of %u samples after %u, each the mean of %u frame(s)\n",
           models, ci->instance_count, f->count, (unsigned long long)bones,
           (unsigned long long)entries, d->frames, d->warmup, f->batch);
    printf("  1 thread       %.3f ms: %.1f ns per skin joint (%.1f per palette entry), %.1f M "
           "skin joints/s\n",
           ms1, ms1 * per, entries ? ms1 * 1e6 / (double)entries : 0.0,
           ms1 > 0 ? bones / (ms1 * 1e-3) / 1e6 : 0.0);
    if (f->threads > 1)
        printf("  %u threads     %.3f ms: %.1f ns per skin joint, %.1f M skin joints/s, "
               "parallel efficiency %.0f%%\n",
               f->threads, msn, msn * per, msn > 0 ? bones / (msn * 1e-3) / 1e6 : 0.0,
               100.0 * f->efficiency);
    printf("  sampling        %u of %u clips and bind poses resampled (%s), the rest "
           "directly\n",
           ci->sampled_clips, ci->clips, ci->simd);
    printf("  of which        clocks and culling %.1f ns per skin joint (1 thread)\n",
           f->clocks1 * per);
    if (d->anim_lod)
        printf("  animation lod   on: %.0f%% of the visible instances posed a frame, the "
               "others kept their last pose: %.1f ns per posed skin joint (the figures above "
               "are per skin joint shown; --anim-lod off poses every one)\n",
               100.0 * f->posed_share, f->posed_share > 0.0 ? ms1 * per / f->posed_share : 0.0);
    printf("  joints posed    %.0f a frame (the posed instances' levels' skeletons)\n",
           f->posed_joints);
    printf("  palettes out    %.2f MB a frame written for the GPU (%s)\n", f->upload_bytes / 1e6,
           d->store ? "the posed instances', staged for the palette store"
                    : "host palettes: two frame slots in turn");
    if (d->phases)
        printf("  phases         sampling %.1f, local-to-model %.1f, palette %.1f ns per skin "
               "joint (1 thread, each phase posing every instance)\n",
               f->phase[0] * per, f->phase[1] * per, f->phase[2] * per);
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
    anim_buffers b;
    if (!anim_buffers_create(c, &ci, d, &b)) {
        fprintf(stderr, "vkskin bench: out of memory\n");
        return APP_FAILED;
    }
    anim_figures f = {.threads = ci.threads, .phase = {-1.0, -1.0, -1.0}};
    app_progress progress;
    app_progress_begin(&progress, "bench", d->progress);
    time_threads(c, &prepare, &b, d, &f, &progress);
    vkskin_palette_store_destroy(b.store);
    b.store = NULL;
    app_progress_say(&progress, "the phases");
    count_joints(s, b.visible, &f);
    vkskin_pose_phases phases;
    vkskin_error e;
    const vkskin_result phases_result =
        d->phases ? vkskin_crowd_time_phases(c, b.visible, f.count, d->frames, f.batch,
                                             b.palettes[0], (uint32_t)ci.palette_count, &phases, &e)
                  : VKSKIN_OK;
    app_progress_end(&progress);
    if (phases_result != VKSKIN_OK) {
        fprintf(stderr, "vkskin bench: %s\n", e.message);
        anim_buffers_free(&b);
        return APP_FAILED;
    }
    if (d->phases) {
        f.phase[0] = phases.sample_ms;
        f.phase[1] = phases.model_ms;
        f.phase[2] = phases.palette_ms;
    }
    f.per = f.bones ? 1e6 / (double)f.bones : 0.0; /* ms -> ns per skin joint */
    f.efficiency = f.msn > 0.0 ? f.ms1 / f.msn / f.threads : -1.0;
    if (d->json)
        print_json(s, d, &ci, &f);
    else
        print_table(s, d, &ci, &f);
    anim_buffers_free(&b);
    return APP_OK;
}
