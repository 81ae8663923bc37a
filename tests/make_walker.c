/* Writes the walker (tests/walker.h) into a folder:
 *   walker.glb           clips "walk" (root motion: the hips move forward at 1 m/s), "spin" (the
 *                        hips turn a quarter about +Y each 2 s loop, in place, legs as bound) and
 *                        "idle" (the hips bob, nothing travels);
 *   walker_in_place.glb  clips "walk" (the same walk in place) and "run" (2.2 m/s, in place).
 * usage: make_walker OUT_DIR */
#include "glb_writer.h"
#include "walker.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum {
    J_HIPS,
    J_SPINE,
    J_HEAD,
    J_LEFT_UP_LEG,
    J_LEFT_LEG,
    J_LEFT_FOOT,
    J_LEFT_TOE,
    J_RIGHT_UP_LEG,
    J_RIGHT_LEG,
    J_RIGHT_FOOT,
    J_RIGHT_TOE,
    JOINTS
};

static const char *const names[JOINTS] = {"Hips",     "Spine",     "Head",        "LeftUpLeg",
                                          "LeftLeg",  "LeftFoot",  "LeftToeBase", "RightUpLeg",
                                          "RightLeg", "RightFoot", "RightToeBase"};
static const int parents[JOINTS] = {-1, 0, 1, 0, 3, 4, 5, 0, 7, 8, 9};
static const float offsets[JOINTS][3] = {{0, 1.13f, 0},      {0, 0.3f, 0},       {0, 0.35f, 0},
                                         {0.1f, -0.05f, 0},  {0, -0.5f, 0},      {0, -0.5f, 0},
                                         {0, -0.06f, 0.12f}, {-0.1f, -0.05f, 0}, {0, -0.5f, 0},
                                         {0, -0.5f, 0},      {0, -0.06f, 0.12f}};

static int failures;

/* ---- Rotations (x, y, z, w) ---- */

static void quat_mul(const double a[4], const double b[4], double out[4])
{
    const double r[4] = {
        a[3] * b[0] + a[0] * b[3] + a[1] * b[2] - a[2] * b[1],
        a[3] * b[1] - a[0] * b[2] + a[1] * b[3] + a[2] * b[0],
        a[3] * b[2] + a[0] * b[1] - a[1] * b[0] + a[2] * b[3],
        a[3] * b[3] - a[0] * b[0] - a[1] * b[1] - a[2] * b[2],
    };
    memcpy(out, r, sizeof r);
}

static void quat_conj(const double q[4], double out[4])
{
    out[0] = -q[0], out[1] = -q[1], out[2] = -q[2], out[3] = q[3];
}

/* The shortest rotation taking -Y to unit u. */
static void arc_from_down(const double u[3], double q[4])
{
    double v[4] = {-u[2], 0.0, u[0], 1.0 - u[1]}; /* cross(-Y, u), 1 + dot(-Y, u) */
    const double n = sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2] + v[3] * v[3]);
    for (int i = 0; i < 4; i++)
        q[i] = v[i] / n;
}

/* ---- The legs ---- */

/* The thigh's and shin's directions reaching `ankle` from the hip joint at `hip`, the knee bent
 * towards +Z. */
static void two_bone(const double hip[3], const double ankle[3], double thigh[3], double shin[3])
{
    double d[3] = {ankle[0] - hip[0], ankle[1] - hip[1], ankle[2] - hip[2]};
    double len = sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
    const double reach = WALKER_THIGH + WALKER_SHIN - 1e-6;
    const double l = len < reach ? len : reach;
    const double u[3] = {d[0] / len, d[1] / len, d[2] / len};
    /* The bend's direction: +Z made perpendicular to u. */
    double p[3] = {-u[2] * u[0], -u[2] * u[1], 1.0 - u[2] * u[2]};
    const double pn = sqrt(p[0] * p[0] + p[1] * p[1] + p[2] * p[2]);
    for (int i = 0; i < 3; i++)
        p[i] /= pn;
    const double a = WALKER_THIGH, b = WALKER_SHIN;
    const double cos_h = (a * a + l * l - b * b) / (2.0 * a * l);
    const double sin_h = sqrt(fmax(0.0, 1.0 - cos_h * cos_h));
    double knee[3];
    for (int i = 0; i < 3; i++) {
        thigh[i] = cos_h * u[i] + sin_h * p[i];
        knee[i] = hip[i] + a * thigh[i];
    }
    double s[3] = {hip[0] + l * u[0] - knee[0], hip[1] + l * u[1] - knee[1],
                   hip[2] + l * u[2] - knee[2]};
    const double sn = sqrt(s[0] * s[0] + s[1] * s[1] + s[2] * s[2]);
    for (int i = 0; i < 3; i++)
        shin[i] = s[i] / sn;
}

