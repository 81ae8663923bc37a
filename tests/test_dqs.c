/* Dual-quaternion skinning's CPU reference (src/skin/dqs.h) against closed forms written here, in
 * double: one bone is exactly its similarity; a two-bone cylinder twisted by 90 and 180 degrees
 * turns each ring about its axis by the blended angle and keeps its radius, hence its volume,
 * where linear blending shrinks it by |w0 + w1 e^(i theta)|; scales blend linearly; q and -q
 * give the same vertex; what is not a similarity is refused, naming the joint and the clip. */
#include "check.h"
#include "skin/dqs.h"

#include <stdlib.h>
#include <string.h>

#define PI 3.14159265358979323846

/* The similarity R(q) s + t as a palette entry (rows). */
static vks_bone similarity(const double q[4], double s, const double t[3])
{
    const double x = q[0], y = q[1], z = q[2], w = q[3];
    const double r[3][3] = {{1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)},
                            {2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)},
                            {2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)}};
    vks_bone b;
    for (int i = 0; i < 3; i++) {
        for (int j = 0; j < 3; j++)
            b.row[i][j] = (float)(s * r[i][j]);
        b.row[i][3] = (float)t[i];
    }
    return b;
}

static double frand(double lo, double hi)
{
    return lo + (hi - lo) * rand() / (double)RAND_MAX;
}

static void random_unit_quat(double q[4])
{
    double len = 0.0;
    for (int k = 0; k < 4; k++) {
        q[k] = frand(-1.0, 1.0);
        len += q[k] * q[k];
    }
    len = sqrt(len);
    for (int k = 0; k < 4; k++)
        q[k] /= len;
}

/* One vertex, influences j and w (4 of them), skinned by the reference. */
static void skin_vertex(const vks_dq *palette, const float p[3], const float n[3], const float t[4],
                        const uint16_t j[4], const float w[4], float op[3], float on[3],
                        float ot[4])
{
    const vks_skin_input in = {.vertex_count = 1,
                               .positions = (const float(*)[3])p,
                               .normals = (const float(*)[3])n,
                               .tangents = t ? (const float(*)[4])t : NULL,
                               .joints = (const uint16_t(*)[4])j,
                               .weights = (const float(*)[4])w};
    vks_skin_cpu_dq(&in, palette, (float(*)[3])op, (float(*)[3])on, ot ? (float(*)[4])ot : NULL);
}

/* With one influence, the vertex is the similarity's image exactly (up to float rounding), its
 * normal and tangent rotated. */
static void test_one_bone(void)
{
    double worst = 0.0, worst_n = 0.0;
    for (int trial = 0; trial < 200; trial++) {
        double q[4], t[3];
        random_unit_quat(q);
        const double s = frand(0.5, 2.0);
        for (int k = 0; k < 3; k++)
            t[k] = frand(-3.0, 3.0);
        const vks_bone bone = similarity(q, s, t);
        vks_dq dq[1];
        CHECK(vks_dq_from_bone(&bone, &dq[0]));
        CHECK_NEAR(dq[0].s, s, 1e-5 * s);
        const float p[3] = {(float)frand(-1, 1), (float)frand(-1, 1), (float)frand(-1, 1)};
        const float n[3] = {0.6f, 0.0f, 0.8f}, tan[4] = {0.0f, 1.0f, 0.0f, -1.0f};
        const uint16_t j[4] = {0, 0, 0, 0};
        const float w[4] = {1, 0, 0, 0};
        float op[3], on[3], ot[4];
        skin_vertex(dq, p, n, tan, j, w, op, on, ot);
        for (int r = 0; r < 3; r++) {
            double want = bone.row[r][3], want_n = 0.0;
            for (int c = 0; c < 3; c++) {
                want += (double)bone.row[r][c] * p[c];
                want_n += (double)bone.row[r][c] / s * n[c];
            }
            worst = fmax(worst, fabs(op[r] - want));
            worst_n = fmax(worst_n, fabs(on[r] - want_n));
        }
        CHECK(ot[3] == -1.0f);
    }
    CHECK(worst < 2e-5);
    CHECK(worst_n < 2e-6);
    printf("one bone: 200 random similarities, positions within %.2g, normals within %.2g\n", worst,
           worst_n);
}

