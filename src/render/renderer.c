#include "renderer_impl.h"
#include "../core/alloc.h"
#include "frame_plan.h"
#include "plan.h"

#include "../asset/pack.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

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
static void destroy_outputs(vks_renderer *r)
{
    for (uint32_t k = 0; r->chunks && k < r->chunk_count * r->output_sets; k++)
        gpu_buffer_destroy(r->dev, &r->chunks[k]);
    vks_free(r->chunks);
    vks_free(r->chunk_addresses);
    r->chunks = NULL;
    r->chunk_addresses = NULL;
    r->chunk_count = 0;
    gpu_buffer_destroy(r->dev, &r->readback);
}

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
    const uint32_t entries = r->store_entries;
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

/* A buffer of frame slot `slot`'s, host-visible and reached by address, named "what slot". */
static bool slot_buffer(const gpu_device *dev, VkDeviceSize size, const char *what, uint32_t slot,
                        gpu_buffer *buf, vks_error *err)
{
    char name[64];
    snprintf(name, sizeof name, "%s %u", what, slot);
    return gpu_buffer_create(
        dev,
        &(gpu_buffer_desc){
            .size = size, .usage = ADDRESSED, .memory = GPU_MEMORY_UPLOAD, .name = name},
        buf, err);
}

/* Frame slot f's state that grows with the crowd (r->instance_capacity instances,
 * r->palette_capacity palette entries): its palettes (or, with the store, their staging), the
 * store's scatter records, the visible list, the moved instances' staging and records, the
 * host-side lists; and the passes' push constants, which hold their addresses. */
static bool create_frame_instances(vks_renderer *r, vks_frame *f, vks_error *err)
{
    const gpu_device *dev = r->dev;
    const uint32_t n = f->instance_room, i = f->slot;
    /* The animation and the culling write straight into these mappings. Without the store the
     * shaders read the palettes here; with it, this is the frame's staging, copied into the
     * store. */
    const VkDeviceSize palettes =
        sizeof(vks_bone) * (r->use_store ? r->store.capacity : f->palette_room);
    if (!slot_buffer(dev, palettes, r->use_store ? "palette staging" : "palettes", i,
                     &f->palette_buffer, err) ||
        (r->use_store && !slot_buffer(dev, sizeof(vks_scatter_record) * n, "scatter records", i,
                                      &f->scatter_records, err)) ||
        !slot_buffer(dev, sizeof(vks_visible) * n, "visible list", i, &f->visible_buffer, err))
        return false;
    f->visible = vks_malloc(sizeof *f->visible * n);
    f->plan.out_offset = vks_malloc(sizeof *f->plan.out_offset * n);
    if (r->external) {
        if (!(f->slot_of = vks_malloc(sizeof *f->slot_of * n)))
            return vks_fail_memory(err, "out of memory");
        memset(f->slot_of, 0xFF, sizeof *f->slot_of * n);
    }
    f->level = vks_calloc(n, sizeof *f->level);
    f->raster = vks_calloc(n, sizeof *f->raster);
    f->plan.order = vks_malloc(sizeof *f->plan.order * n);
    f->plan.order_level = vks_malloc(sizeof *f->plan.order_level * n);
    f->plan.order_model = vks_malloc(sizeof *f->plan.order_model * n);
    if (!f->visible || !f->plan.out_offset || !f->level || !f->raster || !f->plan.order ||
        !f->plan.order_level || !f->plan.order_model)
        return vks_fail_memory(err, "out of memory");
    f->palette = f->palette_buffer.mapped;
    f->skin_push = (vks_skin_push){.streams = vks_scene_gpu_streams(&r->scene)};
    gpu_address_words(r->scene.model_table.address, f->skin_push.models);
    gpu_address_words(r->scene.instances.address, f->skin_push.instances);
    gpu_address_words(f->visible_buffer.address, f->skin_push.visible);
    gpu_address_words(r->use_store ? r->palette_store.address : f->palette_buffer.address,
                      f->skin_push.palette);
    if (r->external) /* the host draws: no instance table to follow the crowd */
        return true;
    if (!slot_buffer(dev, sizeof(vks_instance) * n, "moved instances", i, &f->world_staging, err) ||
        !slot_buffer(dev, sizeof(vks_scatter_record) * n, "moved instance records", i,
                     &f->world_records, err))
        return false;
    f->draw_push = (vks_draw_push){.streams = f->skin_push.streams};
    memcpy(f->draw_push.models, f->skin_push.models, sizeof f->draw_push.models);
    memcpy(f->draw_push.instances, f->skin_push.instances, sizeof f->draw_push.instances);
    memcpy(f->draw_push.visible, f->skin_push.visible, sizeof f->draw_push.visible);
    memcpy(f->draw_push.palette, f->skin_push.palette, sizeof f->draw_push.palette);
    return true;
}

