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
    /* A pose as 3x4 matrices that is not computed where it goes (crowd_pose). */
    l.pose = (l.sampler + vks_sampler_scratch_bytes(max_joints) + 63) & ~(size_t)63;
    /* Morph-target weights: an instance's, and the clip's fading out. */
    l.weights = (l.pose + sizeof(vks_bone) * max_joints + 63) & ~(size_t)63;
    l.stride = (l.weights + 2 * sizeof(float) * crowd_max_targets(c) + 63) & ~(size_t)63;
    return l;
}

/* A thread's block of the scratch, as pointers. */
typedef struct crowd_scratch {
    vks_xform *local, *local_from; /* the direct path's local poses */
    vks_affine *model;             /* ... and model transforms */
    void *sampler;                 /* the sampler's */
    vks_bone *pose;                /* a 3x4 pose not computed where it goes */
    float *weights;                /* morph-target weights (vks_crowd_weights) */
} crowd_scratch;

static crowd_scratch crowd_scratch_at(const vks_crowd *c, const vks_crowd__scratch *l,
                                      uint32_t thread)
{
    char *block = (char *)c->scratch + l->stride * thread;
    return (crowd_scratch){.local = (vks_xform *)block,
                           .local_from = (vks_xform *)(block + l->local_from),
                           .model = (vks_affine *)(block + l->model),
                           .sampler = block + l->sampler,
                           .pose = (vks_bone *)(block + l->pose),
                           .weights = (float *)(block + l->weights)};
}

typedef struct crowd_job {
    vks_crowd *crowd;
    const uint32_t *visible;
    vks_bone *palette;
    /* vks_crowd_palettes_at: per listed instance, its first entry in `palette` (NULL: its
     * palette_first) */
    const uint32_t *first;
    const uint8_t
        *carrier; /* vks_crowd_palettes_at: per listed entry, a far splat's carrier alone */
    vks_crowd__scratch layout;
    bool anim_lod; /* vks_crowd_animate with periods: c->schedule says which to pose */
    /* Each instance posed for its level of detail (instance.level): the joints the level keeps
     * (skeleton level of detail); else every joint. */
    bool at_levels;
    /* The pose written is the one kept for the schedule (the kept poses, or a palette store's
     * staging): its level is what the schedule knows (instance.posed_level). A pose into a
     * caller's buffer is not (vkskin_crowd_pose). */
    bool keeps;
    bool stream; /* the sampler's non-temporal stores (crowd_job_of) */
    /* vks_crowd_animate with reuse: per instance, the pose `palette` holds (see vks_crowd). */
    uint64_t *held;
    uint64_t written; /* palette entries written into `palette` (added to atomically) */
} crowd_job;

/* A clip argument (crowd_impl.h: its copy in place with root motion) at `time`, looping. */
static void crowd_sample(const vks_model *m, int32_t clip, double time, uint32_t *cursor,
                         vks_xform *local)
{
    if (clip < 0) {
        vks_pose_rest(&m->skeleton, local);
        return;
    }
    const vks_clip *k = vks_model_clip(m, clip);
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
    crowd_sample(m, vks_crowd__clip(in, in->clip), in->time, cursor, local);
    if (in->fade_left > 0.0) {
        crowd_sample(m, vks_crowd__clip(in, in->from_clip), in->from_time, cursor + 3 * joints,
                     local_from);
        float w = (float)(1.0 - in->fade_left / in->fade); /* 0 -> 1 towards the new */
        vks_pose_blend(local_from, local, w, joints, local);
    }
}

/* The morph-target weights of `clip` (-1: the bind pose, the targets' default weights) at its
 * clock `time`, looping. */
