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

static int compare_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *v, uint32_t n)
{
    qsort(v, n, sizeof *v, compare_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

typedef struct render_args {
    const char *path, *clip, *time, *size, *out, *frames_text, *fps_text, *group_size_text;
    app_gpu_options gpu;
    uint32_t width, height, frames, fps, group_size;
    double seconds;
} render_args;

static bool parse(render_args *a, vks_error *err)
{
    a->frames = 1;
    a->fps = 30;
    return app_parse_size(a->size, &a->width, &a->height, err) &&
           (!a->frames_text ||
            app_parse_count("--frames", a->frames_text, 1, 100000, &a->frames, err)) &&
           (!a->fps_text || app_parse_count("--fps", a->fps_text, 1, 1000, &a->fps, err)) &&
           (!a->group_size_text ||
            app_parse_count("--group-size", a->group_size_text, 1, 1024, &a->group_size, err)) &&
           app_parse_seconds(a->time, &a->seconds, err) && app_gpu_check(&a->gpu, err);
}

static int render(const render_args *a, vks_model *model, gpu_device *dev)
{
    vks_error err;
    const uint32_t width = a->width, height = a->height, frames = a->frames, fps = a->fps;
    int32_t clip;
    if (!app_find_clip(model, a->clip, &clip, &err)) {
        fprintf(stderr, "vkskin render: %s\n", err.msg);
        return APP_FAILED;
    }
    if (!app_gpu_open(&a->gpu, NULL, dev, &err)) {
        fprintf(stderr, "vkskin render: %s\n", err.msg);
        return APP_FAILED;
    }
    vks_renderer r;
    app_offscreen target;
    app_camera cam;
    app_player player = {0};
    if (!vks_renderer_create(dev,
                             &(vks_renderer_desc){.model = model,
                                                  .color_format = APP_OFFSCREEN_FORMAT,
                                                  .group_size = a->group_size},
                             &r, &err)) {
        fprintf(stderr, "vkskin render: %s\n", err.msg);
        return APP_FAILED;
    }
    int rc = APP_FAILED;
    if (!app_offscreen_create(dev, width, height, r.draw.depth_format, &target, &err)) {
        fprintf(stderr, "vkskin render: %s\n", err.msg);
        vks_renderer_destroy(&r);
        return APP_FAILED;
    }
    float world[4][4];
    vks_renderer_world(&r, world);
    if (!app_camera_frame(&cam, model, (const float(*)[4])world) ||
        !app_player_create(&player, model, clip, a->seconds)) {
        fprintf(stderr, "vkskin render: out of memory\n");
        goto done;
    }
    vks_draw_target t = app_offscreen_target(&target);
    enum { MAX_SAMPLES = 1024 };
    double skin_ms[MAX_SAMPLES], draw_ms[MAX_SAMPLES];
    uint32_t samples = 0;
    for (uint32_t i = 0; i < frames; i++) {
        vks_frame *f = vks_renderer_begin_frame(&r);
        if (f->times.skin_ms >= 0.0 && samples < MAX_SAMPLES) {
            skin_ms[samples] = f->times.skin_ms;
            draw_ms[samples++] = f->times.draw_ms;
        }
        if (i > 0)
            app_player_advance(&player, 1.0 / fps);
        app_player_palette(&player, f->palette);
        app_camera_uniforms(&cam, (float)width / (float)height, f->uniforms);
        vks_renderer_skin(&r, f);
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
        printf("wrote %s (%ux%u, %s at %.3f s)\n", file, width, height,
               clip < 0 ? "bind pose" : model->clips[clip].name, player.time);
    }
    vks_gpu_times last = vks_renderer_last_times(&r);
    if (last.skin_ms >= 0.0 && samples < MAX_SAMPLES) {
        skin_ms[samples] = last.skin_ms;
        draw_ms[samples++] = last.draw_ms;
    }
    if (samples)
        printf("gpu: skinning %.3f ms, drawing %.3f ms (median of %u frames; %u vertices, "
               "workgroups of %u)\n",
               median(skin_ms, samples), median(draw_ms, samples), samples, model->vertex_count,
               r.skin.group_size);
    rc = APP_OK;
done:
    app_player_destroy(&player);
    app_offscreen_destroy(dev, &target);
    vks_renderer_destroy(&r);
    return rc;
}

int cmd_render(int argc, char **argv)
{
    render_args a = {.time = "0", .size = "960x720"};
    const app_option options[] = {
        {"clip", &a.clip, NULL, "NAME|INDEX", "clip to play (default: the first; none: bind pose)"},
        {"time", &a.time, NULL, "SECONDS", "time in the clip, looping (default 0)"},
        {"size", &a.size, NULL, "WxH", "image size in pixels (default 960x720)"},
        {"out", &a.out, NULL, "FILE.png", "where to write the image (required)"},
        {"frames", &a.frames_text, NULL, "N", "render N frames as FILE_0000.png ... (default 1)"},
        {"fps", &a.fps_text, NULL, "N", "frames per second of a sequence (default 30)"},
        {"group-size", &a.group_size_text, NULL, "N",
         "skinning workgroup size, a power of two (default 64)"},
        APP_GPU_OPTIONS(a.gpu),
    };
    const app_command cmd = {
        .name = "render",
        .summary = "Renders the character headless (no window or display needed) at a clip and\n"
                   "time and writes a PNG: compute skinning, then the draw pass.",
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
    vks_model model;
    if (!app_load_model(a.path, &model, &err)) { /* before any GPU thread starts: see import.h */
        fprintf(stderr, "vkskin render: %s\n", err.msg);
        return APP_FAILED;
    }
    gpu_device dev = {0};
    rc = render(&a, &model, &dev);
    if (dev.device)
        rc = app_gpu_close("render", &dev, rc);
    vks_model_destroy(&model);
    return rc;
}
