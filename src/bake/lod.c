/* Level-of-detail chains (lod.h).
 *
 * The character is simplified whole: every mesh's triangles in one index buffer over the model's
 * vertices. Where two meshes meet at vertices of the same position, meshoptimizer sees a seam (an
 * attribute discontinuity) and moves both sides together, so no crack opens there; true borders
 * (a sleeve's open end) collapse along themselves. Nothing is locked, and the simplifier spends
 * the level's budget where the whole character loses least, not mesh by mesh.
 *
 * Every level is simplified from level 0, never from the level before, so that its error is
 * measured against the imported surface. The chain is driven by triangle counts: level L asks for
 * r times the triangles of level L - 1, r = 1/2, or less for a character of more than
 * VKS_LOD_FLOOR_TRIANGLES x 2^(VKS_MAX_LEVELS - 1) triangles, so that the chain reaches the floor
 * within VKS_MAX_LEVELS levels. Three ways make a level, each taking over (for that level and the
 * rest) when the one before cannot get within LOD_EDGE_SLACK of the target: edge collapses within
 * the joints' regions (lod__split), edge collapses across them, and vertices clustered on one
 * grid over the whole character (closed parts that cannot shrink further, hundreds of small
 * pieces). The chain ends at the floor, or when a level would not have fewer triangles than the
 * one before. The levels' errors are measured afterwards, in motion (bake/lod_error.h), which
 * also drops the levels no better than a coarser one (vks_model_keep_levels).
 *
 * Each triangle of a level is drawn with one mesh: the mesh of most of its corners (the first's
 * when all three differ). A corner that a collapse moved onto another mesh's vertex (where three
 * meshes meet) is moved back onto its own mesh's vertex at the same place when there is one. */
#include "lod.h"
#include "../core/alloc.h"

#include <assert.h>
#include <math.h>
#include <meshoptimizer.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* Edge collapses must get within this factor of a level's target, else the grid takes over. */
#define LOD_EDGE_SLACK 1.25

typedef struct lod__builder {
    const vks_model *m;
    uint32_t *all;     /* level 0's indices, model-wide (each mesh's plus its base vertex) */
    uint32_t *welded;  /* the same with each vertex replaced by the first of its mesh that
                          equals it in every stream (lod__weld) */
    size_t all_count;  /* indices in all */
    uint32_t *mesh_of; /* vertex -> its mesh */
    /* (mesh, position) -> the first vertex of that mesh there: open addressing, ~0u empty */
    uint32_t *places, place_mask;
    uint32_t *scratch; /* all_count indices */
    float scale;       /* meshopt_simplifyScale of the whole model */
    /* The edge collapses' input: the vertices split along the borders between the joints'
     * regions (lod__split), split_count of them, each a copy of level-0 vertex split_source[i] at
     * split_positions[i]; split_all: level 0's indices into them. */
    uint32_t split_count;
    uint32_t *split_source, *split_all;
    float (*split_positions)[3];
} lod__builder;

/* One level as it is built: model-wide indices grouped by mesh (mesh i's in [first[i], first[i]
 * + count[i])), then compacted. */
typedef struct lod__level {
    uint32_t *indices; /* level-local once compacted */
    uint32_t *source;  /* per level vertex: the level-0 vertex it copies */
    uint32_t index_count, vertex_count;
    uint32_t *first, *count; /* per mesh */
    float error;
    vks_lod_kind kind;
} lod__level;

static void lod__level_free(lod__level *l)
{
    vks_free(l->indices);
    vks_free(l->source);
    vks_free(l->first);
    vks_free(l->count);
    memset(l, 0, sizeof *l);
}

/* Whether joint j's local transform is the same in the rest pose and all through every clip:
 * then it moves rigidly with its parent. */
