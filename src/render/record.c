/* The renderer's commands (renderer.h): the frame plan's GPU side, the palette and instance
 * scatters, the skinning dispatches and their barriers, the compute rasterizer's dispatches and
 * resolve, the graphics pipeline's draws, the readback copy. Each records into the frame's command
 * buffer (or a host's) and allocates nothing. */
#include "renderer_impl.h"

#include <assert.h>
#include <string.h>

/* Output space for the frame's visible instances, in the GPU's order, until the budget is spent
 * (compute mode), and the GPU's visible list: each instance with its level's first vertex and
 * its output's address, or 0 for those the vertex shader skins. Written once, in order (the
 * mapping may be write-combined across PCIe: never read back). */
static void deal_outputs(vks_renderer *r, vks_frame *f)
{
    const vks_crowd *c = r->crowd;
    const vks_frame_budget budget = {
        .compute = r->mode == VKS_SKIN_COMPUTE,
        .output_bytes = r->chunk_count ? r->memory.output_bytes : 0,
        .chunk_limit = r->chunk_limit,
        .raster = r->raster_mode == VKS_RASTER_COMPUTE  ? VKS_FRAME_RASTER_ALL
                  : r->raster_mode == VKS_RASTER_HYBRID ? VKS_FRAME_RASTER_MARKED
                                                        : VKS_FRAME_RASTER_NONE,
        .raster_max_entries = r->raster_scene.max_entries};
    vks_frame_plan_make(c, &budget, f->visible, f->visible_count, f->level, f->raster, &f->plan);
    vks_frame_plan_entries(c, &f->plan, r->use_store ? r->store.slot : c->palette_first,
                           r->chunk_count ? r->chunk_addresses +
                                                (size_t)(f->slot % r->output_sets) * r->chunk_count
                                          : NULL,
                           r->chunk_limit, f->visible_buffer.mapped);
}

/* The output chunk that slot s of the GPU's order (one with output) skins into. */
static uint32_t chunk_of(const vks_renderer *r, const vks_frame *f, uint32_t s)
{
    return (uint32_t)(f->plan.out_offset[s] / r->chunk_limit);
}

/* Where the slots from `first` that skin into the same chunk end: those in one chunk are
 * consecutive (vks_plan_frame deals output in order). The address path reaches every chunk at
 * once: all the slots with output. */
static uint32_t chunk_end(const vks_renderer *r, const vks_frame *f, uint32_t first, uint32_t end)
{
    if (!r->bound)
        return end;
    const uint32_t k = chunk_of(r, f, first);
    while (first < end && chunk_of(r, f, first) == k)
        first++;
    return first;
}

/* The descriptor path: binds frame f's data set for output chunk k (0 also for the draws that
 * skin in the vertex shader), as set `set_index` of `layout`. */
static void bind_data_set(const vks_renderer *r, const vks_frame *f, VkCommandBuffer cmd,
                          VkPipelineBindPoint point, VkPipelineLayout layout, uint32_t set_index,
                          uint32_t k)
{
    const gpu_device *dev = r->dev;
    dev->vk.vkCmdBindDescriptorSets(cmd, point, layout, set_index, 1,
                                    &r->data_sets[f->slot * r->data_sets_per_slot + k], 0, NULL);
}

/* One dispatch per (model, level) with instances that got output space, with the model's
 * pipeline variant (4 or 8 influences) and as wide as the level's vertices need: no empty
 * workgroups in a crowd that mixes models or levels of different sizes, and no search for an
 * instance. On the descriptor path, that for each output chunk in turn, with its set bound. */
