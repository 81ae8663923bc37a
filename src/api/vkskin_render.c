/* The public API's owned device (include/vkskin/vkskin_render.h): the device and its surface
 * (gpu/gpu.h), the renderer (render/renderer.h), a target (target/offscreen.h or
 * target/swapchain.h), and the frame that strings the crowd's culling, levels of detail and
 * posing (scene/crowd.h) to the renderer's passes. */
#include "render_api.h"

#include "../core/alloc.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

_Static_assert(VKSKIN_MAX_LEVELS == VKS_MAX_LEVELS, "the public level count is the engine's");
_Static_assert(sizeof(vkskin_overlay_vertex) == sizeof(vks_overlay_vertex),
               "the public overlay vertex is the engine's");

/* Overlay vertices of each kind a host may give a frame (the sums stay far from 2^32). */
#define VKS_OVERLAY_MAX (1u << 24)

vkskin_result vkskin_list_devices(vkskin_device_info *devices, uint32_t capacity, uint32_t *count,
                                  vkskin_error *err)
{
    if (!count || (capacity && !devices))
        return vks_api_fail(err, VKSKIN_ERROR_ARGUMENT,
                            "vkskin_list_devices: count (and devices for a capacity) are needed");
    gpu_device_entry *entries = capacity ? vks_calloc(capacity, sizeof *entries) : NULL;
    if (capacity && !entries)
        return vks_api_fail(err, VKSKIN_ERROR_OUT_OF_MEMORY, "out of memory");
    vks_error e;
    const bool ok = gpu_list_devices(entries, capacity, count, &e);
    for (uint32_t i = 0; ok && i < capacity && i < *count; i++) {
        devices[i] = (vkskin_device_info){.type = entries[i].type,
                                          .api_version = entries[i].api_version,
                                          .driver_version = entries[i].driver_version,
                                          .vendor_id = entries[i].vendor_id,
                                          .unusable = entries[i].unusable};
        memcpy(devices[i].name, entries[i].name, sizeof devices[i].name);
    }
    vks_free(entries);
    return ok ? vks_api_ok(err) : vks_api_fail_from(err, &e, VKSKIN_ERROR_FAILED);
}

/* A desc's mistakes, before any device is opened; *binding: the engine's for its public one (AUTO:
 * descriptors under validation, which follows them and not addresses: renderer.h). */
