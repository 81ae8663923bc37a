/* The frame plan: what one frame does with its visible instances, decided on the CPU alone (no
 * Vulkan call; tests/test_plan.c checks it without a device). From the ascending visible list,
 * each entry's level of detail and whether the compute rasterizer draws it:
 *
 *   vks_frame_plan_make(crowd, &budget, visible, count, levels, raster, &plan);
 *       the GPU's order (by model, then level; the compute rasterizer's entries first in each
 *       run; the far splats last, by model), output space dealt to a prefix of it (render/plan.h's
 *       vks_plan_frame), what did not fit, and per level how many
 *   vks_frame_plan_entries(crowd, &plan, pool, palette_first, chunk_address, chunk_limit, gpu);
 *       the GPU's visible list: per entry its instance, model, level's first vertex, palette and
 *       output address (0: skinned in the vertex shader)
 *
 * Both run their per-entry passes on budget.pool (or `pool`) when given one: the same plan.
 *
 * The recording then takes the plan run by run: one dispatch per (model, level) with output
 * (render/skinner_frame.c), one instanced draw per mesh of each run and the compute rasterizer's
 * part of each (render/record.c). */
#ifndef VKS_FRAME_PLAN_H
#define VKS_FRAME_PLAN_H

#include "../core/pool.h"
#include "../scene/crowd.h"
#include "../../shaders/vks_shared.h"

#include <vulkan/vulkan_core.h> /* VkDeviceSize, VkDeviceAddress */

/* Which entries the compute rasterizer draws: none, those marked `raster` (hybrid), or every
 * one. */
typedef enum vks_frame_raster {
    VKS_FRAME_RASTER_NONE,
    VKS_FRAME_RASTER_MARKED,
    VKS_FRAME_RASTER_ALL
} vks_frame_raster;

/* What the frame has to deal from. */
typedef struct vks_frame_budget {
    bool compute;              /* compute mode: entries without output are overflow */
    VkDeviceSize output_bytes; /* of one copy of the skinned output (0: none, vertex mode) */
    VkDeviceSize chunk_limit;  /* the output's chunk size (render/plan.h) */
    vks_frame_raster raster;
    uint32_t raster_max_entries; /* the visibility buffer's ids name slots below this */
    vks_pool *pool; /* the per-entry passes on its threads (NULL: the caller's): the same plan */
} vks_frame_budget;

typedef struct vks_frame_plan {
    /* Caller memory, one entry per visible instance: the visible instances in the GPU's order,
     * their levels (clamped to their model's last), and (the first skinned_count of them) their
     * output's byte offset in the concatenated chunks. */
    uint32_t *order;
    uint8_t *order_level, *order_model; /* (the model the frame skinned it as: crowds change) */
    VkDeviceSize *out_offset;
    /* runs[m][l]: where (model m, level l)'s range of `order` starts; runs[m][VKS_MAX_LEVELS]:
     * where model m's ends. The compute rasterizer's entries of each are [runs[m][l],
     * raster_end[m][l]) (only entries with output, whose slot its ids can name), the graphics
     * pipeline draws the rest of the range. */
    uint32_t runs[VKS_CROWD_MAX_MODELS][VKS_MAX_LEVELS + 1];
    uint32_t raster_end[VKS_CROWD_MAX_MODELS][VKS_MAX_LEVELS];
    uint32_t level_instances[VKS_MAX_LEVELS]; /* per level, over the models (splats at their
                                                 model's last) */
    /* The far splats (raster mark VKS_RASTER_MARK_SPLAT, with a rasterizer): after every run,
     * model m's at [splats[m], splats[m + 1]); splats[0] ends the runs. They get no output and
     * no skinning. They are splats when the ids name the whole list (budget->raster_max_entries
     * entries at least); else the marked join their model's last level's run as the graphics
     * pipeline's (counted in splats_past_ids and raster_past_ids). */
    uint32_t splats[VKS_CROWD_MAX_MODELS + 1];
    /* order[0 .. skinned_count) got output space (a prefix); in compute mode the other
     * overflow_count (overflow_vertices vertices) are skinned in the vertex shader for want of
     * it (0 in vertex mode, where every entry is). */
    uint32_t skinned_count, overflow_count;
    /* Compute mode: the output's bytes that would give every run output (vks_plan_frame's
     * dealing, chunk ends included): the budget that leaves no overflow. */
    VkDeviceSize output_wanted;
    uint64_t overflow_vertices;
    /* Entries for the compute rasterizer, with output, past what its ids name
     * (budget->raster_max_entries): drawn by the graphics pipeline instead. */
    uint32_t raster_past_ids;
    uint32_t splats_past_ids; /* of them, marked splats (drawn at their last level instead) */
} vks_frame_plan;

/* Plans visible[0 .. count) (ascending, distinct, below the crowd's instance count) with their
 * levels (levels[s], clamped in place to the model's last; a marked splat's set to it) and
 * raster marks (raster[s]: VKS_RASTER_MARK_TRIANGLES for the compute rasterizer with
 * budget->raster MARKED, VKS_RASTER_MARK_SPLAT a far splat with either rasterizer). */
void vks_frame_plan_make(const vks_crowd *crowd, const vks_frame_budget *budget,
                         const uint32_t *visible, uint32_t count, uint8_t *levels,
                         const uint8_t *raster, vks_frame_plan *plan);
/* The same in two steps, for a caller that sizes the output between them: the order, its runs
 * and splats and output_wanted (budget->output_bytes not read), then the output dealt. */
void vks_frame_plan_order(const vks_crowd *crowd, const vks_frame_budget *budget,
                          const uint32_t *visible, uint32_t count, uint8_t *levels,
                          const uint8_t *raster, vks_frame_plan *plan);
void vks_frame_plan_deal(const vks_crowd *crowd, const vks_frame_budget *budget,
                         vks_frame_plan *plan);

/* Writes the GPU's visible list for the plan, in its order, each entry once (gpu may be
 * write-combined memory: never read): palette_first[i] is instance i's first palette entry,
 * chunk_address[k] output chunk k's address (NULL without output). */
void vks_frame_plan_entries(const vks_crowd *crowd, const vks_frame_plan *plan, vks_pool *pool,
                            const uint32_t *palette_first, const VkDeviceAddress *chunk_address,
                            VkDeviceSize chunk_limit, vks_visible *gpu);

#endif
