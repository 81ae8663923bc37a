#include "commands.h"
#include "gpu_app.h"
#include "window.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FADE_SECONDS 0.3

typedef struct view_args {
    const char *path, *clip, *size, *frames_text, *resize_text;
    bool no_vsync, bind_pose;
    app_gpu_options gpu;
    app_crowd_args crowd;
    uint32_t width, height, frames; /* frames 0: until closed */
    uint32_t resize_w, resize_h;    /* 0: no resize */
} view_args;

/* What the title shows: frames per second over the last quarter second, and exponential moving
 * averages of each stage's milliseconds. */
typedef struct view_stats {
    double fps, anim_ms, skin_ms, draw_ms;
    uint64_t triangles; /* the GPU drew in the last measured frame (UINT64_MAX: unknown) */
    char levels[160];   /* instances per level of detail, last frame */
} view_stats;

static void smooth(double *avg, double value)
{
    if (value >= 0.0)
        *avg = *avg > 0.0 ? *avg * 0.9 + value * 0.1 : value;
}

static void update_title(app_window *win, const vks_crowd *c, uint32_t visible, double speed,
                         bool paused, const view_stats *s)
{
    const vks_model *m = c->models[0];
    int32_t clip = c->instances[0].clip;
    char who[160];
    if (c->instance_count == 1)
        snprintf(who, sizeof who, "%s - %s (%d/%u)", m->name,
                 clip < 0 ? "bind pose" : m->clips[clip].name, clip + 1, m->clip_count);
    else
        snprintf(who, sizeof who, "%u instances, %u visible", c->instance_count, visible);
    char title[512];
    snprintf(title, sizeof title,
             "vkskin - %s x%.2g%s - %.0f fps - anim %.3f ms, skin %.3f ms, draw %.3f ms - %lld "
             "triangles - %s",
             who, speed, paused ? " paused" : "", s->fps, s->anim_ms, s->skin_ms, s->draw_ms,
             s->triangles == UINT64_MAX ? -1LL : (long long)s->triangles, s->levels);
    app_window_set_title(win, title);
}

/* Applies the keys and the mouse to the playback and the camera. */
static void steer(const app_input *in, app_scene *scene, app_camera *cam, const app_camera *home,
                  double *speed, bool *bind_pose)
{
    if (in->bind_pose) {
        *bind_pose = !*bind_pose;
        vks_crowd_bind_pose(&scene->crowd, *bind_pose, FADE_SECONDS);
    }
    if (in->next_clip)
        vks_crowd_switch_clip(&scene->crowd, 1, FADE_SECONDS);
    if (in->prev_clip)
        vks_crowd_switch_clip(&scene->crowd, -1, FADE_SECONDS);
    if (in->faster)
        *speed = fmin(*speed * 1.25, 8.0);
    if (in->slower)
        *speed = fmax(*speed / 1.25, 1.0 / 64.0);
    cam->yaw -= (float)(in->drag_x * 0.01);
    cam->pitch = fmaxf(-1.5f, fminf(1.5f, cam->pitch + (float)(in->drag_y * 0.01)));
    cam->zoom = fmaxf(0.01f, fminf(20.0f, cam->zoom * powf(0.9f, (float)in->scroll)));
    if (in->reset) {
        *cam = *home;
        *speed = 1.0;
        app_scene_reset(scene);
        if (*bind_pose) /* the bind pose is a view, not playback: it stays */
            vks_crowd_bind_pose(&scene->crowd, true, 0.0);
    }
}

