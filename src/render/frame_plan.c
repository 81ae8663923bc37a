#include "frame_plan.h"
#include "plan.h"

#include <assert.h>
#include <string.h>

/* Whether visible entry s is marked for its far splat. */
static bool marked_splat(const vks_frame_budget *b, const uint8_t *raster, uint32_t s)
{
    return b->raster != VKS_FRAME_RASTER_NONE && raster && raster[s] == VKS_RASTER_MARK_SPLAT;
}

/* Whether visible entry s goes to the compute rasterizer (before the output is dealt); a marked
 * splat that is not one (past the ids) goes to the graphics pipeline. */
static bool wants_raster(const vks_frame_budget *b, const uint8_t *raster, uint32_t s)
{
    return !marked_splat(b, raster, s) && (b->raster == VKS_FRAME_RASTER_ALL ||
                                           (b->raster == VKS_FRAME_RASTER_MARKED && raster[s]));
}

/* The visible instances in the order the GPU takes them: by model, then by level of detail, so
 * that each (model, level) is one range; within it those for the compute rasterizer first, each
 * group ascending; the far splats after all of them, by model. A counting sort keyed by (model,
 * level * 2 + 1 for the graphics pipeline), or the model's splats (key SPLAT_KEY): one pass counts
 * per chunk, one places each chunk from its keys' sums over the chunks before; each entry reads
 * its model from the crowd's byte per instance. On the pool (budget->pool), in chunks of at least
 * PLAN_GRAIN, at most PLAN_CHUNKS: the same order on any number of threads. */
#define SPLAT_KEY (2 * VKS_MAX_LEVELS)
#define PLAN_KEYS (SPLAT_KEY + 1)
#define PLAN_GRAIN 16384u
#define PLAN_CHUNKS 16u /* (the counts, 17 KB, on the caller's stack) */

typedef struct sort_job {
    const vks_crowd *c;
    const vks_frame_budget *b;
    const uint32_t *visible;
    uint8_t *levels;
    const uint8_t *raster;
    vks_frame_plan *p;
    uint32_t grain;
    bool splats; /* the marked are splats (the ids name the whole list) */
    uint8_t last[VKS_CROWD_MAX_MODELS];
    uint32_t marked[PLAN_CHUNKS];
    /* per chunk, per model and key: how many, then where the chunk's first goes */
    uint32_t n[PLAN_CHUNKS][VKS_CROWD_MAX_MODELS][PLAN_KEYS];
} sort_job;

/* Entry s's key, its level clamped (count_chunk). */
static uint32_t key_of(const sort_job *j, uint32_t s)
{
    return marked_splat(j->b, j->raster, s) && j->splats
               ? SPLAT_KEY
               : 2u * j->levels[s] + !wants_raster(j->b, j->raster, s);
}

static void count_chunk(void *ctx, uint32_t begin, uint32_t end, uint32_t thread)
{
    (void)thread;
    sort_job *j = ctx;
    uint32_t(*n)[PLAN_KEYS] = j->n[begin / j->grain], marked = 0;
    memset(n, 0, sizeof j->n[0]);
    for (uint32_t s = begin; s < end; s++) {
        const uint8_t m = j->c->model_of[j->visible[s]];
        const bool splat = marked_splat(j->b, j->raster, s);
        marked += splat;
        /* a marked splat is at its model's last level, a splat or not */
        j->levels[s] = j->levels[s] < j->last[m] && !splat ? j->levels[s] : j->last[m];
        n[m][key_of(j, s)]++;
    }
    j->marked[begin / j->grain] = marked;
}

static void place_chunk(void *ctx, uint32_t begin, uint32_t end, uint32_t thread)
{
    (void)thread;
    sort_job *j = ctx;
    uint32_t(*next)[PLAN_KEYS] = j->n[begin / j->grain];
    vks_frame_plan *p = j->p;
    for (uint32_t s = begin; s < end; s++) {
        const uint8_t m = j->c->model_of[j->visible[s]];
        const uint32_t to = next[m][key_of(j, s)]++;
        p->order[to] = j->visible[s];
        p->order_level[to] = j->levels[s];
        p->order_model[to] = m;
    }
}