static bool lod__rigid_joint(const vks_model *m, uint32_t j)
{
    const vks_xform *rest = &m->skeleton.rest[j];
    for (uint32_t c = 0; c < m->clip_count; c++) {
        const vks_clip *clip = &m->clips[c];
        const vks_track *tr = &clip->tracks[j];
        for (uint32_t k = 0; k < tr->t_count; k++)
            if (memcmp(clip->t_values[tr->t_first + k], rest->t, sizeof rest->t))
                return false;
        for (uint32_t k = 0; k < tr->r_count; k++)
            if (memcmp(clip->r_values[tr->r_first + k], rest->r, sizeof rest->r))
                return false;
        for (uint32_t k = 0; k < tr->s_count; k++)
            if (memcmp(clip->s_values[tr->s_first + k], rest->s, sizeof rest->s))
                return false;
    }
    return true;
}

/* Splits level 0's vertices along the borders between the joints' regions, so that the edge
 * collapses see each border as a seam: a seam moves only along itself, so no triangle comes to
 * span a joint. A triangle spanning a bending joint is flat where level 0 bends: right in the
 * bind pose, a chord across a folded elbow or knee in motion. A joint's region is the triangles
 * it weighs most (their corners' weights summed); a joint that moves rigidly with its parent
 * (no key that changes it) shares its parent's region, since no pose bends between them. */
static bool lod__split(lod__builder *b)
{
    const vks_model *m = b->m;
    const vks_skeleton *sk = &m->skeleton;
    const size_t tris = b->all_count / 3;
    uint32_t *region = vks_malloc(sizeof *region * (sk->joint_count ? sk->joint_count : 1));
    uint32_t *tri_region = vks_malloc(sizeof *tri_region * (tris ? tris : 1));
    float *sum = vks_calloc(sk->joint_count ? sk->joint_count : 1, sizeof *sum);
    /* (vertex, region) -> split vertex: open addressing over 2 x the corners */
    size_t size = 16;
    while (size < 2 * b->all_count + 2)
        size *= 2;
    uint64_t *keys = vks_malloc(sizeof *keys * size);
    uint32_t *values = vks_malloc(sizeof *values * size);
    b->split_all = vks_malloc(sizeof *b->split_all * (b->all_count ? b->all_count : 1));
    b->split_source = vks_malloc(sizeof *b->split_source * (b->all_count ? b->all_count : 1));
    bool ok = region && tri_region && sum && keys && values && b->split_all && b->split_source;
    for (uint32_t j = 0; ok && j < sk->joint_count; j++)
        region[j] = sk->parents[j] >= 0 && lod__rigid_joint(m, j) ? region[sk->parents[j]] : j;
    for (size_t t = 0; ok && t < tris; t++) {
        uint16_t joints[3][VKS_WIDE_INFLUENCES];
        float weights[3][VKS_WIDE_INFLUENCES];
        uint32_t n[3], best = 0;
        for (int c = 0; c < 3; c++) {
            n[c] = vks_model_influences(m, b->welded[3 * t + c], joints[c], weights[c]);
            for (uint32_t k = 0; k < n[c]; k++)
                sum[region[joints[c][k]]] += weights[c][k];
        }
        float most = -1.0f;
        for (int c = 0; c < 3; c++)
            for (uint32_t k = 0; k < n[c]; k++) {
                const uint32_t r = region[joints[c][k]];
                if (sum[r] > most || (sum[r] == most && r < best))
                    most = sum[r], best = r;
            }
        for (int c = 0; c < 3; c++)
            for (uint32_t k = 0; k < n[c]; k++)
                sum[region[joints[c][k]]] = 0.0f;
        tri_region[t] = best;
    }
    for (size_t k = 0; ok && k < size; k++)
        keys[k] = ~0ull;
    for (size_t i = 0; ok && i < b->all_count; i++) {
        const uint64_t key = (uint64_t)b->welded[i] << 32 | tri_region[i / 3];
        size_t h = (size_t)((key * 0x9e3779b97f4a7c15ull) >> 20) & (size - 1);
        while (keys[h] != ~0ull && keys[h] != key)
            h = (h + 1) & (size - 1);
        if (keys[h] == ~0ull) {
            keys[h] = key;
            values[h] = b->split_count;
            b->split_source[b->split_count++] = b->welded[i];
        }
        b->split_all[i] = values[h];
    }
    b->split_positions =
        ok ? vks_malloc(sizeof *b->split_positions * (b->split_count ? b->split_count : 1)) : NULL;
    ok = ok && b->split_positions;
    for (uint32_t v = 0; ok && v < b->split_count; v++)
        memcpy(b->split_positions[v], m->positions[b->split_source[v]], sizeof(float[3]));
    vks_free(region), vks_free(tri_region), vks_free(sum), vks_free(keys), vks_free(values);
    return ok;
}

