/* The headless target: an offscreen color image and a depth image, the color read back into
 * host memory after each frame. */
#ifndef VKS_OFFSCREEN_H
#define VKS_OFFSCREEN_H

#include "../draw/draw.h"

#define VKS_OFFSCREEN_FORMAT VK_FORMAT_R8G8B8A8_SRGB

typedef struct vks_offscreen {
    gpu_image color, depth;
    /* Per frame slot: width * height * 4 bytes, RGBA8 sRGB, first row at the top. One each, so a
     * frame's copy never waits on the host's read of the one before. */
    gpu_buffer readback[GPU_FRAMES_IN_FLIGHT];
} vks_offscreen;

bool vks_offscreen_create(const gpu_device *dev, uint32_t width, uint32_t height,
                          VkFormat depth_format, vks_offscreen *o, vks_error *err);
void vks_offscreen_destroy(const gpu_device *dev, vks_offscreen *o);
/* What vks_offscreen_create allocates, for the memory plan: its color and depth images' bytes
 * (device-local) and its readback buffers' (host-visible). */
void vks_offscreen_bytes(uint32_t width, uint32_t height, VkFormat depth_format,
                         VkDeviceSize *device_bytes, VkDeviceSize *host_bytes);

/* The draw target; it leaves the color image ready for vks_offscreen_copy. */
vks_draw_target vks_offscreen_target(const vks_offscreen *o);
/* Records the copy of a color image (in TRANSFER_SRC_OPTIMAL, `extent` in size) into a host
 * buffer, which the host reads after the frame's fence: the headless image's readback and a
 * window's capture. */
void vks_copy_image_to_host(const gpu_device *dev, VkCommandBuffer cmd, VkImage image,
                            VkExtent2D extent, VkBuffer buffer);
/* Records the copy of the color image into frame slot `slot`'s readback buffer (after the
 * draw). */
void vks_offscreen_copy(const gpu_device *dev, VkCommandBuffer cmd, const vks_offscreen *o,
                        uint32_t slot);
/* After the fence of the frame that copied into `slot`: its image, width * height * 4 bytes
 * (RGBA8 sRGB, first row at the top), valid until the slot's next frame is begun. */
const void *vks_offscreen_pixels(const gpu_device *dev, const vks_offscreen *o, uint32_t slot);

#endif
