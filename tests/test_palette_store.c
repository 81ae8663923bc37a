/* The palette store's bookkeeping (src/scene/palette_store.h), without a device: crowds made up
 * here, expected blocks worked out by hand or checked against invariants written here.
 *
 *   hand:    two models (3 and 2 joints) in a store of 10 entries over six frames: blocks dealt
 *            from the top, kept while listed, freed blocks reused by the same model, nothing
 *            posed or copied for a kept pose, adjacent copies merged, a new instance that finds
 *            no room dropped when the list exceeds the store (the blocks dealt kept), the store
 *            dealt again from the start when the list fits it whole, and clearing.
 *   splats:  far splats' blocks of one entry, kept, traded with whole blocks as an instance
 *            becomes a splat or triangles, and marks cleared past splat_list_max.
 *   random:  2 000 frames of random lists and schedules over three models (far splats' marks on a
 *            third of them from frame 500, lists past a random splat_list_max cleared): every
 * listed instance's block is its own (no two overlap, all inside the store), kept while it stays
 * listed unless the store starts again, the poses are exactly the entries scheduled or new, packed
 * in list order, and the copies move exactly their entries; the staged entries are the posed
 * instances' joints; an instance is dropped only when the listed palettes together exceed the
 * store, which then does not start again. Run unpaged, and paged (four pages of 100 and of 61
 * entries, half of them to start, grown to all at frame 1000): then no block crosses a page or
 * takes page 0's entry 0, no copy crosses a page, and "the listed palettes together" are what
 * they take packed with the pages' ends skipped (worked out here, and vks_palette_store_wanted
 * says the same). */
#include "check.h"

#include <stdlib.h>
#include <string.h>

#include "scene/palette_store.h"

typedef struct made_crowd {
    vks_model models[3];
    vks_crowd crowd;
} made_crowd;

/* counts[m] instances of a model of joints[m] joints, grouped by model as vks_crowd_create
 * groups them. */
static void make_crowd(made_crowd *mc, const uint32_t *joints, const uint32_t *counts,
                       uint32_t model_count)
{
    memset(mc, 0, sizeof *mc);
    vks_crowd *c = &mc->crowd;
    c->model_count = model_count;
    for (uint32_t m = 0; m < model_count; m++) {
        mc->models[m] = (vks_model){.name = "made-up", .skeleton = {.joint_count = joints[m]}};
        c->models[m] = &mc->models[m];
        c->model_first[m + 1] = c->model_first[m] + counts[m];
    }
    c->instance_count = c->model_first[model_count];
    c->instance_capacity = c->instance_count;
    c->instances = calloc(c->instance_count, sizeof *c->instances);
    c->model_of = calloc(c->instance_count ? c->instance_count : 1, 1);
    for (uint32_t m = 0; m < model_count; m++)
        for (uint32_t i = c->model_first[m]; i < c->model_first[m + 1]; i++) {
            c->instances[i].model = m;
            c->model_of[i] = (uint8_t)m;
        }
}

static uint32_t joints_of(const vks_crowd *c, uint32_t i)
{
    return c->models[c->instances[i].model]->skeleton.joint_count;
}

/* One frame of `n` listed instances, `schedule` saying which the animation level of detail
 * poses (NULL: all). */
static uint32_t frame(vks_palette_store *s, const vks_crowd *c, uint32_t *list, uint32_t n,
                      const uint8_t *schedule)
{
    return vks_palette_store_frame(s, c, NULL, list, NULL, NULL, n, schedule);
}