static int run(const view_args *a, app_scene *scene, gpu_device *dev, app_window **win)
{
    vks_error err;
    if (!app_scene_start(scene, &a->crowd, a->clip, 0.0, &err) ||
        !app_window_create(
            &(app_window_desc){
                .title = "vkskin", .width = a->width, .height = a->height, .vsync = !a->no_vsync},
            win, &err)) {
        fprintf(stderr, "vkskin view: %s\n", err.msg);
        return APP_FAILED;
    }
    gpu_device_desc window_desc = {0};
    app_window_device_desc(&window_desc);
    if (!app_gpu_open(&a->gpu, &window_desc, dev, &err) ||
        !app_window_attach(*win, dev, vks_draw_depth_format(dev), &err)) {
        fprintf(stderr, "vkskin view: %s\n", err.msg);
        return APP_FAILED;
    }
    vks_renderer r;
    const vks_renderer_desc desc =
        app_crowd_renderer_desc(&a->crowd, &scene->crowd, app_window_color_format(*win));
    if (!vks_renderer_create(dev, &desc, &r, &err)) {
        fprintf(stderr, "vkskin view: %s\n", err.msg);
        return APP_FAILED;
    }
    int rc = APP_FAILED;
    app_camera cam, home;
    app_camera_frame(&cam, &scene->crowd);
    home = cam;
    double speed = 1.0, last = app_now_ms(), last_title = last, start = last;
    uint32_t drawn_at_title = 0, visible = 0;
    view_stats stats = {0};
    uint32_t drawn = 0;
    app_overflow overflow = {0};
    bool paused = false, bind_pose = a->bind_pose;
    if (bind_pose)
        vks_crowd_bind_pose(&scene->crowd, true, 0.0);
    for (;;) {
        app_input in;
        app_window_poll(*win, &in);
        if (in.quit)
            break;
        paused = in.pause;
        steer(&in, scene, &cam, &home, &speed, &bind_pose);
        if (a->resize_w && drawn == (a->frames ? a->frames / 2 : 60))
            app_window_request_size(*win, a->resize_w, a->resize_h);

        double t = app_now_ms();
        double dt = (t - last) * 1e-3;
        last = t;
        vks_frame *f = vks_renderer_begin_frame(&r);
        smooth(&stats.skin_ms, f->stats.skin_ms);
        smooth(&stats.draw_ms, f->stats.draw_ms);
        app_window_frame wf;
        app_acquire acq = app_window_acquire(*win, f->slot, &wf, &err);
        if (acq == APP_WINDOW_ERROR) {
            fprintf(stderr, "vkskin view: %s\n", err.msg);
            goto done;
        }
        if (acq == APP_SKIP) {
            GPU_CHECK(vkEndCommandBuffer(f->cmd)); /* recorded nothing; reset next time */
            continue;
        }
        VkExtent2D e = wf.target.extent;
        double anim_start = app_now_ms();
        vks_crowd_advance(&scene->crowd, paused ? 0.0 : dt * speed);
        app_scene_animate(scene, f, &cam, e.width, e.height);
        smooth(&stats.anim_ms, app_now_ms() - anim_start);
        visible = f->visible_count;
        vks_renderer_skin(&r, f);
        app_overflow_add(&overflow, f);
        app_format_levels(f->level_instances, stats.levels, sizeof stats.levels);
        if (f->stats.primitives != UINT64_MAX)
            stats.triangles = f->stats.primitives;
        vks_renderer_draw(&r, f, &wf.target);
        if (!vks_renderer_submit(&r, f, wf.acquired, wf.presentable, &err) ||
            !app_window_present(*win, &wf, &err)) {
            fprintf(stderr, "vkskin view: %s\n", err.msg);
            goto done;
        }
        drawn++;
        if (t - last_title > 250.0) {
            stats.fps = (drawn - drawn_at_title) * 1e3 / (t - last_title);
            update_title(*win, &scene->crowd, visible, speed, paused, &stats);
            last_title = t;
            drawn_at_title = drawn;
        }
        if (a->frames && drawn >= a->frames)
            break;
    }
    VkExtent2D e = app_window_extent(*win);
    stats.fps = drawn * 1e3 / fmax(app_now_ms() - start, 1e-3);
    printf("view: %u frames, last %ux%u, swapchain rebuilt %u time(s); %.0f fps on average, anim "
           "%.3f ms, skin %.3f ms, draw %.3f ms; %u of %u instances visible\n",
           drawn, e.width, e.height, app_window_rebuilds(*win), stats.fps, stats.anim_ms,
           stats.skin_ms, stats.draw_ms, visible, scene->crowd.instance_count);
    app_overflow_report("view", &r, &overflow);
    rc = APP_OK;
done:
    vks_renderer_destroy(&r);
    return rc;
}

int cmd_view(int argc, char **argv)
{
    view_args a = {.size = "1280x720"};
    const app_option options[] = {
        {"clip", &a.clip, NULL, "NAME|INDEX", "clip to start with (default: the first)"},
        {"bind-pose", NULL, &a.bind_pose, NULL, "start in the bind pose (B toggles it)"},
        {"size", &a.size, NULL, "WxH", "window size (default 1280x720)"},
        {"no-vsync", NULL, &a.no_vsync, NULL, "present as fast as possible (mailbox/immediate)"},
        {"frames", &a.frames_text, NULL, "N", "exit after N frames (for tests)"},
        {"resize", &a.resize_text, NULL, "WxH",
         "resize the window to WxH after half of --frames, or after 60 (for tests)"},
        APP_CROWD_OPTIONS(a.crowd),
        APP_GPU_OPTIONS(a.gpu),
    };
    const app_command cmd = {
        .name = "view",
        .summary = "Shows the animated character, or a crowd (--instances N), in a window.\n"
                   "keys: space pause, left/right previous/next clip (cross-fade), up/down speed,\n"
                   "B bind pose on/off, R reset, Esc quit; drag with the left button to orbit,\n"
                   "wheel to zoom. The title shows the clip, the frame rate and each stage's\n"
                   "milliseconds.",
        .positional = "[MODEL]",
        .options = options,
        .option_count = sizeof options / sizeof options[0],
    };
    int rc = app_parse(&cmd, argc, argv, &a.path);
    if (rc != APP_OK)
        return rc == APP_HELP ? APP_OK : rc;
    vks_error err;
    if (!app_parse_size(a.size, &a.width, &a.height, &err) ||
        (a.frames_text &&
         !app_parse_count("--frames", a.frames_text, 1, 100000000, &a.frames, &err)) ||
        (a.resize_text && !app_parse_size(a.resize_text, &a.resize_w, &a.resize_h, &err)) ||
        !app_crowd_check(&a.crowd, &err) || !app_gpu_check(&a.gpu, &err) ||
        (a.bind_pose && a.clip && !app_bind_pose_option(&a.clip, true, &err))) {
        fprintf(stderr, "vkskin view: %s\n", err.msg);
        return APP_USAGE;
    }
    app_scene scene;
    if (!app_scene_load(&scene, "view", a.path, &a.crowd,
                        &err)) { /* before any thread: see import.h */
        fprintf(stderr, "vkskin view: %s\n", err.msg);
        return APP_FAILED;
    }
    gpu_device dev = {0};
    app_window *win = NULL;
    rc = run(&a, &scene, &dev, &win);
    app_window_destroy(win, &dev);
    app_scene_destroy(&scene);
    if (dev.device)
        rc = app_gpu_close("view", &dev, rc);
    return rc;
}
