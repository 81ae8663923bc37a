/* vkskin: animated characters for crowds. This header is the CPU side: models (loaded with assimp
 * from glTF, FBX, Collada, MD5, ...), their skeletons and clips, crowds of instances that each
 * play a clip, and their bone-matrix palettes, evaluated on the library's threads or the
 * caller's. It includes no Vulkan, assimp or GLFW header; C17 and C++17.
 *
 * Example (tests/header_examples.c compiles it, and runs it on the default character):
 *   vkskin_model *model;
 *   vkskin_error err;
 *   if (vkskin_model_load(
 *           &(vkskin_model_desc){.desc_size = sizeof(vkskin_model_desc), .path = path}, &model,
 *           &err) != VKSKIN_OK)
 *       return fail(err.message);
 *   const vkskin_model *models[] = {model};
 *   vkskin_crowd *crowd;
 *   vkskin_crowd_create(&(vkskin_crowd_desc){.desc_size = sizeof(vkskin_crowd_desc),
 *                                            .models = models,
 *                                            .model_count = 1,
 *                                            .instance_count = 100},
 *                       &crowd, &err);
 *   for (int frame = 0; frame < frames; frame++) { // palettes: a mapped buffer, say
 *       vkskin_crowd_advance(crowd, dt, &err);
 *       vkskin_crowd_cull(crowd, view_proj, visible, capacity, &n, &err);
 *       vkskin_crowd_pose(crowd, visible, n, palettes, palette_capacity, &err);
 *   }
 *
 *
 * Conventions (sokol's): a descriptor's zero value is its default, so
 * `(vkskin_xxx_desc){.desc_size = sizeof(vkskin_xxx_desc), .a = 1}` asks for `a` and defaults the
 * rest. desc_size, every desc's first field, says which layout the caller was built with: the
 * library reads that many bytes (fields added since take their zero defaults) and refuses 0, or
 * fields set past what it knows (docs/library.md, "The ABI policy"). Calls that can fail return a
 * vkskin_result and, when `err` is not NULL, fill it with one line saying what went wrong; misuse
 * (a NULL handle or output, an index out of range) is such a failure, never an abort. Objects are
 * created and destroyed by their owner: the caller owns every handle it gets and destroys it; a
 * crowd keeps pointers to its models, which must outlive it. Every array a call writes comes with
 * its capacity in elements, which the call checks against what it writes (the header says which
 * count: a crowd's instance_count or palette_count, a model's vertex_count, ...): a short one is
 * refused with a message, nothing written. No result doubles as an error: a call that can fail says
 * so in its vkskin_result, and an index or slot lookup has a distinct "none" value.
 *
 * Threads: a model is immutable once loaded and may be read from any thread. A crowd is not
 * locked: calls on one crowd must not overlap, except vkskin_crowd_pose_range with distinct
 * workers. Loading may fork a child process (vkskin_model_desc.isolate): then call it before
 * starting threads. */
#ifndef VKSKIN_H
#define VKSKIN_H

#include "vkskin/version.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#if defined(_WIN32) && defined(VKSKIN_SHARED)
#define VKSKIN_API __declspec(dllimport)
#elif defined(__GNUC__)
#define VKSKIN_API __attribute__((visibility("default")))
#else
#define VKSKIN_API
#endif

/* A name kept for one minor version after it was replaced or retired (docs/library.md, "The
 * ABI policy": what each became); using it warns. */
#if defined(__GNUC__) || defined(__clang__)
#define VKSKIN_DEPRECATED(why) __attribute__((deprecated(why)))
#else
#define VKSKIN_DEPRECATED(why)
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* ---- Errors ---- */

typedef enum vkskin_result {
    VKSKIN_OK = 0,
    VKSKIN_ERROR_ARGUMENT,      /* misuse: a NULL handle or output, an index out of range */
    VKSKIN_ERROR_LOAD,          /* the model could not be read (missing, unreadable, malformed) */
    VKSKIN_ERROR_OUT_OF_MEMORY, /* host or device memory, or a crowd too large for its counts */
    VKSKIN_ERROR_FAILED,        /* anything else, said in the message */
} vkskin_result;

typedef struct vkskin_error {
    vkskin_result result;
    char message[512]; /* one line, no trailing newline; "" on success */
} vkskin_error;

/* Where the messages vkskin would print go (validation's errors and warnings): `log` is called
 * with each, from the thread whose call raised it (calls on one object do not overlap, so one
 * object's messages never overlap either), `message` valid during the call. A zero logger (log
 * NULL) prints them on standard error. */
typedef enum vkskin_log_level {
    VKSKIN_LOG_ERROR = 0,
    VKSKIN_LOG_WARNING,
} vkskin_log_level;

typedef struct vkskin_logger {
    void (*log)(void *user, vkskin_log_level level, const char *message);
    void *user;
} vkskin_logger;

/* The host's allocator for the memory vkskin allocates of its own (assimp, meshoptimizer and
 * cJSON, which vkskin calls, keep the C library's): alloc(user, size, align) returns `size` bytes
 * aligned to `align` (a power of two, 16 or more) or NULL; free(user, ptr) gives back a block
 * alloc returned. Both may be called from any of vkskin's threads at once. */
typedef struct vkskin_allocator {
    void *(*alloc)(void *user, size_t size, size_t align);
    void (*free)(void *user, void *ptr);
    void *user;
} vkskin_allocator;

/* Sets the allocator (NULL: the C library's again) for the whole process. Refused while any
 * vkskin object (model, crowd, palette store, renderer, vkskin_gpu) lives: set it before the
 * first is made, with no other vkskin call in progress. */
VKSKIN_API vkskin_result vkskin_set_allocator(const vkskin_allocator *allocator, vkskin_error *err);

/* How the GPU side's shaders reach the crowd's buffers (vkskin_render.h, vkskin_vulkan.h). Device
 * addresses are the fast path; descriptors are what synchronization validation can follow (it
 * cannot see accesses through addresses), bound once per output chunk. Both give the same skinned
 * output and pixels, bit for bit. */
typedef enum vkskin_binding {
    VKSKIN_BINDING_AUTO = 0,    /* descriptors when validating, else addresses */
    VKSKIN_BINDING_ADDRESSES,   /* device addresses (buffer_reference) */
    VKSKIN_BINDING_DESCRIPTORS, /* storage-buffer descriptors */
} vkskin_binding;

