/* The skinner's creation and growth (skinner.h): the memory plan, the output, the store, each
 * slot's state and the descriptors binding's sets. */
#include "skinner.h"
#include "../core/alloc.h"

#include <assert.h>
#include <stdio.h>
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

vks_plan_limits vks_skinner_plan_limits(const gpu_device *dev, VkDeviceSize memory_limit)
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

/* ---- The output ---- */

/* The skinned output (compute mode), in chunks of at most chunk_limit bytes, and its readback. */
static void destroy_outputs(vks_skinner *sk)
{
    for (uint32_t k = 0; sk->chunks && k < sk->chunk_count * sk->output_sets; k++)
        gpu_buffer_destroy(sk->dev, &sk->chunks[k]);
    vks_free(sk->chunks);
    vks_free(sk->chunk_addresses);
    sk->chunks = NULL;
    sk->chunk_addresses = NULL;
    sk->chunk_count = 0;
    gpu_buffer_destroy(sk->dev, &sk->readback);
}

static bool create_outputs(vks_skinner *sk, vks_error *err)
{
    const VkDeviceSize bytes = sk->memory.output_bytes, limit = sk->buffer_limit;
    sk->chunk_limit = limit;
    sk->readback_slot = -1;
    if (sk->mode != VKS_SKIN_COMPUTE || bytes == 0)
        return true;
    sk->chunk_count = vks_plan_chunk_count(bytes, limit);
    const size_t total = (size_t)sk->chunk_count * sk->output_sets;
    if (!(sk->chunks = vks_calloc(total, sizeof *sk->chunks)) ||
        !(sk->chunk_addresses = vks_calloc(total, sizeof *sk->chunk_addresses)))
        return vks_fail_memory(err, "out of memory");
    for (uint32_t i = 0; i < total; i++) {
        const uint32_t k = i % sk->chunk_count;
        VkDeviceSize start = (VkDeviceSize)k * limit;
        char name[64];
        snprintf(name, sizeof name, "skinned vertices %u/%u (copy %u)", k + 1, sk->chunk_count,
                 i / sk->chunk_count);
        if (!gpu_buffer_create(
                sk->dev,
                &(gpu_buffer_desc){.size = bytes - start < limit ? bytes - start : limit,
                                   /* a host draws them as vertex buffers (vkskin_gpu) */
                                   .usage = ADDRESSED | VK_BUFFER_USAGE_TRANSFER_SRC_BIT |
                                            VK_BUFFER_USAGE_VERTEX_BUFFER_BIT,
                                   .name = name},
                &sk->chunks[i], err))
            return false;
        sk->chunk_addresses[i] = sk->chunks[i].address;
    }
    return !sk->readback_wanted ||
           gpu_buffer_create(sk->dev,
                             &(gpu_buffer_desc){.size = bytes,
                                                .usage = VK_BUFFER_USAGE_TRANSFER_DST_BIT,
                                                .memory = GPU_MEMORY_READBACK,
                                                .name = "skinned readback"},
                             &sk->readback, err);
}

/* ---- Each slot's state, which grows with the crowd ---- */

