/* The owned renderer: vkskin's own device, target and draw pass around a skinner (skinner.h),
 * which it records the way a host records vkskin_gpu's. It adds what a draw needs: the draw and
 * compute-rasterizer passes, the overlays, the textures' and uniforms' descriptors, the instance
 * table kept up with the crowd (moved, added, swapped instances scattered into it), and its
 * frames' command buffers, fences and queries. A frame is one call, read top to bottom in
 * vks_renderer_frame (frame_job.c):
 *
 *   vks_renderer_fit        room for a crowd that grew (waits for the device then)
 *   vks_renderer_begin_frame    waits for the slot's last use; f->skin is the skinner's slot
 *   vks_prepare_palettes    the CPU half (scene/prepare.h): cull, levels, periods, schedule and
 *     or vks_prepare_store_list, vks_renderer_fit_store, vks_prepare_store_place
 *                           poses into f->skin->palette (with the store: the list culled, the
 *                           store grown for it, its slots dealt, the posed palettes staged there)
 *   vks_renderer_fit_output the skinned output grown to what the frame draws, when it wants
 *                           more (waits for the device then)
 *   the overlays written, the target's image acquired (target/target.h)
 *   vks_renderer_skin       the skinner's prepare and dispatch, between the queries
 *   vks_renderer_draw       one instanced draw per mesh of each model, the overlays
 *   vks_target_finish, vks_renderer_copy_skinned, vks_renderer_submit, vks_target_present
 *        or, when the frame fails or has nothing to draw into after it began:
 *   vks_renderer_abandon
 *
 * Tests that drive the passes themselves call these in that order.
 *
 * The readers it names for the skinned output: the vertex shaders that pull it, the readback's
 * copy, and the compute rasterizer and its resolve when it has one.
 *
 * By job: skinner.c and skinner_frame.c skin (scene_gpu.c uploads the GPU scene, frame_plan.c
 * decides each frame's order and output on the CPU), renderer.c creates the draw side and grows,
 * record.c records the draw's passes, frame.c runs the frames' lifecycle, frame_job.c strings a
 * whole frame together. */
#ifndef VKS_RENDERER_H
#define VKS_RENDERER_H

#include "../draw/draw.h"
#include "../draw/overlay.h"
#include "../raster/raster.h"
#include "../scene/prepare.h"
#include "../target/target.h"
#include "skinner.h"

/* Which rasterizer draws the crowd (vks_renderer_desc.raster). */
typedef enum vks_raster_mode {
    VKS_RASTER_HARDWARE, /* the graphics pipeline draws everything */
    VKS_RASTER_COMPUTE,  /* the compute rasterizer draws every instance with output (comparison) */
    VKS_RASTER_HYBRID,   /* the compute rasterizer draws the entries the caller marks
                            (f->skin->raster: small on screen), the graphics pipeline the rest */
} vks_raster_mode;

