#include "show.h"
#include "output.h"

#include <errno.h>
#include <strings.h>
#include <sys/stat.h>
#include <stb/stb_image_write.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

extern const unsigned char vks_default_glb[];
extern const size_t vks_default_glb_size;

vkskin_result app_load(const char *path, const char *motion_joint, vkskin_model **model,
                       vkskin_error *err)
{
    const vkskin_model_desc desc = path
                                       ? (vkskin_model_desc){.desc_size = sizeof(vkskin_model_desc),
                                                             .path = path,
                                                             .isolate = true,
                                                             .motion_joint = motion_joint}
                                       : (vkskin_model_desc){.desc_size = sizeof(vkskin_model_desc),
                                                             .data = vks_default_glb,
                                                             .size = vks_default_glb_size,
                                                             .format_hint = "glb",
                                                             .name = "default character",
                                                             .isolate = true,
                                                             .motion_joint = motion_joint};
    return vkskin_model_load(&desc, model, err);
}

bool app_parse_root_motion(const char *text, bool *on, vkskin_error *err)
{
    *on = text && strcmp(text, "on") == 0;
    if (text && !*on && strcmp(text, "off") != 0)
        return app_fail(err, "--root-motion needs on or off, not '%s'", text);
    return true;
}

void app_warn_still_clips(const char *cmd, vkskin_model *const *models, const int32_t *clips,
                          uint32_t count)
{
    for (uint32_t m = 0; m < count; m++) {
        vkskin_model_info info;
        vkskin_model_get_info(models[m], &info, NULL);
        const bool every = clips[m] == VKSKIN_CLIP_VARIED;
        uint32_t still = 0, first = 0;
        for (uint32_t c = 0; c < info.clip_count; c++) {
            if (!every && (int32_t)c != clips[m])
                continue;
            vkskin_travel_info t;
            if (vkskin_model_get_travel(models[m], c, &t, NULL) == VKSKIN_OK && !t.travels)
                first = still++ ? first : c;
        }
        if (!still)
            continue;
        vkskin_clip_info ci = {.name = ""};
        vkskin_model_get_clip(models[m], first, &ci, NULL);
        if (still == 1)
            fprintf(stderr,
                    "vkskin %s: warning: %s: clip '%s' travels nothing: it plays in place\n", cmd,
                    info.name, app_quote(ci.name).text);
        else
            fprintf(stderr,
                    "vkskin %s: warning: %s: %u of its clips travel nothing ('%s' the first): "
                    "they play in place\n",
                    cmd, info.name, still, app_quote(ci.name).text);
    }
}

bool app_show_load(app_show *s, const char *cmd, const char *model, const app_crowd_args *a,
                   vkskin_error *err)
{
    *s = (app_show){.cmd = cmd};
    const char *paths[VKSKIN_MAX_MODELS + 1];
    uint32_t n = 0;
    if (model || a->model_list_count == 0)
        paths[n++] = model; /* NULL: the default character */
    for (uint32_t i = 0; i < a->model_list_count; i++)
        paths[n++] = a->model_list[i];
    if (n > VKSKIN_MAX_MODELS)
        return app_fail(err, "at most %u models in a crowd", VKSKIN_MAX_MODELS);
    for (uint32_t i = 0; i < n; i++) {
        vkskin_error e;
        if (app_load(paths[i], a->motion_joint, &s->models[i], &e) != VKSKIN_OK) {
            app_show_destroy(s);
            return app_fail(err, "%s", e.message);
        }
        s->model_count++;
        /* Once, here: what the import tolerated (a dropped clip, a missing texture) is worth
         * knowing before looking at the picture. */
        vkskin_model_info info;
        vkskin_model_get_info(s->models[i], &info, NULL);
        for (uint32_t w = 0; w < info.warning_count; w++)
            fprintf(stderr, "vkskin %s: warning: %s: %s\n", cmd, info.name,
                    vkskin_model_get_warning(s->models[i], w));
    }
    return true;
}

