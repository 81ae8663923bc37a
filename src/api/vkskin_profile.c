/* The owned renderer's profiling (vkskin_render.h): the skinning pass's traffic from the streams'
 * layout, and a plain copy kernel's bandwidth (skin/copy_gpu.h), what `vkskin bench` holds the
 * pass against. */
#include "render_api.h"

#include "core/clock.h"
#include "skin/skin_gpu.h"

#include <stdlib.h>

/* Copy-kernel runs timed. */
#define COPY_RUNS 9u

/* Bind-stream bytes the skinning pass reads for one vertex of `m`, each stream once, from the
 * compact layout (shaders/vks_shared.h): position, normal, joints (8 or 16 bits each) and
 * weights; the tangent when the model has them; influences 5 to 8 when it is wide. */
static double bind_bytes_per_vertex(const vks_model *m)
{
    const double joints = m->skeleton.joint_count > VKS_JOINTS8_MAX ? VKS_BIND_JOINTS16_BYTES
                                                                    : VKS_BIND_JOINTS8_BYTES;
    return VKS_BIND_POSITION_BYTES + VKS_BIND_NORMAL_BYTES + joints + VKS_BIND_WEIGHTS_BYTES +
           (m->tangents ? VKS_BIND_TANGENT_BYTES : 0) +
           (m->joints_extra ? joints + VKS_BIND_WEIGHTS_BYTES : 0);
}

/* Output bytes the skinning pass writes for one vertex of `m`: the 16-byte skinned vertex, and
 * the tangent's word when the model has them. */
static double out_bytes_per_vertex(const vks_model *m)
{
    return VKS_SKINNED_STRIDE + (m->tangents ? VKS_TANGENT_STRIDE : 0);
}

/* The skinning pass's traffic for the instances in `list` (all of the crowd's when NULL):
 *   logical: every instance's streams read and output written (as if each instance's bind streams
 *            came from memory), its palette read once (the workgroups of an instance share it
 *            through the cache) and its visible-list entry (which carries its model and palette:
 *            the pass reads nothing of the instance table);
 *   streams: the per-vertex part of that, bind streams + output (bytes_per_vertex's numerator);
 *   memory:  each distinct model's bind streams once (its instances read the same addresses,
 *            which the cache keeps: the H100's 50 MB L2 holds a model's many times over), plus
 *            per instance its output, palette and visible-list entry. */

static vkskin_traffic traffic_of(const vks_crowd *c, const uint32_t *list, const uint8_t *levels,
                                 uint32_t count)
{
    vkskin_traffic t = {0};
    bool seen[VKS_CROWD_MAX_MODELS][VKS_MAX_LEVELS] = {{false}};
    for (uint32_t k = 0; k < count; k++) {
        const uint32_t model = c->instances[list ? list[k] : k].model,
                       level = levels ? levels[k] : 0;
        const vks_model *m = c->models[model];
        const double n = vks_model_level(m, level).vertex_count;
        const double bind = bind_bytes_per_vertex(m) * n;
        const double out = out_bytes_per_vertex(m) * n;
        const double own = sizeof(vks_bone) * m->skeleton.joint_count + sizeof(vks_visible);
        t.stream_bytes += bind + out;
        t.logical_bytes += bind + out + own;
        t.memory_bytes += out + own + (seen[model][level] ? 0.0 : bind);
        seen[model][level] = true;
    }
    return t;
}

/* Times the copy kernel over `bytes` (read + written), median of COPY_RUNS. Each buffer is
 * capped at 1 GiB and a quarter of the device's largest heap: far past every cache, which is
 * what matters for a bandwidth figure. */
