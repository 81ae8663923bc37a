/* Instances that come and go (crowd.h): added, removed, given another model, restored. The
 * per-instance arrays grow by doubling; palette ranges are dealt at the end and packed again when
 * more than half of the entries lie unused. */
#include "crowd_impl.h"
#include "../core/alloc.h"

#include <string.h>

/* *p (used entries of `size` bytes) made room for `capacity`, the new entries filled with `fill`
 * bytes. NULL arrays stay NULL (not allocated yet: allocated at their size when first needed). */
static bool grow(void *p, size_t size, size_t used, size_t capacity, int fill)
{
    void **array = p;
    if (!*array)
        return true;
    void *bigger = vks_realloc(*array, size * capacity);
    if (!bigger)
        return false;
    memset((char *)bigger + size * used, fill, size * (capacity - used));
    *array = bigger;
    return true;
}

/* Room for `instances` instances and `entries` palette entries: each array that is short
 * doubles (or more). False when out of memory (the arrays grown so far stay grown: harmless). */
static bool crowd_reserve(vks_crowd *c, uint64_t instances, uint64_t entries)
{
    if (instances > VKS_CROWD_MAX_INSTANCES || entries > UINT32_MAX)
        return false;
    if (instances > c->instance_capacity) {
        uint64_t cap = (uint64_t)c->instance_capacity * 2;
        cap = cap < instances                 ? instances
              : cap > VKS_CROWD_MAX_INSTANCES ? VKS_CROWD_MAX_INSTANCES
                                              : cap;
        const size_t n = c->instance_count, k = (size_t)cap;
        bool ok = grow(&c->instances, sizeof *c->instances, n, k, 0) &&
                  grow(&c->palette_first, sizeof *c->palette_first, n, k, 0) &&
                  grow(&c->palette_room, sizeof *c->palette_room, n, k, 0) &&
                  grow(&c->model_of, 1, n, k, 0) &&
                  grow(&c->sampler_cursors, sizeof *c->sampler_cursors, n, k, 0) &&
                  grow(&c->cull_scratch, sizeof *c->cull_scratch, n, k, 0) &&
                  grow(&c->cull_counts, sizeof *c->cull_counts,
                       c->instance_capacity / VKS_CROWD_GRAIN + 2, k / VKS_CROWD_GRAIN + 2, 0) &&
                  grow(&c->moved, sizeof *c->moved, c->moved_count, k, 0) &&
                  grow(&c->moved_mark, 1, n, k, 0) && grow(&c->schedule, 1, n, k, 0) &&
                  grow(&c->free_indices, sizeof *c->free_indices, c->free_count, k, 0);
        for (uint32_t d = 0; ok && d < VKS_CROWD_DESTINATIONS; d++)
            ok = grow(&c->destinations[d].held, sizeof *c->destinations[d].held, n, k, 0xff);
        if (!ok)
            return false;
        c->instance_capacity = (uint32_t)cap;
    }
    if (entries > c->palette_capacity) {
        uint64_t cap = (uint64_t)c->palette_capacity * 2;
        cap = cap < entries ? entries : cap > UINT32_MAX ? UINT32_MAX : cap;
        if (!grow(&c->cursors, 6 * sizeof *c->cursors, c->palette_count, (size_t)cap, 0) ||
            !grow(&c->poses, sizeof *c->poses, c->palette_count, (size_t)cap, 0))
            return false;
        c->palette_capacity = (uint32_t)cap;
    }
    return true;
}

/* The entries a range of model m holds. */
static uint32_t range_of(const vks_crowd *c, uint32_t m)
{
    return vks_crowd_range_entries(c->models[m], c->dq[m]);
}

/* Entries the live instances' models take. */
static uint64_t live_entries(const vks_crowd *c)
{
    uint64_t n = 0;
    for (uint32_t i = 0; i < c->instance_count; i++)
        if (!c->instances[i].removed)
            n += range_of(c, c->instances[i].model);
    return n;
}

/* The ranges packed again, in index order, each the size of its model's palette (a removed
 * index keeps none: it gets one when reused). Key cursors and kept poses move with them; the
 * palette buffers the crowd remembers are forgotten (their layout changed). */
