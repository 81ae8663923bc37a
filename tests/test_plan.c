/* The renderer's memory plan (src/render/plan.h) and frame plan (frame_plan.h), without a device:
 * crowds and device limits made up here, every expected value worked out here from the layouts'
 * sizes, never read back from the planner.
 *
 *   frame:      a frame's visible instances get output space in order, packed from 0, each
 *               whole within one chunk (one that would straddle starts the next chunk), until
 *               one does not fit: hand-worked layouts (a culled subset, a budget that stops
 *               early, an instance larger than a chunk) and, over many random lists, limits
 *               and budgets, the invariants against a walk written here.
 *   frame plan: the renderer's frame order (render/frame_plan.h): random frames of a two-model
 *               crowd at random levels and raster marks, against a scan per (model, level,
 *               rasterizer) written here; the overflow, the raster ranges and the GPU's list.
 *   limit:      the smallest of the three device limits and the wish, rounded down to 16.
 *   memory:     small crowds (with and without tangents, wide models, a texture) in compute and
 *               vertex mode: model bytes, per-instance state, the palette store adding its
 *               entries on the device, and the output: the request, or every instance's when that
 * fits in half of what is left, or that half, or at least one largest instance's. fit:        for
 * made-up heaps, exactly k instances fit and k + 1 do not, with the message naming k: one heap
 * shared with the host, separate device and host heaps (either one the tighter), vertex mode, the
 * palette store, an explicit output, and the largest buffer holding a frame's palettes (host
 * palettes) or capping the store (which then fits more than a store of every instance's would). */
#include "check.h"

#include <assert.h>

#include "render/frame_plan.h"
#include "render/plan.h"

#include <stdlib.h>
#include <string.h>

/* The sizes the closed forms below use, as the layouts define them (shaders/vks_shared.h). */
enum {
    SKINNED = 16,  /* vks_skinned_vertex: position (3 floats) + octahedral normal */
    TANGENT = 4,   /* a skinned tangent: octahedral with the handedness bit */
    INSTANCE = 64, /* vks_instance */
    MODEL = 192,   /* vks_model_gpu */
    BONE = 48,     /* vks_bone: 3x4 floats */
    VISIBLE = 24, /* a visible-list entry: instance, first vertex, output address, palette, model */
    /* position, normal, tangent, joints (8 bits each), weights, uv */
    STREAMS = 8 + 4 + 4 + 4 + 8 + 8,
    WIDE_STREAMS = 4 + 8, /* joints and weights 5 to 8 */
    INDEX = 4,
    FRAMES = 2,
    RECORD = 16, /* a scatter record (the palette store): from, to, count, padding */
};
static_assert(sizeof(vks_skinned_vertex) == SKINNED && sizeof(vks_instance) == INSTANCE &&
                  sizeof(vks_model_gpu) == MODEL && sizeof(vks_bone) == BONE &&
                  sizeof(vks_visible) == VISIBLE && GPU_FRAMES_IN_FLIGHT == FRAMES &&
                  sizeof(vks_scatter_record) == RECORD,
              "the sizes the expected values are worked out with");

static float dummy4[1][4];
static uint16_t dummy_joints[1][4];
static vks_texture texture_4x3 = {.width = 4, .height = 3};

typedef struct made_model {
    uint32_t vertices, indices, joints;
    bool tangents, wide, textured;
} made_model;

/* Only what the planner reads: counts, and which optional streams exist (pointers it never
 * follows). */
static vks_model make_model(const char *name, made_model d)
{
    return (vks_model){
        .name = (char *)name,
        .vertex_count = d.vertices,
        .index_count = d.indices,
        .tangents = d.tangents ? dummy4 : NULL,
        .joints_extra = d.wide ? dummy_joints : NULL,
        .weights_extra = d.wide ? dummy4 : NULL,
        .texture_count = d.textured ? 1 : 0,
        .textures = d.textured ? &texture_4x3 : NULL,
        .skeleton = {.joint_count = d.joints},
    };
}

/* A crowd whose instance i shows models[of[i]]. */
static vks_crowd make_crowd(const vks_model *const *models, uint32_t model_count,
                            const uint32_t *of, uint32_t n)
{
    vks_crowd c = {.model_count = model_count, .instance_count = n};
    for (uint32_t m = 0; m < model_count; m++)
        c.models[m] = models[m];
    c.instance_capacity = n;
    c.instances = calloc(n, sizeof *c.instances);
    c.model_of = calloc(n, 1);
    for (uint32_t i = 0; i < n; i++) {
        c.instances[i].model = of[i];
        c.model_of[i] = (uint8_t)of[i];
        c.palette_count += models[of[i]]->skeleton.joint_count;
    }
    return c;
}

/* n instances of one model. */
static vks_crowd make_uniform(const vks_model *model, uint32_t n)
{
    uint32_t *of = calloc(n, sizeof *of);
    vks_crowd c = make_crowd(&model, 1, of, n);
    free(of);
    return c;
}

/* One instance's skinned output, by hand: vertices, tangents, padding to 16. */
static VkDeviceSize hand_output(made_model d)
{
    VkDeviceSize v = (VkDeviceSize)d.vertices * (SKINNED + (d.tangents ? TANGENT : 0));
    return (v + 15) / 16 * 16;
}

/* A model's bind streams, indices, model-table entry and texture (with its mips), by hand. */
static VkDeviceSize hand_streams(made_model d)
{
    const VkDeviceSize joints16 = d.joints > 256 ? 4 : 0; /* 16-bit joints: 4 bytes more */
    return (VkDeviceSize)d.vertices *
               (STREAMS + joints16 + (d.wide ? WIDE_STREAMS + joints16 : 0)) +
           (VkDeviceSize)d.indices * INDEX + MODEL + (d.textured ? 4 * 3 * 4 * 4 / 3 : 0);
}

static const made_model A = {.vertices = 10, .indices = 30, .joints = 5}; /* 160 B */
static const made_model B = {
    .vertices = 7, .indices = 12, .joints = 3, .tangents = true, .wide = true}; /* 144 B */
static const made_model C = {.vertices = 3, .indices = 3, .joints = 2, .tangents = true}; /* 64 */

/* ---- Output sizes ---- */

static void test_output_bytes(void)
{
    vks_model a = make_model("A", A), b = make_model("B", B), c = make_model("C", C);
    CHECK(vks_plan_output_bytes(&a) == 160);   /* 10 x 16 */
    CHECK(vks_plan_tangent_offset(&b) == 112); /* 7 x 16 */
    CHECK(vks_plan_output_bytes(&b) == 144);   /* 112 + 7 x 4 = 140, padded to 144 */
    CHECK(vks_plan_tangent_offset(&c) == 48);
    CHECK(vks_plan_output_bytes(&c) == 64); /* 48 + 12 = 60 -> 64 */
    CHECK(hand_output(A) == 160 && hand_output(B) == 144 && hand_output(C) == 64);
    /* Bind bytes a vertex: 8-bit joints up to 256 joints, 16-bit past them (wide: both sets). */
    CHECK(vks_plan_bind_bytes(&a) == STREAMS && vks_plan_bind_bytes(&b) == STREAMS + WIDE_STREAMS);
    vks_model many = make_model("many", (made_model){.vertices = 1, .joints = 257});
    vks_model many_wide =
        make_model("many", (made_model){.vertices = 1, .joints = 300, .wide = true});
    CHECK(vks_plan_bind_bytes(&many) == STREAMS + 4);
    CHECK(vks_plan_bind_bytes(&many_wide) == STREAMS + WIDE_STREAMS + 8);
    many.skeleton.joint_count = 256;
    CHECK(vks_plan_bind_bytes(&many) == STREAMS);
    const vks_model *models[] = {&a, &b};
    const uint32_t only_a[] = {0, 0}, both[] = {0, 1};
    vks_crowd plain = make_crowd(models, 1, only_a, 2), mixed = make_crowd(models, 2, both, 2);
    CHECK(vks_plan_vertex_bytes(&plain) == SKINNED);           /* no model with tangents used */
    CHECK(vks_plan_vertex_bytes(&mixed) == SKINNED + TANGENT); /* B has tangents */
    free(plain.instances);
    free(plain.model_of);
    free(mixed.instances);
    free(mixed.model_of);
}

