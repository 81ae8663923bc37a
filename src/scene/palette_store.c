#include "palette_store.h"
#include "../core/alloc.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

/* The entries a block of `kind` takes: its model's joints, or with dual quaternions the fewer
 * its vks_dq fill (vks_crowd_written_entries); a far splat's one. Blocks, staging and copies are
 * that size. */
static uint32_t kind_entries(const vks_crowd *c, uint32_t kind)
{
    return kind >= VKS_CROWD_MAX_MODELS ? 1 : vks_crowd_written_entries(c, kind);
}

/* Where the store's dealing starts: past page 0's table when paged. */
static uint32_t base(const vks_palette_store *s)
{
    return s->page_entries ? 1 : 0;
}

/* The flat entry a block of `entries` dealt at `top` starts at: the next page's first when it
 * would cross a page's end. */
static uint64_t block_start(const vks_palette_store *s, uint64_t top, uint32_t entries)
{
    const uint32_t page = s->page_entries;
    if (page && top % page + entries > page)
        return top + (page - top % page);
    return top;
}

/* A flat entry as the shaders name it (palette_store.h: block). */
static uint32_t named(const vks_palette_store *s, uint64_t flat)
{
    const uint32_t page = s->page_entries;
    return page ? (uint32_t)((flat / page) << VKS_PALETTE_PAGE_SHIFT | flat % page)
                : (uint32_t)flat;
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
        !grow(&s->block_kind, sizeof *s->block_kind, n, k, 0) ||
        !grow(&s->pose_splat, sizeof *s->pose_splat, n, k, 0) ||
        !grow(&s->holders, sizeof *s->holders, n, k, 0) ||
        !grow(&s->pose, sizeof *s->pose, n, k, 0) ||
        !grow(&s->pose_first, sizeof *s->pose_first, n, k, 0) ||
        !grow(&s->copies, sizeof *s->copies, n, k, 0) || !grow(&s->fresh, 1, n, k, 0))
        return vks_fail_memory(err, "out of memory for the palette store's blocks of %zu instances",
                               k);
    /* A far splats' free list holds at most every instance's block (one entry each). */
    for (uint32_t m = 0; m < c->model_count; m++)
        if (!grow(&s->free_blocks[VKS_PALETTE_SPLAT_KIND(m)], sizeof(uint32_t), n ? n + 1 : 0,
                  k + 1, 0))
            return vks_fail_memory(err,
                                   "out of memory for the palette store's blocks of %zu "
                                   "instances",
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
    /* A model's freed blocks are distinct ranges of the store: at most capacity / entries (its
     * far splats' lists grow with the instances: vks_palette_store_reserve). */
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

bool vks_palette_store_page(vks_palette_store *s, const vks_crowd *c, uint32_t page_entries,
                            vks_error *err)
{
    assert(page_entries > 0 && page_entries <= VKS_PALETTE_PAGE_MASK && s->holder_count == 0);
    for (uint32_t m = 0; m < c->model_count; m++)
        if (vks_crowd_written_entries(c, m) >= page_entries)
            return vks_fail(err,
                            "a page of the palette store holds %u entries, too few for a "
                            "palette of %s (%u entries) beside the page table",
                            page_entries, c->models[m]->name, vks_crowd_written_entries(c, m));
    assert(s->capacity <= (uint64_t)VKS_PALETTE_PAGES * page_entries);
    s->page_entries = page_entries;
    s->top = base(s);
    return true;
}

bool vks_palette_store_grow(vks_palette_store *s, const vks_crowd *c, uint32_t capacity,
                            vks_error *err)
{
    assert(capacity >= s->capacity &&
           (!s->page_entries || capacity <= (uint64_t)VKS_PALETTE_PAGES * s->page_entries));
    /* A model's freed blocks: at most capacity / entries, as at init. */
    for (uint32_t m = 0; m < c->model_count; m++) {
        uint32_t *bigger = vks_realloc(
            s->free_blocks[m], sizeof(uint32_t) * (capacity / vks_crowd_written_entries(c, m) + 1));
        if (!bigger)
            return vks_fail_memory(err, "out of memory for the palette store's blocks");
        s->free_blocks[m] = bigger;
    }
    s->capacity = capacity;
    return true;
}

void vks_palette_store_free(vks_palette_store *s)
{
    vks_free(s->block);
    vks_free(s->block_kind);
    vks_free(s->pose_splat);
    vks_free(s->holders);
    vks_free(s->pose);
    vks_free(s->pose_first);
    vks_free(s->copies);
    vks_free(s->fresh);
    for (uint32_t m = 0; m < VKS_PALETTE_KINDS; m++)
        vks_free(s->free_blocks[m]);
    *s = (vks_palette_store){0};
}

void vks_palette_store_clear(vks_palette_store *s)
{
    for (uint32_t k = 0; k < s->holder_count; k++)
        s->block[s->holders[k]] = VKS_PALETTE_NONE;
    s->holder_count = 0;
    s->top = base(s);
    memset(s->free_count, 0, sizeof s->free_count);
    s->pose_count = s->copy_count = s->dropped = 0; /* the last frame's work is void too */
    s->staged = 0;
    s->restarted = false;
}

/* A block of `kind`: a freed one of the kind, else from the top; VKS_PALETTE_NONE when neither
 * has room. */
static uint32_t take_block(vks_palette_store *s, const vks_crowd *c, uint32_t kind)
{
    if (s->free_count[kind])
        return s->free_blocks[kind][--s->free_count[kind]];
    const uint32_t entries = kind_entries(c, kind);
    const uint64_t start = block_start(s, s->top, entries);
    if (start + entries > s->capacity)
        return VKS_PALETTE_NONE;
    s->top = (uint32_t)(start + entries);
    return named(s, start);
}

/* Listed entry k's kind this frame: its model's, or its model's far splat's when marked. */
static uint32_t kind_of(const vks_crowd *c, const uint32_t *visible, const uint8_t *raster,
                        uint32_t k)
{
    const uint32_t m = c->model_of[visible[k]];
    return raster && raster[k] == VKS_RASTER_MARK_SPLAT ? VKS_PALETTE_SPLAT_KIND(m) : m;
}

uint64_t vks_palette_store_wanted(const vks_palette_store *s, const vks_crowd *c,
                                  const uint32_t *visible, const uint8_t *raster, uint32_t count)
{
    /* Marks the frame would clear (splat_list_max) count as their model's palettes. */
    const uint8_t *marks = raster && count <= s->splat_list_max ? raster : NULL;
    uint64_t top = base(s);
    for (uint32_t k = 0; k < count; k++) {
        const uint32_t entries = kind_entries(c, kind_of(c, visible, marks, k));
        top = block_start(s, top, entries) + entries;
    }
    return top;
}

/* Places the listed instances that have no block; false at the first that finds no room (with
 * `drop`: leaves it without one and goes on). */
static bool place(vks_palette_store *s, const vks_crowd *c, const uint32_t *visible,
                  const uint8_t *raster, uint32_t count, bool drop)
{
    for (uint32_t k = 0; k < count; k++) {
        const uint32_t i = visible[k];
        if (s->block[i] != VKS_PALETTE_NONE)
            continue;
        s->block_kind[i] = (uint8_t)kind_of(c, visible, raster, k);
        s->block[i] = take_block(s, c, s->block_kind[i]);
        if (s->block[i] == VKS_PALETTE_NONE && !drop)
            return false;
    }
    return true;
}

uint32_t vks_palette_store_frame(vks_palette_store *s, const vks_crowd *c, uint32_t *visible,
                                 uint8_t *levels, uint8_t *raster, uint32_t count,
                                 const uint8_t *schedule)
{
    /* Far splats' blocks only for a list the splats can be drawn from (splat_list_max): else
     * their marks are cleared (drawn at their last level). */
    if (raster && count > s->splat_list_max)
        for (uint32_t k = 0; k < count; k++)
            raster[k] = raster[k] == VKS_RASTER_MARK_SPLAT ? 0 : raster[k];
    /* The instances no longer listed give their blocks back (a merge of two ascending lists), and
     * so do those whose kind changed since their block was dealt (another model:
     * vks_crowd_set_model; a splat no more, or anew): they get a new one, of their kind's size. */
    uint32_t k = 0;
    for (uint32_t h = 0; h < s->holder_count; h++) {
        const uint32_t i = s->holders[h];
        while (k < count && visible[k] < i)
            k++;
        const uint32_t kind = s->block_kind[i];
        if (k < count && visible[k] == i && kind_of(c, visible, raster, k) == kind)
            continue;
        s->free_blocks[kind][s->free_count[kind]++] = s->block[i];
        s->block[i] = VKS_PALETTE_NONE;
    }
    s->holder_count = 0;

    /* Which entries get a new block (and must be posed), before any is placed. */
    uint8_t *fresh = s->fresh;
    for (k = 0; k < count; k++)
        fresh[k] = s->block[visible[k]] == VKS_PALETTE_NONE;
    s->restarted = false;
    if (!place(s, c, visible, raster, count, false)) {
        /* A new instance found no room. When the list fits the store whole, the blocks are only
         * scattered (other models' freed ones, holes): start again, packed in list order. When
         * it does not, starting again would only drop others and start again next frame: keep
         * the blocks dealt and drop the new instances that find none. */
        if (vks_palette_store_wanted(s, c, visible, raster, count) <= s->capacity) {
            for (k = 0; k < count; k++) {
                s->block[visible[k]] = VKS_PALETTE_NONE;
                fresh[k] = 1;
            }
            s->top = base(s);
            memset(s->free_count, 0, sizeof s->free_count);
            s->restarted = true;
        }
        place(s, c, visible, raster, count, true);
    }

    /* The lists without the dropped entries; the poses to stage, packed (paged: each page's from
     * its own place in the staging, the page's first entry); their copies. */
    uint32_t kept = 0, posed = 0, copies = 0;
    uint64_t staged = 0, at[VKS_PALETTE_PAGES] = {0};
    for (uint32_t p = 0; s->page_entries && p < VKS_PALETTE_PAGES; p++)
        at[p] = (uint64_t)p * s->page_entries;
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
        const uint32_t entries = kind_entries(c, s->block_kind[i]);
        const uint32_t page = s->page_entries ? block >> VKS_PALETTE_PAGE_SHIFT : 0;
        const uint32_t from = (uint32_t)at[page];
        s->pose_splat[posed] = s->block_kind[i] >= VKS_CROWD_MAX_MODELS;
        s->pose[posed] = i;
        vks_palette_copy *last = copies ? &s->copies[copies - 1] : NULL;
        if (last && last->from + last->count == from && last->to + last->count == block)
            last->count += entries;
        else
            s->copies[copies++] = (vks_palette_copy){from, block, entries};
        s->pose_first[posed++] = from;
        at[page] += entries;
        staged += entries;
        /* a page's poses take no more than its blocks */
        assert(!s->page_entries || at[page] <= (uint64_t)(page + 1) * s->page_entries);
    }
    s->pose_count = posed;
    s->copy_count = copies;
    s->staged = staged;
    assert(staged <= s->capacity);
    return kept;
}