/* A cylinder of radius R along x from 0 to L, RINGS rings of SIDES vertices (radial normals,
 * tangents along x), bone 0 fixed, bone 1 turned by theta about the x axis; weights move linearly
 * from bone 0 to bone 1 along the middle half. */
enum { RINGS = 41, SIDES = 32 };
static const double R = 0.25, L = 2.0;

static double ring_weight(int ring)
{
    const double x = L * ring / (RINGS - 1), a = 0.25 * L, b = 0.75 * L;
    return x <= a ? 0.0 : x >= b ? 1.0 : (x - a) / (b - a);
}

/* The enclosed volume of the skinned cylinder, capped at both ends by fans around the axis's
 * ends (which both methods leave where they are): the divergence theorem over its triangles. */
static double cylinder_volume(const float (*p)[3])
{
    double v = 0.0;
    const double c0[3] = {0, 0, 0}, c1[3] = {L, 0, 0};
    for (int r = 0; r < RINGS; r++)
        for (int k = 0; k < SIDES; k++) {
            const int k1 = (k + 1) % SIDES;
            const float *a = p[r * SIDES + k], *b = p[r * SIDES + k1];
            double tri[4][3][3];
            int n = 0;
            if (r + 1 < RINGS) { /* the side quad a, b, b', a' (outward: counter-clockwise) */
                const float *b2 = p[(r + 1) * SIDES + k1], *a2 = p[(r + 1) * SIDES + k];
                const float *q1[3] = {a, b, b2}, *q2[3] = {a, b2, a2};
                for (int i = 0; i < 3; i++)
                    for (int c = 0; c < 3; c++) {
                        tri[n][i][c] = q1[i][c];
                        tri[n + 1][i][c] = q2[i][c];
                    }
                n += 2;
            }
            if (r == 0 || r == RINGS - 1) { /* the cap's fan */
                const double *cc = r == 0 ? c0 : c1;
                const float *first = r == 0 ? b : a, *second = r == 0 ? a : b;
                for (int c = 0; c < 3; c++) {
                    tri[n][0][c] = cc[c];
                    tri[n][1][c] = first[c];
                    tri[n][2][c] = second[c];
                }
                n++;
            }
            for (int i = 0; i < n; i++) {
                const double *x = tri[i][0], *y = tri[i][1], *z = tri[i][2];
                v += (x[0] * (y[1] * z[2] - y[2] * z[1]) - x[1] * (y[0] * z[2] - y[2] * z[0]) +
                      x[2] * (y[0] * z[1] - y[1] * z[0])) /
                     6.0;
            }
        }
    return v;
}

