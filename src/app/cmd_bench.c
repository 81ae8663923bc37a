/* vkskin bench: a crowd rendered headless for F frames, and the medians of what each stage cost:
 * CPU animation (culling + palettes on every thread), GPU skinning and drawing (timestamps), the
 * whole frame (wall clock), skinned vertices per second, and the skinning pass's bandwidth beside
 * a plain copy kernel's over the bytes that reach memory (the roofline). */
#include "bench_anim.h"
#include "commands.h"
#include "show.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Frames before measuring by default (--warmup): pipelines, caches and clocks settle. */
#define WARMUP_FRAMES 3u

typedef struct bench_args {
    const char *path, *size, *frames_text, *warmup_text, *group_size_text, *threads_text, *clip;
    const char *max_buffer_text;
    bool json, anim_only, phases, progress, stage_palette;
    app_gpu_options gpu;
    app_crowd_args crowd;
    uint32_t width, height, frames, warmup, group_size;
    uint32_t max_buffer; /* --max-buffer; 0: the device's limits */
} bench_args;

typedef struct bench_result {
    uint32_t samples, gpu_samples, visible, threads; /* frames measured on the CPU, the GPU */
    uint32_t skinned; /* visible instances the compute pass skinned (the rest: past the budget) */
    uint32_t
        dropped; /* in view in the last frame, left out: the palette store could not hold them */
    app_overflow overflow; /* over every frame, warm-up included: what render and view report */
    uint64_t overflow_vertices, budget_vertices, most_vertices;
    uint32_t overflow_instances; /* of the last frame: past the output, skinned in the vertex
                                    shader (far splats are never skinned) */
    uint32_t output_growths;
    uint64_t device_bytes, host_bytes; /* the renderer's memory, planned */
    uint64_t store_entries;            /* the palette store's, in store_pages buffers */
    uint32_t store_pages, store_most_pages, store_growths;
    uint64_t
        triangles;  /* the GPU drew in the last frame (pipeline statistics; UINT64_MAX: unknown) */
    uint32_t draws; /* the crowd's draw calls in the last frame */
    vkskin_raster_counts raster_counts; /* the compute rasterizer's resolves, in the last frame */
    /* The last frame's triangles through the graphics pipeline and the compute rasterizer, and
     * the pixels the latter covered (UINT64_MAX: unknown). */
    uint64_t triangles_hardware, triangles_compute, pixels_resolved;
    vkskin_raster raster;         /* the rasterizer in use */
    const char *raster_note;      /* why it is the hardware one by default, or NULL */
    double raster_ms, resolve_ms; /* medians; -1: it did not run */
    double gpu_ms;                /* median of each frame's passes together */
    uint32_t level_instances[VKSKIN_MAX_LEVELS]; /* visible instances per level, last frame */
    uint32_t posed; /* instances the last frame posed (--anim-lod: the rest kept their pose) */
    uint64_t palette_bytes;    /* palettes the last frame wrote for the GPU */
    uint32_t moved;            /* instances whose instance-table entries the last frame uploaded */
    uint64_t instance_bytes;   /* and the bytes they took */
    double motion_ms;          /* --motion's velocities a frame (the program's, outside anim) */
    uint64_t vertices;         /* skinned per frame by the pass (vertex mode: every visible) */
    uint64_t visible_vertices; /* of the visible instances */
    uint64_t joints;           /* animated per frame: the visible instances' */
    double anim_ms, skin_ms, draw_ms, frame_ms;
    double wait_ms, record_ms; /* the rest of the frame on the host (vkskin_frame_info) */
    double skin_bytes;   /* read + written by the skinning pass per frame, each access counted */
    double stream_bytes; /* of which the per-vertex streams (bind streams read, output written) */
    double memory_bytes; /* what reaches memory per frame: see vkskin_traffic */
    double copy_bytes, copy_ms;
    char device[256];
    bool
        descriptors; /* the shaders reached buffers through descriptors (the descriptors binding) */
    uint32_t staged_vec4s; /* --stage-palette: the staged poses' room in vec4s (0: none) */
} bench_result;

/* Each measured frame's times, one array per figure: the CPU's (cpu_count of them, one a
 * measured frame) and the GPU's (gpu_count: the frames with timestamps). */
typedef struct bench_samples {
    double *anim, *frame, *wait, *record;
    double *skin, *draw, *raster, *resolve, *gpu;
    uint32_t cpu_count, gpu_count;
} bench_samples;

