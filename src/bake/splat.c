/* The far splat (splat.h). */
#include "splat.h"

#include "lod_error.h"
#include "m34.h"
#include "../asset/texture.h" /* vks_linear_of_srgb8 */
#include "../core/alloc.h"
#include "../skin/skin_cpu.h"
#include "../../shaders/vks_shared.h" /* VKS_FLAT_UV */

#include <math.h>
#include <string.h>

/* Per candidate joint: the area-weighted moments of the posed surface in its bind frame. */
typedef struct splat__moments {
    double area, sum[3], sum2[3][3];
    bool invertible; /* its skin matrix was in every pose */
} splat__moments;

/* Whether affine a's linear part is invertible: its determinant not negligible against its
 * largest entry's cube (a joint scaled by 1e-4 is; a collapsed one is not). */
static bool splat__invertible(const m34 *a)
{
    double size = 0.0;
    for (int r = 0; r < 3; r++)
        for (int k = 0; k < 3; k++)
            size = fmax(size, fabs(a->m[r][k]));
    const double det = m34_det(a);
    return isfinite(det) && fabs(det) > 1e-9 * size * size * size;
}

/* A triangle of level 0, its vertices in the model's streams, weighted by its bind-pose area
 * (the same surface in every pose); the model's with an area, listed once. */
typedef struct splat__triangle {
    uint32_t v[3], material;
    double area;
} splat__triangle;

/* Adds triangle (p[0], p[1], p[2]) of weight w (its area) to the moments. */
static void splat__add(splat__moments *s, const double p[3][3], double w)
{
    s->area += w;
    for (int a = 0; a < 3; a++) {
        const double sa = p[0][a] + p[1][a] + p[2][a];
        s->sum[a] += w * sa / 3.0;
        for (int b = 0; b < 3; b++) {
            const double sb = p[0][b] + p[1][b] + p[2][b];
            s->sum2[a][b] +=
                w * (p[0][a] * p[0][b] + p[1][a] * p[1][b] + p[2][a] * p[2][b] + sa * sb) / 12.0;
        }
    }
}

static double splat__area(const float *a, const float *b, const float *c)
{
    const double u[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]};
    const double v[3] = {c[0] - a[0], c[1] - a[1], c[2] - a[2]};
    const double x = u[1] * v[2] - u[2] * v[1], y = u[2] * v[0] - u[0] * v[2],
                 z = u[0] * v[1] - u[1] * v[0];
    return 0.5 * sqrt(x * x + y * y + z * z);
}

/* The base color at uv (nearest texel, repeating; a flat UV taken back into range) of material
 * `mat`, linear RGBA. */
static void splat__color_at(const vks_model *m, const vks_material *mat, const float uv[2],
                            const double linear[256], double out[4])
{
    for (int k = 0; k < 4; k++)
        out[k] = mat->base_color[k];
    if (mat->texture < 0 || (uint32_t)mat->texture >= m->texture_count)
        return;
    const vks_texture *t = &m->textures[mat->texture];
    if (!t->rgba || !t->width || !t->height)
        return;
    double u = uv[0] >= VKS_FLAT_UV ? uv[0] - VKS_FLAT_UV : uv[0], v = uv[1];
    if (!isfinite(u) || !isfinite(v))
        return;
    u -= floor(u);
    v -= floor(v);
    uint32_t x = (uint32_t)(u * t->width), y = (uint32_t)(v * t->height);
    x = x < t->width ? x : t->width - 1;
    y = y < t->height ? y : t->height - 1;
    const uint8_t *px = t->rgba + 4 * ((size_t)y * t->width + x);
    for (int k = 0; k < 3; k++)
        out[k] *= linear[px[k]];
    out[3] *= px[3] / 255.0;
}

/* Triangle v's mean base color, linear RGBA: its texture read at the centers of a k x k
 * subdivision of it (k^2 equal sub-triangles, about one a texel its UVs cover, k at most
 * VKS_SPLAT_COLOR_SPLIT), or at its first corner's UV when that is flat (merged colors, one texel
 * block a triangle). */
