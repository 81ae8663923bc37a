/* glTF that assimp 5.2 misreads, through vks_model_import, against expectations computed here from
 * the values tests/make_fixtures.c wrote (closed forms, never read back from the importer):
 * normalized-integer weights and rotation keys, KHR_mesh_quantization with KHR_texture_transform,
 * sparse accessors, a skin without inverse binds, clips out of time order, a bone without a node,
 * 6 to 10 influences per vertex, and a required extension that is not supported.
 *   usage: test_gltf_import FIXTURES_DIR */
#include "anim/anim.h"
#include "asset/import.h"
#include "check.h"
#include "skin/skin_cpu.h"

#include <stdlib.h>
#include <string.h>

static const char *fixtures;

static bool load(const char *file, vks_model *m)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", fixtures, file);
    vks_error err;
    if (!vks_model_import(&(vks_import_desc){.path = path}, m, &err)) {
        fprintf(stderr, "%s: %s\n", file, err.msg);
        CHECK(!"import failed");
        return false;
    }
    return true;
}

static int32_t joint(const vks_model *m, const char *name)
{
    for (uint32_t j = 0; j < m->skeleton.joint_count; j++)
        if (strcmp(m->skeleton.names[j], name) == 0)
            return (int32_t)j;
    fprintf(stderr, "%s: no joint '%s'\n", m->name, name);
    CHECK(!"joint missing");
    return -1;
}

static int32_t clip(const vks_model *m, const char *name)
{
    int32_t c = vks_model_find_clip(m, name);
    if (c < 0) {
        fprintf(stderr, "%s: no clip '%s'\n", m->name, name);
        CHECK(!"clip missing");
    }
    return c;
}

/* The model skinned on the CPU: clip -1 is the rest pose. Caller frees both arrays. */
typedef struct posed {
    float (*pos)[3];
    float (*nrm)[3];
} posed;

static posed pose(const vks_model *m, int32_t c, double seconds)
{
    posed p = {malloc(sizeof *p.pos * m->vertex_count), malloc(sizeof *p.nrm * m->vertex_count)};
    CHECK(vks_skin_cpu_pose(m, c, seconds, p.pos, p.nrm, NULL));
    return p;
}

static void posed_free(posed *p)
{
    free(p->pos);
    free(p->nrm);
}

/* The vertex whose bind position (positions stream, mesh space) is `at`, or -1. */
static int32_t vertex_at(const vks_model *m, const float (*positions)[3], const double at[3])
{
    for (uint32_t v = 0; v < m->vertex_count; v++)
        if (fabs(positions[v][0] - at[0]) < 1e-5 && fabs(positions[v][1] - at[1]) < 1e-5 &&
            fabs(positions[v][2] - at[2]) < 1e-5)
            return (int32_t)v;
    fprintf(stderr, "%s: no vertex at (%g, %g, %g)\n", m->name, at[0], at[1], at[2]);
    CHECK(!"vertex missing");
    return -1;
}

/* ---- influences ------------------------------------------------------------------------------ */

typedef struct influence {
    const char *joint;
    double weight;
} influence;

/* The vertex's kept influences are exactly `want` (any order), within 1e-6; the first stream
 * holds the 4 largest. */
static void check_influences(const vks_model *m, int32_t v, const influence *want, int count)
{
    if (v < 0)
        return;
    uint16_t joints[8];
    float weights[8];
    int n = (int)vks_model_influences(m, (uint32_t)v, joints, weights);
    CHECK(n == count);
    for (int i = 0; i < count; i++) {
        int32_t j = joint(m, want[i].joint);
        double got = -1.0;
        for (int k = 0; k < n; k++)
            if (joints[k] == j)
                got = weights[k];
        if (fabs(got - want[i].weight) > 1e-6)
            fprintf(stderr, "%s: vertex %d, %s: weight %.9g, want %.9g\n", m->name, v,
                    want[i].joint, got, want[i].weight);
        CHECK_NEAR(got, want[i].weight, 1e-6);
    }
    if (m->weights_extra) {
        float least_main = 1.0f, most_extra = 0.0f;
        for (int k = 0; k < 4; k++) {
            if (m->weights[v][k] > 0.0f)
                least_main = fminf(least_main, m->weights[v][k]);
            most_extra = fmaxf(most_extra, m->weights_extra[v][k]);
        }
        CHECK(most_extra <= least_main);
    }
}