/* ---- A frame's outputs ---- */

/* A, B, B, A visible, chunks of 400 bytes, worked by hand: A at 0 and B at 160 fill 304 bytes;
 * the second B would straddle 400, so it starts chunk 1 (400 .. 544) and the last A follows it
 * (544 .. 704). With 700 bytes of output the last A does not fit: 3 of 4. */
static void test_frame_by_hand(void)
{
    vks_model a = make_model("A", A), b = make_model("B", B);
    const vks_model *models[] = {&a, &b};
    const uint32_t of[] = {0, 1, 1, 0};
    vks_crowd crowd = make_crowd(models, 2, of, 4);
    const uint32_t all[] = {0, 1, 2, 3};
    VkDeviceSize offset[4] = {0};
    CHECK(vks_plan_frame(&crowd, all, NULL, 4, 800, 400, offset) == 4);
    CHECK(offset[0] == 0 && offset[1] == 160 && offset[2] == 400 && offset[3] == 544);
    CHECK(vks_plan_frame(&crowd, all, NULL, 4, 700, 400, offset) == 3);
    CHECK(offset[0] == 0 && offset[1] == 160 && offset[2] == 400);
    /* Culled instances take nothing: instances 1 and 3 visible pack from 0. */
    const uint32_t some[] = {1, 3};
    CHECK(vks_plan_frame(&crowd, some, NULL, 2, 800, 400, offset) == 2);
    CHECK(offset[0] == 0 && offset[1] == 144);
    /* Output for one B exactly: the first B fits, nothing after it. */
    CHECK(vks_plan_frame(&crowd, some, NULL, 2, 144, 144, offset) == 1 && offset[0] == 0);
    /* Chunks smaller than an A: B fits, the A after it never does, and the list stops there (a
     * prefix). */
    CHECK(vks_plan_frame(&crowd, some, NULL, 2, 10000, 150, offset) == 1 && offset[0] == 0);
    CHECK(vks_plan_frame(&crowd, all, NULL, 4, 10000, 150, offset) == 0);
    CHECK(vks_plan_frame(&crowd, all, NULL, 4, 0, 400, offset) == 0);
    /* At a level of detail an instance takes its level's vertices: A with a 4-vertex level 1
     * (4 x 16 = 64 bytes) before a B at level 0 (144): 0 and 64, 208 bytes in all. */
    a.level_count = 2;
    a.levels[0] = (vks_level){.vertex_count = 10};
    a.levels[1] = (vks_level){.vertex_count = 4};
    const uint32_t a_then_b[] = {0, 1};
    const uint8_t levels[] = {1, 0};
    CHECK(vks_plan_frame(&crowd, a_then_b, levels, 2, 208, 400, offset) == 2);
    CHECK(offset[0] == 0 && offset[1] == 64);
    CHECK(vks_plan_frame(&crowd, a_then_b, levels, 2, 200, 400, offset) == 1);
    CHECK(vks_plan_level_output_bytes(&a, 1) == 64 && vks_plan_level_output_bytes(&a, 0) == 160);
    a.level_count = 0;
    /* The plan refuses a buffer smaller than one instance's output, naming its model. */
    vks_plan_limits lim = {.max_memory_allocation = 1u << 30,
                           .max_buffer = 1u << 30,
                           .max_storage_buffer_range = 1u << 30,
                           .device_heap = 1u << 30,
                           .name = "Made-up GPU"};
    vks_plan_memory mem;
    vks_error err = {{0}};
    a.name = "tall A";
    CHECK(!vks_plan_memory_of(&lim, &crowd,
                              &(vks_plan_request){.mode = VKS_SKIN_COMPUTE, .buffer_limit = 144},
                              &mem, &err));
    CHECK(strcmp(err.msg, "one instance of tall A needs 160 bytes of skinned vertices, more than "
                          "the largest buffer (144 bytes)") == 0);
    CHECK(vks_plan_memory_of(&lim, &crowd,
                             &(vks_plan_request){.mode = VKS_SKIN_VERTEX, .buffer_limit = 144},
                             &mem, &err)); /* no output in vertex mode */
    CHECK(vks_plan_frame(&crowd, all, NULL, 0, 1200, 600, offset) == 0);
    CHECK(vks_plan_chunk_count(1200, 600) == 2 && vks_plan_chunk_count(1201, 600) == 3 &&
          vks_plan_chunk_count(16, 600) == 1 && vks_plan_chunk_count(0, 600) == 0);
    free(crowd.instances);
    free(crowd.model_of);
}

/* The expected placement, by a walk written here: each entry at the first 16-byte position at or
 * after the previous end where its bytes[k] lie whole inside one chunk of `limit`, until one does
 * not fit in `output`. Counts in *bad the entries below `got` placed elsewhere than offset[k],
 * and a `got` other than the walk's count; returns that count. */
static uint32_t check_walk(const VkDeviceSize *bytes, uint32_t count, VkDeviceSize output,
                           VkDeviceSize limit, const VkDeviceSize *offset, uint32_t got, int *bad)
{
    uint32_t expected = 0;
    VkDeviceSize end = 0;
    for (; expected < count; expected++) {
        const VkDeviceSize n = bytes[expected];
        VkDeviceSize at = end;
        while (at + n <= output && at / limit != (at + n - 1) / limit)
            at += 16;
        if (at + n > output)
            break;
        *bad += expected < got && offset[expected] != at;
        end = at + n;
    }
    *bad += got != expected;
    return expected;
}

/* Where the walk above ends with output to spare: the bytes that give every entry output. */
static VkDeviceSize walk_end(const VkDeviceSize *bytes, uint32_t count, VkDeviceSize limit)
{
    VkDeviceSize end = 0;
    for (uint32_t k = 0; k < count; k++) {
        VkDeviceSize at = end;
        while (at / limit != (at + bytes[k] - 1) / limit)
            at += 16;
        end = at + bytes[k];
    }
    return end;
}

/* Two models (A and B, no tangents) with LEVELS levels of different sizes (not shrinking, so
 * that a size carried over from the run before would overlap or leave gaps): level l of model m
 * has vertices[m][l] vertices (bytes: 16 a vertex, rounded up to 16), its first at 100 l + m. */
enum { LEVELS = 3 };
static const uint32_t vertices[2][LEVELS] = {{10, 25, 3}, {7, 2, 31}};

static void make_levelled(vks_model models[2])
{
    models[0] = make_model("A", A);
    models[1] = make_model("B", B);
    for (uint32_t m = 0; m < 2; m++) {
        models[m].tangents = NULL;
        models[m].level_count = LEVELS;
        for (uint32_t l = 0; l < LEVELS; l++)
            models[m].levels[l] =
                (vks_level){.vertex_count = vertices[m][l], .vertex_first = 100 * l + m};
    }
}

/* The renderer's order: grouped by model (the crowd's instances grouped too, model_first set),
 * then by level, with levels of different sizes (not shrinking, so that a size carried over
 * from the run before would overlap or leave gaps). Each slot's offset from a walk written
 * here, as above. */
static void test_frame_runs(void)
{
    enum { N = 40, MODELS = 2 };
    vks_model models[MODELS];
    make_levelled(models);
    const vks_model *list[] = {&models[0], &models[1]};
    uint32_t of[N];
    for (uint32_t i = 0; i < N; i++)
        of[i] = i < 17 ? 0 : 1;
    vks_crowd crowd = make_crowd(list, MODELS, of, N);
    crowd.model_first[1] = 17;
    crowd.model_first[2] = N;
    uint32_t x = 777;
    int bad = 0, runs = 0, stopped = 0;
    for (VkDeviceSize limit = 512; limit <= 2048; limit += 16) {
        for (VkDeviceSize output = 0; output <= 8000; output += 416) {
            /* A random subset at random levels (LEVELS: not visible), then ordered by model,
             * level and instance. */
            uint32_t visible[N], count = 0, level_of[N];
            uint8_t levels[N];
            for (uint32_t i = 0; i < N; i++) {
                x = x * 1103515245u + 12345u;
                level_of[i] = (x >> 16) % (LEVELS + 1);
            }
            for (uint32_t m = 0; m < MODELS; m++)
                for (uint32_t l = 0; l < LEVELS; l++)
                    for (uint32_t i = crowd.model_first[m]; i < crowd.model_first[m + 1]; i++)
                        if (level_of[i] == l) {
                            visible[count] = i;
                            levels[count++] = (uint8_t)l;
                        }
            VkDeviceSize offset[N], bytes[N];
            for (uint32_t k = 0; k < count; k++)
                bytes[k] =
                    ((VkDeviceSize)vertices[of[visible[k]]][levels[k]] * SKINNED + 15) / 16 * 16;
            const uint32_t got =
                vks_plan_frame(&crowd, visible, levels, count, output, limit, offset);
            check_walk(bytes, count, output, limit, offset, got, &bad);
            stopped += got < count;
            runs++;
        }
    }
    CHECK(bad == 0);
    CHECK(stopped > 0 && stopped < runs);
    printf("  frame runs: %d lists, %d stopped early\n", runs, stopped);
    free(crowd.instances);
    free(crowd.model_of);
}