#define VKS_SPLAT_COLOR_SPLIT 16
static void splat__triangle_color(const vks_model *m, const vks_material *mat, const uint32_t v[3],
                                  const double linear[256], double out[4])
{
    float uv[3][2] = {{0}};
    if (m->uvs)
        for (int k = 0; k < 3; k++)
            memcpy(uv[k], m->uvs[v[k]], sizeof uv[k]);
    /* Flat when its first corner is (as the resolve reads it); each corner's UV taken back into
     * the texture's range either way. */
    const bool flat = uv[0][0] >= VKS_FLAT_UV;
    for (int k = 0; k < 3; k++)
        uv[k][0] -= uv[k][0] >= VKS_FLAT_UV ? (float)VKS_FLAT_UV : 0.0f;
    if (!m->uvs || flat || mat->texture < 0 || (uint32_t)mat->texture >= m->texture_count) {
        splat__color_at(m, mat, uv[0], linear, out);
        return;
    }
    const vks_texture *t = &m->textures[mat->texture];
    const double texels = 0.5 *
                          fabs((uv[1][0] - uv[0][0]) * (uv[2][1] - uv[0][1]) -
                               (uv[2][0] - uv[0][0]) * (uv[1][1] - uv[0][1])) *
                          t->width * t->height;
    const int k = !(texels > 1.0) ? 1
                  : texels >= VKS_SPLAT_COLOR_SPLIT * VKS_SPLAT_COLOR_SPLIT
                      ? VKS_SPLAT_COLOR_SPLIT
                      : (int)ceil(sqrt(texels));
    double sum[4] = {0};
    for (int i = 0; i < k; i++)
        for (int j = 0; i + j < k; j++)
            for (int down = 0; down < 2 && (!down || i + j + 1 < k); down++) {
                const double a = (i + (down ? 2.0 : 1.0) / 3.0) / k;
                const double b = (j + (down ? 2.0 : 1.0) / 3.0) / k;
                const float at[2] = {
                    (float)((1.0 - a - b) * uv[0][0] + a * uv[1][0] + b * uv[2][0]),
                    (float)((1.0 - a - b) * uv[0][1] + a * uv[1][1] + b * uv[2][1])};
                double rgba[4];
                splat__color_at(m, mat, at, linear, rgba);
                for (int c = 0; c < 4; c++)
                    sum[c] += rgba[c];
            }
    for (int c = 0; c < 4; c++)
        out[c] = sum[c] / (k * k);
}

/* The outline of posed points q (the carrier's frame) along direction d: the cells of a
 * VKS_SPLAT_GRID grid over its extent whose centers a triangle covers, as area; and the area of
 * the ellipse of one standard deviation of covariance k projected along d. */