static void test_hand(void)
{
    made_crowd mc; /* A: instances 0-3, 3 joints; B: 4-6, 2 joints */
    make_crowd(&mc, (const uint32_t[]){3, 2}, (const uint32_t[]){4, 3}, 2);
    const vks_crowd *c = &mc.crowd;
    vks_palette_store s;
    vks_error err;
    CHECK(vks_palette_store_init(&s, c, 10, &err));

    /* 1: all new, dealt from 0 in list order, all posed, one merged copy of 8 entries. */
    uint32_t l1[] = {0, 1, 4};
    CHECK(frame(&s, c, l1, 3, NULL) == 3);
    CHECK(s.block[0] == 0 && s.block[1] == 3 && s.block[4] == 6 && s.top == 8);
    CHECK(s.pose_count == 3 && s.pose_first[0] == 0 && s.pose_first[1] == 3 &&
          s.pose_first[2] == 6 && s.staged == 8);
    CHECK(s.copy_count == 1 && s.copies[0].from == 0 && s.copies[0].to == 0 &&
          s.copies[0].count == 8);
    CHECK(!s.restarted && s.dropped == 0);

    /* 2: 0 leaves; the others keep their blocks and are not posed: nothing moves. */
    uint32_t l2[] = {1, 4};
    const uint8_t keep2[] = {0, 0};
    CHECK(frame(&s, c, l2, 2, keep2) == 2);
    CHECK(s.block[0] == VKS_PALETTE_NONE && s.block[1] == 3 && s.block[4] == 6);
    CHECK(s.pose_count == 0 && s.staged == 0 && s.copy_count == 0);

    /* 3: 2 (model A) takes the block 0 gave back; posed though its schedule says no. */
    uint32_t l3[] = {1, 2, 4};
    const uint8_t keep3[] = {0, 0, 0};
    CHECK(frame(&s, c, l3, 3, keep3) == 3);
    CHECK(s.block[2] == 0 && s.top == 8);
    CHECK(s.pose_count == 1 && s.pose[0] == 2 && s.pose_first[0] == 0 && s.staged == 3);
    CHECK(s.copy_count == 1 && s.copies[0].from == 0 && s.copies[0].to == 0 &&
          s.copies[0].count == 3);

    /* 4: 5 (B) takes the last 2 entries; 6 (B) finds none, and the list (12 entries) does not
     * fit the store whole: the blocks dealt stay, 6 is dropped, only 5 is posed. */
    uint32_t l4[] = {1, 2, 4, 5, 6};
    const uint8_t keep4[] = {0, 0, 0, 0, 0};
    CHECK(frame(&s, c, l4, 5, keep4) == 4);
    CHECK(!s.restarted && s.dropped == 1);
    CHECK(l4[0] == 1 && l4[1] == 2 && l4[2] == 4 && l4[3] == 5);
    CHECK(s.block[1] == 3 && s.block[2] == 0 && s.block[4] == 6 && s.block[5] == 8 &&
          s.block[6] == VKS_PALETTE_NONE);
    CHECK(s.pose_count == 1 && s.pose[0] == 5 && s.staged == 2 && s.copy_count == 1 &&
          s.copies[0].from == 0 && s.copies[0].to == 8 && s.copies[0].count == 2);

    /* 5: 1 and 2 leave (model A's blocks free), 6 (B) still finds none, but the list (6 entries)
     * fits whole: the store starts again, packed in list order (4: 0, 5: 2, 6: 4), every one
     * posed, one copy. */
    uint32_t l5[] = {4, 5, 6};
    const uint8_t keep5[] = {0, 0, 0};
    CHECK(frame(&s, c, l5, 3, keep5) == 3);
    CHECK(s.restarted && s.dropped == 0 && s.top == 6);
    CHECK(s.block[4] == 0 && s.block[5] == 2 && s.block[6] == 4 && s.block[1] == VKS_PALETTE_NONE);
    CHECK(s.pose_count == 3 && s.staged == 6 && s.copy_count == 1 && s.copies[0].count == 6);

    /* 6: 4 leaves; 0 (A) is new (from the top: A has no freed block since the start again), 5 is
     * scheduled: two copies that cannot merge (staging 0 -> 6, 3 -> 2). */
    uint32_t l6[] = {0, 5, 6};
    const uint8_t keep6[] = {0, 1, 0};
    CHECK(frame(&s, c, l6, 3, keep6) == 3);
    CHECK(!s.restarted && s.block[0] == 6 && s.block[5] == 2 && s.block[6] == 4 && s.top == 9);
    CHECK(s.pose_count == 2 && s.pose[0] == 0 && s.pose[1] == 5 && s.staged == 5);
    CHECK(s.copy_count == 2 && s.copies[0].from == 0 && s.copies[0].to == 6 &&
          s.copies[1].from == 3 && s.copies[1].to == 2 && s.copies[1].count == 2);

    /* Cleared (a frame that never ran): nothing held, the next frame poses every one. */
    vks_palette_store_clear(&s);
    CHECK(s.block[0] == VKS_PALETTE_NONE && s.copy_count == 0 && s.staged == 0);
    CHECK(frame(&s, c, l6, 3, keep6) == 3 && s.pose_count == 3);

    /* A store smaller than one palette is refused, naming the model. */
    vks_palette_store small;
    CHECK(!vks_palette_store_init(&small, c, 2, &err));
    CHECK(strstr(err.msg, "fewer than one palette of made-up (3 entries)") != NULL);
    vks_palette_store_free(&s);
    free(mc.crowd.instances);
    free(mc.crowd.model_of);
}

