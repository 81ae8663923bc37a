#include "offscreen.h"

bool vks_offscreen_create(const gpu_device *dev, uint32_t width, uint32_t height,
                          VkFormat depth_format, vks_offscreen *o, vks_error *err)
{
    *o = (vks_offscreen){0};
    bool ok =
        gpu_image_create(dev,
                         &(gpu_image_desc){.width = width,
                                           .height = height,
                                           .format = VKS_OFFSCREEN_FORMAT,
                                           .usage = VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT |
                                                    VK_IMAGE_USAGE_TRANSFER_SRC_BIT,
                                           .name = "offscreen color"},
                         &o->color, err) &&
        gpu_image_create(dev,
                         &(gpu_image_desc){.width = width,
                                           .height = height,
                                           .format = depth_format,
                                           .usage = VK_IMAGE_USAGE_DEPTH_STENCIL_ATTACHMENT_BIT,
                                           .name = "offscreen depth"},
                         &o->depth, err);
    for (uint32_t s = 0; ok && s < GPU_FRAMES_IN_FLIGHT; s++)
        ok = gpu_buffer_create(dev,
                               &(gpu_buffer_desc){.size = (VkDeviceSize)width * height * 4,
                                                  .usage = VK_BUFFER_USAGE_TRANSFER_DST_BIT,
                                                  .memory = GPU_MEMORY_READBACK,
                                                  .name = "offscreen readback"},
                               &o->readback[s], err);
    if (!ok)
        vks_offscreen_destroy(dev, o);
    return ok;
}

void vks_offscreen_bytes(uint32_t width, uint32_t height, VkFormat depth_format,
                         VkDeviceSize *device_bytes, VkDeviceSize *host_bytes)
{
    const VkDeviceSize pixels = (VkDeviceSize)width * height;
    const VkDeviceSize depth = depth_format == VK_FORMAT_D16_UNORM            ? 2
                               : depth_format == VK_FORMAT_D32_SFLOAT_S8_UINT ? 8
                                                                              : 4;
    *device_bytes = pixels * (4 + depth); /* RGBA8 color, depth */
    *host_bytes = pixels * 4 * GPU_FRAMES_IN_FLIGHT;
}

void vks_offscreen_destroy(const gpu_device *dev, vks_offscreen *o)
{
    gpu_image_destroy(dev, &o->color);
    gpu_image_destroy(dev, &o->depth);
    for (uint32_t s = 0; s < GPU_FRAMES_IN_FLIGHT; s++)
        gpu_buffer_destroy(dev, &o->readback[s]);
}

vks_draw_target vks_offscreen_target(const vks_offscreen *o)
{
    return (vks_draw_target){
        .color = o->color.image,
        .color_view = o->color.view,
        .depth = &o->depth,
        .extent = o->color.extent,
        .final_layout = VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL,
        .final_access = {VK_PIPELINE_STAGE_2_COPY_BIT, VK_ACCESS_2_TRANSFER_READ_BIT},
        .clear = {0.046f, 0.05f, 0.06f, 1.0f},
    };
}

void vks_copy_image_to_host(const gpu_device *dev, VkCommandBuffer cmd, VkImage image,
                            VkExtent2D extent, VkBuffer buffer)
{
    VkBufferImageCopy region = {0};
    region.imageSubresource = (VkImageSubresourceLayers){VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 1};
    region.imageExtent = (VkExtent3D){extent.width, extent.height, 1};
    dev->vk.vkCmdCopyImageToBuffer(cmd, image, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, buffer, 1,
                                   &region);
    gpu_barrier_buffer(dev, cmd, buffer,
                       (gpu_access){VK_PIPELINE_STAGE_2_COPY_BIT, VK_ACCESS_2_TRANSFER_WRITE_BIT},
                       (gpu_access){VK_PIPELINE_STAGE_2_HOST_BIT, VK_ACCESS_2_HOST_READ_BIT});
}

void vks_offscreen_copy(const gpu_device *dev, VkCommandBuffer cmd, const vks_offscreen *o,
                        uint32_t slot)
{
    /* The host reads it after the frame's fence, and before the slot's next frame is begun. */
    vks_copy_image_to_host(dev, cmd, o->color.image, o->color.extent, o->readback[slot].buffer);
}

const void *vks_offscreen_pixels(const gpu_device *dev, const vks_offscreen *o, uint32_t slot)
{
    gpu_buffer_invalidate(dev, &o->readback[slot]);
    return o->readback[slot].mapped;
}
