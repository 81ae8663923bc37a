/* The owned renderer's commands (renderer.h): the skinner's, with the instance table's scatter
 * and the queries around them; the compute rasterizer's dispatches and resolve, the graphics
 * pipeline's draws, the readback copy. Each records into the frame's command buffer and
 * allocates nothing. */
#include "renderer_impl.h"

#include <string.h>

/* The descriptors binding: binds frame f's data set for output chunk k (0 also for the draws that
 * skin in the vertex shader), as set `set_index` of `layout`. */
static void bind_data_set(const vks_renderer *r, const vks_frame *f, VkCommandBuffer cmd,
                          VkPipelineBindPoint point, VkPipelineLayout layout, uint32_t set_index,
                          uint32_t k)
{
    const gpu_device *dev = r->dev;
    const VkDescriptorSet set = vks_skinner_data_set(&r->skinner, f->skin, k);
    dev->vk.vkCmdBindDescriptorSets(cmd, point, layout, set_index, 1, &set, 0, NULL);
}

/* The draw's instance table follows the crowd: the entries of the instances placed anew since
 * the last frame (crowd->moved: moved, added, given another model), staged in the frame slot,
 * scattered into the table after every earlier frame's reads of it (the draws', the compute
 * rasterizer's and its resolve's) and before this frame's. The caller clears the crowd's list
 * once the frame is recorded. (The skinning reads each instance's model from the frame's visible
 * list, never the table.) */
static void move_instances(vks_renderer *r, vks_frame *f)
{
    const gpu_device *dev = r->dev;
    const vks_crowd *c = r->skinner.crowd;
    f->moved = c->moved_count;
    f->moved_bytes = 0;
    if (!c->moved_count)
        return;
    /* The staging: the whole entries first, then the place records (vks_place_record) of the
     * instances placed on the ground, from the end back (both fit: a place record is half an
     * entry). */
    vks_instance *entries = f->world_staging.mapped;
    vks_scatter_record *records = f->world_records.mapped;
    vks_place_record *places = (vks_place_record *)(entries + c->moved_count) - 1;
    uint32_t whole = 0, placed = 0;
    for (uint32_t k = 0; k < c->moved_count; k++) {
        const uint32_t i = c->moved[k];
        if (c->instances[i].placed) {
            *places-- = vks_crowd_place_record(c, i);
            placed++;
            continue;
        }
        entries[whole] = vks_scene_gpu_instance(c, i);
        records[whole] = (vks_scatter_record){.from_entry = whole, .to_entry = i, .count = 1};
        whole++;
    }
    f->moved_bytes = (uint64_t)whole * (sizeof(vks_instance) + sizeof(vks_scatter_record)) +
                     (uint64_t)placed * sizeof(vks_place_record);
    /* The place records start at uvec4 2 * (2 moved - placed): moved entries of 4 uvec4 hold
     * 2 moved records of 2, the last `placed` of them used. */
    const uint32_t first = 2u * (2u * c->moved_count - placed);
    vks_scatter_pass_record(dev, f->cmd, &r->world_scatter, f->slot, 0, whole, placed, first,
                            VKS_SHADER_READS);
}

void vks_renderer_skin(vks_renderer *r, vks_frame *f)
{
    vks_skinner_prepare(&r->skinner, f->skin, f->cmd);
    move_instances(r, f);
    begin_statistics(r->dev, f, STATS_SKIN);
    vks_skinner_dispatch(&r->skinner, f->skin, f->cmd);
    end_statistics(r->dev, f, STATS_SKIN);
    timestamp(r->dev, f, VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT, QUERY_SKINNED);
}

/* Records one draw per mesh of model m at level l, instanced over visible entries [first, first +
 * count), with the pipeline bound; counts them and their triangles in f. */
