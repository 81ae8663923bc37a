/* What the GPU subcommands (view, render, dump) share: the --device and --validate options, the
 * device they open, the validation verdict at the end, and the character's animation + camera. */
#ifndef VKS_APP_GPU_H
#define VKS_APP_GPU_H

#include "app.h"
#include "gpu/gpu.h"
#include "render/renderer.h"

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

/* ---- Camera ---- */

/* An orbit camera around the character's bounds (world space, Y up). */
typedef struct app_camera {
    float center[3];
    float half[3];    /* half sizes of the bounds */
    float radius;     /* of the sphere around them */
    float yaw, pitch; /* radians: 0, 0 looks along -Z at the character's front (+Z) */
    float zoom;       /* 1 frames the bounds; smaller is closer */
} app_camera;

/* Frames the bounds of the model over its bind pose and every clip (sampled), in world space. */
bool app_camera_frame(app_camera *cam, const vks_model *model, const float world[4][4]);
/* Camera matrix, light and ambient for an image of the given aspect (width / height). */
void app_camera_uniforms(const app_camera *cam, float aspect, vks_frame_uniforms *u);

/* ---- Animation of the one character ---- */

/* Clip playback with a cross-fade when the clip changes. */
typedef struct app_player {
    const vks_model *model;
    int32_t clip;      /* -1: bind pose */
    double time;       /* seconds into the clip (looping) */
    int32_t from_clip; /* the clip fading out (-1: the bind pose) while fade_left > 0 */
    double from_time;
    double fade, fade_left;        /* seconds: the cross-fade's length and what is left of it */
    vks_xform *local, *local_from; /* joint_count each */
    vks_affine *scratch;
    uint32_t *cursor, *cursor_from; /* key hints of the two clips (anim.h) */
} app_player;

bool app_player_create(app_player *p, const vks_model *model, int32_t clip, double time);
void app_player_destroy(app_player *p);
/* Moves time forward by dt (seconds, already scaled by speed). */
void app_player_advance(app_player *p, double dt);
/* Switches to another clip, cross-fading over `fade` seconds. */
void app_player_switch(app_player *p, int32_t clip, double fade);
/* Samples the pose and writes the palette (joint_count entries) straight into `palette`. */
void app_player_palette(app_player *p, vks_bone *palette);

#endif
