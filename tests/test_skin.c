/* The CPU reference skinning on palettes whose results are known in closed form, with 4 and with
 * 8 influences per vertex. */
#include "check.h"
#include "skin/skin_cpu.h"

#include <string.h>

static vks_bone bone_scale_translate(float sx, float sy, float sz, float tx, float ty, float tz)
{
    return (vks_bone){{{sx, 0, 0, tx}, {0, sy, 0, ty}, {0, 0, sz, tz}}};
}

static void skin_one(const float p[3], const float n[3], const uint16_t j[4], const float w[4],
                     const vks_bone *palette, float out_p[3], float out_n[3])
{
    vks_skin_input in = {
        .vertex_count = 1,
        .positions = (const float(*)[3])p,
        .normals = (const float(*)[3])n,
        .joints = (const uint16_t(*)[4])j,
        .weights = (const float(*)[4])w,
    };
    vks_skin_cpu(&in, palette, (float(*)[3])out_p, (float(*)[3])out_n, NULL);
}

/* Skins n and the tangent t (xyz, w) of one vertex at the origin; out_t may be NULL. */
static void skin_tangent(const float n[3], const float t[4], const uint16_t j[4], const float w[4],
                         const vks_bone *palette, float out_n[3], float out_t[4])
{
    float p[3] = {0, 0, 0}, op[3];
    vks_skin_input in = {
        .vertex_count = 1,
        .positions = (const float(*)[3])p,
        .normals = (const float(*)[3])n,
        .tangents = (const float(*)[4])t,
        .joints = (const uint16_t(*)[4])j,
        .weights = (const float(*)[4])w,
    };
    vks_skin_cpu(&in, palette, (float(*)[3])op, (float(*)[3])out_n, (float(*)[4])out_t);
}

static void cross(const float a[3], const float b[3], float out[3])
{
    out[0] = a[1] * b[2] - a[2] * b[1];
    out[1] = a[2] * b[0] - a[0] * b[2];
    out[2] = a[0] * b[1] - a[1] * b[0];
}

