/* The Vulkan layer: device, memory, buffers, images, barriers and pipelines, as small helpers named
 * by intent. Vulkan 1.3 core (dynamic rendering, synchronization2), every call through the device's
 * own function table (dev->vk, vk.h). Nothing here knows
 * about models, skinning or windows. */
#ifndef VKS_GPU_H
#define VKS_GPU_H

#include "../core/error.h"

#include "vk.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

/* Palette buffers, command buffers and fences exist once per frame in flight: the CPU writes frame
 * N+1's palette while the GPU still reads frame N's. */
#define GPU_FRAMES_IN_FLIGHT 2

/* For calls a correct program can still see fail (out of memory, a lost device) in functions
 * that report errors: fails with "cannot WHAT: RESULT" and returns false. */
#define GPU_TRY(call, err, what)                                                                   \
    do {                                                                                           \
        VkResult gpu_try_result_ = (call);                                                         \
        if (gpu_try_result_ != VK_SUCCESS)                                                         \
            return vks_fail(err, "cannot %s: %s", what, gpu_result_name(gpu_try_result_));         \
    } while (0)

const char *gpu_result_name(VkResult result);

/* Where the messenger's errors (level 0) and warnings (1) go; NULL: standard error. */
typedef void (*gpu_log_fn)(void *user, int level, const char *message);

typedef struct gpu_device_desc {
    int32_t device_index; /* index in `vkskin devices`; -1 picks discrete > integrated > CPU */
    bool validate;        /* Khronos validation with synchronization validation */
    /* With validate: GPU-assisted validation too (the shaders instrumented: among its checks,
     * every access through a device address against the buffers that exist). Tests only. */
    bool gpu_assisted;
    /* Windowed: the instance extensions the window system needs, and the window's surface, made
     * by create_surface on the new instance: the device then gets VK_KHR_swapchain and a queue
     * family that can present to it. */
    const char *const *instance_extensions;
    uint32_t instance_extension_count;
    VkResult (*create_surface)(VkInstance instance, void *user, VkSurfaceKHR *surface);
    void *surface_user;
    gpu_log_fn log; /* validation's errors and warnings (NULL: standard error) */
    void *log_user;
} gpu_device_desc;

/* Validation messages by severity, counted by the debug messenger, and where it sends them. */
typedef struct gpu_messages {
    uint32_t verbose, info, warning, error;
    uint32_t sync_hazards; /* of those, synchronization validation's hazards (SYNC-HAZARD-*) */
    char last_id[64];      /* the message ID of the last error or warning ("" before any) */
    gpu_log_fn log;        /* desc.log */
    void *log_user;
} gpu_messages;

typedef struct gpu_device {
    gpu_vk vk; /* the functions of this instance and device (vk.h) */
    VkInstance instance;
    VkDebugUtilsMessengerEXT messenger; /* only with validation */
    bool debug_utils;                   /* object names available */
    bool validate;
    gpu_messages *messages; /* heap-allocated: the messenger's user data must not move */

    VkSurfaceKHR surface; /* the window's (desc.create_surface), destroyed with the instance */
    VkPhysicalDevice physical;
    VkPhysicalDeviceProperties props;
    VkPhysicalDeviceMemoryProperties memory;
    VkDevice device;
    uint32_t queue_family; /* graphics + compute (+ present when windowed) */
    VkQueue queue;
    VkCommandPool once_pool; /* for gpu_once_begin/end */
    bool timestamps;         /* the queue family writes timestamps */
    bool statistics;         /* pipeline statistics queries are enabled */
    bool memory_budget;      /* VK_EXT_memory_budget is enabled */
    /* shaderInt64 and shaderBufferInt64Atomics are enabled: the compute rasterizer can run
     * (src/raster/raster.h). */
    bool int64_atomics;
    bool adopted; /* a host's instance and device (gpu_device_adopt): not ours */
} gpu_device;

bool gpu_device_create(const gpu_device_desc *desc, gpu_device *dev, vks_error *err);
/* The physical device gpu_device_create would pick (a window's surface aside), read but not
 * opened: an instance without layers, dev->physical, props, memory and memory_budget, no device.
 * For questions asked before anything is allocated (the memory plan). gpu_device_destroy ends
 * it. */
bool gpu_device_probe(const gpu_device_desc *desc, gpu_device *dev, vks_error *err);

/* A host's own instance and device, and what it enabled on them (Vulkan cannot be asked which
 * features and extensions a device was created with). */
typedef struct gpu_host_device {
    PFN_vkGetInstanceProcAddr get_instance_proc_addr;
    VkInstance instance;
    VkPhysicalDevice physical;
    VkDevice device;
    uint32_t queue_family, queue_index; /* a queue with compute, for the uploads at creation */
    uint32_t api_version;               /* the instance's VkApplicationInfo.apiVersion */
    bool buffer_device_address, synchronization2, maintenance4; /* enabled features */
    bool debug_utils;   /* VK_EXT_debug_utils enabled on the instance: objects get names */
    bool memory_budget; /* VK_EXT_memory_budget enabled on the device */
} gpu_host_device;

