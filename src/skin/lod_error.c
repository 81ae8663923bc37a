/* Levels of detail measured over the clips' poses (lod_error.h). */
#include "lod_error.h"

#include "../asset/lod.h"
#include "skin_cpu.h"

#include <assert.h>
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* At most this many samples each way per level: a model of more vertices (or a level of more
 * triangles) is sampled at an even stride, which keeps the load of a very large model within a
 * second or two. */
#define LE_MAX_SAMPLES 65536u
/* A triangle whose box covers more cells than this (a long sliver across the model) is kept
 * out of the cells and searched by every query: so the cells hold at most this many entries a
 * triangle, whatever the file. */
#define LE_BIG_CELLS 64

/* Triangles as model-wide level-0 vertex ids, with a uniform grid over their bind-pose boxes. */
typedef struct le_tris {
    uint32_t count;
    uint32_t (*corners)[3];
    float (*box)[6]; /* each triangle's box at the grid's positions: lo xyz, hi xyz */
    float lo[3], cell;
    int dim[3];
    uint32_t *start, *items;  /* cell c's triangles: items[start[c] .. start[c + 1]) */
    uint32_t *big, big_count; /* triangles over LE_BIG_CELLS cells: in none, searched always */
} le_tris;

static void le_tris_free(le_tris *t)
{
    free(t->corners);
    free(t->box);
    free(t->big);
    free(t->start);
    free(t->items);
    memset(t, 0, sizeof *t);
}

/* Squared distance from p to triangle abc (Ericson, Real-Time Collision Detection, 5.1.5), by
 * the nearest point's barycentric weights. */
static float le_dist2(const float p[3], const float a[3], const float b[3], const float c[3])
{
    float ab[3], ac[3], ap[3], bp[3], cp[3];
    for (int k = 0; k < 3; k++) {
        ab[k] = b[k] - a[k], ac[k] = c[k] - a[k];
        ap[k] = p[k] - a[k], bp[k] = p[k] - b[k], cp[k] = p[k] - c[k];
    }
#define DOT(x, y) ((x)[0] * (y)[0] + (x)[1] * (y)[1] + (x)[2] * (y)[2])
    const float d1 = DOT(ab, ap), d2 = DOT(ac, ap), d3 = DOT(ab, bp), d4 = DOT(ac, bp);
    const float d5 = DOT(ab, cp), d6 = DOT(ac, cp);
#undef DOT
    const float va = d3 * d6 - d5 * d4, vb = d5 * d2 - d1 * d6, vc = d1 * d4 - d3 * d2;
    float w[3];
    if (d1 <= 0 && d2 <= 0) {
        w[0] = 1, w[1] = 0, w[2] = 0;
    } else if (d3 >= 0 && d4 <= d3) {
        w[0] = 0, w[1] = 1, w[2] = 0;
    } else if (vc <= 0 && d1 >= 0 && d3 <= 0) {
        const float v = d1 / (d1 - d3);
        w[0] = 1 - v, w[1] = v, w[2] = 0;
    } else if (d6 >= 0 && d5 <= d6) {
        w[0] = 0, w[1] = 0, w[2] = 1;
    } else if (vb <= 0 && d2 >= 0 && d6 <= 0) {
        const float v = d2 / (d2 - d6);
        w[0] = 1 - v, w[1] = 0, w[2] = v;
    } else if (va <= 0 && d4 - d3 >= 0 && d5 - d6 >= 0) {
        const float v = (d4 - d3) / ((d4 - d3) + (d5 - d6));
        w[0] = 0, w[1] = 1 - v, w[2] = v;
    } else {
        const float sum = va + vb + vc;
        const float v = sum != 0.0f ? vb / sum : 0.0f, u = sum != 0.0f ? vc / sum : 0.0f;
        w[0] = 1 - v - u, w[1] = v, w[2] = u;
    }
    float d = 0.0f;
    for (int k = 0; k < 3; k++) {
        const float q = w[0] * a[k] + w[1] * b[k] + w[2] * c[k];
        d += (p[k] - q) * (p[k] - q);
    }
    return d;
}

