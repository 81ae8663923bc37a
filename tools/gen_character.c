/* gen_character [--pieces N [--piece-materials]] [--rig basic|full] OUT.glb
 *
 * Generates vkskin's bundled default character: a capsule humanoid (about
 * 1.8 units tall, Y up, facing +Z, feet on y = 0) with one 19-joint skin,
 * smooth skin weights, four materials and the clips "idle", "walk", "wave".
 * Everything is computed from constants, so the output is byte-identical on
 * every run.
 *
 * --pieces N (2 to 1000) cuts each of the four material groups into N
 * primitives of consecutive triangles, each with only the vertices it uses:
 * the same character as 4 N meshes sharing one skin and four materials, as
 * exporters write characters made of many parts (the many-mesh fixtures of
 * the level-of-detail tests). Without it the output is the default character.
 * --piece-materials gives each piece a single-colour material of its own, its
 * group's colour mixed with one of its own (4 N materials), as low-poly
 * characters are exported with hundreds of flat-coloured materials.
 *
 * --rig full gives the character the kind of skeleton public Mixamo-style
 * characters have, 65 joints: the 19 (same names, indices and rest pose),
 * then 46 small ones, appended in this order: twist bones at mid-length of
 * the upper arms, forearms and thighs; three phalanges for each finger and
 * the thumb of both hands; and ten face joints under the head (jaw, lips,
 * tongue, eyes, brows, cheeks). Every one is a skin bone that carries weight:
 * the hands get a palm and five fingers, the limbs blend into their twist
 * bones over their middle, the face is weighted to the face joints and gets
 * dark pupils, brows and a mouth (in the trousers' near-black, so the file
 * keeps its four materials), and the head is finer. The clips move the small
 * joints too (talking, looking around, lifting brows, curling and spreading
 * fingers, twisting with the walk) while the 19 joints move exactly as in the
 * default clips. It is the fixture of the skeleton level-of-detail tests and
 * benchmarks: far away, such small joints move no pixel and can be folded into
 * their ancestors. --rig basic, the default, is the 19-joint character; both
 * combine with --pieces.
 */
#include "glb_writer.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PI 3.14159265358979323846
#define DEG (PI / 180.0)
#define RING_STEP 0.04 /* distance between rings along a tube */
#define MAX_POINTS 8
#define MAX_INFLUENCES 16

/* ---- small vector / quaternion math (double precision) ----------------- */

typedef struct vec3 {
    double x, y, z;
} vec3;

typedef struct quat {
    double x, y, z, w;
} quat;

static vec3 v3(double x, double y, double z)
{
    return (vec3){x, y, z};
}

static vec3 v_add(vec3 a, vec3 b)
{
    return v3(a.x + b.x, a.y + b.y, a.z + b.z);
}

static vec3 v_sub(vec3 a, vec3 b)
{
    return v3(a.x - b.x, a.y - b.y, a.z - b.z);
}

static vec3 v_scale(vec3 a, double s)
{
    return v3(a.x * s, a.y * s, a.z * s);
}

static double v_dot(vec3 a, vec3 b)
{
    return a.x * b.x + a.y * b.y + a.z * b.z;
}

static double v_len(vec3 a)
{
    return sqrt(v_dot(a, a));
}

static vec3 v_lerp(vec3 a, vec3 b, double t)
{
    return v_add(a, v_scale(v_sub(b, a), t));
}

static vec3 v_cross(vec3 a, vec3 b)
{
    return v3(a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x);
}

static vec3 v_norm(vec3 a)
{
    double len = v_len(a);
    return len > 0.0 ? v_scale(a, 1.0 / len) : a;
}

static const quat Q_IDENTITY = {0.0, 0.0, 0.0, 1.0};

static quat q_axis_angle(vec3 axis, double rad)
{
    double s = sin(rad * 0.5);
    return (quat){axis.x * s, axis.y * s, axis.z * s, cos(rad * 0.5)};
}

static quat q_mul(quat a, quat b)
{
    return (quat){a.w * b.x + a.x * b.w + a.y * b.z - a.z * b.y,
                  a.w * b.y - a.x * b.z + a.y * b.w + a.z * b.x,
                  a.w * b.z + a.x * b.y - a.y * b.x + a.z * b.w,
                  a.w * b.w - a.x * b.x - a.y * b.y - a.z * b.z};
}

static quat q_norm(quat q)
{
    double len = sqrt(q.x * q.x + q.y * q.y + q.z * q.z + q.w * q.w);
    return (quat){q.x / len, q.y / len, q.z / len, q.w / len};
}

/* Rotation by x, then y, then z degrees (about the parent's axes). */
static quat q_euler(double x_deg, double y_deg, double z_deg)
{
    quat qx = q_axis_angle(v3(1, 0, 0), x_deg * DEG);
    quat qy = q_axis_angle(v3(0, 1, 0), y_deg * DEG);
    quat qz = q_axis_angle(v3(0, 0, 1), z_deg * DEG);
    return q_mul(qz, q_mul(qy, qx));
}

static vec3 q_rotate(quat q, vec3 v)
{
    vec3 u = v3(q.x, q.y, q.z);
    vec3 t = v_scale(v_cross(u, v), 2.0);
    return v_add(v_add(v, v_scale(t, q.w)), v_cross(u, t));
}

/* ---- skeleton ---------------------------------------------------------- */

enum {
    HIPS,
    SPINE,
    CHEST,
    NECK,
    HEAD,
    UPPER_ARM_L,
    FOREARM_L,
    HAND_L,
    UPPER_ARM_R,
    FOREARM_R,
    HAND_R,
    THIGH_L,
    SHIN_L,
    FOOT_L,
    TOES_L,
    THIGH_R,
    SHIN_R,
    FOOT_R,
    TOES_R,
    BASE_JOINT_COUNT, /* the default rig */
    /* --rig full appends these. Twist bones, in the order of their limbs above: */
    UPPER_ARM_TWIST_L = BASE_JOINT_COUNT,
    FOREARM_TWIST_L,
    UPPER_ARM_TWIST_R,
    FOREARM_TWIST_R,
    THIGH_TWIST_L,
    THIGH_TWIST_R,
    /* Fingers of the left hand, then of the right: FINGER_COUNT chains of PHALANX_COUNT
     * joints (thumb, index, middle, ring, pinky), see finger_joint(). */
    FINGERS_L,
    FINGERS_R = FINGERS_L + 15,
    /* Face, under the head (lower lip and tongue under the jaw). */
    JAW = FINGERS_R + 15,
    LIP_UPPER,
    LIP_LOWER,
    TONGUE,
    EYE_L,
    EYE_R,
    BROW_L,
    BROW_R,
    CHEEK_L,
    CHEEK_R,
    MAX_JOINTS /* the full rig */
};

enum { FINGER_COUNT = 5, PHALANX_COUNT = 3, THUMB = 0 };

_Static_assert(FINGERS_R - FINGERS_L == FINGER_COUNT * PHALANX_COUNT, "finger joints");
_Static_assert(MAX_JOINTS == 65, "the full rig has 65 joints");

/* Joint k (0 = nearest the hand) of finger f of the hand (HAND_L or HAND_R). */
static int finger_joint(int hand, int f, int k)
{
    return (hand == HAND_L ? FINGERS_L : FINGERS_R) + f * PHALANX_COUNT + k;
}

typedef struct joint_def {
    const char *name;
    int parent;
    vec3 offset;     /* rest translation in the parent's frame */
    double roll_deg; /* rest rotation about Z (A-pose arms) */
    double fan_deg;  /* rest rotation about X, before the roll (spread fingers, thumb) */
} joint_def;

/* Parents precede children, so globals can be accumulated in one pass. */
static const joint_def BASE_JOINTS[BASE_JOINT_COUNT] = {
    [HIPS] = {"hips", -1, {0.0, 0.95, 0.0}, 0.0, 0.0},
    [SPINE] = {"spine", HIPS, {0.0, 0.10, 0.0}, 0.0, 0.0},
    [CHEST] = {"chest", SPINE, {0.0, 0.20, 0.0}, 0.0, 0.0},
    [NECK] = {"neck", CHEST, {0.0, 0.24, 0.0}, 0.0, 0.0},
    [HEAD] = {"head", NECK, {0.0, 0.09, 0.0}, 0.0, 0.0},
    [UPPER_ARM_L] = {"upper_arm.L", CHEST, {0.175, 0.19, 0.0}, 12.0, 0.0},
    [FOREARM_L] = {"forearm.L", UPPER_ARM_L, {0.0, -0.28, 0.0}, 0.0, 0.0},
    [HAND_L] = {"hand.L", FOREARM_L, {0.0, -0.25, 0.0}, 0.0, 0.0},
    [UPPER_ARM_R] = {"upper_arm.R", CHEST, {-0.175, 0.19, 0.0}, -12.0, 0.0},
    [FOREARM_R] = {"forearm.R", UPPER_ARM_R, {0.0, -0.28, 0.0}, 0.0, 0.0},
    [HAND_R] = {"hand.R", FOREARM_R, {0.0, -0.25, 0.0}, 0.0, 0.0},
    [THIGH_L] = {"thigh.L", HIPS, {0.095, -0.05, 0.0}, 0.0, 0.0},
    [SHIN_L] = {"shin.L", THIGH_L, {0.0, -0.42, 0.0}, 0.0, 0.0},
    [FOOT_L] = {"foot.L", SHIN_L, {0.0, -0.40, 0.0}, 0.0, 0.0},
    [TOES_L] = {"toes.L", FOOT_L, {0.0, -0.05, 0.13}, 0.0, 0.0},
    [THIGH_R] = {"thigh.R", HIPS, {-0.095, -0.05, 0.0}, 0.0, 0.0},
    [SHIN_R] = {"shin.R", THIGH_R, {0.0, -0.42, 0.0}, 0.0, 0.0},
    [FOOT_R] = {"foot.R", SHIN_R, {0.0, -0.40, 0.0}, 0.0, 0.0},
    [TOES_R] = {"toes.R", FOOT_R, {0.0, -0.05, 0.13}, 0.0, 0.0},
};

