/* A crowd on the GPU and the frames that animate and draw it. The renderer owns the models'
 * buffers (every model's compact streams concatenated, uploaded once, and a model table), the
 * instance table (one entry per instance: world transform, model, where its palette is), the
 * skinned output (dealt each frame to the visible instances, split into chunks no larger than the
 * device allows), the per-frame palette, visible-list
 * and uniform buffers, the command buffers, fences and queries, and the skinning and draw passes.
 * A frame is:
 *
 *   vks_renderer_fit(r, err);          room for a crowd that grew (vkskin_gpu: _fit_slot)
 *   vks_frame *f = vks_renderer_begin_frame(r);                    waits for the slot's last use
 *   f->visible_count = vks_crowd_cull(crowd, pool, view_proj, f->visible);
 *   vks_crowd_palettes(crowd, pool, f->visible, f->visible_count, f->palette);
 *        or, with desc.palette_store (r->store: palette_store.h):
 *   f->visible_count = vks_palette_store_frame(&r->store, crowd, f->visible, ..., update);
 *   vks_crowd_palettes_at(crowd, pool, r->store.pose, r->store.pose_first, .., f->palette);
 *   vks_renderer_skin(r, f);        one dispatch per (model, level of detail) (compute)
 *   vks_renderer_draw(r, f, &t);    one instanced draw per mesh of each model
 *   vks_renderer_submit(r, f, wait, signal, err);
 *
 * Buffers the shaders reach through device addresses (buffer_reference): the bind streams, the
 * instance table, palettes, the visible list and the output chunks. Only the frame uniforms and
 * the textures are descriptors. On the descriptor path (desc.path: what validation runs) every
 * one of those buffers is a descriptor too, of one set per frame slot and output chunk
 * (shaders/vks_shared.h), so that synchronization validation sees the skinning pass's writes and
 * every read: each chunk's instances are skinned and drawn with its set bound.
 *
 * By job: scene_gpu.c uploads the GPU scene, frame_plan.c decides each frame's order and output
 * on the CPU, record.c records the passes, frame.c runs the frames' lifecycle, renderer.c creates
 * the rest (outputs, frame slots, descriptors). */
#ifndef VKS_RENDERER_H
#define VKS_RENDERER_H

#include "../draw/draw.h"
#include "../raster/raster.h"
#include "frame_plan.h"
#include "palette_scatter.h"
#include "palette_store.h"
#include "plan.h"
#include "scene_gpu.h"
#include "../scene/crowd.h"
#include "../skin/skin_gpu.h"

/* How the shaders reach the crowd's buffers (vks_renderer_desc.path). */
typedef enum vks_path {
    VKS_PATH_AUTO,        /* descriptors on a device with validation, else addresses */
    VKS_PATH_ADDRESSES,   /* device addresses: the fast path */
    VKS_PATH_DESCRIPTORS, /* the descriptor path (VKS_BOUND): what validation can follow */
} vks_path;

/* Which rasterizer draws the crowd (vks_renderer_desc.raster). */
typedef enum vks_raster_mode {
    VKS_RASTER_HARDWARE, /* the graphics pipeline draws everything */
    VKS_RASTER_COMPUTE,  /* the compute rasterizer draws every instance with output (comparison) */
    VKS_RASTER_HYBRID,   /* the compute rasterizer draws the entries the caller marks
                            (vks_frame.raster: small on screen), the graphics pipeline the rest */
} vks_raster_mode;