static void test_twist(double theta_deg)
{
    const int n = RINGS * SIDES;
    float(*p)[3] = malloc(sizeof *p * n), (*nr)[3] = malloc(sizeof *nr * n);
    float(*tg)[4] = malloc(sizeof *tg * n), (*w)[4] = malloc(sizeof *w * n);
    uint16_t(*j)[4] = malloc(sizeof *j * n);
    float(*dp)[3] = malloc(sizeof *dp * n), (*dn)[3] = malloc(sizeof *dn * n);
    float(*dt)[4] = malloc(sizeof *dt * n), (*lp)[3] = malloc(sizeof *lp * n);
    float(*ln)[3] = malloc(sizeof *ln * n), (*want)[3] = malloc(sizeof *want * n);
    if (!p || !nr || !tg || !w || !j || !dp || !dn || !dt || !lp || !ln || !want) {
        CHECK(!"memory");
        return;
    }
    const double theta = theta_deg * PI / 180.0;
    for (int r = 0; r < RINGS; r++)
        for (int k = 0; k < SIDES; k++) {
            const int v = r * SIDES + k;
            const double a = 2.0 * PI * k / SIDES, w1 = ring_weight(r);
            p[v][0] = (float)(L * r / (RINGS - 1));
            p[v][1] = (float)(R * cos(a));
            p[v][2] = (float)(R * sin(a));
            nr[v][0] = 0.0f;
            nr[v][1] = (float)cos(a);
            nr[v][2] = (float)sin(a);
            memcpy(tg[v], (float[4]){1, 0, 0, 1}, sizeof tg[v]);
            memcpy(j[v], (uint16_t[4]){0, 1, 0, 0}, sizeof j[v]);
            memcpy(w[v], (float[4]){(float)(1.0 - w1), (float)w1, 0, 0}, sizeof w[v]);
            /* Closed form: the blended rotation turns the ring about x by
             * phi = 2 atan2(w1 sin(theta / 2), w0 + w1 cos(theta / 2)), its radius kept. */
            const double phi = 2.0 * atan2(w1 * sin(theta / 2), (1.0 - w1) + w1 * cos(theta / 2));
            want[v][0] = p[v][0];
            want[v][1] = (float)(R * cos(a + phi));
            want[v][2] = (float)(R * sin(a + phi));
        }
    const double q1[4] = {sin(theta / 2), 0, 0, cos(theta / 2)}, q0[4] = {0, 0, 0, 1};
    const double zero[3] = {0, 0, 0};
    const vks_bone bones[2] = {similarity(q0, 1.0, zero), similarity(q1, 1.0, zero)};
    vks_dq dq[2];
    CHECK(vks_dq_from_bone(&bones[0], &dq[0]) && vks_dq_from_bone(&bones[1], &dq[1]));
    const vks_skin_input in = {.vertex_count = (uint32_t)n,
                               .positions = (const float(*)[3])p,
                               .normals = (const float(*)[3])nr,
                               .tangents = (const float(*)[4])tg,
                               .joints = (const uint16_t(*)[4])j,
                               .weights = (const float(*)[4])w};
    vks_skin_cpu_dq(&in, dq, dp, dn, dt);
    vks_skin_cpu(&in, bones, lp, ln, NULL);
    double worst = 0.0, worst_radius = 0.0, worst_normal = 0.0, worst_tangent = 0.0;
    double lbs_min_radius = R, want_min_radius = R;
    for (int v = 0; v < n; v++) {
        for (int c = 0; c < 3; c++)
            worst = fmax(worst, fabs(dp[v][c] - want[v][c]));
        worst_radius = fmax(worst_radius, fabs(hypot(dp[v][1], dp[v][2]) - R));
        /* The normal turns with its ring: radial, the position's direction. */
        worst_normal = fmax(worst_normal, fabs(dn[v][1] - want[v][1] / R) +
                                              fabs(dn[v][2] - want[v][2] / R) + fabs(dn[v][0]));
        worst_tangent = fmax(worst_tangent, fabs(dt[v][0] - 1.0) + fabs(dt[v][1]) + fabs(dt[v][2]) +
                                                fabs(dt[v][3] - 1.0));
        /* Linear blending: the radius is R |w0 + w1 e^(i theta)|. */
        const double w1 = w[v][1], lbs_r = R * sqrt((1 - w1) * (1 - w1) + w1 * w1 +
                                                    2 * (1 - w1) * w1 * cos(theta));
        CHECK_NEAR(hypot(lp[v][1], lp[v][2]), lbs_r, 1e-5);
        lbs_min_radius = fmin(lbs_min_radius, hypot(lp[v][1], lp[v][2]));
        want_min_radius = fmin(want_min_radius, lbs_r);
    }
    const double rest = cylinder_volume((const float(*)[3])p);
    const double dqs = cylinder_volume((const float(*)[3])dp);
    const double dqs_want = cylinder_volume((const float(*)[3])want);
    const double lbs = cylinder_volume((const float(*)[3])lp);
    /* The rest cylinder is a prism on a regular polygon: its area times its length. */
    CHECK_NEAR(rest, 0.5 * SIDES * R * R * sin(2.0 * PI / SIDES) * L, 1e-6);
    CHECK(worst < 2e-6);
    CHECK(worst_radius < 2e-6);
    CHECK(worst_normal < 1e-5);
    CHECK(worst_tangent < 1e-6);
    CHECK_NEAR(dqs, dqs_want, 1e-6 * dqs_want);
    /* A cylinder of 41 rings twisted by at most 180 / 20 degrees between rings stays within 1% of
     * its rest volume (the side quads' diagonals cut a little); linear blending loses far more. */
    CHECK(fabs(dqs - rest) < 0.01 * rest);
    CHECK(lbs < dqs);
    if (theta_deg >= 180.0)
        CHECK(lbs < 0.8 * dqs && lbs_min_radius < 1e-6);
    CHECK_NEAR(lbs_min_radius, want_min_radius, 1e-6);
    printf("twist %.0f deg: positions within %.2g of the closed form, radius within %.2g, volume "
           "%.5f (rest %.5f, closed form %.5f); linear blending %.5f, its thinnest ring %.4f of "
           "%.2f\n",
           theta_deg, worst, worst_radius, dqs, rest, dqs_want, lbs, lbs_min_radius, R);
    free(p), free(nr), free(tg), free(w), free(j), free(dp), free(dn), free(dt), free(lp), free(ln),
        free(want);
}