/* Whether vertices v and w are equal in every stream. */
static bool lod__same_vertex(const vks_model *m, uint32_t v, uint32_t w)
{
#define SAME(field) (!m->field || !memcmp(m->field[v], m->field[w], sizeof m->field[v]))
    return SAME(positions) && SAME(normals) && SAME(tangents) && SAME(uvs) && SAME(joints) &&
           SAME(weights) && SAME(joints_extra) && SAME(weights_extra);
#undef SAME
}

/* FNV-1a over `size` bytes, continuing from h (1469598103934665603 to start). */
static uint64_t lod__hash(uint64_t h, const void *bytes, size_t size)
{
    const unsigned char *p = bytes;
    for (size_t k = 0; k < size; k++)
        h = (h ^ p[k]) * 1099511628211ull;
    return h;
}

/* A power of two of at least twice n slots, all ~0u; its mask in *mask. */
static uint32_t *lod__table(size_t n, uint32_t *mask)
{
    size_t size = 16;
    while (size < 2 * n)
        size *= 2;
    uint32_t *table = vks_malloc(sizeof *table * size);
    if (table)
        memset(table, 0xff, sizeof *table * size);
    *mask = (uint32_t)(size - 1);
    return table;
}

/* The slot of the first vertex of `mesh` at `position` in b->places (empty when none). */
static uint32_t *lod__place(const lod__builder *b, uint32_t mesh, const float position[3])
{
    const vks_model *m = b->m;
    uint32_t h = (uint32_t)lod__hash(1469598103934665603ull ^ mesh, position, sizeof(float[3]));
    for (h &= b->place_mask;; h = (h + 1) & b->place_mask) {
        const uint32_t w = b->places[h];
        if (w == ~0u ||
            (b->mesh_of[w] == mesh && !memcmp(m->positions[w], position, sizeof(float[3]))))
            return &b->places[h];
    }
}

/* b->welded: level 0's indices with each vertex replaced by the first vertex of its mesh equal to
 * it in every stream. A file's parts cut apart (a character in hundreds of pieces) repeat the
 * vertices along each cut; merged into one mesh, the copies would make every cut a seam, and
 * where three pieces meet a vertex the edge collapses cannot move. Welded, the cuts vanish. The
 * copies are the same vertex, so the levels draw either. */
static bool lod__weld(lod__builder *b)
{
    const vks_model *m = b->m;
    uint32_t mask;
    uint32_t *table = lod__table(m->vertex_count, &mask);
    uint32_t *first = vks_malloc(sizeof *first * (m->vertex_count + 1));
    b->welded = vks_malloc(sizeof *b->welded * (b->all_count ? b->all_count : 1));
    if (!table || !first || !b->welded) {
        vks_free(table), vks_free(first);
        return false;
    }
    for (uint32_t v = 0; v < m->vertex_count; v++) {
        uint64_t h =
            lod__hash(1469598103934665603ull ^ b->mesh_of[v], m->positions[v], sizeof(float[3]));
        h = lod__hash(h, m->normals[v], sizeof(float[3]));
        uint32_t i = (uint32_t)h & mask;
        while (table[i] != ~0u &&
               !(b->mesh_of[table[i]] == b->mesh_of[v] && lod__same_vertex(m, table[i], v)))
            i = (i + 1) & mask;
        if (table[i] == ~0u)
            table[i] = v;
        first[v] = table[i];
    }
    for (size_t i = 0; i < b->all_count; i++)
        b->welded[i] = first[b->all[i]];
    vks_free(table), vks_free(first);
    return true;
}