/* Clip "shift" moves joint jN by (0, t (N + 1), 0): a vertex moves by t * sum w (N + 1) in y. */
static void check_shift(const vks_model *m, const double (*at)[3], const influence *const *want,
                        const int *counts, int vertex_count)
{
    int32_t c = clip(m, "shift");
    if (c < 0)
        return;
    const double t = 0.5;
    posed p = pose(m, c, t);
    for (int i = 0; i < vertex_count; i++) {
        int32_t v = vertex_at(m, (const float(*)[3])m->positions, at[i]);
        if (v < 0)
            continue;
        double dy = 0.0;
        for (int k = 0; k < counts[i]; k++)
            dy += want[i][k].weight * (atoi(want[i][k].joint + 1) + 1);
        const double expect[3] = {at[i][0], at[i][1] + t * dy, at[i][2]};
        CHECK_VEC_NEAR(p.pos[v], expect, 3, 1e-5);
    }
    posed_free(&p);
}

/* weights_u8.glb and weights_u16.glb: the same influences, stored as u8 and u16. */
static void test_quantized_weights(const char *file, double half_hi, double half_lo)
{
    vks_model m;
    if (!load(file, &m))
        return;
    static const double at[4][3] = {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {1, 1, 0}};
    const influence v0[] = {{"j0", 1.0}};
    const influence v1[] = {{"j1", 0.8}, {"j2", 0.2}};
    const influence v2[] = {{"j3", 1.0 / 3}, {"j1", 1.0 / 3}, {"j2", 1.0 / 3}};
    const influence v3[] = {{"j2", half_hi}, {"j3", half_lo}};
    const influence *want[4] = {v0, v1, v2, v3};
    const int counts[4] = {1, 2, 3, 2};
    CHECK(m.joints_extra == NULL && m.weights_extra == NULL); /* no vertex has more than 4 */
    for (int i = 0; i < 4; i++)
        check_influences(&m, vertex_at(&m, (const float(*)[3])m.positions, at[i]), want[i],
                         counts[i]);
    check_shift(&m, at, want, counts, 4);
    vks_model_destroy(&m);
}

/* ---- rotation keys --------------------------------------------------------------------------- */

/* glTF's dequantisation of normalized integers (glTF 2.0, "Animations"). */
static double dequant(long c, int bits, bool is_signed)
{
    double max = is_signed ? (double)((1L << (bits - 1)) - 1) : (double)((1L << bits) - 1);
    return fmax((double)c / max, -1.0);
}

static void quat_normalize(double q[4])
{
    double n = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
    for (int i = 0; i < 4; i++)
        q[i] /= n;
}

/* Slerp along the shortest path, in double. */
static void quat_slerp(const double a[4], const double b[4], double u, double out[4])
{
    double d = a[0] * b[0] + a[1] * b[1] + a[2] * b[2] + a[3] * b[3];
    double sign = d < 0.0 ? -1.0 : 1.0;
    d = fmin(fabs(d), 1.0);
    double theta = acos(d);
    double wa = 1.0 - u, wb = u;
    if (theta > 1e-9) {
        wa = sin((1.0 - u) * theta) / sin(theta);
        wb = sin(u * theta) / sin(theta);
    }
    for (int i = 0; i < 4; i++)
        out[i] = wa * a[i] + sign * wb * b[i];
    quat_normalize(out);
}

/* q and -q are the same rotation. */
static double quat_distance(const float a[4], const double b[4])
{
    double d = fabs(a[0] * b[0] + a[1] * b[1] + a[2] * b[2] + a[3] * b[3]);
    return sqrt(fmax(0.0, 2.0 - 2.0 * d));
}

static void rotate(const double q[4], const double v[3], double out[3])
{
    double x = q[0], y = q[1], z = q[2], w = q[3];
    double r[3][3] = {{1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)},
                      {2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)},
                      {2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)}};
    for (int i = 0; i < 3; i++)
        out[i] = r[i][0] * v[0] + r[i][1] * v[1] + r[i][2] * v[2];
}

