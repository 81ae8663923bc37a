/* The owned renderer's frames (renderer.h): waiting for a slot and beginning it (and the
 * skinner's slot with it), submitting and waiting, the GPU's measurements. */
#include "renderer_impl.h"

static vks_gpu_stats read_stats(const vks_renderer *r, const vks_frame *f)
{
    const gpu_device *dev = r->dev;
    vks_gpu_stats s = UNKNOWN_STATS;
    const VkDevice device = r->dev->device;
    const uint32_t written = f->queries_written;
    /* The slot's fence has signalled, so every written query is available. */
    /* Written: the first two (a frame that only skins), or all of them. */
    uint64_t t[QUERY_COUNT] = {0};
    const uint32_t count = written & (1u << QUERY_DRAWN) ? QUERY_COUNT : 2;
    if (f->timestamps && (written & (1u << QUERY_SKINNED)) &&
        dev->vk.vkGetQueryPoolResults(device, f->timestamps, 0, count, sizeof t, t, sizeof t[0],
                                      VK_QUERY_RESULT_64_BIT) == VK_SUCCESS) {
        /* Vertex mode has no skinning pass: its skinning is inside the draw. */
        if (r->skinner.mode == VKS_SKIN_COMPUTE)
            s.skin_ms = gpu_ticks_to_ms(r->dev, t[QUERY_BEGIN], t[QUERY_SKINNED]);
        if (written & (1u << QUERY_DRAWN)) {
            /* The graphics pipeline's draws, then the overlays after the resolve. */
            s.draw_ms = gpu_ticks_to_ms(r->dev, t[QUERY_RASTERED], t[QUERY_HARDWARE]) +
                        gpu_ticks_to_ms(r->dev, t[QUERY_RESOLVED], t[QUERY_DRAWN]);
            if (written & RASTER_COUNTED) {
                s.raster_ms = gpu_ticks_to_ms(r->dev, t[QUERY_SKINNED], t[QUERY_RASTERED]);
                s.resolve_ms = gpu_ticks_to_ms(r->dev, t[QUERY_HARDWARE], t[QUERY_RESOLVED]);
            }
        }
    }
    for (uint32_t q = 0; f->statistics && q < STATS_COUNT; q++) {
        uint64_t v[2] = {0};
        if (!(written & STATS_ENDED(q)) ||
            dev->vk.vkGetQueryPoolResults(device, f->statistics, q, 1, sizeof v, v, sizeof v,
                                          VK_QUERY_RESULT_64_BIT) != VK_SUCCESS)
            continue;
        if (s.primitives == UINT64_MAX)
            s.primitives = s.skin_invocations = 0;
        s.primitives += v[0];
        s.skin_invocations += q == STATS_SKIN ? v[1] : 0;
    }
    s.pixels_resolved =
        written & RASTER_COUNTED ? vks_raster_pixels(r->dev, &r->raster_scene.targets[f->slot]) : 0;
    return s;
}

vks_gpu_stats vks_renderer_last_stats(vks_renderer *r)
{
    if (r->frame_number == 0)
        return UNKNOWN_STATS;
    vks_gpu_stats s;
    vks_renderer_frame_stats(r, &r->frames[(r->frame_number - 1) % GPU_FRAMES_IN_FLIGHT], &s);
    return s;
}

bool vks_renderer_frame_stats(vks_renderer *r, vks_frame *f, vks_gpu_stats *stats)
{
    const gpu_device *dev = r->dev;
    *stats = UNKNOWN_STATS;
    if (!f->fence ||
        dev->vk.vkWaitForFences(r->dev->device, 1, &f->fence, VK_TRUE, UINT64_MAX) != VK_SUCCESS)
        return false; /* the device was lost */
    *stats = read_stats(r, f);
    return true;
}

