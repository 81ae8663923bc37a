/* Levels of detail (crowd.h): per listed instance its level, whether the compute rasterizer
 * takes it, its posing period and the animation schedule, in one pass on the pool's threads. */
#include "crowd.h"

#include <math.h>

/* An instance's posing period from the radius its sphere projects to, radius * ppu / dist pixels
 * at `dist` from its center (compared without dividing; the eye inside: 1). */
static uint8_t crowd_period_of(const vks_crowd_instance *in, float dist, float ppu)
{
    if (dist <= in->radius)
        return 1;
    const float reach = in->radius * ppu; /* px * dist */
    return reach >= VKS_ANIM_LOD_NEAR_PX * dist   ? 1
           : reach >= VKS_ANIM_LOD_FAR_PX * dist  ? 2
           : reach >= VKS_ANIM_LOD_TINY_PX * dist ? 4
                                                  : 8;
}

/* Whether frame `frame` poses instance i of period p, stamping it seen (and posed). */
static bool crowd_schedule_one(vks_crowd_instance *in, uint32_t i, uint32_t p, uint64_t frame)
{
    const bool fresh = in->posed_frame == UINT64_MAX || frame == 0 ||
                       in->seen_frame != frame - 1; /* not shown the frame before */
    /* Its turn in the stagger: a mask for the powers of two vkskin chooses, not a division. */
    const uint64_t phase = (p & (p - 1)) == 0 ? (frame + i) & (p - 1) : (frame + i) % p;
    /* A finer level than its pose was computed for needs joints the pose lacks. */
    const bool pose = p <= 1 || fresh || phase == 0 || in->level < in->posed_level;
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

/* A model's thresholds for this view, so that an instance compares products and looks nothing
 * up: level l holds while scale * reach[l] <= the distance to its sphere (its error, error[l] *
 * scale * ppu / dist pixels there, at most max_error_px), and is kept while scale * keep[l] <= it
 * (within the hysteresis); the far splat and the compute rasterizer compare squares likewise. */
typedef struct crowd_view_model {
    uint32_t last;
    float reach[VKS_MAX_LEVELS], keep[VKS_MAX_LEVELS];
    float area[VKS_MAX_LEVELS]; /* triangle_area * ppu^2 */
} crowd_view_model;

typedef struct crowd_lod_job {
    vks_crowd *crowd;
    const vks_lod_view *view;
    const uint32_t *visible;
    uint8_t *levels, *raster;
    uint8_t *periods, *schedule; /* with schedule, that of `frame` (posed counted) */
    uint64_t frame;
    uint32_t posed;
    crowd_view_model models[VKS_CROWD_MAX_MODELS];
} crowd_lod_job;

static void crowd_view_models(const vks_crowd *c, const vks_lod_view *view, crowd_view_model *out)
{
    const float ppu = view->pixels_per_unit;
    for (uint32_t m = 0; m < c->model_count; m++) {
        crowd_view_model *v = &out[m];
        v->last = vks_model_level_count(c->models[m]) - 1;
        for (uint32_t l = 0; l <= v->last; l++) {
            /* (an error of 0 holds at any distance, whatever the bound) */
            const float e = vks_model_level(c->models[m], l).error * ppu;
            v->reach[l] = e > 0.0f ? e / view->max_error_px : 0.0f;
            v->keep[l] = e > 0.0f ? e / (view->max_error_px * VKS_LOD_HYSTERESIS) : 0.0f;
            v->area[l] = c->triangle_area[m][l] * ppu * ppu;
        }
    }
}

/* Instance in's level of detail (remembered in in->level) and whether its triangles are small
 * enough for the compute rasterizer, `dist` from its center. */
static uint8_t crowd_lod_of(const crowd_lod_job *job, vks_crowd_instance *in, float dist,
                            uint8_t *raster)
{
    const vks_lod_view *view = job->view;
    const crowd_view_model *v = &job->models[in->model];
    const uint32_t last = v->last;
    /* The distance to this instance's sphere: its levels' errors project to error * scale *
     * pixels_per_unit / near pixels there (palette units: bake/lod_error.h); the eye inside, to
     * infinitely many. */
    const float near = dist - in->radius;
    const float s = in->scale, s2 = s * s, near2 = near * near;
    uint32_t level;
    if (view->force >= 0) {
        level = (uint32_t)view->force < last ? (uint32_t)view->force : last;
    } else {
        uint32_t fine = 0, coarse = 0; /* the coarsest within the bound, and within the bound
                                          less the hysteresis (errors only grow) */
        for (uint32_t l = 1; near > 0.0f && l <= last; l++) {
            if (s * v->reach[l] <= near)
                fine = l;
            if (s * v->keep[l] <= near)
                coarse = l;
        }
        level = in->level < coarse ? coarse : in->level > fine ? fine : in->level;
    }
    const float weight = job->crowd->splat_weight[in->model];
    if (raster && view->splat_density > 0.0f && view->force < 0 && weight > 0.0f && near > 0.0f) {
        /* The far splat: the coarsest level's triangles against the pixels its outline covers
         * (splat_weight: those triangles per outline area; the pixels grow with the square of its
         * size, so the hysteresis squared while it is a splat): weight > density * px^2, px the
         * instance's scale * ppu / near. */
        const float h2 = in->splat ? VKS_SPLAT_HYSTERESIS * VKS_SPLAT_HYSTERESIS : 1.0f;
        const float ppu = view->pixels_per_unit;
        in->splat = weight * h2 * near2 > view->splat_density * ppu * ppu * s2;
    } else {
        in->splat = 0;
    }
    if (in->splat)
        level = last;
    in->level = (uint8_t)level;
    if (raster)
        *raster = in->splat ? VKS_RASTER_MARK_SPLAT
                  : view->raster_area_px > 0.0f && near > 0.0f &&
                          v->area[level] * s2 <= view->raster_area_px * near2
                      ? VKS_RASTER_MARK_TRIANGLES
                      : 0;
    return (uint8_t)level;
}

static void crowd_choose_chunk(void *ctx, uint32_t begin, uint32_t end, uint32_t thread)
{
    (void)thread;
    crowd_lod_job *job = ctx;
    vks_crowd *c = job->crowd;
    const float *eye = job->view->eye;
    uint32_t posed = 0;
    for (uint32_t k = begin; k < end; k++) {
        const uint32_t i = job->visible[k];
        vks_crowd_instance *in = &c->instances[i];
        const float dx = in->center[0] - eye[0], dy = in->center[1] - eye[1],
                    dz = in->center[2] - eye[2];
        const float dist = sqrtf(dx * dx + dy * dy + dz * dz); /* the one root an instance takes */
        if (job->levels)
            job->levels[k] = crowd_lod_of(job, in, dist, job->raster ? &job->raster[k] : NULL);
        else /* skinned at level 0 this frame: the schedule compares the kept pose with that */
            in->level = 0;
        if (!job->periods && !job->schedule)
            continue;
        const uint8_t period = crowd_period_of(in, dist, job->view->pixels_per_unit);
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
    crowd_lod_job job = {.crowd = c,
                         .view = view,
                         .visible = visible,
                         .levels = levels,
                         .raster = raster,
                         .periods = periods,
                         .schedule = schedule,
                         .frame = frame};
    if (levels)
        crowd_view_models(c, view, job.models);
    vks_pool_run(pool, count, VKS_CROWD_GRAIN, crowd_choose_chunk, &job);
    return schedule ? job.posed : count;
}
