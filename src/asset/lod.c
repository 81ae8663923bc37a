/* Level-of-detail chains (lod.h).
 *
 * Strategy: every level of a mesh is simplified from level 0, never from the level before it, so
 * that meshoptimizer's error is measured against the imported surface (simplifying the previous
 * level would measure each step against an already simplified mesh, leaving only the sum of the
 * steps, an over-estimate, as a level's error). Each level asks for half the triangles of the
 * previous one with an unlimited error (1.0 is the whole mesh extent): the chain is driven by the
 * triangle count, and the error it costs is recorded for the renderer's screen-space choice. A
 * mesh's chain ends below VKS_LOD_FLOOR_TRIANGLES (a few dozen triangles are not worth another
 * level) or when the simplifier stops making progress (less than a quarter off: topology or locked
 * borders). When several meshes make up the model their borders are locked, so that where they meet
 * no cracks open between meshes simplified apart.
 *
 * Model level L draws every mesh at its own level min(L, last): a mesh whose chain ended is
 * copied again into each later level's vertex range, so that every level skins only its own
 * vertices. */
#include "lod.h"

#include "merge.h"
#include "pack.h"

#include <assert.h>
#include <math.h>
#include <meshoptimizer.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* One level of one mesh, in the form levels >= 1 store it: indices into its own compact vertices
 * (source: the model-wide level-0 vertex each one copies, in vertex-fetch order). */
typedef struct lod__level {
    uint32_t *indices, *source;
    uint32_t index_count, vertex_count;
    float error; /* model units, non-decreasing along the chain */
} lod__level;

/* levels[0] is the mesh itself; its compact copy is only made when the chain has no other level
 * and the model has levels >= 1 (the mesh then appears as it is at each of them). */
typedef struct lod__chain {
    uint32_t count;
    lod__level levels[VKS_MAX_LEVELS];
} lod__chain;

static void lod__chains_free(lod__chain *chains, uint32_t mesh_count)
{
    for (uint32_t i = 0; chains && i < mesh_count; i++)
        for (uint32_t l = 0; l < VKS_MAX_LEVELS; l++) {
            free(chains[i].levels[l].indices);
            free(chains[i].levels[l].source);
        }
    free(chains);
}

/* Fills l's compact form from n mesh-relative indices: only the vertices they use, in the order
 * they are first fetched. remap: vertex_count entries of scratch. */
static bool lod__compact(lod__level *l, const uint32_t *indices, size_t n, const vks_mesh *me,
                         uint32_t *remap)
{
    const size_t unique = meshopt_optimizeVertexFetchRemap(remap, indices, n, me->vertex_count);
    l->indices = malloc(sizeof *l->indices * (n ? n : 1));
    l->source = malloc(sizeof *l->source * (unique ? unique : 1));
    if (!l->indices || !l->source)
        return false;
    meshopt_remapIndexBuffer(l->indices, indices, n, remap);
    for (uint32_t v = 0; v < me->vertex_count; v++)
        if (remap[v] != ~0u)
            l->source[remap[v]] = me->base_vertex + v;
    l->index_count = (uint32_t)n;
    l->vertex_count = (uint32_t)unique;
    return true;
}

/* The chain of one mesh; false when out of memory (what it allocated is left in c to free). */
static bool lod__chain_build(const vks_model *m, const vks_mesh *me, unsigned options,
                             lod__chain *c)
{
    const uint32_t *base = m->indices + me->first_index;
    const size_t n0 = me->index_count;
    const float *pos = m->positions[me->base_vertex];
    c->count = 1;
    c->levels[0] = (lod__level){.index_count = me->index_count};
    if (n0 / 3 < VKS_LOD_FLOOR_TRIANGLES)
        return true;
    uint32_t *scratch = malloc(sizeof *scratch * n0);
    uint32_t *cached = malloc(sizeof *cached * n0);
    uint32_t *remap = malloc(sizeof *remap * (me->vertex_count ? me->vertex_count : 1));
    bool ok = scratch && cached && remap;
    /* result_error is relative to this extent (meshoptimizer.h). */
    const float scale = meshopt_simplifyScale(pos, me->vertex_count, sizeof(float[3]));
    while (ok && c->count < VKS_MAX_LEVELS) {
        const lod__level *prev = &c->levels[c->count - 1];
        const size_t target = prev->index_count / 2 / 3 * 3;
        float rel = 0.0f;
        const size_t n = meshopt_simplify(scratch, base, n0, pos, me->vertex_count,
                                          sizeof(float[3]), target, 1.0f, options, &rel);
        const size_t tris = n / 3, prev_tris = prev->index_count / 3;
        if (tris == 0 || tris * 4 > prev_tris * 3)
            break;
        meshopt_optimizeVertexCache(cached, scratch, n, me->vertex_count);
        lod__level *l = &c->levels[c->count++];
        ok = lod__compact(l, cached, n, me, remap);
        l->error = fmaxf(rel * scale, prev->error);
        if (tris < VKS_LOD_FLOOR_TRIANGLES)
            break;
    }
    free(scratch);
    free(cached);
    free(remap);
    return ok;
}