/* Works on the host's device: loads the function pointers through its loader, checks what it
 * enabled, and creates a command pool for uploads on its queue family. The host keeps owning
 * the instance and device (gpu_device_destroy leaves them) and must not use the queue from
 * another thread while vkskin uploads on it. Its functions go into dev->vk, loaded through the
 * host's get_instance_proc_addr (vk.h): any number of devices live side by side. */
bool gpu_device_adopt(const gpu_host_device *host, gpu_device *dev, vks_error *err);
/* Destroys everything and returns the validation messages counted over the device's life
 * (vkDestroyInstance included). */
gpu_messages gpu_device_destroy(gpu_device *dev);

/* A physical device as gpu_list_devices sees it. */
typedef struct gpu_device_entry {
    char name[256];
    const char *type; /* "discrete GPU", "integrated GPU", "virtual GPU", "CPU" or "other" */
    uint32_t api_version, driver_version, vendor_id;
    const char *unusable; /* why vkskin cannot use it, or NULL */
} gpu_device_entry;

/* Fills entries[0 .. min(capacity, count)) in the order --device indexes them, and sets *count to
 * how many devices there are. */
bool gpu_list_devices(gpu_device_entry *entries, uint32_t capacity, uint32_t *count,
                      vks_error *err);

/* True when validation reported an error or a warning. */
bool gpu_validation_failed(const gpu_device *dev);

/* Names an object for validation messages and debuggers (printf-style). No-op without debug
 * utils. */
