/* Sampling, key search, slerp, time wrapping, blending, the palette pass and the sampler
 * (anim/sampler.h), on clips built here. */
#include "anim/anim.h"
#include "anim/sampler.h"
#include "check.h"

#include <stdlib.h>
#include <string.h>

static void test_key_find(void)
{
    const float times[] = {0.0f, 1.0f, 2.0f, 3.0f};
    CHECK(vks_key_find(times, 4, -1.0f, NULL) == 0);
    CHECK(vks_key_find(times, 4, 0.0f, NULL) == 0);
    CHECK(vks_key_find(times, 4, 0.5f, NULL) == 0);
    CHECK(vks_key_find(times, 4, 1.0f, NULL) == 1);
    CHECK(vks_key_find(times, 4, 2.999f, NULL) == 2);
    CHECK(vks_key_find(times, 4, 3.0f, NULL) == 2);
    CHECK(vks_key_find(times, 4, 10.0f, NULL) == 2);
    CHECK(vks_key_find(times, 1, 5.0f, NULL) == 0);
    CHECK(vks_key_find(times, 2, 0.5f, NULL) == 0);

    /* With a hint the answer is the same for forward steps, jumps back and stale hints. */
    float many[1000];
    for (int i = 0; i < 1000; i++)
        many[i] = 0.01f * (float)i + (i % 3 ? 0.0f : 0.001f);
    uint32_t hint = 0;
    for (float t = -0.5f; t < 11.0f; t += 0.0037f)
        CHECK(vks_key_find(many, 1000, t, &hint) == vks_key_find(many, 1000, t, NULL));
    hint = 990;
    CHECK(vks_key_find(many, 1000, 0.045f, &hint) == 4);
    CHECK(hint == 4);
    hint = 123456; /* out of range: ignored */
    CHECK(vks_key_find(many, 1000, 5.0f, &hint) == vks_key_find(many, 1000, 5.0f, NULL));
}

static void quat_axis_angle(float x, float y, float z, float radians, float q[4])
{
    float s = sinf(radians / 2);
    q[0] = x * s, q[1] = y * s, q[2] = z * s, q[3] = cosf(radians / 2);
}

/* q and -q are the same rotation. */
static void check_same_rotation(const float a[4], const float b[4])
{
    float d = a[0] * b[0] + a[1] * b[1] + a[2] * b[2] + a[3] * b[3];
    CHECK_NEAR(fabs(d), 1.0, 1e-5);
}

static void test_slerp(void)
{
    float id[4] = {0, 0, 0, 1}, q90[4], q45[4], q30[4], q120[4], out[4];
    quat_axis_angle(0, 1, 0, PI_F / 2, q90);
    quat_axis_angle(0, 1, 0, PI_F / 4, q45);
    vks_quat_slerp(id, q90, 0.5f, out);
    check_same_rotation(out, q45);

    /* Shortest path: -q90 is the same rotation, the midpoint must still be 45 degrees, not 135. */
    float neg[4] = {-q90[0], -q90[1], -q90[2], -q90[3]};
    vks_quat_slerp(id, neg, 0.5f, out);
    check_same_rotation(out, q45);
    vks_quat_nlerp(id, neg, 0.5f, out);
    check_same_rotation(out, q45);

    /* Constant angular speed: a quarter of 120 degrees is 30 (nlerp would give about 26.3). */
    quat_axis_angle(0, 0, 1, 2.0f * PI_F / 3, q120);
    quat_axis_angle(0, 0, 1, PI_F / 6, q30);
    vks_quat_slerp(id, q120, 0.25f, out);
    check_same_rotation(out, q30);
    CHECK_NEAR(out[0] * out[0] + out[1] * out[1] + out[2] * out[2] + out[3] * out[3], 1.0, 1e-6);

    /* Nearly equal quaternions take the nlerp path and stay unit length. */
    float a[4], b[4];
    quat_axis_angle(1, 0, 0, 0.001f, a);
    quat_axis_angle(1, 0, 0, 0.002f, b);
    vks_quat_slerp(a, b, 0.5f, out);
    CHECK_NEAR(out[0], sinf(0.00075f), 1e-6);
    CHECK_NEAR(out[3] * out[3] + out[0] * out[0], 1.0, 1e-6);
}

