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
    vks_skin_cpu(&in, palette, (float(*)[3])out_p, (float(*)[3])out_n);
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
    return check_report("test_skin");
}
