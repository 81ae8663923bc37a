/* Levels of detail measured over the clips' poses (lod_error.h). */
#include "lod_error.h"
#include "../core/alloc.h"

#include "lod.h"
#include "../skin/skin_cpu.h"

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
    uint32_t *start, *items;       /* cell c's triangles: items[start[c] .. start[c + 1]) */
    size_t start_room, items_room; /* their allocations, kept from pose to pose */
    uint32_t *big, big_count;      /* triangles over LE_BIG_CELLS cells: in none, searched always */
} le_tris;

static void le_tris_free(le_tris *t)
{
    vks_free(t->corners);
    vks_free(t->box);
    vks_free(t->big);
    vks_free(t->start);
    vks_free(t->items);
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
    t->corners = vks_malloc(sizeof *t->corners * (lv.triangle_count ? lv.triangle_count : 1));
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

/* Makes *p hold at least n elements of `size` bytes (keeping none of them), *room its count. */
static bool le_room(void **p, size_t *room, size_t n, size_t size)
{
    if (n <= *room && *p)
        return true;
    vks_free(*p);
    *p = vks_malloc(size * (n ? n : 1));
    *room = *p ? n : 0;
    return *p != NULL;
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
    if (!t->box && !(t->box = vks_malloc(sizeof *t->box * (t->count ? t->count : 1))))
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
    if (!le_room((void **)&t->start, &t->start_room, cells + 1, sizeof *t->start) ||
        (!t->big && !(t->big = vks_malloc(sizeof *t->big * (t->count ? t->count : 1)))))
        return false;
    memset(t->start, 0, sizeof *t->start * (cells + 1));
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
            if (!le_room((void **)&t->items, &t->items_room, t->start[cells], sizeof *t->items))
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

/* Whether p lies within sqrt(bound2) of a triangle's box (a lower bound of its distance). */
static bool le_box_near(const float box[6], const float p[3], float bound2)
{
    float box2 = 0.0f;
    for (int k = 0; k < 3; k++) {
        const float d = p[k] < box[k]       ? box[k] - p[k]
                        : p[k] > box[3 + k] ? p[k] - box[3 + k]
                                            : 0.0f;
        box2 += d * d;
    }
    return box2 <= bound2;
}

/* Triangle i of t against the squared distance *best from p so far (its index in *nearest). */
static void le_try(const le_tris *t, const float (*pos)[3], const float p[3], uint32_t i,
                   float *best, uint32_t *nearest)
{
    if (!le_box_near(t->box[i], p, *best))
        return;
    const uint32_t *c = t->corners[i];
    const float d = le_dist2(p, pos[c[0]], pos[c[1]], pos[c[2]]);
    if (d < *best)
        *best = d, *nearest = i;
}

/* The distance from p to the nearest of t's triangles (gridded over pos); that triangle in
 * *nearest. The slivers first, then the cells in rings around p's, nearest first, until no cell
 * left can hold a nearer triangle. */
static float le_nearest(const le_tris *t, const float (*pos)[3], const float p[3],
                        uint32_t *nearest)
{
    float best = INFINITY; /* squared */
    for (uint32_t i = 0; i < t->big_count; i++)
        le_try(t, pos, p, t->big[i], &best, nearest);
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
            if (bound == INFINITY || (bound > 0.0f && bound * bound > best))
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
                    /* To the cell (the last on an axis may reach further: open there). */
                    const int at[3] = {x, y, z};
                    float cell2 = 0.0f;
                    for (int k = 0; k < 3; k++) {
                        const float lo = t->lo[k] + (float)at[k] * t->cell;
                        const float hi = at[k] == t->dim[k] - 1 ? INFINITY : lo + t->cell;
                        const float d = p[k] < lo ? lo - p[k] : p[k] > hi ? p[k] - hi : 0.0f;
                        cell2 += d * d;
                    }
                    if (cell2 > best)
                        continue;
                    for (uint32_t i = t->start[cell]; i < t->start[cell + 1]; i++)
                        le_try(t, pos, p, t->items[i], &best, nearest);
                }
    }
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
    s->slots = vks_calloc(size, sizeof *s->slots);
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

/* Sample points and the triangles they are measured against: level-0 vertices (from NULL: each
 * item a vertex) or points of triangles of `from` (each item triangle * LE_POINTS + point, of
 * le_points); near: each one's nearest triangle when last searched. */
typedef struct le_samples {
    const le_tris *from;
    uint32_t count;
    uint32_t *item, *near;
} le_samples;

/* One level and its samples both ways, where it differs from level 0: against the level,
 * level-0 vertices it does not keep (one it keeps lies on it) and points of level-0 triangles it
 * does not have (lost, missing); against level 0, points of its triangles level 0 does not have
 * (fresh). */
typedef struct le_level {
    le_tris tris;
    le_samples lost, missing, fresh;
} le_level;

static void le_samples_free(le_samples *s)
{
    vks_free(s->item), vks_free(s->near);
}

static void le_level_free(le_level *l)
{
    le_tris_free(&l->tris);
    le_samples_free(&l->lost), le_samples_free(&l->missing), le_samples_free(&l->fresh);
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
    uint32_t *touching = vks_malloc(sizeof *touching * (vertex_count ? vertex_count : 1));
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
                         const uint32_t *touching, uint32_t points, le_samples *out)
{
    uint32_t *fresh = vks_malloc(sizeof *fresh * (from->count ? from->count : 1));
    uint32_t n = 0;
    for (uint32_t i = 0; fresh && i < from->count; i++) {
        uint32_t key[3];
        le_sorted(from->corners[i], key);
        if (!*le_set_find(other_set, other, key))
            fresh[n++] = i;
    }
    const uint32_t stride = le_stride((uint64_t)points * n);
    *out = (le_samples){.from = from};
    out->item = vks_malloc(sizeof *out->item * (points * (n / stride + 1)));
    out->near = vks_malloc(sizeof *out->near * (points * (n / stride + 1)));
    const bool ok = fresh && out->item && out->near;
    for (uint32_t k = 0; ok && k < n; k += stride)
        for (uint32_t point = 0; point < points; point++) {
            out->near[out->count] = le_guess(from->corners[fresh[k]], touching);
            out->item[out->count++] = fresh[k] * LE_POINTS + point;
        }
    vks_free(fresh);
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
        vks_free(set.slots);
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
    l->lost.item = vks_malloc(sizeof *l->lost.item * (lost / stride + 1));
    l->lost.near = vks_calloc(lost / stride + 1, sizeof *l->lost.near);
    bool ok = l->lost.item && l->lost.near &&
              le_points_of(t0, &set, &l->tris, touching, 1, &l->missing) &&
              le_points_of(&l->tris, set0, t0, touching0, LE_POINTS, &l->fresh);
    for (uint32_t v = 0, seen = 0; ok && v < m->vertex_count; v++)
        if (used[v] && !kept[v] && seen++ % stride == 0)
            l->lost.item[l->lost.count++] = v;
    vks_free(set.slots);
    vks_free(touching);
    return ok;
}

/* Sample s of ss at positions at. */
static void le_sample_at(const le_samples *ss, uint32_t s, const float (*at)[3], float out[3])
{
    const uint32_t item = ss->item[s];
    if (!ss->from)
        memcpy(out, at[item], sizeof(float[3]));
    else
        le_point(le_points[item % LE_POINTS], ss->from->corners[item / LE_POINTS], at, out);
}

/* Raises *e to the distance from every step-th sample of ss to `target` (posed at `at`), where
 * it can be larger: the distance to a sample's nearest triangle of the last search, posed anew,
 * bounds its distance now from above, and at or under *e the sample needs no search. The grid
 * over `target` is built at the first search (*gridded). False when out of memory. */
static bool le_sweep(le_samples *ss, le_tris *target, bool *gridded, const float (*at)[3],
                     uint32_t step, float *e)
{
    for (uint32_t s = 0; s < ss->count; s += step) {
        float q[3];
        le_sample_at(ss, s, at, q);
        const uint32_t *c = target->corners[ss->near[s]];
        if (le_dist2(q, at[c[0]], at[c[1]], at[c[2]]) <= *e * *e)
            continue;
        if (!*gridded && !(*gridded = le_grid(target, at)))
            return false;
        *e = fmaxf(*e, le_nearest(target, at, q, &ss->near[s]));
    }
    return true;
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
    uint8_t *used = vks_calloc(n, 1), *kept = vks_malloc(n);
    float(*posed)[3] = vks_malloc(sizeof *posed * n),
    (*normals)[3] = vks_malloc(sizeof *normals * n);
    bool ok = used && kept && posed && normals && le_tris_of(m, 0, &t0) && le_set_init(&set0, &t0);
    for (uint32_t i = 0; ok && i < t0.count; i++)
        for (int c = 0; c < 3; c++)
            used[t0.corners[i][c]] = 1;
    uint32_t *touching0 = ok ? le_touching(&t0, m->vertex_count) : NULL;
    ok = ok && touching0;
    for (uint32_t l = 1; ok && l < levels; l++)
        ok = le_level_init(m, &set0, &t0, touching0, used, l, kept, &lv[l]);
    vks_free(touching0);

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
            float e = error[l];
            /* Without a largest-so-far yet (the first pose measured), every 16th sample first
             * finds one. */
            for (uint32_t step = e == 0.0f ? 16 : 1, round = 0; ok && round < 2; round++, step = 1)
                ok = le_sweep(&v->lost, &v->tris, &gridded, at, step, &e) &&
                     le_sweep(&v->missing, &v->tris, &gridded, at, step, &e) &&
                     le_sweep(&v->fresh, &t0, &gridded0, at, step, &e);
            error[l] = e;
        }
    }
    for (uint32_t l = 0; l < VKS_MAX_LEVELS; l++)
        le_level_free(&lv[l]);
    le_tris_free(&t0);
    vks_free(set0.slots);
    vks_free(used), vks_free(kept), vks_free(posed), vks_free(normals);
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
    for (uint32_t l = 1; l < levels; l++)
        m->levels[l].error = error[l];
    vks_model_keep_levels(m, keep);
    return true;
}
