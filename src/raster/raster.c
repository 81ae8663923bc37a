/* The compute rasterizer and its resolve (raster.h). */
#include "raster.h"
#include "../core/alloc.h"

#include <stdlib.h>
#include <string.h>

extern const unsigned char vks_raster_comp_spv[], vks_raster_comp_descriptors_spv[];
extern const size_t vks_raster_comp_spv_size, vks_raster_comp_descriptors_spv_size;
extern const unsigned char vks_splat_comp_spv[], vks_splat_comp_descriptors_spv[];
extern const size_t vks_splat_comp_spv_size, vks_splat_comp_descriptors_spv_size;
extern const unsigned char vks_resolve_vert_spv[], vks_resolve_frag_spv[],
    vks_resolve_frag_descriptors_spv[];
extern const size_t vks_resolve_vert_spv_size, vks_resolve_frag_spv_size,
    vks_resolve_frag_descriptors_spv_size;

static const VkBufferUsageFlags ADDRESSED =
    VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_SHADER_DEVICE_ADDRESS_BIT;

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
    return *triangle_bits + raster__bits(visible) <= VKS_RASTER_ID_BITS;
}

/* The resolve's pipeline: a full-screen triangle, depth tested LESS and written (the fragment
 * shader writes the visibility buffer's depth), into the draw pass's attachments. */
static VkPipeline create_resolve(const gpu_device *dev, const vks_raster_pass *pass,
                                 const vks_raster_pass_desc *desc)
{
    VkShaderModule vs =
        gpu_shader_module(dev, vks_resolve_vert_spv, vks_resolve_vert_spv_size, "resolve.vert");
    VkShaderModule fs = gpu_shader_module(
        dev, pass->descriptors ? vks_resolve_frag_descriptors_spv : vks_resolve_frag_spv,
        pass->descriptors ? vks_resolve_frag_descriptors_spv_size : vks_resolve_frag_spv_size,
        "resolve.frag");
    VkPipeline pipeline =
        vs && fs ? gpu_pipeline_graphics(dev,
                                         &(gpu_graphics_desc){
                                             .vertex = vs,
                                             .fragment = fs,
                                             .topology = VK_PRIMITIVE_TOPOLOGY_TRIANGLE_LIST,
                                             .depth_test = true,
                                             .depth_write = true,
                                             .depth_compare = VK_COMPARE_OP_LESS,
                                             .color_format = desc->color_format,
                                             .depth_format = desc->depth_format,
                                             .layout = pass->resolve_layout,
                                         })
                 : VK_NULL_HANDLE;
    GPU_NAME(dev, VK_OBJECT_TYPE_PIPELINE, pipeline, "resolve pipeline");
    if (vs)
        dev->vk.vkDestroyShaderModule(dev->device, vs, NULL);
    if (fs)
        dev->vk.vkDestroyShaderModule(dev->device, fs, NULL);
    return pipeline;
}

/* A compute pipeline of the rasterizer's layout: the shader's build for the pass's binding. */
static VkPipeline compute_pipeline(const gpu_device *dev, const vks_raster_pass *pass,
                                   const unsigned char *spv, size_t spv_size,
                                   const unsigned char *descriptors_spv, size_t descriptors_size,
                                   const char *name)
{
    return gpu_pipeline_compute(dev,
                                &(gpu_compute_desc){
                                    .spirv = pass->descriptors ? descriptors_spv : spv,
                                    .spirv_size = pass->descriptors ? descriptors_size : spv_size,
                                    .layout = pass->layout,
                                    .name = name,
                                });
}

