#include "renderer.h"
#include "../core/alloc.h"
#include "frame_plan.h"
#include "plan.h"

#include "../asset/pack.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

/* Timestamps: the frame's start, then the end of each pass: skinning, the compute rasterizer's
 * dispatches, the graphics pipeline's draws, the resolve, the overlays and the rendering's end. */
enum {
    QUERY_BEGIN,
    QUERY_SKINNED,
    QUERY_RASTERED,
    QUERY_HARDWARE,
    QUERY_RESOLVED,
    QUERY_DRAWN,
    QUERY_COUNT
};
/* Pipeline statistics: one query around the skinning (its compute invocations), one around the
 * crowd's draws (their primitives), so that neither the compute rasterizer, its resolve nor the
 * overlays count in them. */
enum { STATS_SKIN, STATS_DRAW, STATS_COUNT };
/* f->queries_written bits besides the timestamps': each statistics query begun, ended; the
 * visibility count copied. */
#define STATS_BEGUN(q) (1u << (8 + 2 * (q)))
#define STATS_ENDED(q) (1u << (9 + 2 * (q)))
enum { RASTER_COUNTED = 1u << 12 };
#define UNKNOWN_STATS ((vks_gpu_stats){-1.0, -1.0, -1.0, -1.0, UINT64_MAX, UINT64_MAX, UINT64_MAX})

static const VkBufferUsageFlags ADDRESSED =
    VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_SHADER_DEVICE_ADDRESS_BIT;

/* ---- Memory plan (plan.h) ---- */

/* The largest device-local heap, and the heap host-visible memory falls back to when it is a
 * different one (0 when host-visible memory lives in that heap too, as on CPU devices). With
 * VK_EXT_memory_budget, what this process may still use of each instead of its size. */
static void heaps(const gpu_device *dev, VkDeviceSize *local, VkDeviceSize *host)
{
    const VkPhysicalDeviceMemoryProperties *mp = &dev->memory;
    VkPhysicalDeviceMemoryBudgetPropertiesEXT budget = {
        VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_MEMORY_BUDGET_PROPERTIES_EXT};
    if (dev->memory_budget) {
        VkPhysicalDeviceMemoryProperties2 p2 = {
            VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_MEMORY_PROPERTIES_2, &budget};
        dev->vk.vkGetPhysicalDeviceMemoryProperties2(dev->physical, &p2);
    }
    VkDeviceSize size[VK_MAX_MEMORY_HEAPS];
    for (uint32_t h = 0; h < mp->memoryHeapCount; h++) {
        VkDeviceSize used = budget.heapUsage[h], allowed = budget.heapBudget[h];
        size[h] = mp->memoryHeaps[h].size;
        if (dev->memory_budget && allowed) /* 0: the driver gives no figure */
            size[h] = allowed <= used ? 0 : allowed - used < size[h] ? allowed - used : size[h];
    }
    int local_heap = -1;
    *local = *host = 0;
    for (uint32_t h = 0; h < mp->memoryHeapCount; h++)
        if ((mp->memoryHeaps[h].flags & VK_MEMORY_HEAP_DEVICE_LOCAL_BIT) && size[h] > *local) {
            *local = size[h];
            local_heap = (int)h;
        }
    for (uint32_t t = 0; t < mp->memoryTypeCount; t++) {
        const VkMemoryType *type = &mp->memoryTypes[t];
        if ((type->propertyFlags & VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT) &&
            !(type->propertyFlags & VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT) &&
            (int)type->heapIndex != local_heap && size[type->heapIndex] > *host)
            *host = size[type->heapIndex];
    }
    if (local_heap < 0) /* no device-local heap: everything shares the first */
        *local = mp->memoryHeapCount ? size[0] : 0;
}

/* What the planner needs of the device: its buffer limits and heaps, each heap capped at
 * memory_limit (0: no cap). */
vks_plan_limits vks_renderer_plan_limits(const gpu_device *dev, VkDeviceSize memory_limit)
{
    VkPhysicalDeviceMaintenance3Properties m3 = {
        VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_MAINTENANCE_3_PROPERTIES};
    VkPhysicalDeviceMaintenance4Properties m4 = {
        VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_MAINTENANCE_4_PROPERTIES, &m3};
    VkPhysicalDeviceProperties2 p = {VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2, &m4};
    dev->vk.vkGetPhysicalDeviceProperties2(dev->physical, &p);
    vks_plan_limits lim = {.max_memory_allocation = m3.maxMemoryAllocationSize,
                           .max_buffer = m4.maxBufferSize,
                           .max_storage_buffer_range = dev->props.limits.maxStorageBufferRange,
                           .name = dev->props.deviceName};
    heaps(dev, &lim.device_heap, &lim.host_heap);
    if (memory_limit && lim.device_heap > memory_limit)
        lim.device_heap = memory_limit;
    if (memory_limit && lim.host_heap > memory_limit)
        lim.host_heap = memory_limit;
    return lim;
}

/* ---- Creation ---- */

/* The skinned output (compute mode), in chunks of at most `limit` bytes, and its readback. */
static bool create_outputs(vks_renderer *r, VkDeviceSize limit, bool readback, vks_error *err)
{
    const VkDeviceSize bytes = r->memory.output_bytes;
    r->chunk_limit = limit;
    r->readback_slot = -1;
    if (r->mode != VKS_SKIN_COMPUTE || bytes == 0)
        return true;
    r->chunk_count = vks_plan_chunk_count(bytes, limit);
    const size_t total = (size_t)r->chunk_count * r->output_sets;
    if (!(r->chunks = vks_calloc(total, sizeof *r->chunks)) ||
        !(r->chunk_addresses = vks_calloc(total, sizeof *r->chunk_addresses)))
        return vks_fail_memory(err, "out of memory");
    for (uint32_t i = 0; i < r->chunk_count * r->output_sets; i++) {
        const uint32_t k = i % r->chunk_count;
        VkDeviceSize start = (VkDeviceSize)k * limit;
        char name[64];
        snprintf(name, sizeof name, "skinned vertices %u/%u (copy %u)", k + 1, r->chunk_count,
                 i / r->chunk_count);
        if (!gpu_buffer_create(
                r->dev,
                &(gpu_buffer_desc){.size = bytes - start < limit ? bytes - start : limit,
                                   /* a host draws them as vertex buffers (desc.external) */
                                   .usage = ADDRESSED | VK_BUFFER_USAGE_TRANSFER_SRC_BIT |
                                            VK_BUFFER_USAGE_VERTEX_BUFFER_BIT,
                                   .name = name},
                &r->chunks[i], err))
            return false;
        r->chunk_addresses[i] = r->chunks[i].address;
    }
    return !readback ||
           gpu_buffer_create(r->dev,
                             &(gpu_buffer_desc){.size = bytes,
                                                .usage = VK_BUFFER_USAGE_TRANSFER_DST_BIT,
                                                .memory = GPU_MEMORY_READBACK,
                                                .name = "skinned readback"},
                             &r->readback, err);
}

/* desc.palette_store: the store, device-local, of the plan's capacity, and its bookkeeping.
 * Written only by the frames' scatters (nothing reads an entry before its instance's first pose
 * is scattered there). */
static bool create_store(vks_renderer *r, vks_error *err)
{
    const uint32_t entries = r->memory.palette_store_entries;
    return vks_palette_store_init(&r->store, r->crowd, entries, err) &&
           gpu_buffer_create(r->dev,
                             &(gpu_buffer_desc){.size = sizeof(vks_bone) * entries,
                                                .usage = ADDRESSED,
                                                .memory = GPU_MEMORY_DEVICE,
                                                .name = "palette store"},
                             &r->palette_store, err);
}

