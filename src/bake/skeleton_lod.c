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

    int32_t clips[VKS_LOD_ERROR_POSES + 1];
    double seconds[VKS_LOD_ERROR_POSES + 1];
    const uint32_t poses = vks_lod_error_poses(m, clips, seconds);
    /* Every level's vertices past 0, one after the other (level l's from first[l]), with their
     * full skinning in each pose: a fold made at level l is measured on the vertices of l and
     * of every coarser level, which inherit it. */
    uint32_t first[VKS_MAX_LEVELS + 1] = {0};
    first[1] = 0;
    for (uint32_t l = 1; l < levels; l++)
        first[l + 1] = first[l] + m->levels[l].vertex_count;
    const uint32_t most = first[levels];
    vks_bone *palettes = vks_malloc(sizeof *palettes * J * poses);
    vks_xform *local = vks_malloc(sizeof *local * J);
    vks_affine *world = vks_malloc(sizeof *world * J);
    uint16_t *fold = vks_malloc(sizeof *fold * J * levels);
    uint8_t *kept = vks_malloc(J);
    uint32_t *children = vks_calloc(J, sizeof *children), *last = vks_calloc(J, sizeof *last);
    fold_vertex *verts = vks_malloc(sizeof *verts * (most ? most : 1));
    double(*full)[3] = vks_malloc(sizeof *full * (most ? most : 1) * poses);
    bool ok = palettes && local && world && fold && kept && children && last && verts && full;
    for (uint32_t p = 0; ok && p < poses; p++)
        vks_skin_cpu_palette(m, clips[p], seconds[p], local, world, palettes + (size_t)p * J);

    bool folded_any = false;
    if (ok) {
        memset(kept, 1, J);
        for (uint32_t j = 0; j < J; j++) {
            fold[j] = (uint16_t)j; /* level 0 keeps every joint */
            if (sk->parents[j] >= 0)
                children[sk->parents[j]]++;
        }
    }
    for (uint32_t l = 1; ok && l < levels; l++) {
        gather(m, l, verts + first[l]);
        for (uint32_t p = 0; p < poses; p++)
            for (uint32_t v = first[l]; v < first[l + 1]; v++)
                skin(&verts[v], palettes + (size_t)p * J, NULL, UINT32_MAX, 0,
                     full[(size_t)p * most + v]);
    }
    for (uint32_t l = 1; ok && l < levels; l++) {
        uint16_t *f = fold + (size_t)l * J;
        memcpy(f, fold + (size_t)(l - 1) * J, sizeof *f * J);
        for (bool changed = true; changed;) {
            changed = false;
            for (uint32_t j = J; j-- > 0;) {
                const int32_t parent = sk->parents[j];
                if (!kept[j] || children[j] || parent < 0)
                    continue;
                /* Fold j into its parent (kept: what is kept is closed under parents), measured
                 * on this level's vertices and every coarser level's, each against its own
                 * level's share of error. */
                bool within = true;
                for (uint32_t at = l; at < levels && within; at++) {
                    const double budget = VKS_SKELETON_LOD_SHARE * m->levels[at].error;
                    for (uint32_t v = first[at]; v < first[at + 1] && within; v++) {
                        bool touched = false;
                        for (uint32_t k = 0; k < verts[v].count && !touched; k++)
                            touched = verts[v].weights[k] != 0.0f && f[verts[v].joints[k]] == j;
                        for (uint32_t p = 0; touched && p < poses && within; p++) {
                            double x[3];
                            skin(&verts[v], palettes + (size_t)p * J, f, j, (uint32_t)parent, x);
                            const double *y = full[(size_t)p * most + v];
                            within = (x[0] - y[0]) * (x[0] - y[0]) + (x[1] - y[1]) * (x[1] - y[1]) +
                                         (x[2] - y[2]) * (x[2] - y[2]) <=
                                     budget * budget;
                        }
                    }
                }
                if (!within)
                    continue;
                kept[j] = 0;
                children[parent]--;
                for (uint32_t x = 0; x < J; x++)
                    if (f[x] == j)
                        f[x] = (uint16_t)parent;
                changed = folded_any = true;
            }
        }
        uint32_t count = 0;
        for (uint32_t j = 0; j < J; j++) {
            count += kept[j];
            if (kept[j])
                last[j] = l;
        }
        m->levels[l].joint_count = count;
    }
    if (ok && folded_any) {
        /* The joints by the last level that keeps them, coarsest first, then by index: a joint's
         * parent is kept wherever it is, so it comes first. */
        if (!(m->pose_order = vks_malloc(sizeof *m->pose_order * J)))
            ok = false;
        uint32_t at = 0;
        for (uint32_t l = levels; ok && l-- > 0;)
            for (uint32_t j = 0; j < J; j++)
                if (last[j] == l)
                    m->pose_order[at++] = j;
        if (ok) {
            m->joint_fold = fold;
            fold = NULL;
        }
    }
    if (!folded_any)
        for (uint32_t l = 0; l < levels; l++)
            m->levels[l].joint_count = J;
    vks_free(palettes);
    vks_free(local);
    vks_free(world);
    vks_free(fold);
    vks_free(kept);
    vks_free(children);
    vks_free(last);
    vks_free(verts);
    vks_free(full);
    if (!ok) {
        vks_free(m->pose_order);
        m->pose_order = NULL;
        return vks_fail_memory(err, "out of memory for the skeleton's levels of detail");
    }
    return true;
}