bool vks_raster_pass_create(const gpu_device *dev, const vks_raster_pass_desc *desc,
                            vks_raster_pass *pass, vks_error *err)
{
    *pass = (vks_raster_pass){.descriptors = desc->data_layout != VK_NULL_HANDLE};
    if (!dev->int64_atomics)
        return vks_fail(err,
                        "the compute rasterizer needs the device features shaderInt64 and "
                        "shaderBufferInt64Atomics, which %s lacks",
                        dev->props.deviceName);
    const VkPhysicalDeviceLimits *l = &dev->props.limits;
    pass->max_groups[0] = l->maxComputeWorkGroupCount[0];
    pass->max_groups[1] = l->maxComputeWorkGroupCount[1];
    /* The device's snapping, at most 12 bits: past them the fixed-point edge products over the
     * guard band (2^15 pixels) could overflow 64 bits (devices have 4 to 8). */
    pass->subpixel_bits = l->subPixelPrecisionBits < 12 ? l->subPixelPrecisionBits : 12;
    const uint32_t storage = VKS_DATA_COUNT + VKS_RASTER_BINDING_COUNT;
    if (pass->descriptors && (l->maxPerStageDescriptorStorageBuffers < storage ||
                              l->maxDescriptorSetStorageBuffers < storage ||
                              l->maxFragmentCombinedOutputResources < storage + 1))
        return vks_fail(err,
                        "the compute rasterizer on the descriptors binding (what validation runs) "
                        "binds %u storage buffers to a stage; %s allows %u: ask for the address "
                        "path or the hardware rasterizer",
                        storage, dev->props.deviceName, l->maxPerStageDescriptorStorageBuffers);

    if (pass->descriptors) {
        VkDescriptorType types[VKS_RASTER_BINDING_COUNT];
        for (uint32_t k = 0; k < VKS_RASTER_BINDING_COUNT; k++)
            types[k] = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
        pass->set_layout = gpu_set_layout(
            dev, types, VKS_RASTER_BINDING_COUNT,
            VK_SHADER_STAGE_COMPUTE_BIT | VK_SHADER_STAGE_FRAGMENT_BIT, "raster set layout");
        if (!pass->set_layout)
            return vks_fail(err, "cannot create the raster set layout (out of memory)");
    }
    const VkDescriptorSetLayout sets[2] = {desc->data_layout, pass->set_layout};
    pass->layout =
        gpu_pipeline_layout(dev, sets, pass->descriptors ? 2 : 0, VK_SHADER_STAGE_COMPUTE_BIT,
                            sizeof(vks_raster_push), "raster pipeline layout");
    if (pass->layout)
        pass->pipeline = compute_pipeline(dev, pass, vks_raster_comp_spv, vks_raster_comp_spv_size,
                                          vks_raster_comp_descriptors_spv,
                                          vks_raster_comp_descriptors_spv_size, "raster.comp");
    if (pass->pipeline)
        pass->splat = compute_pipeline(dev, pass, vks_splat_comp_spv, vks_splat_comp_spv_size,
                                       vks_splat_comp_descriptors_spv,
                                       vks_splat_comp_descriptors_spv_size, "splat.comp");
    bool ok = pass->pipeline != VK_NULL_HANDLE && pass->splat != VK_NULL_HANDLE;
    if (ok && desc->color_format != VK_FORMAT_UNDEFINED) {
        const VkDescriptorSetLayout resolve_sets[3] = {desc->frame_layout, desc->data_layout,
                                                       pass->set_layout};
        pass->resolve_layout = gpu_pipeline_layout(
            dev, resolve_sets, pass->descriptors ? 3 : 1, VK_SHADER_STAGE_FRAGMENT_BIT,
            sizeof(vks_resolve_push), "resolve pipeline layout");
        ok = pass->resolve_layout && (pass->resolve = create_resolve(dev, pass, desc));
    }
    if (!ok) {
        vks_raster_pass_destroy(dev, pass);
        return vks_fail(err, "cannot create the compute rasterizer's pipelines (out of memory)");
    }
    return true;
}

void vks_raster_pass_destroy(const gpu_device *dev, vks_raster_pass *pass)
{
    if (pass->pipeline)
        dev->vk.vkDestroyPipeline(dev->device, pass->pipeline, NULL);
    if (pass->splat)
        dev->vk.vkDestroyPipeline(dev->device, pass->splat, NULL);
    if (pass->resolve)
        dev->vk.vkDestroyPipeline(dev->device, pass->resolve, NULL);
    if (pass->layout)
        dev->vk.vkDestroyPipelineLayout(dev->device, pass->layout, NULL);
    if (pass->resolve_layout)
        dev->vk.vkDestroyPipelineLayout(dev->device, pass->resolve_layout, NULL);
    if (pass->set_layout)
        dev->vk.vkDestroyDescriptorSetLayout(dev->device, pass->set_layout, NULL);
    *pass = (vks_raster_pass){0};
}