static bool lod__builder_init(lod__builder *b, const vks_model *m)
{
    *b = (lod__builder){.m = m, .all_count = m->index_count};
    const size_t v = m->vertex_count ? m->vertex_count : 1;
    b->all = vks_malloc(sizeof *b->all * (b->all_count ? b->all_count : 1));
    b->scratch = vks_malloc(sizeof *b->scratch * (b->all_count ? b->all_count : 1));
    b->mesh_of = vks_malloc(sizeof *b->mesh_of * v);
    b->places = lod__table(v, &b->place_mask);
    if (!b->all || !b->scratch || !b->mesh_of || !b->places)
        return false;
    size_t at = 0;
    for (uint32_t i = 0; i < m->mesh_count; i++) {
        const vks_mesh *me = &m->meshes[i];
        for (uint32_t k = 0; k < me->index_count; k++)
            b->all[at++] = me->base_vertex + m->indices[me->first_index + k];
        for (uint32_t k = 0; k < me->vertex_count; k++)
            b->mesh_of[me->base_vertex + k] = i;
    }
    assert(at == b->all_count);
    /* b->places needs mesh_of for every vertex first; then the weld reads both. */
    for (uint32_t k = 0; k < m->vertex_count; k++) {
        uint32_t *slot = lod__place(b, b->mesh_of[k], m->positions[k]);
        if (*slot == ~0u)
            *slot = k;
    }
    b->scale = meshopt_simplifyScale(m->positions[0], m->vertex_count, sizeof(float[3]));
    return lod__weld(b) && lod__split(b);
}

static void lod__builder_free(lod__builder *b)
{
    vks_free(b->all);
    vks_free(b->welded);
    vks_free(b->scratch);
    vks_free(b->mesh_of);
    vks_free(b->places);
    vks_free(b->split_source);
    vks_free(b->split_all);
    vks_free(b->split_positions);
}

/* A vertex of mesh `mesh` at v's position, or v when it has none. */
static uint32_t lod__same_place(const lod__builder *b, uint32_t v, uint32_t mesh)
{
    const uint32_t w = *lod__place(b, mesh, b->m->positions[v]);
    return w == ~0u ? v : w;
}

/* Groups n model-wide indices (tri by tri) by mesh into l (first, count, indices), each group
 * optimized for the vertex cache. */