void app_show_model_names(const app_show *s, const char *separator, char *out, size_t size)
{
    out[0] = '\0';
    for (uint32_t m = 0, at = 0; m < s->model_count && at < size; m++) {
        vkskin_model_info info;
        vkskin_model_get_info(s->models[m], &info, NULL);
        at += (uint32_t)snprintf(out + at, size - at, "%s%s", m ? separator : "", info.name);
    }
}

/* The clips' names for a message, quoted (each cut to 40 characters), as many as fit in `room`
 * characters (one at least), then "and N more". */
static void clip_names(const vkskin_model *model, uint32_t count, size_t room, char *out,
                       size_t size)
{
    size_t at = 0;
    uint32_t c = 0;
    out[0] = '\0';
    for (; c < count; c++) {
        vkskin_clip_info ci = {.name = ""};
        vkskin_model_get_clip(model, c, &ci, NULL);
        char name[56];
        const int length =
            snprintf(name, sizeof name, "%s'%s'", c ? ", " : "", app_quote(ci.name).text);
        if (c && at + (size_t)length > room)
            break;
        at += (size_t)snprintf(out + at, size - at, "%s", name);
    }
    if (c < count)
        snprintf(out + at, size - at, " and %u more: see vkskin info", count - c);
}

/* The name of the model's clip that equals `name` but for case, or NULL. */
static const char *clip_like(const vkskin_model *model, uint32_t count, const char *name)
{
    for (uint32_t c = 0; c < count; c++) {
        vkskin_clip_info ci = {.name = ""};
        vkskin_model_get_clip(model, c, &ci, NULL);
        if (strcasecmp(ci.name, name) == 0)
            return ci.name;
    }
    return NULL;
}

/* No clip `clip` in a model with clips: the message names them, the first several of many (the
 * line stays within about 200 characters), and the one `clip` matches but for case. */
static bool unknown_clip(const vkskin_model *model, const vkskin_model_info *info, const char *clip,
                         vkskin_error *err)
{
    const char *like = clip_like(model, info->clip_count, clip);
    char head[256];
    const int length = snprintf(head, sizeof head, "%s has no clip '%s'%s%s%s", info->name,
                                app_quote(clip).text, like ? ": did you mean '" : "",
                                like ? app_quote(like).text : "", like ? "'?" : "");
    char names[160];
    clip_names(model, info->clip_count, length < 100 ? (size_t)(140 - length) : 40, names,
               sizeof names);
    char indices[48] = "";
    if (clip[0] && strspn(clip, "0123456789") == strlen(clip))
        snprintf(indices, sizeof indices, ", numbered 0 to %u", info->clip_count - 1);
    return app_fail(err, "%s (it has %u%s: %s)", head, info->clip_count, indices, names);
}

bool app_show_find_clip(const vkskin_model *model, const char *clip, int32_t *index,
                        vkskin_error *err)
{
    vkskin_model_info info;
    vkskin_model_get_info(model, &info, NULL);
    if (!clip) {
        *index = info.clip_count ? 0 : -1;
        return true;
    }
    /* "none" is the bind pose, unless the model has a clip of that name (--bind-pose is not). */
    if (clip == app_bind_pose ||
        (strcmp(clip, app_bind_pose) == 0 && vkskin_model_find_clip(model, clip) < 0)) {
        *index = -1;
        return true;
    }
    if (!info.clip_count)
        return app_fail(err, "%s has no clips, so there is no clip '%s'", info.name, clip);
    *index = vkskin_model_find_clip(model, clip);
    return *index >= 0 || unknown_clip(model, &info, clip, err);
}

