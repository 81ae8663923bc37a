/* The skinner's frames (skinner.h): a slot begun, its plan and the store's scatter, the
 * dispatches and their barriers, where each instance's output went, the readback. Each records
 * into the client's command buffer and allocates nothing. */
#include "skinner.h"
#include "../asset/pack.h"

#include <assert.h>
#include <string.h>

vks_skin_slot *vks_skinner_begin(vks_skinner *sk, uint32_t slot)
{
    assert(slot < GPU_FRAMES_IN_FLIGHT);
    vks_skin_slot *s = &sk->slots[slot];
    if (sk->readback_slot == (int32_t)slot) /* its lists are about to change */
        sk->readback_slot = -1;
    /* The last frame's entries only: those it gave output space, and those it listed (level 0
     * and the graphics pipeline unless the client chooses). */
    for (uint32_t p = 0; p < s->plan.skinned_count; p++)
        s->slot_of[s->plan.order[p]] = UINT32_MAX;
    for (uint32_t p = 0; p < s->visible_count; p++)
        s->level[p] = s->raster[p] = 0;
    s->visible_count = 0;
    s->ordered = false;
    s->number = ++sk->frame_number;
    return s;
}

/* The frame's budget: the output as it is now, its chunks, the rasterizer's ids. */
static vks_frame_budget frame_budget(const vks_skinner *sk)
{
    return (vks_frame_budget){.compute = sk->mode == VKS_SKIN_COMPUTE,
                              .output_bytes = sk->chunk_count ? sk->memory.output_bytes : 0,
                              .chunk_limit = sk->chunk_limit,
                              .raster = sk->raster,
                              .raster_max_entries = sk->raster_max_entries,
                              .pool = sk->pool};
}

void vks_skinner_order(vks_skinner *sk, vks_skin_slot *s)
{
    const vks_frame_budget budget = frame_budget(sk);
    vks_frame_plan_order(sk->crowd, &budget, s->visible, s->visible_count, s->level, s->raster,
                         &s->plan);
    s->ordered = true;
}

/* Output space for the frame's visible instances, in the GPU's order, until the budget is spent
 * (compute mode), and the GPU's visible list: each instance with its level's first vertex and
 * its output's address, or 0 for those the vertex shader skins. Written once, in order (the
 * mapping may be write-combined across PCIe: never read back). */
static void deal_outputs(vks_skinner *sk, vks_skin_slot *s)
{
    const vks_crowd *c = sk->crowd;
    if (!s->ordered)
        vks_skinner_order(sk, s);
    s->ordered = false;
    const vks_frame_budget budget = frame_budget(sk);
    vks_frame_plan_deal(c, &budget, &s->plan);
    vks_frame_plan_entries(c, &s->plan, sk->pool,
                           sk->use_store ? sk->store.block : c->palette_first,
                           sk->chunk_count
                               ? sk->chunk_addresses +
                                     (size_t)(s->slot % sk->output_sets) * sk->chunk_count
                               : NULL,
                           sk->chunk_limit, s->visible_buffer.mapped);
    for (uint32_t p = 0; p < s->plan.skinned_count; p++)
        s->slot_of[s->plan.order[p]] = p;
}

/* A paged store's table in page 0's entry 0, for the addresses binding: the pages' addresses
 * (vks_shared.h, "Palette pages"), written in the frame after they changed, between the earlier
 * frames' reads and this one's. */
static void write_page_table(vks_skinner *sk, VkCommandBuffer cmd)
{
    uint32_t table[VKS_PALETTE_PAGES][2] = {{0}};
    for (uint32_t p = 0; p < sk->page_count; p++)
        gpu_address_words(sk->pages[p].address, table[p]);
    const gpu_access write = {VK_PIPELINE_STAGE_2_ALL_TRANSFER_BIT,
                              VK_ACCESS_2_TRANSFER_WRITE_BIT};
    const gpu_access after = {VKS_SHADER_READS.stage, VK_ACCESS_2_SHADER_STORAGE_READ_BIT |
                                                          VK_ACCESS_2_SHADER_STORAGE_WRITE_BIT};
    gpu_barrier_buffer(sk->dev, cmd, sk->pages[0].buffer, VKS_SHADER_READS, write);
    sk->dev->vk.vkCmdUpdateBuffer(cmd, sk->pages[0].buffer, 0, sizeof table, table);
    gpu_barrier_buffer(sk->dev, cmd, sk->pages[0].buffer, write, after);
    sk->page_table_dirty = false;
}