/* A scatter over each frame slot's staging and records (after create_frames): with the store,
 * posed palettes into their slots; for the draw, moved instances' entries into the instance
 * table. */
static bool create_scatter(vks_renderer *r, bool instances, vks_error *err)
{
    gpu_buffer staging[GPU_FRAMES_IN_FLIGHT], records[GPU_FRAMES_IN_FLIGHT];
    for (uint32_t i = 0; i < GPU_FRAMES_IN_FLIGHT; i++) {
        const vks_frame *f = &r->frames[i];
        staging[i] = instances ? f->world_staging : f->palette_buffer;
        records[i] = instances ? f->world_records : f->scatter_records;
    }
    return instances
               ? vks_scatter_pass_create(r->dev, r->bound, sizeof(vks_instance),
                                         &r->scene.instances, staging, records, &r->world_scatter,
                                         err)
               : vks_scatter_pass_create(r->dev, r->bound, sizeof(vks_bone), &r->palette_store,
                                         staging, records, &r->scatter, err);
}

static bool create_descriptors(vks_renderer *r, vks_error *err)
{
    const gpu_device *dev = r->dev;
    const vks_crowd *c = r->crowd;
    uint32_t materials = r->scene.material_count;
    VkDescriptorPoolSize sizes[] = {
        {VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER, GPU_FRAMES_IN_FLIGHT},
        {VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER, materials ? materials : 1},
    };
    VkDescriptorPoolCreateInfo pi = {VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO};
    pi.maxSets = GPU_FRAMES_IN_FLIGHT + materials;
    pi.poolSizeCount = 2;
    pi.pPoolSizes = sizes;
    VkResult res = dev->vk.vkCreateDescriptorPool(dev->device, &pi, NULL, &r->descriptor_pool);
    if (res != VK_SUCCESS)
        return vks_fail(err, "cannot create a descriptor pool: %s", gpu_result_name(res));
    GPU_NAME(dev, VK_OBJECT_TYPE_DESCRIPTOR_POOL, r->descriptor_pool, "descriptor pool");

    VkDescriptorSetAllocateInfo ai = {VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO};
    ai.descriptorPool = r->descriptor_pool;
    ai.descriptorSetCount = 1;
    for (uint32_t i = 0; i < GPU_FRAMES_IN_FLIGHT; i++) {
        vks_frame *f = &r->frames[i];
        ai.pSetLayouts = &r->draw.frame_layout;
        GPU_TRY(dev->vk.vkAllocateDescriptorSets(dev->device, &ai, &f->frame_set), err,
                "allocate a frame's descriptor set");
        GPU_NAME(dev, VK_OBJECT_TYPE_DESCRIPTOR_SET, f->frame_set, "frame set %u", i);
        VkDescriptorBufferInfo ub = {f->uniform_buffer.buffer, 0, VK_WHOLE_SIZE};
        VkWriteDescriptorSet w = {VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET};
        w.dstSet = f->frame_set;
        w.descriptorCount = 1;
        w.descriptorType = VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER;
        w.pBufferInfo = &ub;
        dev->vk.vkUpdateDescriptorSets(dev->device, 1, &w, 0, NULL);
    }

    r->material_sets = vks_calloc(materials ? materials : 1, sizeof *r->material_sets);
    if (!r->material_sets)
        return vks_fail_memory(err, "out of memory");
    ai.pSetLayouts = &r->draw.material_layout;
    uint32_t texture_first = 0;
    for (uint32_t m = 0; m < c->model_count; m++) {
        const vks_model *model = c->models[m];
        for (uint32_t k = 0; k < model->material_count; k++) {
            VkDescriptorSet *set = &r->material_sets[r->scene.models[m].material_first + k];
            GPU_TRY(dev->vk.vkAllocateDescriptorSets(dev->device, &ai, set), err,
                    "allocate a material's descriptor set");
            GPU_NAME(dev, VK_OBJECT_TYPE_DESCRIPTOR_SET, *set, "material %s of %s",
                     model->materials[k].name, model->name);
            int32_t t = model->materials[k].texture;
            const gpu_image *img =
                &r->scene
                     .textures[t >= 0 ? texture_first + (uint32_t)t : r->scene.texture_count - 1];
            VkDescriptorImageInfo ii = {r->draw.sampler, img->view,
                                        VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL};
            VkWriteDescriptorSet w = {VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET};
            w.dstSet = *set;
            w.descriptorCount = 1;
            w.descriptorType = VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER;
            w.pImageInfo = &ii;
            dev->vk.vkUpdateDescriptorSets(dev->device, 1, &w, 0, NULL);
        }
        texture_first += model->texture_count;
    }
    return true;
}

