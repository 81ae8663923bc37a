/* Posing (crowd.h): each listed instance's palette sampled and written where it goes, on the
 * pool's threads, with the animation level of detail's kept poses and the buffers it remembers. */
#include "crowd_impl.h"

#include "../anim/anim.h"
#include "../skin/dqs.h"

#include <assert.h>
#include <string.h>

/* Instances per chunk of vks_crowd_palettes: about this many joints, at most 64 instances
 * (20-joint characters: ~30 us per chunk on one core, so the atomic counter costs nothing and
 * a few thousand instances still spread over every thread). */
#define CROWD_GRAIN_JOINTS 2048u
#define CROWD_GRAIN_MAX 64u
/* Palettes written straight to their buffer are streamed (non-temporal stores: no read for
 * ownership, so half the memory traffic) when a frame's exceed this, past a core's L2. Smaller
 * ones are written as usual: the fence that streamed stores need before the chunk is handed back
 * waits for them to reach memory (bench --anim-only, one CesiumMan: 19.7 ns a skin joint with it,
 * 12.7 without). */
#define CROWD_STREAM_BYTES ((size_t)4 << 20)

static uint32_t crowd_max_joints(const vks_crowd *c)
{
    uint32_t n = 0;
    for (uint32_t m = 0; m < c->model_count; m++)
        if (c->models[m]->skeleton.joint_count > n)
            n = c->models[m]->skeleton.joint_count;
    return n;
}

static uint32_t crowd_max_targets(const vks_crowd *c)
{
    uint32_t n = 0;
    for (uint32_t m = 0; m < c->model_count; m++)
        if (c->models[m]->target_count > n)
            n = c->models[m]->target_count;
    return n;
}

vks_crowd__scratch vks_crowd__scratch_of(const vks_crowd *c)
{
    const uint32_t max_joints = crowd_max_joints(c);
    vks_crowd__scratch l;
    size_t xforms = sizeof(vks_xform) * max_joints;
    l.local_from = xforms;
    l.model = 2 * xforms;
    /* Cache lines apart, so that threads never share one (and the sampler's SIMD loads are
     * aligned). */
    l.sampler = (2 * xforms + sizeof(vks_affine) * max_joints + 63) & ~(size_t)63;
    /* A palette in pose order (skeleton level of detail), placed from there. */
    l.pose = (l.sampler + vks_sampler_scratch_bytes(max_joints) + 63) & ~(size_t)63;
    /* A dual-quaternion model's palette as 3x4 matrices, before it is written as vks_dq. */
    l.dq = (l.pose + sizeof(vks_bone) * max_joints + 63) & ~(size_t)63;
    /* Morph-target weights: an instance's, and the clip's fading out. */
    l.weights = (l.dq + sizeof(vks_bone) * max_joints + 63) & ~(size_t)63;
    l.stride = (l.weights + 2 * sizeof(float) * crowd_max_targets(c) + 63) & ~(size_t)63;
    return l;
}

typedef struct crowd_job {
    vks_crowd *crowd;
    const uint32_t *visible;
    vks_bone *palette;
    /* vks_crowd_palettes_at: per listed instance, its first entry in `palette` (NULL: its
     * palette_first) */
    const uint32_t *first;
    vks_crowd__scratch layout;
    bool anim_lod; /* vks_crowd_animate with periods: c->schedule says which to pose */
    /* Each instance posed for its level of detail (instance.lod): the joints the level keeps
     * (skeleton level of detail); else every joint. */
    bool at_levels;
    /* The pose written is the one kept for the schedule (the kept poses, or a palette store's
     * staging): its level is what the schedule knows (instance.posed_lod). A pose into a
     * caller's buffer is not (vkskin_crowd_pose). */
    bool keeps;
    bool stream; /* the sampler's non-temporal stores (crowd_job_of) */
    /* vks_crowd_animate with reuse: per instance, the pose `palette` holds (see vks_crowd). */
    uint64_t *held;
    uint64_t written; /* palette entries written into `palette` (added to atomically) */
} crowd_job;

static void crowd_sample(const vks_model *m, int32_t clip, double time, uint32_t *cursor,
                         vks_xform *local)
{
    if (clip < 0) {
        vks_pose_rest(&m->skeleton, local);
        return;
    }
    const vks_clip *k = &m->clips[clip];
    vks_clip_sample(&m->skeleton, k, vks_clip_time(k, time, VKS_WRAP_LOOP), cursor, local);
}

/* Instance i's local pose through anim.h's direct path into `local`: its clip, blended with the
 * one fading out (sampled into `local_from`) during a cross-fade. */
