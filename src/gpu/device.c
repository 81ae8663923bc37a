/* Instance, validation messenger, physical-device choice and the logical device. */
#include "gpu.h"
#include "../core/alloc.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#define VALIDATION_LAYER "VK_LAYER_KHRONOS_validation"
#define REQUIRED_API VK_API_VERSION_1_3

const char *gpu_result_name(VkResult result)
{
    switch (result) {
#define R(x)                                                                                       \
    case x:                                                                                        \
        return #x;
        R(VK_SUCCESS)
        R(VK_NOT_READY)
        R(VK_TIMEOUT)
        R(VK_INCOMPLETE)
        R(VK_SUBOPTIMAL_KHR)
        R(VK_ERROR_OUT_OF_HOST_MEMORY)
        R(VK_ERROR_OUT_OF_DEVICE_MEMORY)
        R(VK_ERROR_INITIALIZATION_FAILED)
        R(VK_ERROR_DEVICE_LOST)
        R(VK_ERROR_MEMORY_MAP_FAILED)
        R(VK_ERROR_LAYER_NOT_PRESENT)
        R(VK_ERROR_EXTENSION_NOT_PRESENT)
        R(VK_ERROR_FEATURE_NOT_PRESENT)
        R(VK_ERROR_INCOMPATIBLE_DRIVER)
        R(VK_ERROR_TOO_MANY_OBJECTS)
        R(VK_ERROR_FORMAT_NOT_SUPPORTED)
        R(VK_ERROR_SURFACE_LOST_KHR)
        R(VK_ERROR_NATIVE_WINDOW_IN_USE_KHR)
        R(VK_ERROR_OUT_OF_DATE_KHR)
        R(VK_ERROR_OUT_OF_POOL_MEMORY)
        R(VK_ERROR_UNKNOWN)
#undef R
    default:
        return "VkResult (unnamed)";
    }
}

static VKAPI_ATTR VkBool32 VKAPI_CALL on_message(VkDebugUtilsMessageSeverityFlagBitsEXT severity,
                                                 VkDebugUtilsMessageTypeFlagsEXT type,
                                                 const VkDebugUtilsMessengerCallbackDataEXT *data,
                                                 void *user)
{
    (void)type;
    gpu_messages *count = user;
    const char *label = NULL;
    if (severity & VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT) {
        count->error++;
        label = "error";
    } else if (severity & VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT) {
        count->warning++;
        label = "warning";
    } else if (severity & VK_DEBUG_UTILS_MESSAGE_SEVERITY_INFO_BIT_EXT) {
        count->info++;
    } else {
        count->verbose++;
    }
    if (data->pMessageIdName && strncmp(data->pMessageIdName, "SYNC-HAZARD-", 12) == 0)
        count->sync_hazards++;
    if (label)
        snprintf(count->last_id, sizeof count->last_id, "%s",
                 data->pMessageIdName ? data->pMessageIdName : "");
    if (label && count->log)
        count->log(count->log_user,
                   severity & VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT ? 0 : 1,
                   data->pMessage);
    else if (label)
        fprintf(stderr, "vkskin: validation %s: %s\n", label, data->pMessage);
    return VK_FALSE; /* never abort the call: the run fails at its end, with every message */
}

static bool has_layer(const gpu_vk *vk, const char *name)
{
    uint32_t n = 0;
    vk->vkEnumerateInstanceLayerProperties(&n, NULL);
    VkLayerProperties *layers = vks_malloc(sizeof *layers * (n ? n : 1));
    bool found = false;
    if (layers && vk->vkEnumerateInstanceLayerProperties(&n, layers) >= 0)
        for (uint32_t i = 0; i < n && !found; i++)
            found = strcmp(layers[i].layerName, name) == 0;
    vks_free(layers);
    return found;
}

/* Whether the instance (pd null) or the physical device offers extension `name`. */
static bool has_extension(const gpu_vk *vk, VkPhysicalDevice pd, const char *name)
{
    uint32_t n = 0;
    if (pd)
        vk->vkEnumerateDeviceExtensionProperties(pd, NULL, &n, NULL);
    else
        vk->vkEnumerateInstanceExtensionProperties(NULL, &n, NULL);
    VkExtensionProperties *ext = vks_malloc(sizeof *ext * (n ? n : 1));
    bool found = false;
    VkResult r = VK_ERROR_OUT_OF_HOST_MEMORY;
    if (ext)
        r = pd ? vk->vkEnumerateDeviceExtensionProperties(pd, NULL, &n, ext)
               : vk->vkEnumerateInstanceExtensionProperties(NULL, &n, ext);
    for (uint32_t i = 0; r >= 0 && i < n && !found; i++)
        found = strcmp(ext[i].extensionName, name) == 0;
    vks_free(ext);
    return found;
}