static bool create_frames(vks_renderer *r, vks_error *err)
{
    const gpu_device *dev = r->dev;
    const vks_crowd *c = r->crowd;
    for (uint32_t i = 0; i < GPU_FRAMES_IN_FLIGHT; i++) {
        vks_frame *f = &r->frames[i];
        f->slot = i;
        f->stats = UNKNOWN_STATS;
        char name[64];
        /* The animation and the culling write straight into these mappings. Without the store
         * the shaders read the palettes here; with it, this is the frame's staging, copied into
         * the store. */
        snprintf(name, sizeof name, r->use_store ? "palette staging %u" : "palettes %u", i);
        if (!gpu_buffer_create(
                dev,
                &(gpu_buffer_desc){.size = sizeof(vks_bone) * (r->use_store
                                                                   ? r->memory.palette_store_entries
                                                                   : c->palette_count),
                                   .usage = ADDRESSED,
                                   .memory = GPU_MEMORY_UPLOAD,
                                   .name = name},
                &f->palette_buffer, err))
            return false;
        snprintf(name, sizeof name, "scatter records %u", i);
        if (r->use_store &&
            !gpu_buffer_create(
                dev,
                &(gpu_buffer_desc){.size = sizeof(vks_scatter_record) * c->instance_count,
                                   .usage = ADDRESSED,
                                   .memory = GPU_MEMORY_UPLOAD,
                                   .name = name},
                &f->scatter_records, err))
            return false;
        snprintf(name, sizeof name, "visible list %u", i);
        if (!gpu_buffer_create(dev,
                               &(gpu_buffer_desc){.size = sizeof(vks_visible) * c->instance_count,
                                                  .usage = ADDRESSED,
                                                  .memory = GPU_MEMORY_UPLOAD,
                                                  .name = name},
                               &f->visible_buffer, err))
            return false;
        f->visible = vks_malloc(sizeof *f->visible * c->instance_count);
        f->plan.out_offset = vks_malloc(sizeof *f->plan.out_offset * c->instance_count);
        if (r->external) {
            if (!(f->slot_of = vks_malloc(sizeof *f->slot_of * c->instance_count)))
                return vks_fail_memory(err, "out of memory");
            memset(f->slot_of, 0xFF, sizeof *f->slot_of * c->instance_count);
        }
        f->level = vks_calloc(c->instance_count, sizeof *f->level);
        f->raster = vks_calloc(c->instance_count, sizeof *f->raster);
        f->plan.order = vks_malloc(sizeof *f->plan.order * c->instance_count);
        f->plan.order_level = vks_malloc(sizeof *f->plan.order_level * c->instance_count);
        if (!f->visible || !f->plan.out_offset || !f->level || !f->raster || !f->plan.order ||
            !f->plan.order_level)
            return vks_fail_memory(err, "out of memory");
        f->palette = f->palette_buffer.mapped;
        f->skin_push = (vks_skin_push){.streams = vks_scene_gpu_streams(&r->scene)};
        gpu_address_words(r->scene.model_table.address, f->skin_push.models);
        gpu_address_words(r->scene.instances.address, f->skin_push.instances);
        gpu_address_words(f->visible_buffer.address, f->skin_push.visible);
        gpu_address_words(r->use_store ? r->palette_store.address : f->palette_buffer.address,
                          f->skin_push.palette);
        if (r->external) /* the host records and submits: nothing more per frame */
            continue;
        snprintf(name, sizeof name, "moved instances %u", i);
        if (!gpu_buffer_create(dev,
                               &(gpu_buffer_desc){.size = sizeof(vks_instance) * c->instance_count,
                                                  .usage = ADDRESSED,
                                                  .memory = GPU_MEMORY_UPLOAD,
                                                  .name = name},
                               &f->world_staging, err))
            return false;
        snprintf(name, sizeof name, "moved instance records %u", i);
        if (!gpu_buffer_create(
                dev,
                &(gpu_buffer_desc){.size = sizeof(vks_scatter_record) * c->instance_count,
                                   .usage = ADDRESSED,
                                   .memory = GPU_MEMORY_UPLOAD,
                                   .name = name},
                &f->world_records, err))
            return false;
        snprintf(name, sizeof name, "frame uniforms %u", i);
        if (!gpu_buffer_create(dev,
                               &(gpu_buffer_desc){.size = sizeof(vks_frame_uniforms),
                                                  .usage = VK_BUFFER_USAGE_UNIFORM_BUFFER_BIT,
                                                  .memory = GPU_MEMORY_UPLOAD,
                                                  .name = name},
                               &f->uniform_buffer, err))
            return false;
        f->uniforms = f->uniform_buffer.mapped;
        f->draw_push = (vks_draw_push){.streams = f->skin_push.streams};
        memcpy(f->draw_push.models, f->skin_push.models, sizeof f->draw_push.models);
        memcpy(f->draw_push.instances, f->skin_push.instances, sizeof f->draw_push.instances);
        memcpy(f->draw_push.visible, f->skin_push.visible, sizeof f->draw_push.visible);
        memcpy(f->draw_push.palette, f->skin_push.palette, sizeof f->draw_push.palette);

        VkCommandPoolCreateInfo pi = {VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO};
        pi.flags = VK_COMMAND_POOL_CREATE_TRANSIENT_BIT;
        pi.queueFamilyIndex = dev->queue_family;
        GPU_TRY(dev->vk.vkCreateCommandPool(dev->device, &pi, NULL, &f->pool), err,
                "create a frame's command pool");
        GPU_NAME(dev, VK_OBJECT_TYPE_COMMAND_POOL, f->pool, "frame %u command pool", i);
        VkCommandBufferAllocateInfo ai = {VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
        ai.commandPool = f->pool;
        ai.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
        ai.commandBufferCount = 1;
        GPU_TRY(dev->vk.vkAllocateCommandBuffers(dev->device, &ai, &f->cmd), err,
                "allocate a frame's command buffer");
        GPU_NAME(dev, VK_OBJECT_TYPE_COMMAND_BUFFER, f->cmd, "frame %u commands", i);
        VkFenceCreateInfo fi = {VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
        fi.flags = VK_FENCE_CREATE_SIGNALED_BIT;
        GPU_TRY(dev->vk.vkCreateFence(dev->device, &fi, NULL, &f->fence), err,
                "create a frame's fence");
        GPU_NAME(dev, VK_OBJECT_TYPE_FENCE, f->fence, "frame %u fence", i);
        if (dev->timestamps) {
            VkQueryPoolCreateInfo qi = {VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO};
            qi.queryType = VK_QUERY_TYPE_TIMESTAMP;
            qi.queryCount = QUERY_COUNT;
            GPU_TRY(dev->vk.vkCreateQueryPool(dev->device, &qi, NULL, &f->timestamps), err,
                    "create a frame's timestamp queries");
            GPU_NAME(dev, VK_OBJECT_TYPE_QUERY_POOL, f->timestamps, "frame %u timestamps", i);
        }
        if (dev->statistics) {
            VkQueryPoolCreateInfo qi = {VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO};
            qi.queryType = VK_QUERY_TYPE_PIPELINE_STATISTICS;
            qi.queryCount = STATS_COUNT;
            /* Results come in bit order: primitives, then compute invocations. */
            qi.pipelineStatistics = VK_QUERY_PIPELINE_STATISTIC_INPUT_ASSEMBLY_PRIMITIVES_BIT |
                                    VK_QUERY_PIPELINE_STATISTIC_COMPUTE_SHADER_INVOCATIONS_BIT;
            GPU_TRY(dev->vk.vkCreateQueryPool(dev->device, &qi, NULL, &f->statistics), err,
                    "create a frame's statistics query");
            GPU_NAME(dev, VK_OBJECT_TYPE_QUERY_POOL, f->statistics, "frame %u statistics", i);
        }
    }
    return true;
}

/* ---- The descriptor path (desc.path) ---- */

/* The copy of the output frame f skins into (desc.keep_previous: its slot's). */
static const gpu_buffer *frame_chunks(const vks_renderer *r, const vks_frame *f)
{
    return r->chunks + (size_t)(f->slot % r->output_sets) * r->chunk_count;
}

/* The buffers behind VKS_BINDING_MODELS .. VKS_BINDING_WEIGHTS_EXTRA for frame slot f, each
 * bound whole. A crowd without wide models has no extra streams: their bindings get the joints
 * stream, which the shaders then never read. */
static void data_buffers(const vks_renderer *r, const vks_frame *f,
                         const gpu_buffer *out[VKS_BINDING_OUTPUT])
{
    out[VKS_BINDING_MODELS] = &r->scene.model_table;
    out[VKS_BINDING_INSTANCES] = &r->scene.instances;
    out[VKS_BINDING_VISIBLE] = &f->visible_buffer;
    out[VKS_BINDING_PALETTE] = r->use_store ? &r->palette_store : &f->palette_buffer;
    out[VKS_BINDING_POSITIONS] = &r->scene.positions;
    out[VKS_BINDING_NORMALS] = &r->scene.normals;
    out[VKS_BINDING_TANGENTS] = &r->scene.tangents;
    out[VKS_BINDING_JOINTS] = &r->scene.joints;
    out[VKS_BINDING_WEIGHTS] = &r->scene.weights;
    out[VKS_BINDING_UVS] = &r->scene.uvs;
    out[VKS_BINDING_JOINTS_EXTRA] =
        r->scene.joints_extra.buffer ? &r->scene.joints_extra : &r->scene.joints;
    out[VKS_BINDING_WEIGHTS_EXTRA] =
        r->scene.weights_extra.buffer ? &r->scene.weights_extra : &r->scene.joints;
}

/* One set per frame slot and output chunk (one per slot without output), written once: the
 * buffers never change. Every buffer is bound whole, so each must fit the device's storage-buffer
 * range (the output chunks already do: render/plan.h). */
static bool create_data_sets(vks_renderer *r, vks_error *err)
{
    static const char *const names[VKS_BINDING_OUTPUT] = {
        "model table", "instance table", "visible list", "palettes", "positions",  "normals",
        "tangents",    "joints",         "weights",      "UVs",      "joints 5-8", "weights 5-8"};
    const gpu_device *dev = r->dev;
    const VkDeviceSize range = dev->props.limits.maxStorageBufferRange;
    r->data_sets_per_slot = r->chunk_count ? r->chunk_count : 1;
    const uint32_t sets = GPU_FRAMES_IN_FLIGHT * r->data_sets_per_slot;
    for (uint32_t i = 0; i < GPU_FRAMES_IN_FLIGHT; i++) {
        const gpu_buffer *b[VKS_BINDING_OUTPUT];
        data_buffers(r, &r->frames[i], b);
        for (uint32_t k = 0; k < VKS_BINDING_OUTPUT; k++)
            if (b[k]->size > range)
                return vks_fail(err,
                                "the descriptor path (what validation runs) binds the %s whole: "
                                "%llu bytes, past %s's storage-buffer range of %llu; use fewer "
                                "instances, or the address path",
                                names[k], (unsigned long long)b[k]->size, dev->props.deviceName,
                                (unsigned long long)range);
    }
    VkDescriptorPoolSize size = {VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, sets * VKS_BINDING_COUNT};
    VkDescriptorPoolCreateInfo pi = {VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO};
    pi.maxSets = sets;
    pi.poolSizeCount = 1;
    pi.pPoolSizes = &size;
    GPU_TRY(dev->vk.vkCreateDescriptorPool(dev->device, &pi, NULL, &r->data_pool), err,
            "create the descriptor path's pool");
    GPU_NAME(dev, VK_OBJECT_TYPE_DESCRIPTOR_POOL, r->data_pool, "data set pool");
    if (!(r->data_sets = vks_calloc(sets, sizeof *r->data_sets)))
        return vks_fail_memory(err, "out of memory");
    VkDescriptorSetAllocateInfo ai = {VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO};
    ai.descriptorPool = r->data_pool;
    ai.descriptorSetCount = 1;
    ai.pSetLayouts = &r->data_layout;
    for (uint32_t i = 0; i < GPU_FRAMES_IN_FLIGHT; i++) {
        const vks_frame *f = &r->frames[i];
        const gpu_buffer *b[VKS_BINDING_OUTPUT];
        data_buffers(r, f, b);
        for (uint32_t k = 0; k < r->data_sets_per_slot; k++) {
            VkDescriptorSet *set = &r->data_sets[i * r->data_sets_per_slot + k];
            GPU_TRY(dev->vk.vkAllocateDescriptorSets(dev->device, &ai, set), err,
                    "allocate a data set");
            GPU_NAME(dev, VK_OBJECT_TYPE_DESCRIPTOR_SET, *set, "data set %u, chunk %u", i, k);
            VkDescriptorBufferInfo info[VKS_BINDING_COUNT];
            VkWriteDescriptorSet w[VKS_BINDING_COUNT];
            uint32_t n = VKS_BINDING_OUTPUT;
            for (uint32_t j = 0; j < VKS_BINDING_OUTPUT; j++)
                info[j] = (VkDescriptorBufferInfo){b[j]->buffer, 0, VK_WHOLE_SIZE};
            if (r->chunk_count) { /* the chunk as vertices and as tangents (vks_shared.h) */
                const gpu_buffer *chunk = &frame_chunks(r, f)[k];
                info[n++] = (VkDescriptorBufferInfo){chunk->buffer, 0, VK_WHOLE_SIZE};
                info[n++] = (VkDescriptorBufferInfo){chunk->buffer, 0, VK_WHOLE_SIZE};
            }
            for (uint32_t j = 0; j < n; j++)
                w[j] = (VkWriteDescriptorSet){.sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET,
                                              .dstSet = *set,
                                              .dstBinding = j,
                                              .descriptorCount = 1,
                                              .descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
                                              .pBufferInfo = &info[j]};
            dev->vk.vkUpdateDescriptorSets(dev->device, n, w, 0, NULL);
        }
    }
    return true;
}

/* The compute rasterizer (desc.raster compute or hybrid): its pipelines and the crowd's tables. */
static bool create_raster(vks_renderer *r, vks_error *err)
{
    if (r->raster_mode == VKS_RASTER_HARDWARE)
        return true;
    const vks_crowd *c = r->crowd;
    vks_raster_model where[VKS_CROWD_MAX_MODELS];
    for (uint32_t m = 0; m < c->model_count; m++)
        where[m] = (vks_raster_model){.first_index = r->scene.models[m].first_index,
                                      .lod_first_index = r->scene.models[m].lod_first_index,
                                      .material_first = r->scene.models[m].material_first};
    if (!(r->material_used = vks_calloc(r->scene.material_count ? r->scene.material_count : 1,
                                        sizeof *r->material_used)))
        return vks_fail_memory(err, "out of memory");
    return vks_raster_pass_create(r->dev,
                                  &(vks_raster_pass_desc){
                                      .data_layout = r->data_layout,
                                      .frame_layout = r->draw.frame_layout,
                                      .material_layout = r->draw.material_layout,
                                      .color_format = r->draw.color_format,
                                      .depth_format = r->draw.depth_format,
                                  },
                                  &r->raster, err) &&
           vks_raster_scene_create(r->dev, &r->raster, c->models, where, c->model_count,
                                   &r->scene.indices, &r->raster_scene, err);
}

vks_plan_request vks_renderer_plan_request(const vks_renderer_desc *desc)
{
    return (vks_plan_request){.mode = desc->mode,
                              .palette_store = desc->palette_store,
                              .max_skinned_vertices = desc->max_skinned_vertices,
                              .buffer_limit = desc->buffer_limit,
                              .output_sets = desc->external && desc->keep_previous ? 2 : 1,
                              .instance_updates = !desc->external,
                              .image = desc->image};
}

bool vks_renderer_create(const gpu_device *dev, const vks_renderer_desc *desc, vks_renderer *r,
                         vks_error *err)
{
    const vks_crowd *c = desc->crowd;
    const vks_plan_request request = vks_renderer_plan_request(desc);
    *r = (vks_renderer){.dev = dev,
                        .crowd = c,
                        .mode = desc->mode,
                        .use_store = desc->palette_store,
                        .external = desc->external,
                        .output_stages = desc->output_stages,
                        .output_access = desc->output_access,
                        .bound = desc->path == VKS_PATH_DESCRIPTORS ||
                                 (desc->path == VKS_PATH_AUTO && dev->validate),
                        .skip_skin_barrier = desc->test_skip_skin_barrier,
                        .raster_mode = desc->raster,
                        .output_sets = request.output_sets};
    assert(!desc->external || desc->mode == VKS_SKIN_COMPUTE);
    assert(desc->raster == VKS_RASTER_HARDWARE ||
           (desc->mode == VKS_SKIN_COMPUTE && !desc->external));
    assert(c->instance_count > 0 && c->model_count > 0);
    const vks_plan_limits limits = vks_renderer_plan_limits(dev, desc->memory_limit);
    if (!vks_plan_memory_of(&limits, c, &request, &r->memory, err))
        return false;
    const bool draws = !desc->external;
    const VkPhysicalDeviceLimits *lim = &dev->props.limits;
    if (r->bound && (lim->maxPerStageDescriptorStorageBuffers < VKS_BINDING_COUNT ||
                     lim->maxDescriptorSetStorageBuffers < VKS_BINDING_COUNT))
        return vks_fail(err,
                        "the descriptor path (what validation runs) binds %u storage buffers to "
                        "each stage; %s allows %u: ask for the address path (--binding addresses)",
                        VKS_BINDING_COUNT, dev->props.deviceName,
                        lim->maxPerStageDescriptorStorageBuffers <
                                lim->maxDescriptorSetStorageBuffers
                            ? lim->maxPerStageDescriptorStorageBuffers
                            : lim->maxDescriptorSetStorageBuffers);
    if (r->bound) {
        VkDescriptorType types[VKS_BINDING_COUNT];
        for (uint32_t k = 0; k < VKS_BINDING_COUNT; k++)
            types[k] = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
        /* (the fragment stage: the compute rasterizer's resolve) */
        r->data_layout = gpu_set_layout(dev, types, VKS_BINDING_COUNT,
                                        VK_SHADER_STAGE_COMPUTE_BIT | VK_SHADER_STAGE_VERTEX_BIT |
                                            VK_SHADER_STAGE_FRAGMENT_BIT,
                                        "data set layout");
        if (!r->data_layout) {
            vks_renderer_destroy(r);
            return vks_fail(err, "cannot create the descriptor path's set layout");
        }
    }
    bool ok = (desc->mode == VKS_SKIN_VERTEX ||
               vks_skin_pass_create(dev, desc->group_size, r->data_layout, &r->skin, err)) &&
              (!draws || vks_draw_pass_create(dev, desc->color_format, vks_draw_depth_format(dev),
                                              desc->mode, r->data_layout, &r->draw, err)) &&
              vks_scene_gpu_create(
                  dev, c,
                  &(vks_scene_gpu_desc){.textures = draws,
                                        .index_addresses = desc->raster != VKS_RASTER_HARDWARE},
                  &r->scene, err) &&
              create_outputs(r, vks_plan_buffer_limit(&limits, desc->buffer_limit), desc->readback,
                             err) &&
              (!r->use_store || create_store(r, err)) && create_frames(r, err) &&
              (!r->use_store || create_scatter(r, false, err)) &&
              (r->external || create_scatter(r, true, err)) &&
              (!draws || create_descriptors(r, err)) && (!r->bound || create_data_sets(r, err)) &&
              create_raster(r, err);
    if (!ok) {
        vks_renderer_destroy(r);
        return false;
    }
    return true;
}

void vks_renderer_destroy(vks_renderer *r)
{
    const gpu_device *dev = r->dev;
    if (!dev)
        return;
    if (!r->external) /* a host's device: the host has waited for what vkskin recorded */
        dev->vk.vkDeviceWaitIdle(dev->device);
    for (uint32_t i = 0; i < GPU_FRAMES_IN_FLIGHT; i++) {
        vks_frame *f = &r->frames[i];
        if (f->timestamps)
            dev->vk.vkDestroyQueryPool(dev->device, f->timestamps, NULL);
        if (f->statistics)
            dev->vk.vkDestroyQueryPool(dev->device, f->statistics, NULL);
        if (f->fence)
            dev->vk.vkDestroyFence(dev->device, f->fence, NULL);
        if (f->pool)
            dev->vk.vkDestroyCommandPool(dev->device, f->pool, NULL);
        gpu_buffer_destroy(dev, &f->palette_buffer);
        gpu_buffer_destroy(dev, &f->scatter_records);
        gpu_buffer_destroy(dev, &f->world_staging);
        gpu_buffer_destroy(dev, &f->world_records);
        gpu_buffer_destroy(dev, &f->visible_buffer);
        vks_free(f->visible);
        vks_free(f->plan.out_offset);
        vks_free(f->slot_of);
        vks_free(f->level);
        vks_free(f->raster);
        vks_free(f->plan.order);
        vks_free(f->plan.order_level);
        gpu_buffer_destroy(dev, &f->uniform_buffer);
    }
    if (r->descriptor_pool)
        dev->vk.vkDestroyDescriptorPool(dev->device, r->descriptor_pool, NULL);
    vks_free(r->material_sets);
    if (r->data_pool)
        dev->vk.vkDestroyDescriptorPool(dev->device, r->data_pool, NULL);
    vks_free(r->data_sets);
    for (uint32_t k = 0; r->chunks && k < r->chunk_count * r->output_sets; k++)
        gpu_buffer_destroy(dev, &r->chunks[k]);
    vks_free(r->chunks);
    vks_free(r->chunk_addresses);
    vks_palette_store_free(&r->store);
    vks_scatter_pass_destroy(dev, &r->scatter);
    vks_scatter_pass_destroy(dev, &r->world_scatter);
    gpu_buffer_destroy(dev, &r->readback);
    gpu_buffer_destroy(dev, &r->palette_store);
    vks_scene_gpu_destroy(&r->scene);
    vks_raster_scene_destroy(dev, &r->raster_scene);
    vks_raster_pass_destroy(dev, &r->raster);
    vks_free(r->material_used);
    vks_draw_pass_destroy(dev, &r->draw);
    vks_skin_pass_destroy(dev, &r->skin);
    if (r->data_layout)
        dev->vk.vkDestroyDescriptorSetLayout(dev->device, r->data_layout, NULL);
    *r = (vks_renderer){0};
}

/* ---- Frames ---- */

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
                         uint32_t *level)
{
    assert(r->external && instance < r->crowd->instance_count);
    const uint32_t s = f->slot_of[instance];
    if (s == UINT32_MAX)
        return false;
    const VkDeviceSize at = f->plan.out_offset[s];
    const vks_model *m = r->crowd->models[r->crowd->instances[instance].model];
    *chunk = &frame_chunks(r, f)[at / r->chunk_limit];
    *offset = at % r->chunk_limit;
    *level = f->plan.order_level[s];
    *vertex_count = vks_model_level(m, *level).vertex_count;
    return true;
}

static void begin_statistics(const gpu_device *dev, vks_frame *f, uint32_t q)
{
    if (f->statistics) {
        dev->vk.vkCmdBeginQuery(f->cmd, f->statistics, q, 0);
        f->queries_written |= STATS_BEGUN(q);
    }
}

static void end_statistics(const gpu_device *dev, vks_frame *f, uint32_t q)
{
    if ((f->queries_written & STATS_BEGUN(q)) && !(f->queries_written & STATS_ENDED(q))) {
        dev->vk.vkCmdEndQuery(f->cmd, f->statistics, q);
        f->queries_written |= STATS_ENDED(q);
    }
}

static void timestamp(const gpu_device *dev, vks_frame *f, VkPipelineStageFlags2 stage,
                      uint32_t query)
{
    if (!f->timestamps)
        return;
    dev->vk.vkCmdWriteTimestamp2(f->cmd, stage, f->timestamps, query);
    f->queries_written |= 1u << query;
}

/* Output space for the frame's visible instances, in the GPU's order, until the budget is spent
 * (compute mode), and the GPU's visible list: each instance with its level's first vertex and
 * its output's address, or 0 for those the vertex shader skins. Written once, in order (the
 * mapping may be write-combined across PCIe: never read back). */
static void deal_outputs(vks_renderer *r, vks_frame *f)
{
    const vks_crowd *c = r->crowd;
    const vks_frame_budget budget = {
        .compute = r->mode == VKS_SKIN_COMPUTE,
        .output_bytes = r->chunk_count ? r->memory.output_bytes : 0,
        .chunk_limit = r->chunk_limit,
        .raster = r->raster_mode == VKS_RASTER_COMPUTE  ? VKS_FRAME_RASTER_ALL
                  : r->raster_mode == VKS_RASTER_HYBRID ? VKS_FRAME_RASTER_MARKED
                                                        : VKS_FRAME_RASTER_NONE,
        .raster_max_entries = r->raster_scene.max_entries};
    vks_frame_plan_make(c, &budget, f->visible, f->visible_count, f->level, f->raster, &f->plan);
    vks_frame_plan_entries(c, &f->plan, r->use_store ? r->store.slot : c->palette_first,
                           r->chunk_count ? r->chunk_addresses +
                                                (size_t)(f->slot % r->output_sets) * r->chunk_count
                                          : NULL,
                           r->chunk_limit, f->visible_buffer.mapped);
}

/* The output chunk that slot s of the GPU's order (one with output) skins into. */
static uint32_t chunk_of(const vks_renderer *r, const vks_frame *f, uint32_t s)
{
    return (uint32_t)(f->plan.out_offset[s] / r->chunk_limit);
}

/* Where the slots from `first` that skin into the same chunk end: those in one chunk are
 * consecutive (vks_plan_frame deals output in order). The address path reaches every chunk at
 * once: all the slots with output. */
static uint32_t chunk_end(const vks_renderer *r, const vks_frame *f, uint32_t first, uint32_t end)
{
    if (!r->bound)
        return end;
    const uint32_t k = chunk_of(r, f, first);
    while (first < end && chunk_of(r, f, first) == k)
        first++;
    return first;
}

/* The descriptor path: binds frame f's data set for output chunk k (0 also for the draws that
 * skin in the vertex shader), as set `set_index` of `layout`. */
static void bind_data_set(const vks_renderer *r, const vks_frame *f, VkCommandBuffer cmd,
                          VkPipelineBindPoint point, VkPipelineLayout layout, uint32_t set_index,
                          uint32_t k)
{
    const gpu_device *dev = r->dev;
    dev->vk.vkCmdBindDescriptorSets(cmd, point, layout, set_index, 1,
                                    &r->data_sets[f->slot * r->data_sets_per_slot + k], 0, NULL);
}

/* One dispatch per (model, level) with instances that got output space, with the model's
 * pipeline variant (4 or 8 influences) and as wide as the level's vertices need: no empty
 * workgroups in a crowd that mixes models or levels of different sizes, and no search for an
 * instance. On the descriptor path, that for each output chunk in turn, with its set bound. */
static void skin_dispatches(vks_renderer *r, vks_frame *f)
{
    const gpu_device *dev = r->dev;
    const vks_crowd *c = r->crowd;
    const VkCommandBuffer cmd = f->cmd;
    for (uint32_t first = 0, last; first < f->plan.skinned_count; first = last) {
        last = chunk_end(r, f, first, f->plan.skinned_count);
        vks_skin_push push = f->skin_push;
        if (r->bound) {
            const uint32_t k = chunk_of(r, f, first);
            bind_data_set(r, f, cmd, VK_PIPELINE_BIND_POINT_COMPUTE, r->skin.layout, 0, k);
            gpu_address_words(frame_chunks(r, f)[k].address, push.out_base);
        }
        for (uint32_t m = 0; m < c->model_count; m++) {
            const vks_model *model = c->models[m];
            for (uint32_t l = 0; l < vks_model_level_count(model); l++) {
                const uint32_t start = f->plan.runs[m][l] > first ? f->plan.runs[m][l] : first;
                const uint32_t end = f->plan.runs[m][l + 1] < last ? f->plan.runs[m][l + 1] : last;
                if (end <= start)
                    continue;
                push.visible_first = start;
                push.visible_count = end - start;
                push.vertex_count = vks_model_level(model, l).vertex_count;
                vks_skin_pass_record(dev, cmd, &r->skin, &push, push.vertex_count,
                                     vks_model_wide(model));
            }
        }
    }
}

/* desc.palette_store: the frame's staged palettes into their slots of the store, one scatter
 * record per posed instance. The earlier frames' reads of the store (the skinning pass, and the
 * vertex shaders that skin) come first: a slot rewritten now may have held another instance's
 * pose for them. */
/* Who reads the store and the instance table in a frame: the skinning pass, the vertex shaders,
 * the compute rasterizer and its resolve. The scatters wait for the earlier frames' reads and
 * come before this frame's. */
static const gpu_access SHADER_READERS = {VK_PIPELINE_STAGE_2_VERTEX_SHADER_BIT |
                                              VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT |
                                              VK_PIPELINE_STAGE_2_FRAGMENT_SHADER_BIT,
                                          VK_ACCESS_2_SHADER_STORAGE_READ_BIT};

static void scatter_to_store(vks_renderer *r, vks_frame *f)
{
    const gpu_device *dev = r->dev;
    /* The store's poses are this frame's: its palettes were staged and placed just before. */
    const vks_palette_store *s = &r->store;
    const vks_crowd *c = r->crowd;
    if (!s->pose_count)
        return;
    vks_scatter_record *records = f->scatter_records.mapped;
    for (uint32_t k = 0; k < s->pose_count; k++) {
        const uint32_t i = s->pose[k];
        records[k] = (vks_scatter_record){
            .from_entry = s->pose_first[k],
            .to_entry = s->slot[i],
            .count = c->models[c->instances[i].model]->skeleton.joint_count,
        };
    }
    vks_scatter_pass_record(dev, f->cmd, &r->scatter, f->slot, s->pose_count, SHADER_READERS);
}

/* The draw's instance table follows the instances placed anew since the last frame
 * (crowd->moved): their entries, staged in the frame slot, scattered into the table after every
 * earlier frame's reads of it (the draws', the compute rasterizer's and its resolve's) and before
 * this frame's. The caller clears the crowd's list once the frame is recorded. */
static void move_instances(vks_renderer *r, vks_frame *f)
{
    const gpu_device *dev = r->dev;
    const vks_crowd *c = r->crowd;
    if (r->external || !c->moved_count)
        return;
    vks_instance *entries = f->world_staging.mapped;
    vks_scatter_record *records = f->world_records.mapped;
    for (uint32_t k = 0; k < c->moved_count; k++) {
        entries[k] = vks_scene_gpu_instance(c, c->moved[k]);
        records[k] = (vks_scatter_record){.from_entry = k, .to_entry = c->moved[k], .count = 1};
    }
    vks_scatter_pass_record(dev, f->cmd, &r->world_scatter, f->slot, c->moved_count,
                            SHADER_READERS);
}

void vks_renderer_skin(vks_renderer *r, vks_frame *f)
{
    const gpu_device *dev = r->dev;
    assert(f->visible_count <= r->crowd->instance_count);
    deal_outputs(r, f);
    if (r->use_store)
        scatter_to_store(r, f);
    move_instances(r, f);
    begin_statistics(dev, f, STATS_SKIN);
    if (r->mode == VKS_SKIN_COMPUTE) {
        /* Global barriers: the fast path reaches the output chunks by address. The previous
         * frame's draw (vertex shader) and readback (copy) read the output and its dispatch wrote
         * it: this dispatch waits for all three before it overwrites it. */
        const gpu_access skin = {VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT,
                                 VK_ACCESS_2_SHADER_STORAGE_WRITE_BIT};
        /* A host (desc.external) may draw the output as vertex buffers: vertex input too; the
         * compute rasterizer reads it in compute and its resolve in the fragment shader. */
        VkPipelineStageFlags2 readers =
            VK_PIPELINE_STAGE_2_VERTEX_SHADER_BIT | VK_PIPELINE_STAGE_2_COPY_BIT |
            (r->external ? VK_PIPELINE_STAGE_2_VERTEX_ATTRIBUTE_INPUT_BIT : 0) |
            (r->raster_mode != VKS_RASTER_HARDWARE
                 ? VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_2_FRAGMENT_SHADER_BIT
                 : 0);
        VkAccessFlags2 reads = VK_ACCESS_2_SHADER_STORAGE_READ_BIT | VK_ACCESS_2_TRANSFER_READ_BIT |
                               (r->external ? VK_ACCESS_2_VERTEX_ATTRIBUTE_READ_BIT : 0);
        if (r->output_stages) { /* a host's own readers: an acceleration-structure build, compute */
            readers = r->output_stages;
            reads = r->output_access;
        }
        gpu_barrier_memory(dev, f->cmd,
                           (gpu_access){readers | VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT,
                                        VK_ACCESS_2_SHADER_STORAGE_WRITE_BIT},
                           skin);
        skin_dispatches(r, f);
        /* Compute writes -> this frame's vertex pulling (storage reads in the vertex shader) and
         * readback copies (and a host's vertex input). */
        if (!r->skip_skin_barrier)
            gpu_barrier_memory(dev, f->cmd, skin, (gpu_access){readers, reads});
    }
    end_statistics(dev, f, STATS_SKIN);
    timestamp(dev, f, VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT, QUERY_SKINNED);
}

/* Records one draw per mesh of model m at level l, instanced over visible slots [first, first +
 * count), with the pipeline bound; counts them and their triangles in f. */
static void draw_meshes(const vks_renderer *r, vks_frame *f, uint32_t m, uint32_t l, uint32_t first,
                        uint32_t count)
{
    const gpu_device *dev = r->dev;
    const VkCommandBuffer cmd = f->cmd;
    const vks_model *model = r->crowd->models[m];
    const vks_scene_model *rm = &r->scene.models[m];
    const VkShaderStageFlags stages = VK_SHADER_STAGE_VERTEX_BIT | VK_SHADER_STAGE_FRAGMENT_BIT;
    for (uint32_t i = 0; i < model->mesh_count; i++) {
        const vks_mesh *mesh = &model->meshes[i];
        const vks_mesh_level ml = vks_model_mesh_level(model, l, i);
        if (!ml.index_count)
            continue;
        const vks_material *mat = &model->materials[mesh->material];
        dev->vk.vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_GRAPHICS, r->draw.layout, 1, 1,
                                        &r->material_sets[rm->material_first + mesh->material], 0,
                                        NULL);
        dev->vk.vkCmdPushConstants(cmd, r->draw.layout, stages, offsetof(vks_draw_push, base_color),
                                   sizeof mat->base_color, mat->base_color);
        /* One draw for these instances of this model at this level: gl_InstanceIndex runs over
         * their range of the visible list; gl_VertexIndex over the level's vertices from the
         * mesh's. */
        dev->vk.vkCmdDrawIndexed(cmd, ml.index_count, count,
                                 (l ? rm->lod_first_index : rm->first_index) + ml.first_index,
                                 (int32_t)ml.base_vertex, first);
        f->draws++;
        f->triangles_hardware += (uint64_t)(ml.index_count / 3) * count;
    }
}

