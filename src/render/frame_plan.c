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
 * level * 2 + 1 for the graphics pipeline), or the model's splats: one pass counts, one places;
 * each entry reads its model from the crowd's byte per instance. */
static void sort_by_level(const vks_crowd *c, const vks_frame_budget *b, const uint32_t *visible,
                          uint32_t count, uint8_t *levels, const uint8_t *raster, vks_frame_plan *p)
{
    uint32_t n[VKS_CROWD_MAX_MODELS][2 * VKS_MAX_LEVELS] = {{0}};
    uint32_t splats[VKS_CROWD_MAX_MODELS] = {0}, splat_next[VKS_CROWD_MAX_MODELS];
    uint8_t last[VKS_CROWD_MAX_MODELS];
    for (uint32_t m = 0; m < c->model_count; m++)
        last[m] = (uint8_t)(vks_model_level_count(c->models[m]) - 1);
    /* The splats sit at the list's end: the ids name them all when they name the whole list,
     * else none (the marked then drawn at their last level, by the graphics pipeline past the
     * ids). */
    uint32_t marked = 0;
    for (uint32_t s = 0; s < count; s++)
        marked += marked_splat(b, raster, s);
    const uint32_t room = count <= b->raster_max_entries ? marked : 0;
    p->splats_past_ids = marked > room ? marked - room : 0;
    for (uint32_t s = 0, k = 0; s < count; s++) {
        const uint8_t m = c->model_of[visible[s]];
        /* A marked splat is at its model's last level, a splat or not. */
        levels[s] = levels[s] < last[m] && !marked_splat(b, raster, s) ? levels[s] : last[m];
        if (marked_splat(b, raster, s) && k++ < room)
            splats[m]++;
        else
            n[m][2 * levels[s] + !wants_raster(b, raster, s)]++;
    }
    uint32_t at = 0, next[VKS_CROWD_MAX_MODELS][2 * VKS_MAX_LEVELS];
    memset(p->level_instances, 0, sizeof p->level_instances);
    for (uint32_t m = 0; m < c->model_count; m++) {
        for (uint32_t l = 0; l < VKS_MAX_LEVELS; l++) {
            p->runs[m][l] = next[m][2 * l] = at;
            p->raster_end[m][l] = next[m][2 * l + 1] = at + n[m][2 * l];
            at += n[m][2 * l] + n[m][2 * l + 1];
            p->level_instances[l] += n[m][2 * l] + n[m][2 * l + 1];
        }
        p->level_instances[last[m]] += splats[m];
        p->runs[m][VKS_MAX_LEVELS] = at;
    }
    for (uint32_t m = 0; m < VKS_CROWD_MAX_MODELS; m++) {
        p->splats[m] = splat_next[m] = at;
        at += m < c->model_count ? splats[m] : 0;
    }
    p->splats[VKS_CROWD_MAX_MODELS] = at;
    for (uint32_t s = 0, k = 0; s < count; s++) {
        const uint8_t m = c->model_of[visible[s]];
        const uint32_t to = marked_splat(b, raster, s) && k++ < room
                                ? splat_next[m]++
                                : next[m][2 * levels[s] + !wants_raster(b, raster, s)]++;
        p->order[to] = visible[s];
        p->order_level[to] = levels[s];
        p->order_model[to] = m;
    }
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

void vks_frame_plan_entries(const vks_crowd *c, const vks_frame_plan *p,
                            const uint32_t *palette_first, const VkDeviceAddress *chunk_address,
                            VkDeviceSize chunk_limit, vks_visible *gpu)
{
    /* Run by run (one model and level each): what is the run's is looked up once, and each
     * entry reads only its palette's place (instances ascending within a run). */
    for (uint32_t m = 0; m < c->model_count; m++)
        for (uint32_t l = 0; l < VKS_MAX_LEVELS; l++) {
            const uint32_t first = p->runs[m][l], end = p->runs[m][l + 1];
            if (first == end)
                continue;
            const vks_model *model = c->models[m];
            const uint32_t vertex_first =
                l ? model->vertex_count + vks_model_level(model, l).vertex_first : 0;
            for (uint32_t s = first; s < end; s++) {
                const uint32_t i = p->order[s];
                vks_visible e = {.instance = i,
                                 .vertex_first = vertex_first,
                                 .palette_first = palette_first[i],
                                 .model = m};
                if (s < p->skinned_count) {
                    const VkDeviceSize at = p->out_offset[s];
                    const VkDeviceAddress a = chunk_address[at / chunk_limit] + at % chunk_limit;
                    e.out_address[0] = (uint32_t)a;
                    e.out_address[1] = (uint32_t)(a >> 32);
                }
                gpu[s] = e;
            }
        }
    for (uint32_t m = 0; m < c->model_count; m++)
        for (uint32_t s = p->splats[m]; s < p->splats[m + 1]; s++) {
            const uint32_t i = p->order[s];
            gpu[s] = (vks_visible){.instance = i,
                                   .vertex_first = VKS_VISIBLE_SPLAT,
                                   .palette_first = palette_first[i],
                                   .model = m};
        }
}