/* With the store: the frame's staged palettes into their slots of the store, one scatter record
 * per posed instance (the store's poses are this frame's: staged and placed just before), the
 * records grouped by page and each page's scattered by its own pass. */
static void scatter_to_store(vks_skinner *sk, vks_skin_slot *s, VkCommandBuffer cmd)
{
    const vks_palette_store *st = &sk->store;
    const vks_crowd *c = sk->crowd;
    if (sk->page_table_dirty)
        write_page_table(sk, cmd);
    if (!st->pose_count)
        return;
    uint32_t first[VKS_PALETTE_PAGES + 1] = {0}, at[VKS_PALETTE_PAGES];
    for (uint32_t k = 0; k < st->pose_count; k++)
        first[(st->block[st->pose[k]] >> VKS_PALETTE_PAGE_SHIFT) + 1]++;
    for (uint32_t p = 0; p < VKS_PALETTE_PAGES; p++) {
        first[p + 1] += first[p];
        at[p] = first[p];
    }
    vks_scatter_record *records = s->scatter_records.mapped;
    for (uint32_t k = 0; k < st->pose_count; k++) {
        const uint32_t i = st->pose[k], block = st->block[i];
        const uint32_t page = block >> VKS_PALETTE_PAGE_SHIFT;
        assert(page < sk->page_count);
        records[at[page]++] = (vks_scatter_record){
            .from_entry = st->pose_first[k] - page * sk->page_entries, /* in page's staging */
            .to_entry = block & VKS_PALETTE_PAGE_MASK,
            .count = st->pose_splat[k] ? 1 : vks_crowd_written_entries(c, c->instances[i].model),
        };
    }
    for (uint32_t p = 0; p < sk->page_count; p++)
        vks_scatter_pass_record(sk->dev, cmd, &sk->scatter[p], s->slot, first[p],
                                first[p + 1] - first[p], 0, 0, VKS_SHADER_READS);
}

void vks_skinner_prepare(vks_skinner *sk, vks_skin_slot *s, VkCommandBuffer cmd)
{
    assert(s->visible_count <= sk->crowd->instance_count && s->visible_count <= s->instance_room);
    deal_outputs(sk, s);
    if (sk->use_store)
        scatter_to_store(sk, s, cmd);
}

/* One dispatch per (model, level) with instances that got output space, with the model's
 * pipeline variant (4 or 8 influences, linear or dual quaternions, morph targets or not, the
 * pose staged or not) and as
 * wide as the level's vertices need: no empty workgroups in a crowd that mixes models or levels of
 * different sizes, and no search for an instance. On the descriptors binding, that for each output
 * chunk in turn, with its set bound. */
