/* The owned-device renderer's insides (vkskin_render.c), shared with its profiling
 * (vkskin_profile.c). */
#ifndef VKS_RENDER_API_H
#define VKS_RENDER_API_H

#include "api.h"
#include "binding.h"

#include "draw/overlay.h"
#include "render/renderer.h"
#include "target/offscreen.h"
#include "target/swapchain.h"

#include "vkskin/vkskin_render.h"

struct vkskin_renderer {
    gpu_device dev;
    vkskin_logger logger; /* desc.logger: validation's messages, through api_log */
    struct vkskin_crowd *crowd;
    vks_renderer r;
    bool window, readback;
    vks_offscreen offscreen;     /* headless */
    vks_swapchain swapchain;     /* a window */
    VkExtent2D extent;           /* of the last image drawn */
    vkskin_prepare_desc prepare; /* levels of detail and animation level of detail */
    uint8_t *update;             /* with the store: per visible slot, posed this frame */
    uint32_t update_room;        /* its entries */
    const char *raster_note;     /* why AUTO chose the hardware rasterizer, or NULL */
    vks_frame *last;             /* the last frame submitted, NULL before any */
    bool broken; /* a frame failed to be submitted or presented: every later frame fails */
    vks_overlay_pass overlay; /* the ground and the host's overlays */
    /* A window's captured frames, per slot: the swapchain image copied out (in the swapchain's
     * format) and its size. */
    gpu_buffer capture[GPU_FRAMES_IN_FLIGHT];
    VkExtent2D capture_extent[GPU_FRAMES_IN_FLIGHT];
    bool captured[GPU_FRAMES_IN_FLIGHT];
};

#endif
