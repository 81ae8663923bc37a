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
    bool json, anim_only, phases, progress, stage_palette;
    app_gpu_options gpu;
    app_crowd_args crowd;
    uint32_t width, height, frames, warmup, group_size;
} bench_args;

typedef struct bench_result {
    uint32_t samples, gpu_samples, visible, threads; /* frames measured on the CPU, the GPU */
    uint32_t skinned; /* visible instances the compute pass skinned (the rest: past the budget) */
    uint64_t overflow_vertices, budget_vertices;
    uint64_t
        triangles;  /* the GPU drew in the last frame (pipeline statistics; UINT64_MAX: unknown) */
    uint32_t draws; /* the crowd's draw calls in the last frame */
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
    bool descriptors; /* the shaders reached buffers through descriptors (the descriptor path) */
    uint32_t staged_vec4s; /* --stage-palette: the staged poses' room in vec4s (0: none) */
} bench_result;

/* One frame's GPU times into the samples: its passes, and their sum (a pass that did not run
 * counts 0 in the sum). Frames without times (no timestamps) are left out. */
static void add_gpu(const vkskin_gpu_stats *s, double *skin, double *draw, double *raster,
                    double *resolve, double *gpu, uint32_t *n)
{
    if (s->draw_ms < 0.0)
        return;
    skin[*n] = s->skin_ms;
    draw[*n] = s->draw_ms;
    raster[*n] = s->raster_ms;
    resolve[*n] = s->resolve_ms;
    gpu[*n] =
        fmax(s->skin_ms, 0.0) + s->draw_ms + fmax(s->raster_ms, 0.0) + fmax(s->resolve_ms, 0.0);
    (*n)++;
}

