#include "draw.h"

#include <assert.h>
#include <stddef.h>

extern const unsigned char vks_mesh_vert_spv[], vks_mesh_skin_vert_spv[], vks_mesh_frag_spv[];
extern const size_t vks_mesh_vert_spv_size, vks_mesh_skin_vert_spv_size, vks_mesh_frag_spv_size;
extern const unsigned char vks_mesh_vert_descriptors_spv[], vks_mesh_skin_vert_descriptors_spv[];
extern const size_t vks_mesh_vert_descriptors_spv_size, vks_mesh_skin_vert_descriptors_spv_size;

VkFormat vks_draw_depth_format(const gpu_device *dev)
{
    const VkFormat candidates[] = {VK_FORMAT_D32_SFLOAT, VK_FORMAT_D32_SFLOAT_S8_UINT,
                                   VK_FORMAT_D24_UNORM_S8_UINT, VK_FORMAT_D16_UNORM};
    for (size_t i = 0; i < sizeof candidates / sizeof candidates[0]; i++) {
        VkFormatProperties p;
        dev->vk.vkGetPhysicalDeviceFormatProperties(dev->physical, candidates[i], &p);
        if (p.optimalTilingFeatures & VK_FORMAT_FEATURE_DEPTH_STENCIL_ATTACHMENT_BIT)
            return candidates[i];
    }
    return VK_FORMAT_D16_UNORM; /* required by the spec for depth attachments */
}

static VkPipeline create_pipeline(const gpu_device *dev, const vks_draw_pass *pass,
                                  vks_draw_kind kind)
{
    const bool skin = kind != VKS_DRAW_PULLED;
    /* VKS_SKIN_WIDE, VKS_SKIN_DQ and VKS_SKIN_MORPH (constant_id 1 to 3 in vks_skin.glsl);
     * mesh.vert has no such constants. */
    const uint32_t variant = skin ? (uint32_t)kind - VKS_DRAW_SKIN : 0;
    const VkBool32 values[3] = {(variant & VKS_SKIN_VARIANT_WIDE) != 0,
                                (variant & VKS_SKIN_VARIANT_DQ) != 0,
                                (variant & VKS_SKIN_VARIANT_MORPH) != 0};
    const VkSpecializationMapEntry entries[3] = {{1, 0, sizeof(VkBool32)},
                                                 {2, sizeof(VkBool32), sizeof(VkBool32)},
                                                 {3, 2 * sizeof(VkBool32), sizeof(VkBool32)}};
    const VkSpecializationInfo spec = {skin ? 3u : 0u, entries, sizeof values, values};
    const bool descriptors =
        pass->data_layout != VK_NULL_HANDLE; /* the descriptors binding's build */
    VkShaderModule vs =
        skin ? gpu_shader_module(
                   dev, descriptors ? vks_mesh_skin_vert_descriptors_spv : vks_mesh_skin_vert_spv,
                   descriptors ? vks_mesh_skin_vert_descriptors_spv_size
                               : vks_mesh_skin_vert_spv_size,
                   "mesh_skin.vert")
             : gpu_shader_module(
                   dev, descriptors ? vks_mesh_vert_descriptors_spv : vks_mesh_vert_spv,
                   descriptors ? vks_mesh_vert_descriptors_spv_size : vks_mesh_vert_spv_size,
                   "mesh.vert");
    VkShaderModule fs =
        gpu_shader_module(dev, vks_mesh_frag_spv, vks_mesh_frag_spv_size, "mesh.frag");
    if (!vs || !fs) { /* out of memory: the caller says so */
        if (vs)
            dev->vk.vkDestroyShaderModule(dev->device, vs, NULL);
        if (fs)
            dev->vk.vkDestroyShaderModule(dev->device, fs, NULL);
        return VK_NULL_HANDLE;
    }
    /* No vertex attributes: both vertex shaders pull their data by gl_VertexIndex and
     * gl_InstanceIndex through device addresses (or the data set's descriptors). No culling: the
     * importer does not keep glTF's doubleSided, and open meshes (capes, hair cards) are common in
     * characters; the fragment shader lights back faces from their side. */
    const VkPipeline pipeline = gpu_pipeline_graphics(
        dev, &(gpu_graphics_desc){.vertex = vs,
                                  .fragment = fs,
                                  .vertex_specialization = &spec,
                                  .topology = VK_PRIMITIVE_TOPOLOGY_TRIANGLE_LIST,
                                  .depth_test = true,
                                  .depth_write = true,
                                  .depth_compare = VK_COMPARE_OP_LESS,
                                  .color_format = pass->color_format,
                                  .depth_format = pass->depth_format,
                                  .layout = pass->layout});
    if (skin)
        GPU_NAME(dev, VK_OBJECT_TYPE_PIPELINE, pipeline,
                 "mesh pipeline (vertex skinning, %s influences%s%s)", values[0] ? "8" : "4",
                 values[1] ? ", dual quaternions" : "", values[2] ? ", morph targets" : "");
    else
        GPU_NAME(dev, VK_OBJECT_TYPE_PIPELINE, pipeline, "mesh pipeline (pre-skinned)");
    dev->vk.vkDestroyShaderModule(dev->device, vs, NULL);
    dev->vk.vkDestroyShaderModule(dev->device, fs, NULL);
    return pipeline;
}