static void draw_meshes(const vks_renderer *r, vks_frame *f, uint32_t m, uint32_t l, uint32_t first,
                        uint32_t count)
{
    const gpu_device *dev = r->dev;
    const VkCommandBuffer cmd = f->cmd;
    const vks_model *model = r->skinner.crowd->models[m];
    const vks_scene_model *rm = &r->skinner.scene.models[m];
    const VkShaderStageFlags stages = VK_SHADER_STAGE_VERTEX_BIT | VK_SHADER_STAGE_FRAGMENT_BIT;
    for (uint32_t i = 0; i < model->mesh_count; i++) {
        const vks_mesh *mesh = &model->meshes[i];
        const vks_mesh_level ml = vks_model_mesh_level(model, l, i);
        if (!ml.index_count)
            continue;
        const vks_material *mat = &model->materials[mesh->material];
        dev->vk.vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_GRAPHICS, r->draw.layout, 1, 1,
                                        &r->material_sets[rm->material_first + mesh->material], 0,
                                        NULL);
        dev->vk.vkCmdPushConstants(cmd, r->draw.layout, stages, offsetof(vks_draw_push, base_color),
                                   sizeof mat->base_color, mat->base_color);
        /* One draw for these instances of this model at this level: gl_InstanceIndex runs over
         * their range of the visible list; gl_VertexIndex over the level's vertices from the
         * mesh's. */
        dev->vk.vkCmdDrawIndexed(cmd, ml.index_count, count,
                                 vks_scene_gpu_level_index(&r->skinner.scene, m, l) +
                                     ml.first_index,
                                 (int32_t)ml.base_vertex, first);
        f->draws++;
        f->triangles_hardware += (uint64_t)(ml.index_count / 3) * count;
    }
}

/* The far splats, one dispatch a model over its range after the runs (the plan made splats only
 * of entries the ids name): with the rasterizer's layout and sets bound (the data set of chunk 0 on
 * the descriptors binding: the splats read no output). */
static void splat_dispatches(vks_renderer *r, vks_frame *f, const vks_raster_target *target)
{
    const gpu_device *dev = r->dev;
    const vks_crowd *c = r->skinner.crowd;
    const vks_frame_plan *plan = &f->skin->plan;
    f->splats = 0;
    if (plan->splats[VKS_CROWD_MAX_MODELS] <= plan->splats[0])
        return;
    vks_splat_push push = {.size = target->width | target->height << 16};
    memcpy(push.view_proj, f->uniforms->view_proj, sizeof push.view_proj);
    memcpy(push.models, f->skin->push.models, sizeof push.models);
    memcpy(push.instances, f->skin->push.instances, sizeof push.instances);
    memcpy(push.visible, f->skin->push.visible, sizeof push.visible);
    memcpy(push.palette, f->skin->push.palette, sizeof push.palette);
    gpu_address_words(target->vis.address, push.vis);
    if (r->skinner.descriptors)
        bind_data_set(r, f, f->cmd, VK_PIPELINE_BIND_POINT_COMPUTE, r->raster.layout, 0, 0);
    for (uint32_t m = 0; m < c->model_count; m++) {
        const uint32_t first = plan->splats[m], end = plan->splats[m + 1]; /* ids name them all */
        if (end <= first)
            continue;
        push.visible_first = first;
        push.visible_count = end - first;
        push.bits = (c->dq[m] ? VKS_SPLAT_DQ : 0) |
                    (r->skinner.use_store ? VKS_SPLAT_CARRIER_ONLY : 0) |
                    r->raster_scene.triangle_bits << 8;
        vks_raster_splat_record(dev, f->cmd, &r->raster, &push);
        f->splats += end - first;
    }
}

/* The compute rasterizer's part of the frame, before the rendering: the visibility buffer
 * emptied, then one dispatch per mesh of each (model, level) over its entries for it (on the
 * descriptors binding, those of each output chunk in turn, with its set bound), then its writes
 * made visible to the resolve. */
