/* The compute rasterizer and its resolve: the stage that draws small triangles without the
 * graphics pipeline.
 *
 * Rasterize: shaders/raster.comp, one dispatch per mesh of one (model, level) over a range of the
 * frame's visible entries: one invocation per triangle, one row of workgroups per entry. Each
 * covered pixel center of a triangle (both sides, as the draw pass draws them; a push bit culls
 * back faces) goes into a visibility buffer of 64-bit words
 * by atomicMin: the depth in 24 bits above (the nearest wins, as the draw pass's depth test
 * LESS), the visible entry and the triangle within its level in the 40 below (vks_raster_push in
 * shaders/vks_shared.h). Resolve: shaders/resolve.frag, one full-screen triangle for all the
 * materials at once (one per output chunk on the descriptors binding) inside the draw pass's
 * rendering, after the graphics pipeline's draws: each pixel of the visibility buffer shaded as
 * mesh.frag shades, from a material table and the textures' texels in one buffer, its depth written
 * and tested against theirs.
 *
 * It needs the device features shaderInt64 and shaderBufferInt64Atomics
 * (gpu_device.int64_atomics). The renderer (render/renderer.h) decides which entries come here,
 * binds the data set on the descriptors binding and records the calls below in order: clear,
 * dispatches, finish (outside the rendering), resolves (inside it). */
#ifndef VKS_RASTER_H
#define VKS_RASTER_H

#include "../../shaders/vks_shared.h"
#include "../asset/model.h"
#include "../gpu/gpu.h"

/* raster.comp's workgroup: 64 triangles. */
#define VKS_RASTER_GROUP_SIZE 64u
/* The visibility buffer's empty word: farther than any depth. */
#define VKS_RASTER_EMPTY UINT64_MAX

typedef struct vks_raster_pass_desc {
    /* The descriptors binding: the renderer's data set layout (VKS_DATA_*), bound as set 0 of
     * the rasterizer and set 1 of the resolve; VK_NULL_HANDLE: device addresses. */
    VkDescriptorSetLayout data_layout;
    /* The resolve (none when color_format is VK_FORMAT_UNDEFINED): the draw pass's frame
     * uniforms' set layout and attachment formats. */
    VkDescriptorSetLayout frame_layout;
    VkFormat color_format, depth_format;
} vks_raster_pass_desc;

typedef struct vks_raster_pass {
    VkDescriptorSetLayout
        set_layout; /* the raster set (VKS_RASTER_BINDING_*), descriptors binding */
    VkPipelineLayout layout, resolve_layout;
    VkPipeline pipeline, splat, resolve; /* raster.comp, splat.comp (its layout), resolve */
    bool descriptors;
    uint32_t max_groups[2]; /* maxComputeWorkGroupCount x, y */
    uint32_t subpixel_bits; /* the device's subPixelPrecisionBits, which the shader snaps to */
} vks_raster_pass;

/* Fails with a message on a device without the 64-bit atomics. */
bool vks_raster_pass_create(const gpu_device *dev, const vks_raster_pass_desc *desc,
                            vks_raster_pass *pass, vks_error *err);
void vks_raster_pass_destroy(const gpu_device *dev, vks_raster_pass *pass);

/* How the word's VKS_RASTER_ID_BITS pack ids, for levels of at most `triangles` triangles and
 * `visible` entries: *triangle_bits for the triangle (as many as its largest index needs), the
 * entry above them. False when the two do not fit. */
bool vks_raster_id_bits(uint32_t triangles, uint32_t visible, uint32_t *triangle_bits);

/* Records the rasterization of push->triangle_count triangles for `visible_count` visible
 * entries from push->visible_first (nothing when either is 0). The subpixel bits of push->bits
 * are set here. On the descriptors binding the caller binds the data set (set 0) and
 * vks_raster_bind the raster set (set 1). */
void vks_raster_pass_record(const gpu_device *dev, VkCommandBuffer cmd, const vks_raster_pass *pass,
                            const vks_raster_push *push, uint32_t visible_count);

/* Records the far splats of push->visible_count entries of one model from push->visible_first
 * (shaders/splat.comp; nothing when 0), with the rasterizer's layout and sets bound as for
 * vks_raster_pass_record. The caller sets the addresses, the size and the bits (VKS_SPLAT_DQ,
 * the scene's triangle_bits << 8). */
void vks_raster_splat_record(const gpu_device *dev, VkCommandBuffer cmd,
                             const vks_raster_pass *pass, const vks_splat_push *push);

/* Where one model's data sits in the crowd's buffers (the renderer's layout). */
typedef struct vks_raster_model {
    uint32_t first_index;     /* its level-0 indices in the index buffer */
    uint32_t lod_first_index; /* its levels' (model->lod_indices) */
    uint32_t material_first;  /* its first material among the crowd's */
} vks_raster_model;