/* Room for `total` frames of each figure; false when out of memory. */
static bool bench_samples_create(bench_samples *b, uint32_t total)
{
    *b = (bench_samples){.anim = calloc(total, sizeof *b->anim),
                         .frame = calloc(total, sizeof *b->frame),
                         .wait = calloc(total, sizeof *b->wait),
                         .record = calloc(total, sizeof *b->record),
                         .skin = calloc(total, sizeof *b->skin),
                         .draw = calloc(total, sizeof *b->draw),
                         .raster = calloc(total, sizeof *b->raster),
                         .resolve = calloc(total, sizeof *b->resolve),
                         .gpu = calloc(total, sizeof *b->gpu)};
    return b->anim && b->frame && b->wait && b->record && b->skin && b->draw && b->raster &&
           b->resolve && b->gpu;
}

static void bench_samples_free(bench_samples *b)
{
    free(b->anim);
    free(b->frame);
    free(b->wait);
    free(b->record);
    free(b->skin);
    free(b->draw);
    free(b->raster);
    free(b->resolve);
    free(b->gpu);
}

/* One frame's GPU times into the samples: its passes, and their sum (a pass that did not run
 * counts 0 in the sum). Frames without times (no timestamps) are left out. */
static void add_gpu(const vkskin_gpu_stats *s, bench_samples *b)
{
    if (s->draw_ms < 0.0)
        return;
    const uint32_t n = b->gpu_count;
    b->skin[n] = s->skin_ms;
    b->draw[n] = s->draw_ms;
    b->raster[n] = s->raster_ms;
    b->resolve[n] = s->resolve_ms;
    b->gpu[n] =
        fmax(s->skin_ms, 0.0) + s->draw_ms + fmax(s->raster_ms, 0.0) + fmax(s->resolve_ms, 0.0);
    b->gpu_count++;
}

/* The crowd started and a renderer for it, headless at --size; failures are said. */
static int bench_open(const bench_args *a, app_show *show, vkskin_renderer **out)
{
    vkskin_error err;
    vkskin_error e;
    vkskin_renderer_desc desc =
        app_show_renderer_desc(show, &a->crowd, &a->gpu, a->width, a->height);
    desc.group_size = a->group_size;
    desc.stage_palette = a->stage_palette;
    desc.max_buffer_bytes = a->max_buffer;
    if (!app_show_start(show, &a->crowd, a->clip, 0.0, &desc, &err)) {
        fprintf(stderr, "vkskin bench: %s\n", err.message);
        return APP_FAILED;
    }
    desc.crowd = show->crowd;
    if (vkskin_renderer_create(&desc, out, &e) != VKSKIN_OK) {
        fprintf(stderr, "vkskin bench: %s\n", e.message);
        return APP_FAILED;
    }
    return APP_OK;
}

/* The roofline: a copy kernel timed over as many bytes as skinning every instance puts through
 * memory. False when it fails (said). */
static bool time_roofline(vkskin_renderer *r, bench_result *res)
{
    vkskin_traffic all;
    vkskin_copy_timing copy;
    vkskin_error e;
    vkskin_renderer_get_traffic(r, true, &all, NULL);
    if (vkskin_renderer_time_copy(r, (uint64_t)all.memory_bytes, &copy, &e) != VKSKIN_OK) {
        fprintf(stderr, "vkskin bench: %s\n", e.message);
        return false;
    }
    res->copy_bytes = copy.bytes;
    res->copy_ms = copy.bytes > 0.0 ? copy.ms : -1.0;
    return true;
}

/* The warm-up frames, then the measured ones (until SIGINT or SIGTERM), each one's times into
 * b: the GPU's of the frame two before, which is when the renderer reports them. *info: the last
 * frame's; *last: when it started. False when a frame fails (said). */
static bool measure(const bench_args *a, app_show *show, vkskin_renderer *r,
                    const vkskin_view *view, bench_samples *b, vkskin_frame_info *info,
                    double *last, app_overflow *overflow)
{
    vkskin_crowd *crowd = show->crowd;
    const uint32_t warmup = a->warmup, total = warmup + a->frames;
    vkskin_error e;
    app_progress progress;
    app_progress_begin(&progress, "bench", a->progress);
    for (uint32_t i = 0; i < total && !app_signal(); i++) {
        if (i < warmup)
            app_progress_say(&progress, "warm-up frame %u of %u", i + 1, warmup);
        else
            app_progress_say(&progress, "frame %u of %u", i - warmup + 1, a->frames);
        /* The frame waits for frame i - 2 first: from there to the next frame's start is the
         * frame's period, GPU included. */
        /* The motion's velocities (the program's simulation, a host's in an engine) before the
         * frame's clock: timed apart, into show->motion_ms. */
        const double moving = vks_now_ms();
        if (!app_motion_step(&show->motion, crowd, 1.0 / 60.0, &e)) {
            fprintf(stderr, "vkskin bench: %s\n", e.message);
            return false;
        }
        show->motion_ms += vks_now_ms() - moving;
        const double start = vks_now_ms();
        vkskin_crowd_advance(crowd, 1.0 / 60.0, NULL);
        const double advanced = vks_now_ms();
        if (vkskin_renderer_frame(
                r, &(vkskin_frame_desc){.desc_size = sizeof(vkskin_frame_desc), .view = view}, info,
                &e) != VKSKIN_OK) {
            fprintf(stderr, "vkskin bench: %s\n", e.message);
            return false;
        }
        app_show_overflow_add(overflow, info);
        if (i > warmup)
            b->frame[b->cpu_count - 1] = start - *last;
        *last = start;
        if (i >= warmup) {
            b->wait[b->cpu_count] = info->wait_ms;
            b->record[b->cpu_count] = info->record_ms;
            b->anim[b->cpu_count++] = (advanced - start) + info->cpu_ms;
        }
        if (i >= warmup + 2) /* the frame two before's */
            add_gpu(&info->gpu, b);
    }
    app_progress_end(&progress);
    return true;
}

