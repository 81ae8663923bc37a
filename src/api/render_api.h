/* The owned-device renderer's insides (vkskin_render.c), shared with its profiling
 * (vkskin_profile.c). */
#ifndef VKS_RENDER_API_H
#define VKS_RENDER_API_H

#include "api.h"
#include "binding.h"

#include "render/renderer.h"

#include "vkskin/vkskin_render.h"

struct vkskin_renderer {
    gpu_device dev;
    vkskin_logger logger; /* desc.logger: validation's messages, through api_log */
    struct vkskin_crowd *crowd;
    vks_renderer r;
    vks_target target;           /* the headless image or the window */
    vkskin_prepare_desc prepare; /* levels of detail and animation level of detail */
    const char *raster_note;     /* why AUTO chose the hardware rasterizer, or NULL */
    float splat_density;         /* the far splat's threshold (0: none), with a rasterizer */
};

#endif
