/* The renderer's memory plan: pure arithmetic on a crowd and a few device limits, no Vulkan call.
 * What one instance's skinned output takes, how much skinned output a crowd gets (its budget),
 * what the whole crowd needs of each heap, how many instances fit when it does not, the largest
 * buffer to create, and, each frame, where each visible instance's output goes:
 *
 *   vks_plan_limits lim = ...;                          what the device reports (skinner.c)
 *   vks_plan_memory mem;
 *   vks_plan_memory_of(&lim, crowd, &request, &mem, err);   once, at creation
 *   skinned = vks_plan_frame(crowd, visible, count, mem.output_bytes, limit, offsets);
 *                                                       each frame
 *
 * The skinned output is not owned by instances: each frame deals it to the visible instances by
 * a prefix sum over their output sizes, so it is bounded by a budget, not by the crowd; with
 * request.output_on_demand the budget starts at one instance's and the renderer grows it to what
 * the frames want (vks_frame_plan's output_wanted), up to output_most. The
 * per-instance state that remains is the instance table (device-local) and each frame in
 * flight's palettes and visible list (host-visible), all sized for the whole crowd.
 *
 * tests/test_plan.c checks it without a device. */
#ifndef VKS_PLAN_H
#define VKS_PLAN_H

#include "../scene/crowd.h"
#include "../skin/skin_gpu.h" /* vks_skin_mode, GPU_FRAMES_IN_FLIGHT */

/* The device's limits and heaps, as the planner reads them. */
typedef struct vks_plan_limits {
    VkDeviceSize max_memory_allocation;    /* VkPhysicalDeviceMaintenance3Properties */
    VkDeviceSize max_buffer;               /* VkPhysicalDeviceMaintenance4Properties */
    VkDeviceSize max_storage_buffer_range; /* VkPhysicalDeviceLimits */
    /* The largest device-local heap (the first heap when none is), or what VK_EXT_memory_budget
     * says this process may use of it, or a cap the user set (--max-memory): the smallest. */
    VkDeviceSize device_heap;
    VkDeviceSize host_heap; /* the heap host-visible memory falls back to (likewise capped); 0
                               when it lives in device_heap too (CPU devices) */
    const char *name;       /* the device's, for messages */
} vks_plan_limits;

/* Bytes of one instance's skinned output: its vertices, then its tangents (when the model has
 * them) at vks_plan_tangent_offset, which is 16-byte aligned, as is the total. */
VkDeviceSize vks_plan_tangent_offset(const vks_model *model);
VkDeviceSize vks_plan_output_bytes(const vks_model *model);
/* The same at a level of detail (asset/model.h): its vertices only; level 0 is the above. */
VkDeviceSize vks_plan_level_output_bytes(const vks_model *model, uint32_t level);
/* Bytes of one vertex's bind streams in the GPU's buffers (the compact streams, UV included). */
VkDeviceSize vks_plan_bind_bytes(const vks_model *model);
/* Bytes of skinned output the budget counts per vertex: a skinned vertex, plus a tangent when a
 * model of the crowd has tangents. */
VkDeviceSize vks_plan_vertex_bytes(const vks_crowd *crowd);

/* A headless image: its size, its color and depth images' bytes (device-local) and its readback
 * buffers' (host-visible); target/offscreen.h says what they are. */
typedef struct vks_plan_image {
    uint32_t width, height;
    VkDeviceSize device_bytes, host_bytes;
    bool visibility; /* device_bytes count the compute rasterizer's visibility buffers too */
} vks_plan_image;

typedef struct vks_plan_request {
    vks_skin_mode mode;
    /* The palettes in a device-local store the shaders read in place (palette_store.h), each
     * frame staging the posed ones in host memory: a store of every instance's palette, or of
     * what the largest buffer (buffer_limit included) holds when that is less, and a staging buffer
     * of its size per frame in flight. Else each frame in flight has every instance's palette in
     * host memory. */
    bool palette_store;
    /* The instance table follows instances placed anew (the renderer's draw): each frame in flight
     * has an instance-table entry and a scatter record per instance in host memory. */
    bool instance_updates;
    /* Skinned-output capacity in vertices of vks_plan_vertex_bytes; 0: chosen from the heaps. */
    uint32_t max_skinned_vertices;
    /* The output made small and grown to what frames draw (the owned renderer: it waits for the
     * device to grow it): output_bytes starts at one largest instance's, output_most is what it
     * may grow to. Not with max_skinned_vertices, which fixes it. A capped palette store grows
     * likewise, by pages (palette_store_pages). */
    bool output_on_demand;
    VkDeviceSize buffer_limit; /* the largest buffer wished for (vks_plan_buffer_limit) */
    /* Copies of the skinned output (0 means 1): 2 keeps the previous frame's beside the current
     * one's (motion vectors). output_bytes is per copy; the budget's share is split among them. */
    uint32_t output_sets;
    vks_plan_image image; /* the headless target, zeros for a window (the driver's swapchain) */
    /* The compute rasterizer's materials buffer: its table and a copy of every texture's levels
     * (raster/raster.h), counted with the models. */
    bool raster_materials;
} vks_plan_request;

