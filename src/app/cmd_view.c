#include "clips.h"
#include "commands.h"
#include "hud.h"
#include "script.h"
#include "show.h"
#include "window.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define FADE_SECONDS 0.3

typedef struct view_args {
    const char *path, *clip, *size, *frames_text, *resize_text;
    const char *script_text, *script_period, *seconds_text, *screenshots, *max_buffer_text;
    bool no_vsync, bind_pose;
    uint32_t max_buffer; /* --max-buffer; 0: the device's limits */
    app_gpu_options gpu;
    app_crowd_args crowd;
    uint32_t width, height, frames; /* frames 0: until closed */
    uint32_t resize_w, resize_h;    /* 0: no resize */
    double seconds;                 /* 0: until closed */
    app_script script;              /* script.count 0: none */
} view_args;

/* What the window's own input would do, from a script step: keys into `in`, the rest here. A
 * minimised window is also simulated (no frames while it lasts): without a window manager, as
 * under a bare Xvfb, iconifying does nothing. */
static void script_step(const app_script_step *st, app_window *win, app_input *in, bool *minimised)
{
    switch (st->action) {
    case APP_ACT_PAUSE:
        in->pause = true;
        break;
    case APP_ACT_PREV:
        in->prev_clip = true;
        break;
    case APP_ACT_NEXT:
        in->next_clip = true;
        break;
    case APP_ACT_FASTER:
        in->faster = true;
        break;
    case APP_ACT_SLOWER:
        in->slower = true;
        break;
    case APP_ACT_BIND:
        in->bind_pose = true;
        break;
    case APP_ACT_RESET:
        in->reset = true;
        break;
    case APP_ACT_RESIZE:
        app_window_request_size(win, st->width, st->height);
        break;
    case APP_ACT_MINIMISE:
        app_window_iconify(win, true);
        *minimised = true;
        break;
    case APP_ACT_RESTORE:
        app_window_iconify(win, false);
        *minimised = false;
        break;
    case APP_ACT_QUIT:
        in->quit = true;
        break;
    case APP_ACT_HELP:
        in->help = true;
        break;
    case APP_ACT_GROUND:
        in->ground = true;
        break;
    case APP_ACT_SKELETON:
        in->skeleton = true;
        break;
    case APP_ACT_SCREENSHOT:
        in->screenshot = true;
        break;
    case APP_ACT_MOTION:
        in->motion = true;
        break;
    case APP_ACT_ROOT_MOTION:
        in->root_motion = true;
        break;
    case APP_ACT_CAMERA:
        in->camera = true;
        break;
    }
}

/* What the title and the HUD show: frames per second over the last quarter second, exponential
 * moving averages of each stage's milliseconds, the last frame's counts, and their text, made
 * every quarter second (view_text). */
typedef struct view_stats {
    double fps, anim_ms, skin_ms, draw_ms;
    double raster_ms, resolve_ms; /* the compute rasterizer's passes (-1: not run) */
    uint64_t triangles;         /* the GPU drew in the last measured frame (UINT64_MAX: unknown) */
    uint64_t triangles_compute; /* the compute rasterizer's, last frame */
    uint64_t pixels_resolved;   /* its pixels, last measured frame */
    uint32_t visible, draws, level_instances[VKSKIN_MAX_LEVELS]; /* last frame */
    uint32_t dropped; /* in view in the last frame, left out: the palette store was full */
    uint32_t moved; /* instances the last frame placed anew */
    char who[256], levels[160], moving[160];
} view_stats;

static void smooth(double *avg, double value)
{
    if (value >= 0.0)
        *avg = *avg > 0.0 ? *avg * 0.9 + value * 0.1 : value;
}

/* Who is shown: the model and its clip for one instance, the counts for a crowd (those left out
 * of the last frame for want of room in the palette store too). */