/* After the frames: a stop by a signal said, and the last frame's period and the last two
 * frames' GPU times, which no later frame's info reports (the one before the last is a warm-up
 * frame when a single frame is measured); *ends the two. False when no frame was measured. */
static bool close_samples(const bench_args *a, vkskin_renderer *r, double last, bench_samples *b,
                          vkskin_gpu_stats ends[2])
{
    if (app_signal()) {
        fprintf(stderr, "vkskin bench: stopped by %s after %u of %u measured frames%s\n",
                app_signal_name(app_signal()), b->cpu_count, a->frames,
                b->cpu_count ? ": their medians follow" : "");
        if (!b->cpu_count)
            return false;
    }
    vkskin_renderer_previous_stats(r, &ends[0], NULL);
    vkskin_renderer_last_stats(r, &ends[1], NULL);
    b->frame[b->cpu_count - 1] = vks_now_ms() - last;
    for (int k = b->cpu_count >= 2 ? 0 : 1; k < 2; k++)
        add_gpu(&ends[k], b);
    return true;
}

/* The medians of the samples (-1: no GPU times; a pass's over the frames that ran it). */
static void take_medians(const bench_samples *b, bench_result *res)
{
    const uint32_t cpu = b->cpu_count, gpu = b->gpu_count;
    res->samples = cpu;
    res->gpu_samples = gpu; /* every frame's, or none on a device without timestamps */
    res->anim_ms = vks_median(b->anim, cpu);
    res->frame_ms = vks_median(b->frame, cpu);
    res->wait_ms = vks_median(b->wait, cpu);
    res->record_ms = vks_median(b->record, cpu);
    res->skin_ms = gpu ? vks_median(b->skin, gpu) : -1.0;
    res->draw_ms = gpu ? vks_median(b->draw, gpu) : -1.0;
    res->raster_ms = vks_median_known(b->raster, gpu); /* over the frames that ran them */
    res->resolve_ms = vks_median_known(b->resolve, gpu);
    res->gpu_ms = gpu ? vks_median(b->gpu, gpu) : -1.0;
}

/* The renderer's settings and the last frame's counts (`ends`: its GPU statistics), and the
 * skinning pass's traffic over the instances it skinned. */
