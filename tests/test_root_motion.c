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
 *   Gaits (src/bake/gait.h): the in-place walk's and run's ground speeds, measured from their
 *   feet, are the authored 1 and 2.2 m/s within 1%, straight ahead; the root-motion walk's is
 *   its travel's; the idle and the spin are no locomotion.
 *   Foot skate: a planted foot (from the authored stance intervals) moves at most 5% of the
 *   walking speed on the ground, for the root-motion walk played with root motion and for the
 *   in-place walk moved at its measured ground speed (vks_crowd_set_velocities); the in-place
 *   walk played without moving fails that bound (so the test can fail).
 *   Speed blend: moved at 1.6 m/s, between the walk and the run, the instance covers 1.6 m a
 *   second and blends the two with the weight that moves their blended stride at that speed
 *   (restated here), their normalised times equal.
 *   Switching root motion on and off mid-clip leaves the character's joints where they were.
 *   A motion joint the model lacks is refused, naming it.
 *   Real clips (the sample models, when there): each in-place locomotion clip moved at its
 *   measured ground speed leaves its feet sliding, on average over their contacts (the lowest
 *   fifth of each foot's height range; the feet by name, or the two lowest leaves), no more than
 *   the best constant speed found by a search here would, plus 3% of the speed: what the author
 *   left, not more.
 *   usage: test_root_motion FIXTURES_DIR [--folder SAMPLE_MODELS] */
#include "check.h"
#include "walker.h"

#include "anim/travel.h"
#include "bake/load.h"
#include "scene/crowd.h"

#define FPS 60.0
#define SKATE_SHARE 0.05 /* of the walking speed */

static bool load(const char *dir, const char *file, const char *joint, vks_model *m, vks_error *err)
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
        printf("cross-fade: walk into idle over %.2f s travelled %.6f m (the blend: %.6f)\n", fade,
               c.instances[0].world[3][2], want);
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

/* The fastest a planted foot moves on the ground over two loops of the walk of `file`, played
 * with root motion or not, and moved (driven) at `speed` along +Z when it is not 0. */
static double skate(const char *dir, const char *file, bool root_motion, float speed,
                    uint32_t *planted)
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
        if (speed > 0.0f)
            CHECK(vks_crowd_set_velocities(&c, NULL, 0, 1, (const float[][2]){{0.0f, speed}}));
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
    uint32_t n_rm = 0, n_moved = 0, n_still = 0;
    const double rm = skate(dir, "walker.glb", true, 0.0f, &n_rm);
    /* Moved at the ground speed its feet give (checked against the authored one in check_gaits). */
    vks_model m;
    vks_error err;
    float ground = 0.0f;
    if (load(dir, "walker_in_place.glb", NULL, &m, &err)) {
        ground = m.clips[vks_model_find_clip(&m, "walk")].ground_speed;
        vks_model_destroy(&m);
    }
    const double moved = skate(dir, "walker_in_place.glb", false, ground, &n_moved);
    const double still = skate(dir, "walker_in_place.glb", false, 0.0f, &n_still);
    CHECK(n_rm > 100 && n_moved > 100 && n_still > 100);
    CHECK(rm <= bound);
    CHECK(moved <= bound);
    CHECK(still > bound); /* in place and standing still, the planted foot slides */
    printf("foot skate: a planted foot moves at most %.4f m/s with root motion and %.4f m/s "
           "moved at the measured %.4f m/s (bound %.3f); the in-place walk standing still slides "
           "at %.3f m/s\n",
           rm, moved, ground, bound, still);
}