void vks_raster_pass_record(const gpu_device *dev, VkCommandBuffer cmd, const vks_raster_pass *pass,
                            const vks_raster_push *push, uint32_t visible_count)
{
    if (!push->triangle_count || !visible_count)
        return;
    dev->vk.vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, pass->pipeline);
    /* Columns of triangles and rows of visible entries, as many as the device takes a
     * dispatch. */
    const uint32_t most = pass->max_groups[0] * VKS_RASTER_GROUP_SIZE;
    for (uint32_t tri = 0; tri < push->triangle_count; tri += most) {
        const uint32_t count =
            push->triangle_count - tri < most ? push->triangle_count - tri : most;
        const uint32_t groups = (count + VKS_RASTER_GROUP_SIZE - 1) / VKS_RASTER_GROUP_SIZE;
        for (uint32_t done = 0; done < visible_count;) {
            const uint32_t left = visible_count - done;
            const uint32_t rows = left < pass->max_groups[1] ? left : pass->max_groups[1];
            vks_raster_push p = *push;
            p.first_index += 3 * tri;
            p.triangle_first += tri;
            p.triangle_count = count;
            p.visible_first += done;
            p.bits = (p.bits & ~0xff00u) | pass->subpixel_bits << 8;
            dev->vk.vkCmdPushConstants(cmd, pass->layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, sizeof p,
                                       &p);
            dev->vk.vkCmdDispatch(cmd, groups, rows, 1);
            done += rows;
        }
    }
}

void vks_raster_splat_record(const gpu_device *dev, VkCommandBuffer cmd,
                             const vks_raster_pass *pass, const vks_splat_push *push)
{
    if (!push->visible_count)
        return;
    dev->vk.vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, pass->splat);
    const uint32_t most = pass->max_groups[0] * VKS_SPLAT_GROUP_SIZE;
    for (uint32_t done = 0; done < push->visible_count; done += most) {
        vks_splat_push p = *push;
        p.visible_first += done;
        p.visible_count = push->visible_count - done < most ? push->visible_count - done : most;
        dev->vk.vkCmdPushConstants(cmd, pass->layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, sizeof p, &p);
        dev->vk.vkCmdDispatch(
            cmd, (p.visible_count + VKS_SPLAT_GROUP_SIZE - 1) / VKS_SPLAT_GROUP_SIZE, 1, 1);
    }
}

/* ---- The crowd's tables ---- */

static int mesh_order(const void *a, const void *b)
{
    const vks_raster_mesh *x = a, *y = b;
    return (x->first_index > y->first_index) - (x->first_index < y->first_index);
}

/* Mesh i of model m at level l: where its indices start in the index buffer. */
static uint32_t mesh_first_index(const vks_model *model, const vks_raster_model *where,
                                 uint32_t level, uint32_t mesh)
{
    return (level ? where->lod_first_index : where->first_index) +
           vks_model_mesh_level(model, level, mesh).first_index;
}

/* Each level's entry in `levels` (VKS_MAX_LEVELS a model) and its meshes with triangles in
 * `meshes`, by first index, the level's triangles numbered from the lowest. *count: the meshes;
 * returns the most triangles a level spans (at least 1). */
static uint32_t fill_tables(const vks_model *const *models, const vks_raster_model *where,
                            uint32_t model_count, vks_raster_level *levels, vks_raster_mesh *meshes,
                            uint32_t *count)
{
    uint32_t span = 1;
    *count = 0;
    for (uint32_t m = 0; m < model_count; m++) {
        const vks_model *model = models[m];
        for (uint32_t l = 0; l < vks_model_level_count(model); l++) {
            vks_raster_level *lv = &levels[(size_t)m * VKS_MAX_LEVELS + l];
            lv->vertex_first = l ? model->vertex_count + vks_model_level(model, l).vertex_first : 0;
            lv->mesh_first = *count;
            uint32_t lo = UINT32_MAX, hi = 0;
            for (uint32_t i = 0; i < model->mesh_count; i++) {
                const vks_mesh_level ml = vks_model_mesh_level(model, l, i);
                if (!ml.index_count)
                    continue;
                const uint32_t first = mesh_first_index(model, &where[m], l, i);
                meshes[(*count)++] = (vks_raster_mesh){.first_index = first,
                                                       .base_vertex = ml.base_vertex,
                                                       .material = where[m].material_first +
                                                                   model->meshes[i].material};
                lo = first < lo ? first : lo;
                hi = first + ml.index_count > hi ? first + ml.index_count : hi;
            }
            lv->mesh_count = *count - lv->mesh_first;
            lv->first_index = lv->mesh_count ? lo : 0;
            if (lv->mesh_count && (hi - lo) / 3 > span)
                span = (hi - lo) / 3;
            qsort(meshes + lv->mesh_first, lv->mesh_count, sizeof *meshes, mesh_order);
        }
    }
    return span;
}

