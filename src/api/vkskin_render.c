/* The public API's owned device (include/vkskin/vkskin_render.h): the device and its surface
 * (gpu/gpu.h), the renderer (render/renderer.h), a target (target/offscreen.h or
 * target/swapchain.h), and the frame that strings the crowd's culling, levels of detail and
 * posing (scene/crowd.h) to the renderer's passes. */
#include "render_api.h"

#include "core/clock.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

_Static_assert(VKSKIN_MAX_LEVELS == VKS_MAX_LEVELS, "the public level count is the engine's");

uint32_t vks_api_renderers;

vkskin_result vkskin_list_devices(vkskin_device_info *devices, uint32_t capacity, uint32_t *count,
                                  vkskin_error *err)
{
    if (!count || (capacity && !devices))
        return vks_api_fail(err, VKSKIN_ERROR_ARGUMENT,
                            "vkskin_list_devices: count (and devices for a capacity) are needed");
    if (vks_api_gpus() || vks_api_renderers)
        return vks_api_fail(err, VKSKIN_ERROR_ARGUMENT,
                            "vkskin_list_devices: vkskin works on a device already (one device "
                            "per process: its Vulkan functions are loaded from it)");
    gpu_device_entry *entries = capacity ? calloc(capacity, sizeof *entries) : NULL;
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
    free(entries);
    return ok ? vks_api_ok(err) : vks_api_fail_from(err, &e, VKSKIN_ERROR_FAILED);
}

/* A desc's mistakes, before any device is opened. */
static vkskin_result check_desc(const vkskin_renderer_desc *d, vkskin_error *err)
{
    if (!d->crowd)
        return vks_api_fail(err, VKSKIN_ERROR_ARGUMENT,
                            "vkskin_renderer_create: a crowd is needed");
    if (d->mode != VKSKIN_SKIN_COMPUTE && d->mode != VKSKIN_SKIN_VERTEX)
        return vks_api_fail(err, VKSKIN_ERROR_ARGUMENT, "vkskin_renderer_create: no skin mode %d",
                            (int)d->mode);
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
    if (d->readback && d->mode != VKSKIN_SKIN_COMPUTE)
        return vks_api_fail(err, VKSKIN_ERROR_ARGUMENT,
                            "vkskin_renderer_create: readback needs the compute mode");
    if (d->instance_extension_count && !d->instance_extensions)
        return vks_api_fail(err, VKSKIN_ERROR_ARGUMENT,
                            "vkskin_renderer_create: instance_extensions is NULL");
    if (d->device > (uint32_t)INT32_MAX + 1)
        return vks_api_fail(err, VKSKIN_ERROR_ARGUMENT, "vkskin_renderer_create: no device %u",
                            d->device);
    if (vks_api_gpus() || vks_api_renderers)
        return vks_api_fail(err, VKSKIN_ERROR_ARGUMENT,
                            "vkskin works on a device already: one device per process (destroy "
                            "the other vkskin_renderer or vkskin_gpu first)");
    return VKSKIN_OK;
}