typedef struct vks_renderer_desc {
    const vks_crowd *crowd; /* kept by pointer: its instances and palette layout */
    VkFormat color_format;  /* of the targets vks_renderer_draw draws into */
    vks_skin_mode mode;     /* compute (default) or in the vertex shader */
    uint32_t group_size;    /* of the skinning pass; 0 = VKS_SKIN_GROUP_SIZE */
    bool readback;          /* allow vks_renderer_copy_skinned (dump, tests) */
    /* Largest buffer to create, in bytes: 0 = the device's limits (maxMemoryAllocationSize,
     * maxBufferSize, maxStorageBufferRange). Smaller values force splits (tests). */
    VkDeviceSize buffer_limit;
    /* Palettes: true = a device-local store the shaders read in place, each instance's slot
     * rewritten only when it is posed (palette_store.h): the frame stages the posed palettes in
     * f->palette and scatters them into the store (palette_scatter.h). false = the shaders read
     * each frame slot's mapped, host-visible buffer, every visible instance's palette at its
     * palette_first (the library's vkskin_gpu; tests that write f->palette themselves). */
    bool palette_store;
    /* Skinned-output capacity in vertices (a skinned vertex, plus a tangent when a model of the
     * crowd has them): 0 = chosen from the device's memory (render/plan.h). A frame's visible
     * instances take it in order; those past it are skinned in the vertex shader. */
    uint32_t max_skinned_vertices;
    /* Plan as if the device had at most this many bytes in each heap (0: no cap). */
    VkDeviceSize memory_limit;
    vks_plan_image image; /* the headless image the caller draws into, counted by the plan */
    /* Skinning only, into command buffers a host records and submits (the library's
     * vkskin_gpu): no draw pass, textures, uniforms, command buffers, fences or queries. Frames
     * are taken with vks_renderer_host_frame and skinned with vks_renderer_skin_into. Compute
     * mode only. */
    bool external;
    /* desc.external: each frame slot skins into its own copy of the output, so the previous
     * frame's stays readable beside the current one (vks_renderer_previous, motion
     * vectors). Twice the output memory. */
    bool keep_previous;
    /* desc.external: who reads the skinned output after the pass, for the barriers before it
     * (against the previous frame's reads) and after it (making the output ready); 0 and 0:
     * vertex input, vertex shader and copy reads. */
    VkPipelineStageFlags2 output_stages;
    VkAccessFlags2 output_access;
    /* The descriptor path: the shaders reach every buffer through descriptors (VKS_BOUND), not
     * device addresses; what validation can follow. Same output and pixels, bit for bit. */
    vks_path path;
    /* Compute or hybrid: the compute rasterizer (raster/raster.h) draws some instances; it needs
     * compute mode and the device's 64-bit buffer atomics. The graphics pipeline draws the
     * instances a frame could not give output space to, and those whose visible slot is past
     * what the visibility buffer's ids can name (vks_raster_scene.max_entries). */
    vks_raster_mode raster;
    /* Room for this many instances and palette entries from the start (0, or fewer than the
     * crowd has: the crowd's). A crowd that grows past them (vks_crowd_add) is made room for by
     * vks_renderer_fit; desc.external cannot grow. */
    uint32_t instance_capacity, palette_capacity;
    /* Tests only: record no barrier between the skinning pass's writes and their readers, to
     * show that validation on the descriptor path catches the hazard. */
    bool test_skip_skin_barrier;
} vks_renderer_desc;

/* What the GPU measured for one frame: -1 (times) or UINT64_MAX (counts) when unknown. */
typedef struct vks_gpu_stats {
    double skin_ms, draw_ms;   /* timestamp queries around the dispatch (-1 in vertex mode) and
                                  around the draws (the graphics pipeline's, overlays included,
                                  the resolve not) */
    double raster_ms;          /* around the compute rasterizer's clear and dispatches (-1: none) */
    double resolve_ms;         /* around its resolve (-1: none) */
    uint64_t primitives;       /* triangles the crowd's draws fed (pipeline statistics query
                                  around them alone: not the resolve's, not the overlays') */
    uint64_t skin_invocations; /* compute invocations of the skinning dispatch */
    uint64_t pixels_resolved;  /* pixels the compute rasterizer covered (0 when it drew none) */
} vks_gpu_stats;