static vkskin_result check_desc(const vkskin_renderer_desc *d, bool crowd, vks_binding *binding,
                                vkskin_error *err)
{
    if (crowd && !d->crowd)
        return vks_api_fail(err, VKSKIN_ERROR_ARGUMENT,
                            "vkskin_renderer_create: a crowd is needed");
    if (d->mode != VKSKIN_SKIN_COMPUTE && d->mode != VKSKIN_SKIN_VERTEX)
        return vks_api_fail(err, VKSKIN_ERROR_ARGUMENT, "vkskin_renderer_create: no skin mode %d",
                            (int)d->mode);
    if (d->palettes != VKSKIN_PALETTES_STORE && d->palettes != VKSKIN_PALETTES_HOST)
        return vks_api_fail(err, VKSKIN_ERROR_ARGUMENT,
                            "vkskin_renderer_create: no palettes choice %d", (int)d->palettes);
    if (!vks_api_binding(d->binding, VKS_BINDING_AUTO, binding))
        return vks_api_fail(err, VKSKIN_ERROR_ARGUMENT, "vkskin_renderer_create: no binding %d",
                            (int)d->binding);
    if (d->group_size & (d->group_size - 1))
        return vks_api_fail(err, VKSKIN_ERROR_ARGUMENT,
                            "vkskin_renderer_create: a workgroup of %u invocations is not a power "
                            "of two",
                            d->group_size);
    if (d->width > 16384 || d->height > 16384 || !d->width != !d->height)
        return vks_api_fail(err, VKSKIN_ERROR_ARGUMENT,
                            "vkskin_renderer_create: an image of 1 to 16384 pixels a side (or 0 x "
                            "0 for 1280 x 720), not %u x %u",
                            d->width, d->height);
    if (d->fixed_lod && d->lod >= VKS_MAX_LEVELS)
        return vks_api_fail(err, VKSKIN_ERROR_ARGUMENT,
                            "vkskin_renderer_create: levels of detail go from 0 to %u, not %u",
                            VKS_MAX_LEVELS - 1, d->lod);
    if (!(d->lod_error_px >= 0.0f && d->lod_error_px < INFINITY))
        return vks_api_fail(err, VKSKIN_ERROR_ARGUMENT,
                            "vkskin_renderer_create: lod_error_px must be 0 or more");
    if ((unsigned)d->raster > VKSKIN_RASTER_HYBRID)
        return vks_api_fail(err, VKSKIN_ERROR_ARGUMENT, "vkskin_renderer_create: no raster %d",
                            (int)d->raster);
    if (!(d->raster_triangle_px >= 0.0f && d->raster_triangle_px < INFINITY))
        return vks_api_fail(err, VKSKIN_ERROR_ARGUMENT,
                            "vkskin_renderer_create: raster_triangle_px must be 0 or more");
    if (!(d->splat_density >= 0.0f && d->splat_density < INFINITY))
        return vks_api_fail(err, VKSKIN_ERROR_ARGUMENT,
                            "vkskin_renderer_create: splat_density must be 0 or more");
    if ((d->raster == VKSKIN_RASTER_COMPUTE || d->raster == VKSKIN_RASTER_HYBRID) &&
        d->mode != VKSKIN_SKIN_COMPUTE)
        return vks_api_fail(err, VKSKIN_ERROR_ARGUMENT,
                            "vkskin_renderer_create: the compute rasterizer draws the compute "
                            "pass's output: it needs the compute mode");
    if (d->readback && d->mode != VKSKIN_SKIN_COMPUTE)
        return vks_api_fail(err, VKSKIN_ERROR_ARGUMENT,
                            "vkskin_renderer_create: readback needs the compute mode");
    if (d->stage_palette && d->mode != VKSKIN_SKIN_COMPUTE)
        return vks_api_fail(err, VKSKIN_ERROR_ARGUMENT,
                            "vkskin_renderer_create: stage_palette stages poses for the compute "
                            "pass: it needs the compute mode");
    if (d->instance_extension_count && !d->instance_extensions)
        return vks_api_fail(err, VKSKIN_ERROR_ARGUMENT,
                            "vkskin_renderer_create: instance_extensions is NULL");
    if (d->device > (uint32_t)INT32_MAX + 1)
        return vks_api_fail(err, VKSKIN_ERROR_ARGUMENT, "vkskin_renderer_create: no device %u",
                            d->device);
    return VKSKIN_OK;
}

/* The rasterizer a desc asks for on `dev`; *note says why AUTO fell back to the hardware one. */
static vks_raster_mode raster_of(const vkskin_renderer_desc *desc, const gpu_device *dev,
                                 const char **note)
{
    *note = NULL;
    switch (desc->raster) {
    case VKSKIN_RASTER_HARDWARE:
        return VKS_RASTER_HARDWARE;
    case VKSKIN_RASTER_COMPUTE:
        return VKS_RASTER_COMPUTE;
    case VKSKIN_RASTER_HYBRID:
        return VKS_RASTER_HYBRID;
    case VKSKIN_RASTER_AUTO:
        break;
    }
    if (desc->mode != VKSKIN_SKIN_COMPUTE)
        *note = "vertex mode skins in the draw: no output for the compute rasterizer";
    else if (!dev->int64_atomics)
        *note = "the device lacks shaderInt64 or shaderBufferInt64Atomics, which the compute "
                "rasterizer needs";
    return *note ? VKS_RASTER_HARDWARE : VKS_RASTER_HYBRID;
}

/* The engine's renderer desc for a public one on `dev` (a probed device will do: nothing is
 * made on it), the headless image counted (a window's swapchain is the driver's: none). One
 * function for vkskin_renderer_create and vkskin_renderer_check, so that both plan alike.
 * *raster_note (raster_note may be NULL): why the default rasterizer is the hardware one. */