static void crowd_local_direct(vks_crowd *c, uint32_t i, vks_xform *local, vks_xform *local_from)
{
    const vks_crowd_instance *in = &c->instances[i];
    const vks_model *m = c->models[in->model];
    const uint32_t joints = m->skeleton.joint_count;
    uint32_t *cursor = c->cursors + 6 * (size_t)c->palette_first[i];
    crowd_sample(m, in->clip, in->time, cursor, local);
    if (in->fade_left > 0.0) {
        crowd_sample(m, in->from_clip, in->from_time, cursor + 3 * joints, local_from);
        float w = (float)(1.0 - in->fade_left / in->fade); /* 0 -> 1 towards the new */
        vks_pose_blend(local_from, local, w, joints, local);
    }
}

/* The morph-target weights of `clip` (-1: the bind pose, the targets' default weights) at its
 * clock `time`, looping. */
static void crowd_clip_weights(const vks_model *m, int32_t clip, double time, float *w)
{
    const vks_clip *k = clip < 0 ? NULL : &m->clips[clip];
    vks_clip_weights(m, k, k ? vks_clip_time(k, time, VKS_WRAP_LOOP) : 0.0, w);
}

void vks_crowd_weights(const vks_crowd *c, uint32_t i, float *weights, float *from)
{
    const vks_crowd_instance *in = &c->instances[i];
    const vks_model *m = c->models[in->model];
    crowd_clip_weights(m, in->clip, in->time, weights);
    if (in->fade_left > 0.0) { /* as crowd_local_direct blends the pose */
        crowd_clip_weights(m, in->from_clip, in->from_time, from);
        const float u = (float)(1.0 - in->fade_left / in->fade);
        for (uint32_t t = 0; t < m->target_count; t++)
            weights[t] = from[t] + (weights[t] - from[t]) * u;
    }
}

static void crowd_palettes_chunk(void *ctx, uint32_t begin, uint32_t end, uint32_t thread)
{
    const crowd_job *job = ctx;
    vks_crowd *c = job->crowd;
    /* Each thread its own scratch: chunks of one thread run one after the other. */
    char *scratch = (char *)c->scratch + job->layout.stride * thread;
    vks_xform *local = (vks_xform *)scratch;
    vks_xform *local_from = (vks_xform *)(scratch + job->layout.local_from);
    vks_affine *model = (vks_affine *)(scratch + job->layout.model);
    void *sampler_scratch = scratch + job->layout.sampler;
    uint64_t written = 0;
    for (uint32_t v = begin; v < end; v++) {
        uint32_t i = job->visible[v];
        if (i >= c->instance_count) /* not an instance: nothing to write */
            continue;
        vks_crowd_instance *in = &c->instances[i];
        const vks_model *m = c->models[in->model];
        const uint32_t joints = m->skeleton.joint_count;
        const uint32_t entries = vks_crowd_written_entries(c, in->model);
        vks_bone *out = job->palette + (job->first ? job->first[v] : c->palette_first[i]);
        if (job->anim_lod && !c->schedule[v]) { /* its last pose, kept in cached memory */
            if (job->held && job->held[i] == in->posed_frame)
                continue; /* the buffer holds it already */
            memcpy(out, c->poses + c->palette_first[i], sizeof *out * entries);
            if (job->held)
                job->held[i] = in->posed_frame;
            written += entries;
            continue;
        }
        written += entries;
        if (job->held)
            job->held[i] = in->posed_frame;
        /* With the level of detail, posed into the kept poses (cached memory) and copied out;
         * else straight into the palette, written once. A dual-quaternion model's is posed in
         * the scratch and written as vks_dq where it goes. */
        vks_bone *const placed = job->anim_lod ? c->poses + c->palette_first[i] : out;
        vks_bone *dst = c->dq[in->model] ? (vks_bone *)(scratch + job->layout.dq) : placed;
        const vks_sampler *s = &c->samplers[in->model][in->clip + 1];
        if (in->fade_left <= 0.0 && s->segments) { /* the fast path */
            const double t =
                in->clip < 0 ? 0.0 : vks_clip_time(&m->clips[in->clip], in->time, VKS_WRAP_LOOP);
            if (m->pose_order) { /* the joints its level keeps, in pose order, then placed */
                const uint8_t level = job->at_levels ? in->lod : 0;
                const uint32_t n = vks_model_level_joints(m, level);
                vks_bone *pose = (vks_bone *)(scratch + job->layout.pose);
                vks_sampler_pose_joints(s, &c->pose_skeletons[in->model], t, &c->sampler_cursors[i],
                                        sampler_scratch, pose, false, n);
                if (c->dq[in->model]) { /* the posed joints alone, each as its vks_dq */
                    for (uint32_t p = 0; p < n; p++) {
                        vks_dq d;
                        vks_dq_from_bone_fast(&pose[p], &d);
                        memcpy((char *)placed + sizeof d * m->pose_order[p], &d, sizeof d);
                    }
                    dst = NULL; /* written */
                } else {
                    for (uint32_t p = 0; p < n; p++)
                        dst[m->pose_order[p]] = pose[p];
                }
                if (job->keeps)
                    in->posed_lod = level;
            } else {
                vks_sampler_pose(s, &m->skeleton, t, &c->sampler_cursors[i], sampler_scratch, dst,
                                 job->stream && dst == placed);
                if (job->keeps)
                    in->posed_lod = 0;
            }
        } else { /* a cross-fade, or a clip without a sampler: anim.h's direct path */
            crowd_local_direct(c, i, local, local_from);
            vks_pose_palette(&m->skeleton, local, model, dst);
            if (job->keeps)
                in->posed_lod = 0; /* every joint */
        }
        if (c->dq[in->model] && dst) /* posed as 3x4 in the scratch: written as vks_dq */
            vks_dq_write(dst, joints, placed);
        if (m->target_count) { /* its active morph targets, after the pose */
            float *w = (float *)(scratch + job->layout.weights);
            vks_crowd_weights(c, i, w, w + m->target_count);
            vks_morph_write(m, w, placed + vks_crowd_pose_entries(m, c->dq[in->model]));
        }
        if (job->anim_lod)
            memcpy(out, placed, sizeof *out * entries);
    }
    if (job->stream)
        vks_sampler_fence(); /* the streamed entries, before the pool hands the chunk back */
    __atomic_fetch_add(&((crowd_job *)ctx)->written, written, __ATOMIC_RELAXED);
}