/* The frame plan (render/frame_plan.h) over random frames of a two-model crowd whose models are
 * interleaved (not grouped by index, as adds and model swaps leave a crowd): random visible
 * subsets, levels (some past the model's last), raster marks, budgets and chunk limits, and the
 * three rasterizer choices. Expected: the order by a scan per (model, level, rasterizer) written
 * here, the offsets by check_walk, the raster ranges trimmed to the entries with output whose ids
 * the visibility buffer can name, the overflow and its vertices summed entry by entry, and the
 * GPU's visible list field by field against made-up chunk addresses. */
static void test_frame_plan(void)
{
    enum { N = 40, MODELS = 2 };
    vks_model models[MODELS];
    make_levelled(models);
    const vks_model *list[] = {&models[0], &models[1]};
    uint32_t of[N], palette_first[N];
    for (uint32_t i = 0; i < N; i++) { /* the models interleaved, as adds and swaps leave them */
        of[i] = (i * 7 + i / 5) % 3 == 0;
        palette_first[i] = 1000 + 7 * i;
    }
    vks_crowd crowd = make_crowd(list, MODELS, of, N);
    uint32_t x = 4242;
    int bad_order = 0, bad_offset = 0, bad_raster = 0, bad_count = 0, bad_entry = 0;
    int bad_wanted = 0, frames = 0, overflowed = 0, rastered = 0;
    for (int mode = 0; mode < 3; mode++)
        for (VkDeviceSize limit = 512; limit <= 2048; limit += 512)
            for (VkDeviceSize output = 0; output <= 12000; output += 750) {
                const vks_frame_budget budget = {.compute = output > 0,
                                                 .output_bytes = output,
                                                 .chunk_limit = limit,
                                                 .raster = mode == 0   ? VKS_FRAME_RASTER_NONE
                                                           : mode == 1 ? VKS_FRAME_RASTER_MARKED
                                                                       : VKS_FRAME_RASTER_ALL,
                                                 .raster_max_entries = (uint32_t)(output / 250)};
                uint32_t visible[N], count = 0;
                uint8_t levels[N], raster[N], asked[N];
                for (uint32_t i = 0; i < N; i++) {
                    x = x * 1103515245u + 12345u;
                    if ((x >> 16) % 4 == 0)
                        continue; /* culled */
                    visible[count] = i;
                    asked[count] = levels[count] = (uint8_t)((x >> 20) % (LEVELS + 2));
                    raster[count++] = (uint8_t)((x >> 24) & 1);
                }
                uint32_t order[N], order_level_want[N];
                uint8_t order_level[N], order_model[N];
                VkDeviceSize offset[N];
                vks_frame_plan plan = {.order = order,
                                       .order_level = order_level,
                                       .order_model = order_model,
                                       .out_offset = offset};
                vks_frame_plan_make(&crowd, &budget, visible, count, levels, raster, &plan);
                /* The order: per model, per level, the rasterizer's entries, then the others,
                 * each group ascending; levels past the last clamped to it. */
                uint32_t want[N], n = 0, starts[MODELS][LEVELS + 1], marks[MODELS][LEVELS];
                for (uint32_t m = 0; m < MODELS; m++) {
                    for (uint32_t l = 0; l < LEVELS; l++) {
                        starts[m][l] = n;
                        for (int pass = 0; pass < 2; pass++) {
                            for (uint32_t k = 0; k < count; k++) {
                                const uint32_t lk = asked[k] < LEVELS ? asked[k] : LEVELS - 1;
                                const bool r = mode == 2 || (mode == 1 && raster[k]);
                                if (of[visible[k]] == m && lk == l && r == (pass == 0)) {
                                    order_level_want[n] = l;
                                    want[n++] = visible[k];
                                }
                            }
                            if (pass == 0)
                                marks[m][l] = n;
                        }
                    }
                    starts[m][LEVELS] = n;
                }
                for (uint32_t k = 0; k < count; k++)
                    bad_order += order[k] != want[k] || order_level[k] != order_level_want[k] ||
                                 order_model[k] != of[want[k]] ||
                                 levels[k] != (asked[k] < LEVELS ? asked[k] : LEVELS - 1);
                for (uint32_t m = 0; m < MODELS; m++) {
                    for (uint32_t l = 0; l < LEVELS; l++)
                        bad_order += plan.runs[m][l] != starts[m][l];
                    bad_order += plan.runs[m][VKS_MAX_LEVELS] != starts[m][LEVELS];
                }
                /* The output: a prefix, placed as the walk places it. */
                VkDeviceSize bytes[N];
                for (uint32_t k = 0; k < count; k++)
                    bytes[k] =
                        ((VkDeviceSize)vertices[of[want[k]]][order_level_want[k]] * SKINNED + 15) /
                        16 * 16;
                const uint32_t skinned = check_walk(bytes, count, output, limit, offset,
                                                    plan.skinned_count, &bad_offset);
                uint64_t over_vertices = 0;
                uint32_t per_level[VKS_MAX_LEVELS] = {0};
                for (uint32_t k = 0; k < count; k++) {
                    per_level[order_level_want[k]]++;
                    if (k >= skinned && budget.compute)
                        over_vertices += vertices[of[want[k]]][order_level_want[k]];
                }
                bad_count += plan.overflow_count != (budget.compute ? count - skinned : 0) ||
                             plan.overflow_vertices != over_vertices ||
                             memcmp(plan.level_instances, per_level, sizeof per_level) != 0;
                /* The rasterizer's ranges: its entries, cut at the first without output or past
                 * the ids. */
                const uint32_t cut =
                    skinned < budget.raster_max_entries ? skinned : budget.raster_max_entries;
                uint32_t past_ids = 0; /* marked, with output, at or past the ids' bound */
                for (uint32_t m = 0; m < MODELS; m++)
                    for (uint32_t l = 0; l < LEVELS; l++) {
                        uint32_t end = marks[m][l] < cut ? marks[m][l] : cut;
                        end = end > starts[m][l] ? end : starts[m][l];
                        bad_raster += plan.raster_end[m][l] != end;
                        rastered += end > starts[m][l];
                        for (uint32_t s = starts[m][l]; s < marks[m][l]; s++)
                            past_ids += s < skinned && s >= budget.raster_max_entries;
                    }
                bad_raster += plan.raster_past_ids != past_ids;
                /* The GPU's list. */
                VkDeviceAddress chunks[32];
                assert(vks_plan_chunk_count(output, limit) <= 32);
                for (uint32_t k = 0; k < 32; k++)
                    chunks[k] = (VkDeviceAddress)(k + 1) << 40 | 0x100u * k;
                vks_visible gpu[N];
                vks_frame_plan_entries(&crowd, &plan, NULL, palette_first, chunks, limit, gpu);
                for (uint32_t k = 0; k < count; k++) {
                    const uint32_t i = want[k], m = of[i], l = order_level_want[k];
                    const uint64_t a =
                        k < skinned ? chunks[offset[k] / limit] + offset[k] % limit : 0;
                    bad_entry +=
                        gpu[k].instance != i || gpu[k].model != m ||
                        gpu[k].palette_first != palette_first[i] ||
                        gpu[k].vertex_first != (l ? models[m].vertex_count + 100 * l + m : 0) ||
                        gpu[k].out_address[0] != (uint32_t)a ||
                        gpu[k].out_address[1] != (uint32_t)(a >> 32);
                }
                /* output_wanted: where a walk with room to spare ends; dealt that, every entry
                 * has output, and 16 bytes fewer leave one without. */
                const VkDeviceSize wanted = walk_end(bytes, count, limit);
                bad_wanted += plan.output_wanted != (budget.compute ? wanted : 0);
                if (budget.compute && wanted) {
                    vks_frame_budget exact = budget;
                    exact.output_bytes = wanted;
                    vks_frame_plan_deal(&crowd, &exact, &plan);
                    bad_wanted += plan.skinned_count != count || plan.overflow_count != 0;
                    exact.output_bytes = wanted - 16;
                    vks_frame_plan_deal(&crowd, &exact, &plan);
                    bad_wanted += plan.skinned_count >= count || plan.overflow_count == 0;
                }
                overflowed += skinned < count && budget.compute;
                frames++;
            }
    CHECK(bad_order == 0);
    CHECK(bad_wanted == 0);
    CHECK(bad_offset == 0);
    CHECK(bad_count == 0);
    CHECK(bad_raster == 0);
    CHECK(bad_entry == 0);
    CHECK(overflowed > 0 && overflowed < frames && rastered > 0);
    printf("  frame plan: %d frames, %d overflowed, %d rasterized runs\n", frames, overflowed,
           rastered);
    free(crowd.instances);
    free(crowd.model_of);
}