vkskin_result vkskin_renderer_create(const vkskin_renderer_desc *desc, vkskin_renderer **renderer,
                                     vkskin_error *err)
{
    if (renderer)
        *renderer = NULL;
    if (!desc || !renderer)
        return vks_api_fail(err, VKSKIN_ERROR_ARGUMENT,
                            "vkskin_renderer_create: desc and renderer are needed");
    vkskin_result res = check_desc(desc, err);
    if (res != VKSKIN_OK)
        return res;
    struct vkskin_renderer *r = calloc(1, sizeof *r);
    if (!r)
        return vks_api_fail(err, VKSKIN_ERROR_OUT_OF_MEMORY, "out of memory for a renderer");
    r->crowd = desc->crowd;
    r->window = desc->create_surface != NULL;
    r->readback = desc->readback;
    r->prepare = (vkskin_prepare_desc){.fixed_lod = desc->fixed_lod,
                                       .lod = desc->lod,
                                       .lod_error_px = desc->lod_error_px,
                                       .pose_every_frame = desc->pose_every_frame};
    r->extent = (VkExtent2D){desc->width ? desc->width : 1280, desc->height ? desc->height : 720};
    vks_api_renderers++;

    const char *env = getenv("VKSKIN_VALIDATE");
    const gpu_device_desc dd = {
        .device_index = desc->device ? (int32_t)(desc->device - 1) : -1,
        .validate = desc->validate || (env && strcmp(env, "1") == 0),
        .instance_extensions = desc->instance_extensions,
        .instance_extension_count = desc->instance_extension_count,
        .create_surface = desc->create_surface,
        .surface_user = desc->surface_user,
    };
    vks_crowd *crowd = &r->crowd->crowd;
    vks_error e;
    /* What the animation level of detail keeps, now: a frame cannot fail on it later. */
    bool ok = (desc->pose_every_frame || vks_api_crowd_anim_lod(r->crowd) ||
               vks_fail_memory(&e, "out of memory for the last poses of %u instances",
                               crowd->instance_count)) &&
              gpu_device_create(&dd, &r->dev, &e);
    if (ok && r->window)
        ok = vks_swapchain_create(&r->dev, vks_draw_depth_format(&r->dev), !desc->no_vsync,
                                  &r->swapchain, &e);
    if (ok) {
        const vks_renderer_desc rd = {
            .crowd = crowd,
            .color_format = r->window ? r->swapchain.format.format : VKS_OFFSCREEN_FORMAT,
            .mode = desc->mode == VKSKIN_SKIN_VERTEX ? VKS_SKIN_VERTEX : VKS_SKIN_COMPUTE,
            .group_size = desc->group_size,
            .readback = desc->readback,
            .buffer_limit = desc->max_buffer_bytes,
            .palettes_on_device = desc->palettes_on_device,
            .max_skinned_vertices = desc->max_skinned_vertices,
            .memory_limit = (VkDeviceSize)desc->max_memory_mib << 20,
        };
        ok = vks_renderer_create(&r->dev, &rd, &r->r, &e);
        if (!ok)
            r->r.dev = NULL;
    }
    if (ok && !r->window)
        ok = vks_offscreen_create(&r->dev, r->extent.width, r->extent.height,
                                  r->r.draw.depth_format, &r->offscreen, &e);
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
        vkDeviceWaitIdle(r->dev.device);
    if (r->r.dev)
        vks_renderer_destroy(&r->r);
    if (r->offscreen.color.image)
        vks_offscreen_destroy(&r->dev, &r->offscreen);
    vks_swapchain_destroy(&r->swapchain);
    const gpu_messages m = gpu_device_destroy(&r->dev); /* vkDestroyInstance may report too */
    if (messages)
        *messages = (vkskin_messages){.errors = m.error, .warnings = m.warning};
    free(r);
    vks_api_renderers--;
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
        .group_size = r->r.mode == VKS_SKIN_COMPUTE ? r->r.skin.group_size : 0,
        .max_skinned_vertices = r->r.mode == VKS_SKIN_COMPUTE
                                    ? r->r.memory.output_bytes / vks_plan_vertex_bytes(r->r.crowd)
                                    : 0,
        .color_format = r->r.draw.color_format,
        .swapchain_rebuilds = r->swapchain.rebuilds,
        .width = r->extent.width,
        .height = r->extent.height,
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
    const float *vp = view->view_proj; /* column-major: element (row k, column c) at 4 c + k */
    const float back_x = -vp[3], back_z = -vp[11];
    const float yaw = back_x == 0.0f && back_z == 0.0f ? 0.0f : atan2f(back_x, back_z);
    /* Key light from the camera's upper left, so the lit side faces the viewer. */
    float lx = sinf(yaw - 0.6f), lz = cosf(yaw - 0.6f), ly = 1.1f;
    float len = sqrtf(lx * lx + ly * ly + lz * lz);
    const float light[4] = {lx / len, ly / len, lz / len, 0.0f};
    const float light_color[4] = {0.85f, 0.82f, 0.78f, 0.0f};
    const float ambient[4] = {0.22f, 0.24f, 0.28f, 0.0f};
    memcpy(u->light_dir, light, sizeof light);
    memcpy(u->light_color, light_color, sizeof light_color);
    memcpy(u->ambient, ambient, sizeof ambient);
}

static vkskin_result check_view(const vkskin_view *view, vkskin_error *err)
{
    if (!view)
        return vks_api_fail(err, VKSKIN_ERROR_ARGUMENT, "vkskin_renderer_frame: a view is needed");
    for (int k = 0; k < 16; k++)
        if (!isfinite(view->view_proj[k]))
            return vks_api_fail(err, VKSKIN_ERROR_ARGUMENT,
                                "vkskin_renderer_frame: view_proj element %d is not finite", k);
    for (int k = 0; k < 3; k++)
        if (!isfinite(view->eye[k]))
            return vks_api_fail(err, VKSKIN_ERROR_ARGUMENT,
                                "vkskin_renderer_frame: the eye is not finite");
    return VKSKIN_OK;
}