/* A two-joint skeleton and a clip: joint 0 translates, joint 1 rotates (one key only for scale). */
typedef struct fixture {
    vks_skeleton sk;
    vks_clip clip;
    char *names[2];
    int32_t parents[2];
    vks_xform rest[2];
    vks_affine inverse_bind[2];
    vks_track tracks[2];
    float t_times[3], t_values[3][3];
    float r_times[2], r_values[2][4];
    float s_times[1], s_values[1][3];
} fixture;

static void fixture_init(fixture *f)
{
    memset(f, 0, sizeof *f);
    f->names[0] = "root";
    f->names[1] = "child";
    f->parents[0] = -1;
    f->parents[1] = 0;
    f->rest[0] = (vks_xform){.t = {0, 0, 0}, .r = {0, 0, 0, 1}, .s = {1, 1, 1}};
    f->rest[1] = (vks_xform){.t = {0, 1, 0}, .r = {0, 0, 0, 1}, .s = {1, 1, 1}};
    f->inverse_bind[0] = vks_affine_identity();
    f->inverse_bind[1] = vks_affine_identity();
    f->inverse_bind[1].row[1][3] = -1.0f; /* inverse of the child's bind translation */
    f->sk = (vks_skeleton){.joint_count = 2,
                           .names = f->names,
                           .parents = f->parents,
                           .rest = f->rest,
                           .inverse_bind = f->inverse_bind,
                           .root_inverse = vks_affine_identity()};
    /* Joint 0: translation keys at 0.5, 1.5, 2 s. */
    const float tt[] = {0.5f, 1.5f, 2.0f};
    const float tv[3][3] = {{0, 0, 0}, {2, 4, 6}, {2, 4, 6}};
    memcpy(f->t_times, tt, sizeof tt);
    memcpy(f->t_values, tv, sizeof tv);
    /* Joint 1: rotation from identity to 90 degrees about Z over [0, 2]; one scale key. */
    f->r_times[0] = 0.0f;
    f->r_times[1] = 2.0f;
    memcpy(f->r_values[0], (float[4]){0, 0, 0, 1}, sizeof(float[4]));
    quat_axis_angle(0, 0, 1, PI_F / 2, f->r_values[1]);
    f->s_times[0] = 1.0f;
    memcpy(f->s_values[0], (float[3]){2, 2, 2}, sizeof(float[3]));
    f->tracks[0] = (vks_track){.t_first = 0, .t_count = 3};
    f->tracks[1] = (vks_track){.r_first = 0, .r_count = 2, .s_first = 0, .s_count = 1};
    f->clip = (vks_clip){.name = "test",
                         .duration = 2.0f,
                         .channel_count = 2,
                         .tracks = f->tracks,
                         .t_key_count = 3,
                         .r_key_count = 2,
                         .s_key_count = 1,
                         .t_times = f->t_times,
                         .t_values = f->t_values,
                         .r_times = f->r_times,
                         .r_values = f->r_values,
                         .s_times = f->s_times,
                         .s_values = f->s_values};
}

