/* The GPU scene: what a crowd's models and instances are on the device, uploaded once when a
 * renderer (or a host's vkskin_gpu) is made and read by every frame after.
 *
 * - Every model's compact streams (asset/pack.h) concatenated, each model's levels of detail
 *   after its level 0: positions, normals, tangents, joints, weights and UVs; influences 5 to 8
 *   of the wide models in streams of their own (not created when no model is wide); indices
 *   (level 0's, then the levels').
 * - The morph buffer: every model's morph targets, their deltas and, per vertex of a morphed model,
 *   the level-0 vertex it copies (not created when no model has targets).
 * - The model table (vks_model_gpu per model: where its streams start, how its positions decode)
 *   and the instance table (vks_instance per instance: world transform and model; a renderer
 *   scatters the entries of moved instances into it, render/renderer.c).
 * - With desc.textures, every model's textures (sRGB, mip-mapped), then a 1x1 white one for
 *   untextured materials.
 *
 * Nothing here changes after creation but the instance table's entries. */
#ifndef VKS_SCENE_GPU_H
#define VKS_SCENE_GPU_H

#include "../gpu/gpu.h"
#include "../scene/crowd.h"
#include "../../shaders/vks_shared.h"

/* Where a model's data sits in the concatenated buffers. extra_first: its first vertex in the
 * extra streams (wide models only; 4-influence models have no entries there); joints_first and
 * joints_extra_first: its first uint in the joint streams (1 or 2 a vertex). */
typedef struct vks_scene_model {
    uint32_t vertex_first, first_index, material_first, extra_first;
    uint32_t joints_first, joints_extra_first;
    uint32_t lod_first_index; /* where its levels' indices (model->lod_indices) start */
} vks_scene_model;

typedef struct vks_scene_gpu_desc {
    bool textures;              /* upload the models' textures (a draw samples them) */
    bool index_addresses;       /* the indices are read through their address too (the compute
                                   rasterizer and its resolve), not only bound as an index buffer */
    uint32_t instance_capacity; /* the instance table's room (the crowd's count when larger) */
} vks_scene_gpu_desc;

typedef struct vks_scene_gpu {
    const gpu_device *dev;
    const vks_crowd *crowd; /* kept by pointer */
    bool index_addresses;
    vks_scene_model models[VKS_CROWD_MAX_MODELS];
    gpu_buffer positions, normals, tangents, joints, weights, uvs, indices;
    gpu_buffer joints_extra, weights_extra; /* address 0 when no model is wide */
    /* Morph targets (shaders/vks_shared.h, "Morph targets"): address 0 when no model has any. */
    gpu_buffer morphs;
    uint32_t extra_vertex_count;
    uint32_t material_count;    /* every model's materials, model by model */
    gpu_buffer model_table;     /* vks_model_gpu per model, device-local */
    gpu_buffer instances;       /* vks_instance per instance, device-local */
    uint32_t instance_capacity; /* the instance table's room */
    uint32_t texture_count;     /* desc.textures: every model's, then the white one; else 0 */
    gpu_image *textures;
} vks_scene_gpu;

/* Uploads the crowd's models and instances (waiting for each upload). False, with a message,
 * when out of memory. */
bool vks_scene_gpu_create(const gpu_device *dev, const vks_crowd *crowd,
                          const vks_scene_gpu_desc *desc, vks_scene_gpu *scene, vks_error *err);
void vks_scene_gpu_destroy(vks_scene_gpu *scene);

/* A new instance table of `capacity` entries, filled from the crowd (the old one destroyed: the
 * caller has waited for its readers). False, with a message, when out of memory. */
bool vks_scene_gpu_resize_instances(vks_scene_gpu *scene, uint32_t capacity, vks_error *err);

/* Where level `level` of model `model` starts in the concatenated streams: its first vertex (each
 * model's level-0 vertices, then its levels') and its first index (level 0's, then the levels'
 * own, to which each mesh level's first_index is relative). */
uint32_t vks_scene_gpu_level_vertex(const vks_scene_gpu *scene, uint32_t model, uint32_t level);
uint32_t vks_scene_gpu_level_index(const vks_scene_gpu *scene, uint32_t model, uint32_t level);

/* The streams' addresses, as the passes' push constants carry them. */
vks_streams vks_scene_gpu_streams(const vks_scene_gpu *scene);

/* Instance i's entry of the instance table: its world transform (rows) and its model. */
vks_instance vks_scene_gpu_instance(const vks_crowd *crowd, uint32_t i);

#endif
