/* vkskin on a host's Vulkan device: the skinning pass recorded into the host's command buffer,
 * each instance's skinned vertices left where the host's own draw reads them.
 *
 * Example (tests/header_examples.c compiles it):
 *   vkskin_gpu *gpu;
 *   vkskin_gpu_create(&(vkskin_gpu_desc){.desc_size = sizeof(vkskin_gpu_desc),
 *                                        .get_instance_proc_addr = get_instance_proc_addr,
 *                                        .instance = instance,
 *                                        .physical_device = physical_device,
 *                                        .device = device,
 *                                        .queue_family = queue_family,
 *                                        .api_version = VK_API_VERSION_1_3,
 *                                        .buffer_device_address = true,
 *                                        .synchronization2 = true,
 *                                        .maintenance4 = true},
 *                     crowd, &gpu, &err);
 *   for (uint32_t frame = 0; frame < frames; frame++) {
 *       uint32_t slot = frame % VKSKIN_GPU_SLOTS; // the host's fences say the slot is free
 *       VkCommandBuffer cmd = begin_frame(slot);  // the host's, recording
 *       vkskin_crowd_cull(crowd, view_proj, visible, capacity, &n, &err);
 *       vkskin_crowd_pose(crowd, visible, n, vkskin_gpu_palettes(gpu, slot), palette_capacity,
 *                         &err);
 *       vkskin_gpu_skin(gpu, slot, cmd, visible, n, NULL, &err); // records into cmd
 *       for (uint32_t k = 0; k < n; k++) {
 *           vkskin_gpu_output out;
 *           vkskin_gpu_get_output(gpu, slot, visible[k], &out, &err);
 *           draw(out.buffer, out.offset); // the host's: vkskin_gpu_get_mesh's indices, its
 *       }                                 // own pipeline and shaders
 *   }
 *
 * The host owns the instance and device; vkskin creates buffers and pipelines on them and records
 * commands, nothing else: no submit, no wait, no swapchain. Requirements of the device: Vulkan
 * 1.3 with the features bufferDeviceAddress, synchronization2 and maintenance4 enabled, and a
 * queue family with graphics and compute for the command buffers vkskin records into. Vulkan
 * cannot be asked which features a device was created with: the host says so in the desc.
 *
 * Any number of vkskin_gpu (and vkskin_renderer) objects may live at once, on one device or
 * several, from one loader or several: each loads its own table of Vulkan functions through the
 * desc's get_instance_proc_addr; the library keeps no process-wide Vulkan state.
 *
 * Threads: calls on one vkskin_gpu must not overlap; different ones may be used from different
 * threads at once (each with its own crowd, or crowds not being changed meanwhile). */
#ifndef VKSKIN_VULKAN_H
#define VKSKIN_VULKAN_H

#include "vkskin/vkskin.h"

#include <vulkan/vulkan.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct vkskin_gpu vkskin_gpu;

/* Per-frame buffers (palettes, the visible list) come in this many slots: a host with more
 * frames in flight takes slot frame % VKSKIN_GPU_SLOTS once the GPU is done with its last use. */
#define VKSKIN_GPU_SLOTS 2u

