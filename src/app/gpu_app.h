/* What the GPU subcommands (view, render, dump, bench) share: the --device and --validate options,
 * the device they open, the validation verdict at the end, the crowd and its camera. */
#ifndef VKS_APP_GPU_H
#define VKS_APP_GPU_H

#include "app.h"
#include "gpu/gpu.h"
#include "render/renderer.h"
#include "scene/camera.h"

typedef struct app_gpu_options {
    const char *device; /* index from `vkskin devices`, NULL: the best */
    bool validate;      /* also on with VKSKIN_VALIDATE=1 */
} app_gpu_options;

#define APP_GPU_OPTIONS(o)                                                                         \
    {"device", &(o).device, NULL, "N", "Vulkan device to use (see vkskin devices)"},               \
    {                                                                                              \
        "validate", NULL, &(o).validate, NULL,                                                     \
            "Khronos validation + synchronization validation (or VKSKIN_VALIDATE=1); any error "   \
            "or "                                                                                  \
            "warning fails the run"                                                                \
    }

/* Checks the options' syntax (a usage error), before anything is loaded. */
bool app_gpu_check(const app_gpu_options *options, vks_error *err);

/* Opens the device. `window` (may be NULL) adds what a window needs. Prints nothing. */
bool app_gpu_open(const app_gpu_options *options, const gpu_device_desc *window, gpu_device *dev,
                  vks_error *err);

/* Closes the device. When validation reported errors or warnings, prints their count and returns
 * APP_FAILED; otherwise returns rc. */
int app_gpu_close(const char *cmd, gpu_device *dev, int rc);

/* Parses WxH (each 1..16384). */
bool app_parse_size(const char *text, uint32_t *width, uint32_t *height, vks_error *err);
/* Parses a count in [min, max] for option `name`. */
bool app_parse_count(const char *name, const char *text, uint32_t min, uint32_t max,
                     uint32_t *value, vks_error *err);

/* ---- The crowd: its models, its instances, and the threads that animate them ---- */

/* --lod-error's default, in pixels: the largest of 1, 0.5, 0.25 and 0.2 at which 400 CesiumMan
 * at 1920x1080 draw within the image test's bounds (at most 1% of pixels off by more than 24/255,
 * silhouettes within 2%; tests/cli_lod.sh, README "Levels of detail"): meshoptimizer's error
 * bounds how far vertices move, not how far the texture slides across the surface. */
#define APP_LOD_ERROR_PX 0.2f

typedef struct app_crowd_args {
    const char *model_list[VKS_CROWD_MAX_MODELS]; /* each --model */
    uint32_t model_list_count;
    const char *instances_text, *layout_text, *mode_text, *palettes_text;
    const char *max_skinned_text, *max_memory_text, *lod_text, *lod_error_text, *anim_lod_text;
    bool anim_lod;   /* --anim-lod on (default) | off: far instances posed every 2nd or 4th frame */
    int32_t lod;     /* --lod N: every instance at level N; -1 (default): chosen per instance */
    float lod_error; /* --lod-error PX: the screen-space error a level may show */
    uint32_t instances;            /* parsed by app_crowd_check */
    uint32_t max_skinned_vertices; /* --max-skinned-vertices; 0: chosen from the device */
    uint32_t max_memory_mib;       /* --max-memory; 0: the device's */
    vks_skin_mode mode;            /* parsed by app_crowd_check */
    bool palettes_on_device;       /* --palettes device */
    uint32_t threads;              /* of the animation; 0: one per core */
    vks_crowd_layout layout;
} app_crowd_args;

#define APP_CROWD_OPTIONS(a)                                                                       \
    {"instances", &(a).instances_text, NULL, "N", "how many characters (default 1)"},              \
        {"layout", &(a).layout_text, NULL, "grid|ring", "where they stand (default grid)"},        \
        {"mode", &(a).mode_text, NULL, "compute|vertex",                                           \
         "skin in a compute pass (default) or in the vertex shader"},                              \
        {"palettes", &(a).palettes_text, NULL, "host|device",                                      \
         "shaders read palettes from host memory (default) or a per-frame device copy"},           \
        {"max-skinned-vertices", &(a).max_skinned_text, NULL, "N",                                 \
         "room for N skinned vertices a frame (default: from the device's memory); visible "       \
         "instances past it are skinned in the vertex shader"},                                    \
        {"lod", &(a).lod_text, NULL, "N",                                                          \
         "draw every instance at level of detail N (0: full detail; default: chosen per "          \
         "instance, see --lod-error)"},                                                            \
        {"anim-lod", &(a).anim_lod_text, NULL, "on|off",                                           \
         "pose far instances every 2nd or 4th frame, staggered (default on)"},                     \
        {"lod-error", &(a).lod_error_text, NULL, "PX",                                             \
         "the coarsest level whose error projects to at most PX pixels is drawn (default 0.2)"},   \
        {"max-memory", &(a).max_memory_text, NULL, "MIB",                                          \
         "plan as if each memory heap of the device had at most MIB mebibytes"},                   \
    {                                                                                              \
        "model", NULL, NULL, "FILE",                                                               \
            "a model for the crowd, besides MODEL; repeat it to mix models (instances alternate)", \
            (a).model_list, &(a).model_list_count, VKS_CROWD_MAX_MODELS                            \
    }

