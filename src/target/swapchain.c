#include "swapchain.h"

#include <string.h>

static void destroy_images(vks_swapchain *sc)
{
    const gpu_device *dev = sc->dev;
    VkDevice d = sc->dev->device;
    for (uint32_t i = 0; i < sc->image_count; i++) {
        dev->vk.vkDestroyImageView(d, sc->views[i], NULL);
        dev->vk.vkDestroySemaphore(d, sc->presentable[i], NULL);
        sc->views[i] = VK_NULL_HANDLE;
        sc->presentable[i] = VK_NULL_HANDLE;
    }
    gpu_image_destroy(sc->dev, &sc->depth);
    sc->image_count = 0;
}

static VkPresentModeKHR present_mode(const vks_swapchain *sc)
{
    const gpu_device *dev = sc->dev;
    if (sc->vsync)
        return VK_PRESENT_MODE_FIFO_KHR; /* always supported */
    VkPresentModeKHR modes[16];
    uint32_t n = 16;
    dev->vk.vkGetPhysicalDeviceSurfacePresentModesKHR(sc->dev->physical, sc->dev->surface, &n,
                                                      modes);
    VkPresentModeKHR best = VK_PRESENT_MODE_FIFO_KHR;
    for (uint32_t i = 0; i < n; i++) {
        if (modes[i] == VK_PRESENT_MODE_MAILBOX_KHR)
            return modes[i];
        if (modes[i] == VK_PRESENT_MODE_IMMEDIATE_KHR)
            best = modes[i];
    }
    return best;
}

/* Each swapchain image's view and presentable semaphore, and the depth image. */
static bool create_images(vks_swapchain *sc, vks_error *err)
{
    const gpu_device *dev = sc->dev;
    uint32_t n = 0;
    VkResult r = dev->vk.vkGetSwapchainImagesKHR(dev->device, sc->swapchain, &n, NULL);
    if (r != VK_SUCCESS)
        return vks_fail(err, "cannot get the swapchain's images: %s", gpu_result_name(r));
    if (n > VKS_SWAPCHAIN_MAX_IMAGES) /* the driver may make more than asked for */
        return vks_fail(err, "the swapchain has %u images, more than the %u vkskin handles", n,
                        VKS_SWAPCHAIN_MAX_IMAGES);
    r = dev->vk.vkGetSwapchainImagesKHR(dev->device, sc->swapchain, &n, sc->images);
    if (r != VK_SUCCESS)
        return vks_fail(err, "cannot get the swapchain's images: %s", gpu_result_name(r));
    for (uint32_t i = 0; i < n; i++) {
        GPU_NAME(dev, VK_OBJECT_TYPE_IMAGE, sc->images[i], "swapchain image %u", i);
        VkImageViewCreateInfo vi = {VK_STRUCTURE_TYPE_IMAGE_VIEW_CREATE_INFO};
        vi.image = sc->images[i];
        vi.viewType = VK_IMAGE_VIEW_TYPE_2D;
        vi.format = sc->format.format;
        vi.subresourceRange = (VkImageSubresourceRange){VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, 1};
        VkSemaphoreCreateInfo si = {VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO};
        VkImageView view;
        VkSemaphore presentable;
        r = dev->vk.vkCreateImageView(dev->device, &vi, NULL, &view);
        if (r != VK_SUCCESS)
            view = VK_NULL_HANDLE; /* a failed call's output is undefined */
        else if ((r = dev->vk.vkCreateSemaphore(dev->device, &si, NULL, &presentable)) !=
                 VK_SUCCESS)
            presentable = VK_NULL_HANDLE;
        sc->image_count = i + 1; /* what destroy_images frees (NULL handles are ignored) */
        sc->views[i] = view;
        sc->presentable[i] = r == VK_SUCCESS ? presentable : VK_NULL_HANDLE;
        if (r != VK_SUCCESS)
            return vks_fail(err, "cannot create the swapchain's views: %s", gpu_result_name(r));
        GPU_NAME(dev, VK_OBJECT_TYPE_IMAGE_VIEW, sc->views[i], "swapchain view %u", i);
        GPU_NAME(dev, VK_OBJECT_TYPE_SEMAPHORE, sc->presentable[i], "presentable %u", i);
    }
    return gpu_image_create(dev,
                            &(gpu_image_desc){.width = sc->extent.width,
                                              .height = sc->extent.height,
                                              .format = sc->depth_format,
                                              .usage = VK_IMAGE_USAGE_DEPTH_STENCIL_ATTACHMENT_BIT,
                                              .name = "window depth"},
                            &sc->depth, err);
}

/* (Re)creates the swapchain for a framebuffer of width x height. A zero size (minimised), or a
 * surface that allows none, leaves none. On failure it is left stale, to be built again. */
