/* Level-of-detail chains (src/asset/lod.h) on every model given: each file is imported, its
 * chains built, and the result checked against expectations computed here. The levels' triangle
 * counts fall strictly and add up over the meshes; every index stays inside its mesh level's
 * vertices, every level's vertex range is compact, self-contained and copies vertices of the
 * right mesh; levels >= 1 have no degenerate triangle; each mesh's chain follows the rules of
 * lod.h (about half per level, at least a quarter off, ending below the floor); errors are
 * finite and non-decreasing, 0 at level 0, which stays the imported model bit for bit; building
 * again does nothing. The recorded error is compared with the real deviation: the largest
 * distance from a level-0 vertex to the level's triangles, by brute force in double.
 *   usage: test_lod MODEL... [--folder DIR]...  (a file that does not import is a failure; no
 *          model at all is a skip) */
#include "check.h"

#include "asset/import.h"
#include "asset/lod.h"
#include "asset/merge.h"

#include <float.h>
#include <time.h>

/* meshoptimizer 0.18's error is a quadric error: the square root of an area-weighted mean of
 * squared distances to the planes of the triangles merged into a vertex. A mean can only
 * under-estimate a largest distance, so no fixed factor bounds the true deviation; measured here
 * (deviation / recorded error per mesh level, on the models of tests/CMakeLists.txt) it lies
 * within 0.35 to 2 wherever the deviation is over a thousandth of the mesh's size, and reaches 4
 * only below that (CesiumMan's first level: 0.0012 against 0.0003, on a mesh 1.9 across). So
 * the bounds hold to a factor where it matters and allow a thousandth of the size anywhere: that
 * is under a pixel for a model up to a thousand pixels tall, where the choice of level does not
 * show. Within them the error can drive a screen-space choice: a level is neither taken much too
 * early (error far above the deviation) nor much too late (far below). */
#define ERROR_OVER 2.5  /* deviation <= ERROR_OVER x error + SIZE_SLACK x size */
#define ERROR_UNDER 5.0 /* error <= ERROR_UNDER x deviation + SIZE_SLACK x size */
#define SIZE_SLACK 1e-3 /* of the mesh's bounding-box diagonal */
/* Point-to-triangle pairs one mesh level may cost the brute-force check (each a box test, few an
 * exact distance): keeps the whole test within a few seconds on two shared cores. */
#define BRUTE_BUDGET 4e7

/* The characters known to simplify freely reach at least three levels. Other meshes may stop
 * early where meshoptimizer preserves topology: the long_chain fixture is a strip of alternating
 * winding (no edge pairs up, nothing collapses) and RiggedFigure, split at most positions (322
 * vertices at 130 positions: hard edges, each a seam), stops at 174 of 256 triangles. */
static const char *const free_simplifiers[] = {"default.glb", "CesiumMan.glb", "Fox.glb"};

static size_t visited;
/* deviation / recorded error over every measured mesh level: the range, and the range where the
 * deviation is over SIZE_SLACK of the size */
static double ratio_lo = INFINITY, ratio_hi, visible_lo = INFINITY, visible_hi;
static uint32_t brute_done, brute_skipped;

/* One mesh at one level: its indices, the vertex count its range has (derived from the next
 * mesh's base_vertex), and the model-wide level-0 vertex of each of its vertices. */
typedef struct view {
    const uint32_t *indices;
    uint32_t index_count, vertex_count;
    uint32_t level, base; /* base: the level-0 vertex of index 0 at level 0, else lod_source */
    const vks_model *m;
} view;

static uint32_t view_source(const view *v, uint32_t index)
{
    return v->level == 0 ? v->base + index : v->m->lod_source[v->base + index];
}

static view view_of(const vks_model *m, uint32_t level, uint32_t mesh)
{
    const vks_mesh_level *ml = &m->mesh_levels[(size_t)level * m->mesh_count];
    const vks_level *l = &m->levels[level];
    uint32_t end = mesh + 1 < m->mesh_count ? ml[mesh + 1].base_vertex : l->vertex_count;
    return (view){
        .indices = (level ? m->lod_indices : m->indices) + ml[mesh].first_index,
        .index_count = ml[mesh].index_count,
        .vertex_count = end >= ml[mesh].base_vertex ? end - ml[mesh].base_vertex : 0,
        .level = level,
        .base = (level ? l->vertex_first : 0) + ml[mesh].base_vertex,
        .m = m,
    };
}