typedef struct rotation_clip {
    const char *name;
    long keys[3][4]; /* the integers written at t = 0, 1, 2 */
    int bits;
    bool is_signed;
    double exact[4];  /* the rotation the middle key approximates */
    double tolerance; /* of the middle key against `exact`: half a step per component */
} rotation_clip;

static void check_rotation_clip(const vks_model *m, int32_t arm, const rotation_clip *rc)
{
    int32_t c = clip(m, rc->name);
    if (c < 0 || arm < 0)
        return;
    double keys[3][4];
    for (int k = 0; k < 3; k++) {
        for (int i = 0; i < 4; i++)
            keys[k][i] = dequant(rc->keys[k][i], rc->bits, rc->is_signed);
        quat_normalize(keys[k]);
    }
    double d1 =
        sqrt(fmax(0.0, 2.0 - 2.0 * fabs(keys[1][0] * rc->exact[0] + keys[1][1] * rc->exact[1] +
                                        keys[1][2] * rc->exact[2] + keys[1][3] * rc->exact[3])));
    CHECK(d1 <= rc->tolerance); /* the closed form of the fixture itself */
    vks_xform *local = malloc(sizeof *local * m->skeleton.joint_count);
    for (int step = 0; step <= 4; step++) {
        double t = 0.5 * step, want[4];
        int seg = step < 2 ? 0 : 1;
        quat_slerp(keys[seg], keys[seg + 1], t - seg, want);
        vks_clip_sample(&m->skeleton, &m->clips[c], (float)t, NULL, local);
        double dist = quat_distance(local[arm].r, want);
        if (dist > 1e-5)
            fprintf(stderr, "%s at %.1f: (%g %g %g %g), want (%g %g %g %g)\n", rc->name, t,
                    local[arm].r[0], local[arm].r[1], local[arm].r[2], local[arm].r[3], want[0],
                    want[1], want[2], want[3]);
        CHECK(dist <= 1e-5);
    }
    free(local);
    /* The vertex at (1, 0, 0) turns with arm (about the origin) at t = 1. */
    posed p = pose(m, c, 1.0);
    const double at[3] = {1, 0, 0};
    int32_t v = vertex_at(m, (const float(*)[3])m->positions, at);
    double want[3];
    rotate(keys[1], at, want);
    if (v >= 0)
        CHECK_VEC_NEAR(p.pos[v], want, 3, 1e-5);
    posed_free(&p);
}

static void test_quantized_rotation(void)
{
    vks_model m;
    if (!load("quantized_rotation.glb", &m))
        return;
    const double h = sqrt(0.5), s15 = sin(PI_F / 12), c15 = cos(PI_F / 12);
    const rotation_clip clips[4] = {
        {"rot_i8", {{0, 0, 0, 127}, {0, 0, 90, 90}, {0, 0, 0, -128}}, 8, true, {0, 0, h, h}, 1e-9},
        {"rot_i16",
         {{0, 0, 0, 32767}, {8481, 0, 0, 31650}, {0, -32768, 0, 0}},
         16,
         true,
         {s15, 0, 0, c15},
         1.0 / 32767},
        {"rot_u8",
         {{0, 0, 0, 255}, {0, 0, 180, 180}, {0, 0, 0, 255}},
         8,
         false,
         {0, 0, h, h},
         1e-9},
        {"rot_u16",
         {{0, 0, 0, 65535}, {0, 0, 32768, 56755}, {0, 0, 0, 65535}},
         16,
         false,
         {0, 0, 0.5, sqrt(0.75)},
         1.0 / 65535},
    };
    CHECK(m.clip_count == 4);
    int32_t arm = joint(&m, "arm");
    for (int i = 0; i < 4; i++)
        check_rotation_clip(&m, arm, &clips[i]);
    vks_model_destroy(&m);
}

/* ---- KHR_mesh_quantization, KHR_texture_transform ---------------------------------------------
 */