static uint32_t rng(uint32_t *x)
{
    *x = *x * 1664525u + 1013904223u;
    return *x >> 8;
}

/* A block's flat entry (palette_store.h names a paged store's by page and entry). */
static uint32_t flat_of(const vks_palette_store *s, uint32_t block)
{
    if (!s->page_entries)
        return block;
    return (block >> VKS_PALETTE_PAGE_SHIFT) * s->page_entries + (block & VKS_PALETTE_PAGE_MASK);
}

/* The entries a list of blocks of these sizes takes packed in order from the store's start: in
 * pages of `page` entries (0: one page) that no block crosses, page 0's entry 0 kept. */
static uint64_t packed(const uint32_t *sizes, uint32_t count, uint32_t page)
{
    uint64_t top = page ? 1 : 0;
    for (uint32_t k = 0; k < count; k++) {
        if (page && top % page + sizes[k] > page)
            top = (top / page + 1) * page;
        top += sizes[k];
    }
    return top;
}

/* A store of `most` entries, or paged in pages of `page` entries (VKS_PALETTE_PAGES of them:
 * `most`), half of them to start and grown to all at frame 1000 (vks_palette_store_grow: blocks
 * dealt stay). */
static void test_random(uint32_t page, uint32_t most)
{
    made_crowd mc;
    make_crowd(&mc, (const uint32_t[]){7, 3, 12}, (const uint32_t[]){40, 70, 25}, 3);
    const vks_crowd *c = &mc.crowd;
    const uint32_t n = c->instance_count; /* 400 entries: about 50 instances' palettes */
    CHECK(!page || most == VKS_PALETTE_PAGES * page);
    uint32_t capacity = page ? most / 2 : most;
    vks_palette_store s;
    vks_error err;
    CHECK(vks_palette_store_init(&s, c, capacity, &err));
    if (page)
        CHECK(vks_palette_store_page(&s, c, page, &err));
    uint32_t *sizes = malloc(sizeof *sizes * n);
    uint32_t *list = malloc(sizeof *list * n), *before = malloc(sizeof *before * n);
    uint8_t *marks = malloc(n), *before_kind = malloc(n); /* far splats' marks, kinds before */
    uint32_t splat_frames = 0;
    uint32_t *owner = malloc(sizeof *owner * most); /* entry -> instance, this frame */
    uint8_t *schedule = malloc(n), *scheduled = calloc(n, 1);
    uint32_t x = 12345, restarts = 0, drops = 0, reused = 0, kept_frames = 0;
    bool ok = true;
    for (int f = 0; f < 2000 && ok; f++) {
        if (page && f == 1000) {
            CHECK(vks_palette_store_grow(&s, c, most, &err));
            capacity = most;
        }
        /* A random share of the crowd (sometimes more than the store holds), ascending. */
        const uint32_t share = 1 + rng(&x) % (f % 50 == 49 ? 100 : 40);
        /* Far splats (one entry) on a third of the listed from frame 500 on, for lists up to a
         * random length (the marks of a longer one cleared). */
        s.splat_list_max = f < 500 ? 0 : rng(&x) % 2 ? UINT32_MAX : rng(&x) % 60;
        uint32_t count = 0, entries = 0;
        for (uint32_t i = 0; i < n; i++)
            if (rng(&x) % 100 < share) {
                list[count] = i;
                schedule[count] = rng(&x) % 4 == 0;
                scheduled[i] = schedule[count];
                /* a third, each instance's mark changing every 100 frames */
                marks[count] =
                    f >= 500 && (i + (uint32_t)f / 100) % 3 == 0 ? VKS_RASTER_MARK_SPLAT : 0;
                count++;
            }
        const bool splats = count <= s.splat_list_max;
        for (uint32_t k = 0; k < count; k++) {
            sizes[k] = splats && marks[k] ? 1 : joints_of(c, list[k]);
            entries += sizes[k];
        }
        /* What the list takes packed: vks_palette_store_wanted's, and the bound below. */
        const uint64_t wanted = packed(sizes, count, page);
        ok &= vks_palette_store_wanted(&s, c, list, marks, count) == wanted;
        splat_frames += splats && f >= 500;
        for (uint32_t i = 0; i < n; i++) {
            before[i] = s.block[i];
            before_kind[i] = s.block_kind[i];
        }
        const uint32_t listed = count, top_before = s.top;
        count = vks_palette_store_frame(&s, c, NULL, list, NULL, marks, count, schedule);
        restarts += s.restarted;
        drops += s.dropped;
        /* Dropped only when the store cannot hold the list whole, and then it does not start
         * again (which would drop others next frame, and start again, every frame). */
        ok &= listed - count == s.dropped && (s.dropped == 0 || wanted > capacity);
        ok &= !s.restarted || (wanted <= capacity && s.dropped == 0);
        ok &= page || wanted == entries;
        /* Slots: inside the store (past page 0's table, none across a page), each instance's
         * own. */
        memset(owner, 0xff, sizeof *owner * most);
        uint8_t *posed = calloc(n, 1);
        /* Packed in list order (paged: each page's poses from its own page of the staging). */
        uint64_t staged = 0, at[VKS_PALETTE_PAGES];
        for (uint32_t p = 0; p < VKS_PALETTE_PAGES; p++)
            at[p] = (uint64_t)p * page;
        for (uint32_t k = 0; k < s.pose_count; k++) {
            posed[s.pose[k]] = 1;
            const uint32_t pg = page ? s.block[s.pose[k]] >> VKS_PALETTE_PAGE_SHIFT : 0;
            const uint32_t j = s.pose_splat[k] ? 1 : joints_of(c, s.pose[k]);
            ok &= pg < VKS_PALETTE_PAGES && s.pose_first[k] == at[pg];
            at[pg] += j;
            ok &= !page || at[pg] <= (uint64_t)(pg + 1) * page;
            staged += j;
        }
        ok &= staged == s.staged;
        for (uint32_t k = 0; k < count; k++) {
            const bool splat = marks[k] == VKS_RASTER_MARK_SPLAT;
            const uint32_t i = list[k], j = splat ? 1 : joints_of(c, i);
            ok &= s.block[i] != VKS_PALETTE_NONE;
            const uint32_t block = flat_of(&s, s.block[i]);
            ok &= !page || (block >= 1 && block % page + j <= page);
            const uint8_t kind =
                splat ? (uint8_t)VKS_PALETTE_SPLAT_KIND(c->model_of[i]) : c->model_of[i];
            ok &= splats || !splat; /* marks cleared past splat_list_max */
            ok &= s.block_kind[i] == kind;
            ok &= k == 0 || list[k - 1] < i; /* still ascending */
            ok &= block + j <= capacity;
            for (uint32_t e = block; ok && e < block + j && e < capacity; e++) {
                ok &= owner[e] == UINT32_MAX;
                owner[e] = i;
            }
            /* (an instance not listed last frame gave its block back this frame, and so did one
             * whose kind changed) */
            const bool fresh = before[i] == VKS_PALETTE_NONE || before_kind[i] != kind;
            /* Kept while listed, unless the store started again. */
            if (!fresh && !s.restarted) {
                ok &= s.block[i] == before[i];
                kept_frames++;
            }
            reused += fresh && !s.restarted && block + j <= top_before; /* a freed block */
            /* Posed exactly when scheduled, new, or the store started again. */
            const bool expect = scheduled[i] || fresh || s.restarted;
            ok &= posed[i] == expect;
        }
        /* The copies: every staged entry to its instance's block, once. */
        uint8_t *moved = calloc(most, 1);
        for (uint32_t k = 0; k < s.copy_count; k++) {
            const vks_palette_copy *cp = &s.copies[k];
            /* a copy stays within a page */
            ok &= !page || (cp->to & VKS_PALETTE_PAGE_MASK) + cp->count <= page;
            for (uint32_t e = 0; ok && e < cp->count; e++) {
                const uint32_t to = flat_of(&s, cp->to) + e, from = cp->from + e;
                ok &= to < capacity && from < (page ? capacity : s.staged) && !moved[to] &&
                      owner[to] != UINT32_MAX;
                if (!ok)
                    break;
                moved[to] = 1;
                const uint32_t i = owner[to];
                ok &= posed[i];
                /* staging entry `from` is this instance's (its pose_first + the same offset) */
                uint32_t p = 0;
                while (p < s.pose_count && s.pose[p] != i)
                    p++;
                ok &= p < s.pose_count && from - s.pose_first[p] == to - flat_of(&s, s.block[i]);
            }
        }
        uint64_t moved_count = 0;
        for (uint32_t e = 0; e < most; e++)
            moved_count += moved[e];
        ok &= moved_count == s.staged;
        free(moved);
        free(posed);
        memset(scheduled, 0, n);
        if (!ok)
            fprintf(stderr, "  frame %d: an invariant failed (%u listed, %u kept)\n", f, listed,
                    count);
    }
    CHECK(ok);
    /* The run went where the invariants matter: kept blocks, reuse, starts again, drops. */
    printf("random (%s%u): 2000 frames, %u instance-frames kept their block, %u blocks reused, "
           "%u starts again, %u dropped\n",
           page ? "pages of " : "unpaged, ", page ? page : most, kept_frames, reused, restarts,
           drops);
    printf("        %u frames with far splats' blocks\n", splat_frames);
    CHECK(kept_frames > 1000 && reused > 100 && restarts > 0 && drops > 0 && splat_frames > 200);
    vks_palette_store_free(&s);
    free(list), free(before), free(owner), free(schedule), free(scheduled), free(sizes);
    free(marks), free(before_kind);
    free(mc.crowd.instances);
    free(mc.crowd.model_of);
}