/* The frame plan's passes on a pool of 4 threads against the caller's alone: crowds of 8 193,
 * 40 000, 100 000 and 400 000 instances of the two levelled models interleaved, random subsets,
 * levels (some past the last), marks (none, triangles, splat), budgets that overflow or not and ids
 * that name the list or not, the three rasterizer choices: the order, levels, offsets, runs,
 * ranges, counts and the GPU's list equal byte for byte. */
static void test_frame_plan_pool(void)
{
    vks_model models[2];
    make_levelled(models);
    const vks_model *list[] = {&models[0], &models[1]};
    vks_pool *pool = NULL;
    vks_error err;
    CHECK(vks_pool_create(4, &pool, &err));
    const uint32_t sizes[] = {8193, 40000, 100000, 400000}; /* the last past 16 chunks' least */
    uint32_t x = 99, frames = 0, bad = 0;
    for (size_t z = 0; pool && z < sizeof sizes / sizeof sizes[0]; z++) {
        const uint32_t n = sizes[z];
        uint32_t *of = malloc(sizeof *of * n), *palette_first = malloc(sizeof *palette_first * n);
        for (uint32_t i = 0; i < n; i++) {
            of[i] = (i * 7 + i / 5) % 3 == 0;
            palette_first[i] = 1000 + 7 * i;
        }
        vks_crowd crowd = make_crowd(list, 2, of, n);
        uint32_t *visible = malloc(sizeof *visible * n), *order[2];
        uint8_t *levels[2], *raster = malloc(n), *order_level[2], *order_model[2];
        VkDeviceSize *offset[2];
        vks_visible *gpu[2];
        for (int k = 0; k < 2; k++) {
            order[k] = malloc(sizeof *order[k] * n);
            levels[k] = malloc(n);
            order_level[k] = malloc(n);
            order_model[k] = malloc(n);
            offset[k] = malloc(sizeof *offset[k] * n);
            gpu[k] = malloc(sizeof *gpu[k] * n);
        }
        VkDeviceAddress chunks[64];
        for (uint32_t k = 0; k < 64; k++)
            chunks[k] = (VkDeviceAddress)(k + 1) << 40 | 0x100u * k;
        for (int f = 0; f < 12; f++) {
            uint32_t count = 0;
            for (uint32_t i = 0; i < n; i++) {
                x = x * 1103515245u + 12345u;
                if ((x >> 16) % 4 == 0)
                    continue;
                visible[count] = i;
                levels[0][count] = levels[1][count] = (uint8_t)((x >> 20) % (LEVELS + 2));
                raster[count++] = (uint8_t)((x >> 24) % 3);
            }
            const VkDeviceSize output = (VkDeviceSize)(f % 4) * 300000;
            const vks_frame_budget one = {.compute = output > 0,
                                          .output_bytes = output,
                                          .chunk_limit = 65536,
                                          .raster = (vks_frame_raster)(f % 3),
                                          .raster_max_entries = f % 2 ? n : count / 2};
            vks_frame_budget many = one;
            many.pool = pool;
            vks_frame_plan plan[2];
            for (int k = 0; k < 2; k++) {
                plan[k] = (vks_frame_plan){.order = order[k],
                                           .order_level = order_level[k],
                                           .order_model = order_model[k],
                                           .out_offset = offset[k]};
                vks_frame_plan_make(&crowd, k ? &many : &one, visible, count, levels[k], raster,
                                    &plan[k]);
                vks_frame_plan_entries(&crowd, &plan[k], k ? pool : NULL, palette_first, chunks,
                                       65536, gpu[k]);
            }
            const vks_frame_plan *a = &plan[0], *b = &plan[1];
            const uint32_t total = a->splats[VKS_CROWD_MAX_MODELS];
            /* One thread's plan is itself right across its chunks: each run of its model and
             * level, two ascending groups (the rasterizer's, the others'; the boundary the deal
             * trims is not kept), each model's splats ascending. */
            for (uint32_t m = 0; m < 2; m++) {
                for (uint32_t l = 0; l < LEVELS; l++) {
                    uint32_t descents = 0;
                    for (uint32_t t = a->runs[m][l]; t < a->runs[m][l + 1]; t++) {
                        bad += order_model[0][t] != m || order_level[0][t] != l;
                        descents += t > a->runs[m][l] && order[0][t] <= order[0][t - 1];
                    }
                    bad += descents > 1 || (one.raster == VKS_FRAME_RASTER_NONE && descents);
                }
                for (uint32_t t = a->splats[m]; t < a->splats[m + 1]; t++)
                    bad += order_model[0][t] != m ||
                           (t > a->splats[m] && order[0][t] <= order[0][t - 1]);
            }
            bad += total != count || b->splats[VKS_CROWD_MAX_MODELS] != count ||
                   memcmp(levels[0], levels[1], count) ||
                   memcmp(order[0], order[1], sizeof *order[0] * count) ||
                   memcmp(order_level[0], order_level[1], count) ||
                   memcmp(order_model[0], order_model[1], count) ||
                   memcmp(offset[0], offset[1], sizeof *offset[0] * a->skinned_count) ||
                   memcmp(gpu[0], gpu[1], sizeof *gpu[0] * count) ||
                   memcmp(a->runs, b->runs, sizeof a->runs) ||
                   memcmp(a->raster_end, b->raster_end, sizeof a->raster_end) ||
                   memcmp(a->splats, b->splats, sizeof a->splats) ||
                   memcmp(a->level_instances, b->level_instances, sizeof a->level_instances) ||
                   a->skinned_count != b->skinned_count || a->overflow_count != b->overflow_count ||
                   a->output_wanted != b->output_wanted ||
                   a->overflow_vertices != b->overflow_vertices ||
                   a->raster_past_ids != b->raster_past_ids ||
                   a->splats_past_ids != b->splats_past_ids;
            frames++;
        }
        for (int k = 0; k < 2; k++) {
            free(order[k]), free(levels[k]), free(order_level[k]), free(order_model[k]);
            free(offset[k]), free(gpu[k]);
        }
        free(visible), free(raster), free(of), free(palette_first);
        free(crowd.instances);
        free(crowd.model_of);
    }
    vks_pool_destroy(pool);
    CHECK(bad == 0 && frames == 48);
    printf("  frame plan on a pool: %u frames of 8 193 to 400 000 instances equal to one "
           "thread's\n",
           frames);
}

/* The far splats in the frame plan: random marks (none, the compute rasterizer's triangles, a
 * splat) over random frames of the interleaved two-model crowd, with few ids (raster_max_entries)
 * so that some lists are longer than the ids name. Expected, worked out here: with a rasterizer
 * and a list the ids name whole, the marked are splats, at their model's last level, after every
 * run, by model, ascending, with no output and the GPU's entry marked VKS_VISIBLE_SPLAT, every
 * splat's place within the ids; in a longer list, and without a rasterizer, the marked planned as
 * the graphics pipeline's at the last level (splats_past_ids, counted in raster_past_ids); the runs
 * and the output as if the splats were not in the list; level_instances and the overflow counted
 * so. */