static bool create_instance(const gpu_device_desc *desc, gpu_device *dev, vks_error *err)
{
    if (!gpu_vk_load_global(&dev->vk, gpu_vk_loader()))
        return vks_fail(err, "cannot load the Vulkan loader (libvulkan.so.1): install libvulkan1 "
                             "and a driver (mesa-vulkan-drivers has a CPU one)");
    /* vkEnumerateInstanceVersion is 1.1's: a 1.0 loader lacks it. */
    PFN_vkEnumerateInstanceVersion version =
        (PFN_vkEnumerateInstanceVersion)dev->vk.vkGetInstanceProcAddr(VK_NULL_HANDLE,
                                                                      "vkEnumerateInstanceVersion");
    uint32_t api = VK_API_VERSION_1_0;
    if (version && version(&api) != VK_SUCCESS)
        api = VK_API_VERSION_1_0;
    if (api < REQUIRED_API)
        return vks_fail(err, "the Vulkan loader supports %u.%u; vkskin needs 1.3",
                        VK_API_VERSION_MAJOR(api), VK_API_VERSION_MINOR(api));

    const char *extensions[16];
    uint32_t ext_count = 0;
    for (uint32_t i = 0; i < desc->instance_extension_count && ext_count < 15; i++)
        extensions[ext_count++] = desc->instance_extensions[i];
    dev->debug_utils = has_extension(&dev->vk, VK_NULL_HANDLE, VK_EXT_DEBUG_UTILS_EXTENSION_NAME);
    if (dev->debug_utils)
        extensions[ext_count++] = VK_EXT_DEBUG_UTILS_EXTENSION_NAME;

    const char *layers[1] = {VALIDATION_LAYER};
    if (desc->validate) {
        if (!has_layer(&dev->vk, VALIDATION_LAYER))
            return vks_fail(err,
                            "validation was asked for but %s is not installed "
                            "(Debian: vulkan-validationlayers)",
                            VALIDATION_LAYER);
        if (!dev->debug_utils)
            return vks_fail(err, "validation needs %s, which this Vulkan loader lacks",
                            VK_EXT_DEBUG_UTILS_EXTENSION_NAME);
    }
    dev->validate = desc->validate;

    VkDebugUtilsMessengerCreateInfoEXT messenger = {
        VK_STRUCTURE_TYPE_DEBUG_UTILS_MESSENGER_CREATE_INFO_EXT};
    messenger.messageSeverity = VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT |
                                VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT |
                                VK_DEBUG_UTILS_MESSAGE_SEVERITY_INFO_BIT_EXT;
    messenger.messageType = VK_DEBUG_UTILS_MESSAGE_TYPE_GENERAL_BIT_EXT |
                            VK_DEBUG_UTILS_MESSAGE_TYPE_VALIDATION_BIT_EXT |
                            VK_DEBUG_UTILS_MESSAGE_TYPE_PERFORMANCE_BIT_EXT;
    messenger.pfnUserCallback = on_message;
    messenger.pUserData = dev->messages;

    VkValidationFeatureEnableEXT enables[] = {
        VK_VALIDATION_FEATURE_ENABLE_SYNCHRONIZATION_VALIDATION_EXT,
        VK_VALIDATION_FEATURE_ENABLE_GPU_ASSISTED_EXT};
    VkValidationFeaturesEXT features = {VK_STRUCTURE_TYPE_VALIDATION_FEATURES_EXT};
    features.enabledValidationFeatureCount = desc->gpu_assisted ? 2 : 1;
    features.pEnabledValidationFeatures = enables;
    features.pNext = &messenger;

    VkApplicationInfo app = {VK_STRUCTURE_TYPE_APPLICATION_INFO};
    app.pApplicationName = "vkskin";
    app.pEngineName = "vkskin";
    app.apiVersion = REQUIRED_API;
    VkInstanceCreateInfo info = {VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO};
    info.pApplicationInfo = &app;
    info.enabledExtensionCount = ext_count;
    info.ppEnabledExtensionNames = extensions;
    if (desc->validate) {
        info.enabledLayerCount = 1;
        info.ppEnabledLayerNames = layers;
        info.pNext = &features; /* also reports on vkCreateInstance / vkDestroyInstance */
    }
    VkResult r = dev->vk.vkCreateInstance(&info, NULL, &dev->instance);
    if (r == VK_ERROR_INCOMPATIBLE_DRIVER) /* what the loader says when it finds no driver */
        return vks_fail(
            err, "no Vulkan 1.3 driver was found (VK_ERROR_INCOMPATIBLE_DRIVER): install "
                 "one, on Debian mesa-vulkan-drivers for a CPU driver, or your GPU vendor's");
    if (r != VK_SUCCESS)
        return vks_fail(err, "cannot create a Vulkan 1.3 instance: %s", gpu_result_name(r));
    if (!gpu_vk_load_instance(&dev->vk, dev->instance))
        return vks_fail(err, "the Vulkan loader lacks an instance function of Vulkan 1.3");
    if (desc->validate)
        GPU_TRY(dev->vk.vkCreateDebugUtilsMessengerEXT(dev->instance, &messenger, NULL,
                                                       &dev->messenger),
                err, "create the validation messenger");
    return true;
}

