#include "gpu_app.h"

#include "anim/anim.h"

#include <cglm/cam.h>
#include <cglm/clipspace/persp_rh_zo.h>
#include <cglm/clipspace/view_rh.h>
#include <cglm/mat4.h>

#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

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

double app_now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}

static int compare_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double app_median(double *v, uint32_t n)
{
    qsort(v, n, sizeof *v, compare_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

static bool parse_mode(const char *text, vks_skin_mode *mode, vks_error *err)
{
    if (!text || strcmp(text, "compute") == 0)
        *mode = VKS_SKIN_COMPUTE;
    else if (strcmp(text, "vertex") == 0)
        *mode = VKS_SKIN_VERTEX;
    else
        return vks_fail(err, "--mode needs compute or vertex, not '%s'", text);
    return true;
}

bool app_parse_zoom(const char *text, double *zoom, vks_error *err)
{
    char *end;
    double v = strtod(text, &end);
    if (end == text || *end || !(v >= 0.01 && v <= 100.0))
        return vks_fail(err, "--zoom needs a number from 0.01 to 100, not '%s'", text);
    *zoom = v;
    return true;
}

/* ---- The crowd ---- */

vks_renderer_desc app_crowd_renderer_desc(const app_crowd_args *a, const vks_crowd *crowd,
                                          VkFormat color_format)
{
    return (vks_renderer_desc){.crowd = crowd,
                               .color_format = color_format,
                               .mode = a->mode,
                               .palettes_on_device = a->palettes_on_device,
                               .max_skinned_vertices = a->max_skinned_vertices,
                               .memory_limit = (VkDeviceSize)a->max_memory_mib << 20};
}

uint64_t app_frame_vertices(const vks_crowd *c, const vks_frame *f, uint32_t first, uint32_t count)
{
    uint64_t n = 0;
    for (uint32_t s = first; s < first + count; s++)
        n += vks_model_level(c->models[c->instances[f->order[s]].model], f->order_level[s])
                 .vertex_count;
    return n;
}

void app_format_levels(const uint32_t level_instances[VKS_MAX_LEVELS], char *text, size_t size)
{
    size_t at = 0;
    text[0] = '\0';
    for (uint32_t l = 0; l < VKS_MAX_LEVELS && at < size; l++)
        if (level_instances[l])
            at += (size_t)snprintf(text + at, size - at, "%slevel %u: %u", at ? ", " : "", l,
                                   level_instances[l]);
    if (!at)
        snprintf(text, size, "none");
}

void app_overflow_add(app_overflow *o, const vks_frame *f)
{
    if (!f->overflow_count)
        return;
    o->frames++;
    if (f->overflow_count > o->most) {
        o->most = f->overflow_count;
        o->most_vertices = f->overflow_vertices;
    }
}

void app_overflow_report(const char *cmd, const vks_renderer *r, const app_overflow *o)
{
    if (!o->frames)
        return;
    fprintf(stderr,
            "vkskin %s: warning: in %u frame(s) the visible instances did not all fit the skinned "
            "output (room for %llu vertices; --max-skinned-vertices): up to %u instances (%llu "
            "vertices) were skinned in the vertex shader instead\n",
            cmd, o->frames,
            (unsigned long long)(r->memory.output_bytes / vks_plan_vertex_bytes(r->crowd)), o->most,
            (unsigned long long)o->most_vertices);
}

bool app_crowd_check(app_crowd_args *a, vks_error *err)
{
    a->instances = 1;
    a->layout = VKS_CROWD_GRID;
    if (a->instances_text && !app_parse_count("--instances", a->instances_text, 1,
                                              VKS_CROWD_MAX_INSTANCES, &a->instances, err))
        return false;
    if (!parse_mode(a->mode_text, &a->mode, err))
        return false;
    a->palettes_on_device = a->palettes_text && strcmp(a->palettes_text, "device") == 0;
    if (a->palettes_text && !a->palettes_on_device && strcmp(a->palettes_text, "host") != 0)
        return vks_fail(err, "--palettes needs host or device, not '%s'", a->palettes_text);
    if (a->max_skinned_text && !app_parse_count("--max-skinned-vertices", a->max_skinned_text, 1,
                                                INT32_MAX, &a->max_skinned_vertices, err))
        return false;
    if (a->max_memory_text &&
        !app_parse_count("--max-memory", a->max_memory_text, 1, 1u << 24, &a->max_memory_mib, err))
        return false;
    uint32_t lod = 0;
    if (a->lod_text && !app_parse_count("--lod", a->lod_text, 0, VKS_MAX_LEVELS - 1, &lod, err))
        return false;
    a->lod = a->lod_text ? (int32_t)lod : -1;
    if (a->anim_lod_text && strcmp(a->anim_lod_text, "on") != 0 &&
        strcmp(a->anim_lod_text, "off") != 0)
        return vks_fail(err, "--anim-lod needs on or off, not '%s'", a->anim_lod_text);
    a->anim_lod = !a->anim_lod_text || strcmp(a->anim_lod_text, "on") == 0;
    a->lod_error = APP_LOD_ERROR_PX;
    if (a->lod_error_text) {
        char *end;
        double v = strtod(a->lod_error_text, &end);
        if (end == a->lod_error_text || *end || !(v >= 0.01 && v <= 1000.0))
            return vks_fail(err, "--lod-error needs a number of pixels from 0.01 to 1000, not '%s'",
                            a->lod_error_text);
        a->lod_error = (float)v;
    }
    if (a->layout_text) {
        if (strcmp(a->layout_text, "grid") == 0)
            a->layout = VKS_CROWD_GRID;
        else if (strcmp(a->layout_text, "ring") == 0)
            a->layout = VKS_CROWD_RING;
        else
            return vks_fail(err, "--layout needs grid or ring, not '%s'", a->layout_text);
    }
    return true;
}

bool app_scene_load(app_scene *s, const char *cmd, const char *model, const app_crowd_args *a,
                    vks_error *err)
{
    *s = (app_scene){0};
    const char *paths[VKS_CROWD_MAX_MODELS + 1];
    uint32_t n = 0;
    if (model || a->model_list_count == 0)
        paths[n++] = model; /* NULL: the default character */
    for (uint32_t i = 0; i < a->model_list_count; i++)
        paths[n++] = a->model_list[i];
    if (n > VKS_CROWD_MAX_MODELS)
        return vks_fail(err, "at most %u models in a crowd", VKS_CROWD_MAX_MODELS);
    for (uint32_t i = 0; i < n; i++) {
        if (!app_load_model(paths[i], &s->models[i], err)) {
            app_scene_destroy(s);
            return false;
        }
        s->model_count++;
        /* Once, here: what the import tolerated (a dropped clip, a missing texture) is worth
         * knowing before looking at the picture. */
        const vks_model *m = &s->models[i];
        for (uint32_t w = 0; w < m->warning_count; w++)
            fprintf(stderr, "vkskin %s: warning: %s: %s\n", cmd, m->name, m->warnings[w]);
    }
    return true;
}

bool app_scene_start(app_scene *s, const app_crowd_args *a, const char *clip, double time,
                     vks_error *err)
{
    const vks_model *models[VKS_CROWD_MAX_MODELS];
    int32_t clips[VKS_CROWD_MAX_MODELS];
    for (uint32_t m = 0; m < s->model_count; m++) {
        models[m] = &s->models[m];
        clips[m] = VKS_CROWD_VARIED_CLIP;
        if ((clip || a->instances == 1) && !app_find_clip(&s->models[m], clip, &clips[m], err))
            return false;
    }
    if (!vks_pool_create(a->threads, &s->pool, err))
        return false;
    vks_crowd_desc desc = {
        .models = models,
        .model_count = s->model_count,
        .clips = clips,
        .instance_count = a->instances,
        .layout = a->layout,
        .time = time,
        .threads = vks_pool_threads(s->pool),
        .seed = 1,
        .keep_poses = a->anim_lod,
    };
    if (!vks_crowd_create(&desc, &s->crowd, err))
        return false;
    s->lod = a->lod;
    s->lod_error = a->lod_error;
    s->anim_lod = a->anim_lod;
    if (a->anim_lod && !(s->periods = malloc(s->crowd.instance_count)))
        return vks_fail_memory(err, "out of memory");
    s->start = malloc(sizeof *s->start * s->crowd.instance_count);
    if (!s->start)
        return vks_fail_memory(err, "out of memory");
    memcpy(s->start, s->crowd.instances, sizeof *s->start * s->crowd.instance_count);
    return true;
}

void app_scene_reset(app_scene *s)
{
    /* The key cursors are hints: stale ones only cost a binary search. */
    memcpy(s->crowd.instances, s->start, sizeof *s->start * s->crowd.instance_count);
}

void app_scene_destroy(app_scene *s)
{
    if (s->crowd.instances)
        vks_crowd_destroy(&s->crowd);
    vks_pool_destroy(s->pool);
    free(s->start);
    free(s->periods);
    for (uint32_t i = 0; i < s->model_count; i++)
        vks_model_destroy(&s->models[i]);
    *s = (app_scene){0};
}

void app_scene_animate(app_scene *s, vks_frame *f, const app_camera *cam, uint32_t width,
                       uint32_t height)
{
    vks_frame_uniforms uniforms;
    vks_lod_view lod = {.max_error_px = s->lod_error, .force = s->lod};
    app_camera_uniforms(cam, (float)width / (float)height, &uniforms);
    app_camera_lod_view(cam, (float)width / (float)height, height, &lod);
    *f->uniforms = uniforms;
    f->visible_count = vks_crowd_cull(&s->crowd, (const float(*)[4])uniforms.view_proj, f->visible);
    s->visible = f->visible;
    s->visible_count = f->visible_count;
    vks_crowd_choose_lods(&s->crowd, &lod, f->visible, f->visible_count, f->level);
    if (s->anim_lod)
        vks_crowd_anim_periods(&s->crowd, &lod, f->visible, f->visible_count, s->periods);
    s->posed = vks_crowd_animate(&s->crowd, s->pool, f->visible, s->anim_lod ? s->periods : NULL,
                                 f->visible_count, s->frame++, f->palette);
}

/* ---- Camera ---- */

void app_camera_frame(app_camera *cam, const vks_crowd *crowd)
{
    vks_camera_frame(cam, crowd);
}

void app_camera_lod_view(const app_camera *cam, float aspect, uint32_t height, vks_lod_view *view)
{
    vks_camera_eye(cam, aspect, view->eye);
    view->pixels_per_unit = (float)height / (2.0f * tanf(glm_rad(VKS_CAMERA_FOV_DEGREES) * 0.5f));
}

void app_camera_uniforms(const app_camera *cam, float aspect, vks_frame_uniforms *out)
{
    vks_camera_view_proj(cam, aspect, out->view_proj);

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