/* The version this library was built as (VKSKIN_VERSION_STRING of its own headers). */
VKSKIN_API const char *vkskin_version(void);

/* The processors this process may run on (its CPU affinity, as taskset or a cgroup set it), at
 * least 1: a crowd's `threads` for one per core. */
VKSKIN_API uint32_t vkskin_cores(void);

/* ---- Models ---- */

typedef struct vkskin_model vkskin_model;

typedef struct vkskin_model_desc {
    uint32_t desc_size; /* sizeof(vkskin_model_desc): the layout the caller was built with */
    const char *path;   /* a file to read; or NULL and: */
    const void *data;   /* a file in memory, `size` bytes, kept only during the call */
    size_t size;
    const char *format_hint; /* the in-memory file's extension: "glb", "fbx", ... */
    const char *name;        /* what messages call an in-memory file (default "memory") */
    /* Read the file in a forked child first, so that a crash inside assimp (it has some, on bad
     * files) becomes an error instead of taking the host down. Off by default in the library: a
     * fork is unsafe in a threaded host or one with its own SIGCHLD handling. The vkskin
     * program turns it on. */
    bool isolate;
    /* Keep the file's meshes and materials apart. By default a model with more than 16
     * single-colour materials has them merged into one, their colours in a texture, and the
     * meshes of each material are merged into one (in the order the materials first appear), so
     * that a model of many parts costs one draw per material and level and its levels of detail
     * simplify each surface whole. */
    bool keep_meshes;
    /* The joint whose travel is the clips' root motion (vkskin_clip_info.travel_distance): a
     * joint's name in the file; NULL: the first joint above most of the skin that travels in
     * some clip (the root where it carries the motion, the hips where the root stays still). A
     * name the model lacks fails the load. */
    const char *motion_joint;
} vkskin_model_desc;

/* Reads a model and prepares it for skinning: its compact vertex streams and levels of detail
 * are built here, once. On failure *model is NULL. */
VKSKIN_API vkskin_result vkskin_model_load(const vkskin_model_desc *desc, vkskin_model **model,
                                           vkskin_error *err);
VKSKIN_API void vkskin_model_destroy(vkskin_model *model); /* NULL is ignored */

typedef struct vkskin_model_info {
    const char *name; /* owned by the model */
    uint32_t vertex_count, index_count, mesh_count;
    uint32_t joint_count; /* every node the palettes have an entry for, bones and their parents */
    uint32_t bone_count;  /* the joints a skin binds vertices to */
    uint32_t clip_count;
    uint32_t level_count;               /* levels of detail, 1 or more */
    float bounds_min[3], bounds_max[3]; /* the bind pose's box, in palette space */
    uint32_t warning_count; /* what the import tolerated (a dropped clip, a missing texture) */
    uint32_t material_count;
    uint32_t influences; /* per vertex as skinned: 4, or 8 for a model that needs more */
    bool tangents;       /* the model has tangents (skinned with the normals) */
    /* Vertices of skinned meshes by the influences kept (0: they follow their node); the most
     * influences on one vertex in the file; vertices with more than 8 (the 8 largest kept),
     * with weights renormalised (their sum was off 1 by more than 1e-4), and influences dropped
     * (weight <= 0). */
    uint32_t influence_histogram[9];
    uint32_t max_file_influences, truncated, renormalised, dropped;
    uint32_t target_count; /* morph targets (blend shapes), every mesh's */
} vkskin_model_info;

VKSKIN_API vkskin_result vkskin_model_get_info(const vkskin_model *model, vkskin_model_info *info,
                                               vkskin_error *err);

/* A morph target: a shape a mesh's vertices are moved towards (its deltas added to the rest
 * streams, scaled by its weight) before skinning. */
typedef struct vkskin_target_info {
    const char *name;       /* owned by the model: the file's, else "target N" */
    uint32_t mesh;          /* the mesh whose vertices it moves (vkskin_model_get_mesh) */
    float weight;           /* its weight when no clip animates it (glTF: mesh.weights) */
    uint32_t vertex_count;  /* vertices from the first to the last it moves (0: it moves none) */
    bool normals, tangents; /* whether it moves normals, tangents (besides positions) */
} vkskin_target_info;

VKSKIN_API vkskin_result vkskin_model_get_target(const vkskin_model *model, uint32_t target,
                                                 vkskin_target_info *info, vkskin_error *err);

/* Import warning `index` (below warning_count), one line owned by the model; NULL past the last. */
VKSKIN_API const char *vkskin_model_get_warning(const vkskin_model *model, uint32_t index);

typedef struct vkskin_clip_info {
    const char *name;                                     /* owned by the model */
    double duration;                                      /* seconds */
    uint32_t channel_count;                               /* joints it animates */
    uint32_t translation_keys, rotation_keys, scale_keys; /* over every channel */
    uint32_t weight_tracks; /* nodes whose morph-target weights it animates */
    uint32_t weight_keys;   /* over every weight track */
} vkskin_clip_info;

VKSKIN_API vkskin_result vkskin_model_get_clip(const vkskin_model *model, uint32_t clip,
                                               vkskin_clip_info *info, vkskin_error *err);
/* A clip's root motion: what its character travels over one loop, taken out of the motion joint
 * at load (vkskin_model_desc.motion_joint). A crowd playing the clip with root motion
 * (vkskin_crowd_set_root_motion) poses it in place and moves the instance by that travel. */
typedef struct vkskin_travel_info {
    bool travels;         /* false: the clip travels nothing (the rest is 0); it plays in place */
    int32_t motion_joint; /* the joint the travel is taken from (-1 when the model has none) */
    float distance;       /* a loop's travel on the ground, the model's units (its root frame) */
    float heading;        /* a loop's turn about the up axis, radians (+Z towards +X) */
    float speed;          /* distance / duration: units a second */
    /* Locomotion: how fast the character must move (the model's units a second) for its feet to
     * stay planted as the clip plays in place: its travel's speed, or for a clip authored in
     * place measured from its feet; 0 for a clip that is not locomotion (an idle, a wave). A crowd
     * moving an instance at speed v (vkskin_crowd_set_velocities) plays its clips at v over it. */
    float ground_speed;
    float ground_dir[2]; /* the direction it moves in, the model's frame (x, z): unit, or 0 0 */
} vkskin_travel_info;

