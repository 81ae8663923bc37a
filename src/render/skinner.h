/* The skinner: vkskin's skinning on one device, recorded into a command buffer its client gives.
 * It owns the GPU scene (scene_gpu.h: the models' streams, the model and instance tables, the
 * textures when asked), the palettes (each slot's mapped buffer, or the device-local store:
 * palette_store.h), each slot's visible list and frame plan (frame_plan.h), the skinned output
 * (split into chunks no larger than the device allows) and the skinning pass. It creates no
 * command buffer, fence or query and never waits for the device: its client does.
 *
 * Two clients, one way of recording: the library's vkskin_gpu (a host's device and command
 * buffers) and the owned renderer (renderer.h: its device, target and draw pass). A frame is:
 *
 *   vks_skinner_fit_slot(sk, slot, err);    room for a crowd that grew (no wait; or
 *                                           vks_skinner_plan_growth, a wait for every frame,
 *                                           vks_skinner_grow)
 *   vks_skin_slot *s = vks_skinner_begin(sk, slot);       the client knows the slot is free
 *   write s->palette (or the store's staging), s->visible, s->visible_count, s->level, s->raster
 *   vks_skinner_skin(sk, s, cmd);            = vks_skinner_prepare, then vks_skinner_dispatch
 *   vks_skinner_output(sk, s, instance, ...)  where each instance's vertices went
 *
 * Whoever reads the output after the pass is named at creation (desc.output_stages/access): the
 * barriers before the dispatches (against the earlier frames' reads) and after them (making it
 * ready) are for them.
 *
 * Buffers the shaders reach through device addresses (buffer_reference): the bind streams, the
 * instance table, palettes, the visible list and the output chunks. On the descriptors binding
 * (desc.descriptors: what validation can follow) every one of them is also a descriptor, of one
 * data set per slot and output chunk (shaders/vks_shared.h), which the skinning and the client's
 * draws bind (vks_skinner_data_set). */
#ifndef VKS_SKINNER_H
#define VKS_SKINNER_H

#include "frame_plan.h"
#include "palette_scatter.h"
#include "../scene/palette_store.h"
#include "plan.h"
#include "scene_gpu.h"
#include "../scene/crowd.h"
#include "../skin/skin_gpu.h"

/* How the shaders reach the crowd's buffers (vks_renderer_desc.binding; vkskin_gpu's binding). */
typedef enum vks_binding {
    VKS_BINDING_AUTO,        /* descriptors on a device with validation, else addresses */
    VKS_BINDING_ADDRESSES,   /* device addresses: the fast path */
    VKS_BINDING_DESCRIPTORS, /* the descriptors binding (VKS_DESCRIPTORS): what validation can
                                follow */
} vks_binding;

/* Whether the binding means descriptors on `dev`. */
static inline bool vks_binding_descriptors(vks_binding binding, const gpu_device *dev)
{
    return binding == VKS_BINDING_DESCRIPTORS || (binding == VKS_BINDING_AUTO && dev->validate);
}

typedef struct vks_skinner_desc {
    const vks_crowd *crowd;    /* kept by pointer: its instances and palette layout */
    vks_plan_request request;  /* what the memory plan is asked for (the client's share too) */
    VkDeviceSize memory_limit; /* plan as if each heap had at most this many bytes (0: no cap) */
    uint32_t group_size;       /* of the skinning pass; 0 = VKS_SKIN_GROUP_SIZE */
    /* Stage each instance's pose in shared memory (vks_shared.h, "Palette staging"): the
     * models whose pose fits the device's shared memory. */
    bool stage_palette;
    bool readback;    /* a host copy of the output (vks_skinner_copy_skinned: dump, tests) */
    bool descriptors; /* the descriptors binding */
    /* Who reads the output after the pass (both required, compute mode). */
    VkPipelineStageFlags2 output_stages;
    VkAccessFlags2 output_access;
    vks_scene_gpu_desc scene; /* its instance_capacity is ignored: see below */
    /* Room for this many instances and palette entries from the start (0, or fewer than the
     * crowd has: the crowd's). */
    uint32_t instance_capacity, palette_capacity;
} vks_skinner_desc;