static double now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e3 + t.tv_nsec * 1e-6;
}

/* Squared distance from p to triangle abc (Ericson, Real-Time Collision Detection 5.1.5). */
static double dist2_point_triangle(const double p[3], const double a[3], const double b[3],
                                   const double c[3])
{
    double ab[3], ac[3], ap[3], q[3];
    for (int k = 0; k < 3; k++) {
        ab[k] = b[k] - a[k];
        ac[k] = c[k] - a[k];
        ap[k] = p[k] - a[k];
    }
#define DOT(x, y) ((x)[0] * (y)[0] + (x)[1] * (y)[1] + (x)[2] * (y)[2])
    double d1 = DOT(ab, ap), d2 = DOT(ac, ap);
    double bp[3] = {p[0] - b[0], p[1] - b[1], p[2] - b[2]};
    double cp[3] = {p[0] - c[0], p[1] - c[1], p[2] - c[2]};
    double d3 = DOT(ab, bp), d4 = DOT(ac, bp), d5 = DOT(ab, cp), d6 = DOT(ac, cp);
    double va = d3 * d6 - d5 * d4, vb = d5 * d2 - d1 * d6, vc = d1 * d4 - d3 * d2;
#undef DOT
    if (d1 <= 0 && d2 <= 0)
        memcpy(q, a, sizeof q);
    else if (d3 >= 0 && d4 <= d3)
        memcpy(q, b, sizeof q);
    else if (vc <= 0 && d1 >= 0 && d3 <= 0) {
        double v = d1 / (d1 - d3);
        for (int k = 0; k < 3; k++)
            q[k] = a[k] + v * ab[k];
    } else if (d6 >= 0 && d5 <= d6)
        memcpy(q, c, sizeof q);
    else if (vb <= 0 && d2 >= 0 && d6 <= 0) {
        double w = d2 / (d2 - d6);
        for (int k = 0; k < 3; k++)
            q[k] = a[k] + w * ac[k];
    } else if (va <= 0 && (d4 - d3) >= 0 && (d5 - d6) >= 0) {
        double w = (d4 - d3) / ((d4 - d3) + (d5 - d6));
        for (int k = 0; k < 3; k++)
            q[k] = b[k] + w * (c[k] - b[k]);
    } else {
        double denom = 1.0 / (va + vb + vc), v = vb * denom, w = vc * denom;
        for (int k = 0; k < 3; k++)
            q[k] = a[k] + ab[k] * v + ac[k] * w;
    }
    double d = 0.0;
    for (int k = 0; k < 3; k++)
        d += (p[k] - q[k]) * (p[k] - q[k]);
    return d;
}

static void position_of(const vks_model *m, uint32_t v, double out[3])
{
    for (int k = 0; k < 3; k++)
        out[k] = m->positions[v][k];
}

/* The largest distance from a vertex the level-0 triangles use to the triangles of `lv`; the
 * level-0 mesh's bounding-box diagonal in *extent. Negative when over the budget. */
