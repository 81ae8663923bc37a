#include "gpu_app.h"

#include "anim/anim.h"
#include "skin/skin_cpu.h"

#include <cglm/cam.h>
#include <cglm/clipspace/persp_rh_zo.h>
#include <cglm/clipspace/view_rh.h>
#include <cglm/mat4.h>

#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

bool app_gpu_open(const app_gpu_options *options, const gpu_device_desc *window, gpu_device *dev,
                  vks_error *err)
{
    gpu_device_desc desc = window ? *window : (gpu_device_desc){0};
    desc.device_index = -1;
    if (options->device) {
        uint32_t index;
        if (!app_parse_count("--device", options->device, 0, INT32_MAX, &index, err))
            return false;
        desc.device_index = (int32_t)index;
    }
    const char *env = getenv("VKSKIN_VALIDATE");
    desc.validate = options->validate || (env && strcmp(env, "1") == 0);
    return gpu_device_create(&desc, dev, err);
}

int app_gpu_close(const char *cmd, gpu_device *dev, int rc)
{
    gpu_messages m = gpu_device_destroy(dev); /* vkDestroyInstance may report too */
    if (m.error || m.warning) {
        fprintf(stderr, "vkskin %s: validation reported %u error(s) and %u warning(s)\n", cmd,
                m.error, m.warning);
        return APP_FAILED;
    }
    return rc;
}

bool app_parse_count(const char *name, const char *text, uint32_t min, uint32_t max,
                     uint32_t *value, vks_error *err)
{
    char *end;
    errno = 0;
    long long v = strtoll(text, &end, 10);
    if (end == text || *end || errno || v < (long long)min || v > (long long)max)
        return vks_fail(err, "%s needs a whole number from %u to %u, not '%s'", name, min, max,
                        text);
    *value = (uint32_t)v;
    return true;
}

/* One decimal number of 1 to 16384 pixels, no sign or space, ending at `end`. */
static bool parse_side(const char *text, const char *end, uint32_t *side)
{
    if (text == end || end - text > 5)
        return false;
    uint32_t v = 0;
    for (const char *c = text; c < end; c++) {
        if (*c < '0' || *c > '9')
            return false;
        v = v * 10 + (uint32_t)(*c - '0');
    }
    *side = v;
    return v >= 1 && v <= 16384;
}

bool app_parse_size(const char *text, uint32_t *width, uint32_t *height, vks_error *err)
{
    const char *x = strchr(text, 'x');
    if (!x || !parse_side(text, x, width) || !parse_side(x + 1, x + 1 + strlen(x + 1), height))
        return vks_fail(err, "--size needs WIDTHxHEIGHT, each 1 to 16384, not '%s'", text);
    return true;
}

bool app_gpu_check(const app_gpu_options *options, vks_error *err)
{
    uint32_t index;
    return !options->device ||
           app_parse_count("--device", options->device, 0, INT32_MAX, &index, err);
}

/* ---- Camera ---- */

static void grow(float lo[3], float hi[3], const float world[4][4], const float p[3])
{
    for (int r = 0; r < 3; r++) {
        float v = world[0][r] * p[0] + world[1][r] * p[1] + world[2][r] * p[2] + world[3][r];
        lo[r] = v < lo[r] ? v : lo[r];
        hi[r] = v > hi[r] ? v : hi[r];
    }
}

bool app_camera_frame(app_camera *cam, const vks_model *model, const float world[4][4])
{
    enum { SAMPLES_PER_CLIP = 8 };
    float lo[3] = {FLT_MAX, FLT_MAX, FLT_MAX}, hi[3] = {-FLT_MAX, -FLT_MAX, -FLT_MAX};
    float(*pos)[3] = malloc(sizeof *pos * model->vertex_count);
    float(*nrm)[3] = malloc(sizeof *nrm * model->vertex_count);
    bool ok = pos && nrm;
    for (int32_t c = -1; ok && c < (int32_t)model->clip_count; c++) {
        for (int s = 0; s < (c < 0 ? 1 : SAMPLES_PER_CLIP); s++) {
            double t = c < 0 ? 0.0 : model->clips[c].duration * s / SAMPLES_PER_CLIP;
            ok = vks_skin_cpu_pose(model, c, t, pos, nrm, NULL);
            for (uint32_t v = 0; ok && v < model->vertex_count; v++)
                grow(lo, hi, world, pos[v]);
        }
    }
    free(pos);
    free(nrm);
    if (!ok)
        return false;
    float r2 = 0.0f;
    for (int k = 0; k < 3; k++) {
        cam->center[k] = 0.5f * (lo[k] + hi[k]);
        cam->half[k] = 0.5f * (hi[k] - lo[k]);
        r2 += cam->half[k] * cam->half[k];
    }
    cam->radius = r2 > 0.0f ? sqrtf(r2) : 1.0f;
    cam->yaw = 0.45f; /* a three-quarter view from the character's front right, a bit above */
    cam->pitch = 0.2f;
    cam->zoom = 1.0f;
    return true;
}