/* Level `level`'s triangles, model-wide. */
static bool le_tris_of(const vks_model *m, uint32_t level, le_tris *t)
{
    *t = (le_tris){0};
    const vks_level lv = vks_model_level(m, level);
    t->corners = malloc(sizeof *t->corners * (lv.triangle_count ? lv.triangle_count : 1));
    if (!t->corners)
        return false;
    for (uint32_t i = 0; i < m->mesh_count; i++) {
        const vks_mesh_level ml = vks_model_mesh_level(m, level, i);
        const uint32_t *idx = (level ? m->lod_indices : m->indices) + ml.first_index;
        for (uint32_t k = 0; k + 2 < ml.index_count; k += 3) {
            assert(t->count < lv.triangle_count);
            for (int c = 0; c < 3; c++) {
                const uint32_t local = ml.base_vertex + idx[k + c];
                t->corners[t->count][c] = level ? m->lod_source[lv.vertex_first + local] : local;
            }
            t->count++;
        }
    }
    return true;
}

static int le_cell_axis(const le_tris *t, int axis, float x)
{
    const float c = floorf((x - t->lo[axis]) / t->cell); /* clamped before it becomes an int */
    return !(c > 0.0f) ? 0 : c >= (float)(t->dim[axis] - 1) ? t->dim[axis] - 1 : (int)c;
}

/* The grid over t's triangles at positions pos (again each pose). */
static bool le_grid(le_tris *t, const float (*pos)[3])
{
    float lo[3] = {FLT_MAX, FLT_MAX, FLT_MAX}, hi[3] = {-FLT_MAX, -FLT_MAX, -FLT_MAX};
    if (!t->box && !(t->box = malloc(sizeof *t->box * (t->count ? t->count : 1))))
        return false;
    for (uint32_t i = 0; i < t->count; i++) {
        float *b = t->box[i];
        for (int k = 0; k < 3; k++) {
            const float x = pos[t->corners[i][0]][k], y = pos[t->corners[i][1]][k],
                        z = pos[t->corners[i][2]][k];
            b[k] = x < y ? (x < z ? x : z) : (y < z ? y : z);
            b[3 + k] = x > y ? (x > z ? x : z) : (y > z ? y : z);
            lo[k] = b[k] < lo[k] ? b[k] : lo[k];
            hi[k] = b[3 + k] > hi[k] ? b[3 + k] : hi[k];
        }
    }
    if (!t->count)
        lo[0] = lo[1] = lo[2] = hi[0] = hi[1] = hi[2] = 0.0f;
    double diag2 = 0.0;
    for (int k = 0; k < 3; k++)
        diag2 += ((double)hi[k] - lo[k]) * ((double)hi[k] - lo[k]);
    /* About a cell per triangle along a surface: cells of the diagonal over cbrt(8 n). */
    const double diag = sqrt(diag2);
    t->cell = diag > 0.0 ? (float)(diag / cbrt(8.0 * (t->count ? t->count : 1))) : 1.0f;
    size_t cells = 1;
    for (int k = 0; k < 3; k++) {
        t->lo[k] = lo[k];
        const double n = ceil(((double)hi[k] - lo[k]) / t->cell);
        t->dim[k] = n < 1.0 ? 1 : n > 256.0 ? 256 : (int)n;
        cells *= (size_t)t->dim[k];
    }
    /* Cells past 256 on an axis: the last one takes the rest (le_cell_axis clamps). */
    free(t->start);
    free(t->items);
    t->items = NULL;
    t->start = calloc(cells + 1, sizeof *t->start);
    if (!t->big && !(t->big = malloc(sizeof *t->big * (t->count ? t->count : 1))))
        return false;
    if (!t->start)
        return false;
    t->big_count = 0;
    for (int pass = 0; pass < 2; pass++) {
        for (uint32_t i = 0; i < t->count; i++) {
            int a[3], b[3];
            for (int k = 0; k < 3; k++) {
                a[k] = le_cell_axis(t, k, t->box[i][k]);
                b[k] = le_cell_axis(t, k, t->box[i][3 + k]);
            }
            const int64_t covers =
                (int64_t)(b[0] - a[0] + 1) * (b[1] - a[1] + 1) * (b[2] - a[2] + 1);
            if (covers > LE_BIG_CELLS) {
                if (pass == 0)
                    t->big[t->big_count++] = i;
                continue;
            }
            for (int z = a[2]; z <= b[2]; z++)
                for (int y = a[1]; y <= b[1]; y++)
                    for (int x = a[0]; x <= b[0]; x++) {
                        const size_t c = ((size_t)z * t->dim[1] + y) * t->dim[0] + x;
                        if (pass == 0)
                            t->start[c + 1]++;
                        else
                            t->items[t->start[c]++] = i;
                    }
        }
        if (pass == 0) {
            for (size_t c = 0; c < cells; c++)
                t->start[c + 1] += t->start[c];
            t->items = malloc(sizeof *t->items * (t->start[cells] ? t->start[cells] : 1));
            if (!t->items)
                return false;
        } else { /* filling moved each start to its cell's end: back one cell */
            memmove(t->start + 1, t->start, sizeof *t->start * cells);
            t->start[0] = 0;
        }
    }
    return true;
}