static double deviation(const view *v0, const view *lv, double *extent)
{
    const vks_model *m = v0->m;
    const uint32_t tris = lv->index_count / 3;
    uint8_t *used = calloc(v0->vertex_count ? v0->vertex_count : 1, 1);
    double(*tri)[3][3] = malloc(sizeof *tri * (tris ? tris : 1));
    double(*box)[2][3] = malloc(sizeof *box * (tris ? tris : 1));
    if (!used || !tri || !box) {
        CHECK(!"out of memory");
        free(used), free(tri), free(box);
        return 0.0;
    }
    double lo[3] = {DBL_MAX, DBL_MAX, DBL_MAX}, hi[3] = {-DBL_MAX, -DBL_MAX, -DBL_MAX};
    uint32_t points = 0;
    for (uint32_t i = 0; i < v0->index_count; i++) {
        uint32_t x = v0->indices[i];
        points += !used[x];
        used[x] = 1;
        double p[3];
        position_of(m, view_source(v0, x), p);
        for (int k = 0; k < 3; k++)
            lo[k] = fmin(lo[k], p[k]), hi[k] = fmax(hi[k], p[k]);
    }
    *extent = sqrt((hi[0] - lo[0]) * (hi[0] - lo[0]) + (hi[1] - lo[1]) * (hi[1] - lo[1]) +
                   (hi[2] - lo[2]) * (hi[2] - lo[2]));
    double worst = -1.0;
    if ((double)points * tris <= BRUTE_BUDGET) {
        for (uint32_t t = 0; t < tris; t++)
            for (int c = 0; c < 3; c++) {
                position_of(m, view_source(lv, lv->indices[t * 3 + c]), tri[t][c]);
                for (int k = 0; k < 3; k++) {
                    box[t][0][k] = c ? fmin(box[t][0][k], tri[t][c][k]) : tri[t][c][k];
                    box[t][1][k] = c ? fmax(box[t][1][k], tri[t][c][k]) : tri[t][c][k];
                }
            }
        worst = 0.0;
        uint32_t hint = 0; /* the last closest triangle: neighbours are near each other */
        for (uint32_t x = 0; x < v0->vertex_count; x++) {
            if (!used[x])
                continue;
            double p[3];
            position_of(m, view_source(v0, x), p);
            double best =
                tris ? dist2_point_triangle(p, tri[hint][0], tri[hint][1], tri[hint][2]) : INFINITY;
            for (uint32_t t = 0; t < tris && best > 0.0; t++) {
                double b = 0.0; /* squared distance to the triangle's box: a lower bound */
                for (int k = 0; k < 3; k++) {
                    double d = fmax(box[t][0][k] - p[k], fmax(p[k] - box[t][1][k], 0.0));
                    b += d * d;
                }
                if (b >= best)
                    continue;
                double d = dist2_point_triangle(p, tri[t][0], tri[t][1], tri[t][2]);
                if (d < best)
                    best = d, hint = t;
            }
            worst = fmax(worst, sqrt(best));
        }
    }
    free(used), free(tri), free(box);
    return worst;
}

/* Triangles as (smallest first, winding kept) level-0 vertex triples, sorted: a level's triangle
 * set, whatever order and vertex numbering it uses. */
static int cmp_u32_triple(const void *a, const void *b)
{
    const uint32_t *x = a, *y = b;
    for (int k = 0; k < 3; k++)
        if (x[k] != y[k])
            return x[k] < y[k] ? -1 : 1;
    return 0;
}

static uint32_t (*triangle_set(const view *v))[3]
{
    const uint32_t tris = v->index_count / 3;
    uint32_t(*t)[3] = malloc(sizeof *t * (tris ? tris : 1));
    if (!t)
        return NULL;
    for (uint32_t i = 0; i < tris; i++) {
        uint32_t s[3];
        for (int c = 0; c < 3; c++)
            s[c] = view_source(v, v->indices[i * 3 + c]);
        int r = s[0] <= s[1] && s[0] <= s[2] ? 0 : s[1] <= s[2] ? 1 : 2;
        for (int c = 0; c < 3; c++)
            t[i][c] = s[(r + c) % 3];
    }
    qsort(t, tris, sizeof *t, cmp_u32_triple);
    return t;
}