static void take_counts(const bench_args *a, const app_show *show, vkskin_renderer *r,
                        const vkskin_frame_info *info, const vkskin_gpu_stats *ends,
                        bench_result *res)
{
    vkskin_renderer_info ri;
    vkskin_crowd_info ci;
    vkskin_renderer_get_info(r, &ri, NULL);
    vkskin_crowd_get_info(show->crowd, &ci, NULL);
    memcpy(res->device, ri.device_name, sizeof res->device);
    res->descriptors = ri.binding == VKSKIN_BINDING_DESCRIPTORS;
    res->staged_vec4s = ri.staged_palette_vec4s;
    res->raster = ri.raster;
    res->raster_note = ri.raster_note;
    res->triangles_hardware = info->triangles_hardware;
    res->triangles_compute = info->triangles_compute;
    res->pixels_resolved = ends->pixels_resolved;
    res->threads = ci.threads;
    /* The visible set of the last frame (the camera does not move); in compute mode the part
     * the skinning pass skinned (the rest went past the output budget). */
    res->visible = info->visible;
    res->skinned = a->crowd.mode == VKSKIN_SKIN_COMPUTE ? info->skinned : info->visible;
    res->dropped = info->dropped;
    res->overflow_vertices = info->overflow_vertices;
    res->overflow_instances = info->overflow;
    res->visible_vertices = info->vertices;
    res->vertices = a->crowd.mode == VKSKIN_SKIN_COMPUTE ? info->skinned_vertices : info->vertices;
    for (uint32_t m = 0; m < show->model_count; m++) {
        vkskin_model_info mi;
        vkskin_model_get_info(show->models[m], &mi, NULL);
        res->joints += (uint64_t)info->model_instances[m] * mi.joint_count;
    }
    res->triangles = ends->triangles;
    res->draws = info->draws;
    res->posed = info->posed;
    res->palette_bytes = info->palette_bytes;
    vkskin_instance_uploads uploads;
    vkskin_renderer_get_instance_uploads(r, &uploads, NULL);
    res->moved = uploads.instances;
    vkskin_renderer_get_raster_counts(r, &res->raster_counts, NULL);
    res->instance_bytes = uploads.bytes;
    res->motion_ms = show->motion_ms / (a->warmup + a->frames);
    memcpy(res->level_instances, info->level_instances, sizeof res->level_instances);
    res->budget_vertices = ri.max_skinned_vertices;
    res->most_vertices = ri.max_output_vertices;
    res->output_growths = ri.output_growths;
    res->device_bytes = ri.device_bytes;
    res->host_bytes = ri.host_bytes;
    res->store_entries = ri.store_entries;
    res->store_pages = ri.store_pages;
    res->store_most_pages = ri.store_most_pages;
    res->store_growths = ri.store_growths;
    vkskin_traffic seen;
    vkskin_renderer_get_traffic(r, false, &seen, NULL);
    res->skin_bytes = seen.logical_bytes;
    res->stream_bytes = seen.stream_bytes;
    res->memory_bytes = seen.memory_bytes;
}

static int run(const bench_args *a, app_show *show, vkskin_renderer **out, bench_result *res)
{
    /* SIGINT and SIGTERM end the measuring after the frame in hand: what was measured is
     * reported (output.h). */
    app_signals_catch();
    if (bench_open(a, show, out) != APP_OK)
        return APP_FAILED;
    vkskin_renderer *r = *out;
    /* The roofline first: on lavapipe, timestamps around a compute-only submission come out far
     * too short after draws have run on the device. The skinning pass's own figure uses the
     * visible instances. */
    if (!time_roofline(r, res))
        return APP_FAILED;
    vkskin_view view;
    app_show_view(show, &(vkskin_orbit){.aspect = (float)a->width / (float)a->height}, &view);
    bench_samples b;
    double last = 0.0;
    vkskin_frame_info info = {0};
    vkskin_gpu_stats ends[2];
    int rc = APP_FAILED;
    if (!bench_samples_create(&b, a->warmup + a->frames)) {
        fprintf(stderr, "vkskin bench: out of memory\n");
    } else if (measure(a, show, r, &view, &b, &info, &last, &res->overflow) &&
               close_samples(a, r, last, &b, ends)) {
        take_medians(&b, res);
        take_counts(a, show, r, &info, &ends[1], res);
        rc = APP_OK;
    }
    bench_samples_free(&b);
    return rc;
}

/* --anim-only: whether the crowd and what the timing allocates beside it (bench_anim.h) fit this
 * machine's memory, from counts, before either is made. */
static bool anim_fits(const app_show *show, const app_crowd_args *a, vkskin_error *err)
{
    const vkskin_crowd_desc desc = {.desc_size = sizeof(vkskin_crowd_desc),
                                    .models = (const vkskin_model *const *)show->models,
                                    .model_count = show->model_count,
                                    .instance_count = a->instances};
    vkskin_crowd_memory m;
    return vkskin_crowd_memory_of(&desc, &m, err) == VKSKIN_OK &&
           vkskin_crowd_fits(&desc, app_bench_anim_bytes(a->instances, m.palette_entries), err) ==
               VKSKIN_OK;
}

/* The figures report derives from the medians: rates, traffic and the roofline's ratios, -1
 * where unknown (vertex mode has no skinning pass; a time that is not positive). */
typedef struct bench_rates {
    double skin_ms;      /* the skinning pass's (-1 in vertex mode) */
    double vps, vpms;    /* skinned vertices per second, per ms (vertex mode: of draw time) */
    double jpspc;        /* joints animated per second per core */
    double skin_bytes;   /* the skinning pass's traffic, each access counted */
    double memory_bytes; /* of which reaches memory */
    double bytes_per_vertex;
    double skin_gbps, memory_gbps, copy_gbps;
    double ratio, logical_ratio; /* to memory and logical, over the copy kernel's */
} bench_rates;