static void skin_dispatches(const vks_skinner *sk, const vks_skin_slot *s, VkCommandBuffer cmd)
{
    const gpu_device *dev = sk->dev;
    const vks_crowd *c = sk->crowd;
    for (uint32_t first = 0, last; first < s->plan.skinned_count; first = last) {
        last = vks_skinner_chunk_end(sk, s, first, s->plan.skinned_count);
        vks_skin_push push = s->push;
        if (sk->descriptors) {
            const uint32_t k = vks_skinner_chunk_of(sk, s, first);
            const VkDescriptorSet set = vks_skinner_data_set(sk, s, k);
            dev->vk.vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, sk->pass.layout, 0,
                                            1, &set, 0, NULL);
            gpu_address_words(vks_skinner_chunks(sk, s)[k].address, push.out_base);
        }
        for (uint32_t m = 0; m < c->model_count; m++) {
            const vks_model *model = c->models[m];
            for (uint32_t l = 0; l < vks_model_level_count(model); l++) {
                const uint32_t start = s->plan.runs[m][l] > first ? s->plan.runs[m][l] : first;
                const uint32_t end = s->plan.runs[m][l + 1] < last ? s->plan.runs[m][l + 1] : last;
                if (end <= start)
                    continue;
                push.model = m;
                push.visible_first = start;
                push.visible_count = end - start;
                push.vertex_count = vks_model_level(model, l).vertex_count;
                vks_skin_pass_record(dev, cmd, &sk->pass, &push, push.vertex_count, sk->variant[m]);
            }
        }
    }
}

void vks_skinner_dispatch(vks_skinner *sk, const vks_skin_slot *s, VkCommandBuffer cmd)
{
    if (sk->mode != VKS_SKIN_COMPUTE)
        return; /* the vertex shaders skin: nothing to record */
    /* Global barriers: the fast path reaches the output chunks by address. The earlier frames'
     * readers and dispatches used the output: this one waits for them before it overwrites it. */
    const gpu_access skin = {VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT,
                             VK_ACCESS_2_SHADER_STORAGE_WRITE_BIT};
    gpu_barrier_memory(sk->dev, cmd,
                       (gpu_access){sk->output_stages | VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT,
                                    VK_ACCESS_2_SHADER_STORAGE_WRITE_BIT},
                       skin);
    skin_dispatches(sk, s, cmd);
    /* Compute writes -> this frame's readers. */
    gpu_barrier_memory(sk->dev, cmd, skin, (gpu_access){sk->output_stages, sk->output_access});
}

void vks_skinner_skin(vks_skinner *sk, vks_skin_slot *s, VkCommandBuffer cmd)
{
    vks_skinner_prepare(sk, s, cmd);
    vks_skinner_dispatch(sk, s, cmd);
}

bool vks_skinner_output(const vks_skinner *sk, const vks_skin_slot *s, uint32_t instance,
                        const gpu_buffer **chunk, VkDeviceSize *offset, uint32_t *vertex_count,
                        uint32_t *level, uint32_t *model)
{
    if (instance >= s->instance_room) /* past what the slot had room for: not skinned in it */
        return false;
    const uint32_t p = s->slot_of[instance];
    if (p == UINT32_MAX)
        return false;
    const VkDeviceSize at = s->plan.out_offset[p];
    *model = s->plan.order_model[p]; /* what it showed then */
    *chunk = &vks_skinner_chunks(sk, s)[at / sk->chunk_limit];
    *offset = at % sk->chunk_limit;
    *level = s->plan.order_level[p];
    *vertex_count = vks_model_level(sk->crowd->models[*model], *level).vertex_count;
    return true;
}

const vks_skin_slot *vks_skinner_previous(const vks_skinner *sk, const vks_skin_slot *s)
{
    assert(sk->output_sets == 2);
    const vks_skin_slot *p = &sk->slots[(s->slot + 1) % GPU_FRAMES_IN_FLIGHT];
    return p->number && p->number + 1 == s->number ? p : NULL;
}

/* ---- The readback ---- */

void vks_skinner_copy_skinned(vks_skinner *sk, const vks_skin_slot *s, VkCommandBuffer cmd)
{
    const gpu_device *dev = sk->dev;
    assert(sk->readback.buffer && sk->mode == VKS_SKIN_COMPUTE);
    const gpu_access host_read = {VK_PIPELINE_STAGE_2_HOST_BIT, VK_ACCESS_2_HOST_READ_BIT};
    const gpu_access copy_write = {VK_PIPELINE_STAGE_2_COPY_BIT, VK_ACCESS_2_TRANSFER_WRITE_BIT};
    /* The host read the readback buffer after the previous frame's fence: nothing pending. */
    const gpu_buffer *chunks = vks_skinner_chunks(sk, s);
    VkDeviceSize offset = 0;
    for (uint32_t k = 0; k < sk->chunk_count; k++) {
        dev->vk.vkCmdCopyBuffer(cmd, chunks[k].buffer, sk->readback.buffer, 1,
                                &(VkBufferCopy){0, offset, chunks[k].size});
        offset += chunks[k].size;
    }
    gpu_barrier_buffer(dev, cmd, sk->readback.buffer, copy_write, host_read);
    sk->readback_slot = (int32_t)s->slot;
}