/* One key of a gait: the hips' translation and every joint's local rotation. */
static void gait_key(const walker_gait *g, double t, bool root_motion, float hips[3],
                     float (*rot)[4])
{
    double h[3];
    walker_hips(g, t, root_motion, h);
    for (int i = 0; i < 3; i++)
        hips[i] = (float)h[i];
    for (int j = 0; j < JOINTS; j++)
        memcpy(rot[j], (float[4]){0, 0, 0, 1}, sizeof rot[j]);
    for (int foot = 0; foot < 2; foot++) {
        const int up = foot ? J_RIGHT_UP_LEG : J_LEFT_UP_LEG;
        const double hip[3] = {h[0] + offsets[up][0], h[1] + offsets[up][1], h[2]};
        double ankle[3], thigh[3], shin[3], qt[4], qs[4], inv[4], knee[4], qf[4];
        walker_ankle(g, foot, t, root_motion, ankle);
        two_bone(hip, ankle, thigh, shin);
        arc_from_down(thigh, qt);
        arc_from_down(shin, qs);
        quat_conj(qt, inv);
        quat_mul(inv, qs, knee); /* the shin's rotation in the thigh's frame */
        quat_conj(qs, qf);       /* the foot level in the world */
        for (int i = 0; i < 4; i++) {
            rot[up][i] = (float)qt[i];
            rot[up + 1][i] = (float)knee[i];
            rot[up + 2][i] = (float)qf[i];
        }
    }
}

/* ---- The file ---- */

static int add_channel(glbw_doc *doc, int anim, int node, glbw_path path, const float *times,
                       const float *values, size_t count)
{
    int in = glbw_add_floats(doc, times, count, GLBW_SCALAR, GLBW_TARGET_NONE, true);
    int out =
        glbw_add_floats(doc, values, count, path == GLBW_PATH_ROTATION ? GLBW_VEC4 : GLBW_VEC3,
                        GLBW_TARGET_NONE, false);
    int s = glbw_add_anim_sampler(doc, anim, in, out, GLBW_LINEAR);
    return glbw_add_anim_channel(doc, anim, s, node, path);
}

/* A clip of `keys` keys over `duration`, from key(t): the hips' translation and rotations. */
typedef void (*key_fn)(const void *ctx, double t, float hips[3], float (*rot)[4]);

static void add_clip(glbw_doc *doc, const char *name, const int *nodes, double duration, key_fn key,
                     const void *ctx)
{
    const size_t keys = (size_t)lround(duration * WALKER_KEY_RATE) + 1;
    float *times = malloc(sizeof *times * keys), (*t)[3] = malloc(sizeof *t * keys);
    float(*r)[JOINTS][4] = malloc(sizeof *r * keys), (*one)[4] = malloc(sizeof *one * keys);
    for (size_t k = 0; k < keys; k++) {
        times[k] = (float)(duration * (double)k / (double)(keys - 1));
        key(ctx, times[k], t[k], r[k]);
    }
    const int anim = glbw_add_animation(doc, name);
    add_channel(doc, anim, nodes[J_HIPS], GLBW_PATH_TRANSLATION, times, &t[0][0], keys);
    for (int j = 0; j < JOINTS; j++) {
        for (size_t k = 0; k < keys; k++)
            memcpy(one[k], r[k][j], sizeof one[k]);
        add_channel(doc, anim, nodes[j], GLBW_PATH_ROTATION, times, &one[0][0], keys);
    }
    free(times);
    free(t);
    free(r);
    free(one);
}

typedef struct gait_ctx {
    const walker_gait *gait;
    bool root_motion;
} gait_ctx;

static void gait_clip_key(const void *ctx, double t, float hips[3], float (*rot)[4])
{
    const gait_ctx *g = ctx;
    gait_key(g->gait, t, g->root_motion, hips, rot);
}

/* "spin": legs as bound, the hips at their bind height turning a quarter over 2 s. */
static void spin_key(const void *ctx, double t, float hips[3], float (*rot)[4])
{
    (void)ctx;
    memcpy(hips, offsets[J_HIPS], sizeof(float[3]));
    for (int j = 0; j < JOINTS; j++)
        memcpy(rot[j], (float[4]){0, 0, 0, 1}, sizeof rot[j]);
    const double a = 0.25 * 3.14159265358979323846 * t / 2.0; /* half of the angle */
    rot[J_HIPS][1] = (float)sin(a);
    rot[J_HIPS][3] = (float)cos(a);
}