void app_camera_uniforms(const app_camera *cam, float aspect, vks_frame_uniforms *out)
{
    const float fov = glm_rad(40.0f);
    const float tan_v = tanf(fov * 0.5f), tan_h = tan_v * aspect;
    /* The view direction, and the camera's right and up axes. */
    float cy = cosf(cam->yaw), sy = sinf(cam->yaw), cp = cosf(cam->pitch), sp = sinf(cam->pitch);
    const float back[3] = {sy * cp, sp, cy * cp}; /* from the center towards the eye */
    const float right[3] = {cy, 0.0f, -sy};
    const float up[3] = {-sy * sp, cp, -cy * sp};
    /* The nearest distance at which every corner of the bounds is inside the frustum: a corner
     * at (r, u) across and f towards the eye needs |u| <= (d - f) tan_v and |r| <= (d - f) tan_h.
     */
    float dist = 0.0f;
    for (int i = 0; i < 8; i++) {
        float c[3] = {(i & 1 ? 1.0f : -1.0f) * cam->half[0], (i & 2 ? 1.0f : -1.0f) * cam->half[1],
                      (i & 4 ? 1.0f : -1.0f) * cam->half[2]};
        float r = c[0] * right[0] + c[1] * right[1] + c[2] * right[2];
        float u = c[0] * up[0] + c[1] * up[1] + c[2] * up[2];
        float f = c[0] * back[0] + c[1] * back[1] + c[2] * back[2];
        dist = fmaxf(dist, fmaxf(fabsf(u) / tan_v, fabsf(r) / tan_h) + f);
    }
    dist = cam->zoom * fmaxf(dist * 1.08f, cam->radius * 0.1f); /* a margin of 8% */
    vec3 eye = {cam->center[0] + dist * back[0], cam->center[1] + dist * back[1],
                cam->center[2] + dist * back[2]};
    vec3 center = {cam->center[0], cam->center[1], cam->center[2]};
    mat4 view, proj, vp;
    glm_lookat_rh(eye, center, (vec3){0.0f, 1.0f, 0.0f}, view);
    float near_z = fmaxf(dist - 1.5f * cam->radius, dist * 0.01f);
    glm_perspective_rh_zo(fov, aspect, near_z, dist + 1.5f * cam->radius, proj);
    proj[1][1] = -proj[1][1]; /* Vulkan's framebuffer y points down */
    glm_mat4_mul(proj, view, vp);
    memcpy(out->view_proj, vp, sizeof vp);

    /* Key light from the camera's upper left, so the lit side faces the viewer. */
    float lx = sinf(cam->yaw - 0.6f), lz = cosf(cam->yaw - 0.6f), ly = 1.1f;
    float len = sqrtf(lx * lx + ly * ly + lz * lz);
    const float light[4] = {lx / len, ly / len, lz / len, 0.0f};
    const float light_color[4] = {0.85f, 0.82f, 0.78f, 0.0f};
    const float ambient[4] = {0.22f, 0.24f, 0.28f, 0.0f};
    memcpy(out->light_dir, light, sizeof light);
    memcpy(out->light_color, light_color, sizeof light_color);
    memcpy(out->ambient, ambient, sizeof ambient);
}

/* ---- Player ---- */

bool app_player_create(app_player *p, const vks_model *model, int32_t clip, double time)
{
    const vks_skeleton *sk = &model->skeleton;
    *p = (app_player){.model = model, .clip = clip, .time = time, .from_clip = -1};
    p->local = malloc(sizeof *p->local * sk->joint_count);
    p->local_from = malloc(sizeof *p->local_from * sk->joint_count);
    p->scratch = malloc(sizeof *p->scratch * sk->joint_count);
    p->cursor = calloc(vks_cursor_size(sk), sizeof *p->cursor);
    p->cursor_from = calloc(vks_cursor_size(sk), sizeof *p->cursor_from);
    if (!p->local || !p->local_from || !p->scratch || !p->cursor || !p->cursor_from) {
        app_player_destroy(p);
        return false;
    }
    return true;
}

void app_player_destroy(app_player *p)
{
    free(p->local);
    free(p->local_from);
    free(p->scratch);
    free(p->cursor);
    free(p->cursor_from);
    *p = (app_player){0};
}

void app_player_advance(app_player *p, double dt)
{
    p->time += dt;
    p->from_time += dt;
    p->fade_left -= dt;
    /* Keep times within a period so that float sampling stays exact over long runs. */
    if (p->clip >= 0 && p->model->clips[p->clip].duration > 0.0f)
        p->time = fmod(p->time, p->model->clips[p->clip].duration);
}

void app_player_switch(app_player *p, int32_t clip, double fade)
{
    if (clip == p->clip)
        return;
    p->from_clip = p->clip;
    p->from_time = p->time;
    uint32_t *c = p->cursor_from;
    p->cursor_from = p->cursor;
    p->cursor = c;
    memset(p->cursor, 0, sizeof *p->cursor * vks_cursor_size(&p->model->skeleton));
    p->clip = clip;
    p->time = 0.0;
    p->fade = p->fade_left = fade;
}

static void sample(const vks_model *m, int32_t clip, double time, uint32_t *cursor,
                   vks_xform *local)
{
    if (clip < 0) {
        vks_pose_rest(&m->skeleton, local);
        return;
    }
    const vks_clip *c = &m->clips[clip];
    vks_clip_sample(&m->skeleton, c, vks_clip_time(c, time, VKS_WRAP_LOOP), cursor, local);
}

void app_player_palette(app_player *p, vks_bone *palette)
{
    const vks_model *m = p->model;
    sample(m, p->clip, p->time, p->cursor, p->local);
    if (p->fade_left > 0.0) {
        sample(m, p->from_clip, p->from_time, p->cursor_from, p->local_from);
        float w = (float)(1.0 - p->fade_left / p->fade); /* 0 -> 1 towards the new clip */
        vks_pose_blend(p->local_from, p->local, w, m->skeleton.joint_count, p->local);
    }
    vks_pose_palette(&m->skeleton, p->local, p->scratch, palette);
}