static bool crowd_pack(vks_crowd *c)
{
    const uint64_t entries = live_entries(c);
    if (!crowd_reserve(c, c->instance_count, entries)) /* restore may ask for larger models */
        return false;
    uint32_t *first = vks_malloc(sizeof *first * (c->instance_count ? c->instance_count : 1));
    uint32_t *cursors = vks_malloc(6 * sizeof *cursors * (size_t)(entries ? entries : 1));
    vks_bone *poses = c->poses ? vks_malloc(sizeof *poses * (size_t)(entries ? entries : 1)) : NULL;
    if (!first || !cursors || (c->poses && !poses)) {
        vks_free(first);
        vks_free(cursors);
        vks_free(poses);
        return false;
    }
    uint32_t at = 0;
    for (uint32_t i = 0; i < c->instance_count; i++) {
        const uint32_t room = c->instances[i].removed ? 0 : range_of(c, c->instances[i].model);
        /* What its old range holds of the new one (vks_crowd_restore may give it a larger model
         * first); the rest starts empty. */
        const uint32_t kept = room < c->palette_room[i] ? room : c->palette_room[i];
        memcpy(cursors + 6 * (size_t)at, c->cursors + 6 * (size_t)c->palette_first[i],
               6 * sizeof *cursors * kept);
        memset(cursors + 6 * ((size_t)at + kept), 0, 6 * sizeof *cursors * (room - kept));
        if (poses)
            memcpy(poses + at, c->poses + c->palette_first[i], sizeof *poses * kept);
        first[i] = at;
        c->palette_room[i] = room;
        at += room;
    }
    memcpy(c->palette_first, first, sizeof *first * c->instance_count);
    memcpy(c->cursors, cursors, 6 * sizeof *cursors * (size_t)at);
    if (poses)
        memcpy(c->poses, poses, sizeof *poses * (size_t)at);
    c->palette_count = at;
    vks_free(first);
    vks_free(cursors);
    vks_free(poses);
    vks_crowd_forget_palettes(c);
    return true;
}

/* Gives instance i a range of `joints` entries: its own when it holds them, else a new one at
 * the end (packing the ranges first when more than half would lie unused). */
static bool crowd_range(vks_crowd *c, uint32_t i, uint32_t joints)
{
    if (i < c->instance_count && c->palette_room[i] >= joints)
        return true;
    /* Only when the arrays would grow anyway (so that the count is amortized by the doubling):
     * packed again when over half would be unused. */
    const uint64_t end = (uint64_t)c->palette_count + joints;
    if (end > c->palette_capacity && end > 2 * (live_entries(c) + joints) + 4096 && !crowd_pack(c))
        return false;
    if (i < c->instance_count && c->palette_room[i] >= joints) /* packing gave it one */
        return true;
    if (!crowd_reserve(c, c->instance_count, (uint64_t)c->palette_count + joints))
        return false;
    c->palette_first[i] = c->palette_count;
    c->palette_room[i] = joints;
    c->palette_count += joints;
    return true;
}

/* Instance i as a fresh one of model m: the bind pose, clock 0, speed 1, never posed or seen,
 * level 0; its key cursors cleared and no palette buffer holding its pose. */
static void crowd_fresh(vks_crowd *c, uint32_t i, uint32_t m)
{
    vks_crowd_instance *in = &c->instances[i];
    *in = (vks_crowd_instance){.model = m,
                               .clip = -1,
                               .from_clip = -1,
                               .held_clip = -1,
                               .speed = 1.0f,
                               .root_motion = c->root_motion,
                               .posed_frame = UINT64_MAX,
                               .seen_frame = UINT64_MAX};
    c->model_of[i] = (uint8_t)m;
    c->sampler_cursors[i] = 0;
    memset(c->cursors + 6 * (size_t)c->palette_first[i], 0,
           6 * sizeof *c->cursors * c->models[m]->skeleton.joint_count);
    for (uint32_t d = 0; d < VKS_CROWD_DESTINATIONS; d++)
        if (c->destinations[d].held)
            c->destinations[d].held[i] = UINT64_MAX;
}

