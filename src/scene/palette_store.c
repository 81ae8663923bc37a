#include "palette_store.h"
#include "../core/alloc.h"
#include "../core/pool.h"

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
        !grow(&s->copies, sizeof *s->copies, n, k, 0) || !grow(&s->fresh, 1, n, k, 0) ||
        !grow(&s->freed_block, sizeof *s->freed_block, n, k, 0) ||
        !grow(&s->freed_kind, sizeof *s->freed_kind, n, k, 0))
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
    *s = (vks_palette_store){.capacity = capacity, .grain = VKS_PALETTE_STORE_GRAIN};
    for (uint32_t m = 0; m < c->model_count; m++)
        if (vks_crowd_written_entries(c, m) > capacity)
            return vks_fail(err,
                            "the palette store holds %u entries, fewer than one palette of %s "
                            "(%u entries)",
                            capacity, c->models[m]->name, vks_crowd_written_entries(c, m));
    /* A model's freed blocks are distinct ranges of the store: at most capacity / entries (its
     * far splats' lists grow with the instances: vks_palette_store_reserve). */
    bool ok = (s->chunks = vks_calloc(VKS_PALETTE_STORE_CHUNKS, sizeof *s->chunks)) != NULL &&
              (s->chunk_freed = vks_calloc(VKS_PALETTE_STORE_CHUNKS, sizeof *s->chunk_freed));
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
    vks_free(s->freed_block);
    vks_free(s->freed_kind);
    vks_free(s->chunks);
    vks_free(s->chunk_freed);
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

/* ---- The frame's passes, in chunks on the pool ----
 * Chunk k of a pass over n items is [k * grain, (k + 1) * grain), grain at least
 * VKS_PALETTE_STORE_GRAIN and large enough for VKS_PALETTE_STORE_CHUNKS chunks; what each chunk
 * finds is kept per chunk and stitched in chunk order, so that the result is one thread's
 * whatever the threads and whichever takes which chunk. */

static uint32_t chunk_grain(uint32_t n, uint32_t least)
{
    return vks_pool_grain(n, least, VKS_PALETTE_STORE_CHUNKS);
}

/* The page a block is in (0 unpaged: an unpaged store's blocks may pass 2^28, a host's). */
static uint32_t page_of(const vks_palette_store *s, uint32_t block)
{
    return s->page_entries ? block >> VKS_PALETTE_PAGE_SHIFT : 0;
}

typedef struct store_job {
    vks_palette_store *s;
    const vks_crowd *c;
    uint32_t *visible;
    uint8_t *raster;
    uint32_t count, grain;
    const uint8_t *schedule;
} store_job;

/* The splat marks cleared (a list past splat_list_max). */
static void clear_marks(void *ctx, uint32_t begin, uint32_t end, uint32_t thread)
{
    (void)thread;
    store_job *j = ctx;
    for (uint32_t k = begin; k < end; k++)
        j->raster[k] = j->raster[k] == VKS_RASTER_MARK_SPLAT ? 0 : j->raster[k];
}