/* Uniform scales blend linearly before the rigid parts; pure translations blend linearly; a
 * quaternion and its negation give the same vertex. */
static void test_scale_and_sign(void)
{
    const double q0[4] = {0, 0, 0, 1}, t0[3] = {1, 2, 3}, t1[3] = {-2, 0.5, 1};
    const vks_bone bones[2] = {similarity(q0, 2.0, t0), similarity(q0, 0.5, t1)};
    vks_dq dq[2];
    CHECK(vks_dq_from_bone(&bones[0], &dq[0]) && vks_dq_from_bone(&bones[1], &dq[1]));
    const float p[3] = {0.3f, -0.4f, 0.5f}, n[3] = {0, 1, 0};
    const uint16_t j[4] = {0, 1, 0, 0};
    const float w[4] = {0.25f, 0.75f, 0, 0};
    float op[3], on[3];
    skin_vertex(dq, p, n, NULL, j, w, op, on, NULL);
    const double s = 0.25 * 2.0 + 0.75 * 0.5;
    for (int k = 0; k < 3; k++)
        CHECK_NEAR(op[k], s * p[k] + 0.25 * t0[k] + 0.75 * t1[k], 1e-6);
    CHECK_VEC_NEAR(on, n, 3, 1e-7);

    double qa[4], qb[4], ta[3] = {0.1, 0.2, 0.3}, tb[3] = {-1, 0, 2};
    random_unit_quat(qa);
    random_unit_quat(qb);
    const vks_bone pair[2] = {similarity(qa, 1.0, ta), similarity(qb, 1.5, tb)};
    vks_dq a[2], b[2];
    CHECK(vks_dq_from_bone(&pair[0], &a[0]) && vks_dq_from_bone(&pair[1], &a[1]));
    memcpy(b, a, sizeof b);
    for (int k = 0; k < 4; k++)
        b[1].q[k] = -b[1].q[k];
    float pa[3], na[3], pb[3], nb[3];
    const float w2[4] = {0.6f, 0.4f, 0, 0};
    skin_vertex(a, p, n, NULL, j, w2, pa, na, NULL);
    skin_vertex(b, p, n, NULL, j, w2, pb, nb, NULL);
    CHECK_VEC_NEAR(pa, pb, 3, 1e-6);
    CHECK_VEC_NEAR(na, nb, 3, 1e-6);
}

/* What is not a similarity is refused: a palette entry that scales one axis, shears or mirrors;
 * a model whose clip scales a joint non-uniformly, named with the joint and the clip. */