static bool build_once(vks_swapchain *sc, uint32_t width, uint32_t height, vks_error *err)
{
    const gpu_device *dev = sc->dev;
    dev->vk.vkDeviceWaitIdle(
        dev->device); /* nothing in flight may use the old images or semaphores */
    destroy_images(sc);
    sc->stale = false;
    sc->requested = (VkExtent2D){width, height};

    VkSurfaceCapabilitiesKHR caps;
    VkResult r =
        dev->vk.vkGetPhysicalDeviceSurfaceCapabilitiesKHR(dev->physical, dev->surface, &caps);
    if (r != VK_SUCCESS)
        return vks_fail(err, "cannot query the window surface: %s", gpu_result_name(r));
    VkExtent2D extent = caps.currentExtent;
    if (extent.width == UINT32_MAX) /* the surface takes the swapchain's size */
        extent = (VkExtent2D){width, height};
    if (extent.width < caps.minImageExtent.width)
        extent.width = caps.minImageExtent.width;
    if (extent.height < caps.minImageExtent.height)
        extent.height = caps.minImageExtent.height;
    if (extent.width > caps.maxImageExtent.width)
        extent.width = caps.maxImageExtent.width;
    if (extent.height > caps.maxImageExtent.height)
        extent.height = caps.maxImageExtent.height;
    sc->extent = extent;
    if (extent.width == 0 || extent.height == 0 || width == 0 || height == 0) {
        if (sc->swapchain)
            dev->vk.vkDestroySwapchainKHR(dev->device, sc->swapchain, NULL);
        sc->swapchain = VK_NULL_HANDLE;
        return true; /* acquire skips until there is a size again */
    }

    uint32_t images = caps.minImageCount + 1;
    if (caps.maxImageCount && images > caps.maxImageCount)
        images = caps.maxImageCount;
    if (images > VKS_SWAPCHAIN_MAX_IMAGES)
        images = VKS_SWAPCHAIN_MAX_IMAGES;
    VkSwapchainCreateInfoKHR info = {VK_STRUCTURE_TYPE_SWAPCHAIN_CREATE_INFO_KHR};
    info.surface = dev->surface;
    info.minImageCount = images;
    info.imageFormat = sc->format.format;
    info.imageColorSpace = sc->format.colorSpace;
    info.imageExtent = extent;
    info.imageArrayLayers = 1;
    sc->transfer_src = (caps.supportedUsageFlags & VK_IMAGE_USAGE_TRANSFER_SRC_BIT) != 0;
    const VkFormat f = sc->format.format;
    sc->capturable =
        sc->transfer_src && (f == VK_FORMAT_B8G8R8A8_SRGB || f == VK_FORMAT_B8G8R8A8_UNORM ||
                             f == VK_FORMAT_R8G8B8A8_SRGB || f == VK_FORMAT_R8G8B8A8_UNORM);
    info.imageUsage = VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT |
                      (sc->transfer_src ? VK_IMAGE_USAGE_TRANSFER_SRC_BIT : 0);
    info.imageSharingMode = VK_SHARING_MODE_EXCLUSIVE;
    info.preTransform = caps.currentTransform;
    info.compositeAlpha = (caps.supportedCompositeAlpha & VK_COMPOSITE_ALPHA_OPAQUE_BIT_KHR)
                              ? VK_COMPOSITE_ALPHA_OPAQUE_BIT_KHR
                              : (VkCompositeAlphaFlagBitsKHR)(caps.supportedCompositeAlpha &
                                                              -caps.supportedCompositeAlpha);
    info.presentMode = present_mode(sc);
    info.clipped = VK_TRUE;
    info.oldSwapchain = sc->swapchain;
    VkSwapchainKHR swapchain;
    r = dev->vk.vkCreateSwapchainKHR(dev->device, &info, NULL, &swapchain);
    if (sc->swapchain)
        dev->vk.vkDestroySwapchainKHR(dev->device, sc->swapchain, NULL);
    sc->swapchain = VK_NULL_HANDLE;
    if (r != VK_SUCCESS)
        return vks_fail(err, "cannot create a swapchain: %s", gpu_result_name(r));
    sc->swapchain = swapchain;
    GPU_NAME(dev, VK_OBJECT_TYPE_SWAPCHAIN_KHR, swapchain, "swapchain %ux%u", extent.width,
             extent.height);
    sc->rebuilds += sc->built;
    sc->built = true;
    return create_images(sc, err);
}