/* Structure: counts, ranges, compactness, sources, degenerates, the chain rules, errors. */
static void check_levels(const char *path, const vks_model *m, const uint32_t *indices0,
                         const float (*pos0)[3])
{
    const uint32_t mc = m->mesh_count, lc = m->level_count;
    CHECK(lc >= 1 && lc <= VKS_MAX_LEVELS);
    if (lc < 1 || lc > VKS_MAX_LEVELS)
        return;
    /* Over twice the floor, a chain halves at least twice before it ends, where nothing stops
     * the simplifier; elsewhere its length is reported. */
    const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
    bool known = false;
    for (size_t k = 0; k < sizeof free_simplifiers / sizeof *free_simplifiers; k++)
        known |= strcmp(base, free_simplifiers[k]) == 0;
    if (known)
        CHECK(m->index_count / 3 > VKS_LOD_FLOOR_TRIANGLES * 2 && lc >= 3);
    else if (m->index_count / 3 > VKS_LOD_FLOOR_TRIANGLES * 2 && lc < 3)
        printf("  %s: %u triangles, %u level%s only: the simplifier stopped early (topology)\n",
               path, m->index_count / 3, lc, lc > 1 ? "s" : "");

    /* Level 0 is the model as imported. */
    CHECK(m->levels[0].vertex_first == 0 && m->levels[0].vertex_count == m->vertex_count &&
          m->levels[0].triangle_count == m->index_count / 3 && m->levels[0].error == 0.0f);
    CHECK(memcmp(indices0, m->indices, sizeof *indices0 * m->index_count) == 0);
    CHECK(memcmp(pos0, m->positions, sizeof *pos0 * m->vertex_count) == 0);
    for (uint32_t i = 0; i < mc; i++) {
        const vks_mesh *me = &m->meshes[i];
        const vks_mesh_level *ml = &m->mesh_levels[i];
        CHECK(ml->first_index == me->first_index && ml->index_count == me->index_count &&
              ml->base_vertex == me->base_vertex && ml->error == 0.0f);
    }

    uint32_t bad_range = 0, bad_source = 0, degenerate = 0, collapsed = 0, thin = 0, unused = 0;
    uint32_t bad_rule = 0, bad_error = 0, bad_set = 0;
    for (uint32_t l = 0; l < lc; l++) {
        const vks_level *lv = &m->levels[l];
        const vks_mesh_level *ml = &m->mesh_levels[(size_t)l * mc];
        uint32_t tris = 0;
        float worst_mesh = 0.0f;
        for (uint32_t i = 0; i < mc; i++) {
            tris += ml[i].index_count / 3;
            worst_mesh = fmaxf(worst_mesh, ml[i].error);
            bad_range += i ? ml[i].base_vertex < ml[i - 1].base_vertex : ml[i].base_vertex != 0;
            bad_error += !isfinite(ml[i].error) || ml[i].error < 0.0f;
        }
        CHECK(tris == lv->triangle_count);
        CHECK(bad_range == 0 && (!mc || ml[mc - 1].base_vertex <= lv->vertex_count));
        if (bad_range)
            return; /* the vertex counts below would not mean anything */
        CHECK(isfinite(lv->error) && lv->error >= 0.0f);
        if (l == 0) {
            for (uint32_t i = 0; i < mc; i++) {
                const view v = view_of(m, 0, i);
                CHECK((uint64_t)ml[i].first_index + ml[i].index_count <= m->index_count);
                for (uint32_t k = 0; k < v.index_count; k++)
                    bad_range += v.indices[k] >= v.vertex_count;
            }
            continue;
        }
        const vks_level *prev = &m->levels[l - 1];
        CHECK(lv->triangle_count < prev->triangle_count);
        /* The model's error is its worst mesh's, kept non-decreasing. */
        CHECK(lv->error == fmaxf(prev->error, worst_mesh));
        CHECK((uint64_t)lv->vertex_first + lv->vertex_count <= m->lod_vertex_count);
        if (l >= 2)
            CHECK(lv->vertex_first >= prev->vertex_first + prev->vertex_count);

        uint8_t *seen = calloc(lv->vertex_count ? lv->vertex_count : 1, 1);
        if (!seen) {
            CHECK(!"out of memory");
            return;
        }
        for (uint32_t i = 0; i < mc; i++) {
            const vks_mesh *me = &m->meshes[i];
            const view v = view_of(m, l, i), up = view_of(m, l - 1, i), v0 = view_of(m, 0, i);
            CHECK((uint64_t)ml[i].first_index + ml[i].index_count <= m->lod_index_count);
            for (uint32_t k = 0; k < v.vertex_count; k++) {
                uint32_t s = view_source(&v, k);
                bad_source += s >= m->vertex_count || s < me->base_vertex ||
                              s >= me->base_vertex + me->vertex_count;
            }
            if (bad_source)
                break;
            for (uint32_t t = 0; t + 2 < v.index_count; t += 3) {
                const uint32_t *x = &v.indices[t];
                if (x[0] >= v.vertex_count || x[1] >= v.vertex_count || x[2] >= v.vertex_count) {
                    bad_range++;
                    continue;
                }
                for (int c = 0; c < 3; c++)
                    seen[ml[i].base_vertex + x[c]] = 1;
                degenerate += x[0] == x[1] || x[1] == x[2] || x[0] == x[2];
                const float *a = m->positions[view_source(&v, x[0])];
                const float *b = m->positions[view_source(&v, x[1])];
                const float *c = m->positions[view_source(&v, x[2])];
                const size_t n = sizeof(float[3]);
                bool ab = !memcmp(a, b, n), bc = !memcmp(b, c, n), ca = !memcmp(c, a, n);
                collapsed += ab && bc;
                thin += (ab || bc || ca) && !(ab && bc);
            }
            /* The chain rules, seen from outside: a mesh's level is about half the one above
             * (at least a quarter off, and not past a quarter left: the target was half), made
             * only from a level at or over the floor; or the mesh's chain has ended and it
             * repeats its last level from then on. */
            const uint32_t t1 = v.index_count / 3, t0 = up.index_count / 3;
            bool ended = t1 == t0;
            bool step = t1 > 0 && (uint64_t)t1 * 4 <= (uint64_t)t0 * 3 && t1 * 4 >= t0 &&
                        t0 >= VKS_LOD_FLOOR_TRIANGLES;
            bad_rule += !(ended || step);
            if (l >= 2 && !ended && view_of(m, l - 2, i).index_count == up.index_count)
                bad_rule++; /* a chain that ended started again */
            bad_error += ml[i].error < m->mesh_levels[(size_t)(l - 1) * mc + i].error;
            bad_error += ended && ml[i].error != m->mesh_levels[(size_t)(l - 1) * mc + i].error;
            /* A mesh with no level of its own repeats level 0's triangles. */
            if (t1 == v0.index_count / 3) {
                uint32_t(*a)[3] = triangle_set(&v0), (*b)[3] = triangle_set(&v);
                bad_set += !a || !b || memcmp(a, b, sizeof(uint32_t[3]) * t1) != 0;
                free(a), free(b);
            }
        }
        for (uint32_t k = 0; k < lv->vertex_count; k++)
            unused += !seen[k];
        free(seen);
    }
    CHECK(bad_range == 0);
    CHECK(bad_source == 0);
    CHECK(degenerate == 0);
    CHECK(collapsed == 0);
    CHECK(unused == 0);
    CHECK(bad_rule == 0);
    CHECK(bad_error == 0);
    CHECK(bad_set == 0);
    if (bad_range || bad_source || degenerate || collapsed || unused || bad_rule || bad_error ||
        bad_set)
        fprintf(stderr,
                "  %s: %u indices out of range, %u bad sources, %u degenerate and %u collapsed "
                "triangles, %u unused vertices, %u chain rule and %u error violations, %u "
                "changed triangle sets\n",
                m->name, bad_range, bad_source, degenerate, collapsed, unused, bad_rule, bad_error,
                bad_set);
    if (thin)
        printf("  %s: %u triangles at levels >= 1 with two corners at one position (seams)\n",
               m->name, thin);
}

