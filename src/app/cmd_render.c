#include "commands.h"
#include "show.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* FILE.png, or FILE_0007.png for frame 7 of a sequence. */
static void frame_path(char *buf, size_t size, const char *out, uint32_t frame, uint32_t frames)
{
    if (frames == 1) {
        snprintf(buf, size, "%s", out);
        return;
    }
    const char *dot = strrchr(out, '.');
    const char *slash = strrchr(out, '/');
    if (!dot || (slash && dot < slash))
        dot = out + strlen(out);
    snprintf(buf, size, "%.*s_%04u%s", (int)(dot - out), out, frame, dot);
}

/* "3 of 10 frames were written, each whole: out_0000.png to out_0002.png" */
static void say_written(FILE *f, const char *out, uint32_t written, uint32_t frames)
{
    char first[4096], last[4096];
    frame_path(first, sizeof first, out, 0, frames);
    frame_path(last, sizeof last, out, written ? written - 1 : 0, frames);
    if (!written)
        fprintf(f, "no frame was written\n");
    else if (written == 1)
        fprintf(f, "%u of %u frames was written, whole: %s\n", written, frames, first);
    else
        fprintf(f, "%u of %u frames were written, each whole: %s to %s\n", written, frames, first,
                last);
}

typedef struct render_args {
    const char *path, *clip, *time, *size, *out, *frames_text, *fps_text, *group_size_text;
    const char *zoom_text, *max_buffer_text;
    bool bind_pose, progress, ground, stage_palette;
    app_gpu_options gpu;
    app_crowd_args crowd;
    uint32_t width, height, frames, fps, group_size;
    double seconds, zoom;
    VkDeviceSize max_buffer;
} render_args;

static bool parse(render_args *a, vkskin_error *err)
{
    a->frames = 1;
    a->fps = 30;
    a->zoom = 1.0;
    uint32_t max_buffer = 0;
    if (!app_parse_size("--size", a->size, &a->width, &a->height, err) ||
        (a->frames_text &&
         !app_parse_count("--frames", a->frames_text, 1, 100000, &a->frames, err)) ||
        (a->fps_text && !app_parse_count("--fps", a->fps_text, 1, 1000, &a->fps, err)) ||
        (a->group_size_text && !app_parse_group_size(a->group_size_text, &a->group_size, err)) ||
        (a->max_buffer_text && !app_parse_count("--max-buffer", a->max_buffer_text, 1024,
                                                UINT32_MAX, &max_buffer, err)) ||
        !app_parse_time(a->time, &a->seconds, err) ||
        !app_bind_pose_option(&a->clip, a->bind_pose, err) ||
        (a->zoom_text &&
         !app_parse_real("--zoom", a->zoom_text, "a number", 0.01, 100.0, &a->zoom, err)) ||
        !app_crowd_check(&a->crowd, err) || !app_gpu_check(&a->gpu, err))
        return false;
    a->max_buffer = max_buffer;
    return true;
}

/* The GPU's times of the frames, as each is read back: room for every frame. */
typedef struct gpu_times {
    double *skin, *draw, *raster, *resolve; /* raster, resolve: -1 in frames without them */
    uint32_t count, room;
} gpu_times;

static void gpu_times_add(gpu_times *t, const vkskin_gpu_stats *s)
{
    if (s->draw_ms >= 0.0 && t->count < t->room) {
        t->skin[t->count] = s->skin_ms;
        t->raster[t->count] = s->raster_ms;
        t->resolve[t->count] = s->resolve_ms;
        t->draw[t->count++] = s->draw_ms;
    }
}