/* The vertices of the first `count` instances in the frame's order (the skinned ones first) at
 * their levels (after vks_renderer_skin). */
static uint64_t frame_vertices(const vks_crowd *c, const vks_frame *f, uint32_t count)
{
    uint64_t n = 0;
    for (uint32_t s = 0; s < count; s++)
        n += vks_model_level(c->models[c->instances[f->order[s]].model], f->order_level[s])
                 .vertex_count;
    return n;
}

static vkskin_gpu_stats public_stats(const vks_gpu_stats *s)
{
    return (vkskin_gpu_stats){.skin_ms = s->skin_ms,
                              .draw_ms = s->draw_ms,
                              .triangles = s->primitives,
                              .skin_invocations = s->skin_invocations};
}

static const vkskin_gpu_stats unknown_stats = {-1.0, -1.0, UINT64_MAX, UINT64_MAX};

vkskin_result vkskin_renderer_frame(vkskin_renderer *r, const vkskin_frame_desc *desc,
                                    vkskin_frame_info *info, vkskin_error *err)
{
    if (info)
        *info = (vkskin_frame_info){.gpu = unknown_stats};
    if (!r || !desc)
        return vks_api_fail(err, VKSKIN_ERROR_ARGUMENT,
                            "vkskin_renderer_frame: a renderer and a desc are needed");
    vkskin_result res = check_view(desc->view, err);
    if (res != VKSKIN_OK)
        return res;
    if (r->broken)
        return vks_api_fail(err, VKSKIN_ERROR_FAILED,
                            "an earlier frame failed to be submitted or presented: destroy the "
                            "renderer");
    if (r->window && (desc->width == 0 || desc->height == 0))
        return vks_api_ok(err); /* minimised: nothing to draw into */
    vks_error e;
    /* The skinned output's readback is one buffer: the frame before must be read first. */
    if (r->readback && r->last && !vks_renderer_wait(&r->r, r->last, &e))
        return vks_api_fail_from(err, &e, VKSKIN_ERROR_FAILED);
    vks_frame *f = vks_renderer_begin_frame(&r->r);
    if (!f)
        return vks_api_fail(err, VKSKIN_ERROR_FAILED, "cannot begin a frame: the device was lost");

    /* The CPU half first: it cannot fail (the view is checked, the animation level of detail's
     * memory allocated at creation), but nothing is acquired yet should it. */
    const double start = vks_now_ms();
    vks_crowd *crowd = &r->crowd->crowd;
    frame_uniforms(desc->view, f->uniforms);
    vkskin_prepare_desc prepare = r->prepare;
    prepare.view = desc->view;
    prepare.height = r->window ? desc->height : r->extent.height;
    vkskin_prepared prepared;
    res = vkskin_crowd_prepare(r->crowd, &prepare, f->visible, f->level, (float *)f->palette,
                               &prepared, err);
    const double cpu_ms = vks_now_ms() - start;
    vks_swapchain_frame wf = {0};
    vks_acquire acq = VKS_ACQUIRED;
    if (res == VKSKIN_OK && r->window)
        acq = vks_swapchain_acquire(&r->swapchain, f->slot, desc->width, desc->height, &wf, &e);
    if (res != VKSKIN_OK || acq != VKS_ACQUIRED) {
        f->visible_count = 0;
        vkEndCommandBuffer(f->cmd); /* recorded nothing; reset by the slot's next frame */
        return res != VKSKIN_OK          ? res
               : acq == VKS_ACQUIRE_SKIP ? vks_api_ok(err)
                                         : vks_api_fail_from(err, &e, VKSKIN_ERROR_FAILED);
    }
    f->visible_count = prepared.visible;
    const vks_draw_target target = r->window ? wf.target : vks_offscreen_target(&r->offscreen);
    r->extent = target.extent;

    vks_renderer_skin(&r->r, f);
    vks_renderer_draw(&r->r, f, &target);
    if (!r->window)
        vks_offscreen_copy(f->cmd, &r->offscreen, f->slot);
    if (r->readback)
        vks_renderer_copy_skinned(&r->r, f);
    if (!vks_renderer_submit(&r->r, f, wf.acquired, wf.presentable, &e)) {
        r->broken = true; /* the window's acquired image is never presented */
        return vks_api_fail_from(err, &e, VKSKIN_ERROR_FAILED);
    }
    r->last = f;
    if (r->window && !vks_swapchain_present(&r->swapchain, &wf, &e)) {
        r->broken = true;
        return vks_api_fail_from(err, &e, VKSKIN_ERROR_FAILED);
    }
    if (info) {
        *info = (vkskin_frame_info){
            .drawn = true,
            .visible = f->visible_count,
            .posed = prepared.posed,
            .skinned = f->skinned_count,
            .overflow = f->overflow_count,
            .overflow_vertices = f->overflow_vertices,
            .vertices = frame_vertices(crowd, f, f->visible_count),
            .skinned_vertices = frame_vertices(crowd, f, f->skinned_count),
            .cpu_ms = cpu_ms,
            .gpu = public_stats(&f->stats),
        };
        memcpy(info->level_instances, f->level_instances, sizeof info->level_instances);
        for (uint32_t m = 0; m < crowd->model_count; m++)
            info->model_instances[m] = f->runs[m][VKS_MAX_LEVELS] - f->runs[m][0];
    }
    return vks_api_ok(err);
}