/* Checks and parses --instances, --layout, --mode, --palettes, --max-skinned-vertices,
 * --max-memory, --lod, --lod-error and --anim-lod (a usage error). */
bool app_crowd_check(app_crowd_args *a, vks_error *err);
/* The renderer's description from those options. */
vks_renderer_desc app_crowd_renderer_desc(const app_crowd_args *a, const vks_crowd *crowd,
                                          VkFormat color_format);
/* Frames whose visible instances exceeded the skinned-output budget: how many, and the most
 * instances (and their vertices) one of them skinned in the vertex shader instead. */
typedef struct app_overflow {
    uint32_t frames, most;
    uint64_t most_vertices;
} app_overflow;
/* The vertices of f->order[first .. first + count) at their levels (after vks_renderer_skin). */
uint64_t app_frame_vertices(const vks_crowd *crowd, const vks_frame *f, uint32_t first,
                            uint32_t count);
/* "level 0: 12, level 2: 40" for the levels with instances in f (after vks_renderer_skin). */
void app_format_levels(const uint32_t level_instances[VKS_MAX_LEVELS], char *text, size_t size);

/* Counts frame f (after vks_renderer_skin). */
void app_overflow_add(app_overflow *o, const vks_frame *f);
/* After a run: one warning on stderr when a frame overflowed. */
void app_overflow_report(const char *cmd, const vks_renderer *r, const app_overflow *o);

typedef struct app_scene {
    vks_model models[VKS_CROWD_MAX_MODELS];
    uint32_t model_count;
    vks_crowd crowd;
    vks_pool *pool;
    vks_crowd_instance *start; /* the instances as created (app_scene_reset) */
    const uint32_t *visible;   /* the last animated frame's visible list (its host array) */
    uint32_t visible_count;
    int32_t lod; /* from app_crowd_args */
    float lod_error;
    bool anim_lod;
    uint8_t *periods; /* per visible slot: its posing period (anim_lod) */
    uint64_t frame;   /* frames animated so far */
    uint32_t posed;   /* instances posed by the last animated frame (the rest: their last pose) */
} app_scene;

typedef vks_camera app_camera; /* scene/camera.h */

/* Loads MODEL (may be NULL) and every --model; with neither, the bundled default character.
 * Prints each model's import warnings once on stderr ("vkskin CMD: warning: MODEL: ...").
 * Call it before any thread starts (the importer's crash guard forks). */
bool app_scene_load(app_scene *s, const char *cmd, const char *model, const app_crowd_args *a,
                    vks_error *err);
/* Starts the threads and builds the crowd. `clip` (NAME|INDEX, looked up in every model) or NULL:
 * the first clip for one instance, and each instance its own for more. `time`: instance 0's. */
bool app_scene_start(app_scene *s, const app_crowd_args *a, const char *clip, double time,
                     vks_error *err);
/* Puts every instance back as it started: clip, clock, no cross-fade. */
void app_scene_reset(app_scene *s);
void app_scene_destroy(app_scene *s);
/* The CPU side of a frame seen by `cam` in an image of width x height: writes the uniforms,
 * culls against their view_proj into f->visible (host memory; s->visible then points at it),
 * chooses the visible instances' levels of detail into f->level, and writes their palettes, on
 * every thread. The mapped buffers are only written: they may be uncached (BAR) memory, slow to
 * read back. */
void app_scene_animate(app_scene *s, vks_frame *f, const app_camera *cam, uint32_t width,
                       uint32_t height);

/* A monotonic clock in milliseconds (the benchmarks' and the window's timings). */
double app_now_ms(void);

/* The median of v[0 .. n) (sorts v); n > 0. */
double app_median(double *v, uint32_t n);

/* Parses --zoom: a camera distance factor from 0.01 to 100. */
bool app_parse_zoom(const char *text, double *zoom, vks_error *err);

/* ---- Camera ---- */
/* ---- Camera ---- */

/* An orbit camera around the character's bounds (world space, Y up). */
/* Frames the crowd: the world-space box around every instance's bounds (its model's over the bind
 * pose and every clip). */
void app_camera_frame(app_camera *cam, const vks_crowd *crowd);
/* Camera matrix, light and ambient for an image of the given aspect (width / height). */
void app_camera_uniforms(const app_camera *cam, float aspect, vks_frame_uniforms *u);
/* The eye and the pixels per unit at distance 1 for an image `height` pixels tall (the level of
 * detail's choice; view->max_error_px and force are left as they are). */
void app_camera_lod_view(const app_camera *cam, float aspect, uint32_t height, vks_lod_view *view);

#endif
