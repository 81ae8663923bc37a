#include "palette_scatter.h"

#include <assert.h>

extern const unsigned char vks_scatter_comp_spv[], vks_scatter_comp_descriptors_spv[];
extern const size_t vks_scatter_comp_spv_size, vks_scatter_comp_descriptors_spv_size;

/* 65535 workgroups is the spec's least maxComputeWorkGroupCount[0], and more than a GPU holds
 * at once, so the records' loop costs nothing. */
#define SCATTER_MAX_GROUPS 65535u

static bool create_sets(const gpu_device *dev, vks_scatter_pass *pass, const gpu_buffer *store,
                        const gpu_buffer *models, const gpu_buffer staging[],
                        const gpu_buffer records[], vks_error *err)
{
    VkDescriptorType types[VKS_SCATTER_BINDING_COUNT];
    for (uint32_t k = 0; k < VKS_SCATTER_BINDING_COUNT; k++)
        types[k] = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
    pass->set_layout = gpu_set_layout(dev, types, VKS_SCATTER_BINDING_COUNT,
                                      VK_SHADER_STAGE_COMPUTE_BIT, "scatter set layout");
    if (!pass->set_layout)
        return vks_fail(err, "cannot create the scatter's set layout (out of memory)");
    VkDescriptorPoolSize size = {VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
                                 GPU_FRAMES_IN_FLIGHT * VKS_SCATTER_BINDING_COUNT};
    VkDescriptorPoolCreateInfo pi = {VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO};
    pi.maxSets = GPU_FRAMES_IN_FLIGHT;
    pi.poolSizeCount = 1;
    pi.pPoolSizes = &size;
    GPU_TRY(dev->vk.vkCreateDescriptorPool(dev->device, &pi, NULL, &pass->pool), err,
            "create the scatter's descriptor pool");
    GPU_NAME(dev, VK_OBJECT_TYPE_DESCRIPTOR_POOL, pass->pool, "scatter set pool");
    VkDescriptorSetAllocateInfo ai = {VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO};
    ai.descriptorPool = pass->pool;
    ai.descriptorSetCount = 1;
    ai.pSetLayouts = &pass->set_layout;
    for (uint32_t i = 0; i < GPU_FRAMES_IN_FLIGHT; i++) {
        GPU_TRY(dev->vk.vkAllocateDescriptorSets(dev->device, &ai, &pass->sets[i]), err,
                "allocate a scatter set");
        GPU_NAME(dev, VK_OBJECT_TYPE_DESCRIPTOR_SET, pass->sets[i], "scatter set %u", i);
        const VkDescriptorBufferInfo info[VKS_SCATTER_BINDING_COUNT] = {
            [VKS_SCATTER_BINDING_STAGING] = {staging[i].buffer, 0, VK_WHOLE_SIZE},
            [VKS_SCATTER_BINDING_RECORDS] = {records[i].buffer, 0, VK_WHOLE_SIZE},
            [VKS_SCATTER_BINDING_STORE] = {store->buffer, 0, VK_WHOLE_SIZE},
            [VKS_SCATTER_BINDING_MODELS] = {models->buffer, 0, VK_WHOLE_SIZE},
        };
        VkWriteDescriptorSet w[VKS_SCATTER_BINDING_COUNT];
        for (uint32_t j = 0; j < VKS_SCATTER_BINDING_COUNT; j++)
            w[j] = (VkWriteDescriptorSet){.sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET,
                                          .dstSet = pass->sets[i],
                                          .dstBinding = j,
                                          .descriptorCount = 1,
                                          .descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
                                          .pBufferInfo = &info[j]};
        dev->vk.vkUpdateDescriptorSets(dev->device, VKS_SCATTER_BINDING_COUNT, w, 0, NULL);
    }
    return true;
}

