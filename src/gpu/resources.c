/* Memory, buffers, images, one-time submits, barriers and pipelines. One allocation per resource:
 * a renderer with a handful of long-lived buffers per model needs no sub-allocator. */
#include "gpu.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

/* The first memory type allowed by `bits` with every flag of `want` and none of `avoid`. */
static int memory_type(const gpu_device *dev, uint32_t bits, VkMemoryPropertyFlags want,
                       VkMemoryPropertyFlags avoid)
{
    for (uint32_t i = 0; i < dev->memory.memoryTypeCount; i++) {
        VkMemoryPropertyFlags f = dev->memory.memoryTypes[i].propertyFlags;
        if ((bits & (1u << i)) && (f & want) == want && !(f & avoid))
            return (int)i;
    }
    return -1;
}

static bool allocate(const gpu_device *dev, VkMemoryRequirements req, gpu_memory kind,
                     bool addressed, VkDeviceMemory *memory, VkMemoryPropertyFlags *props,
                     const char *name, vks_error *err)
{
    const VkMemoryPropertyFlags host = VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT;
    const VkMemoryPropertyFlags local = VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT;
    VkMemoryPropertyFlags prefer[3] = {local, local, local}, avoid[3] = {0, 0, 0};
    if (kind == GPU_MEMORY_STAGING) { /* system memory: the BAR heap is small, keep it for frames */
        prefer[0] = prefer[1] = prefer[2] = host | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
        avoid[0] = avoid[1] = local;
    } else if (kind == GPU_MEMORY_UPLOAD) { /* BAR memory when there is some, else system memory */
        prefer[0] = host | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT | local;
        prefer[1] = prefer[2] = host | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
    } else if (kind == GPU_MEMORY_READBACK) {
        prefer[0] = host | VK_MEMORY_PROPERTY_HOST_CACHED_BIT;
        prefer[1] = prefer[2] = host;
    }
    VkResult r = VK_ERROR_OUT_OF_DEVICE_MEMORY;
    for (int i = 0; i < 3 && r != VK_SUCCESS; i++) {
        int type = memory_type(dev, req.memoryTypeBits, prefer[i], avoid[i]);
        if (type < 0)
            continue;
        VkMemoryAllocateInfo info = {VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO};
        info.allocationSize = req.size;
        info.memoryTypeIndex = (uint32_t)type;
        VkMemoryAllocateFlagsInfo flags = {VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_FLAGS_INFO};
        flags.flags = VK_MEMORY_ALLOCATE_DEVICE_ADDRESS_BIT;
        info.pNext = addressed ? &flags : NULL;
        r = dev->vk.vkAllocateMemory(dev->device, &info, NULL, memory);
        if (r == VK_SUCCESS)
            *props = dev->memory.memoryTypes[type].propertyFlags;
    }
    if (r == VK_ERROR_OUT_OF_DEVICE_MEMORY || r == VK_ERROR_OUT_OF_HOST_MEMORY)
        return vks_fail_memory(err, "cannot allocate %llu bytes of GPU memory for %s: %s",
                               (unsigned long long)req.size, name, gpu_result_name(r));
    if (r != VK_SUCCESS)
        return vks_fail(err, "cannot allocate %llu bytes of GPU memory for %s: %s",
                        (unsigned long long)req.size, name, gpu_result_name(r));
    return true;
}