static void le_point(const float w[3], const uint32_t v[3], const float (*pos)[3], float out[3])
{
    for (int k = 0; k < 3; k++)
        out[k] = w[0] * pos[v[0]][k] + w[1] * pos[v[1]][k] + w[2] * pos[v[2]][k];
}

/* Calls visit for each of t's triangles (gridded over pos) that may lie within sqrt(*bound2) of
 * p, nearest cells first; visit may lower *bound2 as it goes. */
typedef void le_visit_fn(void *ctx, uint32_t tri, float *bound2);

static bool le_box_near(const float box[6], const float p[3], float bound2)
{
    float box2 = 0.0f; /* to the triangle's box: a lower bound */
    for (int k = 0; k < 3; k++) {
        const float d = p[k] < box[k]       ? box[k] - p[k]
                        : p[k] > box[3 + k] ? p[k] - box[3 + k]
                                            : 0.0f;
        box2 += d * d;
    }
    return box2 <= bound2;
}

static void le_visit(const le_tris *t, const float p[3], float *bound2, le_visit_fn *visit,
                     void *ctx)
{
    for (uint32_t i = 0; i < t->big_count; i++)
        if (le_box_near(t->box[t->big[i]], p, *bound2))
            visit(ctx, t->big[i], bound2);
    int c[3];
    for (int k = 0; k < 3; k++)
        c[k] = le_cell_axis(t, k, p[k]);
    int max_ring = t->dim[0] > t->dim[1] ? t->dim[0] : t->dim[1];
    max_ring = max_ring > t->dim[2] ? max_ring : t->dim[2];
    for (int r = 0; r <= max_ring; r++) {
        /* Cells of ring r and beyond lie outside the block of rings 0 to r - 1: p is at least
         * its distance to that block's faces from them (a face on the grid's edge has no cell
         * beyond it). */
        if (r > 0) {
            float bound = INFINITY;
            for (int k = 0; k < 3; k++) {
                if (c[k] - (r - 1) > 0)
                    bound = fminf(bound, p[k] - (t->lo[k] + (float)(c[k] - (r - 1)) * t->cell));
                if (c[k] + (r - 1) < t->dim[k] - 1)
                    bound = fminf(bound, t->lo[k] + (float)(c[k] + r) * t->cell - p[k]);
            }
            if (bound == INFINITY || (bound > 0.0f && bound * bound > *bound2))
                break;
        }
        for (int z = c[2] - r; z <= c[2] + r; z++)
            for (int y = c[1] - r; y <= c[1] + r; y++)
                for (int x = c[0] - r; x <= c[0] + r; x++) {
                    if (abs(x - c[0]) != r && abs(y - c[1]) != r && abs(z - c[2]) != r)
                        x = c[0] + r; /* inside the ring: on to its far face */
                    if (x < 0 || y < 0 || z < 0 || x >= t->dim[0] || y >= t->dim[1] ||
                        z >= t->dim[2])
                        continue;
                    const size_t cell = ((size_t)z * t->dim[1] + y) * t->dim[0] + x;
                    if (t->start[cell] == t->start[cell + 1])
                        continue;
                    /* To the cell (the last on an axis may reach further: open there). */
                    const int at[3] = {x, y, z};
                    float cell2 = 0.0f;
                    for (int k = 0; k < 3; k++) {
                        const float lo = t->lo[k] + (float)at[k] * t->cell;
                        const float hi = at[k] == t->dim[k] - 1 ? INFINITY : lo + t->cell;
                        const float d = p[k] < lo ? lo - p[k] : p[k] > hi ? p[k] - hi : 0.0f;
                        cell2 += d * d;
                    }
                    if (cell2 > *bound2)
                        continue;
                    for (uint32_t i = t->start[cell]; i < t->start[cell + 1]; i++)
                        if (le_box_near(t->box[t->items[i]], p, *bound2))
                            visit(ctx, t->items[i], bound2);
                }
    }
}