bool vks_swapchain_create(const gpu_device *dev, VkFormat depth_format, bool vsync,
                          vks_swapchain *sc, vks_error *err)
{
    *sc = (vks_swapchain){.dev = dev, .vsync = vsync, .depth_format = depth_format};
    VkSurfaceFormatKHR formats[64];
    uint32_t n = 64;
    VkResult r =
        dev->vk.vkGetPhysicalDeviceSurfaceFormatsKHR(dev->physical, dev->surface, &n, formats);
    if ((r != VK_SUCCESS && r != VK_INCOMPLETE) || n == 0)
        return vks_fail(err, "the window surface offers no formats: %s", gpu_result_name(r));
    sc->format = formats[0];
    for (uint32_t i = 0; i < n; i++)
        if ((formats[i].format == VK_FORMAT_B8G8R8A8_SRGB ||
             formats[i].format == VK_FORMAT_R8G8B8A8_SRGB) &&
            formats[i].colorSpace == VK_COLOR_SPACE_SRGB_NONLINEAR_KHR) {
            sc->format = formats[i];
            break;
        }
    for (uint32_t i = 0; i < GPU_FRAMES_IN_FLIGHT; i++) {
        VkSemaphoreCreateInfo si = {VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO};
        r = dev->vk.vkCreateSemaphore(dev->device, &si, NULL, &sc->acquired[i]);
        if (r != VK_SUCCESS) {
            vks_swapchain_destroy(sc);
            return vks_fail(err, "cannot create a semaphore: %s", gpu_result_name(r));
        }
        GPU_NAME(dev, VK_OBJECT_TYPE_SEMAPHORE, sc->acquired[i], "acquired %u", i);
    }
    sc->stale = true; /* built by the first acquire */
    return true;
}

void vks_swapchain_destroy(vks_swapchain *sc)
{
    if (!sc->dev)
        return;
    const gpu_device *dev = sc->dev;
    dev->vk.vkDeviceWaitIdle(dev->device);
    destroy_images(sc);
    for (uint32_t i = 0; i < GPU_FRAMES_IN_FLIGHT; i++)
        if (sc->acquired[i])
            dev->vk.vkDestroySemaphore(dev->device, sc->acquired[i], NULL);
    if (sc->swapchain)
        dev->vk.vkDestroySwapchainKHR(dev->device, sc->swapchain, NULL);
    *sc = (vks_swapchain){0};
}

static bool build(vks_swapchain *sc, uint32_t width, uint32_t height, vks_error *err)
{
    if (build_once(sc, width, height, err))
        return true;
    sc->stale = true;
    return false;
}

vks_acquire vks_swapchain_acquire(vks_swapchain *sc, uint32_t slot, uint32_t width, uint32_t height,
                                  vks_swapchain_frame *frame, vks_error *err)
{
    const gpu_device *dev = sc->dev;
    if (width == 0 || height == 0) {
        sc->stale = true; /* minimised: rebuild once it has a size */
        return VKS_ACQUIRE_SKIP;
    }
    if (sc->stale || !sc->swapchain || width != sc->requested.width ||
        height != sc->requested.height) {
        if (!build(sc, width, height, err))
            return VKS_ACQUIRE_ERROR;
        if (!sc->swapchain)
            return VKS_ACQUIRE_SKIP;
    }
    uint32_t image;
    VkResult r = dev->vk.vkAcquireNextImageKHR(sc->dev->device, sc->swapchain, UINT64_MAX,
                                               sc->acquired[slot], VK_NULL_HANDLE, &image);
    if (r == VK_ERROR_OUT_OF_DATE_KHR) {
        sc->stale = true;
        return VKS_ACQUIRE_SKIP;
    }
    if (r != VK_SUCCESS && r != VK_SUBOPTIMAL_KHR) {
        vks_fail(err, "cannot acquire a window image: %s", gpu_result_name(r));
        return VKS_ACQUIRE_ERROR;
    }
    if (image >= sc->image_count) {
        vks_fail(err, "the swapchain gave image %u of %u", image, sc->image_count);
        return VKS_ACQUIRE_ERROR;
    }
    if (r == VK_SUBOPTIMAL_KHR) /* still presentable: draw it, rebuild afterwards */
        sc->stale = true;
    *frame = (vks_swapchain_frame){
        .image = image,
        .acquired = sc->acquired[slot],
        .presentable = sc->presentable[image],
        .target =
            {
                .color = sc->images[image],
                .color_view = sc->views[image],
                .depth = &sc->depth,
                .extent = sc->extent,
                .final_layout = VK_IMAGE_LAYOUT_PRESENT_SRC_KHR,
                /* Presentation is ordered by the semaphore: no access to make visible. */
                .final_access = {VK_PIPELINE_STAGE_2_NONE, VK_ACCESS_2_NONE},
                .clear = {0.046f, 0.05f, 0.06f, 1.0f},
            },
    };
    return VKS_ACQUIRED;
}

bool vks_swapchain_present(vks_swapchain *sc, const vks_swapchain_frame *frame, vks_error *err)
{
    const gpu_device *dev = sc->dev;
    VkPresentInfoKHR info = {VK_STRUCTURE_TYPE_PRESENT_INFO_KHR};
    info.waitSemaphoreCount = 1;
    info.pWaitSemaphores = &frame->presentable;
    info.swapchainCount = 1;
    info.pSwapchains = &sc->swapchain;
    info.pImageIndices = &frame->image;
    VkResult r = dev->vk.vkQueuePresentKHR(sc->dev->queue, &info);
    if (r == VK_ERROR_OUT_OF_DATE_KHR || r == VK_SUBOPTIMAL_KHR) {
        sc->stale = true;
        return true;
    }
    if (r != VK_SUCCESS)
        return vks_fail(err, "cannot present: %s", gpu_result_name(r));
    return true;
}