static void destroy_frame_instances(vks_renderer *r, vks_frame *f)
{
    const gpu_device *dev = r->dev;
    gpu_buffer_destroy(dev, &f->palette_buffer);
    gpu_buffer_destroy(dev, &f->scatter_records);
    gpu_buffer_destroy(dev, &f->world_staging);
    gpu_buffer_destroy(dev, &f->world_records);
    gpu_buffer_destroy(dev, &f->visible_buffer);
    vks_free(f->visible);
    vks_free(f->slot_of);
    vks_free(f->level);
    vks_free(f->raster);
    vks_free(f->plan.order);
    vks_free(f->plan.order_level);
    vks_free(f->plan.order_model);
    vks_free(f->plan.out_offset);
    /* Nothing of its last frame is left to read (its lists are gone): an empty plan. */
    f->plan = (vks_frame_plan){0};
    f->visible = f->slot_of = NULL;
    f->level = f->raster = NULL;
    f->palette = NULL;
    f->visible_count = 0;
    f->host_number = 0;
}

/* Frame slot f's state that does not change with the crowd: its uniforms, command buffer, fence
 * and queries (not desc.external: the host records and submits). */
static bool create_frame_fixed(vks_renderer *r, vks_frame *f, vks_error *err)
{
    const gpu_device *dev = r->dev;
    const uint32_t i = f->slot;
    if (r->external)
        return true;
    char name[64];
    snprintf(name, sizeof name, "frame uniforms %u", i);
    if (!gpu_buffer_create(dev,
                           &(gpu_buffer_desc){.size = sizeof(vks_frame_uniforms),
                                              .usage = VK_BUFFER_USAGE_UNIFORM_BUFFER_BIT,
                                              .memory = GPU_MEMORY_UPLOAD,
                                              .name = name},
                           &f->uniform_buffer, err))
        return false;
    f->uniforms = f->uniform_buffer.mapped;
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
    return true;
}

/* ---- The descriptor path (desc.path) ---- */

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

/* Frame slot f's buffers each bound whole: each must fit the device's storage-buffer range (the
 * output chunks already do: render/plan.h). */
static bool check_data_range(const vks_renderer *r, const vks_frame *f, vks_error *err)
{
    static const char *const names[VKS_BINDING_OUTPUT] = {
        "model table", "instance table", "visible list", "palettes", "positions",  "normals",
        "tangents",    "joints",         "weights",      "UVs",      "joints 5-8", "weights 5-8"};
    const gpu_device *dev = r->dev;
    const VkDeviceSize range = dev->props.limits.maxStorageBufferRange;
    const gpu_buffer *b[VKS_BINDING_OUTPUT];
    data_buffers(r, f, b);
    for (uint32_t k = 0; k < VKS_BINDING_OUTPUT; k++)
        if (b[k]->size > range)
            return vks_fail(err,
                            "the descriptor path (what validation runs) binds the %s whole: "
                            "%llu bytes, past %s's storage-buffer range of %llu; use fewer "
                            "instances, or the address path",
                            names[k], (unsigned long long)b[k]->size, dev->props.deviceName,
                            (unsigned long long)range);
    return true;
}

/* Writes frame slot f's data sets (one per output chunk) with its buffers. Its earlier frames'
 * commands are done with them: at creation, and when the slot's buffers are made again
 * (vks_renderer_fit). */
static void write_data_sets(const vks_renderer *r, const vks_frame *f)
{
    const gpu_device *dev = r->dev;
    const gpu_buffer *b[VKS_BINDING_OUTPUT];
    data_buffers(r, f, b);
    for (uint32_t k = 0; k < r->data_sets_per_slot; k++) {
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
            w[j] =
                (VkWriteDescriptorSet){.sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET,
                                       .dstSet = r->data_sets[f->slot * r->data_sets_per_slot + k],
                                       .dstBinding = j,
                                       .descriptorCount = 1,
                                       .descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
                                       .pBufferInfo = &info[j]};
        dev->vk.vkUpdateDescriptorSets(dev->device, n, w, 0, NULL);
    }
}

/* One set per frame slot and output chunk (one per slot without output), each written with its
 * slot's buffers. */
