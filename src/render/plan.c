#include "plan.h"

#include <assert.h>

static VkDeviceSize align16(VkDeviceSize n)
{
    return (n + 15) & ~(VkDeviceSize)15;
}

VkDeviceSize vks_plan_tangent_offset(const vks_model *m)
{
    return VKS_TANGENT_OFFSET((VkDeviceSize)m->vertex_count);
}

VkDeviceSize vks_plan_output_bytes(const vks_model *m)
{
    return vks_plan_level_output_bytes(m, 0);
}

VkDeviceSize vks_plan_level_output_bytes(const vks_model *m, uint32_t level)
{
    const VkDeviceSize n = vks_model_level(m, level).vertex_count;
    return align16(VKS_TANGENT_OFFSET(n) + (m->tangents ? n * VKS_TANGENT_STRIDE : 0));
}

static VkDeviceSize vertex_bytes(const vks_model *const *models, uint32_t model_count)
{
    bool tangents = false;
    for (uint32_t m = 0; m < model_count; m++)
        tangents |= models[m]->tangents != NULL;
    return VKS_SKINNED_STRIDE + (tangents ? VKS_TANGENT_STRIDE : 0);
}

VkDeviceSize vks_plan_vertex_bytes(const vks_crowd *c)
{
    return vertex_bytes(c->models, c->model_count);
}

vks_plan_crowd vks_plan_crowd_of(const vks_crowd *c)
{
    vks_plan_crowd p = {.models = c->models,
                        .model_count = c->model_count,
                        .instance_count = c->instance_count,
                        .palette_count = c->palette_count};
    for (uint32_t i = 0; i < c->instance_count; i++)
        p.model_instances[c->instances[i].model]++;
    return p;
}

vks_plan_crowd vks_plan_crowd_dealt(const vks_model *const *models, uint32_t model_count,
                                    uint32_t instance_count)
{
    assert(model_count > 0 && model_count <= VKS_CROWD_MAX_MODELS);
    vks_plan_crowd p = {
        .models = models, .model_count = model_count, .instance_count = instance_count};
    for (uint32_t m = 0; m < model_count; m++) /* as vks_crowd_create deals the spots */
        p.model_instances[m] = vks_crowd_dealt(instance_count, model_count, m);
    p.palette_count = vks_crowd_palette_entries(models, model_count, instance_count);
    return p;
}

VkDeviceSize vks_plan_buffer_limit(const vks_plan_limits *lim, VkDeviceSize wanted)
{
    /* The storage-buffer range too: a chunk stays bindable as one descriptor, although the
     * shaders reach it by address. */
    VkDeviceSize limit = lim->max_storage_buffer_range;
    if (lim->max_memory_allocation < limit)
        limit = lim->max_memory_allocation;
    if (lim->max_buffer < limit)
        limit = lim->max_buffer;
    if (wanted && wanted < limit)
        limit = wanted;
    return limit & ~(VkDeviceSize)15;
}

static double mib(VkDeviceSize bytes)
{
    return (double)bytes / (1024.0 * 1024.0);
}

/* Bytes of one vertex's compact bind streams (vks_shared.h) as the renderer uploads them:
 * position, normal, tangent (zeros without), joints, weights, UV; a wide model's influences 5 to
 * 8 again. */
VkDeviceSize vks_plan_bind_bytes(const vks_model *m)
{
    const VkDeviceSize joints = m->skeleton.joint_count > VKS_JOINTS8_MAX ? VKS_BIND_JOINTS16_BYTES
                                                                          : VKS_BIND_JOINTS8_BYTES;
    return VKS_BIND_POSITION_BYTES + VKS_BIND_NORMAL_BYTES + VKS_BIND_TANGENT_BYTES + joints +
           VKS_BIND_WEIGHTS_BYTES + sizeof(float[2]) +
           (vks_model_wide(m) ? joints + VKS_BIND_WEIGHTS_BYTES : 0);
}

