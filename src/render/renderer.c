/* The owned renderer's creation and growth (renderer.h): the skinner it records, the draw side
 * around it (passes, descriptors, frames), and the instance table's staging, which grows with
 * the skinner. */
#include "renderer_impl.h"
#include "../core/alloc.h"

#include <assert.h>
#include <stdio.h>
#include <string.h>

/* The instance table follows the crowd: each frame slot's staging of moved instances' entries
 * and their scatter records, room for the skinner's instance_capacity, and the scatter into the
 * table. */
static bool create_world(vks_renderer *r, vks_error *err)
{
    const uint32_t n = r->skinner.instance_capacity;
    gpu_buffer staging[GPU_FRAMES_IN_FLIGHT], records[GPU_FRAMES_IN_FLIGHT];
    for (uint32_t i = 0; i < GPU_FRAMES_IN_FLIGHT; i++) {
        vks_frame *f = &r->frames[i];
        if (!vks_slot_buffer(r->dev, sizeof(vks_instance) * n, "moved instances", i,
                             &f->world_staging, err) ||
            !vks_slot_buffer(r->dev, sizeof(vks_scatter_record) * n, "moved instance records", i,
                             &f->world_records, err))
            return false;
        staging[i] = f->world_staging;
        records[i] = f->world_records;
    }
    return vks_scatter_pass_create(r->dev, r->skinner.descriptors, sizeof(vks_instance),
                                   &r->skinner.scene.instances, &r->skinner.scene.model_table,
                                   staging, records, &r->world_scatter, err);
}

static void destroy_world(vks_renderer *r)
{
    for (uint32_t i = 0; i < GPU_FRAMES_IN_FLIGHT; i++) {
        gpu_buffer_destroy(r->dev, &r->frames[i].world_staging);
        gpu_buffer_destroy(r->dev, &r->frames[i].world_records);
    }
    vks_scatter_pass_destroy(r->dev, &r->world_scatter);
}

/* Frame slot f's state that does not change with the crowd: its uniforms, command buffer, fence
 * and queries. */