/* Why `pd` cannot serve (NULL when it can); sets *family. */
static const char *unsuitable(const gpu_device *dev, VkSurfaceKHR surface, VkPhysicalDevice pd,
                              uint32_t *family)
{
    VkPhysicalDeviceProperties props;
    dev->vk.vkGetPhysicalDeviceProperties(pd, &props);
    if (props.apiVersion < REQUIRED_API)
        return "it supports Vulkan below 1.3";
    VkPhysicalDeviceVulkan13Features f13 = {VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_3_FEATURES};
    VkPhysicalDeviceVulkan12Features f12 = {VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES,
                                            &f13};
    VkPhysicalDeviceFeatures2 f = {VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2, &f12};
    dev->vk.vkGetPhysicalDeviceFeatures2(pd, &f);
    if (!f13.dynamicRendering || !f13.synchronization2 || !f13.maintenance4)
        return "it lacks dynamic rendering, synchronization2 or maintenance4";
    if (!f12.bufferDeviceAddress) /* required of 1.3 devices, but say so if one lies */
        return "it lacks buffer device addresses";
    if (surface && !has_extension(&dev->vk, pd, VK_KHR_SWAPCHAIN_EXTENSION_NAME))
        return "it has no swapchain extension";
    uint32_t n = 0;
    dev->vk.vkGetPhysicalDeviceQueueFamilyProperties(pd, &n, NULL);
    VkQueueFamilyProperties *q = vks_malloc(sizeof *q * (n ? n : 1));
    if (!q)
        return "out of memory";
    dev->vk.vkGetPhysicalDeviceQueueFamilyProperties(pd, &n, q);
    const VkQueueFlags need = VK_QUEUE_GRAPHICS_BIT | VK_QUEUE_COMPUTE_BIT;
    const char *why = "no queue family does both graphics and compute";
    for (uint32_t i = 0; i < n; i++) {
        if ((q[i].queueFlags & need) != need)
            continue;
        VkBool32 present = VK_FALSE;
        if (surface &&
            (dev->vk.vkGetPhysicalDeviceSurfaceSupportKHR(pd, i, surface, &present) != VK_SUCCESS ||
             !present)) {
            why = "no graphics and compute queue family can present to the window";
            continue;
        }
        *family = i;
        why = NULL;
        break;
    }
    vks_free(q);
    return why;
}

static int type_rank(VkPhysicalDeviceType type)
{
    switch (type) {
    case VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU:
        return 4;
    case VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU:
        return 3;
    case VK_PHYSICAL_DEVICE_TYPE_VIRTUAL_GPU:
        return 2;
    case VK_PHYSICAL_DEVICE_TYPE_CPU:
        return 1;
    default:
        return 0;
    }
}

