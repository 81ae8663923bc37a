#include "overlay.h"

#include <string.h>

extern const unsigned char vks_overlay_vert_spv[], vks_overlay_frag_spv[];
extern const size_t vks_overlay_vert_spv_size, vks_overlay_frag_spv_size;

typedef struct overlay_push {
    float view_proj[16];
    float size[2];
    uint32_t screen;
} overlay_push;

static VkPipeline create_pipeline(const gpu_device *dev, const vks_overlay_pass *pass,
                                  VkFormat color_format, VkFormat depth_format,
                                  vks_overlay_kind kind, VkShaderModule vs, VkShaderModule fs)
{
    const VkVertexInputBindingDescription binding = {0, sizeof(vks_overlay_vertex),
                                                     VK_VERTEX_INPUT_RATE_VERTEX};
    const VkVertexInputAttributeDescription attributes[2] = {
        {0, 0, VK_FORMAT_R32G32B32_SFLOAT, 0},
        {1, 0, VK_FORMAT_R8G8B8A8_UNORM, offsetof(vks_overlay_vertex, rgba)},
    };
    VkPipelineVertexInputStateCreateInfo vertex_input = {
        VK_STRUCTURE_TYPE_PIPELINE_VERTEX_INPUT_STATE_CREATE_INFO};
    vertex_input.vertexBindingDescriptionCount = 1;
    vertex_input.pVertexBindingDescriptions = &binding;
    vertex_input.vertexAttributeDescriptionCount = 2;
    vertex_input.pVertexAttributeDescriptions = attributes;
    const bool lines = kind == VKS_OVERLAY_WORLD_LINES || kind == VKS_OVERLAY_GROUND_LINES;
    /* The world's triangles and the ground's lines hide behind the crowd (depth test) and write no
     * depth, so that the next ones (the grid, the shadows on the ground) still draw over them. */
    const VkPipeline pipeline = gpu_pipeline_graphics(
        dev, &(gpu_graphics_desc){.vertex = vs,
                                  .fragment = fs,
                                  .vertex_input = &vertex_input,
                                  .topology = lines ? VK_PRIMITIVE_TOPOLOGY_LINE_LIST
                                                    : VK_PRIMITIVE_TOPOLOGY_TRIANGLE_LIST,
                                  .depth_test = kind == VKS_OVERLAY_WORLD_TRIANGLES ||
                                                kind == VKS_OVERLAY_GROUND_LINES,
                                  .depth_compare = VK_COMPARE_OP_LESS_OR_EQUAL,
                                  .blend = true,
                                  .color_format = color_format,
                                  .depth_format = depth_format,
                                  .layout = pass->layout});
    GPU_NAME(dev, VK_OBJECT_TYPE_PIPELINE, pipeline, "overlay pipeline %d", (int)kind);
    return pipeline;
}

bool vks_overlay_pass_create(const gpu_device *dev, VkFormat color_format, VkFormat depth_format,
                             vks_overlay_pass *pass, vks_error *err)
{
    *pass = (vks_overlay_pass){0};
    pass->layout = gpu_pipeline_layout(dev, NULL, 0, VK_SHADER_STAGE_VERTEX_BIT,
                                       sizeof(overlay_push), "overlay pipeline layout");
    if (!pass->layout)
        return vks_fail(err, "cannot create the overlay's pipeline layout (out of memory)");
    VkShaderModule vs =
        gpu_shader_module(dev, vks_overlay_vert_spv, vks_overlay_vert_spv_size, "overlay.vert");
    VkShaderModule fs =
        gpu_shader_module(dev, vks_overlay_frag_spv, vks_overlay_frag_spv_size, "overlay.frag");
    bool ok = vs && fs;
    for (int k = 0; ok && k < VKS_OVERLAY_KINDS; k++)
        ok = (pass->pipeline[k] = create_pipeline(dev, pass, color_format, depth_format,
                                                  (vks_overlay_kind)k, vs, fs)) != VK_NULL_HANDLE;
    if (vs)
        dev->vk.vkDestroyShaderModule(dev->device, vs, NULL);
    if (fs)
        dev->vk.vkDestroyShaderModule(dev->device, fs, NULL);
    if (!ok) {
        vks_overlay_pass_destroy(dev, pass);
        return vks_fail(err, "cannot create the overlay pipelines (out of memory)");
    }
    return true;
}

void vks_overlay_pass_destroy(const gpu_device *dev, vks_overlay_pass *pass)
{
    for (int k = 0; k < VKS_OVERLAY_KINDS; k++)
        if (pass->pipeline[k])
            dev->vk.vkDestroyPipeline(dev->device, pass->pipeline[k], NULL);
    if (pass->layout)
        dev->vk.vkDestroyPipelineLayout(dev->device, pass->layout, NULL);
    for (uint32_t s = 0; s < GPU_FRAMES_IN_FLIGHT; s++)
        gpu_buffer_destroy(dev, &pass->vertices[s]);
    *pass = (vks_overlay_pass){0};
}

bool vks_overlay_map(const gpu_device *dev, vks_overlay_pass *pass, uint32_t slot,
                     const vks_overlay_frame *frame, vks_overlay_vertex **vertices, vks_error *err)
{
    *vertices = NULL;
    VkDeviceSize bytes = 0;
    for (int k = 0; k < VKS_OVERLAY_KINDS; k++)
        bytes += (VkDeviceSize)frame->counts[k] * sizeof(vks_overlay_vertex);
    gpu_buffer *buf = &pass->vertices[slot];
    if (buf->size < bytes) { /* grown to the next power of two: a few growths at most */
        VkDeviceSize size = 4096;
        while (size < bytes)
            size *= 2;
        gpu_buffer_destroy(dev, buf);
        if (!gpu_buffer_create(dev,
                               &(gpu_buffer_desc){.size = size,
                                                  .usage = VK_BUFFER_USAGE_VERTEX_BUFFER_BIT,
                                                  .memory = GPU_MEMORY_UPLOAD,
                                                  .name = "overlay vertices"},
                               buf, err))
            return false;
    }
    *vertices = buf->mapped;
    return true;
}

void vks_overlay_record(const gpu_device *dev, VkCommandBuffer cmd, const vks_overlay_pass *pass,
                        uint32_t slot, const vks_overlay_frame *frame, VkExtent2D extent)
{
    overlay_push push = {.size = {(float)extent.width, (float)extent.height}};
    memcpy(push.view_proj, frame->view_proj, sizeof push.view_proj);
    uint32_t first = 0;
    bool bound = false; /* the vertex buffer, once: every kind's vertices are in it */
    for (int k = 0; k < VKS_OVERLAY_KINDS; k++) {
        const uint32_t n = frame->counts[k];
        if (!n)
            continue;
        if (!bound) {
            const VkDeviceSize offset = 0;
            dev->vk.vkCmdBindVertexBuffers(cmd, 0, 1, &pass->vertices[slot].buffer, &offset);
            bound = true;
        }
        push.screen = k == VKS_OVERLAY_SCREEN_TRIANGLES;
        dev->vk.vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_GRAPHICS, pass->pipeline[k]);
        dev->vk.vkCmdPushConstants(cmd, pass->layout, VK_SHADER_STAGE_VERTEX_BIT, 0, sizeof push,
                                   &push);
        dev->vk.vkCmdDraw(cmd, n, 1, first, 0);
        first += n;
    }
}
