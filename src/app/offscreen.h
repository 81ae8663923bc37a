/* The headless target: an offscreen color image and a depth image, read back to PNG. */
#ifndef VKS_APP_OFFSCREEN_H
#define VKS_APP_OFFSCREEN_H

#include "draw/draw.h"

#define APP_OFFSCREEN_FORMAT VK_FORMAT_R8G8B8A8_SRGB

typedef struct app_offscreen {
    gpu_image color, depth;
    gpu_buffer readback; /* width * height * 4 bytes, RGBA8 sRGB, first row at the top */
} app_offscreen;

bool app_offscreen_create(const gpu_device *dev, uint32_t width, uint32_t height,
                          VkFormat depth_format, app_offscreen *o, vks_error *err);
void app_offscreen_destroy(const gpu_device *dev, app_offscreen *o);

/* The draw target; it leaves the color image ready for app_offscreen_copy. */
vks_draw_target app_offscreen_target(const app_offscreen *o);
/* Records the copy of the color image into the readback buffer (after the draw). */
void app_offscreen_copy(VkCommandBuffer cmd, const app_offscreen *o);
/* After the frame's fence: writes the readback buffer as a PNG. */
bool app_offscreen_write_png(const gpu_device *dev, const app_offscreen *o, const char *path,
                             vks_error *err);

#endif