typedef struct vkskin_gpu_desc {
    uint32_t desc_size; /* sizeof(vkskin_gpu_desc): the layout the caller was built with */
    PFN_vkGetInstanceProcAddr get_instance_proc_addr; /* the host's loader's */
    VkInstance instance;
    VkPhysicalDevice physical_device;
    VkDevice device;
    /* A queue the host created on the device (queue_index below the count it asked for), of a
     * family with compute: vkskin submits its uploads there during vkskin_gpu_create only (and
     * waits for them), so the host must not use it meanwhile. */
    uint32_t queue_family, queue_index;
    uint32_t api_version; /* the host's VkApplicationInfo.apiVersion: 1.3 or later */
    /* What the host enabled on the device (all three are required). */
    bool buffer_device_address, synchronization2, maintenance4;
    bool debug_utils;   /* VK_EXT_debug_utils enabled on the instance: vkskin names its objects */
    bool memory_budget; /* VK_EXT_memory_budget enabled: output sized to what is left */
    /* Skinned output in vertices, for all visible instances of a frame together (0: chosen from
     * the device's memory). Instances past it in a frame get no output (vkskin_gpu_get_output
     * says so). */
    uint32_t max_skinned_vertices;
    /* Keep the previous frame's skinned vertices beside the current ones, for motion vectors
     * (vkskin_gpu_get_previous_output): each slot skins into its own copy of the output, twice
     * the memory. */
    bool previous_positions;
    /* AUTO and ADDRESSES: device addresses (vkskin cannot tell whether the host validates);
     * DESCRIPTORS: the buffers through descriptors, so that the host's synchronization validation
     * sees the skinning pass's accesses (vkskin_gpu_skin then also binds descriptor sets at the
     * compute bind point of the host's command buffer). */
    vkskin_binding binding;
    /* Who reads the skinned output after vkskin_gpu_skin: the synchronization2 stages and
     * accesses of the barriers it records before the pass (the previous frame's reads done) and
     * after it (the output ready). Both 0: vertex input, vertex shader and copy, with vertex
     * attribute, shader storage and transfer reads (a draw, or a copy). Others: an
     * acceleration-structure build (VK_PIPELINE_STAGE_2_ACCELERATION_STRUCTURE_BUILD_BIT_KHR,
     * VK_ACCESS_2_SHADER_READ_BIT), a compute pass (VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT,
     * VK_ACCESS_2_SHADER_STORAGE_READ_BIT), or several ORed. Give both or neither. */
    VkPipelineStageFlags2 output_stages;
    VkAccessFlags2 output_access;
    /* Room for this many instances and palette entries from the start (0, or fewer than the
     * crowd has: the crowd's at creation). A crowd that grows past them (vkskin_crowd_add,
     * vkskin_crowd_set_model) is made room for slot by slot, each when the host takes it
     * (vkskin_gpu_palettes, vkskin_gpu_skin), with no wait: room given here saves those. The
     * skinned output is made once (the slots in flight share it): max_skinned_vertices is the
     * budget a grown crowd's frames are skinned within. */
    uint32_t instance_capacity, palette_capacity;
} vkskin_gpu_desc;

/* Creates the crowd's GPU side on the host's device: its models' vertex streams and index
 * buffer (uploaded here), the instance table, the per-slot palette and visible-list buffers
 * (host-visible) and the skinned output. The crowd must outlive it. Fails with a message when the
 * device lacks what vkskin needs or the crowd does not fit in its memory. */
VKSKIN_API vkskin_result vkskin_gpu_create(const vkskin_gpu_desc *desc, const vkskin_crowd *crowd,
                                           vkskin_gpu **gpu, vkskin_error *err);
/* The GPU must be done with every command vkskin recorded (NULL is ignored). */
VKSKIN_API void vkskin_gpu_destroy(vkskin_gpu *gpu);

/* The slot's palette buffer, mapped (room for vkskin_crowd_palette_count entries of 12 floats):
 * pose into it with vkskin_crowd_pose before the slot's vkskin_gpu_skin is submitted. Take it
 * once the slot is free (its last skinning done): when the crowd grew, the slot's buffers are
 * made again, larger, and this is the new one. NULL for a bad slot, or when the crowd grew past
 * what the device holds (vkskin_gpu_skin then says why).
 * With vkskin_crowd_prepare's reuse_palettes, the crowd knows the slots' buffers by address: the
 * first prepare after a vkskin_gpu is made (another's buffers may have had those addresses)
 * passes reuse_palettes false. */
VKSKIN_API float *vkskin_gpu_palettes(vkskin_gpu *gpu, uint32_t slot);

/* Records into `cmd` (recording, of a graphics and compute queue family, outside a render pass)
 * the skinning of the
 * listed instances (ascending, distinct) at their levels of detail (`levels`, one per listed
 * instance; NULL: all at level 0; a level past a model's last is its last), reading the slot's
 * palettes. Barriers: before, against the previous use of the output by its readers
 * (vkskin_gpu_desc.output_stages: by default vertex input, vertex shader and copy); after, making
 * the output ready for them later in `cmd` or in later submissions on the same queue. The host's
 * draw (or whatever output_stages names) needs nothing more. It binds vkskin's compute pipeline and
 * sets its push constants: the host's compute binding and push constants are to be set again after
 * it. */
VKSKIN_API vkskin_result vkskin_gpu_skin(vkskin_gpu *gpu, uint32_t slot, VkCommandBuffer cmd,
                                         const uint32_t *instances, uint32_t count,
                                         const uint8_t *levels, vkskin_error *err);