static void raster_dispatches(vks_renderer *r, vks_frame *f, const vks_raster_target *target)
{
    const gpu_device *dev = r->dev;
    const vks_crowd *c = r->skinner.crowd;
    const VkCommandBuffer cmd = f->cmd;
    vks_raster_clear(dev, cmd, target);
    vks_raster_push push = {.size = target->width | target->height << 16,
                            .bits = r->raster_scene.triangle_bits};
    memcpy(push.view_proj, f->uniforms->view_proj, sizeof push.view_proj);
    memcpy(push.instances, f->skin->push.instances, sizeof push.instances);
    memcpy(push.visible, f->skin->push.visible, sizeof push.visible);
    gpu_address_words(r->skinner.scene.indices.address, push.indices);
    gpu_address_words(target->vis.address, push.vis);
    if (r->skinner.descriptors)
        vks_raster_bind(dev, cmd, &r->raster, target);
    for (uint32_t m = 0; m < c->model_count; m++) {
        const vks_model *model = c->models[m];
        const vks_raster_model where = {r->skinner.scene.models[m].first_index,
                                        r->skinner.scene.models[m].lod_first_index,
                                        r->skinner.scene.models[m].material_first};
        for (uint32_t l = 0; l < vks_model_level_count(model); l++)
            for (uint32_t first = f->skin->plan.runs[m][l], last;
                 first < f->skin->plan.raster_end[m][l]; first = last) {
                last = vks_skinner_chunk_end(&r->skinner, f->skin, first,
                                             f->skin->plan.raster_end[m][l]);
                if (r->skinner.descriptors) {
                    const uint32_t k = vks_skinner_chunk_of(&r->skinner, f->skin, first);
                    bind_data_set(r, f, cmd, VK_PIPELINE_BIND_POINT_COMPUTE, r->raster.layout, 0,
                                  k);
                    push.out_base = (uint32_t)vks_skinner_chunks(&r->skinner, f->skin)[k].address;
                }
                for (uint32_t i = 0; i < model->mesh_count; i++) {
                    const vks_mesh_level ml = vks_model_mesh_level(model, l, i);
                    if (!ml.index_count)
                        continue;
                    vks_raster_mesh_range(&r->raster_scene, model, &where, m, l, i,
                                          &push.first_index, &push.triangle_first);
                    push.triangle_count = ml.index_count / 3;
                    push.base_vertex = ml.base_vertex;
                    push.visible_first = first;
                    vks_raster_pass_record(dev, cmd, &r->raster, &push, last - first);
                    f->triangles_compute += (uint64_t)push.triangle_count * (last - first);
                }
            }
    }
    splat_dispatches(r, f, target);
    vks_raster_finish(dev, cmd, target);
    f->queries_written |= RASTER_COUNTED;
}

/* Inside the rendering, after the graphics pipeline's draws: one full-screen resolve for all
 * the materials at once (on the descriptors binding, one per output chunk the compute rasterizer
 * drew from, each with its data set bound). */
static void resolve(vks_renderer *r, vks_frame *f, const vks_raster_target *target)
{
    const gpu_device *dev = r->dev;
    const vks_crowd *c = r->skinner.crowd;
    vks_resolve_push push = {0};
    memcpy(push.models, f->skin->push.models, sizeof push.models);
    memcpy(push.instances, f->skin->push.instances, sizeof push.instances);
    memcpy(push.visible, f->skin->push.visible, sizeof push.visible);
    gpu_address_words(r->skinner.scene.uvs.address, push.uvs);
    /* The chunks the rasterized entries' outputs are in (by address, all of them at once): from
     * the first's to the last's (each chunk's slots are consecutive: chunk_end). */
    uint32_t k_first = 0, k_last = 0;
    const bool splats = f->splats != 0;
    if (r->skinner.descriptors) {
        k_first = UINT32_MAX;
        for (uint32_t m = 0; m < c->model_count; m++)
            for (uint32_t l = 0; l < VKS_MAX_LEVELS; l++)
                if (f->skin->plan.raster_end[m][l] > f->skin->plan.runs[m][l]) {
                    const uint32_t a = vks_skinner_chunk_of(&r->skinner, f->skin,
                                                            f->skin->plan.runs[m][l]),
                                   b = vks_skinner_chunk_of(&r->skinner, f->skin,
                                                            f->skin->plan.raster_end[m][l] - 1);
                    k_first = a < k_first ? a : k_first;
                    k_last = b > k_last ? b : k_last;
                }
        if (k_first == UINT32_MAX) /* splats alone: chunk 0's pass resolves them */
            k_first = k_last = 0;
    }
    for (uint32_t k = k_first; k <= k_last; k++) {
        VkDescriptorSet data_set = VK_NULL_HANDLE;
        if (r->skinner.descriptors) {
            data_set = vks_skinner_data_set(&r->skinner, f->skin, k);
            const gpu_buffer *chunk = &vks_skinner_chunks(&r->skinner, f->skin)[k];
            gpu_address_words(chunk->address, push.out_base);
            push.out_bytes = (uint32_t)chunk->size;
        }
        push.splats = splats && k == k_first; /* the splats in one pass */
        vks_raster_resolve(dev, f->cmd, &r->raster, &r->raster_scene, target, f->frame_set,
                           data_set, &push);
        f->resolves++;
    }
}

