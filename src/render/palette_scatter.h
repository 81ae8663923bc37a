/* The palette store's scatter: shaders/scatter.comp as a compute pipeline that copies a frame's
 * staged palettes into their blocks of the store, one record per posed instance, and the instance
 * table's entries of moved instances (whole, or from place records)
 * (vks_scatter_record; layouts and why not vkCmdCopyBuffer: shaders/vks_shared.h). Through device
 * addresses, or on the descriptors binding through one set per frame slot, written once: the
 * buffers never change. The caller owns the buffers and writes the records; the pass records
 * its dispatch between barriers on the store against the store's readers. */
#ifndef VKS_PALETTE_SCATTER_H
#define VKS_PALETTE_SCATTER_H

#include "../gpu/gpu.h"
#include "../../shaders/vks_shared.h"

typedef struct vks_scatter_pass {
    VkDescriptorSetLayout set_layout; /* descriptors binding only */
    VkDescriptorPool pool;
    VkDescriptorSet sets[GPU_FRAMES_IN_FLIGHT];
    VkPipelineLayout layout;
    VkPipeline pipeline;
    vks_scatter_push push[GPU_FRAMES_IN_FLIGHT]; /* each frame slot's addresses */
    VkBuffer store;                              /* what it writes */
    uint32_t max_groups;
} vks_scatter_pass;

/* The pass over the store and, per frame slot, its staging and records buffers (each a storage
 * buffer with a device address), for entries of entry_bytes (a multiple of 16). descriptors: the
 * descriptors binding (the VKS_DESCRIPTORS build and a set per frame slot). Fails with a message
 * when the device cannot make it. */
bool vks_scatter_pass_create(const gpu_device *dev, bool descriptors, uint32_t entry_bytes,
                             const gpu_buffer *store, const gpu_buffer *models,
                             const gpu_buffer staging[GPU_FRAMES_IN_FLIGHT],
                             const gpu_buffer records[GPU_FRAMES_IN_FLIGHT], vks_scatter_pass *pass,
                             vks_error *err);
void vks_scatter_pass_destroy(const gpu_device *dev, vks_scatter_pass *pass);

/* Records the scatter of frame slot `slot`'s record_count records from record_first, then (the
 * instance table's pass) the entries of place_count place records staged from uvec4 place_first
 * (vks_place_record), after every earlier read of the store by `readers` (the frames before's)
 * and before theirs in this frame; nothing when both counts are 0. */
void vks_scatter_pass_record(const gpu_device *dev, VkCommandBuffer cmd,
                             const vks_scatter_pass *pass, uint32_t slot, uint32_t record_first,
                             uint32_t record_count, uint32_t place_count, uint32_t place_first,
                             gpu_access readers);

#endif