/* The descriptors binding's pool and a set per frame in flight. */
static bool create_sets(const gpu_device *dev, const vks_raster_pass *pass, vks_raster_scene *scene,
                        vks_error *err)
{
    const VkDescriptorPoolSize size = {VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
                                       GPU_FRAMES_IN_FLIGHT * VKS_RASTER_BINDING_COUNT};
    VkDescriptorPoolCreateInfo pi = {VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO};
    pi.maxSets = GPU_FRAMES_IN_FLIGHT;
    pi.poolSizeCount = 1;
    pi.pPoolSizes = &size;
    VkResult res = dev->vk.vkCreateDescriptorPool(dev->device, &pi, NULL, &scene->pool);
    VkDescriptorSetAllocateInfo ai = {VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO};
    ai.descriptorPool = scene->pool;
    ai.descriptorSetCount = 1;
    ai.pSetLayouts = &pass->set_layout;
    for (uint32_t s = 0; res == VK_SUCCESS && s < GPU_FRAMES_IN_FLIGHT; s++) {
        res = dev->vk.vkAllocateDescriptorSets(dev->device, &ai, &scene->targets[s].set);
        GPU_NAME(dev, VK_OBJECT_TYPE_DESCRIPTOR_SET, scene->targets[s].set, "raster set %u", s);
    }
    if (res != VK_SUCCESS)
        return vks_fail(err, "cannot create the raster sets: %s", gpu_result_name(res));
    return true;
}

/* ---- The materials: the table and every texture's texels, for the one resolve ---- */

/* A side of mip level l of a level-0 side of `size`: halved l times, at least 1. */
static uint32_t level_side(uint32_t size, uint32_t l)
{
    return size >> l ? size >> l : 1;
}

/* Texels of levels [from, to) of an image of level-0 size w x h. */
static uint64_t texel_words(uint32_t w, uint32_t h, uint32_t from, uint32_t to)
{
    uint64_t n = 0;
    for (uint32_t l = from; l < to; l++)
        n += (uint64_t)level_side(w, l) * level_side(h, l);
    return n;
}

/* Which of the images' levels to store: all of them (those holding pixels), unless the buffer
 * would pass `limit` words: then the top level of whichever texture's stored top is largest is
 * left out, and again, until it fits. skip[i]: image i's levels left out; *words: the texels'. */
static bool plan_texels(const gpu_image *images, uint32_t count, uint64_t limit, uint32_t *skip,
                        uint64_t *words, uint32_t *dropped)
{
    uint64_t total = 0;
    for (uint32_t i = 0; i < count; i++) {
        skip[i] = 0;
        total +=
            texel_words(images[i].extent.width, images[i].extent.height, 0, images[i].mip_levels);
    }
    *dropped = 0;
    while (total > limit) {
        uint32_t widest = UINT32_MAX;
        uint64_t most = 0;
        for (uint32_t i = 0; i < count; i++) {
            const uint64_t top =
                texel_words(images[i].extent.width, images[i].extent.height, skip[i], skip[i] + 1);
            if (skip[i] + 1 < images[i].mip_levels && top > most)
                most = top, widest = i;
        }
        if (widest == UINT32_MAX)
            return false; /* every texture at its last level: the table itself is too large */
        total -= most;
        skip[widest]++;
        ++*dropped;
    }
    *words = total;
    return true;
}

/* The copies of each image's stored levels into `buffer` (from word image_first[i]), and the
 * barriers around them: the images leave SHADER_READ_ONLY_OPTIMAL for the copies and return. */