static const char *type_name(VkPhysicalDeviceType type)
{
    switch (type) {
    case VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU:
        return "discrete GPU";
    case VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU:
        return "integrated GPU";
    case VK_PHYSICAL_DEVICE_TYPE_VIRTUAL_GPU:
        return "virtual GPU";
    case VK_PHYSICAL_DEVICE_TYPE_CPU:
        return "CPU";
    default:
        return "other";
    }
}

static bool enumerate(const gpu_device *dev, VkPhysicalDevice **out, uint32_t *count,
                      vks_error *err)
{
    uint32_t n = 0;
    VkResult r = dev->vk.vkEnumeratePhysicalDevices(dev->instance, &n, NULL);
    if (r < 0)
        return vks_fail(err, "cannot list Vulkan devices: %s", gpu_result_name(r));
    if (n == 0)
        return vks_fail(err, "no Vulkan device found (install a driver; mesa-vulkan-drivers has "
                             "a CPU one)");
    *out = vks_malloc(sizeof **out * n);
    if (!*out)
        return vks_fail_memory(err, "out of memory");
    r = dev->vk.vkEnumeratePhysicalDevices(dev->instance, &n, *out);
    if (r < 0) {
        vks_free(*out);
        return vks_fail(err, "cannot list Vulkan devices: %s", gpu_result_name(r));
    }
    *count = n;
    return true;
}

static bool pick_device(const gpu_device_desc *desc, gpu_device *dev, vks_error *err)
{
    VkPhysicalDevice *pds;
    uint32_t n;
    if (!enumerate(dev, &pds, &n, err))
        return false;
    bool ok = true;
    if (desc->device_index >= 0) {
        if ((uint32_t)desc->device_index >= n) {
            ok = vks_fail(err, "there is no device %d (there are %u: see vkskin devices)",
                          desc->device_index, n);
        } else {
            const char *why =
                unsuitable(dev, dev->surface, pds[desc->device_index], &dev->queue_family);
            if (why) {
                VkPhysicalDeviceProperties p;
                dev->vk.vkGetPhysicalDeviceProperties(pds[desc->device_index], &p);
                ok = vks_fail(err, "device %d (%s) cannot serve: %s", desc->device_index,
                              p.deviceName, why);
            } else {
                dev->physical = pds[desc->device_index];
            }
        }
    } else {
        int best = -1;
        const char *why = "no device";
        for (uint32_t i = 0; i < n; i++) {
            uint32_t family;
            const char *w = unsuitable(dev, dev->surface, pds[i], &family);
            VkPhysicalDeviceProperties p;
            dev->vk.vkGetPhysicalDeviceProperties(pds[i], &p);
            if (w) {
                why = w;
            } else if (type_rank(p.deviceType) > best) {
                best = type_rank(p.deviceType);
                dev->physical = pds[i];
                dev->queue_family = family;
            }
        }
        if (!dev->physical)
            ok = vks_fail(err, "no Vulkan device can serve (%u found; the last one because %s)", n,
                          why);
    }
    vks_free(pds);
    return ok;
}

/* The physical device's properties and memory, and its queue families (the first 64): their
 * count. */
static uint32_t read_physical(gpu_device *dev, VkQueueFamilyProperties q[64])
{
    dev->vk.vkGetPhysicalDeviceProperties(dev->physical, &dev->props);
    dev->vk.vkGetPhysicalDeviceMemoryProperties(dev->physical, &dev->memory);
    uint32_t n = 0;
    dev->vk.vkGetPhysicalDeviceQueueFamilyProperties(dev->physical, &n, NULL);
    n = n < 64 ? n : 64;
    dev->vk.vkGetPhysicalDeviceQueueFamilyProperties(dev->physical, &n, q);
    return n;
}

/* dev->device in use: its functions loaded, queue `index` of dev->queue_family, and the command
 * pool for one-time submits. */
static bool open_device(gpu_device *dev, uint32_t index, vks_error *err)
{
    if (!gpu_vk_load_device(&dev->vk, dev->device))
        return vks_fail(err, "the device lacks a function of Vulkan 1.3");
    dev->vk.vkGetDeviceQueue(dev->device, dev->queue_family, index, &dev->queue);
    VkCommandPoolCreateInfo pool = {VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO};
    pool.flags = VK_COMMAND_POOL_CREATE_TRANSIENT_BIT;
    pool.queueFamilyIndex = dev->queue_family;
    VkResult r = dev->vk.vkCreateCommandPool(dev->device, &pool, NULL, &dev->once_pool);
    if (r != VK_SUCCESS)
        return vks_fail(err, "cannot create a command pool: %s", gpu_result_name(r));
    GPU_NAME(dev, VK_OBJECT_TYPE_COMMAND_POOL, dev->once_pool, "vkskin one-time commands");
    return true;
}