bool vks_slot_buffer(const gpu_device *dev, VkDeviceSize size, const char *what, uint32_t slot,
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

/* With the store: slot s's staging, a buffer of a page's size per page of the store, in one
 * mapped allocation (vks_skin_slot.staging). */
static bool create_staging(const vks_skinner *sk, vks_skin_slot *s, vks_error *err)
{
    char name[48];
    snprintf(name, sizeof name, "palette staging %u", s->slot);
    return gpu_buffers_create_joined(sk->dev,
                                     &(gpu_buffer_desc){.size = sizeof(vks_bone) * sk->page_entries,
                                                        .usage = ADDRESSED,
                                                        .memory = GPU_MEMORY_UPLOAD,
                                                        .name = name},
                                     sk->page_count, s->staging, &s->staging_memory, err);
}

/* Slot s's state for its instance_room instances and palette_room entries: its palettes (or,
 * with the store, their staging), the store's scatter records, the visible list, the host-side
 * lists; and the pass's push constants, which hold their addresses. */
static bool create_slot(vks_skinner *sk, vks_skin_slot *s, vks_error *err)
{
    const gpu_device *dev = sk->dev;
    const uint32_t n = s->instance_room, i = s->slot;
    /* The animation and the culling write straight into these mappings. Without the store the
     * shaders read the palettes here; with it, this is the frame's staging, copied into the
     * store. */
    if (!(sk->use_store ? create_staging(sk, s, err)
                        : vks_slot_buffer(dev, sizeof(vks_bone) * s->palette_room, "palettes", i,
                                          &s->palette_buffer, err)) ||
        (sk->use_store && !vks_slot_buffer(dev, sizeof(vks_scatter_record) * n, "scatter records",
                                           i, &s->scatter_records, err)) ||
        !vks_slot_buffer(dev, sizeof(vks_visible) * n, "visible list", i, &s->visible_buffer, err))
        return false;
    s->visible = vks_malloc(sizeof *s->visible * n);
    s->slot_of = vks_malloc(sizeof *s->slot_of * n);
    s->level = vks_calloc(n, sizeof *s->level);
    s->raster = vks_calloc(n, sizeof *s->raster);
    s->plan.out_offset = vks_malloc(sizeof *s->plan.out_offset * n);
    s->plan.order = vks_malloc(sizeof *s->plan.order * n);
    s->plan.order_level = vks_malloc(sizeof *s->plan.order_level * n);
    s->plan.order_model = vks_malloc(sizeof *s->plan.order_model * n);
    if (!s->visible || !s->slot_of || !s->level || !s->raster || !s->plan.out_offset ||
        !s->plan.order || !s->plan.order_level || !s->plan.order_model)
        return vks_fail_memory(err, "out of memory");
    memset(s->slot_of, 0xFF, sizeof *s->slot_of * n);
    s->palette = sk->use_store ? s->staging[0].mapped : s->palette_buffer.mapped;
    s->push = (vks_skin_push){.streams = vks_scene_gpu_streams(&sk->scene)};
    gpu_address_words(sk->scene.model_table.address, s->push.models);
    gpu_address_words(sk->scene.instances.address, s->push.instances);
    gpu_address_words(s->visible_buffer.address, s->push.visible);
    gpu_address_words(sk->use_store ? sk->pages[0].address : s->palette_buffer.address,
                      s->push.palette);
    gpu_address_words(sk->scene.morphs.address, s->push.morphs);
    return true;
}

static void destroy_slot(vks_skinner *sk, vks_skin_slot *s)
{
    const gpu_device *dev = sk->dev;
    gpu_buffer_destroy(dev, &s->palette_buffer);
    gpu_buffers_destroy_joined(dev, s->staging, VKS_PALETTE_PAGES, &s->staging_memory);
    gpu_buffer_destroy(dev, &s->scatter_records);
    gpu_buffer_destroy(dev, &s->visible_buffer);
    vks_free(s->visible);
    vks_free(s->slot_of);
    vks_free(s->level);
    vks_free(s->raster);
    vks_free(s->plan.order);
    vks_free(s->plan.order_level);
    vks_free(s->plan.order_model);
    vks_free(s->plan.out_offset);
    /* Nothing of its last frame is left to read (its lists are gone): an empty plan. */
    s->plan = (vks_frame_plan){0};
    s->visible = s->slot_of = NULL;
    s->level = s->raster = NULL;
    s->palette = NULL;
    s->visible_count = 0;
    s->number = 0;
    if (sk->readback_slot == (int32_t)s->slot)
        sk->readback_slot = -1;
}

/* ---- The descriptors binding ---- */

/* The buffers behind VKS_DATA_MODELS .. VKS_DATA_MORPHS for slot s, each bound whole. A
 * crowd without wide models has no extra streams, one without morph targets no morph buffer:
 * their bindings get the joints stream, which the shaders then never read. */
static void data_buffers(const vks_skinner *sk, const vks_skin_slot *s,
                         const gpu_buffer *out[VKS_DATA_OUTPUT])
{
    const vks_scene_gpu *sc = &sk->scene;
    out[VKS_DATA_MODELS] = &sc->model_table;
    out[VKS_DATA_INSTANCES] = &sc->instances;
    out[VKS_DATA_VISIBLE] = &s->visible_buffer;
    out[VKS_DATA_PALETTE] = sk->use_store ? &sk->pages[0] : &s->palette_buffer;
    out[VKS_DATA_POSITIONS] = &sc->positions;
    out[VKS_DATA_NORMALS] = &sc->normals;
    out[VKS_DATA_TANGENTS] = &sc->tangents;
    out[VKS_DATA_JOINTS] = &sc->joints;
    out[VKS_DATA_WEIGHTS] = &sc->weights;
    out[VKS_DATA_UVS] = &sc->uvs;
    out[VKS_DATA_JOINTS_EXTRA] = sc->joints_extra.buffer ? &sc->joints_extra : &sc->joints;
    out[VKS_DATA_WEIGHTS_EXTRA] = sc->weights_extra.buffer ? &sc->weights_extra : &sc->joints;
    out[VKS_DATA_MORPHS] = sc->morphs.buffer ? &sc->morphs : &sc->joints;
}

/* Slot s's buffers each bound whole: each must fit the device's storage-buffer range (the
 * output chunks already do: render/plan.h). */
static bool check_data_range(const vks_skinner *sk, const vks_skin_slot *s, vks_error *err)
{
    static const char *const names[VKS_DATA_OUTPUT] = {
        "model table", "instance table", "visible list", "palettes", "positions",
        "normals",     "tangents",       "joints",       "weights",  "UVs",
        "joints 5-8",  "weights 5-8",    "morph buffer"};
    const gpu_device *dev = sk->dev;
    const VkDeviceSize range = dev->props.limits.maxStorageBufferRange;
    const gpu_buffer *b[VKS_DATA_OUTPUT];
    data_buffers(sk, s, b);
    for (uint32_t k = 0; k < VKS_DATA_OUTPUT; k++)
        if (b[k]->size > range)
            return vks_fail(err,
                            "the descriptors binding (what validation runs) binds the %s whole: "
                            "%llu bytes, past %s's storage-buffer range of %llu; use fewer "
                            "instances, or the addresses binding",
                            names[k], (unsigned long long)b[k]->size, dev->props.deviceName,
                            (unsigned long long)range);
    return true;
}

/* The buffer behind palette page binding k (VKS_DATA_PALETTE_PAGE1 + k - 1): the store's page k,
 * or page 0 (the slot's palettes without the store) where there is none, never read then. */
static const gpu_buffer *page_buffer(const vks_skinner *sk, const vks_skin_slot *s, uint32_t k)
{
    if (!sk->use_store)
        return &s->palette_buffer;
    return k < sk->page_count ? &sk->pages[k] : &sk->pages[0];
}

/* Writes slot s's data sets (one per output chunk) with its buffers. Its earlier frames'
 * commands are done with them: at creation, and when the slot's buffers are made again. */
static void write_data_sets(const vks_skinner *sk, const vks_skin_slot *s)
{
    const gpu_device *dev = sk->dev;
    const gpu_buffer *b[VKS_DATA_OUTPUT];
    data_buffers(sk, s, b);
    for (uint32_t k = 0; k < sk->data_sets_per_slot; k++) {
        VkDescriptorBufferInfo info[VKS_DATA_COUNT];
        VkWriteDescriptorSet w[VKS_DATA_COUNT];
        uint32_t n = VKS_DATA_OUTPUT;
        for (uint32_t j = 0; j < VKS_DATA_OUTPUT; j++)
            info[j] = (VkDescriptorBufferInfo){b[j]->buffer, 0, VK_WHOLE_SIZE};
        if (sk->chunk_count) { /* the chunk as vertices and as tangents (vks_shared.h) */
            const gpu_buffer *chunk = &vks_skinner_chunks(sk, s)[k];
            info[n++] = (VkDescriptorBufferInfo){chunk->buffer, 0, VK_WHOLE_SIZE};
            info[n++] = (VkDescriptorBufferInfo){chunk->buffer, 0, VK_WHOLE_SIZE};
        }
        uint32_t binding[VKS_DATA_COUNT];
        for (uint32_t j = 0; j < n; j++)
            binding[j] = j;
        for (uint32_t page = 1; page < VKS_PALETTE_PAGES; page++) {
            binding[n] = VKS_DATA_PALETTE_PAGE1 + page - 1;
            info[n++] =
                (VkDescriptorBufferInfo){page_buffer(sk, s, page)->buffer, 0, VK_WHOLE_SIZE};
        }
        for (uint32_t j = 0; j < n; j++)
            w[j] = (VkWriteDescriptorSet){.sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET,
                                          .dstSet = vks_skinner_data_set(sk, s, k),
                                          .dstBinding = binding[j],
                                          .descriptorCount = 1,
                                          .descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
                                          .pBufferInfo = &info[j]};
        dev->vk.vkUpdateDescriptorSets(dev->device, n, w, 0, NULL);
    }
}

/* One set per slot and output chunk (one per slot without output), each written with its slot's
 * buffers. */
static bool create_data_sets(vks_skinner *sk, vks_error *err)
{
    const gpu_device *dev = sk->dev;
    sk->data_sets_per_slot = sk->chunk_count ? sk->chunk_count : 1;
    const uint32_t sets = GPU_FRAMES_IN_FLIGHT * sk->data_sets_per_slot;
    for (uint32_t i = 0; i < GPU_FRAMES_IN_FLIGHT; i++)
        if (!check_data_range(sk, &sk->slots[i], err))
            return false;
    VkDescriptorPoolSize size = {VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, sets * VKS_DATA_COUNT};
    VkDescriptorPoolCreateInfo pi = {VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO};
    pi.maxSets = sets;
    pi.poolSizeCount = 1;
    pi.pPoolSizes = &size;
    GPU_TRY(dev->vk.vkCreateDescriptorPool(dev->device, &pi, NULL, &sk->data_pool), err,
            "create the descriptors binding's pool");
    GPU_NAME(dev, VK_OBJECT_TYPE_DESCRIPTOR_POOL, sk->data_pool, "data set pool");
    if (!(sk->data_sets = vks_calloc(sets, sizeof *sk->data_sets)))
        return vks_fail_memory(err, "out of memory");
    VkDescriptorSetAllocateInfo ai = {VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO};
    ai.descriptorPool = sk->data_pool;
    ai.descriptorSetCount = 1;
    ai.pSetLayouts = &sk->data_layout;
    for (uint32_t i = 0; i < sets; i++) {
        GPU_TRY(dev->vk.vkAllocateDescriptorSets(dev->device, &ai, &sk->data_sets[i]), err,
                "allocate a data set");
        GPU_NAME(dev, VK_OBJECT_TYPE_DESCRIPTOR_SET, sk->data_sets[i], "data set %u, chunk %u",
                 i / sk->data_sets_per_slot, i % sk->data_sets_per_slot);
    }
    for (uint32_t i = 0; i < GPU_FRAMES_IN_FLIGHT; i++)
        write_data_sets(sk, &sk->slots[i]);
    return true;
}

/* ---- What grows with the crowd ---- */

/* The store's pages from `first` to page_count, device-local, page_entries each (page 0 also a
 * transfer's destination: its table). */
static bool create_pages(vks_skinner *sk, uint32_t first, vks_error *err)
{
    for (uint32_t p = first; p < sk->page_count; p++) {
        char name[48] = "palette store";
        if (sk->paged)
            snprintf(name, sizeof name, "palette store page %u", p);
        if (!gpu_buffer_create(
                sk->dev,
                &(gpu_buffer_desc){.size = sizeof(vks_bone) * sk->page_entries,
                                   .usage =
                                       ADDRESSED |
                                       (p == 0 && sk->paged ? VK_BUFFER_USAGE_TRANSFER_DST_BIT : 0),
                                   .memory = GPU_MEMORY_DEVICE,
                                   .name = name},
                &sk->pages[p], err))
            return false;
    }
    return true;
}

static void destroy_pages(vks_skinner *sk, uint32_t first)
{
    for (uint32_t p = first; p < VKS_PALETTE_PAGES; p++)
        gpu_buffer_destroy(sk->dev, &sk->pages[p]);
}

/* With the store: the store, device-local, of store_entries (one page; paged when it may grow
 * to more), its bookkeeping and the scatter of each slot's staging into it (after the slots).
 * Written only by the frames' scatters (nothing reads an entry before its instance's first pose
 * is scattered there). */
static bool create_store(vks_skinner *sk, vks_error *err)
{
    const uint32_t entries = sk->store_entries;
    if (!vks_palette_store_init(&sk->store, sk->crowd, entries, err))
        return false;
    sk->page_entries = entries;
    sk->page_count = 1;
    sk->paged = sk->memory.palette_store_pages > 1;
    if (sk->paged && !vks_palette_store_page(&sk->store, sk->crowd, entries, err))
        return false;
    sk->page_table_dirty = sk->paged && !sk->descriptors;
    /* Far splats' blocks as vks_skinner_set_raster said (a store made anew, as the crowd grew,
     * keeps them). */
    sk->store.splat_list_max = sk->raster != VKS_FRAME_RASTER_NONE ? sk->raster_max_entries : 0;
    return create_pages(sk, 0, err);
}

/* A scatter per page, from each slot's staging and records. */
static bool create_scatter(vks_skinner *sk, vks_error *err)
{
    gpu_buffer staging[GPU_FRAMES_IN_FLIGHT], records[GPU_FRAMES_IN_FLIGHT];
    for (uint32_t p = 0; p < sk->page_count; p++) {
        for (uint32_t i = 0; i < GPU_FRAMES_IN_FLIGHT; i++) {
            staging[i] = sk->slots[i].staging[p];
            records[i] = sk->slots[i].scatter_records;
        }
        if (!vks_scatter_pass_create(sk->dev, sk->descriptors, sizeof(vks_bone), &sk->pages[p],
                                     &sk->scene.model_table, staging, records, &sk->scatter[p],
                                     err))
            return false;
    }
    return true;
}

static void destroy_scatter(vks_skinner *sk)
{
    for (uint32_t p = 0; p < VKS_PALETTE_PAGES; p++)
        vks_scatter_pass_destroy(sk->dev, &sk->scatter[p]);
}

/* The store, every slot's state, the scatter and the data sets. */
static bool create_instance_state(vks_skinner *sk, vks_error *err)
{
    if (sk->use_store && !create_store(sk, err))
        return false;
    for (uint32_t i = 0; i < GPU_FRAMES_IN_FLIGHT; i++) {
        sk->slots[i].instance_room = sk->instance_capacity;
        sk->slots[i].palette_room = sk->palette_capacity;
        if (!create_slot(sk, &sk->slots[i], err))
            return false;
    }
    return (!sk->use_store || create_scatter(sk, err)) &&
           (!sk->descriptors || create_data_sets(sk, err));
}

static void destroy_data_sets(vks_skinner *sk)
{
    const gpu_device *dev = sk->dev;
    if (sk->data_pool)
        dev->vk.vkDestroyDescriptorPool(dev->device, sk->data_pool, NULL);
    sk->data_pool = VK_NULL_HANDLE;
    vks_free(sk->data_sets);
    sk->data_sets = NULL;
}

static void destroy_instance_state(vks_skinner *sk)
{
    for (uint32_t i = 0; i < GPU_FRAMES_IN_FLIGHT; i++)
        destroy_slot(sk, &sk->slots[i]);
    destroy_data_sets(sk);
    destroy_scatter(sk);
    vks_palette_store_free(&sk->store);
    destroy_pages(sk, 0);
    sk->page_count = 0;
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

/* The capacities to grow to for the crowd as it is now, and the plan for them: as for a skinner
 * made afresh for that many, against the device as it was then; twice the old room, or just the
 * crowd when twice does not fit. False, saying how many fit, when not even the crowd does. */
bool vks_skinner_plan_growth(const vks_skinner *sk, vks_skinner_growth *g, vks_error *err)
{
    const vks_crowd *c = sk->crowd;
    uint32_t n = grown(sk->instance_capacity, c->instance_count, VKS_CROWD_MAX_INSTANCES);
    uint32_t p = grown(sk->palette_capacity, c->palette_count, (1u << 31) - 1);
    vks_plan_crowd shape = plan_shape(c, n, p);
    vks_error doubled;
    if (!vks_plan_counts(&sk->limits, &shape, &sk->request, &g->memory, &doubled)) {
        n = c->instance_count;
        p = c->palette_count;
        shape = plan_shape(c, n, p);
        if (!vks_plan_counts(&sk->limits, &shape, &sk->request, &g->memory, err))
            return false;
    }
    g->instance_capacity = n;
    g->palette_capacity = p;
    return true;
}

/* Growing failed half-way earlier: the skinner holds no per-instance state to skin with. */
static bool still_whole(const vks_skinner *sk, vks_error *err)
{
    return !sk->broken || vks_fail(err, "the renderer lost its instances' buffers growing them "
                                        "earlier: make a new one");
}

/* The palette buffers were made again: the crowd knows palette buffers by address
 * (vkskin_crowd_prepare's reuse_palettes), and a new one may have an old one's. Its memory of
 * them is a cache, forgotten through the const pointer the crowd is kept by (atomic stores). */
static void forget_palettes(const vks_skinner *sk)
{
    vks_crowd_forget_palettes((vks_crowd *)sk->crowd);
}

bool vks_skinner_reserve(vks_skinner *sk, vks_error *err)
{
    return still_whole(sk, err) &&
           (!sk->use_store || vks_palette_store_reserve(&sk->store, sk->crowd, err));
}

bool vks_skinner_outgrown(const vks_skinner *sk)
{
    return sk->crowd->instance_count > sk->instance_capacity ||
           sk->crowd->palette_count > sk->palette_capacity;
}

bool vks_skinner_fit_slot(vks_skinner *sk, uint32_t slot, vks_error *err)
{
    assert(slot < GPU_FRAMES_IN_FLIGHT && !sk->use_store);
    const vks_crowd *c = sk->crowd;
    vks_skin_slot *s = &sk->slots[slot];
    if (!still_whole(sk, err))
        return false;
    if (c->instance_count <= s->instance_room && c->palette_count <= s->palette_room)
        return true;
    if (vks_skinner_outgrown(sk)) {
        vks_skinner_growth g;
        if (!vks_skinner_plan_growth(sk, &g, err))
            return false;
        sk->instance_capacity = g.instance_capacity;
        sk->palette_capacity = g.palette_capacity;
    }
    /* The slot's earlier frames are done with its buffers (it is taken only then): they are made
     * again now, larger; the other slot's stay as they are until it is taken. */
    destroy_slot(sk, s);
    s->instance_room = sk->instance_capacity;
    s->palette_room = sk->palette_capacity;
    if (!create_slot(sk, s, err) || (sk->descriptors && !check_data_range(sk, s, err))) {
        destroy_slot(sk, s);
        sk->broken = true;
        return false;
    }
    if (sk->descriptors)
        write_data_sets(sk, s);
    forget_palettes(sk);
    sk->grown++;
    return true;
}

bool vks_skinner_grow(vks_skinner *sk, const vks_skinner_growth *g, vks_error *err)
{
    if (!still_whole(sk, err))
        return false;
    destroy_instance_state(sk); /* (the readback's slot with it) */
    sk->instance_capacity = g->instance_capacity;
    sk->palette_capacity = g->palette_capacity;
    sk->store_entries = g->memory.palette_store_entries;
    vks_plan_memory memory = g->memory;
    const bool more_output = memory.output_bytes > sk->memory.output_bytes;
    if (more_output) {
        destroy_outputs(sk);
    } else { /* never less than it had */
        memory.device_bytes += (sk->memory.output_bytes - memory.output_bytes) * sk->output_sets;
        memory.output_bytes = sk->memory.output_bytes;
    }
    sk->memory = memory;
    if ((more_output && !create_outputs(sk, err)) ||
        !vks_scene_gpu_resize_instances(&sk->scene, sk->instance_capacity, err) ||
        !create_instance_state(sk, err)) {
        destroy_instance_state(sk);
        sk->broken = true;
        return false;
    }
    forget_palettes(sk);
    sk->grown++;
    return true;
}

VkDeviceSize vks_skinner_output_wanted(const vks_skinner *sk, const vks_skin_slot *s)
{
    const VkDeviceSize wanted = s->plan.output_wanted;
    if (!sk->request.output_on_demand || sk->request.max_skinned_vertices ||
        wanted <= sk->memory.output_bytes || sk->memory.output_bytes >= sk->memory.output_most)
        return 0;
    /* A quarter more than the frame wants, so that a camera coming closer grows it a few times,
     * not every frame. */
    const VkDeviceSize more = (wanted + wanted / 4 + 15) & ~(VkDeviceSize)15;
    return more < sk->memory.output_most ? more : sk->memory.output_most;
}

bool vks_skinner_grow_output(vks_skinner *sk, VkDeviceSize bytes, vks_error *err)
{
    if (!still_whole(sk, err))
        return false;
    assert(sk->mode == VKS_SKIN_COMPUTE && bytes > sk->memory.output_bytes);
    const VkDeviceSize had = sk->memory.output_bytes;
    destroy_data_sets(sk);
    destroy_outputs(sk);
    sk->memory.output_bytes = bytes;
    vks_error refused;
    if (create_outputs(sk, &refused)) {
        sk->memory.device_bytes += (bytes - had) * sk->output_sets;
        sk->output_grown++;
    } else {
        /* The device's allocator refused what the plan allowed: what it had, again, and no more
         * tries (the frames' overflow is skinned in the vertex shader, and reported). */
        destroy_outputs(sk);
        sk->memory.output_bytes = sk->memory.output_most = had;
        if (!create_outputs(sk, err)) {
            sk->broken = true;
            return false;
        }
    }
    if (sk->descriptors && !create_data_sets(sk, err)) {
        sk->broken = true;
        return false;
    }
    return true;
}

uint32_t vks_skinner_store_wanted(const vks_skinner *sk, const uint32_t *visible,
                                  const uint8_t *raster, uint32_t count)
{
    const uint32_t most = sk->memory.palette_store_pages;
    if (!sk->paged || sk->page_count >= most)
        return 0;
    const uint64_t wanted = vks_palette_store_wanted(&sk->store, sk->crowd, visible, raster, count);
    if (wanted <= sk->store.capacity)
        return 0;
    /* A quarter more, as the output: a crowd coming into view grows it a few times. */
    const uint64_t pages = (wanted + wanted / 4 + sk->page_entries - 1) / sk->page_entries;
    return pages < most ? (uint32_t)pages : most;
}

/* Every slot's staging for the store's capacity, the scatters over its pages and the data sets,
 * made again (the slots' lists stay: the frame being prepared keeps its own). */
static bool remake_store_state(vks_skinner *sk, vks_error *err)
{
    destroy_data_sets(sk);
    destroy_scatter(sk);
    for (uint32_t i = 0; i < GPU_FRAMES_IN_FLIGHT; i++) {
        vks_skin_slot *s = &sk->slots[i];
        gpu_buffers_destroy_joined(sk->dev, s->staging, VKS_PALETTE_PAGES, &s->staging_memory);
        s->palette = NULL;
        if (!create_staging(sk, s, err))
            return false;
        s->palette = s->staging[0].mapped;
    }
    return create_scatter(sk, err) && (!sk->descriptors || create_data_sets(sk, err));
}

bool vks_skinner_grow_store(vks_skinner *sk, uint32_t pages, vks_error *err)
{
    if (!still_whole(sk, err))
        return false;
    assert(sk->paged && pages > sk->page_count && pages <= VKS_PALETTE_PAGES);
    const uint32_t had = sk->page_count;
    const VkDeviceSize page_bytes = sizeof(vks_bone) * (VkDeviceSize)sk->page_entries;
    sk->page_count = pages;
    vks_error refused;
    bool made = create_pages(sk, had, &refused) &&
                vks_palette_store_grow(&sk->store, sk->crowd, pages * sk->page_entries, &refused);
    if (made && !remake_store_state(sk, &refused)) {
        /* The staging for the new capacity was refused: the store as it was (nothing has been
         * dealt past it yet), its state made again. */
        sk->store.capacity = had * sk->page_entries;
        sk->page_count = had;
        if (!remake_store_state(sk, err)) {
            sk->broken = true;
            return false;
        }
        made = false;
    }
    if (!made) {
        /* The device (or the host) refused what the plan allowed: the pages it had, and no more
         * tries (the frames' instances past the store are dropped, and reported). */
        destroy_pages(sk, had);
        sk->page_count = sk->memory.palette_store_pages = had;
        return true;
    }
    const VkDeviceSize more = (VkDeviceSize)(pages - had) * page_bytes;
    sk->memory.device_bytes += more;
    sk->memory.host_bytes += GPU_FRAMES_IN_FLIGHT * more;
    sk->page_table_dirty = !sk->descriptors;
    forget_palettes(sk);
    sk->store_grown++;
    return true;
}

/* ---- Creation ---- */

/* Each model's variant and the crowd's features (vks_skinner.variant), and with palette staging
 * the shared array's room: the largest of the models' poses that fits the device's shared memory
 * (vks_skin_stage_limit), which it returns (0: nothing staged). */
static uint32_t choose_variants(vks_skinner *sk, const vks_skinner_desc *desc)
{
    const vks_crowd *c = sk->crowd;
    uint32_t stage_vec4s = 0;
    const uint32_t stage_limit = vks_skin_stage_limit(sk->dev);
    for (uint32_t m = 0; desc->stage_palette && sk->mode == VKS_SKIN_COMPUTE && m < c->model_count;
         m++) {
        const uint32_t n = vks_crowd_pose_vec4s(c->models[m], c->dq[m]);
        if (n <= stage_limit && n > stage_vec4s)
            stage_vec4s = n;
    }
    sk->features = 0;
    for (uint32_t m = 0; m < c->model_count; m++) {
        const vks_model *model = c->models[m];
        const bool staged = stage_vec4s && vks_crowd_pose_vec4s(model, c->dq[m]) <= stage_vec4s;
        sk->variant[m] = (vks_model_wide(model) ? VKS_SKIN_VARIANT_WIDE : 0) |
                         (c->dq[m] ? VKS_SKIN_VARIANT_DQ : 0) |
                         (model->target_count ? VKS_SKIN_VARIANT_MORPH : 0) |
                         (staged ? VKS_SKIN_VARIANT_STAGE : 0);
        sk->features |= sk->variant[m] & ~VKS_SKIN_VARIANT_WIDE;
    }
    return stage_vec4s;
}

bool vks_skinner_create(const gpu_device *dev, const vks_skinner_desc *desc, vks_skinner *sk,
                        vks_error *err)
{
    const vks_crowd *c = desc->crowd;
    *sk = (vks_skinner){.dev = dev,
                        .crowd = c,
                        .mode = desc->request.mode,
                        .descriptors = desc->descriptors,
                        .output_stages = desc->output_stages,
                        .output_access = desc->output_access,
                        .use_store = desc->request.palette_store,
                        .output_sets = desc->request.output_sets ? desc->request.output_sets : 1,
                        .readback_slot = -1,
                        .request = desc->request,
                        .readback_wanted = desc->readback};
    assert(c->instance_count > 0 && c->model_count > 0);
    assert(sk->mode != VKS_SKIN_COMPUTE || (desc->output_stages && desc->output_access));
    /* Room for the crowd, or for what the desc asks when that is more. */
    sk->instance_capacity =
        desc->instance_capacity > c->instance_count ? desc->instance_capacity : c->instance_count;
    sk->palette_capacity =
        desc->palette_capacity > c->palette_count ? desc->palette_capacity : c->palette_count;
    const vks_plan_crowd shape = plan_shape(c, sk->instance_capacity, sk->palette_capacity);
    sk->limits = vks_skinner_plan_limits(dev, desc->memory_limit);
    if (!vks_plan_counts(&sk->limits, &shape, &sk->request, &sk->memory, err))
        return false;
    sk->buffer_limit = vks_plan_buffer_limit(&sk->limits, desc->request.buffer_limit);
    sk->store_entries = sk->memory.palette_store_entries;
    const VkPhysicalDeviceLimits *lim = &dev->props.limits;
    if (sk->descriptors && (lim->maxPerStageDescriptorStorageBuffers < VKS_DATA_COUNT ||
                            lim->maxDescriptorSetStorageBuffers < VKS_DATA_COUNT))
        return vks_fail(
            err,
            "the descriptors binding (what validation runs) binds %u storage buffers to "
            "each stage; %s allows %u: ask for the addresses binding (--binding addresses)",
            VKS_DATA_COUNT, dev->props.deviceName,
            lim->maxPerStageDescriptorStorageBuffers < lim->maxDescriptorSetStorageBuffers
                ? lim->maxPerStageDescriptorStorageBuffers
                : lim->maxDescriptorSetStorageBuffers);
    if (sk->descriptors) {
        VkDescriptorType types[VKS_DATA_COUNT];
        for (uint32_t k = 0; k < VKS_DATA_COUNT; k++)
            types[k] = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
        /* The client's draws (vertex) and a compute rasterizer's resolve (fragment) bind them
         * too. */
        sk->data_layout = gpu_set_layout(dev, types, VKS_DATA_COUNT,
                                         VK_SHADER_STAGE_COMPUTE_BIT | VK_SHADER_STAGE_VERTEX_BIT |
                                             VK_SHADER_STAGE_FRAGMENT_BIT,
                                         "data set layout");
        if (!sk->data_layout) {
            vks_skinner_destroy(sk);
            return vks_fail(err, "cannot create the descriptors binding's set layout");
        }
    }
    vks_scene_gpu_desc scene = desc->scene;
    scene.instance_capacity = sk->instance_capacity;
    for (uint32_t i = 0; i < GPU_FRAMES_IN_FLIGHT; i++)
        sk->slots[i].slot = i;
    const uint32_t stage_vec4s = choose_variants(sk, desc);
    if (!(sk->mode == VKS_SKIN_VERTEX ||
          vks_skin_pass_create(dev, desc->group_size, sk->features, stage_vec4s, sk->data_layout,
                               &sk->pass, err)) ||
        !vks_scene_gpu_create(dev, c, &scene, &sk->scene, err) || !create_outputs(sk, err) ||
        !create_instance_state(sk, err)) {
        vks_skinner_destroy(sk);
        return false;
    }
    return true;
}

void vks_skinner_destroy(vks_skinner *sk)
{
    const gpu_device *dev = sk->dev;
    if (!dev)
        return;
    destroy_instance_state(sk);
    destroy_outputs(sk);
    vks_scene_gpu_destroy(&sk->scene);
    vks_skin_pass_destroy(dev, &sk->pass);
    if (sk->data_layout)
        dev->vk.vkDestroyDescriptorSetLayout(dev->device, sk->data_layout, NULL);
    *sk = (vks_skinner){0};
}

void vks_skinner_set_raster(vks_skinner *sk, vks_frame_raster raster, uint32_t max_entries)
{
    sk->raster = raster;
    sk->raster_max_entries = max_entries;
    /* Far splats' blocks for the lists the frame plan draws splats from (the ids name them). */
    sk->store.splat_list_max = raster != VKS_FRAME_RASTER_NONE ? max_entries : 0;
}