/* --rig full: twist bones halfway down their bone, and the face (rig_init() makes the fingers
 * from FINGERS). The face joints sit inside the head, behind what they move, so that small
 * rotations move the skin by millimetres: the jaw low between the ears, the eyes at the centre
 * of their eyeballs, brows, cheeks and lips some centimetres behind the surface (see the face
 * layout at face_point()). */
static const joint_def EXTRA_JOINTS[MAX_JOINTS] = {
    [UPPER_ARM_TWIST_L] = {"upper_arm_twist.L", UPPER_ARM_L, {0.0, -0.14, 0.0}, 0.0, 0.0},
    [FOREARM_TWIST_L] = {"forearm_twist.L", FOREARM_L, {0.0, -0.125, 0.0}, 0.0, 0.0},
    [UPPER_ARM_TWIST_R] = {"upper_arm_twist.R", UPPER_ARM_R, {0.0, -0.14, 0.0}, 0.0, 0.0},
    [FOREARM_TWIST_R] = {"forearm_twist.R", FOREARM_R, {0.0, -0.125, 0.0}, 0.0, 0.0},
    [THIGH_TWIST_L] = {"thigh_twist.L", THIGH_L, {0.0, -0.21, 0.0}, 0.0, 0.0},
    [THIGH_TWIST_R] = {"thigh_twist.R", THIGH_R, {0.0, -0.21, 0.0}, 0.0, 0.0},
    [JAW] = {"jaw", HEAD, {0.0, 0.085, 0.0}, 0.0, 0.0},
    [LIP_UPPER] = {"lip_upper", HEAD, {0.0, 0.07, 0.05}, 0.0, 0.0},
    [LIP_LOWER] = {"lip_lower", JAW, {0.0, -0.035, 0.05}, 0.0, 0.0},
    [TONGUE] = {"tongue", JAW, {0.0, -0.025, 0.065}, 0.0, 0.0},
    [EYE_L] = {"eye.L", HEAD, {0.034, 0.125, 0.085}, 0.0, 0.0},
    [EYE_R] = {"eye.R", HEAD, {-0.034, 0.125, 0.085}, 0.0, 0.0},
    [BROW_L] = {"brow.L", HEAD, {0.034, 0.15, 0.04}, 0.0, 0.0},
    [BROW_R] = {"brow.R", HEAD, {-0.034, 0.15, 0.04}, 0.0, 0.0},
    [CHEEK_L] = {"cheek.L", HEAD, {0.035, 0.085, 0.03}, 0.0, 0.0},
    [CHEEK_R] = {"cheek.R", HEAD, {-0.035, 0.085, 0.03}, 0.0, 0.0},
};

/* One finger of the left hand (the right hand mirrors it in X). The hand's frame has Y up the
 * arm, Z forwards and X outwards, so the palm faces -X: the fingers line up from the index at
 * the front to the pinky at the back and curl about Z; the thumb starts low on the front of the
 * palm and points forwards, down and a little across the palm. */
typedef struct finger_def {
    const char *name;
    vec3 base;           /* first joint in the hand's frame */
    double fan_deg;      /* rest rotation of the first joint about X: - forwards, + backwards */
    double roll_deg;     /* and about Z: - towards the palm */
    double length[3];    /* first to second joint, second to third, third to the tip */
    double radius;       /* of the finger's tube at its base */
    double curl, spread; /* share of a hand's curl and spread in the clips, see hand_pose() */
} finger_def;

static const finger_def FINGERS[FINGER_COUNT] = {
    [THUMB] =
        {"thumb", {-0.010, -0.014, 0.018}, -45.0, -22.0, {0.036, 0.030, 0.024}, 0.0105, 0.6, -1.2},
    {"index", {-0.002, -0.078, 0.027}, -6.0, 0.0, {0.036, 0.022, 0.017}, 0.0085, 0.8, -1.0},
    {"middle", {0.0, -0.081, 0.009}, -2.0, 0.0, {0.040, 0.025, 0.018}, 0.0090, 1.0, -0.3},
    {"ring", {0.0, -0.079, -0.009}, 2.5, 0.0, {0.037, 0.024, 0.017}, 0.0085, 1.1, 0.4},
    {"pinky", {0.002, -0.074, -0.026}, 8.0, 0.0, {0.029, 0.019, 0.015}, 0.0075, 1.25, 1.0},
};

/* The rig in use: BASE_JOINTS, then with --rig full the twist, finger and face joints. */
static joint_def rig[MAX_JOINTS];
static int joint_count;

static void rig_init(bool full)
{
    static char finger_names[2 * FINGER_COUNT * PHALANX_COUNT][24];
    memcpy(rig, BASE_JOINTS, sizeof BASE_JOINTS);
    joint_count = full ? MAX_JOINTS : BASE_JOINT_COUNT;
    if (!full)
        return;
    for (int j = BASE_JOINT_COUNT; j < FINGERS_L; j++)
        rig[j] = EXTRA_JOINTS[j];
    for (int j = JAW; j < MAX_JOINTS; j++)
        rig[j] = EXTRA_JOINTS[j];
    for (int h = 0; h < 2; h++) {
        const int hand = h == 0 ? HAND_L : HAND_R;
        const double mirror = h == 0 ? 1.0 : -1.0;
        for (int f = 0; f < FINGER_COUNT; f++) {
            const finger_def *fd = &FINGERS[f];
            for (int k = 0; k < PHALANX_COUNT; k++) {
                const int j = finger_joint(hand, f, k);
                char *name = finger_names[j - FINGERS_L];
                snprintf(name, sizeof finger_names[0], "%s_%d.%c", fd->name, k + 1,
                         h == 0 ? 'L' : 'R');
                rig[j] = k == 0 ? (joint_def){name, hand,
                                              v3(mirror * fd->base.x, fd->base.y, fd->base.z),
                                              mirror * fd->roll_deg, fd->fan_deg}
                                : (joint_def){.name = name,
                                              .parent = j - 1,
                                              .offset = v3(0.0, -fd->length[k - 1], 0.0)};
            }
        }
    }
}

typedef struct skeleton {
    quat rest_rot[MAX_JOINTS];
    quat world_rot[MAX_JOINTS];
    vec3 world_pos[MAX_JOINTS];
} skeleton;

static void skeleton_init(skeleton *sk)
{
    for (int j = 0; j < joint_count; j++) {
        const joint_def *d = &rig[j];
        sk->rest_rot[j] = q_axis_angle(v3(0, 0, 1), d->roll_deg * DEG);
        if (d->fan_deg != 0.0)
            sk->rest_rot[j] =
                q_norm(q_mul(sk->rest_rot[j], q_axis_angle(v3(1, 0, 0), d->fan_deg * DEG)));
        if (d->parent < 0) {
            sk->world_rot[j] = sk->rest_rot[j];
            sk->world_pos[j] = d->offset;
        } else {
            quat prot = sk->world_rot[d->parent];
            sk->world_rot[j] = q_norm(q_mul(prot, sk->rest_rot[j]));
            sk->world_pos[j] = v_add(sk->world_pos[d->parent], q_rotate(prot, d->offset));
        }
    }
}

/* A point given in joint j's bind-pose frame, in world space. */
static vec3 joint_point(const skeleton *sk, int j, vec3 local)
{
    return v_add(sk->world_pos[j], q_rotate(sk->world_rot[j], local));
}

/* Inverse of the rigid bind transform [R|t] is [R^T | -R^T t]; the rows of
 * R^T are the joint's world axes. Written column-major. */
static void inverse_bind_matrix(const skeleton *sk, int j, float out[16])
{
    vec3 ax = q_rotate(sk->world_rot[j], v3(1, 0, 0));
    vec3 ay = q_rotate(sk->world_rot[j], v3(0, 1, 0));
    vec3 az = q_rotate(sk->world_rot[j], v3(0, 0, 1));
    vec3 t = sk->world_pos[j];
    const double m[16] = {ax.x, ay.x, az.x, 0.0, ax.y,          ay.y,          az.y,          0.0,
                          ax.z, ay.z, az.z, 0.0, -v_dot(ax, t), -v_dot(ay, t), -v_dot(az, t), 1.0};
    for (int i = 0; i < 16; i++)
        out[i] = (float)m[i];
}

/* ---- geometry ---------------------------------------------------------- */

enum { GROUP_SKIN, GROUP_SHIRT, GROUP_TROUSERS, GROUP_SHOES, GROUP_COUNT };

typedef struct vertex {
    vec3 pos;
    vec3 nrm;
    double u, v;
    int joints[4];
    double weights[4];
} vertex;

typedef struct group {
    vertex *verts;
    size_t vert_count, vert_cap;
    uint16_t *indices;
    size_t index_count, index_cap;
} group;

typedef struct ctrl {
    vec3 p;
    double rx, rz; /* half-axes along the side vector and across it */
} ctrl;

/* Weighting segment: vertices near a..b follow `joint`. Distances are measured from the ring's
 * centre (blending along the tube), or from the vertex itself when `per_vertex` is set (a side
 * branch, such as the upper arm pulling the top of the torso at the shoulder). A `paint`
 * influence (the face regions of the full rig) is measured from the vertex too, but instead of
 * joining the blend it takes a share of what the others gave: all of it within reach / 2 of
 * a..b, fading smoothly to none at `reach`, as an artist paints a region over the weights. */
typedef struct influence {
    int joint;
    vec3 a, b;
    bool per_vertex;
    bool paint;
    double reach;
} influence;