static void copy_texels(const gpu_device *dev, VkCommandBuffer cmd, const gpu_image *images,
                        uint32_t count, const uint32_t *skip, const uint64_t *image_first,
                        VkBuffer buffer)
{
    const gpu_access sampled = {VK_PIPELINE_STAGE_2_FRAGMENT_SHADER_BIT,
                                VK_ACCESS_2_SHADER_SAMPLED_READ_BIT};
    const gpu_access copy_read = {VK_PIPELINE_STAGE_2_COPY_BIT, VK_ACCESS_2_TRANSFER_READ_BIT};
    for (uint32_t i = 0; i < count; i++) {
        const gpu_image *img = &images[i];
        gpu_barrier_image(dev, cmd, img, VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL,
                          VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, sampled, copy_read);
        uint64_t at = image_first[i];
        for (uint32_t l = skip[i]; l < img->mip_levels; l++) {
            const uint32_t w = level_side(img->extent.width, l),
                           h = level_side(img->extent.height, l);
            const VkBufferImageCopy region = {
                .bufferOffset = 4 * at,
                .imageSubresource = {VK_IMAGE_ASPECT_COLOR_BIT, l, 0, 1},
                .imageExtent = {w, h, 1},
            };
            dev->vk.vkCmdCopyImageToBuffer(cmd, img->image, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL,
                                           buffer, 1, &region);
            at += (uint64_t)w * h;
        }
        gpu_barrier_image(dev, cmd, img, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL,
                          VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL, copy_read, sampled);
    }
}

/* The materials buffer: a vks_raster_material per material of the crowd (models in turn), then
 * each image's stored levels, then one white texel (materials without a texture, when the
 * scene has no images). Filled by one submit, waited on. */
static bool create_materials(const gpu_device *dev, const vks_model *const *models,
                             const vks_raster_model *where, uint32_t model_count,
                             const gpu_image *images, uint32_t image_count, vks_raster_scene *scene,
                             vks_error *err)
{
    uint32_t material_count = 0;
    for (uint32_t m = 0; m < model_count; m++)
        material_count = where[m].material_first + models[m]->material_count > material_count
                             ? where[m].material_first + models[m]->material_count
                             : material_count;
    const uint64_t table_words = (uint64_t)material_count * VKS_RASTER_MATERIAL_WORDS;
    /* The whole buffer is bound on the descriptors binding: within the storage-buffer range, on
     * either binding alike so that both resolve the same texels. */
    const uint64_t range_words = dev->props.limits.maxStorageBufferRange / 4;
    vks_raster_material *table = vks_calloc(material_count ? material_count : 1, sizeof *table);
    uint32_t *skip = vks_calloc(image_count ? image_count : 1, sizeof *skip);
    uint64_t *image_first = vks_calloc(image_count ? image_count : 1, sizeof *image_first);
    uint64_t texels = 0;
    bool ok = table && skip && image_first;
    if (!ok) {
        vks_fail_memory(err, "out of memory");
    } else if (table_words + 1 > range_words ||
               !plan_texels(images, image_count, range_words - table_words - 1, skip, &texels,
                            &scene->levels_dropped)) {
        ok = vks_fail(err,
                      "the compute rasterizer's %u materials and their textures' last levels take "
                      "more than %s's storage-buffer range of %u bytes",
                      material_count, dev->props.deviceName,
                      dev->props.limits.maxStorageBufferRange);
    }
    const uint64_t white = table_words + texels;
    for (uint32_t i = 0, at = (uint32_t)table_words; ok && i < image_count; i++) {
        image_first[i] = at;
        at += (uint32_t)texel_words(images[i].extent.width, images[i].extent.height, skip[i],
                                    images[i].mip_levels);
    }
    for (uint32_t m = 0, texture_first = 0; ok && m < model_count; m++) {
        const vks_model *model = models[m];
        for (uint32_t k = 0; k < model->material_count; k++) {
            const vks_material *mat = &model->materials[k];
            vks_raster_material *t = &table[where[m].material_first + k];
            /* A material without a texture reads the white one (the scene's last image). */
            const uint32_t i =
                mat->texture >= 0 ? texture_first + (uint32_t)mat->texture : image_count - 1;
            if (image_count && i < image_count) {
                const gpu_image *img = &images[i];
                const uint32_t w = level_side(img->extent.width, skip[i]),
                               h = level_side(img->extent.height, skip[i]);
                *t = (vks_raster_material){.texel_first = (uint32_t)image_first[i],
                                           .size = w | h << 16,
                                           .levels = img->mip_levels - skip[i]};
            } else {
                *t = (vks_raster_material){
                    .texel_first = (uint32_t)white, .size = 1 | 1 << 16, .levels = 1};
            }
            memcpy(t->base_color, mat->base_color, sizeof t->base_color);
        }
        texture_first += model->texture_count;
    }
    ok = ok &&
         gpu_buffer_create(dev,
                           &(gpu_buffer_desc){.size = 4 * (white + 1),
                                              .usage = ADDRESSED | VK_BUFFER_USAGE_TRANSFER_DST_BIT,
                                              .name = "raster materials"},
                           &scene->materials, err);
    VkCommandBuffer cmd;
    if (ok && (ok = gpu_once_begin(dev, &cmd, err))) {
        /* The table in updates of at most 64 KiB (vkCmdUpdateBuffer's bound), the white texel,
         * then the images' levels. */
        const VkDeviceSize bytes = sizeof *table * material_count;
        for (VkDeviceSize at = 0; at < bytes; at += 65536)
            dev->vk.vkCmdUpdateBuffer(cmd, scene->materials.buffer, at,
                                      bytes - at < 65536 ? bytes - at : 65536,
                                      (const char *)table + at);
        dev->vk.vkCmdFillBuffer(cmd, scene->materials.buffer, 4 * white, 4, 0xffffffffu);
        copy_texels(dev, cmd, images, image_count, skip, image_first, scene->materials.buffer);
        gpu_barrier_buffer(
            dev, cmd, scene->materials.buffer,
            (gpu_access){VK_PIPELINE_STAGE_2_ALL_TRANSFER_BIT, VK_ACCESS_2_TRANSFER_WRITE_BIT},
            (gpu_access){VK_PIPELINE_STAGE_2_FRAGMENT_SHADER_BIT,
                         VK_ACCESS_2_SHADER_STORAGE_READ_BIT});
        ok = gpu_once_end(dev, cmd, err);
    }
    vks_free(table);
    vks_free(skip);
    vks_free(image_first);
    return ok;
}