VKSKIN_API vkskin_result vkskin_model_get_travel(const vkskin_model *model, uint32_t clip,
                                                 vkskin_travel_info *info, vkskin_error *err);

/* The clip named `name` (or of index `name` when it is a decimal number); VKSKIN_CLIP_NOT_FOUND
 * when the model has none such (or for a NULL argument): never a clip index, nor one of the
 * values a clip argument takes (VKSKIN_CLIP_NONE, VKSKIN_CLIP_VARIED), so that a misspelt name
 * passed on to vkskin_crowd_play is refused, not played as the bind pose. */
#define VKSKIN_CLIP_NOT_FOUND (-3)
VKSKIN_API int32_t vkskin_model_find_clip(const vkskin_model *model, const char *name);

typedef struct vkskin_joint_info {
    const char *name; /* owned by the model */
    int32_t parent;   /* a lower index, or -1 for a root */
} vkskin_joint_info;

VKSKIN_API vkskin_result vkskin_model_get_joint(const vkskin_model *model, uint32_t joint,
                                                vkskin_joint_info *info, vkskin_error *err);

typedef struct vkskin_mesh_info {
    const char *name;                   /* owned by the model */
    uint32_t base_vertex, vertex_count; /* its vertices among the model's */
    uint32_t first_index, index_count;  /* its indices (relative to base_vertex) */
    uint32_t material;
    bool skinned;          /* bones in the file (a merged mesh: in one of its parts) */
    uint32_t node_joint;   /* the joint of the mesh's node (merged: the one its parts hang from) */
    uint32_t source_count; /* the file's meshes it holds: 1, or more when merged by material */
} vkskin_mesh_info;

VKSKIN_API vkskin_result vkskin_model_get_mesh(const vkskin_model *model, uint32_t mesh,
                                               vkskin_mesh_info *info, vkskin_error *err);

typedef struct vkskin_material_info {
    const char *name;    /* owned by the model */
    float base_color[4]; /* linear RGBA factor */
    bool textured;       /* a base-color texture: */
    uint32_t texture_width, texture_height;
    const char *texture_source; /* "embedded *N" or the file read; NULL without a texture */
} vkskin_material_info;

VKSKIN_API vkskin_result vkskin_model_get_material(const vkskin_model *model, uint32_t material,
                                                   vkskin_material_info *info, vkskin_error *err);
/* The material's base-color texture: texture_width x texture_height pixels of 8-bit sRGB RGBA,
 * the top row first, into `rgba` (`capacity` bytes: at least width x height x 4). Sample it with
 * the UVs of vkskin_gpu_get_uvs (repeat addressing) and multiply by base_color, as vkskin's own
 * draw does. VKSKIN_ERROR_ARGUMENT for a material without a texture. */
VKSKIN_API vkskin_result vkskin_model_get_texture(const vkskin_model *model, uint32_t material,
                                                  uint8_t *rgba, size_t capacity,
                                                  vkskin_error *err);

/* Level of detail `level` (below level_count; 0 is the model as loaded): its triangles and
 * vertices, and its error: the largest distance between its surface and level 0's over the
 * clips' poses, in palette space (the units of skinned positions). Levels above 0 simplify the
 * whole character: by edge collapses, or, for the coarsest, by clustering vertices on a grid
 * (`grid`), which ignores the topology. */
typedef struct vkskin_level_info {
    uint32_t triangle_count, vertex_count;
    float error;
    bool grid;
    /* Joints an instance at this level poses: the skeleton level of detail folds the joints
     * whose removal moves none of the level's vertices by more than its error (over the clips'
     * poses) into their nearest kept ancestor (docs/architecture.md). */
    uint32_t joint_count;
} vkskin_level_info;

VKSKIN_API vkskin_result vkskin_model_get_level(const vkskin_model *model, uint32_t level,
                                                vkskin_level_info *info, vkskin_error *err);

/* One mesh (one material, once merged) at a level: its triangles, and the level's error. */
typedef struct vkskin_mesh_level_info {
    uint32_t triangle_count;
    float error;
} vkskin_mesh_level_info;

VKSKIN_API vkskin_result vkskin_model_get_mesh_level(const vkskin_model *model, uint32_t level,
                                                     uint32_t mesh, vkskin_mesh_level_info *info,
                                                     vkskin_error *err);

/* The bind pose's vertex positions as loaded: vertex_count x 3 floats, owned by the model. */
VKSKIN_API const float *vkskin_model_positions(const vkskin_model *model);

/* The model's morph-target weights (target_count of them, in target order) in `clip`
 * (VKSKIN_CLIP_NONE: the default weights) at `seconds` (looping): LINEAR, STEP or CUBICSPLINE as
 * the file's channels say, each target's default weight where the clip animates none of its.
 * `capacity`: the weights `weights` has room for (at least target_count). */
VKSKIN_API vkskin_result vkskin_model_weights(const vkskin_model *model, int32_t clip,
                                              double seconds, float *weights, uint32_t capacity,
                                              vkskin_error *err);

/* The CPU reference skinning (double-precision palettes, the shaders' arithmetic in float): every
 * vertex of the model at `clip` (VKSKIN_CLIP_NONE: the bind pose) and `seconds` (looping),
 * in palette space: positions and normals (vertex_count x 3 floats), and tangents
 * (vertex_count x 4: xyz and the bitangent's sign) when not NULL and the model has them. A model
 * with morph targets is morphed first, by the clip's weights at that time (the bind pose: the
 * targets' default weights), as the GPU morphs before skinning.
 * `capacity`: the vertices each array has room for (at least vertex_count). */
VKSKIN_API vkskin_result vkskin_model_skin(const vkskin_model *model, int32_t clip, double seconds,
                                           float *positions, float *normals, float *tangents,
                                           uint32_t capacity, vkskin_error *err);

/* ---- Crowds ---- */

typedef struct vkskin_crowd vkskin_crowd;

#define VKSKIN_MAX_MODELS 16u
#define VKSKIN_MAX_INSTANCES (1u << 24)