static void crowd_clip_weights(const vks_model *m, int32_t clip, double time, float *w)
{
    const vks_clip *k = vks_model_clip(m, clip); /* (a copy in place has the same weights) */
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

/* ---- A palette, in pieces ----
 *
 * crowd_palettes_chunk writes each listed instance's palette in pieces, each a small function
 * over the instance and the memory it is given:
 *   crowd_plan_of      what the instance needs this time, decided once: nothing, its kept pose
 *                      copied, or a pose by one of three paths, through its model's writer;
 *   crowd_pose         the pose by that path, stored by the writer (crowd_form);
 *   crowd_write_morph  its morph targets' active list, after the pose;
 *   then, with the animation level of detail, the kept pose just written copied to the buffer.
 * A palette feature is one more piece in that sequence, or one more writer, not a branch in each
 * path. */

/* How a listed instance's palette is made this time. */
typedef enum crowd_step {
    CROWD_HELD,    /* its kept pose, which the buffer holds already: nothing to write */
    CROWD_KEPT,    /* its kept pose, copied from the kept poses */
    CROWD_ORDERED, /* its clip's sampler over the joints its level keeps, in pose order (a model
                      with a skeleton level of detail), then placed */
    CROWD_SAMPLED, /* its clip's sampler over every joint */
    CROWD_DIRECT,  /* anim.h's direct path: a cross-fade, or a clip without a sampler */
} crowd_step;

/* A model's writer (vks_crowd.dq): how a pose, computed as 3x4 matrices, is stored in a palette
 * range. Linear blending stores the matrices, computed where they go; dual quaternions store
 * each joint's vks_dq, converted from matrices in the scratch. Either writes each entry once (the
 * range may be write-combined memory). */
typedef enum crowd_form { CROWD_LINEAR, CROWD_DQ } crowd_form;

/* What a listed instance needs, and what the pieces read of it. */
typedef struct crowd_plan {
    crowd_step step;
    crowd_form form;
    vks_crowd_instance *in;
    const vks_model *model;
    const vks_sampler *sampler; /* its clip's (HELD and KEPT: NULL) */
} crowd_plan;

/* The plan of listed entry v, instance i. */
static crowd_plan crowd_plan_of(const crowd_job *job, uint32_t v, uint32_t i)
{
    vks_crowd *c = job->crowd;
    vks_crowd_instance *in = &c->instances[i];
    crowd_plan p = {.in = in,
                    .model = c->models[in->model],
                    .form = c->dq[in->model] ? CROWD_DQ : CROWD_LINEAR};
    if (job->anim_lod && !c->schedule[v]) {
        p.step = job->held && job->held[i] == in->posed_frame ? CROWD_HELD : CROWD_KEPT;
        return p;
    }
    p.sampler = vks_crowd__sampler(c, in->model, vks_crowd__clip(in, in->clip));
    p.step = !(in->fade_left <= 0.0) || !p.sampler->segments ? CROWD_DIRECT
             : p.model->pose_order                           ? CROWD_ORDERED
                                                             : CROWD_SAMPLED;
    return p;
}

/* Where a pose in joint order for `placed` is computed: there, or in the scratch's `pose`. */
static inline vks_bone *crowd_form_target(crowd_form form, vks_bone *placed, vks_bone *pose)
{
    return form == CROWD_LINEAR ? placed : pose;
}

/* The `joints` joints of a pose computed at crowd_form_target, stored in `placed`. */
static inline void crowd_form_write(crowd_form form, const vks_bone *pose, uint32_t joints,
                                    vks_bone *placed)
{
    if (form == CROWD_DQ)
        vks_dq_write(pose, joints, placed);
}

/* The first n joints of a pose in pose order (its joint p is joint order[p]), each stored at its
 * joint's place in `placed`. */
static inline void crowd_form_place(crowd_form form, const vks_bone *pose, const uint32_t *order,
                                    uint32_t n, vks_bone *placed)
{
    if (form == CROWD_DQ) {
        for (uint32_t p = 0; p < n; p++) {
            vks_dq d;
            vks_dq_from_bone_fast(&pose[p], &d);
            memcpy((char *)placed + sizeof d * order[p], &d, sizeof d);
        }
    } else {
        for (uint32_t p = 0; p < n; p++)
            placed[order[p]] = pose[p];
    }
}

/* Instance i posed by its plan's path (not HELD or KEPT) into `placed` through its writer.
 * Returns the level whose joints the pose holds (0: every joint). */
static uint8_t crowd_pose(const crowd_job *job, const crowd_scratch *s, const crowd_plan *p,
                          uint32_t i, vks_bone *placed)
{
    vks_crowd *c = job->crowd;
    const vks_crowd_instance *in = p->in;
    const vks_model *m = p->model;
    const uint32_t joints = m->skeleton.joint_count;
    if (p->step == CROWD_DIRECT) {
        vks_bone *pose = crowd_form_target(p->form, placed, s->pose);
        crowd_local_direct(c, i, s->local, s->local_from);
        vks_pose_palette(&m->skeleton, s->local, s->model, pose);
        crowd_form_write(p->form, pose, joints, placed);
        return 0;
    }
    const double t =
        in->clip < 0 ? 0.0 : vks_clip_time(&m->clips[in->clip], in->time, VKS_WRAP_LOOP);
    if (p->step == CROWD_ORDERED) { /* the joints its level keeps: a prefix of the pose order */
        const uint8_t level = job->at_levels ? in->level : 0;
        const uint32_t n = vks_model_level_joints(m, level);
        vks_sampler_pose_joints(p->sampler, &c->pose_skeletons[in->model], t,
                                &c->sampler_cursors[i], s->sampler, s->pose, false, n);
        crowd_form_place(p->form, s->pose, m->pose_order, n, placed);
        return level;
    }
    vks_bone *pose = crowd_form_target(p->form, placed, s->pose);
    vks_sampler_pose(p->sampler, &m->skeleton, t, &c->sampler_cursors[i], s->sampler, pose,
                     job->stream && pose == placed && placed != s->model); /* (not the scratch) */
    crowd_form_write(p->form, pose, joints, placed);
    return 0;
}

/* Instance i's active morph targets (skin/morph.h), after its pose in `placed`. */
static void crowd_write_morph(const vks_crowd *c, const crowd_plan *p, uint32_t i, float *weights,
                              vks_bone *placed)
{
    const vks_model *m = p->model;
    vks_crowd_weights(c, i, weights, weights + m->target_count);
    vks_morph_write(m, weights, placed + vks_crowd_pose_entries(m, p->form == CROWD_DQ));
}

/* A far splat's palette (vks_crowd_palettes_at's carrier): instance i posed as 3x4 matrices in
 * the scratch, where the path leaves room (the model transforms', or the 3x4 pose's for the
 * direct path, which uses the former), and its carrier's entry alone written to `out`, through its
 * writer. Returns the level whose joints the pose holds. */
static uint8_t crowd_pose_carrier(const crowd_job *job, const crowd_scratch *s, const crowd_plan *p,
                                  uint32_t i, vks_bone *out)
{
    crowd_plan linear = *p;
    linear.form = CROWD_LINEAR;
    vks_bone *placed = p->step == CROWD_DIRECT ? s->pose : s->model;
    const uint8_t level = crowd_pose(job, s, &linear, i, placed);
    const vks_bone *carrier = &placed[p->model->splat.joint];
    if (p->form == CROWD_DQ) {
        vks_dq d;
        vks_dq_from_bone_fast(carrier, &d);
        memcpy(out, &d, sizeof d);
    } else {
        *out = *carrier;
    }
    return level;
}

static void crowd_palettes_chunk(void *ctx, uint32_t begin, uint32_t end, uint32_t thread)
{
    const crowd_job *job = ctx;
    vks_crowd *c = job->crowd;
    /* Each thread its own scratch: chunks of one thread run one after the other. */
    const crowd_scratch s = crowd_scratch_at(c, &job->layout, thread);
    /* A carrier's block holds one entry: never a kept pose's whole copy (palettes_at, which
     * passes carriers, has no animation level of detail). */
    assert(!job->carrier || (!job->anim_lod && job->first));
    uint64_t written = 0;
    for (uint32_t v = begin; v < end; v++) {
        const uint32_t i = job->visible[v];
        if (i >= c->instance_count) /* not an instance: nothing to write */
            continue;
        const crowd_plan p = crowd_plan_of(job, v, i);
        if (p.step == CROWD_HELD)
            continue;
        if (job->carrier && job->carrier[v]) {
            vks_bone *out = job->palette + job->first[v];
            const uint8_t level = crowd_pose_carrier(job, &s, &p, i, out);
            if (job->keeps)
                p.in->posed_level = level;
            written++;
            continue;
        }
        const uint32_t entries = vks_crowd_model_written(p.model, p.form == CROWD_DQ);
        vks_bone *out = job->palette + (job->first ? job->first[v] : c->palette_first[i]);
        written += entries;
        if (job->held)
            job->held[i] = p.in->posed_frame;
        if (p.step == CROWD_KEPT) { /* its last pose, kept in cached memory */
            memcpy(out, c->poses + c->palette_first[i], sizeof *out * entries);
            continue;
        }
        /* With the animation level of detail, posed into the kept poses (cached memory) and
         * copied out after; else straight into the buffer. */
        vks_bone *const placed = job->anim_lod ? c->poses + c->palette_first[i] : out;
        const uint8_t level = crowd_pose(job, &s, &p, i, placed);
        if (job->keeps)
            p.in->posed_level = level;
        if (p.model->target_count)
            crowd_write_morph(c, &p, i, s.weights, placed);
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
    /* thread 0's: calls on a crowd do not overlap */
    const crowd_scratch s = crowd_scratch_at(c, &layout, 0);
    const vks_skeleton *sk = &c->models[c->instances[i].model]->skeleton;
    crowd_local_direct(c, i, s.local, s.local_from);
    vks_pose_model(sk, s.local, s.model);
    /* A joint's origin is its model transform's translation (palette space), carried to the
     * world by the instance's placement. */
    for (uint32_t j = 0; j < sk->joint_count; j++) {
        const float p[3] = {s.model[j].row[0][3], s.model[j].row[1][3], s.model[j].row[2][3]};
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
                           const uint32_t *first, uint32_t count, vks_bone *dest, bool at_levels,
                           const uint8_t *carrier)
{
    /* Another buffer than those the crowd remembers: what they hold stays as it was. */
    crowd_job job = crowd_job_of(c, list, count, dest, false);
    job.first = first;
    job.carrier = carrier;
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