bool vks_draw_pass_create(const gpu_device *dev, VkFormat color_format, VkFormat depth_format,
                          vks_skin_mode mode, uint32_t features, VkDescriptorSetLayout data_layout,
                          vks_draw_pass *pass, vks_error *err)
{
    *pass = (vks_draw_pass){.mode = mode, .data_layout = data_layout};
    VkFormatProperties fp;
    dev->vk.vkGetPhysicalDeviceFormatProperties(dev->physical, color_format, &fp);
    if (!(fp.optimalTilingFeatures & VK_FORMAT_FEATURE_COLOR_ATTACHMENT_BIT))
        return vks_fail(err, "%s cannot render to color format %d", dev->props.deviceName,
                        (int)color_format);
    pass->color_format = color_format;
    pass->depth_format = depth_format;

    VkDescriptorType uniform = VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER;
    VkDescriptorType sampled = VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER;
    pass->frame_layout =
        gpu_set_layout(dev, &uniform, 1, VK_SHADER_STAGE_VERTEX_BIT | VK_SHADER_STAGE_FRAGMENT_BIT,
                       "frame set layout");
    pass->material_layout =
        gpu_set_layout(dev, &sampled, 1, VK_SHADER_STAGE_FRAGMENT_BIT, "material set layout");
    if (!pass->frame_layout || !pass->material_layout)
        return vks_fail(err, "cannot create the draw pass's descriptor set layouts");
    VkDescriptorSetLayout sets[3] = {pass->frame_layout, pass->material_layout, data_layout};
    pass->layout = gpu_pipeline_layout(dev, sets, data_layout ? 3 : 2,
                                       VK_SHADER_STAGE_VERTEX_BIT | VK_SHADER_STAGE_FRAGMENT_BIT,
                                       sizeof(vks_draw_push), "mesh pipeline layout");
    if (!pass->layout)
        return vks_fail(err, "cannot create the draw pass's pipeline layout (out of memory)");
    if (mode == VKS_SKIN_COMPUTE)
        pass->pipeline[VKS_DRAW_PULLED] = create_pipeline(dev, pass, VKS_DRAW_PULLED);
    bool made = mode != VKS_SKIN_COMPUTE || pass->pipeline[VKS_DRAW_PULLED];
    for (uint32_t v = 0; v < VKS_SKIN_DRAW_VARIANTS; v++)
        if (vks_skin_variant_made(v, features))
            made &= (pass->pipeline[vks_draw_skin_kind(v)] =
                         create_pipeline(dev, pass, vks_draw_skin_kind(v))) != VK_NULL_HANDLE;
    if (!made)
        return vks_fail(err, "cannot create the draw pipelines (out of device memory)");

    VkPhysicalDeviceFeatures device_features;
    dev->vk.vkGetPhysicalDeviceFeatures(dev->physical, &device_features);
    VkSamplerCreateInfo si = {VK_STRUCTURE_TYPE_SAMPLER_CREATE_INFO};
    si.magFilter = si.minFilter = VK_FILTER_LINEAR;
    si.mipmapMode = VK_SAMPLER_MIPMAP_MODE_LINEAR;
    si.addressModeU = si.addressModeV = si.addressModeW = VK_SAMPLER_ADDRESS_MODE_REPEAT;
    si.anisotropyEnable = device_features.samplerAnisotropy;
    si.maxAnisotropy = device_features.samplerAnisotropy
                           ? (dev->props.limits.maxSamplerAnisotropy < 8.0f
                                  ? dev->props.limits.maxSamplerAnisotropy
                                  : 8.0f)
                           : 1.0f;
    si.maxLod = VK_LOD_CLAMP_NONE;
    GPU_TRY(dev->vk.vkCreateSampler(dev->device, &si, NULL, &pass->sampler), err,
            "create the base-color sampler");
    GPU_NAME(dev, VK_OBJECT_TYPE_SAMPLER, pass->sampler, "base-color sampler");
    return true;
}

void vks_draw_pass_destroy(const gpu_device *dev, vks_draw_pass *pass)
{
    if (pass->sampler)
        dev->vk.vkDestroySampler(dev->device, pass->sampler, NULL);
    for (int i = 0; i < VKS_DRAW_KINDS; i++)
        if (pass->pipeline[i])
            dev->vk.vkDestroyPipeline(dev->device, pass->pipeline[i], NULL);
    if (pass->layout)
        dev->vk.vkDestroyPipelineLayout(dev->device, pass->layout, NULL);
    if (pass->frame_layout)
        dev->vk.vkDestroyDescriptorSetLayout(dev->device, pass->frame_layout, NULL);
    if (pass->material_layout)
        dev->vk.vkDestroyDescriptorSetLayout(dev->device, pass->material_layout, NULL);
    *pass = (vks_draw_pass){0};
}