static void test_sampling(void)
{
    fixture f;
    fixture_init(&f);
    vks_xform pose[2];

    vks_clip_sample(&f.sk, &f.clip, 0.0f, NULL, pose); /* before the first translation key */
    CHECK_VEC_NEAR(pose[0].t, ((float[3]){0, 0, 0}), 3, 1e-6);
    CHECK_VEC_NEAR(pose[1].t, ((float[3]){0, 1, 0}), 3, 1e-6); /* no keys: rest */
    CHECK_VEC_NEAR(pose[1].s, ((float[3]){2, 2, 2}), 3, 1e-6); /* single key: constant */
    CHECK_VEC_NEAR(pose[0].s, ((float[3]){1, 1, 1}), 3, 1e-6);

    vks_clip_sample(&f.sk, &f.clip, 1.0f, NULL, pose); /* between keys 0.5 and 1.5 */
    CHECK_VEC_NEAR(pose[0].t, ((float[3]){1, 2, 3}), 3, 1e-6);
    float q45[4];
    quat_axis_angle(0, 0, 1, PI_F / 4, q45);
    check_same_rotation(pose[1].r, q45);

    vks_clip_sample(&f.sk, &f.clip, 1.5f, NULL, pose); /* exactly at a key */
    CHECK_VEC_NEAR(pose[0].t, ((float[3]){2, 4, 6}), 3, 1e-6);

    vks_clip_sample(&f.sk, &f.clip, 7.0f, NULL, pose); /* after the last key */
    CHECK_VEC_NEAR(pose[0].t, ((float[3]){2, 4, 6}), 3, 1e-6);
    check_same_rotation(pose[1].r, f.r_values[1]);

    /* A cursor gives the same poses as stateless search, forwards and across a loop. */
    uint32_t cursor[6] = {0};
    for (double t = 0.0; t < 7.0; t += 0.093) {
        vks_xform a[2], b[2];
        float ct = vks_clip_time(&f.clip, t, VKS_WRAP_LOOP);
        vks_clip_sample(&f.sk, &f.clip, ct, cursor, a);
        vks_clip_sample(&f.sk, &f.clip, ct, NULL, b);
        CHECK(memcmp(a, b, sizeof a) == 0);
    }
}

static void test_clip_time(void)
{
    vks_clip c = {.duration = 2.0f};
    CHECK_NEAR(vks_clip_time(&c, 0.5, VKS_WRAP_LOOP), 0.5, 1e-6);
    CHECK_NEAR(vks_clip_time(&c, 2.5, VKS_WRAP_LOOP), 0.5, 1e-6); /* wrap-around */
    CHECK_NEAR(vks_clip_time(&c, 4.0, VKS_WRAP_LOOP), 0.0, 1e-6);
    CHECK_NEAR(vks_clip_time(&c, -0.5, VKS_WRAP_LOOP), 1.5, 1e-6);
    CHECK_NEAR(vks_clip_time(&c, 1000000.25, VKS_WRAP_LOOP), 0.25, 1e-6);
    CHECK(vks_clip_time(&c, 1.9999999999, VKS_WRAP_LOOP) < c.duration);
    CHECK_NEAR(vks_clip_time(&c, 3.0, VKS_WRAP_CLAMP), 2.0, 1e-6);
    CHECK_NEAR(vks_clip_time(&c, -1.0, VKS_WRAP_CLAMP), 0.0, 1e-6);
    vks_clip empty = {.duration = 0.0f};
    CHECK(vks_clip_time(&empty, 3.0, VKS_WRAP_LOOP) == 0.0f);

    /* Sampling a wrapped time equals sampling inside the first period. */
    fixture f;
    fixture_init(&f);
    vks_xform a[2], b[2];
    vks_clip_sample(&f.sk, &f.clip, vks_clip_time(&f.clip, 2.0 + 0.75, VKS_WRAP_LOOP), NULL, a);
    vks_clip_sample(&f.sk, &f.clip, 0.75f, NULL, b);
    CHECK_VEC_NEAR(a[0].t, b[0].t, 3, 1e-6);
    CHECK_VEC_NEAR(a[1].r, b[1].r, 4, 1e-6);
}

static void test_blend(void)
{
    vks_xform a = {.t = {0, 0, 0}, .r = {0, 0, 0, 1}, .s = {1, 1, 1}};
    vks_xform b = {.t = {2, 0, -2}, .s = {3, 3, 3}};
    quat_axis_angle(1, 0, 0, PI_F / 2, b.r);
    vks_xform out;
    vks_pose_blend(&a, &b, 0.0f, 1, &out);
    CHECK(memcmp(&out.t, &a.t, sizeof a.t) == 0);
    check_same_rotation(out.r, a.r);
    vks_pose_blend(&a, &b, 1.0f, 1, &out);
    CHECK_VEC_NEAR(out.t, b.t, 3, 1e-6);
    check_same_rotation(out.r, b.r);
    vks_pose_blend(&a, &b, 0.5f, 1, &out);
    CHECK_VEC_NEAR(out.t, ((float[3]){1, 0, -1}), 3, 1e-6);
    CHECK_VEC_NEAR(out.s, ((float[3]){2, 2, 2}), 3, 1e-6);
    float q45[4];
    quat_axis_angle(1, 0, 0, PI_F / 4, q45);
    check_same_rotation(out.r, q45);
    vks_pose_blend(&a, &b, 0.5f, 1, &a); /* in place */
    CHECK_VEC_NEAR(a.t, out.t, 3, 0);
}