/* Influences below this share of the total are dropped before renormalising, so that no weight
 * rounds to zero in float while its joint index stays in the file. */
#define MIN_WEIGHT 0.02

typedef struct part {
    int group;
    ctrl pts[MAX_POINTS];
    int point_count;
    vec3 side; /* direction of the rx half-axis, projected off the tube axis */
    vec3 axis; /* tube direction, used only when point_count == 1 */
    double cap_start, cap_end;
    int cap_rings;
    int sides;
    double ring_step; /* distance between body rings; 0: RING_STEP */
    influence inf[MAX_INFLUENCES];
    int influence_count;
    double blend; /* distance over which a vertex blends into a neighbouring bone */
} part;

typedef struct ring {
    vec3 c, t;
    double rx, rz;
    double v;
    bool pole;
} ring;

static bool grow(void *parray, size_t *cap, size_t need, size_t elem)
{
    if (need <= *cap)
        return true;
    size_t new_cap = *cap ? *cap * 2 : 1024;
    while (new_cap < need)
        new_cap *= 2;
    void *old;
    memcpy(&old, parray, sizeof old);
    void *grown = realloc(old, new_cap * elem);
    if (!grown)
        return false;
    memcpy(parray, &grown, sizeof grown);
    *cap = new_cap;
    return true;
}

static double smoothstep(double e0, double e1, double x)
{
    double t = (x - e0) / (e1 - e0);
    t = t < 0.0 ? 0.0 : (t > 1.0 ? 1.0 : t);
    return t * t * (3.0 - 2.0 * t);
}

static double point_segment_distance(vec3 p, vec3 a, vec3 b)
{
    vec3 ab = v_sub(b, a);
    double len2 = v_dot(ab, ab);
    double t = len2 > 0.0 ? v_dot(v_sub(p, a), ab) / len2 : 0.0;
    t = t < 0.0 ? 0.0 : (t > 1.0 ? 1.0 : t);
    return v_len(v_sub(p, v_lerp(a, b, t)));
}

/* Up to four influences, strongest first, summing to 1. Each segment's
 * weight falls off as (1 - d/blend)^2 with the distance d of the ring centre
 * (or of the vertex, see influence), so a ring exactly at a joint splits
 * 50/50 and the blend fades smoothly. Painted influences then take their shares, in order. */
static void skin_weights(const part *p, vec3 c, vec3 pos, int joints[4], double weights[4])
{
    double w[MAX_INFLUENCES], total = 0.0;
    int nearest = 0;
    double nearest_d = HUGE_VAL;
    for (int i = 0; i < p->influence_count; i++) {
        w[i] = 0.0;
        if (p->inf[i].paint)
            continue;
        double d = point_segment_distance(p->inf[i].per_vertex ? pos : c, p->inf[i].a, p->inf[i].b);
        double f = d < p->blend ? 1.0 - d / p->blend : 0.0;
        w[i] = f * f;
        total += w[i];
        if (d < nearest_d) {
            nearest_d = d;
            nearest = i;
        }
    }
    for (int i = 0; i < p->influence_count; i++) {
        if (!p->inf[i].paint)
            continue;
        const influence *in = &p->inf[i];
        double share =
            1.0 - smoothstep(0.5 * in->reach, in->reach, point_segment_distance(pos, in->a, in->b));
        for (int k = 0; k < p->influence_count; k++)
            w[k] *= 1.0 - share;
        w[i] = share * total;
    }
    double sum = 0.0;
    for (int k = 0; k < 4; k++) {
        int best = -1;
        for (int i = 0; i < p->influence_count; i++)
            if (w[i] > 0.0 && (best < 0 || w[i] > w[best]))
                best = i;
        joints[k] = best < 0 ? 0 : p->inf[best].joint;
        weights[k] = best < 0 ? 0.0 : w[best];
        sum += weights[k];
        if (best >= 0)
            w[best] = 0.0;
    }
    if (sum == 0.0) {
        joints[0] = p->inf[nearest].joint;
        weights[0] = sum = 1.0;
    }
    double kept = 0.0;
    for (int k = 0; k < 4; k++) {
        if (weights[k] < MIN_WEIGHT * sum) {
            joints[k] = 0;
            weights[k] = 0.0;
        }
        kept += weights[k];
    }
    for (int k = 0; k < 4; k++)
        weights[k] /= kept;
}

static double polyline_length(const part *p)
{
    double len = 0.0;
    for (int i = 1; i < p->point_count; i++)
        len += v_len(v_sub(p->pts[i].p, p->pts[i - 1].p));
    return len;
}

/* Tangent at control point i: average of the adjacent segment directions. */
static vec3 point_tangent(const part *p, int i)
{
    if (p->point_count == 1)
        return v_norm(p->axis);
    vec3 t = v3(0, 0, 0);
    if (i > 0)
        t = v_add(t, v_norm(v_sub(p->pts[i].p, p->pts[i - 1].p)));
    if (i + 1 < p->point_count)
        t = v_add(t, v_norm(v_sub(p->pts[i + 1].p, p->pts[i].p)));
    return v_norm(t);
}

/* Ring at arc length s along the control polyline. */
static ring body_ring(const part *p, double s)
{
    if (p->point_count == 1)
        return (ring){p->pts[0].p, point_tangent(p, 0), p->pts[0].rx, p->pts[0].rz, 0.0, false};
    int i = 0;
    double seg = v_len(v_sub(p->pts[1].p, p->pts[0].p));
    while (i + 2 < p->point_count && s > seg) {
        s -= seg;
        i++;
        seg = v_len(v_sub(p->pts[i + 1].p, p->pts[i].p));
    }
    double f = seg > 0.0 ? s / seg : 0.0;
    f = f > 1.0 ? 1.0 : f;
    const ctrl *a = &p->pts[i], *b = &p->pts[i + 1];
    return (ring){v_lerp(a->p, b->p, f),
                  v_norm(v_lerp(point_tangent(p, i), point_tangent(p, i + 1), f)),
                  a->rx + (b->rx - a->rx) * f,
                  a->rz + (b->rz - a->rz) * f,
                  0.0,
                  false};
}

/* Hemisphere ring k of `rings` (k = 0 is the pole) beyond `end` along dir. */
static ring cap_ring(ring end, double dir, double height, int k, int rings)
{
    double phi = 0.5 * PI * (1.0 - (double)k / rings);
    ring r = end;
    r.c = v_add(end.c, v_scale(end.t, dir * height * sin(phi)));
    r.rx = end.rx * cos(phi);
    r.rz = end.rz * cos(phi);
    r.pole = k == 0;
    if (r.pole)
        r.rx = r.rz = 0.0;
    return r;
}

/* All rings of a part from the start pole to the end pole; returns count. */
static int build_rings(const part *p, ring *out, int max_rings)
{
    double len = polyline_length(p);
    double step = p->ring_step > 0.0 ? p->ring_step : RING_STEP;
    int body = p->point_count > 1 ? (int)ceil(len / step) : 0;
    int total = 2 * p->cap_rings + body + 1;
    if (total > max_rings)
        return -1;
    ring first = body_ring(p, 0.0), last = body_ring(p, len);
    int n = 0;
    for (int k = 0; k < p->cap_rings; k++)
        out[n++] = cap_ring(first, -1.0, p->cap_start, k, p->cap_rings);
    for (int k = 0; k <= body; k++)
        out[n++] = body ? body_ring(p, len * k / body) : first;
    for (int k = p->cap_rings - 1; k >= 0; k--)
        out[n++] = cap_ring(last, 1.0, p->cap_end, k, p->cap_rings);
    double v = 0.0;
    for (int i = 0; i < n; i++) {
        if (i > 0)
            v += v_len(v_sub(out[i].c, out[i - 1].c));
        out[i].v = v;
    }
    for (int i = 0; i < n && v > 0.0; i++)
        out[i].v /= v;
    return n;
}

static bool emit_ring_vertices(const part *p, const ring *r, group *g)
{
    if (!grow(&g->verts, &g->vert_cap, g->vert_count + (size_t)p->sides + 1, sizeof(vertex)))
        return false;
    vec3 s = v_norm(v_sub(p->side, v_scale(r->t, v_dot(p->side, r->t))));
    vec3 b = v_cross(r->t, s); /* (s, b, t) right-handed: CCW quads face outwards */
    for (int j = 0; j <= p->sides; j++) {
        double theta = 2.0 * PI * j / p->sides;
        vertex *vx = &g->verts[g->vert_count++];
        vx->pos =
            v_add(r->c, v_add(v_scale(s, r->rx * cos(theta)), v_scale(b, r->rz * sin(theta))));
        int joints[4];
        double weights[4];
        skin_weights(p, r->c, vx->pos, joints, weights);
        vx->nrm = v3(0, 0, 0);
        vx->u = (double)j / p->sides;
        vx->v = r->v;
        memcpy(vx->joints, joints, sizeof joints);
        memcpy(vx->weights, weights, sizeof weights);
    }
    return true;
}

static bool emit_triangle(group *g, size_t a, size_t b, size_t c)
{
    if (!grow(&g->indices, &g->index_cap, g->index_count + 3, sizeof(uint16_t)))
        return false;
    g->indices[g->index_count++] = (uint16_t)a;
    g->indices[g->index_count++] = (uint16_t)b;
    g->indices[g->index_count++] = (uint16_t)c;
    vec3 n =
        v_cross(v_sub(g->verts[b].pos, g->verts[a].pos), v_sub(g->verts[c].pos, g->verts[a].pos));
    g->verts[a].nrm = v_add(g->verts[a].nrm, n);
    g->verts[b].nrm = v_add(g->verts[b].nrm, n);
    g->verts[c].nrm = v_add(g->verts[c].nrm, n);
    return true;
}

