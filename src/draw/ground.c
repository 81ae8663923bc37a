#include "ground.h"

#include <math.h>

/* A "nice" grid step: 1, 2 or 5 times a power of ten, near `x`. */
static float nice_step(float x)
{
    const float p = powf(10.0f, floorf(log10f(x)));
    const float m = x / p;
    return (m < 1.5f ? 1.0f : m < 3.5f ? 2.0f : m < 7.5f ? 5.0f : 10.0f) * p;
}

vks_ground vks_ground_plan(const float lo[3], const float hi[3], uint32_t visible_count)
{
    const float cx = 0.5f * (lo[0] + hi[0]), cz = 0.5f * (lo[2] + hi[2]);
    const float tall = fmaxf(hi[1] - lo[1], 1e-3f);
    const float half = fmaxf(fmaxf(hi[0] - lo[0], hi[2] - lo[2]), tall) * 0.75f + tall;
    vks_ground g = {.step = nice_step(half / 20.0f)};
    g.x0 = floorf((cx - half) / g.step) * g.step;
    g.z0 = floorf((cz - half) / g.step) * g.step;
    g.lines = (uint32_t)ceilf(2.0f * half / g.step) + 1;
    g.x1 = g.x0 + (float)(g.lines - 1) * g.step;
    g.z1 = g.z0 + (float)(g.lines - 1) * g.step;
    g.shadows = visible_count < VKS_GROUND_SHADOWS ? visible_count : VKS_GROUND_SHADOWS;
    return g;
}

uint32_t vks_ground_triangle_vertices(const vks_ground *g)
{
    return 6 + 3 * VKS_GROUND_SHADOW_SEGMENTS * g->shadows;
}

uint32_t vks_ground_line_vertices(const vks_ground *g)
{
    return 4 * g->lines;
}

void vks_ground_write_triangles(const vks_ground *g, const vks_crowd *crowd,
                                const uint32_t *visible, vks_overlay_vertex *t)
{
    const uint32_t plane = 0xff2a2622u; /* dark warm grey */
    const float quad[6][2] = {{g->x0, g->z0}, {g->x1, g->z0}, {g->x1, g->z1},
                              {g->x0, g->z0}, {g->x1, g->z1}, {g->x0, g->z1}};
    for (int v = 0; v < 6; v++)
        *t++ = (vks_overlay_vertex){{quad[v][0], 0.0f, quad[v][1]}, plane};
    for (uint32_t k = 0; k < g->shadows; k++) {
        const vks_crowd_instance *in = &crowd->instances[visible[k]];
        /* Under its middle, as wide as a third of its bounding sphere. */
        const float radius = 0.35f * in->radius, x = in->center[0], z = in->center[2];
        for (uint32_t e = 0; e < VKS_GROUND_SHADOW_SEGMENTS; e++) {
            const float a0 = 6.2831853f * (float)e / VKS_GROUND_SHADOW_SEGMENTS,
                        a1 = 6.2831853f * (float)(e + 1) / VKS_GROUND_SHADOW_SEGMENTS;
            *t++ = (vks_overlay_vertex){{x, 0.0f, z}, 0x70000000u};
            *t++ = (vks_overlay_vertex){{x + radius * cosf(a0), 0.0f, z + radius * sinf(a0)}, 0};
            *t++ = (vks_overlay_vertex){{x + radius * cosf(a1), 0.0f, z + radius * sinf(a1)}, 0};
        }
    }
}

void vks_ground_write_lines(const vks_ground *g, vks_overlay_vertex *l)
{
    const uint32_t grid = 0xff4a4440u; /* the plane's grey, lighter */
    for (uint32_t i = 0; i < g->lines; i++) {
        const float x = g->x0 + (float)i * g->step, z = g->z0 + (float)i * g->step;
        *l++ = (vks_overlay_vertex){{x, 0.0f, g->z0}, grid};
        *l++ = (vks_overlay_vertex){{x, 0.0f, g->z1}, grid};
        *l++ = (vks_overlay_vertex){{g->x0, 0.0f, z}, grid};
        *l++ = (vks_overlay_vertex){{g->x1, 0.0f, z}, grid};
    }
}