/* Bytes of the models' bind streams, indices, table entries, morph targets (the morph buffer:
 * each target's record and deltas, a source word per vertex) and textures (a mip chain adds a
 * third). */
static VkDeviceSize model_bytes(const vks_plan_crowd *crowd, bool raster_materials)
{
    VkDeviceSize bytes = 0;
    for (uint32_t m = 0; m < crowd->model_count; m++) {
        const vks_model *model = crowd->models[m];
        /* Level 0 and the levels of detail's copies; their indices. */
        bytes += ((VkDeviceSize)model->vertex_count + model->lod_vertex_count) *
                     vks_plan_bind_bytes(model) +
                 ((VkDeviceSize)model->index_count + model->lod_index_count) * sizeof(uint32_t) +
                 sizeof(vks_model_gpu);
        bytes +=
            vks_morph_gpu_bytes(model, (uint64_t)model->vertex_count + model->lod_vertex_count);
        /* The textures' mip chains, and with the compute rasterizer their copy in its materials
         * buffer beside its table (at most this: it may leave top levels out). */
        for (uint32_t t = 0; t < model->texture_count; t++)
            bytes += (VkDeviceSize)model->textures[t].width * model->textures[t].height * 4 * 4 /
                     3 * (raster_materials ? 2 : 1);
        if (raster_materials)
            bytes += (VkDeviceSize)model->material_count * sizeof(vks_raster_material);
    }
    return bytes;
}

/* How many instances of `per` bytes fit in `budget` after `fixed`, at most the crowd limit. */
static uint32_t fit(VkDeviceSize budget, VkDeviceSize fixed, VkDeviceSize per)
{
    if (budget < fixed || per == 0)
        return 0;
    VkDeviceSize k = (budget - fixed) / per;
    return k > VKS_CROWD_MAX_INSTANCES ? VKS_CROWD_MAX_INSTANCES : (uint32_t)k;
}

bool vks_plan_memory_of(const vks_plan_limits *lim, const vks_crowd *crowd,
                        const vks_plan_request *req, vks_plan_memory *out, vks_error *err)
{
    const vks_plan_crowd shape = vks_plan_crowd_of(crowd);
    return vks_plan_counts(lim, &shape, req, out, err);
}

/* With the store, the instance table and the visible lists are one buffer each; without it, the
 * palettes of a frame too (and their indices stay below 2^28: a palette_first's top bits name
 * a store's page, shaders/vks_shared.h). False when one is past the largest buffer, with how
 * many instances fit. */
static bool check_buffers(const vks_plan_limits *lim, const vks_plan_crowd *crowd, bool store,
                          vks_error *err)
{
    const uint32_t n = crowd->instance_count;
    const VkDeviceSize limit = vks_plan_buffer_limit(lim, 0);
    const VkDeviceSize palettes = (VkDeviceSize)crowd->palette_count * sizeof(vks_bone);
    const VkDeviceSize table = (VkDeviceSize)n * sizeof(vks_instance);
    const VkDeviceSize visible = (VkDeviceSize)n * sizeof(vks_visible);
    if (store && (table > limit || visible > limit)) {
        const VkDeviceSize k = limit / sizeof(vks_instance); /* the larger of the two entries */
        return vks_fail_memory(err,
                               "a crowd of %u instances needs a %.0f MiB instance table and "
                               "%.0f MiB visible lists, one buffer each, and the largest buffer "
                               "is %.0f MiB: at most %llu instances fit",
                               n, mib(table), mib(visible), mib(limit), (unsigned long long)k);
    }
    if (!store && (palettes > limit || table > limit || visible > limit ||
                   crowd->palette_count > VKS_PALETTE_PAGE_MASK)) {
        VkDeviceSize per =
            palettes / n > sizeof(vks_instance) ? palettes / n : sizeof(vks_instance);
        VkDeviceSize k = limit / (per ? per : 1);
        VkDeviceSize k_index = (VkDeviceSize)VKS_PALETTE_PAGE_MASK / (crowd->palette_count / n + 1);
        return vks_fail_memory(
            err,
            "a crowd of %u instances needs %.0f MiB of palettes per frame and a "
            "%.0f MiB instance table, one buffer each, and the largest buffer is "
            "%.0f MiB: at most %llu instances fit",
            n, mib(palettes), mib(table), mib(limit),
            (unsigned long long)(k < k_index ? k : k_index));
    }
    return true;
}