/* Seam columns share one normal; poles point along the axis. */
static void finish_normals(const part *p, const ring *rings, int ring_count, group *g, size_t base)
{
    size_t cols = (size_t)p->sides + 1;
    for (int i = 0; i < ring_count; i++) {
        vertex *row = &g->verts[base + (size_t)i * cols];
        if (rings[i].pole) {
            vec3 n = v_scale(rings[i].t, i == 0 ? -1.0 : 1.0);
            for (size_t j = 0; j < cols; j++)
                row[j].nrm = n;
            continue;
        }
        vec3 seam = v_add(row[0].nrm, row[cols - 1].nrm);
        row[0].nrm = row[cols - 1].nrm = seam;
        for (size_t j = 0; j < cols; j++)
            row[j].nrm = v_norm(row[j].nrm);
    }
}

static bool build_part(const part *p, group *groups)
{
    enum { MAX_RINGS = 128 };
    ring rings[MAX_RINGS];
    int ring_count = build_rings(p, rings, MAX_RINGS);
    if (ring_count < 0)
        return false;
    group *g = &groups[p->group];
    size_t base = g->vert_count, cols = (size_t)p->sides + 1;
    if (base + (size_t)ring_count * cols > 65535)
        return false;
    for (int i = 0; i < ring_count; i++)
        if (!emit_ring_vertices(p, &rings[i], g))
            return false;
    for (int i = 0; i + 1 < ring_count; i++) {
        for (size_t j = 0; j < (size_t)p->sides; j++) {
            size_t a = base + (size_t)i * cols + j, b = a + 1, c = a + cols, d = c + 1;
            if (!rings[i].pole && !emit_triangle(g, a, b, c))
                return false;
            if (!rings[i + 1].pole && !emit_triangle(g, b, d, c))
                return false;
        }
    }
    finish_normals(p, rings, ring_count, g, base);
    return true;
}

/* ---- body parts -------------------------------------------------------- */

/* A segment a..b that `joint` moves, weighted by the distance of the ring's centre. */
static influence span(int joint, vec3 a, vec3 b)
{
    return (influence){.joint = joint, .a = a, .b = b};
}

/* The same, weighted by the distance of each vertex: for a limb branching off the side. */
static influence side_span(int joint, vec3 a, vec3 b)
{
    return (influence){.joint = joint, .a = a, .b = b, .per_vertex = true};
}

/* The segment from a joint to its child. */
static influence bone(const skeleton *sk, int joint, int child)
{
    return span(joint, sk->world_pos[joint], sk->world_pos[child]);
}

static part torso(const skeleton *sk)
{
    return (part){
        .group = GROUP_SHIRT,
        .pts = {{v3(0, 0.86, 0), 0.135, 0.095},
                {v3(0, 0.95, 0), 0.140, 0.100},
                {v3(0, 1.08, 0), 0.125, 0.090},
                {v3(0, 1.25, 0), 0.150, 0.100},
                {v3(0, 1.40, 0), 0.155, 0.095},
                {v3(0, 1.46, 0), 0.110, 0.070}},
        .point_count = 6,
        .side = v3(1, 0, 0),
        .cap_start = 0.07,
        .cap_end = 0.04,
        .cap_rings = 4,
        .sides = 20,
        .inf = {span(HIPS, v3(0, 0.78, 0), sk->world_pos[SPINE]), bone(sk, SPINE, CHEST),
                bone(sk, CHEST, NECK), bone(sk, NECK, HEAD),
                side_span(UPPER_ARM_L, sk->world_pos[UPPER_ARM_L], sk->world_pos[FOREARM_L]),
                side_span(UPPER_ARM_R, sk->world_pos[UPPER_ARM_R], sk->world_pos[FOREARM_R]),
                side_span(THIGH_L, sk->world_pos[THIGH_L], sk->world_pos[SHIN_L]),
                side_span(THIGH_R, sk->world_pos[THIGH_R], sk->world_pos[SHIN_R])},
        .influence_count = 8,
        .blend = 0.20, /* wide enough for 3-4 influences around the shoulders and hips */
    };
}

static part neck(const skeleton *sk)
{
    vec3 top = joint_point(sk, HEAD, v3(0, 0.22, 0));
    return (part){
        .group = GROUP_SKIN,
        .pts = {{v3(0, 1.43, 0), 0.052, 0.050}, {v3(0, 1.62, 0), 0.048, 0.046}},
        .point_count = 2,
        .side = v3(1, 0, 0),
        .cap_start = 0.03,
        .cap_end = 0.03,
        .cap_rings = 3,
        .sides = 12,
        .inf = {bone(sk, CHEST, NECK), bone(sk, NECK, HEAD), span(HEAD, sk->world_pos[HEAD], top)},
        .influence_count = 3,
        .blend = 0.06,
    };
}

/* The head is an ellipsoid: its centre in the head joint's frame, and its half-axes. */
static const vec3 HEAD_CENTRE = {0.0, 0.11, 0.01};
static const vec3 HEAD_RADII = {0.095, 0.115, 0.105};

static part head(const skeleton *sk)
{
    vec3 top = joint_point(sk, HEAD, v3(0, 0.22, 0));
    return (part){
        .group = GROUP_SKIN,
        .pts = {{joint_point(sk, HEAD, HEAD_CENTRE), HEAD_RADII.x, HEAD_RADII.z}},
        .point_count = 1,
        .side = v3(1, 0, 0),
        .axis = v3(0, 1, 0),
        .cap_start = HEAD_RADII.y,
        .cap_end = HEAD_RADII.y,
        .cap_rings = 8,
        .sides = 20,
        .inf = {bone(sk, NECK, HEAD), span(HEAD, sk->world_pos[HEAD], top)},
        .influence_count = 2,
        .blend = 0.04,
    };
}

static part arm(const skeleton *sk, int upper)
{
    int fore = upper + 1, hand = upper + 2;
    vec3 shoulder = sk->world_pos[upper], tip = joint_point(sk, hand, v3(0, -0.17, 0));
    return (part){
        .group = GROUP_SHIRT,
        .pts = {{shoulder, 0.055, 0.055},
                {sk->world_pos[fore], 0.045, 0.045},
                {sk->world_pos[hand], 0.040, 0.040}},
        .point_count = 3,
        .side = v3(0, 0, 1),
        .cap_start = 0.05,
        .cap_end = 0.02,
        .cap_rings = 3,
        .sides = 12,
        .inf = {span(CHEST, v3(0, shoulder.y, 0), shoulder), bone(sk, upper, fore),
                bone(sk, fore, hand), span(hand, sk->world_pos[hand], tip)},
        .influence_count = 4,
        .blend = 0.07,
    };
}

static part hand(const skeleton *sk, int hand_joint)
{
    vec3 wrist = joint_point(sk, hand_joint, v3(0, 0.01, 0));
    vec3 tip = joint_point(sk, hand_joint, v3(0, -0.15, 0));
    return (part){
        .group = GROUP_SKIN,
        .pts = {{wrist, 0.034, 0.024},
                {joint_point(sk, hand_joint, v3(0, -0.07, 0)), 0.048, 0.022},
                {tip, 0.036, 0.016}},
        .point_count = 3,
        .side = v3(0, 0, 1), /* palms face the thighs: the hand is wide front-to-back */
        .cap_start = 0.02,
        .cap_end = 0.03,
        .cap_rings = 3,
        .sides = 10,
        .inf = {bone(sk, hand_joint - 1, hand_joint),
                span(hand_joint, sk->world_pos[hand_joint], tip)},
        .influence_count = 2,
        .blend = 0.05,
    };
}

static part leg(const skeleton *sk, int thigh)
{
    int shin = thigh + 1, foot = thigh + 2, toes = thigh + 3;
    vec3 hip = sk->world_pos[thigh], knee = sk->world_pos[shin], ankle = sk->world_pos[foot];
    return (part){
        .group = GROUP_TROUSERS,
        .pts = {{v_add(hip, v3(0, 0.03, 0)), 0.085, 0.085},
                {v_lerp(hip, knee, 0.45), 0.072, 0.075},
                {knee, 0.056, 0.058},
                {v_lerp(knee, ankle, 0.4), 0.055, 0.058},
                {v_add(ankle, v3(0, 0.02, 0)), 0.044, 0.046}},
        .point_count = 5,
        .side = v3(1, 0, 0),
        .cap_start = 0.05,
        .cap_end = 0.03,
        .cap_rings = 3,
        .sides = 14,
        .inf = {span(HIPS, v3(0, hip.y + 0.05, 0), hip), bone(sk, thigh, shin),
                bone(sk, shin, foot), bone(sk, foot, toes)},
        .influence_count = 4,
        .blend = 0.08,
    };
}

static part foot(const skeleton *sk, int foot_joint)
{
    int toes = foot_joint + 1;
    double x = sk->world_pos[foot_joint].x;
    vec3 heel = v3(x, 0.045, -0.06), toe_tip = v3(x, 0.03, 0.20);
    return (part){
        .group = GROUP_SHOES,
        .pts = {{heel, 0.045, 0.045},
                {v3(x, 0.05, 0.06), 0.050, 0.050},
                {v3(x, 0.036, 0.17), 0.044, 0.033}},
        .point_count = 3,
        .side = v3(1, 0, 0),
        .cap_start = 0.03,
        .cap_end = 0.03,
        .cap_rings = 3,
        .sides = 12,
        .inf = {bone(sk, foot_joint - 1, foot_joint), span(foot_joint, heel, sk->world_pos[toes]),
                span(toes, sk->world_pos[toes], toe_tip)},
        .influence_count = 3,
        .blend = 0.06,
    };
}

/* ---- the full rig's parts (--rig full) ---------------------------------- */

