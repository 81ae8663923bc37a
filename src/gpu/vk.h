/* The Vulkan functions vkskin calls, loaded per object: no process-wide function pointers, so any
 * number of instances and devices (vkskin's own, or hosts') live side by side, used from any
 * thread. gpu_vk_load_* fill a gpu_vk from the loader's vkGetInstanceProcAddr (or a host's) in
 * three steps: the global functions, an instance's, a device's. A function the instance or device
 * does not offer (an extension not enabled) stays NULL.
 *
 * Every call goes through a table: dev->vk.vkCmdDispatch(cmd, ...). The sources include Vulkan's
 * header without prototypes (VK_NO_PROTOTYPES), so a call that misses its table does not
 * compile. */
#ifndef VKS_GPU_VK_H
#define VKS_GPU_VK_H

#ifndef VK_NO_PROTOTYPES
#define VK_NO_PROTOTYPES
#endif
#include <vulkan/vulkan.h>

#include <stdbool.h>

/* Before an instance exists. */
#define GPU_VK_GLOBAL(X)                                                                           \
    X(vkCreateInstance)                                                                            \
    X(vkEnumerateInstanceExtensionProperties)                                                      \
    X(vkEnumerateInstanceLayerProperties)

/* Of an instance (and its physical devices), vkGetInstanceProcAddr(instance, ...). */
#define GPU_VK_INSTANCE(X)                                                                         \
    X(vkCreateDebugUtilsMessengerEXT)                                                              \
    X(vkCreateDevice)                                                                              \
    X(vkDestroyDebugUtilsMessengerEXT)                                                             \
    X(vkDestroyInstance)                                                                           \
    X(vkDestroySurfaceKHR)                                                                         \
    X(vkEnumerateDeviceExtensionProperties)                                                        \
    X(vkEnumeratePhysicalDevices)                                                                  \
    X(vkGetDeviceProcAddr)                                                                         \
    X(vkGetPhysicalDeviceFeatures)                                                                 \
    X(vkGetPhysicalDeviceFeatures2)                                                                \
    X(vkGetPhysicalDeviceFormatProperties)                                                         \
    X(vkGetPhysicalDeviceMemoryProperties)                                                         \
    X(vkGetPhysicalDeviceMemoryProperties2)                                                        \
    X(vkGetPhysicalDeviceProperties)                                                               \
    X(vkGetPhysicalDeviceProperties2)                                                              \
    X(vkGetPhysicalDeviceQueueFamilyProperties)                                                    \
    X(vkGetPhysicalDeviceSurfaceCapabilitiesKHR)                                                   \
    X(vkGetPhysicalDeviceSurfaceFormatsKHR)                                                        \
    X(vkGetPhysicalDeviceSurfacePresentModesKHR)                                                   \
    X(vkGetPhysicalDeviceSurfaceSupportKHR)                                                        \
    X(vkSetDebugUtilsObjectNameEXT)

