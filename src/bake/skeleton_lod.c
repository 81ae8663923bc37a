#include "skeleton_lod.h"
#include "../core/alloc.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "lod_error.h"
#include "../skin/skin_cpu.h"

/* One vertex of a level: its bind position and influences (the streams the skinning reads). */
typedef struct fold_vertex {
    float x[3];
    uint32_t count;
    uint16_t joints[VKS_WIDE_INFLUENCES];
    float weights[VKS_WIDE_INFLUENCES];
} fold_vertex;

/* The level's vertices as the skinning reads them (lod_source's level-0 vertices). */
static void gather(const vks_model *m, uint32_t level, fold_vertex *out)
{
    const vks_level lv = vks_model_level(m, level);
    for (uint32_t i = 0; i < lv.vertex_count; i++) {
        const uint32_t s = m->lod_source[lv.vertex_first + i];
        fold_vertex *v = &out[i];
        memcpy(v->x, m->positions[s], sizeof v->x);
        v->count = 0;
        for (uint32_t k = 0; k < VKS_MAX_INFLUENCES; k++) {
            v->joints[v->count] = m->joints[s][k];
            v->weights[v->count] = m->weights[s][k];
            v->count++;
        }
        for (uint32_t k = 0; m->joints_extra && k < VKS_MAX_INFLUENCES; k++) {
            v->joints[v->count] = m->joints_extra[s][k];
            v->weights[v->count] = m->weights_extra[s][k];
            v->count++;
        }
    }
}

/* Vertex v skinned with `palette`, each influence's joint through `fold` (NULL: as it is), one
 * joint `moved` read as `to` on top of it (UINT32_MAX: none), in double. */
static void skin(const fold_vertex *v, const vks_bone *palette, const uint16_t *fold,
                 uint32_t moved, uint32_t to, double out[3])
{
    out[0] = out[1] = out[2] = 0.0;
    for (uint32_t k = 0; k < v->count; k++) {
        if (v->weights[k] == 0.0f)
            continue;
        uint32_t j = fold ? fold[v->joints[k]] : v->joints[k];
        j = j == moved ? to : j;
        const vks_bone *b = &palette[j];
        for (int r = 0; r < 3; r++)
            out[r] +=
                v->weights[k] * ((double)b->row[r][0] * v->x[0] + (double)b->row[r][1] * v->x[1] +
                                 (double)b->row[r][2] * v->x[2] + b->row[r][3]);
    }
}

/* What the folding works on: every level's vertices past 0, one after the other (level l's from
 * first[l]), with their full skinning in each pose, the poses' palettes, and the folds made so
 * far (level l's J entries from fold + l * J). */
typedef struct fold_work {
    const vks_model *m;
    uint32_t J, levels, poses, most; /* most: the vertices of all levels */
    uint32_t first[VKS_MAX_LEVELS + 1];
    vks_bone *palettes; /* J a pose */
    fold_vertex *verts;
    double (*full)[3]; /* most a pose */
    uint16_t *fold;
    uint8_t *kept;             /* by the level being folded (and the ones before) */
    uint32_t *children, *last; /* kept children; the last level that keeps a joint */
} fold_work;

static void fold_work_free(fold_work *w)
{
    vks_free(w->palettes);
    vks_free(w->fold);
    vks_free(w->kept);
    vks_free(w->children);
    vks_free(w->last);
    vks_free(w->verts);
    vks_free(w->full);
}

/* The poses and their palettes, the levels' vertices skinned in full in each, and level 0's
 * fold (every joint kept). False when out of memory. */
static bool fold_begin(const vks_model *m, fold_work *w)
{
    const vks_skeleton *sk = &m->skeleton;
    const uint32_t J = sk->joint_count, levels = m->level_count;
    int32_t clips[VKS_LOD_ERROR_POSES + 1];
    double seconds[VKS_LOD_ERROR_POSES + 1];
    *w = (fold_work){.m = m, .J = J, .levels = levels};
    const uint32_t poses = w->poses = vks_lod_error_poses(m, clips, seconds);
    /* A fold made at level l is measured on the vertices of l and of every coarser level, which
     * inherit it. */
    w->first[1] = 0;
    for (uint32_t l = 1; l < levels; l++)
        w->first[l + 1] = w->first[l] + m->levels[l].vertex_count;
    const uint32_t most = w->most = w->first[levels];
    w->palettes = vks_malloc(sizeof *w->palettes * J * poses);
    vks_xform *local = vks_malloc(sizeof *local * J);
    vks_affine *world = vks_malloc(sizeof *world * J);
    w->fold = vks_malloc(sizeof *w->fold * J * levels);
    w->kept = vks_malloc(J);
    w->children = vks_calloc(J, sizeof *w->children);
    w->last = vks_calloc(J, sizeof *w->last);
    w->verts = vks_malloc(sizeof *w->verts * (most ? most : 1));
    w->full = vks_malloc(sizeof *w->full * (most ? most : 1) * poses);
    const bool ok = w->palettes && local && world && w->fold && w->kept && w->children && w->last &&
                    w->verts && w->full;
    for (uint32_t p = 0; ok && p < poses; p++)
        vks_skin_cpu_palette(m, clips[p], seconds[p], local, world, w->palettes + (size_t)p * J);
    vks_free(local);
    vks_free(world);
    if (!ok)
        return false;
    memset(w->kept, 1, J);
    for (uint32_t j = 0; j < J; j++) {
        w->fold[j] = (uint16_t)j; /* level 0 keeps every joint */
        if (sk->parents[j] >= 0)
            w->children[sk->parents[j]]++;
    }
    for (uint32_t l = 1; l < levels; l++) {
        gather(m, l, w->verts + w->first[l]);
        for (uint32_t p = 0; p < poses; p++)
            for (uint32_t v = w->first[l]; v < w->first[l + 1]; v++)
                skin(&w->verts[v], w->palettes + (size_t)p * J, NULL, UINT32_MAX, 0,
                     w->full[(size_t)p * most + v]);
    }
    return true;
}