void gpu_name(const gpu_device *dev, VkObjectType type, uint64_t handle, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
#define GPU_NAME(dev, type, handle, ...) gpu_name(dev, type, (uint64_t)(handle), __VA_ARGS__)

/* ---- Memory ---- */

typedef enum gpu_memory {
    GPU_MEMORY_DEVICE,   /* device-local, written by transfers or shaders */
    GPU_MEMORY_UPLOAD,   /* host-visible, coherent, persistently mapped; device-local if possible */
    GPU_MEMORY_READBACK, /* host-visible, cached if possible, persistently mapped */
    GPU_MEMORY_STAGING,  /* host-visible, coherent, mapped; system memory where the device has it
                            (staging copies: the device-local BAR heap stays for frame data) */
} gpu_memory;

typedef struct gpu_buffer {
    VkBuffer buffer;
    VkDeviceMemory memory;
    VkDeviceSize size;
    void *mapped; /* UPLOAD and READBACK only */
    bool coherent;
    VkDeviceAddress address; /* when usage has VK_BUFFER_USAGE_SHADER_DEVICE_ADDRESS_BIT */
} gpu_buffer;

typedef struct gpu_buffer_desc {
    VkDeviceSize size;
    VkBufferUsageFlags usage;
    gpu_memory memory;
    const char *name;
} gpu_buffer_desc;

bool gpu_buffer_create(const gpu_device *dev, const gpu_buffer_desc *desc, gpu_buffer *buf,
                       vks_error *err);
void gpu_buffer_destroy(const gpu_device *dev, gpu_buffer *buf);
/* `count` buffers of desc->size bytes each in one allocation, buffer k at byte k * size of it (so
 * that, host-visible, buffer k's mapping is the first's plus k * size: one range the host writes
 * across). Fails with a message when size is not a multiple of the buffers' alignment, or as
 * gpu_buffer_create does. The buffers own no memory: gpu_buffers_destroy_joined frees them and
 * *memory. */
bool gpu_buffers_create_joined(const gpu_device *dev, const gpu_buffer_desc *desc, uint32_t count,
                               gpu_buffer *bufs, VkDeviceMemory *memory, vks_error *err);
void gpu_buffers_destroy_joined(const gpu_device *dev, gpu_buffer *bufs, uint32_t count,
                                VkDeviceMemory *memory);
/* Makes device writes visible to the host for non-coherent READBACK memory. */
void gpu_buffer_invalidate(const gpu_device *dev, const gpu_buffer *buf);

/* A device-local buffer filled with `data` through a staging buffer (one submit, waited on). */
bool gpu_buffer_create_filled(const gpu_device *dev, const gpu_buffer_desc *desc, const void *data,
                              gpu_buffer *buf, vks_error *err);

typedef struct gpu_image {
    VkImage image;
    VkDeviceMemory memory;
    VkImageView view;
    VkFormat format;
    VkExtent2D extent;
    uint32_t mip_levels;
    VkImageAspectFlags aspect;
} gpu_image;

typedef struct gpu_image_desc {
    uint32_t width, height;
    VkFormat format;
    VkImageUsageFlags usage;
    bool mips; /* a full mip chain */
    const char *name;
} gpu_image_desc;

bool gpu_image_create(const gpu_device *dev, const gpu_image_desc *desc, gpu_image *img,
                      vks_error *err);
void gpu_image_destroy(const gpu_device *dev, gpu_image *img);

/* Fills every mip level of a sampled image from width * height * 4 bytes (level 0; the rest is
 * made by linear blits) and leaves it in SHADER_READ_ONLY_OPTIMAL. One submit, waited on. */
bool gpu_image_upload_rgba8(const gpu_device *dev, gpu_image *img, const void *pixels,
                            vks_error *err);

/* ---- One-time submits (uploads, readbacks outside the frame loop) ---- */

bool gpu_once_begin(const gpu_device *dev, VkCommandBuffer *cmd, vks_error *err);
/* Submits, waits, frees the command buffer. */
bool gpu_once_end(const gpu_device *dev, VkCommandBuffer cmd, vks_error *err);

/* ---- Barriers (synchronization2) ---- */

typedef struct gpu_access {
    VkPipelineStageFlags2 stage;
    VkAccessFlags2 access;
} gpu_access;

void gpu_barrier_buffer(const gpu_device *dev, VkCommandBuffer cmd, VkBuffer buffer, gpu_access src,
                        gpu_access dst);
/* A global memory barrier: for buffers shaders reach through device addresses, which no buffer
 * barrier can name one by one. */
void gpu_barrier_memory(const gpu_device *dev, VkCommandBuffer cmd, gpu_access src, gpu_access dst);
void gpu_barrier_image(const gpu_device *dev, VkCommandBuffer cmd, const gpu_image *img,
                       VkImageLayout old_layout, VkImageLayout new_layout, gpu_access src,
                       gpu_access dst);
/* The same for an image this module did not create (a swapchain image). */
void gpu_barrier_image_raw(const gpu_device *dev, VkCommandBuffer cmd, VkImage image,
                           VkImageAspectFlags aspect, VkImageLayout old_layout,
                           VkImageLayout new_layout, gpu_access src, gpu_access dst);

/* ---- Pipelines ---- */

/* SPIR-V must be 4-byte aligned (the build embeds it so). These three return VK_NULL_HANDLE when
 * the device cannot create the object (out of memory). */
VkShaderModule gpu_shader_module(const gpu_device *dev, const unsigned char *spirv, size_t size,
                                 const char *name);

typedef struct gpu_compute_desc {
    const unsigned char *spirv;
    size_t spirv_size;
    VkPipelineLayout layout;
    const VkSpecializationInfo *specialization;
    const char *name;
} gpu_compute_desc;

VkPipeline gpu_pipeline_compute(const gpu_device *dev, const gpu_compute_desc *desc);

/* A graphics pipeline for dynamic rendering into one color attachment and a depth attachment:
 * no culling, one sample, viewport and scissor dynamic. What varies is given. */
typedef struct gpu_graphics_desc {
    VkShaderModule vertex, fragment;
    const VkSpecializationInfo *vertex_specialization;
    const VkPipelineVertexInputStateCreateInfo *vertex_input; /* NULL: no attributes */
    VkPrimitiveTopology topology;
    bool depth_test, depth_write;
    VkCompareOp depth_compare;
    bool blend; /* alpha blending (source alpha, one minus source alpha) */
    VkFormat color_format, depth_format;
    VkPipelineLayout layout;
} gpu_graphics_desc;

/* VK_NULL_HANDLE when the device cannot create it (out of memory); the modules stay the
 * caller's. */
VkPipeline gpu_pipeline_graphics(const gpu_device *dev, const gpu_graphics_desc *desc);

/* A pipeline layout of `set_count` set layouts and one push-constant range of push_size bytes
 * (none when 0) seen by push_stages, named; VK_NULL_HANDLE when the device cannot make it. */
VkPipelineLayout gpu_pipeline_layout(const gpu_device *dev, const VkDescriptorSetLayout *sets,
                                     uint32_t set_count, VkShaderStageFlags push_stages,
                                     uint32_t push_size, const char *name);

/* A descriptor set layout from binding types (at most 32): binding i has type types[i], seen by
 * `stages`. */
VkDescriptorSetLayout gpu_set_layout(const gpu_device *dev, const VkDescriptorType *types,
                                     uint32_t count, VkShaderStageFlags stages, const char *name);

/* A device address as the shaders take it from push constants and lists: two 32-bit words, low
 * first. */
static inline void gpu_address_words(VkDeviceAddress a, uint32_t out[2])
{
    out[0] = (uint32_t)a;
    out[1] = (uint32_t)(a >> 32);
}

/* ---- Timestamps ---- */

/* Milliseconds between two raw timestamps on this device. */
double gpu_ticks_to_ms(const gpu_device *dev, uint64_t begin, uint64_t end);

#endif