static void skin_dispatches(vks_renderer *r, vks_frame *f)
{
    const gpu_device *dev = r->dev;
    const vks_crowd *c = r->crowd;
    const VkCommandBuffer cmd = f->cmd;
    for (uint32_t first = 0, last; first < f->plan.skinned_count; first = last) {
        last = chunk_end(r, f, first, f->plan.skinned_count);
        vks_skin_push push = f->skin_push;
        if (r->bound) {
            const uint32_t k = chunk_of(r, f, first);
            bind_data_set(r, f, cmd, VK_PIPELINE_BIND_POINT_COMPUTE, r->skin.layout, 0, k);
            gpu_address_words(frame_chunks(r, f)[k].address, push.out_base);
        }
        for (uint32_t m = 0; m < c->model_count; m++) {
            const vks_model *model = c->models[m];
            for (uint32_t l = 0; l < vks_model_level_count(model); l++) {
                const uint32_t start = f->plan.runs[m][l] > first ? f->plan.runs[m][l] : first;
                const uint32_t end = f->plan.runs[m][l + 1] < last ? f->plan.runs[m][l + 1] : last;
                if (end <= start)
                    continue;
                push.visible_first = start;
                push.visible_count = end - start;
                push.vertex_count = vks_model_level(model, l).vertex_count;
                vks_skin_pass_record(dev, cmd, &r->skin, &push, push.vertex_count,
                                     vks_model_wide(model));
            }
        }
    }
}

/* desc.palette_store: the frame's staged palettes into their slots of the store, one scatter
 * record per posed instance. The earlier frames' reads of the store (the skinning pass, and the
 * vertex shaders that skin) come first: a slot rewritten now may have held another instance's
 * pose for them. */
/* Who reads the store and the instance table in a frame: the skinning pass, the vertex shaders,
 * the compute rasterizer and its resolve. The scatters wait for the earlier frames' reads and
 * come before this frame's. */
static const gpu_access SHADER_READERS = {VK_PIPELINE_STAGE_2_VERTEX_SHADER_BIT |
                                              VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT |
                                              VK_PIPELINE_STAGE_2_FRAGMENT_SHADER_BIT,
                                          VK_ACCESS_2_SHADER_STORAGE_READ_BIT};

static void scatter_to_store(vks_renderer *r, vks_frame *f)
{
    const gpu_device *dev = r->dev;
    /* The store's poses are this frame's: its palettes were staged and placed just before. */
    const vks_palette_store *s = &r->store;
    const vks_crowd *c = r->crowd;
    if (!s->pose_count)
        return;
    vks_scatter_record *records = f->scatter_records.mapped;
    for (uint32_t k = 0; k < s->pose_count; k++) {
        const uint32_t i = s->pose[k];
        records[k] = (vks_scatter_record){
            .from_entry = s->pose_first[k],
            .to_entry = s->slot[i],
            .count = c->models[c->instances[i].model]->skeleton.joint_count,
        };
    }
    vks_scatter_pass_record(dev, f->cmd, &r->scatter, f->slot, s->pose_count, SHADER_READERS);
}

/* The draw's instance table follows the crowd: the entries of the instances placed anew since
 * the last frame (crowd->moved: moved, added, given another model), staged in the frame slot,
 * scattered into the table after every earlier frame's reads of it (the draws', the compute
 * rasterizer's and its resolve's) and before this frame's. The caller clears the crowd's list
 * once the frame is recorded. (desc.external has no draw: the skinning reads each instance's
 * model from the frame's visible list, never the table.) */
static void move_instances(vks_renderer *r, vks_frame *f)
{
    const gpu_device *dev = r->dev;
    const vks_crowd *c = r->crowd;
    if (r->external || !c->moved_count)
        return;
    vks_instance *entries = f->world_staging.mapped;
    vks_scatter_record *records = f->world_records.mapped;
    for (uint32_t k = 0; k < c->moved_count; k++) {
        entries[k] = vks_scene_gpu_instance(c, c->moved[k]);
        records[k] = (vks_scatter_record){.from_entry = k, .to_entry = c->moved[k], .count = 1};
    }
    vks_scatter_pass_record(dev, f->cmd, &r->world_scatter, f->slot, c->moved_count,
                            SHADER_READERS);
}

