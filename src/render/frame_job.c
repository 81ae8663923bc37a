/* One whole frame of the owned renderer (vks_renderer_frame), read top to bottom: the CPU half,
 * the overlays, the target's image, then the GPU half, with one way out for a frame that begun
 * and will not be submitted (vks_renderer_abandon). */
#include "renderer.h"

#include "../core/clock.h"
#include "../draw/ground.h"

#include <assert.h>
#include <string.h>

/* The failure's kind made VKS_ERROR_MEMORY where it was a plain failure: what fitting a crowd
 * and making a visibility buffer fail on. */
static bool fail_as_memory(vks_error *err)
{
    if (err->kind == VKS_ERROR_FAILED)
        err->kind = VKS_ERROR_MEMORY;
    return false;
}

/* The frame's overlays written straight into the slot's vertex buffer: the ground's, then the
 * host's, kind after kind; *o says how many of each. */
static bool frame_overlays(vks_renderer *r, const vks_frame_job *job, const vks_frame *f,
                           vks_overlay_frame *o, vks_error *err)
{
    const vks_ground g =
        job->ground ? vks_ground_plan(job->ground_lo, job->ground_hi, f->skin->visible_count)
                    : (vks_ground){0};
    *o = (vks_overlay_frame){
        .counts = {[VKS_OVERLAY_WORLD_TRIANGLES] =
                       (job->ground ? vks_ground_triangle_vertices(&g) : 0) + job->triangle_count,
                   [VKS_OVERLAY_GROUND_LINES] = vks_ground_line_vertices(&g),
                   [VKS_OVERLAY_WORLD_LINES] = job->line_count,
                   [VKS_OVERLAY_SCREEN_TRIANGLES] = job->screen_count}};
    memcpy(o->view_proj, job->prepare.view_proj, sizeof o->view_proj);
    if (!job->ground && !job->triangle_count && !job->line_count && !job->screen_count)
        return true;           /* nothing to write (and no buffer yet, perhaps) */
    assert(r->overlay.layout); /* vks_renderer_desc.overlays */
    vks_overlay_vertex *v;
    if (!vks_overlay_map(r->dev, &r->overlay, f->slot, o, &v, err))
        return false;
    if (job->ground) {
        vks_ground_write_triangles(&g, job->crowd, f->skin->visible, v);
        v += vks_ground_triangle_vertices(&g);
    }
    const struct {
        const vks_overlay_vertex *from;
        uint32_t count;
    } host[] = {{job->triangles, job->triangle_count},
                {NULL, 0},
                {job->lines, job->line_count},
                {job->screen, job->screen_count}};
    for (int k = 0; k < VKS_OVERLAY_KINDS; k++) {
        if (k == VKS_OVERLAY_GROUND_LINES) {
            vks_ground_write_lines(&g, v);
            v += vks_ground_line_vertices(&g);
        } else if (host[k].count) {
            memcpy(v, host[k].from, sizeof *v * host[k].count);
            v += host[k].count;
        }
    }
    return true;
}

typedef struct overlay_context {
    const gpu_device *dev;
    const vks_overlay_pass *pass;
    const vks_overlay_frame *frame;
    uint32_t slot;
    VkExtent2D extent;
} overlay_context;

static void record_overlay(VkCommandBuffer cmd, void *user)
{
    const overlay_context *o = user;
    vks_overlay_record(o->dev, cmd, o->pass, o->slot, o->frame, o->extent);
}

/* The vertices of the first `count` instances in the frame's order (the skinned ones first) at
 * their levels (after vks_renderer_skin): by the (model, level) runs of the GPU's order, a few
 * multiplications, not a pass over every instance. */
static uint64_t frame_vertices(const vks_crowd *c, const vks_frame *f, uint32_t count)
{
    uint64_t n = 0;
    for (uint32_t m = 0; m < c->model_count; m++)
        for (uint32_t l = 0; l < VKS_MAX_LEVELS; l++) {
            const uint32_t first = f->skin->plan.runs[m][l];
            const uint32_t end =
                f->skin->plan.runs[m][l + 1] < count ? f->skin->plan.runs[m][l + 1] : count;
            if (end > first)
                n += (uint64_t)(end - first) * vks_model_level(c->models[m], l).vertex_count;
        }
    return n;
}

/* The CPU half into the frame's lists (vks_prepare_fit made their room); with the store, the
 * store grown between the culling and its dealing when the list wants more pages (it waits for
 * the device then). False only when growing broke the renderer. */