/* The crowd's footprint as vks_plan_counts builds it up: the per-instance costs with the palette
 * store holding every instance's palette (lin_*) and capped (cap_*, beside the capped store's
 * fixed cap_device and cap_host), then the parts that do not grow with the crowd and this
 * crowd's totals. */
typedef struct plan_footprint {
    /* The capped store's bytes (0 uncapped): on the device, and per frame in host memory. */
    VkDeviceSize store_fixed;
    VkDeviceSize cap_device, cap_host, cap_per_device, cap_per_host;
    VkDeviceSize lin_per_device, lin_per_host;
    VkDeviceSize fixed;                 /* device-local, whatever the crowd: models and image */
    VkDeviceSize image_host;            /* the image's readback copies */
    VkDeviceSize least;                 /* the skinned output's least size, every copy's */
    VkDeviceSize dev_state, host_state; /* this crowd's, the output aside */
} plan_footprint;

/* The palette store's size and the per-instance costs: into m's palette_store_* and
 * per_instance_*, and f's store_fixed, cap_* and lin_*. */
static void instance_costs(const vks_plan_limits *lim, const vks_plan_crowd *crowd,
                           const vks_plan_request *req, vks_plan_memory *m, plan_footprint *f)
{
    const uint32_t n = crowd->instance_count;
    const bool store = req->palette_store;
    const VkDeviceSize palettes = (VkDeviceSize)crowd->palette_count * sizeof(vks_bone);
    /* Per instance, rounded up so that n instances never need more than n times it. */
    VkDeviceSize bones = (palettes + n - 1) / n;
    /* The store holds what one buffer can (a page's entries, below 2^28): every instance's
     * palette, or that many entries. Uncapped, it grows with the crowd like the staging; capped,
     * both are fixed (with output_on_demand, the first of the store's pages: vks_plan_counts
     * says how many it may grow to). */
    VkDeviceSize cap = vks_plan_buffer_limit(lim, req->buffer_limit) / sizeof(vks_bone);
    cap = cap < VKS_PALETTE_PAGE_MASK ? cap : VKS_PALETTE_PAGE_MASK;
    /* Pages (capped, output_on_demand) of 64 entries' multiples, 3 KiB: each page's staging
     * follows the one before in one allocation, at any buffer alignment up to 1 KiB. */
    if (store && req->output_on_demand && crowd->palette_count > cap)
        cap &= ~(VkDeviceSize)63;
    m->palette_store_capped = store && crowd->palette_count > cap;
    m->palette_store_entries =
        store ? (uint32_t)(m->palette_store_capped ? cap : crowd->palette_count) : 0;
    f->store_fixed = m->palette_store_capped ? cap * sizeof(vks_bone) : 0;
    const VkDeviceSize store_bones = store && !m->palette_store_capped ? bones : 0;
    m->per_instance_device = sizeof(vks_instance) + store_bones;
    /* With the store, each frame slot also holds a scatter record per instance (at most every
     * instance is posed in a frame). */
    const VkDeviceSize record =
        (store ? sizeof(vks_scatter_record) : 0) +
        (req->instance_updates ? sizeof(vks_instance) + sizeof(vks_scatter_record) : 0);
    m->per_instance_host = GPU_FRAMES_IN_FLIGHT *
                           ((m->palette_store_capped ? 0 : bones) + sizeof(vks_visible) + record);
    /* For how many fit: the capped store's costs (fixed) beside the growing ones; the crowd fits
     * when either bound holds (its store is the smaller of the two). */
    f->cap_device = cap * sizeof(vks_bone);
    f->cap_host = GPU_FRAMES_IN_FLIGHT * f->cap_device;
    f->cap_per_device = sizeof(vks_instance);
    f->cap_per_host = GPU_FRAMES_IN_FLIGHT * (sizeof(vks_visible) + record);
    f->lin_per_device = sizeof(vks_instance) + (store ? bones : 0);
    f->lin_per_host = GPU_FRAMES_IN_FLIGHT * (bones + sizeof(vks_visible) + record);
}