typedef enum vkskin_layout {
    VKSKIN_LAYOUT_GRID = 0, /* rows and columns on the ground (y = 0), headings at random */
    VKSKIN_LAYOUT_RING,     /* a circle around the origin, every instance facing its centre */
} vkskin_layout;

/* A clip index for vkskin_crowd_desc.clip: instance k of a model plays clip k mod clip_count. */
#define VKSKIN_CLIP_VARIED (-2)
/* The bind pose, wherever a clip index is asked for. */
#define VKSKIN_CLIP_NONE (-1)

/* How a crowd's vertices follow their joints (vkskin_crowd_desc.skinning). */
typedef enum vkskin_skinning {
    /* Linear blending of the joints' 3x4 matrices (the default): palettes of 12 floats a joint. */
    VKSKIN_SKINNING_LINEAR = 0,
    /* Dual quaternions (Kavan et al. 2008): a twisting wrist or elbow keeps its volume where
     * linear blending collapses it. Joints must scale uniformly and positively (uniform scale is
     * blended linearly first); a model that scales a joint otherwise is refused, naming the joint
     * and the clip. Palettes are vkskin_dq entries, 8 floats a joint, packed from each instance's
     * palette_first * 12 floats: 2/3 of the bytes a frame writes and the shaders read. */
    VKSKIN_SKINNING_DUAL_QUATERNION,
} vkskin_skinning;

/* vkskin_model_skin with the skinning named: VKSKIN_SKINNING_LINEAR is vkskin_model_skin;
 * VKSKIN_SKINNING_DUAL_QUATERNION blends each vertex's joints as dual quaternions (scale first, the
 * antipodal sign against its first influence), what a dual-quaternion crowd's GPU pass computes.
 * VKSKIN_ERROR_ARGUMENT, with the joint and clip named, for a model whose joints do not scale
 * uniformly and positively (no mirroring, no shear: dual quaternions take similarities only), or
 * a skinning that is neither. */
VKSKIN_API vkskin_result vkskin_model_skin_as(const vkskin_model *model, int32_t clip,
                                              double seconds, vkskin_skinning skinning,
                                              float *positions, float *normals, float *tangents,
                                              uint32_t capacity, vkskin_error *err);

/* A dual-quaternion palette entry: the similarity R(q) (s v) + t, q a unit quaternion (x, y, z,
 * w), t the translation, s the uniform scale. */
typedef struct vkskin_dq {
    float q[4];
    float t[3];
    float s;
} vkskin_dq;

typedef struct vkskin_crowd_desc {
    uint32_t desc_size; /* sizeof(vkskin_crowd_desc): the layout the caller was built with */
    const vkskin_model *const *models; /* 1 .. VKSKIN_MAX_MODELS; kept, must outlive the crowd */
    uint32_t model_count;
    uint32_t instance_count; /* 1 .. VKSKIN_MAX_INSTANCES; dealt to the models in turn */
    vkskin_layout layout;
    /* Every instance's clip at the start: an index valid for every model, VKSKIN_CLIP_NONE or
     * VKSKIN_CLIP_VARIED. 0 (the default) is the first clip, the bind pose for a model with none.
     */
    int32_t clip;
    /* Or per model (model_count entries, each as `clip` for that model alone): for a clip found
     * by name in models that list it at different indices. */
    const int32_t *clips;
    double time;   /* instance 0's clock at the start, seconds; the others are offset */
    uint32_t seed; /* of the offsets, speeds and headings: the same seed, the same crowd */
    /* Every model scaled to the first one's height and lifted to stand on the ground (its lowest
     * point at y = 0): models made in other units side by side. Off: each in its own units, its
     * root transform as the file has it. */
    bool normalize_height;
    uint32_t threads; /* threads vkskin_crowd_pose runs on, the caller's included; 0: 1 */
    uint32_t workers; /* caller threads that may run vkskin_crowd_pose_range at once; 0: 1 */
    vkskin_skinning skinning; /* every model's (the renderer and vkskin_gpu follow it) */
    /* Every instance plays its clips with root motion (vkskin_crowd_set_root_motion), the ones
     * added later too. */
    bool root_motion;
} vkskin_crowd_desc;

VKSKIN_API vkskin_result vkskin_crowd_create(const vkskin_crowd_desc *desc, vkskin_crowd **crowd,
                                             vkskin_error *err);

/* What a crowd made from `desc` would take, from counts alone (nothing is allocated): to check
 * a request against a budget before asking for it. */
typedef struct vkskin_crowd_memory {
    /* Host memory vkskin_crowd_create and the animation level of detail's kept poses take that
     * grows with the instances: their state, key cursors and last poses. */
    uint64_t host_bytes;
    /* Every instance's palette range: a 3x4 matrix a joint, and a model with morph targets its
     * active list's entries (vkskin_crowd_palette_count's layout). */
    uint64_t palette_entries;
    uint64_t machine_bytes; /* this machine's physical memory (0: unknown) */
} vkskin_crowd_memory;

VKSKIN_API vkskin_result vkskin_crowd_memory_of(const vkskin_crowd_desc *desc,
                                                vkskin_crowd_memory *memory, vkskin_error *err);
/* Whether a crowd made from `desc` fits this machine's memory with `extra_bytes` beside it (what
 * the caller keeps for it: palettes, visible lists), from counts. VKSKIN_ERROR_OUT_OF_MEMORY when
 * not, saying how many instances would fit (the extra taken to grow with them). */
VKSKIN_API vkskin_result vkskin_crowd_fits(const vkskin_crowd_desc *desc, uint64_t extra_bytes,
                                           vkskin_error *err);
VKSKIN_API void vkskin_crowd_destroy(vkskin_crowd *crowd); /* NULL is ignored */

/* Indices given out: [0, instance_count) are live instances and removed ones (free indices). */
VKSKIN_API uint32_t vkskin_crowd_instance_count(const vkskin_crowd *crowd);
/* Live instances: not removed (0 for a NULL crowd). */
VKSKIN_API uint32_t vkskin_crowd_live_count(const vkskin_crowd *crowd);