bool app_show_start(app_show *s, const app_crowd_args *a, const char *clip, double time,
                    const vkskin_renderer_desc *check, vkskin_error *err)
{
    int32_t clips[VKSKIN_MAX_MODELS];
    for (uint32_t m = 0; m < s->model_count; m++) {
        clips[m] = VKSKIN_CLIP_VARIED;
        if ((clip || a->instances == 1) && !app_show_find_clip(s->models[m], clip, &clips[m], err))
            return false;
    }
    uint32_t threads = a->threads;
    if (!threads) { /* one per core this process may run on */
        threads = vkskin_cores();
        threads = threads < 256 ? threads : 256;
    }
    const vkskin_crowd_desc desc = {
        .desc_size = sizeof(vkskin_crowd_desc),
        .models = (const vkskin_model *const *)s->models,
        .model_count = s->model_count,
        .instance_count = a->instances,
        .layout = a->layout,
        .clips = clips,
        .time = time,
        .seed = 1,
        .normalize_height = !a->no_normalize,
        .threads = threads,
        .skinning = a->skinning,
        .root_motion = a->root_motion,
    };
    if (a->root_motion)
        app_warn_still_clips(s->cmd, s->models, clips, s->model_count);
    s->street = a->street;
    vkskin_error e;
    /* Whether the renderer will fit, on counts, before the crowd takes any memory. */
    if ((check && vkskin_renderer_check(check, &desc, &e) != VKSKIN_OK) ||
        vkskin_crowd_create(&desc, &s->crowd, &e) != VKSKIN_OK)
        return app_fail(err, "%s", e.message);
    /* Under way from the first frame: facing their velocities, in their gaits. */
    return app_motion_start(&s->motion, a->motion, s->crowd, desc.seed, err) &&
           (a->motion == APP_MOTION_NONE || app_show_advance(s, 0.0, err));
}

void app_show_view(const app_show *s, const vkskin_orbit *orbit, vkskin_view *view)
{
    if (s->street)
        vkskin_crowd_street_view(s->crowd, orbit->aspect, view, NULL);
    else
        vkskin_crowd_orbit_view(s->crowd, orbit, view, NULL);
}

bool app_show_advance(app_show *s, double dt, vkskin_error *err)
{
    const double start = vks_now_ms();
    const bool moved = app_motion_step(&s->motion, s->crowd, dt, err);
    s->motion_ms += vks_now_ms() - start;
    return moved && vkskin_crowd_advance(s->crowd, dt, err) == VKSKIN_OK;
}

void app_show_destroy(app_show *s)
{
    app_motion_destroy(&s->motion);
    vkskin_crowd_destroy(s->crowd);
    for (uint32_t i = 0; i < s->model_count; i++)
        vkskin_model_destroy(s->models[i]);
    *s = (app_show){0};
}

vkskin_renderer_desc app_show_renderer_desc(const app_show *s, const app_crowd_args *a,
                                            const app_gpu_options *gpu, uint32_t width,
                                            uint32_t height)
{
    return (vkskin_renderer_desc){
        .desc_size = sizeof(vkskin_renderer_desc),
        .crowd = s->crowd,
        .device = gpu->device_id,
        .validate = gpu->validate,
        .width = width,
        .height = height,
        .mode = a->mode,
        .binding = a->binding,
        .palettes = a->palettes,
        .max_skinned_vertices = a->max_skinned_vertices,
        .max_memory_mib = a->max_memory_mib,
        .fixed_lod = a->lod >= 0,
        .lod = a->lod >= 0 ? (uint32_t)a->lod : 0,
        .lod_error_px = a->lod_error,
        .pose_every_frame = !a->anim_lod,
        .raster = a->raster,
        .raster_triangle_px = a->raster_px,
        .splat_density = a->splat_density > 0.0f ? a->splat_density : 0.0f,
        .no_splats = a->splat_density == 0.0f,
    };
}

int app_show_close(const char *cmd, vkskin_renderer *r, int rc)
{
    vkskin_messages m;
    vkskin_renderer_destroy(r, &m); /* vkDestroyInstance may report too */
    if (m.errors || m.warnings) {
        fprintf(stderr, "vkskin %s: validation reported %u error(s) and %u warning(s)\n", cmd,
                m.errors, m.warnings);
        return APP_FAILED;
    }
    return rc;
}

