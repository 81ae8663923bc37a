/* A host renderer with its own Vulkan device and draw pipeline, using vkskin for the crowd: it
 * loads a model through the API, has vkskin skin a few instances in its own command buffer,
 * draws them textured with its own shaders (host.vert, host.frag: the UVs, textures and light
 * vkskin gives, shaded as vkskin's own draw shades) and writes a PNG. It also copies each
 * instance's skinned vertices back and holds them to vkskin's CPU reference (vkskin_model_skin):
 * how to check an integration.
 *   usage: host MODEL OUT.png [INSTANCES [SECONDS [WIDTHxHEIGHT]]]
 * VKSKIN_VALIDATE=1 turns the Khronos validation layer on (with synchronization validation):
 * any message then makes the exit code 1. */
#include "embed.h" /* the part of a frame that is vkskin's: docs/library.md shows it */

#include <stb_image_write.h> /* Debian's libstb (pkg-config stb): the host's own stb */

#include "host_frag.h" /* SPIR-V, made from the shaders by glslangValidator at build time */
#include "host_vert.h"

#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CHECK_VK(call)                                                                             \
    do {                                                                                           \
        VkResult r_ = (call);                                                                      \
        if (r_ != VK_SUCCESS) {                                                                    \
            fprintf(stderr, "host: %s failed (%d)\n", #call, (int)r_);                             \
            exit(1);                                                                               \
        }                                                                                          \
    } while (0)

static uint32_t messages; /* validation errors and warnings */

static VKAPI_ATTR VkBool32 VKAPI_CALL on_message(VkDebugUtilsMessageSeverityFlagBitsEXT severity,
                                                 VkDebugUtilsMessageTypeFlagsEXT type,
                                                 const VkDebugUtilsMessengerCallbackDataEXT *data,
                                                 void *user)
{
    (void)type, (void)user;
    if (severity & (VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT |
                    VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT)) {
        fprintf(stderr, "host: validation: %s\n", data->pMessage);
        messages++;
    }
    return VK_FALSE;
}

typedef struct image {
    VkImage image;
    VkImageView view;
    VkDeviceMemory memory;
} image;

static uint32_t memory_type(VkPhysicalDevice pd, uint32_t bits, VkMemoryPropertyFlags want)
{
    VkPhysicalDeviceMemoryProperties mp;
    vkGetPhysicalDeviceMemoryProperties(pd, &mp);
    for (uint32_t i = 0; i < mp.memoryTypeCount; i++)
        if ((bits & (1u << i)) && (mp.memoryTypes[i].propertyFlags & want) == want)
            return i;
    fprintf(stderr, "host: no memory type fits\n");
    exit(1);
}

/* A host-visible buffer copies are written into and the host reads. */
static VkBuffer readback_buffer(VkPhysicalDevice pd, VkDevice dev, VkDeviceSize size,
                                VkDeviceMemory *memory)
{
    VkBufferCreateInfo bi = {VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO};
    bi.size = size;
    bi.usage = VK_BUFFER_USAGE_TRANSFER_DST_BIT;
    VkBuffer buffer;
    CHECK_VK(vkCreateBuffer(dev, &bi, NULL, &buffer));
    VkMemoryRequirements req;
    vkGetBufferMemoryRequirements(dev, buffer, &req);
    VkMemoryAllocateInfo ai = {VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO};
    ai.allocationSize = req.size;
    ai.memoryTypeIndex =
        memory_type(pd, req.memoryTypeBits,
                    VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT);
    CHECK_VK(vkAllocateMemory(dev, &ai, NULL, memory));
    CHECK_VK(vkBindBufferMemory(dev, buffer, *memory, 0));
    return buffer;
}

static image make_image(VkPhysicalDevice pd, VkDevice dev, VkFormat format, VkExtent2D size,
                        uint32_t levels, VkImageUsageFlags usage, VkImageAspectFlags aspect)
{
    image img = {0};
    VkImageCreateInfo ii = {VK_STRUCTURE_TYPE_IMAGE_CREATE_INFO};
    ii.imageType = VK_IMAGE_TYPE_2D;
    ii.format = format;
    ii.extent = (VkExtent3D){size.width, size.height, 1};
    ii.mipLevels = levels;
    ii.arrayLayers = 1;
    ii.samples = VK_SAMPLE_COUNT_1_BIT;
    ii.usage = usage;
    CHECK_VK(vkCreateImage(dev, &ii, NULL, &img.image));
    VkMemoryRequirements req;
    vkGetImageMemoryRequirements(dev, img.image, &req);
    VkMemoryAllocateInfo ai = {VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO};
    ai.allocationSize = req.size;
    ai.memoryTypeIndex = memory_type(pd, req.memoryTypeBits, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT);
    CHECK_VK(vkAllocateMemory(dev, &ai, NULL, &img.memory));
    CHECK_VK(vkBindImageMemory(dev, img.image, img.memory, 0));
    VkImageViewCreateInfo vi = {VK_STRUCTURE_TYPE_IMAGE_VIEW_CREATE_INFO};
    vi.image = img.image;
    vi.viewType = VK_IMAGE_VIEW_TYPE_2D;
    vi.format = format;
    vi.subresourceRange = (VkImageSubresourceRange){aspect, 0, levels, 0, 1};
    CHECK_VK(vkCreateImageView(dev, &vi, NULL, &img.view));
    return img;
}

static void barrier_levels(VkCommandBuffer cmd, VkImage img, VkImageAspectFlags aspect,
                           uint32_t level, uint32_t count, VkImageLayout from, VkImageLayout to,
                           VkPipelineStageFlags2 src_stage, VkAccessFlags2 src_access,
                           VkPipelineStageFlags2 dst_stage, VkAccessFlags2 dst_access)
{
    VkImageMemoryBarrier2 b = {VK_STRUCTURE_TYPE_IMAGE_MEMORY_BARRIER_2};
    b.srcStageMask = src_stage, b.srcAccessMask = src_access;
    b.dstStageMask = dst_stage, b.dstAccessMask = dst_access;
    b.oldLayout = from, b.newLayout = to;
    b.image = img;
    b.subresourceRange = (VkImageSubresourceRange){aspect, level, count, 0, 1};
    VkDependencyInfo d = {VK_STRUCTURE_TYPE_DEPENDENCY_INFO};
    d.imageMemoryBarrierCount = 1;
    d.pImageMemoryBarriers = &b;
    vkCmdPipelineBarrier2(cmd, &d);
}

static void barrier(VkCommandBuffer cmd, VkImage img, VkImageAspectFlags aspect, VkImageLayout from,
                    VkImageLayout to, VkPipelineStageFlags2 src_stage, VkAccessFlags2 src_access,
                    VkPipelineStageFlags2 dst_stage, VkAccessFlags2 dst_access)
{
    barrier_levels(cmd, img, aspect, 0, VK_REMAINING_MIP_LEVELS, from, to, src_stage, src_access,
                   dst_stage, dst_access);
}

/* A material as the host draws it: its texture (a 1x1 white one without), its descriptor set,
 * its base colour. */
typedef struct material {
    image texture;
    VkBuffer staging;
    VkDeviceMemory staging_memory;
    VkDescriptorSet set;
    float base_color[4];
} material;

/* The material's texture (vkskin_model_get_texture; white without one) into a sampled sRGB image:
 * staged here, copied by `cmd` (before the draw that samples it). */
static material make_material(VkPhysicalDevice pd, VkDevice dev, VkCommandBuffer cmd,
                              const vkskin_model *model, uint32_t index)
{
    material m = {0};
    vkskin_material_info info;
    vkskin_model_get_material(model, index, &info, NULL);
    memcpy(m.base_color, info.base_color, sizeof m.base_color);
    const VkExtent2D size =
        info.textured ? (VkExtent2D){info.texture_width, info.texture_height} : (VkExtent2D){1, 1};
    const VkDeviceSize bytes = (VkDeviceSize)size.width * size.height * 4;
    VkBufferCreateInfo bi = {VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO};
    bi.size = bytes, bi.usage = VK_BUFFER_USAGE_TRANSFER_SRC_BIT;
    CHECK_VK(vkCreateBuffer(dev, &bi, NULL, &m.staging));
    VkMemoryRequirements req;
    vkGetBufferMemoryRequirements(dev, m.staging, &req);
    VkMemoryAllocateInfo ai = {VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO};
    ai.allocationSize = req.size;
    ai.memoryTypeIndex =
        memory_type(pd, req.memoryTypeBits,
                    VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT);
    CHECK_VK(vkAllocateMemory(dev, &ai, NULL, &m.staging_memory));
    CHECK_VK(vkBindBufferMemory(dev, m.staging, m.staging_memory, 0));
    uint8_t *pixels;
    CHECK_VK(vkMapMemory(dev, m.staging_memory, 0, VK_WHOLE_SIZE, 0, (void **)&pixels));
    if (!info.textured || vkskin_model_get_texture(model, index, pixels, bytes, NULL))
        memset(pixels, 255, bytes);
    vkUnmapMemory(dev, m.staging_memory);
    /* A full mip chain, each level a linear blit of the one before (what vkskin's draw samples:
     * a texture seen small is then filtered, not aliased). */
    uint32_t levels = 1;
    while ((size.width | size.height) >> levels)
        levels++;
    m.texture = make_image(pd, dev, VK_FORMAT_R8G8B8A8_SRGB, size, levels,
                           VK_IMAGE_USAGE_TRANSFER_SRC_BIT | VK_IMAGE_USAGE_TRANSFER_DST_BIT |
                               VK_IMAGE_USAGE_SAMPLED_BIT,
                           VK_IMAGE_ASPECT_COLOR_BIT);
    const VkImageAspectFlags color = VK_IMAGE_ASPECT_COLOR_BIT;
    const VkImageLayout dst = VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL,
                        src = VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL,
                        read = VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL;
    barrier(cmd, m.texture.image, color, VK_IMAGE_LAYOUT_UNDEFINED, dst, VK_PIPELINE_STAGE_2_NONE,
            0, VK_PIPELINE_STAGE_2_ALL_TRANSFER_BIT, VK_ACCESS_2_TRANSFER_WRITE_BIT);
    VkBufferImageCopy copy = {0};
    copy.imageSubresource = (VkImageSubresourceLayers){color, 0, 0, 1};
    copy.imageExtent = (VkExtent3D){size.width, size.height, 1};
    vkCmdCopyBufferToImage(cmd, m.staging, m.texture.image, dst, 1, &copy);
    int32_t w = (int32_t)size.width, h = (int32_t)size.height;
    for (uint32_t l = 1; l < levels; l++) {
        barrier_levels(cmd, m.texture.image, color, l - 1, 1, dst, src,
                       VK_PIPELINE_STAGE_2_ALL_TRANSFER_BIT, VK_ACCESS_2_TRANSFER_WRITE_BIT,
                       VK_PIPELINE_STAGE_2_ALL_TRANSFER_BIT, VK_ACCESS_2_TRANSFER_READ_BIT);
        const int32_t nw = w > 1 ? w / 2 : 1, nh = h > 1 ? h / 2 : 1;
        VkImageBlit blit = {0};
        blit.srcSubresource = (VkImageSubresourceLayers){color, l - 1, 0, 1};
        blit.srcOffsets[1] = (VkOffset3D){w, h, 1};
        blit.dstSubresource = (VkImageSubresourceLayers){color, l, 0, 1};
        blit.dstOffsets[1] = (VkOffset3D){nw, nh, 1};
        vkCmdBlitImage(cmd, m.texture.image, src, m.texture.image, dst, 1, &blit, VK_FILTER_LINEAR);
        barrier_levels(cmd, m.texture.image, color, l - 1, 1, src, read,
                       VK_PIPELINE_STAGE_2_ALL_TRANSFER_BIT, VK_ACCESS_2_TRANSFER_READ_BIT,
                       VK_PIPELINE_STAGE_2_FRAGMENT_SHADER_BIT,
                       VK_ACCESS_2_SHADER_SAMPLED_READ_BIT);
        w = nw, h = nh;
    }
    barrier_levels(cmd, m.texture.image, color, levels - 1, 1, dst, read,
                   VK_PIPELINE_STAGE_2_ALL_TRANSFER_BIT, VK_ACCESS_2_TRANSFER_WRITE_BIT,
                   VK_PIPELINE_STAGE_2_FRAGMENT_SHADER_BIT, VK_ACCESS_2_SHADER_SAMPLED_READ_BIT);
    return m;
}

/* What the host pushes for a draw (host.vert, host.frag): 128 bytes, every device's least. */
typedef struct push_block {
    float clip_from_model[16];
    float world_rows[3][4];
    float base_color[4];
} push_block;

/* The draw's per-mesh binding (embed_draw's bind_material): the mesh's material's set and colour.
 */
typedef struct draw_context {
    VkCommandBuffer cmd;
    VkPipelineLayout layout;
    const material *materials;
    const uint32_t *mesh_material;
} draw_context;

static void bind_material(void *user, uint32_t mesh)
{
    const draw_context *d = user;
    const material *m = &d->materials[d->mesh_material[mesh]];
    vkCmdBindDescriptorSets(d->cmd, VK_PIPELINE_BIND_POINT_GRAPHICS, d->layout, 0, 1, &m->set, 0,
                            NULL);
    vkCmdPushConstants(d->cmd, d->layout, VK_SHADER_STAGE_VERTEX_BIT | VK_SHADER_STAGE_FRAGMENT_BIT,
                       offsetof(push_block, base_color), sizeof m->base_color, m->base_color);
}

static VkPipeline make_pipeline(VkDevice dev, VkPipelineLayout layout, VkFormat color,
                                VkFormat depth, const vkskin_light *light)
{
    VkShaderModuleCreateInfo mi = {VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO};
    VkShaderModule vs, fs;
    mi.codeSize = sizeof host_vert, mi.pCode = host_vert;
    CHECK_VK(vkCreateShaderModule(dev, &mi, NULL, &vs));
    mi.codeSize = sizeof host_frag, mi.pCode = host_frag;
    CHECK_VK(vkCreateShaderModule(dev, &mi, NULL, &fs));
    /* vkskin's light, as host.frag's specialization constants 0 to 8. */
    const float constants[9] = {light->direction[0], light->direction[1], light->direction[2],
                                light->color[0],     light->color[1],     light->color[2],
                                light->ambient[0],   light->ambient[1],   light->ambient[2]};
    VkSpecializationMapEntry entries[9];
    for (uint32_t k = 0; k < 9; k++)
        entries[k] = (VkSpecializationMapEntry){k, k * (uint32_t)sizeof(float), sizeof(float)};
    const VkSpecializationInfo spec = {9, entries, sizeof constants, constants};
    VkPipelineShaderStageCreateInfo stages[2] = {
        {VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO, NULL, 0, VK_SHADER_STAGE_VERTEX_BIT,
         vs, "main", NULL},
        {VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO, NULL, 0, VK_SHADER_STAGE_FRAGMENT_BIT,
         fs, "main", &spec}};
    /* vkskin's output as vertex buffer 0 (16 bytes a vertex: position, normal word) and its UVs
     * as vertex buffer 1 (8 bytes). */
    VkVertexInputBindingDescription bindings[2] = {
        {0, VKSKIN_SKINNED_STRIDE, VK_VERTEX_INPUT_RATE_VERTEX},
        {1, 2 * sizeof(float), VK_VERTEX_INPUT_RATE_VERTEX}};
    VkVertexInputAttributeDescription attributes[3] = {{0, 0, VK_FORMAT_R32G32B32_SFLOAT, 0},
                                                       {1, 0, VK_FORMAT_R32_UINT, 12},
                                                       {2, 1, VK_FORMAT_R32G32_SFLOAT, 0}};
    VkPipelineVertexInputStateCreateInfo input = {
        VK_STRUCTURE_TYPE_PIPELINE_VERTEX_INPUT_STATE_CREATE_INFO};
    input.vertexBindingDescriptionCount = 2, input.pVertexBindingDescriptions = bindings;
    input.vertexAttributeDescriptionCount = 3, input.pVertexAttributeDescriptions = attributes;
    VkPipelineInputAssemblyStateCreateInfo assembly = {
        VK_STRUCTURE_TYPE_PIPELINE_INPUT_ASSEMBLY_STATE_CREATE_INFO};
    assembly.topology = VK_PRIMITIVE_TOPOLOGY_TRIANGLE_LIST;
    VkPipelineViewportStateCreateInfo viewport = {
        VK_STRUCTURE_TYPE_PIPELINE_VIEWPORT_STATE_CREATE_INFO};
    viewport.viewportCount = viewport.scissorCount = 1;
    VkPipelineRasterizationStateCreateInfo raster = {
        VK_STRUCTURE_TYPE_PIPELINE_RASTERIZATION_STATE_CREATE_INFO};
    raster.cullMode = VK_CULL_MODE_NONE;
    raster.lineWidth = 1.0f;
    VkPipelineMultisampleStateCreateInfo multisample = {
        VK_STRUCTURE_TYPE_PIPELINE_MULTISAMPLE_STATE_CREATE_INFO};
    multisample.rasterizationSamples = VK_SAMPLE_COUNT_1_BIT;
    VkPipelineDepthStencilStateCreateInfo depth_state = {
        VK_STRUCTURE_TYPE_PIPELINE_DEPTH_STENCIL_STATE_CREATE_INFO};
    depth_state.depthTestEnable = depth_state.depthWriteEnable = VK_TRUE;
    depth_state.depthCompareOp = VK_COMPARE_OP_LESS;
    VkPipelineColorBlendAttachmentState blend = {.colorWriteMask = 0xF};
    VkPipelineColorBlendStateCreateInfo blending = {
        VK_STRUCTURE_TYPE_PIPELINE_COLOR_BLEND_STATE_CREATE_INFO};
    blending.attachmentCount = 1, blending.pAttachments = &blend;
    VkDynamicState dynamic[2] = {VK_DYNAMIC_STATE_VIEWPORT, VK_DYNAMIC_STATE_SCISSOR};
    VkPipelineDynamicStateCreateInfo dynamics = {
        VK_STRUCTURE_TYPE_PIPELINE_DYNAMIC_STATE_CREATE_INFO};
    dynamics.dynamicStateCount = 2, dynamics.pDynamicStates = dynamic;
    VkPipelineRenderingCreateInfo rendering = {VK_STRUCTURE_TYPE_PIPELINE_RENDERING_CREATE_INFO};
    rendering.colorAttachmentCount = 1, rendering.pColorAttachmentFormats = &color;
    rendering.depthAttachmentFormat = depth;
    VkGraphicsPipelineCreateInfo pi = {VK_STRUCTURE_TYPE_GRAPHICS_PIPELINE_CREATE_INFO, &rendering};
    pi.stageCount = 2, pi.pStages = stages;
    pi.pVertexInputState = &input, pi.pInputAssemblyState = &assembly;
    pi.pViewportState = &viewport, pi.pRasterizationState = &raster;
    pi.pMultisampleState = &multisample, pi.pDepthStencilState = &depth_state;
    pi.pColorBlendState = &blending, pi.pDynamicState = &dynamics;
    pi.layout = layout;
    VkPipeline pipeline;
    CHECK_VK(vkCreateGraphicsPipelines(dev, VK_NULL_HANDLE, 1, &pi, NULL, &pipeline));
    vkDestroyShaderModule(dev, vs, NULL);
    vkDestroyShaderModule(dev, fs, NULL);
    return pipeline;
}

int main(int argc, char **argv)
{
    if (argc < 3 || argc > 6) {
        fprintf(stderr, "usage: host MODEL OUT.png [INSTANCES [SECONDS [WIDTHxHEIGHT]]]\n");
        return 2;
    }
    const uint32_t count = argc > 3 ? (uint32_t)strtoul(argv[3], NULL, 10) : 4;
    const double seconds = argc > 4 ? strtod(argv[4], NULL) : 0.5;
    VkExtent2D size = {512, 512};
    if (argc > 5 && sscanf(argv[5], "%ux%u", &size.width, &size.height) != 2) {
        fprintf(stderr, "host: a size is WIDTHxHEIGHT, not '%s'\n", argv[5]);
        return 2;
    }
    const bool validate = getenv("VKSKIN_VALIDATE") && strcmp(getenv("VKSKIN_VALIDATE"), "1") == 0;

    /* ---- The host's own instance and device (Vulkan 1.3) ---- */
    VkApplicationInfo app = {VK_STRUCTURE_TYPE_APPLICATION_INFO};
    app.pApplicationName = "vkskin example host";
    app.apiVersion = VK_API_VERSION_1_3;
    const char *layer = "VK_LAYER_KHRONOS_validation", *debug = VK_EXT_DEBUG_UTILS_EXTENSION_NAME;
    VkValidationFeatureEnableEXT sync = VK_VALIDATION_FEATURE_ENABLE_SYNCHRONIZATION_VALIDATION_EXT;
    VkValidationFeaturesEXT features = {VK_STRUCTURE_TYPE_VALIDATION_FEATURES_EXT};
    features.enabledValidationFeatureCount = 1, features.pEnabledValidationFeatures = &sync;
    VkInstanceCreateInfo ici = {VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO};
    ici.pApplicationInfo = &app;
    if (validate) {
        ici.pNext = &features;
        ici.enabledLayerCount = 1, ici.ppEnabledLayerNames = &layer;
        ici.enabledExtensionCount = 1, ici.ppEnabledExtensionNames = &debug;
    }
    VkInstance instance;
    CHECK_VK(vkCreateInstance(&ici, NULL, &instance));
    VkDebugUtilsMessengerEXT messenger = VK_NULL_HANDLE;
    if (validate) {
        VkDebugUtilsMessengerCreateInfoEXT mi = {
            VK_STRUCTURE_TYPE_DEBUG_UTILS_MESSENGER_CREATE_INFO_EXT};
        mi.messageSeverity = VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT |
                             VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT;
        mi.messageType = VK_DEBUG_UTILS_MESSAGE_TYPE_GENERAL_BIT_EXT |
                         VK_DEBUG_UTILS_MESSAGE_TYPE_VALIDATION_BIT_EXT;
        mi.pfnUserCallback = on_message;
        PFN_vkCreateDebugUtilsMessengerEXT create =
            (PFN_vkCreateDebugUtilsMessengerEXT)vkGetInstanceProcAddr(
                instance, "vkCreateDebugUtilsMessengerEXT");
        CHECK_VK(create(instance, &mi, NULL, &messenger));
    }
    uint32_t n = 1;
    VkPhysicalDevice pd;
    VkResult er = vkEnumeratePhysicalDevices(instance, &n, &pd);
    if ((er != VK_SUCCESS && er != VK_INCOMPLETE) || n == 0) {
        fprintf(stderr, "host: no Vulkan device\n");
        return 1;
    }
    uint32_t family = 0, families = 16;
    VkQueueFamilyProperties qf[16];
    vkGetPhysicalDeviceQueueFamilyProperties(pd, &families, qf);
    while (family < families &&
           (qf[family].queueFlags & (VK_QUEUE_GRAPHICS_BIT | VK_QUEUE_COMPUTE_BIT)) !=
               (VK_QUEUE_GRAPHICS_BIT | VK_QUEUE_COMPUTE_BIT))
        family++;
    if (family == families) {
        fprintf(stderr, "host: no graphics and compute queue\n");
        return 1;
    }
    /* What vkskin needs (bufferDeviceAddress, synchronization2, maintenance4) and what this
     * host's own drawing needs (dynamic rendering). */
    VkPhysicalDeviceVulkan13Features f13 = {VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_3_FEATURES};
    f13.synchronization2 = f13.maintenance4 = f13.dynamicRendering = VK_TRUE;
    VkPhysicalDeviceVulkan12Features f12 = {VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES,
                                            &f13};
    f12.bufferDeviceAddress = VK_TRUE;
    float priority = 1.0f;
    VkDeviceQueueCreateInfo qi = {VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO};
    qi.queueFamilyIndex = family, qi.queueCount = 1, qi.pQueuePriorities = &priority;
    VkPhysicalDeviceFeatures supported;
    vkGetPhysicalDeviceFeatures(pd, &supported);
    VkPhysicalDeviceProperties props;
    vkGetPhysicalDeviceProperties(pd, &props);
    const bool anisotropy = supported.samplerAnisotropy;
    const float max_anisotropy = props.limits.maxSamplerAnisotropy < 8.0f
                                     ? props.limits.maxSamplerAnisotropy
                                     : 8.0f; /* vkskin's draw takes at most 8 */
    VkPhysicalDeviceFeatures2 f2 = {VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2, &f12};
    f2.features.samplerAnisotropy = supported.samplerAnisotropy;
    VkDeviceCreateInfo dci = {VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO, &f2};
    dci.queueCreateInfoCount = 1, dci.pQueueCreateInfos = &qi;
    VkDevice dev;
    CHECK_VK(vkCreateDevice(pd, &dci, NULL, &dev));
    VkQueue queue;
    vkGetDeviceQueue(dev, family, 0, &queue);

    /* ---- vkskin: the model, the crowd, its GPU side on this device ---- */
    vkskin_error err;
    vkskin_model *model = NULL;
    if (vkskin_model_load(
            &(vkskin_model_desc){.desc_size = sizeof(vkskin_model_desc), .path = argv[1]}, &model,
            &err)) {
        fprintf(stderr, "host: %s\n", err.message);
        return 1;
    }
    const vkskin_model *models[] = {model};
    vkskin_crowd *crowd = NULL;
    if (vkskin_crowd_create(&(vkskin_crowd_desc){.desc_size = sizeof(vkskin_crowd_desc),
                                                 .models = models,
                                                 .model_count = 1,
                                                 .instance_count = count,
                                                 .clip = count > 1 ? VKSKIN_CLIP_VARIED : 0,
                                                 .time = seconds,
                                                 .seed = 1},
                            &crowd, &err)) {
        fprintf(stderr, "host: %s\n", err.message);
        return 1;
    }
    vkskin_gpu *gpu = NULL;
    if (vkskin_gpu_create(&(vkskin_gpu_desc){.desc_size = sizeof(vkskin_gpu_desc),
                                             .get_instance_proc_addr = vkGetInstanceProcAddr,
                                             .instance = instance,
                                             .physical_device = pd,
                                             .device = dev,
                                             .queue_family = family,
                                             .api_version = app.apiVersion,
                                             .buffer_device_address = true,
                                             .synchronization2 = true,
                                             .maintenance4 = true,
                                             .debug_utils = validate},
                          crowd, &gpu, &err)) {
        fprintf(stderr, "host: %s\n", err.message);
        return 1;
    }

    /* ---- The host's target, materials and pipeline ---- */
    /* sRGB, as vkskin's own target: the shader's linear colour is encoded on write. */
    const VkFormat color_format = VK_FORMAT_R8G8B8A8_SRGB, depth_format = VK_FORMAT_D32_SFLOAT;
    image color = make_image(pd, dev, color_format, size, 1,
                             VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT | VK_IMAGE_USAGE_TRANSFER_SRC_BIT,
                             VK_IMAGE_ASPECT_COLOR_BIT);
    image depth =
        make_image(pd, dev, depth_format, size, 1, VK_IMAGE_USAGE_DEPTH_STENCIL_ATTACHMENT_BIT,
                   VK_IMAGE_ASPECT_DEPTH_BIT);
    VkDeviceMemory pixel_memory;
    VkBuffer pixels =
        readback_buffer(pd, dev, (VkDeviceSize)size.width * size.height * 4, &pixel_memory);
    VkDescriptorSetLayoutBinding tb = {0, VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER, 1,
                                       VK_SHADER_STAGE_FRAGMENT_BIT, NULL};
    VkDescriptorSetLayoutCreateInfo sli = {VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO};
    sli.bindingCount = 1, sli.pBindings = &tb;
    VkDescriptorSetLayout set_layout;
    CHECK_VK(vkCreateDescriptorSetLayout(dev, &sli, NULL, &set_layout));
    VkPushConstantRange push = {VK_SHADER_STAGE_VERTEX_BIT | VK_SHADER_STAGE_FRAGMENT_BIT, 0,
                                sizeof(push_block)};
    VkPipelineLayoutCreateInfo li = {VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO};
    li.setLayoutCount = 1, li.pSetLayouts = &set_layout;
    li.pushConstantRangeCount = 1, li.pPushConstantRanges = &push;
    VkPipelineLayout layout;
    CHECK_VK(vkCreatePipelineLayout(dev, &li, NULL, &layout));
    vkskin_view view;
    vkskin_light light;
    vkskin_crowd_frame_view(crowd, (float)size.width / (float)size.height, &view, NULL);
    vkskin_view_light(&view, &light, NULL);
    VkPipeline pipeline = make_pipeline(dev, layout, color_format, depth_format, &light);
    VkCommandPoolCreateInfo pci = {VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO};
    pci.queueFamilyIndex = family;
    VkCommandPool pool;
    CHECK_VK(vkCreateCommandPool(dev, &pci, NULL, &pool));
    VkCommandBufferAllocateInfo cai = {VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
    cai.commandPool = pool, cai.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY, cai.commandBufferCount = 1;
    VkCommandBuffer cmd;
    CHECK_VK(vkAllocateCommandBuffers(dev, &cai, &cmd));
    VkCommandBufferBeginInfo begin = {VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
    CHECK_VK(vkBeginCommandBuffer(cmd, &begin));

    /* The model's materials (their textures uploaded by this command buffer) and which one each
     * mesh uses; a sampler as vkskin's (trilinear, repeat, up to 8x anisotropy). */
    vkskin_model_info info;
    vkskin_model_get_info(model, &info, NULL);
    material *materials = calloc(info.material_count ? info.material_count : 1, sizeof *materials);
    uint32_t *mesh_material = calloc(info.mesh_count ? info.mesh_count : 1, sizeof *mesh_material);
    if (!materials || !mesh_material) {
        fprintf(stderr, "host: out of memory\n");
        return 1;
    }
    VkSamplerCreateInfo smi = {VK_STRUCTURE_TYPE_SAMPLER_CREATE_INFO};
    smi.magFilter = smi.minFilter = VK_FILTER_LINEAR;
    smi.mipmapMode = VK_SAMPLER_MIPMAP_MODE_LINEAR;
    smi.maxLod = VK_LOD_CLAMP_NONE;
    smi.addressModeU = smi.addressModeV = smi.addressModeW = VK_SAMPLER_ADDRESS_MODE_REPEAT;
    smi.anisotropyEnable = anisotropy;
    smi.maxAnisotropy = anisotropy ? max_anisotropy : 1.0f;
    VkSampler sampler;
    CHECK_VK(vkCreateSampler(dev, &smi, NULL, &sampler));
    VkDescriptorPoolSize ps = {VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER,
                               info.material_count ? info.material_count : 1};
    VkDescriptorPoolCreateInfo dpi = {VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO};
    dpi.maxSets = ps.descriptorCount, dpi.poolSizeCount = 1, dpi.pPoolSizes = &ps;
    VkDescriptorPool descriptor_pool;
    CHECK_VK(vkCreateDescriptorPool(dev, &dpi, NULL, &descriptor_pool));
    for (uint32_t k = 0; k < info.material_count; k++) {
        materials[k] = make_material(pd, dev, cmd, model, k);
        VkDescriptorSetAllocateInfo dai = {VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO};
        dai.descriptorPool = descriptor_pool, dai.descriptorSetCount = 1;
        dai.pSetLayouts = &set_layout;
        CHECK_VK(vkAllocateDescriptorSets(dev, &dai, &materials[k].set));
        VkDescriptorImageInfo ii = {sampler, materials[k].texture.view,
                                    VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL};
        VkWriteDescriptorSet w = {VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET};
        w.dstSet = materials[k].set, w.descriptorCount = 1;
        w.descriptorType = VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER, w.pImageInfo = &ii;
        vkUpdateDescriptorSets(dev, 1, &w, 0, NULL);
    }
    for (uint32_t k = 0; k < info.mesh_count; k++) {
        vkskin_mesh_info mi;
        vkskin_model_get_mesh(model, k, &mi, NULL);
        mesh_material[k] = mi.material;
    }

    /* ---- One frame: cull, pose, skin (vkskin), draw (the host) ---- */
    uint32_t *visible = malloc(sizeof *visible * count);
    const uint32_t slot = 0; /* frame % VKSKIN_GPU_SLOTS */
    const uint32_t shown =
        visible ? embed_skin(gpu, crowd, slot, cmd, view.view_proj, visible, count, &err)
                : UINT32_MAX;
    if (shown == UINT32_MAX) {
        fprintf(stderr, "host: %s\n", visible ? err.message : "out of memory");
        return 1;
    }
    barrier(cmd, color.image, VK_IMAGE_ASPECT_COLOR_BIT, VK_IMAGE_LAYOUT_UNDEFINED,
            VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL, VK_PIPELINE_STAGE_2_NONE, 0,
            VK_PIPELINE_STAGE_2_COLOR_ATTACHMENT_OUTPUT_BIT,
            VK_ACCESS_2_COLOR_ATTACHMENT_WRITE_BIT);
    barrier(cmd, depth.image, VK_IMAGE_ASPECT_DEPTH_BIT, VK_IMAGE_LAYOUT_UNDEFINED,
            VK_IMAGE_LAYOUT_DEPTH_ATTACHMENT_OPTIMAL, VK_PIPELINE_STAGE_2_NONE, 0,
            VK_PIPELINE_STAGE_2_EARLY_FRAGMENT_TESTS_BIT,
            VK_ACCESS_2_DEPTH_STENCIL_ATTACHMENT_WRITE_BIT);
    VkRenderingAttachmentInfo ca = {VK_STRUCTURE_TYPE_RENDERING_ATTACHMENT_INFO};
    ca.imageView = color.view, ca.imageLayout = VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL;
    ca.loadOp = VK_ATTACHMENT_LOAD_OP_CLEAR, ca.storeOp = VK_ATTACHMENT_STORE_OP_STORE;
    ca.clearValue.color = (VkClearColorValue){{0.046f, 0.05f, 0.06f, 1.0f}}; /* vkskin's */
    VkRenderingAttachmentInfo da = {VK_STRUCTURE_TYPE_RENDERING_ATTACHMENT_INFO};
    da.imageView = depth.view, da.imageLayout = VK_IMAGE_LAYOUT_DEPTH_ATTACHMENT_OPTIMAL;
    da.loadOp = VK_ATTACHMENT_LOAD_OP_CLEAR, da.storeOp = VK_ATTACHMENT_STORE_OP_DONT_CARE;
    da.clearValue.depthStencil.depth = 1.0f;
    VkRenderingInfo ri = {VK_STRUCTURE_TYPE_RENDERING_INFO};
    ri.renderArea.extent = size, ri.layerCount = 1;
    ri.colorAttachmentCount = 1, ri.pColorAttachments = &ca, ri.pDepthAttachment = &da;
    vkCmdBeginRendering(cmd, &ri);
    vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_GRAPHICS, pipeline);
    vkCmdSetViewport(cmd, 0, 1,
                     &(VkViewport){0, 0, (float)size.width, (float)size.height, 0.0f, 1.0f});
    vkCmdSetScissor(cmd, 0, 1, &(VkRect2D){{0, 0}, size});
    draw_context context = {cmd, layout, materials, mesh_material};
    for (uint32_t k = 0; k < shown; k++) {
        vkskin_instance_info in;
        if (vkskin_crowd_get_instance(crowd, visible[k], &in, &err)) {
            fprintf(stderr, "host: %s\n", err.message);
            return 1;
        }
        push_block pb = {0}; /* view_proj times world (column-major), and world's rows */
        for (int c = 0; c < 4; c++)
            for (int r = 0; r < 4; r++)
                for (int j = 0; j < 4; j++)
                    pb.clip_from_model[4 * c + r] +=
                        view.view_proj[4 * j + r] * in.world[4 * c + j];
        for (int r = 0; r < 3; r++)
            for (int c = 0; c < 4; c++)
                pb.world_rows[r][c] = in.world[4 * c + r];
        vkCmdPushConstants(cmd, layout, VK_SHADER_STAGE_VERTEX_BIT | VK_SHADER_STAGE_FRAGMENT_BIT,
                           0, offsetof(push_block, base_color), &pb);
        if (embed_draw(gpu, slot, cmd, visible[k], in.model, info.mesh_count, bind_material,
                       &context, &err)) {
            fprintf(stderr, "host: %s\n", err.message);
            return 1;
        }
    }
    vkCmdEndRendering(cmd);
    /* Each instance's skinned vertices copied out (vkskin's barrier covers copy reads too). */
    const VkDeviceSize per_instance = (VkDeviceSize)info.vertex_count * VKSKIN_SKINNED_STRIDE;
    VkDeviceMemory skinned_memory;
    VkBuffer skinned =
        readback_buffer(pd, dev, per_instance * (shown ? shown : 1), &skinned_memory);
    for (uint32_t k = 0; k < shown; k++) {
        vkskin_gpu_output out;
        vkskin_gpu_get_output(gpu, slot, visible[k], &out, NULL);
        vkCmdCopyBuffer(cmd, out.buffer, skinned, 1,
                        &(VkBufferCopy){out.offset, per_instance * k, per_instance});
    }
    barrier(cmd, color.image, VK_IMAGE_ASPECT_COLOR_BIT, VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL,
            VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, VK_PIPELINE_STAGE_2_COLOR_ATTACHMENT_OUTPUT_BIT,
            VK_ACCESS_2_COLOR_ATTACHMENT_WRITE_BIT, VK_PIPELINE_STAGE_2_COPY_BIT,
            VK_ACCESS_2_TRANSFER_READ_BIT);
    VkBufferImageCopy copy = {0};
    copy.imageSubresource = (VkImageSubresourceLayers){VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 1};
    copy.imageExtent = (VkExtent3D){size.width, size.height, 1};
    vkCmdCopyImageToBuffer(cmd, color.image, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, pixels, 1,
                           &copy);
    VkMemoryBarrier2 to_host = {VK_STRUCTURE_TYPE_MEMORY_BARRIER_2};
    to_host.srcStageMask = VK_PIPELINE_STAGE_2_COPY_BIT;
    to_host.srcAccessMask = VK_ACCESS_2_TRANSFER_WRITE_BIT;
    to_host.dstStageMask = VK_PIPELINE_STAGE_2_HOST_BIT;
    to_host.dstAccessMask = VK_ACCESS_2_HOST_READ_BIT;
    VkDependencyInfo dep = {VK_STRUCTURE_TYPE_DEPENDENCY_INFO};
    dep.memoryBarrierCount = 1, dep.pMemoryBarriers = &to_host;
    vkCmdPipelineBarrier2(cmd, &dep);
    CHECK_VK(vkEndCommandBuffer(cmd));
    VkSubmitInfo submit = {VK_STRUCTURE_TYPE_SUBMIT_INFO};
    submit.commandBufferCount = 1, submit.pCommandBuffers = &cmd;
    CHECK_VK(vkQueueSubmit(queue, 1, &submit, VK_NULL_HANDLE));
    CHECK_VK(vkQueueWaitIdle(queue));

    void *mapped;
    CHECK_VK(vkMapMemory(dev, pixel_memory, 0, VK_WHOLE_SIZE, 0, &mapped));
    const int written =
        stbi_write_png(argv[2], (int)size.width, (int)size.height, 4, mapped, (int)size.width * 4);
    vkUnmapMemory(dev, pixel_memory);
    printf("host: %u of %u instances drawn into %s (%ux%u) on %s\n", shown, count, argv[2],
           size.width, size.height, "the host's own device");

    /* ---- The check: every skinned position against the CPU reference at the instance's clock,
     * within 1e-4 of the model's size ---- */
    const float *lo = info.bounds_min, *hi = info.bounds_max;
    const double size_of_model =
        sqrt((hi[0] - lo[0]) * (hi[0] - lo[0]) + (hi[1] - lo[1]) * (hi[1] - lo[1]) +
             (hi[2] - lo[2]) * (hi[2] - lo[2]));
    float *cpu = malloc(sizeof(float) * 6 * info.vertex_count), *gpu_vertices;
    CHECK_VK(vkMapMemory(dev, skinned_memory, 0, VK_WHOLE_SIZE, 0, (void **)&gpu_vertices));
    double worst = 0.0;
    for (uint32_t k = 0; k < shown; k++) {
        vkskin_instance_info in;
        vkskin_crowd_get_instance(crowd, visible[k], &in, NULL);
        vkskin_model_skin(model, in.clip, in.time, cpu, cpu + 3 * info.vertex_count, NULL,
                          info.vertex_count, NULL);
        const float *g = gpu_vertices + (size_t)k * info.vertex_count * 4; /* xyz + normal */
        for (uint32_t v = 0; v < info.vertex_count; v++)
            for (int c = 0; c < 3; c++) {
                const double d = fabs(g[4 * v + c] - cpu[3 * v + c]) / size_of_model;
                if (!(d <= worst)) /* a NaN counts as infinitely far */
                    worst = isnan(d) ? INFINITY : d;
            }
    }
    vkUnmapMemory(dev, skinned_memory);
    free(cpu);
    const bool matches = worst <= 1e-4;
    printf("host: the skinned vertices of %u instances %s the CPU reference (worst %.2g of the "
           "model's size)\n",
           shown, matches ? "match" : "DO NOT match", worst);
    vkDestroyBuffer(dev, skinned, NULL);
    vkFreeMemory(dev, skinned_memory, NULL);

    /* ---- Everything back, vkskin's first (the queue is idle) ---- */
    free(visible);
    vkskin_gpu_destroy(gpu);
    vkskin_crowd_destroy(crowd);
    vkskin_model_destroy(model);
    vkDestroyCommandPool(dev, pool, NULL);
    for (uint32_t k = 0; k < info.material_count; k++) {
        vkDestroyImageView(dev, materials[k].texture.view, NULL);
        vkDestroyImage(dev, materials[k].texture.image, NULL);
        vkFreeMemory(dev, materials[k].texture.memory, NULL);
        vkDestroyBuffer(dev, materials[k].staging, NULL);
        vkFreeMemory(dev, materials[k].staging_memory, NULL);
    }
    free(materials);
    free(mesh_material);
    vkDestroyDescriptorPool(dev, descriptor_pool, NULL);
    vkDestroySampler(dev, sampler, NULL);
    vkDestroyPipeline(dev, pipeline, NULL);
    vkDestroyPipelineLayout(dev, layout, NULL);
    vkDestroyDescriptorSetLayout(dev, set_layout, NULL);
    vkDestroyBuffer(dev, pixels, NULL);
    vkFreeMemory(dev, pixel_memory, NULL);
    image images[2] = {color, depth};
    for (int k = 0; k < 2; k++) {
        vkDestroyImageView(dev, images[k].view, NULL);
        vkDestroyImage(dev, images[k].image, NULL);
        vkFreeMemory(dev, images[k].memory, NULL);
    }
    vkDestroyDevice(dev, NULL);
    if (messenger) {
        PFN_vkDestroyDebugUtilsMessengerEXT destroy =
            (PFN_vkDestroyDebugUtilsMessengerEXT)vkGetInstanceProcAddr(
                instance, "vkDestroyDebugUtilsMessengerEXT");
        destroy(instance, messenger, NULL);
    }
    vkDestroyInstance(instance, NULL);
    if (!written)
        fprintf(stderr, "host: cannot write %s\n", argv[2]);
    if (messages)
        fprintf(stderr, "host: %u validation message(s)\n", messages);
    return written && matches && !messages ? 0 : 1;
}
