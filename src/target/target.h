/* What a frame draws into, one of two kinds behind one face: the headless image (offscreen.h),
 * read back after every frame, or a window's swapchain (swapchain.h), whose images a frame may
 * copy out before presenting them (a capture). Per frame:
 *
 *   vks_target_acquire(t, slot, width, height, capture, &tf, err);   the image to draw into
 *   ... draw into tf.draw ...
 *   vks_target_finish(t, cmd, &tf, err);     the headless copy, or the window's capture
 *   ... submit, waiting on tf.wait and signalling tf.signal ...
 *   vks_target_present(t, &tf, err);         a window's image to the screen
 */
#ifndef VKS_TARGET_H
#define VKS_TARGET_H

#include "offscreen.h"
#include "swapchain.h"

typedef struct vks_target_desc {
    bool window;            /* the device's surface (gpu_device.surface), else a headless image */
    uint32_t width, height; /* the headless image's size */
    VkFormat depth_format;
    bool vsync; /* a window's presentation waits for the display */
} vks_target_desc;

typedef struct vks_target {
    const gpu_device *dev;
    bool window;
    vks_offscreen offscreen; /* headless */
    vks_swapchain swapchain; /* a window */
    VkExtent2D extent;       /* of the last image acquired */
    /* A window's captures, per frame slot: the image copied out (in the swapchain's format), its
     * size, and whether the slot's last frame made one. */
    gpu_buffer capture[GPU_FRAMES_IN_FLIGHT];
    VkExtent2D capture_extent[GPU_FRAMES_IN_FLIGHT];
    bool captured[GPU_FRAMES_IN_FLIGHT];
} vks_target;

/* One frame's image. */
typedef struct vks_target_frame {
    uint32_t slot;
    vks_draw_target draw;   /* what the draw renders into, and the layout it leaves */
    VkSemaphore wait;       /* the submission waits on it at color output (null headless) */
    VkSemaphore signal;     /* the submission signals it; presentation waits on it */
    bool capture;           /* a window's image copied out by vks_target_finish */
    vks_swapchain_frame sc; /* a window's image */
} vks_target_frame;

bool vks_target_create(const gpu_device *dev, const vks_target_desc *desc, vks_target *t,
                       vks_error *err);
void vks_target_destroy(vks_target *t);
/* The color format of the images a frame draws into. */
VkFormat vks_target_color_format(const vks_target *t);

/* Frame slot `slot`'s image (its previous use complete): the headless one, or a window's next
 * at the framebuffer's size now (width x height; a new size rebuilds the swapchain). capture: a
 * window's image is to be copied out (when its swapchain allows: vks_target_can_capture).
 * VKS_ACQUIRE_SKIP: a window with nothing to draw into this time (minimised, out of date). */
vks_acquire vks_target_acquire(vks_target *t, uint32_t slot, uint32_t width, uint32_t height,
                               bool capture, vks_target_frame *tf, vks_error *err);
/* Records what follows the draw into cmd: the headless image's copy into its slot's readback, or
 * a window's capture (the image then left ready to present). False, with a message, when out of
 * memory for the capture. */
bool vks_target_finish(vks_target *t, VkCommandBuffer cmd, const vks_target_frame *tf,
                       vks_error *err);
/* A window's image presented (after the frame's submission); nothing headless. */
bool vks_target_present(vks_target *t, const vks_target_frame *tf, vks_error *err);

/* Whether a window's images can be captured (8-bit RGBA or BGRA, copyable): always headless. */
bool vks_target_can_capture(const vks_target *t);
/* Whether frame slot `slot`'s last frame left an image to read (headless: always). */
bool vks_target_has_image(const vks_target *t, uint32_t slot);
/* After the fence of slot `slot`'s last frame: its image as RGBA8 (a window's swizzled from BGRA
 * where it is, alpha opaque), width * height * 4 bytes of the size it was drawn at
 * (vks_target_image_extent). */
void vks_target_read(const vks_target *t, uint32_t slot, void *rgba);
VkExtent2D vks_target_image_extent(const vks_target *t, uint32_t slot);

#endif