/* The skinned outputs of the crowd's instances: their sum, the largest (and whose) and the
 * smallest. */
typedef struct plan_outputs {
    VkDeviceSize total, largest, smallest;
    const vks_model *widest;
} plan_outputs;

static plan_outputs outputs_of(const vks_plan_crowd *crowd)
{
    plan_outputs o = {.smallest = UINT64_MAX};
    for (uint32_t i = 0; i < crowd->model_count; i++) {
        if (!crowd->model_instances[i])
            continue;
        const vks_model *model = crowd->models[i];
        VkDeviceSize b = vks_plan_output_bytes(model);
        o.total += b * crowd->model_instances[i];
        o.smallest = b < o.smallest ? b : o.smallest;
        if (b > o.largest) {
            o.largest = b;
            o.widest = model;
        }
    }
    return o;
}

/* The headless image alone must fit: its color and depth images on the device, its readback
 * copies in host-visible memory. */
static bool check_image(const vks_plan_limits *lim, const vks_plan_request *req, vks_error *err)
{
    const VkDeviceSize local = lim->device_heap, host = lim->host_heap;
    const VkDeviceSize image_dev = req->image.device_bytes, image_host = req->image.host_bytes;
    if (host ? image_dev > local || image_host > host : image_dev + image_host > local)
        return vks_fail_memory(err,
                               "a %ux%u image needs %.0f MiB of GPU memory (%s) and "
                               "%.0f MiB to read it back, more than %s has (%.0f MiB "
                               "device-local%s)",
                               req->image.width, req->image.height, mib(image_dev),
                               req->image.visibility
                                   ? "color, depth and the compute rasterizer's visibility buffers"
                                   : "color and depth",
                               mib(image_host), lim->name, mib(local),
                               host ? ", plus host memory" : ", shared with the host");
    return true;
}

/* Whether the crowd's state and the least output fit the heaps (separate heaps: each must hold
 * its part); *k: how many instances would, *left: the device-local memory left for the output
 * (0 when the crowd does not fit). */
static bool fit_crowd(const vks_plan_limits *lim, const plan_footprint *f, bool store, uint32_t *k,
                      VkDeviceSize *left)
{
    const VkDeviceSize local = lim->device_heap, host = lim->host_heap;
    uint32_t k_cap = 0;
    bool fits;
    if (host) {
        uint32_t kd = fit(local, f->fixed + f->least, f->lin_per_device);
        uint32_t kh = fit(host, f->image_host, f->lin_per_host);
        *k = kd < kh ? kd : kh;
        if (store) {
            kd = fit(local, f->fixed + f->least + f->cap_device, f->cap_per_device);
            kh = fit(host, f->image_host + f->cap_host, f->cap_per_host);
            k_cap = kd < kh ? kd : kh;
        }
        fits = f->dev_state + f->least <= local && f->host_state <= host;
        *left = fits ? local - f->dev_state : 0;
    } else {
        *k = fit(local, f->fixed + f->image_host + f->least, f->lin_per_device + f->lin_per_host);
        if (store)
            k_cap = fit(local, f->fixed + f->image_host + f->least + f->cap_device + f->cap_host,
                        f->cap_per_device + f->cap_per_host);
        fits = f->dev_state + f->host_state + f->least <= local;
        *left = fits ? local - f->dev_state - f->host_state : 0;
    }
    *k = *k > k_cap ? *k : k_cap;
    return fits;
}

