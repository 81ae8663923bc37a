/* The renderer's frames (renderer.h): waiting for a slot and beginning it, the host's slots
 * (desc.external), submitting and waiting, the GPU's measurements, the readback. */
#include "renderer_impl.h"
#include "../asset/pack.h"

#include <assert.h>
#include <string.h>

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
        if (r->mode == VKS_SKIN_COMPUTE)
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
    if (r->readback_slot == (int32_t)f->slot) /* its lists are about to change */
        r->readback_slot = -1;
    f->stats = read_stats(r, f);
    if (f->visible_count) { /* every instance at level 0 unless the caller chooses */
        memset(f->level, 0, sizeof *f->level * f->visible_count);
        memset(f->raster, 0, sizeof *f->raster * f->visible_count);
    }
    f->visible_count = 0;
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

vks_frame *vks_renderer_host_frame(vks_renderer *r, uint32_t slot)
{
    assert(r->external && slot < GPU_FRAMES_IN_FLIGHT);
    vks_frame *f = &r->frames[slot];
    r->frame_number++;
    if (r->readback_slot == (int32_t)f->slot)
        r->readback_slot = -1;
    for (uint32_t s = 0; s < f->visible_count; s++) { /* last frame's entries only */
        f->slot_of[f->plan.order[s]] = UINT32_MAX;
        f->level[s] = 0;
    }
    f->visible_count = f->plan.skinned_count = 0;
    f->host_number = r->frame_number; /* counted up above */
    return f;
}

const vks_frame *vks_renderer_previous(const vks_renderer *r, const vks_frame *f)
{
    assert(r->external && r->output_sets == 2);
    const vks_frame *p = &r->frames[(f->slot + 1) % GPU_FRAMES_IN_FLIGHT];
    return p->host_number && p->host_number + 1 == f->host_number ? p : NULL;
}

void vks_renderer_skin_into(vks_renderer *r, vks_frame *f, VkCommandBuffer cmd)
{
    assert(r->external);
    f->cmd = cmd;
    vks_renderer_skin(r, f);
    for (uint32_t s = 0; s < f->plan.skinned_count; s++)
        f->slot_of[f->plan.order[s]] = s;
    f->cmd = VK_NULL_HANDLE;
}

bool vks_renderer_output(const vks_renderer *r, const vks_frame *f, uint32_t instance,
                         const gpu_buffer **chunk, VkDeviceSize *offset, uint32_t *vertex_count,
                         uint32_t *level, uint32_t *model)
{
    assert(r->external);
    if (instance >= f->instance_room) /* past what the slot had room for: not skinned in it */
        return false;
    const uint32_t s = f->slot_of[instance];
    if (s == UINT32_MAX)
        return false;
    const VkDeviceSize at = f->plan.out_offset[s];
    *model = f->plan.order_model[s]; /* what it showed then */
    const vks_model *m = r->crowd->models[*model];
    *chunk = &frame_chunks(r, f)[at / r->chunk_limit];
    *offset = at % r->chunk_limit;
    *level = f->plan.order_level[s];
    *vertex_count = vks_model_level(m, *level).vertex_count;
    return true;
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
    if (r->readback.mapped)
        gpu_buffer_invalidate(r->dev, &r->readback);
    return true;
}

/* The readback frame's slot of `instance` among those the compute pass skinned, or UINT32_MAX. */
static uint32_t skinned_slot(const vks_renderer *r, uint32_t instance)
{
    assert(r->readback.mapped && instance < r->crowd->instance_count);
    if (r->readback_slot < 0)
        return UINT32_MAX;
    const vks_frame *f = &r->frames[r->readback_slot];
    for (uint32_t s = 0; s < f->plan.skinned_count; s++) /* dump and the tests: a short list */
        if (f->plan.order[s] == instance)
            return s;
    return UINT32_MAX;
}

const vks_skinned_vertex *vks_renderer_skinned(const vks_renderer *r, uint32_t instance)
{
    const uint32_t s = skinned_slot(r, instance);
    if (s == UINT32_MAX)
        return NULL;
    return (const vks_skinned_vertex *)((const char *)r->readback.mapped +
                                        r->frames[r->readback_slot].plan.out_offset[s]);
}

uint32_t vks_renderer_skinned_level(const vks_renderer *r, uint32_t instance)
{
    const uint32_t s = skinned_slot(r, instance);
    return s == UINT32_MAX ? UINT32_MAX : r->frames[r->readback_slot].plan.order_level[s];
}

uint32_t vks_renderer_skinned_model(const vks_renderer *r, uint32_t instance)
{
    const uint32_t s = skinned_slot(r, instance);
    return s == UINT32_MAX ? UINT32_MAX : r->frames[r->readback_slot].plan.order_model[s];
}

const uint32_t *vks_renderer_skinned_tangents(const vks_renderer *r, uint32_t instance)
{
    const vks_skinned_vertex *v = vks_renderer_skinned(r, instance);
    if (!v)
        return NULL;
    const vks_model *m = r->crowd->models[vks_renderer_skinned_model(r, instance)];
    if (!m->tangents)
        return NULL;
    const uint32_t n = vks_model_level(m, vks_renderer_skinned_level(r, instance)).vertex_count;
    return (const uint32_t *)((const char *)v + VKS_TANGENT_OFFSET((size_t)n));
}

bool vks_renderer_decode_skinned(const vks_renderer *r, uint32_t instance, float (*positions)[3],
                                 float (*normals)[3], float (*tangents)[4])
{
    const vks_skinned_vertex *out = vks_renderer_skinned(r, instance);
    const uint32_t *tan = vks_renderer_skinned_tangents(r, instance);
    if (!out)
        return false;
    const vks_model *m = r->crowd->models[vks_renderer_skinned_model(r, instance)];
    const uint32_t n = vks_model_level(m, vks_renderer_skinned_level(r, instance)).vertex_count;
    for (uint32_t v = 0; v < n; v++) {
        memcpy(positions[v], out[v].position, sizeof positions[v]);
        vks_dequant_oct(out[v].normal, normals[v]);
        if (tan && tangents)
            vks_dequant_tangent(tan[v], tangents[v]);
    }
    return true;
}