void vks_renderer_skin(vks_renderer *r, vks_frame *f)
{
    const gpu_device *dev = r->dev;
    assert(f->visible_count <= r->crowd->instance_count);
    deal_outputs(r, f);
    if (r->use_store)
        scatter_to_store(r, f);
    move_instances(r, f);
    begin_statistics(dev, f, STATS_SKIN);
    if (r->mode == VKS_SKIN_COMPUTE) {
        /* Global barriers: the fast path reaches the output chunks by address. The previous
         * frame's draw (vertex shader) and readback (copy) read the output and its dispatch wrote
         * it: this dispatch waits for all three before it overwrites it. */
        const gpu_access skin = {VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT,
                                 VK_ACCESS_2_SHADER_STORAGE_WRITE_BIT};
        /* A host (desc.external) may draw the output as vertex buffers: vertex input too; the
         * compute rasterizer reads it in compute and its resolve in the fragment shader. */
        VkPipelineStageFlags2 readers =
            VK_PIPELINE_STAGE_2_VERTEX_SHADER_BIT | VK_PIPELINE_STAGE_2_COPY_BIT |
            (r->external ? VK_PIPELINE_STAGE_2_VERTEX_ATTRIBUTE_INPUT_BIT : 0) |
            (r->raster_mode != VKS_RASTER_HARDWARE
                 ? VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_2_FRAGMENT_SHADER_BIT
                 : 0);
        VkAccessFlags2 reads = VK_ACCESS_2_SHADER_STORAGE_READ_BIT | VK_ACCESS_2_TRANSFER_READ_BIT |
                               (r->external ? VK_ACCESS_2_VERTEX_ATTRIBUTE_READ_BIT : 0);
        if (r->output_stages) { /* a host's own readers: an acceleration-structure build, compute */
            readers = r->output_stages;
            reads = r->output_access;
        }
        gpu_barrier_memory(dev, f->cmd,
                           (gpu_access){readers | VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT,
                                        VK_ACCESS_2_SHADER_STORAGE_WRITE_BIT},
                           skin);
        skin_dispatches(r, f);
        /* Compute writes -> this frame's vertex pulling (storage reads in the vertex shader) and
         * readback copies (and a host's vertex input). */
        if (!r->skip_skin_barrier)
            gpu_barrier_memory(dev, f->cmd, skin, (gpu_access){readers, reads});
    }
    end_statistics(dev, f, STATS_SKIN);
    timestamp(dev, f, VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT, QUERY_SKINNED);
}

/* Records one draw per mesh of model m at level l, instanced over visible slots [first, first +
 * count), with the pipeline bound; counts them and their triangles in f. */
static void draw_meshes(const vks_renderer *r, vks_frame *f, uint32_t m, uint32_t l, uint32_t first,
                        uint32_t count)
{
    const gpu_device *dev = r->dev;
    const VkCommandBuffer cmd = f->cmd;
    const vks_model *model = r->crowd->models[m];
    const vks_scene_model *rm = &r->scene.models[m];
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
                                 (l ? rm->lod_first_index : rm->first_index) + ml.first_index,
                                 (int32_t)ml.base_vertex, first);
        f->draws++;
        f->triangles_hardware += (uint64_t)(ml.index_count / 3) * count;
    }
}

/* The compute rasterizer's part of the frame, before the rendering: the visibility buffer
 * emptied, then one dispatch per mesh of each (model, level) over its entries for it (on the
 * descriptor path, those of each output chunk in turn, with its set bound), then its writes
 * made visible to the resolve. Marks the materials the resolve will shade. */
