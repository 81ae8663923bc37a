#include "plan.h"

#include <assert.h>

static VkDeviceSize align16(VkDeviceSize n)
{
    return (n + 15) & ~(VkDeviceSize)15;
}

VkDeviceSize vks_plan_tangent_offset(const vks_model *m)
{
    return align16((VkDeviceSize)m->vertex_count * sizeof(vks_skinned_vertex));
}

VkDeviceSize vks_plan_output_bytes(const vks_model *m)
{
    return vks_plan_tangent_offset(m) +
           (m->tangents ? (VkDeviceSize)m->vertex_count * sizeof(float[4]) : 0);
}

/* A model with a vertex of more than 4 influences: it brings influences 5 to 8 in streams of
 * their own (asset/model.h). */
static bool is_wide(const vks_model *m)
{
    assert((m->joints_extra != NULL) == (m->weights_extra != NULL));
    return m->joints_extra != NULL;
}

vks_plan_footprint vks_plan_footprint_of(const vks_crowd *crowd, vks_skin_mode mode,
                                         bool palettes_on_device)
{
    assert(crowd->instance_count > 0);
    vks_plan_footprint fp = {0};
    for (uint32_t m = 0; m < crowd->model_count; m++) {
        const vks_model *model = crowd->models[m];
        VkDeviceSize n = model->vertex_count;
        fp.device_bytes += n * (sizeof(float[3]) * 2 + sizeof(float[4]) * 2 + sizeof(uint16_t[4]) +
                                sizeof(float[2])) +
                           (VkDeviceSize)model->index_count * sizeof(uint32_t);
        if (is_wide(model)) /* influences 5 to 8: joints and weights again */
            fp.device_bytes += n * (sizeof(uint16_t[4]) + sizeof(float[4]));
        for (uint32_t t = 0; t < model->texture_count; t++) /* a mip chain adds a third */
            fp.device_bytes +=
                (VkDeviceSize)model->textures[t].width * model->textures[t].height * 4 * 4 / 3;
    }
    VkDeviceSize out = 0;
    for (uint32_t i = 0; i < crowd->instance_count; i++)
        out += vks_plan_output_bytes(crowd->models[crowd->instances[i].model]);
    if (mode == VKS_SKIN_VERTEX)
        out = 0;
    VkDeviceSize table = (VkDeviceSize)crowd->instance_count * sizeof(vks_instance);
    VkDeviceSize host =
        GPU_FRAMES_IN_FLIGHT * ((VkDeviceSize)crowd->palette_count * sizeof(vks_bone) +
                                (VkDeviceSize)crowd->instance_count * sizeof(uint32_t));
    fp.device_bytes += out + table;
    fp.host_bytes = host;
    fp.per_instance_device = (out + table) / crowd->instance_count;
    fp.per_instance_host = host / crowd->instance_count;
    if (palettes_on_device) { /* each frame's device copy of the palettes */
        VkDeviceSize copies =
            GPU_FRAMES_IN_FLIGHT * (VkDeviceSize)crowd->palette_count * sizeof(vks_bone);
        fp.device_bytes += copies;
        fp.per_instance_device += copies / crowd->instance_count;
    }
    return fp;
}

VkDeviceSize vks_plan_buffer_limit(const vks_plan_limits *lim, VkDeviceSize wanted)
{
    /* The storage-buffer range too: a chunk stays bindable as one descriptor, although the
     * shaders reach it by address. */
    VkDeviceSize limit = lim->max_storage_buffer_range;
    if (lim->max_memory_allocation < limit)
        limit = lim->max_memory_allocation;
    if (lim->max_buffer < limit)
        limit = lim->max_buffer;
    if (wanted && wanted < limit)
        limit = wanted;
    return limit & ~(VkDeviceSize)15;
}

