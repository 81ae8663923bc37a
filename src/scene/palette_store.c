#include "palette_store.h"
#include "../core/alloc.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

/* The entries instance i's palette takes: its joints, or with dual quaternions the fewer its
 * vks_dq fill (vks_crowd_written_entries). Blocks, staging and copies are that size. */
static uint32_t entries_of(const vks_crowd *c, uint32_t i)
{
    return vks_crowd_written_entries(c, c->model_of[i]);
}

/* *p (`used` entries of `size` bytes) with room for `capacity`, the new entries `fill` bytes. */
static bool grow(void *p, size_t size, size_t used, size_t capacity, int fill)
{
    void **array = p;
    void *bigger = vks_realloc(*array, size * (capacity ? capacity : 1));
    if (!bigger)
        return false;
    memset((char *)bigger + size * used, fill, size * (capacity - used));
    *array = bigger;
    return true;
}

bool vks_palette_store_reserve(vks_palette_store *s, const vks_crowd *c, vks_error *err)
{
    const size_t n = s->instances, k = c->instance_capacity;
    if (k <= n)
        return true;
    if (!grow(&s->block, sizeof *s->block, n, k, 0xff) ||
        !grow(&s->block_model, sizeof *s->block_model, n, k, 0) ||
        !grow(&s->holders, sizeof *s->holders, n, k, 0) ||
        !grow(&s->pose, sizeof *s->pose, n, k, 0) ||
        !grow(&s->pose_first, sizeof *s->pose_first, n, k, 0) ||
        !grow(&s->copies, sizeof *s->copies, n, k, 0) || !grow(&s->fresh, 1, n, k, 0))
        return vks_fail_memory(err, "out of memory for the palette store's blocks of %zu instances",
                               k);
    s->instances = (uint32_t)k;
    return true;
}

bool vks_palette_store_init(vks_palette_store *s, const vks_crowd *c, uint32_t capacity,
                            vks_error *err)
{
    *s = (vks_palette_store){.capacity = capacity};
    for (uint32_t m = 0; m < c->model_count; m++)
        if (vks_crowd_written_entries(c, m) > capacity)
            return vks_fail(err,
                            "the palette store holds %u entries, fewer than one palette of %s "
                            "(%u entries)",
                            capacity, c->models[m]->name, vks_crowd_written_entries(c, m));
    /* A model's freed blocks are distinct ranges of the store: at most capacity / entries. */
    bool ok = true;
    for (uint32_t m = 0; ok && m < c->model_count; m++)
        ok = (s->free_blocks[m] = vks_malloc(
                  sizeof(uint32_t) * (capacity / vks_crowd_written_entries(c, m) + 1))) != NULL;
    if (!ok || !vks_palette_store_reserve(s, c, err)) {
        vks_palette_store_free(s);
        return vks_fail_memory(err, "out of memory for the palette store's blocks of %u instances",
                               c->instance_capacity);
    }
    return true;
}

void vks_palette_store_free(vks_palette_store *s)
{
    vks_free(s->block);
    vks_free(s->block_model);
    vks_free(s->holders);
    vks_free(s->pose);
    vks_free(s->pose_first);
    vks_free(s->copies);
    vks_free(s->fresh);
    for (uint32_t m = 0; m < VKS_CROWD_MAX_MODELS; m++)
        vks_free(s->free_blocks[m]);
    *s = (vks_palette_store){0};
}

void vks_palette_store_clear(vks_palette_store *s)
{
    for (uint32_t k = 0; k < s->holder_count; k++)
        s->block[s->holders[k]] = VKS_PALETTE_NONE;
    s->holder_count = s->top = 0;
    memset(s->free_count, 0, sizeof s->free_count);
    s->pose_count = s->copy_count = s->dropped = 0; /* the last frame's work is void too */
    s->staged = 0;
    s->restarted = false;
}

/* A block for instance i: a freed one of its model's, else from the top; VKS_PALETTE_NONE when
 * neither has room. */
