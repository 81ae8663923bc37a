/* Instances the crowd moves (crowd.h): at their velocities, their locomotion clips chosen,
 * blended and time-warped by their speed, and placed on the ground. */
#include "crowd_impl.h"

#include "../core/alloc.h"

#include <cglm/mat4.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static const vks_model *sort_model; /* (qsort's comparison reads it; creation is one thread) */

static int by_ground_speed(const void *a, const void *b)
{
    const float x = sort_model->clips[*(const int32_t *)a].ground_speed;
    const float y = sort_model->clips[*(const int32_t *)b].ground_speed;
    return (x > y) - (x < y);
}

bool vks_crowd__gaits(vks_crowd *c)
{
    for (uint32_t m = 0; m < c->model_count; m++) {
        const vks_model *model = c->models[m];
        c->forward[m][0] = 0.0f, c->forward[m][1] = 1.0f; /* glTF's forward, +Z */
        c->gait_count[m] = 0;
        for (uint32_t k = 0; k < model->clip_count; k++)
            c->gait_count[m] += model->clips[k].ground_speed > 0.0f;
        if (!c->gait_count[m])
            continue;
        if (!(c->gaits[m] = vks_malloc(sizeof *c->gaits[m] * c->gait_count[m])))
            return false;
        uint32_t n = 0;
        for (uint32_t k = 0; k < model->clip_count; k++)
            if (model->clips[k].ground_speed > 0.0f)
                c->gaits[m][n++] = (int32_t)k;
        sort_model = model;
        qsort(c->gaits[m], n, sizeof *c->gaits[m], by_ground_speed);
        memcpy(c->forward[m], model->clips[c->gaits[m][0]].ground_dir, sizeof c->forward[m]);
    }
    return true;
}

/* The two locomotion clips of model m around speed v (model units a second), slowest first,
 * and the weight of the second that moves the blend at v: the strides (ground speed times
 * duration) and the durations blended alike, D(w) / T(w) = v. Below the slowest or past the
 * fastest: that clip alone (time-warped). */
static void gait_pair(const vks_crowd *c, uint32_t m, double v, int32_t *a, int32_t *b, double *w)
{
    const vks_model *model = c->models[m];
    const int32_t *g = c->gaits[m];
    const uint32_t n = c->gait_count[m];
    uint32_t k = 0;
    while (k + 1 < n && model->clips[g[k + 1]].ground_speed <= v)
        k++;
    *a = *b = g[k];
    *w = 0.0;
    if (k + 1 >= n || v <= model->clips[g[k]].ground_speed)
        return;
    const vks_clip *ca = &model->clips[g[k]], *cb = &model->clips[g[k + 1]];
    const double ta = ca->duration, tb = cb->duration;
    const double da = ca->ground_speed * ta, db = cb->ground_speed * tb;
    const double denominator = (db - da) - v * (tb - ta);
    *b = g[k + 1];
    *w = denominator != 0.0 ? (v * ta - da) / denominator : 0.0;
    *w = *w < 0.0 ? 0.0 : *w > 1.0 ? 1.0 : *w;
}

/* The placement of an instance (world = placement * placed): its world times the model's placed
 * inverse. */
static void placement_of(const vks_crowd *c, const vks_crowd_instance *in, mat4 out)
{
    mat4 world, inverse;
    memcpy(world, in->world, sizeof world);
    memcpy(inverse, c->model_placed_inverse[in->model], sizeof inverse);
    glm_mat4_mul(world, inverse, out);
}

/* World = T(position) Ry(heading) S(scale) * the model's placed. */
static void world_of(const vks_crowd *c, uint32_t m, const float position[3], float heading,
                     float scale, float out[4][4])
{
    const float co = cosf(heading) * scale, si = sinf(heading) * scale;
    mat4 place = {{co, 0, -si, 0},
                  {0, scale, 0, 0},
                  {si, 0, co, 0},
                  {position[0], position[1], position[2], 1}},
         placed, world;
    memcpy(placed, c->model_placed[m], sizeof placed);
    glm_mat4_mul(place, placed, world);
    memcpy(out, world, sizeof world);
}

