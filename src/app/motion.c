/* The program's built-in motions (motion.h). */
#include "motion.h"
#include "app.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define PI 3.14159265358979323846

bool app_parse_motion(const char *text, app_motion_kind *kind, vkskin_error *err)
{
    *kind = APP_MOTION_NONE;
    if (!text || strcmp(text, "none") == 0)
        return true;
    if (strcmp(text, "wander") == 0)
        *kind = APP_MOTION_WANDER;
    else if (strcmp(text, "lanes") == 0)
        *kind = APP_MOTION_LANES;
    else
        return app_fail(err, "--motion needs none, wander or lanes, not '%s'", text);
    return true;
}

const char *app_motion_name(app_motion_kind kind)
{
    return kind == APP_MOTION_WANDER ? "wander" : kind == APP_MOTION_LANES ? "lanes" : "none";
}

/* A number in [0, 1) from the seed, an index and a stream (a 32-bit mix, as the crowd's). */
static float unit(uint32_t seed, uint32_t i, uint32_t stream)
{
    uint32_t x = seed * 0x9E3779B9u ^ i * 0x85EBCA6Bu ^ stream * 0xC2B2AE35u;
    x ^= x >> 16;
    x *= 0x7FEB352Du;
    x ^= x >> 15;
    x *= 0x846CA68Bu;
    x ^= x >> 16;
    return (float)(x >> 8) / 16777216.0f;
}

void app_motion_destroy(app_motion *m)
{
    free(m->position);
    free(m->heading);
    free(m->speed);
    free(m->velocity);
    free(m->phase);
    free(m->wrapped);
    free(m->wrap_at);
    free(m->wrap_heading);
    *m = (app_motion){0};
}

bool app_motion_start(app_motion *m, app_motion_kind kind, vkskin_crowd *crowd, uint32_t seed,
                      vkskin_error *err)
{
    *m = (app_motion){.kind = kind};
    if (kind == APP_MOTION_NONE)
        return true;
    const uint32_t n = vkskin_crowd_instance_count(crowd);
    m->count = n;
    m->position = malloc(sizeof *m->position * 2 * (size_t)n);
    m->heading = malloc(sizeof *m->heading * n);
    m->speed = malloc(sizeof *m->speed * n);
    m->velocity = malloc(sizeof *m->velocity * 2 * (size_t)n);
    m->phase = malloc(sizeof *m->phase * n);
    m->wrapped = malloc(sizeof *m->wrapped * n);
    m->wrap_at = malloc(sizeof *m->wrap_at * 3 * (size_t)n);
    m->wrap_heading = malloc(sizeof *m->wrap_heading * n);
    if (!m->position || !m->heading || !m->speed || !m->velocity || !m->phase || !m->wrapped ||
        !m->wrap_at || !m->wrap_heading) {
        app_motion_destroy(m);
        return app_fail(err, "out of memory for the motion of %u instances", n);
    }
    /* The field: where the instances stand, grown by their size; the pace from their height. */
    float lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
    float radius = 0.0f;
    for (uint32_t i = 0; i < n; i++) {
        vkskin_instance_info info;
        if (vkskin_crowd_get_instance(crowd, i, &info, NULL) != VKSKIN_OK)
            continue;
        m->position[2 * i] = info.world[12];
        m->position[2 * i + 1] = info.world[14];
        for (int k = 0; k < 3; k++) {
            lo[k] = fminf(lo[k], info.center[k] - info.radius);
            hi[k] = fmaxf(hi[k], info.center[k] + info.radius);
        }
        radius = fmaxf(radius, info.radius);
    }
    const float height = hi[1] > lo[1] ? hi[1] - lo[1] : 1.0f;
    m->pace = 0.75f * height; /* a person walks about three quarters of their height a second */
    m->lo[0] = lo[0] - radius, m->lo[1] = lo[2] - radius;
    m->hi[0] = hi[0] + radius, m->hi[1] = hi[2] + radius;
    for (uint32_t i = 0; i < n; i++) {
        m->speed[i] = m->pace * (0.7f + 0.8f * unit(seed, i, 1));
        m->phase[i] = (float)(2.0 * PI) * unit(seed, i, 2);
        if (kind == APP_MOTION_WANDER) {
            m->heading[i] = (float)(2.0 * PI) * unit(seed, i, 3);
        } else { /* lanes: a row per spot's column of the field, every other one reversed */
            const float lane = floorf((m->position[2 * i] - m->lo[0]) / (2.0f * radius));
            m->heading[i] = fmodf(lane, 2.0f) < 1.0f ? 0.0f : (float)PI;
        }
    }
    return true;
}

/* Wander: the heading turns by a slow sum of sines, each instance its own, and towards the
 * field's middle once the instance is past its edge. */
static void wander(app_motion *m, uint32_t i, double dt)
{
    const double t = m->time, p = m->phase[i];
    double turn = 0.35 * sin(0.45 * t + p) + 0.2 * sin(0.17 * t + 2.0 * p);
    const float x = m->position[2 * i], z = m->position[2 * i + 1];
    if (x < m->lo[0] || x > m->hi[0] || z < m->lo[1] || z > m->hi[1]) {
        const double home = atan2(0.5 * (m->lo[0] + m->hi[0]) - x, 0.5 * (m->lo[1] + m->hi[1]) - z);
        double off = home - m->heading[i];
        off -= 2.0 * PI * floor((off + PI) / (2.0 * PI));
        turn = off > 0.0 ? 1.0 : -1.0;
    }
    m->heading[i] = (float)(m->heading[i] + turn * dt);
}

bool app_motion_step(app_motion *m, vkskin_crowd *crowd, double dt, vkskin_error *err)
{
    if (m->kind == APP_MOTION_NONE)
        return true;
    uint32_t wraps = 0;
    const uint32_t n = m->count;
    for (uint32_t i = 0; i < n; i++) {
        if (m->kind == APP_MOTION_WANDER)
            wander(m, i, dt);
        float *p = &m->position[2 * i];
        if (m->kind == APP_MOTION_LANES) {
            const float length = m->hi[1] - m->lo[1];
            const bool out = (m->heading[i] == 0.0f && p[1] > m->hi[1]) ||
                             (m->heading[i] != 0.0f && p[1] < m->lo[1]);
            if (out && length > 0.0f) { /* back in at the far end */
                p[1] += m->heading[i] == 0.0f ? -length : length;
                m->wrapped[wraps] = i;
                m->wrap_at[3 * wraps] = p[0];
                m->wrap_at[3 * wraps + 1] = 0.0f;
                m->wrap_at[3 * wraps + 2] = p[1];
                m->wrap_heading[wraps++] = m->heading[i];
            }
        }
        const float h = m->heading[i], s = m->speed[i];
        m->velocity[2 * i] = s * sinf(h);
        m->velocity[2 * i + 1] = s * cosf(h);
        p[0] += (float)(m->velocity[2 * i] * dt); /* as the crowd moves it */
        p[1] += (float)(m->velocity[2 * i + 1] * dt);
    }
    m->time += dt;
    m->frame++;
    return (!wraps || vkskin_crowd_set_placements(crowd, m->wrapped, wraps, m->wrap_at,
                                                  m->wrap_heading, NULL, err) == VKSKIN_OK) &&
           vkskin_crowd_set_velocities(crowd, NULL, n, m->velocity, err) == VKSKIN_OK;
}