/* Whether two stores and their frames' lists agree in everything a frame leaves. */
static bool same_store(const vks_palette_store *a, const vks_palette_store *b, uint32_t n,
                       const uint32_t *la, const uint32_t *lb, const uint8_t *ma, const uint8_t *mb,
                       uint32_t count)
{
    bool ok = a->top == b->top && a->capacity == b->capacity && a->holder_count == b->holder_count &&
              a->pose_count == b->pose_count && a->copy_count == b->copy_count &&
              a->staged == b->staged && a->dropped == b->dropped && a->restarted == b->restarted;
    ok = ok && !memcmp(la, lb, sizeof *la * count) && !memcmp(ma, mb, count) &&
         !memcmp(a->block, b->block, sizeof *a->block * n) &&
         !memcmp(a->holders, b->holders, sizeof *a->holders * a->holder_count) &&
         !memcmp(a->pose, b->pose, sizeof *a->pose * a->pose_count) &&
         !memcmp(a->pose_first, b->pose_first, sizeof *a->pose_first * a->pose_count) &&
         !memcmp(a->pose_splat, b->pose_splat, a->pose_count) &&
         !memcmp(a->copies, b->copies, sizeof *a->copies * a->copy_count) &&
         !memcmp(a->free_count, b->free_count, sizeof a->free_count);
    for (uint32_t i = 0; ok && i < n; i++)
        ok = a->block[i] == VKS_PALETTE_NONE || a->block_kind[i] == b->block_kind[i];
    for (uint32_t k = 0; ok && k < VKS_PALETTE_KINDS; k++)
        ok = !a->free_count[k] ||
             !memcmp(a->free_blocks[k], b->free_blocks[k], sizeof(uint32_t) * a->free_count[k]);
    return ok;
}

