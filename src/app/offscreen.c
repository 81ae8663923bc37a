#include "offscreen.h"

#include <errno.h>
#include <stb/stb_image_write.h>
#include <string.h>

bool app_offscreen_create(const gpu_device *dev, uint32_t width, uint32_t height,
                          VkFormat depth_format, app_offscreen *o, vks_error *err)
{
    *o = (app_offscreen){0};
    bool ok =
        gpu_image_create(dev,
                         &(gpu_image_desc){.width = width,
                                           .height = height,
                                           .format = APP_OFFSCREEN_FORMAT,
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
                         &o->depth, err) &&
        gpu_buffer_create(dev,
                          &(gpu_buffer_desc){.size = (VkDeviceSize)width * height * 4,
                                             .usage = VK_BUFFER_USAGE_TRANSFER_DST_BIT,
                                             .memory = GPU_MEMORY_READBACK,
                                             .name = "offscreen readback"},
                          &o->readback, err);
    if (!ok)
        app_offscreen_destroy(dev, o);
    return ok;
}

void app_offscreen_destroy(const gpu_device *dev, app_offscreen *o)
{
    gpu_image_destroy(dev, &o->color);
    gpu_image_destroy(dev, &o->depth);
    gpu_buffer_destroy(dev, &o->readback);
}

vks_draw_target app_offscreen_target(const app_offscreen *o)
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

void app_offscreen_copy(VkCommandBuffer cmd, const app_offscreen *o)
{
    VkBufferImageCopy region = {0};
    region.imageSubresource = (VkImageSubresourceLayers){VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 1};
    region.imageExtent = (VkExtent3D){o->color.extent.width, o->color.extent.height, 1};
    vkCmdCopyImageToBuffer(cmd, o->color.image, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL,
                           o->readback.buffer, 1, &region);
    /* The host reads it after the frame's fence. The previous frame's host read of this buffer
     * finished before this frame was recorded (the caller waits before writing the PNG). */
    gpu_barrier_buffer(cmd, o->readback.buffer,
                       (gpu_access){VK_PIPELINE_STAGE_2_COPY_BIT, VK_ACCESS_2_TRANSFER_WRITE_BIT},
                       (gpu_access){VK_PIPELINE_STAGE_2_HOST_BIT, VK_ACCESS_2_HOST_READ_BIT});
}

bool app_offscreen_write_png(const gpu_device *dev, const app_offscreen *o, const char *path,
                             vks_error *err)
{
    gpu_buffer_invalidate(dev, &o->readback);
    int w = (int)o->color.extent.width, h = (int)o->color.extent.height;
    errno = 0;
    if (!stbi_write_png(path, w, h, 4, o->readback.mapped, w * 4))
        return vks_fail(err, "cannot write '%s'%s%s", path, errno ? ": " : "",
                        errno ? strerror(errno) : "");
    return true;
}
