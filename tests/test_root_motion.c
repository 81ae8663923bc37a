/* Root motion (src/bake/root_motion.h, src/anim/travel.h) and the crowd that plays it, on the
 * walker (tests/walker.h), whose gaits are closed forms restated here:
 *   Load: the motion joint is Hips; "walk" travels 1 m a loop straight ahead, "spin" turns a
 *   quarter, "idle" travels nothing; the in-place walk has no root motion at all.
 *   Travel: over one loop of the walk the instance moves by the clip's displacement, over 2.5
 *   loops by 2.5 times it, and at every frame its Hips are where the authored walk puts them; the
 *   in-place pose's Hips stay within the sway and bob of the instance's spot. The spin turns the
 *   instance a quarter a loop.
 *   Cross-fade: from the walk into the idle over F seconds, the instance travels the blend of the
 *   two, sum over the steps of (1 - u) v dt with u the idle's weight after each step.
 *   Foot skate: a planted foot (from the authored stance intervals) moves at most 5% of the
 *   walking speed on the ground, played with root motion; the walk as authored, played in place
 *   without moving, fails that bound (so the test can fail).
 *   Switching root motion on and off mid-clip leaves the character's joints where they were.
 *   A motion joint the model lacks is refused, naming it.
 *   usage: test_root_motion FIXTURES_DIR */
#include "check.h"
#include "walker.h"

#include "anim/travel.h"
#include "bake/load.h"
#include "scene/crowd.h"

#define FPS 60.0
#define SKATE_SHARE 0.05 /* of the walking speed */

static bool load(const char *dir, const char *file, const char *joint, vks_model *m,
                 vks_error *err)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", dir, file);
    return vks_model_load(&(vks_import_desc){.path = path, .motion_joint = joint}, m, err);
}

static int32_t joint_named(const vks_model *m, const char *name)
{
    for (uint32_t j = 0; j < m->skeleton.joint_count; j++)
        if (strcmp(m->skeleton.names[j], name) == 0)
            return (int32_t)j;
    return -1;
}

/* A crowd of one instance of m at the origin playing `clip` from 0, root motion as asked. */
static bool one(const vks_model *m, int32_t clip, bool root_motion, vks_crowd *c)
{
    vks_error err;
    const vks_model *models[1] = {m};
    const bool ok = vks_crowd_create(&(vks_crowd_desc){.models = models,
                                                       .model_count = 1,
                                                       .clips = &clip,
                                                       .instance_count = 1,
                                                       .root_motion = root_motion},
                                     c, &err);
    if (!ok)
        fprintf(stderr, "crowd: %s\n", err.msg);
    CHECK(ok);
    return ok;
}

static void check_load(const char *dir)
{
    vks_model m;
    vks_error err;
    if (!load(dir, "walker.glb", NULL, &m, &err)) {
        fprintf(stderr, "walker.glb: %s\n", err.msg);
        CHECK(!"walker.glb loads");
        return;
    }
    CHECK(m.root_motion != NULL);
    CHECK(m.root_motion && m.motion_joint == joint_named(&m, "Hips"));
    const int32_t walk = vks_model_find_clip(&m, "walk"), spin = vks_model_find_clip(&m, "spin"),
                  idle = vks_model_find_clip(&m, "idle");
    CHECK(walk >= 0 && spin >= 0 && idle >= 0);
    if (m.root_motion && walk >= 0 && spin >= 0 && idle >= 0) {
        const vks_root_motion *w = &m.root_motion[walk], *s = &m.root_motion[spin];
        CHECK(w->sample_count > 0 && vks_model_travels(&m, walk));
        CHECK_NEAR(w->distance, walker_walk.speed * walker_walk.period, 1e-4);
        CHECK_NEAR(w->heading, 0.0, 1e-4);
        /* The loop's travel: straight ahead (+Z), the sway (x) averaged out. */
        const vks_travel loop = w->samples[w->sample_count - 1];
        CHECK_NEAR(loop.x, 0.0, 1e-4);
        CHECK_NEAR(loop.z, 1.0, 1e-4);
        CHECK(vks_model_travels(&m, spin));
        CHECK_NEAR(s->heading, 0.5 * 3.14159265358979, 1e-4);
        CHECK_NEAR(s->distance, 0.0, 1e-4);
        CHECK(!vks_model_travels(&m, idle));
    }
    vks_model_destroy(&m);
    /* The in-place walk and run travel nothing. */
    CHECK(load(dir, "walker_in_place.glb", NULL, &m, &err));
    CHECK(m.root_motion == NULL);
    vks_model_destroy(&m);
    /* A named joint that does not exist. */
    CHECK(!load(dir, "walker.glb", "Pelvis", &m, &err));
    CHECK(strstr(err.msg, "no joint named 'Pelvis'") != NULL);
    printf("load: Hips chosen, walk 1 m a loop, spin a quarter turn, idle none; 'Pelvis' refused: "
           "%s\n",
           err.msg);
}