static vks_renderer_desc engine_desc(const vkskin_renderer_desc *desc, vks_binding binding,
                                     const gpu_device *dev, const vks_crowd *crowd,
                                     VkFormat color_format, const char **raster_note)
{
    const VkExtent2D extent = {desc->width ? desc->width : 1280, desc->height ? desc->height : 720};
    const char *note;
    const vks_raster_mode raster = raster_of(desc, dev, raster_note ? raster_note : &note);
    vks_plan_image image = {0};
    if (!desc->create_surface) {
        image.width = extent.width;
        image.height = extent.height;
        vks_offscreen_bytes(extent.width, extent.height, vks_draw_depth_format(dev),
                            &image.device_bytes, &image.host_bytes);
    }
    if (!desc->create_surface && raster != VKS_RASTER_HARDWARE) { /* its visibility buffers */
        image.device_bytes += vks_raster_target_bytes(extent.width, extent.height);
        image.visibility = true;
    }
    return (vks_renderer_desc){
        .crowd = crowd,
        .color_format = color_format,
        .mode = desc->mode == VKSKIN_SKIN_VERTEX ? VKS_SKIN_VERTEX : VKS_SKIN_COMPUTE,
        .binding = binding,
        .group_size = desc->group_size,
        .stage_palette = desc->stage_palette,
        .readback = desc->readback,
        .overlays = true,
        .buffer_limit = desc->max_buffer_bytes,
        .palette_store = desc->palettes == VKSKIN_PALETTES_STORE,
        .max_skinned_vertices = desc->max_skinned_vertices,
        .memory_limit = (VkDeviceSize)desc->max_memory_mib << 20,
        .image = image,
        .raster = raster,
    };
}

vkskin_result vkskin_renderer_check(const vkskin_renderer_desc *desc,
                                    const vkskin_crowd_desc *crowd, vkskin_error *err)
{
    vkskin_renderer_desc desc_copy;
    vkskin_crowd_desc crowd_copy;
    vkskin_result desc_result = VKS_API_DESC("vkskin_renderer_check", desc, &desc_copy, err);
    if (desc_result == VKSKIN_OK)
        desc_result = VKS_API_DESC("vkskin_renderer_check", crowd, &crowd_copy, err);
    if (desc_result != VKSKIN_OK)
        return desc_result;
    if (!desc || !crowd)
        return vks_api_fail(err, VKSKIN_ERROR_ARGUMENT,
                            "vkskin_renderer_check: desc and crowd are needed");
    vks_binding binding = VKS_BINDING_AUTO;
    const vks_model *models[VKSKIN_MAX_MODELS];
    vkskin_result res = check_desc(desc, false, &binding, err);
    if (res != VKSKIN_OK ||
        (res = vks_api_crowd_models(crowd, "vkskin_renderer_check", models, err)) != VKSKIN_OK)
        return res;
    gpu_device probe;
    vks_error e;
    if (!gpu_device_probe(
            &(gpu_device_desc){.device_index = desc->device ? (int32_t)(desc->device - 1) : -1},
            &probe, &e))
        return vks_api_fail_from(err, &e, VKSKIN_ERROR_FAILED);
    const uint32_t n = crowd->instance_count;
    const vks_plan_crowd shape = vks_plan_crowd_dealt(models, crowd->model_count, n);
    const vks_renderer_desc rd =
        engine_desc(desc, binding, &probe, NULL, VKS_OFFSCREEN_FORMAT, NULL);
    const vks_plan_request request = vks_renderer_plan_request(&rd);
    const vks_plan_limits limits = vks_skinner_plan_limits(&probe, rd.memory_limit);
    vks_plan_memory plan;
    const bool ok = vks_plan_counts(&limits, &shape, &request, &plan, &e);
    gpu_device_destroy(&probe);
    if (!ok)
        return vks_api_fail_from(err, &e, VKSKIN_ERROR_FAILED);
    /* The machine's memory: the crowd's animation state, and what the plan puts in system memory
     * per instance (everything on a CPU device, whose heap is system memory). */
    const uint64_t per_system =
        plan.per_instance_host + (limits.host_heap ? 0 : plan.per_instance_device);
    /* A capped store and its staging are fixed, not per instance. */
    const uint64_t store_system = plan.palette_store_capped
                                      ? (uint64_t)plan.palette_store_entries * sizeof(vks_bone) *
                                            (GPU_FRAMES_IN_FLIGHT + (limits.host_heap ? 0 : 1))
                                      : 0;
    return vkskin_crowd_fits(crowd, per_system * n + store_system, err);
}