typedef struct le_near {
    const le_tris *t;
    const float (*pos)[3];
    const float *p;
    uint32_t nearest;
} le_near;

static void le_near_visit(void *ctx, uint32_t tri, float *bound2)
{
    le_near *n = ctx;
    const uint32_t *c = n->t->corners[tri];
    const float d = le_dist2(n->p, n->pos[c[0]], n->pos[c[1]], n->pos[c[2]]);
    if (d < *bound2)
        *bound2 = d, n->nearest = tri;
}

/* The distance from p to the nearest of t's triangles (gridded over pos); that triangle in
 * *nearest. */
static float le_nearest(const le_tris *t, const float (*pos)[3], const float p[3],
                        uint32_t *nearest)
{
    le_near n = {t, pos, p, *nearest};
    float best = INFINITY;
    le_visit(t, p, &best, le_near_visit, &n);
    *nearest = n.nearest;
    return sqrtf(best);
}

uint32_t vks_lod_error_poses(const vks_model *m, int32_t *clips, double *seconds)
{
    uint32_t n = 0;
    clips[n] = -1, seconds[n++] = 0.0;
    if (!m->clip_count)
        return n;
    const uint32_t used = m->clip_count < VKS_LOD_ERROR_POSES ? m->clip_count : VKS_LOD_ERROR_POSES;
    uint32_t per = VKS_LOD_ERROR_POSES / used;
    per = per > VKS_LOD_ERROR_POSES_PER_CLIP ? VKS_LOD_ERROR_POSES_PER_CLIP : per;
    for (uint32_t u = 0; u < used; u++) {
        const uint32_t c = (uint32_t)((uint64_t)u * m->clip_count / used);
        for (uint32_t k = 0; k < per; k++) {
            clips[n] = (int32_t)c;
            seconds[n++] = m->clips[c].duration * (k + 0.5) / per;
        }
    }
    assert(n <= VKS_LOD_ERROR_POSES + 1);
    return n;
}

/* Level 0's triangles by their corners, in any order: open addressing over sorted triples. */
typedef struct le_set {
    uint32_t mask;
    uint32_t *slots; /* triangle + 1, 0 empty */
} le_set;

static void le_sorted(const uint32_t in[3], uint32_t out[3])
{
    uint32_t a = in[0], b = in[1], c = in[2], t;
    if (a > b)
        t = a, a = b, b = t;
    if (b > c)
        t = b, b = c, c = t;
    if (a > b)
        t = a, a = b, b = t;
    out[0] = a, out[1] = b, out[2] = c;
}

static uint32_t le_hash(const uint32_t k[3])
{
    uint64_t h = k[0] * 0x9e3779b97f4a7c15ull;
    h = (h ^ (h >> 29) ^ k[1]) * 0xbf58476d1ce4e5b9ull;
    h = (h ^ (h >> 32) ^ k[2]) * 0x94d049bb133111ebull;
    return (uint32_t)(h ^ (h >> 31));
}

