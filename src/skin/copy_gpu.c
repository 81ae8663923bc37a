#include "skin_gpu.h"

#include "../core/clock.h"

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
    /* 65535 groups of 256 (16.7M invocations) exceed what a GPU runs at once, so the
     * grid-stride loop costs nothing; 65535 is the spec's minimum limit. */
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

/* Copy-kernel runs timed. */
#define COPY_RUNS 9u

/* Source and destination buffers of *half bytes each; out of device memory (the renderer's
 * output may hold most of it), half the size again, down to 16 MiB. */
static bool copy_buffers(const gpu_device *dev, VkDeviceSize *half, gpu_buffer *src,
                         gpu_buffer *dst, vks_error *err)
{
    const VkBufferUsageFlags usage =
        VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_SHADER_DEVICE_ADDRESS_BIT;
    for (;;) {
        vks_error oom;
        bool ok =
            gpu_buffer_create(dev,
                              &(gpu_buffer_desc){.size = *half,
                                                 .usage = usage | VK_BUFFER_USAGE_TRANSFER_DST_BIT,
                                                 .name = "copy src"},
                              src, &oom) &&
            gpu_buffer_create(dev,
                              &(gpu_buffer_desc){.size = *half, .usage = usage, .name = "copy dst"},
                              dst, &oom);
        if (ok || oom.kind != VKS_ERROR_MEMORY || *half / 2 < ((VkDeviceSize)16 << 20)) {
            if (!ok)
                *err = oom;
            return ok;
        }
        gpu_buffer_destroy(dev, src);
        gpu_buffer_destroy(dev, dst);
        *half = (*half / 2) & ~(VkDeviceSize)15;
    }
}

/* The two timestamps' pool, and src written once: never-written memory may read as one shared
 * zero page (CPU devices), which would flatter the copy. */
static bool copy_prepare(const gpu_device *dev, const gpu_buffer *src, VkQueryPool *queries,
                         vks_error *err)
{
    VkQueryPoolCreateInfo qi = {VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO};
    qi.queryType = VK_QUERY_TYPE_TIMESTAMP;
    qi.queryCount = 2;
    VkResult qr = dev->vk.vkCreateQueryPool(dev->device, &qi, NULL, queries);
    if (qr != VK_SUCCESS) {
        *queries = VK_NULL_HANDLE;
        return vks_fail(err, "cannot create a query pool: %s", gpu_result_name(qr));
    }
    GPU_NAME(dev, VK_OBJECT_TYPE_QUERY_POOL, *queries, "copy timestamps");
    VkCommandBuffer cmd;
    if (!gpu_once_begin(dev, &cmd, err))
        return false;
    dev->vk.vkCmdFillBuffer(cmd, src->buffer, 0, VK_WHOLE_SIZE, 0x5eed5eedu);
    gpu_barrier_buffer(
        dev, cmd, src->buffer,
        (gpu_access){VK_PIPELINE_STAGE_2_CLEAR_BIT, VK_ACCESS_2_TRANSFER_WRITE_BIT},
        (gpu_access){VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT, VK_ACCESS_2_SHADER_STORAGE_READ_BIT});
    return gpu_once_end(dev, cmd, err);
}

/* COPY_RUNS copies of `half` bytes from src to dst, one submission each, timed as a frame's
 * skinning is: from the top of the command buffer to after the barrier behind the dispatch.
 * (Several runs in one command buffer timed far too fast on lavapipe.) *ms: their median. */
static bool copy_runs(const gpu_device *dev, const vks_copy_pass *pass, const gpu_buffer *src,
                      const gpu_buffer *dst, VkDeviceSize half, VkQueryPool queries, double *ms_out,
                      vks_error *err)
{
    double ms[COPY_RUNS];
    const gpu_access rw = {VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT,
                           VK_ACCESS_2_SHADER_STORAGE_READ_BIT |
                               VK_ACCESS_2_SHADER_STORAGE_WRITE_BIT};
    for (uint32_t i = 0; i < COPY_RUNS; i++) {
        VkCommandBuffer cmd;
        if (!gpu_once_begin(dev, &cmd, err))
            return false;
        dev->vk.vkCmdResetQueryPool(cmd, queries, 0, 2);
        dev->vk.vkCmdWriteTimestamp2(cmd, VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT, queries, 0);
        vks_copy_pass_record(dev, cmd, pass, src->address, dst->address, half);
        gpu_barrier_memory(dev, cmd, rw, rw);
        dev->vk.vkCmdWriteTimestamp2(cmd, VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT, queries, 1);
        if (!gpu_once_end(dev, cmd, err))
            return false;
        uint64_t t[2];
        VkResult qr = dev->vk.vkGetQueryPoolResults(dev->device, queries, 0, 2, sizeof t, t,
                                                    sizeof t[0], VK_QUERY_RESULT_64_BIT);
        if (qr != VK_SUCCESS)
            return vks_fail(err, "cannot read the copy's timestamps: %s", gpu_result_name(qr));
        ms[i] = gpu_ticks_to_ms(dev, t[0], t[1]);
    }
    *ms_out = vks_median(ms, COPY_RUNS);
    return true;
}

/* (skin_gpu.h) Times the copy kernel over `bytes` (read + written), median of COPY_RUNS. Each
 * buffer is capped at 1 GiB and a quarter of the device's largest heap: far past every cache, which
 * is what matters for a bandwidth figure. */
bool vks_copy_measure(const gpu_device *dev, VkDeviceSize bytes, double *moved, double *ms_out,
                      vks_error *err)
{
    VkDeviceSize half = bytes / 2, limit = (VkDeviceSize)1 << 30, heap = 0;
    for (uint32_t h = 0; h < dev->memory.memoryHeapCount; h++)
        if (dev->memory.memoryHeaps[h].size > heap)
            heap = dev->memory.memoryHeaps[h].size;
    if (heap / 4 < limit)
        limit = heap / 4;
    half = (half < limit ? half : limit) & ~(VkDeviceSize)15;
    if (half < 16 || !dev->timestamps)
        return true;
    vks_copy_pass pass;
    gpu_buffer src = {0}, dst = {0};
    if (!vks_copy_pass_create(dev, &pass, err))
        return false;
    VkQueryPool queries = VK_NULL_HANDLE;
    double ms = 0.0;
    const bool ok = copy_buffers(dev, &half, &src, &dst, err) &&
                    copy_prepare(dev, &src, &queries, err) &&
                    copy_runs(dev, &pass, &src, &dst, half, queries, &ms, err);
    if (ok) {
        *ms_out = ms;
        *moved = 2.0 * (double)half;
    }
    if (queries)
        dev->vk.vkDestroyQueryPool(dev->device, queries, NULL);
    gpu_buffer_destroy(dev, &src);
    gpu_buffer_destroy(dev, &dst);
    vks_copy_pass_destroy(dev, &pass);
    return ok;
}