#define VKS_SPLAT_GRID 128
static void splat__outline(const vks_model *m, const splat__triangle *tri, uint32_t tri_count,
                           const double (*q)[3], const double d[3], const double k[3][3],
                           uint8_t *grid, double *outline, double *ellipse)
{
    /* A basis (u, v) of the plane across d. */
    const double a[3] = {fabs(d[0]) < 0.5 ? 1.0 : 0.0, fabs(d[0]) < 0.5 ? 0.0 : 1.0, 0.0};
    double u[3] = {d[1] * a[2] - d[2] * a[1], d[2] * a[0] - d[0] * a[2], d[0] * a[1] - d[1] * a[0]};
    const double ul = sqrt(u[0] * u[0] + u[1] * u[1] + u[2] * u[2]);
    for (int c = 0; c < 3; c++)
        u[c] /= ul;
    const double v[3] = {d[1] * u[2] - d[2] * u[1], d[2] * u[0] - d[0] * u[2],
                         d[0] * u[1] - d[1] * u[0]};
    double cuu = 0.0, cuv = 0.0, cvv = 0.0;
    for (int r = 0; r < 3; r++)
        for (int c = 0; c < 3; c++) {
            cuu += u[r] * k[r][c] * u[c];
            cuv += u[r] * k[r][c] * v[c];
            cvv += v[r] * k[r][c] * v[c];
        }
    const double det = cuu * cvv - cuv * cuv;
    *ellipse = det > 0.0 ? 3.14159265358979323846 * sqrt(det) : 0.0;
    double lo[2] = {INFINITY, INFINITY}, hi[2] = {-INFINITY, -INFINITY};
    for (uint32_t i = 0; i < m->vertex_count; i++) {
        const double pu = q[i][0] * u[0] + q[i][1] * u[1] + q[i][2] * u[2];
        const double pv = q[i][0] * v[0] + q[i][1] * v[1] + q[i][2] * v[2];
        lo[0] = pu < lo[0] ? pu : lo[0], hi[0] = pu > hi[0] ? pu : hi[0];
        lo[1] = pv < lo[1] ? pv : lo[1], hi[1] = pv > hi[1] ? pv : hi[1];
    }
    const double side = fmax(hi[0] - lo[0], hi[1] - lo[1]) / VKS_SPLAT_GRID;
    *outline = 0.0;
    if (!(side > 0.0) || !isfinite(side))
        return;
    memset(grid, 0, VKS_SPLAT_GRID * VKS_SPLAT_GRID);
    uint32_t covered = 0;
    for (uint32_t t = 0; t < tri_count; t++) {
        double x[3], y[3];
        for (int c = 0; c < 3; c++) {
            const double *p = q[tri[t].v[c]];
            x[c] = ((p[0] * u[0] + p[1] * u[1] + p[2] * u[2]) - lo[0]) / side;
            y[c] = ((p[0] * v[0] + p[1] * v[1] + p[2] * v[2]) - lo[1]) / side;
        }
        const double twice = (x[1] - x[0]) * (y[2] - y[0]) - (x[2] - x[0]) * (y[1] - y[0]);
        if (twice == 0.0 || !isfinite(twice))
            continue;
        const double sg = twice > 0.0 ? 1.0 : -1.0;
        const int x0 = (int)fmax(floor(fmin(x[0], fmin(x[1], x[2]))), 0.0);
        const int x1 = (int)fmin(ceil(fmax(x[0], fmax(x[1], x[2]))), VKS_SPLAT_GRID - 1);
        const int y0 = (int)fmax(floor(fmin(y[0], fmin(y[1], y[2]))), 0.0);
        const int y1 = (int)fmin(ceil(fmax(y[0], fmax(y[1], y[2]))), VKS_SPLAT_GRID - 1);
        for (int cy = y0; cy <= y1; cy++)
            for (int cx = x0; cx <= x1; cx++) {
                const double px = cx + 0.5, py = cy + 0.5;
                bool in = true;
                for (int e = 0; e < 3 && in; e++) {
                    const int f = (e + 1) % 3;
                    in = sg * ((x[f] - x[e]) * (py - y[e]) - (y[f] - y[e]) * (px - x[e])) >= 0.0;
                }
                uint8_t *cell = &grid[cy * VKS_SPLAT_GRID + cx];
                if (in && !*cell) {
                    *cell = 1;
                    covered++;
                }
            }
    }
    *outline = covered * side * side;
}

/* The joints tried as the carrier: the first VKS_SPLAT_CANDIDATES the coarsest level poses. */
static uint32_t splat__candidates(const vks_model *m, uint32_t *out)
{
    const uint32_t last = vks_model_level_count(m) - 1;
    const uint32_t kept = vks_model_level_joints(m, last);
    uint32_t n = 0;
    for (uint32_t k = 0; k < kept && n < VKS_SPLAT_CANDIDATES; k++)
        out[n++] = m->joint_fold && m->pose_order ? m->pose_order[k] : k;
    return n;
}

/* The model's triangles with an area, listed once (NULL with *count 0 when it has none, or out
 * of memory: *oom). */
static splat__triangle *splat__triangles(const vks_model *m, uint32_t *count, bool *oom)
{
    *count = 0;
    splat__triangle *tri = vks_malloc(sizeof *tri * (m->index_count / 3 + 1));
    *oom = !tri;
    for (uint32_t i = 0; tri && i < m->mesh_count; i++) {
        const vks_mesh *mesh = &m->meshes[i];
        for (uint32_t t = 0; t + 2 < mesh->index_count; t += 3) {
            splat__triangle x = {.material = mesh->material};
            for (int k = 0; k < 3; k++)
                x.v[k] = mesh->base_vertex + m->indices[mesh->first_index + t + k];
            x.area = splat__area(m->positions[x.v[0]], m->positions[x.v[1]], m->positions[x.v[2]]);
            if (x.area > 0.0)
                tri[(*count)++] = x;
        }
    }
    return tri;
}