/* The compute rasterizer's part of the frame, before the rendering: the visibility buffer
 * emptied, then one dispatch per mesh of each (model, level) over its entries for it (on the
 * descriptor path, those of each output chunk in turn, with its set bound), then its writes
 * made visible to the resolve. Marks the materials the resolve will shade. */
static void raster_dispatches(vks_renderer *r, vks_frame *f, const vks_raster_target *target)
{
    const gpu_device *dev = r->dev;
    const vks_crowd *c = r->crowd;
    const VkCommandBuffer cmd = f->cmd;
    memset(r->material_used, 0, sizeof *r->material_used * r->scene.material_count);
    vks_raster_clear(dev, cmd, target);
    vks_raster_push push = {.size = target->width | target->height << 16,
                            .bits = r->raster_scene.triangle_bits};
    memcpy(push.view_proj, f->uniforms->view_proj, sizeof push.view_proj);
    memcpy(push.instances, f->skin_push.instances, sizeof push.instances);
    memcpy(push.visible, f->skin_push.visible, sizeof push.visible);
    gpu_address_words(r->scene.indices.address, push.indices);
    gpu_address_words(target->vis.address, push.vis);
    if (r->bound)
        vks_raster_bind(dev, cmd, &r->raster, target);
    for (uint32_t m = 0; m < c->model_count; m++) {
        const vks_model *model = c->models[m];
        const vks_raster_model where = {r->scene.models[m].first_index,
                                        r->scene.models[m].lod_first_index,
                                        r->scene.models[m].material_first};
        for (uint32_t l = 0; l < vks_model_level_count(model); l++)
            for (uint32_t first = f->plan.runs[m][l], last; first < f->plan.raster_end[m][l];
                 first = last) {
                last = chunk_end(r, f, first, f->plan.raster_end[m][l]);
                if (r->bound) {
                    const uint32_t k = chunk_of(r, f, first);
                    bind_data_set(r, f, cmd, VK_PIPELINE_BIND_POINT_COMPUTE, r->raster.layout, 0,
                                  k);
                    push.out_base = (uint32_t)frame_chunks(r, f)[k].address;
                }
                for (uint32_t i = 0; i < model->mesh_count; i++) {
                    const vks_mesh_level ml = vks_model_mesh_level(model, l, i);
                    if (!ml.index_count)
                        continue;
                    vks_raster_mesh_range(&r->raster_scene, model, &where, m, l, i,
                                          &push.first_index, &push.triangle_first);
                    push.triangle_count = ml.index_count / 3;
                    push.base_vertex = ml.base_vertex;
                    push.visible_first = first;
                    vks_raster_pass_record(dev, cmd, &r->raster, &push, last - first);
                    f->triangles_compute += (uint64_t)push.triangle_count * (last - first);
                    r->material_used[where.material_first + model->meshes[i].material] = true;
                }
            }
    }
    vks_raster_finish(dev, cmd, target);
    f->queries_written |= RASTER_COUNTED;
}