static void test_palette(void)
{
    fixture f;
    fixture_init(&f);
    /* Root space: the scene root moved by (0, 0, 5); palettes come out in its frame. */
    f.sk.root_inverse.row[2][3] = -5.0f;
    f.rest[0].t[2] = 5.0f;
    vks_xform pose[2];
    vks_affine model[2];
    vks_bone palette[2];
    vks_pose_rest(&f.sk, pose);
    vks_pose_palette(&f.sk, pose, model, palette);
    /* Bind pose: both palette entries are identity. */
    for (int j = 0; j < 2; j++)
        for (int r = 0; r < 3; r++)
            CHECK_VEC_NEAR(palette[j].row[r], vks_affine_identity().row[r], 4, 1e-6);

    /* Rotate the child 90 degrees about Z: a point at (0, 2, 0) (one above the child joint)
     * goes to (-1, 1, 0). */
    quat_axis_angle(0, 0, 1, PI_F / 2, pose[1].r);
    vks_pose_palette(&f.sk, pose, model, palette);
    const float p[3] = {0, 2, 0};
    float out[3];
    for (int r = 0; r < 3; r++)
        out[r] = palette[1].row[r][0] * p[0] + palette[1].row[r][1] * p[1] +
                 palette[1].row[r][2] * p[2] + palette[1].row[r][3];
    CHECK_VEC_NEAR(out, ((float[3]){-1, 1, 0}), 3, 1e-6);
    CHECK_NEAR(model[1].row[1][3], 1.0, 1e-6); /* model transforms are root-relative */
    CHECK_NEAR(model[1].row[2][3], 0.0, 1e-6);
}

/* Closed form of the fixture's joint 1 at t: Rz(45 degrees * t) (identity to 90 degrees over
 * [0, 2] s at constant speed), scale 2, translation (0, 1, 0). */
static void fixture_child_local(float t, vks_affine *out)
{
    float a = PI_F / 4.0f * (t < 0.0f ? 0.0f : t > 2.0f ? 2.0f : t);
    *out = (vks_affine){{{2.0f * cosf(a), -2.0f * sinf(a), 0, 0},
                         {2.0f * sinf(a), 2.0f * cosf(a), 0, 1},
                         {0, 0, 2, 0}}};
}

static double affine_diff(const vks_affine *a, const vks_affine *b)
{
    return check_max_diff(&a->row[0][0], 12, &b->row[0][0], 12, 1, 12);
}

/* The sampler against closed forms and the direct path, with every instruction set this CPU
 * has. The fixture's channels key different times (translation 0.5, 1.5, 2; rotation 0, 2; one
 * scale key at 1, a constant): their union is 0, 0.5, 1.5, 2, and the rotation gains keys on its
 * arc at 0.5 and 1.5 that must not bend it. */
