/* The public API's Vulkan side (include/vkskin/vkskin_vulkan.h): the host's device adopted
 * (gpu/gpu.h), and a skinner on it (render/skinner.h): skinning recorded into the host's command
 * buffers, nothing drawn, submitted or waited on. The owned renderer records the same skinner. */
#include "api.h"
#include "binding.h"
#include "../core/alloc.h"

#include "render/skinner.h"

#include "vkskin/vkskin_vulkan.h"

#include <stdlib.h>
#include <string.h>

struct vkskin_gpu {
    gpu_device dev;
    vks_skinner skinner;
};

vkskin_result vkskin_gpu_create(const vkskin_gpu_desc *desc, const vkskin_crowd *crowd,
                                vkskin_gpu **gpu, vkskin_error *err)
{
    if (gpu)
        *gpu = NULL;
    vkskin_gpu_desc desc_copy;
    const vkskin_result desc_result = VKS_API_DESC("vkskin_gpu_create", desc, &desc_copy, err);
    if (desc_result != VKSKIN_OK)
        return desc_result;
    if (!desc || !crowd || !gpu)
        return vks_api_fail(err, VKSKIN_ERROR_ARGUMENT,
                            "vkskin_gpu_create: desc, crowd and gpu are needed");
    if (!desc->output_stages != !desc->output_access)
        return vks_api_fail(err, VKSKIN_ERROR_ARGUMENT,
                            "vkskin_gpu_create: output_stages and output_access go together (both "
                            "0 for a draw's and a copy's reads)");
    vks_binding binding; /* AUTO: addresses (vkskin cannot tell whether the host validates) */
    if (!vks_api_binding(desc->binding, VKS_BINDING_ADDRESSES, &binding))
        return vks_api_fail(err, VKSKIN_ERROR_ARGUMENT, "vkskin_gpu_create: no binding %d",
                            (int)desc->binding);
    struct vkskin_gpu *g = vks_object_alloc(sizeof *g);
    if (!g)
        return vks_api_fail(err, VKSKIN_ERROR_OUT_OF_MEMORY, "out of memory for a vkskin_gpu");
    const gpu_host_device host = {
        .get_instance_proc_addr = desc->get_instance_proc_addr,
        .instance = desc->instance,
        .physical = desc->physical_device,
        .device = desc->device,
        .queue_family = desc->queue_family,
        .queue_index = desc->queue_index,
        .api_version = desc->api_version,
        .buffer_device_address = desc->buffer_device_address,
        .synchronization2 = desc->synchronization2,
        .maintenance4 = desc->maintenance4,
        .debug_utils = desc->debug_utils,
        .memory_budget = desc->memory_budget,
    };
    vks_error e;
    if (!gpu_device_adopt(&host, &g->dev, &e)) {
        vks_object_free(g);
        return vks_api_fail_from(err, &e, VKSKIN_ERROR_FAILED);
    }
    /* The host's readers, or those of a draw (vertex input or pulling) and a copy. */
    const bool named = desc->output_stages != 0;
    const vks_skinner_desc sd = {
        .crowd = &crowd->crowd,
        .request = {.mode = VKS_SKIN_COMPUTE,
                    .max_skinned_vertices = desc->max_skinned_vertices,
                    .output_sets = desc->previous_positions ? 2 : 1},
        .descriptors = vks_binding_descriptors(binding, &g->dev),
        .output_stages = named ? desc->output_stages
                               : VK_PIPELINE_STAGE_2_VERTEX_ATTRIBUTE_INPUT_BIT |
                                     VK_PIPELINE_STAGE_2_VERTEX_SHADER_BIT |
                                     VK_PIPELINE_STAGE_2_COPY_BIT,
        .output_access = named ? desc->output_access
                               : VK_ACCESS_2_VERTEX_ATTRIBUTE_READ_BIT |
                                     VK_ACCESS_2_SHADER_STORAGE_READ_BIT |
                                     VK_ACCESS_2_TRANSFER_READ_BIT,
        .instance_capacity = desc->instance_capacity,
        .palette_capacity = desc->palette_capacity,
    };
    if (!vks_skinner_create(&g->dev, &sd, &g->skinner, &e)) {
        gpu_device_destroy(&g->dev);
        vks_object_free(g);
        return vks_api_fail_from(err, &e, VKSKIN_ERROR_FAILED);
    }
    *gpu = g;
    return vks_api_ok(err);
}