static void check_gaits(const char *dir)
{
    vks_model m;
    vks_error err;
    if (!load(dir, "walker_in_place.glb", NULL, &m, &err)) {
        CHECK(!"walker_in_place.glb loads");
        return;
    }
    const vks_clip *walk = &m.clips[vks_model_find_clip(&m, "walk")];
    const vks_clip *runs = &m.clips[vks_model_find_clip(&m, "run")];
    CHECK_NEAR(walk->ground_speed, walker_walk.speed, 0.01 * walker_walk.speed);
    CHECK_NEAR(runs->ground_speed, walker_run.speed, 0.01 * walker_run.speed);
    CHECK_NEAR(walk->ground_dir[1], 1.0, 1e-3);
    CHECK_NEAR(runs->ground_dir[1], 1.0, 1e-3);
    printf("gaits: in place, the walk %.4f m/s and the run %.4f m/s from their feet (authored 1 "
           "and 2.2)\n",
           walk->ground_speed, runs->ground_speed);
    /* Driven at 1.6 m/s: the blend's weight (strides D = g T and durations blended alike) and
     * the distance a second. */
    vks_crowd c;
    if (one(&m, vks_model_find_clip(&m, "walk"), false, &c)) {
        const double v = 1.6, ta = walk->duration, tb = runs->duration;
        const double da = walk->ground_speed * ta, db = runs->ground_speed * tb;
        const double w = (v * ta - da) / ((db - da) - v * (tb - ta));
        CHECK(vks_crowd_set_velocities(&c, NULL, 0, 1, (const float[][2]){{0.0f, (float)v}}));
        run(&c, (uint32_t)FPS, NULL, NULL);
        const vks_crowd_instance *in = &c.instances[0];
        CHECK(in->blend && in->clip == vks_model_find_clip(&m, "run") &&
              in->from_clip == vks_model_find_clip(&m, "walk"));
        CHECK_NEAR(1.0 - in->fade_left / in->fade, w, 1e-6);
        CHECK_NEAR(in->time / tb, in->from_time / ta, 1e-6);
        CHECK_NEAR(in->world[3][2], v, 1e-4);
        printf("speed blend: at 1.6 m/s, run weighted %.4f (the strides' %.4f), phases %.4f and "
               "%.4f, 1 s covered %.5f m\n",
               1.0 - in->fade_left / in->fade, w, in->time / tb, in->from_time / ta,
               in->world[3][2]);
        vks_crowd_destroy(&c);
    }
    vks_model_destroy(&m);
    /* The root-motion walk moves at its travel's speed; the idle and the spin do not walk. */
    if (load(dir, "walker.glb", NULL, &m, &err)) {
        CHECK_NEAR(m.clips[vks_model_find_clip(&m, "walk")].ground_speed, 1.0, 1e-4);
        CHECK(m.clips[vks_model_find_clip(&m, "idle")].ground_speed == 0.0f);
        CHECK(m.clips[vks_model_find_clip(&m, "spin")].ground_speed == 0.0f);
        vks_model_destroy(&m);
    }
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

static bool foot_named(const char *name)
{
    static const char *const words[] = {"foot", "toe", "ball", "ankle"};
    char lower[256];
    size_t n = 0;
    for (; name[n] && n + 1 < sizeof lower; n++)
        lower[n] = (char)(name[n] >= 'A' && name[n] <= 'Z' ? name[n] + 32 : name[n]);
    lower[n] = '\0';
    for (int w = 0; w < 4; w++)
        if (strstr(lower, words[w]))
            return true;
    return false;
}

#define REAL_FRAMES 600

static size_t real_models;

/* The mean slide of the contacts at speed g along dir: |v + g dir| over them. */
static double mean_slide(const double (*vel)[2], uint32_t n, double g, const float dir[2])
{
    double sum = 0.0;
    for (uint32_t k = 0; k < n; k++)
        sum += hypot(vel[k][0] + g * dir[0], vel[k][1] + g * dir[1]);
    return n ? sum / n : 0.0;
}

static void check_real(const char *path)
{
    vks_model m;
    vks_error err;
    if (!vks_model_load(&(vks_import_desc){.path = path}, &m, &err)) {
        fprintf(stderr, "%s: %s\n", path, err.msg);
        CHECK(!"the sample model loads");
        return;
    }
    real_models++;
    const uint32_t joints = m.skeleton.joint_count;
    /* The feet: named, or the two lowest leaves of the bind pose. */
    uint32_t feet[64], foot_count = 0;
    for (uint32_t j = 0; j < joints && foot_count < 64; j++)
        if (foot_named(m.skeleton.names[j]))
            feet[foot_count++] = j;
    float(*at)[3] = malloc(sizeof *at * joints * (REAL_FRAMES + 1));
    double(*vel)[2] = malloc(sizeof *vel * 64 * REAL_FRAMES);
    for (uint32_t c = 0; c < m.clip_count && at && vel; c++) {
        const vks_clip *clip = &m.clips[c];
        if (!(clip->ground_speed > 0.0f) || vks_model_travels(&m, (int32_t)c))
            continue;
        vks_crowd crowd;
        if (!one(&m, (int32_t)c, false, &crowd))
            continue;
        for (uint32_t f = 0; f <= REAL_FRAMES; f++) {
            vks_crowd_joints(&crowd, 0, (float(*)[3])at[(size_t)f * joints]);
            vks_crowd_advance(&crowd, NULL, 1.0 / FPS);
        }
        if (!foot_count) { /* the two lowest leaves at frame 0 */
            for (int pick = 0; pick < 2; pick++) {
                uint32_t best = UINT32_MAX;
                for (uint32_t j = 0; j < joints; j++) {
                    bool leaf = true;
                    for (uint32_t k = 0; k < joints; k++)
                        leaf &= m.skeleton.parents[k] != (int32_t)j;
                    if (!leaf || (pick && j == feet[0]))
                        continue;
                    double lo = INFINITY, hi = -INFINITY;
                    for (uint32_t f = 0; f <= REAL_FRAMES; f++)
                        lo = fmin(lo, at[(size_t)f * joints + j][1]),
                        hi = fmax(hi, at[(size_t)f * joints + j][1]);
                    if (hi - lo > 1e-6 && (best == UINT32_MAX || at[j][1] < at[best][1]))
                        best = j;
                }
                if (best != UINT32_MAX)
                    feet[foot_count++] = best;
            }
        }
        uint32_t n = 0;
        for (uint32_t k = 0; k < foot_count; k++) {
            double lo = INFINITY, hi = -INFINITY;
            for (uint32_t f = 0; f <= REAL_FRAMES; f++) {
                const float y = at[(size_t)f * joints + feet[k]][1];
                lo = fmin(lo, y), hi = fmax(hi, y);
            }
            for (uint32_t f = 0; f < REAL_FRAMES && n < 64 * REAL_FRAMES; f++) {
                const float *a = at[(size_t)f * joints + feet[k]],
                            *b = at[(size_t)(f + 1) * joints + feet[k]];
                if (a[1] <= lo + 0.2 * (hi - lo) && hi - lo > 0.0) {
                    vel[n][0] = (b[0] - a[0]) * FPS;
                    vel[n][1] = (b[2] - a[2]) * FPS;
                    n++;
                }
            }
        }
        const double g = clip->ground_speed,
                     ours = mean_slide((const double(*)[2])vel, n, g, clip->ground_dir);
        double best = INFINITY, best_g = 0.0;
        for (int k = 0; k <= 400; k++) { /* 0.5 g .. 2.5 g */
            const double s =
                mean_slide((const double(*)[2])vel, n, g * (0.5 + k * 0.005), clip->ground_dir);
            if (s < best)
                best = s, best_g = g * (0.5 + k * 0.005);
        }
        CHECK(n > 0);
        CHECK(ours <= best + 0.03 * g);
        printf("%s, %s: moved at %.4g a second (measured), its feet slide %.4g on average; at the "
               "best speed, %.4g, %.4g: %.2f%% of the speed more\n",
               m.name, clip->name, g, ours, best_g, best, 100.0 * (ours - best) / g);
        vks_crowd_destroy(&crowd);
    }
    free(at);
    free(vel);
    vks_model_destroy(&m);
}

int main(int argc, char **argv)
{
    if (argc != 2 && !(argc == 4 && strcmp(argv[2], "--folder") == 0)) {
        fprintf(stderr, "usage: test_root_motion FIXTURES_DIR [--folder SAMPLE_MODELS]\n");
        return 2;
    }
    if (argc == 4)
        check_each_glb(argv[3], check_real);
    check_load(argv[1]);
    check_travel(argv[1]);
    check_fade(argv[1]);
    check_gaits(argv[1]);
    check_skate(argv[1]);
    check_switch(argv[1]);
    return check_report("test_root_motion");
}