static void who_of(const app_show *show, const view_stats *s, char *who, size_t size)
{
    const uint32_t instances = vkskin_crowd_instance_count(show->crowd);
    vkskin_instance_info first;
    vkskin_crowd_get_instance(show->crowd, 0, &first, NULL);
    vkskin_model_info m;
    vkskin_model_get_info(show->models[first.model], &m, NULL);
    vkskin_clip_info clip = {.name = "bind pose"};
    if (first.clip >= 0)
        vkskin_model_get_clip(show->models[first.model], (uint32_t)first.clip, &clip, NULL);
    if (instances == 1)
        snprintf(who, size, "%s - %s (%d/%u)", m.name, clip.name, first.clip + 1, m.clip_count);
    else if (s->dropped) /* the crowd in view did not all fit: said */
        snprintf(who, size,
                 "%u instances, %u visible, %u more left out (the palette store is full) - "
                 "instance 0: %s (%d/%u)",
                 instances, s->visible, s->dropped, clip.name, first.clip + 1, m.clip_count);
    else /* each instance plays its own clip: the first one's names the rest's */
        snprintf(who, size, "%u instances, %u visible - instance 0: %s (%d/%u)", instances,
                 s->visible, clip.name, first.clip + 1, m.clip_count);
}

static void update_title(app_window *win, double speed, bool paused, const view_stats *s)
{
    char title[512];
    snprintf(title, sizeof title,
             "vkskin - %s x%.2g%s - %.0f fps - anim %.3f ms, skin %.3f ms, draw %.3f ms - %lld "
             "triangles - %s",
             s->who, speed, paused ? " paused" : "", s->fps, s->anim_ms, s->skin_ms, s->draw_ms,
             s->triangles == UINT64_MAX ? -1LL : (long long)s->triangles, s->levels);
    app_window_set_title(win, title);
}

static const char help_text[] = "keys\n"
                                "  space       pause / play\n"
                                "  left right  previous / next clip (cross-fade)\n"
                                "  up down     faster / slower\n"
                                "  B           bind pose on / off\n"
                                "  K           skeletons on / off\n"
                                "  G           ground on / off\n"
                                "  M           the crowd walks / stands (--motion)\n"
                                "  T           root motion on / off\n"
                                "  C           camera framed / at eye level\n"
                                "  R           reset camera and crowd\n"
                                "  F12         screenshot (PNG)\n"
                                "  H           this help\n"
                                "  Esc         quit\n"
                                "mouse: drag to orbit, wheel to zoom";

/* The heads-up display: the figures at the top left, the help below them on H. `models`: the
 * crowd's models' names, "" for one model. */
static void build_hud(app_hud *h, const view_stats *s, const char *device, const char *models,
                      double speed, bool paused, bool help)
{
    char text[1024], raster[160] = "";
    app_hud_clear_text(h);
    if (s->triangles_compute || s->raster_ms > 0.0)
        snprintf(raster, sizeof raster,
                 "%llu triangles rasterized in compute   %.3f ms, resolve %.3f ms, %llu pixels\n",
                 (unsigned long long)s->triangles_compute, s->raster_ms, s->resolve_ms,
                 (unsigned long long)s->pixels_resolved);
    snprintf(text, sizeof text,
             "vkskin   %.0f fps\n"
             "cpu animation %.3f ms   gpu skinning %.3f ms   drawing %.3f ms\n"
             "%s\n"
             "%s   speed x%.2g%s\n"
             "%s%s"
             "%lld triangles in %u draws   %s\n"
             "%s"
             "%s\n"
             "H: help",
             s->fps, s->anim_ms, s->skin_ms, s->draw_ms, device, s->who, speed,
             paused ? "   PAUSED" : "", models, models[0] ? "\n" : "",
             s->triangles == UINT64_MAX ? -1LL : (long long)s->triangles, s->draws, s->levels,
             raster, s->moving);
    const float bottom = app_hud_box(h, 10.0f, 10.0f, 2.0f, text);
    if (help)
        app_hud_box(h, 10.0f, bottom + 10.0f, 2.0f, help_text);
}

/* The orbit camera the mouse steers: angles added to the framing view's, and its zoom. */
typedef struct view_camera {
    float yaw, pitch, zoom;
    float base_pitch; /* the framing view's own (the library keeps the sum within +-1.5) */
} view_camera;