static bool lod__group(const lod__builder *b, const uint32_t *tris, size_t n, lod__level *l)
{
    const vks_model *m = b->m;
    const uint32_t mc = m->mesh_count;
    l->first = vks_calloc(mc ? mc : 1, sizeof *l->first);
    l->count = vks_calloc(mc ? mc : 1, sizeof *l->count);
    uint32_t *owner = vks_malloc(sizeof *owner * (n / 3 ? n / 3 : 1));
    uint32_t *fixed = vks_malloc(sizeof *fixed * (n ? n : 1));
    l->indices = vks_malloc(sizeof *l->indices * (n ? n : 1));
    bool ok = l->first && l->count && owner && fixed && l->indices;
    for (size_t t = 0; ok && t < n / 3; t++) {
        const uint32_t *c = tris + 3 * t;
        const uint32_t m0 = b->mesh_of[c[0]], m1 = b->mesh_of[c[1]], m2 = b->mesh_of[c[2]];
        const uint32_t mesh = m1 == m2 ? m1 : m0;
        owner[t] = mesh;
        for (int k = 0; k < 3; k++)
            fixed[3 * t + k] = b->mesh_of[c[k]] == mesh ? c[k] : lod__same_place(b, c[k], mesh);
        /* The first corner the mesh's own (the draw's provoking vertex, which a flat UV reads:
         * VKS_FLAT_UV in shaders/vks_shared.h), turned with the winding kept; a triangle none of
         * whose corners could be made the mesh's stays as it is. */
        for (int turn = 0; turn < 2 && b->mesh_of[fixed[3 * t]] != mesh; turn++) {
            const uint32_t first = fixed[3 * t];
            fixed[3 * t] = fixed[3 * t + 1];
            fixed[3 * t + 1] = fixed[3 * t + 2];
            fixed[3 * t + 2] = first;
        }
        l->count[mesh] += 3;
    }
    /* A counting sort by mesh (file order kept within each), then each group's cache order. */
    uint32_t at = 0;
    for (uint32_t i = 0; ok && i < mc; i++) {
        l->first[i] = at;
        at += l->count[i];
    }
    uint32_t *cursor = ok ? vks_malloc(sizeof *cursor * (mc ? mc : 1)) : NULL;
    ok = ok && cursor;
    if (ok)
        memcpy(cursor, l->first, sizeof *cursor * mc);
    for (size_t t = 0; ok && t < n / 3; t++) {
        memcpy(b->scratch + cursor[owner[t]], fixed + 3 * t, sizeof(uint32_t[3]));
        cursor[owner[t]] += 3;
    }
    for (uint32_t i = 0; ok && i < mc; i++)
        meshopt_optimizeVertexCache(l->indices + l->first[i], b->scratch + l->first[i], l->count[i],
                                    m->vertex_count);
    vks_free(cursor);
    l->index_count = (uint32_t)n;
    vks_free(owner);
    vks_free(fixed);
    return ok;
}

/* Makes l's vertices a compact range: the vertices its indices use, in the order they are first
 * fetched (all meshes' groups one after the other). */
static bool lod__compact(const lod__builder *b, lod__level *l)
{
    const vks_model *m = b->m;
    uint32_t *remap = vks_malloc(sizeof *remap * (m->vertex_count ? m->vertex_count : 1));
    if (!remap)
        return false;
    const size_t unique =
        meshopt_optimizeVertexFetchRemap(remap, l->indices, l->index_count, m->vertex_count);
    l->source = vks_malloc(sizeof *l->source * (unique ? unique : 1));
    if (!l->source) {
        vks_free(remap);
        return false;
    }
    meshopt_remapIndexBuffer(l->indices, l->indices, l->index_count, remap);
    for (uint32_t v = 0; v < m->vertex_count; v++)
        if (remap[v] != ~0u)
            l->source[remap[v]] = v;
    l->vertex_count = (uint32_t)unique;
    vks_free(remap);
    return true;
}

/* Edge collapses on the whole character to about `target` triangles: the indices in
 * b->scratch, their count returned, meshoptimizer's error (model units) in *error. */
static size_t lod__edges(const lod__builder *b, bool joint_seams, size_t target, float *error)
{
    const vks_model *m = b->m;
    float rel = 0.0f;
    size_t n;
    if (joint_seams) {
        n = meshopt_simplify(b->scratch, b->split_all, b->all_count, b->split_positions[0],
                             b->split_count, sizeof(float[3]), target * 3, 1.0f, 0, &rel);
        for (size_t k = 0; k < n; k++)
            b->scratch[k] = b->split_source[b->scratch[k]];
    } else {
        n = meshopt_simplify(b->scratch, b->welded, b->all_count, m->positions[0], m->vertex_count,
                             sizeof(float[3]), target * 3, 1.0f, 0, &rel);
    }
    *error = rel * b->scale;
    return n;
}

/* Grid clustering of the whole character to about `target` triangles: the indices in out (room
 * for all of level 0's), their count returned, the error (model units) in *error. One grid over
 * every mesh welds parts that touch, which a grid per mesh would leave apart (or drop whole:
 * a small mesh's share of a few triangles may cluster to none). */