/* The device's messages to the renderer's logger (its level 0 errors, 1 warnings). */
static void api_log(void *user, int level, const char *message)
{
    const vkskin_logger *logger = user;
    logger->log(logger->user, level == 0 ? VKSKIN_LOG_ERROR : VKSKIN_LOG_WARNING, message);
}

vkskin_result vkskin_renderer_create(const vkskin_renderer_desc *desc, vkskin_renderer **renderer,
                                     vkskin_error *err)
{
    if (renderer)
        *renderer = NULL;
    vkskin_renderer_desc desc_copy;
    const vkskin_result desc_result = VKS_API_DESC("vkskin_renderer_create", desc, &desc_copy, err);
    if (desc_result != VKSKIN_OK)
        return desc_result;
    if (!desc || !renderer)
        return vks_api_fail(err, VKSKIN_ERROR_ARGUMENT,
                            "vkskin_renderer_create: desc and renderer are needed");
    vks_binding binding = VKS_BINDING_AUTO;
    vkskin_result res = check_desc(desc, true, &binding, err);
    if (res != VKSKIN_OK)
        return res;
    if (desc->crowd->rendered)
        return vks_api_fail(err, VKSKIN_ERROR_ARGUMENT,
                            "vkskin_renderer_create: the crowd has a renderer already (one at a "
                            "time: its animation schedule, palette store and moved instances are "
                            "the renderer's); destroy it first, or make another crowd");
    struct vkskin_renderer *r = vks_object_alloc(sizeof *r);
    if (!r)
        return vks_api_fail(err, VKSKIN_ERROR_OUT_OF_MEMORY, "out of memory for a renderer");
    r->crowd = desc->crowd;
    r->crowd->rendered = true;
    r->logger = desc->logger;
    r->prepare = (vkskin_prepare_desc){.desc_size = sizeof(vkskin_prepare_desc),
                                       .fixed_lod = desc->fixed_lod,
                                       .lod = desc->lod,
                                       .lod_error_px = desc->lod_error_px,
                                       .pose_every_frame = desc->pose_every_frame,
                                       .raster_triangle_px = desc->raster_triangle_px};
    r->splat_density = desc->no_splats              ? 0.0f
                       : desc->splat_density > 0.0f ? desc->splat_density
                                                    : VKSKIN_SPLAT_DENSITY;

    const char *env = getenv("VKSKIN_VALIDATE");
    const gpu_device_desc dd = {
        .device_index = desc->device ? (int32_t)(desc->device - 1) : -1,
        .validate = desc->validate || (env && strcmp(env, "1") == 0),
        .instance_extensions = desc->instance_extensions,
        .instance_extension_count = desc->instance_extension_count,
        .create_surface = desc->create_surface,
        .surface_user = desc->surface_user,
        .log = desc->logger.log ? api_log : NULL,
        .log_user = &r->logger,
    };
    vks_crowd *crowd = &r->crowd->crowd;
    /* Palette buffers the crowd remembers (reuse_palettes) are not this renderer's, whatever
     * their addresses. */
    vks_crowd_forget_palettes(crowd);
    vks_error e;
    /* What the animation level of detail keeps, now: a frame fails on it later only when the
     * crowd grows. */
    bool ok =
        (desc->pose_every_frame || vks_prepare_fit(crowd, &r->crowd->anim_lod,
                                                   desc->palettes == VKSKIN_PALETTES_STORE, &e)) &&
        gpu_device_create(&dd, &r->dev, &e);
    if (ok) {
        const vks_target_desc td = {
            .window = desc->create_surface != NULL,
            .width = desc->width ? desc->width : 1280,
            .height = desc->height ? desc->height : 720,
            .depth_format = vks_draw_depth_format(&r->dev),
            .vsync = !desc->no_vsync,
        };
        ok = vks_target_create(&r->dev, &td, &r->target, &e);
    }
    if (ok) {
        const vks_renderer_desc rd = engine_desc(
            desc, binding, &r->dev, crowd, vks_target_color_format(&r->target), &r->raster_note);
        ok = vks_renderer_create(&r->dev, &rd, &r->r, &e);
    }
    if (!ok) {
        vkskin_renderer_destroy(r, NULL);
        return vks_api_fail_from(err, &e, VKSKIN_ERROR_FAILED);
    }
    *renderer = r;
    return vks_api_ok(err);
}

