/* The far splat (src/bake/splat.h) of every model given, each loaded as vks_model_load prepares
 * it, against a second method written here: the posed surface sampled at random (uniform points
 * on each triangle, at least 4 a triangle and 20 000 a pose, weighted by its bind-pose area) at
 * the poses the levels of detail measure, carried into the splat's joint's bind frame by an
 * inverse computed here in double; their mean and covariance against the splat's (within the
 * sampling's error: 2 % of the spread), and the mean base color of the points (the factor times
 * the texel at each point's interpolated UV) against the splat's color (within 0.02: the splat
 * reads each triangle's texture on a grid of about a point a texel). The carrier is a joint the
 * coarsest level poses; the footprint's squared radius is positive and the outline area is no
 * more than the ellipse of 3 standard deviations would cover.
 *   usage: test_splat MODEL... [--folder DIR]... */
#include "check.h"

#include "bake/load.h"
#include "bake/lod_error.h"
#include "skin/skin_cpu.h"
#include "../shaders/vks_shared.h"

static size_t visited;

/* xorshift64*: the same points on every run. */
static double uniform(uint64_t *s)
{
    *s ^= *s >> 12, *s ^= *s << 25, *s ^= *s >> 27;
    return (double)((*s * 2685821657736338717ull) >> 11) / 9007199254740992.0;
}

static double linear(uint8_t code)
{
    const double c = code / 255.0;
    return c <= 0.04045 ? c / 12.92 : pow((c + 0.055) / 1.055, 2.4);
}

static void color_at(const vks_model *m, uint32_t material, double u, double v, double out[4])
{
    const vks_material *mat = &m->materials[material];
    for (int k = 0; k < 4; k++)
        out[k] = mat->base_color[k];
    if (mat->texture < 0)
        return;
    const vks_texture *t = &m->textures[mat->texture];
    u -= floor(u), v -= floor(v);
    const uint32_t x = (uint32_t)fmin(u * t->width, t->width - 1);
    const uint32_t y = (uint32_t)fmin(v * t->height, t->height - 1);
    const uint8_t *px = t->rgba + 4 * ((size_t)y * t->width + x);
    for (int k = 0; k < 3; k++)
        out[k] *= linear(px[k]);
    out[3] *= px[3] / 255.0;
}