/* Draws model m's level-l entries [start, split) from the compute pass's output, one output
 * chunk at a time on the descriptors binding (*set_chunk: the chunk whose set is bound, rebound
 * as the entries cross into another). */
static void draw_pulled(vks_renderer *r, vks_frame *f, uint32_t m, uint32_t l, uint32_t start,
                        uint32_t split, uint32_t *set_chunk)
{
    const gpu_device *dev = r->dev;
    VkCommandBuffer cmd = f->cmd;
    const VkShaderStageFlags stages = VK_SHADER_STAGE_VERTEX_BIT | VK_SHADER_STAGE_FRAGMENT_BIT;
    for (uint32_t first = start, last; first < split; first = last) {
        last = vks_skinner_chunk_end(&r->skinner, f->skin, first, split);
        const uint32_t k =
            r->skinner.descriptors ? vks_skinner_chunk_of(&r->skinner, f->skin, first) : 0;
        if (k != *set_chunk) {
            bind_data_set(r, f, cmd, VK_PIPELINE_BIND_POINT_GRAPHICS, r->draw.layout, 2, k);
            *set_chunk = k;
        }
        if (r->skinner.descriptors) {
            uint32_t base[2];
            gpu_address_words(vks_skinner_chunks(&r->skinner, f->skin)[k].address, base);
            dev->vk.vkCmdPushConstants(cmd, r->draw.layout, stages,
                                       offsetof(vks_draw_push, out_base), sizeof base, base);
        }
        draw_meshes(r, f, m, l, first, last - first);
    }
}

/* Records the crowd's draws (inside the rendering): the index buffer, the frame's set and the
 * skinning's addresses bound, then per (model, level) in the GPU's order (sort_by_level) a
 * range: the compute rasterizer's entries first (not drawn here), then those with output space
 * (a prefix of the whole list got it), pulled, then the rest, skinned in the vertex shader. */