/* The framing view's pitch. */
static float framing_pitch(const vkskin_crowd *crowd)
{
    vkskin_view v;
    vkskin_crowd_frame_view(crowd, 1.0f, &v, NULL);
    return v.pitch;
}

/* Applies the keys and the mouse to the playback and the camera. */
static void steer(const app_input *in, const app_show *show, app_clips *clips, view_camera *cam,
                  double *speed, bool *bind_pose)
{
    vkskin_crowd *crowd = show->crowd;
    if (in->bind_pose) {
        *bind_pose = !*bind_pose;
        app_clips_bind_pose(clips, crowd, *bind_pose, FADE_SECONDS, NULL);
    }
    if (in->next_clip)
        app_clips_step(clips, crowd, show->models, 1, FADE_SECONDS, NULL);
    if (in->prev_clip)
        app_clips_step(clips, crowd, show->models, -1, FADE_SECONDS, NULL);
    if (in->faster)
        *speed = fmin(*speed * 1.25, 8.0);
    if (in->slower)
        *speed = fmax(*speed / 1.25, 1.0 / 64.0);
    cam->yaw -= (float)(in->drag_x * 0.01);
    /* The sum with the framing view's pitch stays within +-1.5, with no dead drag at the ends. */
    cam->pitch = fmaxf(-1.5f - cam->base_pitch,
                       fminf(1.5f - cam->base_pitch, cam->pitch + (float)(in->drag_y * 0.01)));
    cam->zoom = fmaxf(0.01f, fminf(20.0f, cam->zoom * powf(0.9f, (float)in->scroll)));
    if (in->reset) {
        *cam = (view_camera){.zoom = 1.0f, .base_pitch = cam->base_pitch};
        *speed = 1.0;
        vkskin_crowd_reset(crowd, NULL);
        app_clips_forget(clips); /* the instances play the clips they were made with */
        if (*bind_pose)          /* the bind pose is a view, not playback: it stays */
            app_clips_bind_pose(clips, crowd, true, 0.0, NULL);
    }
}

/* The highest N of the files DIR/vkskin_N.png (N: 4 to 9 digits), 0 when there are none. */
static uint32_t last_screenshot(const char *dir)
{
    DIR *d = opendir(dir);
    uint32_t last = 0;
    if (!d)
        return 0;
    for (const struct dirent *e; (e = readdir(d));) {
        const char *name = e->d_name;
        if (strncmp(name, "vkskin_", 7) != 0)
            continue;
        const size_t digits = strspn(name + 7, "0123456789");
        if (digits < 4 || digits > 9 || strcmp(name + 7 + digits, ".png") != 0)
            continue;
        const uint32_t n = (uint32_t)strtoul(name + 7, NULL, 10);
        last = n > last ? n : last;
    }
    closedir(d);
    return last;
}

/* F12: the frame just drawn (with capture) written as DIR/vkskin_NNNN.png, numbered after the
 * highest already there, so that a later run (or another view) never overwrites one: each name
 * is taken only where no file has it (app_write_file's no_clobber), the next one tried when
 * another process took it meanwhile. Written whole or not at all. */
static bool screenshot(vkskin_renderer *r, const char *dir)
{
    vkskin_renderer_info ri;
    vkskin_renderer_get_info(r, &ri, NULL);
    uint8_t *pixels = malloc((size_t)ri.width * ri.height * 4);
    char path[4096];
    vkskin_error e;
    app_buffer png = {0};
    snprintf(path, sizeof path, "%s/vkskin_NNNN.png", dir); /* what a failed encoding names */
    bool ok = pixels && vkskin_renderer_read_image(r, pixels, &e) == VKSKIN_OK &&
              app_encode_image(path, ri.width, ri.height, pixels, &png, &e);
    if (!pixels)
        app_fail(&e, "out of memory for a %ux%u image", ri.width, ri.height);
    bool taken = false;
    for (uint32_t n = last_screenshot(dir) + 1; ok && !taken; n++) {
        if (n > 999999999u) {
            ok = app_fail(&e, "'%s' holds vkskin_999999999.png: no number is left", dir);
            break;
        }
        snprintf(path, sizeof path, "%s/vkskin_%04u.png", dir, n);
        taken = app_write_file(path, png.data, png.size, true, &e);
        ok = taken || errno == EEXIST;
    }
    free(png.data);
    free(pixels);
    if (!ok) {
        fprintf(stderr, "vkskin view: warning: no screenshot: %s\n", e.message);
        return false;
    }
    printf("view: wrote %s (%ux%u)\n", path, ri.width, ri.height);
    return true;
}

