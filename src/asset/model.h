/* The engine-owned model: everything the renderer needs from a file, in flat arrays, with no
 * importer type in sight. Produced by vks_model_import (import.h), freed by vks_model_destroy. */
#ifndef VKS_MODEL_H
#define VKS_MODEL_H

#include "../core/xform.h"

#include <stdbool.h>
#include <stdint.h>

/* The joint hierarchy, parent before child (parent[j] < j, roots have -1). Besides the skin's
 * bones it holds every node between them and the scene root, and the nodes that carry meshes, so
 * that walking it equals walking the file's whole node hierarchy for everything that moves a
 * vertex. */
typedef struct vks_skeleton {
    uint32_t joint_count;
    uint32_t bone_count; /* joints that are a skin's bones (the rest: the nodes around them) */
    char **names;
    int32_t *parents;
    vks_xform *rest;          /* local transform in the bind pose / without animation */
    vks_affine *inverse_bind; /* bone offset matrix; identity for joints that are no bone */
    vks_affine root_inverse; /* inverse of the scene root's transform: palettes live in its frame */
} vks_skeleton;

/* Keys of one joint in one clip, as ranges into the clip's key arrays. A count of 0 means the
 * joint keeps its rest value for that component. */
typedef struct vks_track {
    uint32_t t_first, t_count;
    uint32_t r_first, r_count;
    uint32_t s_first, s_count;
} vks_track;

/* How a track of morph-target weights runs between its keys (glTF's interpolations). */
typedef enum vks_interp { VKS_INTERP_LINEAR, VKS_INTERP_STEP, VKS_INTERP_CUBIC } vks_interp;

/* One node's morph-target weights in a clip: weight k of a key goes to target k of each of the
 * node's `parts` meshes (part p's at target_first + p * weight_count + k). Keys at w_times
 * [key_first, + key_count) (seconds, ascending); per key weight_count values from value_first,
 * or for VKS_INTERP_CUBIC weight_count in-tangents, values, then out-tangents (glTF's layout). */
typedef struct vks_weight_track {
    uint32_t target_first, parts, weight_count;
    uint32_t interp; /* vks_interp */
    uint32_t key_first, key_count, value_first;
} vks_weight_track;

typedef struct vks_clip {
    char *name;
    double duration;        /* seconds (in double, as the crowd's clocks: a float one drifts
                               from the file's by 1e-7 s a loop) */
    uint32_t channel_count; /* joints with at least one key */
    vks_track *tracks;      /* skeleton.joint_count entries, indexed by joint */
    uint32_t t_key_count, r_key_count, s_key_count;
    float *t_times, (*t_values)[3]; /* times in seconds, ascending within each track */
    float *r_times, (*r_values)[4]; /* unit quaternions (x, y, z, w) */
    float *s_times, (*s_values)[3];
    /* Morph-target weights (glTF files: read by gltf.c, which keeps their interpolation). */
    uint32_t weight_track_count;
    vks_weight_track *weight_tracks;
    float *w_times, *w_values;
    /* Locomotion (bake/gait.h): how fast the character must move, in the model's frame (its root
     * transform's) along ground_dir (x, z; a unit vector), for its feet to stay planted as the
     * clip plays in place (with root motion: its travel's speed). 0: not locomotion. */
    float ground_speed, ground_dir[2];
} vks_clip;

/* Root motion (bake/root_motion.h): what a clip's character travels, as a 2D rigid transform of
 * the placement frame (the model's root transform's, y up): turned by `yaw` radians about +Y
 * (+Z towards +X), then moved by (x, z). */
typedef struct vks_travel {
    float yaw, x, z;
} vks_travel;

/* One clip's root motion: its travel from the clip's start, M(t), at sample_count times evenly
 * spaced over [0, duration] (samples[0] the identity, samples[sample_count - 1] a whole loop's),
 * and the clip with that travel taken out of the motion joint (the pose in place: the vertical
 * bob and the sway stay). sample_count 0: the clip travels nothing and has no in-place copy. */