/* The recorded error against the real deviation of each mesh level with a level of its own. */
static void check_errors(const vks_model *m)
{
    double lo = INFINITY, hi = 0.0, vlo = INFINITY, vhi = 0.0;
    for (uint32_t i = 0; i < m->mesh_count; i++) {
        const view v0 = view_of(m, 0, i);
        for (uint32_t l = 1; l < m->level_count; l++) {
            const view v = view_of(m, l, i), up = view_of(m, l - 1, i);
            const double error = m->mesh_levels[(size_t)l * m->mesh_count + i].error;
            /* Repeats (its chain ended) and meshes with only level 0 (copies: no deviation). */
            if ((l > 1 && v.index_count == up.index_count) || v.index_count == v0.index_count)
                continue;
            double size = 0.0, d = deviation(&v0, &v, &size);
            if (d < 0.0) {
                brute_skipped++;
                printf("  %s mesh %u level %u: %u triangles against %u vertices, over the "
                       "brute-force budget: deviation not measured\n",
                       m->name, i, l, v.index_count / 3, v0.vertex_count);
                continue;
            }
            brute_done++;
            const double slack = SIZE_SLACK * size;
            const double ratio = error > 0.0 ? d / error : d > 0.0 ? INFINITY : NAN;
            if (ratio == ratio) { /* an error of 0 that is exact has no ratio */
                lo = fmin(lo, ratio);
                hi = fmax(hi, ratio);
                if (d > slack)
                    vlo = fmin(vlo, ratio), vhi = fmax(vhi, ratio);
            }
            bool ok = d <= ERROR_OVER * error + slack && error <= ERROR_UNDER * d + slack;
            CHECK(ok);
            if (!ok)
                fprintf(stderr,
                        "  %s mesh %u level %u: deviation %.6g, recorded error %.6g (ratio "
                        "%.3g), size %.6g\n",
                        m->name, i, l, d, error, ratio, size);
        }
    }
    if (lo <= hi && vlo <= vhi)
        printf("  %s: deviation / recorded error %.3f to %.3f; %.3f to %.3f where the deviation "
               "is over %g of the size\n",
               m->name, lo, hi, vlo, vhi, SIZE_SLACK);
    else if (lo <= hi)
        printf("  %s: deviation / recorded error %.3f to %.3f; no deviation over %g of the "
               "size\n",
               m->name, lo, hi, SIZE_SLACK);
    ratio_lo = fmin(ratio_lo, lo);
    ratio_hi = fmax(ratio_hi, hi);
    visible_lo = fmin(visible_lo, vlo);
    visible_hi = fmax(visible_hi, vhi);
}