/* The window, the crowd started in it and the renderer for its surface; failures are said. */
static int view_open(view_args *a, app_show *show, app_window **win, vkskin_renderer **out)
{
    vkskin_error err;
    vkskin_error e;
    if (!app_window_create(
            &(app_window_desc){.title = "vkskin", .width = a->width, .height = a->height}, win,
            &err)) {
        fprintf(stderr, "vkskin view: %s\n", err.message);
        return APP_FAILED;
    }
    vkskin_renderer_desc desc = app_show_renderer_desc(show, &a->crowd, &a->gpu, 0, 0);
    app_window_surface(*win, &desc);
    desc.no_vsync = a->no_vsync;
    desc.max_buffer_bytes = a->max_buffer;
    if (!app_show_start(show, &a->crowd, a->clip, 0.0, &desc, &err)) {
        fprintf(stderr, "vkskin view: %s\n", err.message);
        return APP_FAILED;
    }
    desc.crowd = show->crowd;
    if (vkskin_renderer_create(&desc, out, &e) != VKSKIN_OK) {
        fprintf(stderr, "vkskin view: %s\n", e.message);
        return APP_FAILED;
    }
    vkskin_renderer_info started;
    vkskin_renderer_get_info(*out, &started, NULL);
    if (started.raster_note)
        printf("view: raster: hardware (%s)\n", started.raster_note);
    return APP_OK;
}

/* What the frame loop keeps from one frame to the next: the camera and playback the input
 * steers, what is shown, the clocks, and the counts the summary prints. */
typedef struct view_loop {
    view_camera cam;
    double speed, last, last_title, start; /* last: the previous frame's time, in ms */
    uint32_t drawn, drawn_at_title;
    uint32_t script_steps, skipped;
    view_stats stats;
    app_overflow overflow;
    bool paused, bind_pose, minimised;
    app_clips clips; /* the clip keys' (B, left, right) held clips */
    bool help, ground, skeleton, want_shot;
    app_motion_kind motion; /* what M starts (--motion's, wander without one) */
    bool walking, root_motion, street;
    bool quitting; /* Esc, the script's quit or --seconds: once no screenshot is pending */
    app_hud hud;
    bool hud_stale; /* its text is rebuilt when the figures or the input change */
    vkskin_renderer_info device;
    char models[256]; /* a crowd of several models names them in the HUD */
} view_loop;

/* The HUD's line on motion: what M, T and C toggle, and what the last frame moved. */
static void moving_text(const view_loop *v, view_stats *s)
{
    snprintf(s->moving, sizeof s->moving,
             "%s (M)   root motion %s (T)   camera %s (C)   %u placed anew a frame",
             v->walking ? app_motion_name(v->motion) : "standing", v->root_motion ? "on" : "off",
             v->street ? "at eye level" : "framed", s->moved);
}

/* The loop's state before the first frame: the framing camera, playback at speed 1 (in the bind
 * pose with --bind-pose), the ground on. */
