#include "clips.h"

#include <stdio.h>
#include <stdlib.h>

#define NOT_SEEN INT32_MIN

/* Room for every index of the crowd, the new ones not seen yet. */
static bool clips_fit(app_clips *c, uint32_t count, vkskin_error *err)
{
    if (count <= c->room)
        return true;
    int32_t *held = realloc(c->held, sizeof *held * count);
    if (!held) {
        if (err) {
            err->result = VKSKIN_ERROR_OUT_OF_MEMORY;
            snprintf(err->message, sizeof err->message, "out of memory for %u instances' clips",
                     count);
        }
        return false;
    }
    for (uint32_t i = c->room; i < count; i++)
        held[i] = NOT_SEEN;
    c->held = held;
    c->room = count;
    return true;
}

/* Instance i's state (false: removed), its held clip learnt when first seen. */
static bool clips_instance(app_clips *c, const vkskin_crowd *crowd, uint32_t i,
                           vkskin_instance_info *info)
{
    if (vkskin_crowd_get_instance(crowd, i, info, NULL) != VKSKIN_OK)
        return false;
    if (c->held[i] == NOT_SEEN)
        c->held[i] = info->clip >= 0 ? info->clip : VKSKIN_CLIP_NONE;
    return true;
}

/* Instance i into `clip` (held when it is one), unless it plays it already. */
static bool clips_play(app_clips *c, vkskin_crowd *crowd, uint32_t i,
                       const vkskin_instance_info *info, int32_t clip, double fade,
                       vkskin_error *err)
{
    if (clip >= 0)
        c->held[i] = clip;
    return clip == info->clip || vkskin_crowd_play(crowd, i, clip, fade, err) == VKSKIN_OK;
}

bool app_clips_step(app_clips *c, vkskin_crowd *crowd, vkskin_model *const *models, int32_t delta,
                    double fade, vkskin_error *err)
{
    const uint32_t count = vkskin_crowd_instance_count(crowd);
    if (!clips_fit(c, count, err))
        return false;
    for (uint32_t i = 0; i < count; i++) {
        vkskin_instance_info info;
        vkskin_model_info model;
        if (!clips_instance(c, crowd, i, &info) ||
            vkskin_model_get_info(models[info.model], &model, err) != VKSKIN_OK)
            continue;
        const int64_t n = model.clip_count;
        if (n == 0)
            continue;
        const int64_t next = ((int64_t)info.clip + delta) % n;
        if (!clips_play(c, crowd, i, &info, (int32_t)(next < 0 ? next + n : next), fade, err))
            return false;
    }
    return true;
}

bool app_clips_bind_pose(app_clips *c, vkskin_crowd *crowd, bool on, double fade, vkskin_error *err)
{
    const uint32_t count = vkskin_crowd_instance_count(crowd);
    if (!clips_fit(c, count, err))
        return false;
    for (uint32_t i = 0; i < count; i++) {
        vkskin_instance_info info;
        if (!clips_instance(c, crowd, i, &info))
            continue;
        const int32_t clip = on ? VKSKIN_CLIP_NONE : c->held[i];
        if (on && info.clip >= 0)
            c->held[i] = info.clip;
        if (!clips_play(c, crowd, i, &info, clip, fade, err))
            return false;
    }
    return true;
}

void app_clips_forget(app_clips *c)
{
    for (uint32_t i = 0; i < c->room; i++)
        c->held[i] = NOT_SEEN;
}

void app_clips_free(app_clips *c)
{
    free(c->held);
    *c = (app_clips){0};
}