static size_t lod__grid(const lod__builder *b, size_t target, uint32_t *out, float *error)
{
    const vks_model *m = b->m;
    float rel = 0.0f;
    const size_t n =
        meshopt_simplifySloppy(out, b->all, b->all_count, m->positions[0], m->vertex_count,
                               sizeof(float[3]), target * 3, 1.0f, &rel);
    *error = rel * b->scale;
    return n;
}

/* The chain of levels past level 0 into levels[1...]: each level about `ratio` of the one
 * before's triangles, down to VKS_LOD_FLOOR_TRIANGLES, its error at least the one before's.
 * *level_count: the levels made, level 0 counted. False when out of memory. */
static bool lod__simplify(const vks_model *m, lod__level *levels, uint32_t *level_count)
{
    lod__builder b;
    bool ok = lod__builder_init(&b, m);
    uint32_t *grid = ok ? vks_malloc(sizeof *grid * (b.all_count ? b.all_count : 1)) : NULL;
    ok = ok && grid;

    const size_t t0 = b.all_count / 3;
    const double ratio =
        t0 > VKS_LOD_FLOOR_TRIANGLES
            ? fmin(0.5, pow((double)VKS_LOD_FLOOR_TRIANGLES / t0, 1.0 / (VKS_MAX_LEVELS - 1)))
            : 0.5;
    size_t prev = t0;
    /* The ways, in order; once one cannot get within LOD_EDGE_SLACK of a level's target, the
     * next takes that level and the rest: edge collapses within the joints' regions, edge
     * collapses across them, the grid. */
    enum { JOINT_SEAMS, EDGES, GRID } way = JOINT_SEAMS;
    float prev_error = 0.0f;
    while (ok && prev > VKS_LOD_FLOOR_TRIANGLES && *level_count < VKS_MAX_LEVELS) {
        size_t target = (size_t)(prev * ratio);
        if (target < VKS_LOD_FLOOR_TRIANGLES || *level_count + 1 == VKS_MAX_LEVELS)
            target = VKS_LOD_FLOOR_TRIANGLES;
        float error = 0.0f;
        size_t n = 0;
        const uint32_t *tris = b.scratch;
        while (way != GRID) {
            n = lod__edges(&b, way == JOINT_SEAMS, target, &error);
            if (n / 3 <= target * LOD_EDGE_SLACK)
                break;
            way++;
        }
        if (way == GRID) {
            n = lod__grid(&b, target, grid, &error);
            tris = grid;
        }
        if (n == 0 || n / 3 >= prev)
            break;
        lod__level *l = &levels[(*level_count)++];
        l->kind = way == GRID ? VKS_LOD_GRID : VKS_LOD_EDGES;
        l->error = fmaxf(error, prev_error);
        ok = lod__group(&b, tris, n, l) && lod__compact(&b, l);
        prev = n / 3;
        prev_error = l->error;
    }
    vks_free(grid);
    lod__builder_free(&b);
    return ok;
}

/* The levels into the model: level 0 as loaded, then each level's vertices (as sources) and
 * indices appended to the model's level arrays, with each mesh's share. False when out of
 * memory (the model unchanged). */