static void view_loop_init(view_loop *v, const view_args *a, const app_show *show,
                           vkskin_renderer *r)
{
    *v = (view_loop){.cam = {.zoom = 1.0f, .base_pitch = framing_pitch(show->crowd)},
                     .speed = 1.0,
                     .bind_pose = a->bind_pose,
                     .ground = true,
                     .hud_stale = true};
    v->last = v->last_title = v->start = vks_now_ms();
    who_of(show, &v->stats, v->stats.who, sizeof v->stats.who);
    snprintf(v->stats.levels, sizeof v->stats.levels, "none");
    vkskin_renderer_get_info(r, &v->device, NULL);
    if (show->model_count > 1) {
        snprintf(v->models, sizeof v->models, "models: ");
        app_show_model_names(show, ", ", v->models + strlen(v->models),
                             sizeof v->models - strlen(v->models));
    }
    if (v->bind_pose)
        app_clips_bind_pose(&v->clips, show->crowd, true, 0.0, NULL);
    v->motion = a->crowd.motion != APP_MOTION_NONE ? a->crowd.motion : APP_MOTION_WANDER;
    v->walking = a->crowd.motion != APP_MOTION_NONE; /* started with the crowd (app_show_start) */
    v->root_motion = a->crowd.root_motion;
    v->street = a->crowd.street;
    moving_text(v, &v->stats);
}

/* The window's input and the script's steps now due, applied: playback, camera, toggles, the
 * --resize request. False when the view ends: quitting, with no screenshot pending that a frame
 * can still take. */
/* M: the crowd starts walking (its motion from where each stands) or stops (velocities 0, each
 * back in its own clip). */
static bool toggle_walking(view_loop *v, app_show *show, vkskin_error *err)
{
    if (v->walking) {
        const uint32_t n = show->motion.count;
        float *zero = calloc(2 * (size_t)n + 2, sizeof *zero);
        const bool ok =
            zero && vkskin_crowd_set_velocities(show->crowd, NULL, n, zero, err) == VKSKIN_OK;
        free(zero);
        app_motion_destroy(&show->motion);
        v->walking = !ok;
        return ok || app_fail(err, "out of memory for stopping the crowd");
    }
    v->walking = app_motion_start(&show->motion, v->motion, show->crowd, 1, err) &&
                 app_show_advance(show, 0.0, err);
    return v->walking;
}

/* T: root motion on or off for every instance. */
static void toggle_root_motion(view_loop *v, app_show *show)
{
    v->root_motion = !v->root_motion;
    for (uint32_t i = 0; i < vkskin_crowd_instance_count(show->crowd); i++)
        vkskin_crowd_set_root_motion(show->crowd, i, v->root_motion, NULL); /* removed: refused */
}

static bool view_input(view_args *a, app_show *show, app_window *win, view_loop *v)
{
    app_input in;
    app_window_poll(win, &in);
    const double elapsed = (vks_now_ms() - v->start) * 1e-3;
    const app_script_step *st;
    while (a->script.count && (st = app_script_due(&a->script, elapsed, v->drawn + v->skipped))) {
        script_step(st, win, &in, &v->minimised);
        v->script_steps++;
    }
    v->want_shot |= in.screenshot; /* kept until a frame is drawn (not while minimised) */
    v->quitting |= in.quit || (a->seconds > 0.0 && elapsed >= a->seconds) || app_signal();
    if (v->quitting) { /* a screenshot asked for is taken first, unless nothing can be drawn */
        uint32_t w, h;
        app_window_framebuffer(win, &w, &h);
        if (!v->want_shot || v->minimised || !w || !h)
            return false;
    }
    v->paused ^= in.pause;
    steer(&in, show, &v->clips, &v->cam, &v->speed, &v->bind_pose);
    vkskin_error err;
    if (in.reset && v->walking) { /* the crowd as made: the motion from there */
        app_motion_destroy(&show->motion);
        v->walking = false;
        in.motion = !in.motion;
    }
    if (in.reset)
        v->root_motion = a->crowd.root_motion;
    if (in.motion && !toggle_walking(v, show, &err))
        fprintf(stderr, "vkskin view: %s\n", err.message);
    if (in.root_motion)
        toggle_root_motion(v, show);
    v->street ^= in.camera;
    if (in.motion || in.root_motion || in.camera || in.reset) {
        moving_text(v, &v->stats);
        v->hud_stale = true;
    }
    /* What the HUD says changes with these keys (the figures: every quarter second). */
    if (in.pause || in.help || in.faster || in.slower || in.prev_clip || in.next_clip ||
        in.bind_pose || in.reset) {
        who_of(show, &v->stats, v->stats.who, sizeof v->stats.who);
        v->hud_stale = true;
    }
    v->help ^= in.help;
    v->ground ^= in.ground;
    v->skeleton ^= in.skeleton;
    if (a->resize_w && v->drawn == (a->frames ? a->frames / 2 : 60))
        app_window_request_size(win, a->resize_w, a->resize_h);
    return true;
}