static float dot3(const float a[3], const float b[3])
{
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

/* Tangents follow M3x3 (renormalised), not the inverse-transpose the normals take, and a mirror
 * flips their handedness. */
static void test_tangents(void)
{
    const uint16_t j0[4] = {0}, j01[4] = {0, 1, 0, 0};
    const float w0[4] = {1, 0, 0, 0};
    const float z[3] = {0, 0, 1};
    float on[3], ot[4];
    vks_bone id = bone_scale_translate(1, 1, 1, 5, 6, 7); /* translation leaves tangents alone */
    vks_bone rot[2] = {id, {{{0, -1, 0, 0}, {1, 0, 0, 0}, {0, 0, 1, 0}}}};

    /* Identity with a translation: unchanged, handedness kept. */
    skin_tangent(z, (float[4]){0, 1, 0, -1}, j0, w0, &id, on, ot);
    CHECK_VEC_NEAR(ot, ((float[4]){0, 1, 0, -1}), 4, 0);

    /* Rotation of 90 degrees about Z: x -> y, y -> -x; w unchanged. */
    skin_tangent(z, (float[4]){1, 0, 0, 1}, j01, (float[4]){0, 1, 0, 0}, rot, on, ot);
    CHECK_VEC_NEAR(ot, ((float[4]){0, 1, 0, 1}), 4, 1e-6);
    skin_tangent(z, (float[4]){0, 1, 0, -1}, j01, (float[4]){0, 1, 0, 0}, rot, on, ot);
    CHECK_VEC_NEAR(ot, ((float[4]){-1, 0, 0, -1}), 4, 1e-6);

    /* Half identity, half that rotation: M3x3 t = (0.5, 0.5, 0), renormalised. */
    skin_tangent(z, (float[4]){1, 0, 0, 1}, j01, (float[4]){0.5f, 0.5f, 0, 0}, rot, on, ot);
    CHECK_VEC_NEAR(ot, ((float[4]){0.70710678f, 0.70710678f, 0, 1}), 4, 1e-6);

    /* Non-uniform scale (2, 1, 1) on the plane x + y = c: the tangent (1, -1, 0)/sqrt 2 becomes
     * normalize(2, -1, 0) (the inverse-transpose would give normalize(0.5, -1, 0), leaving the
     * surface), and stays perpendicular to the skinned normal normalize(0.5, 1, 0). */
    vks_bone sx = bone_scale_translate(2, 1, 1, 0, 0, 0);
    const float n45[3] = {0.70710678f, 0.70710678f, 0};
    skin_tangent(n45, (float[4]){0.70710678f, -0.70710678f, 0, 1}, j0, w0, &sx, on, ot);
    CHECK_VEC_NEAR(ot, ((float[4]){0.89442719f, -0.44721360f, 0, 1}), 4, 1e-6);
    CHECK_VEC_NEAR(on, ((float[3]){0.44721360f, 0.89442719f, 0}), 3, 1e-6);
    CHECK_NEAR(dot3(on, ot), 0.0, 1e-6);

    /* A general case: scale (3, 0.5, 1.5) blended 30/70 with the rotation; n = normalize(1, 2, 3),
     * t a unit vector perpendicular to it. Skinned, t' is unit and still perpendicular to n'. */
    vks_bone mixed[2] = {bone_scale_translate(3, 0.5f, 1.5f, 1, 2, 3), rot[1]};
    float n[3] = {1, 2, 3}, t[4] = {0, 0, 0, -1};
    float inv = 1.0f / sqrtf(dot3(n, n));
    for (int k = 0; k < 3; k++)
        n[k] *= inv;
    cross(n, (float[3]){1, 0, 0}, t);
    inv = 1.0f / sqrtf(dot3(t, t));
    for (int k = 0; k < 3; k++)
        t[k] *= inv;
    skin_tangent(n, t, j01, (float[4]){0.3f, 0.7f, 0, 0}, mixed, on, ot);
    CHECK_NEAR(dot3(ot, ot), 1.0, 1e-6);
    CHECK_NEAR(dot3(on, ot), 0.0, 1e-6);
    CHECK(ot[3] == -1.0f);

    /* A mirror in x (det < 0): the tangent mirrors and w flips, so that the bitangent
     * cross(n', t') * w' is the mirrored bind bitangent cross(n, t) * w: here +y both times. */
    vks_bone mx = bone_scale_translate(-1, 1, 1, 0, 0, 0);
    skin_tangent(z, (float[4]){1, 0, 0, 1}, j0, w0, &mx, on, ot);
    CHECK_VEC_NEAR(on, z, 3, 1e-6);
    CHECK_VEC_NEAR(ot, ((float[4]){-1, 0, 0, -1}), 4, 1e-6);
    float bt[3];
    cross(on, ot, bt);
    CHECK_VEC_NEAR(((float[3]){bt[0] * ot[3], bt[1] * ot[3], bt[2] * ot[3]}), ((float[3]){0, 1, 0}),
                   3, 1e-6);
    skin_tangent(z, (float[4]){0, 1, 0, -1}, j0, w0, &mx, on, ot);
    CHECK_VEC_NEAR(ot, ((float[4]){0, 1, 0, 1}), 4, 1e-6);
    /* Mirror and non-uniform scale together: w flips, t follows M. */
    vks_bone mxs = bone_scale_translate(-2, 1, 1, 0, 0, 0);
    skin_tangent(n45, (float[4]){0.70710678f, -0.70710678f, 0, -1}, j0, w0, &mxs, on, ot);
    CHECK_VEC_NEAR(ot, ((float[4]){-0.89442719f, -0.44721360f, 0, 1}), 4, 1e-6);
    CHECK_NEAR(dot3(on, ot), 0.0, 1e-6);

    /* A zero tangent (a mesh without tangents) stays zero, without NaN, mirrored or not. */
    skin_tangent(z, (float[4]){0, 0, 0, 0}, j01, (float[4]){0.5f, 0.5f, 0, 0}, rot, on, ot);
    CHECK_VEC_NEAR(ot, ((float[4]){0, 0, 0, 0}), 4, 0);
    skin_tangent(z, (float[4]){0, 0, 0, 0}, j0, w0, &mx, on, ot);
    CHECK_VEC_NEAR(ot, ((float[4]){0, 0, 0, 0}), 4, 0);
    /* So does one that M sends to zero (a collapsed axis): 0, not NaN. */
    vks_bone flat = bone_scale_translate(0, 1, 1, 0, 0, 0);
    skin_tangent(z, (float[4]){1, 0, 0, 1}, j0, w0, &flat, on, ot);
    CHECK_VEC_NEAR(ot, ((float[3]){0, 0, 0}), 3, 0);

    /* NULL out_tangents: positions and normals as with them, nothing else written. */
    float p2[2][3] = {{1, 2, 3}, {-1, 0, 2}}, n2[2][3] = {{0, 0, 1}, {1, 0, 0}};
    float t2[2][4] = {{1, 0, 0, 1}, {0, 1, 0, -1}};
    uint16_t j2[2][4] = {{0, 1, 0, 0}, {1, 0, 0, 0}};
    float w2[2][4] = {{0.25f, 0.75f, 0, 0}, {1, 0, 0, 0}};
    vks_skin_input in = {2,
                         (const float(*)[3])p2,
                         (const float(*)[3])n2,
                         (const float(*)[4])t2,
                         (const uint16_t(*)[4])j2,
                         (const float(*)[4])w2};
    float op_a[2][3], on_a[2][3], ot_a[2][4], op_b[2][3], on_b[2][3];
    vks_skin_cpu(&in, rot, op_a, on_a, ot_a);
    vks_skin_cpu(&in, rot, op_b, on_b, NULL);
    CHECK(memcmp(op_a, op_b, sizeof op_a) == 0 && memcmp(on_a, on_b, sizeof on_a) == 0);
    /* Each vertex takes its own tangent: the second is joint 1's rotation of (0, 1, 0, -1). */
    CHECK_VEC_NEAR(ot_a[1], ((float[4]){-1, 0, 0, -1}), 4, 1e-6);

    /* No input tangents: out_tangents is left as it was. */
    in.tangents = NULL;
    float keep[2][4] = {{42, 42, 42, 42}, {42, 42, 42, 42}};
    vks_skin_cpu(&in, rot, op_b, on_b, keep);
    CHECK(keep[0][0] == 42 && keep[1][3] == 42);
    CHECK(memcmp(op_a, op_b, sizeof op_a) == 0 && memcmp(on_a, on_b, sizeof on_a) == 0);
}

/* Skins vertex_count vertices with influences 5 to 8 (joints_extra / weights_extra NULL: 4). */
static void skin_wide(uint32_t vertex_count, const float (*p)[3], const float (*n)[3],
                      const uint16_t (*j)[4], const float (*w)[4], const uint16_t (*je)[4],
                      const float (*we)[4], const vks_bone *palette, float (*out_p)[3],
                      float (*out_n)[3])
{
    vks_skin_input in = {
        .vertex_count = vertex_count,
        .positions = p,
        .normals = n,
        .joints = j,
        .weights = w,
        .joints_extra = je,
        .weights_extra = we,
    };
    vks_skin_cpu(&in, palette, out_p, out_n, NULL);
}

/* 8 influences per vertex against closed forms: translations blend to p + sum w_k t_k, over all
 * 8, each vertex with its own extra row; influences 5 to 8 change the result (dropping them fails
 * these checks by far more than the GPU tests' tolerance); zero extra weights give exactly the
 * 4-influence result; and vks_skin_input_of passes a model's extra streams on. */
static void test_wide(void)
{
    /* 8 translation-only bones, t_k = (k + 1, 2^k / 8, -k / 2). */
    vks_bone palette[8];
    float t[8][3];
    for (int k = 0; k < 8; k++) {
        t[k][0] = (float)(k + 1);
        t[k][1] = (float)(1 << k) / 8.0f;
        t[k][2] = -0.5f * (float)k;
        palette[k] = bone_scale_translate(1, 1, 1, t[k][0], t[k][1], t[k][2]);
    }
    /* Vertex 0: joints 0..3, then 4..7; vertex 1: the extras point back at the low joints and the
     * first four at the high ones, in a shuffled order. Each vertex's 8 weights sum to 1. */
    const float p[2][3] = {{1, 2, 3}, {-4, 0.5f, 2}}, n[2][3] = {{0, 0, 1}, {0.6f, 0.8f, 0}};
    const uint16_t j[2][4] = {{0, 1, 2, 3}, {7, 5, 6, 4}};
    const float w[2][4] = {{0.3f, 0.2f, 0.15f, 0.1f}, {0.25f, 0.2f, 0.15f, 0.125f}};
    const uint16_t je[2][4] = {{4, 5, 6, 7}, {2, 0, 3, 1}};
    const float we[2][4] = {{0.08f, 0.07f, 0.06f, 0.04f}, {0.1f, 0.075f, 0.05f, 0.05f}};
    float op[2][3], on[2][3];
    skin_wide(2, p, n, j, w, je, we, palette, op, on);
    for (int v = 0; v < 2; v++) {
        double expect[3] = {p[v][0], p[v][1], p[v][2]}, without[3] = {p[v][0], p[v][1], p[v][2]};
        for (int i = 0; i < 4; i++)
            for (int c = 0; c < 3; c++) {
                expect[c] += (double)w[v][i] * t[j[v][i]][c] + (double)we[v][i] * t[je[v][i]][c];
                without[c] += (double)w[v][i] * t[j[v][i]][c];
            }
        CHECK_VEC_NEAR(op[v], expect, 3, 1e-5);
        /* The normals of a blend of translations (M3x3 = sum of the 8 weights * I = I). */
        CHECK_VEC_NEAR(on[v], n[v], 3, 1e-6);
        /* Influences 5 to 8 matter here: without them the position is off by far more than the
         * GPU tests' tolerance. */
        double off = 0.0;
        for (int c = 0; c < 3; c++)
            off = fmax(off, fabs(expect[c] - without[c]));
        CHECK(off > 0.1);
    }
    /* The 4-influence path on the same first four weights misses the extras' share. */
    float op4[2][3], on4[2][3];
    skin_wide(2, p, n, j, w, NULL, NULL, palette, op4, on4);
    CHECK(fabs(op4[0][0] - op[0][0]) > 0.1 && fabs(op4[1][0] - op[1][0]) > 0.1);

    /* Influences 5 to 8 on a rotation of 90 degrees about Z, half the weight; the first four on
     * the identity: M = (I + R) / 2, a rotation of 45 degrees scaled by 1/sqrt 2. p = (1, 2, 3)
     * goes to ((1, 2, 3) + (-2, 1, 3)) / 2, the normal (1, 0, 0) to normalize(1, 1, 0). */
    vks_bone rot[2] = {bone_scale_translate(1, 1, 1, 0, 0, 0),
                       {{{0, -1, 0, 0}, {1, 0, 0, 0}, {0, 0, 1, 0}}}};
    const float pr[1][3] = {{1, 2, 3}}, nr[1][3] = {{1, 0, 0}};
    const uint16_t jr[1][4] = {{0, 0, 0, 0}}, jre[1][4] = {{1, 1, 1, 1}};
    const float wr[1][4] = {{0.2f, 0.15f, 0.1f, 0.05f}}, wre[1][4] = {{0.2f, 0.15f, 0.1f, 0.05f}};
    skin_wide(1, pr, nr, jr, wr, jre, wre, rot, op, on);
    CHECK_VEC_NEAR(op[0], ((float[3]){-0.5f, 1.5f, 3.0f}), 3, 1e-6);
    CHECK_VEC_NEAR(on[0], ((float[3]){0.70710678f, 0.70710678f, 0}), 3, 1e-6);

    /* A wide model's vertex of at most 4 influences (extra weights 0, joints 0) skins to exactly
     * what the 4-influence path gives. */
    const uint16_t jz[2][4] = {{0}};
    const float wz[2][4] = {{0}};
    const float w4[2][4] = {{0.5f, 0.25f, 0.125f, 0.125f}, {0.7f, 0.3f, 0, 0}};
    skin_wide(2, p, n, j, w4, jz, wz, palette, op, on);
    skin_wide(2, p, n, j, w4, NULL, NULL, palette, op4, on4);
    for (int v = 0; v < 2; v++)
        for (int c = 0; c < 3; c++)
            CHECK(op[v][c] == op4[v][c] && on[v][c] == on4[v][c]);

    /* vks_skin_input_of: the extra streams of a wide model, NULL for a 4-influence one. */
    vks_model m = {.vertex_count = 2,
                   .positions = (float(*)[3])p,
                   .normals = (float(*)[3])n,
                   .joints = (uint16_t(*)[4])j,
                   .weights = (float(*)[4])w,
                   .joints_extra = (uint16_t(*)[4])je,
                   .weights_extra = (float(*)[4])we};
    vks_skin_input in = vks_skin_input_of(&m);
    CHECK(in.joints_extra == je && in.weights_extra == we && in.vertex_count == 2);
    m.joints_extra = NULL;
    m.weights_extra = NULL;
    in = vks_skin_input_of(&m);
    CHECK(in.joints_extra == NULL && in.weights_extra == NULL);
}

int main(void)
{
    float p[3] = {1, 2, 3}, n[3] = {0, 0, 1}, op[3], on[3];
    const uint16_t j01[4] = {0, 1, 0, 0};

    /* Identity: unchanged. */
    vks_bone id = bone_scale_translate(1, 1, 1, 0, 0, 0);
    skin_one(p, n, (uint16_t[4]){0}, (float[4]){1, 0, 0, 0}, &id, op, on);
    CHECK_VEC_NEAR(op, p, 3, 0);
    CHECK_VEC_NEAR(on, n, 3, 0);

    /* Two translations blended 25/75. */
    vks_bone two[2] = {bone_scale_translate(1, 1, 1, 4, 0, 0),
                       bone_scale_translate(1, 1, 1, 0, 8, 0)};
    skin_one(p, n, j01, (float[4]){0.25f, 0.75f, 0, 0}, two, op, on);
    CHECK_VEC_NEAR(op, ((float[3]){2, 8, 3}), 3, 1e-6);
    CHECK_VEC_NEAR(on, n, 3, 1e-6);

    /* Non-uniform scale (2, 1, 1): the normal of the plane x + y = c becomes that of x/2 + y = c,
     * i.e. normalize(0.5, 1, 0); the plain 3x3 would give normalize(2, 1, 0). */
    vks_bone sx = bone_scale_translate(2, 1, 1, 0, 0, 0);
    float n45[3] = {0.70710678f, 0.70710678f, 0};
    skin_one(p, n45, (uint16_t[4]){0}, (float[4]){1, 0, 0, 0}, &sx, op, on);
    CHECK_VEC_NEAR(op, ((float[3]){2, 2, 3}), 3, 1e-6);
    CHECK_VEC_NEAR(on, ((float[3]){0.4472136f, 0.8944272f, 0}), 3, 1e-6);

    /* A mirror (det < 0) flips the normal with the surface. */
    vks_bone mx = bone_scale_translate(-1, 1, 1, 0, 0, 0);
    skin_one(p, (float[3]){1, 0, 0}, (uint16_t[4]){0}, (float[4]){1, 0, 0, 0}, &mx, op, on);
    CHECK_VEC_NEAR(on, ((float[3]){-1, 0, 0}), 3, 1e-6);

    /* Rotation of 90 degrees about Z on joint 1 at full weight, joint 0 present at weight 0. */
    vks_bone rot[2] = {id, {{{0, -1, 0, 0}, {1, 0, 0, 0}, {0, 0, 1, 0}}}};
    skin_one(p, (float[3]){1, 0, 0}, j01, (float[4]){0, 1, 0, 0}, rot, op, on);
    CHECK_VEC_NEAR(op, ((float[3]){-2, 1, 3}), 3, 1e-6);
    CHECK_VEC_NEAR(on, ((float[3]){0, 1, 0}), 3, 1e-6);

    /* A zero normal stays zero (no NaN). */
    skin_one(p, (float[3]){0, 0, 0}, j01, (float[4]){0.5f, 0.5f, 0, 0}, rot, op, on);
    CHECK_VEC_NEAR(on, ((float[3]){0, 0, 0}), 3, 0);

    test_tangents();
    test_wide();
    return check_report("test_skin");
}