vkskin_result vkskin_renderer_read_image(vkskin_renderer *r, void *rgba, vkskin_error *err)
{
    if (!r || !rgba)
        return vks_api_fail(err, VKSKIN_ERROR_ARGUMENT,
                            "vkskin_renderer_read_image: a renderer and pixels are needed");
    if (r->window)
        return vks_api_fail(err, VKSKIN_ERROR_ARGUMENT,
                            "vkskin_renderer_read_image: the renderer draws into a window");
    if (!r->last)
        return vks_api_fail(err, VKSKIN_ERROR_ARGUMENT,
                            "vkskin_renderer_read_image: no frame was drawn yet");
    vks_error e;
    if (!vks_renderer_wait(&r->r, r->last, &e))
        return vks_api_fail_from(err, &e, VKSKIN_ERROR_FAILED);
    memcpy(rgba, vks_offscreen_pixels(&r->dev, &r->offscreen, r->last->slot),
           (size_t)r->extent.width * r->extent.height * 4);
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
    if (!r->readback || !r->last)
        return vks_api_fail(err, VKSKIN_ERROR_ARGUMENT, "vkskin_renderer_read_skinned: %s",
                            r->readback ? "no frame was drawn yet"
                                        : "the renderer was created without readback");
    if (instance >= r->crowd->crowd.instance_count)
        return vks_api_fail(err, VKSKIN_ERROR_ARGUMENT,
                            "vkskin_renderer_read_skinned: the crowd has %u instance(s): no "
                            "instance %u",
                            r->crowd->crowd.instance_count, instance);
    vks_error e;
    if (!vks_renderer_wait(&r->r, r->last, &e))
        return vks_api_fail_from(err, &e, VKSKIN_ERROR_FAILED);
    if (!vks_renderer_decode_skinned(&r->r, instance, (float(*)[3])positions, (float(*)[3])normals,
                                     (float(*)[4])tangents))
        return vks_api_fail(err, VKSKIN_ERROR_ARGUMENT,
                            "instance %u was not skinned by the last frame's compute pass (not "
                            "visible, or past the skinned output's room)",
                            instance);
    if (level)
        *level = vks_renderer_skinned_level(&r->r, instance);
    return vks_api_ok(err);
}

vkskin_result vkskin_renderer_last_stats(vkskin_renderer *r, vkskin_gpu_stats *stats,
                                         vkskin_error *err)
{
    if (!r || !stats)
        return vks_api_fail(err, VKSKIN_ERROR_ARGUMENT,
                            "vkskin_renderer_last_stats: a renderer and stats are needed");
    *stats = unknown_stats;
    if (!r->last)
        return vks_api_ok(err);
    vks_gpu_stats s;
    if (!vks_renderer_frame_stats(&r->r, r->last, &s))
        return vks_api_fail(err, VKSKIN_ERROR_FAILED,
                            "waiting for the last frame failed: the "
                            "device was lost");
    *stats = public_stats(&s);
    return vks_api_ok(err);
}