/* One frame of width x height: the crowd advanced by dt seconds at the playback speed, seen from
 * the orbit camera, with the HUD and the skeletons, captured when a screenshot is pending. False
 * when the frame fails (said). */
static bool view_draw(view_loop *v, app_show *show, vkskin_renderer *r, uint32_t width,
                      uint32_t height, double dt, vkskin_frame_info *info)
{
    vkskin_crowd *crowd = show->crowd;
    vkskin_error e;
    if (!app_show_advance(show, v->paused ? 0.0 : dt * v->speed, &e)) {
        fprintf(stderr, "vkskin view: %s\n", e.message);
        return false;
    }
    vkskin_view view;
    show->street = v->street;
    app_show_view(show,
                  &(vkskin_orbit){.aspect = (float)width / (float)height,
                                  .yaw = v->cam.yaw,
                                  .pitch = v->cam.pitch,
                                  .zoom = v->cam.zoom},
                  &view);
    if (v->hud_stale) {
        build_hud(&v->hud, &v->stats, v->device.device_name, v->models, v->speed, v->paused,
                  v->help);
        v->hud_stale = false;
    }
    app_hud_clear_lines(&v->hud);
    for (uint32_t i = 0; v->skeleton && i < vkskin_crowd_instance_count(crowd) && i < 64; i++)
        app_hud_skeleton(&v->hud, show, i, 0xff30e0ffu); /* amber, the first 64 instances */
    if (vkskin_renderer_frame(r,
                              &(vkskin_frame_desc){.desc_size = sizeof(vkskin_frame_desc),
                                                   .view = &view,
                                                   .width = width,
                                                   .height = height,
                                                   .ground = v->ground,
                                                   .lines = v->hud.lines,
                                                   .line_vertex_count = v->hud.line_count,
                                                   .screen = v->hud.screen,
                                                   .screen_vertex_count = v->hud.screen_count,
                                                   .capture = v->want_shot},
                              info, &e) != VKSKIN_OK) {
        fprintf(stderr, "vkskin view: %s\n", e.message);
        return false;
    }
    vkskin_instance_uploads uploads;
    vkskin_renderer_get_instance_uploads(r, &uploads, NULL);
    v->stats.moved = uploads.instances;
    return true;
}

/* A drawn frame's figures into the stats: its times into the averages, its counts as they are. */
static void take_figures(view_stats *s, const vkskin_frame_info *info)
{
    smooth(&s->skin_ms, info->gpu.skin_ms);
    smooth(&s->draw_ms, info->gpu.draw_ms);
    smooth(&s->raster_ms, info->gpu.raster_ms);
    smooth(&s->resolve_ms, info->gpu.resolve_ms);
    s->triangles_compute = info->triangles_compute;
    if (info->gpu.pixels_resolved != UINT64_MAX)
        s->pixels_resolved = info->gpu.pixels_resolved;
    smooth(&s->anim_ms, info->cpu_ms);
    s->visible = info->visible;
    s->dropped = info->dropped;
    s->draws = info->draws;
    memcpy(s->level_instances, info->level_instances, sizeof s->level_instances);
    if (info->gpu.triangles != UINT64_MAX)
        s->triangles = info->gpu.triangles;
}

/* After a frame was drawn (at t, in ms): the screenshot it captured, its figures, and every
 * quarter second the frame rate, the title and the HUD's text. */
