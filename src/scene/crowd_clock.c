/* The crowd's clocks (crowd.h): advanced on the pool's threads, and the clips played and
 * cross-faded into. */
#include "crowd.h"

#include "../anim/anim.h"

#include <math.h>
#include <string.h>

static double crowd_wrap(double t, const vks_model *m, int32_t clip)
{
    /* Keep times within a period, where a double's precision does not run out over long runs. */
    if (clip >= 0 && m->clips[clip].duration > 0.0) {
        const double d = m->clips[clip].duration;
        return t >= 0.0 && t < d ? t : fmod(t, d); /* the same value: fmod is exact */
    }
    return t;
}

typedef struct crowd_advance_job {
    vks_crowd *crowd;
    double dt;
} crowd_advance_job;

static void crowd_advance_chunk(void *ctx, uint32_t begin, uint32_t end, uint32_t thread)
{
    (void)thread;
    const crowd_advance_job *job = ctx;
    vks_crowd *c = job->crowd;
    const double dt = job->dt;
    for (uint32_t i = begin; i < end; i++) {
        vks_crowd_instance *in = &c->instances[i];
        const vks_model *m = c->models[in->model];
        double step = dt * in->speed;
        in->time = crowd_wrap(in->time + step, m, in->clip);
        if (in->fade_left > 0.0) {
            in->from_time = crowd_wrap(in->from_time + step, m, in->from_clip);
            in->fade_left = fmax(in->fade_left - dt, 0.0);
        }
    }
}

void vks_crowd_advance(vks_crowd *c, vks_pool *pool, double dt)
{
    crowd_advance_job job = {c, dt};
    vks_pool_run(pool, c->instance_count, VKS_CROWD_GRAIN, crowd_advance_chunk, &job);
}

/* Instance i cross-fades from its current pose into `clip` (-1: the bind pose) over `fade`. */
static void crowd_fade_to(vks_crowd *c, uint32_t i, int32_t clip, double fade)
{
    vks_crowd_instance *in = &c->instances[i];
    if (clip == in->clip)
        return;
    const vks_model *m = c->models[in->model];
    /* The current clip's key hints become the fading clip's; the new clip starts afresh. */
    uint32_t size = vks_cursor_size(&m->skeleton);
    uint32_t *cursor = c->cursors + 6 * (size_t)c->palette_first[i];
    memcpy(cursor + size, cursor, sizeof *cursor * size);
    memset(cursor, 0, sizeof *cursor * size);
    c->sampler_cursors[i] = 0; /* (a cross-fade poses by the direct path: no sampler fades out) */
    in->from_clip = in->clip;
    in->from_time = in->time;
    in->clip = clip;
    in->time = 0.0;
    in->fade = in->fade_left = fade;
    in->posed_frame = UINT64_MAX; /* the animation level of detail poses it next frame */
}

static double crowd_fade_seconds(double fade)
{
    return fade > 0.0 && fade < INFINITY ? fade : 0.0; /* 0, negative or NaN: switch at once */
}

void vks_crowd_play(vks_crowd *c, uint32_t i, int32_t clip, double fade)
{
    vks_crowd_instance *in = &c->instances[i];
    if (clip >= 0)
        in->held_clip = clip;
    if (clip == in->clip) /* the clip it plays: from its start, at once */
        in->time = 0.0;
    else
        crowd_fade_to(c, i, clip, crowd_fade_seconds(fade));
}

void vks_crowd_switch_clip(vks_crowd *c, int32_t delta, double fade)
{
    fade = crowd_fade_seconds(fade);
    for (uint32_t i = 0; i < c->instance_count; i++) {
        vks_crowd_instance *in = &c->instances[i];
        int64_t n = c->models[in->model]->clip_count;
        if (n == 0 || in->removed) /* (a removed index's cursors may be another's after a pack) */
            continue;
        int64_t next = ((int64_t)in->clip + delta) % n; /* as the viewer's left / right keys */
        crowd_fade_to(c, i, (int32_t)(next < 0 ? next + n : next), fade);
    }
}

void vks_crowd_bind_pose(vks_crowd *c, bool on, double fade)
{
    fade = crowd_fade_seconds(fade);
    for (uint32_t i = 0; i < c->instance_count; i++) {
        vks_crowd_instance *in = &c->instances[i];
        if (in->removed)
            continue;
        if (on && in->clip >= 0)
            in->held_clip = in->clip;
        crowd_fade_to(c, i, on ? -1 : in->held_clip, fade);
    }
}