/* The skinned output's capacity, one copy of `sets`, when no vertex count was asked for: every
 * output at once, or half of what is `left` (at least one largest output). */
static VkDeviceSize output_share(const plan_outputs *o, VkDeviceSize chunk, VkDeviceSize left,
                                 uint32_t sets)
{
    /* Every output at once, dealt into chunks: a chunk closes only when the next output (at most
     * `largest`) does not fit, so a closed chunk holds more than chunk - largest bytes, that is
     * at least chunk - largest + 16 (outputs and chunks are multiples of 16), and at least one
     * output: total / that + 1 chunks hold them all, whatever the order. */
    VkDeviceSize half = (left / 2 / sets) & ~(VkDeviceSize)15, all = o->total;
    if (o->total > chunk) {
        VkDeviceSize per =
            chunk - o->largest + 16 > o->smallest ? chunk - o->largest + 16 : o->smallest;
        VkDeviceSize chunks = o->total / per + 1;
        all = chunks > half / chunk ? half + 16 : chunks * chunk; /* no overflow */
    }
    return all < half ? all : half > o->largest ? half : o->largest;
}

bool vks_plan_counts(const vks_plan_limits *lim, const vks_plan_crowd *crowd,
                     const vks_plan_request *req, vks_plan_memory *out, vks_error *err)
{
    assert(crowd->instance_count > 0);
    const uint32_t n = crowd->instance_count;
    const bool store = req->palette_store;
    if (!check_buffers(lim, crowd, store, err))
        return false;
    vks_plan_memory m = {.model_bytes = model_bytes(crowd, req->raster_materials)};
    plan_footprint f;
    instance_costs(lim, crowd, req, &m, &f);

    /* The output's least size: what was asked for, or one largest instance's output, which
     * must fit in one buffer. */
    const plan_outputs o = outputs_of(crowd);
    const VkDeviceSize chunk = vks_plan_buffer_limit(lim, req->buffer_limit);
    if (req->mode == VKS_SKIN_COMPUTE && o.largest > chunk)
        return vks_fail_memory(
            err,
            "one instance of %s needs %llu bytes of skinned vertices, more than the "
            "largest buffer (%llu bytes)",
            o.widest->name, (unsigned long long)o.largest, (unsigned long long)chunk);
    VkDeviceSize least = 0; /* one copy's */
    if (req->mode == VKS_SKIN_COMPUTE)
        least = req->max_skinned_vertices ? align16((VkDeviceSize)req->max_skinned_vertices *
                                                    vertex_bytes(crowd->models, crowd->model_count))
                                          : o.largest;
    const uint32_t sets = req->output_sets ? req->output_sets : 1;
    const VkDeviceSize least_one = least;
    f.least = least * sets; /* every copy's */

    const VkDeviceSize local = lim->device_heap, host = lim->host_heap;
    /* The headless image: alone it must fit; with the crowd it is a fixed part. */
    if (!check_image(lim, req, err))
        return false;
    f.image_host = req->image.host_bytes;
    f.fixed = m.model_bytes + req->image.device_bytes; /* device-local, whatever the crowd */
    if (req->mode == VKS_SKIN_COMPUTE && req->max_skinned_vertices && f.fixed + f.least > local)
        return vks_fail_memory(
            err,
            "room for %u skinned vertices (--max-skinned-vertices) takes %.0f MiB, "
            "and with the models more than %s has (%.0f MiB device-local)",
            req->max_skinned_vertices, mib(f.least), lim->name, mib(local));
    f.dev_state = f.fixed + f.store_fixed + (VkDeviceSize)n * m.per_instance_device;
    f.host_state =
        f.image_host + GPU_FRAMES_IN_FLIGHT * f.store_fixed + (VkDeviceSize)n * m.per_instance_host;
    uint32_t k;
    VkDeviceSize left; /* device-local memory left for the output */
    if (!fit_crowd(lim, &f, store, &k, &left))
        return vks_fail_memory(
            err,
            "a crowd of %u instances needs %.0f MiB of GPU memory for its models%s, "
            "%.0f MiB for its palettes%s and visible lists and at "
            "least %llu KiB of skinned output, more than %s has (%.0f MiB "
            "device-local%s): at most %u instances fit",
            n, mib(f.dev_state),
            store ? ", instance table and palette store" : " and instance table", mib(f.host_state),
            store ? " (staged)" : "", (unsigned long long)((f.least + 1023) / 1024), lim->name,
            mib(local), host ? ", plus host memory" : ", shared with the host", k);
    if (req->mode == VKS_SKIN_COMPUTE) {
        m.output_most = req->max_skinned_vertices ? least_one : output_share(&o, chunk, left, sets);
        m.output_bytes =
            req->output_on_demand && !req->max_skinned_vertices ? least_one : m.output_most;
    }
    /* A store one buffer cannot hold is paged when the renderer grows it (output_on_demand): one
     * page to start, and as many more as hold in the half of the device-local memory left that
     * the output does not take, each with its staging in every frame slot (in what is left of the
     * host heap, or, one heap, in that same half), and as one allocation holds (the staging's
     * pages are one). */
    m.palette_store_pages = m.palette_store_entries ? 1 : 0;
    if (m.palette_store_capped && req->output_on_demand) {
        const VkDeviceSize page = (VkDeviceSize)m.palette_store_entries * sizeof(vks_bone);
        VkDeviceSize more;
        if (host) {
            const VkDeviceSize host_left = host > f.host_state ? host - f.host_state : 0;
            const VkDeviceSize by_device = left / 2 / page;
            const VkDeviceSize by_host = host_left / (GPU_FRAMES_IN_FLIGHT * page);
            more = by_device < by_host ? by_device : by_host;
        } else {
            more = left / 2 / ((1 + GPU_FRAMES_IN_FLIGHT) * page);
        }
        const VkDeviceSize joined = lim->max_memory_allocation / page;
        more = joined - 1 < more ? joined - 1 : more;
        m.palette_store_pages =
            1 + (more < VKS_PALETTE_PAGES - 1 ? (uint32_t)more : VKS_PALETTE_PAGES - 1);
    }
    m.device_bytes = f.dev_state + m.output_bytes * sets;
    m.host_bytes = f.host_state;
    *out = m;
    return true;
}