static void view_drawn(view_loop *v, const view_args *a, const app_show *show, app_window *win,
                       vkskin_renderer *r, const vkskin_frame_info *info, double t)
{
    if (v->want_shot) { /* a screenshot that fails says so and the view goes on */
        screenshot(r, a->screenshots);
        v->want_shot = false;
    }
    take_figures(&v->stats, info);
    app_show_overflow_add(&v->overflow, info);
    v->drawn++;
    if (t - v->last_title > 250.0) {
        v->stats.fps = (v->drawn - v->drawn_at_title) * 1e3 / (t - v->last_title);
        who_of(show, &v->stats, v->stats.who, sizeof v->stats.who);
        app_format_levels(v->stats.level_instances, v->stats.levels, sizeof v->stats.levels);
        update_title(win, v->speed, v->paused, &v->stats);
        v->hud_stale = true;
        v->last_title = t;
        v->drawn_at_title = v->drawn;
    }
}

/* The lines printed when the view ends: frames, rates and averages, the script's counts, what
 * went past the renderer's room. */
static void view_summary(view_loop *v, const view_args *a, const app_show *show, vkskin_renderer *r)
{
    const vkskin_crowd *crowd = show->crowd;
    vkskin_renderer_info ri;
    vkskin_renderer_get_info(r, &ri, NULL);
    v->stats.fps = v->drawn * 1e3 / fmax(vks_now_ms() - v->start, 1e-3);
    if (app_signal())
        printf("view: stopped by %s\n", app_signal_name(app_signal()));
    printf("view: %u frames, last %ux%u, swapchain rebuilt %u time(s); %.0f fps on average, anim "
           "%.3f ms, skin %.3f ms, draw %.3f ms; %u of %u instances visible\n",
           v->drawn, ri.width, ri.height, ri.swapchain_rebuilds, v->stats.fps, v->stats.anim_ms,
           v->stats.skin_ms, v->stats.draw_ms, v->stats.visible,
           vkskin_crowd_instance_count(crowd));
    if (a->script.count)
        printf("view: the script ran %u step(s); %u time(s) nothing was drawn (minimised)\n",
               v->script_steps, v->skipped);
    char who[256];
    who_of(show, &v->stats, who, sizeof who);
    printf("view: at the end, %s\n", who); /* what the clip keys left playing */
    app_show_overflow_report("view", r, &v->overflow);
}

static int run(view_args *a, app_show *show, app_window **win, vkskin_renderer **out)
{
    app_signals_catch(); /* SIGINT and SIGTERM quit as Esc does: the summary is printed */
    if (view_open(a, show, win, out) != APP_OK)
        return APP_FAILED;
    vkskin_renderer *r = *out;
    view_loop v;
    view_loop_init(&v, a, show, r);
    int rc = APP_OK;
    for (;;) {
        if (!view_input(a, show, *win, &v))
            break;
        double t = vks_now_ms();
        double dt = (t - v.last) * 1e-3;
        v.last = t;
        uint32_t width, height;
        app_window_framebuffer(*win, &width, &height);
        if (v.minimised)
            width = height = 0;
        if (width == 0 || height == 0) {
            v.skipped++;
            app_window_wait(*win); /* minimised: do not spin */
            continue;
        }
        vkskin_frame_info info;
        if (!view_draw(&v, show, r, width, height, dt, &info)) {
            rc = APP_FAILED;
            break;
        }
        if (!info.drawn)
            continue; /* the swapchain was rebuilt: next time */
        view_drawn(&v, a, show, *win, r, &info, t);
        if (a->frames && v.drawn >= a->frames)
            break;
    }
    app_hud_destroy(&v.hud);
    app_clips_free(&v.clips);
    if (rc != APP_OK)
        return rc;
    view_summary(&v, a, show, r);
    return APP_OK;
}