/* Inside the rendering, after the graphics pipeline's draws: one full-screen resolve per
 * material the compute rasterizer drew (on the descriptor path, per output chunk it drew from,
 * each with its data set bound). */
static void resolve(vks_renderer *r, vks_frame *f, const vks_raster_target *target)
{
    const gpu_device *dev = r->dev;
    const vks_crowd *c = r->crowd;
    vks_resolve_push push = {0};
    memcpy(push.models, f->skin_push.models, sizeof push.models);
    memcpy(push.instances, f->skin_push.instances, sizeof push.instances);
    memcpy(push.visible, f->skin_push.visible, sizeof push.visible);
    gpu_address_words(r->scene.uvs.address, push.uvs);
    /* The chunks the rasterized entries' outputs are in (by address, all of them at once): from
     * the first's to the last's (each chunk's slots are consecutive: chunk_end). */
    uint32_t k_first = 0, k_last = 0;
    if (r->bound) {
        k_first = UINT32_MAX;
        for (uint32_t m = 0; m < c->model_count; m++)
            for (uint32_t l = 0; l < VKS_MAX_LEVELS; l++)
                if (f->plan.raster_end[m][l] > f->plan.runs[m][l]) {
                    const uint32_t a = chunk_of(r, f, f->plan.runs[m][l]),
                                   b = chunk_of(r, f, f->plan.raster_end[m][l] - 1);
                    k_first = a < k_first ? a : k_first;
                    k_last = b > k_last ? b : k_last;
                }
    }
    for (uint32_t k = k_first; k <= k_last; k++) {
        VkDescriptorSet data_set = VK_NULL_HANDLE;
        if (r->bound) {
            data_set = r->data_sets[f->slot * r->data_sets_per_slot + k];
            const gpu_buffer *chunk = &frame_chunks(r, f)[k];
            gpu_address_words(chunk->address, push.out_base);
            push.out_bytes = (uint32_t)chunk->size;
        }
        for (uint32_t m = 0; m < c->model_count; m++) {
            const vks_model *model = c->models[m];
            for (uint32_t i = 0; i < model->material_count; i++) {
                const uint32_t material = r->scene.models[m].material_first + i;
                if (!r->material_used[material])
                    continue;
                push.material = material;
                memcpy(push.base_color, model->materials[i].base_color, sizeof push.base_color);
                vks_raster_resolve(dev, f->cmd, &r->raster, &r->raster_scene, target, f->frame_set,
                                   r->material_sets[material], data_set, &push);
            }
        }
    }
}