/* Of a device, vkGetDeviceProcAddr(device, ...). */
#define GPU_VK_DEVICE(X)                                                                           \
    X(vkAcquireNextImageKHR)                                                                       \
    X(vkAllocateCommandBuffers)                                                                    \
    X(vkAllocateDescriptorSets)                                                                    \
    X(vkAllocateMemory)                                                                            \
    X(vkBeginCommandBuffer)                                                                        \
    X(vkBindBufferMemory)                                                                          \
    X(vkBindImageMemory)                                                                           \
    X(vkCmdBeginQuery)                                                                             \
    X(vkCmdBeginRendering)                                                                         \
    X(vkCmdBindDescriptorSets)                                                                     \
    X(vkCmdBindIndexBuffer)                                                                        \
    X(vkCmdBindPipeline)                                                                           \
    X(vkCmdBindVertexBuffers)                                                                      \
    X(vkCmdBlitImage)                                                                              \
    X(vkCmdCopyBuffer)                                                                             \
    X(vkCmdCopyBufferToImage)                                                                      \
    X(vkCmdCopyImageToBuffer)                                                                      \
    X(vkCmdDispatch)                                                                               \
    X(vkCmdDraw)                                                                                   \
    X(vkCmdDrawIndexed)                                                                            \
    X(vkCmdEndQuery)                                                                               \
    X(vkCmdEndRendering)                                                                           \
    X(vkCmdFillBuffer)                                                                             \
    X(vkCmdUpdateBuffer)                                                                           \
    X(vkCmdPipelineBarrier2)                                                                       \
    X(vkCmdPushConstants)                                                                          \
    X(vkCmdResetQueryPool)                                                                         \
    X(vkCmdSetScissor)                                                                             \
    X(vkCmdSetViewport)                                                                            \
    X(vkCmdWriteTimestamp2)                                                                        \
    X(vkCreateBuffer)                                                                              \
    X(vkCreateCommandPool)                                                                         \
    X(vkCreateComputePipelines)                                                                    \
    X(vkCreateDescriptorPool)                                                                      \
    X(vkCreateDescriptorSetLayout)                                                                 \
    X(vkCreateFence)                                                                               \
    X(vkCreateGraphicsPipelines)                                                                   \
    X(vkCreateImage)                                                                               \
    X(vkCreateImageView)                                                                           \
    X(vkCreatePipelineLayout)                                                                      \
    X(vkCreateQueryPool)                                                                           \
    X(vkCreateSampler)                                                                             \
    X(vkCreateSemaphore)                                                                           \
    X(vkCreateShaderModule)                                                                        \
    X(vkCreateSwapchainKHR)                                                                        \
    X(vkDestroyBuffer)                                                                             \
    X(vkDestroyCommandPool)                                                                        \
    X(vkDestroyDescriptorPool)                                                                     \
    X(vkDestroyDescriptorSetLayout)                                                                \
    X(vkDestroyDevice)                                                                             \
    X(vkDestroyFence)                                                                              \
    X(vkDestroyImage)                                                                              \
    X(vkDestroyImageView)                                                                          \
    X(vkDestroyPipeline)                                                                           \
    X(vkDestroyPipelineLayout)                                                                     \
    X(vkDestroyQueryPool)                                                                          \
    X(vkDestroySampler)                                                                            \
    X(vkDestroySemaphore)                                                                          \
    X(vkDestroyShaderModule)                                                                       \
    X(vkDestroySwapchainKHR)                                                                       \
    X(vkDeviceWaitIdle)                                                                            \
    X(vkEndCommandBuffer)                                                                          \
    X(vkFreeCommandBuffers)                                                                        \
    X(vkFreeMemory)                                                                                \
    X(vkGetBufferDeviceAddress)                                                                    \
    X(vkGetBufferMemoryRequirements)                                                               \
    X(vkGetDeviceQueue)                                                                            \
    X(vkGetImageMemoryRequirements)                                                                \
    X(vkGetQueryPoolResults)                                                                       \
    X(vkGetSwapchainImagesKHR)                                                                     \
    X(vkInvalidateMappedMemoryRanges)                                                              \
    X(vkMapMemory)                                                                                 \
    X(vkQueuePresentKHR)                                                                           \
    X(vkQueueSubmit)                                                                               \
    X(vkQueueSubmit2)                                                                              \
    X(vkResetCommandPool)                                                                          \
    X(vkResetFences)                                                                               \
    X(vkUpdateDescriptorSets)                                                                      \
    X(vkWaitForFences)

typedef struct gpu_vk {
    PFN_vkGetInstanceProcAddr vkGetInstanceProcAddr;
#define GPU_VK_MEMBER(name) PFN_##name name;
    GPU_VK_GLOBAL(GPU_VK_MEMBER) GPU_VK_INSTANCE(GPU_VK_MEMBER) GPU_VK_DEVICE(GPU_VK_MEMBER)
#undef GPU_VK_MEMBER
} gpu_vk;

/* The Vulkan loader's vkGetInstanceProcAddr (libvulkan.so.1, opened once per process, thread-safe),
 * or NULL when there is none. */
PFN_vkGetInstanceProcAddr gpu_vk_loader(void);
/* The global functions through get_instance_proc_addr; false when vkCreateInstance is missing. */
bool gpu_vk_load_global(gpu_vk *vk, PFN_vkGetInstanceProcAddr get_instance_proc_addr);
/* The instance's functions (after gpu_vk_load_global); false when a core one is missing. */
bool gpu_vk_load_instance(gpu_vk *vk, VkInstance instance);
/* The device's functions (after gpu_vk_load_instance); false when a core one is missing. */
bool gpu_vk_load_device(gpu_vk *vk, VkDevice device);

#endif