/* 64-bit atomics on storage buffers: the compute rasterizer's visibility buffer (depth and id in
 * one word, resolved by atomicMin). */
static bool has_int64_atomics(const gpu_device *dev, VkPhysicalDevice physical)
{
    VkPhysicalDeviceVulkan12Features f12 = {VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES};
    VkPhysicalDeviceFeatures2 f = {VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2, &f12};
    dev->vk.vkGetPhysicalDeviceFeatures2(physical, &f);
    return f.features.shaderInt64 && f12.shaderBufferInt64Atomics;
}

static bool create_device(gpu_device *dev, vks_error *err)
{
    VkQueueFamilyProperties q[64];
    read_physical(dev, q);
    dev->timestamps =
        q[dev->queue_family].timestampValidBits > 0 && dev->props.limits.timestampPeriod > 0.0f;

    /* What the device has of 1.0's features. */
    VkPhysicalDeviceFeatures supported;
    dev->vk.vkGetPhysicalDeviceFeatures(dev->physical, &supported);
    VkPhysicalDeviceVulkan13Features f13 = {VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_3_FEATURES};
    VkPhysicalDeviceVulkan12Features f12 = {VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES,
                                            &f13};
    /* Shaders reach the crowd's buffers through device addresses: no descriptor range limits,
     * and one dispatch can write into every chunk of a split output. */
    f12.bufferDeviceAddress = VK_TRUE;
    f13.dynamicRendering = VK_TRUE;
    f13.synchronization2 = VK_TRUE;
    /* glslang writes local_size_x_id as LocalSizeId for Vulkan 1.3, which needs maintenance4
     * (required of every 1.3 device). */
    f13.maintenance4 = VK_TRUE;
    VkPhysicalDeviceFeatures2 features = {VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2, &f12};
    features.features.samplerAnisotropy = supported.samplerAnisotropy;
    /* Counts of drawn triangles and skinning invocations: what culling saved, measured. */
    features.features.pipelineStatisticsQuery = supported.pipelineStatisticsQuery;
    dev->statistics = supported.pipelineStatisticsQuery;
    /* Enabled where the device has them (has_int64_atomics). */
    dev->int64_atomics = has_int64_atomics(dev, dev->physical);
    features.features.shaderInt64 = dev->int64_atomics;
    f12.shaderBufferInt64Atomics = dev->int64_atomics;

    float priority = 1.0f;
    VkDeviceQueueCreateInfo queue = {VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO};
    queue.queueFamilyIndex = dev->queue_family;
    queue.queueCount = 1;
    queue.pQueuePriorities = &priority;

    const char *extensions[2];
    uint32_t extension_count = 0;
    if (dev->surface)
        extensions[extension_count++] = VK_KHR_SWAPCHAIN_EXTENSION_NAME;
    /* What this process may still allocate of each heap: the renderer sizes its skinned output
     * from it (render/plan.h). */
    dev->memory_budget =
        has_extension(&dev->vk, dev->physical, VK_EXT_MEMORY_BUDGET_EXTENSION_NAME);
    if (dev->memory_budget)
        extensions[extension_count++] = VK_EXT_MEMORY_BUDGET_EXTENSION_NAME;
    VkDeviceCreateInfo info = {VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO, &features};
    info.queueCreateInfoCount = 1;
    info.pQueueCreateInfos = &queue;
    info.enabledExtensionCount = extension_count;
    info.ppEnabledExtensionNames = extensions;
    VkResult r = dev->vk.vkCreateDevice(dev->physical, &info, NULL, &dev->device);
    if (r != VK_SUCCESS)
        return vks_fail(err, "cannot create a device on %s: %s", dev->props.deviceName,
                        gpu_result_name(r));
    if (!open_device(dev, 0, err))
        return false;
    GPU_NAME(dev, VK_OBJECT_TYPE_DEVICE, dev->device, "vkskin device");
    GPU_NAME(dev, VK_OBJECT_TYPE_QUEUE, dev->queue, "graphics+compute queue");
    return true;
}