/* The first entry of visible[0 .. count) that is at least i. */
static uint32_t lower_bound(const uint32_t *visible, uint32_t count, uint32_t i)
{
    uint32_t lo = 0, hi = count;
    while (lo < hi) {
        const uint32_t mid = lo + (hi - lo) / 2;
        if (visible[mid] < i)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* The holders no longer listed, or listed as another kind, give their blocks back: each chunk of
 * holders merges with the list from where its first holder would be, and notes the blocks it
 * frees (in holder order) from its first holder's place in freed_block. */
static void release_chunk(void *ctx, uint32_t begin, uint32_t end, uint32_t thread)
{
    (void)thread;
    store_job *j = ctx;
    vks_palette_store *s = j->s;
    uint32_t k = lower_bound(j->visible, j->count, s->holders[begin]), freed = 0;
    for (uint32_t h = begin; h < end; h++) {
        const uint32_t i = s->holders[h];
        while (k < j->count && j->visible[k] < i)
            k++;
        const uint32_t kind = s->block_kind[i];
        if (k < j->count && j->visible[k] == i && kind_of(j->c, j->visible, j->raster, k) == kind)
            continue;
        s->freed_block[begin + freed] = s->block[i];
        s->freed_kind[begin + freed++] = (uint8_t)kind;
        s->block[i] = VKS_PALETTE_NONE;
    }
    s->chunk_freed[begin / j->grain] = freed;
}

static void fresh_chunk(void *ctx, uint32_t begin, uint32_t end, uint32_t thread)
{
    (void)thread;
    store_job *j = ctx;
    for (uint32_t k = begin; k < end; k++)
        j->s->fresh[k] = j->s->block[j->visible[k]] == VKS_PALETTE_NONE;
}

/* What a chunk of the list keeps, poses and stages (per page): counted first, written at the
 * chunks' sums after. */
static bool posed_entry(const store_job *j, uint32_t k)
{
    return j->s->fresh[k] || !j->schedule || j->schedule[k];
}

static void count_chunk(void *ctx, uint32_t begin, uint32_t end, uint32_t thread)
{
    (void)thread;
    store_job *j = ctx;
    vks_palette_store *s = j->s;
    vks_palette_chunk *ch = &s->chunks[begin / j->grain];
    *ch = (vks_palette_chunk){0};
    for (uint32_t k = begin; k < end; k++) {
        const uint32_t i = j->visible[k], block = s->block[i];
        if (block == VKS_PALETTE_NONE)
            continue;
        ch->kept++;
        if (!posed_entry(j, k))
            continue;
        ch->posed++;
        ch->staged[page_of(s, block)] += kind_entries(j->c, s->block_kind[i]);
    }
}

/* Writes the chunk's holders, poses and copies from the chunk's sums (its copies from its first
 * pose's place, merged within the chunk; the stitch merges across chunks). */
static void write_chunk(void *ctx, uint32_t begin, uint32_t end, uint32_t thread)
{
    (void)thread;
    store_job *j = ctx;
    vks_palette_store *s = j->s;
    vks_palette_chunk *ch = &s->chunks[begin / j->grain];
    uint32_t held = ch->kept_first, posed = ch->posed_first, copies = ch->posed_first;
    uint64_t at[VKS_PALETTE_PAGES];
    memcpy(at, ch->staged_first, sizeof at);
    for (uint32_t k = begin; k < end; k++) {
        const uint32_t i = j->visible[k], block = s->block[i];
        if (block == VKS_PALETTE_NONE)
            continue;
        s->holders[held++] = i;
        if (!posed_entry(j, k))
            continue;
        const uint32_t entries = kind_entries(j->c, s->block_kind[i]);
        const uint32_t page = page_of(s, block);
        const uint32_t from = (uint32_t)at[page];
        s->pose_splat[posed] = s->block_kind[i] >= VKS_CROWD_MAX_MODELS;
        s->pose[posed] = i;
        vks_palette_copy *last = copies > ch->posed_first ? &s->copies[copies - 1] : NULL;
        if (last && last->from + last->count == from && last->to + last->count == block)
            last->count += entries;
        else
            s->copies[copies++] = (vks_palette_copy){from, block, entries};
        s->pose_first[posed++] = from;
        at[page] += entries;
        /* a page's poses take no more than its blocks */
        assert(!s->page_entries || at[page] <= (uint64_t)(page + 1) * s->page_entries);
    }
    ch->copies = copies - ch->posed_first;
}

uint32_t vks_palette_store_frame(vks_palette_store *s, const vks_crowd *c, vks_pool *pool,
                                 uint32_t *visible, uint8_t *levels, uint8_t *raster,
                                 uint32_t count, const uint8_t *schedule)
{
    store_job j = {
        .s = s, .c = c, .visible = visible, .raster = raster, .count = count, .schedule = schedule};
    /* Far splats' blocks only for a list the splats can be drawn from (splat_list_max): else
     * their marks are cleared (drawn at their last level). */
    j.grain = chunk_grain(count, s->grain);
    if (raster && count > s->splat_list_max)
        vks_pool_run(pool, count, j.grain, clear_marks, &j);
    /* The instances no longer listed give their blocks back (a merge of two ascending lists), and
     * so do those whose kind changed since their block was dealt (another model:
     * vks_crowd_set_model; a splat no more, or anew): they get a new one, of their kind's size.
     * Each chunk of holders notes what it frees; the free lists take them in holder order. */
    const uint32_t holders = s->holder_count;
    j.grain = chunk_grain(holders, s->grain);
    vks_pool_run(pool, holders, j.grain, release_chunk, &j);
    for (uint32_t b = 0; b < holders; b += j.grain)
        for (uint32_t f = 0; f < s->chunk_freed[b / j.grain]; f++) {
            const uint8_t kind = s->freed_kind[b + f];
            s->free_blocks[kind][s->free_count[kind]++] = s->freed_block[b + f];
        }
    s->holder_count = 0;

    /* Which entries get a new block (and must be posed), before any is placed. */
    uint8_t *fresh = s->fresh;
    j.grain = chunk_grain(count, s->grain);
    vks_pool_run(pool, count, j.grain, fresh_chunk, &j);
    s->restarted = false;
    if (!place(s, c, visible, raster, count, false)) {
        /* A new instance found no room. When the list fits the store whole, the blocks are only
         * scattered (other models' freed ones, holes): start again, packed in list order. When
         * it does not, starting again would only drop others and start again next frame: keep
         * the blocks dealt and drop the new instances that find none. */
        if (vks_palette_store_wanted(s, c, visible, raster, count) <= s->capacity) {
            for (uint32_t k = 0; k < count; k++) {
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
     * its own place in the staging, the page's first entry); their copies. Counted per chunk,
     * summed in chunk order, written per chunk, the copies stitched. */
    vks_pool_run(pool, count, j.grain, count_chunk, &j);
    uint32_t kept = 0, posed = 0;
    uint64_t at[VKS_PALETTE_PAGES]; /* each page's poses from its page's place (unpaged: 0) */
    for (uint32_t p = 0; p < VKS_PALETTE_PAGES; p++)
        at[p] = (uint64_t)p * s->page_entries;
    const uint32_t chunks = count ? (count + j.grain - 1) / j.grain : 0;
    for (uint32_t k = 0; k < chunks; k++) {
        vks_palette_chunk *ch = &s->chunks[k];
        ch->kept_first = kept;
        ch->posed_first = posed;
        memcpy(ch->staged_first, at, sizeof at);
        kept += ch->kept;
        posed += ch->posed;
        for (uint32_t p = 0; p < VKS_PALETTE_PAGES; p++)
            at[p] += ch->staged[p];
    }
    vks_pool_run(pool, count, j.grain, write_chunk, &j);
    /* The copies: each chunk's after the one before, merged where they meet. */
    uint32_t copies = 0;
    uint64_t staged = 0;
    for (uint32_t k = 0; k < chunks; k++) {
        const vks_palette_chunk *ch = &s->chunks[k];
        for (uint32_t p = 0; p < VKS_PALETTE_PAGES; p++)
            staged += ch->staged[p];
        for (uint32_t q = 0; q < ch->copies; q++) {
            const vks_palette_copy cp = s->copies[ch->posed_first + q];
            vks_palette_copy *last = copies ? &s->copies[copies - 1] : NULL;
            if (q == 0 && last && last->from + last->count == cp.from &&
                last->to + last->count == cp.to)
                last->count += cp.count;
            else
                s->copies[copies++] = cp;
        }
    }
    s->holder_count = kept;
    s->pose_count = posed;
    s->copy_count = copies;
    s->staged = staged;
    assert(staged <= s->capacity);
    /* The entries dropped taken out of the lists, in order (dropping is rare: a store too small
     * for what is in view). */
    s->dropped = count - kept;
    if (s->dropped) {
        uint32_t n = 0;
        for (uint32_t k = 0; k < count; k++) {
            if (s->block[visible[k]] == VKS_PALETTE_NONE)
                continue;
            visible[n] = visible[k];
            if (levels)
                levels[n] = levels[k];
            if (raster)
                raster[n] = raster[k];
            n++;
        }
    }
    return kept;
}