static void sort_by_level(const vks_crowd *c, const vks_frame_budget *b, const uint32_t *visible,
                          uint32_t count, uint8_t *levels, const uint8_t *raster, vks_frame_plan *p)
{
    sort_job job = {.c = c, .b = b, .visible = visible, .levels = levels, .raster = raster, .p = p},
             *j = &job; /* (on the stack: the frame allocates nothing) */
    j->grain = vks_pool_grain(count, PLAN_GRAIN, PLAN_CHUNKS);
    const uint32_t chunks = (uint32_t)(((uint64_t)count + j->grain - 1) / j->grain);
    for (uint32_t m = 0; m < c->model_count; m++)
        j->last[m] = (uint8_t)(vks_model_level_count(c->models[m]) - 1);
    /* The splats sit at the list's end: the ids name them all when they name the whole list,
     * else none (the marked then drawn at their last level, by the graphics pipeline past the
     * ids). */
    j->splats = count <= b->raster_max_entries;
    vks_pool_run(b->pool, count, j->grain, count_chunk, j);
    uint32_t marked = 0;
    for (uint32_t k = 0; k < chunks; k++)
        marked += j->marked[k];
    p->splats_past_ids = j->splats ? 0 : marked;
    /* Each key's range: the runs by model then level (the rasterizer's first), the splats after
     * every run by model; within a range, the chunks in order. */
    uint32_t total[VKS_CROWD_MAX_MODELS][PLAN_KEYS] = {{0}};
    for (uint32_t k = 0; k < chunks; k++)
        for (uint32_t m = 0; m < c->model_count; m++)
            for (uint32_t key = 0; key < PLAN_KEYS; key++)
                total[m][key] += j->n[k][m][key];
    uint32_t at = 0, first[VKS_CROWD_MAX_MODELS][PLAN_KEYS];
    memset(p->level_instances, 0, sizeof p->level_instances);
    for (uint32_t m = 0; m < c->model_count; m++) {
        for (uint32_t l = 0; l < VKS_MAX_LEVELS; l++) {
            p->runs[m][l] = first[m][2 * l] = at;
            p->raster_end[m][l] = first[m][2 * l + 1] = at + total[m][2 * l];
            at += total[m][2 * l] + total[m][2 * l + 1];
            p->level_instances[l] += total[m][2 * l] + total[m][2 * l + 1];
        }
        p->level_instances[j->last[m]] += total[m][SPLAT_KEY];
        p->runs[m][VKS_MAX_LEVELS] = at;
    }
    for (uint32_t m = 0; m < VKS_CROWD_MAX_MODELS; m++) {
        p->splats[m] = at;
        if (m < c->model_count) {
            first[m][SPLAT_KEY] = at;
            at += total[m][SPLAT_KEY];
        }
    }
    p->splats[VKS_CROWD_MAX_MODELS] = at;
    for (uint32_t k = 0; k < chunks; k++) /* each chunk's counts become its first places */
        for (uint32_t m = 0; m < c->model_count; m++)
            for (uint32_t key = 0; key < PLAN_KEYS; key++) {
                const uint32_t n = j->n[k][m][key];
                j->n[k][m][key] = first[m][key];
                first[m][key] += n;
            }
    vks_pool_run(b->pool, count, j->grain, place_chunk, j);
}

/* The bytes vks_plan_frame takes to give every run output, in the order's runs (model, then
 * level), each output whole within a chunk of `limit` bytes: per run, as many as fit what is left
 * of the chunk, then as many a chunk as fit one, O(runs + chunks). */
static VkDeviceSize wanted_bytes(const vks_crowd *c, const vks_frame_plan *p, VkDeviceSize limit)
{
    VkDeviceSize at = 0, chunk_end = limit;
    for (uint32_t m = 0; m < c->model_count; m++)
        for (uint32_t l = 0; l < VKS_MAX_LEVELS; l++) {
            uint64_t n = p->runs[m][l + 1] - p->runs[m][l];
            if (!n)
                continue;
            const VkDeviceSize bytes = vks_plan_level_output_bytes(c->models[m], l);
            assert(bytes <= limit);
            while (n) {
                if (at + bytes > chunk_end) {
                    at = chunk_end;
                    chunk_end += limit;
                }
                const uint64_t room = (chunk_end - at) / bytes, k = room < n ? room : n;
                at += k * bytes;
                n -= k;
            }
        }
    return at;
}

void vks_frame_plan_order(const vks_crowd *c, const vks_frame_budget *b, const uint32_t *visible,
                          uint32_t count, uint8_t *levels, const uint8_t *raster, vks_frame_plan *p)
{
    sort_by_level(c, b, visible, count, levels, raster, p);
    p->output_wanted = b->compute && b->chunk_limit ? wanted_bytes(c, p, b->chunk_limit) : 0;
}

