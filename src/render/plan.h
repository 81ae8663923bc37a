/* The renderer's memory plan: pure arithmetic on a crowd and a few device limits, no Vulkan call.
 * What one instance's skinned output takes, what the whole crowd needs of each heap, how many
 * instances fit when it does not, the largest buffer to create, and how the skinned output is
 * dealt into chunks no larger than that:
 *
 *   vks_plan_limits lim = ...;                          what the device reports (renderer.c)
 *   vks_plan_check_memory(&lim, crowd, mode, palettes_on_device, err);
 *   vks_plan_chunks(crowd, vks_plan_buffer_limit(&lim, wanted), &chunks, err);
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
    VkDeviceSize device_heap; /* the largest device-local heap (the first heap when none is) */
    VkDeviceSize host_heap;   /* the heap host-visible memory falls back to; 0 when it lives in
                                 device_heap too (CPU devices) */
    const char *name;         /* the device's, for messages */
} vks_plan_limits;

/* Bytes of one instance's skinned output: its vertices, then its tangents (when the model has
 * them) at vks_plan_tangent_offset, which is 16-byte aligned. */
VkDeviceSize vks_plan_tangent_offset(const vks_model *model);
VkDeviceSize vks_plan_output_bytes(const vks_model *model);

/* Bytes of device-local and of host-visible memory the crowd needs in `mode` (estimates: a
 * texture's mip chain counts a third more), and per instance: the output and instance table
 * (device), the palettes and visible lists of every frame in flight (host). palettes_on_device
 * adds each frame's device-local copy of the palettes. */
typedef struct vks_plan_footprint {
    VkDeviceSize device_bytes, host_bytes;
    VkDeviceSize per_instance_device, per_instance_host;
} vks_plan_footprint;
vks_plan_footprint vks_plan_footprint_of(const vks_crowd *crowd, vks_skin_mode mode,
                                         bool palettes_on_device);

/* The largest buffer to create: the smallest of the device's three limits, or `wanted` when it
 * is smaller (0: no wish), rounded down to a multiple of 16. */
VkDeviceSize vks_plan_buffer_limit(const vks_plan_limits *limits, VkDeviceSize wanted);

/* Fails with how many instances fit when the crowd's buffers exceed the heaps, or one of the
 * buffers that are not split (a frame's palettes, the instance table) the largest buffer, or its
 * palette indices reach 2^31 (the shaders' array indices are signed). */
bool vks_plan_check_memory(const vks_plan_limits *limits, const vks_crowd *crowd,
                           vks_skin_mode mode, bool palettes_on_device, vks_error *err);

/* The skinned output dealt into chunks, in instance order. The caller provides the arrays, each
 * of crowd->instance_count entries. */
typedef struct vks_plan_chunking {
    uint32_t *chunk;           /* per instance: its chunk */
    VkDeviceSize *offset;      /* per instance: its output's offset in the concatenated chunks */
    VkDeviceSize *chunk_start; /* per chunk: its first offset in the concatenation */
    uint32_t chunk_count;
    VkDeviceSize total; /* bytes of every instance's output; chunk k ends where k + 1 starts */
} vks_plan_chunking;

/* Fills `out` so that no chunk is larger than `limit` and no instance straddles two chunks;
 * fails with a message naming the model when one instance's output is larger than `limit`. */
bool vks_plan_chunks(const vks_crowd *crowd, VkDeviceSize limit, vks_plan_chunking *out,
                     vks_error *err);

#endif