typedef struct vkskin_crowd_info {
    uint32_t instance_count, palette_count, model_count;
    uint32_t threads, workers; /* as created (0 read as 1) */
    /* How its clips are posed: sampled_clips of the models' clips and bind poses (clips in all)
     * through a resampled layout, the rest directly from their keys; the instruction set the
     * resampled ones use ("avx2", "sse2" or "scalar"). */
    uint32_t sampled_clips, clips;
    const char *simd;
} vkskin_crowd_info;

VKSKIN_API vkskin_result vkskin_crowd_get_info(const vkskin_crowd *crowd, vkskin_crowd_info *info,
                                               vkskin_error *err);
/* No entry in a palette buffer or store: an instance out of range, or not listed. */
#define VKSKIN_NO_ENTRY 0xFFFFFFFFu
/* Palette entries of every instance together, and where instance i's begin: the palette buffer
 * vkskin_crowd_pose writes holds palette_count entries of 12 floats (3 rows x 4, row-major: the
 * linear part and the translation of palette space <- bind pose), instance i's joint_count of
 * them from palette_first(i); with VKSKIN_SKINNING_DUAL_QUATERNION, its joint_count vkskin_dq
 * (8 floats each) packed from there instead. A model with morph targets has its instance's active
 * targets follow, from the next whole entry: a count as uint32 and 3 zero words, then per target
 * whose weight is not 0 its index (uint32) and its weight (float), in target order (what the
 * skinning pass reads; vkskin_crowd_get_weights gives the weights themselves). palette_count is
 * 0 for a NULL crowd; palette_first is VKSKIN_NO_ENTRY for a NULL crowd or an instance out of
 * range, never an offset. */
VKSKIN_API uint32_t vkskin_crowd_palette_count(const vkskin_crowd *crowd);
VKSKIN_API uint32_t vkskin_crowd_palette_first(const vkskin_crowd *crowd, uint32_t instance);

typedef struct vkskin_instance_info {
    uint32_t model;          /* index into vkskin_crowd_desc.models */
    int32_t clip;            /* VKSKIN_CLIP_NONE: the bind pose */
    double time;             /* seconds into the clip */
    float speed;             /* clock rate */
    float world[16];         /* palette space -> world, column-major */
    float center[3], radius; /* bounding sphere in world space, over every clip's motion */
    bool fading;             /* a cross-fade is under way */
    bool shown;              /* not hidden (vkskin_crowd_set_shown) */
} vkskin_instance_info;

VKSKIN_API vkskin_result vkskin_crowd_get_instance(const vkskin_crowd *crowd, uint32_t instance,
                                                   vkskin_instance_info *info, vkskin_error *err);
/* Cross-fades the instance from its current pose into `clip` (VKSKIN_CLIP_NONE: the bind pose),
 * played from its start, over `fade` seconds (0: at once). The clip it already plays restarts at
 * once. */
VKSKIN_API vkskin_result vkskin_crowd_play(vkskin_crowd *crowd, uint32_t instance, int32_t clip,
                                           double fade, vkskin_error *err);
/* Sets the instance's clock (seconds, finite; wrapped into its clip) and its rate (finite). */
VKSKIN_API vkskin_result vkskin_crowd_set_time(vkskin_crowd *crowd, uint32_t instance,
                                               double seconds, float speed, vkskin_error *err);
/* Hides the instance (shown false) or shows it again: a hidden one is never culled into a
 * visible list, so it is neither posed nor drawn, and its palette store block is given back; its
 * clock runs on. Indices do not change. Frames in flight are not touched: from the next frame.
 * vkskin_crowd_reset shows every instance. */
VKSKIN_API vkskin_result vkskin_crowd_set_shown(vkskin_crowd *crowd, uint32_t instance, bool shown,
                                                vkskin_error *err);
/* Root motion on or off for the instance. On, a clip that travels (vkskin_model_get_travel) is
 * posed in place and the instance moves by its travel as its clock runs: vkskin_crowd_advance
 * carries its world (a loop adds the clip's whole travel; a cross-fade blends the two clips'
 * travels as it blends their poses), and a renderer draws it where it has gone. Off, clips play
 * as authored, the travel in the pose (the character walks off its spot and back at each loop).
 * Switching keeps the character where it is seen: its world takes in, or gives back, the travel
 * its clip has made so far. Clips that travel nothing play as they are either way. */
VKSKIN_API vkskin_result vkskin_crowd_set_root_motion(vkskin_crowd *crowd, uint32_t instance,
                                                      bool on, vkskin_error *err);
/* Moves instances at velocities (world units a second on the ground: x, z; 2 floats each) from
 * the next vkskin_crowd_advance: each faces along its velocity (its model's locomotion turned
 * onto it) and moves at it, its clips chosen by its speed among its model's locomotion clips
 * (vkskin_travel_info.ground_speed > 0: the two around its speed blended, phase-matched so that
 * their feet land together; below the slowest or past the fastest, that one alone), time-warped
 * (rate = speed / ground speed) and posed in place, so that its feet stay planted. A velocity of
 * 0 0 stops the instance, back in its own clip (vkskin_crowd_play's) from its start. A model
 * without locomotion clips moves its instances with their clips as they play. `instances`: the
 * indices, or NULL for 0 .. count - 1. Each velocity finite and at most 1e6 a second; a bad one
 * (or index) is refused with the index named, nothing set. The crowd moves them itself, on its
 * threads; a renderer draws them where they have gone. No collision avoidance: that is the
 * host's simulation. */
VKSKIN_API vkskin_result vkskin_crowd_set_velocities(vkskin_crowd *crowd, const uint32_t *instances,
                                                     uint32_t count, const float *velocities,
                                                     vkskin_error *err);
/* Places instances at once: each on `positions` (3 floats: world x, y, z), turned by `headings`
 * radians about +Y (+Z towards +X; NULL: 0) and scaled by `scales` (NULL: 1), its model's root
 * transform (normalised as the crowd's desc asks) after: as the crowd's own layout places them.
 * `instances` as vkskin_crowd_set_velocities's. Finite values, scales above 0; a bad one is
 * refused with the index named, nothing placed. */
VKSKIN_API vkskin_result vkskin_crowd_set_placements(vkskin_crowd *crowd, const uint32_t *instances,
                                                     uint32_t count, const float *positions,
                                                     const float *headings, const float *scales,
                                                     vkskin_error *err);