void vkskin_gpu_destroy(vkskin_gpu *g)
{
    if (!g)
        return;
    vks_skinner_destroy(&g->skinner);
    gpu_device_destroy(&g->dev);
    vks_object_free(g);
}

float *vkskin_gpu_palettes(vkskin_gpu *g, uint32_t slot)
{
    vks_error e; /* (the message comes again with vkskin_gpu_skin) */
    return g && slot < VKSKIN_GPU_SLOTS && vks_skinner_fit_slot(&g->skinner, slot, &e)
               ? (float *)g->skinner.slots[slot].palette
               : NULL;
}

vkskin_result vkskin_gpu_skin(vkskin_gpu *g, uint32_t slot, VkCommandBuffer cmd,
                              const uint32_t *instances, uint32_t count, const uint8_t *levels,
                              vkskin_error *err)
{
    if (!g || !cmd || (count && !instances))
        return vks_api_fail(err, VKSKIN_ERROR_ARGUMENT,
                            "vkskin_gpu_skin: gpu, a command buffer and the instances are needed");
    if (slot >= VKSKIN_GPU_SLOTS)
        return vks_api_fail(err, VKSKIN_ERROR_ARGUMENT,
                            "vkskin_gpu_skin: no slot %u (there are %u)", slot, VKSKIN_GPU_SLOTS);
    const vks_crowd *c = g->skinner.crowd;
    vks_error e;
    if (!vks_skinner_fit_slot(&g->skinner, slot, &e))
        return vks_api_fail(err, VKSKIN_ERROR_ARGUMENT, "vkskin_gpu_skin: %s", e.msg);
    for (uint32_t k = 0; k < count; k++) {
        if (instances[k] >= c->instance_count || (k && instances[k] <= instances[k - 1]))
            return vks_api_fail(err, VKSKIN_ERROR_ARGUMENT,
                                "vkskin_gpu_skin: the list must ascend below %u; entry %u is %u",
                                c->instance_count, k, instances[k]);
        if (c->model_of[instances[k]] == VKS_CROWD_REMOVED)
            return vks_api_fail(err, VKSKIN_ERROR_ARGUMENT,
                                "vkskin_gpu_skin: entry %u is instance %u, which was removed", k,
                                instances[k]);
    }
    vks_skin_slot *s = vks_skinner_begin(&g->skinner, slot);
    memcpy(s->visible, instances, sizeof *instances * count);
    if (levels)
        memcpy(s->level, levels, sizeof *levels * count);
    s->visible_count = count;
    vks_skinner_skin(&g->skinner, s, cmd);
    return vks_api_ok(err);
}

/* Where frame f left the instance's vertices (and the model it skinned it as); false when it did
 * not skin it. */
static bool api_output_of(const vkskin_gpu *g, const vks_skin_slot *s, uint32_t instance,
                          vkskin_gpu_output *out, uint32_t *model)
{
    const gpu_buffer *chunk;
    VkDeviceSize offset;
    uint32_t vertex_count, level;
    if (!vks_skinner_output(&g->skinner, s, instance, &chunk, &offset, &vertex_count, &level,
                            model))
        return false;
    *out = (vkskin_gpu_output){.buffer = chunk->buffer,
                               .offset = offset,
                               .address = chunk->address + offset,
                               .vertex_count = vertex_count,
                               .level = level};
    return true;
}

/* vkskin_gpu_get_output, and the model the slot's frame skinned the instance as. */
static vkskin_result api_get_output(const vkskin_gpu *g, uint32_t slot, uint32_t instance,
                                    vkskin_gpu_output *out, uint32_t *model, vkskin_error *err)
{
    if (!g || !out || slot >= VKSKIN_GPU_SLOTS || instance >= g->skinner.crowd->instance_count)
        return vks_api_fail(err, VKSKIN_ERROR_ARGUMENT,
                            "vkskin_gpu_get_output: a gpu, a slot below %u, an instance below %u "
                            "and an output are needed",
                            VKSKIN_GPU_SLOTS, g ? g->skinner.crowd->instance_count : 0);
    if (!api_output_of(g, &g->skinner.slots[slot], instance, out, model))
        return vks_api_fail(err, VKSKIN_ERROR_ARGUMENT,
                            "instance %u was not skinned in slot %u's last frame (not listed, or "
                            "past the skinned output's room)",
                            instance, slot);
    return vks_api_ok(err);
}