bool vks_raster_scene_create(const gpu_device *dev, const vks_raster_pass *pass,
                             const vks_model *const *models, const vks_raster_model *where,
                             uint32_t model_count, const gpu_buffer *indices,
                             const gpu_image *textures, uint32_t texture_count,
                             vks_raster_scene *scene, vks_error *err)
{
    *scene = (vks_raster_scene){.indices = indices};
    uint32_t mesh_total = 0;
    for (uint32_t m = 0; m < model_count; m++)
        mesh_total += vks_model_level_count(models[m]) * models[m]->mesh_count;
    scene->level_table =
        vks_calloc((size_t)model_count * VKS_MAX_LEVELS, sizeof *scene->level_table);
    vks_raster_mesh *meshes = vks_calloc(mesh_total ? mesh_total : 1, sizeof *meshes);
    if (!scene->level_table || !meshes) {
        vks_free(meshes);
        vks_raster_scene_destroy(dev, scene);
        return vks_fail_memory(err, "out of memory");
    }
    uint32_t count;
    const uint32_t span =
        fill_tables(models, where, model_count, scene->level_table, meshes, &count);
    /* The entry takes the bits the triangles leave: entries past them are not rasterized here
     * (the renderer gives them the graphics pipeline). */
    vks_raster_id_bits(span, 1, &scene->triangle_bits);
    const uint32_t entry_bits = VKS_RASTER_ID_BITS - scene->triangle_bits;
    scene->max_entries = entry_bits >= 32 ? UINT32_MAX : (uint32_t)1 << entry_bits;
    bool ok =
        gpu_buffer_create_filled(
            dev,
            &(gpu_buffer_desc){.size = sizeof *scene->level_table * model_count * VKS_MAX_LEVELS,
                               .usage = ADDRESSED,
                               .name = "raster levels"},
            scene->level_table, &scene->levels, err) &&
        gpu_buffer_create_filled(dev,
                                 &(gpu_buffer_desc){.size = sizeof *meshes * (count ? count : 1),
                                                    .usage = ADDRESSED,
                                                    .name = "raster meshes"},
                                 meshes, &scene->meshes, err);
    vks_free(meshes);
    ok = ok &&
         create_materials(dev, models, where, model_count, textures, texture_count, scene, err);
    if (ok && pass->descriptors)
        ok = create_sets(dev, pass, scene, err);
    if (!ok)
        vks_raster_scene_destroy(dev, scene);
    return ok;
}