void vks_skinner_readback_ready(const vks_skinner *sk)
{
    if (sk->readback.mapped)
        gpu_buffer_invalidate(sk->dev, &sk->readback);
}

/* The readback slot's place of `instance` among those the compute pass skinned, or UINT32_MAX. */
static uint32_t skinned_place(const vks_skinner *sk, uint32_t instance)
{
    assert(sk->readback.mapped && instance < sk->crowd->instance_count);
    if (sk->readback_slot < 0)
        return UINT32_MAX;
    const vks_skin_slot *s = &sk->slots[sk->readback_slot];
    return instance < s->instance_room ? s->slot_of[instance] : UINT32_MAX;
}

const vks_skinned_vertex *vks_skinner_skinned(const vks_skinner *sk, uint32_t instance)
{
    const uint32_t p = skinned_place(sk, instance);
    if (p == UINT32_MAX)
        return NULL;
    return (const vks_skinned_vertex *)((const char *)sk->readback.mapped +
                                        sk->slots[sk->readback_slot].plan.out_offset[p]);
}

uint32_t vks_skinner_skinned_level(const vks_skinner *sk, uint32_t instance)
{
    const uint32_t p = skinned_place(sk, instance);
    return p == UINT32_MAX ? UINT32_MAX : sk->slots[sk->readback_slot].plan.order_level[p];
}

uint32_t vks_skinner_skinned_model(const vks_skinner *sk, uint32_t instance)
{
    const uint32_t p = skinned_place(sk, instance);
    return p == UINT32_MAX ? UINT32_MAX : sk->slots[sk->readback_slot].plan.order_model[p];
}

/* The model the readback's frame skinned place p as, and its level's vertex count. */
static const vks_model *skinned_as(const vks_skinner *sk, uint32_t p, uint32_t *vertex_count)
{
    const vks_frame_plan *plan = &sk->slots[sk->readback_slot].plan;
    const vks_model *m = sk->crowd->models[plan->order_model[p]];
    *vertex_count = vks_model_level(m, plan->order_level[p]).vertex_count;
    return m;
}

const uint32_t *vks_skinner_skinned_tangents(const vks_skinner *sk, uint32_t instance)
{
    const uint32_t p = skinned_place(sk, instance);
    if (p == UINT32_MAX)
        return NULL;
    uint32_t n;
    if (!skinned_as(sk, p, &n)->tangents)
        return NULL;
    return (const uint32_t *)((const char *)vks_skinner_skinned(sk, instance) +
                              VKS_TANGENT_OFFSET((size_t)n));
}

bool vks_skinner_decode_skinned(const vks_skinner *sk, uint32_t instance, float (*positions)[3],
                                float (*normals)[3], float (*tangents)[4])
{
    const uint32_t p = skinned_place(sk, instance);
    if (p == UINT32_MAX)
        return false;
    const vks_skinned_vertex *out = vks_skinner_skinned(sk, instance);
    const uint32_t *tan = vks_skinner_skinned_tangents(sk, instance);
    uint32_t n;
    skinned_as(sk, p, &n);
    for (uint32_t v = 0; v < n; v++) {
        memcpy(positions[v], out[v].position, sizeof positions[v]);
        vks_dequant_oct(out[v].normal, normals[v]);
        if (tan && tangents)
            vks_dequant_tangent(tan[v], tangents[v]);
    }
    return true;
}