bool gpu_buffers_create_joined(const gpu_device *dev, const gpu_buffer_desc *desc, uint32_t count,
                               gpu_buffer *bufs, VkDeviceMemory *memory, vks_error *err)
{
    *memory = VK_NULL_HANDLE;
    memset(bufs, 0, sizeof *bufs * count);
    const char *name = desc->name ? desc->name : "buffer";
    assert(count > 0 && desc->size > 0);
    VkBufferCreateInfo info = {VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO};
    info.size = desc->size;
    info.usage = desc->usage;
    VkMemoryRequirements req = {0};
    VkResult r = VK_SUCCESS;
    for (uint32_t k = 0; k < count && r == VK_SUCCESS; k++)
        r = dev->vk.vkCreateBuffer(dev->device, &info, NULL, &bufs[k].buffer);
    if (r == VK_SUCCESS)
        dev->vk.vkGetBufferMemoryRequirements(dev->device, bufs[0].buffer, &req);
    /* One buffer needs no stride; more follow one another at desc->size bytes. */
    if (r != VK_SUCCESS || (count > 1 && (desc->size % req.alignment || req.size > desc->size))) {
        gpu_buffers_destroy_joined(dev, bufs, count, memory);
        return r != VK_SUCCESS ? vks_fail(err, "cannot create %s (%llu bytes): %s", name,
                                          (unsigned long long)desc->size, gpu_result_name(r))
                               : vks_fail(err,
                                          "%s: %llu bytes each do not follow one another in one "
                                          "allocation (alignment %llu)",
                                          name, (unsigned long long)desc->size,
                                          (unsigned long long)req.alignment);
    }
    const bool addressed = desc->usage & VK_BUFFER_USAGE_SHADER_DEVICE_ADDRESS_BIT;
    VkMemoryPropertyFlags props = 0;
    req.size += desc->size * (count - 1);
    if (!allocate(dev, req, desc->memory, addressed, memory, &props, name, err)) {
        gpu_buffers_destroy_joined(dev, bufs, count, memory);
        return false;
    }
    void *mapped = NULL;
    if (desc->memory != GPU_MEMORY_DEVICE &&
        (r = dev->vk.vkMapMemory(dev->device, *memory, 0, VK_WHOLE_SIZE, 0, &mapped)) !=
            VK_SUCCESS) {
        gpu_buffers_destroy_joined(dev, bufs, count, memory);
        return vks_fail(err, "cannot map %s: %s", name, gpu_result_name(r));
    }
    for (uint32_t k = 0; k < count; k++) {
        gpu_buffer *b = &bufs[k];
        r = dev->vk.vkBindBufferMemory(dev->device, b->buffer, *memory, desc->size * k);
        if (r != VK_SUCCESS) {
            gpu_buffers_destroy_joined(dev, bufs, count, memory);
            return vks_fail(err, "cannot bind the memory of %s: %s", name, gpu_result_name(r));
        }
        b->size = desc->size;
        b->coherent = props & VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
        b->mapped = mapped ? (char *)mapped + desc->size * k : NULL;
        if (addressed) {
            VkBufferDeviceAddressInfo ai = {VK_STRUCTURE_TYPE_BUFFER_DEVICE_ADDRESS_INFO};
            ai.buffer = b->buffer;
            b->address = dev->vk.vkGetBufferDeviceAddress(dev->device, &ai);
        }
        if (count > 1)
            GPU_NAME(dev, VK_OBJECT_TYPE_BUFFER, b->buffer, "%s %u", name, k);
        else
            GPU_NAME(dev, VK_OBJECT_TYPE_BUFFER, b->buffer, "%s", name);
    }
    GPU_NAME(dev, VK_OBJECT_TYPE_DEVICE_MEMORY, *memory, "%s memory", name);
    return true;
}

void gpu_buffers_destroy_joined(const gpu_device *dev, gpu_buffer *bufs, uint32_t count,
                                VkDeviceMemory *memory)
{
    for (uint32_t k = 0; k < count; k++) {
        if (bufs[k].buffer)
            dev->vk.vkDestroyBuffer(dev->device, bufs[k].buffer, NULL);
        bufs[k] = (gpu_buffer){0};
    }
    if (*memory)
        dev->vk.vkFreeMemory(dev->device, *memory, NULL); /* unmaps too */
    *memory = VK_NULL_HANDLE;
}

bool gpu_buffer_create(const gpu_device *dev, const gpu_buffer_desc *desc, gpu_buffer *buf,
                       vks_error *err)
{
    *buf = (gpu_buffer){0};
    if (desc->size == 0)
        return vks_fail(err, "%s would be empty", desc->name ? desc->name : "buffer");
    VkDeviceMemory memory;
    if (!gpu_buffers_create_joined(dev, desc, 1, buf, &memory, err))
        return false;
    buf->memory = memory; /* its own */
    return true;
}

void gpu_buffer_destroy(const gpu_device *dev, gpu_buffer *buf)
{
    if (buf->buffer)
        dev->vk.vkDestroyBuffer(dev->device, buf->buffer, NULL);
    if (buf->memory)
        dev->vk.vkFreeMemory(dev->device, buf->memory, NULL); /* unmaps too */
    *buf = (gpu_buffer){0};
}

void gpu_buffer_invalidate(const gpu_device *dev, const gpu_buffer *buf)
{
    if (buf->coherent || !buf->mapped)
        return;
    VkMappedMemoryRange range = {VK_STRUCTURE_TYPE_MAPPED_MEMORY_RANGE};
    range.memory = buf->memory;
    range.size = VK_WHOLE_SIZE;
    /* It fails only out of host memory: the reads then see what the cache holds. */
    (void)dev->vk.vkInvalidateMappedMemoryRanges(dev->device, 1, &range);
}

