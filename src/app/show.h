/* What the GPU subcommands (view, render, dump, bench) share, through the public API alone
 * (include/vkskin): the --device and --validate options, the crowd's options, its models and the
 * crowd, the renderer's description, and the validation verdict at the end. */
#ifndef VKS_APP_SHOW_H
#define VKS_APP_SHOW_H

#include "app.h"
#include "motion.h"
#include "output.h"

#include "vkskin/vkskin_render.h"

typedef struct app_gpu_options {
    const char *device; /* index from `vkskin devices`, NULL: the best */
    bool validate;      /* also on with VKSKIN_VALIDATE=1 */
    uint32_t device_id; /* set by app_gpu_check: vkskin_renderer_desc.device (0: the best) */
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
bool app_gpu_check(app_gpu_options *options, vkskin_error *err);

/* ---- The crowd: its models, its instances, and the threads that animate them ---- */

/* --lod-error's default, in pixels (docs/performance.md, "Levels of detail against level 0"):
 * at it, crowds of characters 2 to 300 pixels tall change, compared after a 2x box filter, no
 * more than one frame of motion changes them; at 1 px the edge-collapse levels' shading and
 * thinned parts show on characters under 20 pixels tall. */
#define APP_LOD_ERROR_PX VKSKIN_LOD_ERROR_PX

typedef struct app_crowd_args {
    const char *model_list[VKSKIN_MAX_MODELS]; /* each --model */
    uint32_t model_list_count;
    const char *instances_text, *layout_text, *mode_text, *palettes_text, *binding_text;
    const char *max_skinned_text, *max_memory_text, *lod_text, *lod_error_text, *anim_lod_text;
    const char *raster_text, *raster_px_text, *skinning_text, *root_motion_text;
    const char *splat_density_text;
    const char *motion_joint; /* --motion-joint NAME: the joint root motion is taken from */
    bool root_motion;         /* --root-motion on | off (default) */
    const char *motion_text, *camera_text;
    app_motion_kind motion; /* --motion none (default) | wander | lanes */
    bool street;            /* --camera street: at eye level; framed (default): the whole crowd */
    bool anim_lod; /* --anim-lod on (default) | off: far instances posed every 2nd to 8th frame */
    bool no_normalize;  /* --no-normalize: each model in its own units */
    int32_t lod;        /* --lod N: every instance at level N; -1 (default): chosen per instance */
    float lod_error;    /* --lod-error PX: the screen-space error a level may show */
    uint32_t instances; /* parsed by app_crowd_check */
    uint32_t max_skinned_vertices; /* --max-skinned-vertices; 0: chosen from the device */
    uint32_t max_memory_mib;       /* --max-memory; 0: the device's */
    vkskin_skin_mode mode;         /* parsed by app_crowd_check */
    vkskin_palettes palettes;      /* --palettes */
    vkskin_binding binding;        /* --binding; AUTO: descriptors under --validate */
    vkskin_raster raster;          /* --raster; AUTO: hybrid where the device can */
    float raster_px;               /* --raster-px: hybrid's threshold (0: the default) */
    float splat_density; /* --splat-density: the far splat's threshold (-1: the default) */
    uint32_t threads;    /* of the animation; 0: one per core */
    vkskin_layout layout;
    vkskin_skinning skinning; /* --skinning linear (default) | dual-quaternion */
} app_crowd_args;

#define APP_CROWD_OPTIONS(a)                                                                       \
    {"instances", &(a).instances_text, NULL, "N", "how many characters (default 1)"},              \
        {"layout", &(a).layout_text, NULL, "grid|ring", "where they stand (default grid)"},        \
        {"mode", &(a).mode_text, NULL, "compute|vertex",                                           \
         "skin in a compute pass (default) or in the vertex shader"},                              \
        {"skinning", &(a).skinning_text, NULL, "linear|dual-quaternion",                           \
         "blend the joints' matrices (default), or their dual quaternions, which keep the volume " \
         "of twisting joints (joints must scale uniformly)"},                                      \
        {"palettes", &(a).palettes_text, NULL, "store|host",                                       \
         "shaders read palettes from a device-local store written only by the posed (default), "   \
         "or from host memory each frame"},                                                        \
        {"binding", &(a).binding_text, NULL, "addresses|descriptors",                              \
         "shaders reach buffers by device address, or through descriptors, which validation "      \
         "follows (default: descriptors with --validate, else addresses)"},                        \
        {"max-skinned-vertices", &(a).max_skinned_text, NULL, "N",                                 \
         "room for N skinned vertices a frame (default: from the device's memory); visible "       \
         "instances past it are skinned in the vertex shader"},                                    \
        {"lod", &(a).lod_text, NULL, "N",                                                          \
         "draw every instance at level of detail N (0: full detail; default: chosen per "          \
         "instance, see --lod-error)"},                                                            \
        {"no-normalize", NULL, &(a).no_normalize, NULL,                                            \
         "keep each model in its own units (default: mixed models scaled to the first one's "      \
         "height, each standing on the ground)"},                                                  \
        {"anim-lod", &(a).anim_lod_text, NULL, "on|off",                                           \
         "pose far instances every 2nd, 4th or 8th frame, staggered (default on)"},                \
        {"lod-error", &(a).lod_error_text, NULL, "PX",                                             \
         "the coarsest level whose error projects to at most PX pixels is drawn (default 0.45)"},  \
        {"raster", &(a).raster_text, NULL, "hardware|compute|hybrid",                              \
         "who rasterizes: the graphics pipeline, a compute rasterizer, or the compute one for "    \
         "instances whose triangles are small on screen (default: hybrid where the device has "    \
         "64-bit atomics)"},                                                                       \
        {"raster-px", &(a).raster_px_text, NULL, "PX2",                                            \
         "hybrid: rasterize in compute the instances whose level's mean triangle area projects "   \
         "to at most PX2 square pixels (default 4)"},                                              \
        {"splat-density", &(a).splat_density_text, NULL, "N",                                      \
         "compute and hybrid: draw as one far splat (its outline and color) each character whose " \
         "coarsest level would send more than N triangles per pixel it covers (default 4; 0: "     \
         "never)"},                                                                                \
        {"max-memory", &(a).max_memory_text, NULL, "MIB",                                          \
         "plan as if each memory heap of the device had at most MIB mebibytes"},                   \
        {"root-motion", &(a).root_motion_text, NULL, "on|off",                                     \
         "clips that travel move their characters, posed in place (default off: the travel "       \
         "stays in the pose)"},                                                                    \
        {"motion", &(a).motion_text, NULL, "none|wander|lanes",                                    \
         "the crowd walks: each at its own pace with a slowly turning heading, or in rows, "       \
         "every other one the other way (default none)"},                                          \
        {"camera", &(a).camera_text, NULL, "framed|street",                                        \
         "the whole crowd from above (default), or at a person's eye height at its front edge"},   \
        {"motion-joint", &(a).motion_joint, NULL, "NAME",                                          \
         "the joint root motion is taken from (default: the root, or the hips where the root "     \
         "stays still)"},                                                                          \
    {                                                                                              \
        "model", NULL, NULL, "FILE",                                                               \
            "a model for the crowd, besides MODEL; repeat it to mix models (instances alternate)", \
            (a).model_list, &(a).model_list_count, VKSKIN_MAX_MODELS                               \
    }

/* --skinning's value (NULL: linear) into *out; false, with the message, for any other word. */
bool app_parse_skinning(const char *text, vkskin_skinning *out, vkskin_error *err);
/* Checks and parses --instances, --layout, --mode, --skinning, --palettes, --binding,
 * --max-skinned-vertices, --max-memory, --lod, --lod-error, --anim-lod, --raster and --raster-px
 * (a usage error). */
bool app_crowd_check(app_crowd_args *a, vkskin_error *err);

/* Frames whose visible instances exceeded the skinned-output budget: how many, and the most
 * instances (and their vertices) one of them skinned in the vertex shader instead; and frames
 * that left instances out because the palette store could not hold them (the most in one). */
typedef struct app_overflow {
    uint32_t frames, most;
    uint64_t most_vertices;
    uint32_t dropped_frames, most_dropped;
} app_overflow;

/* "level 0: 12, level 2: 40" for the levels with instances. */
void app_format_levels(const uint32_t level_instances[VKSKIN_MAX_LEVELS], char *text, size_t size);

typedef struct app_show {
    const char *cmd; /* the command, for messages */
    vkskin_model *models[VKSKIN_MAX_MODELS];
    uint32_t model_count;
    vkskin_crowd *crowd;
    app_motion motion; /* --motion's, started with the crowd */
    bool street;       /* --camera street */
    double motion_ms;  /* the motion's time so far (the program's, not the crowd's) */
} app_show;

/* The view the commands draw: --camera street's (vkskin_crowd_street_view) or the orbit. */
void app_show_view(const app_show *s, const vkskin_orbit *orbit, vkskin_view *view);
/* One step of dt seconds: the motion's velocities, then the crowd's clocks (on its threads). */
bool app_show_advance(app_show *s, double dt, vkskin_error *err);

/* Loads `path` (its import in a child process: assimp's crashes become errors), or the bundled
 * default character when it is NULL; root motion from `motion_joint` (NULL: chosen). */
vkskin_result app_load(const char *path, const char *motion_joint, vkskin_model **model,
                       vkskin_error *err);
/* --root-motion's value (NULL: off) into *on; false, with the message, for any other word. */
bool app_parse_root_motion(const char *text, bool *on, vkskin_error *err);
/* Says on stderr, once per model, that the clip an instance plays with root motion travels
 * nothing and plays in place (a clip index; VKSKIN_CLIP_VARIED: every clip). */
void app_warn_still_clips(const char *cmd, vkskin_model *const *models, const int32_t *clips,
                          uint32_t count);

/* Loads MODEL (may be NULL) and every --model; with neither, the bundled default character. Prints
 * each model's import warnings once on stderr ("vkskin CMD: warning: MODEL: ..."). Call it before
 * any thread starts (the import's crash guard forks). */
bool app_show_load(app_show *s, const char *cmd, const char *model, const app_crowd_args *a,
                   vkskin_error *err);
/* Builds the crowd (its threads start here). `clip` (NAME|INDEX, looked up in every model) or
 * NULL: the first clip for one instance, and each instance its own for more. `time`: instance
 * 0's. `check` (its crowd not read; NULL: none): the renderer about to be made, whose memory plan
 * is checked on counts first (vkskin_renderer_check), so that a request too large for the device
 * or the machine is refused before the crowd takes memory. */
bool app_show_start(app_show *s, const app_crowd_args *a, const char *clip, double time,
                    const vkskin_renderer_desc *check, vkskin_error *err);
void app_show_destroy(app_show *s);

/* The renderer's description from the options (headless at width x height unless the caller
 * adds a surface). */
vkskin_renderer_desc app_show_renderer_desc(const app_show *s, const app_crowd_args *a,
                                            const app_gpu_options *gpu, uint32_t width,
                                            uint32_t height);
/* Destroys the renderer; when validation reported errors or warnings, prints their count and
 * returns APP_FAILED, otherwise rc. */
int app_show_close(const char *cmd, vkskin_renderer *r, int rc);

/* The models' names, joined by `separator`. */
void app_show_model_names(const app_show *s, const char *separator, char *out, size_t size);

/* The index of clip `clip` (a name or an index; NULL: the first, or the bind pose for a model
 * without clips; app_bind_pose: -1) of a model; a message naming the model when it has none. */
bool app_show_find_clip(const vkskin_model *model, const char *clip, int32_t *index,
                        vkskin_error *err);

/* Counts a frame in the overflow. */
void app_show_overflow_add(app_overflow *o, const vkskin_frame_info *f);
void app_show_overflow_report(const char *cmd, const vkskin_renderer *r, const app_overflow *o);

/* Checks --out before any work: "-" (a PNG on standard output, one image only) or a .png, .jpg or
 * .jpeg file (any case) in a folder that takes it (each frame of a sequence is FILE_0007.EXT
 * there). APP_OK; APP_USAGE for a name vkskin cannot write; APP_FAILED for a folder it cannot
 * write into, or a single image's name that is a folder; the message in err. */
int app_check_out(const char *out, uint32_t frames, vkskin_error *err);
/* Whether `out` (one file, or with files > 1 the first of a numbered sequence beside it) can be
 * written: its folder takes a new file and an existing file is writable, not a folder. APP_OK, or
 * APP_FAILED with the message in err. */
int app_check_writable(const char *out, uint32_t files, vkskin_error *err);
/* Writes width x height RGBA8 pixels (top row first) in the format the name says (app_check_out):
 * PNG, or JPEG (opaque, quality 92); "-": PNG on standard output. Whole or not at all
 * (output.h). */
bool app_write_image(const char *path, uint32_t width, uint32_t height, const void *rgba,
                     vkskin_error *err);
/* The same image encoded into *b (its data malloc'd), for app_write_file. */
bool app_encode_image(const char *path, uint32_t width, uint32_t height, const void *rgba,
                      app_buffer *b, vkskin_error *err);

#endif