void vkskin_renderer_destroy(vkskin_renderer *r, vkskin_messages *messages)
{
    if (messages)
        *messages = (vkskin_messages){0};
    if (!r)
        return;
    if (r->dev.device)
        r->dev.vk.vkDeviceWaitIdle(r->dev.device);
    vks_renderer_destroy(&r->r);
    if (r->crowd) { /* its palette buffers, which the crowd may remember, are gone */
        vks_crowd_forget_palettes(&r->crowd->crowd);
        r->crowd->rendered = false;
    }
    vks_target_destroy(&r->target);
    const gpu_messages m = gpu_device_destroy(&r->dev); /* vkDestroyInstance may report too */
    if (messages)
        *messages = (vkskin_messages){.errors = m.error, .warnings = m.warning};
    vks_object_free(r);
}

vkskin_result vkskin_renderer_get_info(const vkskin_renderer *r, vkskin_renderer_info *info,
                                       vkskin_error *err)
{
    if (!r || !info)
        return vks_api_fail(err, VKSKIN_ERROR_ARGUMENT,
                            "vkskin_renderer_get_info: a renderer and an info are needed");
    *info = (vkskin_renderer_info){
        .api_version = r->dev.props.apiVersion,
        .driver_version = r->dev.props.driverVersion,
        .group_size = r->r.skinner.mode == VKS_SKIN_COMPUTE ? r->r.skinner.pass.group_size : 0,
        .staged_palette_vec4s =
            r->r.skinner.mode == VKS_SKIN_COMPUTE ? r->r.skinner.pass.stage_vec4s : 0,
        .max_skinned_vertices =
            r->r.skinner.mode == VKS_SKIN_COMPUTE
                ? r->r.skinner.memory.output_bytes / vks_plan_vertex_bytes(r->r.skinner.crowd)
                : 0,
        .color_format = r->r.draw.color_format,
        .swapchain_rebuilds = r->target.swapchain.rebuilds,
        .width = r->target.extent.width,
        .height = r->target.extent.height,
        .binding = r->r.skinner.descriptors ? VKSKIN_BINDING_DESCRIPTORS : VKSKIN_BINDING_ADDRESSES,
        .raster = r->r.raster_mode == VKS_RASTER_COMPUTE  ? VKSKIN_RASTER_COMPUTE
                  : r->r.raster_mode == VKS_RASTER_HYBRID ? VKSKIN_RASTER_HYBRID
                                                          : VKSKIN_RASTER_HARDWARE,
        .raster_note = r->raster_note,
        .max_output_vertices =
            r->r.skinner.mode == VKS_SKIN_COMPUTE
                ? r->r.skinner.memory.output_most / vks_plan_vertex_bytes(r->r.skinner.crowd)
                : 0,
        .output_growths = r->r.skinner.output_grown,
        .device_bytes = r->r.skinner.memory.device_bytes,
        .host_bytes = r->r.skinner.memory.host_bytes,
        .store_entries = r->r.skinner.use_store ? r->r.skinner.store.capacity : 0,
        .store_pages = r->r.skinner.use_store ? r->r.skinner.page_count : 0,
        .store_most_pages = r->r.skinner.use_store ? r->r.skinner.memory.palette_store_pages : 0,
        .store_growths = r->r.skinner.store_grown,
    };
    memcpy(info->device_name, r->dev.props.deviceName, sizeof info->device_name);
    return vks_api_ok(err);
}