/* "idle": the hips bob by WALKER_BOB at their bind height, the legs as bound. */
static void idle_key(const void *ctx, double t, float hips[3], float (*rot)[4])
{
    (void)ctx;
    memcpy(hips, offsets[J_HIPS], sizeof(float[3]));
    hips[1] += (float)(WALKER_BOB * (cos(2.0 * 3.14159265358979323846 * t) - 1.0));
    for (int j = 0; j < JOINTS; j++)
        memcpy(rot[j], (float[4]){0, 0, 0, 1}, sizeof rot[j]);
}

static int add_box(float (*pos)[3], float (*nrm)[3], uint16_t (*jnt)[4], float (*wgt)[4],
                   uint16_t *idx, int at, const float c[3], const float size[3], uint16_t joint)
{
    for (int f = 0; f < 6; f++) {
        const int axis = f / 2, u = (axis + 1) % 3, v = (axis + 2) % 3;
        const float sign = f % 2 ? -1.0f : 1.0f;
        for (int k = 0; k < 4; k++) {
            float *p = pos[at + 4 * f + k];
            p[axis] = c[axis] + sign * 0.5f * size[axis];
            p[u] = c[u] + ((k & 1) ? 0.5f : -0.5f) * size[u];
            p[v] = c[v] + ((k & 2) ? 0.5f : -0.5f) * size[v];
            memset(nrm[at + 4 * f + k], 0, sizeof nrm[0]);
            nrm[at + 4 * f + k][axis] = sign;
            memcpy(jnt[at + 4 * f + k], (uint16_t[4]){joint, 0, 0, 0}, sizeof jnt[0]);
            memcpy(wgt[at + 4 * f + k], (float[4]){1, 0, 0, 0}, sizeof wgt[0]);
        }
        /* Counter-clockwise seen from outside, whichever face. */
        const uint16_t b = (uint16_t)(at + 4 * f);
        const bool flip = (sign > 0) != true;
        const uint16_t tri[6] = {b, (uint16_t)(b + (flip ? 3 : 1)), (uint16_t)(b + (flip ? 1 : 3)),
                                 b, (uint16_t)(b + (flip ? 2 : 3)), (uint16_t)(b + (flip ? 3 : 2))};
        memcpy(idx + (at / 4) * 6 + 6 * f, tri, sizeof tri);
    }
    return at + 24;
}

