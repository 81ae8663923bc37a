#include "skin_gpu.h"

#include <assert.h>

extern const unsigned char vks_copy_comp_spv[];
extern const size_t vks_copy_comp_spv_size;

/* shaders/copy.comp's push constants. */
typedef struct copy_push {
    uint32_t src[2], dst[2]; /* device addresses, low word first */
    uint32_t count16;        /* uvec4 to copy */
    uint32_t pad;
} copy_push;
static_assert(sizeof(copy_push) == 24, "copy.comp's push constants in std430");

enum {
    COPY_GROUP_SIZE = 256, /* copy.comp's local_size_x */
    /* 65535 groups of 256 (16.7M invocations) exceed what any GPU runs at once (an H100 holds
     * 132 x 2048), so the grid-stride loop costs nothing; 65535 is the spec's minimum limit. */
    COPY_MAX_GROUPS = 65535,
};
/* uvec4 per dispatch: the shader's access chain index is signed 32-bit. 2^30 (16 GiB) leaves
 * the loop's index room to step past the end without wrapping. */
#define COPY_MAX_COUNT16 (1u << 30)

bool vks_copy_pass_create(const gpu_device *dev, vks_copy_pass *pass, vks_error *err)
{
    *pass = (vks_copy_pass){0};
    const VkPhysicalDeviceLimits *l = &dev->props.limits;
    if (l->maxComputeWorkGroupSize[0] < COPY_GROUP_SIZE ||
        l->maxComputeWorkGroupInvocations < COPY_GROUP_SIZE)
        return vks_fail(err, "the copy kernel needs workgroups of %u invocations (device: %u)",
                        COPY_GROUP_SIZE, l->maxComputeWorkGroupInvocations);
    pass->max_groups_x = l->maxComputeWorkGroupCount[0] < COPY_MAX_GROUPS
                             ? l->maxComputeWorkGroupCount[0]
                             : COPY_MAX_GROUPS;

    pass->layout = gpu_pipeline_layout(dev, NULL, 0, VK_SHADER_STAGE_COMPUTE_BIT, sizeof(copy_push),
                                       "copy pipeline layout");
    if (!pass->layout)
        return vks_fail(err, "cannot create the copy pipeline layout (out of memory)");
    pass->pipeline = gpu_pipeline_compute(dev, &(gpu_compute_desc){
                                                   .spirv = vks_copy_comp_spv,
                                                   .spirv_size = vks_copy_comp_spv_size,
                                                   .layout = pass->layout,
                                                   .name = "copy.comp",
                                               });
    if (!pass->pipeline) {
        vks_copy_pass_destroy(dev, pass);
        return vks_fail(err, "cannot create the copy pipeline (out of memory)");
    }
    return true;
}

void vks_copy_pass_destroy(const gpu_device *dev, vks_copy_pass *pass)
{
    if (pass->pipeline)
        dev->vk.vkDestroyPipeline(dev->device, pass->pipeline, NULL);
    if (pass->layout)
        dev->vk.vkDestroyPipelineLayout(dev->device, pass->layout, NULL);
    *pass = (vks_copy_pass){0};
}

void vks_copy_pass_record(const gpu_device *dev, VkCommandBuffer cmd, const vks_copy_pass *pass,
                          VkDeviceAddress src, VkDeviceAddress dst, VkDeviceSize bytes)
{
    assert(src % 16 == 0 && dst % 16 == 0 && bytes % 16 == 0);
    if (bytes == 0)
        return;
    dev->vk.vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, pass->pipeline);
    for (VkDeviceSize done = 0; done < bytes / 16;) {
        VkDeviceSize left = bytes / 16 - done;
        uint32_t count = left < COPY_MAX_COUNT16 ? (uint32_t)left : COPY_MAX_COUNT16;
        VkDeviceAddress s = src + done * 16, d = dst + done * 16;
        copy_push push = {
            .src = {(uint32_t)s, (uint32_t)(s >> 32)},
            .dst = {(uint32_t)d, (uint32_t)(d >> 32)},
            .count16 = count,
        };
        dev->vk.vkCmdPushConstants(cmd, pass->layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, sizeof push,
                                   &push);
        uint32_t groups = (count + COPY_GROUP_SIZE - 1) / COPY_GROUP_SIZE;
        dev->vk.vkCmdDispatch(cmd, groups < pass->max_groups_x ? groups : pass->max_groups_x, 1, 1);
        done += count;
    }
}