/* The window's surface, on the new instance, before a device is picked: it must present to it. */
static bool create_surface(const gpu_device_desc *desc, gpu_device *dev, vks_error *err)
{
    if (!desc->create_surface)
        return true;
    VkResult r = desc->create_surface(dev->instance, desc->surface_user, &dev->surface);
    if (r != VK_SUCCESS || !dev->surface) {
        dev->surface = VK_NULL_HANDLE;
        return vks_fail(err, "cannot create a Vulkan surface for the window: %s",
                        gpu_result_name(r));
    }
    return true;
}

bool gpu_device_create(const gpu_device_desc *desc, gpu_device *dev, vks_error *err)
{
    *dev = (gpu_device){0};
    dev->messages = vks_calloc(1, sizeof *dev->messages);
    if (!dev->messages)
        return vks_fail_memory(err, "out of memory");
    dev->messages->log = desc->log;
    dev->messages->log_user = desc->log_user;
    if (!create_instance(desc, dev, err) || !create_surface(desc, dev, err) ||
        !pick_device(desc, dev, err) || !create_device(dev, err)) {
        gpu_device_destroy(dev);
        return false;
    }
    return true;
}

bool gpu_device_probe(const gpu_device_desc *desc, gpu_device *dev, vks_error *err)
{
    *dev = (gpu_device){0};
    dev->messages = vks_calloc(1, sizeof *dev->messages);
    if (!dev->messages)
        return vks_fail_memory(err, "out of memory");
    gpu_device_desc plain = *desc; /* no layer, no window: nothing is made on the device */
    plain.validate = false;
    plain.create_surface = NULL;
    VkQueueFamilyProperties q[64];
    if (!create_instance(&plain, dev, err) || !pick_device(&plain, dev, err)) {
        gpu_device_destroy(dev);
        return false;
    }
    read_physical(dev, q);
    dev->memory_budget =
        has_extension(&dev->vk, dev->physical, VK_EXT_MEMORY_BUDGET_EXTENSION_NAME);
    dev->int64_atomics =
        has_int64_atomics(dev, dev->physical); /* what create_device would enable */
    return true;
}

bool gpu_device_adopt(const gpu_host_device *host, gpu_device *dev, vks_error *err)
{
    *dev = (gpu_device){0};
    if (!host->get_instance_proc_addr || !host->instance || !host->physical || !host->device)
        return vks_fail_usage(err,
                              "the host's vkGetInstanceProcAddr, instance, physical device and "
                              "device are needed");
    if (host->api_version < REQUIRED_API)
        return vks_fail_usage(err, "vkskin needs a Vulkan 1.3 instance; the host's asks for %u.%u",
                              VK_API_VERSION_MAJOR(host->api_version),
                              VK_API_VERSION_MINOR(host->api_version));
    if (!host->buffer_device_address || !host->synchronization2 || !host->maintenance4)
        return vks_fail_usage(err,
                              "vkskin needs the device features bufferDeviceAddress, "
                              "synchronization2 and maintenance4; the host's device lacks%s%s%s",
                              host->buffer_device_address ? "" : " bufferDeviceAddress",
                              host->synchronization2 ? "" : " synchronization2",
                              host->maintenance4 ? "" : " maintenance4");
    dev->messages = vks_calloc(1, sizeof *dev->messages); /* no messenger: the host's, if any */
    if (!dev->messages)
        return vks_fail_memory(err, "out of memory");
    if (!gpu_vk_load_global(&dev->vk, host->get_instance_proc_addr) ||
        !gpu_vk_load_instance(&dev->vk, host->instance)) {
        gpu_device_destroy(dev);
        return vks_fail_usage(err, "the host's vkGetInstanceProcAddr lacks a function of Vulkan "
                                   "1.3 for its instance");
    }
    dev->adopted = true;
    dev->instance = host->instance;
    dev->physical = host->physical;
    dev->device = host->device;
    dev->debug_utils = host->debug_utils;
    dev->memory_budget = host->memory_budget;
    VkQueueFamilyProperties q[64];
    const uint32_t n = read_physical(dev, q);
    if (dev->props.apiVersion < REQUIRED_API) {
        gpu_device_destroy(dev);
        return vks_fail_usage(err, "the host's device supports Vulkan below 1.3");
    }
    if (host->queue_family >= n || !(q[host->queue_family].queueFlags & VK_QUEUE_COMPUTE_BIT) ||
        host->queue_index >= q[host->queue_family].queueCount) {
        gpu_device_destroy(dev);
        return vks_fail_usage(err,
                              "the host's queue (family %u, index %u) is not a compute queue of "
                              "its device",
                              host->queue_family, host->queue_index);
    }
    dev->queue_family = host->queue_family;
    if (!open_device(dev, host->queue_index, err)) {
        gpu_device_destroy(dev);
        return false;
    }
    return true;
}