static void write_walker(const char *dir, const char *file, bool in_place)
{
    glbw_doc *doc = glbw_create();
    int nodes[JOINTS];
    for (int j = 0; j < JOINTS; j++) {
        glbw_node_desc n = glbw_node_defaults();
        n.name = names[j];
        n.has_trs = true;
        memcpy(n.translation, offsets[j], sizeof n.translation);
        memcpy(n.rotation, (float[4]){0, 0, 0, 1}, sizeof n.rotation);
        memcpy(n.scale, (float[3]){1, 1, 1}, sizeof n.scale);
        nodes[j] = glbw_add_node(doc, &n);
        if (parents[j] >= 0)
            glbw_node_add_child(doc, nodes[parents[j]], nodes[j]);
    }
    /* Inverse binds: the joints' bind globals are their offsets summed (no rotation). */
    float ibm[JOINTS][16], global[JOINTS][3];
    for (int j = 0; j < JOINTS; j++) {
        for (int i = 0; i < 3; i++)
            global[j][i] = offsets[j][i] + (parents[j] >= 0 ? global[parents[j]][i] : 0.0f);
        memset(ibm[j], 0, sizeof ibm[j]);
        ibm[j][0] = ibm[j][5] = ibm[j][10] = ibm[j][15] = 1.0f;
        ibm[j][12] = -global[j][0], ibm[j][13] = -global[j][1], ibm[j][14] = -global[j][2];
    }
    const int inverse_binds =
        glbw_add_floats(doc, &ibm[0][0], JOINTS, GLBW_MAT4, GLBW_TARGET_NONE, false);
    const int skin = glbw_add_skin(doc, "walker", nodes, JOINTS, inverse_binds, nodes[J_HIPS]);

    enum { BOXES = 9, VERTS = 24 * BOXES, INDICES = 36 * BOXES };
    static const struct {
        float c[3], size[3];
        uint16_t joint;
    } boxes[BOXES] = {
        {{0, 1.13f, 0}, {0.3f, 0.15f, 0.18f}, J_HIPS},
        {{0, 1.5f, 0}, {0.36f, 0.45f, 0.2f}, J_SPINE},
        {{0, 1.88f, 0}, {0.2f, 0.22f, 0.22f}, J_HEAD},
        {{0.1f, 0.83f, 0}, {0.12f, 0.46f, 0.12f}, J_LEFT_UP_LEG},
        {{0.1f, 0.33f, 0}, {0.1f, 0.46f, 0.1f}, J_LEFT_LEG},
        {{0.1f, 0.05f, 0.05f}, {0.1f, 0.06f, 0.24f}, J_LEFT_FOOT},
        {{-0.1f, 0.83f, 0}, {0.12f, 0.46f, 0.12f}, J_RIGHT_UP_LEG},
        {{-0.1f, 0.33f, 0}, {0.1f, 0.46f, 0.1f}, J_RIGHT_LEG},
        {{-0.1f, 0.05f, 0.05f}, {0.1f, 0.06f, 0.24f}, J_RIGHT_FOOT},
    };
    static float pos[VERTS][3], nrm[VERTS][3], wgt[VERTS][4];
    static uint16_t jnt[VERTS][4], idx[INDICES];
    for (int b = 0, at = 0; b < BOXES; b++)
        at = add_box(pos, nrm, jnt, wgt, idx, at, boxes[b].c, boxes[b].size, boxes[b].joint);
    glbw_primitive_desc p = glbw_primitive_defaults();
    p.position = glbw_add_floats(doc, &pos[0][0], VERTS, GLBW_VEC3, GLBW_TARGET_VERTICES, true);
    p.normal = glbw_add_floats(doc, &nrm[0][0], VERTS, GLBW_VEC3, GLBW_TARGET_VERTICES, false);
    p.joints0 = glbw_add_data(
        doc, jnt, GLBW_TARGET_VERTICES,
        &(glbw_accessor_desc){.component = GLBW_U16, .type = GLBW_VEC4, .count = VERTS});
    p.weights0 = glbw_add_floats(doc, &wgt[0][0], VERTS, GLBW_VEC4, GLBW_TARGET_VERTICES, false);
    p.indices = glbw_add_data(
        doc, idx, GLBW_TARGET_INDICES,
        &(glbw_accessor_desc){.component = GLBW_U16, .type = GLBW_SCALAR, .count = INDICES});
    glbw_material_desc mat = glbw_material_defaults();
    mat.name = "cloth";
    memcpy(mat.base_color, (float[4]){0.3f, 0.5f, 0.8f, 1}, sizeof mat.base_color);
    p.material = glbw_add_material(doc, &mat);
    glbw_node_desc body = glbw_node_defaults();
    body.name = "Body";
    body.mesh = glbw_add_mesh(doc, "Body", &p, 1);
    body.skin = skin;
    const int body_node = glbw_add_node(doc, &body);
    glbw_node_desc armature = glbw_node_defaults();
    armature.name = "Armature";
    const int children[2] = {nodes[J_HIPS], body_node};
    armature.children = children;
    armature.child_count = 2;
    const int root = glbw_add_node(doc, &armature);
    glbw_set_scene(doc, &root, 1);

    if (in_place) {
        add_clip(doc, "walk", nodes, walker_walk.period, gait_clip_key,
                 &(gait_ctx){&walker_walk, false});
        add_clip(doc, "run", nodes, walker_run.period, gait_clip_key,
                 &(gait_ctx){&walker_run, false});
    } else {
        add_clip(doc, "walk", nodes, walker_walk.period, gait_clip_key,
                 &(gait_ctx){&walker_walk, true});
        add_clip(doc, "spin", nodes, 2.0, spin_key, NULL);
        add_clip(doc, "idle", nodes, 2.0, idle_key, NULL);
    }
    char path[1024], err[256];
    snprintf(path, sizeof path, "%s/%s", dir, file);
    if (!glbw_write_file(doc, path, err, sizeof err)) {
        fprintf(stderr, "make_walker: %s: %s\n", path, err);
        failures++;
    }
    glbw_destroy(doc);
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: make_walker OUT_DIR\n");
        return 2;
    }
    write_walker(argv[1], "walker.glb", false);
    write_walker(argv[1], "walker_in_place.glb", true);
    return failures ? 1 : 0;
}