typedef struct vks_frame {
    uint32_t slot;
    VkCommandBuffer cmd;
    VkFence fence;
    /* Mapped: the renderer's palette_capacity entries (at least the crowd's palette_count),
     * instance i's at palette_first[i]; with the store,
     * its staging (the store's capacity): the posed palettes, packed (palette_store.h). */
    vks_bone *palette;
    /* Host memory, instance_capacity entries: the visible instances, ascending, written by the
     * caller before vks_renderer_skin, which gives them output space and writes the GPU's list
     * (write-combined memory on a discrete GPU: written once, never read back). */
    uint32_t *visible;
    uint32_t visible_count; /* set before vks_renderer_skin */
    /* Host memory, per visible slot (f->visible's order): its level of detail (asset/model.h),
     * 0 unless the caller sets it before vks_renderer_skin (begin_frame resets the previous
     * frame's visible_count entries); a level past the model's last reads as its last. */
    uint8_t *level;
    /* Host memory, per visible slot: non-zero for the compute rasterizer (desc.raster hybrid),
     * 0 unless the caller sets it before vks_renderer_skin (reset as `level` is). */
    uint8_t *raster;
    /* Set by vks_renderer_skin: the frame plan (render/frame_plan.h): the visible instances in
     * the GPU's order, their runs, which got output space (order[0 .. skinned_count); the rest
     * are skinned in the vertex shader) and where. */
    vks_frame_plan plan;
    uint32_t draws; /* set by vks_renderer_draw: the crowd's draw calls it recorded */
    /* Set by vks_renderer_draw: triangles sent to the graphics pipeline and to the compute
     * rasterizer (instances times their meshes' triangles). */
    uint64_t triangles_hardware, triangles_compute;
    uint32_t *slot_of; /* desc.external: per instance, its slot in `order` this frame, or
                          UINT32_MAX */
    /* What its per-instance state has room for (instances, palette entries): the renderer's
     * capacities when it was made (desc.external: remade slot by slot, vks_renderer_fit_slot). */
    uint32_t instance_room, palette_room;
    uint64_t host_number; /* desc.external: which host frame it holds (1, 2, ...; 0: none) */
    vks_frame_uniforms *uniforms; /* mapped: write before submitting */
    vks_gpu_stats stats;          /* of this slot's previous frame */

    gpu_buffer palette_buffer, visible_buffer, uniform_buffer;
    /* desc.palette_store: the scatter's records (mapped; one per posed instance, at most
     * the renderer's instance_capacity), written when the frame is recorded. */
    gpu_buffer scatter_records;
    /* Not desc.external: the entries of instances placed anew (crowd->moved), and their scatter
     * records, for the instance table (room for every instance). */
    gpu_buffer world_staging, world_records;
    /* The passes' push constants: this slot's addresses, fixed at creation (the skinning pass
     * adds visible_count, the draw the base color). */
    vks_skin_push skin_push;
    vks_draw_push draw_push;
    VkDescriptorSet frame_set;
    VkCommandPool pool;
    VkQueryPool timestamps, statistics;
    uint32_t queries_written; /* which queries the last recording wrote (renderer.c) */
} vks_frame;

typedef struct vks_renderer {
    const gpu_device *dev;
    const vks_crowd *crowd;
    vks_skin_mode mode;
    bool external;                       /* desc.external */
    VkPipelineStageFlags2 output_stages; /* desc.external: the output's readers (0: defaults) */
    VkAccessFlags2 output_access;
    /* desc.palette_store: the store (device-local, the plan's palette_store_entries) and its
     * bookkeeping. */
    bool use_store;
    gpu_buffer palette_store;
    vks_palette_store store;
    vks_scatter_pass scatter;       /* the staged palettes into their slots */
    vks_scatter_pass world_scatter; /* moved instances' entries into the instance table */
    bool bound;                     /* on the descriptor path (desc.path) */
    bool skip_skin_barrier;
    vks_skin_pass skin;
    vks_draw_pass draw;
    vks_raster_mode raster_mode;
    vks_raster_pass raster; /* desc.raster compute or hybrid */
    vks_raster_scene raster_scene;
    bool *material_used; /* per material of the crowd: resolved this frame (scratch) */
    vks_scene_gpu scene; /* the models' streams, the model and instance tables, the textures */

    /* The skinning pass's output, shared by the frames in flight (the barrier before each
     * dispatch orders them): each frame deals it to its visible instances, their vertices then
     * tangents, in chunks of chunk_limit bytes (the last one smaller). */
    vks_plan_memory memory;
    VkDeviceSize chunk_limit;
    uint32_t chunk_count; /* of one copy of the output */
    uint32_t output_sets; /* copies: 2 with desc.keep_previous (frame slot s uses s % sets) */
    gpu_buffer *chunks;   /* output_sets x chunk_count */
    VkDeviceAddress *chunk_addresses; /* theirs, in the same order */
    gpu_buffer readback;              /* host copy of every chunk, concatenated (desc.readback) */
    int32_t readback_slot;            /* the frame whose output it holds, -1 before any */

    VkDescriptorSet *material_sets; /* per material of the scene */
    VkDescriptorPool descriptor_pool;
    /* desc.bound: the data set layout (VKS_BINDING_*) and its sets, data_sets_per_slot per frame
     * slot: [slot * data_sets_per_slot + k] binds output chunk k (set 0 also serves the draws
     * that skin in the vertex shader, and is the only one when there is no output). */
    VkDescriptorSetLayout data_layout;
    VkDescriptorPool data_pool;
    VkDescriptorSet *data_sets;
    uint32_t data_sets_per_slot;

    vks_frame frames[GPU_FRAMES_IN_FLIGHT];
    uint64_t frame_number;

    /* What grows with the crowd (vks_renderer_fit) has room for instance_capacity instances and
     * palette_capacity palette entries; the store, store_entries. buffer_limit: the largest
     * buffer it may create. grown: how many times it grew; broken: growing failed half-way (the
     * renderer cannot draw). */
    uint32_t instance_capacity, palette_capacity, store_entries;
    VkDeviceSize buffer_limit;
    vks_plan_limits limits;   /* the device's, at creation: what growing plans against */
    vks_plan_request request; /* the plan's request (vks_renderer_plan_request) */
    bool readback_wanted;     /* desc.readback */
    uint32_t grown;
    bool broken;
} vks_renderer;