vkskin_result vkskin_gpu_get_output(const vkskin_gpu *g, uint32_t slot, uint32_t instance,
                                    vkskin_gpu_output *out, vkskin_error *err)
{
    uint32_t model;
    return api_get_output(g, slot, instance, out, &model, err);
}

vkskin_result vkskin_gpu_get_previous_output(const vkskin_gpu *g, uint32_t slot, uint32_t instance,
                                             vkskin_gpu_output *out, vkskin_error *err)
{
    uint32_t model_now, model_before;
    const vkskin_result r = api_get_output(g, slot, instance, out, &model_now, err);
    if (r != VKSKIN_OK)
        return r;
    if (g->skinner.output_sets != 2)
        return vks_api_fail(err, VKSKIN_ERROR_ARGUMENT,
                            "vkskin_gpu_get_previous_output: the gpu was created without "
                            "previous_positions");
    /* The vertices of the frame before: same level and model, else its current ones (zero
     * motion). */
    const vks_skin_slot *p = vks_skinner_previous(&g->skinner, &g->skinner.slots[slot]);
    vkskin_gpu_output before;
    if (p && api_output_of(g, p, instance, &before, &model_before) && before.level == out->level &&
        model_before == model_now)
        *out = before;
    return vks_api_ok(err);
}

vkskin_result vkskin_gpu_get_uvs(const vkskin_gpu *g, uint32_t model, uint32_t level,
                                 vkskin_gpu_uvs *out, vkskin_error *err)
{
    if (!g || !out || model >= g->skinner.crowd->model_count)
        return vks_api_fail(err, VKSKIN_ERROR_ARGUMENT,
                            "vkskin_gpu_get_uvs: a gpu, a model of its crowd and an output are "
                            "needed");
    const vks_model *m = g->skinner.crowd->models[model];
    if (level >= vks_model_level_count(m))
        return vks_api_fail(err, VKSKIN_ERROR_ARGUMENT, "%s has %u level(s): no level %u", m->name,
                            vks_model_level_count(m), level);
    const vks_level lv = vks_model_level(m, level);
    const VkDeviceSize offset =
        (VkDeviceSize)vks_scene_gpu_level_vertex(&g->skinner.scene, model, level) * 2 *
        sizeof(float);
    *out = (vkskin_gpu_uvs){.buffer = g->skinner.scene.uvs.buffer,
                            .offset = offset,
                            .address = g->skinner.scene.uvs.address + offset,
                            .vertex_count = lv.vertex_count};
    return vks_api_ok(err);
}

vkskin_result vkskin_gpu_get_mesh(const vkskin_gpu *g, uint32_t model, uint32_t level,
                                  uint32_t mesh, vkskin_gpu_mesh *out, vkskin_error *err)
{
    if (!g || !out || model >= g->skinner.crowd->model_count)
        return vks_api_fail(err, VKSKIN_ERROR_ARGUMENT,
                            "vkskin_gpu_get_mesh: a gpu, a model of its crowd and an output are "
                            "needed");
    const vks_model *m = g->skinner.crowd->models[model];
    if (level >= vks_model_level_count(m) || mesh >= m->mesh_count)
        return vks_api_fail(err, VKSKIN_ERROR_ARGUMENT,
                            "%s has %u level(s) and %u mesh(es): no level %u mesh %u", m->name,
                            vks_model_level_count(m), m->mesh_count, level, mesh);
    const vks_mesh_level ml = vks_model_mesh_level(m, level, mesh);
    *out = (vkskin_gpu_mesh){
        .index_buffer = g->skinner.scene.indices.buffer,
        .first_index = vks_scene_gpu_level_index(&g->skinner.scene, model, level) + ml.first_index,
        .index_count = ml.index_count,
        .vertex_offset = (int32_t)ml.base_vertex,
    };
    return vks_api_ok(err);
}