typedef struct vks_renderer_desc {
    const vks_crowd *crowd; /* kept by pointer: its instances and palette layout */
    VkFormat color_format;  /* of the targets vks_renderer_draw draws into */
    vks_skin_mode mode;     /* compute (default) or in the vertex shader */
    uint32_t group_size;    /* of the skinning pass; 0 = VKS_SKIN_GROUP_SIZE */
    bool stage_palette;     /* vks_skinner_desc.stage_palette */
    bool readback;          /* allow vks_renderer_copy_skinned (dump, tests) */
    bool overlays;          /* the overlay pass vks_renderer_frame draws (draw/overlay.h) */
    /* Largest buffer to create, in bytes: 0 = the device's limits (maxMemoryAllocationSize,
     * maxBufferSize, maxStorageBufferRange). Smaller values force splits (tests). */
    VkDeviceSize buffer_limit;
    /* Palettes: true = a device-local store the shaders read in place, each instance's slot
     * rewritten only when it is posed (palette_store.h): the frame stages the posed palettes in
     * f->skin->palette and scatters them into the store (palette_scatter.h). false = the shaders
     * read each frame slot's mapped, host-visible buffer, every visible instance's palette at its
     * palette_first (tests that write f->skin->palette themselves). */
    bool palette_store;
    /* Skinned-output capacity in vertices (a skinned vertex, plus a tangent when a model of the
     * crowd has them): 0 = chosen from the device's memory (render/plan.h). A frame's visible
     * instances take it in order; those past it are skinned in the vertex shader. */
    uint32_t max_skinned_vertices;
    /* Plan as if the device had at most this many bytes in each heap (0: no cap). */
    VkDeviceSize memory_limit;
    vks_plan_image image; /* the headless image the caller draws into, counted by the plan */
    /* The descriptors binding: the shaders reach every buffer through descriptors
     * (VKS_DESCRIPTORS), not device addresses; what validation can follow. Same output and pixels,
     * bit for bit. */
    vks_binding binding;
    /* Compute or hybrid: the compute rasterizer (raster/raster.h) draws some instances; it needs
     * compute mode and the device's 64-bit buffer atomics. The graphics pipeline draws the
     * instances a frame could not give output space to, and those whose visible entry is past
     * what the visibility buffer's ids can name (vks_raster_scene.max_entries). */
    vks_raster_mode raster;
    /* Room for this many instances and palette entries from the start (0, or fewer than the
     * crowd has: the crowd's). A crowd that grows past them (vks_crowd_add) is made room for by
     * vks_renderer_fit. */
    uint32_t instance_capacity, palette_capacity;
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
    vks_skin_slot *skin; /* the skinner's slot of the same number: the lists the frame fills, and
                            (after vks_renderer_skin) its plan */
    VkCommandBuffer cmd;
    VkFence fence;
    uint32_t draws;    /* set by vks_renderer_draw: the crowd's draw calls it recorded */
    uint32_t resolves; /* and the compute rasterizer's resolve passes (0 when it drew nothing) */
    /* Set by vks_renderer_skin: the instances whose instance-table entries the frame uploads
     * (the crowd's moved list), and the bytes it stages for them. */
    uint32_t moved;
    uint64_t moved_bytes;
    /* Set by vks_renderer_draw: triangles sent to the graphics pipeline and to the compute
     * rasterizer (instances times their meshes' triangles). */
    uint64_t triangles_hardware, triangles_compute;
    uint32_t splats;              /* entries drawn as far splats (one primitive each) */
    vks_frame_uniforms *uniforms; /* mapped: write before submitting */
    vks_gpu_stats stats;          /* of this slot's previous frame */

    gpu_buffer uniform_buffer;
    /* The entries of instances placed anew (crowd->moved), and their scatter records, for the
     * instance table (room for the skinner's instance_capacity). */
    gpu_buffer world_staging, world_records;
    VkDescriptorSet frame_set;
    VkCommandPool pool;
    VkQueryPool timestamps, statistics;
    uint32_t queries_written; /* which queries the last recording wrote (renderer_impl.h) */
} vks_frame;

/* Not to be moved once made: its frames point into its skinner's slots. */
typedef struct vks_renderer {
    const gpu_device *dev;
    /* The GPU scene, palettes, lists, output and skinning pass; its crowd and mode are the
     * renderer's. */
    vks_skinner skinner;
    vks_scatter_pass world_scatter; /* moved instances' entries into the instance table */
    vks_draw_pass draw;
    vks_raster_mode raster_mode;
    vks_raster_pass raster; /* desc.raster compute or hybrid */
    vks_raster_scene raster_scene;
    VkDescriptorSet *material_sets; /* per material of the scene */
    VkDescriptorPool descriptor_pool;
    vks_overlay_pass overlay; /* desc.overlays */
    vks_frame frames[GPU_FRAMES_IN_FLIGHT];
    uint64_t frame_number;
    bool readback;   /* desc.readback */
    vks_frame *last; /* the last frame vks_renderer_frame submitted, NULL before any */
    /* A frame failed to be submitted or presented: every later vks_renderer_frame fails. */
    bool broken;
} vks_renderer;

/* One frame of vks_renderer_frame: everything it is given. */
typedef struct vks_frame_job {
    vks_crowd *crowd;            /* the renderer's (vks_renderer_desc.crowd), which it changes */
    vks_frame_uniforms uniforms; /* the view's, for the shaders */
    /* The CPU half (its raster marks are the frame's own in hybrid mode), and the crowd's
     * animation level of detail it runs with. */
    vks_prepare_job prepare;
    vks_anim_lod *anim_lod;
    vks_target *target;
    uint32_t width, height; /* a window's framebuffer now (0: minimised: nothing is drawn) */
    bool capture;           /* a window's image copied out (vks_target_read) */
    /* Overlays (desc.overlays): the ground under the crowd's box lo..hi, then the host's own
     * vertices of each kind (draw/overlay.h; counts in threes and pairs). */
    bool ground;
    float ground_lo[3], ground_hi[3];
    const vks_overlay_vertex *triangles, *lines, *screen;
    uint32_t triangle_count, line_count, screen_count; /* vertices */
} vks_frame_job;

/* What vks_renderer_frame did. */
typedef struct vks_frame_done {
    bool drawn;            /* false: nothing to draw into (a minimised or stale window) */
    vks_prepared prepared; /* the CPU half's counts */
    /* The vertices of the visible instances at their levels, and of those the compute pass
     * skinned. */
    uint64_t vertices, skinned_vertices;
    double wait_ms, cpu_ms, record_ms; /* for the frame slot, the CPU half, recording on */
    const vks_frame *frame;            /* the frame submitted: its plan, draws and stats */
} vks_frame_done;