void vks_crowd_joints(vks_crowd *c, uint32_t i, float (*out)[3])
{
    const vks_crowd__scratch layout = vks_crowd__scratch_of(c);
    char *scratch = (char *)c->scratch; /* thread 0's: calls on a crowd do not overlap */
    vks_affine *model = (vks_affine *)(scratch + layout.model);
    const vks_skeleton *sk = &c->models[c->instances[i].model]->skeleton;
    crowd_local_direct(c, i, (vks_xform *)scratch, (vks_xform *)(scratch + layout.local_from));
    vks_pose_model(sk, (const vks_xform *)scratch, model);
    /* A joint's origin is its model transform's translation (palette space), carried to the
     * world by the instance's placement. */
    for (uint32_t j = 0; j < sk->joint_count; j++) {
        const float p[3] = {model[j].row[0][3], model[j].row[1][3], model[j].row[2][3]};
        vks_transform_point(c->instances[i].world, p, out[j]);
    }
}

/* The job of posing `count` listed instances: the scratch layout, and whether palettes are
 * streamed (written straight to the buffer, and a frame's past CROWD_STREAM_BYTES). */
static crowd_job crowd_job_of(vks_crowd *c, const uint32_t *visible, uint32_t count,
                              vks_bone *palette, bool anim_lod)
{
    const uint32_t max_joints = crowd_max_joints(c);
    return (crowd_job){
        .crowd = c,
        .visible = visible,
        .palette = palette,
        .layout = vks_crowd__scratch_of(c),
        .anim_lod = anim_lod,
        .stream = !anim_lod && (size_t)count * max_joints * sizeof(vks_bone) > CROWD_STREAM_BYTES,
    };
}

static void crowd_run(crowd_job *job, vks_pool *pool, uint32_t count);

void vks_crowd_forget_palettes(vks_crowd *c)
{
    /* Atomic stores: vks_crowd_palettes_range runs on several threads at once (the stores are
     * the same; the reads, in vks_crowd_animate, come after the caller's join). */
    for (uint32_t d = 0; d < VKS_CROWD_DESTINATIONS; d++)
        __atomic_store_n(&c->destinations[d].palette, NULL, __ATOMIC_RELAXED);
}

void vks_crowd_palettes(vks_crowd *c, vks_pool *pool, const uint32_t *visible, uint32_t count,
                        vks_bone *palette)
{
    vks_crowd_forget_palettes(c);
    crowd_job job = crowd_job_of(c, visible, count, palette, false);
    crowd_run(&job, pool, count);
}

void vks_crowd_palettes_at(vks_crowd *c, vks_pool *pool, const uint32_t *list,
                           const uint32_t *first, uint32_t count, vks_bone *dest, bool at_levels)
{
    /* Another buffer than those the crowd remembers: what they hold stays as it was. */
    crowd_job job = crowd_job_of(c, list, count, dest, false);
    job.first = first;
    job.at_levels = at_levels;
    job.keeps = true;
    crowd_run(&job, pool, count);
}