/* Whether folding joint j into its parent on top of fold f keeps every vertex of level l and of
 * every coarser level, in every pose, within its own level's share of error. */
static bool fold_within(const fold_work *w, const uint16_t *f, uint32_t l, uint32_t j,
                        uint32_t parent)
{
    const uint32_t J = w->J;
    bool within = true;
    for (uint32_t at = l; at < w->levels && within; at++) {
        const double budget = VKS_SKELETON_LOD_SHARE * w->m->levels[at].error;
        for (uint32_t v = w->first[at]; v < w->first[at + 1] && within; v++) {
            const fold_vertex *fv = &w->verts[v];
            bool touched = false;
            for (uint32_t k = 0; k < fv->count && !touched; k++)
                touched = fv->weights[k] != 0.0f && f[fv->joints[k]] == j;
            for (uint32_t p = 0; touched && p < w->poses && within; p++) {
                double x[3];
                skin(fv, w->palettes + (size_t)p * J, f, j, parent, x);
                const double *y = w->full[(size_t)p * w->most + v];
                within = (x[0] - y[0]) * (x[0] - y[0]) + (x[1] - y[1]) * (x[1] - y[1]) +
                             (x[2] - y[2]) * (x[2] - y[2]) <=
                         budget * budget;
            }
        }
    }
    return within;
}

/* Level l's fold: level l - 1's, then leaf joints folded into their parents while the error
 * allows, until none can be; the level's joint count, and the last level of each kept joint.
 * Whether it folded any. */
static bool fold_level(vks_model *m, fold_work *w, uint32_t l)
{
    const vks_skeleton *sk = &m->skeleton;
    const uint32_t J = w->J;
    uint16_t *f = w->fold + (size_t)l * J;
    memcpy(f, w->fold + (size_t)(l - 1) * J, sizeof *f * J);
    bool folded = false;
    for (bool changed = true; changed;) {
        changed = false;
        for (uint32_t j = J; j-- > 0;) {
            const int32_t parent = sk->parents[j];
            if (!w->kept[j] || w->children[j] || parent < 0)
                continue;
            /* Fold j into its parent (kept: what is kept is closed under parents), measured on
             * this level's vertices and every coarser level's, each against its own level's
             * share of error. */
            if (!fold_within(w, f, l, j, (uint32_t)parent))
                continue;
            w->kept[j] = 0;
            w->children[parent]--;
            for (uint32_t x = 0; x < J; x++)
                if (f[x] == j)
                    f[x] = (uint16_t)parent;
            changed = folded = true;
        }
    }
    uint32_t count = 0;
    for (uint32_t j = 0; j < J; j++) {
        count += w->kept[j];
        if (w->kept[j])
            w->last[j] = l;
    }
    m->levels[l].joint_count = count;
    return folded;
}

/* The folds into the model, with the pose order: the joints by the last level that keeps them,
 * coarsest first, then by index (a joint's parent is kept wherever it is, so it comes first).
 * False when out of memory. */
static bool keep_folds(vks_model *m, fold_work *w)
{
    if (!(m->pose_order = vks_malloc(sizeof *m->pose_order * w->J)))
        return false;
    uint32_t at = 0;
    for (uint32_t l = w->levels; l-- > 0;)
        for (uint32_t j = 0; j < w->J; j++)
            if (w->last[j] == l)
                m->pose_order[at++] = j;
    m->joint_fold = w->fold;
    w->fold = NULL;
    return true;
}

bool vks_model_fold_skeleton(vks_model *m, vks_error *err)
{
    const vks_skeleton *sk = &m->skeleton;
    const uint32_t J = sk->joint_count, levels = m->level_count;
    for (uint32_t l = 0; l < levels; l++)
        m->levels[l].joint_count = J;
    vks_free(m->joint_fold);
    vks_free(m->pose_order);
    m->joint_fold = NULL;
    m->pose_order = NULL;
    if (levels <= 1 || J <= 1)
        return true;

    fold_work w;
    bool ok = fold_begin(m, &w);
    bool folded_any = false;
    for (uint32_t l = 1; ok && l < levels; l++)
        if (fold_level(m, &w, l))
            folded_any = true;
    if (ok && folded_any)
        ok = keep_folds(m, &w);
    if (!folded_any)
        for (uint32_t l = 0; l < levels; l++)
            m->levels[l].joint_count = J;
    fold_work_free(&w);
    if (!ok) {
        vks_free(m->pose_order);
        m->pose_order = NULL;
        return vks_fail_memory(err, "out of memory for the skeleton's levels of detail");
    }
    return true;
}