static uint32_t *le_set_find(const le_set *s, const le_tris *t, const uint32_t key[3])
{
    for (uint32_t i = le_hash(key) & s->mask;; i = (i + 1) & s->mask) {
        if (!s->slots[i])
            return &s->slots[i];
        uint32_t k[3];
        le_sorted(t->corners[s->slots[i] - 1], k);
        if (!memcmp(k, key, sizeof k))
            return &s->slots[i];
    }
}

static bool le_set_init(le_set *s, const le_tris *t)
{
    uint32_t size = 16;
    while (size < 2u * t->count && size < (1u << 31))
        size *= 2;
    s->mask = size - 1;
    s->slots = calloc(size, sizeof *s->slots);
    if (!s->slots)
        return false;
    for (uint32_t i = 0; i < t->count; i++) {
        uint32_t key[3];
        le_sorted(t->corners[i], key);
        uint32_t *slot = le_set_find(s, t, key);
        if (!*slot)
            *slot = i + 1;
    }
    return true;
}

/* One level and its samples both ways, where it differs from level 0: against the level,
 * level-0 vertices it does not keep (one it keeps lies on it) and points of level-0 triangles it
 * does not have; against level 0, points of its triangles level 0 does not have. */
typedef struct le_level {
    le_tris tris;
    uint32_t a_count, c_count, b_count;
    uint32_t *a;                        /* level-0 vertices */
    uint32_t *c;                        /* level-0 triangle * LE_POINTS + point */
    uint32_t *b;                        /* this level's triangle * LE_POINTS + point */
    uint32_t *a_near, *c_near, *b_near; /* each sample's nearest triangle when last searched */
} le_level;

static void le_level_free(le_level *l)
{
    le_tris_free(&l->tris);
    free(l->a), free(l->c), free(l->b), free(l->a_near), free(l->c_near), free(l->b_near);
    memset(l, 0, sizeof *l);
}

/* Seven points of a triangle: the centroid, the middles of the edges, and the middles between
 * the centroid and each corner. */
#define LE_POINTS 7u
static const float le_points[LE_POINTS][3] = {{1.0f / 3, 1.0f / 3, 1.0f / 3},
                                              {0.5f, 0.5f, 0.0f},
                                              {0.0f, 0.5f, 0.5f},
                                              {0.5f, 0.0f, 0.5f},
                                              {2.0f / 3, 1.0f / 6, 1.0f / 6},
                                              {1.0f / 6, 2.0f / 3, 1.0f / 6},
                                              {1.0f / 6, 1.0f / 6, 2.0f / 3}};

/* Every stride-th of n items, so that at most LE_MAX_SAMPLES are taken. */
static uint32_t le_stride(uint64_t n)
{
    return n > LE_MAX_SAMPLES ? (uint32_t)((n + LE_MAX_SAMPLES - 1) / LE_MAX_SAMPLES) : 1;
}

/* touching[v]: a triangle of t with corner v (~0u for none). */
static uint32_t *le_touching(const le_tris *t, uint32_t vertex_count)
{
    uint32_t *touching = malloc(sizeof *touching * (vertex_count ? vertex_count : 1));
    if (!touching)
        return NULL;
    memset(touching, 0xff, sizeof *touching * vertex_count);
    for (uint32_t i = 0; i < t->count; i++)
        for (int c = 0; c < 3; c++)
            touching[t->corners[i][c]] = i;
    return touching;
}

/* A first guess at the nearest triangle of `other` to a point of triangle corners[]: one touching
 * a corner (the guess only bounds the search; any triangle would do). */
static uint32_t le_guess(const uint32_t corners[3], const uint32_t *touching)
{
    for (int c = 0; c < 3; c++)
        if (touching[corners[c]] != ~0u)
            return touching[corners[c]];
    return 0;
}

/* The triangles of `from` that `other` (with its set) does not have, as samples: the first
 * `points` of le_points (1: the centroid; LE_POINTS: all seven) of every stride-th such triangle;
 * each one's first nearest-triangle guess from touching (other's triangles by corner). */