/* uv' = T(offset) R(rotation) S(scale) uv, R = [cos sin; -sin cos] (KHR_texture_transform). */
static void texture_transform(const double uv[2], const double offset[2], double rotation,
                              const double scale[2], double out[2])
{
    double c = cos(rotation), s = sin(rotation);
    double su = scale[0] * uv[0], sv = scale[1] * uv[1];
    out[0] = offset[0] + c * su + s * sv;
    out[1] = offset[1] - s * su + c * sv;
}

static const double quant_uv[4][2] = {{0, 0}, {1, 0}, {0, 1}, {0.2, 0.8}};

/* The rest position of vertex i of a mesh is `rest[i]`, its UV transform(quant_uv[i]), its skinned
 * normal along `normal[i]`. Returns the vertex indices found. */
static void check_quantized_vertices(const vks_model *m, const posed *rest, const double (*at)[3],
                                     const double (*normal)[3], const double offset[2],
                                     double rotation, const double scale[2], int32_t found[4])
{
    for (int i = 0; i < 4; i++) {
        int32_t v = found[i] = vertex_at(m, (const float(*)[3])rest->pos, at[i]);
        if (v < 0)
            continue;
        double uv[2], n = sqrt(normal[i][0] * normal[i][0] + normal[i][1] * normal[i][1] +
                               normal[i][2] * normal[i][2]);
        texture_transform(quant_uv[i], offset, rotation, scale, uv);
        CHECK_VEC_NEAR(m->uvs[v], uv, 2, 1e-5);
        const double unit[3] = {normal[i][0] / n, normal[i][1] / n, normal[i][2] / n};
        CHECK_VEC_NEAR(rest->nrm[v], unit, 3, 1e-5);
    }
}

static void test_quantized_mesh(void)
{
    vks_model m;
    if (!load("quantized_mesh.glb", &m))
        return;
    CHECK(m.material_count == 2);
    for (uint32_t i = 0; i < m.material_count; i++)
        CHECK(m.materials[i].texture >= 0);
    posed rest = pose(&m, -1, 0.0);
    /* Rigid: (1, 2, 3) + q / 1024; normals +z, +x, -y, (0, 1, 1). */
    const double rigid_at[4][3] = {{1, 2, 3}, {2, 2, 3}, {1, 3, 3}, {2, 3, 2.5}};
    const double rigid_n[4][3] = {{0, 0, 1}, {1, 0, 0}, {0, -1, 0}, {0, 1, 1}};
    int32_t v[4];
    check_quantized_vertices(&m, &rest, rigid_at, rigid_n, (double[2]){0.25, 0.5}, 0.0,
                             (double[2]){0.5, 0.25}, v);
    /* Skinned: (-1, 0, 0.5) + q / 1024 through the inverse binds; rotation pi/2 as written
     * (1.57079633 rounded to float). */
    const double skin_at[4][3] = {{-1, 0, 0.5}, {1, 0, 0.5}, {-1, 2, 0.5}, {1, 2, 1.5}};
    const double skin_n[4][3] = {{0, 0, 1}, {0, 0, 1}, {0, 0, 1}, {0, 0, 1}};
    check_quantized_vertices(&m, &rest, skin_at, skin_n, (double[2]){0.5, 0}, (double)1.57079633f,
                             (double[2]){1, 0.5}, v);
    posed_free(&rest);
    /* "bend" at t = 1: upper (origin (0, 1, 0)) has turned 90 degrees about z: v2, v3 move to
     * (0, 1, 0) + Rz(90) (p - (0, 1, 0)); v0, v1 stay. */
    int32_t c = clip(&m, "bend");
    if (c >= 0) {
        posed bent = pose(&m, c, 1.0);
        const double q[4] = {0, 0, sqrt(0.5), sqrt(0.5)};
        for (int i = 0; i < 4; i++) {
            if (v[i] < 0)
                continue;
            double rel[3] = {skin_at[i][0], skin_at[i][1] - 1, skin_at[i][2]}, want[3];
            if (i < 2) {
                memcpy(want, skin_at[i], sizeof want);
            } else {
                rotate(q, rel, want);
                want[1] += 1;
            }
            CHECK_VEC_NEAR(bent.pos[v[i]], want, 3, 1e-5);
        }
        posed_free(&bent);
    }
    vks_model_destroy(&m);
}