/* The frame's uniforms from a view_proj = P V, P a perspective (Vulkan clip space: w = -z of
 * the view) and V rigid: the clip w row is -V's third row, the direction from the point looked at
 * towards the eye, whose heading places the key light. */
static void frame_uniforms(const vkskin_view *view, vks_frame_uniforms *u)
{
    memcpy(u->view_proj, view->view_proj, sizeof u->view_proj);
    vkskin_light l;
    vkskin_view_light(view, &l, NULL);
    memcpy(u->light_dir, l.direction, sizeof l.direction);
    memcpy(u->light_color, l.color, sizeof l.color);
    memcpy(u->ambient, l.ambient, sizeof l.ambient);
    u->light_dir[3] = u->light_color[3] = u->ambient[3] = 0.0f;
}

/* The public figures of a frame (the statistics count the crowd's draws alone). */
static vkskin_gpu_stats public_stats(const vks_gpu_stats *s)
{
    return (vkskin_gpu_stats){.skin_ms = s->skin_ms,
                              .draw_ms = s->draw_ms,
                              .triangles = s->primitives,
                              .skin_invocations = s->skin_invocations,
                              .raster_ms = s->raster_ms,
                              .resolve_ms = s->resolve_ms,
                              .pixels_resolved = s->pixels_resolved};
}

static const vkskin_gpu_stats unknown_stats = {-1.0, -1.0, UINT64_MAX, UINT64_MAX,
                                               -1.0, -1.0, UINT64_MAX};

/* The engine's job for a frame desc (its overlays checked), the view checked by the CPU half's
 * own translation. */
static vkskin_result frame_job(vkskin_renderer *r, const vkskin_frame_desc *d, vks_frame_job *job,
                               vkskin_error *err)
{
    if (!d->view)
        return vks_api_fail(err, VKSKIN_ERROR_ARGUMENT, "vkskin_renderer_frame: a view is needed");
    if ((d->line_vertex_count && !d->lines) || (d->triangle_vertex_count && !d->triangles) ||
        (d->screen_vertex_count && !d->screen) || d->line_vertex_count % 2 ||
        d->triangle_vertex_count % 3 || d->screen_vertex_count % 3 ||
        d->line_vertex_count > VKS_OVERLAY_MAX || d->triangle_vertex_count > VKS_OVERLAY_MAX ||
        d->screen_vertex_count > VKS_OVERLAY_MAX)
        return vks_api_fail(err, VKSKIN_ERROR_ARGUMENT,
                            "vkskin_renderer_frame: overlays need their vertices, in pairs for "
                            "lines and threes for triangles, at most %u of each kind",
                            VKS_OVERLAY_MAX);
    vkskin_prepare_desc prepare = r->prepare;
    prepare.view = d->view;
    prepare.height = r->target.window ? d->height : r->target.extent.height;
    *job = (vks_frame_job){
        .crowd = &r->crowd->crowd,
        .anim_lod = &r->crowd->anim_lod,
        .target = &r->target,
        .width = d->width,
        .height = d->height,
        .capture = d->capture,
        .ground = d->ground,
        .triangles = (const vks_overlay_vertex *)d->triangles,
        .lines = (const vks_overlay_vertex *)d->lines,
        .screen = (const vks_overlay_vertex *)d->screen,
        .triangle_count = d->triangle_vertex_count,
        .line_count = d->line_vertex_count,
        .screen_count = d->screen_vertex_count,
    };
    memcpy(job->ground_lo, r->crowd->frame_lo, sizeof job->ground_lo);
    memcpy(job->ground_hi, r->crowd->frame_hi, sizeof job->ground_hi);
    frame_uniforms(d->view, &job->uniforms);
    const vkskin_result res =
        vks_api_prepare_job(&prepare, "vkskin_renderer_frame", r->crowd->pool, &job->prepare, err);
    job->prepare.lod.splat_density =
        r->r.raster_mode != VKS_RASTER_HARDWARE ? r->splat_density : 0.0f;
    return res;
}