/* The bone of `joint` stops at `mid`, where its twist bone takes over to the bone's end: over
 * the middle of the limb, `blend` either side of `mid`, the skin turns from one to the other. */
static void split_twist(part *p, int joint, int twist, vec3 mid)
{
    for (int i = 0; i < p->influence_count; i++) {
        if (p->inf[i].joint == joint && !p->inf[i].per_vertex) {
            p->inf[p->influence_count++] = span(twist, mid, p->inf[i].b);
            p->inf[i].b = mid;
            return;
        }
    }
}

/* The hand of the full rig, without its fingers: shorter than hand(), ending at the knuckles,
 * where the fingers start inside it. */
static part palm(const skeleton *sk, int hand_joint)
{
    vec3 knuckles = joint_point(sk, hand_joint, v3(0, -0.082, 0));
    return (part){
        .group = GROUP_SKIN,
        .pts = {{joint_point(sk, hand_joint, v3(0, 0.01, 0)), 0.034, 0.024},
                {joint_point(sk, hand_joint, v3(0, -0.045, 0)), 0.045, 0.021},
                {knuckles, 0.041, 0.017}},
        .point_count = 3,
        .side = v3(0, 0, 1),
        .cap_start = 0.02,
        .cap_end = 0.012,
        .cap_rings = 3,
        .sides = 12,
        .ring_step = 0.02,
        .inf = {bone(sk, hand_joint - 1, hand_joint),
                span(hand_joint, sk->world_pos[hand_joint], knuckles)},
        .influence_count = 2,
        .blend = 0.05,
    };
}

/* Finger f of a hand: a thin tube through its three joints to the tip, a little flatter from
 * palm to back than across, blending into the hand at its first joint and between phalanges
 * at the others. Rings every 8 mm, so that each phalanx bends on its own. */
static part finger(const skeleton *sk, int hand_joint, int f)
{
    const finger_def *fd = &FINGERS[f];
    int j = finger_joint(hand_joint, f, 0);
    vec3 tip = joint_point(sk, j + 2, v3(0, -fd->length[2], 0));
    double r = fd->radius;
    return (part){
        .group = GROUP_SKIN,
        .pts = {{sk->world_pos[j], r, 0.85 * r},
                {sk->world_pos[j + 1], 0.92 * r, 0.8 * r},
                {sk->world_pos[j + 2], 0.85 * r, 0.75 * r},
                {tip, 0.75 * r, 0.65 * r}},
        .point_count = 4,
        .side = q_rotate(sk->world_rot[j], v3(0, 0, 1)), /* across the hand */
        .cap_start = r,
        .cap_end = 0.7 * r,
        .cap_rings = 3,
        .sides = 8,
        .ring_step = 0.008,
        .inf = {span(hand_joint, sk->world_pos[hand_joint], sk->world_pos[j]), bone(sk, j, j + 1),
                bone(sk, j + 1, j + 2), span(j + 2, sk->world_pos[j + 2], tip)},
        .influence_count = 4,
        .blend = 0.012,
    };
}

/* The point of the head's front at x, y from its centre (head frame), raised by `lift` along
 * the surface normal, in world space; *normal (may be NULL) gets that normal. The face layout
 * is given in these coordinates: eyes at (+-0.034, 0.015), brows 3 cm above them, cheeks at
 * (+-0.06, -0.02), the mouth at (0, -0.05), 4.4 cm wide, the chin around y = -0.085. */
static vec3 face_point(const skeleton *sk, double x, double y, double lift, vec3 *normal)
{
    const vec3 r = HEAD_RADII;
    double z = r.z * sqrt(1.0 - (x / r.x) * (x / r.x) - (y / r.y) * (y / r.y));
    vec3 n = q_rotate(sk->world_rot[HEAD],
                      v_norm(v3(x / (r.x * r.x), y / (r.y * r.y), z / (r.z * r.z))));
    if (normal)
        *normal = n;
    return v_add(joint_point(sk, HEAD, v_add(HEAD_CENTRE, v3(x, y, z))), v_scale(n, lift));
}

/* A face region painted over the head's weights (see influence): a..b on the surface. */
static influence paint(int joint, vec3 a, vec3 b, double reach)
{
    return (influence){
        .joint = joint, .a = a, .b = b, .per_vertex = true, .paint = true, .reach = reach};
}

/* The head of the full rig: finer, so that the face regions have vertices to move (1.5 cm
 * between columns, 1 cm between rings at the face), painted in order: the jaw takes the chin
 * and jaw line, the lips the skin around the mouth (the upper lip from the head, the lower from
 * the jaw), the cheeks the sides under the eyes, the brows the skin above the eyes. Pupils,
 * brows and mouth are parts of their own (pupil(), brow(), mouth()). */
static part face(const skeleton *sk)
{
    part p = head(sk);
    p.sides = 40;
    p.cap_rings = 16;
    const influence regions[] = {
        paint(JAW, face_point(sk, -0.045, -0.085, 0.0, NULL),
              face_point(sk, 0.045, -0.085, 0.0, NULL), 0.05),
        paint(LIP_LOWER, face_point(sk, -0.02, -0.061, 0.0, NULL),
              face_point(sk, 0.02, -0.061, 0.0, NULL), 0.018),
        paint(LIP_UPPER, face_point(sk, -0.02, -0.039, 0.0, NULL),
              face_point(sk, 0.02, -0.039, 0.0, NULL), 0.018),
        paint(CHEEK_L, face_point(sk, 0.06, -0.02, 0.0, NULL),
              face_point(sk, 0.06, -0.02, 0.0, NULL), 0.04),
        paint(CHEEK_R, face_point(sk, -0.06, -0.02, 0.0, NULL),
              face_point(sk, -0.06, -0.02, 0.0, NULL), 0.04),
        paint(BROW_L, face_point(sk, 0.018, 0.047, 0.0, NULL),
              face_point(sk, 0.052, 0.044, 0.0, NULL), 0.024),
        paint(BROW_R, face_point(sk, -0.018, 0.047, 0.0, NULL),
              face_point(sk, -0.052, 0.044, 0.0, NULL), 0.024),
    };
    for (size_t i = 0; i < sizeof regions / sizeof regions[0]; i++)
        p.inf[p.influence_count++] = regions[i];
    return p;
}

/* A pupil: a dark disc on the head's front, turned by its eye (the joint at the eyeball's
 * centre, 2 cm behind), so that the eyes' looking around shows. */
static part pupil(const skeleton *sk, int eye, double x)
{
    vec3 n, c = face_point(sk, x, 0.015, 0.0005, &n);
    return (part){
        .group = GROUP_TROUSERS,
        .pts = {{c, 0.0075, 0.0085}},
        .point_count = 1,
        .side = v3(1, 0, 0),
        .axis = n,
        .cap_start = 0.0035,
        .cap_end = 0.0035,
        .cap_rings = 3,
        .sides = 12,
        .inf = {span(eye, sk->world_pos[eye], c)},
        .influence_count = 1,
        .blend = 0.05,
    };
}

/* A brow: a thin dark arch on the skin that its brow joint lifts. x_sign: +1 left, -1 right. */
static part brow(const skeleton *sk, int brow_joint, double x_sign)
{
    vec3 inner = face_point(sk, x_sign * 0.018, 0.046, 0.0015, NULL);
    vec3 outer = face_point(sk, x_sign * 0.052, 0.044, 0.0015, NULL);
    return (part){
        .group = GROUP_TROUSERS,
        .pts = {{inner, 0.0035, 0.002},
                {face_point(sk, x_sign * 0.035, 0.049, 0.0015, NULL), 0.004, 0.002},
                {outer, 0.0025, 0.0015}},
        .point_count = 3,
        .side = v3(0, 1, 0),
        .cap_start = 0.003,
        .cap_end = 0.003,
        .cap_rings = 2,
        .sides = 8,
        .ring_step = 0.008,
        .inf = {span(brow_joint, inner, outer)},
        .influence_count = 1,
        .blend = 0.05,
    };
}

/* The mouth: a dark lens along the mouth line, its top following the upper lip, its bottom the
 * lower lip, its middle the tongue behind it, so that it opens as the lips part. */
static part mouth(const skeleton *sk)
{
    const double half_width = 0.021, half_height = 0.0045;
    vec3 c = face_point(sk, 0.0, -0.05, -0.001, NULL);
    vec3 across = q_rotate(sk->world_rot[HEAD], v3(1, 0, 0));
    vec3 up = v_scale(q_rotate(sk->world_rot[HEAD], v3(0, 1, 0)), half_height);
    vec3 left = v_add(c, v_scale(across, half_width)),
         right = v_sub(c, v_scale(across, half_width));
    return (part){
        .group = GROUP_TROUSERS,
        .pts = {{c, half_height, 0.006}},
        .point_count = 1,
        .side = v3(0, 1, 0),
        .axis = across,
        .cap_start = half_width,
        .cap_end = half_width,
        .cap_rings = 5,
        .sides = 12,
        .inf = {span(TONGUE, right, left), side_span(LIP_UPPER, v_add(right, up), v_add(left, up)),
                side_span(LIP_LOWER, v_sub(right, up), v_sub(left, up))},
        .influence_count = 3,
        .blend = 0.012,
    };
}