/* The frame on the pool (4 threads, chunks of `grain` entries and more) against one thread's
 * (the default chunks), frame by frame over random lists, schedules and splat marks of a crowd
 * of n (three models): the same lists kept, blocks, holders, poses, copies and free lists,
 * bit for bit, on a store unpaged or in pages, small enough to drop and start again. */
static void test_pool_equal(vks_pool *pool, uint32_t n, uint32_t grain, uint32_t page)
{
    made_crowd mc;
    const uint32_t third = n / 3;
    make_crowd(&mc, (const uint32_t[]){7, 3, 12}, (const uint32_t[]){n - 2 * third, third, third},
               3);
    const vks_crowd *c = &mc.crowd;
    /* about a third of the crowd's palettes at once */
    const uint32_t most = page ? VKS_PALETTE_PAGES * page : 3 * n + 16;
    vks_palette_store one, many;
    vks_error err;
    CHECK(vks_palette_store_init(&one, c, most, &err) && vks_palette_store_init(&many, c, most, &err));
    if (page)
        CHECK(vks_palette_store_page(&one, c, page, &err) &&
              vks_palette_store_page(&many, c, page, &err));
    many.grain = grain;
    one.splat_list_max = many.splat_list_max = UINT32_MAX;
    uint32_t *la = malloc(sizeof *la * n), *lb = malloc(sizeof *lb * n);
    uint8_t *ma = malloc(n), *mb = malloc(n), *schedule = malloc(n);
    uint8_t *va = malloc(n), *vb = malloc(n); /* levels, compacted with the lists */
    uint32_t x = 777u + n, frames = 0, restarts = 0, drops = 0;
    bool ok = true;
    for (int f = 0; f < 60 && ok; f++) {
        const uint32_t share = 1 + rng(&x) % (f % 10 == 9 ? 100 : 45);
        uint32_t count = 0;
        for (uint32_t i = 0; i < n; i++)
            if (rng(&x) % 100 < share) {
                la[count] = lb[count] = i;
                schedule[count] = rng(&x) % 4 == 0;
                ma[count] = mb[count] = rng(&x) % 3 == 0 ? VKS_RASTER_MARK_SPLAT : 0;
                va[count] = vb[count] = (uint8_t)(rng(&x) % 4);
                count++;
            }
        if (f % 7 == 3) /* a list past splat_list_max: its marks cleared */
            one.splat_list_max = many.splat_list_max = count / 2;
        const uint32_t ka = vks_palette_store_frame(&one, c, NULL, la, va, ma, count, schedule);
        const uint32_t kb = vks_palette_store_frame(&many, c, pool, lb, vb, mb, count, schedule);
        ok = ka == kb && same_store(&one, &many, n, la, lb, ma, mb, ka) && !memcmp(va, vb, ka);
        one.splat_list_max = many.splat_list_max = UINT32_MAX;
        frames++;
        restarts += one.restarted;
        drops += one.dropped;
        if (!ok)
            fprintf(stderr, "  pool, %u instances, grain %u: frame %d differs\n", n, grain, f);
    }
    CHECK(ok);
    printf("pool: %u instances, chunks of %u+, %s: %u frames equal to one thread's (%u starts "
           "again, %u dropped)\n",
           n, grain, page ? "paged" : "unpaged", frames, restarts, drops);
    vks_palette_store_free(&one);
    vks_palette_store_free(&many);
    free(la), free(lb), free(ma), free(mb), free(va), free(vb), free(schedule);
    free(mc.crowd.instances);
    free(mc.crowd.model_of);
}