/* Places the instance: palette space -> world, column-major, affine (its last row 0 0 0 1),
 * finite. Its bounding sphere follows, and a renderer of the crowd draws it there from its next
 * frame (its instance table takes the instances placed anew since its last frame). */
VKSKIN_API vkskin_result vkskin_crowd_set_world(vkskin_crowd *crowd, uint32_t instance,
                                                const float world[16], vkskin_error *err);

/* ---- Instances that come and go ----
 * A crowd changes after it is made, frames in flight or not: instances are added, removed and
 * given another of its models; its renderer (or vkskin_gpu) follows from its next frame, growing
 * what it holds per instance as needed (vkskin_gpu: slot by slot, as the host takes each), never
 * made again. Indices: an instance keeps its index until it is removed. A removed index is free:
 * every call that takes an instance, or a list of them, refuses it, until vkskin_crowd_add
 * gives it to a new instance (the last removed first; none free: a new index, instance_count, at
 * the end). No other index ever changes. vkskin_crowd_reset brings back the instances as created,
 * at their indices, and removes the added ones. The palette layout (vkskin_crowd_palette_first,
 * vkskin_crowd_palette_count) changes as instances are added or change models: read it again
 * after. */

/* Adds an instance of model `model` (an index into vkskin_crowd_desc.models) placed by `world`
 * (as vkskin_crowd_set_world), in the bind pose, its clock at 0 and speed 1, shown. *instance
 * gets its index. */
VKSKIN_API vkskin_result vkskin_crowd_add(vkskin_crowd *crowd, uint32_t model,
                                          const float world[16], uint32_t *instance,
                                          vkskin_error *err);
/* Removes the instance: it is never listed, posed or drawn again, and its index is free. */
VKSKIN_API vkskin_result vkskin_crowd_remove(vkskin_crowd *crowd, uint32_t instance,
                                             vkskin_error *err);
/* The instance shows model `model` from its next frame, where it stands, in that model's bind
 * pose (clock 0; vkskin_crowd_play then plays one of its clips). */
VKSKIN_API vkskin_result vkskin_crowd_set_model(vkskin_crowd *crowd, uint32_t instance,
                                                uint32_t model, vkskin_error *err);

/* Every instance steps `delta` clips (mod its model's clip count: the next or previous one) and
 * cross-fades into it over `fade` seconds (finite, 0 or more). Models without clips stay in the
 * bind pose. Deprecated: a viewer's convenience, written with vkskin_crowd_play per instance. */
VKSKIN_DEPRECATED("play each instance's clip with vkskin_crowd_play")
VKSKIN_API vkskin_result vkskin_crowd_step_clips(vkskin_crowd *crowd, int32_t delta, double fade,
                                                 vkskin_error *err);
/* on: every instance cross-fades into the bind pose over `fade` seconds (finite, 0 or more),
 * holding its clip; off: back into the clip it held, from its start. Deprecated: a viewer's
 * convenience, written with vkskin_crowd_play per instance. */
VKSKIN_DEPRECATED("play VKSKIN_CLIP_NONE, then the clip held, with vkskin_crowd_play")
VKSKIN_API vkskin_result vkskin_crowd_bind_pose(vkskin_crowd *crowd, bool on, double fade,
                                                vkskin_error *err);
/* Every instance back as the crowd was created: model, clip, clock, speed, place, shown; no
 * cross-fade. Instances added since are removed, those removed come back at their indices. */
VKSKIN_API vkskin_result vkskin_crowd_reset(vkskin_crowd *crowd, vkskin_error *err);

/* The instance's morph-target weights now (its clip's at its clock, a cross-fade blended as its
 * pose): its model's target_count floats, what its next pose applies before skinning.
 * `capacity`: the weights `weights` has room for (at least its model's target count). */
VKSKIN_API vkskin_result vkskin_crowd_get_weights(vkskin_crowd *crowd, uint32_t instance,
                                                  float *weights, uint32_t capacity,
                                                  vkskin_error *err);

/* Where the instance's joints are now, in the world (its clip at its clock; cross-fades
 * included): joint_count x 3 floats, joint j's origin at 3 j (vkskin_model_get_joint gives each
 * one's parent: a skeleton is the lines from each joint to its parent). Poses the instance on the
 * calling thread. `capacity`: the joints `positions` has room for (at least its model's). */
VKSKIN_API vkskin_result vkskin_crowd_get_joints(vkskin_crowd *crowd, uint32_t instance,
                                                 float *positions, uint32_t capacity,
                                                 vkskin_error *err);

/* Moves every clock forward by dt seconds (times each instance's speed), looping within its
 * clip, and runs the cross-fades down, on the crowd's threads (vkskin_crowd_desc.workers); the
 * _one_thread call on the calling thread alone (as vkskin_prepare_desc.one_thread poses). dt must
 * be finite and within 1e6 seconds either way (negative runs the clocks back); any other is
 * refused, nothing moved. */
VKSKIN_API vkskin_result vkskin_crowd_advance(vkskin_crowd *crowd, double dt, vkskin_error *err);
VKSKIN_API vkskin_result vkskin_crowd_advance_one_thread(vkskin_crowd *crowd, double dt,
                                                         vkskin_error *err);

/* The view `vkskin render` shows of the crowd at `aspect` (width / height): three-quarters from
 * the front right and a bit above (higher for a crowd much wider than tall), a 40-degree vertical
 * field of view, every instance's bounds (over every clip) in frame with a margin. */
typedef struct vkskin_view {
    float view_proj[16]; /* column-major, Vulkan clip space: y down, 0 <= z <= w */
    float eye[3];        /* world space */
    float yaw, pitch;    /* radians: where the eye is about the point looked at (0, 0: on +Z) */
} vkskin_view;

VKSKIN_API vkskin_result vkskin_crowd_frame_view(const vkskin_crowd *crowd, float aspect,
                                                 vkskin_view *view, vkskin_error *err);
/* A person's view of the crowd at `aspect`: the eye at a standing person's eye height (0.93 of the
 * first model's height), half a height outside the middle of the crowd's front edge (+Z), looking
 * level across it with a 60-degree vertical field of view, so that the nearest characters fill
 * much of the screen at full detail and the farthest are a pixel or so. yaw and pitch are 0. */
