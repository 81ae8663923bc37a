/* The window target: a swapchain on the device's surface (gpu_device.surface, which the host's
 * window system made), rebuilt when the host's framebuffer size changes or the surface says it is
 * out of date, none while the window is minimised; a depth image of the same size. Nothing here
 * knows the window system: the host says the framebuffer's size each frame. */
#ifndef VKS_SWAPCHAIN_H
#define VKS_SWAPCHAIN_H

#include "../draw/draw.h"

#define VKS_SWAPCHAIN_MAX_IMAGES 8

typedef struct vks_swapchain {
    const gpu_device *dev;
    bool vsync;
    bool stale; /* rebuild before the next acquire (out of date, suboptimal) */
    VkSurfaceFormatKHR format;
    VkSwapchainKHR swapchain;
    VkExtent2D extent;    /* of the images */
    VkExtent2D requested; /* the framebuffer size it was built for */
    uint32_t image_count;
    VkImage images[VKS_SWAPCHAIN_MAX_IMAGES];
    VkImageView views[VKS_SWAPCHAIN_MAX_IMAGES];
    /* Per image: signalled when drawing into it is done; reused only when the image comes back. */
    VkSemaphore presentable[VKS_SWAPCHAIN_MAX_IMAGES];
    VkSemaphore acquired[GPU_FRAMES_IN_FLIGHT]; /* per frame slot */
    gpu_image depth;
    VkFormat depth_format;
    bool built;        /* a swapchain was built once */
    bool transfer_src; /* its images can be copied from */
    bool capturable;   /* ... and are 8-bit RGBA or BGRA: a screenshot is 4 bytes a pixel */
    uint32_t rebuilds; /* builds after the first */
} vks_swapchain;

/* Picks the color format (8-bit sRGB where the surface offers it) and creates the semaphores; the
 * swapchain itself is built by the first acquire, at the size it is given. */
bool vks_swapchain_create(const gpu_device *dev, VkFormat depth_format, bool vsync,
                          vks_swapchain *sc, vks_error *err);
void vks_swapchain_destroy(vks_swapchain *sc);

typedef struct vks_swapchain_frame {
    uint32_t image;
    VkSemaphore acquired;    /* signalled when the image may be drawn into */
    VkSemaphore presentable; /* to signal when drawing is done; presentation waits on it */
    vks_draw_target target;
} vks_swapchain_frame;

typedef enum vks_acquire { VKS_ACQUIRED, VKS_ACQUIRE_SKIP, VKS_ACQUIRE_ERROR } vks_acquire;

/* Acquires the next image for frame slot `slot` (< GPU_FRAMES_IN_FLIGHT; its previous use must
 * have completed), the framebuffer being width x height now: a new size rebuilds the swapchain
 * first. VKS_ACQUIRE_SKIP: minimised (a zero size), or the swapchain went out of date: draw
 * nothing this time. */
vks_acquire vks_swapchain_acquire(vks_swapchain *sc, uint32_t slot, uint32_t width, uint32_t height,
                                  vks_swapchain_frame *frame, vks_error *err);
/* Presents; an out-of-date or suboptimal swapchain is rebuilt before the next acquire. */
bool vks_swapchain_present(vks_swapchain *sc, const vks_swapchain_frame *frame, vks_error *err);

#endif