static bench_rates rates_of(const bench_args *a, const bench_result *res)
{
    const bool compute = a->crowd.mode == VKSKIN_SKIN_COMPUTE;
    bench_rates t;
    /* Vertex mode skins inside the draw: its vertices per second are per draw time. */
    t.skin_ms = compute ? res->skin_ms : -1.0;
    const double per_ms = compute ? res->skin_ms : res->draw_ms;
    t.vps = per_ms > 0.0 ? res->vertices / (per_ms * 1e-3) : -1.0;
    t.vpms = per_ms > 0.0 ? res->vertices / per_ms : -1.0;
    t.jpspc = res->anim_ms > 0.0 ? res->joints / (res->anim_ms * 1e-3) / res->threads : -1.0;
    /* The skinning pass's traffic; unknown (null) in vertex mode, which has no such pass. */
    t.skin_bytes = compute ? res->skin_bytes : -1.0;
    t.memory_bytes = compute ? res->memory_bytes : -1.0;
    t.bytes_per_vertex =
        compute && res->vertices ? res->stream_bytes / (double)res->vertices : -1.0;
    t.skin_gbps = t.skin_ms > 0.0 ? t.skin_bytes / (t.skin_ms * 1e-3) / 1e9 : -1.0;
    t.memory_gbps = t.skin_ms > 0.0 ? t.memory_bytes / (t.skin_ms * 1e-3) / 1e9 : -1.0;
    t.copy_gbps = res->copy_ms > 0.0 ? res->copy_bytes / (res->copy_ms * 1e-3) / 1e9 : -1.0;
    t.ratio = t.memory_gbps > 0.0 && t.copy_gbps > 0.0 ? t.memory_gbps / t.copy_gbps : -1.0;
    t.logical_ratio = t.skin_gbps > 0.0 && t.copy_gbps > 0.0 ? t.skin_gbps / t.copy_gbps : -1.0;
    return t;
}

static void report_json(const bench_args *a, const app_show *show, const bench_result *res,
                        const bench_rates *t)
{
    const uint32_t instances = vkskin_crowd_instance_count(show->crowd);
    const bool compute = a->crowd.mode == VKSKIN_SKIN_COMPUTE;
    printf("{\n");
    app_json_models(show->models, show->model_count);
    app_json_string("device", res->device);
    app_json_string("mode", compute ? "compute" : "vertex");
    app_json_string("skinning", a->crowd.skinning == VKSKIN_SKINNING_DUAL_QUATERNION
                                    ? "dual-quaternion"
                                    : "linear");
    app_json_string("palettes", a->crowd.palettes == VKSKIN_PALETTES_HOST ? "host" : "store");
    app_json_string("binding", res->descriptors ? "descriptors" : "addresses");
    app_json_number("staged_palette_vec4s", res->staged_vec4s, false);
    app_json_number("instances", instances, false);
    app_json_number("visible", res->visible, false);
    app_json_number("dropped", res->dropped, false);
    app_json_number("dropped_frames", res->overflow.dropped_frames, false);
    app_json_number("most_dropped", res->overflow.most_dropped, false);
    app_json_number("width", a->width, false);
    app_json_number("height", a->height, false);
    app_json_number("warmup_frames", a->warmup, false);
    app_json_number("frames", res->samples, false);
    app_json_number("gpu_frames", res->gpu_samples, false);
    app_json_number("threads", res->threads, false);
    app_json_number("skinned_vertices", (double)res->vertices, false);
    app_json_number("skinned_output_vertices", compute ? (double)res->budget_vertices : -1.0,
                    false);
    app_json_number("skinned_output_most_vertices", compute ? (double)res->most_vertices : -1.0,
                    false);
    app_json_number("skinned_output_growths", res->output_growths, false);
    app_json_number("memory_device_bytes", (double)res->device_bytes, false);
    app_json_number("memory_host_bytes", (double)res->host_bytes, false);
    app_json_number("palette_store_entries", (double)res->store_entries, false);
    app_json_number("palette_store_pages", res->store_pages, false);
    app_json_number("palette_store_most_pages", res->store_most_pages, false);
    app_json_number("palette_store_growths", res->store_growths, false);
    app_json_number("overflow_instances", compute ? res->overflow_instances : 0, false);
    app_json_number("overflow_vertices", (double)res->overflow_vertices, false);
    app_json_number("triangles", res->triangles == UINT64_MAX ? -1.0 : (double)res->triangles,
                    false);
    app_json_number("draws", res->draws, false);
    static const char *const rasters[] = {"auto", "hardware", "compute", "hybrid"};
    app_json_string("raster", rasters[res->raster]);
    app_json_number("raster_triangle_px",
                    a->crowd.raster_px > 0.0f ? a->crowd.raster_px : VKSKIN_RASTER_TRIANGLE_PX,
                    false);
    app_json_number("triangles_hardware", (double)res->triangles_hardware, false);
    app_json_number("triangles_compute", (double)res->triangles_compute, false);
    app_json_number("splats", res->raster_counts.splats, false);
    app_json_number(
        "primitives",
        (double)(res->triangles_hardware + res->triangles_compute + res->raster_counts.splats),
        false);
    app_json_number("resolve_passes", res->raster_counts.resolve_passes, false);
    app_json_number("raster_materials", res->raster_counts.materials, false);
    app_json_number("raster_max_entries", res->raster_counts.max_entries, false);
    app_json_number("raster_entries_past_ids", res->raster_counts.entries_past_ids, false);
    app_json_number("raster_texture_levels_dropped", res->raster_counts.texture_levels_dropped,
                    false);
    app_json_number("pixels_resolved",
                    res->pixels_resolved == UINT64_MAX ? -1.0 : (double)res->pixels_resolved,
                    false);
    printf("  \"level_instances\": [");
    for (uint32_t l = 0; l < VKSKIN_MAX_LEVELS; l++)
        printf("%s%u", l ? ", " : "", res->level_instances[l]);
    printf("],\n");
    app_json_number("posed_instances", res->posed, false);
    app_json_number("palette_upload_bytes", (double)res->palette_bytes, false);
    app_json_string("motion", app_motion_name(a->crowd.motion));
    app_json_string("camera", a->crowd.street ? "street" : "framed");
    app_json_number("moved_instances", res->moved, false);
    app_json_number("instance_upload_bytes", (double)res->instance_bytes, false);
    app_json_number("motion_ms", res->motion_ms, false);
    app_json_number("lod", a->crowd.lod, false);
    app_json_number("lod_error_px", a->crowd.lod_error, false);
    app_json_number("cpu_anim_ms", res->anim_ms, false);
    app_json_number("cpu_record_ms", res->record_ms, false);
    app_json_number("cpu_wait_ms", res->wait_ms, false);
    app_json_number("gpu_skin_ms", t->skin_ms, false);
    app_json_number("gpu_draw_ms", res->draw_ms, false);
    app_json_number("gpu_raster_ms", res->raster_ms, false);
    app_json_number("gpu_resolve_ms", res->resolve_ms, false);
    app_json_number("gpu_frame_ms", res->gpu_ms, false);
    app_json_number("frame_ms", res->frame_ms, false);
    app_json_number("skinned_vertices_per_s", t->vps, false);
    app_json_number("skinned_vertices_per_ms", t->vpms, false);
    app_json_number("joints_per_s_per_core", t->jpspc, false);
    app_json_number("bytes_per_vertex", t->bytes_per_vertex, false);
    app_json_number("skin_bytes", t->skin_bytes, false);
    app_json_number("memory_bytes", t->memory_bytes, false);
    app_json_number("skin_gb_per_s", t->skin_gbps, false);
    app_json_number("memory_gb_per_s", t->memory_gbps, false);
    app_json_number("copy_bytes", res->copy_bytes, false);
    app_json_number("copy_gb_per_s", t->copy_gbps, false);
    app_json_number("roofline_ratio", t->ratio, false);
    app_json_number("logical_roofline_ratio", t->logical_ratio, true);
    printf("}\n");
}