static void visit(const char *path)
{
    vks_model m;
    vks_error err;
    if (!vks_model_import(&(vks_import_desc){.path = path}, &m, &err)) {
        fprintf(stderr, "%s: %s\n", path, err.msg);
        CHECK(!"import failed");
        return;
    }
    visited++;
    /* As vks_model_load prepares it: the meshes of a material merged (merge.h). */
    CHECK(vks_model_merge_meshes(&m, &err));
    uint32_t *indices0 = malloc(sizeof *indices0 * (m.index_count ? m.index_count : 1));
    float(*pos0)[3] = malloc(sizeof *pos0 * (m.vertex_count ? m.vertex_count : 1));
    if (!indices0 || !pos0) {
        CHECK(!"out of memory");
        free(indices0), free(pos0);
        vks_model_destroy(&m);
        return;
    }
    memcpy(indices0, m.indices, sizeof *indices0 * m.index_count);
    memcpy(pos0, m.positions, sizeof *pos0 * m.vertex_count);

    double t0 = now_ms();
    bool ok = vks_model_build_lods(&m, &err);
    double ms = now_ms() - t0;
    CHECK(ok);
    if (!ok) {
        fprintf(stderr, "%s: %s\n", path, err.msg);
    } else {
        printf("%s: %u meshes, levels built in %.2f ms (triangles/vertices/error):", path,
               m.mesh_count, ms);
        for (uint32_t l = 0; l < m.level_count; l++)
            printf(" %u/%u/%.3g", m.levels[l].triangle_count, m.levels[l].vertex_count,
                   (double)m.levels[l].error);
        printf("\n");
        check_levels(path, &m, indices0, (const float(*)[3])pos0);
        check_errors(&m);
        /* Building again finds the levels there and changes nothing. */
        const vks_mesh_level *ml = m.mesh_levels;
        const uint32_t *src = m.lod_source, *idx = m.lod_indices;
        const uint32_t lc = m.level_count;
        CHECK(vks_model_build_lods(&m, &err) && m.mesh_levels == ml && m.lod_source == src &&
              m.lod_indices == idx && m.level_count == lc);
    }
    free(indices0), free(pos0);
    vks_model_destroy(&m);
}

int main(int argc, char **argv)
{
    int rc = check_each_model_arg(argc, argv, visit, &visited);
    if (rc)
        return rc;
    printf("%zu models: deviation / recorded error %.3f to %.3f over %u mesh levels; %.3f to %.3f "
           "where the deviation is over %g of the size (%u mesh levels over the brute-force "
           "budget, not measured)\n",
           visited, ratio_lo, ratio_hi, brute_done, visible_lo, visible_hi, SIZE_SLACK,
           brute_skipped);
    return check_report("test_lod");
}