static int run(const bench_args *a, app_show *show, vkskin_renderer **out, bench_result *res)
{
    /* SIGINT and SIGTERM end the measuring after the frame in hand: what was measured is
     * reported (output.h). */
    app_signals_catch();
    vkskin_error err;
    vkskin_error e;
    vkskin_renderer_desc desc =
        app_show_renderer_desc(show, &a->crowd, &a->gpu, a->width, a->height);
    desc.group_size = a->group_size;
    desc.stage_palette = a->stage_palette;
    if (!app_show_start(show, &a->crowd, a->clip, 0.0, &desc, &err)) {
        fprintf(stderr, "vkskin bench: %s\n", err.message);
        return APP_FAILED;
    }
    desc.crowd = show->crowd;
    if (vkskin_renderer_create(&desc, out, &e) != VKSKIN_OK) {
        fprintf(stderr, "vkskin bench: %s\n", e.message);
        return APP_FAILED;
    }
    vkskin_renderer *r = *out;
    vkskin_crowd *crowd = show->crowd;
    /* The roofline first, over as many bytes as skinning every instance puts through memory: on
     * lavapipe, timestamps around a compute-only submission come out far too short after draws
     * have run on the device. The skinning pass's own figure uses the visible instances. */
    vkskin_traffic all;
    vkskin_copy_timing copy;
    vkskin_renderer_get_traffic(r, true, &all, NULL);
    if (vkskin_renderer_time_copy(r, (uint64_t)all.memory_bytes, &copy, &e) != VKSKIN_OK) {
        fprintf(stderr, "vkskin bench: %s\n", e.message);
        return APP_FAILED;
    }
    res->copy_bytes = copy.bytes;
    res->copy_ms = copy.bytes > 0.0 ? copy.ms : -1.0;
    vkskin_view view;
    vkskin_crowd_frame_view(crowd, (float)a->width / (float)a->height, &view, NULL);
    const uint32_t warmup = a->warmup, total = warmup + a->frames;
    double *anim = calloc(total, sizeof *anim), *frame = calloc(total, sizeof *frame);
    double *wait = calloc(total, sizeof *wait), *record = calloc(total, sizeof *record);
    double *skin = calloc(total, sizeof *skin), *draw = calloc(total, sizeof *draw);
    double *raster = calloc(total, sizeof *raster), *resolve = calloc(total, sizeof *resolve);
    double *gpu = calloc(total, sizeof *gpu);
    int rc = APP_FAILED;
    if (!anim || !frame || !wait || !record || !skin || !draw || !raster || !resolve || !gpu) {
        fprintf(stderr, "vkskin bench: out of memory\n");
        goto done;
    }
    uint32_t gpu_samples = 0, cpu_samples = 0;
    double last = 0.0;
    vkskin_frame_info info = {0};
    app_progress progress;
    app_progress_begin(&progress, "bench", a->progress);
    for (uint32_t i = 0; i < total && !app_signal(); i++) {
        if (i < warmup)
            app_progress_say(&progress, "warm-up frame %u of %u", i + 1, warmup);
        else
            app_progress_say(&progress, "frame %u of %u", i - warmup + 1, a->frames);
        /* The frame waits for frame i - 2 first: from there to the next frame's start is the
         * frame's period, GPU included. */
        const double start = vks_now_ms();
        vkskin_crowd_advance(crowd, 1.0 / 60.0, NULL);
        const double advanced = vks_now_ms();
        if (vkskin_renderer_frame(
                r, &(vkskin_frame_desc){.desc_size = sizeof(vkskin_frame_desc), .view = &view},
                &info, &e) != VKSKIN_OK) {
            fprintf(stderr, "vkskin bench: %s\n", e.message);
            goto done;
        }
        if (i > warmup)
            frame[cpu_samples - 1] = start - last;
        last = start;
        if (i >= warmup) {
            wait[cpu_samples] = info.wait_ms;
            record[cpu_samples] = info.record_ms;
            anim[cpu_samples++] = (advanced - start) + info.cpu_ms;
        }
        if (i >= warmup + 2) /* the frame two before's */
            add_gpu(&info.gpu, skin, draw, raster, resolve, gpu, &gpu_samples);
    }
    app_progress_end(&progress);
    if (app_signal()) {
        fprintf(stderr, "vkskin bench: stopped by %s after %u of %u measured frames%s\n",
                app_signal_name(app_signal()), cpu_samples, a->frames,
                cpu_samples ? ": their medians follow" : "");
        if (!cpu_samples)
            goto done;
    }
    /* The last two frames' times, which no later frame's info reports (the one before the last
     * is a warm-up frame when a single frame is measured). */
    vkskin_gpu_stats ends[2];
    vkskin_renderer_previous_stats(r, &ends[0], NULL);
    vkskin_renderer_last_stats(r, &ends[1], NULL);
    frame[cpu_samples - 1] = vks_now_ms() - last;
    for (int k = cpu_samples >= 2 ? 0 : 1; k < 2; k++)
        add_gpu(&ends[k], skin, draw, raster, resolve, gpu, &gpu_samples);
    vkskin_renderer_info ri;
    vkskin_crowd_info ci;
    vkskin_renderer_get_info(r, &ri, NULL);
    vkskin_crowd_get_info(crowd, &ci, NULL);
    memcpy(res->device, ri.device_name, sizeof res->device);
    res->descriptors = ri.binding == VKSKIN_BINDING_DESCRIPTORS;
    res->staged_vec4s = ri.staged_palette_vec4s;
    res->samples = cpu_samples;
    res->gpu_samples = gpu_samples; /* every frame's, or none on a device without timestamps */
    res->anim_ms = vks_median(anim, cpu_samples);
    res->frame_ms = vks_median(frame, cpu_samples);
    res->wait_ms = vks_median(wait, cpu_samples);
    res->record_ms = vks_median(record, cpu_samples);
    res->skin_ms = gpu_samples ? vks_median(skin, gpu_samples) : -1.0;
    res->draw_ms = gpu_samples ? vks_median(draw, gpu_samples) : -1.0;
    res->raster_ms = vks_median_known(raster, gpu_samples); /* over the frames that ran them */
    res->resolve_ms = vks_median_known(resolve, gpu_samples);
    res->gpu_ms = gpu_samples ? vks_median(gpu, gpu_samples) : -1.0;
    res->raster = ri.raster;
    res->raster_note = ri.raster_note;
    res->triangles_hardware = info.triangles_hardware;
    res->triangles_compute = info.triangles_compute;
    res->pixels_resolved = ends[1].pixels_resolved;
    res->threads = ci.threads;
    /* The visible set of the last frame (the camera does not move); in compute mode the part
     * the skinning pass skinned (the rest went past the output budget). */
    res->visible = info.visible;
    res->skinned = a->crowd.mode == VKSKIN_SKIN_COMPUTE ? info.skinned : info.visible;
    res->overflow_vertices = info.overflow_vertices;
    res->visible_vertices = info.vertices;
    res->vertices = a->crowd.mode == VKSKIN_SKIN_COMPUTE ? info.skinned_vertices : info.vertices;
    for (uint32_t m = 0; m < show->model_count; m++) {
        vkskin_model_info mi;
        vkskin_model_get_info(show->models[m], &mi, NULL);
        res->joints += (uint64_t)info.model_instances[m] * mi.joint_count;
    }
    res->triangles = ends[1].triangles;
    res->draws = info.draws;
    res->posed = info.posed;
    res->palette_bytes = info.palette_bytes;
    memcpy(res->level_instances, info.level_instances, sizeof res->level_instances);
    res->budget_vertices = ri.max_skinned_vertices;
    vkskin_traffic seen;
    vkskin_renderer_get_traffic(r, false, &seen, NULL);
    res->skin_bytes = seen.logical_bytes;
    res->stream_bytes = seen.stream_bytes;
    res->memory_bytes = seen.memory_bytes;
    rc = APP_OK;
done:
    free(anim);
    free(frame);
    free(wait);
    free(record);
    free(skin);
    free(draw);
    free(raster);
    free(resolve);
    free(gpu);
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

static void report(const bench_args *a, const app_show *show, const bench_result *res)
{
    char models[512];
    app_show_model_names(show, " + ", models, sizeof models);
    const uint32_t instances = vkskin_crowd_instance_count(show->crowd);
    const bool compute = a->crowd.mode == VKSKIN_SKIN_COMPUTE;
    /* Vertex mode skins inside the draw: its vertices per second are per draw time. */
    const double skin_ms = compute ? res->skin_ms : -1.0;
    const double per_ms = compute ? res->skin_ms : res->draw_ms;
    const double vps = per_ms > 0.0 ? res->vertices / (per_ms * 1e-3) : -1.0;
    const double vpms = per_ms > 0.0 ? res->vertices / per_ms : -1.0;
    const double jpspc =
        res->anim_ms > 0.0 ? res->joints / (res->anim_ms * 1e-3) / res->threads : -1.0;
    /* The skinning pass's traffic; unknown (null) in vertex mode, which has no such pass. */
    const double skin_bytes = compute ? res->skin_bytes : -1.0;
    const double memory_bytes = compute ? res->memory_bytes : -1.0;
    const double bytes_per_vertex =
        compute && res->vertices ? res->stream_bytes / (double)res->vertices : -1.0;
    const double skin_gbps = skin_ms > 0.0 ? skin_bytes / (skin_ms * 1e-3) / 1e9 : -1.0;
    const double memory_gbps = skin_ms > 0.0 ? memory_bytes / (skin_ms * 1e-3) / 1e9 : -1.0;
    const double copy_gbps =
        res->copy_ms > 0.0 ? res->copy_bytes / (res->copy_ms * 1e-3) / 1e9 : -1.0;
    const double ratio = memory_gbps > 0.0 && copy_gbps > 0.0 ? memory_gbps / copy_gbps : -1.0;
    const double logical_ratio = skin_gbps > 0.0 && copy_gbps > 0.0 ? skin_gbps / copy_gbps : -1.0;
    if (a->json) {
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
        app_json_number("width", a->width, false);
        app_json_number("height", a->height, false);
        app_json_number("warmup_frames", a->warmup, false);
        app_json_number("frames", res->samples, false);
        app_json_number("gpu_frames", res->gpu_samples, false);
        app_json_number("threads", res->threads, false);
        app_json_number("skinned_vertices", (double)res->vertices, false);
        app_json_number("skinned_output_vertices", compute ? (double)res->budget_vertices : -1.0,
                        false);
        app_json_number("overflow_instances", compute ? res->visible - res->skinned : 0, false);
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
        app_json_number("pixels_resolved",
                        res->pixels_resolved == UINT64_MAX ? -1.0 : (double)res->pixels_resolved,
                        false);
        printf("  \"level_instances\": [");
        for (uint32_t l = 0; l < VKSKIN_MAX_LEVELS; l++)
            printf("%s%u", l ? ", " : "", res->level_instances[l]);
        printf("],\n");
        app_json_number("posed_instances", res->posed, false);
        app_json_number("palette_upload_bytes", (double)res->palette_bytes, false);
        app_json_number("lod", a->crowd.lod, false);
        app_json_number("lod_error_px", a->crowd.lod_error, false);
        app_json_number("cpu_anim_ms", res->anim_ms, false);
        app_json_number("cpu_record_ms", res->record_ms, false);
        app_json_number("cpu_wait_ms", res->wait_ms, false);
        app_json_number("gpu_skin_ms", skin_ms, false);
        app_json_number("gpu_draw_ms", res->draw_ms, false);
        app_json_number("gpu_raster_ms", res->raster_ms, false);
        app_json_number("gpu_resolve_ms", res->resolve_ms, false);
        app_json_number("gpu_frame_ms", res->gpu_ms, false);
        app_json_number("frame_ms", res->frame_ms, false);
        app_json_number("skinned_vertices_per_s", vps, false);
        app_json_number("skinned_vertices_per_ms", vpms, false);
        app_json_number("joints_per_s_per_core", jpspc, false);
        app_json_number("bytes_per_vertex", bytes_per_vertex, false);
        app_json_number("skin_bytes", skin_bytes, false);
        app_json_number("memory_bytes", memory_bytes, false);
        app_json_number("skin_gb_per_s", skin_gbps, false);
        app_json_number("memory_gb_per_s", memory_gbps, false);
        app_json_number("copy_bytes", res->copy_bytes, false);
        app_json_number("copy_gb_per_s", copy_gbps, false);
        app_json_number("roofline_ratio", ratio, false);
        app_json_number("logical_roofline_ratio", logical_ratio, true);
        printf("}\n");
        return;
    }
    printf("bench: %s x %u, %s skinning%s, %ux%u, median of %u frames after %u warm-up frame(s) "
           "on %s\n",
           models, instances, compute ? "compute" : "vertex-shader",
           res->descriptors ? " (buffers through descriptors)" : "", a->width, a->height,
           res->samples, a->warmup, res->device);
    printf("  visible          %u of %u instances, %llu vertices, %llu joints\n", res->visible,
           instances, (unsigned long long)res->visible_vertices, (unsigned long long)res->joints);
    {
        char levels[256];
        app_format_levels(res->level_instances, levels, sizeof levels);
        printf("  levels of detail %s (%s); the GPU drew %lld triangles in %u draws\n", levels,
               a->crowd.lod >= 0 ? "forced by --lod" : "chosen per instance",
               res->triangles == UINT64_MAX ? -1LL : (long long)res->triangles, res->draws);
    }
    if (compute && res->skinned < res->visible)
        printf("  past the budget  %u instances (%llu vertices) skinned in the vertex shader: "
               "the skinned output holds %llu vertices\n",
               res->visible - res->skinned, (unsigned long long)res->overflow_vertices,
               (unsigned long long)res->budget_vertices);
    printf("  cpu animation    %.3f ms on %u thread(s): %.1f M joints/s per core (%.1f ns per "
           "joint)\n",
           res->anim_ms, res->threads, jpspc / 1e6, jpspc > 0.0 ? 1e9 / jpspc : 0.0);
    if (compute)
        printf("  gpu skinning     %.3f ms: %.3g M vertices/s (%.0f per ms)\n", res->skin_ms,
               vps / 1e6, vpms);
    else
        printf("  gpu skinning     in the draw: %.3g M vertices/s of draw time (%.0f per ms)\n",
               vps / 1e6, vpms);
    printf("  gpu draw         %.3f ms\n", res->draw_ms);
    static const char *const rasters[] = {"auto", "hardware", "compute", "hybrid"};
    printf("  raster           %s: %llu triangles to the graphics pipeline, %llu rasterized in "
           "compute (%.3f ms, resolve %.3f ms; -1: not run), %lld pixels resolved\n",
           rasters[res->raster], (unsigned long long)res->triangles_hardware,
           (unsigned long long)res->triangles_compute, res->raster_ms, res->resolve_ms,
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
               bytes_per_vertex, skin_bytes / 1e6, memory_bytes / 1e6);
    if (compute && memory_gbps > 0.0)
        printf("  bandwidth        skinning %.2f GB/s to memory (%.2f logical), copy kernel %.2f "
               "GB/s over %.1f MB: %.0f%% of the roofline (%.0f%% logical)\n",
               memory_gbps, skin_gbps, copy_gbps, res->copy_bytes / 1e6, 100.0 * ratio,
               100.0 * logical_ratio);
    else
        printf("  bandwidth        copy kernel %.2f GB/s over %.1f MB\n", copy_gbps,
               res->copy_bytes / 1e6);
}

int cmd_bench(int argc, char **argv)
{
    bench_args a = {.size = "1280x720", .frames_text = "100", .warmup = WARMUP_FRAMES};
    const app_option options[] = {
        {"frames", &a.frames_text, NULL, "F", "frames to measure (default 100)"},
        {"warmup", &a.warmup_text, NULL, "N", "frames before measuring (default 3; 0 allowed)"},
        {"size", &a.size, NULL, "WxH", "image size in pixels (default 1280x720)"},
        {"progress", NULL, &a.progress, NULL,
         "say how far the frames are, also when stderr is not a terminal"},
        {"json", NULL, &a.json, NULL, "print one JSON object instead of the table"},
        {"group-size", &a.group_size_text, NULL, "N",
         "skinning workgroup size, a power of two (default 64)"},
        {"stage-palette", NULL, &a.stage_palette, NULL,
         "each skinning workgroup stages its instance's pose in shared memory"},
        {"threads", &a.threads_text, NULL, "N", "animation threads (default: one per core)"},
        {"clip", &a.clip, NULL, "NAME|INDEX", "every instance plays this clip (default: its own)"},
        {"anim-only", NULL, &a.anim_only, NULL,
         "time the CPU animation alone (no GPU): ns per skin joint on 1 and on every thread"},
        {"phases", NULL, &a.phases, NULL,
         "with --anim-only: time sampling, local-to-model and palette apart"},
        APP_CROWD_OPTIONS(a.crowd),
        APP_GPU_OPTIONS(a.gpu),
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
    int rc = app_parse(&cmd, argc, argv, &a.path);
    if (rc != APP_OK)
        return rc == APP_HELP ? APP_OK : rc;
    vkskin_error err;
    if (!app_parse_size("--size", a.size, &a.width, &a.height, &err) ||
        !app_parse_count("--frames", a.frames_text, 1, 100000, &a.frames, &err) ||
        (a.warmup_text &&
         !app_parse_count("--warmup", a.warmup_text, 0, 100000, &a.warmup, &err)) ||
        (a.group_size_text && !app_parse_group_size(a.group_size_text, &a.group_size, &err)) ||
        (a.threads_text &&
         !app_parse_count("--threads", a.threads_text, 1, 256, &a.crowd.threads, &err)) ||
        !app_crowd_check(&a.crowd, &err) || !app_gpu_check(&a.gpu, &err) ||
        (a.phases && !a.anim_only && !app_fail(&err, "--phases goes with --anim-only"))) {
        fprintf(stderr, "vkskin bench: %s\n", err.message);
        return APP_USAGE;
    }
    app_show show;
    if (!app_show_load(&show, "bench", a.path, &a.crowd, &err)) { /* before any thread */
        fprintf(stderr, "vkskin bench: %s\n", err.message);
        return APP_FAILED;
    }
    if (a.anim_only) {
        rc = anim_fits(&show, &a.crowd, &err) &&
                     app_show_start(&show, &a.crowd, a.clip, 0.0, NULL, &err)
                 ? app_bench_anim(&show, &(app_bench_anim_desc){.frames = a.frames,
                                                                .warmup = a.warmup,
                                                                .width = a.width,
                                                                .height = a.height,
                                                                .anim_lod = a.crowd.anim_lod,
                                                                .store = a.crowd.palettes ==
                                                                         VKSKIN_PALETTES_STORE,
                                                                .phases = a.phases,
                                                                .json = a.json,
                                                                .progress = a.progress})
                 : (fprintf(stderr, "vkskin bench: %s\n", err.message), APP_FAILED);
        app_show_destroy(&show);
        return rc;
    }
    vkskin_renderer *r = NULL;
    bench_result res = {0};
    rc = run(&a, &show, &r, &res);
    if (rc == APP_OK)
        report(&a, &show, &res);
    if (r)
        rc = app_show_close("bench", r, rc);
    app_show_destroy(&show);
    return rc;
}
