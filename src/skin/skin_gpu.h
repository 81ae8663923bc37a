/* The skinning pass: shaders/skin.comp as a compute pipeline, one invocation per vertex of every
 * visible instance, one dispatch per model and level of detail. The push constants carry the device
 * addresses of everything it reads and writes (layouts in shaders/vks_shared.h); or, on the
 * descriptors binding, it reads and writes through the descriptors of a set the caller binds (set
 * 0). The caller owns the buffers, the sets and the barriers around the dispatch
 * (src/render/skinner_frame.c). */
#ifndef VKS_SKIN_GPU_H
#define VKS_SKIN_GPU_H

#include "../gpu/gpu.h"
#include "../../shaders/vks_shared.h"

/* Where skinning runs: in this pass, once per vertex per frame, with the draw pulling the result;
 * or in the draw's vertex shader, once per vertex shader invocation (as the tutorials do). */
typedef enum vks_skin_mode {
    VKS_SKIN_COMPUTE,
    VKS_SKIN_VERTEX,
} vks_skin_mode;

/* The skinning's pipeline variants (vks_skin.glsl's specialization constants), as bits: each
 * compiles only its own path, so that a model runs exactly the code its features need. */
#define VKS_SKIN_VARIANT_WIDE 1u  /* VKS_SKIN_WIDE: 8 influences */
#define VKS_SKIN_VARIANT_DQ 2u    /* VKS_SKIN_DQ: dual quaternions */
#define VKS_SKIN_VARIANT_MORPH 4u /* VKS_SKIN_MORPH: morph targets before skinning */
/* The variants the draw's vertex shader has too (it stages nothing): below this. */
#define VKS_SKIN_DRAW_VARIANTS 8u
#define VKS_SKIN_VARIANT_STAGE 8u /* VKS_SKIN_STAGE: the pose staged in shared memory */
#define VKS_SKIN_VARIANTS 16u

/* Whether variant v is among those made for `features` (VKS_SKIN_VARIANT_DQ, _MORPH and _STAGE
 * bits: the others' variants are not made; 4 and 8 influences always are). */
static inline bool vks_skin_variant_made(uint32_t v, uint32_t features)
{
    return (v & ~(features | VKS_SKIN_VARIANT_WIDE)) == 0;
}

typedef struct vks_skin_pass {
    VkPipelineLayout layout;                /* set 0: the data set on the descriptors binding */
    VkPipeline pipeline[VKS_SKIN_VARIANTS]; /* by variant; those not made are VK_NULL_HANDLE */
    /* The staging variants' shared array, in vec4s (0: none made): a model's pose of at most
     * this many is staged. */
    uint32_t stage_vec4s;
    uint32_t group_size;
    uint32_t max_groups[3]; /* maxComputeWorkGroupCount */
} vks_skin_pass;

/* The most vec4s a staging variant's shared array may hold on `dev`. */
uint32_t vks_skin_stage_limit(const gpu_device *dev);
/* group_size 0 means VKS_SKIN_GROUP_SIZE; others must be a power of two the device allows.
 * features: the variants to make besides linear blending (vks_skin_variant_made); with
 * VKS_SKIN_VARIANT_STAGE, stage_vec4s sizes the staging variants' shared array (at most the
 * device's shared memory: vks_skin_stage_limit). data_layout: the descriptors binding's set layout
 * (VKS_DATA_*), whose shader build it then runs; VK_NULL_HANDLE for the addresses binding. */
bool vks_skin_pass_create(const gpu_device *dev, uint32_t group_size, uint32_t features,
                          uint32_t stage_vec4s, VkDescriptorSetLayout data_layout,
                          vks_skin_pass *pass, vks_error *err);
void vks_skin_pass_destroy(const gpu_device *dev, vks_skin_pass *pass);

/* The dispatch's size for `visible_count` instances of one model of `vertex_count` vertices:
 * x covers the vertices (the shader loops when they exceed the device's limit), y and z the
 * instances. */
void vks_skin_pass_groups(const vks_skin_pass *pass, uint32_t vertex_count, uint32_t visible_count,
                          uint32_t groups[3]);
/* Records the dispatch over push->visible_count instances of one model (nothing when 0) with
 * its variant. */
void vks_skin_pass_record(const gpu_device *dev, VkCommandBuffer cmd, const vks_skin_pass *pass,
                          const vks_skin_push *push, uint32_t vertex_count, uint32_t variant);

/* A plain copy kernel over buffers of the same size as a skinning pass's traffic: the roofline
 * the bench compares the skinning pass's effective bandwidth with. */
typedef struct vks_copy_pass {
    VkPipelineLayout layout;
    VkPipeline pipeline;
    uint32_t max_groups_x;
} vks_copy_pass;

bool vks_copy_pass_create(const gpu_device *dev, vks_copy_pass *pass, vks_error *err);
void vks_copy_pass_destroy(const gpu_device *dev, vks_copy_pass *pass);
/* Records a copy of `bytes` (a multiple of 16) from src to dst (device addresses). */
void vks_copy_pass_record(const gpu_device *dev, VkCommandBuffer cmd, const vks_copy_pass *pass,
                          VkDeviceAddress src, VkDeviceAddress dst, VkDeviceSize bytes);
/* Times a copy kernel over `bytes` read and written (each buffer at most 1 GiB and a quarter of
 * the largest heap; halved down to 16 MiB when device memory runs short): the median of 9 runs,
 * each its own submission, waited on. *moved gets the bytes moved, 0 (and *ms untouched) when the
 * device has no timestamps. */
bool vks_copy_measure(const gpu_device *dev, VkDeviceSize bytes, double *moved, double *ms,
                      vks_error *err);

#endif
