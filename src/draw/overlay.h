/* Overlays over a frame, drawn in the draw pass after the crowd: world-space triangles and lines
 * depth-tested against the crowd and not writing depth (a ground, its grid, contact shadows),
 * world-space lines over everything (a skeleton), then screen-space triangles in pixels (a
 * heads-up display), all alpha-blended.
 * Vertices come from the host each frame, copied into a per-frame-slot vertex buffer that grows as
 * needed (shaders/overlay.vert). */
#ifndef VKS_OVERLAY_H
#define VKS_OVERLAY_H

#include "draw.h"

/* A vertex: a position (world units, or pixels from the top left with z ignored) and a color,
 * RGBA8 in sRGB (red in the lowest byte), alpha blended. 16 bytes, the public
 * vkskin_overlay_vertex. */
typedef struct vks_overlay_vertex {
    float position[3];
    uint32_t rgba;
} vks_overlay_vertex;

/* Drawn in this order: triangles in the world (depth-tested), lines in the world depth-tested
 * (the ground's grid) and on top (a skeleton), screen triangles. */
typedef enum vks_overlay_kind {
    VKS_OVERLAY_WORLD_TRIANGLES,
    VKS_OVERLAY_GROUND_LINES,
    VKS_OVERLAY_WORLD_LINES,
    VKS_OVERLAY_SCREEN_TRIANGLES,
    VKS_OVERLAY_KINDS
} vks_overlay_kind;

typedef struct vks_overlay_pass {
    VkPipelineLayout layout;
    VkPipeline pipeline[VKS_OVERLAY_KINDS];
    gpu_buffer vertices[GPU_FRAMES_IN_FLIGHT]; /* host-visible, per frame slot */
} vks_overlay_pass;

bool vks_overlay_pass_create(const gpu_device *dev, VkFormat color_format, VkFormat depth_format,
                             vks_overlay_pass *pass, vks_error *err);
void vks_overlay_pass_destroy(const gpu_device *dev, vks_overlay_pass *pass);

/* One frame's overlays: how many vertices of each kind, one kind after the other in the slot's
 * buffer (counts of 0 draw nothing). */
typedef struct vks_overlay_frame {
    uint32_t counts[VKS_OVERLAY_KINDS];
    float view_proj[16];
} vks_overlay_frame;

/* Slot `slot`'s buffer (its last use is done: its fence was waited on), grown to hold the frame's
 * vertices if needed, mapped into *vertices: the caller writes each kind's counts[k] vertices in
 * turn (nothing when they are all 0). False when out of memory. */
bool vks_overlay_map(const gpu_device *dev, vks_overlay_pass *pass, uint32_t slot,
                     const vks_overlay_frame *frame, vks_overlay_vertex **vertices, vks_error *err);
/* Records the draws, inside the draw pass's rendering (after the crowd's draws). */
void vks_overlay_record(const gpu_device *dev, VkCommandBuffer cmd, const vks_overlay_pass *pass,
                        uint32_t slot, const vks_overlay_frame *frame, VkExtent2D extent);

#endif