uint32_t vks_plan_chunk_count(VkDeviceSize output_bytes, VkDeviceSize limit)
{
    assert(limit > 0);
    VkDeviceSize k = (output_bytes + limit - 1) / limit;
    assert(k <= UINT32_MAX);
    return (uint32_t)k;
}

uint32_t vks_plan_frame(const vks_crowd *c, const uint32_t *visible, const uint8_t *levels,
                        uint32_t count, VkDeviceSize output_bytes, VkDeviceSize limit,
                        VkDeviceSize *offset)
{
    VkDeviceSize at = 0;                                                  /* the next free byte */
    VkDeviceSize chunk_end = limit < output_bytes ? limit : output_bytes; /* of at's chunk */
    /* The last entry's model and level, and its output's bytes: a frame's list comes in runs of
     * one model and level (the renderer's order), so the lookups are rare. */
    uint32_t model = UINT32_MAX, level = UINT32_MAX;
    VkDeviceSize bytes = 0;
    for (uint32_t s = 0; s < count; s++) {
        const uint32_t i = visible[s], l = levels ? levels[s] : 0;
        if (c->model_of[i] != model || l != level) {
            model = c->model_of[i];
            level = l;
            bytes = vks_plan_level_output_bytes(c->models[model], l);
        }
        if (at + bytes > chunk_end) { /* the next chunk, when there is one */
            at = chunk_end;
            chunk_end = at + limit < output_bytes ? at + limit : output_bytes;
            if (at + bytes > chunk_end)
                return s;
        }
        offset[s] = at;
        at += bytes;
    }
    return count;
}