static vkskin_frame_info frame_info(const vks_crowd *crowd, const vks_frame_done *done)
{
    const vks_frame *f = done->frame;
    const vks_frame_plan *plan = &f->skin->plan;
    vkskin_frame_info info = {
        .drawn = true,
        .visible = f->skin->visible_count,
        .posed = done->prepared.posed,
        .skinned = plan->skinned_count,
        .overflow = plan->overflow_count,
        .overflow_vertices = plan->overflow_vertices,
        .vertices = done->vertices,
        .skinned_vertices = done->skinned_vertices,
        .draws = f->draws,
        .palette_bytes = done->prepared.palette_bytes,
        .dropped = done->prepared.dropped,
        .triangles_hardware = f->triangles_hardware,
        .triangles_compute = f->triangles_compute,
        .cpu_ms = done->cpu_ms,
        .wait_ms = done->wait_ms,
        .record_ms = done->record_ms,
        .gpu = public_stats(&f->stats),
    };
    memcpy(info.level_instances, plan->level_instances, sizeof info.level_instances);
    for (uint32_t m = 0; m < crowd->model_count; m++)
        info.model_instances[m] = plan->runs[m][VKS_MAX_LEVELS] - plan->runs[m][0] +
                                  plan->splats[m + 1] - plan->splats[m];
    return info;
}

vkskin_result vkskin_renderer_frame(vkskin_renderer *r, const vkskin_frame_desc *desc,
                                    vkskin_frame_info *info, vkskin_error *err)
{
    if (info)
        *info = (vkskin_frame_info){.gpu = unknown_stats};
    vkskin_frame_desc desc_copy;
    vkskin_result res = VKS_API_DESC("vkskin_renderer_frame", desc, &desc_copy, err);
    if (res != VKSKIN_OK)
        return res;
    if (!r || !desc)
        return vks_api_fail(err, VKSKIN_ERROR_ARGUMENT,
                            "vkskin_renderer_frame: a renderer and a desc are needed");
    vks_frame_job job;
    if ((res = frame_job(r, desc, &job, err)) != VKSKIN_OK)
        return res;
    vks_frame_done done;
    vks_error e;
    if (!vks_renderer_frame(&r->r, &job, &done, &e))
        return vks_api_fail_from(err, &e, VKSKIN_ERROR_FAILED);
    if (info && done.drawn)
        *info = frame_info(&r->crowd->crowd, &done);
    return vks_api_ok(err);
}

vkskin_result vkskin_renderer_read_image(vkskin_renderer *r, void *rgba, vkskin_error *err)
{
    if (!r || !rgba)
        return vks_api_fail(err, VKSKIN_ERROR_ARGUMENT,
                            "vkskin_renderer_read_image: a renderer and pixels are needed");
    if (!r->r.last)
        return vks_api_fail(err, VKSKIN_ERROR_ARGUMENT,
                            "vkskin_renderer_read_image: no frame was drawn yet");
    if (!vks_target_has_image(&r->target, r->r.last->slot))
        return vks_api_fail(
            err, VKSKIN_ERROR_ARGUMENT,
            "vkskin_renderer_read_image: the last frame was not drawn with "
            "capture%s",
            vks_target_can_capture(&r->target) ? "" : " (this window cannot be copied from)");
    vks_error e;
    if (!vks_renderer_wait(&r->r, r->r.last, &e))
        return vks_api_fail_from(err, &e, VKSKIN_ERROR_FAILED);
    vks_target_read(&r->target, r->r.last->slot, rgba);
    return vks_api_ok(err);
}