/* The memory plan's request for a renderer made from `desc` (vks_renderer_create's own): what
 * a check before the crowd exists plans with too. */
vks_plan_request vks_renderer_plan_request(const vks_renderer_desc *desc);

/* Creates everything for the crowd. When it cannot fit in the device's memory, fails with a
 * message that says how many instances fit. */
bool vks_renderer_create(const gpu_device *dev, const vks_renderer_desc *desc, vks_renderer *r,
                         vks_error *err);
void vks_renderer_destroy(vks_renderer *r);

/* Makes room for the crowd as it is now, before a frame lists it: when it grew past the room
 * (instances added, models with more joints), plans the growth (vks_skinner_plan_growth), waits
 * for the device to be idle and grows the skinner and the instance table's staging with it.
 * Nothing to do otherwise. False, with a message, when the plan refuses (how many instances fit:
 * nothing is lost, and the renderer still draws what it had room for), or when out of memory
 * (the renderer is then broken: every later fit fails). */
bool vks_renderer_fit(vks_renderer *r, vks_error *err);

/* The skinned output grown for the frame prepared in f (its visible list, levels and marks):
 * the output starts at one largest instance's and grows, a quarter past what a frame wants, up
 * to the plan's output_most (vks_skinner_output_wanted); it waits for the device to be idle then.
 * Nothing to do in vertex mode or with a fixed output (max_skinned_vertices). False, broken, only
 * when out of memory for even the room it had. */
bool vks_renderer_fit_output(vks_renderer *r, vks_frame *f, vks_error *err);

/* The palette store grown by pages for the frame's list (visible[0 .. count) and its raster
 * marks, before the store deals it: vks_skinner_store_wanted), waiting for the device to be idle
 * then. Nothing to do unpaged, or with room enough. False, broken, only when growing lost the
 * store's state. */
bool vks_renderer_fit_store(vks_renderer *r, const uint32_t *visible, const uint8_t *raster,
                            uint32_t count, vks_error *err);

/* Waits for the next frame slot, reads its previous queries, begins its command buffer. NULL when
 * the device is lost (or out of memory for the command buffer). */
vks_frame *vks_renderer_begin_frame(vks_renderer *r);
/* The skinner's prepare (the frame plan, the store's scatter), the instance table's scatter of
 * the crowd's moved instances, then the skinner's dispatch inside the frame's queries. In vertex
 * mode it records only what the draw needs. */
void vks_renderer_skin(vks_renderer *r, vks_frame *f);
/* Records the compute rasterizer's dispatches (desc.raster compute or hybrid), then one
 * instanced draw per mesh of each model with instances the graphics pipeline draws, then the
 * resolve of the compute rasterizer's pixels, in the target's rendering. False, with a message,
 * when the visibility buffer for the target's size cannot be made (recording nothing). */
bool vks_renderer_draw(vks_renderer *r, vks_frame *f, const vks_draw_target *target,
                       vks_error *err);
/* Records a copy of the skinned output into the skinner's readback (desc.readback), read with
 * vks_skinner_skinned once the frame's fence signals (vks_renderer_wait). Compute mode only. */
void vks_renderer_copy_skinned(vks_renderer *r, vks_frame *f);
/* Ends a begun frame that will not be submitted (a failure, or a window with nothing to draw
 * into): the palette store's blocks dealt for it freed, its visible list and queries emptied, its
 * command buffer ended unsubmitted. The one way out of a frame between begin and submit. */
void vks_renderer_abandon(vks_renderer *r, vks_frame *f);
/* Ends and submits the frame. `wait` (may be null) is waited on at color output; `signal` (may be
 * null) is signalled when the frame completes. */
bool vks_renderer_submit(vks_renderer *r, vks_frame *f, VkSemaphore wait, VkSemaphore signal,
                         vks_error *err);
/* One whole frame (the sequence above), after the skinned output's readback of the frame before
 * is waited for. False, with a message, when it fails: out of memory for a crowd that grew or
 * for the visibility buffer at the target's size (VKS_ERROR_MEMORY: nothing lost), the device
 * lost, a submission or presentation that failed (the renderer is then broken: every later
 * frame fails). */
bool vks_renderer_frame(vks_renderer *r, const vks_frame_job *job, vks_frame_done *done,
                        vks_error *err);

/* Waits for the frame's fence (and makes the readback visible to the host). */
bool vks_renderer_wait(vks_renderer *r, vks_frame *f, vks_error *err);

/* The frame begun last (frames[0] before any): what its vks_renderer_skin decided (levels, output
 * space: f->skin->plan) stays readable until its slot is begun again. */
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