static uint32_t take_block(vks_palette_store *s, const vks_crowd *c, uint32_t i)
{
    const uint32_t m = c->model_of[i];
    if (s->free_count[m])
        return s->free_blocks[m][--s->free_count[m]];
    const uint32_t entries = entries_of(c, i);
    if (s->capacity - s->top < entries)
        return VKS_PALETTE_NONE;
    s->top += entries;
    return s->top - entries;
}

/* Places the listed instances that have no block; false at the first that finds no room (with
 * `drop`: leaves it without one and goes on). */
static bool place(vks_palette_store *s, const vks_crowd *c, const uint32_t *visible, uint32_t count,
                  bool drop)
{
    for (uint32_t k = 0; k < count; k++) {
        const uint32_t i = visible[k];
        if (s->block[i] != VKS_PALETTE_NONE)
            continue;
        s->block[i] = take_block(s, c, i);
        s->block_model[i] = c->model_of[i];
        if (s->block[i] == VKS_PALETTE_NONE && !drop)
            return false;
    }
    return true;
}

uint32_t vks_palette_store_frame(vks_palette_store *s, const vks_crowd *c, uint32_t *visible,
                                 uint8_t *levels, uint8_t *raster, uint32_t count,
                                 const uint8_t *schedule)
{
    /* The instances no longer listed give their blocks back (a merge of two ascending lists), and
     * so do those that show another model than their block was dealt for (vks_crowd_set_model):
     * they get a new one, of their model's size. */
    uint32_t k = 0;
    for (uint32_t h = 0; h < s->holder_count; h++) {
        const uint32_t i = s->holders[h];
        while (k < count && visible[k] < i)
            k++;
        const uint32_t m = s->block_model[i];
        if (k < count && visible[k] == i && c->model_of[i] == m)
            continue;
        s->free_blocks[m][s->free_count[m]++] = s->block[i];
        s->block[i] = VKS_PALETTE_NONE;
    }
    s->holder_count = 0;

    /* Which entries get a new block (and must be posed), before any is placed. */
    uint8_t *fresh = s->fresh;
    for (k = 0; k < count; k++)
        fresh[k] = s->block[visible[k]] == VKS_PALETTE_NONE;
    s->restarted = false;
    if (!place(s, c, visible, count, false)) {
        /* A new instance found no room. When the list fits the store whole, the blocks are only
         * scattered (other models' freed ones, holes): start again, packed in list order. When
         * it does not, starting again would only drop others and start again next frame: keep
         * the blocks dealt and drop the new instances that find none. */
        uint64_t entries = 0;
        for (k = 0; k < count; k++)
            entries += entries_of(c, visible[k]);
        if (entries <= s->capacity) {
            for (k = 0; k < count; k++) {
                s->block[visible[k]] = VKS_PALETTE_NONE;
                fresh[k] = 1;
            }
            s->top = 0;
            memset(s->free_count, 0, sizeof s->free_count);
            s->restarted = true;
        }
        place(s, c, visible, count, true);
    }

    /* The lists without the dropped entries; the poses to stage, packed; their copies. */
    uint32_t kept = 0, posed = 0, copies = 0;
    uint64_t at = 0;
    s->dropped = 0;
    for (k = 0; k < count; k++) {
        const uint32_t i = visible[k];
        const uint32_t block = s->block[i];
        if (block == VKS_PALETTE_NONE) {
            s->dropped++;
            continue;
        }
        const bool pose = fresh[k] || !schedule || schedule[k];
        visible[kept] = i;
        if (levels)
            levels[kept] = levels[k];
        if (raster)
            raster[kept] = raster[k];
        kept++;
        s->holders[s->holder_count++] = i;
        if (!pose)
            continue;
        const uint32_t entries = entries_of(c, i);
        s->pose[posed] = i;
        vks_palette_copy *last = copies ? &s->copies[copies - 1] : NULL;
        if (last && last->from + last->count == at && last->to + last->count == block)
            last->count += entries;
        else
            s->copies[copies++] = (vks_palette_copy){(uint32_t)at, block, entries};
        s->pose_first[posed++] = (uint32_t)at;
        at += entries;
    }
    s->pose_count = posed;
    s->copy_count = copies;
    s->staged = at;
    assert(at <= s->capacity);
    return kept;
}