VKSKIN_API vkskin_result vkskin_crowd_street_view(const vkskin_crowd *crowd, float aspect,
                                                  vkskin_view *view, vkskin_error *err);

/* vkskin's shading, what its draw lights a view with, for a host's draw to match: a pixel's
 * linear color is base x (ambient + color x max(dot(n, direction), 0)), base the material's
 * base_color times its texture (sRGB, decoded by the sampler), n the world normal, turned to face
 * the eye on back faces; written to an sRGB target. */
typedef struct vkskin_light {
    float direction[3]; /* unit vector towards the light, world space */
    float color[3];     /* linear RGB */
    float ambient[3];   /* linear RGB */
} vkskin_light;

VKSKIN_API vkskin_result vkskin_view_light(const vkskin_view *view, vkskin_light *light,
                                           vkskin_error *err);

/* That view turned about the crowd's centre: `yaw` (radians, about +Y) and `pitch` (radians,
 * up; the sum with the default's is kept within +-1.5) added to the default's, the distance
 * times `zoom` (0: 1; from 0.01 to 100). Zooming in (below 1) also moves the point looked at
 * from the centre towards the instance nearest the framing view's eye (the same one however the
 * view turns), reaching it as the zoom goes to 0. */
typedef struct vkskin_orbit {
    float aspect; /* width / height */
    float yaw, pitch, zoom;
} vkskin_orbit;

VKSKIN_API vkskin_result vkskin_crowd_orbit_view(const vkskin_crowd *crowd,
                                                 const vkskin_orbit *orbit, vkskin_view *view,
                                                 vkskin_error *err);

/* Writes the instances whose bounding sphere meets the frustum of `view_proj` (column-major,
 * Vulkan clip space: 0 <= z <= w) into `visible` (`capacity`: at least instance_count),
 * ascending, and their count into *count. */
VKSKIN_API vkskin_result vkskin_crowd_cull(const vkskin_crowd *crowd, const float view_proj[16],
                                           uint32_t *visible, uint32_t capacity, uint32_t *count,
                                           vkskin_error *err);

/* Poses the listed instances (ascending, each below instance_count: vkskin_crowd_cull's list) at
 * their clocks and writes
 * their palettes into `palettes` (palette_count x 12 floats, each instance's at its
 * palette_first; the others' are left as they are), on the crowd's threads. `palettes` may be
 * mapped GPU memory: each entry is written once and never read back. `capacity`: the entries
 * `palettes` has room for (at least palette_count). */
VKSKIN_API vkskin_result vkskin_crowd_pose(vkskin_crowd *crowd, const uint32_t *instances,
                                           uint32_t count, float *palettes, uint32_t capacity,
                                           vkskin_error *err);
/* The CPU half of a frame for a host's own renderer (vkskin_renderer_frame's, before its passes):
 * culls the crowd against the view into `visible` (room for instance_count; ascending), chooses
 * each visible instance's level of detail into `levels` (the same count; NULL: not chosen) and
 * poses them into `palettes` (as vkskin_crowd_pose). With levels chosen, each instance is posed
 * for its level: only the joints that level keeps (vkskin_level_info.joint_count; the others'
 * entries are left as they were), so skin it at that level (vkskin_gpu_skin with `levels`). With
 * animation level of detail (unless pose_every_frame), an instance whose bounding sphere projects
 * to a radius under 48 pixels is posed every 2nd frame, under 16 every 4th, under 6 every 8th,
 * staggered, and otherwise gets its last pose again; the crowd keeps every instance's last pose for
 * it (palette_count x 48 bytes more, from the first call, and 17 bytes an instance: which pose each
 * of the last two palette buffers holds, reuse_palettes). */
/* The default screen-space error of a level of detail, in pixels: a level's error over the clips'
 * poses (vkskin_level_info.error) projected at the instance's distance. At 0.45 px, crowds of
 * characters 2 to 300 pixels tall change less than one frame of motion changes them
 * (docs/performance.md). */
#define VKSKIN_LOD_ERROR_PX 0.45f
/* The default size below which the compute rasterizer draws an instance (hybrid rendering,
 * vkskin_render.h): its level's mean triangle area, projected at its distance, in square pixels
 * (docs/performance.md says why this value). */
#define VKSKIN_RASTER_TRIANGLE_PX 4.0f

typedef struct vkskin_prepare_desc {
    uint32_t desc_size;      /* sizeof(vkskin_prepare_desc): the layout the caller was built with */
    const vkskin_view *view; /* a perspective times a rigid view, as vkskin_crowd_frame_view's */
    uint32_t height;         /* of the image in pixels: how large things project (0: 720) */
    bool fixed_lod; /* every instance at level `lod` (its model's last when it has fewer) */
    uint32_t lod;
    float lod_error_px; /* else the coarsest level within this many pixels (0: the default) */
    bool pose_every_frame;
    bool one_thread; /* pose (and, in the renderer, plan the frame) on the calling thread
                        alone, not the crowd's threads */
    /* With levels: raster[k] = 1 for each listed instance whose level's mean triangle area
     * projects to at most raster_triangle_px square pixels (0: VKSKIN_RASTER_TRIANGLE_PX), else
     * 0 (room for instance_count; NULL: not written). What hybrid rendering draws in compute. */
    uint8_t *raster;
    float raster_triangle_px;
    /* With animation level of detail: `palettes` is one of at most two buffers the caller passes
     * in turn (frames in flight) and leaves as vkskin wrote them. vkskin remembers which pose
     * each holds for each instance and writes a kept pose only into a buffer that lacks it: once
     * both hold it, a kept pose costs nothing. It knows the buffers by address: after freeing
     * one, pass false once (every listed instance is then written, and the memory forgotten).
     * Off: every listed instance is written. */
    bool reuse_palettes;
} vkskin_prepare_desc;

typedef struct vkskin_prepared {
    uint32_t visible;       /* instances listed */
    uint32_t posed;         /* of them posed (the rest: their last pose) */
    uint64_t palette_bytes; /* written into `palettes` (or the store's staging) */
    uint32_t dropped;       /* vkskin_crowd_prepare_store: in view, left out (no room) */
    /* Joints posed: each posed instance's level's (the skeleton level of detail poses only the
     * joints a level keeps; with levels not chosen, every joint). */
    uint64_t posed_joints;
} vkskin_prepared;

