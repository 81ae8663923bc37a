/* The compute rasterizer (raster.h). */
#include "raster.h"

#include <assert.h>

extern const unsigned char vks_raster_comp_spv[];
extern const size_t vks_raster_comp_spv_size;

/* The bits indices 0 to n - 1 need. */
static uint32_t raster__bits(uint32_t n)
{
    uint32_t bits = 0;
    while (bits < 32 && ((uint64_t)1 << bits) < n)
        bits++;
    return bits;
}

bool vks_raster_id_bits(uint32_t triangles, uint32_t visible, uint32_t *triangle_bits)
{
    *triangle_bits = raster__bits(triangles);
    return *triangle_bits + raster__bits(visible) <= 32;
}

bool vks_raster_pass_create(const gpu_device *dev, vks_raster_pass *pass, vks_error *err)
{
    *pass = (vks_raster_pass){0};
    if (!dev->int64_atomics)
        return vks_fail(err,
                        "the compute rasterizer needs the device features shaderInt64 and "
                        "shaderBufferInt64Atomics, which %s lacks",
                        dev->props.deviceName);
    const VkPhysicalDeviceLimits *l = &dev->props.limits;
    pass->max_groups[0] = l->maxComputeWorkGroupCount[0];
    pass->max_groups[1] = l->maxComputeWorkGroupCount[1];
    pass->subpixel_bits = l->subPixelPrecisionBits;

    pass->layout = gpu_pipeline_layout(dev, NULL, 0, VK_SHADER_STAGE_COMPUTE_BIT,
                                       sizeof(vks_raster_push), "raster pipeline layout");
    if (!pass->layout)
        return vks_fail(err, "cannot create the raster pipeline layout (out of memory)");
    pass->pipeline = gpu_pipeline_compute(dev, &(gpu_compute_desc){
                                                   .spirv = vks_raster_comp_spv,
                                                   .spirv_size = vks_raster_comp_spv_size,
                                                   .layout = pass->layout,
                                                   .name = "raster.comp",
                                               });
    if (!pass->pipeline) {
        vks_raster_pass_destroy(dev, pass);
        return vks_fail(err, "cannot create the raster pipeline (out of memory)");
    }
    return true;
}

void vks_raster_pass_destroy(const gpu_device *dev, vks_raster_pass *pass)
{
    if (pass->pipeline)
        vkDestroyPipeline(dev->device, pass->pipeline, NULL);
    if (pass->layout)
        vkDestroyPipelineLayout(dev->device, pass->layout, NULL);
    *pass = (vks_raster_pass){0};
}

void vks_raster_pass_record(VkCommandBuffer cmd, const vks_raster_pass *pass,
                            const vks_raster_push *push, uint32_t visible_count)
{
    if (!push->triangle_count || !visible_count)
        return;
    const uint32_t groups =
        (push->triangle_count + VKS_RASTER_GROUP_SIZE - 1) / VKS_RASTER_GROUP_SIZE;
    assert(groups <= pass->max_groups[0]);
    vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, pass->pipeline);
    /* Rows of visible entries, as many as the device takes a dispatch. */
    for (uint32_t done = 0; done < visible_count;) {
        const uint32_t left = visible_count - done;
        const uint32_t rows = left < pass->max_groups[1] ? left : pass->max_groups[1];
        vks_raster_push p = *push;
        p.visible_first += done;
        p.subpixel_bits = pass->subpixel_bits;
        vkCmdPushConstants(cmd, pass->layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, sizeof p, &p);
        vkCmdDispatch(cmd, groups, rows, 1);
        done += rows;
    }
}
