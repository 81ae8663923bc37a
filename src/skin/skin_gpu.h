/* The skinning pass: shaders/skin.comp as a compute pipeline, one invocation per vertex. The
 * buffers it binds and the push constants are laid out in shaders/vks_shared.h; the caller owns
 * them and the barriers around the dispatch (src/render/renderer.c). */
#ifndef VKS_SKIN_GPU_H
#define VKS_SKIN_GPU_H

#include "../gpu/gpu.h"
#include "../../shaders/vks_shared.h"

typedef struct vks_skin_pass {
    VkDescriptorSetLayout set_layout; /* VKS_SKIN_BINDING_COUNT storage buffers */
    VkPipelineLayout layout;
    VkPipeline pipeline;
    uint32_t group_size;
    uint32_t max_groups_x; /* more workgroups go into rows (the shader folds them back) */
} vks_skin_pass;

/* group_size 0 means VKS_SKIN_GROUP_SIZE; others must be a power of two the device allows. */
bool vks_skin_pass_create(const gpu_device *dev, uint32_t group_size, vks_skin_pass *pass,
                          vks_error *err);
void vks_skin_pass_destroy(const gpu_device *dev, vks_skin_pass *pass);

/* What one dispatch reads and writes, by binding (VKS_SKIN_BIND_*). */
typedef struct vks_skin_buffers {
    VkBuffer buffers[VKS_SKIN_BINDING_COUNT];
} vks_skin_buffers;

void vks_skin_pass_write_set(const gpu_device *dev, VkDescriptorSet set,
                             const vks_skin_buffers *buffers);

/* Records the dispatch: ceil(vertex_count / group_size) workgroups, in rows when they exceed
 * the device's limit on one dimension. */
void vks_skin_pass_record(VkCommandBuffer cmd, const vks_skin_pass *pass, VkDescriptorSet set,
                          const vks_skin_params *params);

#endif
