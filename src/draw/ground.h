/* The ground under a crowd (vkskin_frame_desc.ground), as overlay vertices (draw/overlay.h): a
 * plane at y = 0 around the crowd (two triangles), a grid on it (lines every `step`, a 1, 2 or 5
 * times a power of ten) and a soft contact shadow under each of the first visible instances
 * (triangle fans, dark in the middle). Pure arithmetic; the caller writes the vertices where its
 * overlay buffer wants them. */
#ifndef VKS_GROUND_H
#define VKS_GROUND_H

#include "overlay.h"
#include "../scene/crowd.h"

/* Contact shadows drawn under at most this many visible instances, each of this many segments. */
#define VKS_GROUND_SHADOWS 4096u
#define VKS_GROUND_SHADOW_SEGMENTS 12u

typedef struct vks_ground {
    float x0, z0, x1, z1, step;
    uint32_t lines, shadows;
} vks_ground;

/* The ground around the box lo..hi (the crowd's framing box), with shadows under the first of
 * `visible_count` instances. */
vks_ground vks_ground_plan(const float lo[3], const float hi[3], uint32_t visible_count);
/* Its triangle vertices (the plane's 6 and the shadows'), and its line vertices. */
uint32_t vks_ground_triangle_vertices(const vks_ground *g);
uint32_t vks_ground_line_vertices(const vks_ground *g);
/* Writes them: the shadows under crowd->instances[visible[k]]. */
void vks_ground_write_triangles(const vks_ground *g, const vks_crowd *crowd,
                                const uint32_t *visible, vks_overlay_vertex *out);
void vks_ground_write_lines(const vks_ground *g, vks_overlay_vertex *out);

#endif