/* One frame slot's visibility buffer: width x height words, then the count of pixels covered
 * (written by the dispatches: pixels of the buffer, some of which the graphics pipeline's nearer
 * pixels may hide), and that count's host copy. */
typedef struct vks_raster_target {
    gpu_buffer vis, count;
    VkDescriptorSet set; /* the raster set, descriptors binding */
    uint32_t width, height;
} vks_raster_target;

/* The crowd's side: the tables that map an id back to its triangle and its material (uploaded
 * once), how ids are packed, and a visibility buffer per frame slot. */
typedef struct vks_raster_scene {
    gpu_buffer levels, meshes; /* vks_raster_level (VKS_MAX_LEVELS a model), vks_raster_mesh */
    /* vks_raster_material per material of the crowd, then every texture's stored levels */
    gpu_buffer materials;
    uint32_t levels_dropped;       /* top mip levels left out so that the texels fit one buffer */
    vks_raster_level *level_table; /* the host's copy of `levels` */
    const gpu_buffer *indices;     /* the crowd's index buffer (storage and address usage) */
    uint32_t triangle_bits;        /* of the id: the triangle within its level */
    uint32_t max_entries;          /* visible entries the id can name: 2^(VKS_RASTER_ID_BITS -
                                      triangle_bits), capped at UINT32_MAX */
    VkDescriptorPool pool;
    vks_raster_target targets[GPU_FRAMES_IN_FLIGHT];
} vks_raster_scene;

/* textures: the scene's images, every model's in turn and then a white one (scene_gpu.h), in
 * SHADER_READ_ONLY_OPTIMAL with TRANSFER_SRC usage: their levels are copied into the materials
 * buffer, the largest textures' top levels left out where the whole would pass the device's
 * storage-buffer range (the resolve draws small triangles: it reads the small levels). */
bool vks_raster_scene_create(const gpu_device *dev, const vks_raster_pass *pass,
                             const vks_model *const *models, const vks_raster_model *where,
                             uint32_t model_count, const gpu_buffer *indices,
                             const gpu_image *textures, uint32_t texture_count,
                             vks_raster_scene *scene, vks_error *err);
void vks_raster_scene_destroy(const gpu_device *dev, vks_raster_scene *scene);

/* Mesh `mesh` of model m at `level` for push constants: its first index in the index buffer and
 * its first triangle within its level. */
void vks_raster_mesh_range(const vks_raster_scene *scene, const vks_model *model,
                           const vks_raster_model *where, uint32_t m, uint32_t level, uint32_t mesh,
                           uint32_t *first_index, uint32_t *triangle_first);

/* Sizes frame slot `slot`'s visibility buffer for a width x height image (a new one when the size
 * changed: the slot's previous frame must have completed). */
bool vks_raster_target_size(const gpu_device *dev, const vks_raster_pass *pass,
                            vks_raster_scene *scene, uint32_t slot, uint32_t width, uint32_t height,
                            vks_error *err);

/* Empties the visibility buffer and its count, ready for the dispatches. */
void vks_raster_clear(const gpu_device *dev, VkCommandBuffer cmd, const vks_raster_target *target);
/* Descriptors binding: binds the target's raster set as set 1 of the rasterizer. */
void vks_raster_bind(const gpu_device *dev, VkCommandBuffer cmd, const vks_raster_pass *pass,
                     const vks_raster_target *target);
/* After the dispatches: their writes made visible to the resolve, and the count copied to the
 * host (vks_raster_pixels after the frame's fence). */
void vks_raster_finish(const gpu_device *dev, VkCommandBuffer cmd, const vks_raster_target *target);

/* Inside the rendering: resolves the pixels of every material (on the descriptors binding, those
 * whose entry's output is in the bound chunk). The caller's push: the models, instances, visible
 * list and UV addresses, and on the descriptors binding the bound output chunk; the visibility
 * buffer's and the tables' are set here. frame_set and data_set (descriptors binding; else
 * VK_NULL_HANDLE) are bound as sets 0 and 1, the raster set as 2. */
void vks_raster_resolve(const gpu_device *dev, VkCommandBuffer cmd, const vks_raster_pass *pass,
                        const vks_raster_scene *scene, const vks_raster_target *target,
                        VkDescriptorSet frame_set, VkDescriptorSet data_set,
                        const vks_resolve_push *push);

/* The pixels the slot's last frame covered in the visibility buffer (after its fence). */
uint64_t vks_raster_pixels(const gpu_device *dev, const vks_raster_target *target);

/* Device memory the visibility buffers take for a width x height target, every frame slot's
 * (what the memory plan counts beside the headless image). */
static inline VkDeviceSize vks_raster_target_bytes(uint32_t width, uint32_t height)
{
    return sizeof(uint64_t) * ((VkDeviceSize)width * height + 1) * GPU_FRAMES_IN_FLIGHT;
}

#endif