static void test_sampler(void)
{
    fixture f;
    fixture_init(&f);
    vks_sampler s;
    CHECK(vks_sampler_build(&f.sk, &f.clip, 0, &s) == VKS_SAMPLER_TOO_LARGE); /* no room */
    CHECK(s.segments == NULL && s.times == NULL);
    const vks_sampler_result built = vks_sampler_build(&f.sk, &f.clip, SIZE_MAX, &s);
    CHECK(built == VKS_SAMPLER_BUILT);
    if (built != VKS_SAMPLER_BUILT)
        return;
    /* 3 segments between the 4 times, and one of length 0 before and after. */
    CHECK(s.segment_count == 5 && s.block_count == 1 && s.joint_count == 2);
    CHECK(s.times[0] == 0.0f && s.times[1] == 0.0f && s.times[2] == 0.5f && s.times[3] == 1.5f &&
          s.times[4] == 2.0f && s.times[5] == 2.0f);
    CHECK(vks_sampler_bytes(&s) == sizeof(float) * (5 * VKS_SAMPLER_COMPONENTS * 8 + 6));
    CHECK(!vks_sampler_use_isa(&s, (vks_sampler_isa)99));

    void *scratch = aligned_alloc(64, (vks_sampler_scratch_bytes(2) + 63) & ~(size_t)63);
    float *local = aligned_alloc(64, sizeof(float) * vks_sampler_local_floats(2));
    float(*model)[4][4] = aligned_alloc(64, sizeof(float[4][4]) * 2);
    vks_bone *palette = aligned_alloc(64, 128); /* 2 entries (96 bytes), streamed into */
    vks_bone split[2], want[2];
    int isas = 0;
    for (int isa = VKS_SAMPLER_SCALAR;
         isa <= VKS_SAMPLER_AVX2 && scratch && local && model && palette; isa++) {
        if (!vks_sampler_use_isa(&s, (vks_sampler_isa)isa)) {
            printf("skipped: the sampler's %s path: this CPU lacks it\n",
                   vks_sampler_isa_name((vks_sampler_isa)isa));
            continue;
        }
        isas++;
        CHECK(vks_sampler_current_isa(&s) == (vks_sampler_isa)isa);
        double worst_closed = 0.0, worst_direct = 0.0, worst_split = 0.0;
        uint32_t cursor = 0, mismatched_cursor = 0;
        for (int k = -10; k <= 260; k++) { /* -0.1 .. 2.6 s: both clamps and every segment */
            const double t = k / 100.0;
            vks_sampler_local(&s, t, &cursor, local);
            vks_affine got, closed;
            vks_sampler_local_joint(local, 1, &got);
            fixture_child_local((float)t, &closed);
            worst_closed = fmax(worst_closed, affine_diff(&got, &closed));
            /* Joint 0: translation (0,0,0) until 0.5, to (2,4,6) at 1.5, then held. */
            vks_sampler_local_joint(local, 0, &got);
            const float u = t <= 0.5 ? 0.0f : t >= 1.5 ? 1.0f : (float)(t - 0.5);
            const vks_affine t0 = {{{1, 0, 0, 2 * u}, {0, 1, 0, 4 * u}, {0, 0, 1, 6 * u}}};
            worst_closed = fmax(worst_closed, affine_diff(&got, &t0));

            vks_xform pose[2];
            vks_clip_sample(&f.sk, &f.clip, t, NULL, pose);
            vks_affine direct_model[2];
            vks_pose_palette(&f.sk, pose, direct_model, want);
            vks_sampler_pose(&s, &f.sk, t, &cursor, scratch, palette, true);
            vks_sampler_fence();
            for (int j = 0; j < 2; j++)
                worst_direct = fmax(worst_direct, affine_diff(&palette[j], &want[j]));
            /* The three steps apart give the fused pass's floats. */
            vks_sampler_model(&s, &f.sk, local, model);
            vks_sampler_skin(&s, &f.sk, (const float(*)[4][4])model, split);
            worst_split = fmax(worst_split, check_max_diff(&split[0].row[0][0], 1,
                                                           &palette[0].row[0][0], 1, 24, 1));
            uint32_t fresh = 0; /* the hint changes the search's cost, not its answer */
            vks_sampler_pose(&s, &f.sk, t, &fresh, scratch, split, false);
            mismatched_cursor += memcmp(split, palette, sizeof split) != 0;
        }
        CHECK(worst_closed <= 2e-6);
        CHECK(worst_direct <= 2e-6);
        CHECK(worst_split == 0.0);
        CHECK(mismatched_cursor == 0);
        printf("sampler %s: %.2g from the closed form, %.2g from the direct path\n",
               vks_sampler_isa_name((vks_sampler_isa)isa), worst_closed, worst_direct);
    }
    CHECK(isas >= 1);
    vks_sampler_free(&s);
    CHECK(s.segments == NULL);

    /* The bind pose: every palette entry is the identity. */
    const vks_sampler_result rest = vks_sampler_build(&f.sk, NULL, SIZE_MAX, &s);
    CHECK(rest == VKS_SAMPLER_BUILT);
    if (rest == VKS_SAMPLER_BUILT && scratch && palette) {
        CHECK(s.segment_count == 2);
        uint32_t cursor = 0;
        vks_sampler_pose(&s, &f.sk, 0.0, &cursor, scratch, palette, false);
        const vks_affine id = vks_affine_identity();
        CHECK(affine_diff(&palette[0], &id) <= 1e-6 && affine_diff(&palette[1], &id) <= 1e-6);
        vks_sampler_free(&s);
    }
    free(scratch);
    free(local);
    free(model);
    free(palette);
}