/* What the memory plan needs of the device (render/plan.h): its buffer limits and heaps, each
 * heap capped at memory_limit (0: no cap). A device from gpu_device_probe will do. */
vks_plan_limits vks_renderer_plan_limits(const gpu_device *dev, VkDeviceSize memory_limit);

/* The memory plan's request for a renderer made from `desc` (vks_renderer_create's own): what
 * a check before the crowd exists plans with too. */
vks_plan_request vks_renderer_plan_request(const vks_renderer_desc *desc);

/* Creates everything for the crowd. When it cannot fit in the device's memory, fails with a
 * message that says how many instances fit. */
bool vks_renderer_create(const gpu_device *dev, const vks_renderer_desc *desc, vks_renderer *r,
                         vks_error *err);
void vks_renderer_destroy(vks_renderer *r);

/* Makes room for the crowd as it is now, before a frame lists it: when it grew past the room
 * (instances added, models with more joints), waits for the device to be idle and makes the
 * per-instance state again, twice as large or as the crowd, whichever is more: the instance
 * table (filled from the crowd), each frame slot's lists, the store (empty: the next frame poses
 * every instance it lists) and the scatters. Nothing to do otherwise. False, with a message, for
 * desc.external (a host's device: no room beyond desc's capacities), when a buffer would pass the
 * largest, or when out of memory (the renderer is then broken: every later fit fails). */
bool vks_renderer_fit(vks_renderer *r, vks_error *err);
/* desc.external: the same for frame slot `slot` alone, which the host takes for a new frame (its
 * earlier work done, as the host guarantees): when the crowd outgrew what the slot holds, the
 * renderer's capacities grow (twice, or as the crowd when twice does not fit the plan) and the
 * slot's state is made again at once, with no wait; the other slot's is remade when it is taken.
 * False, with a message, when the plan refuses or out of memory (then broken). */
bool vks_renderer_fit_slot(vks_renderer *r, uint32_t slot, vks_error *err);

/* Waits for the next frame slot, reads its previous queries, begins its command buffer. NULL when
 * the device is lost (or out of memory for the command buffer). */
vks_frame *vks_renderer_begin_frame(vks_renderer *r);
/* desc.external: frame slot `slot` (< GPU_FRAMES_IN_FLIGHT), emptied for a new frame. The host
 * guarantees the GPU finished the work it last recorded with the slot. */
vks_frame *vks_renderer_host_frame(vks_renderer *r, uint32_t slot);
/* desc.external: vks_renderer_skin, recorded into the host's command buffer (of a queue family
 * with graphics and compute). The barrier after the dispatches makes the output ready for vertex
 * input, vertex shader and copy reads later in `cmd` or in later submissions on the queue. */
void vks_renderer_skin_into(vks_renderer *r, vks_frame *f, VkCommandBuffer cmd);
/* After vks_renderer_skin(_into) of frame f: where the instance's skinned vertices are (chunk
 * buffer and offset in it), how many (its level's) and the level; false when the frame did not
 * skin it (not listed, or past the output budget). desc.external only. */