/* `capacity`: what visible, levels and desc->raster each have room for (at least
 * instance_count); `palette_capacity`: the entries `palettes` has (at least palette_count). */
VKSKIN_API vkskin_result vkskin_crowd_prepare(vkskin_crowd *crowd, const vkskin_prepare_desc *desc,
                                              uint32_t *visible, uint8_t *levels, uint32_t capacity,
                                              float *palettes, uint32_t palette_capacity,
                                              vkskin_prepared *out, vkskin_error *err);

/* A palette store for a host's own renderer (what vkskin_renderer does by default,
 * VKSKIN_PALETTES_STORE): the host keeps a buffer of `capacity` palette entries on the GPU (12
 * floats each) that its skinning reads in place, and vkskin deals its entries. Each instance in
 * view holds a block of the store (its model's joint count of entries) while it stays in view,
 * rewritten only when it is posed; an instance that leaves the view gives its block back. A frame
 * then moves only the posed instances' palettes to the GPU, and a kept pose costs nothing. */
typedef struct vkskin_palette_store vkskin_palette_store;

/* Entries from staging `from` to the store's `to`. */
typedef struct vkskin_palette_copy {
    uint32_t from, to, count;
} vkskin_palette_copy;

/* A store of `capacity` entries (at least the largest model's joint count, below 2^31) for the
 * crowd's instances; the crowd must outlive it. The crowd keeps one animation schedule: prepare
 * one store (or one renderer, or vkskin_crowd_prepare's buffers) per crowd. */
VKSKIN_API vkskin_result vkskin_palette_store_create(const vkskin_crowd *crowd, uint32_t capacity,
                                                     vkskin_palette_store **store,
                                                     vkskin_error *err);
VKSKIN_API void vkskin_palette_store_destroy(vkskin_palette_store *store);

/* vkskin_crowd_prepare with a store: culls, chooses levels and schedules the animation level of
 * detail as vkskin_crowd_prepare does, then gives each listed instance a block (vkskin deals them:
 * an instance new to the store is posed whatever its period) and writes the posed instances'
 * palettes into `staging` (room for the store's capacity), packed from entry 0, each entry once
 * (with levels chosen, each posed for its level: the entries of the joints its level does not
 * keep are left as they were, copied but never read).
 * Before the GPU reads the store, the host copies vkskin_palette_store_copies from staging into
 * the store, ordered after every earlier read of the store (a freed block changes hands) and
 * before this frame's. When the store cannot hold every listed instance's palette at once, the
 * store is dealt again from the start, and those that still find no room are left out of the
 * list (out->dropped; visible, levels and desc->raster stay in step); when the listed palettes
 * together exceed the store, the blocks already dealt stay and the new instances that find none
 * are left out. reuse_palettes is not used; `out` may be NULL. Should the frame not reach the
 * GPU, vkskin_palette_store_forget. */
/* `capacity` as vkskin_crowd_prepare's; `staging_capacity`: the entries `staging` has room for
 * (at least the store's capacity). */
VKSKIN_API vkskin_result vkskin_crowd_prepare_store(vkskin_crowd *crowd,
                                                    const vkskin_prepare_desc *desc,
                                                    vkskin_palette_store *store, uint32_t *visible,
                                                    uint8_t *levels, uint32_t capacity,
                                                    float *staging, uint32_t staging_capacity,
                                                    vkskin_prepared *out, vkskin_error *err);
/* The last prepare's copies (*count of them; NULL for a NULL store). */
VKSKIN_API const vkskin_palette_copy *vkskin_palette_store_copies(const vkskin_palette_store *store,
                                                                  uint32_t *count);
/* Instance's first entry in the store after the last prepare: where its skinning reads its
 * palette (VKSKIN_NO_ENTRY: not listed then, or not an instance). */
VKSKIN_API uint32_t vkskin_palette_store_first(const vkskin_palette_store *store,
                                               uint32_t instance);
/* The store's contents are lost (a frame that never ran, a new buffer): the next prepare deals
 * and poses every listed instance afresh. */
VKSKIN_API vkskin_result vkskin_palette_store_forget(vkskin_palette_store *store,
                                                     vkskin_error *err);

/* Profiling: posing's three steps timed apart on the calling thread, each over every listed
 * instance (ascending) in turn, keeping its results for the next as a phased runtime would:
 * sampling the clips, the hierarchy (local to model) and the palettes (model times inverse bind).
 * Each of `samples` samples (1 to 10^6) runs each step `repeat` times (1 to 10^6) and
 * advances the crowd by 1/60 s; the medians, ms per step. Indicative: posing fuses the last
 * two. */
typedef struct vkskin_pose_phases {
    double sample_ms, model_ms, palette_ms;
} vkskin_pose_phases;

VKSKIN_API vkskin_result vkskin_crowd_time_phases(vkskin_crowd *crowd, const uint32_t *instances,
                                                  uint32_t count, uint32_t samples, uint32_t repeat,
                                                  float *palettes, uint32_t capacity,
                                                  vkskin_pose_phases *out, vkskin_error *err);

/* The same for the caller's own job system: poses instances[begin, end) of one ascending list on
 * the calling thread, with scratch `worker` (< vkskin_crowd_desc.workers; at most one call per
 * worker at a time). Each call checks its range and the entry before it, so the ranges of one
 * list check it whole. */
VKSKIN_API vkskin_result vkskin_crowd_pose_range(vkskin_crowd *crowd, const uint32_t *instances,
                                                 uint32_t begin, uint32_t end, float *palettes,
                                                 uint32_t capacity, uint32_t worker,
                                                 vkskin_error *err);

/* ---- Deprecated names (0.3; removed in 0.4): what each became ---- */

/* VKSKIN_NO_ENTRY. */
#define VKSKIN_NO_SLOT VKSKIN_NO_ENTRY
/* vkskin_palette_store_first (a store's "slot" is its block of entries; "slot" names a frame in
 * flight). */
VKSKIN_DEPRECATED("vkskin_palette_store_first")
VKSKIN_API uint32_t vkskin_palette_store_slot(const vkskin_palette_store *store, uint32_t instance);

#ifdef __cplusplus
}
#endif

#endif
