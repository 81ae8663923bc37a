/* The draw pass: a graphics pipeline over instanced meshes (dynamic rendering, depth test, one
 * directional light plus ambient, base color factor times an sRGB base-color texture). Its vertex
 * shader pulls pre-skinned vertices (shaders/mesh.vert, compute mode) or skins the bind pose
 * itself (shaders/mesh_skin.vert, vertex mode); shaders/mesh.frag shades. Sets and push
 * constants: shaders/vks_shared.h. */
#ifndef VKS_DRAW_H
#define VKS_DRAW_H

#include "../gpu/gpu.h"
#include "../skin/skin_gpu.h"
#include "../../shaders/vks_shared.h"

typedef struct vks_draw_pass {
    VkDescriptorSetLayout frame_layout;    /* set 0: vks_frame_uniforms */
    VkDescriptorSetLayout material_layout; /* set 1: base-color texture */
    VkPipelineLayout layout;
    VkPipeline pipeline[2]; /* [1]: vertex mode's 8-influence variant for wide models (else 0) */
    VkSampler sampler; /* trilinear, repeat, anisotropic where the device allows */
    VkFormat color_format, depth_format;
    vks_skin_mode mode;
} vks_draw_pass;

bool vks_draw_pass_create(const gpu_device *dev, VkFormat color_format, VkFormat depth_format,
                          vks_skin_mode mode, vks_draw_pass *pass, vks_error *err);
void vks_draw_pass_destroy(const gpu_device *dev, vks_draw_pass *pass);

/* A depth format the device can render to (D32 preferred). */
VkFormat vks_draw_depth_format(const gpu_device *dev);

/* Where one frame is drawn: a color image (a swapchain image or an offscreen one) and a depth
 * image of the same extent. The pass transitions the color image from UNDEFINED (its contents are
 * cleared) to final_layout, visible to `final_access`. */
typedef struct vks_draw_target {
    VkImage color;
    VkImageView color_view;
    const gpu_image *depth;
    VkExtent2D extent;
    VkImageLayout final_layout;
    gpu_access final_access;
    float clear[4]; /* linear RGBA */
} vks_draw_target;

/* Begins rendering into the target: layout transitions, clears, viewport and scissor, and the
 * 4-influence pipeline bound. */
void vks_draw_begin(VkCommandBuffer cmd, const vks_draw_pass *pass, const vks_draw_target *t);
/* Binds the pipeline for the models drawn next: in vertex mode the 8-influence variant for wide
 * ones (push constants and sets stay: one layout). */
void vks_draw_bind(VkCommandBuffer cmd, const vks_draw_pass *pass, bool wide);
/* Ends rendering and moves the color image to the target's final layout. */
void vks_draw_end(VkCommandBuffer cmd, const vks_draw_target *t);

#endif