bool gpu_buffer_create_filled(const gpu_device *dev, const gpu_buffer_desc *desc, const void *data,
                              gpu_buffer *buf, vks_error *err)
{
    gpu_buffer_desc d = *desc;
    d.usage |= VK_BUFFER_USAGE_TRANSFER_DST_BIT;
    d.memory = GPU_MEMORY_DEVICE;
    gpu_buffer staging;
    if (!gpu_buffer_create(dev,
                           &(gpu_buffer_desc){.size = desc->size,
                                              .usage = VK_BUFFER_USAGE_TRANSFER_SRC_BIT,
                                              .memory = GPU_MEMORY_STAGING,
                                              .name = "staging"},
                           &staging, err))
        return false;
    if (!gpu_buffer_create(dev, &d, buf, err)) {
        gpu_buffer_destroy(dev, &staging);
        return false;
    }
    memcpy(staging.mapped, data, desc->size);
    VkCommandBuffer cmd;
    if (!gpu_once_begin(dev, &cmd, err)) {
        gpu_buffer_destroy(dev, &staging);
        gpu_buffer_destroy(dev, buf);
        return false;
    }
    dev->vk.vkCmdCopyBuffer(cmd, staging.buffer, buf->buffer, 1,
                            &(VkBufferCopy){.size = desc->size});
    /* A fence makes the copy available, not visible: later commands read the buffer through
     * descriptors, attributes or device addresses. */
    gpu_barrier_memory(
        dev, cmd, (gpu_access){VK_PIPELINE_STAGE_2_COPY_BIT, VK_ACCESS_2_TRANSFER_WRITE_BIT},
        (gpu_access){VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT, VK_ACCESS_2_MEMORY_READ_BIT});
    bool ok = gpu_once_end(dev, cmd, err);
    gpu_buffer_destroy(dev, &staging);
    if (!ok)
        gpu_buffer_destroy(dev, buf);
    return ok;
}

static uint32_t mip_count(uint32_t w, uint32_t h)
{
    uint32_t n = 1;
    while ((w | h) >> n)
        n++;
    return n;
}

bool gpu_image_create(const gpu_device *dev, const gpu_image_desc *desc, gpu_image *img,
                      vks_error *err)
{
    *img = (gpu_image){0};
    const char *name = desc->name ? desc->name : "image";
    bool depth = desc->format == VK_FORMAT_D32_SFLOAT || desc->format == VK_FORMAT_D16_UNORM ||
                 desc->format == VK_FORMAT_D24_UNORM_S8_UINT ||
                 desc->format == VK_FORMAT_D32_SFLOAT_S8_UINT;
    img->format = desc->format;
    img->extent = (VkExtent2D){desc->width, desc->height};
    img->mip_levels = desc->mips ? mip_count(desc->width, desc->height) : 1;
    img->aspect = depth ? VK_IMAGE_ASPECT_DEPTH_BIT : VK_IMAGE_ASPECT_COLOR_BIT;
    const VkPhysicalDeviceLimits *lim = &dev->props.limits;
    if (desc->width == 0 || desc->height == 0 || desc->width > lim->maxImageDimension2D ||
        desc->height > lim->maxImageDimension2D)
        return vks_fail(err, "%s is %ux%u; this device allows 1 to %u pixels a side", name,
                        desc->width, desc->height, lim->maxImageDimension2D);

    VkImageCreateInfo info = {VK_STRUCTURE_TYPE_IMAGE_CREATE_INFO};
    info.imageType = VK_IMAGE_TYPE_2D;
    info.format = desc->format;
    info.extent = (VkExtent3D){desc->width, desc->height, 1};
    info.mipLevels = img->mip_levels;
    info.arrayLayers = 1;
    info.samples = VK_SAMPLE_COUNT_1_BIT;
    info.tiling = VK_IMAGE_TILING_OPTIMAL;
    info.usage = desc->usage;
    info.initialLayout = VK_IMAGE_LAYOUT_UNDEFINED;
    VkImage image;
    VkResult r = dev->vk.vkCreateImage(dev->device, &info, NULL, &image);
    img->image = r == VK_SUCCESS ? image : VK_NULL_HANDLE; /* undefined on failure */
    if (r != VK_SUCCESS)
        return vks_fail(err, "cannot create %s (%ux%u): %s", name, desc->width, desc->height,
                        gpu_result_name(r));
    VkMemoryRequirements req;
    dev->vk.vkGetImageMemoryRequirements(dev->device, img->image, &req);
    VkMemoryPropertyFlags props;
    if (!allocate(dev, req, GPU_MEMORY_DEVICE, false, &img->memory, &props, name, err)) {
        gpu_image_destroy(dev, img);
        return false;
    }
    r = dev->vk.vkBindImageMemory(dev->device, img->image, img->memory, 0);
    if (r != VK_SUCCESS) {
        gpu_image_destroy(dev, img);
        return vks_fail(err, "cannot bind %s's memory: %s", name, gpu_result_name(r));
    }

    VkImageViewCreateInfo view = {VK_STRUCTURE_TYPE_IMAGE_VIEW_CREATE_INFO};
    view.image = img->image;
    view.viewType = VK_IMAGE_VIEW_TYPE_2D;
    view.format = desc->format;
    view.subresourceRange = (VkImageSubresourceRange){img->aspect, 0, img->mip_levels, 0, 1};
    VkImageView image_view;
    r = dev->vk.vkCreateImageView(dev->device, &view, NULL, &image_view);
    img->view = r == VK_SUCCESS ? image_view : VK_NULL_HANDLE; /* undefined on failure */
    if (r != VK_SUCCESS) {
        gpu_image_destroy(dev, img);
        return vks_fail(err, "cannot create %s's view: %s", name, gpu_result_name(r));
    }
    GPU_NAME(dev, VK_OBJECT_TYPE_IMAGE, img->image, "%s", name);
    GPU_NAME(dev, VK_OBJECT_TYPE_IMAGE_VIEW, img->view, "%s view", name);
    GPU_NAME(dev, VK_OBJECT_TYPE_DEVICE_MEMORY, img->memory, "%s memory", name);
    return true;
}