/* sparse.glb: vertices 0 and 3 replaced by (-1, 0, 0) and (2, 2, 0). */
static void test_sparse(void)
{
    vks_model m;
    if (!load("sparse.glb", &m))
        return;
    CHECK(m.vertex_count == 4);
    posed rest = pose(&m, -1, 0.0);
    const double at[4][3] = {{-1, 0, 0}, {1, 0, 0}, {0, 1, 0}, {2, 2, 0}};
    for (int i = 0; i < 4; i++)
        vertex_at(&m, (const float(*)[3])rest.pos, at[i]);
    posed_free(&rest);
    vks_model_destroy(&m);
}

/* ---- skins and clips ------------------------------------------------------------------------- */

static bool is_identity(const vks_affine *a)
{
    for (int r = 0; r < 3; r++)
        for (int c = 0; c < 4; c++)
            if (a->row[r][c] != (r == c ? 1.0f : 0.0f))
                return false;
    return true;
}

/* no_inverse_binds.glb: 12 bones, bone i at global (0, 0.1 i, 0), vertex i at (i % 2, 0.1 i, 0)
 * bound to bone i alone. Identity inverse binds: at rest the vertex moves by its bone's global
 * translation, to (i % 2, 0.2 i, 0). */
static void test_no_inverse_binds(void)
{
    vks_model m;
    if (!load("no_inverse_binds.glb", &m))
        return;
    posed rest = pose(&m, -1, 0.0);
    for (int i = 0; i < 12; i++) {
        char name[16];
        snprintf(name, sizeof name, "bone%d", i);
        int32_t j = joint(&m, name);
        if (j >= 0)
            CHECK(is_identity(&m.skeleton.inverse_bind[j]));
        const double at[3] = {i % 2, 0.1 * i, 0}, want[3] = {i % 2, 0.2 * i, 0};
        int32_t v = vertex_at(&m, (const float(*)[3])m.positions, at);
        if (v >= 0)
            CHECK_VEC_NEAR(rest.pos[v], want, 3, 1e-5);
    }
    posed_free(&rest);
    CHECK(clip(&m, "sway") >= 0);
    vks_model_destroy(&m);
}

/* Warnings that contain every one of the given strings. */
static int warnings_with(const vks_model *m, const char *a, const char *b)
{
    int n = 0;
    for (uint32_t i = 0; i < m->warning_count; i++)
        if (strstr(m->warnings[i], a) && (!b || strstr(m->warnings[i], b)))
            n++;
    return n;
}

static void print_warnings(const vks_model *m)
{
    for (uint32_t i = 0; i < m->warning_count; i++)
        printf("  warning: %s\n", m->warnings[i]);
}

/* Clip "shuffled" of m, repaired: its duration, and joint `name`'s translation at three times. */
static void check_shuffled(const vks_model *m, const char *name, double duration,
                           const float times[3], const double want[3][3])
{
    int32_t c = clip(m, "shuffled"), j = joint(m, name);
    CHECK(c >= 0 && j >= 0);
    if (c < 0 || j < 0)
        return;
    CHECK_NEAR(m->clips[c].duration, duration, 1e-6);
    vks_xform *local = malloc(sizeof *local * m->skeleton.joint_count);
    for (int i = 0; local && i < 3; i++) {
        vks_clip_sample(&m->skeleton, &m->clips[c], times[i], NULL, local);
        CHECK_VEC_NEAR(local[j].t, want[i], 3, 1e-6);
    }
    free(local);
}

/* clip_order.glb: "shuffled" repaired, "ambiguous" dropped with one warning naming the model and
 * the clip, the good clips kept, in file order. */