static uint32_t fit(VkDeviceSize budget, VkDeviceSize fixed, VkDeviceSize per_instance)
{
    if (budget <= fixed || per_instance == 0)
        return 0;
    VkDeviceSize k = (budget - fixed) / per_instance;
    return k > VKS_CROWD_MAX_INSTANCES ? VKS_CROWD_MAX_INSTANCES : (uint32_t)k;
}

static double mib(VkDeviceSize bytes)
{
    return (double)bytes / (1024.0 * 1024.0);
}

bool vks_plan_check_memory(const vks_plan_limits *lim, const vks_crowd *crowd, vks_skin_mode mode,
                           bool palettes_on_device, vks_error *err)
{
    assert(crowd->instance_count > 0);
    const VkDeviceSize limit = vks_plan_buffer_limit(lim, 0);
    const uint32_t count = crowd->instance_count;
    const VkDeviceSize palettes = (VkDeviceSize)crowd->palette_count * sizeof(vks_bone);
    const VkDeviceSize table = (VkDeviceSize)count * sizeof(vks_instance);
    if (palettes > limit || table > limit || crowd->palette_count >= (1u << 31)) {
        VkDeviceSize per =
            palettes / count > sizeof(vks_instance) ? palettes / count : sizeof(vks_instance);
        VkDeviceSize k = limit / (per ? per : 1);
        VkDeviceSize k_index = ((VkDeviceSize)1 << 31) / (crowd->palette_count / count + 1);
        return vks_fail(err,
                        "a crowd of %u instances needs %.0f MiB of palettes per frame and a "
                        "%.0f MiB instance table, one buffer each, and the largest buffer is "
                        "%.0f MiB: at most %llu instances fit",
                        count, mib(palettes), mib(table), mib(limit),
                        (unsigned long long)(k < k_index ? k : k_index));
    }
    const vks_plan_footprint fp = vks_plan_footprint_of(crowd, mode, palettes_on_device);
    const VkDeviceSize local = lim->device_heap, host = lim->host_heap;
    const uint32_t n = crowd->instance_count;
    VkDeviceSize fixed = fp.device_bytes - fp.per_instance_device * n;
    uint32_t k;
    bool fits;
    if (host) { /* separate heaps: each must hold its part */
        uint32_t kd = fit(local, fixed, fp.per_instance_device);
        uint32_t kh = fit(host, 0, fp.per_instance_host);
        k = kd < kh ? kd : kh;
        fits = fp.device_bytes <= local && fp.host_bytes <= host;
    } else {
        k = fit(local, fixed, fp.per_instance_device + fp.per_instance_host);
        fits = fp.device_bytes + fp.host_bytes <= local;
    }
    if (fits)
        return true;
    return vks_fail(err,
                    "a crowd of %u instances needs %.0f MiB of GPU memory and %.0f MiB for its "
                    "palettes and visible lists, more than %s has (%.0f MiB device-local%s): "
                    "at most %u instances fit",
                    n, mib(fp.device_bytes), mib(fp.host_bytes), lim->name, mib(local),
                    host ? ", plus host memory" : ", shared with the host", k);
}

bool vks_plan_chunks(const vks_crowd *c, VkDeviceSize limit, vks_plan_chunking *out, vks_error *err)
{
    uint32_t chunks = 0;
    VkDeviceSize total = 0;
    for (uint32_t i = 0; i < c->instance_count; i++) {
        const vks_model *m = c->models[c->instances[i].model];
        VkDeviceSize bytes = vks_plan_output_bytes(m);
        if (bytes > limit)
            return vks_fail(err,
                            "one instance of %s needs %llu bytes of skinned vertices, more than "
                            "the largest buffer (%llu bytes)",
                            m->name, (unsigned long long)bytes, (unsigned long long)limit);
        if (chunks == 0 || total + bytes - out->chunk_start[chunks - 1] > limit)
            out->chunk_start[chunks++] = total;
        out->chunk[i] = chunks - 1;
        out->offset[i] = total;
        total += bytes;
    }
    out->chunk_count = chunks;
    out->total = total;
    return true;
}