bool vks_scatter_pass_create(const gpu_device *dev, bool descriptors, uint32_t entry_bytes,
                             const gpu_buffer *store, const gpu_buffer *models,
                             const gpu_buffer staging[GPU_FRAMES_IN_FLIGHT],
                             const gpu_buffer records[GPU_FRAMES_IN_FLIGHT], vks_scatter_pass *pass,
                             vks_error *err)
{
    *pass = (vks_scatter_pass){0};
    const VkPhysicalDeviceLimits *l = &dev->props.limits;
    pass->max_groups = l->maxComputeWorkGroupCount[0] < SCATTER_MAX_GROUPS
                           ? l->maxComputeWorkGroupCount[0]
                           : SCATTER_MAX_GROUPS;
    assert(entry_bytes % 16 == 0 && entry_bytes > 0);
    pass->store = store->buffer;
    for (uint32_t i = 0; i < GPU_FRAMES_IN_FLIGHT; i++) {
        pass->push[i].entry_vec4s = entry_bytes / 16;
        gpu_address_words(staging[i].address, pass->push[i].staging);
        gpu_address_words(records[i].address, pass->push[i].records);
        gpu_address_words(store->address, pass->push[i].store);
        gpu_address_words(models->address, pass->push[i].models);
    }
    if (descriptors && !create_sets(dev, pass, store, models, staging, records, err)) {
        vks_scatter_pass_destroy(dev, pass);
        return false;
    }
    pass->layout = gpu_pipeline_layout(dev, descriptors ? &pass->set_layout : NULL,
                                       descriptors ? 1 : 0, VK_SHADER_STAGE_COMPUTE_BIT,
                                       sizeof(vks_scatter_push), "scatter pipeline layout");
    if (pass->layout)
        pass->pipeline = gpu_pipeline_compute(
            dev, &(gpu_compute_desc){
                     .spirv = descriptors ? vks_scatter_comp_descriptors_spv : vks_scatter_comp_spv,
                     .spirv_size = descriptors ? vks_scatter_comp_descriptors_spv_size
                                               : vks_scatter_comp_spv_size,
                     .layout = pass->layout,
                     .name = "scatter.comp",
                 });
    if (!pass->pipeline) {
        vks_scatter_pass_destroy(dev, pass);
        return vks_fail(err, "cannot create the scatter pipeline (out of memory)");
    }
    return true;
}

void vks_scatter_pass_destroy(const gpu_device *dev, vks_scatter_pass *pass)
{
    if (pass->pipeline)
        dev->vk.vkDestroyPipeline(dev->device, pass->pipeline, NULL);
    if (pass->layout)
        dev->vk.vkDestroyPipelineLayout(dev->device, pass->layout, NULL);
    if (pass->pool)
        dev->vk.vkDestroyDescriptorPool(dev->device, pass->pool, NULL);
    if (pass->set_layout)
        dev->vk.vkDestroyDescriptorSetLayout(dev->device, pass->set_layout, NULL);
    *pass = (vks_scatter_pass){0};
}

void vks_scatter_pass_record(const gpu_device *dev, VkCommandBuffer cmd,
                             const vks_scatter_pass *pass, uint32_t slot, uint32_t record_first,
                             uint32_t record_count, uint32_t place_count, uint32_t place_first,
                             gpu_access readers)
{
    assert(slot < GPU_FRAMES_IN_FLIGHT);
    if (!record_count && !place_count)
        return;
    const gpu_access scatter = {VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT,
                                VK_ACCESS_2_SHADER_STORAGE_WRITE_BIT};
    gpu_barrier_buffer(dev, cmd, pass->store, readers, scatter);
    dev->vk.vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, pass->pipeline);
    if (pass->set_layout)
        dev->vk.vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, pass->layout, 0, 1,
                                        &pass->sets[slot], 0, NULL);
    if (record_count) { /* a workgroup a record */
        vks_scatter_push push = pass->push[slot];
        push.record_first = record_first;
        push.record_count = record_count;
        dev->vk.vkCmdPushConstants(cmd, pass->layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, sizeof push,
                                   &push);
        dev->vk.vkCmdDispatch(
            cmd, record_count < pass->max_groups ? record_count : pass->max_groups, 1, 1);
    }
    if (record_count && place_count) /* the same table written again: in order */
        gpu_barrier_buffer(dev, cmd, pass->store, scatter, scatter);
    if (place_count) { /* an invocation a place record */
        vks_scatter_push push = pass->push[slot];
        push.record_count = place_count;
        push.entry_vec4s = 0;
        push.place_first = place_first;
        dev->vk.vkCmdPushConstants(cmd, pass->layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, sizeof push,
                                   &push);
        const uint32_t groups = (place_count + VKS_SCATTER_GROUP_SIZE - 1) / VKS_SCATTER_GROUP_SIZE;
        dev->vk.vkCmdDispatch(cmd, groups < pass->max_groups ? groups : pass->max_groups, 1, 1);
    }
    gpu_barrier_buffer(dev, cmd, pass->store, scatter, readers);
}