static void report_table(const bench_args *a, const app_show *show, const bench_result *res,
                         const bench_rates *t)
{
    char models[512];
    app_show_model_names(show, " + ", models, sizeof models);
    const uint32_t instances = vkskin_crowd_instance_count(show->crowd);
    const bool compute = a->crowd.mode == VKSKIN_SKIN_COMPUTE;
    printf("bench: %s x %u, %s skinning%s, %ux%u, median of %u frames after %u warm-up frame(s) "
           "on %s\n",
           models, instances, compute ? "compute" : "vertex-shader",
           res->descriptors ? " (buffers through descriptors)" : "", a->width, a->height,
           res->samples, a->warmup, res->device);
    printf("  visible          %u of %u instances, %llu vertices, %llu joints\n", res->visible,
           instances, (unsigned long long)res->visible_vertices, (unsigned long long)res->joints);
    if (res->dropped)
        printf("  dropped          %u instances in view left out of the last frame: the palette "
               "store could not hold them\n",
               res->dropped);
    {
        char levels[256];
        app_format_levels(res->level_instances, levels, sizeof levels);
        printf("  levels of detail %s (%s); the GPU drew %lld triangles in %u draws\n", levels,
               a->crowd.lod >= 0 ? "forced by --lod" : "chosen per instance",
               res->triangles == UINT64_MAX ? -1LL : (long long)res->triangles, res->draws);
    }
    if (compute && res->overflow_instances)
        printf("  past the budget  %u instances (%llu vertices) skinned in the vertex shader: "
               "the skinned output holds %llu vertices\n",
               res->overflow_instances, (unsigned long long)res->overflow_vertices,
               (unsigned long long)res->budget_vertices);
    printf("  memory           %.1f MiB device-local, %.1f MiB host-visible",
           res->device_bytes / 1048576.0, res->host_bytes / 1048576.0);
    if (compute)
        printf("; skinned output room %llu vertices (at most %llu, grown %u times)",
               (unsigned long long)res->budget_vertices, (unsigned long long)res->most_vertices,
               res->output_growths);
    if (res->store_pages)
        printf("; palette store %llu entries in %u buffer(s) (at most %u, grown %u times)",
               (unsigned long long)res->store_entries, res->store_pages, res->store_most_pages,
               res->store_growths);
    printf("\n");
    printf("  cpu animation    %.3f ms on %u thread(s): %.1f M joints/s per core (%.1f ns per "
           "joint)\n",
           res->anim_ms, res->threads, t->jpspc / 1e6, t->jpspc > 0.0 ? 1e9 / t->jpspc : 0.0);
    if (compute)
        printf("  gpu skinning     %.3f ms: %.3g M vertices/s (%.0f per ms)\n", res->skin_ms,
               t->vps / 1e6, t->vpms);
    else
        printf("  gpu skinning     in the draw: %.3g M vertices/s of draw time (%.0f per ms)\n",
               t->vps / 1e6, t->vpms);
    printf("  gpu draw         %.3f ms\n", res->draw_ms);
    if (a->crowd.motion != APP_MOTION_NONE || res->moved)
        printf("  moving           %s: %u instances placed anew a frame, %llu bytes of instance "
               "table uploaded (the motion's velocities: %.3f ms a frame, outside the frame)\n",
               app_motion_name(a->crowd.motion), res->moved,
               (unsigned long long)res->instance_bytes, res->motion_ms);
    static const char *const rasters[] = {"auto", "hardware", "compute", "hybrid"};
    printf("  raster           %s: %llu triangles to the graphics pipeline, %llu rasterized in "
           "compute, %u far splats (%.3f ms, resolve %.3f ms in %u pass(es) for %u materials; "
           "-1: not run), %lld pixels resolved\n",
           rasters[res->raster], (unsigned long long)res->triangles_hardware,
           (unsigned long long)res->triangles_compute, res->raster_counts.splats, res->raster_ms,
           res->resolve_ms, res->raster_counts.resolve_passes, res->raster_counts.materials,
           res->pixels_resolved == UINT64_MAX ? -1LL : (long long)res->pixels_resolved);
    if (res->raster_note)
        printf("  raster note      %s\n", res->raster_note);
    printf("  gpu passes       %.3f ms together\n", res->gpu_ms);
    printf("  cpu recording    %.3f ms (and submitting); waiting for the GPU %.3f ms\n",
           res->record_ms, res->wait_ms);
    printf("  frame            %.3f ms (%.0f fps)\n", res->frame_ms,
           res->frame_ms > 0.0 ? 1e3 / res->frame_ms : 0.0);
    if (compute)
        printf("  traffic          %.0f bytes per vertex; %.2f MB logical, %.2f MB to memory per "
               "frame (bind streams once per model)\n",
               t->bytes_per_vertex, t->skin_bytes / 1e6, t->memory_bytes / 1e6);
    if (compute && t->memory_gbps > 0.0)
        printf("  bandwidth        skinning %.2f GB/s to memory (%.2f logical), copy kernel %.2f "
               "GB/s over %.1f MB: %.0f%% of the roofline (%.0f%% logical)\n",
               t->memory_gbps, t->skin_gbps, t->copy_gbps, res->copy_bytes / 1e6, 100.0 * t->ratio,
               100.0 * t->logical_ratio);
    else
        printf("  bandwidth        copy kernel %.2f GB/s over %.1f MB\n", t->copy_gbps,
               res->copy_bytes / 1e6);
}