void vks_frame_plan_make(const vks_crowd *c, const vks_frame_budget *b, const uint32_t *visible,
                         uint32_t count, uint8_t *levels, const uint8_t *raster, vks_frame_plan *p)
{
    vks_frame_plan_order(c, b, visible, count, levels, raster, p);
    vks_frame_plan_deal(c, b, p);
}

void vks_frame_plan_deal(const vks_crowd *c, const vks_frame_budget *b, vks_frame_plan *p)
{
    const uint32_t runs_end = p->splats[0]; /* the splats after it are not skinned */
    p->skinned_count = b->output_bytes
                           ? vks_plan_frame(c, p->order, p->order_level, runs_end, b->output_bytes,
                                            b->chunk_limit, p->out_offset)
                           : 0;
    p->overflow_count = b->compute ? runs_end - p->skinned_count : 0;
    /* The compute rasterizer draws only entries with output, whose slot its ids can name. */
    const uint32_t rasterable =
        p->skinned_count < b->raster_max_entries ? p->skinned_count : b->raster_max_entries;
    p->overflow_vertices = 0;
    p->raster_past_ids = 0;
    for (uint32_t m = 0; m < c->model_count; m++)
        for (uint32_t l = 0; l < VKS_MAX_LEVELS; l++) {
            const uint32_t first = p->runs[m][l], end = p->runs[m][l + 1];
            uint32_t *raster_end = &p->raster_end[m][l];
            /* Those it wanted that have output but whose slot the ids cannot name: counted. */
            const uint32_t with_output =
                *raster_end < p->skinned_count ? *raster_end : p->skinned_count;
            *raster_end = *raster_end < rasterable ? *raster_end : rasterable;
            *raster_end = *raster_end > first ? *raster_end : first;
            p->raster_past_ids += with_output > *raster_end ? with_output - *raster_end : 0;
            if (b->compute && end > p->skinned_count && l < vks_model_level_count(c->models[m]))
                p->overflow_vertices +=
                    (uint64_t)(end - (first > p->skinned_count ? first : p->skinned_count)) *
                    vks_model_level(c->models[m], l).vertex_count;
        }
    p->raster_past_ids += p->splats_past_ids; /* drawn as triangles instead */
}

typedef struct entries_job {
    const vks_frame_plan *p;
    const uint32_t *palette_first;
    const VkDeviceAddress *chunk_address;
    VkDeviceSize chunk_limit;
    vks_visible *gpu;
    uint32_t vertex_first[VKS_CROWD_MAX_MODELS][VKS_MAX_LEVELS]; /* each run's level's */
} entries_job;

/* Entries [begin, end) of the order: each its run's (model and level, looked up once a frame)
 * and its own palette's place and output. */
static void entries_chunk(void *ctx, uint32_t begin, uint32_t end, uint32_t thread)
{
    (void)thread;
    const entries_job *j = ctx;
    const vks_frame_plan *p = j->p;
    const uint32_t runs_end = p->splats[0];
    for (uint32_t s = begin; s < end; s++) {
        const uint32_t i = p->order[s], m = p->order_model[s];
        vks_visible e = {.instance = i,
                         .vertex_first = s < runs_end ? j->vertex_first[m][p->order_level[s]]
                                                      : VKS_VISIBLE_SPLAT,
                         .palette_first = j->palette_first[i],
                         .model = m};
        if (s < p->skinned_count) {
            const VkDeviceSize at = p->out_offset[s];
            const VkDeviceAddress a = j->chunk_address[at / j->chunk_limit] + at % j->chunk_limit;
            e.out_address[0] = (uint32_t)a;
            e.out_address[1] = (uint32_t)(a >> 32);
        }
        j->gpu[s] = e;
    }
}

void vks_frame_plan_entries(const vks_crowd *c, const vks_frame_plan *p, vks_pool *pool,
                            const uint32_t *palette_first, const VkDeviceAddress *chunk_address,
                            VkDeviceSize chunk_limit, vks_visible *gpu)
{
    entries_job j = {.p = p,
                     .palette_first = palette_first,
                     .chunk_address = chunk_address,
                     .chunk_limit = chunk_limit,
                     .gpu = gpu};
    for (uint32_t m = 0; m < c->model_count; m++)
        for (uint32_t l = 0; l < vks_model_level_count(c->models[m]); l++)
            j.vertex_first[m][l] =
                l ? c->models[m]->vertex_count + vks_model_level(c->models[m], l).vertex_first : 0;
    const uint32_t count = p->splats[VKS_CROWD_MAX_MODELS];
    vks_pool_run(pool, count, vks_pool_grain(count, PLAN_GRAIN, PLAN_CHUNKS), entries_chunk, &j);
}