void gpu_image_destroy(const gpu_device *dev, gpu_image *img)
{
    if (img->view)
        dev->vk.vkDestroyImageView(dev->device, img->view, NULL);
    if (img->image)
        dev->vk.vkDestroyImage(dev->device, img->image, NULL);
    if (img->memory)
        dev->vk.vkFreeMemory(dev->device, img->memory, NULL);
    *img = (gpu_image){0};
}

static void barrier_mip(const gpu_device *dev, VkCommandBuffer cmd, VkImage image, uint32_t level,
                        VkImageLayout old, VkImageLayout new_layout, gpu_access src, gpu_access dst)
{
    VkImageMemoryBarrier2 b = {VK_STRUCTURE_TYPE_IMAGE_MEMORY_BARRIER_2};
    b.srcStageMask = src.stage;
    b.srcAccessMask = src.access;
    b.dstStageMask = dst.stage;
    b.dstAccessMask = dst.access;
    b.oldLayout = old;
    b.newLayout = new_layout;
    b.srcQueueFamilyIndex = b.dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED;
    b.image = image;
    b.subresourceRange = (VkImageSubresourceRange){VK_IMAGE_ASPECT_COLOR_BIT, level, 1, 0, 1};
    VkDependencyInfo dep = {VK_STRUCTURE_TYPE_DEPENDENCY_INFO};
    dep.imageMemoryBarrierCount = 1;
    dep.pImageMemoryBarriers = &b;
    dev->vk.vkCmdPipelineBarrier2(cmd, &dep);
}