static bool create_data_sets(vks_renderer *r, vks_error *err)
{
    const gpu_device *dev = r->dev;
    r->data_sets_per_slot = r->chunk_count ? r->chunk_count : 1;
    const uint32_t sets = GPU_FRAMES_IN_FLIGHT * r->data_sets_per_slot;
    for (uint32_t i = 0; i < GPU_FRAMES_IN_FLIGHT; i++)
        if (!check_data_range(r, &r->frames[i], err))
            return false;
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
    for (uint32_t i = 0; i < sets; i++) {
        GPU_TRY(dev->vk.vkAllocateDescriptorSets(dev->device, &ai, &r->data_sets[i]), err,
                "allocate a data set");
        GPU_NAME(dev, VK_OBJECT_TYPE_DESCRIPTOR_SET, r->data_sets[i], "data set %u, chunk %u",
                 i / r->data_sets_per_slot, i % r->data_sets_per_slot);
    }
    for (uint32_t i = 0; i < GPU_FRAMES_IN_FLIGHT; i++)
        write_data_sets(r, &r->frames[i]);
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

/* What grows with the crowd (vks_renderer_fit remakes it): the store, each frame slot's lists,
 * the scatters and the descriptor path's sets. The instance table is the scene's. */
static bool create_instance_state(vks_renderer *r, vks_error *err)
{
    if (r->use_store && !create_store(r, err))
        return false;
    for (uint32_t i = 0; i < GPU_FRAMES_IN_FLIGHT; i++) {
        r->frames[i].instance_room = r->instance_capacity;
        r->frames[i].palette_room = r->palette_capacity;
        if (!create_frame_instances(r, &r->frames[i], err))
            return false;
    }
    return (!r->use_store || create_scatter(r, false, err)) &&
           (r->external || create_scatter(r, true, err)) && (!r->bound || create_data_sets(r, err));
}

static void destroy_instance_state(vks_renderer *r)
{
    const gpu_device *dev = r->dev;
    for (uint32_t i = 0; i < GPU_FRAMES_IN_FLIGHT; i++)
        destroy_frame_instances(r, &r->frames[i]);
    if (r->data_pool)
        dev->vk.vkDestroyDescriptorPool(dev->device, r->data_pool, NULL);
    r->data_pool = VK_NULL_HANDLE;
    vks_free(r->data_sets);
    r->data_sets = NULL;
    vks_scatter_pass_destroy(dev, &r->scatter);
    vks_scatter_pass_destroy(dev, &r->world_scatter);
    vks_palette_store_free(&r->store);
    gpu_buffer_destroy(dev, &r->palette_store);
}

/* What the memory plan is asked for: the crowd with room for n instances and p palette entries,
 * its models in the crowd's proportions (the skinned output's share grows with them). */
static vks_plan_crowd plan_shape(const vks_crowd *c, uint32_t n, uint32_t p)
{
    const vks_plan_crowd now = vks_plan_crowd_of(c);
    vks_plan_crowd shape = now;
    shape.instance_count = n;
    shape.palette_count = p;
    for (uint32_t m = 0; m < c->model_count && n > now.instance_count; m++)
        shape.model_instances[m] =
            (uint32_t)(((uint64_t)now.model_instances[m] * n + now.instance_count - 1) /
                       now.instance_count);
    return shape;
}

/* A capacity that has room for `need`: twice the old one, or `need` when that is more. */
static uint32_t grown(uint32_t old, uint32_t need, uint32_t most)
{
    const uint64_t twice = 2 * (uint64_t)old;
    const uint64_t cap = twice > need ? twice : need;
    return cap < most ? (uint32_t)cap : most > need ? most : need;
}

/* The capacities to grow to for the crowd as it is now, and the plan for them: as for a renderer
 * made afresh for that many, against the device as it was then (the instance state, the store
 * and the skinned output it would have); twice the old room, or just the crowd when twice does
 * not fit. False, saying how many fit, when not even the crowd does. */
static bool plan_growth(const vks_renderer *r, uint32_t *n_out, uint32_t *p_out,
                        vks_plan_memory *memory, vks_error *err)
{
    const vks_crowd *c = r->crowd;
    uint32_t n = grown(r->instance_capacity, c->instance_count, VKS_CROWD_MAX_INSTANCES);
    uint32_t p = grown(r->palette_capacity, c->palette_count, (1u << 31) - 1);
    vks_plan_crowd shape = plan_shape(c, n, p);
    vks_error doubled;
    if (!vks_plan_counts(&r->limits, &shape, &r->request, memory, &doubled)) {
        n = c->instance_count;
        p = c->palette_count;
        shape = plan_shape(c, n, p);
        if (!vks_plan_counts(&r->limits, &shape, &r->request, memory, err))
            return false;
    }
    *n_out = n;
    *p_out = p;
    return true;
}

/* Growing failed half-way earlier: the renderer holds no per-instance state to draw with. */
static bool still_whole(const vks_renderer *r, vks_error *err)
{
    return !r->broken || vks_fail(err, "the renderer lost its instances' buffers growing them "
                                       "earlier: make a new one");
}

/* A renderer's palette buffers were made again: the crowd knows palette buffers by address
 * (vkskin_crowd_prepare's reuse_palettes), and a new one may have an old one's. Its memory of
 * them is a cache, forgotten through the const pointer the crowd is kept by (atomic stores). */
static void forget_palettes(const vks_renderer *r)
{
    vks_crowd_forget_palettes((vks_crowd *)r->crowd);
}

bool vks_renderer_fit_slot(vks_renderer *r, uint32_t slot, vks_error *err)
{
    assert(r->external && slot < GPU_FRAMES_IN_FLIGHT);
    const vks_crowd *c = r->crowd;
    vks_frame *f = &r->frames[slot];
    if (!still_whole(r, err))
        return false;
    if (c->instance_count <= f->instance_room && c->palette_count <= f->palette_room)
        return true;
    if (c->instance_count > r->instance_capacity || c->palette_count > r->palette_capacity) {
        uint32_t n, p;
        vks_plan_memory memory;
        if (!plan_growth(r, &n, &p, &memory, err))
            return false;
        r->instance_capacity = n;
        r->palette_capacity = p;
    }
    /* The slot's earlier frames are done with its buffers (the host takes it only then): they
     * are made again now, larger; the other slot's stay as they are until it is taken. */
    destroy_frame_instances(r, f);
    f->instance_room = r->instance_capacity;
    f->palette_room = r->palette_capacity;
    if (!create_frame_instances(r, f, err) || (r->bound && !check_data_range(r, f, err))) {
        destroy_frame_instances(r, f);
        r->broken = true;
        return false;
    }
    if (r->bound)
        write_data_sets(r, f);
    forget_palettes(r);
    r->grown++;
    return true;
}

bool vks_renderer_fit(vks_renderer *r, vks_error *err)
{
    const vks_crowd *c = r->crowd;
    if (!still_whole(r, err))
        return false;
    /* The store's bookkeeping has room for every index of the crowd (its own lists). */
    if (r->use_store && !vks_palette_store_reserve(&r->store, c, err))
        return false;
    if (c->instance_count <= r->instance_capacity && c->palette_count <= r->palette_capacity)
        return true;
    assert(!r->external); /* a host's device: vks_renderer_fit_slot */
    uint32_t n, p;
    vks_plan_memory memory;
    if (!plan_growth(r, &n, &p, &memory, err))
        return false;
    const gpu_device *dev = r->dev;
    dev->vk.vkDeviceWaitIdle(dev->device); /* the frames in flight read what is remade */
    destroy_instance_state(r);
    r->readback_slot = -1; /* its frame's lists are gone */
    r->instance_capacity = n;
    r->palette_capacity = p;
    r->store_entries = memory.palette_store_entries;
    const bool more_output = memory.output_bytes > r->memory.output_bytes;
    if (more_output)
        destroy_outputs(r);
    else
        memory.output_bytes = r->memory.output_bytes; /* never less than it had */
    r->memory = memory;
    if ((more_output && !create_outputs(r, r->buffer_limit, r->readback_wanted, err)) ||
        !vks_scene_gpu_resize_instances(&r->scene, n, err) || !create_instance_state(r, err)) {
        destroy_instance_state(r);
        r->broken = true;
        return false;
    }
    forget_palettes(r);
    r->grown++;
    return true;
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
    /* Room for the crowd, or for what the desc asks when that is more. */
    r->instance_capacity =
        desc->instance_capacity > c->instance_count ? desc->instance_capacity : c->instance_count;
    r->palette_capacity =
        desc->palette_capacity > c->palette_count ? desc->palette_capacity : c->palette_count;
    const vks_plan_crowd shape = plan_shape(c, r->instance_capacity, r->palette_capacity);
    const vks_plan_limits limits = vks_renderer_plan_limits(dev, desc->memory_limit);
    if (!vks_plan_counts(&limits, &shape, &request, &r->memory, err))
        return false;
    r->buffer_limit = vks_plan_buffer_limit(&limits, desc->buffer_limit);
    r->limits = limits;
    r->request = request;
    r->readback_wanted = desc->readback;
    r->store_entries = r->memory.palette_store_entries;
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
                                        .index_addresses = desc->raster != VKS_RASTER_HARDWARE,
                                        .instance_capacity = r->instance_capacity},
                  &r->scene, err) &&
              create_outputs(r, r->buffer_limit, desc->readback, err);
    for (uint32_t i = 0; ok && i < GPU_FRAMES_IN_FLIGHT; i++) {
        r->frames[i].slot = i;
        r->frames[i].stats = UNKNOWN_STATS;
        ok = create_frame_fixed(r, &r->frames[i], err);
    }
    ok = ok && create_instance_state(r, err) && (!draws || create_descriptors(r, err)) &&
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
        gpu_buffer_destroy(dev, &f->uniform_buffer);
    }
    if (r->descriptor_pool)
        dev->vk.vkDestroyDescriptorPool(dev->device, r->descriptor_pool, NULL);
    vks_free(r->material_sets);
    destroy_instance_state(r);
    destroy_outputs(r);
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
