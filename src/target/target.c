#include "target.h"

#include <string.h>

bool vks_target_create(const gpu_device *dev, const vks_target_desc *d, vks_target *t,
                       vks_error *err)
{
    *t = (vks_target){.dev = dev, .window = d->window, .extent = {d->width, d->height}};
    const bool ok =
        d->window
            ? vks_swapchain_create(dev, d->depth_format, d->vsync, &t->swapchain, err)
            : vks_offscreen_create(dev, d->width, d->height, d->depth_format, &t->offscreen, err);
    if (!ok)
        vks_target_destroy(t);
    return ok;
}

void vks_target_destroy(vks_target *t)
{
    if (!t->dev)
        return;
    for (uint32_t s = 0; s < GPU_FRAMES_IN_FLIGHT; s++)
        gpu_buffer_destroy(t->dev, &t->capture[s]);
    if (t->offscreen.color.image)
        vks_offscreen_destroy(t->dev, &t->offscreen);
    vks_swapchain_destroy(&t->swapchain);
    *t = (vks_target){0};
}

VkFormat vks_target_color_format(const vks_target *t)
{
    return t->window ? t->swapchain.format.format : VKS_OFFSCREEN_FORMAT;
}

bool vks_target_can_capture(const vks_target *t)
{
    return !t->window || t->swapchain.capturable;
}

vks_acquire vks_target_acquire(vks_target *t, uint32_t slot, uint32_t width, uint32_t height,
                               bool capture, vks_target_frame *tf, vks_error *err)
{
    *tf = (vks_target_frame){.slot = slot};
    if (!t->window) {
        tf->draw = vks_offscreen_target(&t->offscreen);
        t->extent = tf->draw.extent;
        return VKS_ACQUIRED;
    }
    const vks_acquire acq = vks_swapchain_acquire(&t->swapchain, slot, width, height, &tf->sc, err);
    if (acq != VKS_ACQUIRED)
        return acq;
    tf->draw = tf->sc.target;
    tf->wait = tf->sc.acquired;
    tf->signal = tf->sc.presentable;
    t->extent = tf->draw.extent;
    t->captured[slot] = false;
    tf->capture = capture && t->swapchain.capturable;
    if (tf->capture) { /* the image copied out before it is presented */
        tf->draw.final_layout = VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL;
        tf->draw.final_access =
            (gpu_access){VK_PIPELINE_STAGE_2_COPY_BIT, VK_ACCESS_2_TRANSFER_READ_BIT};
    }
    return VKS_ACQUIRED;
}

/* A window frame's image into the slot's capture buffer (the image left ready to present). */
static bool target_capture(vks_target *t, VkCommandBuffer cmd, const vks_target_frame *tf,
                           vks_error *err)
{
    const gpu_device *dev = t->dev;
    gpu_buffer *buf = &t->capture[tf->slot];
    const VkExtent2D extent = tf->draw.extent;
    const VkDeviceSize bytes = (VkDeviceSize)extent.width * extent.height * 4;
    if (buf->size < bytes) {
        gpu_buffer_destroy(dev, buf);
        if (!gpu_buffer_create(dev,
                               &(gpu_buffer_desc){.size = bytes,
                                                  .usage = VK_BUFFER_USAGE_TRANSFER_DST_BIT,
                                                  .memory = GPU_MEMORY_READBACK,
                                                  .name = "window capture"},
                               buf, err))
            return false;
    }
    vks_copy_image_to_host(dev, cmd, tf->draw.color, extent, buf->buffer);
    /* Presentation is ordered by the semaphore the submission signals. */
    gpu_barrier_image_raw(dev, cmd, tf->draw.color, VK_IMAGE_ASPECT_COLOR_BIT,
                          VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, VK_IMAGE_LAYOUT_PRESENT_SRC_KHR,
                          (gpu_access){VK_PIPELINE_STAGE_2_COPY_BIT, VK_ACCESS_2_NONE},
                          (gpu_access){VK_PIPELINE_STAGE_2_NONE, VK_ACCESS_2_NONE});
    t->capture_extent[tf->slot] = extent;
    t->captured[tf->slot] = true;
    return true;
}

bool vks_target_finish(vks_target *t, VkCommandBuffer cmd, const vks_target_frame *tf,
                       vks_error *err)
{
    if (!t->window) {
        vks_offscreen_copy(t->dev, cmd, &t->offscreen, tf->slot);
        return true;
    }
    return !tf->capture || target_capture(t, cmd, tf, err);
}

bool vks_target_present(vks_target *t, const vks_target_frame *tf, vks_error *err)
{
    return !t->window || vks_swapchain_present(&t->swapchain, &tf->sc, err);
}

bool vks_target_has_image(const vks_target *t, uint32_t slot)
{
    return !t->window || t->captured[slot];
}

VkExtent2D vks_target_image_extent(const vks_target *t, uint32_t slot)
{
    return t->window ? t->capture_extent[slot] : t->offscreen.color.extent;
}

void vks_target_read(const vks_target *t, uint32_t slot, void *rgba)
{
    const VkExtent2D extent = vks_target_image_extent(t, slot);
    const size_t n = (size_t)extent.width * extent.height;
    if (!t->window) {
        memcpy(rgba, vks_offscreen_pixels(t->dev, &t->offscreen, slot), n * 4);
        return;
    }
    gpu_buffer_invalidate(t->dev, &t->capture[slot]);
    const uint8_t *from = t->capture[slot].mapped;
    uint8_t *to = rgba;
    const VkFormat format = t->swapchain.format.format; /* fixed for the target's life */
    const int red = format == VK_FORMAT_B8G8R8A8_SRGB || format == VK_FORMAT_B8G8R8A8_UNORM ? 2 : 0;
    for (size_t p = 0; p < n; p++) { /* BGRA swapchains swizzled, alpha made opaque */
        to[4 * p + 0] = from[4 * p + red];
        to[4 * p + 1] = from[4 * p + 1];
        to[4 * p + 2] = from[4 * p + 2 - red];
        to[4 * p + 3] = 255;
    }
}
