/* The palette store's bookkeeping: which entries of the renderer's device-local palette store
 * hold which instance's pose. The store persists across frames: an instance keeps its block (its
 * model's joint count of entries) while it stays in view, and the block is rewritten only when the
 * instance is posed. A frame stages the posed instances' palettes, packed, in its frame slot's
 * host-visible buffer, and moves them into their blocks before the skinning pass reads the store
 * in place: a kept pose costs nothing, and the bytes that cross the bus each frame are the posed
 * instances'. Pure arithmetic on lists, no Vulkan call; tests/test_palette_store.c checks it
 * without a device.
 *
 *   vks_palette_store_init(&s, crowd, capacity, err);                once
 *   n = vks_palette_store_frame(&s, crowd, pool, visible, levels, raster, n, schedule);
 *                        each frame: then pose s.pose[k] into staging + s.pose_first[k], and
 *                        move each into s.block[s.pose[k]] (the renderer: a scatter pass,
 *                        palette_scatter.h), or record s.copies, after the previous frame's reads
 *
 * Frames in flight: a block freed or rewritten at frame N may still be read by frame N - 1's
 * passes. The renderer orders its scatter after every earlier read of the store on the queue (a
 * barrier from the previous frames' shader reads to its writes), so the writes of frame N never
 * overtake frame N - 1; each frame slot has its own staging buffer, written only after its
 * fence. */
#ifndef VKS_PALETTE_STORE_H
#define VKS_PALETTE_STORE_H

#include "crowd.h"
#include "../core/error.h"
#include "../core/pool.h"

#define VKS_PALETTE_NONE UINT32_MAX

/* Entries from staging `from` to store `to`. */
typedef struct vks_palette_copy {
    uint32_t from, to, count;
} vks_palette_copy;

/* A block's kind: its model's palette (the model's index), or a far splat's of that model
 * (VKS_PALETTE_SPLAT_KIND(m)): its carrier joint's entry alone (bake/splat.h), which is all the
 * splat pass reads. */
#define VKS_PALETTE_KINDS (2 * VKS_CROWD_MAX_MODELS)
#define VKS_PALETTE_SPLAT_KIND(m) (VKS_CROWD_MAX_MODELS + (m))

/* The frame's passes run in chunks on the pool (at least this many entries each, and at most
 * VKS_PALETTE_STORE_CHUNKS chunks), each chunk's findings stitched in order: the same result on
 * any number of threads. */
#define VKS_PALETTE_STORE_GRAIN 16384u
#define VKS_PALETTE_STORE_CHUNKS 1024u

/* What a chunk of the frame's list keeps, poses, stages per page and copies, and where its
 * share starts. */
typedef struct vks_palette_chunk {
    uint32_t kept, posed, copies;
    uint32_t kept_first, posed_first;
    uint64_t staged[VKS_PALETTE_PAGES], staged_first[VKS_PALETTE_PAGES];
} vks_palette_chunk;

typedef struct vks_palette_store {
    uint32_t capacity; /* entries of the store (of every page) */
    /* Paged (vks_palette_store_page): entries of a page (the store's buffers, each within the
     * storage-buffer range: shaders/vks_shared.h, "Palette pages"), no block crossing one, and
     * page 0's entry 0 kept for the page table. 0: one page, the whole capacity. */
    uint32_t page_entries;
    uint32_t top; /* entries dealt from the bottom so far (counted across pages); the rest free */
    /* Per instance: its block's first entry as the shaders name it (its page in the top bits,
     * VKS_PALETTE_PAGE_SHIFT, its entry in the page below; unpaged, the entry), or
     * VKS_PALETTE_NONE. */
    uint32_t *block;
    uint8_t *block_kind; /* per instance holding a block: the kind it was dealt for */
    uint32_t instances;  /* the per-instance arrays' room (vks_palette_store_reserve) */
    /* Far splats' blocks (one entry) for the listed instances marked VKS_RASTER_MARK_SPLAT,
     * when the list is at most this long (the compute rasterizer's ids name it whole, as the
     * frame plan's splats need: render/frame_plan.h); a longer list's marks are cleared (its
     * instances drawn at their last level). 0: no splat blocks (marks cleared). */
    uint32_t splat_list_max;
    /* Per kind, the blocks of its instances that left the view (each the kind's entries). */
    uint32_t *free_blocks[VKS_PALETTE_KINDS];
    uint32_t free_count[VKS_PALETTE_KINDS];
    uint32_t *holders; /* the instances holding a block, ascending */
    uint32_t holder_count;

    /* The last frame's work (vks_palette_store_frame): the instances to pose, in list order, and
     * each one's first entry in the frame's staging buffer (packed from 0; paged, each page's
     * packed from page * page_entries, so that page k's poses are in the staging's k-th
     * page_entries); the entries staged; the copies into the store (adjacent ones merged). */
    uint32_t *pose, *pose_first;
    uint8_t *pose_splat; /* per pose: a far splat's (its carrier's entry alone) */
    uint32_t pose_count;
    uint64_t staged;
    vks_palette_copy *copies;
    uint32_t copy_count;
    uint8_t *fresh; /* scratch: per listed entry, whether it got a new block this frame */
    /* Scratch of the passes on the pool: per holder, the blocks freed (and their kinds) from each
     * chunk's first holder; per chunk, how many it freed, and its counts (chunks). grain: a
     * chunk's least entries (VKS_PALETTE_STORE_GRAIN; tests make it small). */
    uint32_t *freed_block;
    uint8_t *freed_kind;
    uint32_t *chunk_freed;
    vks_palette_chunk *chunks;
    uint32_t grain;
    /* Listed instances left out of the frame: no room in the store even after starting it
     * again (their palettes together exceed the capacity). */
    uint32_t dropped;
    /* The store was started again this frame (blocks were scattered past what a new instance
     * could find room in): every listed instance is posed and placed afresh. */
    bool restarted;
} vks_palette_store;

