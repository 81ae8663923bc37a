#include "skin_gpu.h"

#include <assert.h>
#include <stddef.h>
#include <stdio.h>

extern const unsigned char vks_skin_comp_spv[], vks_skin_comp_descriptors_spv[];
extern const size_t vks_skin_comp_spv_size, vks_skin_comp_descriptors_spv_size;

/* skin.comp's specialization constants: constant_id 0 to 5. */
typedef struct skin_constants {
    uint32_t group_size;  /* GROUP_SIZE */
    VkBool32 wide;        /* VKS_SKIN_WIDE */
    VkBool32 dq;          /* VKS_SKIN_DQ */
    VkBool32 morph;       /* VKS_SKIN_MORPH */
    VkBool32 stage;       /* VKS_SKIN_STAGE */
    uint32_t stage_vec4s; /* VKS_STAGE_VEC4S */
} skin_constants;

uint32_t vks_skin_stage_limit(const gpu_device *dev)
{
    return dev->props.limits.maxComputeSharedMemorySize / 16;
}

bool vks_skin_pass_create(const gpu_device *dev, uint32_t group_size, uint32_t features,
                          uint32_t stage_vec4s, VkDescriptorSetLayout data_layout,
                          vks_skin_pass *pass, vks_error *err)
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
    if ((features & VKS_SKIN_VARIANT_STAGE) &&
        (stage_vec4s == 0 || stage_vec4s > vks_skin_stage_limit(dev)))
        return vks_fail(
            err, "a staged palette of %u vec4s does not fit %s's %u bytes of shared memory",
            stage_vec4s, dev->props.deviceName, dev->props.limits.maxComputeSharedMemorySize);
    pass->stage_vec4s = features & VKS_SKIN_VARIANT_STAGE ? stage_vec4s : 0;
    for (int i = 0; i < 3; i++)
        pass->max_groups[i] = dev->props.limits.maxComputeWorkGroupCount[i];

    pass->layout =
        gpu_pipeline_layout(dev, &data_layout, data_layout ? 1 : 0, VK_SHADER_STAGE_COMPUTE_BIT,
                            sizeof(vks_skin_push), "skin pipeline layout");
    if (!pass->layout)
        return vks_fail(err, "cannot create the skinning pipeline layout (out of memory)");

    for (uint32_t v = 0; v < VKS_SKIN_VARIANTS; v++) {
        if (!vks_skin_variant_made(v, features))
            continue;
        const bool stage = (v & VKS_SKIN_VARIANT_STAGE) != 0;
        skin_constants values = {group_size,
                                 (v & VKS_SKIN_VARIANT_WIDE) != 0,
                                 (v & VKS_SKIN_VARIANT_DQ) != 0,
                                 (v & VKS_SKIN_VARIANT_MORPH) != 0,
                                 stage,
                                 stage ? stage_vec4s : 1u};
        VkSpecializationMapEntry entries[6] = {
            {0, offsetof(skin_constants, group_size), sizeof(uint32_t)},
            {1, offsetof(skin_constants, wide), sizeof(VkBool32)},
            {2, offsetof(skin_constants, dq), sizeof(VkBool32)},
            {3, offsetof(skin_constants, morph), sizeof(VkBool32)},
            {4, offsetof(skin_constants, stage), sizeof(VkBool32)},
            {5, offsetof(skin_constants, stage_vec4s), sizeof(uint32_t)},
        };
        VkSpecializationInfo spec = {6, entries, sizeof values, &values};
        char name[128];
        snprintf(name, sizeof name, "skin.comp (%s influences%s%s%s)", values.wide ? "8" : "4",
                 values.dq ? ", dual quaternions" : "", values.morph ? ", morph targets" : "",
                 stage ? ", staged palette" : "");
        pass->pipeline[v] = gpu_pipeline_compute(
            dev, &(gpu_compute_desc){
                     .spirv = data_layout ? vks_skin_comp_descriptors_spv : vks_skin_comp_spv,
                     .spirv_size =
                         data_layout ? vks_skin_comp_descriptors_spv_size : vks_skin_comp_spv_size,
                     .layout = pass->layout,
                     .specialization = &spec,
                     .name = name,
                 });
        if (!pass->pipeline[v]) {
            vks_skin_pass_destroy(dev, pass);
            return vks_fail(err, "cannot create the skinning pipeline (out of memory)");
        }
    }
    return true;
}

void vks_skin_pass_destroy(const gpu_device *dev, vks_skin_pass *pass)
{
    for (uint32_t i = 0; i < VKS_SKIN_VARIANTS; i++)
        if (pass->pipeline[i])
            dev->vk.vkDestroyPipeline(dev->device, pass->pipeline[i], NULL);
    if (pass->layout)
        dev->vk.vkDestroyPipelineLayout(dev->device, pass->layout, NULL);
    *pass = (vks_skin_pass){0};
}

void vks_skin_pass_groups(const vks_skin_pass *pass, uint32_t vertex_count, uint32_t visible_count,
                          uint32_t groups[3])
{
    uint32_t x = (vertex_count + pass->group_size - 1) / pass->group_size;
    groups[0] = x < pass->max_groups[0] ? x : pass->max_groups[0];
    /* Instances fill rows of at most max_groups[1]; the shader skips the last row's excess. */
    groups[1] = visible_count < pass->max_groups[1] ? visible_count : pass->max_groups[1];
    groups[2] = groups[1] ? (visible_count + groups[1] - 1) / groups[1] : 0;
}

void vks_skin_pass_record(const gpu_device *dev, VkCommandBuffer cmd, const vks_skin_pass *pass,
                          const vks_skin_push *push, uint32_t vertex_count, uint32_t variant)
{
    uint32_t g[3];
    vks_skin_pass_groups(pass, vertex_count, push->visible_count, g);
    if (g[0] == 0 || g[1] == 0)
        return;
    assert(variant < VKS_SKIN_VARIANTS && pass->pipeline[variant]);
    dev->vk.vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, pass->pipeline[variant]);
    dev->vk.vkCmdPushConstants(cmd, pass->layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, sizeof *push,
                               push);
    dev->vk.vkCmdDispatch(cmd, g[0], g[1], g[2]);
}