void vks_crowd__drive(vks_crowd *c, uint32_t i, double dt)
{
    vks_crowd_instance *in = &c->instances[i];
    const uint32_t m = in->model;
    const vks_model *model = c->models[m];
    mat4 place;
    placement_of(c, in, place);
    /* World units per model unit: the placement's scale times the normalisation's (the model's
     * frame, where ground speeds are measured, is the root transform's). */
    mat4 world, root_inverse, frame;
    memcpy(world, in->world, sizeof world);
    memcpy(root_inverse, c->model_root_inverse[m], sizeof root_inverse);
    glm_mat4_mul(world, root_inverse, frame);
    const double unit = sqrt((double)frame[0][0] * frame[0][0] + (double)frame[0][1] * frame[0][1] +
                             (double)frame[0][2] * frame[0][2]);
    const double vx = in->velocity[0], vz = in->velocity[1], speed = sqrt(vx * vx + vz * vz);
    const double v = unit > 0.0 ? speed / unit : 0.0;
    if (c->gait_count[m]) {
        int32_t a, b;
        double w;
        gait_pair(c, m, v, &a, &b, &w);
        const vks_clip *ca = &model->clips[a], *cb = &model->clips[b];
        /* The phase both share, from the clip it played (a normalised time). */
        const double played = in->clip >= 0 ? model->clips[in->clip].duration : 0.0;
        double phase = played > 0.0 ? in->time / played : 0.0;
        const double stride =
            ca->ground_speed * ca->duration +
            (cb->ground_speed * cb->duration - ca->ground_speed * ca->duration) * w;
        phase += stride > 0.0 ? v * dt / stride : 0.0;
        phase -= floor(phase);
        if (b != in->clip || (a != b) != (in->blend != 0) || (a != b && a != in->from_clip))
            c->sampler_cursors[i] = 0; /* (another clip's hint) */
        in->clip = b;
        in->time = phase * cb->duration;
        in->blend = a != b;
        in->from_clip = a != b ? a : -1;
        in->from_time = phase * ca->duration;
        in->fade = 1.0;
        in->fade_left = a != b ? 1.0 - w : 0.0; /* the pose's weight of `clip` is w */
    }
    /* On along the velocity, facing it: the model's forward turned onto it. */
    float position[3] = {place[3][0] + (float)(vx * dt), place[3][1],
                         place[3][2] + (float)(vz * dt)};
    const float scale =
        sqrtf(place[0][0] * place[0][0] + place[0][1] * place[0][1] + place[0][2] * place[0][2]);
    float heading = atan2f(place[2][0], place[2][2]); /* (+Z's image: the current heading) */
    if (speed > 0.0)
        heading =
            (float)(atan2(vx, vz) - atan2((double)c->forward[m][0], (double)c->forward[m][1]));
    float placed[4][4];
    world_of(c, m, position, heading, scale, placed);
    vks_crowd__place(c, i, (const float(*)[4])placed);
    in->placed = 1;
}

vks_place_record vks_crowd_place_record(const vks_crowd *c, uint32_t i)
{
    const vks_crowd_instance *in = &c->instances[i];
    mat4 place;
    placement_of(c, in, place);
    const float scale =
        sqrtf(place[1][0] * place[1][0] + place[1][1] * place[1][1] + place[1][2] * place[1][2]);
    /* T Ry S: +X's image is scale (cos, 0, -sin). */
    return (vks_place_record){.instance = i,
                              .model = in->model,
                              .position = {place[3][0], place[3][1], place[3][2]},
                              .turn_cos = place[0][0],
                              .turn_sin = -place[0][2],
                              .scale = scale};
}

/* The k-th listed instance. */
static uint32_t listed(const uint32_t *list, uint32_t first, uint32_t k)
{
    return list ? list[k] : first + k;
}

bool vks_crowd_set_velocities(vks_crowd *c, const uint32_t *list, uint32_t first, uint32_t count,
                              const float (*velocity)[2])
{
    if (!vks_crowd__moved_list(c))
        return false;
    for (uint32_t k = 0; k < count; k++) {
        const uint32_t i = listed(list, first, k);
        vks_crowd_instance *in = &c->instances[i];
        const bool moving = velocity[k][0] != 0.0f || velocity[k][1] != 0.0f;
        memcpy(in->velocity, velocity[k], sizeof in->velocity);
        if (moving && !in->driven) {
            if (!in->root_motion) /* its pose goes in place: keep it where it is seen */
                vks_crowd__take_travel(c, i);
            in->driven = 1;
            in->posed_frame = UINT64_MAX; /* its pose changes: posed next frame */
        } else if (!moving && in->driven) {
            /* Stops: its own clip again, from its start, as vks_crowd_play would. */
            in->driven = in->blend = 0;
            in->fade_left = 0.0;
            in->from_clip = -1;
            in->clip = in->held_clip;
            in->time = 0.0;
            c->sampler_cursors[i] = 0;
            in->posed_frame = UINT64_MAX;
        }
    }
    return true;
}

bool vks_crowd_set_placements(vks_crowd *c, const uint32_t *list, uint32_t first, uint32_t count,
                              const float (*positions)[3], const float *headings,
                              const float *scales)
{
    if (!vks_crowd__moved_list(c))
        return false;
    for (uint32_t k = 0; k < count; k++) {
        const uint32_t i = listed(list, first, k);
        float world[4][4];
        world_of(c, c->instances[i].model, positions[k], headings ? headings[k] : 0.0f,
                 scales ? scales[k] : 1.0f, world);
        vks_crowd__place(c, i, (const float(*)[4])world);
        c->instances[i].placed = 1;
        vks_crowd__mark_moved(c, i);
    }
    return true;
}
