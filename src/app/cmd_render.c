#include "commands.h"
#include "gpu_app.h"
#include "offscreen.h"

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

typedef struct render_args {
    const char *path, *clip, *time, *size, *out, *frames_text, *fps_text, *group_size_text;
    const char *zoom_text, *max_buffer_text;
    bool bind_pose;
    app_gpu_options gpu;
    app_crowd_args crowd;
    uint32_t width, height, frames, fps, group_size;
    double seconds, zoom;
    VkDeviceSize max_buffer;
} render_args;

static bool parse(render_args *a, vks_error *err)
{
    a->frames = 1;
    a->fps = 30;
    a->zoom = 1.0;
    uint32_t max_buffer = 0;
    if (!app_parse_size(a->size, &a->width, &a->height, err) ||
        (a->frames_text &&
         !app_parse_count("--frames", a->frames_text, 1, 100000, &a->frames, err)) ||
        (a->fps_text && !app_parse_count("--fps", a->fps_text, 1, 1000, &a->fps, err)) ||
        (a->group_size_text &&
         !app_parse_count("--group-size", a->group_size_text, 1, 1024, &a->group_size, err)) ||
        (a->max_buffer_text && !app_parse_count("--max-buffer", a->max_buffer_text, 1024,
                                                UINT32_MAX, &max_buffer, err)) ||
        !app_parse_seconds(a->time, &a->seconds, err) ||
        !app_bind_pose_option(&a->clip, a->bind_pose, err) ||
        (a->zoom_text && !app_parse_zoom(a->zoom_text, &a->zoom, err)) ||
        !app_crowd_check(&a->crowd, err) || !app_gpu_check(&a->gpu, err))
        return false;
    a->max_buffer = max_buffer;
    return true;
}