void vks_raster_scene_destroy(const gpu_device *dev, vks_raster_scene *scene)
{
    for (uint32_t s = 0; s < GPU_FRAMES_IN_FLIGHT; s++) {
        gpu_buffer_destroy(dev, &scene->targets[s].vis);
        gpu_buffer_destroy(dev, &scene->targets[s].count);
    }
    if (scene->pool)
        dev->vk.vkDestroyDescriptorPool(dev->device, scene->pool, NULL);
    gpu_buffer_destroy(dev, &scene->levels);
    gpu_buffer_destroy(dev, &scene->meshes);
    gpu_buffer_destroy(dev, &scene->materials);
    vks_free(scene->level_table);
    *scene = (vks_raster_scene){0};
}

void vks_raster_mesh_range(const vks_raster_scene *scene, const vks_model *model,
                           const vks_raster_model *where, uint32_t m, uint32_t level, uint32_t mesh,
                           uint32_t *first_index, uint32_t *triangle_first)
{
    *first_index = mesh_first_index(model, where, level, mesh);
    *triangle_first =
        (*first_index - scene->level_table[(size_t)m * VKS_MAX_LEVELS + level].first_index) / 3;
}

bool vks_raster_target_size(const gpu_device *dev, const vks_raster_pass *pass,
                            vks_raster_scene *scene, uint32_t slot, uint32_t width, uint32_t height,
                            vks_error *err)
{
    vks_raster_target *t = &scene->targets[slot];
    if (t->vis.buffer && t->width == width && t->height == height)
        return true;
    gpu_buffer_destroy(dev, &t->vis);
    t->width = t->height = 0;
    char name[64];
    const VkDeviceSize bytes = sizeof(uint64_t) * ((VkDeviceSize)width * height + 1);
    if (pass->descriptors && bytes > dev->props.limits.maxStorageBufferRange)
        return vks_fail(err,
                        "the compute rasterizer on the descriptors binding (what validation runs) "
                        "binds its visibility buffer whole: %llu bytes for %ux%u, past %s's "
                        "storage-buffer range of %u; a smaller image, or the addresses binding",
                        (unsigned long long)bytes, width, height, dev->props.deviceName,
                        dev->props.limits.maxStorageBufferRange);
    snprintf(name, sizeof name, "visibility buffer %u", slot);
    if (!gpu_buffer_create(dev,
                           &(gpu_buffer_desc){.size = bytes,
                                              .usage = ADDRESSED |
                                                       VK_BUFFER_USAGE_TRANSFER_DST_BIT |
                                                       VK_BUFFER_USAGE_TRANSFER_SRC_BIT,
                                              .name = name},
                           &t->vis, err))
        return false;
    snprintf(name, sizeof name, "visibility count %u", slot);
    if (!t->count.buffer &&
        !gpu_buffer_create(dev,
                           &(gpu_buffer_desc){.size = sizeof(uint64_t),
                                              .usage = VK_BUFFER_USAGE_TRANSFER_DST_BIT,
                                              .memory = GPU_MEMORY_READBACK,
                                              .name = name},
                           &t->count, err))
        return false;
    t->width = width;
    t->height = height;
    if (pass->descriptors) { /* the slot is idle: its set may change */
        const VkDescriptorBufferInfo info[VKS_RASTER_BINDING_COUNT] = {
            [VKS_RASTER_BINDING_VIS] = {t->vis.buffer, 0, VK_WHOLE_SIZE},
            [VKS_RASTER_BINDING_INDICES] = {scene->indices->buffer, 0, VK_WHOLE_SIZE},
            [VKS_RASTER_BINDING_LEVELS] = {scene->levels.buffer, 0, VK_WHOLE_SIZE},
            [VKS_RASTER_BINDING_MESHES] = {scene->meshes.buffer, 0, VK_WHOLE_SIZE},
            [VKS_RASTER_BINDING_MATERIALS] = {scene->materials.buffer, 0, VK_WHOLE_SIZE},
        };
        VkWriteDescriptorSet w[VKS_RASTER_BINDING_COUNT];
        for (uint32_t k = 0; k < VKS_RASTER_BINDING_COUNT; k++)
            w[k] = (VkWriteDescriptorSet){.sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET,
                                          .dstSet = t->set,
                                          .dstBinding = k,
                                          .descriptorCount = 1,
                                          .descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
                                          .pBufferInfo = &info[k]};
        dev->vk.vkUpdateDescriptorSets(dev->device, VKS_RASTER_BINDING_COUNT, w, 0, NULL);
    }
    return true;
}

/* ---- Recording ---- */