bool vks_renderer_draw(vks_renderer *r, vks_frame *f, const vks_draw_target *target, vks_error *err)
{
    const gpu_device *dev = r->dev;
    VkCommandBuffer cmd = f->cmd;
    const vks_crowd *c = r->crowd;
    f->draws = 0;
    f->triangles_hardware = f->triangles_compute = 0;
    bool rasters = false;
    for (uint32_t m = 0; m < c->model_count; m++)
        for (uint32_t l = 0; l < VKS_MAX_LEVELS; l++)
            rasters |= f->plan.raster_end[m][l] > f->plan.runs[m][l];
    const vks_raster_target *raster_target = &r->raster_scene.targets[f->slot];
    if (rasters) {
        if (!vks_raster_target_size(r->dev, &r->raster, &r->raster_scene, f->slot,
                                    target->extent.width, target->extent.height, err))
            return false;
        raster_dispatches(r, f, raster_target);
    }
    timestamp(dev, f, VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT, QUERY_RASTERED);
    vks_draw_begin(dev, cmd, target);
    /* The statistics count the crowd's draws alone: not the resolve's full-screen triangles,
     * nor the overlays after it (inside the rendering, as the query may be). */
    begin_statistics(dev, f, STATS_DRAW);
    dev->vk.vkCmdBindIndexBuffer(cmd, r->scene.indices.buffer, 0, VK_INDEX_TYPE_UINT32);
    dev->vk.vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_GRAPHICS, r->draw.layout, 0, 1,
                                    &f->frame_set, 0, NULL);
    const VkShaderStageFlags stages = VK_SHADER_STAGE_VERTEX_BIT | VK_SHADER_STAGE_FRAGMENT_BIT;
    dev->vk.vkCmdPushConstants(cmd, r->draw.layout, stages, 0, sizeof f->draw_push, &f->draw_push);
    uint32_t bound_chunk = 0; /* the descriptor path: chunk 0's set first */
    if (r->bound)
        bind_data_set(r, f, cmd, VK_PIPELINE_BIND_POINT_GRAPHICS, r->draw.layout, 2, 0);
    /* In the GPU's order (sort_by_level): each (model, level) is a range; within it, the compute
     * rasterizer's entries first, then those with output space (a prefix of the whole list got
     * it). */
    for (uint32_t m = 0; m < c->model_count; m++) {
        const vks_model *model = c->models[m];
        for (uint32_t l = 0; l < vks_model_level_count(model); l++) {
            const uint32_t start = f->plan.raster_end[m][l];
            const uint32_t end = f->plan.runs[m][l + 1];
            const uint32_t split = f->plan.skinned_count < start ? start
                                   : f->plan.skinned_count > end ? end
                                                                 : f->plan.skinned_count;
            /* [start, split): pulled from the compute pass's output, one chunk's at a time on
             * the descriptor path, with its set bound; [split, end): skinned here. */
            if (split > start)
                vks_draw_bind(dev, cmd, &r->draw, VKS_DRAW_PULLED);
            for (uint32_t first = start, last; first < split; first = last) {
                last = chunk_end(r, f, first, split);
                const uint32_t k = r->bound ? chunk_of(r, f, first) : 0;
                if (k != bound_chunk) {
                    bind_data_set(r, f, cmd, VK_PIPELINE_BIND_POINT_GRAPHICS, r->draw.layout, 2, k);
                    bound_chunk = k;
                }
                if (r->bound) {
                    uint32_t base[2];
                    gpu_address_words(frame_chunks(r, f)[k].address, base);
                    dev->vk.vkCmdPushConstants(cmd, r->draw.layout, stages,
                                               offsetof(vks_draw_push, out_base), sizeof base,
                                               base);
                }
                draw_meshes(r, f, m, l, first, last - first);
            }
            if (end > split) {
                vks_draw_bind(dev, cmd, &r->draw,
                              vks_model_wide(model) ? VKS_DRAW_SKIN8 : VKS_DRAW_SKIN4);
                draw_meshes(r, f, m, l, split, end - split);
            }
        }
    }
    end_statistics(dev, f, STATS_DRAW);
    timestamp(dev, f, VK_PIPELINE_STAGE_2_ALL_GRAPHICS_BIT, QUERY_HARDWARE);
    if (rasters)
        resolve(r, f, raster_target);
    timestamp(dev, f, VK_PIPELINE_STAGE_2_ALL_GRAPHICS_BIT, QUERY_RESOLVED);
    vks_draw_end(dev, cmd, target);
    timestamp(dev, f, VK_PIPELINE_STAGE_2_ALL_GRAPHICS_BIT, QUERY_DRAWN);
    return true;
}

