#include "skin_gpu.h"

extern const unsigned char vks_skin_comp_spv[];
extern const size_t vks_skin_comp_spv_size;

bool vks_skin_pass_create(const gpu_device *dev, uint32_t group_size, vks_skin_pass *pass,
                          vks_error *err)
{
    *pass = (vks_skin_pass){0};
    if (group_size == 0)
        group_size = VKS_SKIN_GROUP_SIZE;
    uint32_t limit = dev->props.limits.maxComputeWorkGroupInvocations;
    if (dev->props.limits.maxComputeWorkGroupSize[0] < limit)
        limit = dev->props.limits.maxComputeWorkGroupSize[0];
    if ((group_size & (group_size - 1)) || group_size > limit)
        return vks_fail(err, "a workgroup of %u invocations is not a power of two up to %u",
                        group_size, limit);
    pass->group_size = group_size;
    pass->max_groups_x = dev->props.limits.maxComputeWorkGroupCount[0];

    VkDescriptorType types[VKS_SKIN_BINDING_COUNT];
    for (uint32_t i = 0; i < VKS_SKIN_BINDING_COUNT; i++)
        types[i] = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
    pass->set_layout = gpu_set_layout(dev, types, VKS_SKIN_BINDING_COUNT,
                                      VK_SHADER_STAGE_COMPUTE_BIT, "skin set layout");
    VkPushConstantRange range = {VK_SHADER_STAGE_COMPUTE_BIT, 0, sizeof(vks_skin_params)};
    VkPipelineLayoutCreateInfo li = {VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO};
    li.setLayoutCount = 1;
    li.pSetLayouts = &pass->set_layout;
    li.pushConstantRangeCount = 1;
    li.pPushConstantRanges = &range;
    GPU_CHECK(vkCreatePipelineLayout(dev->device, &li, NULL, &pass->layout));
    GPU_NAME(dev, VK_OBJECT_TYPE_PIPELINE_LAYOUT, pass->layout, "skin pipeline layout");

    VkSpecializationMapEntry entry = {0, 0, sizeof(uint32_t)};
    VkSpecializationInfo spec = {1, &entry, sizeof group_size, &group_size};
    pass->pipeline = gpu_pipeline_compute(dev, &(gpu_compute_desc){
                                                   .spirv = vks_skin_comp_spv,
                                                   .spirv_size = vks_skin_comp_spv_size,
                                                   .layout = pass->layout,
                                                   .specialization = &spec,
                                                   .name = "skin.comp",
                                               });
    return true;
}

void vks_skin_pass_destroy(const gpu_device *dev, vks_skin_pass *pass)
{
    if (pass->pipeline)
        vkDestroyPipeline(dev->device, pass->pipeline, NULL);
    if (pass->layout)
        vkDestroyPipelineLayout(dev->device, pass->layout, NULL);
    if (pass->set_layout)
        vkDestroyDescriptorSetLayout(dev->device, pass->set_layout, NULL);
    *pass = (vks_skin_pass){0};
}

void vks_skin_pass_write_set(const gpu_device *dev, VkDescriptorSet set,
                             const vks_skin_buffers *buffers)
{
    VkDescriptorBufferInfo info[VKS_SKIN_BINDING_COUNT];
    VkWriteDescriptorSet writes[VKS_SKIN_BINDING_COUNT];
    for (uint32_t i = 0; i < VKS_SKIN_BINDING_COUNT; i++) {
        info[i] = (VkDescriptorBufferInfo){buffers->buffers[i], 0, VK_WHOLE_SIZE};
        writes[i] = (VkWriteDescriptorSet){VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET};
        writes[i].dstSet = set;
        writes[i].dstBinding = i;
        writes[i].descriptorCount = 1;
        writes[i].descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
        writes[i].pBufferInfo = &info[i];
    }
    vkUpdateDescriptorSets(dev->device, VKS_SKIN_BINDING_COUNT, writes, 0, NULL);
}

void vks_skin_pass_record(VkCommandBuffer cmd, const vks_skin_pass *pass, VkDescriptorSet set,
                          const vks_skin_params *params)
{
    if (params->vertex_count == 0)
        return;
    vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, pass->pipeline);
    vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, pass->layout, 0, 1, &set, 0, NULL);
    vkCmdPushConstants(cmd, pass->layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, sizeof *params, params);
    uint32_t groups = (params->vertex_count + pass->group_size - 1) / pass->group_size;
    uint32_t x = groups < pass->max_groups_x ? groups : pass->max_groups_x;
    vkCmdDispatch(cmd, x, (groups + x - 1) / x, 1);
}
