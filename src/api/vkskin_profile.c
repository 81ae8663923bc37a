/* The owned renderer's profiling (vkskin_render.h): the skinning pass's traffic
 * (bench/traffic.h) and a plain copy kernel's bandwidth (skin/skin_gpu.h), what `vkskin bench`
 * holds the pass against. */
#include "render_api.h"

#include "skin/skin_gpu.h"
#include "bench/traffic.h"

static vkskin_traffic api_traffic(vks_traffic t)
{
    return (vkskin_traffic){t.logical_bytes, t.stream_bytes, t.memory_bytes};
}

vkskin_result vkskin_renderer_get_traffic(const vkskin_renderer *r, bool whole_crowd,
                                          vkskin_traffic *traffic, vkskin_error *err)
{
    if (!r || !traffic)
        return vks_api_fail(err, VKSKIN_ERROR_ARGUMENT,
                            "vkskin_renderer_get_traffic: a renderer and a traffic are needed");
    *traffic = (vkskin_traffic){0};
    if (whole_crowd)
        *traffic = api_traffic(
            vks_skin_traffic(r->r.skinner.crowd, NULL, NULL, r->r.skinner.crowd->instance_count));
    else if (r->r.last && r->r.skinner.mode == VKS_SKIN_COMPUTE)
        *traffic = api_traffic(vks_skin_traffic(r->r.skinner.crowd, r->r.last->skin->plan.order,
                                                r->r.last->skin->plan.order_level,
                                                r->r.last->skin->plan.skinned_count));
    return vks_api_ok(err);
}

vkskin_result vkskin_renderer_get_instance_uploads(const vkskin_renderer *r,
                                                   vkskin_instance_uploads *uploads,
                                                   vkskin_error *err)
{
    if (!r || !uploads)
        return vks_api_fail(err, VKSKIN_ERROR_ARGUMENT,
                            "vkskin_renderer_get_instance_uploads: a renderer and an uploads are "
                            "needed");
    *uploads = (vkskin_instance_uploads){0};
    if (r->r.last)
        *uploads = (vkskin_instance_uploads){r->r.last->moved, r->r.last->moved_bytes};
    return vks_api_ok(err);
}

vkskin_result vkskin_renderer_get_raster_counts(const vkskin_renderer *r,
                                                vkskin_raster_counts *counts, vkskin_error *err)
{
    if (!r || !counts)
        return vks_api_fail(err, VKSKIN_ERROR_ARGUMENT,
                            "vkskin_renderer_get_raster_counts: a renderer and a counts are "
                            "needed");
    *counts = (vkskin_raster_counts){0};
    if (r->r.raster_mode != VKS_RASTER_HARDWARE && r->r.last)
        *counts = (vkskin_raster_counts){
            .resolve_passes = r->r.last->resolves,
            .materials = r->r.skinner.scene.material_count,
            .texture_levels_dropped = r->r.raster_scene.levels_dropped,
            .max_entries = r->r.raster_scene.max_entries,
            .entries_past_ids = r->r.last->skin->plan.raster_past_ids,
            .splats = r->r.last->splats,
        };
    return vks_api_ok(err);
}

vkskin_result vkskin_renderer_time_copy(vkskin_renderer *r, uint64_t bytes,
                                        vkskin_copy_timing *timing, vkskin_error *err)
{
    if (!r || !timing)
        return vks_api_fail(err, VKSKIN_ERROR_ARGUMENT,
                            "vkskin_renderer_time_copy: a renderer and a timing are needed");
    *timing = (vkskin_copy_timing){0};
    vks_error e;
    r->dev.vk.vkDeviceWaitIdle(r->dev.device); /* the frames' work out of the way */
    if (!vks_copy_measure(&r->dev, bytes, &timing->bytes, &timing->ms, &e))
        return vks_api_fail_from(err, &e, VKSKIN_ERROR_FAILED);
    return vks_api_ok(err);
}