/* The medians of the GPU's times (none on a device without timestamps). */
static void report_gpu(FILE *say, const render_args *a, vkskin_renderer *r,
                       const vkskin_frame_info *info, const gpu_times *t)
{
    if (!t->count)
        return;
    vkskin_renderer_info ri;
    vkskin_renderer_get_info(r, &ri, NULL);
    char of[32];
    snprintf(of, sizeof of, "median of %u frame%s", t->count, t->count == 1 ? "" : "s");
    const char *binding =
        ri.binding == VKSKIN_BINDING_DESCRIPTORS ? ", buffers through descriptors" : "";
    if (a->crowd.mode == VKSKIN_SKIN_COMPUTE)
        fprintf(say,
                "gpu: skinning %.3f ms, drawing %.3f ms (%llu vertices, workgroups of %u%s%s), "
                "%s\n",
                vks_median(t->skin, t->count), vks_median(t->draw, t->count),
                (unsigned long long)info->vertices, ri.group_size,
                ri.staged_palette_vec4s ? ", poses staged" : "", binding, of);
    else
        fprintf(say, "gpu: drawing %.3f ms, skinning in the vertex shader (%llu vertices%s), %s\n",
                vks_median(t->draw, t->count), (unsigned long long)info->vertices, binding, of);
    if (ri.raster != VKSKIN_RASTER_HARDWARE)
        fprintf(say, "gpu: compute rasterizer %.3f ms, resolve %.3f ms (-1: not run), %s\n",
                vks_median_known(t->raster, t->count), vks_median_known(t->resolve, t->count), of);
}

/* What the last frame showed (`last`: what the GPU measured of it): culling, posing and levels of
 * detail, and the overflow. */
static void report(FILE *say, const render_args *a, vkskin_renderer *r,
                   const vkskin_frame_info *info, const vkskin_gpu_stats *last,
                   const app_overflow *overflow, uint32_t instances)
{
    if (last->triangles != UINT64_MAX)
        fprintf(say,
                "culling: %u of %u instances visible; the GPU drew %llu triangles in %u draws and "
                "ran %llu skinning invocations\n",
                info->visible, instances, (unsigned long long)last->triangles, info->draws,
                (unsigned long long)last->skin_invocations);
    else
        fprintf(say, "culling: %u of %u instances visible, drawn in %u draws\n", info->visible,
                instances, info->draws);
    fprintf(say, "animation: %u of %u visible instances posed in the last frame (--anim-lod %s)\n",
            info->posed, info->visible, a->crowd.anim_lod ? "on" : "off");
    char levels[256];
    app_format_levels(info->level_instances, levels, sizeof levels);
    if (a->crowd.lod >= 0)
        fprintf(say, "levels of detail: %s (--lod %d)\n", levels, a->crowd.lod);
    else
        fprintf(say, "levels of detail: %s (chosen for at most %g px of error)\n", levels,
                a->crowd.lod_error);
    vkskin_renderer_info ri;
    vkskin_renderer_get_info(r, &ri, NULL);
    vkskin_raster_counts raster_counts;
    vkskin_renderer_get_raster_counts(r, &raster_counts, NULL);
    static const char *const names[] = {"auto", "hardware", "compute", "hybrid"};
    if (ri.raster_note)
        fprintf(say, "raster: hardware (%s)\n", ri.raster_note);
    else
        fprintf(
            say,
            "raster: %s: %llu triangles to the graphics pipeline, %llu rasterized in compute, "
            "%u far splats, %llu pixels resolved\n",
            names[ri.raster], (unsigned long long)info->triangles_hardware,
            (unsigned long long)info->triangles_compute, raster_counts.splats,
            (unsigned long long)(last->pixels_resolved == UINT64_MAX ? 0 : last->pixels_resolved));
    app_show_overflow_report("render", r, overflow);
}