typedef struct vks_root_motion {
    uint32_t sample_count;
    vks_travel *samples;
    vks_clip in_place;
    float distance; /* a loop's: the length of its translation, the model's units */
    float heading;  /* a loop's turn, radians */
} vks_root_motion;

typedef struct vks_texture {
    char *source; /* "embedded *N" (assimp's name for the file's Nth image) or the file read */
    uint32_t width, height;
    uint8_t *rgba; /* width * height * 4 bytes, sRGB-encoded, first row at the top */
} vks_texture;

typedef struct vks_material {
    char *name;
    float base_color[4]; /* linear RGBA factor; (1, 1, 1, 1) when the file has none */
    int32_t texture;     /* index into model.textures, -1 for none */
} vks_material;

typedef struct vks_mesh {
    char *name;
    uint32_t base_vertex, vertex_count;
    uint32_t first_index, index_count; /* indices are relative to base_vertex */
    uint32_t material;
    uint32_t node_joint;   /* joint of the mesh's node (merged: the joint all its parts' nodes hang
                              from); its rigid and unweighted vertices follow their node's joint */
    bool skinned;          /* has bones in the file (a merged mesh: one of its parts has) */
    uint32_t source_count; /* meshes of the file it holds: 1, or more once merged (merge.h) */
} vks_mesh;

/* A morph target (blend shape): per-vertex deltas to the rest streams, added before skinning
 * scaled by the target's weight (p + sum_t w_t dp_t, likewise the normal and the tangent). Kept
 * over the vertices it moves: the range [vertex_first, vertex_first + vertex_count) of the model's
 * vertices from the first to the last it moves (a sparse target keeps a short range), its deltas
 * from delta_first in the model's morph streams, one per vertex of the range. */
typedef struct vks_morph_target {
    char *name;    /* the file's (glTF: mesh.extras.targetNames), else "target N" */
    uint32_t mesh; /* the mesh whose vertices it moves */
    float weight;  /* its weight without animation (glTF: mesh.weights; 0 without) */
    uint32_t vertex_first, vertex_count, delta_first;
} vks_morph_target;

/* Counts over all vertices of skinned meshes, for `vkskin info` and the tests. */
typedef struct vks_influence_stats {
    uint32_t histogram[VKS_WIDE_INFLUENCES + 1]; /* vertices by influences kept; 0 = follows node */
    uint32_t max_influences;                     /* most influences on one vertex in the file */
    uint32_t truncated;    /* had more than 8: kept the 8 largest, renormalised */
    uint32_t renormalised; /* weight sum differed from 1 by more than 1e-4 */
    uint32_t dropped;      /* influences with weight <= 0 that were ignored */
} vks_influence_stats;

/* Levels of detail (bake/lod.h). Level 0 is the model as imported; level L >= 1 is the whole
 * character simplified (meshoptimizer) to about half the triangles of level L - 1, its triangles
 * grouped by mesh. A level's vertices are one range: level 0 the model's streams, a level L >= 1
 * copies of level-0 vertices (lod_source), so that skinning a level touches only its own. At
 * most VKS_MAX_LEVELS (shaders/vks_shared.h: the resolve's tables have that many a model). */

/* The largest coordinate a model may reach, bind pose or posed, in its own units: 1e9 (a million
 * kilometres in metres, a thousand in millimetres). Beyond it a value is damage (a flipped
 * exponent bit) or absurd units, and the camera's arithmetic (squares of distances) would lose
 * its precision, then its finiteness: the import and the crowd refuse it, naming the file. */
#define VKS_MAX_COORDINATE 1e9f

typedef struct vks_level {
    uint32_t vertex_first;   /* level 0: 0 (the streams); L >= 1: its first entry in lod_source */
    uint32_t vertex_count;   /* vertices of the level, all meshes */
    uint32_t triangle_count; /* triangles of the level, all meshes */
    float error;   /* largest distance from level 0's surface; 0 at 0 (bake/lod_error.h: over the
                      clips' poses, palette units; before it, meshoptimizer's in the bind pose) */
    uint32_t kind; /* how it was made: vks_lod_kind (lod.h) */
    /* Joints an instance at this level poses (bake/skeleton_lod.h): the first joint_count of
     * model->pose_order; the level's vertices follow the others' nearest kept ancestors
     * (vks_model_fold). joint_count of the skeleton at level 0 and without a skeleton LOD. */
    uint32_t joint_count;
} vks_level;

