/* What renderer.c (creation), record.c (the passes' commands) and frame.c (the frames'
 * lifecycle) share: the queries each frame writes. */
#ifndef VKS_RENDERER_IMPL_H
#define VKS_RENDERER_IMPL_H

#include "renderer.h"

/* Timestamps: the frame's start, then the end of each pass: skinning, the compute rasterizer's
 * dispatches, the graphics pipeline's draws, the resolve, the overlays and the rendering's end. */
enum {
    QUERY_BEGIN,
    QUERY_SKINNED,
    QUERY_RASTERED,
    QUERY_HARDWARE,
    QUERY_RESOLVED,
    QUERY_DRAWN,
    QUERY_COUNT
};
/* Pipeline statistics: one query around the skinning (its compute invocations), one around the
 * crowd's draws (their primitives), so that neither the compute rasterizer, its resolve nor the
 * overlays count in them. */
enum { STATS_SKIN, STATS_DRAW, STATS_COUNT };
/* f->queries_written bits besides the timestamps': each statistics query begun, ended; the
 * visibility count copied. */
#define STATS_BEGUN(q) (1u << (8 + 2 * (q)))
#define STATS_ENDED(q) (1u << (9 + 2 * (q)))
enum { RASTER_COUNTED = 1u << 12 };
#define UNKNOWN_STATS ((vks_gpu_stats){-1.0, -1.0, -1.0, -1.0, UINT64_MAX, UINT64_MAX, UINT64_MAX})

static inline void begin_statistics(const gpu_device *dev, vks_frame *f, uint32_t q)
{
    if (f->statistics) {
        dev->vk.vkCmdBeginQuery(f->cmd, f->statistics, q, 0);
        f->queries_written |= STATS_BEGUN(q);
    }
}

static inline void end_statistics(const gpu_device *dev, vks_frame *f, uint32_t q)
{
    if ((f->queries_written & STATS_BEGUN(q)) && !(f->queries_written & STATS_ENDED(q))) {
        dev->vk.vkCmdEndQuery(f->cmd, f->statistics, q);
        f->queries_written |= STATS_ENDED(q);
    }
}

static inline void timestamp(const gpu_device *dev, vks_frame *f, VkPipelineStageFlags2 stage,
                             uint32_t query)
{
    if (!f->timestamps)
        return;
    dev->vk.vkCmdWriteTimestamp2(f->cmd, stage, f->timestamps, query);
    f->queries_written |= 1u << query;
}

#endif