static void test_refusals(void)
{
    vks_dq d;
    const vks_bone stretch = {{{1, 0, 0, 0}, {0, 2, 0, 0}, {0, 0, 1, 0}}};
    const vks_bone shear = {{{1, 0.1f, 0, 0}, {0, 1, 0, 0}, {0, 0, 1, 0}}};
    const vks_bone mirror = {{{-1, 0, 0, 0}, {0, 1, 0, 0}, {0, 0, 1, 0}}};
    const vks_bone scaled = {{{3, 0, 0, 1}, {0, 3, 0, 0}, {0, 0, 3, 0}}};
    CHECK(!vks_dq_from_bone(&stretch, &d) && d.s == 0.0f);
    CHECK(!vks_dq_from_bone(&shear, &d));
    CHECK(!vks_dq_from_bone(&mirror, &d));
    CHECK(vks_dq_from_bone(&scaled, &d) && fabsf(d.s - 3.0f) < 1e-6f && d.q[3] == 1.0f);

    char *names[2] = {"hips", "wrist"};
    int32_t parents[2] = {-1, 0};
    vks_xform rest[2] = {{{0, 0, 0}, {0, 0, 0, 1}, {1, 1, 1}},
                         {{0, 1, 0}, {0, 0, 0, 1}, {1, 1, 1}}};
    vks_affine ib[2] = {vks_affine_identity(), vks_affine_identity()};
    vks_track tracks[2] = {{0}, {.s_first = 0, .s_count = 2}};
    float s_times[2] = {0.0f, 0.5f}, s_values[2][3] = {{1, 1, 1}, {1, 1.5f, 1}};
    vks_clip clip = {.name = "wave",
                     .duration = 1.0,
                     .channel_count = 1,
                     .tracks = tracks,
                     .s_key_count = 2,
                     .s_times = s_times,
                     .s_values = s_values};
    vks_model m = {.name = "rig",
                   .skeleton = {.joint_count = 2,
                                .bone_count = 2,
                                .names = names,
                                .parents = parents,
                                .rest = rest,
                                .inverse_bind = ib,
                                .root_inverse = vks_affine_identity()},
                   .clip_count = 1,
                   .clips = &clip};
    vks_error err;
    CHECK(!vks_dq_check_model(&m, &err));
    printf("refused: %s\n", err.msg);
    CHECK(strstr(err.msg, "joint 'wrist' scales by (1, 1.5, 1) in clip 'wave' at 0.5 s") != NULL);
    s_values[1][1] = 1.0f;
    CHECK(vks_dq_check_model(&m, &err));
    s_values[1][0] = s_values[1][1] = s_values[1][2] = 2.0f; /* uniform: taken */
    CHECK(vks_dq_check_model(&m, &err));
    s_values[1][0] = s_values[1][1] = s_values[1][2] = 0.0f; /* a part hidden: taken */
    CHECK(vks_dq_check_model(&m, &err));
    /* ... and a zero scale collapses the vertex onto the joint's translation, as a zero matrix
     * does under linear blending. */
    const vks_bone zero = {{{0, 0, 0, 1}, {0, 0, 0, 2}, {0, 0, 0, 3}}};
    vks_dq z[1];
    vks_dq_from_bone_fast(&zero, &z[0]);
    CHECK(z[0].s == 0.0f && z[0].q[3] == 1.0f);
    float zp[3], zn[3];
    skin_vertex(z, (const float[3]){0.5f, -0.5f, 0.25f}, (const float[3]){0, 1, 0}, NULL,
                (const uint16_t[4]){0, 0, 0, 0}, (const float[4]){1, 0, 0, 0}, zp, zn, NULL);
    CHECK(zp[0] == 1.0f && zp[1] == 2.0f && zp[2] == 3.0f);
    rest[0].s[0] = -1.0f; /* a mirror in the bind pose */
    CHECK(!vks_dq_check_model(&m, &err) && strstr(err.msg, "joint 'hips'") &&
          strstr(err.msg, "its rest transform"));
    rest[0].s[0] = 1.0f;
    ib[1] = shear;
    CHECK(!vks_dq_check_model(&m, &err) && strstr(err.msg, "joint 'wrist''s bind pose"));
}

int main(void)
{
    srand(7);
    test_one_bone();
    test_twist(90.0);
    test_twist(180.0);
    test_scale_and_sign();
    test_refusals();
    return check_report("dqs");
}