/* Steps the crowd `frames` frames at FPS, calling visit after each (frame from 1). */
typedef void (*frame_fn)(void *ctx, vks_crowd *c, uint32_t frame);

static void run(vks_crowd *c, uint32_t frames, frame_fn visit, void *ctx)
{
    for (uint32_t f = 1; f <= frames; f++) {
        vks_crowd_advance(c, NULL, 1.0 / FPS);
        if (visit)
            visit(ctx, c, f);
    }
}

typedef struct hips_ctx {
    const vks_model *m;
    uint32_t base; /* frames run before */
    int32_t hips;
    float (*joints)[3];
    double worst_authored, worst_bob_x, worst_bob_y;
} hips_ctx;

/* The Hips against the authored root-motion walk at this frame's time; the in-place pose's Hips
 * against the instance's own spot (its world's translation). */
static void hips_frame(void *ctx, vks_crowd *c, uint32_t f)
{
    hips_ctx *h = ctx;
    vks_crowd_joints(c, 0, h->joints);
    double want[3];
    walker_hips(&walker_walk, (h->base + f) / FPS, true, want);
    for (int k = 0; k < 3; k++)
        h->worst_authored = fmax(h->worst_authored, fabs(h->joints[h->hips][k] - want[k]));
    const float *spot = c->instances[0].world[3]; /* (the walker's root is the identity) */
    h->worst_bob_x = fmax(h->worst_bob_x, fabs(h->joints[h->hips][0] - spot[0]) +
                                              fabs(h->joints[h->hips][2] - spot[2]));
    h->worst_bob_y = fmax(h->worst_bob_y, fabs(h->joints[h->hips][1] - WALKER_HIP_HEIGHT));
}