int cmd_view(int argc, char **argv)
{
    view_args a = {.size = "1280x720", .screenshots = "."};
    const app_option options[] = {
        {"clip", &a.clip, NULL, "NAME|INDEX", "clip to start with (default: the first)"},
        {"bind-pose", NULL, &a.bind_pose, NULL, "start in the bind pose (B toggles it)"},
        {"size", &a.size, NULL, "WxH", "window size (default 1280x720)"},
        {"no-vsync", NULL, &a.no_vsync, NULL, "present as fast as possible (mailbox/immediate)"},
        {"frames", &a.frames_text, NULL, "N", "exit after N frames (for tests)"},
        {"resize", &a.resize_text, NULL, "WxH",
         "resize the window to WxH after half of --frames, or after 60 (for tests)"},
        {"seconds", &a.seconds_text, NULL, "S", "exit after S seconds (for tests)"},
        {"script", &a.script_text, NULL, "T:ACTION,...",
         "scripted input (tests, soaks): at T seconds, or when written Nf before frame N is "
         "drawn (from 0; steps past --frames never run), pause, prev, next, faster, slower, "
         "bind, reset, resize=WxH, minimise, restore, quit, or the keys help, ground, skeleton "
         "and screenshot; one script counts in one unit"},
        {"script-period", &a.script_period, NULL, "S|Nf",
         "repeat the script every S seconds, or every N frames (in the script's unit)"},
        {"max-buffer", &a.max_buffer_text, NULL, "BYTES",
         "split GPU buffers at BYTES (default: the device's limits)"},
        {"screenshots", &a.screenshots, NULL, "DIR",
         "where F12 writes vkskin_0001.png, ..., numbered after the highest there already "
         "(default: the current folder)"},
        APP_CROWD_OPTIONS(a.crowd),
        APP_GPU_OPTIONS(a.gpu),
    };
    const app_command cmd = {
        .name = "view",
        .summary = "Shows the animated character, or a crowd (--instances N), in a window.\n"
                   "keys: space pause, left/right previous/next clip (cross-fade), up/down speed,\n"
                   "B bind pose on/off, K skeletons, G ground, R reset, F12 screenshot, H help,\n"
                   "Esc quit; drag with the left button to orbit, wheel to zoom. The heads-up\n"
                   "display (and the title) show the frame rate, each stage's milliseconds, the\n"
                   "device, the clip and speed, and the crowd's counts.",
        .positional = "[MODEL]",
        .options = options,
        .option_count = sizeof options / sizeof options[0],
    };
    int rc = app_parse(&cmd, argc, argv, &a.path);
    if (rc != APP_OK)
        return rc == APP_HELP ? APP_OK : rc;
    vkskin_error err;
    if (!app_parse_size("--size", a.size, &a.width, &a.height, &err) ||
        (a.frames_text &&
         !app_parse_count("--frames", a.frames_text, 1, 100000000, &a.frames, &err)) ||
        (a.resize_text &&
         !app_parse_size("--resize", a.resize_text, &a.resize_w, &a.resize_h, &err)) ||
        (a.seconds_text && !app_parse_seconds("--seconds", a.seconds_text, &a.seconds, &err)) ||
        (a.max_buffer_text && !app_parse_count("--max-buffer", a.max_buffer_text, 1024,
                                                UINT32_MAX, &a.max_buffer, &err)) ||
        (a.script_period && !a.script_text &&
         !app_fail(&err, "--script-period goes with --script")) ||
        (a.script_text && !app_script_parse(a.script_text, a.script_period, &a.script, &err)) ||
        !app_crowd_check(&a.crowd, &err) || !app_gpu_check(&a.gpu, &err) ||
        (a.bind_pose && a.clip && !app_bind_pose_option(&a.clip, true, &err))) {
        fprintf(stderr, "vkskin view: %s\n", err.message);
        return APP_USAGE;
    }
    app_show show;
    if (!app_show_load(&show, "view", a.path, &a.crowd, &err)) { /* before any thread */
        fprintf(stderr, "vkskin view: %s\n", err.message);
        return APP_FAILED;
    }
    app_window *win = NULL;
    vkskin_renderer *r = NULL;
    rc = run(&a, &show, &win, &r);
    if (r) /* its surface before the window */
        rc = app_show_close("view", r, rc);
    app_window_destroy(win);
    app_show_destroy(&show);
    return rc;
}