static bool create_frame_fixed(vks_renderer *r, vks_frame *f, vks_error *err)
{
    const gpu_device *dev = r->dev;
    const uint32_t i = f->slot;
    char name[64];
    snprintf(name, sizeof name, "frame uniforms %u", i);
    if (!gpu_buffer_create(dev,
                           &(gpu_buffer_desc){.size = sizeof(vks_frame_uniforms),
                                              .usage = VK_BUFFER_USAGE_UNIFORM_BUFFER_BIT,
                                              .memory = GPU_MEMORY_UPLOAD,
                                              .name = name},
                           &f->uniform_buffer, err))
        return false;
    f->uniforms = f->uniform_buffer.mapped;
    VkCommandPoolCreateInfo pi = {VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO};
    pi.flags = VK_COMMAND_POOL_CREATE_TRANSIENT_BIT;
    pi.queueFamilyIndex = dev->queue_family;
    GPU_TRY(dev->vk.vkCreateCommandPool(dev->device, &pi, NULL, &f->pool), err,
            "create a frame's command pool");
    GPU_NAME(dev, VK_OBJECT_TYPE_COMMAND_POOL, f->pool, "frame %u command pool", i);
    VkCommandBufferAllocateInfo ai = {VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
    ai.commandPool = f->pool;
    ai.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
    ai.commandBufferCount = 1;
    GPU_TRY(dev->vk.vkAllocateCommandBuffers(dev->device, &ai, &f->cmd), err,
            "allocate a frame's command buffer");
    GPU_NAME(dev, VK_OBJECT_TYPE_COMMAND_BUFFER, f->cmd, "frame %u commands", i);
    VkFenceCreateInfo fi = {VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
    fi.flags = VK_FENCE_CREATE_SIGNALED_BIT;
    GPU_TRY(dev->vk.vkCreateFence(dev->device, &fi, NULL, &f->fence), err,
            "create a frame's fence");
    GPU_NAME(dev, VK_OBJECT_TYPE_FENCE, f->fence, "frame %u fence", i);
    if (dev->timestamps) {
        VkQueryPoolCreateInfo qi = {VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO};
        qi.queryType = VK_QUERY_TYPE_TIMESTAMP;
        qi.queryCount = QUERY_COUNT;
        GPU_TRY(dev->vk.vkCreateQueryPool(dev->device, &qi, NULL, &f->timestamps), err,
                "create a frame's timestamp queries");
        GPU_NAME(dev, VK_OBJECT_TYPE_QUERY_POOL, f->timestamps, "frame %u timestamps", i);
    }
    if (dev->statistics) {
        VkQueryPoolCreateInfo qi = {VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO};
        qi.queryType = VK_QUERY_TYPE_PIPELINE_STATISTICS;
        qi.queryCount = STATS_COUNT;
        /* Results come in bit order: primitives, then compute invocations. */
        qi.pipelineStatistics = VK_QUERY_PIPELINE_STATISTIC_INPUT_ASSEMBLY_PRIMITIVES_BIT |
                                VK_QUERY_PIPELINE_STATISTIC_COMPUTE_SHADER_INVOCATIONS_BIT;
        GPU_TRY(dev->vk.vkCreateQueryPool(dev->device, &qi, NULL, &f->statistics), err,
                "create a frame's statistics query");
        GPU_NAME(dev, VK_OBJECT_TYPE_QUERY_POOL, f->statistics, "frame %u statistics", i);
    }
    return true;
}

static bool create_descriptors(vks_renderer *r, vks_error *err)
{
    const gpu_device *dev = r->dev;
    const vks_crowd *c = r->skinner.crowd;
    uint32_t materials = r->skinner.scene.material_count;
    VkDescriptorPoolSize sizes[] = {
        {VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER, GPU_FRAMES_IN_FLIGHT},
        {VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER, materials ? materials : 1},
    };
    VkDescriptorPoolCreateInfo pi = {VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO};
    pi.maxSets = GPU_FRAMES_IN_FLIGHT + materials;
    pi.poolSizeCount = 2;
    pi.pPoolSizes = sizes;
    VkResult res = dev->vk.vkCreateDescriptorPool(dev->device, &pi, NULL, &r->descriptor_pool);
    if (res != VK_SUCCESS)
        return vks_fail(err, "cannot create a descriptor pool: %s", gpu_result_name(res));
    GPU_NAME(dev, VK_OBJECT_TYPE_DESCRIPTOR_POOL, r->descriptor_pool, "descriptor pool");

    VkDescriptorSetAllocateInfo ai = {VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO};
    ai.descriptorPool = r->descriptor_pool;
    ai.descriptorSetCount = 1;
    for (uint32_t i = 0; i < GPU_FRAMES_IN_FLIGHT; i++) {
        vks_frame *f = &r->frames[i];
        ai.pSetLayouts = &r->draw.frame_layout;
        GPU_TRY(dev->vk.vkAllocateDescriptorSets(dev->device, &ai, &f->frame_set), err,
                "allocate a frame's descriptor set");
        GPU_NAME(dev, VK_OBJECT_TYPE_DESCRIPTOR_SET, f->frame_set, "frame set %u", i);
        VkDescriptorBufferInfo ub = {f->uniform_buffer.buffer, 0, VK_WHOLE_SIZE};
        VkWriteDescriptorSet w = {VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET};
        w.dstSet = f->frame_set;
        w.descriptorCount = 1;
        w.descriptorType = VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER;
        w.pBufferInfo = &ub;
        dev->vk.vkUpdateDescriptorSets(dev->device, 1, &w, 0, NULL);
    }

    r->material_sets = vks_calloc(materials ? materials : 1, sizeof *r->material_sets);
    if (!r->material_sets)
        return vks_fail_memory(err, "out of memory");
    ai.pSetLayouts = &r->draw.material_layout;
    uint32_t texture_first = 0;
    for (uint32_t m = 0; m < c->model_count; m++) {
        const vks_model *model = c->models[m];
        for (uint32_t k = 0; k < model->material_count; k++) {
            VkDescriptorSet *set = &r->material_sets[r->skinner.scene.models[m].material_first + k];
            GPU_TRY(dev->vk.vkAllocateDescriptorSets(dev->device, &ai, set), err,
                    "allocate a material's descriptor set");
            GPU_NAME(dev, VK_OBJECT_TYPE_DESCRIPTOR_SET, *set, "material %s of %s",
                     model->materials[k].name, model->name);
            int32_t t = model->materials[k].texture;
            const gpu_image *img =
                &r->skinner.scene.textures[t >= 0 ? texture_first + (uint32_t)t
                                                  : r->skinner.scene.texture_count - 1];
            VkDescriptorImageInfo ii = {r->draw.sampler, img->view,
                                        VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL};
            VkWriteDescriptorSet w = {VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET};
            w.dstSet = *set;
            w.descriptorCount = 1;
            w.descriptorType = VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER;
            w.pImageInfo = &ii;
            dev->vk.vkUpdateDescriptorSets(dev->device, 1, &w, 0, NULL);
        }
        texture_first += model->texture_count;
    }
    return true;
}

/* The compute rasterizer (desc.raster compute or hybrid): its pipelines and the crowd's tables. */
static bool create_raster(vks_renderer *r, vks_error *err)
{
    if (r->raster_mode == VKS_RASTER_HARDWARE)
        return true;
    const vks_crowd *c = r->skinner.crowd;
    vks_raster_model where[VKS_CROWD_MAX_MODELS];
    for (uint32_t m = 0; m < c->model_count; m++)
        where[m] = (vks_raster_model){.first_index = r->skinner.scene.models[m].first_index,
                                      .lod_first_index = r->skinner.scene.models[m].lod_first_index,
                                      .material_first = r->skinner.scene.models[m].material_first};
    return vks_raster_pass_create(r->dev,
                                  &(vks_raster_pass_desc){
                                      .data_layout = r->skinner.data_layout,
                                      .frame_layout = r->draw.frame_layout,
                                      .color_format = r->draw.color_format,
                                      .depth_format = r->draw.depth_format,
                                  },
                                  &r->raster, err) &&
           vks_raster_scene_create(r->dev, &r->raster, c->models, where, c->model_count,
                                   &r->skinner.scene.indices, r->skinner.scene.textures,
                                   r->skinner.scene.texture_count, &r->raster_scene, err);
}

bool vks_renderer_fit(vks_renderer *r, vks_error *err)
{
    vks_skinner *sk = &r->skinner;
    vks_skinner_growth growth;
    if (!vks_skinner_reserve(sk, err))
        return false;
    if (!vks_skinner_outgrown(sk))
        return true;
    if (!vks_skinner_plan_growth(sk, &growth, err))
        return false; /* refused: nothing lost, the frames draw the crowd they had room for */
    r->dev->vk.vkDeviceWaitIdle(r->dev->device); /* the frames in flight read what is remade */
    destroy_world(r);
    if (!vks_skinner_grow(sk, &growth, err))
        return false; /* (broken: the world is made again with nothing to draw) */
    if (!create_world(r, err)) {
        destroy_world(r);
        sk->broken = true;
        return false;
    }
    return true;
}

bool vks_renderer_fit_output(vks_renderer *r, vks_frame *f, vks_error *err)
{
    vks_skinner *sk = &r->skinner;
    if (sk->mode != VKS_SKIN_COMPUTE || !sk->request.output_on_demand)
        return true;
    vks_skinner_order(sk, f->skin);
    const VkDeviceSize bytes = vks_skinner_output_wanted(sk, f->skin);
    if (!bytes)
        return true;
    r->dev->vk.vkDeviceWaitIdle(r->dev->device); /* the frames in flight read the output */
    return vks_skinner_grow_output(sk, bytes, err);
}

bool vks_renderer_fit_store(vks_renderer *r, const uint32_t *visible, const uint8_t *raster,
                            uint32_t count, vks_error *err)
{
    const uint32_t pages = vks_skinner_store_wanted(&r->skinner, visible, raster, count);
    if (!pages)
        return true;
    r->dev->vk.vkDeviceWaitIdle(r->dev->device); /* the frames in flight read the store */
    return vks_skinner_grow_store(&r->skinner, pages, err);
}

vks_plan_request vks_renderer_plan_request(const vks_renderer_desc *desc)
{
    return (vks_plan_request){.mode = desc->mode,
                              .palette_store = desc->palette_store,
                              .max_skinned_vertices = desc->max_skinned_vertices,
                              .buffer_limit = desc->buffer_limit,
                              .output_sets = 1,
                              .output_on_demand = true,
                              .instance_updates = true,
                              .raster_materials = desc->raster != VKS_RASTER_HARDWARE,
                              .image = desc->image};
}

bool vks_renderer_create(const gpu_device *dev, const vks_renderer_desc *desc, vks_renderer *r,
                         vks_error *err)
{
    const vks_crowd *c = desc->crowd;
    *r = (vks_renderer){.dev = dev, .raster_mode = desc->raster, .readback = desc->readback};
    assert(desc->raster == VKS_RASTER_HARDWARE || desc->mode == VKS_SKIN_COMPUTE);
    /* The skinned output's readers: the vertex shaders that pull it and the readback's copy;
     * the compute rasterizer (compute) and its resolve (fragment) when there is one. */
    const bool rasters = desc->raster != VKS_RASTER_HARDWARE;
    const vks_skinner_desc sd = {
        .crowd = c,
        .request = vks_renderer_plan_request(desc),
        .memory_limit = desc->memory_limit,
        .group_size = desc->group_size,
        .stage_palette = desc->stage_palette,
        .readback = desc->readback,
        .descriptors = vks_binding_descriptors(desc->binding, dev),
        .output_stages = VK_PIPELINE_STAGE_2_VERTEX_SHADER_BIT | VK_PIPELINE_STAGE_2_COPY_BIT |
                         (rasters ? VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT |
                                        VK_PIPELINE_STAGE_2_FRAGMENT_SHADER_BIT
                                  : 0),
        .output_access = VK_ACCESS_2_SHADER_STORAGE_READ_BIT | VK_ACCESS_2_TRANSFER_READ_BIT,
        .scene = {.textures = true, .index_addresses = rasters},
        .instance_capacity = desc->instance_capacity,
        .palette_capacity = desc->palette_capacity,
    };
    if (!vks_skinner_create(dev, &sd, &r->skinner, err))
        return false;
    bool ok = vks_draw_pass_create(dev, desc->color_format, vks_draw_depth_format(dev), desc->mode,
                                   r->skinner.features & ~VKS_SKIN_VARIANT_STAGE,
                                   r->skinner.data_layout, &r->draw, err);
    if (ok && desc->overlays)
        ok = vks_overlay_pass_create(dev, desc->color_format, r->draw.depth_format, &r->overlay,
                                     err);
    for (uint32_t i = 0; ok && i < GPU_FRAMES_IN_FLIGHT; i++) {
        r->frames[i].slot = i;
        r->frames[i].skin = &r->skinner.slots[i];
        r->frames[i].stats = UNKNOWN_STATS;
        ok = create_frame_fixed(r, &r->frames[i], err);
    }
    ok = ok && create_world(r, err) && create_descriptors(r, err) && create_raster(r, err);
    if (!ok) {
        vks_renderer_destroy(r);
        return false;
    }
    vks_skinner_set_raster(&r->skinner,
                           desc->raster == VKS_RASTER_COMPUTE  ? VKS_FRAME_RASTER_ALL
                           : desc->raster == VKS_RASTER_HYBRID ? VKS_FRAME_RASTER_MARKED
                                                               : VKS_FRAME_RASTER_NONE,
                           r->raster_scene.max_entries);
    return true;
}

void vks_renderer_destroy(vks_renderer *r)
{
    const gpu_device *dev = r->dev;
    if (!dev)
        return;
    dev->vk.vkDeviceWaitIdle(dev->device);
    for (uint32_t i = 0; i < GPU_FRAMES_IN_FLIGHT; i++) {
        vks_frame *f = &r->frames[i];
        if (f->timestamps)
            dev->vk.vkDestroyQueryPool(dev->device, f->timestamps, NULL);
        if (f->statistics)
            dev->vk.vkDestroyQueryPool(dev->device, f->statistics, NULL);
        if (f->fence)
            dev->vk.vkDestroyFence(dev->device, f->fence, NULL);
        if (f->pool)
            dev->vk.vkDestroyCommandPool(dev->device, f->pool, NULL);
        gpu_buffer_destroy(dev, &f->uniform_buffer);
    }
    if (r->descriptor_pool)
        dev->vk.vkDestroyDescriptorPool(dev->device, r->descriptor_pool, NULL);
    vks_free(r->material_sets);
    destroy_world(r);
    vks_raster_scene_destroy(dev, &r->raster_scene);
    vks_raster_pass_destroy(dev, &r->raster);
    vks_overlay_pass_destroy(dev, &r->overlay);
    vks_draw_pass_destroy(dev, &r->draw);
    vks_skinner_destroy(&r->skinner);
    *r = (vks_renderer){0};
}