static void check_travel(const char *dir)
{
    vks_model m;
    vks_error err;
    if (!load(dir, "walker.glb", NULL, &m, &err)) {
        CHECK(!"walker.glb loads");
        return;
    }
    const int32_t walk = vks_model_find_clip(&m, "walk"), spin = vks_model_find_clip(&m, "spin");
    vks_crowd c;
    if (one(&m, walk, true, &c)) {
        hips_ctx h = {.m = &m,
                      .hips = joint_named(&m, "Hips"),
                      .joints = malloc(sizeof *h.joints * m.skeleton.joint_count)};
        /* One loop, then 2.5: the instance's spot moves by 1 and 2.5 times the displacement. */
        run(&c, (uint32_t)FPS, hips_frame, &h);
        CHECK_NEAR(c.instances[0].world[3][2], 1.0, 1e-4);
        CHECK_NEAR(c.instances[0].world[3][0], 0.0, 1e-4);
        h.base = (uint32_t)FPS;
        run(&c, (uint32_t)(1.5 * FPS), hips_frame, &h);
        CHECK_NEAR(c.instances[0].world[3][2], 2.5, 1e-4);
        CHECK_NEAR(c.instances[0].world[3][0], 0.0, 1e-4);
        /* Where the authored walk puts the Hips; the pose's own Hips within the sway and bob. */
        CHECK(h.worst_authored <= 1e-4);
        CHECK(h.worst_bob_x <= WALKER_SWAY + 1e-4);
        CHECK(h.worst_bob_y <= WALKER_BOB + 1e-4);
        /* Listed as moved, once, for the renderer's instance table. */
        CHECK(c.moved_count == 1 && c.moved[0] == 0);
        printf("travel: after 2.5 loops at z %.6f; hips off the authored walk by %.2g m at most; "
               "the pose's hips within %.4f (sway) and %.4f (bob) of the spot\n",
               c.instances[0].world[3][2], h.worst_authored, h.worst_bob_x, h.worst_bob_y);
        free(h.joints);
        vks_crowd_destroy(&c);
    }
    /* The spin: a quarter turn a 2 s loop, +Z turned towards +X, in place. */
    if (one(&m, spin, true, &c)) {
        run(&c, (uint32_t)(2.0 * FPS), NULL, NULL);
        const float *z = c.instances[0].world[2]; /* the world's image of +Z */
        CHECK_NEAR(z[0], 1.0, 1e-4);
        CHECK_NEAR(z[2], 0.0, 1e-4);
        CHECK_NEAR(c.instances[0].world[3][0], 0.0, 1e-4);
        CHECK_NEAR(c.instances[0].world[3][2], 0.0, 1e-4);
        vks_crowd_destroy(&c);
    }
    vks_model_destroy(&m);
}

/* From the walk into the idle over `fade` seconds: the travel is the blend of the walk's (v a
 * second) and the idle's (none), by the pose's weight after each step. */
static void check_fade(const char *dir)
{
    vks_model m;
    vks_error err;
    if (!load(dir, "walker.glb", NULL, &m, &err)) {
        CHECK(!"walker.glb loads");
        return;
    }
    const int32_t walk = vks_model_find_clip(&m, "walk"), idle = vks_model_find_clip(&m, "idle");
    vks_crowd c;
    if (one(&m, walk, true, &c)) {
        const uint32_t steps = 30;
        const double fade = steps / FPS, dt = 1.0 / FPS;
        vks_crowd_play(&c, 0, idle, fade);
        run(&c, steps + 30, NULL, NULL); /* past the fade: nothing more */
        double want = 0.0;
        for (uint32_t k = 1; k <= steps; k++)
            want += (1.0 - (double)k / steps) * walker_walk.speed * dt;
        CHECK_NEAR(c.instances[0].world[3][2], want, 1e-4);
        printf("cross-fade: walk into idle over %.2f s travelled %.6f m (the blend: %.6f)\n",
               fade, c.instances[0].world[3][2], want);
        vks_crowd_destroy(&c);
    }
    vks_model_destroy(&m);
}

typedef struct skate_ctx {
    int32_t feet[2];
    float (*joints)[3], last[2][3];
    double worst; /* the fastest planted foot on the ground, m/s */
    uint32_t planted;
} skate_ctx;

static void skate_frame(void *ctx, vks_crowd *c, uint32_t f)
{
    skate_ctx *s = ctx;
    vks_crowd_joints(c, 0, s->joints);
    for (int foot = 0; foot < 2; foot++) {
        const float *p = s->joints[s->feet[foot]];
        /* Planted over the whole step from the frame before (the authored stance). */
        if (f > 1 && walker_planted(&walker_walk, foot, (f - 1) / FPS) &&
            walker_planted(&walker_walk, foot, f / FPS) &&
            walker_phase(&walker_walk, foot, f / FPS) >
                walker_phase(&walker_walk, foot, (f - 1) / FPS)) {
            const double dx = p[0] - s->last[foot][0], dz = p[2] - s->last[foot][2];
            s->worst = fmax(s->worst, sqrt(dx * dx + dz * dz) * FPS);
            s->planted++;
        }
        memcpy(s->last[foot], p, sizeof s->last[foot]);
    }
}