/* A store of `capacity` entries for the crowd's instances. Fails with a message when a largest
 * model's palette does not fit in it, or out of memory. */
bool vks_palette_store_init(vks_palette_store *s, const vks_crowd *crowd, uint32_t capacity,
                            vks_error *err);
void vks_palette_store_free(vks_palette_store *s);
/* Room for every index of the crowd (its instance_capacity) after it grew (vks_crowd_add): call
 * before a frame lists an index past the room. False, with a message, when out of memory. */
bool vks_palette_store_reserve(vks_palette_store *s, const vks_crowd *crowd, vks_error *err);

/* One frame. visible[0 .. count): the instances listed this frame, ascending; levels and raster
 * (either may be NULL) their per-entry choices; schedule[k] (NULL: all) whether the animation
 * level of detail poses entry k this frame. An entry marked VKS_RASTER_MARK_SPLAT takes a far
 * splat's block (see splat_list_max; its mark cleared when it cannot). Frees the blocks of the
 * instances no longer listed, and of those whose kind changed since their block was dealt (another
 * model, or a splat no more or anew), gives each newly listed one (and each such) a block (its
 * kind's freed blocks first, then the store's top), and
 * lists for posing every entry with schedule[k] and every one that got a new block. When a new
 * instance finds no room, the store starts again: every block is freed and every listed instance
 * placed afresh in list order and posed; those that still find none are dropped from the lists
 * (visible, levels and raster compacted in place, the order kept). Returns the count kept. */
uint32_t vks_palette_store_frame(vks_palette_store *s, const vks_crowd *crowd, vks_pool *pool,
                                 uint32_t *visible, uint8_t *levels, uint8_t *raster,
                                 uint32_t count, const uint8_t *schedule);

/* Makes the store paged, with pages of page_entries (at most VKS_PALETTE_PAGE_MASK; the capacity,
 * now and grown, at most VKS_PALETTE_PAGES pages), before its first frame. Fails with a message
 * when a largest model's palette does not fit in a page. */
bool vks_palette_store_page(vks_palette_store *s, const vks_crowd *crowd, uint32_t page_entries,
                            vks_error *err);
/* The entries the listed instances take packed in list order from the store's start, pages
 * respected (what vks_palette_store_frame, starting again, would need): with more capacity than
 * this, a frame of this list drops none. The same arguments as vks_palette_store_frame's. */
uint64_t vks_palette_store_wanted(const vks_palette_store *s, const vks_crowd *crowd,
                                  const uint32_t *visible, const uint8_t *raster, uint32_t count);
/* More capacity (pages added at its end: every block dealt stays where it is). False, with a
 * message, when out of memory (nothing changed). */
bool vks_palette_store_grow(vks_palette_store *s, const vks_crowd *crowd, uint32_t capacity,
                            vks_error *err);

/* Forgets every block (the store's contents are unknown, as after a device-side loss): the next
 * frame places and poses every listed instance. */
void vks_palette_store_clear(vks_palette_store *s);

#endif