/* One frame slot: what a frame of the client's lists, and where the pass put it. */
typedef struct vks_skin_slot {
    uint32_t slot;
    /* Mapped: the slot's palette_room entries (at least the crowd's palette_count), instance
     * i's at palette_first[i]; with the store, its staging (the store's capacity, over its
     * staging buffers): the posed palettes, packed (palette_store.h). */
    vks_bone *palette;
    /* Host memory, instance_room entries: the visible instances, ascending, written by the
     * client before vks_skinner_prepare, which gives them output space and writes the GPU's
     * list (write-combined memory on a discrete GPU: written once, never read back). */
    uint32_t *visible;
    uint32_t visible_count;
    /* Host memory, per visible entry (visible's order): its level of detail (asset/model.h), 0
     * unless the client sets it (vks_skinner_begin resets the last frame's); a level past the
     * model's last reads as its last. */
    uint8_t *level;
    /* Host memory, per visible entry: non-zero for the compute rasterizer (vks_skinner_set_raster
     * marked), 0 unless the client sets it (reset as `level` is). */
    uint8_t *raster;
    /* Set by vks_skinner_prepare: the visible instances in the GPU's order, their runs, which
     * got output space (plan.order[0 .. skinned_count); the vertex shader skins the rest) and
     * where. */
    vks_frame_plan plan;
    uint32_t *slot_of; /* per instance, its place in plan.order this frame, or UINT32_MAX */
    /* What the slot's state has room for (instances, palette entries): the skinner's
     * capacities when it was made (vks_skinner_fit_slot remakes it, larger). */
    uint32_t instance_room, palette_room;
    uint64_t number; /* which frame it holds (1, 2, ... counted by vks_skinner_begin; 0: none) */
    bool ordered;    /* vks_skinner_order ran for this frame */

    gpu_buffer palette_buffer, visible_buffer; /* (palette_buffer: without the store) */
    /* With the store, its staging: a buffer per page of the store (a page's size each), in one
     * mapped allocation, page k's poses in buffer k (palette_store.h: pose_first). */
    gpu_buffer staging[VKS_PALETTE_PAGES];
    VkDeviceMemory staging_memory;
    /* With the store: the scatter's records (mapped; one per posed instance). */
    gpu_buffer scatter_records;
    /* The skinning pass's push constants: the slot's addresses (the dispatches add the rest). */
    vks_skin_push push;
} vks_skin_slot;