static bool le_points_of(const le_tris *from, const le_set *other_set, const le_tris *other,
                         const uint32_t *touching, uint32_t points, uint32_t **out, uint32_t **near,
                         uint32_t *count)
{
    uint32_t *fresh = malloc(sizeof *fresh * (from->count ? from->count : 1));
    uint32_t n = 0;
    for (uint32_t i = 0; fresh && i < from->count; i++) {
        uint32_t key[3];
        le_sorted(from->corners[i], key);
        if (!*le_set_find(other_set, other, key))
            fresh[n++] = i;
    }
    const uint32_t stride = le_stride((uint64_t)points * n);
    *out = malloc(sizeof **out * (points * (n / stride + 1)));
    *near = calloc(points * (n / stride + 1), sizeof **near);
    const bool ok = fresh && *out && *near;
    for (uint32_t k = 0; ok && k < n; k += stride)
        for (uint32_t point = 0; point < points; point++) {
            (*near)[*count] = le_guess(from->corners[fresh[k]], touching);
            (*out)[(*count)++] = fresh[k] * LE_POINTS + point;
        }
    free(fresh);
    return ok;
}

static bool le_level_init(const vks_model *m, const le_set *set0, const le_tris *t0,
                          const uint32_t *touching0, const uint8_t *used, uint32_t level,
                          uint8_t *kept, le_level *l)
{
    le_set set = {0};
    uint32_t *touching = NULL;
    if (!le_tris_of(m, level, &l->tris) || !le_set_init(&set, &l->tris) ||
        !(touching = le_touching(&l->tris, m->vertex_count))) {
        free(set.slots);
        return false;
    }
    memset(kept, 0, m->vertex_count);
    for (uint32_t i = 0; i < l->tris.count; i++)
        for (int c = 0; c < 3; c++)
            kept[l->tris.corners[i][c]] = 1;
    uint32_t lost = 0;
    for (uint32_t v = 0; v < m->vertex_count; v++)
        lost += used[v] && !kept[v];
    const uint32_t stride = le_stride(lost);
    l->a = malloc(sizeof *l->a * (lost / stride + 1));
    l->a_near = calloc(lost / stride + 1, sizeof *l->a_near);
    bool ok =
        l->a && l->a_near &&
        le_points_of(t0, &set, &l->tris, touching, 1, &l->c, &l->c_near, &l->c_count) &&
        le_points_of(&l->tris, set0, t0, touching0, LE_POINTS, &l->b, &l->b_near, &l->b_count);
    for (uint32_t v = 0, seen = 0; ok && v < m->vertex_count; v++)
        if (used[v] && !kept[v] && seen++ % stride == 0)
            l->a[l->a_count++] = v;
    free(set.slots);
    free(touching);
    return ok;
}