typedef struct vks_plan_memory {
    VkDeviceSize model_bytes; /* the models' bind streams, indices and textures (device) */
    /* Per instance: its instance-table entry (and its entries of the palette store, when the
     * store holds every instance's); its palettes (staged, with the store), visible-list entry
     * and, with the store, scatter record, every frame in flight. */
    VkDeviceSize per_instance_device;
    VkDeviceSize per_instance_host;
    /* request.palette_store: the store's entries (a multiple of 16 bytes' worth is not needed:
     * 48 bytes each); its bytes and its staging's are in the totals, and in per_instance_* only
     * when it holds every instance's palette (not capped). */
    uint32_t palette_store_entries;
    bool palette_store_capped;
    /* The most pages (buffers of palette_store_entries each) the store may grow to: 1, or with
     * request.output_on_demand and a capped store up to VKS_PALETTE_PAGES, as many as half of the
     * memory the output leaves holds, each page's staging included (0 without the store). */
    uint32_t palette_store_pages;
    /* The skinned output's capacity (0 in vertex mode): request.max_skinned_vertices vertices
     * (rounded up to 16 bytes), or else room for every instance's output at once (with what the
     * chunks' ends may waste) when that fits in half of the device-local memory left after
     * everything above, else that half (at least one largest instance's output). A multiple of
     * 16. With request.output_on_demand that is output_most, and output_bytes starts at one
     * largest instance's output. */
    VkDeviceSize output_bytes, output_most;
    VkDeviceSize device_bytes, host_bytes; /* totals, every copy of the output and the image
                                              included */
} vks_plan_memory;

/* What the plan needs of a crowd: its models, how many instances each has, and their palette
 * entries. Of a crowd made (its instances counted), or of one about to be made from counts alone,
 * its spots dealt to the models in turn as vks_crowd_create deals them. */
typedef struct vks_plan_crowd {
    const vks_model *const *models;
    uint32_t model_count, instance_count;
    uint32_t model_instances[VKS_CROWD_MAX_MODELS];
    uint64_t palette_count;
} vks_plan_crowd;
vks_plan_crowd vks_plan_crowd_of(const vks_crowd *crowd);
vks_plan_crowd vks_plan_crowd_dealt(const vks_model *const *models, uint32_t model_count,
                                    uint32_t instance_count);

/* The largest buffer to create: the smallest of the device's three limits, or `wanted` when it
 * is smaller (0: no wish), rounded down to a multiple of 16. */
VkDeviceSize vks_plan_buffer_limit(const vks_plan_limits *limits, VkDeviceSize wanted);

/* Plans the crowd's memory. Fails with how many instances fit when it exceeds the heaps, or one
 * of the buffers that are not split (a frame's palettes without the store, a visible list, the
 * instance table) the largest buffer, or its palette indices reach 2^28 (their top bits name the
 * store's page: shaders/vks_shared.h); and, naming the model, when one instance's output is larger
 * than the largest buffer.
 */
bool vks_plan_memory_of(const vks_plan_limits *limits, const vks_crowd *crowd,
                        const vks_plan_request *request, vks_plan_memory *out, vks_error *err);
/* The same on counts (vks_plan_crowd_dealt): before the crowd, or anything that grows with it, is
 * allocated. Also fails when the image alone does not fit. */
bool vks_plan_counts(const vks_plan_limits *limits, const vks_plan_crowd *crowd,
                     const vks_plan_request *request, vks_plan_memory *out, vks_error *err);

/* The skinned output is split into chunks of `limit` bytes (the last one smaller): how many. */
uint32_t vks_plan_chunk_count(VkDeviceSize output_bytes, VkDeviceSize limit);

/* One frame: deals output space to visible[0 .. count) in order, each instance at its level
 * levels[s] (NULL: level 0) and whole within one chunk (an instance that does not fit in what is
 * left of a chunk starts the next one), until one does not fit in what is left of the output.
 * Returns how many got space, a prefix of the list (the rest are skinned in the vertex shader);
 * offset[s] is slot s's byte offset in the concatenated chunks (chunk offset / limit). */
uint32_t vks_plan_frame(const vks_crowd *crowd, const uint32_t *visible, const uint8_t *levels,
                        uint32_t count, VkDeviceSize output_bytes, VkDeviceSize limit,
                        VkDeviceSize *offset);

#endif