/* Draws the frames, writing each image and saying so; the GPU's times into `times`. */
static int draw_frames(const render_args *a, app_show *show, vkskin_renderer *r, FILE *say,
                       uint8_t *pixels, gpu_times *times)
{
    vkskin_error e;
    const uint32_t width = a->width, height = a->height, frames = a->frames;
    vkskin_crowd *crowd = show->crowd;
    app_progress progress;
    app_progress_begin(&progress, "render", a->progress);
    const uint32_t instances = vkskin_crowd_instance_count(crowd);
    vkskin_view view;
    const vkskin_orbit orbit = {.aspect = (float)width / (float)height, .zoom = (float)a->zoom};
    app_show_view(show, &orbit, &view);
    app_overflow overflow = {0};
    vkskin_frame_info info = {0};
    uint32_t written = 0;
    for (uint32_t i = 0; i < frames && !app_signal(); i++) {
        app_progress_say(&progress, "frame %u of %u", i + 1, frames);
        if (i > 0 && !app_show_advance(show, 1.0 / a->fps, &e)) {
            app_progress_end(&progress);
            fprintf(stderr, "vkskin render: %s\n", e.message);
            return APP_FAILED;
        }
        char file[4096];
        frame_path(file, sizeof file, a->out, i, frames);
        const char *shown = strcmp(file, "-") == 0 ? "standard output" : file;
        /* One image at a time: each is written before the next frame is drawn. */
        if (vkskin_renderer_frame(r,
                                  &(vkskin_frame_desc){.desc_size = sizeof(vkskin_frame_desc),
                                                       .view = &view,
                                                       .ground = a->ground},
                                  &info, &e) != VKSKIN_OK ||
            vkskin_renderer_read_image(r, pixels, &e) != VKSKIN_OK ||
            !app_write_image(file, width, height, pixels, &e)) {
            app_progress_end(&progress);
            fprintf(stderr, "vkskin render: %s\n", e.message);
            if (written) { /* what is there is whole; say which */
                fprintf(stderr, "vkskin render: ");
                say_written(stderr, a->out, written, frames);
            }
            return APP_FAILED;
        }
        written++;
        gpu_times_add(times, &info.gpu); /* the frame two before's */
        app_show_overflow_add(&overflow, &info);
        app_progress_end(&progress);
        if (instances == 1) { /* the character's clip and time */
            vkskin_instance_info first;
            vkskin_crowd_get_instance(crowd, 0, &first, NULL);
            vkskin_clip_info clip = {.name = "bind pose"};
            if (first.clip >= 0)
                vkskin_model_get_clip(show->models[first.model], (uint32_t)first.clip, &clip, NULL);
            fprintf(say, "wrote %s (%ux%u, %s at %.3f s)\n", shown, width, height, clip.name,
                    first.time);
        } else
            fprintf(say, "wrote %s (%ux%u, %u instances, %u visible)\n", shown, width, height,
                    instances, info.visible);
    }
    if (app_signal()) {
        app_progress_end(&progress);
        fprintf(say, "render: stopped by %s: ", app_signal_name(app_signal()));
        say_written(say, a->out, written, frames);
        if (!written)
            return APP_OK; /* nothing drawn: nothing to report */
    }
    /* The last two frames' times, which no later frame's info reports. */
    vkskin_gpu_stats previous, last;
    vkskin_renderer_previous_stats(r, &previous, NULL);
    vkskin_renderer_last_stats(r, &last, NULL);
    gpu_times_add(times, &previous);
    gpu_times_add(times, &last);
    report_gpu(say, a, r, &info, times);
    report(say, a, r, &info, &last, &overflow, instances);
    return APP_OK;
}

static int render(const render_args *a, app_show *show, vkskin_renderer **out)
{
    /* SIGINT and SIGTERM stop the run at the next frame, after the image in hand is written
     * (output.h); from here, so that no signal finds the run unprepared. */
    app_signals_catch();
    vkskin_error err;
    vkskin_renderer_desc desc =
        app_show_renderer_desc(show, &a->crowd, &a->gpu, a->width, a->height);
    desc.group_size = a->group_size;
    desc.stage_palette = a->stage_palette;
    desc.max_buffer_bytes = a->max_buffer;
    if (!app_show_start(show, &a->crowd, a->clip, a->seconds, &desc, &err)) {
        fprintf(stderr, "vkskin render: %s\n", err.message);
        return APP_FAILED;
    }
    desc.crowd = show->crowd;
    uint8_t *pixels = malloc((size_t)a->width * a->height * 4);
    double *times = malloc(sizeof *times * 4 * a->frames);
    int rc = APP_FAILED;
    if (!pixels || !times)
        fprintf(stderr, "vkskin render: out of memory for a %ux%u image and %u frames' times\n",
                a->width, a->height, a->frames);
    else if (vkskin_renderer_create(&desc, out, &err) != VKSKIN_OK)
        fprintf(stderr, "vkskin render: %s\n", err.message);
    else /* with the image on standard output, what is said goes to stderr */
        rc = draw_frames(a, show, *out, strcmp(a->out, "-") == 0 ? stderr : stdout, pixels,
                         &(gpu_times){.skin = times,
                                      .draw = times + a->frames,
                                      .raster = times + 2 * (size_t)a->frames,
                                      .resolve = times + 3 * (size_t)a->frames,
                                      .room = a->frames});
    free(pixels);
    free(times);
    return rc;
}