typedef struct vks_skinner {
    const gpu_device *dev;
    const vks_crowd *crowd;
    vks_skin_mode mode;
    bool descriptors;
    VkPipelineStageFlags2 output_stages; /* the output's readers (desc) */
    VkAccessFlags2 output_access;
    vks_scene_gpu scene;
    vks_skin_pass pass;
    /* Each model's skinning variant (skin/skin_gpu.h), decided at creation: 8 influences, dual
     * quaternions, morph targets, and its pose staged (compute mode with stage_palette, when the
     * pose fits pass.stage_vec4s); the draw's vertex shader takes it without the staging. And
     * the variants besides linear blending the crowd needs (vks_skin_variant_made). */
    uint32_t variant[VKS_CROWD_MAX_MODELS];
    uint32_t features;
    /* Which entries the frame plan leaves to the client's compute rasterizer (set_raster). */
    vks_frame_raster raster;
    uint32_t raster_max_entries;

    /* With the store (request.palette_store): the store (device-local, store_entries) as
     * page_count buffers of page_entries (pages: shaders/vks_shared.h, "Palette pages"), its
     * bookkeeping and a scatter per page of each slot's staged palettes into it. One page, unless
     * it is paged: a store one buffer cannot hold (capped), with request.output_on_demand, starts
     * at one page and grows to memory.palette_store_pages (vks_skinner_grow_store); page 0's
     * table is written by the next frame after the pages change (page_table_dirty, the addresses
     * binding). */
    bool use_store;
    bool paged;
    bool page_table_dirty;
    uint32_t page_count, page_entries;
    gpu_buffer pages[VKS_PALETTE_PAGES];
    vks_palette_store store;
    vks_scatter_pass scatter[VKS_PALETTE_PAGES];

    /* The output, which the slots share (the barrier before each dispatch orders them; with
     * request.output_sets 2 each slot has its own copy: slot s uses s % output_sets). Each frame
     * deals it to its visible instances, their vertices then tangents, in chunks of chunk_limit
     * bytes (the last one smaller). */
    vks_plan_memory memory;
    VkDeviceSize chunk_limit;
    uint32_t chunk_count; /* of one copy */
    uint32_t output_sets;
    gpu_buffer *chunks;               /* output_sets x chunk_count */
    VkDeviceAddress *chunk_addresses; /* theirs, in the same order */
    gpu_buffer readback;              /* host copy of one copy's chunks, concatenated */
    int32_t readback_slot;            /* the slot whose output it holds, -1 before any */

    /* The descriptors binding: the data set layout (VKS_DATA_*) and its sets, data_sets_per_slot
     * per slot: [slot * data_sets_per_slot + k] binds output chunk k (set 0 also serves the
     * draws that skin in the vertex shader, and is the only one when there is no output). */
    VkDescriptorSetLayout data_layout;
    VkDescriptorPool data_pool;
    VkDescriptorSet *data_sets;
    uint32_t data_sets_per_slot;

    vks_skin_slot slots[GPU_FRAMES_IN_FLIGHT];
    uint64_t frame_number;
    /* The frame plan's per-entry passes run on this pool's threads (NULL: the client's thread);
     * the client sets it (the owned renderer: each frame, its crowd's). */
    vks_pool *pool;

    /* What grows with the crowd has room for instance_capacity instances and palette_capacity
     * palette entries; the store, store_entries. buffer_limit: the largest buffer it may create.
     * grown: how many times it grew; broken: growing failed half-way (it cannot skin). */
    uint32_t instance_capacity, palette_capacity, store_entries;
    VkDeviceSize buffer_limit;
    vks_plan_limits limits;   /* the device's, at creation: what growing plans against */
    vks_plan_request request; /* desc.request */
    bool readback_wanted;
    uint32_t grown;
    uint32_t output_grown; /* how many times the output grew (request.output_on_demand) */
    uint32_t store_grown;  /* how many times the store grew by pages */
    bool broken;
} vks_skinner;

/* Who reads the palette store and the instance table in a frame: the skinning pass (compute),
 * the vertex shaders that skin, a compute rasterizer and its resolve (fragment). Their scatters
 * wait for the earlier frames' reads and come before this frame's. */
static const gpu_access VKS_SHADER_READS = {VK_PIPELINE_STAGE_2_VERTEX_SHADER_BIT |
                                                VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT |
                                                VK_PIPELINE_STAGE_2_FRAGMENT_SHADER_BIT,
                                            VK_ACCESS_2_SHADER_STORAGE_READ_BIT};

/* A buffer of frame slot `slot`'s, host-visible and reached by address, named "what slot". */
bool vks_slot_buffer(const gpu_device *dev, VkDeviceSize size, const char *what, uint32_t slot,
                     gpu_buffer *buf, vks_error *err);

/* What the memory plan needs of the device (render/plan.h): its buffer limits and heaps, each
 * heap capped at memory_limit (0: no cap). A device from gpu_device_probe will do. */
vks_plan_limits vks_skinner_plan_limits(const gpu_device *dev, VkDeviceSize memory_limit);

/* Creates it all for the crowd. When it cannot fit in the device's memory, fails with a message
 * that says how many instances fit. */
bool vks_skinner_create(const gpu_device *dev, const vks_skinner_desc *desc, vks_skinner *sk,
                        vks_error *err);
/* The client has waited for every frame it recorded. */
void vks_skinner_destroy(vks_skinner *sk);

/* Which entries the frame plan leaves to the client's compute rasterizer,
 * and the most its visibility buffer can name. None until set. */
void vks_skinner_set_raster(vks_skinner *sk, vks_frame_raster raster, uint32_t max_entries);

/* Room for every index of the crowd in the store's bookkeeping; false, with a message, when the
 * skinner is broken or out of memory. */