static bool measure_copy(const gpu_device *dev, VkDeviceSize bytes, vkskin_copy_timing *res,
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
    const VkBufferUsageFlags usage =
        VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_SHADER_DEVICE_ADDRESS_BIT;
    if (!vks_copy_pass_create(dev, &pass, err))
        return false;
    /* Out of device memory (the renderer's output may hold most of it): half the size, down to
     * 16 MiB. */
    bool ok = false;
    for (;;) {
        vks_error oom;
        ok = gpu_buffer_create(dev,
                               &(gpu_buffer_desc){.size = half,
                                                  .usage = usage | VK_BUFFER_USAGE_TRANSFER_DST_BIT,
                                                  .name = "copy src"},
                               &src, &oom) &&
             gpu_buffer_create(dev,
                               &(gpu_buffer_desc){.size = half, .usage = usage, .name = "copy dst"},
                               &dst, &oom);
        if (ok || oom.kind != VKS_ERROR_MEMORY || half / 2 < ((VkDeviceSize)16 << 20)) {
            if (!ok)
                *err = oom;
            break;
        }
        gpu_buffer_destroy(dev, &src);
        gpu_buffer_destroy(dev, &dst);
        half = (half / 2) & ~(VkDeviceSize)15;
    }
    VkQueryPool queries = VK_NULL_HANDLE;
    if (ok) {
        VkQueryPoolCreateInfo qi = {VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO};
        qi.queryType = VK_QUERY_TYPE_TIMESTAMP;
        qi.queryCount = 2;
        VkResult qr = dev->vk.vkCreateQueryPool(dev->device, &qi, NULL, &queries);
        if (qr != VK_SUCCESS) {
            queries = VK_NULL_HANDLE;
            ok = vks_fail(err, "cannot create a query pool: %s", gpu_result_name(qr));
        }
        GPU_NAME(dev, VK_OBJECT_TYPE_QUERY_POOL, queries, "copy timestamps");
        /* Written once before: never-written memory may read as one shared zero page (CPU
         * devices), which would flatter the copy. */
        VkCommandBuffer cmd;
        ok = ok && gpu_once_begin(dev, &cmd, err);
        if (ok) {
            dev->vk.vkCmdFillBuffer(cmd, src.buffer, 0, VK_WHOLE_SIZE, 0x5eed5eedu);
            gpu_barrier_buffer(
                dev, cmd, src.buffer,
                (gpu_access){VK_PIPELINE_STAGE_2_CLEAR_BIT, VK_ACCESS_2_TRANSFER_WRITE_BIT},
                (gpu_access){VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT,
                             VK_ACCESS_2_SHADER_STORAGE_READ_BIT});
            ok = gpu_once_end(dev, cmd, err);
        }
    }
    double ms[COPY_RUNS];
    const gpu_access rw = {VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT,
                           VK_ACCESS_2_SHADER_STORAGE_READ_BIT |
                               VK_ACCESS_2_SHADER_STORAGE_WRITE_BIT};
    /* One submission per run, timed as a frame's skinning is: from the top of the command
     * buffer to after the barrier behind the dispatch. (Several runs in one command buffer
     * timed far too fast on lavapipe.) */
    for (uint32_t i = 0; ok && i < COPY_RUNS; i++) {
        VkCommandBuffer cmd;
        if (!(ok = gpu_once_begin(dev, &cmd, err)))
            break;
        dev->vk.vkCmdResetQueryPool(cmd, queries, 0, 2);
        dev->vk.vkCmdWriteTimestamp2(cmd, VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT, queries, 0);
        vks_copy_pass_record(dev, cmd, &pass, src.address, dst.address, half);
        gpu_barrier_memory(dev, cmd, rw, rw);
        dev->vk.vkCmdWriteTimestamp2(cmd, VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT, queries, 1);
        ok = gpu_once_end(dev, cmd, err);
        uint64_t t[2];
        VkResult qr;
        if (ok &&
            (qr = dev->vk.vkGetQueryPoolResults(dev->device, queries, 0, 2, sizeof t, t,
                                                sizeof t[0], VK_QUERY_RESULT_64_BIT)) != VK_SUCCESS)
            ok = vks_fail(err, "cannot read the copy's timestamps: %s", gpu_result_name(qr));
        ms[i] = ok ? gpu_ticks_to_ms(dev, t[0], t[1]) : 0.0;
    }
    if (ok) {
        res->ms = vks_median(ms, COPY_RUNS);
        res->bytes = 2.0 * (double)half;
    }
    if (queries)
        dev->vk.vkDestroyQueryPool(dev->device, queries, NULL);
    gpu_buffer_destroy(dev, &src);
    gpu_buffer_destroy(dev, &dst);
    vks_copy_pass_destroy(dev, &pass);
    return ok;
}

vkskin_result vkskin_renderer_get_traffic(const vkskin_renderer *r, bool whole_crowd,
                                          vkskin_traffic *traffic, vkskin_error *err)
{
    if (!r || !traffic)
        return vks_api_fail(err, VKSKIN_ERROR_ARGUMENT,
                            "vkskin_renderer_get_traffic: a renderer and a traffic are needed");
    *traffic = (vkskin_traffic){0};
    if (whole_crowd)
        *traffic = traffic_of(r->r.crowd, NULL, NULL, r->r.crowd->instance_count);
    else if (r->last && r->r.mode == VKS_SKIN_COMPUTE)
        *traffic =
            traffic_of(r->r.crowd, r->last->order, r->last->order_level, r->last->skinned_count);
    return vks_api_ok(err);
}

vkskin_result vkskin_renderer_time_copy(vkskin_renderer *r, uint64_t bytes,
                                        vkskin_copy_timing *timing, vkskin_error *err)
{
    if (!r || !timing)
        return vks_api_fail(err, VKSKIN_ERROR_ARGUMENT,
                            "vkskin_renderer_time_copy: a renderer and a timing are needed");
    *timing = (vkskin_copy_timing){0};
    vks_error e;
    r->dev.vk.vkDeviceWaitIdle(r->dev.device); /* the frames' work out of the way */
    if (!measure_copy(&r->dev, bytes, timing, &e))
        return vks_api_fail_from(err, &e, VKSKIN_ERROR_FAILED);
    return vks_api_ok(err);
}