bool gpu_image_upload_rgba8(const gpu_device *dev, gpu_image *img, const void *pixels,
                            vks_error *err)
{
    VkDeviceSize size = (VkDeviceSize)img->extent.width * img->extent.height * 4;
    gpu_buffer staging;
    if (!gpu_buffer_create(dev,
                           &(gpu_buffer_desc){.size = size,
                                              .usage = VK_BUFFER_USAGE_TRANSFER_SRC_BIT,
                                              .memory = GPU_MEMORY_STAGING,
                                              .name = "texture staging"},
                           &staging, err))
        return false;
    memcpy(staging.mapped, pixels, size);

    /* Mips by blits need linear filtering of the format; without it only level 0 is sampled. */
    VkFormatProperties fp;
    dev->vk.vkGetPhysicalDeviceFormatProperties(dev->physical, img->format, &fp);
    const VkFormatFeatureFlags blit = VK_FORMAT_FEATURE_BLIT_SRC_BIT |
                                      VK_FORMAT_FEATURE_BLIT_DST_BIT |
                                      VK_FORMAT_FEATURE_SAMPLED_IMAGE_FILTER_LINEAR_BIT;
    uint32_t levels = (fp.optimalTilingFeatures & blit) == blit ? img->mip_levels : 1;

    const gpu_access none = {VK_PIPELINE_STAGE_2_NONE, VK_ACCESS_2_NONE};
    const gpu_access copy_write = {VK_PIPELINE_STAGE_2_ALL_TRANSFER_BIT,
                                   VK_ACCESS_2_TRANSFER_WRITE_BIT};
    const gpu_access copy_read = {VK_PIPELINE_STAGE_2_ALL_TRANSFER_BIT,
                                  VK_ACCESS_2_TRANSFER_READ_BIT};
    const gpu_access sampled = {VK_PIPELINE_STAGE_2_FRAGMENT_SHADER_BIT,
                                VK_ACCESS_2_SHADER_SAMPLED_READ_BIT};
    const VkImageLayout dst_layout = VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL;
    const VkImageLayout src_layout = VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL;
    const VkImageLayout read_layout = VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL;

    VkCommandBuffer cmd;
    if (!gpu_once_begin(dev, &cmd, err)) {
        gpu_buffer_destroy(dev, &staging);
        return false;
    }
    for (uint32_t l = 0; l < img->mip_levels; l++)
        barrier_mip(dev, cmd, img->image, l, VK_IMAGE_LAYOUT_UNDEFINED, dst_layout, none,
                    copy_write);
    VkBufferImageCopy region = {0};
    region.imageSubresource = (VkImageSubresourceLayers){VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 1};
    region.imageExtent = (VkExtent3D){img->extent.width, img->extent.height, 1};
    dev->vk.vkCmdCopyBufferToImage(cmd, staging.buffer, img->image, dst_layout, 1, &region);
    int32_t w = (int32_t)img->extent.width, h = (int32_t)img->extent.height;
    for (uint32_t l = 1; l < levels; l++) {
        barrier_mip(dev, cmd, img->image, l - 1, dst_layout, src_layout, copy_write, copy_read);
        int32_t nw = w > 1 ? w / 2 : 1, nh = h > 1 ? h / 2 : 1;
        VkImageBlit b = {0};
        b.srcSubresource = (VkImageSubresourceLayers){VK_IMAGE_ASPECT_COLOR_BIT, l - 1, 0, 1};
        b.srcOffsets[1] = (VkOffset3D){w, h, 1};
        b.dstSubresource = (VkImageSubresourceLayers){VK_IMAGE_ASPECT_COLOR_BIT, l, 0, 1};
        b.dstOffsets[1] = (VkOffset3D){nw, nh, 1};
        dev->vk.vkCmdBlitImage(cmd, img->image, src_layout, img->image, dst_layout, 1, &b,
                               VK_FILTER_LINEAR);
        barrier_mip(dev, cmd, img->image, l - 1, src_layout, read_layout, copy_read, sampled);
        w = nw;
        h = nh;
    }
    barrier_mip(dev, cmd, img->image, levels - 1, dst_layout, read_layout, copy_write, sampled);
    for (uint32_t l = levels; l < img->mip_levels; l++) /* levels the blits could not fill */
        barrier_mip(dev, cmd, img->image, l, dst_layout, read_layout, copy_write, sampled);
    img->mip_levels = levels; /* samplers clamp to what holds pixels */
    bool ok = gpu_once_end(dev, cmd, err);
    gpu_buffer_destroy(dev, &staging);
    return ok;
}