gpu_messages gpu_device_destroy(gpu_device *dev)
{
    if (dev->adopted) { /* the host's: only what vkskin made on it */
        if (dev->once_pool)
            dev->vk.vkDestroyCommandPool(dev->device, dev->once_pool, NULL);
        gpu_messages counts = dev->messages ? *dev->messages : (gpu_messages){0};
        vks_free(dev->messages);
        *dev = (gpu_device){0};
        return counts;
    }
    if (dev->device) {
        dev->vk.vkDeviceWaitIdle(dev->device);
        dev->vk.vkDestroyCommandPool(dev->device, dev->once_pool, NULL);
        dev->vk.vkDestroyDevice(dev->device, NULL);
    }
    if (dev->surface)
        dev->vk.vkDestroySurfaceKHR(dev->instance, dev->surface, NULL);
    if (dev->messenger)
        dev->vk.vkDestroyDebugUtilsMessengerEXT(dev->instance, dev->messenger, NULL);
    if (dev->instance)
        dev->vk.vkDestroyInstance(dev->instance,
                                  NULL); /* still reports to the messenger's counts */
    gpu_messages counts = dev->messages ? *dev->messages : (gpu_messages){0};
    vks_free(dev->messages);
    *dev = (gpu_device){0};
    return counts;
}

bool gpu_validation_failed(const gpu_device *dev)
{
    return dev->messages && (dev->messages->error || dev->messages->warning);
}

bool gpu_list_devices(gpu_device_entry *entries, uint32_t capacity, uint32_t *count, vks_error *err)
{
    *count = 0;
    gpu_device device = {0}, *dev = &device;
    dev->messages = vks_calloc(1, sizeof *dev->messages);
    if (!dev->messages)
        return vks_fail_memory(err, "out of memory");
    gpu_device_desc desc = {.device_index = -1};
    VkPhysicalDevice *pds = NULL;
    uint32_t n = 0;
    bool ok = create_instance(&desc, dev, err) && enumerate(dev, &pds, &n, err);
    for (uint32_t i = 0; ok && i < n && i < capacity; i++) {
        VkPhysicalDeviceProperties p;
        dev->vk.vkGetPhysicalDeviceProperties(pds[i], &p);
        uint32_t family;
        gpu_device_entry *e = &entries[i];
        snprintf(e->name, sizeof e->name, "%s", p.deviceName);
        e->type = type_name(p.deviceType);
        e->api_version = p.apiVersion;
        e->driver_version = p.driverVersion;
        e->vendor_id = p.vendorID;
        e->unusable = unsuitable(dev, VK_NULL_HANDLE, pds[i], &family);
    }
    if (ok)
        *count = n;
    vks_free(pds);
    gpu_device_destroy(dev);
    return ok;
}

void gpu_name(const gpu_device *dev, VkObjectType type, uint64_t handle, const char *fmt, ...)
{
    if (!dev->debug_utils || !handle || !dev->vk.vkSetDebugUtilsObjectNameEXT)
        return;
    char name[128];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(name, sizeof name, fmt, ap);
    va_end(ap);
    VkDebugUtilsObjectNameInfoEXT info = {VK_STRUCTURE_TYPE_DEBUG_UTILS_OBJECT_NAME_INFO_EXT};
    info.objectType = type;
    info.objectHandle = handle;
    info.pObjectName = name;
    dev->vk.vkSetDebugUtilsObjectNameEXT(dev->device, &info);
}

double gpu_ticks_to_ms(const gpu_device *dev, uint64_t begin, uint64_t end)
{
    return (double)(end - begin) * dev->props.limits.timestampPeriod * 1e-6;
}