void app_show_overflow_add(app_overflow *o, const vkskin_frame_info *f)
{
    if (f->dropped) {
        o->dropped_frames++;
        o->most_dropped = f->dropped > o->most_dropped ? f->dropped : o->most_dropped;
    }
    if (!f->overflow)
        return;
    o->frames++;
    if (f->overflow > o->most) {
        o->most = f->overflow;
        o->most_vertices = f->overflow_vertices;
    }
}

void app_show_overflow_report(const char *cmd, const vkskin_renderer *r, const app_overflow *o)
{
    if (o->dropped_frames)
        fprintf(stderr,
                "vkskin %s: warning: in %u frame(s) the palette store (4 buffers at most, as "
                "memory allows) could not hold every visible instance's palette: up to %u "
                "instances were left out\n",
                cmd, o->dropped_frames, o->most_dropped);
    if (!o->frames)
        return;
    vkskin_renderer_info info;
    vkskin_renderer_get_info(r, &info, NULL);
    fprintf(stderr,
            "vkskin %s: warning: in %u frame(s) the visible instances did not all fit the skinned "
            "output (room for %llu vertices; --max-skinned-vertices): up to %u instances (%llu "
            "vertices) were skinned in the vertex shader instead\n",
            cmd, o->frames, (unsigned long long)info.max_skinned_vertices, o->most,
            (unsigned long long)o->most_vertices);
}

/* The format --out's name asks for: 1 PNG, 2 JPEG, 0 none vkskin writes. */
static int image_format(const char *path)
{
    if (strcmp(path, "-") == 0)
        return 1;
    const char *dot = strrchr(path, '.'), *slash = strrchr(path, '/');
    if (!dot || (slash && dot < slash))
        return 0;
    if (strcasecmp(dot, ".png") == 0)
        return 1;
    if (strcasecmp(dot, ".jpg") == 0 || strcasecmp(dot, ".jpeg") == 0)
        return 2;
    return 0;
}

int app_check_out(const char *out, uint32_t frames, vkskin_error *err)
{
    if (!image_format(out)) {
        app_fail(err, "--out needs a .png, .jpg or .jpeg file, or - for standard output, not '%s'",
                 out);
        return APP_USAGE;
    }
    if (strcmp(out, "-") == 0) {
        if (frames > 1) {
            app_fail(err, "--out - writes one image: --frames must be 1, not %u", frames);
            return APP_USAGE;
        }
        return APP_OK;
    }
    return app_check_writable(out, frames, err);
}

int app_check_writable(const char *out, uint32_t files, vkskin_error *err)
{
    /* The folder must take a new file, and the file (each of a sequence's, whose names differ
     * only in the number) be writable if it is there already. */
    char folder[4096];
    const char *slash = strrchr(out, '/');
    if (!slash)
        snprintf(folder, sizeof folder, ".");
    else if (slash == out)
        snprintf(folder, sizeof folder, "/");
    else
        snprintf(folder, sizeof folder, "%.*s", (int)(slash - out), out);
    struct stat st;
    if (files == 1 && stat(out, &st) == 0 && S_ISDIR(st.st_mode)) {
        app_fail(err, "cannot write '%s': %s", out, strerror(EISDIR));
        return APP_FAILED;
    }
    errno = 0;
    if (stat(folder, &st) != 0 || !S_ISDIR(st.st_mode) || access(folder, W_OK | X_OK) != 0 ||
        (files == 1 && access(out, F_OK) == 0 && access(out, W_OK) != 0)) {
        app_fail(err, "cannot write '%s': %s", out,
                 errno ? strerror(errno) : "its folder is not a folder");
        return APP_FAILED;
    }
    return APP_OK;
}