static void report(const bench_args *a, const app_show *show, const bench_result *res)
{
    const bench_rates t = rates_of(a, res);
    if (a->json)
        report_json(a, show, res, &t);
    else
        report_table(a, show, res, &t);
}

/* The options into *a, checked; APP_OK, or what app_parse returned, or APP_USAGE (said). */
static int parse_args(int argc, char **argv, bench_args *a)
{
    const app_option options[] = {
        {"frames", &a->frames_text, NULL, "F", "frames to measure (default 100)"},
        {"warmup", &a->warmup_text, NULL, "N", "frames before measuring (default 3; 0 allowed)"},
        {"size", &a->size, NULL, "WxH", "image size in pixels (default 1280x720)"},
        {"progress", NULL, &a->progress, NULL,
         "say how far the frames are, also when stderr is not a terminal"},
        {"json", NULL, &a->json, NULL, "print one JSON object instead of the table"},
        {"group-size", &a->group_size_text, NULL, "N",
         "skinning workgroup size, a power of two (default 64)"},
        {"stage-palette", NULL, &a->stage_palette, NULL,
         "each skinning workgroup stages its instance's pose in shared memory"},
        {"threads", &a->threads_text, NULL, "N", "animation threads (default: one per core)"},
        {"clip", &a->clip, NULL, "NAME|INDEX", "every instance plays this clip (default: its own)"},
        {"max-buffer", &a->max_buffer_text, NULL, "BYTES",
         "split GPU buffers at BYTES (default: the device's limits)"},
        {"anim-only", NULL, &a->anim_only, NULL,
         "time the CPU animation alone (no GPU): ns per skin joint on 1 and on every thread"},
        {"phases", NULL, &a->phases, NULL,
         "with --anim-only: time sampling, local-to-model and palette apart"},
        APP_CROWD_OPTIONS(a->crowd),
        APP_GPU_OPTIONS(a->gpu),
    };
    const app_command cmd = {
        .name = "bench",
        .summary = "Renders a crowd headless for F frames (after --warmup frames) and prints\n"
                   "the medians per frame of CPU animation, GPU skinning and drawing (timestamp\n"
                   "queries), the frame, skinned vertices per second and per ms, the skinning\n"
                   "pass's traffic (bytes per vertex; logical and to memory) and its bandwidth\n"
                   "beside a copy kernel's over as many bytes. Validation is off unless\n"
                   "--validate is given. Every instance plays its own clip.",
        .positional = "[MODEL]",
        .options = options,
        .option_count = sizeof options / sizeof options[0],
    };
    int rc = app_parse(&cmd, argc, argv, &a->path);
    if (rc != APP_OK)
        return rc;
    vkskin_error err;
    if (!app_parse_size("--size", a->size, &a->width, &a->height, &err) ||
        !app_parse_count("--frames", a->frames_text, 1, 100000, &a->frames, &err) ||
        (a->warmup_text &&
         !app_parse_count("--warmup", a->warmup_text, 0, 100000, &a->warmup, &err)) ||
        (a->group_size_text && !app_parse_group_size(a->group_size_text, &a->group_size, &err)) ||
        (a->max_buffer_text && !app_parse_count("--max-buffer", a->max_buffer_text, 1024,
                                                UINT32_MAX, &a->max_buffer, &err)) ||
        (a->threads_text &&
         !app_parse_count("--threads", a->threads_text, 1, 256, &a->crowd.threads, &err)) ||
        !app_crowd_check(&a->crowd, &err) || !app_gpu_check(&a->gpu, &err) ||
        (a->phases && !a->anim_only && !app_fail(&err, "--phases goes with --anim-only"))) {
        fprintf(stderr, "vkskin bench: %s\n", err.message);
        return APP_USAGE;
    }
    return APP_OK;
}