static void test_frame_plan_splats(void)
{
    enum { N = 40, MODELS = 2 };
    vks_model models[MODELS];
    make_levelled(models);
    const vks_model *list[] = {&models[0], &models[1]};
    uint32_t of[N], palette_first[N];
    for (uint32_t i = 0; i < N; i++) {
        of[i] = (i * 7 + i / 5) % 3 == 0;
        palette_first[i] = 500 + 3 * i;
    }
    vks_crowd crowd = make_crowd(list, MODELS, of, N);
    uint32_t x = 777;
    int bad = 0, frames = 0, with_splats = 0, past = 0;
    for (int mode = 0; mode < 3; mode++)
        for (uint32_t ids = 4; ids <= 84; ids += 8)
            for (VkDeviceSize output = 0; output <= 9000; output += 1500) {
                const vks_frame_budget budget = {.compute = output > 0,
                                                 .output_bytes = output,
                                                 .chunk_limit = 1024,
                                                 .raster = mode == 0   ? VKS_FRAME_RASTER_NONE
                                                           : mode == 1 ? VKS_FRAME_RASTER_MARKED
                                                                       : VKS_FRAME_RASTER_ALL,
                                                 .raster_max_entries = ids};
                uint32_t visible[N], count = 0;
                uint8_t levels[N], raster[N], asked[N];
                for (uint32_t i = 0; i < N; i++) {
                    x = x * 1103515245u + 12345u;
                    if ((x >> 16) % 4 == 0)
                        continue;
                    visible[count] = i;
                    asked[count] = levels[count] = (uint8_t)((x >> 20) % (LEVELS + 1));
                    raster[count++] = (uint8_t)((x >> 24) % 3);
                }
                /* Which are splats, and each entry's level and rasterizer as planned. */
                bool splat[N], compute[N];
                uint8_t level[N];
                uint32_t marked = 0;
                for (uint32_t k = 0; k < count; k++)
                    marked += mode != 0 && raster[k] == 2;
                const uint32_t room = count <= ids ? marked : 0; /* splats end the list */
                for (uint32_t k = 0, taken = 0; k < count; k++) {
                    const bool is_marked = mode != 0 && raster[k] == 2;
                    splat[k] = is_marked && taken++ < room;
                    level[k] = is_marked || asked[k] >= LEVELS ? LEVELS - 1 : asked[k];
                    compute[k] = !is_marked && (mode == 2 || (mode == 1 && raster[k] == 1));
                }
                uint32_t order[N], want[N], n = 0, runs_end, model_end[MODELS];
                uint8_t order_level[N], order_model[N], want_level[N];
                VkDeviceSize offset[N];
                for (uint32_t m = 0; m < MODELS; m++)
                    for (uint32_t l = 0; l < LEVELS; l++)
                        for (int pass = 0; pass < 2; pass++)
                            for (uint32_t k = 0; k < count; k++)
                                if (!splat[k] && of[visible[k]] == m && level[k] == l &&
                                    compute[k] == (pass == 0)) {
                                    want_level[n] = (uint8_t)l;
                                    want[n++] = visible[k];
                                }
                runs_end = n;
                for (uint32_t m = 0; m < MODELS; m++) {
                    for (uint32_t k = 0; k < count; k++)
                        if (splat[k] && of[visible[k]] == m) {
                            want_level[n] = LEVELS - 1;
                            want[n++] = visible[k];
                        }
                    model_end[m] = n;
                }
                vks_frame_plan plan = {.order = order,
                                       .order_level = order_level,
                                       .order_model = order_model,
                                       .out_offset = offset};
                vks_frame_plan_make(&crowd, &budget, visible, count, levels, raster, &plan);
                for (uint32_t k = 0; k < count; k++)
                    bad += order[k] != want[k] || order_level[k] != want_level[k] ||
                           levels[k] != level[k];
                bad += plan.splats[0] != runs_end || plan.splats[1] != model_end[0] ||
                       plan.splats[2] != model_end[1] ||
                       plan.splats[VKS_CROWD_MAX_MODELS] != model_end[1];
                bad += plan.splats_past_ids != marked - (marked < room ? marked : room);
                /* No output past the runs; the overflow counts the runs' entries alone. */
                bad += plan.skinned_count > runs_end ||
                       plan.overflow_count != (budget.compute ? runs_end - plan.skinned_count : 0);
                uint32_t per_level[VKS_MAX_LEVELS] = {0};
                for (uint32_t k = 0; k < count; k++)
                    per_level[want_level[k]]++;
                bad += memcmp(plan.level_instances, per_level, sizeof per_level) != 0;
                VkDeviceAddress chunks[16];
                for (uint32_t k = 0; k < 16; k++)
                    chunks[k] = (VkDeviceAddress)(k + 1) << 36;
                vks_visible gpu[N];
                vks_frame_plan_entries(&crowd, &plan, NULL, palette_first, chunks, 1024, gpu);
                bad += count > runs_end && count > ids; /* a splat the ids cannot name */
                for (uint32_t k = runs_end; k < count; k++)
                    bad += gpu[k].instance != want[k] || gpu[k].model != of[want[k]] ||
                           gpu[k].vertex_first != VKS_VISIBLE_SPLAT ||
                           gpu[k].palette_first != palette_first[want[k]] ||
                           gpu[k].out_address[0] != 0 || gpu[k].out_address[1] != 0;
                for (uint32_t k = 0; k < runs_end; k++)
                    bad += gpu[k].vertex_first == VKS_VISIBLE_SPLAT;
                with_splats += count > runs_end;
                past += plan.splats_past_ids > 0;
                frames++;
            }
    CHECK(bad == 0);
    CHECK(with_splats > past && past > 0 && with_splats < frames);
    printf("  frame plan, splats: %d frames, %d with splats, %d with splats past the ids\n", frames,
           with_splats, past);
    free(crowd.instances);
    free(crowd.model_of);
}

/* Random visible lists of a mixed crowd under many limits and budgets: each slot's offset from a
 * walk written here, which places by scanning 16-byte positions for the first where the
 * instance lies whole inside one chunk at or after the previous end. */
static void test_frame_invariants(void)
{
    vks_model a = make_model("A", A), b = make_model("B", B), c = make_model("C", C);
    const vks_model *models[] = {&a, &b, &c};
    const VkDeviceSize bytes[] = {hand_output(A), hand_output(B), hand_output(C)};
    enum { N = 37 };
    uint32_t of[N];
    uint32_t x = 12345;
    for (uint32_t i = 0; i < N; i++) {
        x = x * 1103515245u + 12345u;
        of[i] = (x >> 16) % 3;
    }
    vks_crowd crowd = make_crowd(models, 3, of, N);
    int bad = 0, runs = 0, stopped = 0;
    for (VkDeviceSize limit = 128; limit <= 2400; limit += 16) {
        for (VkDeviceSize output = 0; output <= 6000; output += 368) {
            uint32_t visible[N], count = 0;
            for (uint32_t i = 0; i < N; i++) {
                x = x * 1103515245u + 12345u;
                if ((x >> 16) % 3)
                    visible[count++] = i;
            }
            VkDeviceSize offset[N], sizes[N];
            for (uint32_t k = 0; k < count; k++)
                sizes[k] = bytes[of[visible[k]]];
            const uint32_t got =
                vks_plan_frame(&crowd, visible, NULL, count, output, limit, offset);
            check_walk(sizes, count, output, limit, offset, got, &bad);
            stopped += got < count;
            runs++;
        }
    }
    CHECK(bad == 0);
    CHECK(stopped > 0 && stopped < runs); /* both cases happened */
    printf("  frame invariants: %d lists, %d stopped early\n", runs, stopped);
    free(crowd.instances);
    free(crowd.model_of);
}

/* ---- Buffer limit ---- */