bool gpu_once_begin(const gpu_device *dev, VkCommandBuffer *cmd, vks_error *err)
{
    VkCommandBufferAllocateInfo alloc = {VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
    alloc.commandPool = dev->once_pool;
    alloc.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
    alloc.commandBufferCount = 1;
    VkResult r = dev->vk.vkAllocateCommandBuffers(dev->device, &alloc, cmd);
    if (r != VK_SUCCESS)
        return vks_fail(err, "cannot allocate a command buffer: %s", gpu_result_name(r));
    GPU_NAME(dev, VK_OBJECT_TYPE_COMMAND_BUFFER, *cmd, "one-time commands");
    VkCommandBufferBeginInfo begin = {VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
    begin.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
    r = dev->vk.vkBeginCommandBuffer(*cmd, &begin);
    if (r != VK_SUCCESS) {
        dev->vk.vkFreeCommandBuffers(dev->device, dev->once_pool, 1, cmd);
        return vks_fail(err, "cannot begin a command buffer: %s", gpu_result_name(r));
    }
    return true;
}

bool gpu_once_end(const gpu_device *dev, VkCommandBuffer cmd, vks_error *err)
{
    VkFenceCreateInfo fi = {VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
    VkFence fence = VK_NULL_HANDLE;
    VkResult r = dev->vk.vkEndCommandBuffer(cmd);
    if (r == VK_SUCCESS)
        r = dev->vk.vkCreateFence(dev->device, &fi, NULL, &fence);
    GPU_NAME(dev, VK_OBJECT_TYPE_FENCE, fence, "one-time fence");
    VkSubmitInfo submit = {VK_STRUCTURE_TYPE_SUBMIT_INFO};
    submit.commandBufferCount = 1;
    submit.pCommandBuffers = &cmd;
    if (r == VK_SUCCESS)
        r = dev->vk.vkQueueSubmit(dev->queue, 1, &submit, fence);
    if (r == VK_SUCCESS)
        r = dev->vk.vkWaitForFences(dev->device, 1, &fence, VK_TRUE, UINT64_MAX);
    if (fence)
        dev->vk.vkDestroyFence(dev->device, fence, NULL);
    dev->vk.vkFreeCommandBuffers(dev->device, dev->once_pool, 1, &cmd);
    if (r != VK_SUCCESS)
        return vks_fail(err, "a GPU transfer failed: %s", gpu_result_name(r));
    return true;
}

void gpu_barrier_buffer(const gpu_device *dev, VkCommandBuffer cmd, VkBuffer buffer, gpu_access src,
                        gpu_access dst)
{
    VkBufferMemoryBarrier2 b = {VK_STRUCTURE_TYPE_BUFFER_MEMORY_BARRIER_2};
    b.srcStageMask = src.stage;
    b.srcAccessMask = src.access;
    b.dstStageMask = dst.stage;
    b.dstAccessMask = dst.access;
    b.srcQueueFamilyIndex = b.dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED;
    b.buffer = buffer;
    b.size = VK_WHOLE_SIZE;
    VkDependencyInfo dep = {VK_STRUCTURE_TYPE_DEPENDENCY_INFO};
    dep.bufferMemoryBarrierCount = 1;
    dep.pBufferMemoryBarriers = &b;
    dev->vk.vkCmdPipelineBarrier2(cmd, &dep);
}

void gpu_barrier_memory(const gpu_device *dev, VkCommandBuffer cmd, gpu_access src, gpu_access dst)
{
    VkMemoryBarrier2 b = {VK_STRUCTURE_TYPE_MEMORY_BARRIER_2};
    b.srcStageMask = src.stage;
    b.srcAccessMask = src.access;
    b.dstStageMask = dst.stage;
    b.dstAccessMask = dst.access;
    VkDependencyInfo dep = {VK_STRUCTURE_TYPE_DEPENDENCY_INFO};
    dep.memoryBarrierCount = 1;
    dep.pMemoryBarriers = &b;
    dev->vk.vkCmdPipelineBarrier2(cmd, &dep);
}

void gpu_barrier_image_raw(const gpu_device *dev, VkCommandBuffer cmd, VkImage image,
                           VkImageAspectFlags aspect, VkImageLayout old_layout,
                           VkImageLayout new_layout, gpu_access src, gpu_access dst)
{
    VkImageMemoryBarrier2 b = {VK_STRUCTURE_TYPE_IMAGE_MEMORY_BARRIER_2};
    b.srcStageMask = src.stage;
    b.srcAccessMask = src.access;
    b.dstStageMask = dst.stage;
    b.dstAccessMask = dst.access;
    b.oldLayout = old_layout;
    b.newLayout = new_layout;
    b.srcQueueFamilyIndex = b.dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED;
    b.image = image;
    b.subresourceRange =
        (VkImageSubresourceRange){aspect, 0, VK_REMAINING_MIP_LEVELS, 0, VK_REMAINING_ARRAY_LAYERS};
    VkDependencyInfo dep = {VK_STRUCTURE_TYPE_DEPENDENCY_INFO};
    dep.imageMemoryBarrierCount = 1;
    dep.pImageMemoryBarriers = &b;
    dev->vk.vkCmdPipelineBarrier2(cmd, &dep);
}

void gpu_barrier_image(const gpu_device *dev, VkCommandBuffer cmd, const gpu_image *img,
                       VkImageLayout old_layout, VkImageLayout new_layout, gpu_access src,
                       gpu_access dst)
{
    gpu_barrier_image_raw(dev, cmd, img->image, img->aspect, old_layout, new_layout, src, dst);
}

VkShaderModule gpu_shader_module(const gpu_device *dev, const unsigned char *spirv, size_t size,
                                 const char *name)
{
    VkShaderModuleCreateInfo info = {VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO};
    info.codeSize = size;
    info.pCode = (const uint32_t *)(const void *)spirv;
    VkShaderModule module = VK_NULL_HANDLE;
    if (dev->vk.vkCreateShaderModule(dev->device, &info, NULL, &module) != VK_SUCCESS)
        return VK_NULL_HANDLE;
    GPU_NAME(dev, VK_OBJECT_TYPE_SHADER_MODULE, module, "%s", name);
    return module;
}

VkPipeline gpu_pipeline_compute(const gpu_device *dev, const gpu_compute_desc *desc)
{
    VkShaderModule module = gpu_shader_module(dev, desc->spirv, desc->spirv_size, desc->name);
    if (!module)
        return VK_NULL_HANDLE;
    VkComputePipelineCreateInfo info = {VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO};
    info.stage.sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO;
    info.stage.stage = VK_SHADER_STAGE_COMPUTE_BIT;
    info.stage.module = module;
    info.stage.pName = "main";
    info.stage.pSpecializationInfo = desc->specialization;
    info.layout = desc->layout;
    VkPipeline pipeline = VK_NULL_HANDLE;
    if (dev->vk.vkCreateComputePipelines(dev->device, VK_NULL_HANDLE, 1, &info, NULL, &pipeline) !=
        VK_SUCCESS)
        pipeline = VK_NULL_HANDLE;
    dev->vk.vkDestroyShaderModule(dev->device, module, NULL);
    GPU_NAME(dev, VK_OBJECT_TYPE_PIPELINE, pipeline, "%s", desc->name);
    return pipeline;
}

VkPipeline gpu_pipeline_graphics(const gpu_device *dev, const gpu_graphics_desc *d)
{
    VkPipelineShaderStageCreateInfo stages[2] = {
        {VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO, .stage = VK_SHADER_STAGE_VERTEX_BIT,
         .module = d->vertex, .pName = "main", .pSpecializationInfo = d->vertex_specialization},
        {VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO, .stage = VK_SHADER_STAGE_FRAGMENT_BIT,
         .module = d->fragment, .pName = "main"},
    };
    const VkPipelineVertexInputStateCreateInfo no_input = {
        VK_STRUCTURE_TYPE_PIPELINE_VERTEX_INPUT_STATE_CREATE_INFO};
    VkPipelineInputAssemblyStateCreateInfo assembly = {
        VK_STRUCTURE_TYPE_PIPELINE_INPUT_ASSEMBLY_STATE_CREATE_INFO};
    assembly.topology = d->topology;
    VkPipelineViewportStateCreateInfo viewport = {
        VK_STRUCTURE_TYPE_PIPELINE_VIEWPORT_STATE_CREATE_INFO};
    viewport.viewportCount = 1;
    viewport.scissorCount = 1;
    VkPipelineRasterizationStateCreateInfo raster = {
        VK_STRUCTURE_TYPE_PIPELINE_RASTERIZATION_STATE_CREATE_INFO};
    raster.polygonMode = VK_POLYGON_MODE_FILL;
    raster.cullMode = VK_CULL_MODE_NONE;
    raster.frontFace = VK_FRONT_FACE_COUNTER_CLOCKWISE; /* glTF's; the projection flips y */
    raster.lineWidth = 1.0f;
    VkPipelineMultisampleStateCreateInfo multisample = {
        VK_STRUCTURE_TYPE_PIPELINE_MULTISAMPLE_STATE_CREATE_INFO};
    multisample.rasterizationSamples = VK_SAMPLE_COUNT_1_BIT;
    VkPipelineDepthStencilStateCreateInfo depth = {
        VK_STRUCTURE_TYPE_PIPELINE_DEPTH_STENCIL_STATE_CREATE_INFO};
    depth.depthTestEnable = d->depth_test;
    depth.depthWriteEnable = d->depth_write;
    depth.depthCompareOp = d->depth_compare;
    VkPipelineColorBlendAttachmentState attachment = {0};
    attachment.blendEnable = d->blend;
    attachment.srcColorBlendFactor = VK_BLEND_FACTOR_SRC_ALPHA;
    attachment.dstColorBlendFactor = VK_BLEND_FACTOR_ONE_MINUS_SRC_ALPHA;
    attachment.colorBlendOp = VK_BLEND_OP_ADD;
    attachment.srcAlphaBlendFactor = VK_BLEND_FACTOR_ONE;
    attachment.dstAlphaBlendFactor = VK_BLEND_FACTOR_ONE_MINUS_SRC_ALPHA;
    attachment.alphaBlendOp = VK_BLEND_OP_ADD;
    attachment.colorWriteMask = VK_COLOR_COMPONENT_R_BIT | VK_COLOR_COMPONENT_G_BIT |
                                VK_COLOR_COMPONENT_B_BIT | VK_COLOR_COMPONENT_A_BIT;
    VkPipelineColorBlendStateCreateInfo blend = {
        VK_STRUCTURE_TYPE_PIPELINE_COLOR_BLEND_STATE_CREATE_INFO};
    blend.attachmentCount = 1;
    blend.pAttachments = &attachment;
    const VkDynamicState dynamic_states[] = {VK_DYNAMIC_STATE_VIEWPORT, VK_DYNAMIC_STATE_SCISSOR};
    VkPipelineDynamicStateCreateInfo dynamic = {
        VK_STRUCTURE_TYPE_PIPELINE_DYNAMIC_STATE_CREATE_INFO};
    dynamic.dynamicStateCount = 2;
    dynamic.pDynamicStates = dynamic_states;
    VkPipelineRenderingCreateInfo rendering = {VK_STRUCTURE_TYPE_PIPELINE_RENDERING_CREATE_INFO};
    rendering.colorAttachmentCount = 1;
    rendering.pColorAttachmentFormats = &d->color_format;
    rendering.depthAttachmentFormat = d->depth_format;
    VkGraphicsPipelineCreateInfo info = {VK_STRUCTURE_TYPE_GRAPHICS_PIPELINE_CREATE_INFO,
                                         &rendering};
    info.stageCount = 2;
    info.pStages = stages;
    info.pVertexInputState = d->vertex_input ? d->vertex_input : &no_input;
    info.pInputAssemblyState = &assembly;
    info.pViewportState = &viewport;
    info.pRasterizationState = &raster;
    info.pMultisampleState = &multisample;
    info.pDepthStencilState = &depth;
    info.pColorBlendState = &blend;
    info.pDynamicState = &dynamic;
    info.layout = d->layout;
    VkPipeline pipeline = VK_NULL_HANDLE;
    if (dev->vk.vkCreateGraphicsPipelines(dev->device, VK_NULL_HANDLE, 1, &info, NULL, &pipeline) !=
        VK_SUCCESS)
        pipeline = VK_NULL_HANDLE;
    return pipeline;
}

VkDescriptorSetLayout gpu_set_layout(const gpu_device *dev, const VkDescriptorType *types,
                                     uint32_t count, VkShaderStageFlags stages, const char *name)
{
    VkDescriptorSetLayoutBinding bindings[32];
    assert(count <= 32);
    for (uint32_t i = 0; i < count; i++)
        bindings[i] = (VkDescriptorSetLayoutBinding){
            .binding = i, .descriptorType = types[i], .descriptorCount = 1, .stageFlags = stages};
    VkDescriptorSetLayoutCreateInfo info = {VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO};
    info.bindingCount = count;
    info.pBindings = bindings;
    VkDescriptorSetLayout layout = VK_NULL_HANDLE;
    if (dev->vk.vkCreateDescriptorSetLayout(dev->device, &info, NULL, &layout) != VK_SUCCESS)
        return VK_NULL_HANDLE;
    GPU_NAME(dev, VK_OBJECT_TYPE_DESCRIPTOR_SET_LAYOUT, layout, "%s", name);
    return layout;
}

VkPipelineLayout gpu_pipeline_layout(const gpu_device *dev, const VkDescriptorSetLayout *sets,
                                     uint32_t set_count, VkShaderStageFlags push_stages,
                                     uint32_t push_size, const char *name)
{
    const VkPushConstantRange range = {push_stages, 0, push_size};
    VkPipelineLayoutCreateInfo info = {VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO};
    info.setLayoutCount = set_count;
    info.pSetLayouts = sets;
    info.pushConstantRangeCount = push_size ? 1 : 0;
    info.pPushConstantRanges = &range;
    VkPipelineLayout layout = VK_NULL_HANDLE;
    if (dev->vk.vkCreatePipelineLayout(dev->device, &info, NULL, &layout) != VK_SUCCESS)
        return VK_NULL_HANDLE;
    GPU_NAME(dev, VK_OBJECT_TYPE_PIPELINE_LAYOUT, layout, "%s", name);
    return layout;
}
