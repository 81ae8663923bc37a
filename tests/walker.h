/* The walker: a biped whose gaits are authored from closed forms, so that a test knows when each
 * foot is planted without asking the code under test. tests/make_walker.c writes it, the tests
 * restate its contacts from here.
 *
 * Joints (metres, y up, facing +Z), under a still "Armature" node: Hips (0, 1.13, 0) -> Spine
 * (0, 0.3, 0) -> Head (0, 0.35, 0); Hips -> LeftUpLeg (0.1, -0.05, 0) -> LeftLeg (0, -0.5, 0) ->
 * LeftFoot (0, -0.5, 0) -> LeftToeBase (0, -0.06, 0.12), and the Right ones at x = -0.1. A box
 * on each of hips, spine, head, thighs, shins and feet, each bound whole to its joint.
 *
 * A gait of period T, speed v and stance fraction b: foot f (0 left, 1 right) is planted over
 * the phases [o_f, o_f + b) of each cycle (o = 0, 0.5), its ankle WALKER_ANKLE above the ground
 * and still in the world; it swings forward by v T over the rest, lifted by WALKER_LIFT at most.
 * The hips ride WALKER_HIP_HEIGHT high, bob by WALKER_BOB twice a cycle and sway sideways by
 * WALKER_SWAY once; the legs reach the ankles by two-bone IK (knees forward), the feet stay level.
 * Authored with root motion, the hips move forward at v; in place, they do not, and the planted
 * foot moves back at v instead. Keys at WALKER_KEY_RATE a second, linear. */
#ifndef VKS_TEST_WALKER_H
#define VKS_TEST_WALKER_H

#include <math.h>
#include <stdbool.h>

#define WALKER_KEY_RATE 60.0
#define WALKER_ANKLE 0.08
#define WALKER_LIFT 0.06
#define WALKER_HIP_HEIGHT 1.05 /* the Hips joint's, walking (1.13 in the bind pose) */
#define WALKER_BOB 0.015
#define WALKER_SWAY 0.02
#define WALKER_THIGH 0.5
#define WALKER_SHIN 0.5

typedef struct walker_gait {
    double period, speed, stance;
} walker_gait;

static const walker_gait walker_walk = {1.0, 1.0, 0.6};
static const walker_gait walker_run = {0.7, 2.2, 0.4};

/* The phase of foot f at time t, in [0, 1): planted below g.stance. */
static inline double walker_phase(const walker_gait *g, int foot, double t)
{
    const double p = t / g->period - 0.5 * foot;
    return p - floor(p);
}

static inline bool walker_planted(const walker_gait *g, int foot, double t)
{
    return walker_phase(g, foot, t) < g->stance;
}

/* The hips' position at t (root motion: moving forward at the gait's speed). */
static inline void walker_hips(const walker_gait *g, double t, bool root_motion, double out[3])
{
    const double w = 2.0 * 3.14159265358979323846 / g->period;
    out[0] = WALKER_SWAY * sin(w * t);
    out[1] = WALKER_HIP_HEIGHT + WALKER_BOB * cos(2.0 * w * t);
    out[2] = root_motion ? g->speed * t : 0.0;
}

/* Foot f's ankle at t: planted at the place its stance's middle has the hips over it, then
 * swinging to the next (eased forward, lifted by a half sine); in place, less the hips' travel. */
static inline void walker_ankle(const walker_gait *g, int foot, double t, bool root_motion,
                                double out[3])
{
    const double T = g->period, b = g->stance, v = g->speed;
    const double start = 0.5 * foot * T; /* the first stance's start */
    const double cycles = floor((t - start) / T);
    const double into = t - start - cycles * T; /* seconds into this cycle of the foot's */
    const double plant = v * (start + cycles * T + 0.5 * b * T);
    double z, y = WALKER_ANKLE;
    if (into < b * T) {
        z = plant;
    } else {
        const double u = (into - b * T) / ((1.0 - b) * T);
        const double pi = 3.14159265358979323846;
        z = plant + v * T * (0.5 - 0.5 * cos(pi * u));
        y += WALKER_LIFT * sin(pi * u);
    }
    out[0] = foot == 0 ? 0.1 : -0.1;
    out[1] = y;
    out[2] = root_motion ? z : z - v * t;
}

#endif