static void raster_dispatches(vks_renderer *r, vks_frame *f, const vks_raster_target *target)
{
    const gpu_device *dev = r->dev;
    const vks_crowd *c = r->crowd;
    const VkCommandBuffer cmd = f->cmd;
    memset(r->material_used, 0, sizeof *r->material_used * r->scene.material_count);
    vks_raster_clear(dev, cmd, target);
    vks_raster_push push = {.size = target->width | target->height << 16,
                            .bits = r->raster_scene.triangle_bits};
    memcpy(push.view_proj, f->uniforms->view_proj, sizeof push.view_proj);
    memcpy(push.instances, f->skin_push.instances, sizeof push.instances);
    memcpy(push.visible, f->skin_push.visible, sizeof push.visible);
    gpu_address_words(r->scene.indices.address, push.indices);
    gpu_address_words(target->vis.address, push.vis);
    if (r->bound)
        vks_raster_bind(dev, cmd, &r->raster, target);
    for (uint32_t m = 0; m < c->model_count; m++) {
        const vks_model *model = c->models[m];
        const vks_raster_model where = {r->scene.models[m].first_index,
                                        r->scene.models[m].lod_first_index,
                                        r->scene.models[m].material_first};
        for (uint32_t l = 0; l < vks_model_level_count(model); l++)
            for (uint32_t first = f->plan.runs[m][l], last; first < f->plan.raster_end[m][l];
                 first = last) {
                last = chunk_end(r, f, first, f->plan.raster_end[m][l]);
                if (r->bound) {
                    const uint32_t k = chunk_of(r, f, first);
                    bind_data_set(r, f, cmd, VK_PIPELINE_BIND_POINT_COMPUTE, r->raster.layout, 0,
                                  k);
                    push.out_base = (uint32_t)frame_chunks(r, f)[k].address;
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
                    r->material_used[where.material_first + model->meshes[i].material] = true;
                }
            }
    }
    vks_raster_finish(dev, cmd, target);
    f->queries_written |= RASTER_COUNTED;
}

/* Inside the rendering, after the graphics pipeline's draws: one full-screen resolve per
 * material the compute rasterizer drew (on the descriptor path, per output chunk it drew from,
 * each with its data set bound). */
static void resolve(vks_renderer *r, vks_frame *f, const vks_raster_target *target)
{
    const gpu_device *dev = r->dev;
    const vks_crowd *c = r->crowd;
    vks_resolve_push push = {0};
    memcpy(push.models, f->skin_push.models, sizeof push.models);
    memcpy(push.instances, f->skin_push.instances, sizeof push.instances);
    memcpy(push.visible, f->skin_push.visible, sizeof push.visible);
    gpu_address_words(r->scene.uvs.address, push.uvs);
    /* The chunks the rasterized entries' outputs are in (by address, all of them at once): from
     * the first's to the last's (each chunk's slots are consecutive: chunk_end). */
    uint32_t k_first = 0, k_last = 0;
    if (r->bound) {
        k_first = UINT32_MAX;
        for (uint32_t m = 0; m < c->model_count; m++)
            for (uint32_t l = 0; l < VKS_MAX_LEVELS; l++)
                if (f->plan.raster_end[m][l] > f->plan.runs[m][l]) {
                    const uint32_t a = chunk_of(r, f, f->plan.runs[m][l]),
                                   b = chunk_of(r, f, f->plan.raster_end[m][l] - 1);
                    k_first = a < k_first ? a : k_first;
                    k_last = b > k_last ? b : k_last;
                }
    }
    for (uint32_t k = k_first; k <= k_last; k++) {
        VkDescriptorSet data_set = VK_NULL_HANDLE;
        if (r->bound) {
            data_set = r->data_sets[f->slot * r->data_sets_per_slot + k];
            const gpu_buffer *chunk = &frame_chunks(r, f)[k];
            gpu_address_words(chunk->address, push.out_base);
            push.out_bytes = (uint32_t)chunk->size;
        }
        for (uint32_t m = 0; m < c->model_count; m++) {
            const vks_model *model = c->models[m];
            for (uint32_t i = 0; i < model->material_count; i++) {
                const uint32_t material = r->scene.models[m].material_first + i;
                if (!r->material_used[material])
                    continue;
                push.material = material;
                memcpy(push.base_color, model->materials[i].base_color, sizeof push.base_color);
                vks_raster_resolve(dev, f->cmd, &r->raster, &r->raster_scene, target, f->frame_set,
                                   r->material_sets[material], data_set, &push);
            }
        }
    }
}