static void visit(const char *path)
{
    vks_model m;
    vks_error err;
    if (!vks_model_load(&(vks_import_desc){.path = path}, &m, &err)) {
        fprintf(stderr, "%s: %s\n", path, err.msg);
        CHECK(!"load failed");
        return;
    }
    visited++;
    const vks_splat *s = &m.splat;
    CHECK(s->valid);
    if (!s->valid) {
        vks_model_destroy(&m);
        return;
    }
    const uint32_t last = vks_model_level_count(&m) - 1, j = s->joint;
    CHECK(j < m.skeleton.joint_count && vks_model_fold(&m, last, j) == j);
    int32_t clips[VKS_LOD_ERROR_POSES + 1];
    double seconds[VKS_LOD_ERROR_POSES + 1];
    const uint32_t poses = vks_lod_error_poses(&m, clips, seconds);
    float(*pos)[3] = malloc(m.vertex_count * sizeof *pos);
    float(*nrm)[3] = malloc(m.vertex_count * sizeof *nrm);
    vks_xform *local = malloc(m.skeleton.joint_count * sizeof *local);
    vks_affine *world = malloc(m.skeleton.joint_count * sizeof *world);
    vks_bone *palette = malloc(m.skeleton.joint_count * sizeof *palette);
    double w_sum = 0.0, mean[3] = {0}, second[3][3] = {{0}}, color[4] = {0}, color_w = 0.0;
    uint64_t seed = 0x9e3779b97f4a7c15ull;
    const vks_skin_input in = vks_skin_input_of(&m);
    /* At least 4 points a triangle, and 20 000 a pose in all (a model of a few triangles). */
    const uint32_t per =
        m.index_count / 3 >= 5000 ? 4 : (20000 + m.index_count / 3 - 1) / (m.index_count / 3);
    for (uint32_t p = 0; p < poses; p++) {
        vks_skin_cpu_palette(&m, clips[p], seconds[p], local, world, palette);
        vks_skin_cpu(&in, palette, pos, nrm, NULL);
        /* The carrier's inverse, by cofactors. */
        const float(*r)[4] = palette[j].row;
        double inv[3][4];
        const double det = r[0][0] * (r[1][1] * r[2][2] - r[1][2] * r[2][1]) -
                           r[0][1] * (r[1][0] * r[2][2] - r[1][2] * r[2][0]) +
                           r[0][2] * (r[1][0] * r[2][1] - r[1][1] * r[2][0]);
        for (int a = 0; a < 3; a++)
            for (int b = 0; b < 3; b++) {
                const int a1 = (b + 1) % 3, a2 = (b + 2) % 3, b1 = (a + 1) % 3, b2 = (a + 2) % 3;
                inv[a][b] = (r[a1][b1] * r[a2][b2] - r[a1][b2] * r[a2][b1]) / det;
            }
        for (int a = 0; a < 3; a++)
            inv[a][3] = -(inv[a][0] * r[0][3] + inv[a][1] * r[1][3] + inv[a][2] * r[2][3]);
        for (uint32_t i = 0; i < m.mesh_count; i++) {
            const vks_mesh *mesh = &m.meshes[i];
            for (uint32_t t = 0; t + 2 < mesh->index_count; t += 3) {
                uint32_t v[3];
                for (int k = 0; k < 3; k++)
                    v[k] = mesh->base_vertex + m.indices[mesh->first_index + t + k];
                double e1[3], e2[3];
                for (int a = 0; a < 3; a++) {
                    e1[a] = m.positions[v[1]][a] - m.positions[v[0]][a];
                    e2[a] = m.positions[v[2]][a] - m.positions[v[0]][a];
                }
                const double cx = e1[1] * e2[2] - e1[2] * e2[1], cy = e1[2] * e2[0] - e1[0] * e2[2],
                             cz = e1[0] * e2[1] - e1[1] * e2[0];
                const double area = 0.5 * sqrt(cx * cx + cy * cy + cz * cz);
                if (!(area > 0.0))
                    continue;
                for (uint32_t n = 0; n < per; n++) {
                    const double r1 = sqrt(uniform(&seed)), r2 = uniform(&seed);
                    const double b[3] = {1.0 - r1, r1 * (1.0 - r2), r1 * r2};
                    double x[3] = {0}, q[3];
                    for (int k = 0; k < 3; k++)
                        for (int a = 0; a < 3; a++)
                            x[a] += b[k] * pos[v[k]][a];
                    for (int a = 0; a < 3; a++)
                        q[a] = inv[a][0] * x[0] + inv[a][1] * x[1] + inv[a][2] * x[2] + inv[a][3];
                    const double w = area / per;
                    w_sum += w;
                    for (int a = 0; a < 3; a++) {
                        mean[a] += w * q[a];
                        for (int c = 0; c < 3; c++)
                            second[a][c] += w * q[a] * q[c];
                    }
                    if (p == 0) {
                        double uv[2] = {0.0, 0.0}, rgba[4];
                        const bool flat = m.uvs && m.uvs[v[0]][0] >= VKS_FLAT_UV;
                        for (int k = 0; m.uvs && k < 3; k++)
                            for (int a = 0; a < 2; a++)
                                uv[a] += flat ? (k ? 0.0 : m.uvs[v[0]][a]) : b[k] * m.uvs[v[k]][a];
                        if (flat)
                            uv[0] -= VKS_FLAT_UV;
                        color_at(&m, mesh->material, uv[0], uv[1], rgba);
                        for (int k = 0; k < 4; k++)
                            color[k] += w * rgba[k];
                        color_w += w;
                    }
                }
            }
        }
    }
    double cov[3][3];
    for (int a = 0; a < 3; a++)
        mean[a] /= w_sum;
    for (int a = 0; a < 3; a++)
        for (int c = 0; c < 3; c++)
            cov[a][c] = second[a][c] / w_sum - mean[a] * mean[c];
    const double trace = cov[0][0] + cov[1][1] + cov[2][2], spread = sqrt(trace);
    printf("%s: carried by joint %u of %u, center %.4g %.4g %.4g (sampled %.4g %.4g %.4g), spread "
           "%.4g, radius^2 %.3g, outline %.4g, color %.3f %.3f %.3f (sampled %.3f %.3f %.3f)\n",
           path, j, m.skeleton.joint_count, s->center[0], s->center[1], s->center[2], mean[0],
           mean[1], mean[2], spread, s->radius2, s->area, s->color[0], s->color[1], s->color[2],
           color[0] / color_w, color[1] / color_w, color[2] / color_w);
    CHECK_VEC_NEAR(s->center, mean, 3, 0.02 * spread);
    const int ab[6][2] = {{0, 0}, {0, 1}, {0, 2}, {1, 1}, {1, 2}, {2, 2}};
    for (int k = 0; k < 6; k++)
        CHECK_NEAR(s->cov[k], cov[ab[k][0]][ab[k][1]], 0.02 * trace);
    for (int k = 0; k < 4; k++)
        CHECK_NEAR(s->color[k], color[k] / color_w, 0.02);
    /* The outline covers at most what 3 standard deviations along the two widest axes would. */
    CHECK(s->radius2 > 0.0f && s->area > 0.0f && s->area <= 3.14159 * 9.0 * trace);
    free(pos), free(nrm), free(local), free(world), free(palette);
    vks_model_destroy(&m);
}

int main(int argc, char **argv)
{
    int rc = check_each_model_arg(argc, argv, visit, &visited);
    if (rc)
        return rc;
    return check_report("test_splat");
}