static void test_buffer_limit(void)
{
    vks_plan_limits lim = {
        .max_memory_allocation = 1000000, .max_buffer = 900000, .max_storage_buffer_range = 800008};
    CHECK(vks_plan_buffer_limit(&lim, 0) == 800000); /* the storage range, rounded down to 16 */
    lim.max_buffer = 700000;
    CHECK(vks_plan_buffer_limit(&lim, 0) == 700000);
    lim.max_memory_allocation = 600001;
    CHECK(vks_plan_buffer_limit(&lim, 0) == 600000);
    CHECK(vks_plan_buffer_limit(&lim, 5000) == 4992);       /* the wish, rounded down */
    CHECK(vks_plan_buffer_limit(&lim, 10000000) == 600000); /* a larger wish changes nothing */
}

/* ---- Memory ---- */

static vks_plan_limits made_up(VkDeviceSize device_heap, VkDeviceSize host_heap)
{
    return (vks_plan_limits){.max_memory_allocation = 1u << 30,
                             .max_buffer = 1u << 30,
                             .max_storage_buffer_range = 1u << 30,
                             .device_heap = device_heap,
                             .host_heap = host_heap,
                             .name = "Made-up GPU"};
}

static vks_plan_memory plan(const vks_plan_limits *lim, const vks_crowd *c, vks_skin_mode mode,
                            bool store, uint32_t max_vertices)
{
    vks_plan_memory m = {0};
    vks_error err = {{0}};
    bool ok = vks_plan_memory_of(lim, c,
                                 &(vks_plan_request){.mode = mode,
                                                     .palette_store = store,
                                                     .max_skinned_vertices = max_vertices},
                                 &m, &err);
    CHECK(ok);
    if (!ok)
        fprintf(stderr, "  plan refused: %s\n", err.msg);
    return m;
}

static void test_memory(void)
{
    vks_model a =
        make_model("A", (made_model){.vertices = 10, .indices = 30, .joints = 5, .textured = true});
    vks_model b = make_model("B", B);
    const vks_model *models[] = {&a, &b};
    const vks_plan_limits roomy = made_up(1u << 30, 0);

    /* One model, no tangents, not wide: 10 x 36 + 30 x 4 of streams, its model-table entry
     * (MODEL), a 4x3 texture with its mips (48 x 4 / 3 = 64); per instance 64 of table; host: 2
     * frames of 5 x 48 palette bytes and 16 visible-list bytes; every instance's output
     * (3 x 160) fits in half the heap. */
    const uint32_t zeros[3] = {0};
    vks_crowd plain = make_crowd(models, 1, zeros, 3);
    vks_plan_memory m = plan(&roomy, &plain, VKS_SKIN_COMPUTE, false, 0);
    CHECK(m.model_bytes == 360 + 120 + MODEL + 64);
    CHECK(m.per_instance_device == INSTANCE && m.per_instance_host == 2 * (5 * 48 + VISIBLE));
    CHECK(m.output_bytes == 3 * 160);
    CHECK(m.device_bytes == (544 + MODEL) + 3 * 64 + 480 &&
          m.host_bytes == 3 * 2 * (5 * 48 + VISIBLE));
    m = plan(&roomy, &plain, VKS_SKIN_VERTEX, false, 0);
    CHECK(m.output_bytes == 0 && m.device_bytes == (544 + MODEL) + 3 * 64);
    m = plan(&roomy, &plain, VKS_SKIN_COMPUTE, false, 7); /* asked: 7 vertices of 16 bytes */
    CHECK(m.output_bytes == 7 * 16 && m.device_bytes == (544 + MODEL) + 3 * 64 + 7 * 16);

    /* The same model with morph targets: each target's record (32 bytes), its deltas (16 each)
     * and a source word a vertex (4) come to the device with it. */
    vks_model morphed = a;
    morphed.target_count = 2;
    morphed.morph_delta_count = 7;
    const vks_model *morphed_models[] = {&morphed};
    vks_crowd with_targets = make_crowd(morphed_models, 1, zeros, 3);
    m = plan(&roomy, &with_targets, VKS_SKIN_COMPUTE, false, 0);
    CHECK(m.model_bytes == 360 + 120 + MODEL + 64 + 2 * 32 + 7 * 16 + 10 * 4);
    free(with_targets.instances);
    free(with_targets.model_of);

    /* Three A and two B (tangents, wide: 7 x (36 + 12) + 12 x 4 + MODEL; 3 joints). A vertex of
     * this crowd counts 20 bytes. */
    const uint32_t of[] = {0, 0, 0, 1, 1};
    vks_crowd mixed = make_crowd(models, 2, of, 5);
    const VkDeviceSize streams = (544 + MODEL) + 7 * 48 + 48 + MODEL, out = 3 * 160 + 2 * 144;
    /* 21 palette entries over 5 instances: 202 bytes each, rounded up */
    const VkDeviceSize bones = (21 * 48 + 4) / 5;
    CHECK(streams == hand_streams((made_model){.vertices = 10, .indices = 30, .textured = true}) +
                         hand_streams(B));
    m = plan(&roomy, &mixed, VKS_SKIN_COMPUTE, false, 0);
    CHECK(m.model_bytes == streams && m.output_bytes == out);
    CHECK(m.per_instance_host == 2 * (bones + VISIBLE) && m.per_instance_device == INSTANCE);
    m = plan(&roomy, &mixed, VKS_SKIN_COMPUTE, false, 10);
    CHECK(m.output_bytes == 208); /* 10 x 20, rounded up to 16 */
    /* The palette store: one copy of every palette on the device, its staging and scatter
     * records per frame. */
    m = plan(&roomy, &mixed, VKS_SKIN_COMPUTE, true, 0);
    CHECK(m.per_instance_device == INSTANCE + bones &&
          m.per_instance_host == 2 * (bones + VISIBLE + RECORD));
    CHECK(m.palette_store_entries == 21 && !m.palette_store_capped);
    /* The draw's instance updates: each frame slot stages an instance-table entry and a scatter
     * record per instance. */
    {
        vks_plan_memory u;
        vks_error err = {{0}};
        CHECK(vks_plan_memory_of(&roomy, &mixed,
                                 &(vks_plan_request){.mode = VKS_SKIN_COMPUTE,
                                                     .palette_store = true,
                                                     .instance_updates = true},
                                 &u, &err));
        CHECK(u.per_instance_host == m.per_instance_host + 2 * (INSTANCE + RECORD) &&
              u.per_instance_device == m.per_instance_device);
    }

    /* A heap too small for every output at once: half of what is left, a multiple of 16. */
    const VkDeviceSize state = streams + 5 * INSTANCE + 5 * 2 * (bones + VISIBLE);
    vks_plan_limits tight = made_up(state + 1000, 0);
    m = plan(&tight, &mixed, VKS_SKIN_COMPUTE, false, 0);
    CHECK(m.output_bytes == 496); /* 1000 / 2 = 500, down to 496 */
    /* Two copies of the output (motion vectors): each gets half of that half, 1000 / 4 = 250,
     * down to 240, and the device total counts both. */
    {
        vks_plan_memory two = {0};
        vks_error err = {{0}};
        CHECK(vks_plan_memory_of(&tight, &mixed,
                                 &(vks_plan_request){.mode = VKS_SKIN_COMPUTE, .output_sets = 2},
                                 &two, &err));
        CHECK(two.output_bytes == 240 && two.device_bytes == m.device_bytes - 496 + 2 * 240);
        /* An asked-for room, copied: twice the bytes. */
        CHECK(vks_plan_memory_of(&roomy, &mixed,
                                 &(vks_plan_request){.mode = VKS_SKIN_COMPUTE,
                                                     .max_skinned_vertices = 10,
                                                     .output_sets = 2},
                                 &two, &err));
        const vks_plan_memory one = plan(&roomy, &mixed, VKS_SKIN_COMPUTE, false, 10);
        CHECK(two.output_bytes == one.output_bytes &&
              two.device_bytes == one.device_bytes + one.output_bytes);
    }
    /* On demand: the output starts at one largest instance's (160) and may grow to what the
     * heap gives (the 496 above), the device counting what it starts with; an asked-for room
     * is not grown. */
    {
        vks_plan_memory lazy = {0};
        vks_error err = {{0}};
        CHECK(vks_plan_memory_of(
            &tight, &mixed, &(vks_plan_request){.mode = VKS_SKIN_COMPUTE, .output_on_demand = true},
            &lazy, &err));
        CHECK(lazy.output_bytes == 160 && lazy.output_most == 496 &&
              lazy.device_bytes == m.device_bytes - 496 + 160);
        CHECK(vks_plan_memory_of(&roomy, &mixed,
                                 &(vks_plan_request){.mode = VKS_SKIN_COMPUTE,
                                                     .output_on_demand = true,
                                                     .max_skinned_vertices = 10},
                                 &lazy, &err));
        CHECK(lazy.output_bytes == 208 && lazy.output_most == 208);
    }
    /* Less than a largest instance's output (160) left over twice: that output, no less. */
    tight = made_up(state + 300, 0);
    m = plan(&tight, &mixed, VKS_SKIN_COMPUTE, false, 0);
    CHECK(m.output_bytes == 160);
    /* Chunks of 304 bytes (buffer_limit): a chunk closes with less than a largest output (160)
     * unused, so it holds at least 304 - 160 + 16 = 160 bytes (outputs are multiples of 16), and
     * every output at once (768 bytes) needs at most 768 / 160 + 1 = 5 chunks. Chunks of 160,
     * one largest output: each holds at least one output (the smallest is 144), 768 / 144 + 1 =
     * 6 chunks. Both bounds hold for the worst order, checked with vks_plan_frame. */
    {
        vks_plan_memory chunked = {0};
        vks_error err = {{0}};
        const VkDeviceSize limits[2] = {304, 160}, expected[2] = {5 * 304, 6 * 160};
        for (int k = 0; k < 2; k++) {
            CHECK(vks_plan_memory_of(
                &roomy, &mixed,
                &(vks_plan_request){.mode = VKS_SKIN_COMPUTE, .buffer_limit = limits[k]}, &chunked,
                &err));
            CHECK(chunked.output_bytes == expected[k]);
            /* Every order tried of the 5 instances fits (A and B alternating wastes the most). */
            const uint32_t orders[3][5] = {{0, 1, 2, 3, 4}, {3, 0, 4, 1, 2}, {0, 3, 1, 4, 2}};
            for (int o = 0; o < 3; o++) {
                VkDeviceSize offset[5];
                CHECK(vks_plan_frame(&mixed, orders[o], NULL, 5, chunked.output_bytes, limits[k],
                                     offset) == 5);
            }
        }
    }
    /* Room asked for beyond the heap: the message names the option, not the crowd. */
    {
        vks_plan_memory mem;
        vks_error err = {{0}};
        vks_plan_limits small = made_up(1u << 20, 0);
        CHECK(!vks_plan_memory_of(
            &small, &mixed,
            &(vks_plan_request){.mode = VKS_SKIN_COMPUTE, .max_skinned_vertices = 100000}, &mem,
            &err));
        CHECK(strstr(err.msg, "room for 100000 skinned vertices (--max-skinned-vertices) takes 2 "
                              "MiB") == err.msg);
    }
    /* Separate heaps: the host part does not count against the device's. */
    tight = made_up(streams + 5 * INSTANCE + 1000, 1u << 20);
    m = plan(&tight, &mixed, VKS_SKIN_COMPUTE, false, 0);
    CHECK(m.output_bytes == 496);
    free(plain.instances);
    free(plain.model_of);
    free(mixed.instances);
    free(mixed.model_of);
}