static void test_clip_order(void)
{
    vks_model m;
    if (!load("clip_order.glb", &m))
        return;
    print_warnings(&m);
    CHECK(m.clip_count == 3);
    if (m.clip_count == 3) {
        CHECK(strcmp(m.clips[0].name, "good_a") == 0);
        CHECK(strcmp(m.clips[1].name, "shuffled") == 0);
        CHECK(strcmp(m.clips[2].name, "good_b") == 0);
    }
    CHECK(vks_model_find_clip(&m, "ambiguous") < 0);
    CHECK(warnings_with(&m, "ambiguous", NULL) == 1);
    /* The model is named where the warning is printed ("vkskin render: warning: MODEL: ..."). */
    /* Sorted keys: 0 -> (0,1,0), 0.5 -> (1,1,0), 1 -> (0,3,0). */
    check_shuffled(&m, "upper", 1.0, (const float[3]){0.25f, 0.5f, 0.75f},
                   (const double[3][3]){{0.5, 1, 0}, {1, 1, 0}, {0.5, 2, 0}});
    vks_model_destroy(&m);
}

/* clip_order.x: the same rule for a format whose reader passes keys on in file order (DirectX):
 * assimp's validation would refuse the whole model; "shuffled" is sorted, "ambiguous" dropped,
 * "good" kept. Ticks at 25 per second: 0, 10, 20 -> 0, 0.4, 0.8 s. */
static void test_clip_order_x(void)
{
    vks_model m;
    if (!load("clip_order.x", &m))
        return;
    print_warnings(&m);
    CHECK(m.clip_count == 2);
    if (m.clip_count == 2)
        CHECK(strcmp(m.clips[0].name, "shuffled") == 0 && strcmp(m.clips[1].name, "good") == 0);
    CHECK(warnings_with(&m, "ambiguous", "dropped") == 1);
    CHECK(warnings_with(&m, "shuffled", "sorted") == 1);
    check_shuffled(&m, "Arm", 0.8, (const float[3]){0.2f, 0.4f, 0.6f},
                   (const double[3][3]){{0.25, 1, 0}, {0.5, 2, 0}, {0.75, 1, 0}});
    vks_model_destroy(&m);
}

/* orphan_bone.x: "Ghost" has no node: a root joint with identity rest, its palette
 * root_inverse * offset = T(-2, 0, 0) T(0, -1, 0); "Arm" keeps its node. */
static void test_orphan_bone(void)
{
    vks_model m;
    if (!load("orphan_bone.x", &m))
        return;
    print_warnings(&m);
    const vks_skeleton *sk = &m.skeleton;
    int32_t ghost = joint(&m, "Ghost"), arm = joint(&m, "Arm");
    CHECK(warnings_with(&m, "Ghost", NULL) == 1);
    if (ghost < 0 || arm < 0) {
        vks_model_destroy(&m);
        return;
    }
    CHECK(sk->parents[ghost] == -1);
    const vks_xform *r = &sk->rest[ghost];
    CHECK(r->t[0] == 0 && r->t[1] == 0 && r->t[2] == 0);
    CHECK(r->r[0] == 0 && r->r[1] == 0 && r->r[2] == 0 && r->r[3] == 1);
    CHECK(r->s[0] == 1 && r->s[1] == 1 && r->s[2] == 1);
    for (uint32_t c = 0; c < m.clip_count; c++) {
        const vks_track *t = &m.clips[c].tracks[ghost];
        CHECK(t->t_count == 0 && t->r_count == 0 && t->s_count == 0);
    }
    const float root_inverse[3][4] = {{1, 0, 0, -2}, {0, 1, 0, 0}, {0, 0, 1, 0}};
    const float ghost_palette[3][4] = {{1, 0, 0, -2}, {0, 1, 0, -1}, {0, 0, 1, 0}};
    const float arm_palette[3][4] = {{1, 0, 0, -2}, {0, 1, 0, 0}, {0, 0, 1, 0}};
    vks_xform *local = malloc(sizeof *local * sk->joint_count);
    vks_affine *model = malloc(sizeof *model * sk->joint_count);
    vks_bone *palette = malloc(sizeof *palette * sk->joint_count);
    vks_pose_rest(sk, local);
    vks_pose_palette(sk, local, model, palette);
    for (int row = 0; row < 3; row++) {
        CHECK_VEC_NEAR(sk->root_inverse.row[row], root_inverse[row], 4, 1e-6);
        CHECK_VEC_NEAR(palette[ghost].row[row], ghost_palette[row], 4, 1e-6);
        CHECK_VEC_NEAR(palette[arm].row[row], arm_palette[row], 4, 1e-6);
    }
    free(local);
    free(model);
    free(palette);
    /* v0, v1 on Arm move by (-2, 0, 0); v2, v3 on Ghost by (-2, -1, 0). */
    posed rest = pose(&m, -1, 0.0);
    static const double at[4][3] = {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {1, 1, 0}};
    for (int i = 0; i < 4; i++) {
        int32_t v = vertex_at(&m, (const float(*)[3])m.positions, at[i]);
        const double want[3] = {at[i][0] - 2, at[i][1] - (i >= 2 ? 1 : 0), at[i][2]};
        if (v >= 0)
            CHECK_VEC_NEAR(rest.pos[v], want, 3, 1e-5);
    }
    posed_free(&rest);
    vks_model_destroy(&m);
}