vks_frame *vks_renderer_begin_frame(vks_renderer *r)
{
    const gpu_device *dev = r->dev;
    vks_frame *f = &r->frames[r->frame_number % GPU_FRAMES_IN_FLIGHT];
    if (!f->fence ||
        dev->vk.vkWaitForFences(r->dev->device, 1, &f->fence, VK_TRUE, UINT64_MAX) != VK_SUCCESS)
        return NULL;
    r->frame_number++;
    f->stats = read_stats(r, f);
    vks_skinner_begin(&r->skinner, f->slot);
    VkCommandBufferBeginInfo begin = {VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
    begin.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
    if (dev->vk.vkResetCommandPool(r->dev->device, f->pool, 0) != VK_SUCCESS ||
        dev->vk.vkBeginCommandBuffer(f->cmd, &begin) != VK_SUCCESS)
        return NULL;
    f->queries_written = 0;
    if (f->timestamps) {
        dev->vk.vkCmdResetQueryPool(f->cmd, f->timestamps, 0, QUERY_COUNT);
        dev->vk.vkCmdWriteTimestamp2(f->cmd, VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT, f->timestamps,
                                     QUERY_BEGIN);
        f->queries_written |= 1u << QUERY_BEGIN;
    }
    if (f->statistics)
        dev->vk.vkCmdResetQueryPool(f->cmd, f->statistics, 0, STATS_COUNT);
    return f;
}

void vks_renderer_abandon(vks_renderer *r, vks_frame *f)
{
    /* The store's blocks were dealt for copies that are never submitted (and a paged store's
     * table may have been written by them: the next frame writes it again), and the slot's queries
     * say nothing (a timestamp recorded is not this frame's). */
    if (r->skinner.use_store)
        vks_palette_store_clear(&r->skinner.store);
    r->skinner.page_table_dirty = r->skinner.paged && !r->skinner.descriptors;
    f->skin->visible_count = 0;
    f->queries_written = 0;
    r->dev->vk.vkEndCommandBuffer(f->cmd); /* never submitted: reset by the slot's next frame */
}

bool vks_renderer_submit(vks_renderer *r, vks_frame *f, VkSemaphore wait, VkSemaphore signal,
                         vks_error *err)
{
    const gpu_device *dev = r->dev;
    end_statistics(dev, f, STATS_SKIN);
    end_statistics(dev, f, STATS_DRAW);
    VkResult res = dev->vk.vkEndCommandBuffer(f->cmd);
    if (res != VK_SUCCESS ||
        (res = dev->vk.vkResetFences(r->dev->device, 1, &f->fence)) != VK_SUCCESS)
        return vks_fail(err, "recording a frame failed: %s", gpu_result_name(res));
    VkSemaphoreSubmitInfo wait_info = {VK_STRUCTURE_TYPE_SEMAPHORE_SUBMIT_INFO};
    wait_info.semaphore = wait;
    wait_info.stageMask = VK_PIPELINE_STAGE_2_COLOR_ATTACHMENT_OUTPUT_BIT;
    VkSemaphoreSubmitInfo signal_info = {VK_STRUCTURE_TYPE_SEMAPHORE_SUBMIT_INFO};
    signal_info.semaphore = signal;
    signal_info.stageMask = VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT;
    VkCommandBufferSubmitInfo cmd_info = {VK_STRUCTURE_TYPE_COMMAND_BUFFER_SUBMIT_INFO};
    cmd_info.commandBuffer = f->cmd;
    VkSubmitInfo2 submit = {VK_STRUCTURE_TYPE_SUBMIT_INFO_2};
    submit.waitSemaphoreInfoCount = wait ? 1 : 0;
    submit.pWaitSemaphoreInfos = &wait_info;
    submit.commandBufferInfoCount = 1;
    submit.pCommandBufferInfos = &cmd_info;
    submit.signalSemaphoreInfoCount = signal ? 1 : 0;
    submit.pSignalSemaphoreInfos = &signal_info;
    res = dev->vk.vkQueueSubmit2(r->dev->queue, 1, &submit, f->fence);
    if (res != VK_SUCCESS) {
        /* The fence was reset for a submission that never happened: make it signalled again,
         * so that waiting on the slot (the next frame, the stats, destroy) cannot hang. */
        dev->vk.vkDestroyFence(r->dev->device, f->fence, NULL);
        VkFenceCreateInfo fi = {VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
        fi.flags = VK_FENCE_CREATE_SIGNALED_BIT;
        if (dev->vk.vkCreateFence(r->dev->device, &fi, NULL, &f->fence) != VK_SUCCESS)
            f->fence = VK_NULL_HANDLE;
    }
    if (res != VK_SUCCESS)
        return vks_fail(err, "submitting a frame failed: %s", gpu_result_name(res));
    return true;
}

bool vks_renderer_wait(vks_renderer *r, vks_frame *f, vks_error *err)
{
    const gpu_device *dev = r->dev;
    VkResult res = f->fence
                       ? dev->vk.vkWaitForFences(r->dev->device, 1, &f->fence, VK_TRUE, UINT64_MAX)
                       : VK_ERROR_DEVICE_LOST;
    if (res != VK_SUCCESS)
        return vks_fail(err, "waiting for a frame failed: %s", gpu_result_name(res));
    vks_skinner_readback_ready(&r->skinner);
    return true;
}