bool vks_model_build_splat(vks_model *m, vks_error *err)
{
    m->splat = (vks_splat){0};
    const uint32_t joints = m->skeleton.joint_count, n = m->vertex_count;
    if (!n || !m->index_count || !joints)
        return true;
    uint32_t cand[VKS_SPLAT_CANDIDATES];
    const uint32_t cand_count = splat__candidates(m, cand);
    int32_t clips[VKS_LOD_ERROR_POSES + 1];
    double seconds[VKS_LOD_ERROR_POSES + 1];
    const uint32_t poses = vks_lod_error_poses(m, clips, seconds);
    uint32_t tri_count;
    bool oom;
    splat__triangle *tri = splat__triangles(m, &tri_count, &oom);
    vks_xform *local = vks_malloc(joints * sizeof *local);
    vks_affine *world = vks_malloc(joints * sizeof *world);
    /* Every pose's palette and skinned positions, made once: the moments and the outline read
     * them. */
    vks_bone *palette = vks_malloc((size_t)poses * joints * sizeof *palette);
    float(*pos)[3] = vks_malloc((size_t)poses * n * sizeof *pos);
    float(*nrm)[3] = vks_malloc((size_t)n * sizeof *nrm);
    double(*q)[3] = vks_malloc((size_t)n * sizeof *q);
    uint8_t *grid = vks_malloc(VKS_SPLAT_GRID * VKS_SPLAT_GRID);
    bool ok = !oom && local && world && palette && pos && nrm && q && grid;
    const vks_skin_input in = vks_skin_input_of(m);
    for (uint32_t p = 0; ok && p < poses; p++) {
        vks_skin_cpu_palette(m, clips[p], seconds[p], local, world, palette + (size_t)p * joints);
        vks_skin_cpu(&in, palette + (size_t)p * joints, pos + (size_t)p * n, nrm, NULL);
    }
    /* The mean base color: each triangle's (splat__triangle_color), weighted by its area. */
    double linear[256], color[4] = {0}, color_area = 0.0;
    for (int c = 0; c < 256; c++)
        linear[c] = vks_linear_of_srgb8((uint8_t)c);
    for (uint32_t t = 0; ok && t < tri_count; t++) {
        double rgba[4];
        splat__triangle_color(m, &m->materials[tri[t].material], tri[t].v, linear, rgba);
        for (int k = 0; k < 4; k++)
            color[k] += tri[t].area * rgba[k];
        color_area += tri[t].area;
    }
    /* Per candidate, the moments over the poses in its bind frame: each pose's in palette space,
     * carried into the candidate's frame (an affine map x -> A x + b carries them exactly: sum
     * A s + b area, A S A^T + A s b^T + b s^T A^T + b b^T area). */
    splat__moments mom[VKS_SPLAT_CANDIDATES];
    for (uint32_t c = 0; c < cand_count; c++)
        mom[c] = (splat__moments){.invertible = true};
    for (uint32_t p = 0; ok && p < poses; p++) {
        const float(*x)[3] = pos + (size_t)p * n;
        splat__moments here = {0};
        for (uint32_t t = 0; t < tri_count; t++) {
            double corner[3][3];
            for (int k = 0; k < 3; k++)
                for (int r = 0; r < 3; r++)
                    corner[k][r] = x[tri[t].v[k]][r];
            splat__add(&here, corner, tri[t].area);
        }
        for (uint32_t c = 0; c < cand_count; c++) {
            const m34 skin = m34_of_affine(&palette[(size_t)p * joints + cand[c]]);
            if (!mom[c].invertible || !splat__invertible(&skin)) {
                mom[c].invertible = false;
                continue;
            }
            const m34 inv = m34_inverse(&skin);
            const double(*a)[4] = inv.m;
            double as[3] = {0}, asa[3][3] = {{0}};
            for (int r = 0; r < 3; r++)
                for (int k = 0; k < 3; k++)
                    as[r] += a[r][k] * here.sum[k];
            for (int r = 0; r < 3; r++)
                for (int b = 0; b < 3; b++)
                    for (int k = 0; k < 3; k++)
                        for (int l = 0; l < 3; l++)
                            asa[r][b] += a[r][k] * here.sum2[k][l] * a[b][l];
            mom[c].area += here.area;
            for (int r = 0; r < 3; r++) {
                mom[c].sum[r] += as[r] + a[r][3] * here.area;
                for (int b = 0; b < 3; b++)
                    mom[c].sum2[r][b] += asa[r][b] + as[r] * a[b][3] + a[r][3] * as[b] +
                                         a[r][3] * a[b][3] * here.area;
            }
        }
    }
    /* The carrier: the smallest spread (the covariance's trace), the first on a tie. */
    int32_t best = -1;
    double best_spread = INFINITY, cov[3][3] = {{0}}, mean[3] = {0};
    for (uint32_t c = 0; ok && c < cand_count; c++) {
        if (!mom[c].invertible || !(mom[c].area > 0.0))
            continue;
        double mu[3], k[3][3];
        for (int a = 0; a < 3; a++)
            mu[a] = mom[c].sum[a] / mom[c].area;
        for (int a = 0; a < 3; a++)
            for (int b = 0; b < 3; b++)
                k[a][b] = mom[c].sum2[a][b] / mom[c].area - mu[a] * mu[b];
        const double spread = k[0][0] + k[1][1] + k[2][2];
        if (isfinite(spread) && spread < best_spread) {
            best_spread = spread;
            best = (int32_t)c;
            memcpy(mean, mu, sizeof mean);
            memcpy(cov, k, sizeof cov);
        }
    }
    /* Its outline against its ellipse's, over the poses and six directions of its frame (both in
     * its frame's units: their ratio sets the footprint), and the outline in palette units
     * squared (scaled by the carrier's squared scale, |det|^(2/3)), what the crowd weighs. */
    double outline = 0.0, ellipse = 0.0, outline_palette = 0.0;
    uint32_t views = 0;
    const double r2 = sqrt(0.5);
    const double dirs[6][3] = {{1, 0, 0},   {0, 1, 0},   {0, 0, 1},
                               {r2, r2, 0}, {0, r2, r2}, {r2, 0, r2}};
    for (uint32_t p = 0; ok && best >= 0 && p < poses; p++) {
        const m34 skin = m34_of_affine(&palette[(size_t)p * joints + cand[best]]);
        if (!splat__invertible(&skin))
            continue;
        const m34 inv = m34_inverse(&skin);
        for (uint32_t i = 0; i < n; i++)
            m34_point(&inv, pos[(size_t)p * n + i], q[i]);
        const double scale2 = pow(fabs(m34_det(&skin)), 2.0 / 3.0);
        for (int d = 0; d < 6; d++) {
            double o, e;
            splat__outline(m, tri, tri_count, (const double(*)[3])q, dirs[d], cov, grid, &o, &e);
            outline += o;
            outline_palette += o * scale2;
            ellipse += e;
            views++;
        }
    }
    vks_free(tri);
    vks_free(q);
    vks_free(grid);
    vks_free(local);
    vks_free(world);
    vks_free(palette);
    vks_free(pos);
    vks_free(nrm);
    if (!ok)
        return vks_fail_memory(err, "out of memory for the far splat of %u vertices", n);
    if (best < 0 || !(color_area > 0.0) || !(outline > 0.0) || !(ellipse > 0.0))
        return true; /* no surface, or no carrier: drawn by its levels */
    vks_splat *s = &m->splat;
    s->area = (float)(outline_palette / views);
    s->radius2 = (float)(outline / ellipse);
    s->valid = true;
    s->joint = cand[best];
    for (int a = 0; a < 3; a++)
        s->center[a] = (float)mean[a];
    const double six[6] = {cov[0][0], cov[0][1], cov[0][2], cov[1][1], cov[1][2], cov[2][2]};
    for (int k = 0; k < 6; k++)
        s->cov[k] = (float)six[k];
    for (int k = 0; k < 4; k++)
        s->color[k] = (float)(color[k] / color_area);
    return true;
}