/* One mesh at one level: its indices (level 0: in model->indices, the mesh's own; L >= 1: in
 * model->lod_indices) index the level's vertices from base_vertex (relative to the level's first
 * vertex; 0 at L >= 1, where the meshes share the level's vertices). */
typedef struct vks_mesh_level {
    uint32_t first_index, index_count, base_vertex;
} vks_mesh_level;

/* The far splat (bake/splat.h): what an instance whose whole projection is a few pixels is drawn
 * as, one primitive (shaders/splat.comp). */
typedef struct vks_splat {
    bool valid;      /* the model has one (it has triangles) */
    uint32_t joint;  /* the joint that carries it, posed at every level */
    float center[3]; /* the posed surface's mean in the joint's bind frame (bind space) */
    float cov[6];    /* its covariance there: xx, xy, xz, yy, yz, zz */
    float color[4];  /* the surface's mean base color (factor times texture), linear RGBA */
    /* The mean area of its outline (palette units squared, over the poses and six directions),
     * and the squared standard deviations its footprint reaches so that the ellipse covers that
     * area. */
    float area, radius2;
} vks_splat;

typedef struct vks_model {
    char *name;

    /* Vertex streams, vertex_count entries each, all meshes one after the other. */
    uint32_t vertex_count;
    float (*positions)[3];
    float (*normals)[3];
    /* NULL when no mesh has tangents (from the file only; none are generated). Else xyz = unit
     * tangent, w = handedness +-1: bitangent = cross(normal, xyz) * w; (0, 0, 0, 0) on vertices of
     * meshes without tangents. */
    float (*tangents)[4];
    float (*uvs)[2];
    uint16_t (*joints)[VKS_MAX_INFLUENCES];
    float (*weights)[VKS_MAX_INFLUENCES]; /* sum to 1; unused places are 0 with joint 0 */
    /* Influences 5 to 8, largest first after the 4 above (which are the largest), for models with
     * a vertex of more than 4 influences; NULL for every other model (4-influence models keep
     * their streams, and their speed). The 8 weights together sum to 1. */
    uint16_t (*joints_extra)[VKS_MAX_INFLUENCES];
    float (*weights_extra)[VKS_MAX_INFLUENCES];

    uint32_t index_count;
    uint32_t *indices;

    uint32_t mesh_count;
    vks_mesh *meshes;
    uint32_t material_count;
    vks_material *materials;
    uint32_t texture_count;
    vks_texture *textures;

    vks_skeleton skeleton;
    uint32_t clip_count;
    vks_clip *clips;
    /* Root motion (bake/root_motion.h): per clip its travel, NULL when no clip travels, and the
     * joint the travel is taken out of (read only with root_motion). */
    int32_t motion_joint;
    vks_root_motion *root_motion;

    vks_influence_stats influences;

    /* Morph targets, in mesh order (each mesh's own consecutive), and their deltas
     * (morph_delta_count of each stream): positions always, normals and tangents only when a
     * target moves them (else NULL; zeros for targets that do not). */
    uint32_t target_count;
    vks_morph_target *targets;
    uint32_t morph_delta_count;
    float (*morph_positions)[3];
    float (*morph_normals)[3];
    float (*morph_tangents)[3];

    /* The compact streams the GPU reads (asset/pack.h), NULL until vks_model_pack; the float
     * streams above then hold their decoded values. */
    struct vks_packed *packed;

    /* Levels of detail (vks_model_build_lods): 0 levels until then, which reads as level 0 only
     * (vks_model_level_count). mesh_levels: level_count x mesh_count, [level * mesh_count + mesh].
     */
    uint32_t level_count;
    vks_level levels[VKS_MAX_LEVELS];
    vks_mesh_level *mesh_levels;
    uint32_t lod_vertex_count;
    uint32_t *lod_source; /* per vertex of the levels >= 1: the level-0 vertex it copies */
    uint32_t lod_index_count;
    uint32_t *lod_indices;
    /* Skeleton level of detail (bake/skeleton_lod.h), NULL when no level folds a joint:
     * joint_fold[level * joint_count + j] is the joint the level's vertices use for joint j (j,
     * or its nearest kept ancestor); pose_order lists the joints so that each level's kept ones
     * come first (parents before children). */
    uint16_t *joint_fold;
    uint32_t *pose_order;
    vks_splat splat; /* vks_model_build_splat; not valid until then */

    uint32_t warning_count; /* things the import tolerated, one line each */
    char **warnings;
} vks_model;