/* An instance given another model (vks_crowd_set_model) while it holds a block: its block was
 * dealt for the old model's joints, so it gives it back (to the old model's free blocks) and gets
 * one of its new model's size, and is posed; the crowd growing (more indices) needs
 * vks_palette_store_reserve. By hand: A has 2 joints, B 5. */
static void test_model_change(void)
{
    made_crowd mc; /* A: instances 0-2; B: 3 */
    make_crowd(&mc, (const uint32_t[]){2, 5}, (const uint32_t[]){3, 1}, 2);
    vks_crowd *c = &mc.crowd;
    vks_palette_store s;
    vks_error err;
    CHECK(vks_palette_store_init(&s, c, 20, &err));
    uint32_t l1[] = {0, 1, 2};
    CHECK(frame(&s, c, l1, 3, NULL) == 3);
    CHECK(s.block[0] == 0 && s.block[1] == 2 && s.block[2] == 4 && s.top == 6);
    /* 1 becomes a B: its A block (2) goes back to A's free list, it takes 5 from the top. */
    c->instances[1].model = 1;
    c->model_of[1] = 1;
    const uint8_t keep[] = {0, 0, 0};
    uint32_t l2[] = {0, 1, 2};
    CHECK(frame(&s, c, l2, 3, keep) == 3);
    CHECK(s.block[0] == 0 && s.block[1] == 6 && s.block[2] == 4 && s.top == 11);
    CHECK(s.free_count[0] == 1 && s.free_blocks[0][0] == 2);
    CHECK(s.pose_count == 1 && s.pose[0] == 1 && s.staged == 5 && s.copy_count == 1 &&
          s.copies[0].to == 6 && s.copies[0].count == 5);
    /* 3 (a B) listed: B has no freed block, the top has room. A new instance at index 4 (the
     * crowd grew) needs room in the store's per-instance lists first. */
    const uint32_t grown = 8;
    c->instances = realloc(c->instances, sizeof *c->instances * grown);
    c->model_of = realloc(c->model_of, grown);
    c->instances[4] = (vks_crowd_instance){.model = 0};
    c->model_of[4] = 0;
    c->instance_count = 5;
    c->instance_capacity = grown;
    CHECK(vks_palette_store_reserve(&s, c, &err) && s.instances == grown);
    CHECK(s.block[4] == VKS_PALETTE_NONE && s.block[1] == 6);
    uint32_t l3[] = {0, 1, 3, 4};
    CHECK(frame(&s, c, l3, 4, NULL) == 4);
    /* 2 leaves (A free: 2, then 4); 3 takes the top, 4 the block freed last. */
    CHECK(s.block[3] == 11 && s.block[4] == 4 && s.top == 16);
    vks_palette_store_free(&s);
    free(mc.crowd.instances);
    free(mc.crowd.model_of);
}