bool vks_renderer_draw(vks_renderer *r, vks_frame *f, const vks_draw_target *target, vks_error *err)
{
    const gpu_device *dev = r->dev;
    VkCommandBuffer cmd = f->cmd;
    const vks_crowd *c = r->crowd;
    f->draws = 0;
    f->triangles_hardware = f->triangles_compute = 0;
    bool rasters = false;
    for (uint32_t m = 0; m < c->model_count; m++)
        for (uint32_t l = 0; l < VKS_MAX_LEVELS; l++)
            rasters |= f->plan.raster_end[m][l] > f->plan.runs[m][l];
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
    dev->vk.vkCmdBindIndexBuffer(cmd, r->scene.indices.buffer, 0, VK_INDEX_TYPE_UINT32);
    dev->vk.vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_GRAPHICS, r->draw.layout, 0, 1,
                                    &f->frame_set, 0, NULL);
    const VkShaderStageFlags stages = VK_SHADER_STAGE_VERTEX_BIT | VK_SHADER_STAGE_FRAGMENT_BIT;
    dev->vk.vkCmdPushConstants(cmd, r->draw.layout, stages, 0, sizeof f->draw_push, &f->draw_push);
    uint32_t bound_chunk = 0; /* the descriptor path: chunk 0's set first */
    if (r->bound)
        bind_data_set(r, f, cmd, VK_PIPELINE_BIND_POINT_GRAPHICS, r->draw.layout, 2, 0);
    /* In the GPU's order (sort_by_level): each (model, level) is a range; within it, the compute
     * rasterizer's entries first, then those with output space (a prefix of the whole list got
     * it). */
    for (uint32_t m = 0; m < c->model_count; m++) {
        const vks_model *model = c->models[m];
        for (uint32_t l = 0; l < vks_model_level_count(model); l++) {
            const uint32_t start = f->plan.raster_end[m][l];
            const uint32_t end = f->plan.runs[m][l + 1];
            const uint32_t split = f->plan.skinned_count < start ? start
                                   : f->plan.skinned_count > end ? end
                                                                 : f->plan.skinned_count;
            /* [start, split): pulled from the compute pass's output, one chunk's at a time on
             * the descriptor path, with its set bound; [split, end): skinned here. */
            if (split > start)
                vks_draw_bind(dev, cmd, &r->draw, VKS_DRAW_PULLED);
            for (uint32_t first = start, last; first < split; first = last) {
                last = chunk_end(r, f, first, split);
                const uint32_t k = r->bound ? chunk_of(r, f, first) : 0;
                if (k != bound_chunk) {
                    bind_data_set(r, f, cmd, VK_PIPELINE_BIND_POINT_GRAPHICS, r->draw.layout, 2, k);
                    bound_chunk = k;
                }
                if (r->bound) {
                    uint32_t base[2];
                    gpu_address_words(frame_chunks(r, f)[k].address, base);
                    dev->vk.vkCmdPushConstants(cmd, r->draw.layout, stages,
                                               offsetof(vks_draw_push, out_base), sizeof base,
                                               base);
                }
                draw_meshes(r, f, m, l, first, last - first);
            }
            if (end > split) {
                vks_draw_bind(dev, cmd, &r->draw,
                              vks_model_wide(model) ? VKS_DRAW_SKIN8 : VKS_DRAW_SKIN4);
                draw_meshes(r, f, m, l, split, end - split);
            }
        }
    }
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
    const gpu_device *dev = r->dev;
    assert(r->readback.buffer && r->mode == VKS_SKIN_COMPUTE);
    const gpu_access host_read = {VK_PIPELINE_STAGE_2_HOST_BIT, VK_ACCESS_2_HOST_READ_BIT};
    const gpu_access copy_write = {VK_PIPELINE_STAGE_2_COPY_BIT, VK_ACCESS_2_TRANSFER_WRITE_BIT};
    /* The host read the readback buffer after the previous frame's fence: nothing pending. */
    VkDeviceSize offset = 0;
    for (uint32_t k = 0; k < r->chunk_count; k++) {
        dev->vk.vkCmdCopyBuffer(f->cmd, r->chunks[k].buffer, r->readback.buffer, 1,
                                &(VkBufferCopy){0, offset, r->chunks[k].size});
        offset += r->chunks[k].size;
    }
    gpu_barrier_buffer(dev, f->cmd, r->readback.buffer, copy_write, host_read);
    r->readback_slot = (int32_t)f->slot;
}