bool vks_crowd_add(vks_crowd *c, uint32_t model, const float world[4][4], uint32_t *instance,
                   vks_error *err)
{
    if (model >= c->model_count)
        return vks_fail_usage(err, "the crowd has %u model(s): no model %u", c->model_count, model);
    const bool reuse = c->free_count > 0;
    const uint32_t i = reuse ? c->free_indices[c->free_count - 1] : c->instance_count;
    if (!reuse && i >= VKS_CROWD_MAX_INSTANCES)
        return vks_fail_usage(err, "a crowd holds at most %u instances", VKS_CROWD_MAX_INSTANCES);
    const uint32_t room = range_of(c, model);
    if (!vks_crowd__moved_list(c) || !crowd_reserve(c, (uint64_t)i + 1, c->palette_count))
        return vks_fail_memory(err, "out of memory for instance %u of the crowd", i);
    if (!reuse) { /* a free index with no range yet (a pack in crowd_range passes it over) */
        c->instances[i] = (vks_crowd_instance){.removed = 1, .hidden = 1};
        c->palette_first[i] = c->palette_room[i] = 0;
        c->model_of[i] = VKS_CROWD_REMOVED;
        c->instance_count++;
    }
    if (!crowd_range(c, i, room)) {
        if (!reuse) {
            c->instance_count--;
        }
        return vks_fail_memory(err, "out of memory for the palette of instance %u", i);
    }
    if (reuse)
        c->free_count--;
    crowd_fresh(c, i, model);
    c->live_count++;
    vks_crowd_set_world(c, i, world); /* the list is there: cannot fail */
    *instance = i;
    return true;
}

/* Index i removed (hidden, free, no model), on top of the free list (room for every index). */
static void crowd_free_index(vks_crowd *c, uint32_t i)
{
    vks_crowd_instance *in = &c->instances[i];
    in->removed = in->hidden = 1;
    c->model_of[i] = VKS_CROWD_REMOVED;
    c->free_indices[c->free_count++] = i;
}

bool vks_crowd_remove(vks_crowd *c, uint32_t i)
{
    if (c->instances[i].removed)
        return true;
    if (!c->free_indices && /* room for every index: pushing cannot fail after */
        !(c->free_indices = vks_malloc(sizeof *c->free_indices * c->instance_capacity)))
        return false;
    crowd_free_index(c, i);
    c->live_count--;
    return true;
}

bool vks_crowd_set_model(vks_crowd *c, uint32_t i, uint32_t model, vks_error *err)
{
    if (model >= c->model_count)
        return vks_fail_usage(err, "the crowd has %u model(s): no model %u", c->model_count, model);
    if (!vks_crowd__moved_list(c) || !crowd_range(c, i, range_of(c, model)))
        return vks_fail_memory(err, "out of memory for the palette of instance %u", i);
    vks_crowd_instance *in = &c->instances[i];
    float world[4][4];
    memcpy(world, in->world, sizeof world);
    const uint8_t hidden = in->hidden, root_motion = in->root_motion;
    crowd_fresh(c, i, model);
    in->hidden = hidden;
    in->root_motion = root_motion;
    vks_crowd_set_world(c, i, (const float(*)[4])world);
    return true;
}

bool vks_crowd_restore(vks_crowd *c, const vks_crowd_instance *start, uint32_t count,
                       vks_error *err)
{
    /* What to put back should packing fail: each index's model and whether it was removed. */
    uint8_t *was = vks_malloc(2 * (size_t)c->instance_count);
    if (!was || !vks_crowd__moved_list(c) ||
        (!c->free_indices &&
         !(c->free_indices = vks_malloc(sizeof *c->free_indices * c->instance_capacity)))) {
        vks_free(was);
        return vks_fail_memory(err, "out of memory for restoring a crowd of %u", c->instance_count);
    }
    /* The models and removals first, so that the ranges are packed for what the indices will
     * show: each of the first `count` its start model's size, the others none. */
    for (uint32_t i = 0; i < c->instance_count; i++) {
        vks_crowd_instance *in = &c->instances[i];
        was[2 * i] = (uint8_t)in->model;
        was[2 * i + 1] = in->removed;
        in->removed = i >= count;
        if (i < count)
            in->model = start[i].model;
    }
    if (!crowd_pack(c)) {
        for (uint32_t i = 0; i < c->instance_count; i++) {
            c->instances[i].model = was[2 * i];
            c->instances[i].removed = was[2 * i + 1];
        }
        vks_free(was);
        return vks_fail_memory(err, "out of memory for restoring a crowd of %u", c->instance_count);
    }
    vks_free(was);
    c->free_count = 0;
    c->live_count = count;
    for (uint32_t i = c->instance_count; i-- > count;) /* the lowest index on top */
        crowd_free_index(c, i);
    for (uint32_t i = 0; i < count; i++) {
        c->instances[i] = start[i];
        c->model_of[i] = (uint8_t)start[i].model;
        c->sampler_cursors[i] = 0;
        vks_crowd__mark_moved(c, i);
    }
    return true;
}