/* Mesh i's level at model level L. */
static const lod__level *lod__pick(const lod__chain *chains, uint32_t i, uint32_t level)
{
    const lod__chain *c = &chains[i];
    return &c->levels[level < c->count ? level : c->count - 1];
}

bool vks_model_build_lods(vks_model *m, vks_error *err)
{
    if (m->level_count)
        return true;
    const uint32_t mesh_count = m->mesh_count;
    uint32_t indexed = 0;
    for (uint32_t i = 0; i < mesh_count; i++)
        indexed += m->meshes[i].index_count > 0;
    const unsigned options = indexed > 1 ? meshopt_SimplifyLockBorder : 0;

    lod__chain *chains = calloc(mesh_count ? mesh_count : 1, sizeof *chains);
    bool ok = chains != NULL;
    uint32_t level_count = 1;
    for (uint32_t i = 0; ok && i < mesh_count; i++) {
        ok = lod__chain_build(m, &m->meshes[i], options, &chains[i]);
        if (chains[i].count > level_count)
            level_count = chains[i].count;
    }
    /* A mesh alone in its chain is drawn as it is at every model level: its order is kept. */
    for (uint32_t i = 0; ok && level_count > 1 && i < mesh_count; i++) {
        const vks_mesh *me = &m->meshes[i];
        if (chains[i].count > 1)
            continue;
        uint32_t *remap = malloc(sizeof *remap * (me->vertex_count ? me->vertex_count : 1));
        ok = remap && lod__compact(&chains[i].levels[0], m->indices + me->first_index,
                                   me->index_count, me, remap);
        free(remap);
    }

    /* Sizes of the levels >= 1. Each has fewer triangles than the one before: below the longest
     * chain's length some mesh still moves down a level, to at most 3/4 of its triangles. */
    size_t vertex_total = 0, index_total = 0;
    for (uint32_t l = 1; ok && l < level_count; l++)
        for (uint32_t i = 0; i < mesh_count; i++) {
            const lod__level *p = lod__pick(chains, i, l);
            vertex_total += p->vertex_count;
            index_total += p->index_count;
        }
    /* The counts are stored in 32 bits; more could not be allocated on any machine we target. */
    ok = ok && vertex_total <= UINT32_MAX && index_total <= UINT32_MAX;

    uint32_t *source = NULL, *indices = NULL;
    vks_mesh_level *mesh_levels = NULL;
    if (ok) {
        source = malloc(sizeof *source * (vertex_total ? vertex_total : 1));
        indices = malloc(sizeof *indices * (index_total ? index_total : 1));
        mesh_levels = malloc(sizeof *mesh_levels * level_count * (mesh_count ? mesh_count : 1));
        ok = source && indices && mesh_levels;
    }
    if (!ok) {
        free(source);
        free(indices);
        free(mesh_levels);
        lod__chains_free(chains, mesh_count);
        return vks_fail_memory(err, "out of memory");
    }

    m->levels[0] = (vks_level){0, m->vertex_count, m->index_count / 3, 0.0f};
    for (uint32_t i = 0; i < mesh_count; i++) {
        const vks_mesh *me = &m->meshes[i];
        mesh_levels[i] = (vks_mesh_level){me->first_index, me->index_count, me->base_vertex, 0.0f};
    }
    uint32_t vertex_at = 0, index_at = 0;
    for (uint32_t l = 1; l < level_count; l++) {
        vks_level *level = &m->levels[l];
        *level = (vks_level){.vertex_first = vertex_at, .error = m->levels[l - 1].error};
        for (uint32_t i = 0; i < mesh_count; i++) {
            const lod__level *p = lod__pick(chains, i, l);
            mesh_levels[(size_t)l * mesh_count + i] =
                (vks_mesh_level){index_at, p->index_count, level->vertex_count, p->error};
            memcpy(source + vertex_at + level->vertex_count, p->source,
                   sizeof *source * p->vertex_count);
            memcpy(indices + index_at, p->indices, sizeof *indices * p->index_count);
            index_at += p->index_count;
            level->vertex_count += p->vertex_count;
            level->triangle_count += p->index_count / 3;
            level->error = fmaxf(level->error, p->error);
        }
        vertex_at += level->vertex_count;
    }
    assert(vertex_at == vertex_total && index_at == index_total);
    lod__chains_free(chains, mesh_count);

    m->level_count = level_count;
    m->mesh_levels = mesh_levels;
    m->lod_vertex_count = vertex_at;
    m->lod_source = source;
    m->lod_index_count = index_at;
    m->lod_indices = indices;
    return true;
}

bool vks_model_load(const vks_import_desc *desc, vks_model *out, vks_error *err)
{
    if (!vks_model_import(desc, out, err))
        return false;
    if ((!desc->keep_meshes && !vks_model_merge_meshes(out, err)) || !vks_model_pack(out, err) ||
        !vks_model_build_lods(out, err)) {
        vks_model_destroy(out);
        return false;
    }
    return true;
}