/* --anim-only: the CPU animation timed alone, once the crowd is known to fit. */
static int anim_only(const bench_args *a, app_show *show)
{
    vkskin_error err;
    return anim_fits(show, &a->crowd, &err) &&
                   app_show_start(show, &a->crowd, a->clip, 0.0, NULL, &err)
               ? app_bench_anim(show, &(app_bench_anim_desc){.frames = a->frames,
                                                             .warmup = a->warmup,
                                                             .width = a->width,
                                                             .height = a->height,
                                                             .anim_lod = a->crowd.anim_lod,
                                                             .store = a->crowd.palettes ==
                                                                      VKSKIN_PALETTES_STORE,
                                                             .phases = a->phases,
                                                             .json = a->json,
                                                             .progress = a->progress})
               : (fprintf(stderr, "vkskin bench: %s\n", err.message), APP_FAILED);
}

int cmd_bench(int argc, char **argv)
{
    bench_args a = {.size = "1280x720", .frames_text = "100", .warmup = WARMUP_FRAMES};
    int rc = parse_args(argc, argv, &a);
    if (rc != APP_OK)
        return rc == APP_HELP ? APP_OK : rc;
    vkskin_error err;
    app_show show;
    if (!app_show_load(&show, "bench", a.path, &a.crowd, &err)) { /* before any thread */
        fprintf(stderr, "vkskin bench: %s\n", err.message);
        return APP_FAILED;
    }
    if (a.anim_only) {
        rc = anim_only(&a, &show);
        app_show_destroy(&show);
        return rc;
    }
    vkskin_renderer *r = NULL;
    bench_result res = {0};
    rc = run(&a, &show, &r, &res);
    if (rc == APP_OK) {
        report(&a, &show, &res);
        app_show_overflow_report("bench", r, &res.overflow);
    }
    if (r)
        rc = app_show_close("bench", r, rc);
    app_show_destroy(&show);
    return rc;
}
