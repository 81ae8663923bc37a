/* The crowd the GPU commands show, through the public API alone (include/vkskin): its models,
 * the crowd, and the renderer's description from the command line. */
#ifndef VKS_APP_SHOW_H
#define VKS_APP_SHOW_H

#include "gpu_app.h"

#include "vkskin/vkskin_render.h"

typedef struct app_show {
    vkskin_model *models[VKSKIN_MAX_MODELS];
    uint32_t model_count;
    vkskin_crowd *crowd;
} app_show;

/* Loads `path` (its import in a child process: assimp's crashes become errors), or the bundled
 * default character when it is NULL. */
vkskin_result app_load(const char *path, vkskin_model **model, vkskin_error *err);

/* Loads MODEL (may be NULL) and every --model; with neither, the bundled default character. Prints
 * each model's import warnings once on stderr ("vkskin CMD: warning: MODEL: ..."). Call it before
 * any thread starts (the import's crash guard forks). */
bool app_show_load(app_show *s, const char *cmd, const char *model, const app_crowd_args *a,
                   vks_error *err);
/* Builds the crowd (its threads start here). `clip` (NAME|INDEX, looked up in every model) or
 * NULL: the first clip for one instance, and each instance its own for more. `time`: instance
 * 0's. */
bool app_show_start(app_show *s, const app_crowd_args *a, const char *clip, double time,
                    vks_error *err);
void app_show_destroy(app_show *s);

/* vkskin_renderer_desc.device from --device. */
uint32_t app_device_of(const app_gpu_options *gpu);

/* The renderer's description from the options (headless at width x height unless the caller
 * adds a surface). */
vkskin_renderer_desc app_show_renderer_desc(const app_show *s, const app_crowd_args *a,
                                            const app_gpu_options *gpu, uint32_t width,
                                            uint32_t height);
/* Destroys the renderer; when validation reported errors or warnings, prints their count and
 * returns APP_FAILED, otherwise rc. */
int app_show_close(const char *cmd, vkskin_renderer *r, int rc);

/* The clip `clip` of a model through the API, as app_find_clip. */
bool app_show_find_clip(const vkskin_model *model, const char *clip, int32_t *index,
                        vks_error *err);

/* Frames whose visible instances exceeded the skinned-output room: how many, and the most
 * instances (and their vertices) one of them skinned in the vertex shader instead. */
void app_show_overflow_add(app_overflow *o, const vkskin_frame_info *f);
void app_show_overflow_report(const char *cmd, const vkskin_renderer *r, const app_overflow *o);

/* Writes width x height RGBA8 pixels (top row first) as a PNG. */
bool app_write_png(const char *path, uint32_t width, uint32_t height, const void *rgba,
                   vks_error *err);

#endif