int cmd_render(int argc, char **argv)
{
    render_args a = {.time = "0", .size = "1280x720"};
    const app_option options[] = {
        {"clip", &a.clip, NULL, "NAME|INDEX", "clip to play (default: the first; none: bind pose)"},
        {"bind-pose", NULL, &a.bind_pose, NULL, "draw every instance in the bind pose"},
        {"time", &a.time, NULL, "SECONDS", "time in the clip, looping: 0 to 1000000 (default 0)"},
        {"size", &a.size, NULL, "WxH", "image size in pixels (default 1280x720)"},
        {"out", &a.out, NULL, "FILE",
         "where to write the image: .png, .jpg or .jpeg, or - for a PNG on standard output "
         "(required)"},
        {"ground", NULL, &a.ground, NULL,
         "draw a ground under the crowd: a plane, a grid and contact shadows"},
        {"progress", NULL, &a.progress, NULL,
         "say how far a long render is, also when stderr is not a terminal"},
        {"frames", &a.frames_text, NULL, "N", "render N frames as FILE_0000.png ... (default 1)"},
        {"fps", &a.fps_text, NULL, "N", "frames per second of a sequence (default 30)"},
        {"group-size", &a.group_size_text, NULL, "N",
         "skinning workgroup size, a power of two (default 64)"},
        {"stage-palette", NULL, &a.stage_palette, NULL,
         "each skinning workgroup stages its instance's pose in shared memory"},
        {"zoom", &a.zoom_text, NULL, "F", "camera distance; 1 frames every instance (default 1)"},
        {"max-buffer", &a.max_buffer_text, NULL, "BYTES",
         "split GPU buffers at BYTES (default: the device's limits)"},
        APP_CROWD_OPTIONS(a.crowd),
        APP_GPU_OPTIONS(a.gpu),
    };
    const app_command cmd = {
        .name = "render",
        .summary = "Renders the character, or a crowd of them, headless (no window or display\n"
                   "needed) at a clip and time and writes a PNG: compute skinning, then the draw\n"
                   "pass. With --instances N each character plays its own clip from its own time\n"
                   "(unless --clip is given); --clip and --time set the first one's.",
        .positional = "[MODEL]",
        .options = options,
        .option_count = sizeof options / sizeof options[0],
    };
    int rc = app_parse(&cmd, argc, argv, &a.path);
    if (rc != APP_OK)
        return rc == APP_HELP ? APP_OK : rc;
    if (!a.out) {
        fprintf(stderr, "vkskin render: --out FILE is required (.png, .jpg or .jpeg, or -)\n");
        return APP_USAGE;
    }
    vkskin_error err;
    if (!parse(&a, &err)) {
        fprintf(stderr, "vkskin render: %s\n", err.message);
        return APP_USAGE;
    }
    if ((rc = app_check_out(a.out, a.frames, &err)) != APP_OK) { /* before any work */
        fprintf(stderr, "vkskin render: %s\n", err.message);
        return rc;
    }
    app_show show;
    if (!app_show_load(&show, "render", a.path, &a.crowd, &err)) { /* before any thread */
        fprintf(stderr, "vkskin render: %s\n", err.message);
        return APP_FAILED;
    }
    vkskin_renderer *r = NULL;
    rc = render(&a, &show, &r);
    if (r)
        rc = app_show_close("render", r, rc);
    app_show_destroy(&show);
    return rc;
}