/* Steps: keys that share a time. Before the shared time the channel runs towards the earlier
 * key, from it on the later one holds, as the direct path samples them; the sampler must not
 * interpolate across the step. Joint 0's translation x, three ways. */
static void test_sampler_steps(void)
{
    static const struct {
        float times[4], x[4];
        uint32_t count;
        double at[6], want[6];
    } cases[] = {
        /* a step inside: 0 -> 1 over [0, 1], then 5 -> 6 over [1, 2] */
        {{0, 1, 1, 2},
         {0, 1, 5, 6},
         4,
         {0.5, 0.999, 1.0, 1.5, 2.0, 2.5},
         {0.5, 0.999, 5, 5.5, 6, 6}},
        /* a step at the end: 5 from 1 on */
        {{0, 1, 1}, {0, 1, 5}, 3, {0.0, 0.5, 0.999, 1.0, 1.5, 3.0}, {0, 0.5, 0.999, 5, 5, 5}},
        /* a step at the start: 0 before 0.5, then 2 -> 3 over [0.5, 1] */
        {{0.5f, 0.5f, 1}, {0, 2, 3}, 3, {0.0, 0.25, 0.5, 0.75, 1.0, 2.0}, {0, 0, 2, 2.5, 3, 3}},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        fixture f;
        fixture_init(&f);
        float values[4][3] = {{0}};
        for (uint32_t k = 0; k < cases[c].count; k++)
            values[k][0] = cases[c].x[k];
        f.clip.t_times = (float *)cases[c].times;
        f.clip.t_values = values;
        f.clip.t_key_count = cases[c].count;
        f.tracks[0].t_count = cases[c].count;
        vks_sampler s;
        CHECK(vks_sampler_build(&f.sk, &f.clip, SIZE_MAX, &s) == VKS_SAMPLER_BUILT);
        float *local = aligned_alloc(64, sizeof(float) * vks_sampler_local_floats(2));
        uint32_t wrong_sampler = 0, wrong_direct = 0;
        for (int k = 0; k < 6 && s.segments && local; k++) {
            const double t = cases[c].at[k];
            vks_xform pose[2];
            vks_clip_sample(&f.sk, &f.clip, t, NULL, pose);
            wrong_direct += !(fabs(pose[0].t[0] - cases[c].want[k]) <= 1e-6);
            uint32_t cursor = 0;
            vks_sampler_local(&s, t, &cursor, local);
            vks_affine got;
            vks_sampler_local_joint(local, 0, &got);
            wrong_sampler += !(fabs(got.row[0][3] - cases[c].want[k]) <= 1e-6);
            if (!(fabs(got.row[0][3] - cases[c].want[k]) <= 1e-6))
                fprintf(stderr, "step case %zu at %.3f: %.6f, want %.6f\n", c, t, got.row[0][3],
                        cases[c].want[k]);
        }
        CHECK(wrong_direct == 0);
        CHECK(wrong_sampler == 0);
        free(local);
        vks_sampler_free(&s);
    }
}

int main(void)
{
    test_key_find();
    test_slerp();
    test_sampling();
    test_clip_time();
    test_blend();
    test_palette();
    test_sampler();
    test_sampler_steps();
    return check_report("test_anim");
}