/* Far splats' blocks, by hand: model A of 3 joints (instances 0-3) in a store of 10. A splat
 * mark takes a block of one entry, posed as a splat's (pose_splat); kept while it stays a
 * splat; a splat that becomes triangles (and back) gives its block back to its kind and takes
 * one of the other kind, posed anew; a list longer than splat_list_max has its marks cleared and
 * takes whole blocks. */
static void test_splats(void)
{
    made_crowd mc;
    make_crowd(&mc, (const uint32_t[]){3}, (const uint32_t[]){4}, 1);
    const vks_crowd *c = &mc.crowd;
    vks_palette_store s;
    vks_error err;
    CHECK(vks_palette_store_init(&s, c, 10, &err));
    s.splat_list_max = 4;
    const uint8_t S = VKS_RASTER_MARK_SPLAT;
    /* 1: 0 and 2 splats (one entry each), 1 whole: 0 at 0, 1 at 1..3, 2 at 4. */
    uint32_t l1[] = {0, 1, 2};
    uint8_t r1[] = {S, 0, S};
    CHECK(vks_palette_store_frame(&s, c, NULL, l1, NULL, r1, 3, NULL) == 3);
    CHECK(s.block[0] == 0 && s.block[1] == 1 && s.block[2] == 4 && s.top == 5);
    CHECK(s.pose_count == 3 && s.pose_splat[0] == 1 && s.pose_splat[1] == 0 &&
          s.pose_splat[2] == 1 && s.staged == 5);
    CHECK(s.copy_count == 1 && s.copies[0].count == 5);
    /* 2: the same, nothing scheduled: kept, nothing posed. */
    uint32_t l2[] = {0, 1, 2};
    uint8_t r2[] = {S, 0, S};
    CHECK(vks_palette_store_frame(&s, c, NULL, l2, NULL, r2, 3, (const uint8_t[]){0, 0, 0}) == 3);
    CHECK(s.block[0] == 0 && s.block[2] == 4 && s.pose_count == 0);
    /* 3: 0 becomes triangles, 1 a splat: 0 takes 1's freed whole block (1..3), 1 takes 0's
     * freed splat block (0); both posed, 2 kept. */
    uint32_t l3[] = {0, 1, 2};
    uint8_t r3[] = {0, S, S};
    CHECK(vks_palette_store_frame(&s, c, NULL, l3, NULL, r3, 3, (const uint8_t[]){0, 0, 0}) == 3);
    CHECK(s.block[0] == 1 && s.block[1] == 0 && s.block[2] == 4 && s.top == 5);
    CHECK(s.pose_count == 2 && s.pose[0] == 0 && s.pose_splat[0] == 0 && s.pose[1] == 1 &&
          s.pose_splat[1] == 1 && s.staged == 4);
    /* 4: four listed, past splat_list_max (3): the marks cleared, whole blocks. 0 keeps its
     * (1..3), 1 takes the top's (5..7); 2 and 3 find no room (the freed splat blocks of one
     * entry are no whole block; 4 x 3 entries exceed the store, so it does not start again):
     * dropped. */
    s.splat_list_max = 3;
    uint32_t l4[] = {0, 1, 2, 3};
    uint8_t r4[] = {S, S, S, S};
    const uint32_t kept = vks_palette_store_frame(&s, c, NULL, l4, NULL, r4, 4, NULL);
    CHECK(r4[0] == 0 && r4[1] == 0 && r4[2] == 0 && r4[3] == 0);
    CHECK(kept == 2 && s.dropped == 2 && s.block[0] == 1 && s.block[1] == 5);
    for (uint32_t k = 0; k < s.pose_count; k++)
        CHECK(s.pose_splat[k] == 0);
    vks_palette_store_free(&s);
    free(mc.crowd.instances);
    free(mc.crowd.model_of);
}

int main(void)
{
    test_hand();
    test_model_change();
    test_splats();
    vks_pool *pool = NULL;
    vks_error err;
    CHECK(vks_pool_create(4, &pool, &err));
    const uint32_t sizes[] = {1, 7, 8193, 100000};
    for (size_t k = 0; pool && k < sizeof sizes / sizeof sizes[0]; k++) {
        test_pool_equal(pool, sizes[k], 1, 0);
        test_pool_equal(pool, sizes[k], 61, 0);
        test_pool_equal(pool, sizes[k], 61, sizes[k] < 100 ? 64 : sizes[k]);
    }
    vks_pool_destroy(pool);
    test_random(0, 400);
    test_random(100, 400);
    test_random(61, 244); /* five palettes of 12 joints a page, one entry left at its end */
    return check_report("palette_store");
}