bool vks_renderer_output(const vks_renderer *r, const vks_frame *f, uint32_t instance,
                         const gpu_buffer **chunk, VkDeviceSize *offset, uint32_t *vertex_count,
                         uint32_t *level, uint32_t *model);
/* desc.keep_previous: the frame slot that holds the host frame before f's, when the other slot
 * holds it (NULL otherwise: no previous frame, or a frame was skipped). */
const vks_frame *vks_renderer_previous(const vks_renderer *r, const vks_frame *f);
/* Gives f->visible[0 .. visible_count) output space (f->skinned_count of them get some) and
 * records the skinning dispatches and the barriers around them (with the store, first the scatter
 * of the palettes r->store last placed, staged in f->palette, into their slots). In vertex mode it
 * records only what the draw needs. */
void vks_renderer_skin(vks_renderer *r, vks_frame *f);
/* Records the compute rasterizer's dispatches (desc.raster compute or hybrid), then one
 * instanced draw per mesh of each model with instances the graphics pipeline draws, then the
 * resolve of the compute rasterizer's pixels, in the target's rendering. False, with a message,
 * when the visibility buffer for the target's size cannot be made (recording nothing). */
bool vks_renderer_draw(vks_renderer *r, vks_frame *f, const vks_draw_target *target,
                       vks_error *err);
/* Records a copy of the skinned output into the readback buffer, visible to the host once the
 * frame's fence signals (vks_renderer_wait). Compute mode with desc.readback only. The readback
 * is one buffer of every chunk's size together (not split: it serves dump and the tests, whose
 * crowds are small), shared by the frames in flight: wait for a frame that copied before the
 * next one records its copy. */
void vks_renderer_copy_skinned(vks_renderer *r, vks_frame *f);
/* Ends and submits the frame. `wait` (may be null) is waited on at color output; `signal` (may be
 * null) is signalled when the frame completes. */
bool vks_renderer_submit(vks_renderer *r, vks_frame *f, VkSemaphore wait, VkSemaphore signal,
                         vks_error *err);
/* Waits for the frame's fence (and makes the readback visible to the host). */
bool vks_renderer_wait(vks_renderer *r, vks_frame *f, vks_error *err);
/* After vks_renderer_copy_skinned and vks_renderer_wait: an instance's skinned vertices
 * (its level's vertex_count entries, vks_renderer_skinned_level; normals as vks_quant_oct words)
 * and tangents (vks_quant_tangent words; NULL when the model has none) in that frame; NULL when the
 * compute pass did not skin it then (not visible, or past the output budget). */
const vks_skinned_vertex *vks_renderer_skinned(const vks_renderer *r, uint32_t instance);
const uint32_t *vks_renderer_skinned_tangents(const vks_renderer *r, uint32_t instance);
/* The model it was skinned as (it may show another since: crowds change) and the level of
 * detail (its output holds that level's vertices), or UINT32_MAX when it has no output in that
 * frame. */
uint32_t vks_renderer_skinned_model(const vks_renderer *r, uint32_t instance);
uint32_t vks_renderer_skinned_level(const vks_renderer *r, uint32_t instance);
/* The same, decoded: positions, normals and (when the model has them and `tangents` is not
 * NULL) tangents, its level's vertex_count each. False, writing nothing, when the instance has no
 * output in that frame. */
bool vks_renderer_decode_skinned(const vks_renderer *r, uint32_t instance, float (*positions)[3],
                                 float (*normals)[3], float (*tangents)[4]);

/* The frame begun last (frames[0] before any): what its vks_renderer_skin decided (levels, output
 * space) stays readable until its slot is begun again. */
static inline const vks_frame *vks_renderer_latest(const vks_renderer *r)
{
    return &r->frames[(r->frame_number + GPU_FRAMES_IN_FLIGHT - 1) % GPU_FRAMES_IN_FLIGHT];
}

/* Waits for the last frame begun and returns what the GPU measured for it (unknowns when it was
 * not submitted, or the device was lost). */
vks_gpu_stats vks_renderer_last_stats(vks_renderer *r);
/* Waits for frame f and writes what the GPU measured for it; false when the device was lost. */
bool vks_renderer_frame_stats(vks_renderer *r, vks_frame *f, vks_gpu_stats *stats);

#endif