bool vks_skinner_reserve(vks_skinner *sk, vks_error *err);
/* The crowd has more instances or palette entries than the skinner has room for. */
bool vks_skinner_outgrown(const vks_skinner *sk);
/* Room for an outgrown crowd, every slot at once, in two steps. vks_skinner_plan_growth: the
 * capacities to grow to (twice the room, or just the crowd when twice does not fit the plan) and
 * the plan for them; false, saying how many instances fit, when not even the crowd does (nothing
 * changed: the skinner still skins what it had room for). Then, once the client has waited for
 * every frame it recorded, vks_skinner_grow makes it all again for them: the instance table
 * (filled from the crowd), each slot's lists, the store (empty: the next frame poses every
 * instance it lists), the scatter, the data sets and (when the plan gives more) the output.
 * False, with a message, when out of memory: then broken, and every later call fails. */
typedef struct vks_skinner_growth {
    uint32_t instance_capacity, palette_capacity;
    vks_plan_memory memory;
} vks_skinner_growth;
bool vks_skinner_plan_growth(const vks_skinner *sk, vks_skinner_growth *growth, vks_error *err);
bool vks_skinner_grow(vks_skinner *sk, const vks_skinner_growth *growth, vks_error *err);
/* Growing failed half-way: the skinner holds no per-instance state to skin with. */
static inline bool vks_skinner_broken(const vks_skinner *sk)
{
    return sk->broken;
}
/* Room for the crowd in slot `slot` alone, with no wait, when it is taken for a new frame (its
 * earlier work done, as the client guarantees): the capacities grow as above when the crowd
 * outgrew them, the slot's state is made again for them, and the other slot's is remade when it
 * is taken. The output and the instance table stay as they are (a host's device: a fixed budget,
 * and the skinning reads each instance's model from the visible list, never the table). Without
 * the store only (the store's scatter holds both slots' staging). */
bool vks_skinner_fit_slot(vks_skinner *sk, uint32_t slot, vks_error *err);

/* request.output_on_demand: after vks_skinner_order, the output's bytes to grow to for that
 * frame (a quarter more than it wants, at most memory.output_most), or 0 when it has room enough
 * or may not grow. vks_skinner_grow_output grows it, once the client has waited for every frame
 * it recorded; the skinner's frame plan and chunks then say the new room (the slot's order is
 * kept). When the device refuses the memory, it keeps the room it had and grows no more (true);
 * false, broken, only when it cannot make even that again. */
VkDeviceSize vks_skinner_output_wanted(const vks_skinner *sk, const vks_skin_slot *s);
bool vks_skinner_grow_output(vks_skinner *sk, VkDeviceSize bytes, vks_error *err);

/* A paged store: the pages the frame's list (visible[0 .. count) and its raster marks, before
 * the store deals it) wants, a quarter more than it takes packed, at most
 * memory.palette_store_pages and what the heaps still hold; 0 when the store has room enough or
 * may not grow. vks_skinner_grow_store adds them, once the client has waited for every frame it
 * recorded: the new pages, every slot's staging for the new capacity, the scatters and the data
 * sets (blocks dealt stay where they are). When the device refuses the memory it keeps what it
 * had and grows no more (true); false, broken, only when it cannot make that again. */
uint32_t vks_skinner_store_wanted(const vks_skinner *sk, const uint32_t *visible,
                                  const uint8_t *raster, uint32_t count);
bool vks_skinner_grow_store(vks_skinner *sk, uint32_t pages, vks_error *err);

/* Slot `slot` (< GPU_FRAMES_IN_FLIGHT), emptied for a new frame: the client guarantees the GPU
 * finished what it last recorded with it. Its last plan stays readable until vks_skinner_prepare
 * (vks_skinner_output then finds nothing in it). */
vks_skin_slot *vks_skinner_begin(vks_skinner *sk, uint32_t slot);
/* Puts s->visible[0 .. visible_count) in the GPU's order, with their runs and the output the
 * frame wants (s->plan, vks_frame_plan_order); vks_skinner_prepare does it when the client did
 * not. */
void vks_skinner_order(vks_skinner *sk, vks_skin_slot *s);
/* Gives s->visible[0 .. visible_count) output space (plan.skinned_count of them get some),
 * writes the GPU's visible list and, with the store, records the scatter of the palettes
 * sk->store last placed (staged in s->palette) into their slots. */
