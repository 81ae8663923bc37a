/* The CPU reference skinning on palettes whose results are known in closed form. */
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
    return check_report("test_skin");
}