static int render(const render_args *a, app_scene *scene, gpu_device *dev)
{
    vks_error err;
    const uint32_t width = a->width, height = a->height, frames = a->frames, fps = a->fps;
    if (!app_scene_start(scene, &a->crowd, a->clip, a->seconds, &err) ||
        !app_gpu_open(&a->gpu, NULL, dev, &err)) {
        fprintf(stderr, "vkskin render: %s\n", err.msg);
        return APP_FAILED;
    }
    const vks_crowd *crowd = &scene->crowd;
    vks_renderer r;
    app_offscreen target;
    vks_renderer_desc desc = app_crowd_renderer_desc(&a->crowd, crowd, APP_OFFSCREEN_FORMAT);
    desc.group_size = a->group_size;
    desc.buffer_limit = a->max_buffer;
    if (!vks_renderer_create(dev, &desc, &r, &err)) {
        fprintf(stderr, "vkskin render: %s\n", err.msg);
        return APP_FAILED;
    }
    int rc = APP_FAILED;
    if (!app_offscreen_create(dev, width, height, r.draw.depth_format, &target, &err)) {
        fprintf(stderr, "vkskin render: %s\n", err.msg);
        vks_renderer_destroy(&r);
        return APP_FAILED;
    }
    app_camera cam;
    app_camera_frame(&cam, crowd);
    cam.zoom = (float)a->zoom;
    vks_draw_target t = app_offscreen_target(&target);
    enum { MAX_SAMPLES = 1024 };
    double skin_ms[MAX_SAMPLES], draw_ms[MAX_SAMPLES];
    uint32_t samples = 0;
    app_overflow overflow = {0};
    for (uint32_t i = 0; i < frames; i++) {
        vks_frame *f = vks_renderer_begin_frame(&r);
        if (f->stats.draw_ms >= 0.0 && samples < MAX_SAMPLES) {
            skin_ms[samples] = f->stats.skin_ms;
            draw_ms[samples++] = f->stats.draw_ms;
        }
        if (i > 0)
            vks_crowd_advance(&scene->crowd, 1.0 / fps);
        app_scene_animate(scene, f, &cam, width, height);
        vks_renderer_skin(&r, f);
        app_overflow_add(&overflow, f);
        vks_renderer_draw(&r, f, &t);
        app_offscreen_copy(f->cmd, &target);
        char file[4096];
        frame_path(file, sizeof file, a->out, i, frames);
        /* One image at a time: the readback buffer is reused by the next frame. */
        if (!vks_renderer_submit(&r, f, VK_NULL_HANDLE, VK_NULL_HANDLE, &err) ||
            !vks_renderer_wait(&r, f, &err) || !app_offscreen_write_png(dev, &target, file, &err)) {
            fprintf(stderr, "vkskin render: %s\n", err.msg);
            goto done;
        }
        const vks_crowd_instance *first = &crowd->instances[0];
        if (crowd->instance_count == 1)
            printf("wrote %s (%ux%u, %s at %.3f s)\n", file, width, height,
                   first->clip < 0 ? "bind pose" : crowd->models[0]->clips[first->clip].name,
                   first->time);
        else
            printf("wrote %s (%ux%u, %u instances, %u visible)\n", file, width, height,
                   crowd->instance_count, scene->visible_count);
    }
    const uint32_t visible = scene->visible_count; /* of the last frame */
    const uint64_t skinned_vertices =
        app_frame_vertices(crowd, vks_renderer_latest(&r), 0, visible);
    char levels[256];
    app_format_levels(vks_renderer_latest(&r)->level_instances, levels, sizeof levels);
    vks_gpu_stats last = vks_renderer_last_stats(&r);
    if (last.draw_ms >= 0.0 && samples < MAX_SAMPLES) {
        skin_ms[samples] = last.skin_ms;
        draw_ms[samples++] = last.draw_ms;
    }
    if (samples && a->crowd.mode == VKS_SKIN_COMPUTE)
        printf("gpu: skinning %.3f ms, drawing %.3f ms (median of %u frames; %llu vertices, "
               "workgroups of %u)\n",
               app_median(skin_ms, samples), app_median(draw_ms, samples), samples,
               (unsigned long long)skinned_vertices, r.skin.group_size);
    else if (samples)
        printf("gpu: drawing %.3f ms, skinning in the vertex shader (median of %u frames; %llu "
               "vertices)\n",
               app_median(draw_ms, samples), samples, (unsigned long long)skinned_vertices);
    if (last.primitives != UINT64_MAX)
        printf("culling: %u of %u instances visible; the GPU drew %llu triangles and ran %llu "
               "skinning invocations\n",
               visible, crowd->instance_count, (unsigned long long)last.primitives,
               (unsigned long long)last.skin_invocations);
    printf("animation: %u of %u visible instances posed in the last frame (--anim-lod %s)\n",
           scene->posed, visible, a->crowd.anim_lod ? "on" : "off");
    if (a->crowd.lod >= 0)
        printf("levels of detail: %s (--lod %d)\n", levels, a->crowd.lod);
    else
        printf("levels of detail: %s (chosen for at most %g px of error)\n", levels,
               a->crowd.lod_error);
    app_overflow_report("render", &r, &overflow);
    rc = APP_OK;
done:
    app_offscreen_destroy(dev, &target);
    vks_renderer_destroy(&r);
    return rc;
}

int cmd_render(int argc, char **argv)
{
    render_args a = {.time = "0", .size = "960x720"};
    const app_option options[] = {
        {"clip", &a.clip, NULL, "NAME|INDEX", "clip to play (default: the first; none: bind pose)"},
        {"bind-pose", NULL, &a.bind_pose, NULL, "draw every instance in the bind pose"},
        {"time", &a.time, NULL, "SECONDS", "time in the clip, looping (default 0)"},
        {"size", &a.size, NULL, "WxH", "image size in pixels (default 960x720)"},
        {"out", &a.out, NULL, "FILE.png", "where to write the image (required)"},
        {"frames", &a.frames_text, NULL, "N", "render N frames as FILE_0000.png ... (default 1)"},
        {"fps", &a.fps_text, NULL, "N", "frames per second of a sequence (default 30)"},
        {"group-size", &a.group_size_text, NULL, "N",
         "skinning workgroup size, a power of two (default 64)"},
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
        fprintf(stderr, "vkskin render: --out FILE.png is required\n");
        return APP_USAGE;
    }
    vks_error err;
    if (!parse(&a, &err)) {
        fprintf(stderr, "vkskin render: %s\n", err.msg);
        return APP_USAGE;
    }
    app_scene scene;
    if (!app_scene_load(&scene, "render", a.path, &a.crowd,
                        &err)) { /* before any thread: see import.h */
        fprintf(stderr, "vkskin render: %s\n", err.msg);
        return APP_FAILED;
    }
    gpu_device dev = {0};
    rc = render(&a, &scene, &dev);
    app_scene_destroy(&scene); /* the crowd's threads, before the device's */
    if (dev.device)
        rc = app_gpu_close("render", &dev, rc);
    return rc;
}