void vks_crowd_palettes_range(vks_crowd *c, const uint32_t *visible, uint32_t begin, uint32_t end,
                              vks_bone *palette, uint32_t thread)
{
    vks_crowd_forget_palettes(c);
    crowd_job job = crowd_job_of(c, visible, end - begin, palette, false);
    crowd_palettes_chunk(&job, begin, end, thread);
}

/* The stamps of buffer `palette` (a new one replaces the least recently used; all unknown). */
static uint64_t *crowd_destination(vks_crowd *c, const vks_bone *palette)
{
    struct vks_crowd_destination *pick = &c->destinations[0];
    for (uint32_t d = 0; d < VKS_CROWD_DESTINATIONS; d++) {
        struct vks_crowd_destination *dest = &c->destinations[d];
        if (dest->palette == palette) {
            pick = dest;
            break;
        }
        if (dest->used < pick->used)
            pick = dest;
    }
    if (pick->palette != palette) {
        pick->palette = palette;
        memset(pick->held, 0xff, sizeof *pick->held * c->instance_count); /* none */
    }
    pick->used = ++c->destination_clock;
    return pick->held;
}

static uint32_t crowd_animate(vks_crowd *c, vks_pool *pool, const uint32_t *visible,
                              const uint8_t *periods, uint32_t count, uint64_t frame,
                              vks_bone *palette, bool reuse, uint64_t *palette_bytes,
                              bool at_levels)
{
    if (!periods) {
        vks_crowd_forget_palettes(c);
        crowd_job job = crowd_job_of(c, visible, count, palette, false);
        job.at_levels = at_levels;
        crowd_run(&job, pool, count);
        uint64_t entries = 0;
        for (uint32_t k = 0; palette_bytes && k < count; k++)
            if (visible[k] < c->instance_count)
                entries += vks_crowd_written_entries(c, c->instances[visible[k]].model);
        if (palette_bytes)
            *palette_bytes = entries * sizeof(vks_bone);
        return count;
    }
    assert(c->poses && c->schedule); /* vks_crowd_desc.keep_poses */
    const uint32_t posed = vks_crowd_schedule(c, visible, periods, count, frame, c->schedule);
    crowd_job job = crowd_job_of(c, visible, count, palette, true);
    job.at_levels = at_levels;
    job.keeps = true;
    /* A stamp is a frame number: frames counted again from an earlier one could match a stamp of
     * another pose. */
    if (reuse && c->destination_clock && frame <= c->destination_frame)
        vks_crowd_forget_palettes(c);
    if (reuse) {
        job.held = crowd_destination(c, palette);
        c->destination_frame = frame;
    } else {
        vks_crowd_forget_palettes(c);
    }
    crowd_run(&job, pool, count);
    if (palette_bytes)
        *palette_bytes = job.written * sizeof(vks_bone); /* (the pool's run has returned) */
    return posed;
}

uint32_t vks_crowd_animate(vks_crowd *c, vks_pool *pool, const uint32_t *visible,
                           const uint8_t *periods, uint32_t count, uint64_t frame,
                           vks_bone *palette, bool reuse, uint64_t *palette_bytes)
{
    return crowd_animate(c, pool, visible, periods, count, frame, palette, reuse, palette_bytes,
                         false);
}

uint32_t vks_crowd_animate_at_levels(vks_crowd *c, vks_pool *pool, const uint32_t *visible,
                                     const uint8_t *periods, uint32_t count, uint64_t frame,
                                     vks_bone *palette, bool reuse, uint64_t *palette_bytes)
{
    return crowd_animate(c, pool, visible, periods, count, frame, palette, reuse, palette_bytes,
                         true);
}

static void crowd_run(crowd_job *job, vks_pool *pool, uint32_t count)
{
    vks_crowd *c = job->crowd;
    const uint32_t max_joints = crowd_max_joints(c);
    /* Scratch exists for c->threads threads only: a larger pool would share it, so the caller
     * does the work alone (correct, slower). */
    if (pool && vks_pool_threads(pool) > c->threads)
        pool = NULL;
    uint32_t grain = max_joints ? CROWD_GRAIN_JOINTS / max_joints : CROWD_GRAIN_MAX;
    grain = grain < 1 ? 1 : grain > CROWD_GRAIN_MAX ? CROWD_GRAIN_MAX : grain;
    if (!pool) {
        crowd_palettes_chunk(job, 0, count, 0);
        return;
    }
    vks_pool_run(pool, count, grain, crowd_palettes_chunk, job);
}