void vks_draw_begin(const gpu_device *dev, VkCommandBuffer cmd, const vks_draw_target *t)
{
    /* The color image's previous use is a presentation (ordered by the acquire semaphore, whose
     * wait stage is color output) or the previous frame's readback copy of an offscreen image
     * (the same queue: the copy stage is enough). The depth image is shared by the frames in
     * flight: the previous frame's depth writes finish before this frame clears it. */
    gpu_barrier_image_raw(
        dev, cmd, t->color, VK_IMAGE_ASPECT_COLOR_BIT, VK_IMAGE_LAYOUT_UNDEFINED,
        VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL,
        (gpu_access){VK_PIPELINE_STAGE_2_COLOR_ATTACHMENT_OUTPUT_BIT | VK_PIPELINE_STAGE_2_COPY_BIT,
                     0},
        (gpu_access){VK_PIPELINE_STAGE_2_COLOR_ATTACHMENT_OUTPUT_BIT,
                     VK_ACCESS_2_COLOR_ATTACHMENT_WRITE_BIT});
    const VkPipelineStageFlags2 depth_stages =
        VK_PIPELINE_STAGE_2_EARLY_FRAGMENT_TESTS_BIT | VK_PIPELINE_STAGE_2_LATE_FRAGMENT_TESTS_BIT;
    gpu_barrier_image(
        dev, cmd, t->depth, VK_IMAGE_LAYOUT_UNDEFINED, VK_IMAGE_LAYOUT_DEPTH_ATTACHMENT_OPTIMAL,
        (gpu_access){depth_stages, VK_ACCESS_2_DEPTH_STENCIL_ATTACHMENT_WRITE_BIT},
        (gpu_access){depth_stages, VK_ACCESS_2_DEPTH_STENCIL_ATTACHMENT_READ_BIT |
                                       VK_ACCESS_2_DEPTH_STENCIL_ATTACHMENT_WRITE_BIT});

    VkRenderingAttachmentInfo color = {VK_STRUCTURE_TYPE_RENDERING_ATTACHMENT_INFO};
    color.imageView = t->color_view;
    color.imageLayout = VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL;
    color.loadOp = VK_ATTACHMENT_LOAD_OP_CLEAR;
    color.storeOp = VK_ATTACHMENT_STORE_OP_STORE;
    for (int i = 0; i < 4; i++)
        color.clearValue.color.float32[i] = t->clear[i];
    VkRenderingAttachmentInfo depth = {VK_STRUCTURE_TYPE_RENDERING_ATTACHMENT_INFO};
    depth.imageView = t->depth->view;
    depth.imageLayout = VK_IMAGE_LAYOUT_DEPTH_ATTACHMENT_OPTIMAL;
    depth.loadOp = VK_ATTACHMENT_LOAD_OP_CLEAR;
    depth.storeOp = VK_ATTACHMENT_STORE_OP_DONT_CARE;
    depth.clearValue.depthStencil.depth = 1.0f;
    VkRenderingInfo info = {VK_STRUCTURE_TYPE_RENDERING_INFO};
    info.renderArea.extent = t->extent;
    info.layerCount = 1;
    info.colorAttachmentCount = 1;
    info.pColorAttachments = &color;
    info.pDepthAttachment = &depth;
    dev->vk.vkCmdBeginRendering(cmd, &info);
    VkViewport viewport = {0, 0, (float)t->extent.width, (float)t->extent.height, 0, 1};
    dev->vk.vkCmdSetViewport(cmd, 0, 1, &viewport);
    dev->vk.vkCmdSetScissor(cmd, 0, 1, &(VkRect2D){.extent = t->extent});
}

void vks_draw_bind(const gpu_device *dev, VkCommandBuffer cmd, const vks_draw_pass *pass,
                   vks_draw_kind kind)
{
    assert(pass->pipeline[kind]);
    dev->vk.vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_GRAPHICS, pass->pipeline[kind]);
}

void vks_draw_end(const gpu_device *dev, VkCommandBuffer cmd, const vks_draw_target *t)
{
    if (t->extra)
        t->extra(cmd, t->extra_user);
    dev->vk.vkCmdEndRendering(cmd);
    gpu_barrier_image_raw(dev, cmd, t->color, VK_IMAGE_ASPECT_COLOR_BIT,
                          VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL, t->final_layout,
                          (gpu_access){VK_PIPELINE_STAGE_2_COLOR_ATTACHMENT_OUTPUT_BIT,
                                       VK_ACCESS_2_COLOR_ATTACHMENT_WRITE_BIT},
                          t->final_access);
}