/* The fastest a planted foot moves on the ground over two loops of `clip` of `file`. */
static double skate(const char *dir, const char *file, bool root_motion, uint32_t *planted)
{
    vks_model m;
    vks_error err;
    double worst = INFINITY;
    if (!load(dir, file, NULL, &m, &err)) {
        CHECK(!"the walker loads");
        return worst;
    }
    vks_crowd c;
    if (one(&m, vks_model_find_clip(&m, "walk"), root_motion, &c)) {
        skate_ctx s = {.feet = {joint_named(&m, "LeftFoot"), joint_named(&m, "RightFoot")},
                       .joints = malloc(sizeof *s.joints * m.skeleton.joint_count)};
        vks_crowd_joints(&c, 0, s.joints);
        for (int foot = 0; foot < 2; foot++)
            memcpy(s.last[foot], s.joints[s.feet[foot]], sizeof s.last[foot]);
        run(&c, (uint32_t)(2 * FPS), skate_frame, &s);
        worst = s.worst;
        *planted = s.planted;
        free(s.joints);
        vks_crowd_destroy(&c);
    }
    vks_model_destroy(&m);
    return worst;
}

static void check_skate(const char *dir)
{
    const double bound = SKATE_SHARE * walker_walk.speed;
    uint32_t n_rm = 0, n_still = 0;
    const double rm = skate(dir, "walker.glb", true, &n_rm);
    const double still = skate(dir, "walker_in_place.glb", false, &n_still);
    CHECK(n_rm > 100 && n_still > 100);
    CHECK(rm <= bound);
    CHECK(still > bound); /* in place and standing still, the planted foot slides */
    printf("foot skate: a planted foot moves at most %.4f m/s with root motion (bound %.3f); "
           "the in-place walk standing still slides at %.3f m/s\n",
           rm, bound, still);
}

/* Whether joint j is `top` or below it. */
static bool below(const vks_model *m, uint32_t j, int32_t top)
{
    for (int32_t a = (int32_t)j; a >= 0; a = m->skeleton.parents[a])
        if (a == top)
            return true;
    return false;
}

/* Root motion switched on, then off, mid-clip: every joint of the character (the motion joint
 * and those below it; the nodes above, which no vertex follows, go with the instance) where it
 * was at each switch. */
static void check_switch(const char *dir)
{
    vks_model m;
    vks_error err;
    if (!load(dir, "walker.glb", NULL, &m, &err)) {
        CHECK(!"walker.glb loads");
        return;
    }
    vks_crowd c;
    if (one(&m, vks_model_find_clip(&m, "walk"), false, &c)) {
        const uint32_t n = m.skeleton.joint_count;
        float(*before)[3] = malloc(sizeof *before * n), (*after)[3] = malloc(sizeof *after * n);
        double worst = 0.0;
        for (int k = 0; k < 2; k++) {
            run(&c, 37, NULL, NULL);
            vks_crowd_joints(&c, 0, before);
            CHECK(vks_crowd_set_root_motion(&c, 0, k == 0));
            CHECK(c.instances[0].root_motion == (k == 0));
            vks_crowd_joints(&c, 0, after);
            for (uint32_t j = 0; j < n; j++)
                for (int a = 0; a < 3; a++)
                    if (below(&m, j, m.motion_joint))
                        worst = fmax(worst, fabs(before[j][a] - after[j][a]));
        }
        CHECK(worst <= 1e-4);
        printf("switch: joints moved by %.2g m at most switching root motion on, then off\n",
               worst);
        free(before);
        free(after);
        vks_crowd_destroy(&c);
    }
    vks_model_destroy(&m);
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: test_root_motion FIXTURES_DIR\n");
        return 2;
    }
    check_load(argv[1]);
    check_travel(argv[1]);
    check_fade(argv[1]);
    check_skate(argv[1]);
    check_switch(argv[1]);
    return check_report("test_root_motion");
}