static bool frame_prepare(vks_renderer *r, const vks_frame_job *job, vks_frame *f, vks_prepared *p,
                          vks_error *err)
{
    vks_crowd *crowd = job->crowd;
    vks_skinner *sk = &r->skinner;
    vks_prepare_job prepare = job->prepare;
    sk->pool = prepare.pool; /* the frame plan's passes too */
    /* The marks: hybrid's triangles, and the far splats (compute and hybrid). */
    prepare.raster = r->raster_mode != VKS_RASTER_HARDWARE ? f->skin->raster : NULL;
    prepare.reuse_palettes = true; /* the frame slots' palette buffers, in turn */
    if (!sk->use_store) {
        *p = vks_prepare_palettes(crowd, job->anim_lod, &prepare, f->skin->visible, f->skin->level,
                                  f->skin->palette);
    } else {
        const uint32_t listed = vks_prepare_store_list(crowd, job->anim_lod, &prepare,
                                                       f->skin->visible, f->skin->level);
        if (!vks_renderer_fit_store(r, f->skin->visible, prepare.raster, listed, err))
            return false;
        *p = vks_prepare_store_place(crowd, &sk->store, &prepare, f->skin->visible, f->skin->level,
                                     listed, f->skin->palette);
    }
    f->skin->visible_count = p->visible;
    return true;
}

bool vks_renderer_frame(vks_renderer *r, const vks_frame_job *job, vks_frame_done *done,
                        vks_error *err)
{
    *done = (vks_frame_done){0};
    vks_target *target = job->target;
    if (r->broken)
        return vks_fail(err, "an earlier frame failed to be submitted or presented: destroy the "
                             "renderer");
    if (target->window && (job->width == 0 || job->height == 0))
        return true; /* minimised: nothing to draw into */
    /* The skinned output's readback is one buffer: the frame before must be read first. */
    if (r->readback && r->last && !vks_renderer_wait(r, r->last, err))
        return false;
    /* Room for a crowd that grew: the renderer's per-instance state (it waits for the device
     * then), and what the animation level of detail keeps. */
    vks_crowd *crowd = job->crowd;
    assert(crowd == r->skinner.crowd);
    if (!vks_renderer_fit(r, err) ||
        (job->prepare.anim_lod &&
         !vks_prepare_fit(crowd, job->anim_lod, r->skinner.use_store, err)))
        return fail_as_memory(err);
    const double waiting = vks_now_ms();
    vks_frame *f = vks_renderer_begin_frame(r);
    if (!f)
        return vks_fail(err, "cannot begin a frame: the device was lost");

    /* The CPU half, the overlays (the ground's shadows follow the visible list) and the image,
     * before anything is recorded. */
    const double start = vks_now_ms();
    *f->uniforms = job->uniforms;
    /* The CPU half, then output room for what the frame draws (the store and the output each
     * wait for the device when they grow). */
    if (!frame_prepare(r, job, f, &done->prepared, err) || !vks_renderer_fit_output(r, f, err)) {
        vks_renderer_abandon(r, f);
        return fail_as_memory(err);
    }
    const double prepared_at = vks_now_ms();
    vks_overlay_frame overlay;
    vks_target_frame tf;
    vks_acquire acq = VKS_ACQUIRE_ERROR;
    if (frame_overlays(r, job, f, &overlay, err))
        acq = vks_target_acquire(target, f->slot, job->width, job->height, job->capture, &tf, err);
    if (acq != VKS_ACQUIRED) {
        vks_renderer_abandon(r, f);
        return acq == VKS_ACQUIRE_SKIP;
    }
    overlay_context context = {r->dev, &r->overlay, &overlay, f->slot, tf.draw.extent};
    tf.draw.extra = record_overlay;
    tf.draw.extra_user = &context;

    /* The GPU half. */
    vks_renderer_skin(r, f);
    const bool drawn = vks_renderer_draw(r, f, &tf.draw, err);
    if (!drawn || !vks_target_finish(target, f->cmd, &tf, err)) {
        if (!drawn) /* out of memory for the visibility buffer at this size */
            fail_as_memory(err);
        r->broken = target->window; /* the acquired image is never presented */
        vks_renderer_abandon(r, f);
        return false;
    }
    if (r->readback)
        vks_renderer_copy_skinned(r, f);
    if (!vks_renderer_submit(r, f, tf.wait, tf.signal, err)) {
        r->broken = true; /* a window's acquired image is never presented */
        return false;
    }
    vks_crowd_clear_moved(crowd); /* submitted: the instance table follows them */
    r->last = f;
    if (!vks_target_present(target, &tf, err)) {
        r->broken = true;
        return false;
    }
    done->drawn = true;
    done->frame = f;
    done->vertices = frame_vertices(crowd, f, f->skin->visible_count);
    done->skinned_vertices = frame_vertices(crowd, f, f->skin->plan.skinned_count);
    done->wait_ms = start - waiting;
    done->cpu_ms = prepared_at - start;
    done->record_ms = vks_now_ms() - prepared_at;
    return true;
}