vkskin_result vkskin_renderer_read_skinned(vkskin_renderer *r, uint32_t instance, float *positions,
                                           float *normals, float *tangents, uint32_t *level,
                                           vkskin_error *err)
{
    if (!r || !positions || !normals)
        return vks_api_fail(err, VKSKIN_ERROR_ARGUMENT,
                            "vkskin_renderer_read_skinned: a renderer, positions and normals are "
                            "needed");
    if (!r->r.readback || !r->r.last)
        return vks_api_fail(err, VKSKIN_ERROR_ARGUMENT, "vkskin_renderer_read_skinned: %s",
                            r->r.readback ? "no frame was drawn yet"
                                          : "the renderer was created without readback");
    if (instance >= r->crowd->crowd.instance_count)
        return vks_api_fail(err, VKSKIN_ERROR_ARGUMENT,
                            "vkskin_renderer_read_skinned: the crowd has %u instance(s): no "
                            "instance %u",
                            r->crowd->crowd.instance_count, instance);
    if (r->crowd->crowd.instances[instance].removed)
        return vks_api_fail(err, VKSKIN_ERROR_ARGUMENT,
                            "vkskin_renderer_read_skinned: instance %u was removed", instance);
    if (vks_skinner_broken(&r->r.skinner))
        return vks_api_fail(err, VKSKIN_ERROR_FAILED,
                            "vkskin_renderer_read_skinned: the renderer lost its buffers growing "
                            "them: make a new one");
    vks_error e;
    if (!vks_renderer_wait(&r->r, r->r.last, &e))
        return vks_api_fail_from(err, &e, VKSKIN_ERROR_FAILED);
    const uint32_t model = vks_skinner_skinned_model(&r->r.skinner, instance);
    if (model != UINT32_MAX && model != r->crowd->crowd.instances[instance].model)
        return vks_api_fail(err, VKSKIN_ERROR_ARGUMENT,
                            "instance %u shows another model than the last frame skinned it as",
                            instance);
    if (!vks_skinner_decode_skinned(&r->r.skinner, instance, (float(*)[3])positions,
                                    (float(*)[3])normals, (float(*)[4])tangents))
        return vks_api_fail(err, VKSKIN_ERROR_ARGUMENT,
                            "instance %u was not skinned by the last frame's compute pass (not "
                            "visible, or past the skinned output's room)",
                            instance);
    if (level)
        *level = vks_skinner_skinned_level(&r->r.skinner, instance);
    return vks_api_ok(err);
}

/* Waits for the frame last begun in `slot` and writes what the GPU measured for it: unknowns for a
 * slot no frame was submitted in (its queries were never written) or one abandoned before it was
 * (vkskin_renderer_frame returns without submitting: a minimised window's swapchain). */
static vkskin_result slot_stats(vkskin_renderer *r, uint32_t slot, vkskin_gpu_stats *stats,
                                vkskin_error *err)
{
    *stats = unknown_stats;
    vks_gpu_stats s;
    if (!vks_renderer_frame_stats(&r->r, &r->r.frames[slot], &s))
        return vks_api_fail(err, VKSKIN_ERROR_FAILED,
                            "waiting for a frame failed: the device was lost");
    *stats = public_stats(&s);
    return vks_api_ok(err);
}

vkskin_result vkskin_renderer_last_stats(vkskin_renderer *r, vkskin_gpu_stats *stats,
                                         vkskin_error *err)
{
    if (!r || !stats)
        return vks_api_fail(err, VKSKIN_ERROR_ARGUMENT,
                            "vkskin_renderer_last_stats: a renderer and stats are needed");
    if (!r->r.last) {
        *stats = unknown_stats;
        return vks_api_ok(err);
    }
    return slot_stats(r, r->r.last->slot, stats, err);
}

vkskin_result vkskin_renderer_previous_stats(vkskin_renderer *r, vkskin_gpu_stats *stats,
                                             vkskin_error *err)
{
    if (!r || !stats)
        return vks_api_fail(err, VKSKIN_ERROR_ARGUMENT,
                            "vkskin_renderer_previous_stats: a renderer and stats are needed");
    _Static_assert(GPU_FRAMES_IN_FLIGHT == 2, "the frame before the last is in the other slot");
    if (!r->r.last) {
        *stats = unknown_stats;
        return vks_api_ok(err);
    }
    return slot_stats(r, (r->r.last->slot + 1) % GPU_FRAMES_IN_FLIGHT, stats, err);
}
