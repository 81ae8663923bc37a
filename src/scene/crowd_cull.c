/* Culling (crowd.h): the instances whose bounding sphere meets the frustum, on the pool's
 * threads. */
#include "crowd.h"

#include <math.h>
#include <string.h>

typedef struct crowd_cull_job {
    const vks_crowd *crowd;
    float plane[6][4]; /* unit normals: the plane equation gives a distance */
    uint32_t *visible;
} crowd_cull_job;

/* Instances [begin, end) inside the planes, ascending, into out; returns how many. */
static uint32_t crowd_cull_range(const vks_crowd *c, const float plane[6][4], uint32_t begin,
                                 uint32_t end, uint32_t *out)
{
    uint32_t count = 0;
    for (uint32_t i = begin; i < end; i++) {
        const vks_crowd_instance *in = &c->instances[i];
        bool inside = !in->hidden;
        for (int p = 0; p < 6; p++) {
            float d = plane[p][0] * in->center[0] + plane[p][1] * in->center[1] +
                      plane[p][2] * in->center[2] + plane[p][3];
            inside &= d >= -in->radius;
        }
        /* A branch, not an unconditional store: `out` may be write-combined GPU memory, and
         * culled runs are long (neighbours share the verdict), so it predicts well. */
        if (inside)
            out[count++] = i;
    }
    return count;
}

/* Pass 1: each chunk's finds at its own place in the scratch. */
static void crowd_cull_chunk(void *ctx, uint32_t begin, uint32_t end, uint32_t thread)
{
    (void)thread;
    const crowd_cull_job *job = ctx;
    const vks_crowd *c = job->crowd;
    c->cull_counts[begin / VKS_CROWD_GRAIN] =
        crowd_cull_range(c, job->plane, begin, end, c->cull_scratch + begin);
}

/* Pass 2: each chunk's finds to their place in `visible` (cull_counts: where they start). */
static void crowd_cull_copy(void *ctx, uint32_t begin, uint32_t end, uint32_t thread)
{
    (void)thread;
    const crowd_cull_job *job = ctx;
    const vks_crowd *c = job->crowd;
    for (uint32_t k = begin; k < end; k++) {
        const uint32_t first = c->cull_counts[k], n = c->cull_counts[k + 1] - first;
        memcpy(job->visible + first, c->cull_scratch + (size_t)k * VKS_CROWD_GRAIN,
               sizeof *job->visible * n);
    }
}

uint32_t vks_crowd_cull(const vks_crowd *c, vks_pool *pool, const float vp[4][4], uint32_t *visible)
{
    /* Gribb & Hartmann, "Fast extraction of viewing frustum planes from the world-view-projection
     * matrix" (2001): with rows r0..r3 of the matrix, a point is inside when r3 + r0, r3 - r0,
     * r3 + r1, r3 - r1 (|x|, |y| <= w), r2 (z >= 0, Vulkan) and r3 - r2 (z <= w) are >= 0. */
    crowd_cull_job job = {.crowd = c, .visible = visible};
    float(*plane)[4] = job.plane;
    for (int k = 0; k < 4; k++) {
        float r0 = vp[k][0], r1 = vp[k][1], r2 = vp[k][2], r3 = vp[k][3];
        plane[0][k] = r3 + r0;
        plane[1][k] = r3 - r0;
        plane[2][k] = r3 + r1;
        plane[3][k] = r3 - r1;
        plane[4][k] = r2;
        plane[5][k] = r3 - r2;
    }
    /* Unit normals, so that the plane equation gives a distance to compare with the radius. */
    for (int p = 0; p < 6; p++) {
        float len = sqrtf(plane[p][0] * plane[p][0] + plane[p][1] * plane[p][1] +
                          plane[p][2] * plane[p][2]);
        float inv = len > 0.0f ? 1.0f / len : 1.0f;
        for (int k = 0; k < 4; k++)
            plane[p][k] *= inv;
    }
    const uint32_t n = c->instance_count;
    if (vks_pool_threads(pool) == 1 || n <= VKS_CROWD_GRAIN || !c->cull_scratch)
        return crowd_cull_range(c, job.plane, 0, n, visible);
    const uint32_t chunks = (n + VKS_CROWD_GRAIN - 1) / VKS_CROWD_GRAIN;
    vks_pool_run(pool, n, VKS_CROWD_GRAIN, crowd_cull_chunk, &job);
    /* Where each chunk's finds go: a prefix sum, in place (count k becomes chunk k's start). */
    uint32_t total = 0;
    for (uint32_t k = 0; k < chunks; k++) {
        const uint32_t count = c->cull_counts[k];
        c->cull_counts[k] = total;
        total += count;
    }
    c->cull_counts[chunks] = total;
    vks_pool_run(pool, chunks, 1, crowd_cull_copy, &job);
    return total;
}