static bool build_body(const skeleton *sk, group *groups, bool full)
{
    enum { MAX_PARTS = 40 };
    static const int uppers[2] = {UPPER_ARM_L, UPPER_ARM_R}, hands[2] = {HAND_L, HAND_R};
    static const int thighs[2] = {THIGH_L, THIGH_R}, feet[2] = {FOOT_L, FOOT_R};
    part parts[MAX_PARTS];
    int n = 0;
    parts[n++] = torso(sk);
    parts[n++] = neck(sk);
    parts[n++] = full ? face(sk) : head(sk);
    for (int s = 0; s < 2; s++) {
        parts[n] = arm(sk, uppers[s]);
        if (full) { /* both sides' twist bones follow the same order as their limbs */
            split_twist(&parts[n], uppers[s], UPPER_ARM_TWIST_L + 2 * s,
                        sk->world_pos[UPPER_ARM_TWIST_L + 2 * s]);
            split_twist(&parts[n], uppers[s] + 1, FOREARM_TWIST_L + 2 * s,
                        sk->world_pos[FOREARM_TWIST_L + 2 * s]);
        }
        n++;
    }
    for (int s = 0; s < 2; s++) {
        if (!full) {
            parts[n++] = hand(sk, hands[s]);
            continue;
        }
        parts[n] = palm(sk, hands[s]);
        split_twist(&parts[n], hands[s] - 1, FOREARM_TWIST_L + 2 * s,
                    sk->world_pos[FOREARM_TWIST_L + 2 * s]);
        n++;
        for (int f = 0; f < FINGER_COUNT; f++)
            parts[n++] = finger(sk, hands[s], f);
    }
    for (int s = 0; s < 2; s++) {
        parts[n] = leg(sk, thighs[s]);
        if (full)
            split_twist(&parts[n], thighs[s], THIGH_TWIST_L + s, sk->world_pos[THIGH_TWIST_L + s]);
        n++;
    }
    for (int s = 0; s < 2; s++)
        parts[n++] = foot(sk, feet[s]);
    if (full) {
        parts[n++] = pupil(sk, EYE_L, 0.034);
        parts[n++] = pupil(sk, EYE_R, -0.034);
        parts[n++] = brow(sk, BROW_L, 1.0);
        parts[n++] = brow(sk, BROW_R, -1.0);
        parts[n++] = mouth(sk);
    }
    for (int i = 0; i < n; i++)
        if (!build_part(&parts[i], groups))
            return false;
    return true;
}

/* ---- animation clips --------------------------------------------------- */

typedef struct pose {
    quat rot[MAX_JOINTS]; /* delta applied before the rest rotation (parent space) */
    vec3 hips_offset;
} pose;

typedef void (*pose_fn)(double phase, pose *out);

typedef struct joint_range {
    int first, count;
} joint_range;

typedef struct clip_def {
    const char *name;
    double duration;
    int keys;
    pose_fn fn;
    const int *joints;
    int joint_count;
    bool hips_translation;
    const joint_range *extras; /* the full rig's joints it moves too, after `joints` */
    int extra_count;
} clip_def;

/* The fingers of one hand: each joint curls `curl` degrees towards the palm, most at the middle
 * one, the first joints fan out by `spread` degrees (index forwards, pinky backwards), each
 * finger by its share (FINGERS). The thumb curls across the palm and spreads forwards. */
static void hand_pose(pose *p, int hand, double curl, double spread)
{
    static const double along[PHALANX_COUNT] = {0.8, 1.2, 1.0};
    const double towards_palm = hand == HAND_L ? -1.0 : 1.0; /* about Z; the palms face inwards */
    for (int f = 0; f < FINGER_COUNT; f++) {
        for (int k = 0; k < PHALANX_COUNT; k++)
            p->rot[finger_joint(hand, f, k)] =
                q_euler(k == 0 ? spread * FINGERS[f].spread : 0.0, 0.0,
                        towards_palm * curl * FINGERS[f].curl * along[k]);
    }
}

static void idle_pose(double phase, pose *p)
{
    double s = 2.0 * PI * phase;
    p->hips_offset = v3(0.008 * sin(s), 0.003 * sin(2 * s), 0.0);
    p->rot[HIPS] = q_euler(0, 0, -1.0 * sin(s));
    p->rot[SPINE] = q_euler(1.0 * sin(2 * s), 0, 0.8 * sin(s));
    p->rot[CHEST] = q_euler(-1.5 * sin(2 * s), 0, 0);
    p->rot[NECK] = q_euler(1.0 * sin(2 * s + 0.5), 0, 0);
    p->rot[HEAD] = q_euler(-1.0 * sin(s), 3.0 * sin(s), 0);
    p->rot[UPPER_ARM_L] = q_euler(2.0 * sin(s), 0, 1.5 * sin(2 * s));
    p->rot[UPPER_ARM_R] = q_euler(-2.0 * sin(s), 0, -1.5 * sin(2 * s));
    p->rot[FOREARM_L] = q_euler(-4.0 - 2.0 * sin(2 * s), 0, 0);
    p->rot[FOREARM_R] = q_euler(-4.0 - 2.0 * sin(2 * s + 0.7), 0, 0);
    /* The full rig's: talking, three syllables a loop, louder and softer (jaw, lips and tongue
     * a little apart; the jaw slides a little), the eyes looking around, the brows lifting
     * twice, the cheeks rising with the lips, the fingers relaxing and curling slightly. */
    double talk = (0.5 - 0.5 * cos(3 * s)) * (0.75 + 0.25 * sin(s));
    double lips = (0.5 - 0.5 * cos(3 * s + 0.6)) * (0.75 + 0.25 * sin(s));
    p->rot[JAW] = q_euler(7.0 * talk, 0, 1.0 * sin(s));
    p->rot[LIP_LOWER] = q_euler(8.0 * lips, 0, 0);
    p->rot[LIP_UPPER] = q_euler(-8.0 * lips, 0, 0);
    p->rot[TONGUE] = q_euler(8.0 * talk, 0, 0);
    p->rot[EYE_L] = p->rot[EYE_R] = q_euler(5.0 * sin(2 * s + 1.0), 14.0 * sin(s), 0);
    p->rot[BROW_L] = q_euler(-7.0 * (0.5 - 0.5 * cos(2 * s)), 0, 0);
    p->rot[BROW_R] = q_euler(-7.0 * (0.5 - 0.5 * cos(2 * s + 0.3)), 0, 0);
    p->rot[CHEEK_L] = q_euler(-5.0 * lips, 0, 2.0 * lips);
    p->rot[CHEEK_R] = q_euler(-5.0 * lips, 0, -2.0 * lips);
    hand_pose(p, HAND_L, 6.0 + 3.0 * sin(s), 2.0 * sin(2 * s));
    hand_pose(p, HAND_R, 6.0 + 3.0 * sin(s + 1.3), 2.0 * sin(2 * s + 1.3));
}

/* Negative X rotation swings a downward bone forward (+Z). Phase 0: legs
 * passing each other, left leg swinging forward. */
static void walk_pose(double phase, pose *p)
{
    double s = 2.0 * PI * phase;
    double swing_l = (1.0 + cos(s)) * 0.5, swing_r = (1.0 - cos(s)) * 0.5;
    p->hips_offset = v3(-0.015 * cos(s), -0.01 + 0.01 * cos(2 * s), 0.0);
    p->rot[HIPS] = q_euler(0, -5.0 * sin(s), 2.0 * cos(s));
    p->rot[CHEST] = q_euler(2.0, 7.0 * sin(s), -2.0 * cos(s));
    p->rot[THIGH_L] = q_euler(-25.0 * sin(s), 0, 0);
    p->rot[THIGH_R] = q_euler(25.0 * sin(s), 0, 0);
    p->rot[SHIN_L] = q_euler(5.0 + 45.0 * swing_l * swing_l, 0, 0);
    p->rot[SHIN_R] = q_euler(5.0 + 45.0 * swing_r * swing_r, 0, 0);
    p->rot[FOOT_L] = q_euler(-10.0 * cos(s + 0.6), 0, 0);
    p->rot[FOOT_R] = q_euler(10.0 * cos(s + 0.6), 0, 0);
    p->rot[UPPER_ARM_L] = q_euler(20.0 * sin(s), 0, 0);
    p->rot[UPPER_ARM_R] = q_euler(-20.0 * sin(s), 0, 0);
    p->rot[FOREARM_L] = q_euler(-12.0 - 10.0 * (1.0 - sin(s)) * 0.5, 0, 0);
    p->rot[FOREARM_R] = q_euler(-12.0 - 10.0 * (1.0 + sin(s)) * 0.5, 0, 0);
    /* The full rig's: the twist bones turn about their bone against its swing (the same angle on
     * both sides: mirrored and half a cycle apart, as the swings are), and the fingers curl a
     * little, more on the arm swinging back. */
    p->rot[UPPER_ARM_TWIST_L] = p->rot[UPPER_ARM_TWIST_R] = q_euler(0, -10.0 * sin(s), 0);
    p->rot[FOREARM_TWIST_L] = p->rot[FOREARM_TWIST_R] = q_euler(0, -16.0 * sin(s), 0);
    p->rot[THIGH_TWIST_L] = p->rot[THIGH_TWIST_R] = q_euler(0, 8.0 * sin(s), 0);
    hand_pose(p, HAND_L, 8.0 + 4.0 * sin(s), 0.0);
    hand_pose(p, HAND_R, 8.0 - 4.0 * sin(s), 0.0);
}

/* Right arm rises, waves three times, and comes back to rest. */
static void wave_pose(double phase, pose *p)
{
    double e = smoothstep(0.0, 0.2, phase) * (1.0 - smoothstep(0.8, 1.0, phase));
    double w = sin(2.0 * PI * 3.0 * phase);
    p->rot[CHEST] = q_euler(0, 0, 2.0 * e);
    p->rot[HEAD] = q_euler(0, -5.0 * e, 5.0 * e);
    p->rot[UPPER_ARM_R] = q_euler(-10.0 * e, 0, -140.0 * e);
    p->rot[FOREARM_R] = q_euler(0, 0, -(30.0 + 25.0 * w) * e);
    p->rot[HAND_R] = q_euler(0, 0, -15.0 * w * e);
    /* The full rig's: the forearm turns with the wave, the fingers spread as the hand goes up
     * and curl and open again with each wave, the thumb with them. */
    double closed = 0.5 + 0.5 * w;
    p->rot[FOREARM_TWIST_R] = q_euler(0, 15.0 * w * e, 0);
    hand_pose(p, HAND_R, (4.0 + 14.0 * closed) * e, (5.0 + 9.0 * (1.0 - closed)) * e);
}