static void draw_crowd(vks_renderer *r, vks_frame *f)
{
    const gpu_device *dev = r->dev;
    VkCommandBuffer cmd = f->cmd;
    const vks_crowd *c = r->skinner.crowd;
    dev->vk.vkCmdBindIndexBuffer(cmd, r->skinner.scene.indices.buffer, 0, VK_INDEX_TYPE_UINT32);
    dev->vk.vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_GRAPHICS, r->draw.layout, 0, 1,
                                    &f->frame_set, 0, NULL);
    const VkShaderStageFlags stages = VK_SHADER_STAGE_VERTEX_BIT | VK_SHADER_STAGE_FRAGMENT_BIT;
    /* The skinning's addresses for this slot (the draw adds out_base and the base color). */
    const vks_skin_push *sp = &f->skin->push;
    vks_draw_push push = {.streams = sp->streams};
    memcpy(push.models, sp->models, sizeof push.models);
    memcpy(push.instances, sp->instances, sizeof push.instances);
    memcpy(push.visible, sp->visible, sizeof push.visible);
    memcpy(push.palette, sp->palette, sizeof push.palette);
    memcpy(push.morphs, sp->morphs, sizeof push.morphs);
    dev->vk.vkCmdPushConstants(cmd, r->draw.layout, stages, 0, sizeof push, &push);
    uint32_t set_chunk = 0; /* the descriptors binding: chunk 0's set first */
    if (r->skinner.descriptors)
        bind_data_set(r, f, cmd, VK_PIPELINE_BIND_POINT_GRAPHICS, r->draw.layout, 2, 0);
    for (uint32_t m = 0; m < c->model_count; m++) {
        const vks_model *model = c->models[m];
        for (uint32_t l = 0; l < vks_model_level_count(model); l++) {
            const uint32_t start = f->skin->plan.raster_end[m][l];
            const uint32_t end = f->skin->plan.runs[m][l + 1];
            const uint32_t split = f->skin->plan.skinned_count < start ? start
                                   : f->skin->plan.skinned_count > end
                                       ? end
                                       : f->skin->plan.skinned_count;
            /* [start, split): pulled from the compute pass's output, one chunk's at a time on
             * the descriptors binding, with its set bound; [split, end): skinned here. */
            if (split > start)
                vks_draw_bind(dev, cmd, &r->draw, VKS_DRAW_PULLED);
            draw_pulled(r, f, m, l, start, split, &set_chunk);
            if (end > split) {
                vks_draw_bind(dev, cmd, &r->draw,
                              vks_draw_skin_kind(r->skinner.variant[m] & ~VKS_SKIN_VARIANT_STAGE));
                draw_meshes(r, f, m, l, split, end - split);
            }
        }
    }
}

bool vks_renderer_draw(vks_renderer *r, vks_frame *f, const vks_draw_target *target, vks_error *err)
{
    const gpu_device *dev = r->dev;
    VkCommandBuffer cmd = f->cmd;
    const vks_crowd *c = r->skinner.crowd;
    f->draws = f->resolves = f->splats = 0;
    f->triangles_hardware = f->triangles_compute = 0;
    bool rasters = f->skin->plan.splats[VKS_CROWD_MAX_MODELS] > f->skin->plan.splats[0];
    for (uint32_t m = 0; m < c->model_count; m++)
        for (uint32_t l = 0; l < VKS_MAX_LEVELS; l++)
            rasters |= f->skin->plan.raster_end[m][l] > f->skin->plan.runs[m][l];
    const vks_raster_target *raster_target = &r->raster_scene.targets[f->slot];
    if (rasters) {
        if (!vks_raster_target_size(r->dev, &r->raster, &r->raster_scene, f->slot,
                                    target->extent.width, target->extent.height, err))
            return false;
        raster_dispatches(r, f, raster_target);
    }
    timestamp(dev, f, VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT, QUERY_RASTERED);
    vks_draw_begin(dev, cmd, target);
    /* The statistics count the crowd's draws alone: not the resolve's full-screen triangles,
     * nor the overlays after it (inside the rendering, as the query may be). */
    begin_statistics(dev, f, STATS_DRAW);
    draw_crowd(r, f);
    end_statistics(dev, f, STATS_DRAW);
    timestamp(dev, f, VK_PIPELINE_STAGE_2_ALL_GRAPHICS_BIT, QUERY_HARDWARE);
    if (rasters)
        resolve(r, f, raster_target);
    timestamp(dev, f, VK_PIPELINE_STAGE_2_ALL_GRAPHICS_BIT, QUERY_RESOLVED);
    vks_draw_end(dev, cmd, target);
    timestamp(dev, f, VK_PIPELINE_STAGE_2_ALL_GRAPHICS_BIT, QUERY_DRAWN);
    return true;
}

void vks_renderer_copy_skinned(vks_renderer *r, vks_frame *f)
{
    vks_skinner_copy_skinned(&r->skinner, f->skin, f->cmd);
}