bool app_encode_image(const char *path, uint32_t width, uint32_t height, const void *rgba,
                      app_buffer *b, vkskin_error *err)
{
    /* JPEG has no alpha to keep: the image is opaque. Quality 92, as most tools default to. */
    const int w = (int)width, h = (int)height;
    *b = (app_buffer){0};
    const int encoded = image_format(path) == 2
                            ? stbi_write_jpg_to_func(app_buffer_write, b, w, h, 4, rgba, 92)
                            : stbi_write_png_to_func(app_buffer_write, b, w, h, 4, rgba, w * 4);
    if (!encoded || b->failed) {
        free(b->data);
        *b = (app_buffer){0};
        return app_fail(err, "cannot write '%s': out of memory encoding a %ux%u image", path, width,
                        height);
    }
    return true;
}

bool app_write_image(const char *path, uint32_t width, uint32_t height, const void *rgba,
                     vkskin_error *err)
{
    app_buffer b;
    const bool ok = app_encode_image(path, width, height, rgba, &b, err) &&
                    app_write_file(path, b.data, b.size, false, err);
    free(b.data);
    return ok;
}

bool app_gpu_check(app_gpu_options *options, vkskin_error *err)
{
    uint32_t index = 0;
    if (options->device && !app_parse_count("--device", options->device, 0, INT32_MAX, &index, err))
        return false;
    options->device_id = options->device ? index + 1 : 0;
    return true;
}

bool app_parse_skinning(const char *text, vkskin_skinning *out, vkskin_error *err)
{
    *out = VKSKIN_SKINNING_LINEAR;
    if (text && strcmp(text, "dual-quaternion") == 0)
        *out = VKSKIN_SKINNING_DUAL_QUATERNION;
    else if (text && strcmp(text, "linear") != 0)
        return app_fail(err, "--skinning needs linear or dual-quaternion, not '%s'", text);
    return true;
}

static bool parse_mode(const char *text, vkskin_skin_mode *mode, vkskin_error *err)
{
    if (!text || strcmp(text, "compute") == 0)
        *mode = VKSKIN_SKIN_COMPUTE;
    else if (strcmp(text, "vertex") == 0)
        *mode = VKSKIN_SKIN_VERTEX;
    else
        return app_fail(err, "--mode needs compute or vertex, not '%s'", text);
    return true;
}

static bool parse_binding(const char *text, vkskin_binding *binding, vkskin_error *err)
{
    if (!text)
        *binding = VKSKIN_BINDING_AUTO;
    else if (strcmp(text, "addresses") == 0)
        *binding = VKSKIN_BINDING_ADDRESSES;
    else if (strcmp(text, "descriptors") == 0)
        *binding = VKSKIN_BINDING_DESCRIPTORS;
    else
        return app_fail(err, "--binding needs addresses or descriptors, not '%s'", text);
    return true;
}

void app_format_levels(const uint32_t level_instances[VKSKIN_MAX_LEVELS], char *text, size_t size)
{
    size_t at = 0;
    text[0] = '\0';
    for (uint32_t l = 0; l < VKSKIN_MAX_LEVELS && at < size; l++)
        if (level_instances[l])
            at += (size_t)snprintf(text + at, size - at, "%slevel %u: %u", at ? ", " : "", l,
                                   level_instances[l]);
    if (!at)
        snprintf(text, size, "none");
}