bool vks_model_measure_lods(vks_model *m, vks_error *err)
{
    const uint32_t levels = vks_model_level_count(m);
    if (levels < 2)
        return true;
    le_tris t0 = {0};
    le_set set0 = {0};
    le_level lv[VKS_MAX_LEVELS] = {0};
    const size_t n = m->vertex_count ? m->vertex_count : 1;
    uint8_t *used = calloc(n, 1), *kept = malloc(n);
    float(*posed)[3] = malloc(sizeof *posed * n), (*normals)[3] = malloc(sizeof *normals * n);
    bool ok = used && kept && posed && normals && le_tris_of(m, 0, &t0) && le_set_init(&set0, &t0);
    for (uint32_t i = 0; ok && i < t0.count; i++)
        for (int c = 0; c < 3; c++)
            used[t0.corners[i][c]] = 1;
    uint32_t *touching0 = ok ? le_touching(&t0, m->vertex_count) : NULL;
    ok = ok && touching0;
    for (uint32_t l = 1; ok && l < levels; l++)
        ok = le_level_init(m, &set0, &t0, touching0, used, l, kept, &lv[l]);
    free(touching0);

    int32_t clips[VKS_LOD_ERROR_POSES + 1];
    double seconds[VKS_LOD_ERROR_POSES + 1];
    const uint32_t poses = vks_lod_error_poses(m, clips, seconds);
    float error[VKS_MAX_LEVELS] = {0};
    for (uint32_t p = 0; ok && p < poses; p++) {
        const float(*at)[3] = (const float(*)[3])posed;
        ok = vks_skin_cpu_pose(m, clips[p], seconds[p], posed, normals, NULL);
        /* A pose that throws a vertex past VKS_MAX_COORDINATE (damaged keys) is not measured:
         * the crowd refuses such a model, naming it. */
        bool sane = true;
        for (uint32_t v = 0; ok && sane && v < m->vertex_count; v++)
            for (int k = 0; k < 3; k++)
                sane = sane && fabsf(posed[v][k]) <= VKS_MAX_COORDINATE;
        if (!sane)
            continue;
        bool gridded0 = false; /* the grids are built for this pose when first searched */
        for (uint32_t l = 1; ok && l < levels; l++) {
            le_level *v = &lv[l];
            bool gridded = false;
            /* Only the largest distance counts: the distance to a sample's nearest triangle of
             * the last search, posed anew, bounds its distance now from above; at or under the
             * largest so far, the sample cannot raise it and needs no search. */
            float e = error[l], q[3];
            /* The first pose has no largest-so-far yet: every 16th sample first finds one. */
            for (uint32_t step = p == 0 ? 16 : 1, round = 0; round < 2; round++, step = 1) {
                for (uint32_t s = 0; ok && s < v->a_count; s += step) {
                    const float *x = at[v->a[s]];
                    const uint32_t *c = v->tris.corners[v->a_near[s]];
                    if (le_dist2(x, at[c[0]], at[c[1]], at[c[2]]) <= e * e)
                        continue;
                    if (!gridded && !(ok = gridded = le_grid(&v->tris, at)))
                        break;
                    e = fmaxf(e, le_nearest(&v->tris, at, x, &v->a_near[s]));
                }
                for (uint32_t s = 0; ok && s < v->c_count; s += step) {
                    le_point(le_points[v->c[s] % LE_POINTS], t0.corners[v->c[s] / LE_POINTS], at,
                             q);
                    const uint32_t *c = v->tris.corners[v->c_near[s]];
                    if (le_dist2(q, at[c[0]], at[c[1]], at[c[2]]) <= e * e)
                        continue;
                    if (!gridded && !(ok = gridded = le_grid(&v->tris, at)))
                        break;
                    e = fmaxf(e, le_nearest(&v->tris, at, q, &v->c_near[s]));
                }
                for (uint32_t s = 0; ok && s < v->b_count; s += step) {
                    le_point(le_points[v->b[s] % LE_POINTS], v->tris.corners[v->b[s] / LE_POINTS],
                             at, q);
                    const uint32_t *c = t0.corners[v->b_near[s]];
                    if (le_dist2(q, at[c[0]], at[c[1]], at[c[2]]) <= e * e)
                        continue;
                    if (!gridded0 && !(ok = gridded0 = le_grid(&t0, at)))
                        break;
                    e = fmaxf(e, le_nearest(&t0, at, q, &v->b_near[s]));
                }
            }
            error[l] = e;
        }
    }
    for (uint32_t l = 0; l < VKS_MAX_LEVELS; l++)
        le_level_free(&lv[l]);
    le_tris_free(&t0);
    free(set0.slots);
    free(used), free(kept), free(posed), free(normals);
    if (!ok)
        return vks_fail_memory(err, "out of memory measuring %s's levels of detail", m->name);
    /* A level no better than a coarser one (its error as large or larger: a level simplified
     * from level 0 apart from the others may have had to take a costly collapse that a coarser
     * one avoided) would never be the better choice: it goes. What stays has increasing errors. */
    bool keep[VKS_MAX_LEVELS] = {true};
    float coarser = INFINITY;
    for (uint32_t l = levels - 1; l >= 1; l--) {
        keep[l] = error[l] < coarser || l == levels - 1;
        coarser = fminf(coarser, error[l]);
    }
    for (uint32_t l = 1; l < levels; l++) {
        m->levels[l].error = error[l];
        for (uint32_t i = 0; i < m->mesh_count; i++)
            m->mesh_levels[(size_t)l * m->mesh_count + i].error = error[l];
    }
    vks_model_keep_levels(m, keep);
    return true;
}