static bool lod__store(vks_model *m, const lod__level *levels, uint32_t level_count)
{
    const uint32_t mc = m->mesh_count;
    size_t vertex_total = 0, index_total = 0;
    for (uint32_t l = 1; l < level_count; l++) {
        vertex_total += levels[l].vertex_count;
        index_total += levels[l].index_count;
    }
    /* The counts are stored in 32 bits; more could not be allocated on any machine we target. */
    if (vertex_total > UINT32_MAX || index_total > UINT32_MAX)
        return false;
    uint32_t *source = vks_malloc(sizeof *source * (vertex_total ? vertex_total : 1));
    uint32_t *indices = vks_malloc(sizeof *indices * (index_total ? index_total : 1));
    vks_mesh_level *mesh_levels = vks_malloc(sizeof *mesh_levels * level_count * (mc ? mc : 1));
    if (!source || !indices || !mesh_levels) {
        vks_free(source);
        vks_free(indices);
        vks_free(mesh_levels);
        return false;
    }

    m->levels[0] = (vks_level){0, m->vertex_count, m->index_count / 3, 0.0f, VKS_LOD_SOURCE};
    for (uint32_t i = 0; i < mc; i++) {
        const vks_mesh *me = &m->meshes[i];
        mesh_levels[i] = (vks_mesh_level){me->first_index, me->index_count, me->base_vertex};
    }
    uint32_t vertex_at = 0, index_at = 0;
    for (uint32_t l = 1; l < level_count; l++) {
        const lod__level *p = &levels[l];
        m->levels[l] =
            (vks_level){vertex_at, p->vertex_count, p->index_count / 3, p->error, p->kind};
        for (uint32_t i = 0; i < mc; i++)
            mesh_levels[(size_t)l * mc + i] =
                (vks_mesh_level){index_at + p->first[i], p->count[i], 0};
        memcpy(source + vertex_at, p->source, sizeof *source * p->vertex_count);
        memcpy(indices + index_at, p->indices, sizeof *indices * p->index_count);
        vertex_at += p->vertex_count;
        index_at += p->index_count;
    }
    assert(vertex_at == vertex_total && index_at == index_total);
    m->level_count = level_count;
    m->mesh_levels = mesh_levels;
    m->lod_vertex_count = vertex_at;
    m->lod_source = source;
    m->lod_index_count = index_at;
    m->lod_indices = indices;
    return true;
}

bool vks_model_build_lods(vks_model *m, vks_error *err)
{
    if (m->level_count)
        return true;
    lod__level levels[VKS_MAX_LEVELS] = {0};
    uint32_t level_count = 1;
    const bool ok = lod__simplify(m, levels, &level_count) && lod__store(m, levels, level_count);
    for (uint32_t l = 0; l < VKS_MAX_LEVELS; l++)
        lod__level_free(&levels[l]);
    if (!ok)
        return vks_fail_memory(err, "out of memory building %s's levels of detail", m->name);
    return true;
}

void vks_model_keep_levels(vks_model *m, const bool keep[VKS_MAX_LEVELS])
{
    const uint32_t mc = m->mesh_count, count = m->level_count;
    if (count <= 1)
        return;
    uint32_t to = 1, vertex_at = 0, index_at = 0;
    for (uint32_t l = 1; l < count; l++) {
        if (!keep[l] && l + 1 < count)
            continue;
        vks_level lv = m->levels[l];
        vks_mesh_level *row = &m->mesh_levels[(size_t)l * mc];
        const uint32_t first_index = mc ? row[0].first_index : 0;
        const uint32_t indices = lv.triangle_count * 3;
        /* Moving down only: memmove within the arrays is safe. */
        memmove(m->lod_source + vertex_at, m->lod_source + lv.vertex_first,
                sizeof *m->lod_source * lv.vertex_count);
        memmove(m->lod_indices + index_at, m->lod_indices + first_index,
                sizeof *m->lod_indices * indices);
        for (uint32_t i = 0; i < mc; i++)
            row[i].first_index = row[i].first_index - first_index + index_at;
        memmove(&m->mesh_levels[(size_t)to * mc], row, sizeof *row * mc);
        lv.vertex_first = vertex_at;
        m->levels[to++] = lv;
        vertex_at += lv.vertex_count;
        index_at += indices;
    }
    for (uint32_t l = to; l < count; l++)
        m->levels[l] = (vks_level){0};
    m->level_count = to;
    m->lod_vertex_count = vertex_at;
    m->lod_index_count = index_at;
}