void vks_model_destroy(vks_model *model);
/* A model with a vertex of more than 4 influences: it brings influences 5 to 8 in streams of their
 * own (joints_extra, weights_extra). */
static inline bool vks_model_wide(const vks_model *m)
{
    return m->joints_extra != NULL;
}
/* Levels of detail the model has: level_count, or 1 (level 0) before vks_model_build_lods. */
static inline uint32_t vks_model_level_count(const vks_model *m)
{
    return m->level_count ? m->level_count : 1;
}
/* Level `level`'s description (level 0 before vks_model_build_lods: the streams, every mesh). */
vks_level vks_model_level(const vks_model *model, uint32_t level);
/* Mesh `mesh` at level `level` (level 0 before vks_model_build_lods: the mesh itself). */
vks_mesh_level vks_model_mesh_level(const vks_model *model, uint32_t level, uint32_t mesh);
/* Vertex v's influences with a weight > 0, over the main and the extra streams, largest first:
 * their count (0 to VKS_WIDE_INFLUENCES), joints and weights. */
uint32_t vks_model_influences(const vks_model *model, uint32_t v,
                              uint16_t joints[VKS_WIDE_INFLUENCES],
                              float weights[VKS_WIDE_INFLUENCES]);

/* The joint level `level`'s vertices use for joint j (skeleton level of detail): j without one. */
static inline uint32_t vks_model_fold(const vks_model *m, uint32_t level, uint32_t j)
{
    return m->joint_fold && level < vks_model_level_count(m)
               ? m->joint_fold[(size_t)level * m->skeleton.joint_count + j]
               : j;
}
/* Joints an instance at `level` poses (the skeleton's without a skeleton level of detail). */
static inline uint32_t vks_model_level_joints(const vks_model *m, uint32_t level)
{
    return m->joint_fold && level < vks_model_level_count(m) ? m->levels[level].joint_count
                                                             : m->skeleton.joint_count;
}

/* A clip argument naming clip c's copy in place (root_motion[c].in_place): c | VKS_CLIP_IN_PLACE.
 * A clip without root motion has no copy: the flag then names the clip itself. */
#define VKS_CLIP_IN_PLACE 0x40000000
static inline int32_t vks_clip_index(int32_t clip)
{
    return clip < 0 ? clip : clip & ~VKS_CLIP_IN_PLACE;
}
/* Whether clip c (an index) has root motion, and so a copy in place. */
static inline bool vks_model_travels(const vks_model *m, int32_t c)
{
    return c >= 0 && m->root_motion && m->root_motion[c].sample_count;
}
/* The clip a clip argument names (an index, or one with VKS_CLIP_IN_PLACE); NULL for -1 (the
 * rest pose). */
static inline const vks_clip *vks_model_clip(const vks_model *m, int32_t clip)
{
    if (clip < 0)
        return NULL;
    const int32_t c = vks_clip_index(clip);
    return (clip & VKS_CLIP_IN_PLACE) && vks_model_travels(m, c) ? &m->root_motion[c].in_place
                                                                 : &m->clips[c];
}

/* Frees one clip's arrays and zeroes it (vks_model_destroy does it for every clip). */
void vks_clip_free(vks_clip *clip);

/* Index of the clip named `name`, or of index `name` when it is a decimal number; -1 if none. */
int32_t vks_model_find_clip(const vks_model *model, const char *name);

#endif
