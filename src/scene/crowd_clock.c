/* The crowd's clocks (crowd.h): advanced on the pool's threads, and the clips played and
 * cross-faded into. */
#include "crowd_impl.h"

#include "../anim/anim.h"
#include "../anim/travel.h"

#include <cglm/mat4.h>
#include <float.h>

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

static vks_travel crowd_travel_of(const vks_model *m, int32_t clip, double time, double step)
{
    return vks_model_travels(m, clip) ? vks_travel_between(m, (uint32_t)clip, time, step)
                                      : (vks_travel){0.0f, 0.0f, 0.0f};
}

/* What instance `in` travels over a step of its clocks (before they move), playing with root
 * motion: its clip's travel, during a cross-fade blended with the fading clip's by the weight
 * the pose has after the step. False when neither clip travels. */
static bool crowd_travel(const vks_model *m, const vks_crowd_instance *in, double dt, double step,
                         vks_travel *out)
{
    const bool fading = in->fade_left > 0.0;
    if (!vks_model_travels(m, in->clip) && !(fading && vks_model_travels(m, in->from_clip)))
        return false;
    const vks_travel to = crowd_travel_of(m, in->clip, in->time, step);
    if (!fading) {
        *out = to;
        return true;
    }
    const vks_travel from = crowd_travel_of(m, in->from_clip, in->from_time, step);
    const float u = (float)(1.0 - fmax(in->fade_left - dt, 0.0) / in->fade);
    *out = (vks_travel){from.yaw + (to.yaw - from.yaw) * u, from.x + (to.x - from.x) * u,
                        from.z + (to.z - from.z) * u};
    return true;
}

/* Instance i's world carried by a travel of its model's frame: world * R^-1 * T * R, R the
 * model's root transform; its sphere follows. */
static void crowd_carry(vks_crowd *c, uint32_t i, vks_travel t)
{
    vks_crowd_instance *in = &c->instances[i];
    const float co = cosf(t.yaw), si = sinf(t.yaw);
    mat4 travel = {{co, 0, -si, 0}, {0, 1, 0, 0}, {si, 0, co, 0}, {t.x, 0, t.z, 1}}, a, b, world;
    mat4 root, root_inverse, placed; /* cglm's aligned matrices */
    memcpy(root, c->model_root[in->model], sizeof root);
    memcpy(root_inverse, c->model_root_inverse[in->model], sizeof root_inverse);
    memcpy(placed, in->world, sizeof placed);
    glm_mat4_mul(travel, root, a);
    glm_mat4_mul(root_inverse, a, b);
    glm_mat4_mul(placed, b, world);
    vks_crowd__place(c, i, (const float(*)[4])world);
}

static void crowd_advance_chunk(void *ctx, uint32_t begin, uint32_t end, uint32_t thread)
{
    (void)thread;
    const crowd_advance_job *job = ctx;
    vks_crowd *c = job->crowd;
    const double dt = job->dt;
    /* The chunk's instances that travelled, at the chunk's place in the culling's scratch. */
    uint32_t moved = 0, *list = c->cull_scratch + begin;
    for (uint32_t i = begin; i < end; i++) {
        vks_crowd_instance *in = &c->instances[i];
        const vks_model *m = c->models[in->model];
        if (in->driven && !in->removed) { /* moved at its velocity (crowd_motion.c) */
            vks_crowd__drive(c, i, dt);
            list[moved++] = i;
            continue;
        }
        double step = dt * in->speed;
        vks_travel travel;
        const bool travels =
            in->root_motion && !in->removed && crowd_travel(m, in, dt, step, &travel);
        in->time = crowd_wrap(in->time + step, m, in->clip);
        if (in->fade_left > 0.0) {
            in->from_time = crowd_wrap(in->from_time + step, m, in->from_clip);
            in->fade_left = fmax(in->fade_left - dt, 0.0);
        }
        if (travels) {
            crowd_carry(c, i, travel);
            list[moved++] = i;
        }
    }
    c->cull_counts[begin / VKS_CROWD_GRAIN] = moved;
}

void vks_crowd_advance(vks_crowd *c, vks_pool *pool, double dt)
{
    crowd_advance_job job = {c, dt};
    vks_pool_run(pool, c->instance_count, VKS_CROWD_GRAIN, crowd_advance_chunk, &job);
    /* The travellers listed as moved, chunk by chunk, the crowd's box grown around them (the
     * moved list exists: root motion and velocities are set through calls that make it). */
    const uint32_t chunks = (c->instance_count + VKS_CROWD_GRAIN - 1) / VKS_CROWD_GRAIN;
    for (uint32_t k = 0; k < chunks; k++) {
        const uint32_t n = c->cull_counts[k];
        if (!n)
            continue;
        for (uint32_t j = 0; j < n; j++)
            vks_crowd__mark_moved(c, c->cull_scratch[(size_t)k * VKS_CROWD_GRAIN + j]);
    }
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

/* The travel instance `in` has made since its clip's start, as crowd_travel blends it. */
static vks_travel crowd_travel_so_far(const vks_model *m, const vks_crowd_instance *in)
{
    const vks_travel zero = {0.0f, 0.0f, 0.0f};
    const vks_travel to =
        vks_model_travels(m, in->clip) ? vks_travel_at(m, (uint32_t)in->clip, in->time) : zero;
    if (!(in->fade_left > 0.0))
        return to;
    const vks_travel from = vks_model_travels(m, in->from_clip)
                                ? vks_travel_at(m, (uint32_t)in->from_clip, in->from_time)
                                : zero;
    const float u = (float)(1.0 - in->fade_left / in->fade);
    return (vks_travel){from.yaw + (to.yaw - from.yaw) * u, from.x + (to.x - from.x) * u,
                        from.z + (to.z - from.z) * u};
}

void vks_crowd__take_travel(vks_crowd *c, uint32_t i)
{
    vks_crowd_instance *in = &c->instances[i];
    crowd_carry(c, i, crowd_travel_so_far(c->models[in->model], in));
}

bool vks_crowd_set_root_motion(vks_crowd *c, uint32_t i, bool on)
{
    vks_crowd_instance *in = &c->instances[i];
    if ((in->root_motion != 0) == on)
        return true;
    if (in->driven) { /* posed in place and moved by its velocity either way: nothing moves */
        in->root_motion = on;
        return true;
    }
    if (!vks_crowd__moved_list(c))
        return false;
    const vks_travel so_far = crowd_travel_so_far(c->models[in->model], in);
    in->root_motion = on;
    crowd_carry(c, i, on ? so_far : vks_travel_inverse(so_far));
    c->sampler_cursors[i] = 0;    /* (another sampler's) */
    in->posed_frame = UINT64_MAX; /* the animation level of detail poses it next frame */
    vks_crowd__mark_moved(c, i);
    return true;
}