static const int IDLE_JOINTS[] = {HIPS,        SPINE,       CHEST,     NECK,     HEAD,
                                  UPPER_ARM_L, UPPER_ARM_R, FOREARM_L, FOREARM_R};
static const int WALK_JOINTS[] = {HIPS,   CHEST,  THIGH_L,     THIGH_R,     SHIN_L,    SHIN_R,
                                  FOOT_L, FOOT_R, UPPER_ARM_L, UPPER_ARM_R, FOREARM_L, FOREARM_R};
static const int WAVE_JOINTS[] = {CHEST, HEAD, UPPER_ARM_R, FOREARM_R, HAND_R};

/* The full rig's joints come in runs (see the joint enum): its twist bones, the fingers of
 * both hands (the left's, then the right's) and the face. */
static const joint_range IDLE_EXTRAS[] = {{FINGERS_L, JAW - FINGERS_L}, {JAW, MAX_JOINTS - JAW}};
static const joint_range WALK_EXTRAS[] = {{UPPER_ARM_TWIST_L, FINGERS_L - UPPER_ARM_TWIST_L},
                                          {FINGERS_L, JAW - FINGERS_L}};
static const joint_range WAVE_EXTRAS[] = {{FOREARM_TWIST_R, 1}, {FINGERS_R, JAW - FINGERS_R}};

#define COUNT_OF(a) ((int)(sizeof(a) / sizeof((a)[0])))

static const clip_def CLIPS[] = {
    {"idle", 2.5, 21, idle_pose, IDLE_JOINTS, COUNT_OF(IDLE_JOINTS), true, IDLE_EXTRAS,
     COUNT_OF(IDLE_EXTRAS)},
    {"walk", 1.1, 23, walk_pose, WALK_JOINTS, COUNT_OF(WALK_JOINTS), true, WALK_EXTRAS,
     COUNT_OF(WALK_EXTRAS)},
    {"wave", 2.0, 25, wave_pose, WAVE_JOINTS, COUNT_OF(WAVE_JOINTS), false, WAVE_EXTRAS,
     COUNT_OF(WAVE_EXTRAS)},
};

static void sample_pose(const clip_def *clip, int key, pose *p)
{
    for (int j = 0; j < MAX_JOINTS; j++)
        p->rot[j] = Q_IDENTITY;
    p->hips_offset = v3(0, 0, 0);
    clip->fn((double)key / (clip->keys - 1), p);
}

static void store_quat(float *dst, quat q)
{
    dst[0] = (float)q.x;
    dst[1] = (float)q.y;
    dst[2] = (float)q.z;
    dst[3] = (float)q.w;
}

static void store_vec3(float *dst, vec3 v)
{
    dst[0] = (float)v.x;
    dst[1] = (float)v.y;
    dst[2] = (float)v.z;
}

/* Rotation keys for one joint. Neighbours stay in one hemisphere for slerp;
 * the last key copies the first so the loop closes exactly. */
static void rotation_keys(const skeleton *sk, const clip_def *clip, int joint, float *out)
{
    quat prev = Q_IDENTITY;
    for (int k = 0; k + 1 < clip->keys; k++) {
        pose p;
        sample_pose(clip, k, &p);
        quat q = q_norm(q_mul(p.rot[joint], sk->rest_rot[joint]));
        if (k > 0 && q.x * prev.x + q.y * prev.y + q.z * prev.z + q.w * prev.w < 0.0)
            q = (quat){-q.x, -q.y, -q.z, -q.w};
        store_quat(&out[k * 4], q);
        prev = q;
    }
    memcpy(&out[(clip->keys - 1) * 4], &out[0], 4 * sizeof(float));
}

static void translation_keys(const clip_def *clip, float *out)
{
    for (int k = 0; k + 1 < clip->keys; k++) {
        pose p;
        sample_pose(clip, k, &p);
        store_vec3(&out[k * 3], v_add(rig[HIPS].offset, p.hips_offset));
    }
    memcpy(&out[(clip->keys - 1) * 3], &out[0], 3 * sizeof(float));
}

static bool add_channel(glbw_doc *doc, int anim, int input, const float *data, int keys,
                        glbw_type type, int node, glbw_path path)
{
    int out = glbw_add_floats(doc, data, (size_t)keys, type, GLBW_TARGET_NONE, false);
    int sampler = glbw_add_anim_sampler(doc, anim, input, out, GLBW_LINEAR);
    return glbw_add_anim_channel(doc, anim, sampler, node, path) >= 0;
}

static bool add_clip(glbw_doc *doc, const skeleton *sk, const clip_def *clip)
{
    enum { MAX_KEYS = 64 };
    float times[MAX_KEYS], values[MAX_KEYS * 4];
    if (clip->keys > MAX_KEYS)
        return false;
    for (int k = 0; k < clip->keys; k++)
        times[k] = (float)(clip->duration * k / (clip->keys - 1));
    int anim = glbw_add_animation(doc, clip->name);
    int input =
        glbw_add_floats(doc, times, (size_t)clip->keys, GLBW_SCALAR, GLBW_TARGET_NONE, true);
    if (clip->hips_translation) {
        translation_keys(clip, values);
        if (!add_channel(doc, anim, input, values, clip->keys, GLBW_VEC3, HIPS,
                         GLBW_PATH_TRANSLATION))
            return false;
    }
    for (int i = 0; i < clip->joint_count; i++) {
        rotation_keys(sk, clip, clip->joints[i], values);
        if (!add_channel(doc, anim, input, values, clip->keys, GLBW_VEC4, clip->joints[i],
                         GLBW_PATH_ROTATION))
            return false;
    }
    for (int i = 0; i < clip->extra_count; i++) {
        const joint_range *r = &clip->extras[i];
        for (int j = r->first; j < r->first + r->count && j < joint_count; j++) {
            rotation_keys(sk, clip, j, values);
            if (!add_channel(doc, anim, input, values, clip->keys, GLBW_VEC4, j,
                             GLBW_PATH_ROTATION))
                return false;
        }
    }
    return true;
}

/* ---- document assembly ------------------------------------------------- */

static int add_joint_nodes(glbw_doc *doc, const skeleton *sk)
{
    for (int j = 0; j < joint_count; j++) {
        int children[MAX_JOINTS];
        size_t child_count = 0;
        for (int c = 0; c < joint_count; c++)
            if (rig[c].parent == j)
                children[child_count++] = c;
        glbw_node_desc n = glbw_node_defaults();
        n.name = rig[j].name;
        n.children = children;
        n.child_count = child_count;
        n.has_trs = true;
        store_vec3(n.translation, rig[j].offset);
        store_quat(n.rotation, sk->rest_rot[j]);
        if (glbw_add_node(doc, &n) != j)
            return -1;
    }
    return 0;
}

static int add_skin(glbw_doc *doc, const skeleton *sk)
{
    float ibm[MAX_JOINTS * 16];
    int nodes[MAX_JOINTS];
    for (int j = 0; j < joint_count; j++) {
        inverse_bind_matrix(sk, j, &ibm[j * 16]);
        nodes[j] = j; /* joint nodes were added first, in skin order */
    }
    int acc = glbw_add_floats(doc, ibm, (size_t)joint_count, GLBW_MAT4, GLBW_TARGET_NONE, false);
    return glbw_add_skin(doc, "body_skin", nodes, (size_t)joint_count, acc, HIPS);
}

static void pack_vertex(const vertex *v, float *pos, float *nrm, float *uv, float *wts,
                        uint16_t *jnt)
{
    store_vec3(pos, v->pos);
    store_vec3(nrm, v->nrm);
    uv[0] = (float)v->u;
    uv[1] = (float)v->v;
    /* Weights are sorted descending; the largest absorbs float rounding. */
    float rest = 0.0f;
    for (int k = 3; k >= 1; k--) {
        wts[k] = (float)v->weights[k];
        rest += wts[k];
    }
    wts[0] = 1.0f - rest;
    for (int k = 0; k < 4; k++)
        jnt[k] = (uint16_t)v->joints[k];
}

/* Converts one group's vertices into accessors of a primitive. */
static bool add_group(glbw_doc *doc, const group *g, int material, glbw_primitive_desc *prim)
{
    size_t n = g->vert_count;
    float *pos = malloc(n * 3 * sizeof *pos), *nrm = malloc(n * 3 * sizeof *nrm);
    float *uv = malloc(n * 2 * sizeof *uv), *wts = malloc(n * 4 * sizeof *wts);
    uint16_t *jnt = malloc(n * 4 * sizeof *jnt);
    bool ok = pos && nrm && uv && wts && jnt;
    if (ok) {
        for (size_t i = 0; i < n; i++)
            pack_vertex(&g->verts[i], &pos[i * 3], &nrm[i * 3], &uv[i * 2], &wts[i * 4],
                        &jnt[i * 4]);
        glbw_accessor_desc jd = {.component = GLBW_U16, .type = GLBW_VEC4, .count = n};
        glbw_accessor_desc id = {
            .component = GLBW_U16, .type = GLBW_SCALAR, .count = g->index_count};
        *prim = glbw_primitive_defaults();
        prim->position = glbw_add_floats(doc, pos, n, GLBW_VEC3, GLBW_TARGET_VERTICES, true);
        prim->normal = glbw_add_floats(doc, nrm, n, GLBW_VEC3, GLBW_TARGET_VERTICES, false);
        prim->texcoord0 = glbw_add_floats(doc, uv, n, GLBW_VEC2, GLBW_TARGET_VERTICES, false);
        prim->joints0 = glbw_add_data(doc, jnt, GLBW_TARGET_VERTICES, &jd);
        prim->weights0 = glbw_add_floats(doc, wts, n, GLBW_VEC4, GLBW_TARGET_VERTICES, false);
        prim->indices = glbw_add_data(doc, g->indices, GLBW_TARGET_INDICES, &id);
        prim->material = material;
    }
    free(pos);
    free(nrm);
    free(uv);
    free(wts);
    free(jnt);
    return ok && glbw_error(doc) == NULL;
}