/* ---- Fit ---- */

static double mib(VkDeviceSize b)
{
    return (double)b / (1024.0 * 1024.0);
}

/* A crowd of k instances of `d` passes and one of k + 1 fails with the message built here;
 * per_device and per_host are the per-instance bytes and least the least output, worked out by
 * the caller. */
static void check_fit(const char *what, const vks_plan_limits *lim, made_model d,
                      vks_skin_mode mode, bool store, uint32_t max_vertices, uint32_t k,
                      VkDeviceSize per_device, VkDeviceSize per_host, VkDeviceSize least)
{
    vks_model model = make_model("M", d);
    vks_crowd fits = make_uniform(&model, k), over = make_uniform(&model, k + 1);
    const vks_plan_request req = {
        .mode = mode, .palette_store = store, .max_skinned_vertices = max_vertices};
    vks_plan_memory m;
    vks_error err = {{0}};
    bool ok = vks_plan_memory_of(lim, &fits, &req, &m, &err);
    CHECK(ok);
    if (!ok)
        fprintf(stderr, "  %s: %u instances refused: %s\n", what, k, err.msg);
    CHECK(!vks_plan_memory_of(lim, &over, &req, &m, &err));
    const VkDeviceSize device = hand_streams(d) + (VkDeviceSize)(k + 1) * per_device;
    char expected[sizeof err.msg];
    snprintf(expected, sizeof expected,
             "a crowd of %u instances needs %.0f MiB of GPU memory for its models%s, %.0f MiB "
             "for its palettes%s and visible lists and at least %llu KiB of skinned output, more "
             "than %s has (%.0f MiB device-local%s): at most %u instances fit",
             k + 1, mib(device),
             store ? ", instance table and palette store" : " and instance table",
             mib((VkDeviceSize)(k + 1) * per_host), store ? " (staged)" : "",
             (unsigned long long)((least + 1023) / 1024), lim->name, mib(lim->device_heap),
             lim->host_heap ? ", plus host memory" : ", shared with the host", k);
    bool same = strcmp(err.msg, expected) == 0;
    CHECK(same);
    if (!same)
        fprintf(stderr, "  %s:\n    got      %s\n    expected %s\n", what, err.msg, expected);
    free(fits.instances);
    free(fits.model_of);
    free(over.instances);
    free(over.model_of);
}

static void test_fit(void)
{
    const made_model m = {.vertices = 10, .indices = 30, .joints = 4}; /* no tangents */
    const VkDeviceSize fixed = 10 * 36 + 30 * 4 + MODEL;               /* 608 */
    const VkDeviceSize dev = INSTANCE;                                 /* the table entry */
    const VkDeviceSize host = 2 * (4 * 48 + VISIBLE);                  /* 432 */
    const VkDeviceSize copies = 4 * 48; /* the store's entries (its staging is in host) */
    const VkDeviceSize least = 160;     /* one instance's output, when none is asked for */
    CHECK(fixed == hand_streams(m) && 160 == hand_output(m));
    vks_plan_limits lim = made_up(0, 0);

    /* One heap for everything: (heap - fixed - least output) / (device + host per instance). */
    lim.device_heap = fixed + least + 7 * (dev + host); /* exactly 7 */
    check_fit("shared, exact", &lim, m, VKS_SKIN_COMPUTE, false, 0, 7, dev, host, least);
    lim.device_heap = fixed + least + 8 * (dev + host) - 1; /* a byte short of 8 */
    check_fit("shared, a byte short", &lim, m, VKS_SKIN_COMPUTE, false, 0, 7, dev, host, least);
    lim.device_heap = fixed + 40 * (dev + host) + 100; /* vertex mode: no output */
    check_fit("shared, vertex mode", &lim, m, VKS_SKIN_VERTEX, false, 0, 40, dev, host, 0);
    /* The store: its entries on the device, and each frame slot's scatter record on the host. */
    lim.device_heap = fixed + least + 12 * (dev + copies + host + 2 * RECORD) + 5;
    check_fit("shared, palette store", &lim, m, VKS_SKIN_COMPUTE, true, 0, 12, dev + copies,
              host + 2 * RECORD, least);
    lim.device_heap = fixed + 1000 * 16 + 30 * (dev + host); /* room for 1000 vertices asked */
    check_fit("shared, output asked for", &lim, m, VKS_SKIN_COMPUTE, false, 1000, 30, dev, host,
              1000 * 16);
    lim.device_heap = fixed + least + 1 * (dev + host); /* one fits, two do not */
    check_fit("shared, one", &lim, m, VKS_SKIN_COMPUTE, false, 0, 1, dev, host, least);

    /* Separate heaps: each holds its part; the tighter one decides. */
    lim.device_heap = fixed + least + 5 * dev;
    lim.host_heap = 9 * host - 1; /* 8 */
    check_fit("separate, device tighter", &lim, m, VKS_SKIN_COMPUTE, false, 0, 5, dev, host, least);
    lim.device_heap = fixed + least + 50 * dev + 17;
    lim.host_heap = 3 * host;
    check_fit("separate, host tighter", &lim, m, VKS_SKIN_COMPUTE, false, 0, 3, dev, host, least);
    lim.device_heap = fixed + 20 * dev;
    lim.host_heap = 1 << 20;
    check_fit("separate, vertex mode", &lim, m, VKS_SKIN_VERTEX, false, 0, 20, dev, host, 0);
    lim.device_heap = fixed + least + 6 * (dev + copies) + dev; /* 7 without the store */
    check_fit("separate, palette store", &lim, m, VKS_SKIN_COMPUTE, true, 0, 6, dev + copies,
              host + 2 * RECORD, least);
    {
        /* Without the store the same heaps take 7 (and more). */
        vks_model model = make_model("M", m);
        vks_crowd seven = make_uniform(&model, 7);
        vks_plan_memory mem;
        vks_error err = {{0}};
        CHECK(vks_plan_memory_of(&lim, &seven, &(vks_plan_request){.mode = VKS_SKIN_COMPUTE}, &mem,
                                 &err));
        free(seven.instances);
        free(seven.model_of);
    }
}

