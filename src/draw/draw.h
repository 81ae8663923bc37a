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

#include <assert.h>

/* The draw's pipelines: pulling pre-skinned vertices, or skinning in the vertex shader, one
 * pipeline per skinning variant (skin/skin_gpu.h: 4 or 8 influences, linear blending or dual
 * quaternions, morph targets or not): VKS_DRAW_SKIN + variant. */
typedef enum vks_draw_kind {
    VKS_DRAW_PULLED,
    VKS_DRAW_SKIN,
    VKS_DRAW_KINDS = VKS_DRAW_SKIN + VKS_SKIN_DRAW_VARIANTS
} vks_draw_kind;

/* The vertex-skinning kind of a skinning variant (one the draw has: below
 * VKS_SKIN_DRAW_VARIANTS). */
static inline vks_draw_kind vks_draw_skin_kind(uint32_t variant)
{
    assert(variant < VKS_SKIN_DRAW_VARIANTS);
    return (vks_draw_kind)(VKS_DRAW_SKIN + variant);
}

typedef struct vks_draw_pass {
    VkDescriptorSetLayout frame_layout;    /* set 0: vks_frame_uniforms */
    VkDescriptorSetLayout material_layout; /* set 1: base-color texture */
    /* Set 2 on the descriptors binding: the data set (VKS_DATA_*), the caller's; VK_NULL_HANDLE
     * on the addresses binding. */
    VkDescriptorSetLayout data_layout;
    VkPipelineLayout layout;
    /* [VKS_DRAW_PULLED]: pulls pre-skinned vertices (compute mode only); the others skin in the
     * vertex shader (vertex mode, and in compute mode for the instances a frame's output budget
     * left out). */
    VkPipeline pipeline[VKS_DRAW_KINDS];
    VkSampler sampler; /* trilinear, repeat, anisotropic where the device allows */
    VkFormat color_format, depth_format;
    vks_skin_mode mode;
} vks_draw_pass;

/* data_layout: the descriptors binding's set layout, as in vks_skin_pass_create. features: the
 * skinning variants to make besides linear blending, as there (vks_skin_variant_made). */
bool vks_draw_pass_create(const gpu_device *dev, VkFormat color_format, VkFormat depth_format,
                          vks_skin_mode mode, uint32_t features, VkDescriptorSetLayout data_layout,
                          vks_draw_pass *pass, vks_error *err);
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
    /* Called inside the rendering, after the crowd's draws (overlays), when set. */
    void (*extra)(VkCommandBuffer cmd, void *user);
    void *extra_user;
} vks_draw_target;

/* Begins rendering into the target: layout transitions, clears, viewport and scissor. Bind a
 * pipeline before the first draw. */
void vks_draw_begin(const gpu_device *dev, VkCommandBuffer cmd, const vks_draw_target *t);
/* Binds the pipeline for the instances drawn next (push constants and sets stay: one layout). */
void vks_draw_bind(const gpu_device *dev, VkCommandBuffer cmd, const vks_draw_pass *pass,
                   vks_draw_kind kind);
/* Ends rendering and moves the color image to the target's final layout. */
void vks_draw_end(const gpu_device *dev, VkCommandBuffer cmd, const vks_draw_target *t);

#endif