void vks_raster_clear(const gpu_device *dev, VkCommandBuffer cmd, const vks_raster_target *t)
{
    /* The slot's previous frame (its resolve's reads, its count's copy) completed before this
     * one began: its fence. */
    const VkDeviceSize words = (VkDeviceSize)t->width * t->height;
    dev->vk.vkCmdFillBuffer(cmd, t->vis.buffer, 0, sizeof(uint64_t) * words, 0xffffffffu);
    dev->vk.vkCmdFillBuffer(cmd, t->vis.buffer, sizeof(uint64_t) * words, sizeof(uint64_t), 0);
    gpu_barrier_buffer(
        dev, cmd, t->vis.buffer,
        (gpu_access){VK_PIPELINE_STAGE_2_ALL_TRANSFER_BIT, VK_ACCESS_2_TRANSFER_WRITE_BIT},
        (gpu_access){VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT,
                     VK_ACCESS_2_SHADER_STORAGE_READ_BIT | VK_ACCESS_2_SHADER_STORAGE_WRITE_BIT});
}

void vks_raster_bind(const gpu_device *dev, VkCommandBuffer cmd, const vks_raster_pass *pass,
                     const vks_raster_target *t)
{
    if (pass->descriptors)
        dev->vk.vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, pass->layout, 1, 1,
                                        &t->set, 0, NULL);
}

void vks_raster_finish(const gpu_device *dev, VkCommandBuffer cmd, const vks_raster_target *t)
{
    const VkDeviceSize words = (VkDeviceSize)t->width * t->height;
    gpu_barrier_buffer(
        dev, cmd, t->vis.buffer,
        (gpu_access){VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT,
                     VK_ACCESS_2_SHADER_STORAGE_READ_BIT | VK_ACCESS_2_SHADER_STORAGE_WRITE_BIT},
        (gpu_access){VK_PIPELINE_STAGE_2_FRAGMENT_SHADER_BIT | VK_PIPELINE_STAGE_2_COPY_BIT,
                     VK_ACCESS_2_SHADER_STORAGE_READ_BIT | VK_ACCESS_2_TRANSFER_READ_BIT});
    dev->vk.vkCmdCopyBuffer(cmd, t->vis.buffer, t->count.buffer, 1,
                            &(VkBufferCopy){sizeof(uint64_t) * words, 0, sizeof(uint64_t)});
    gpu_barrier_buffer(dev, cmd, t->count.buffer,
                       (gpu_access){VK_PIPELINE_STAGE_2_COPY_BIT, VK_ACCESS_2_TRANSFER_WRITE_BIT},
                       (gpu_access){VK_PIPELINE_STAGE_2_HOST_BIT, VK_ACCESS_2_HOST_READ_BIT});
}

void vks_raster_resolve(const gpu_device *dev, VkCommandBuffer cmd, const vks_raster_pass *pass,
                        const vks_raster_scene *scene, const vks_raster_target *t,
                        VkDescriptorSet frame_set, VkDescriptorSet data_set,
                        const vks_resolve_push *push)
{
    vks_resolve_push p = *push;
    gpu_address_words(scene->indices->address, p.indices);
    gpu_address_words(t->vis.address, p.vis);
    gpu_address_words(scene->levels.address, p.levels);
    gpu_address_words(scene->meshes.address, p.meshes);
    gpu_address_words(scene->materials.address, p.materials);
    p.width = t->width;
    p.height = t->height;
    p.triangle_bits = scene->triangle_bits;
    p.subpixel_bits = pass->subpixel_bits;
    const VkDescriptorSet sets[3] = {frame_set, data_set, t->set};
    dev->vk.vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_GRAPHICS, pass->resolve);
    dev->vk.vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_GRAPHICS, pass->resolve_layout, 0,
                                    pass->descriptors ? 3 : 1, sets, 0, NULL);
    dev->vk.vkCmdPushConstants(cmd, pass->resolve_layout, VK_SHADER_STAGE_FRAGMENT_BIT, 0, sizeof p,
                               &p);
    dev->vk.vkCmdDraw(cmd, 3, 1, 0, 0);
}

uint64_t vks_raster_pixels(const gpu_device *dev, const vks_raster_target *t)
{
    if (!t->count.mapped)
        return 0;
    gpu_buffer_invalidate(dev, &t->count);
    uint64_t n;
    memcpy(&n, t->count.mapped, sizeof n);
    return n;
}