bool app_crowd_check(app_crowd_args *a, vkskin_error *err)
{
    a->instances = 1;
    a->layout = VKSKIN_LAYOUT_GRID;
    if (a->instances_text && !app_parse_count("--instances", a->instances_text, 1,
                                              VKSKIN_MAX_INSTANCES, &a->instances, err))
        return false;
    if (!parse_mode(a->mode_text, &a->mode, err))
        return false;
    if (!app_parse_skinning(a->skinning_text, &a->skinning, err) ||
        !app_parse_root_motion(a->root_motion_text, &a->root_motion, err) ||
        !app_parse_motion(a->motion_text, &a->motion, err))
        return false;
    a->street = a->camera_text && strcmp(a->camera_text, "street") == 0;
    if (a->camera_text && !a->street && strcmp(a->camera_text, "framed") != 0)
        return app_fail(err, "--camera needs framed or street, not '%s'", a->camera_text);
    a->palettes = VKSKIN_PALETTES_STORE;
    if (a->palettes_text && strcmp(a->palettes_text, "host") == 0)
        a->palettes = VKSKIN_PALETTES_HOST;
    else if (a->palettes_text && strcmp(a->palettes_text, "store") != 0)
        return app_fail(err, "--palettes needs store or host, not '%s'", a->palettes_text);
    if (!parse_binding(a->binding_text, &a->binding, err))
        return false;
    if (a->max_skinned_text && !app_parse_count("--max-skinned-vertices", a->max_skinned_text, 1,
                                                INT32_MAX, &a->max_skinned_vertices, err))
        return false;
    if (a->max_memory_text &&
        !app_parse_count("--max-memory", a->max_memory_text, 1, 1u << 24, &a->max_memory_mib, err))
        return false;
    uint32_t lod = 0;
    if (a->lod_text && !app_parse_count("--lod", a->lod_text, 0, VKSKIN_MAX_LEVELS - 1, &lod, err))
        return false;
    a->lod = a->lod_text ? (int32_t)lod : -1;
    if (a->anim_lod_text && strcmp(a->anim_lod_text, "on") != 0 &&
        strcmp(a->anim_lod_text, "off") != 0)
        return app_fail(err, "--anim-lod needs on or off, not '%s'", a->anim_lod_text);
    a->anim_lod = !a->anim_lod_text || strcmp(a->anim_lod_text, "on") == 0;
    a->lod_error = APP_LOD_ERROR_PX;
    if (a->lod_error_text) {
        double v;
        if (!app_parse_real("--lod-error", a->lod_error_text, "a number of pixels", 0.01, 1000.0,
                            &v, err))
            return false;
        a->lod_error = (float)v;
    }
    a->raster = VKSKIN_RASTER_AUTO;
    if (a->raster_text) {
        if (strcmp(a->raster_text, "hardware") == 0)
            a->raster = VKSKIN_RASTER_HARDWARE;
        else if (strcmp(a->raster_text, "compute") == 0)
            a->raster = VKSKIN_RASTER_COMPUTE;
        else if (strcmp(a->raster_text, "hybrid") == 0)
            a->raster = VKSKIN_RASTER_HYBRID;
        else
            return app_fail(err, "--raster needs hardware, compute or hybrid, not '%s'",
                            a->raster_text);
        if (a->raster != VKSKIN_RASTER_HARDWARE && a->mode != VKSKIN_SKIN_COMPUTE)
            return app_fail(err,
                            "--raster %s rasterizes the compute pass's output: it needs "
                            "--mode compute",
                            a->raster_text);
    }
    a->raster_px = 0.0f;
    if (a->raster_px_text) {
        double v;
        if (!app_parse_real("--raster-px", a->raster_px_text, "a number of square pixels", 0.01,
                            1e6, &v, err))
            return false;
        a->raster_px = (float)v;
    }
    a->splat_density = -1.0f;
    if (a->splat_density_text) {
        double v;
        if (!app_parse_real("--splat-density", a->splat_density_text,
                            "a number of triangles per pixel", 0.0, 1e6, &v, err))
            return false;
        a->splat_density = (float)v;
    }
    if (a->layout_text) {
        if (strcmp(a->layout_text, "grid") == 0)
            a->layout = VKSKIN_LAYOUT_GRID;
        else if (strcmp(a->layout_text, "ring") == 0)
            a->layout = VKSKIN_LAYOUT_RING;
        else
            return app_fail(err, "--layout needs grid or ring, not '%s'", a->layout_text);
    }
    return true;
}
