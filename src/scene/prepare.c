#include "prepare.h"

#include "../core/alloc.h"

#include <math.h>
#include <string.h>

bool vks_prepare_fit(vks_crowd *crowd, vks_anim_lod *a, bool store, vks_error *err)
{
    const uint32_t need = crowd->instance_capacity;
    if (!a->periods || a->room < need) {
        uint8_t *bigger = vks_realloc(a->periods, need ? need : 1);
        if (!bigger)
            return vks_fail_memory(err, "out of memory for the posing periods of %u instances",
                                   need);
        a->periods = bigger;
        a->room = need;
    }
    if (!vks_crowd_keep_schedule(crowd, err))
        return false;
    if (!store && !vks_crowd_keep_poses(crowd, err))
        return vks_fail_memory(err, "out of memory for the last poses of %u instances",
                               crowd->instance_count);
    return true;
}

void vks_anim_lod_free(vks_anim_lod *a)
{
    vks_free(a->periods);
    *a = (vks_anim_lod){0};
}

vks_lod_view vks_lod_view_of(const float vp[16], const float eye[3], uint32_t height,
                             float max_error_px, int32_t force, float raster_area_px)
{
    /* (row k, column c) at 4 c + k: the clip y row is vp[1], vp[5], vp[9]. */
    const float focal = sqrtf(vp[1] * vp[1] + vp[5] * vp[5] + vp[9] * vp[9]);
    vks_lod_view lod = {.pixels_per_unit = 0.5f * focal * (float)height,
                        .max_error_px = max_error_px,
                        .force = force,
                        .raster_area_px = raster_area_px};
    memcpy(lod.eye, eye, sizeof lod.eye);
    return lod;
}

/* The joints instance i's pose computes: its level's when posed for it (skeleton level of detail),
 * else every joint. */
static uint32_t joints_posed(const vks_crowd *c, uint32_t i, bool at_levels)
{
    const vks_model *m = c->models[c->instances[i].model];
    return at_levels ? vks_model_level_joints(m, c->instances[i].level) : m->skeleton.joint_count;
}

/* The joints the listed entries posed this frame compute (each its level's, or every joint),
 * summed in chunks on the pool: instances[k] for k in [0, count), those schedule[k] names (NULL:
 * all). */
#define JOINTS_CHUNKS 256u
typedef struct joints_job {
    const vks_crowd *c;
    const uint32_t *instances;
    const uint8_t *schedule;
    bool at_levels;
    uint32_t grain;
    uint64_t sums[JOINTS_CHUNKS];
} joints_job;

static void joints_chunk(void *ctx, uint32_t begin, uint32_t end, uint32_t thread)
{
    (void)thread;
    joints_job *j = ctx;
    uint64_t sum = 0;
    for (uint32_t k = begin; k < end; k++)
        if (!j->schedule || j->schedule[k])
            sum += joints_posed(j->c, j->instances[k], j->at_levels);
    j->sums[begin / j->grain] = sum;
}

static uint64_t joints_of(const vks_crowd *c, vks_pool *pool, const uint32_t *instances,
                          uint32_t count, const uint8_t *schedule, bool at_levels)
{
    joints_job j = {.c = c, .instances = instances, .schedule = schedule, .at_levels = at_levels};
    j.grain = vks_pool_grain(count, 4096, JOINTS_CHUNKS);
    vks_pool_run(pool, count, j.grain, joints_chunk, &j);
    uint64_t joints = 0;
    for (uint32_t k = 0; k < (count + j.grain - 1) / j.grain; k++)
        joints += j.sums[k];
    return joints;
}

/* The cull, and levels, periods and (with schedule) the frame's schedule in one pass over the
 * visible instances. Returns the entries listed. */
static uint32_t prepare_list(vks_crowd *c, vks_anim_lod *a, const vks_prepare_job *job,
                             uint32_t *visible, uint8_t *levels, uint8_t *schedule)
{
    const uint32_t n = vks_crowd_cull(c, job->pool, (const float(*)[4])job->view_proj, visible);
    if (levels || job->anim_lod)
        vks_crowd_choose(c, job->pool, &job->lod, visible, n, levels, levels ? job->raster : NULL,
                         job->anim_lod ? a->periods : NULL, a->frame,
                         job->anim_lod ? schedule : NULL);
    return n;
}

vks_prepared vks_prepare_palettes(vks_crowd *c, vks_anim_lod *a, const vks_prepare_job *job,
                                  uint32_t *visible, uint8_t *levels, vks_bone *palettes)
{
    const uint32_t n = prepare_list(c, a, job, visible, levels, NULL);
    uint64_t bytes = 0;
    /* With levels chosen, each instance posed for its level (what its skinning reads). */
    const uint32_t posed = (levels ? vks_crowd_animate_at_levels : vks_crowd_animate)(
        c, job->pool, visible, job->anim_lod ? a->periods : NULL, n, a->frame++, palettes,
        job->reuse_palettes, &bytes);
    const uint64_t joints =
        joints_of(c, job->pool, visible, n, job->anim_lod ? c->schedule : NULL, levels != NULL);
    return (vks_prepared){
        .visible = n, .posed = posed, .palette_bytes = bytes, .posed_joints = joints};
}

uint32_t vks_prepare_store_list(vks_crowd *c, vks_anim_lod *a, const vks_prepare_job *job,
                                uint32_t *visible, uint8_t *levels)
{
    const uint32_t listed = prepare_list(c, a, job, visible, levels, c->schedule);
    if (job->anim_lod)
        a->frame++;
    return listed;
}

vks_prepared vks_prepare_store_place(vks_crowd *c, vks_palette_store *store,
                                     const vks_prepare_job *job, uint32_t *visible, uint8_t *levels,
                                     uint32_t listed, vks_bone *staging)
{
    const uint32_t n = vks_palette_store_frame(store, c, job->pool, visible, levels, job->raster,
                                               listed, job->anim_lod ? c->schedule : NULL);
    vks_crowd_palettes_at(c, job->pool, store->pose, store->pose_first, store->pose_count, staging,
                          levels != NULL, store->pose_splat);
    const uint64_t joints =
        joints_of(c, job->pool, store->pose, store->pose_count, NULL, levels != NULL);
    return (vks_prepared){.visible = n,
                          .posed = store->pose_count,
                          .palette_bytes = store->staged * sizeof(vks_bone),
                          .dropped = listed - n,
                          .posed_joints = joints};
}

vks_prepared vks_prepare_store(vks_crowd *c, vks_anim_lod *a, vks_palette_store *store,
                               const vks_prepare_job *job, uint32_t *visible, uint8_t *levels,
                               vks_bone *staging)
{
    const uint32_t listed = vks_prepare_store_list(c, a, job, visible, levels);
    return vks_prepare_store_place(c, store, job, visible, levels, listed, staging);
}