/* wide_influences.glb: 6, 10, 5, 1 and 9 influences; the 8 largest kept and renormalised. */
static void test_wide_influences(void)
{
    vks_model m;
    if (!load("wide_influences.glb", &m))
        return;
    CHECK(m.joints_extra != NULL && m.weights_extra != NULL);
    static const double at[5][3] = {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {1, 1, 0}, {2, 1, 0}};
    const influence v0[] = {{"j5", 0.03}, {"j0", 0.3},  {"j3", 0.15},
                            {"j1", 0.25}, {"j4", 0.07}, {"j2", 0.2}};
    influence v1[8], v4[8];
    static const char *names[10] = {"j0", "j1", "j2", "j3", "j4", "j5", "j6", "j7", "j8", "j9"};
    for (int k = 0; k < 8; k++) {
        v1[k] = (influence){names[k + 2], (k + 3) / 52.0}; /* j2..j9: (j + 1) / 52 */
        v4[k] = (influence){names[k], (9 - k) / 44.0};     /* j0..j7: (9 - j) / 44 */
    }
    const influence v2[] = {{"j0", 0.2}, {"j1", 0.2}, {"j2", 0.2}, {"j3", 0.2}, {"j4", 0.2}};
    const influence v3[] = {{"j9", 1.0}};
    const influence *want[5] = {v0, v1, v2, v3, v4};
    const int counts[5] = {6, 8, 5, 1, 8};
    if (!m.weights_extra) {
        vks_model_destroy(&m);
        return;
    }
    for (int i = 0; i < 5; i++)
        check_influences(&m, vertex_at(&m, (const float(*)[3])m.positions, at[i]), want[i],
                         counts[i]);
    const vks_influence_stats *st = &m.influences;
    CHECK(st->max_influences == 10);
    CHECK(st->truncated == 2);
    CHECK(st->histogram[8] == 2 && st->histogram[6] == 1 && st->histogram[5] == 1 &&
          st->histogram[1] == 1);
    check_shift(&m, at, want, counts, 5);
    vks_model_destroy(&m);
}

/* draco_required.glb: refused, naming the extension. */
static void test_required_extension(void)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/draco_required.glb", fixtures);
    vks_model m;
    vks_error err;
    bool ok = vks_model_import(&(vks_import_desc){.path = path}, &m, &err);
    CHECK(!ok);
    if (ok) {
        vks_model_destroy(&m);
        return;
    }
    printf("draco_required.glb: %s\n", err.msg);
    CHECK(strstr(err.msg, "KHR_draco_mesh_compression") != NULL);
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: test_gltf_import FIXTURES_DIR\n");
        return 2;
    }
    fixtures = argv[1];
    test_quantized_weights("weights_u8.glb", 128.0 / 255, 127.0 / 255);
    test_quantized_weights("weights_u16.glb", 32768.0 / 65535, 32767.0 / 65535);
    test_quantized_rotation();
    test_quantized_mesh();
    test_sparse();
    test_no_inverse_binds();
    test_clip_order();
    test_orphan_bone();
    test_clip_order_x();
    test_wide_influences();
    test_required_extension();
    return check_report("gltf_import");
}
