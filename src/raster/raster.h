/* The compute rasterizer: shaders/raster.comp as a compute pipeline. Each dispatch rasterizes one
 * mesh of one (model, level) for a range of the frame's visible entries: one invocation per
 * triangle, one row of workgroups per entry. Each covered pixel center of a front-facing
 * triangle goes into a visibility buffer of 64-bit words by atomicMin: the depth's float bits
 * above (the nearest wins, as the draw pass's depth test LESS), the visible entry and the
 * triangle below (vks_raster_push in shaders/vks_shared.h). A resolve turns that buffer into
 * colour. It needs the device features shaderInt64 and shaderBufferInt64Atomics
 * (gpu_device.int64_atomics). The caller owns the buffers and the barriers around the dispatch. */
#ifndef VKS_RASTER_H
#define VKS_RASTER_H

#include "../../shaders/vks_shared.h"
#include "../gpu/gpu.h"

/* raster.comp's workgroup: 64 triangles. */
#define VKS_RASTER_GROUP_SIZE 64u
/* The visibility buffer's empty word: farther than any depth. */
#define VKS_RASTER_EMPTY UINT64_MAX

typedef struct vks_raster_pass {
    VkPipelineLayout layout;
    VkPipeline pipeline;
    uint32_t max_groups[2]; /* maxComputeWorkGroupCount x, y */
    uint32_t subpixel_bits; /* the device's subPixelPrecisionBits, which the shader snaps to */
} vks_raster_pass;

/* Fails with a message on a device without the 64-bit atomics. */
bool vks_raster_pass_create(const gpu_device *dev, vks_raster_pass *pass, vks_error *err);
void vks_raster_pass_destroy(const gpu_device *dev, vks_raster_pass *pass);

/* How the low word packs ids, for meshes of at most `triangles` triangles and `visible` entries:
 * *triangle_bits for the triangle (as many as its largest index needs), the entry above them.
 * False when the two do not fit in 32 bits. */
bool vks_raster_id_bits(uint32_t triangles, uint32_t visible, uint32_t *triangle_bits);

/* Records the rasterization of push->triangle_count triangles for `visible_count` visible
 * entries from push->visible_first (nothing when either is 0). push->subpixel_bits is set here. */
void vks_raster_pass_record(VkCommandBuffer cmd, const vks_raster_pass *pass,
                            const vks_raster_push *push, uint32_t visible_count);

#endif
