/* Levels of detail (crowd.h): per listed instance its level, whether the compute rasterizer
 * takes it, its posing period and the animation schedule, in one pass on the pool's threads. */
#include "crowd.h"

#include <math.h>

/* An instance's posing period from the radius its sphere projects to (the eye inside: 1). */
static uint8_t crowd_period_of(const vks_crowd_instance *in, const vks_lod_view *view)
{
    float d2 = 0.0f;
    for (int a = 0; a < 3; a++)
        d2 += (in->center[a] - view->eye[a]) * (in->center[a] - view->eye[a]);
    const float dist = sqrtf(d2);
    const float px = dist > in->radius ? in->radius * view->pixels_per_unit / dist : INFINITY;
    return px >= VKS_ANIM_LOD_NEAR_PX   ? 1
           : px >= VKS_ANIM_LOD_FAR_PX  ? 2
           : px >= VKS_ANIM_LOD_TINY_PX ? 4
                                        : 8;
}

/* Whether frame `frame` poses instance i of period p, stamping it seen (and posed). */
static bool crowd_schedule_one(vks_crowd_instance *in, uint32_t i, uint32_t p, uint64_t frame)
{
    const bool fresh = in->posed_frame == UINT64_MAX || frame == 0 ||
                       in->seen_frame != frame - 1; /* not shown the frame before */
    /* A finer level than its pose was computed for needs joints the pose lacks. */
    const bool pose = p <= 1 || fresh || (frame + i) % p == 0 || in->level < in->posed_level;
    if (pose)
        in->posed_frame = frame;
    in->seen_frame = frame;
    return pose;
}

uint32_t vks_crowd_schedule(vks_crowd *c, const uint32_t *visible, const uint8_t *periods,
                            uint32_t count, uint64_t frame, uint8_t *schedule)
{
    uint32_t posed = 0;
    for (uint32_t k = 0; k < count; k++) {
        const uint32_t i = visible[k];
        /* not an instance: skipped, as by vks_crowd_palettes */
        schedule[k] = i < c->instance_count &&
                      crowd_schedule_one(&c->instances[i], i, periods ? periods[k] : 1, frame);
        posed += schedule[k];
    }
    return posed;
}

typedef struct crowd_lod_job {
    vks_crowd *crowd;
    const vks_lod_view *view;
    const uint32_t *visible;
    uint8_t *levels, *raster;
    uint8_t *periods, *schedule; /* with schedule, that of `frame` (posed counted) */
    uint64_t frame;
    uint32_t posed;
} crowd_lod_job;

/* Instance in's level of detail (remembered in in->level) and whether its triangles are small
 * enough for the compute rasterizer. */
static uint8_t crowd_lod_of(const vks_crowd *c, vks_crowd_instance *in, const vks_lod_view *view,
                            uint8_t *raster)
{
    const vks_model *m = c->models[in->model];
    const uint32_t last = vks_model_level_count(m) - 1;
    float d2 = 0.0f;
    for (int a = 0; a < 3; a++)
        d2 += (in->center[a] - view->eye[a]) * (in->center[a] - view->eye[a]);
    const float dist = sqrtf(d2) - in->radius;
    /* Pixels per palette unit (the units of the levels' errors, bake/lod_error.h) at the nearest
     * point of this instance's sphere. */
    const float px = dist > 0.0f ? in->scale * view->pixels_per_unit / dist : INFINITY;
    uint32_t level;
    if (view->force >= 0) {
        level = (uint32_t)view->force < last ? (uint32_t)view->force : last;
    } else {
        uint32_t fine = 0, coarse = 0; /* the coarsest within the bound, and within the bound
                                          less the hysteresis (errors only grow) */
        for (uint32_t l = 1; l <= last; l++) {
            const float e = vks_model_level(m, l).error * px;
            if (e <= view->max_error_px)
                fine = l;
            if (e <= view->max_error_px * VKS_LOD_HYSTERESIS)
                coarse = l;
        }
        level = in->level < coarse ? coarse : in->level > fine ? fine : in->level;
    }
    const float weight = c->splat_weight[in->model];
    if (raster && view->splat_density > 0.0f && view->force < 0 && weight > 0.0f) {
        /* The far splat: the coarsest level's triangles against the pixels its outline covers
         * (splat_weight: those triangles per outline area; the pixels grow with the square of its
         * size, so the hysteresis squared while it is a splat). */
        const float h2 = in->splat ? VKS_SPLAT_HYSTERESIS * VKS_SPLAT_HYSTERESIS : 1.0f;
        in->splat = weight * h2 > view->splat_density * px * px;
    } else {
        in->splat = 0;
    }
    if (in->splat)
        level = last;
    in->level = (uint8_t)level;
    if (raster)
        *raster = in->splat ? VKS_RASTER_MARK_SPLAT
                  : view->raster_area_px > 0.0f &&
                          c->triangle_area[in->model][level] * px * px <= view->raster_area_px
                      ? VKS_RASTER_MARK_TRIANGLES
                      : 0;
    return (uint8_t)level;
}

static void crowd_choose_chunk(void *ctx, uint32_t begin, uint32_t end, uint32_t thread)
{
    (void)thread;
    crowd_lod_job *job = ctx;
    vks_crowd *c = job->crowd;
    uint32_t posed = 0;
    for (uint32_t k = begin; k < end; k++) {
        const uint32_t i = job->visible[k];
        vks_crowd_instance *in = &c->instances[i];
        if (job->levels)
            job->levels[k] = crowd_lod_of(c, in, job->view, job->raster ? &job->raster[k] : NULL);
        else /* skinned at level 0 this frame: the schedule compares the kept pose with that */
            in->level = 0;
        if (!job->periods && !job->schedule)
            continue;
        const uint8_t period = crowd_period_of(in, job->view);
        if (job->periods)
            job->periods[k] = period;
        if (job->schedule) {
            job->schedule[k] = crowd_schedule_one(in, i, period, job->frame);
            posed += job->schedule[k];
        }
    }
    __atomic_fetch_add(&job->posed, posed, __ATOMIC_RELAXED);
}

uint32_t vks_crowd_choose(vks_crowd *c, vks_pool *pool, const vks_lod_view *view,
                          const uint32_t *visible, uint32_t count, uint8_t *levels, uint8_t *raster,
                          uint8_t *periods, uint64_t frame, uint8_t *schedule)
{
    crowd_lod_job job = {c, view, visible, levels, raster, periods, schedule, frame, 0};
    vks_pool_run(pool, count, VKS_CROWD_GRAIN, crowd_choose_chunk, &job);
    return schedule ? job.posed : count;
}