/* A frame's palettes are one buffer: the largest buffer bounds the crowd first. */
static void test_fit_largest_buffer(void)
{
    const made_model m = {.vertices = 10, .indices = 30, .joints = 4}; /* 192 palette bytes */
    vks_plan_limits lim = made_up(1u << 30, 0);
    lim.max_memory_allocation = 4096 + 8; /* 4096 after rounding */
    vks_model model = make_model("M", m);
    vks_crowd fits = make_uniform(&model, 21), over = make_uniform(&model, 22),
              many = make_uniform(&model, 100);
    const vks_plan_request req = {.mode = VKS_SKIN_COMPUTE};
    vks_plan_memory mem;
    vks_error err = {{0}};
    CHECK(vks_plan_memory_of(&lim, &fits, &req, &mem, &err));  /* 4032 bytes */
    CHECK(!vks_plan_memory_of(&lim, &over, &req, &mem, &err)); /* 4224 */
    CHECK(!vks_plan_memory_of(&lim, &many, &req, &mem, &err));
    char expected[sizeof err.msg];
    snprintf(expected, sizeof expected,
             "a crowd of 100 instances needs %.0f MiB of palettes per frame and a %.0f MiB "
             "instance table, one buffer each, and the largest buffer is %.0f MiB: at most 21 "
             "instances fit",
             mib(100 * 192), mib(100 * INSTANCE), mib(4096));
    CHECK(strcmp(err.msg, expected) == 0);
    printf("  largest buffer: %s\n", err.msg);

    /* The palette store holds what the largest buffer does, 4096 / 48 = 85 entries (21
     * instances' palettes at once), whatever the crowd: 60 instances (their table fits the
     * buffer) plan, the store and its two staging buffers fixed. */
    const vks_plan_request store = {.mode = VKS_SKIN_COMPUTE, .palette_store = true};
    vks_crowd sixty = make_uniform(&model, 60), more = make_uniform(&model, 61);
    CHECK(vks_plan_memory_of(&lim, &sixty, &store, &mem, &err));
    CHECK(mem.palette_store_capped && mem.palette_store_entries == 85);
    CHECK(mem.per_instance_device == INSTANCE && mem.per_instance_host == 2 * (VISIBLE + RECORD));
    const VkDeviceSize fixed = hand_streams(m), least = 160, capped = 85 * 48;
    CHECK(mem.host_bytes == 2 * capped + 60 * 2 * (VISIBLE + RECORD));
    CHECK(mem.device_bytes == fixed + capped + 60 * INSTANCE + mem.output_bytes);
    /* One heap: exactly 60 fit with the capped store (a store of every palette, 256 + 464 bytes
     * an instance, would fit 29), and the message names 60. */
    lim.device_heap = fixed + least + 3 * capped + 60 * (INSTANCE + 2 * (VISIBLE + RECORD));
    CHECK(vks_plan_memory_of(&lim, &sixty, &store, &mem, &err));
    CHECK(!vks_plan_memory_of(&lim, &more, &store, &mem, &err));
    snprintf(expected, sizeof expected,
             "a crowd of 61 instances needs %.0f MiB of GPU memory for its models, instance "
             "table and palette store, %.0f MiB for its palettes (staged) and visible lists and "
             "at least 1 KiB of skinned output, more than Made-up GPU has (%.0f MiB "
             "device-local, shared with the host): at most 60 instances fit",
             mib(fixed + capped + 61 * INSTANCE), mib(2 * capped + 61 * 2 * (VISIBLE + RECORD)),
             mib(lim.device_heap));
    CHECK(strcmp(err.msg, expected) == 0);
    if (strcmp(err.msg, expected) != 0)
        fprintf(stderr, "  capped store:\n    got      %s\n    expected %s\n", err.msg, expected);
    /* Grown on demand (the owned renderer), the capped store is paged: pages of a multiple of 64
     * entries (64 here, 3 KiB), and as many more as half of what the crowd's state leaves holds,
     * each with its two staging copies (one heap: three times a page), and as one allocation
     * holds (the staging's pages are one), up to four in all; fixed, or holding every palette,
     * one. The largest buffer stays 4096 bytes (maxBufferSize now). */
    {
        vks_plan_limits big = lim;
        big.max_buffer = 4096 + 8;
        big.max_memory_allocation = 1u << 30;
        const VkDeviceSize page = 64 * 48;
        const VkDeviceSize state = fixed + 3 * page + 60 * (INSTANCE + 2 * (VISIBLE + RECORD));
        const vks_plan_request grow = {
            .mode = VKS_SKIN_COMPUTE, .palette_store = true, .output_on_demand = true};
        const struct {
            VkDeviceSize left, allocation;
            uint32_t pages;
        } cases[] = {{least, 1u << 30, 1},
                     {2 * 3 * page - 16, 1u << 30, 1},
                     {2 * 3 * page, 1u << 30, 2},
                     {2 * 3 * 2 * page - 16, 1u << 30, 2},
                     {2 * 3 * 2 * page, 1u << 30, 3},
                     {2 * 3 * 3 * page, 1u << 30, 4},
                     {1u << 20, 1u << 30, 4},
                     {1u << 20, 2 * page + 8, 2},
                     {1u << 20, 3 * page - 8, 2}};
        for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
            big.device_heap = state + cases[k].left;
            big.max_memory_allocation = cases[k].allocation;
            CHECK(vks_plan_memory_of(&big, &sixty, &grow, &mem, &err));
            CHECK(mem.palette_store_capped && mem.palette_store_entries == 64);
            CHECK(mem.palette_store_pages == cases[k].pages);
            CHECK(mem.device_bytes == fixed + page + 60 * INSTANCE + least); /* one page now */
        }
        big.device_heap = 1u << 30; /* a fixed store: one buffer's 85 entries, one page */
        CHECK(vks_plan_memory_of(&big, &sixty, &store, &mem, &err));
        CHECK(mem.palette_store_entries == 85 && mem.palette_store_pages == 1);
        /* 21 instances, 84 entries: one buffer holds every palette. */
        CHECK(vks_plan_memory_of(&big, &fits, &grow, &mem, &err));
        CHECK(!mem.palette_store_capped && mem.palette_store_pages == 1);
    }
    /* The instance table and the visible lists stay one buffer each: 64 entries of 64 bytes. */
    vks_crowd table = make_uniform(&model, 65);
    CHECK(!vks_plan_memory_of(&lim, &table, &store, &mem, &err));
    CHECK(strstr(err.msg, "at most 64 instances fit") != NULL);
    free(table.instances);
    free(table.model_of);
    free(sixty.instances);
    free(sixty.model_of);
    free(more.instances);
    free(more.model_of);
    free(fits.instances);
    free(fits.model_of);
    free(over.instances);
    free(over.model_of);
    free(many.instances);
    free(many.model_of);
}

int main(void)
{
    test_output_bytes();
    test_frame_by_hand();
    test_frame_invariants();
    test_frame_runs();
    test_frame_plan();
    test_frame_plan_pool();
    test_frame_plan_splats();
    test_buffer_limit();
    test_memory();
    test_fit();
    test_fit_largest_buffer();
    return check_report("render_plan");
}