static int add_material(glbw_doc *doc, const char *name, float r, float g, float b, float roughness)
{
    glbw_material_desc m = glbw_material_defaults();
    m.name = name;
    m.base_color[0] = r, m.base_color[1] = g, m.base_color[2] = b;
    m.roughness = roughness;
    return glbw_add_material(doc, &m);
}

/* Triangles [first, first + count) of `g` as a group of their own: only the vertices they use,
 * in the order of first use. */
static bool piece_of(const group *g, size_t first, size_t count, group *out)
{
    *out = (group){0};
    int32_t *remap = malloc(g->vert_count * sizeof *remap);
    out->verts = malloc(3 * count * sizeof *out->verts);
    out->indices = malloc(3 * count * sizeof *out->indices);
    if (!remap || !out->verts || !out->indices) {
        free(remap);
        return false;
    }
    for (size_t v = 0; v < g->vert_count; v++)
        remap[v] = -1;
    for (size_t i = 3 * first; i < 3 * (first + count); i++) {
        const uint16_t v = g->indices[i];
        if (remap[v] < 0) {
            remap[v] = (int32_t)out->vert_count;
            out->verts[out->vert_count++] = g->verts[v];
        }
        out->indices[out->index_count++] = (uint16_t)remap[v];
    }
    free(remap);
    return true;
}

static int pieces = 1;               /* --pieces */
static bool piece_materials = false; /* --piece-materials */

/* Piece k of group gi's own material (--piece-materials): half the group's colour, half a colour
 * of a hash of (gi, k), so that neighbouring pieces differ plainly; named "GROUP k". */
static int add_piece_material(glbw_doc *doc, const char *group_name, const float color[4], int gi,
                              int k)
{
    char name[64];
    snprintf(name, sizeof name, "%s %d", group_name, k);
    float c[3];
    for (int ch = 0; ch < 3; ch++) {
        uint32_t h = (uint32_t)(gi * 7919 + k * 104729 + ch * 15485863) * 2654435761u;
        h ^= h >> 15;
        c[ch] = 0.5f * color[ch] + 0.5f * (float)(h % 1000u) / 999.0f;
    }
    return add_material(doc, name, c[0], c[1], c[2], color[3]);
}

static bool add_meshes(glbw_doc *doc, const group *groups, int skin)
{
    /* The groups' colours and roughness: a material each, or with --piece-materials one per
     * piece near them. */
    static const float colors[GROUP_COUNT][4] = {
        [GROUP_SKIN] = {0.80f, 0.56f, 0.43f, 0.6f},
        [GROUP_SHIRT] = {0.12f, 0.28f, 0.58f, 0.8f},
        [GROUP_TROUSERS] = {0.13f, 0.13f, 0.16f, 0.9f},
        [GROUP_SHOES] = {0.26f, 0.13f, 0.06f, 0.5f},
    };
    static const char *const group_names[GROUP_COUNT] = {"skin", "shirt", "trousers", "shoes"};
    int mats[GROUP_COUNT] = {0};
    for (int gi = 0; gi < GROUP_COUNT && !piece_materials; gi++)
        mats[gi] = add_material(doc, group_names[gi], colors[gi][0], colors[gi][1], colors[gi][2],
                                colors[gi][3]);
    if (pieces > 1) { /* one mesh of `pieces` primitives per group, each under its own node */
        static const char *const piece_names[GROUP_COUNT] = {"skin", "shirt", "trousers", "shoes"};
        glbw_primitive_desc *prims = malloc((size_t)pieces * sizeof *prims);
        bool ok = prims != NULL;
        for (int gi = 0; ok && gi < GROUP_COUNT; gi++) {
            const size_t triangles = groups[gi].index_count / 3;
            for (int k = 0; ok && k < pieces; k++) {
                const size_t first = triangles * (size_t)k / (size_t)pieces;
                const size_t last = triangles * (size_t)(k + 1) / (size_t)pieces;
                group piece = {0};
                const int mat = piece_materials
                                    ? add_piece_material(doc, piece_names[gi], colors[gi], gi, k)
                                    : mats[gi];
                ok = mat >= 0 && last > first &&
                     piece_of(&groups[gi], first, last - first, &piece) &&
                     add_group(doc, &piece, mat, &prims[k]);
                free(piece.verts);
                free(piece.indices);
            }
            glbw_node_desc n = glbw_node_defaults();
            n.name = piece_names[gi];
            n.mesh = ok ? glbw_add_mesh(doc, piece_names[gi], prims, (size_t)pieces) : -1;
            n.skin = skin;
            ok = ok && n.mesh >= 0 && glbw_add_node(doc, &n) >= 0;
        }
        free(prims);
        return ok && glbw_error(doc) == NULL;
    }
    glbw_primitive_desc body[3], skin_prims[1];
    if (!add_group(doc, &groups[GROUP_SHIRT], mats[GROUP_SHIRT], &body[0]) ||
        !add_group(doc, &groups[GROUP_TROUSERS], mats[GROUP_TROUSERS], &body[1]) ||
        !add_group(doc, &groups[GROUP_SHOES], mats[GROUP_SHOES], &body[2]) ||
        !add_group(doc, &groups[GROUP_SKIN], mats[GROUP_SKIN], &skin_prims[0]))
        return false;
    int meshes[2] = {glbw_add_mesh(doc, "body", body, 3),
                     glbw_add_mesh(doc, "head_hands", skin_prims, 1)};
    const char *names[2] = {"body", "head_hands"};
    for (int i = 0; i < 2; i++) {
        glbw_node_desc n = glbw_node_defaults();
        n.name = names[i];
        n.mesh = meshes[i];
        n.skin = skin;
        if (glbw_add_node(doc, &n) < 0)
            return false;
    }
    return glbw_error(doc) == NULL;
}

static bool build_document(glbw_doc *doc, const skeleton *sk, const group *groups)
{
    if (add_joint_nodes(doc, sk) < 0)
        return false;
    int skin = add_skin(doc, sk);
    if (skin < 0 || !add_meshes(doc, groups, skin))
        return false;
    for (int i = 0; i < COUNT_OF(CLIPS); i++)
        if (!add_clip(doc, sk, &CLIPS[i]))
            return false;
    return true;
}

static void print_summary(const group *groups)
{
    static const char *names[GROUP_COUNT] = {"skin", "shirt", "trousers", "shoes"};
    size_t verts = 0, indices = 0;
    for (int i = 0; i < GROUP_COUNT; i++) {
        printf("  %-8s %5zu vertices %6zu indices\n", names[i], groups[i].vert_count,
               groups[i].index_count);
        verts += groups[i].vert_count;
        indices += groups[i].index_count;
    }
    printf("  total    %5zu vertices %6zu indices, %d joints, %d clips\n", verts, indices,
           joint_count, COUNT_OF(CLIPS));
}

int main(int argc, char **argv)
{
    const char *out = NULL;
    bool full = false; /* --rig */
    for (int i = 1; i < argc; i++) {
        const char *value = i + 1 < argc ? argv[i + 1] : NULL;
        if (strcmp(argv[i], "--pieces") == 0 && value) {
            char *end;
            const long n = strtol(value, &end, 10);
            if (*end || n < 2 || n > 1000) {
                fprintf(stderr, "%s: --pieces needs a whole number from 2 to 1000, not '%s'\n",
                        argv[0], value);
                return 2;
            }
            pieces = (int)n;
            i++;
        } else if (strcmp(argv[i], "--piece-materials") == 0) {
            piece_materials = true;
        } else if (strcmp(argv[i], "--rig") == 0 && value) {
            if (strcmp(value, "basic") != 0 && strcmp(value, "full") != 0) {
                fprintf(stderr,
                        "%s: --rig needs 'basic' (19 joints, the default) or 'full' (65 joints), "
                        "not '%s'\n",
                        argv[0], value);
                return 2;
            }
            full = strcmp(value, "full") == 0;
            i++;
        } else if (out || (argv[i][0] == '-' && argv[i][1] != '\0')) {
            out = NULL; /* an unknown option, an option without its value, or a second file */
            break;
        } else {
            out = argv[i];
        }
    }
    if (!out || (piece_materials && pieces < 2)) {
        fprintf(stderr, "usage: %s [--pieces N [--piece-materials]] [--rig basic|full] OUT.glb\n",
                argv[0]);
        return 2;
    }
    rig_init(full);
    skeleton sk;
    skeleton_init(&sk);
    group groups[GROUP_COUNT] = {0};
    glbw_doc *doc = glbw_create();
    char err[256] = "out of memory";
    bool ok = doc && build_body(&sk, groups, full);
    if (ok && !build_document(doc, &sk, groups)) {
        snprintf(err, sizeof err, "%s", glbw_error(doc) ? glbw_error(doc) : "build failed");
        ok = false;
    }
    ok = ok && glbw_write_file(doc, out, err, sizeof err);
    if (ok) {
        printf("wrote %s\n", out);
        print_summary(groups);
    } else {
        fprintf(stderr, "gen_character: %s\n", err);
    }
    glbw_destroy(doc);
    for (int i = 0; i < GROUP_COUNT; i++) {
        free(groups[i].verts);
        free(groups[i].indices);
    }
    return ok ? 0 : 1;
}