/* Where an instance's skinned vertices are after the slot's last vkskin_gpu_skin (they stay
 * there until the next vkskin_gpu_skin of any slot, or of this slot with previous_positions):
 * vertex_count
 * vertices of VKSKIN_SKINNED_STRIDE bytes from `offset` in `buffer` (also at `address`):
 *   float position[3]     palette space times the instance's palette: apply its world
 *   uint32_t normal       octahedral, x in the low 16 bits and y in the high ones as snorm16
 *                         (GLSL: unpackSnorm2x16); v = (x, y, 1 - |x| - |y|);
 *                         t = max(-v.z, 0); v.xy += (v.xy >= 0 ? -t : t); normal = normalize(v)
 * The buffer can be bound as a vertex buffer (per-vertex rate, stride 16) or read through the
 * address. VKSKIN_ERROR_ARGUMENT with a message when the instance was not skinned in that slot
 * (not listed, or past max_skinned_vertices). */
#define VKSKIN_SKINNED_STRIDE 16u

typedef struct vkskin_gpu_output {
    VkBuffer buffer;
    VkDeviceSize offset;
    VkDeviceAddress address;
    uint32_t vertex_count; /* its level's vertices, every mesh of the model */
    uint32_t level;        /* the level of detail it was skinned at */
} vkskin_gpu_output;

VKSKIN_API vkskin_result vkskin_gpu_get_output(const vkskin_gpu *gpu, uint32_t slot,
                                               uint32_t instance, vkskin_gpu_output *out,
                                               vkskin_error *err);

/* desc.previous_positions: the same instance's vertices in the frame before (the other slot's
 * last vkskin_gpu_skin, when that was the frame just before this slot's), vertex for vertex with
 * the current ones: the pair gives each vertex's motion. An instance that was not skinned in the
 * frame before, or at another level of detail or as another model (other vertices:
 * vkskin_crowd_set_model), or when no frame came just before, gets its current output again:
 * zero motion. Read it in the same frame as the current
 * output; the next vkskin_gpu_skin of the other slot overwrites it (after the host's reads, by its
 * barrier). VKSKIN_ERROR_ARGUMENT as vkskin_gpu_get_output, or without previous_positions. */
VKSKIN_API vkskin_result vkskin_gpu_get_previous_output(const vkskin_gpu *gpu, uint32_t slot,
                                                        uint32_t instance, vkskin_gpu_output *out,
                                                        vkskin_error *err);

/* How to draw one mesh of a model at a level of detail from an instance's output:
 * vkCmdBindIndexBuffer(index_buffer, 0, VK_INDEX_TYPE_UINT32) and
 * vkCmdDrawIndexed(index_count, 1, first_index, vertex_offset, 0) with the output bound as the
 * vertex buffer. index_count 0: the mesh has no triangles at that level. */
typedef struct vkskin_gpu_mesh {
    VkBuffer index_buffer;
    uint32_t first_index, index_count;
    int32_t vertex_offset;
} vkskin_gpu_mesh;

VKSKIN_API vkskin_result vkskin_gpu_get_mesh(const vkskin_gpu *gpu, uint32_t model, uint32_t level,
                                             uint32_t mesh, vkskin_gpu_mesh *out,
                                             vkskin_error *err);

/* A model's texture coordinates at a level of detail, vertex for vertex with its instances'
 * skinned output at that level (vertex v of an output has UV v here): vertex_count pairs of
 * floats (8 bytes each; glTF's convention, v down) from `offset` in `buffer` (also at `address`).
 * Bind it as a second vertex buffer (per-vertex rate, stride 8) beside the output: a mesh's
 * indices and vertex_offset (vkskin_gpu_get_mesh) index both. Uploaded once; never written
 * again. The texture a mesh's material samples: vkskin_model_get_texture. A UV whose U is 4096
 * or more is flat: the material's colour texture of merged single-colour materials (see
 * vkskin_model_desc.keep_meshes), to be sampled with the repeat wrap at the triangle's first
 * corner's UV (a flat varying: the provoking vertex's), not interpolated. */
typedef struct vkskin_gpu_uvs {
    VkBuffer buffer;
    VkDeviceSize offset;
    VkDeviceAddress address;
    uint32_t vertex_count;
} vkskin_gpu_uvs;

VKSKIN_API vkskin_result vkskin_gpu_get_uvs(const vkskin_gpu *gpu, uint32_t model, uint32_t level,
                                            vkskin_gpu_uvs *out, vkskin_error *err);

#ifdef __cplusplus
}
#endif

#endif