void vks_renderer_copy_skinned(vks_renderer *r, vks_frame *f)
{
    const gpu_device *dev = r->dev;
    assert(r->readback.buffer && r->mode == VKS_SKIN_COMPUTE);
    const gpu_access host_read = {VK_PIPELINE_STAGE_2_HOST_BIT, VK_ACCESS_2_HOST_READ_BIT};
    const gpu_access copy_write = {VK_PIPELINE_STAGE_2_COPY_BIT, VK_ACCESS_2_TRANSFER_WRITE_BIT};
    /* The host read the readback buffer after the previous frame's fence: nothing pending. */
    VkDeviceSize offset = 0;
    for (uint32_t k = 0; k < r->chunk_count; k++) {
        dev->vk.vkCmdCopyBuffer(f->cmd, r->chunks[k].buffer, r->readback.buffer, 1,
                                &(VkBufferCopy){0, offset, r->chunks[k].size});
        offset += r->chunks[k].size;
    }
    gpu_barrier_buffer(dev, f->cmd, r->readback.buffer, copy_write, host_read);
    r->readback_slot = (int32_t)f->slot;
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

const uint32_t *vks_renderer_skinned_tangents(const vks_renderer *r, uint32_t instance)
{
    const vks_model *m = r->crowd->models[r->crowd->instances[instance].model];
    const vks_skinned_vertex *v = vks_renderer_skinned(r, instance);
    if (!m->tangents || !v)
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
    const vks_model *m = r->crowd->models[r->crowd->instances[instance].model];
    const uint32_t n = vks_model_level(m, vks_renderer_skinned_level(r, instance)).vertex_count;
    for (uint32_t v = 0; v < n; v++) {
        memcpy(positions[v], out[v].position, sizeof positions[v]);
        vks_dequant_oct(out[v].normal, normals[v]);
        if (tan && tangents)
            vks_dequant_tangent(tan[v], tangents[v]);
    }
    return true;
}