void vks_skinner_prepare(vks_skinner *sk, vks_skin_slot *s, VkCommandBuffer cmd);
/* Records the dispatches, one per (model, level of detail) with output, and the barriers around
 * them (compute mode; nothing in vertex mode). */
void vks_skinner_dispatch(vks_skinner *sk, const vks_skin_slot *s, VkCommandBuffer cmd);
/* Both, into `cmd` (of a queue family with graphics and compute). */
void vks_skinner_skin(vks_skinner *sk, vks_skin_slot *s, VkCommandBuffer cmd);

/* After the skinning of slot s: where the instance's vertices are (chunk buffer and offset in
 * it), how many (its level's), the level and the model it was skinned as; false when the frame
 * did not skin it (not listed, or past the output budget). */
bool vks_skinner_output(const vks_skinner *sk, const vks_skin_slot *s, uint32_t instance,
                        const gpu_buffer **chunk, VkDeviceSize *offset, uint32_t *vertex_count,
                        uint32_t *level, uint32_t *model);
/* request.output_sets 2: the slot that holds the frame before s's, when the other slot holds it
 * (NULL otherwise: no previous frame, or one was skipped). */
const vks_skin_slot *vks_skinner_previous(const vks_skinner *sk, const vks_skin_slot *s);

/* The copy of the output that slot s skins into: chunk_count buffers. */
static inline const gpu_buffer *vks_skinner_chunks(const vks_skinner *sk, const vks_skin_slot *s)
{
    return sk->chunks + (size_t)(s->slot % sk->output_sets) * sk->chunk_count;
}
/* The output chunk that place p of slot s's order (one with output) skins into. */
static inline uint32_t vks_skinner_chunk_of(const vks_skinner *sk, const vks_skin_slot *s,
                                            uint32_t p)
{
    return (uint32_t)(s->plan.out_offset[p] / sk->chunk_limit);
}
/* Where the places from `first` that skin into the same chunk end (those of one chunk are
 * consecutive). The addresses binding reaches every chunk at once: `end`. */
static inline uint32_t vks_skinner_chunk_end(const vks_skinner *sk, const vks_skin_slot *s,
                                             uint32_t first, uint32_t end)
{
    if (!sk->descriptors)
        return end;
    const uint32_t k = vks_skinner_chunk_of(sk, s, first);
    while (first < end && vks_skinner_chunk_of(sk, s, first) == k)
        first++;
    return first;
}
/* The descriptors binding: slot s's data set for output chunk k. */
static inline VkDescriptorSet vks_skinner_data_set(const vks_skinner *sk, const vks_skin_slot *s,
                                                   uint32_t k)
{
    return sk->data_sets[s->slot * sk->data_sets_per_slot + k];
}

/* desc.readback: records a copy of slot s's output into the readback buffer, visible to the host
 * once the client has waited for the command buffer and called vks_skinner_readback_ready. One
 * buffer, shared by the slots: wait for a frame that copied before the next one copies. */
void vks_skinner_copy_skinned(vks_skinner *sk, const vks_skin_slot *s, VkCommandBuffer cmd);
void vks_skinner_readback_ready(const vks_skinner *sk);
/* After the copy: an instance's skinned vertices (its level's vertex_count entries; normals as
 * vks_quant_oct words) and tangents (vks_quant_tangent words; NULL when the model has none); NULL
 * when the compute pass did not skin it in that frame (not listed, or past the output budget). */
const vks_skinned_vertex *vks_skinner_skinned(const vks_skinner *sk, uint32_t instance);
const uint32_t *vks_skinner_skinned_tangents(const vks_skinner *sk, uint32_t instance);
/* The model it was skinned as (it may show another since: crowds change) and the level (its
 * output holds that level's vertices), or UINT32_MAX when it has no output in that frame. */
uint32_t vks_skinner_skinned_model(const vks_skinner *sk, uint32_t instance);
uint32_t vks_skinner_skinned_level(const vks_skinner *sk, uint32_t instance);
/* The same, decoded: positions, normals and (when the model has them and `tangents` is not NULL)
 * tangents, its level's vertex_count each. False, writing nothing, when it has no output. */
bool vks_skinner_decode_skinned(const vks_skinner *sk, uint32_t instance, float (*positions)[3],
                                float (*normals)[3], float (*tangents)[4]);

#endif
