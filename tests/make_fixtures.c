/* Writes the test models into a folder: small glTF files, each shaped to exercise one rule of the
 * importer, plus deliberately bad input.  usage: make_fixtures OUT_DIR */
#include "glb_writer.h"
#include "shaders/vks_shared.h"

#include <stb/stb_image_write.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *out_dir;
static int failures;

static void write_doc(glbw_doc *doc, const char *name)
{
    char path[1024], err[256];
    snprintf(path, sizeof path, "%s/%s", out_dir, name);
    if (!glbw_write_file(doc, path, err, sizeof err)) {
        fprintf(stderr, "make_fixtures: %s: %s\n", path, err);
        failures++;
    }
    glbw_destroy(doc);
}

static int add_node(glbw_doc *doc, const char *name, const float t[3], int mesh, int skin)
{
    glbw_node_desc n = glbw_node_defaults();
    n.name = name;
    n.mesh = mesh;
    n.skin = skin;
    if (t) {
        n.has_trs = true;
        memcpy(n.translation, t, sizeof n.translation);
        memcpy(n.rotation, (float[4]){0, 0, 0, 1}, sizeof n.rotation);
        memcpy(n.scale, (float[3]){1, 1, 1}, sizeof n.scale);
    }
    return glbw_add_node(doc, &n);
}

/* Inverse bind matrices (column-major, as glTF stores them) for joints at global translations. */
static int add_inverse_binds(glbw_doc *doc, const float (*global_t)[3], size_t count)
{
    float *m = calloc(count, sizeof(float[16]));
    for (size_t i = 0; i < count; i++) {
        float *c = m + 16 * i;
        c[0] = c[5] = c[10] = c[15] = 1.0f;
        c[12] = -global_t[i][0];
        c[13] = -global_t[i][1];
        c[14] = -global_t[i][2];
    }
    int a = glbw_add_floats(doc, m, count, GLBW_MAT4, GLBW_TARGET_NONE, false);
    free(m);
    return a;
}

static int add_indices(glbw_doc *doc, const uint16_t *idx, size_t count)
{
    return glbw_add_data(
        doc, idx, GLBW_TARGET_INDICES,
        &(glbw_accessor_desc){.component = GLBW_U16, .type = GLBW_SCALAR, .count = count});
}

static int add_u16x4(glbw_doc *doc, const uint16_t (*v)[4], size_t count)
{
    return glbw_add_data(
        doc, v, GLBW_TARGET_VERTICES,
        &(glbw_accessor_desc){.component = GLBW_U16, .type = GLBW_VEC4, .count = count});
}

/* A channel over `count` keys. */
static void add_channel(glbw_doc *doc, int anim, int node, glbw_path path, const float *times,
                        const float *values, size_t count)
{
    int in = glbw_add_floats(doc, times, count, GLBW_SCALAR, GLBW_TARGET_NONE, true);
    int out =
        glbw_add_floats(doc, values, count, path == GLBW_PATH_ROTATION ? GLBW_VEC4 : GLBW_VEC3,
                        GLBW_TARGET_NONE, false);
    int s = glbw_add_anim_sampler(doc, anim, in, out, GLBW_LINEAR);
    glbw_add_anim_channel(doc, anim, s, node, path);
}

/* unordered.glb: a skinned chain base -> mid -> twist -> tip whose nodes are listed child first;
 * "twist" is no bone but carries an animated transform between two bones. A rigid mesh hangs under
 * "mid" on its own animated node. */
static void unordered(void)
{
    glbw_doc *doc = glbw_create();
    const float pos[4][3] = {{0, 0, 0}, {0.2f, 1, 0}, {-0.2f, 2, 0}, {0, 2.5f, 0.1f}};
    const float nrm[4][3] = {{0, 0, 1}, {0, 0, 1}, {0, 0, 1}, {0, 0, 1}};
    const uint16_t joints[4][4] = {{2, 0, 0, 0}, {1, 2, 0, 0}, {0, 1, 0, 0}, {0, 0, 0, 0}};
    const float weights[4][4] = {
        {1, 0, 0, 0}, {0.5f, 0.5f, 0, 0}, {0.7f, 0.3f, 0, 0}, {1, 0, 0, 0}};
    const uint16_t idx[6] = {0, 1, 2, 1, 3, 2};
    glbw_primitive_desc p = glbw_primitive_defaults();
    p.position = glbw_add_floats(doc, &pos[0][0], 4, GLBW_VEC3, GLBW_TARGET_VERTICES, true);
    p.normal = glbw_add_floats(doc, &nrm[0][0], 4, GLBW_VEC3, GLBW_TARGET_VERTICES, false);
    p.joints0 = add_u16x4(doc, joints, 4);
    p.weights0 = glbw_add_floats(doc, &weights[0][0], 4, GLBW_VEC4, GLBW_TARGET_VERTICES, false);
    p.indices = add_indices(doc, idx, 6);
    int skinned = glbw_add_mesh(doc, "chain", &p, 1);

    glbw_primitive_desc r = glbw_primitive_defaults();
    r.position = glbw_add_floats(doc, &pos[0][0], 3, GLBW_VEC3, GLBW_TARGET_VERTICES, true);
    r.indices = add_indices(doc, idx, 3);
    int rigid = glbw_add_mesh(doc, "rigid", &r, 1);

    /* Node order: tip (0), twist (1), mid (2), base (3), then the mesh nodes. */
    int tip = add_node(doc, "tip", (float[3]){0, 1, 0}, -1, -1);
    int twist = add_node(doc, "twist", (float[3]){0.1f, 0, 0}, -1, -1);
    int mid = add_node(doc, "mid", (float[3]){0, 1, 0}, -1, -1);
    int base = add_node(doc, "base", (float[3]){0, 0, 0}, -1, -1);
    int holder = add_node(doc, "rigid_holder", (float[3]){0.5f, 0, 0}, rigid, -1);
    glbw_node_add_child(doc, twist, tip);
    glbw_node_add_child(doc, mid, twist);
    glbw_node_add_child(doc, mid, holder);
    glbw_node_add_child(doc, base, mid);
    const float global_t[3][3] = {{0.1f, 2, 0}, {0, 1, 0}, {0, 0, 0}}; /* tip, mid, base */
    int ibm = add_inverse_binds(doc, global_t, 3);
    int skin = glbw_add_skin(doc, "chain", (int[3]){tip, mid, base}, 3, ibm, base);
    int mesh_node = add_node(doc, "chain_mesh", NULL, skinned, skin);
    glbw_set_scene(doc, (int[2]){mesh_node, base}, 2);

    int anim = glbw_add_animation(doc, "bend");
    const float times[3] = {0, 0.5f, 1};
    float rot[3][4] = {{0, 0, 0, 1}, {0, 0, sinf(0.4f), cosf(0.4f)}, {0, 0, 0, 1}};
    add_channel(doc, anim, mid, GLBW_PATH_ROTATION, times, &rot[0][0], 3);
    const float tr[3][3] = {{0, 0, 0}, {0.3f, 0, 0}, {0, 0, 0}};
    add_channel(doc, anim, base, GLBW_PATH_TRANSLATION, times, &tr[0][0], 3);
    const float hold[3][3] = {{0.5f, 0, 0}, {0.5f, 0.25f, 0}, {0.5f, 0, 0}};
    add_channel(doc, anim, holder, GLBW_PATH_TRANSLATION, times, &hold[0][0], 3);
    float twist_rot[3][4] = {{0, 0, 0, 1}, {0, sinf(0.6f), 0, cosf(0.6f)}, {0, 0, 0, 1}};
    add_channel(doc, anim, twist, GLBW_PATH_ROTATION, times, &twist_rot[0][0], 3);
    write_doc(doc, "unordered.glb");
}

/* influences.glb: 6 joints under a root; per vertex:
 *   0: six influences (weights 0.05 0.4 0.12 0.3 0.08 0.05 on joints j0..j5) -> keep 4, renormalise
 *   1: two influences summing to 0.5 (0.3 on j2, 0.2 on j4)             -> (0.6, 0.4)
 *   2: no influence at all                                              -> follows the mesh node
 *   3: one negative weight and one positive (j3: -0.2, j1: 0.8)          -> j1 alone, weight 1
 *   4: exactly 1.0 on j5                                                  -> unchanged */
static void influences(void)
{
    glbw_doc *doc = glbw_create();
    const float pos[5][3] = {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {1, 1, 0}, {2, 1, 0}};
    const uint16_t j0[5][4] = {
        {0, 1, 2, 3}, {2, 4, 0, 0}, {0, 0, 0, 0}, {3, 1, 0, 0}, {5, 0, 0, 0}};
    const float w0[5][4] = {{0.05f, 0.4f, 0.12f, 0.3f},
                            {0.3f, 0.2f, 0, 0},
                            {0, 0, 0, 0},
                            {-0.2f, 0.8f, 0, 0},
                            {1, 0, 0, 0}};
    const uint16_t j1[5][4] = {
        {4, 5, 0, 0}, {0, 0, 0, 0}, {0, 0, 0, 0}, {0, 0, 0, 0}, {0, 0, 0, 0}};
    const float w1[5][4] = {{0.08f, 0.05f, 0, 0}, {0}, {0}, {0}, {0}};
    const uint16_t idx[6] = {0, 1, 2, 1, 3, 4};
    glbw_primitive_desc p = glbw_primitive_defaults();
    p.position = glbw_add_floats(doc, &pos[0][0], 5, GLBW_VEC3, GLBW_TARGET_VERTICES, true);
    p.joints0 = add_u16x4(doc, j0, 5);
    p.weights0 = glbw_add_floats(doc, &w0[0][0], 5, GLBW_VEC4, GLBW_TARGET_VERTICES, false);
    p.joints1 = add_u16x4(doc, j1, 5);
    p.weights1 = glbw_add_floats(doc, &w1[0][0], 5, GLBW_VEC4, GLBW_TARGET_VERTICES, false);
    p.indices = add_indices(doc, idx, 6);
    int mesh = glbw_add_mesh(doc, "influences", &p, 1);
    int root = add_node(doc, "root", (float[3]){0, 0, 0}, -1, -1);
    int joints[6];
    float global_t[6][3];
    for (int i = 0; i < 6; i++) {
        char name[8];
        snprintf(name, sizeof name, "j%d", i);
        global_t[i][0] = (float)i;
        global_t[i][1] = global_t[i][2] = 0.0f;
        joints[i] = add_node(doc, name, global_t[i], -1, -1);
        glbw_node_add_child(doc, root, joints[i]);
    }
    int skin = glbw_add_skin(doc, "skin", joints, 6, add_inverse_binds(doc, global_t, 6), root);
    int mesh_node = add_node(doc, "influence_mesh", (float[3]){0, 0, 3}, mesh, skin);
    glbw_set_scene(doc, (int[2]){root, mesh_node}, 2);
    write_doc(doc, "influences.glb");
}

/* A skinned chain of `count` joints (one vertex per joint); `bad` poisons the clip. */
enum chain_flaw {
    CHAIN_OK,
    CHAIN_NAN_VALUE,
    CHAIN_NAN_TIME,
    CHAIN_FAR_KEY,  /* a translation key 1e20 units away: finite, declared nowhere, absurd */
    CHAIN_FAR_TIME, /* the last key at 1e30 s: a clip past any integer count of samples */
    CHAIN_NO_MESH,
    CHAIN_NO_INVERSE_BINDS,
    CHAIN_LONG_CLIP /* not a flaw: a 64 s clip keyed at 30 Hz on every joint, T, R and S */
};

/* long_clip.glb's clip: every joint keyed at 30 Hz for 64 s (1 921 keys per channel, each of
 * translation, rotation and scale; samplers of their own), the rotations swaying about z at a
 * period of its own per joint: the worst case for a key search, against a short clip's. */
#define LONG_CLIP_SECONDS 64
#define LONG_CLIP_KEYS (30 * LONG_CLIP_SECONDS + 1)

static void long_clip_channels(glbw_doc *doc, int anim, const int *nodes, size_t count)
{
    float *times = malloc(sizeof *times * LONG_CLIP_KEYS);
    float(*t)[3] = malloc(sizeof *t * LONG_CLIP_KEYS), (*s)[3] = malloc(sizeof *s * LONG_CLIP_KEYS);
    float(*r)[4] = malloc(sizeof *r * LONG_CLIP_KEYS);
    for (size_t j = 0; j < count; j++) {
        for (int k = 0; k < LONG_CLIP_KEYS; k++) {
            float at = (float)k / 30.0f, a = 0.2f * sinf(at * (1.0f + 0.1f * (float)j));
            times[k] = at;
            t[k][0] = 0.0f, t[k][1] = j ? 0.1f : 0.0f, t[k][2] = 0.01f * sinf(at);
            s[k][0] = s[k][1] = s[k][2] = 1.0f + 0.01f * sinf(0.5f * at);
            r[k][0] = 0.0f, r[k][1] = 0.0f, r[k][2] = sinf(0.5f * a), r[k][3] = cosf(0.5f * a);
        }
        add_channel(doc, anim, nodes[j], GLBW_PATH_TRANSLATION, times, &t[0][0], LONG_CLIP_KEYS);
        add_channel(doc, anim, nodes[j], GLBW_PATH_ROTATION, times, &r[0][0], LONG_CLIP_KEYS);
        add_channel(doc, anim, nodes[j], GLBW_PATH_SCALE, times, &s[0][0], LONG_CLIP_KEYS);
    }
    free(times);
    free(t);
    free(s);
    free(r);
}

static void chain(const char *file, size_t count, enum chain_flaw flaw)
{
    glbw_doc *doc = glbw_create();
    float(*pos)[3] = calloc(count, sizeof *pos);
    uint16_t(*joints)[4] = calloc(count, sizeof *joints);
    float(*weights)[4] = calloc(count, sizeof *weights);
    uint16_t *idx = calloc(3 * count, sizeof *idx);
    int *nodes = calloc(count, sizeof *nodes);
    for (size_t i = 0; i < count; i++) {
        pos[i][0] = (float)(i % 2);
        pos[i][1] = 0.1f * (float)i;
        joints[i][0] = (uint16_t)i;
        weights[i][0] = 1.0f;
        if (i + 2 < count) {
            idx[3 * i] = (uint16_t)i;
            idx[3 * i + 1] = (uint16_t)(i + 1);
            idx[3 * i + 2] = (uint16_t)(i + 2);
        }
        char name[32];
        snprintf(name, sizeof name, "bone%zu", i);
        nodes[i] = add_node(doc, name, (float[3]){0, i ? 0.1f : 0.0f, 0}, -1, -1);
        if (i)
            glbw_node_add_child(doc, nodes[i - 1], nodes[i]);
        pos[i][2] = 0.0f;
    }
    if (flaw != CHAIN_NO_MESH) {
        float(*global_t)[3] = calloc(count, sizeof *global_t);
        for (size_t i = 0; i < count; i++)
            global_t[i][1] = 0.1f * (float)i;
        glbw_primitive_desc p = glbw_primitive_defaults();
        p.position = glbw_add_floats(doc, &pos[0][0], count, GLBW_VEC3, GLBW_TARGET_VERTICES, true);
        p.joints0 = add_u16x4(doc, (const uint16_t(*)[4])joints, count);
        p.weights0 =
            glbw_add_floats(doc, &weights[0][0], count, GLBW_VEC4, GLBW_TARGET_VERTICES, false);
        p.indices = add_indices(doc, idx, 3 * (count - 2));
        int mesh = glbw_add_mesh(doc, "chain", &p, 1);
        /* Without inverseBindMatrices (optional in glTF: identity) assimp 5.2 dereferences null;
         * the rewrite writes identities. Expected: every bone's inverse bind is the identity, so
         * the rest palette of bone i is its global transform T(0, 0.1 i, 0). */
        int ibm =
            flaw == CHAIN_NO_INVERSE_BINDS ? GLBW_NONE : add_inverse_binds(doc, global_t, count);
        int skin = glbw_add_skin(doc, "chain", nodes, count, ibm, nodes[0]);
        add_node(doc, "chain_mesh", NULL, mesh, skin);
        free(global_t);
    }
    int anim = glbw_add_animation(doc, flaw == CHAIN_LONG_CLIP ? "long" : "sway");
    if (flaw == CHAIN_LONG_CLIP) {
        long_clip_channels(doc, anim, nodes, count);
    } else {
        float times[3] = {0, 0.5f, flaw == CHAIN_FAR_TIME ? 1e30f : 1};
        float rot[3][4] = {{0, 0, 0, 1}, {0, 0, sinf(0.1f), cosf(0.1f)}, {0, 0, 0, 1}};
        if (flaw == CHAIN_NAN_VALUE)
            rot[1][2] = NAN;
        if (flaw == CHAIN_NAN_TIME)
            times[1] = NAN;
        add_channel(doc, anim, nodes[count / 2], GLBW_PATH_ROTATION, times, &rot[0][0], 3);
        if (flaw == CHAIN_FAR_KEY) {
            const float far[3][3] = {{0, 0.1f, 0}, {0, 1e20f, 0}, {0, 0.1f, 0}};
            add_channel(doc, anim, nodes[count / 2], GLBW_PATH_TRANSLATION, times, &far[0][0], 3);
        }
    }
    write_doc(doc, file);
    free(pos);
    free(joints);
    free(weights);
    free(idx);
    free(nodes);
}

/* tangents.glb: a strip in the plane z = 0 (normal +z) over two joints, lower (at the origin)
 * and upper (at y = 1, its child). Primitive 0 has a TANGENT per vertex, handedness +1 and -1:
 *   0 (0,0,0) ( 1,   0,   0, +1) lower        4 (0,2,0) (-1,  0, 0, -1) upper
 *   1 (1,0,0) ( 0,   1,   0, -1) lower        5 (1,2,0) ( 0, -1, 0, +1) upper
 *   2 (0,1,0) ( 0.6, 0.8, 0, +1) lower/upper  6 (0,2,0) (-1,  0, 0, +1) upper: 4 but for w
 *   3 (1,1,0) ( 3,   0,   0, -1) lower/upper  7 = 5 exactly
 * (3 is not unit length: the importer normalises it.) JoinIdenticalVertices must keep 6 apart
 * from 4 and merge 7 into 5: 7 vertices. Primitive 1, a triangle at x >= 3, has normals but no
 * tangents. Clips: "bend" rotates upper about z and scales lower non-uniformly; "mirror" scales
 * lower by (-1, 1, 1) throughout (every vertex's det < 0) while upper turns. */
static void tangents(void)
{
    glbw_doc *doc = glbw_create();
    const float pos[8][3] = {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {1, 1, 0},
                             {0, 2, 0}, {1, 2, 0}, {0, 2, 0}, {1, 2, 0}};
    const float nrm[8][3] = {{0, 0, 1}, {0, 0, 1}, {0, 0, 1}, {0, 0, 1},
                             {0, 0, 1}, {0, 0, 1}, {0, 0, 1}, {0, 0, 1}};
    const float tan[8][4] = {{1, 0, 0, 1},   {0, 1, 0, -1}, {0.6f, 0.8f, 0, 1}, {3, 0, 0, -1},
                             {-1, 0, 0, -1}, {0, -1, 0, 1}, {-1, 0, 0, 1},      {0, -1, 0, 1}};
    const uint16_t joints[8][4] = {{0, 0, 0, 0}, {0, 0, 0, 0}, {0, 1, 0, 0}, {0, 1, 0, 0},
                                   {1, 0, 0, 0}, {1, 0, 0, 0}, {1, 0, 0, 0}, {1, 0, 0, 0}};
    const float weights[8][4] = {{1, 0, 0, 0},         {1, 0, 0, 0}, {0.5f, 0.5f, 0, 0},
                                 {0.25f, 0.75f, 0, 0}, {1, 0, 0, 0}, {1, 0, 0, 0},
                                 {1, 0, 0, 0},         {1, 0, 0, 0}};
    const uint16_t idx[15] = {0, 1, 2, 1, 3, 2, 2, 3, 4, 3, 5, 4, 3, 7, 6};
    glbw_primitive_desc prims[2] = {glbw_primitive_defaults(), glbw_primitive_defaults()};
    prims[0].position = glbw_add_floats(doc, &pos[0][0], 8, GLBW_VEC3, GLBW_TARGET_VERTICES, true);
    prims[0].normal = glbw_add_floats(doc, &nrm[0][0], 8, GLBW_VEC3, GLBW_TARGET_VERTICES, false);
    prims[0].tangent = glbw_add_floats(doc, &tan[0][0], 8, GLBW_VEC4, GLBW_TARGET_VERTICES, false);
    prims[0].joints0 = add_u16x4(doc, joints, 8);
    prims[0].weights0 =
        glbw_add_floats(doc, &weights[0][0], 8, GLBW_VEC4, GLBW_TARGET_VERTICES, false);
    prims[0].indices = add_indices(doc, idx, 15);

    const float pos1[3][3] = {{3, 0, 0}, {4, 0, 0}, {3, 1, 0}};
    const uint16_t joints1[3][4] = {{0, 0, 0, 0}, {0, 0, 0, 0}, {0, 1, 0, 0}};
    const float weights1[3][4] = {{1, 0, 0, 0}, {1, 0, 0, 0}, {0.5f, 0.5f, 0, 0}};
    prims[1].position = glbw_add_floats(doc, &pos1[0][0], 3, GLBW_VEC3, GLBW_TARGET_VERTICES, true);
    prims[1].normal = glbw_add_floats(doc, &nrm[0][0], 3, GLBW_VEC3, GLBW_TARGET_VERTICES, false);
    prims[1].joints0 = add_u16x4(doc, joints1, 3);
    prims[1].weights0 =
        glbw_add_floats(doc, &weights1[0][0], 3, GLBW_VEC4, GLBW_TARGET_VERTICES, false);
    prims[1].indices = add_indices(doc, idx, 3);
    int mesh = glbw_add_mesh(doc, "tangent_strip", prims, 2);

    int lower = add_node(doc, "lower", (float[3]){0, 0, 0}, -1, -1);
    int upper = add_node(doc, "upper", (float[3]){0, 1, 0}, -1, -1);
    glbw_node_add_child(doc, lower, upper);
    const float global_t[2][3] = {{0, 0, 0}, {0, 1, 0}};
    int skin = glbw_add_skin(doc, "strip", (int[2]){lower, upper}, 2,
                             add_inverse_binds(doc, global_t, 2), lower);
    int mesh_node = add_node(doc, "tangent_mesh", NULL, mesh, skin);
    glbw_set_scene(doc, (int[2]){mesh_node, lower}, 2);

    const float times[3] = {0, 0.5f, 1};
    const float turn[3][4] = {{0, 0, 0, 1}, {0, 0, sinf(0.4f), cosf(0.4f)}, {0, 0, 0, 1}};
    int bend = glbw_add_animation(doc, "bend");
    add_channel(doc, bend, upper, GLBW_PATH_ROTATION, times, &turn[0][0], 3);
    const float squash[3][3] = {{1, 1, 1}, {1.5f, 0.6f, 1}, {1, 1, 1}};
    add_channel(doc, bend, lower, GLBW_PATH_SCALE, times, &squash[0][0], 3);
    int mirror = glbw_add_animation(doc, "mirror");
    add_channel(doc, mirror, upper, GLBW_PATH_ROTATION, times, &turn[0][0], 3);
    const float flip[3][3] = {{-1, 1, 1}, {-1, 1, 1}, {-1, 1, 1}};
    add_channel(doc, mirror, lower, GLBW_PATH_SCALE, times, &flip[0][0], 3);
    write_doc(doc, "tangents.glb");
}

/* nan_tangent.glb: one triangle whose second tangent has a NaN component. */
static void nan_tangent(void)
{
    glbw_doc *doc = glbw_create();
    const float pos[3][3] = {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}};
    const float nrm[3][3] = {{0, 0, 1}, {0, 0, 1}, {0, 0, 1}};
    const float tan[3][4] = {{1, 0, 0, 1}, {NAN, 0, 0, 1}, {1, 0, 0, 1}};
    const uint16_t idx[3] = {0, 1, 2};
    glbw_primitive_desc p = glbw_primitive_defaults();
    p.position = glbw_add_floats(doc, &pos[0][0], 3, GLBW_VEC3, GLBW_TARGET_VERTICES, true);
    p.normal = glbw_add_floats(doc, &nrm[0][0], 3, GLBW_VEC3, GLBW_TARGET_VERTICES, false);
    p.tangent = glbw_add_floats(doc, &tan[0][0], 3, GLBW_VEC4, GLBW_TARGET_VERTICES, false);
    p.indices = add_indices(doc, idx, 3);
    add_node(doc, "nan_tangent", NULL, glbw_add_mesh(doc, "nan_tangent", &p, 1), -1);
    write_doc(doc, "nan_tangent.glb");
}

/* A capped 8-sided tube of radius 0.6 along y from 0 to 2, five rings 0.5 apart, smooth side
 * normals, counter-clockwise outside. upper[v] is the weight of the upper of two joints: 0 up to
 * y = 0.5, 0.5 at y = 1, 1 from y = 1.5 on. */
enum { TUBE_SIDES = 8, TUBE_RINGS = 5 };
enum { TUBE_VERTICES = TUBE_RINGS * TUBE_SIDES + 2 * (TUBE_SIDES + 1) };
enum { TUBE_INDICES = (TUBE_RINGS - 1) * TUBE_SIDES * 6 + 2 * TUBE_SIDES * 3 };

static void tube(float (*pos)[3], float (*nrm)[3], float *upper, uint16_t *idx)
{
    int v = 0, k = 0;
    for (int r = 0; r < TUBE_RINGS; r++)
        for (int a = 0; a < TUBE_SIDES; a++, v++) {
            float angle = 2.0f * 3.14159265f * (float)a / TUBE_SIDES, y = 0.4f * (float)r;
            float c = cosf(angle), s = sinf(angle);
            memcpy(pos[v], (float[3]){0.6f * c, y, 0.6f * s}, sizeof pos[v]);
            memcpy(nrm[v], (float[3]){c, 0, s}, sizeof nrm[v]);
            upper[v] = y <= 0.4f ? 0.0f : y >= 1.2f ? 1.0f : (y - 0.4f) / 0.8f;
        }
    for (int r = 0; r + 1 < TUBE_RINGS; r++)
        for (int a = 0; a < TUBE_SIDES; a++) {
            uint16_t p = (uint16_t)(r * TUBE_SIDES + a);
            uint16_t q = (uint16_t)(r * TUBE_SIDES + (a + 1) % TUBE_SIDES);
            uint16_t p1 = (uint16_t)(p + TUBE_SIDES), q1 = (uint16_t)(q + TUBE_SIDES);
            const uint16_t quad[6] = {p, p1, q, q, p1, q1};
            memcpy(idx + k, quad, sizeof quad);
            k += 6;
        }
    for (int cap = 0; cap < 2; cap++) { /* bottom (normal -y), top (+y) */
        float y = cap ? 1.6f : 0.0f, ny = cap ? 1.0f : -1.0f;
        int centre = v;
        memcpy(pos[v], (float[3]){0, y, 0}, sizeof pos[v]);
        memcpy(nrm[v], (float[3]){0, ny, 0}, sizeof nrm[v]);
        upper[v++] = cap ? 1.0f : 0.0f;
        for (int a = 0; a < TUBE_SIDES; a++, v++) {
            memcpy(pos[v], pos[(cap ? TUBE_RINGS - 1 : 0) * TUBE_SIDES + a], sizeof pos[v]);
            memcpy(nrm[v], (float[3]){0, ny, 0}, sizeof nrm[v]);
            upper[v] = cap ? 1.0f : 0.0f;
        }
        for (int a = 0; a < TUBE_SIDES; a++) {
            uint16_t p = (uint16_t)(centre + 1 + a);
            uint16_t q = (uint16_t)(centre + 1 + (a + 1) % TUBE_SIDES);
            const uint16_t tri[3] = {(uint16_t)centre, cap ? q : p, cap ? p : q};
            memcpy(idx + k, tri, sizeof tri);
            k += 3;
        }
    }
}

static int add_colored_material(glbw_doc *doc, const char *name, float r, float g, float b)
{
    glbw_material_desc m = glbw_material_defaults();
    m.name = name;
    memcpy(m.base_color, (float[4]){r, g, b, 1}, sizeof m.base_color);
    return glbw_add_material(doc, &m);
}

/* no_animation.glb: the tube skinned to two joints, lower (at the origin) and upper (at y = 1,
 * its child), and no animation at all. The inverse binds are those of a straight tube while
 * upper's node turns 35 degrees about z, so the rest pose the program shows is bent. */
static void no_animation(void)
{
    glbw_doc *doc = glbw_create();
    float pos[TUBE_VERTICES][3], nrm[TUBE_VERTICES][3], upper[TUBE_VERTICES];
    float weights[TUBE_VERTICES][4];
    uint16_t joints[TUBE_VERTICES][4], idx[TUBE_INDICES];
    tube(pos, nrm, upper, idx);
    for (int v = 0; v < TUBE_VERTICES; v++) {
        memcpy(joints[v], (uint16_t[4]){0, 1, 0, 0}, sizeof joints[v]);
        memcpy(weights[v], (float[4]){1.0f - upper[v], upper[v], 0, 0}, sizeof weights[v]);
    }
    glbw_primitive_desc p = glbw_primitive_defaults();
    p.position =
        glbw_add_floats(doc, &pos[0][0], TUBE_VERTICES, GLBW_VEC3, GLBW_TARGET_VERTICES, true);
    p.normal =
        glbw_add_floats(doc, &nrm[0][0], TUBE_VERTICES, GLBW_VEC3, GLBW_TARGET_VERTICES, false);
    p.joints0 = add_u16x4(doc, (const uint16_t(*)[4])joints, TUBE_VERTICES);
    p.weights0 =
        glbw_add_floats(doc, &weights[0][0], TUBE_VERTICES, GLBW_VEC4, GLBW_TARGET_VERTICES, false);
    p.indices = add_indices(doc, idx, TUBE_INDICES);
    p.material = add_colored_material(doc, "orange", 0.9f, 0.45f, 0.1f);
    int mesh = glbw_add_mesh(doc, "bent_tube", &p, 1);

    int lower = add_node(doc, "lower", (float[3]){0, 0, 0}, -1, -1);
    glbw_node_desc n = glbw_node_defaults();
    n.name = "upper";
    n.has_trs = true;
    memcpy(n.translation, (float[3]){0, 0.8f, 0}, sizeof n.translation);
    memcpy(n.rotation, (float[4]){0, 0, sinf(0.5f * 0.61f), cosf(0.5f * 0.61f)}, sizeof n.rotation);
    memcpy(n.scale, (float[3]){1, 1, 1}, sizeof n.scale);
    int up = glbw_add_node(doc, &n);
    glbw_node_add_child(doc, lower, up);
    const float global_t[2][3] = {{0, 0, 0}, {0, 0.8f, 0}};
    int skin = glbw_add_skin(doc, "tube", (int[2]){lower, up}, 2,
                             add_inverse_binds(doc, global_t, 2), lower);
    int mesh_node = add_node(doc, "tube_mesh", NULL, mesh, skin);
    glbw_set_scene(doc, (int[2]){mesh_node, lower}, 2);
    write_doc(doc, "no_animation.glb");
}

/* static_mesh.glb: the tube with no skin and no bones, on node "holder" (translation
 * (0.5, 1, -0.25), 90 degrees about +y, scale 2) under an untransformed root "stage": in palette
 * space a vertex p lands on (0.5 + 2 p.z, 1 + 2 p.y, -0.25 - 2 p.x), its normal n on
 * (n.z, n.y, -n.x). */
static void static_mesh(void)
{
    glbw_doc *doc = glbw_create();
    float pos[TUBE_VERTICES][3], nrm[TUBE_VERTICES][3], upper[TUBE_VERTICES];
    uint16_t idx[TUBE_INDICES];
    tube(pos, nrm, upper, idx);
    glbw_primitive_desc p = glbw_primitive_defaults();
    p.position =
        glbw_add_floats(doc, &pos[0][0], TUBE_VERTICES, GLBW_VEC3, GLBW_TARGET_VERTICES, true);
    p.normal =
        glbw_add_floats(doc, &nrm[0][0], TUBE_VERTICES, GLBW_VEC3, GLBW_TARGET_VERTICES, false);
    p.indices = add_indices(doc, idx, TUBE_INDICES);
    p.material = add_colored_material(doc, "green", 0.2f, 0.7f, 0.3f);
    int mesh = glbw_add_mesh(doc, "static_tube", &p, 1);
    glbw_node_desc n = glbw_node_defaults();
    n.name = "holder";
    n.mesh = mesh;
    n.has_trs = true;
    memcpy(n.translation, (float[3]){0.5f, 1, -0.25f}, sizeof n.translation);
    memcpy(n.rotation, (float[4]){0, sqrtf(0.5f), 0, sqrtf(0.5f)}, sizeof n.rotation);
    memcpy(n.scale, (float[3]){2, 2, 2}, sizeof n.scale);
    int holder = glbw_add_node(doc, &n);
    int stage = add_node(doc, "stage", NULL, -1, -1);
    glbw_node_add_child(doc, stage, holder);
    glbw_set_scene(doc, (int[1]){stage}, 1);
    write_doc(doc, "static_mesh.glb");
}

typedef struct byte_buffer {
    unsigned char data[4096];
    size_t size;
} byte_buffer;

static void append_bytes(void *context, void *data, int size)
{
    byte_buffer *b = context;
    if (size > 0 && b->size + (size_t)size <= sizeof b->data) {
        memcpy(b->data + b->size, data, (size_t)size);
        b->size += (size_t)size;
    }
}

/* textured.glb: three materials on three triangles: a PNG embedded in the file, a PNG beside it
 * (textured_external.png) and a file that does not exist (a warning, not a failure). */
static void textured(void)
{
    /* 4x2 and 2x2 RGBA images with distinct pixels. */
    uint8_t embedded[4 * 2 * 4], external[2 * 2 * 4];
    for (int i = 0; i < 32; i++)
        embedded[i] = (uint8_t)(i * 8 + 1);
    for (int i = 0; i < 16; i++)
        external[i] = (uint8_t)(255 - i * 16);
    char path[1024];
    snprintf(path, sizeof path, "%s/textured_external.png", out_dir);
    if (!stbi_write_png(path, 2, 2, 4, external, 2 * 4)) {
        fprintf(stderr, "make_fixtures: cannot write %s\n", path);
        failures++;
    }
    byte_buffer png = {.size = 0};
    if (!stbi_write_png_to_func(append_bytes, &png, 4, 2, 4, embedded, 4 * 4)) {
        fprintf(stderr, "make_fixtures: cannot encode a PNG\n");
        failures++;
    }

    glbw_doc *doc = glbw_create();
    int images[3] = {glbw_add_image_png(doc, "embedded", png.data, png.size),
                     glbw_add_image_uri(doc, "external", "textured_external.png"),
                     glbw_add_image_uri(doc, "missing", "missing_texture.png")};
    const char *names[3] = {"embedded", "external", "missing"};
    const float colors[3][4] = {{1, 0.5f, 0.25f, 1}, {0.2f, 0.4f, 0.6f, 0.8f}, {0, 1, 0, 1}};
    glbw_primitive_desc prims[3];
    const float pos[3][3] = {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}};
    const float uv[3][2] = {{0, 0}, {1, 0}, {0, 1}};
    const uint16_t idx[3] = {0, 1, 2};
    for (int i = 0; i < 3; i++) {
        glbw_material_desc m = glbw_material_defaults();
        m.name = names[i];
        memcpy(m.base_color, colors[i], sizeof m.base_color);
        m.base_color_texture = glbw_add_texture(doc, images[i]);
        prims[i] = glbw_primitive_defaults();
        prims[i].position =
            glbw_add_floats(doc, &pos[0][0], 3, GLBW_VEC3, GLBW_TARGET_VERTICES, true);
        prims[i].texcoord0 =
            glbw_add_floats(doc, &uv[0][0], 3, GLBW_VEC2, GLBW_TARGET_VERTICES, false);
        prims[i].indices = add_indices(doc, idx, 3);
        prims[i].material = glbw_add_material(doc, &m);
    }
    int mesh = glbw_add_mesh(doc, "textured", prims, 3);
    add_node(doc, "textured", NULL, mesh, -1);
    write_doc(doc, "textured.glb");
}

static FILE *open_out(const char *name)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", out_dir, name);
    FILE *f = fopen(path, "w");
    if (!f) {
        perror(path);
        failures++;
    }
    return f;
}

/* figure.md5mesh + figure.md5anim (id Software's text formats; assimp pairs them by name): a
 * strip over a chain of 6 joints, one vertex with 5 weights, and a clip that bends joint 2.
 * Joint and weight positions are in model space and joint space; rotations are identity in the
 * bind pose, so a weight's position is the vertex minus its joint. */
static void md5(void)
{
    FILE *f = open_out("figure.md5mesh");
    if (!f)
        return;
    enum { JOINTS = 6, VERTS = 8 };
    fprintf(f, "MD5Version 10\ncommandline \"\"\n\nnumJoints %d\nnumMeshes 1\n\njoints {\n",
            JOINTS);
    for (int j = 0; j < JOINTS; j++)
        fprintf(f, "\t\"joint%d\"\t%d ( 0 %g 0 ) ( 0 0 0 )\n", j, j - 1, 0.5 * j);
    fprintf(f, "}\n\nmesh {\n\tshader \"strip\"\n\tnumverts %d\n", VERTS);
    /* Per vertex: (joint, bias) pairs. */
    static const struct {
        int n;
        int joint[5];
        float bias[5];
    } w[VERTS] = {
        {1, {0}, {1}},
        {2, {0, 1}, {0.6f, 0.4f}},
        {2, {1, 2}, {0.5f, 0.5f}},
        {5, {0, 1, 2, 3, 4}, {0.3f, 0.25f, 0.2f, 0.15f, 0.1f}},
        {2, {2, 3}, {0.7f, 0.3f}},
        {1, {3}, {1}},
        {1, {4}, {1}},
        {2, {4, 5}, {0.5f, 0.5f}},
    };
    int first = 0;
    for (int v = 0; v < VERTS; v++) {
        fprintf(f, "\tvert %d ( %g %g ) %d %d\n", v, v % 2 ? 1.0 : 0.0, (v / 2) / 3.0, first,
                w[v].n);
        first += w[v].n;
    }
    fprintf(f, "\n\tnumtris 6\n");
    for (int t = 0; t < 6; t++) {
        int a = t & ~1;
        if (t % 2 == 0)
            fprintf(f, "\ttri %d %d %d %d\n", t, a, a + 1, a + 2);
        else
            fprintf(f, "\ttri %d %d %d %d\n", t, a + 1, a + 3, a + 2);
    }
    fprintf(f, "\n\tnumweights %d\n", first);
    int index = 0;
    for (int v = 0; v < VERTS; v++) {
        double x = v % 2 ? 0.3 : -0.3, y = 0.8 * (v / 2);
        for (int k = 0; k < w[v].n; k++) {
            int j = w[v].joint[k];
            fprintf(f, "\tweight %d %d %g ( %g %g 0 )\n", index++, j, w[v].bias[k], x, y - 0.5 * j);
        }
    }
    fprintf(f, "}\n");
    fclose(f);

    if (!(f = open_out("figure.md5anim")))
        return;
    enum { FRAMES = 4 };
    fprintf(f,
            "MD5Version 10\ncommandline \"\"\n\nnumFrames %d\nnumJoints %d\nframeRate 8\n"
            "numAnimatedComponents 2\n\nhierarchy {\n",
            FRAMES, JOINTS);
    for (int j = 0; j < JOINTS; j++) /* joint 2 animates Qz (flag 32) and Ty (flag 2) */
        fprintf(f, "\t\"joint%d\"\t%d %d %d\n", j, j - 1, j == 2 ? 34 : 0, 0);
    fprintf(f, "}\n\nbounds {\n");
    for (int k = 0; k < FRAMES; k++)
        fprintf(f, "\t( -2 -2 -2 ) ( 2 4 2 )\n");
    fprintf(f, "}\n\nbaseframe {\n");
    for (int j = 0; j < JOINTS; j++)
        fprintf(f, "\t( 0 %g 0 ) ( 0 0 0 )\n", j ? 0.5 : 0.0);
    fprintf(f, "}\n");
    static const float ty[FRAMES] = {0.5f, 0.55f, 0.6f, 0.5f}, qz[FRAMES] = {0, 0.25f, 0.4f, 0.1f};
    for (int k = 0; k < FRAMES; k++)
        fprintf(f, "\nframe %d {\n\t%g %g\n}\n", k, ty[k], qz[k]);
    fclose(f);
}

/* ---- glTF that assimp 5.2 misreads (src/asset/gltf.c rewrites it first) ----------------------
 * Each fixture below states what tests/test_gltf_import.c expects of it. Values are chosen so the
 * expectation has a closed form: dequantised integers that are exact (255 -> 1, 51/255 = 0.2,
 * 13107/65535 = 0.2), quaternions with equal components (normalised exactly), powers of two. */

/* Any integer or float data as a tightly packed accessor. */
static int add_raw(glbw_doc *doc, const void *data, glbw_component component, glbw_type type,
                   size_t count, bool normalized, glbw_target target, bool min_max)
{
    return glbw_add_data(doc, data, target,
                         &(glbw_accessor_desc){.component = component,
                                               .type = type,
                                               .count = count,
                                               .normalized = normalized,
                                               .min_max = min_max});
}

/* A channel whose output is stored as `component` (normalized when an integer type). */
static void add_channel_as(glbw_doc *doc, int anim, int node, glbw_path path, const float *times,
                           size_t count, const void *values, glbw_component component)
{
    int in = glbw_add_floats(doc, times, count, GLBW_SCALAR, GLBW_TARGET_NONE, true);
    glbw_type type = path == GLBW_PATH_ROTATION ? GLBW_VEC4 : GLBW_VEC3;
    int out = add_raw(doc, values, component, type, count, component != GLBW_F32, GLBW_TARGET_NONE,
                      false);
    int s = glbw_add_anim_sampler(doc, anim, in, out, GLBW_LINEAR);
    glbw_add_anim_channel(doc, anim, s, node, path);
}

/* Joints j0..j{count-1} under an untransformed node "root", joint j resting at (j, 0, 0), with
 * inverse binds of those rest positions (so the rest palette is the identity). Fills joints[]. */
static int add_joint_row(glbw_doc *doc, int *joints, int count)
{
    int root = add_node(doc, "root", NULL, -1, -1);
    float global_t[16][3];
    for (int j = 0; j < count; j++) {
        char name[16];
        snprintf(name, sizeof name, "j%d", j);
        memcpy(global_t[j], (float[3]){(float)j, 0, 0}, sizeof global_t[j]);
        joints[j] = add_node(doc, name, global_t[j], -1, -1);
        glbw_node_add_child(doc, root, joints[j]);
    }
    int ibm = add_inverse_binds(doc, (const float(*)[3])global_t, (size_t)count);
    return glbw_add_skin(doc, "row", joints, (size_t)count, ibm, root);
}

/* Clip "shift": joint j's translation goes from its rest (j, 0, 0) at t = 0 to (j, j + 1, 0) at
 * t = 1, so at time t a vertex moves by (0, t * sum_i w_i (j_i + 1), 0): the weights and joints
 * the importer kept, seen through the whole pipeline. */
static void add_shift_clip(glbw_doc *doc, const int *joints, int count)
{
    int anim = glbw_add_animation(doc, "shift");
    const float times[2] = {0, 1};
    for (int j = 0; j < count; j++) {
        const float t[2][3] = {{(float)j, 0, 0}, {(float)j, (float)(j + 1), 0}};
        add_channel(doc, anim, joints[j], GLBW_PATH_TRANSLATION, times, &t[0][0], 2);
    }
}

/* Finishes a model of one skinned mesh over add_joint_row's `count` joints: the mesh `name` with
 * primitive p, its node, the skin, clip "shift", written to `file`. */
static void write_row_model(glbw_doc *doc, const glbw_primitive_desc *p, const char *name,
                            int count, const char *file)
{
    int mesh = glbw_add_mesh(doc, name, p, 1);
    int nodes[16];
    int skin = add_joint_row(doc, nodes, count);
    add_node(doc, name, NULL, mesh, skin);
    add_shift_clip(doc, nodes, count);
    write_doc(doc, file);
}

static const float quad_pos[4][3] = {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {1, 1, 0}};
static const uint16_t quad_idx[6] = {0, 1, 2, 1, 3, 2};

/* weights_u8.glb: JOINTS_0 as u8, WEIGHTS_0 as normalized u8 over four joints (clip "shift"):
 *   v0 (0,0,0): j0 255            -> j0 1
 *   v1 (1,0,0): j1 204, j2 51     -> 0.8, 0.2 (204/255, 51/255 exactly)
 *   v2 (0,1,0): j3, j1, j2 85 each -> 1/3 each
 *   v3 (1,1,0): j2 128, j3 127    -> 128/255, 127/255 (sum 1: no renormalisation)
 * assimp 5.2 reads the bytes as floats: garbage weights. */
static void weights_u8(void)
{
    glbw_doc *doc = glbw_create();
    const uint8_t joints[4][4] = {{0, 0, 0, 0}, {1, 2, 0, 0}, {3, 1, 2, 0}, {2, 3, 0, 0}};
    const uint8_t weights[4][4] = {
        {255, 0, 0, 0}, {204, 51, 0, 0}, {85, 85, 85, 0}, {128, 127, 0, 0}};
    glbw_primitive_desc p = glbw_primitive_defaults();
    p.position = glbw_add_floats(doc, &quad_pos[0][0], 4, GLBW_VEC3, GLBW_TARGET_VERTICES, true);
    p.joints0 = add_raw(doc, joints, GLBW_U8, GLBW_VEC4, 4, false, GLBW_TARGET_VERTICES, false);
    p.weights0 = add_raw(doc, weights, GLBW_U8, GLBW_VEC4, 4, true, GLBW_TARGET_VERTICES, false);
    p.indices = add_indices(doc, quad_idx, 6);
    write_row_model(doc, &p, "quad", 4, "weights_u8.glb");
}

/* weights_u16.glb: the same quad, JOINTS_0 as u16, WEIGHTS_0 as normalized u16:
 *   v0: j0 65535 -> 1;  v1: j1 52428, j2 13107 -> 0.8, 0.2 (13107 * 5 = 65535);
 *   v2: j3, j1, j2 21845 each -> 1/3 each;  v3: j2 32768, j3 32767 -> 32768/65535, 32767/65535. */
static void weights_u16(void)
{
    glbw_doc *doc = glbw_create();
    const uint16_t joints[4][4] = {{0, 0, 0, 0}, {1, 2, 0, 0}, {3, 1, 2, 0}, {2, 3, 0, 0}};
    const uint16_t weights[4][4] = {
        {65535, 0, 0, 0}, {52428, 13107, 0, 0}, {21845, 21845, 21845, 0}, {32768, 32767, 0, 0}};
    glbw_primitive_desc p = glbw_primitive_defaults();
    p.position = glbw_add_floats(doc, &quad_pos[0][0], 4, GLBW_VEC3, GLBW_TARGET_VERTICES, true);
    p.joints0 = add_u16x4(doc, joints, 4);
    p.weights0 = add_raw(doc, weights, GLBW_U16, GLBW_VEC4, 4, true, GLBW_TARGET_VERTICES, false);
    p.indices = add_indices(doc, quad_idx, 6);
    write_row_model(doc, &p, "quad", 4, "weights_u16.glb");
}

/* quantized_rotation.glb: "base" (origin) and its child "arm" (origin), the quad bound to arm
 * (weight 1 everywhere), so v1 (1,0,0) turns with it about the origin. Rotation outputs as
 * normalized integers (glTF 2.0 allows i8, u8, i16, u16 for rotation), keys at t = 0, 1, 2: rot_i8:
 * (0,0,0,127) (0,0,90,90) (0,0,0,-128): identity, 90 deg about z (equal components normalise
 * exactly), -1 = max(-128/127, -1) in w: identity again (the other sign) rot_i16: (0,0,0,32767)
 * (8481,0,0,31650) (0,-32768,0,0): identity, 30 deg about x (round(32767 sin 15), round(32767 cos
 * 15)), 180 deg about -y rot_u8:  (0,0,0,255) (0,0,180,180) (0,0,0,255) rot_u16: (0,0,0,65535)
 * (0,0,32768,56755) (0,0,0,65535): 60 deg about z to 16 bits Translation and scale outputs must be
 * float in glTF 2.0 (KHR_mesh_quantization covers mesh attributes only), so none is quantised here.
 * assimp 5.2 reads the integers as floats. */
static void quantized_rotation(void)
{
    glbw_doc *doc = glbw_create();
    const float nrm[4][3] = {{0, 0, 1}, {0, 0, 1}, {0, 0, 1}, {0, 0, 1}};
    const uint16_t joints[4][4] = {{1, 0, 0, 0}, {1, 0, 0, 0}, {1, 0, 0, 0}, {1, 0, 0, 0}};
    const float weights[4][4] = {{1, 0, 0, 0}, {1, 0, 0, 0}, {1, 0, 0, 0}, {1, 0, 0, 0}};
    glbw_primitive_desc p = glbw_primitive_defaults();
    p.position = glbw_add_floats(doc, &quad_pos[0][0], 4, GLBW_VEC3, GLBW_TARGET_VERTICES, true);
    p.normal = glbw_add_floats(doc, &nrm[0][0], 4, GLBW_VEC3, GLBW_TARGET_VERTICES, false);
    p.joints0 = add_u16x4(doc, joints, 4);
    p.weights0 = glbw_add_floats(doc, &weights[0][0], 4, GLBW_VEC4, GLBW_TARGET_VERTICES, false);
    p.indices = add_indices(doc, quad_idx, 6);
    int mesh = glbw_add_mesh(doc, "quad", &p, 1);
    int base = add_node(doc, "base", (float[3]){0, 0, 0}, -1, -1);
    int arm = add_node(doc, "arm", (float[3]){0, 0, 0}, -1, -1);
    glbw_node_add_child(doc, base, arm);
    const float global_t[2][3] = {{0, 0, 0}, {0, 0, 0}};
    int skin = glbw_add_skin(doc, "arm", (int[2]){base, arm}, 2,
                             add_inverse_binds(doc, global_t, 2), base);
    add_node(doc, "quad", NULL, mesh, skin);

    const float times[3] = {0, 1, 2};
    const int8_t i8[3][4] = {{0, 0, 0, 127}, {0, 0, 90, 90}, {0, 0, 0, -128}};
    const int16_t i16[3][4] = {{0, 0, 0, 32767}, {8481, 0, 0, 31650}, {0, -32768, 0, 0}};
    const uint8_t u8[3][4] = {{0, 0, 0, 255}, {0, 0, 180, 180}, {0, 0, 0, 255}};
    const uint16_t u16[3][4] = {{0, 0, 0, 65535}, {0, 0, 32768, 56755}, {0, 0, 0, 65535}};
    const struct {
        const char *name;
        const void *values;
        glbw_component component;
    } clips[4] = {{"rot_i8", i8, GLBW_I8},
                  {"rot_i16", i16, GLBW_I16},
                  {"rot_u8", u8, GLBW_U8},
                  {"rot_u16", u16, GLBW_U16}};
    for (int c = 0; c < 4; c++) {
        int anim = glbw_add_animation(doc, clips[c].name);
        add_channel_as(doc, anim, arm, GLBW_PATH_ROTATION, times, 3, clips[c].values,
                       clips[c].component);
    }
    write_doc(doc, "quantized_rotation.glb");
}

/* A VEC3 of 1- or 2-byte components, each element padded to 4 or 8 bytes: glTF wants vertex
 * attributes 4-byte aligned (gltfpack writes the same layout). `data` holds 4 components a row;
 * the fourth is padding. */
static int add_padded_vec3(glbw_doc *doc, const void *data, glbw_component component, size_t count,
                           bool normalized, bool min_max)
{
    size_t stride = component == GLBW_I16 || component == GLBW_U16 ? 8 : 4;
    int view = glbw_add_view(doc, data, stride * count, stride, GLBW_TARGET_VERTICES);
    return glbw_add_accessor(doc, view, 0,
                             &(glbw_accessor_desc){.component = component,
                                                   .type = GLBW_VEC3,
                                                   .count = count,
                                                   .normalized = normalized,
                                                   .min_max = min_max});
}

/* A 2x2 RGBA texture embedded as PNG. */
static int add_small_texture(glbw_doc *doc)
{
    const uint8_t rgba[16] = {255, 0, 0, 255, 0, 255, 0, 255, 0, 0, 255, 255, 255, 255, 255, 255};
    byte_buffer png = {.size = 0};
    if (!stbi_write_png_to_func(append_bytes, &png, 2, 2, 4, rgba, 2 * 4)) {
        fprintf(stderr, "make_fixtures: cannot encode a PNG\n");
        failures++;
    }
    return glbw_add_texture(doc, glbw_add_image_png(doc, "checker", png.data, png.size));
}

static int add_transformed_material(glbw_doc *doc, const char *name, int texture,
                                    glbw_texture_transform transform)
{
    glbw_material_desc m = glbw_material_defaults();
    m.name = name;
    m.base_color_texture = texture;
    m.base_color_transform = transform;
    return glbw_add_material(doc, &m);
}

/* quantized_mesh.glb (KHR_mesh_quantization required, KHR_texture_transform used): two meshes.
 *  "rigid": no skin, on node "rigid" (translation (1, 2, 3), scale 1/1024, the dequantisation as
 *   a node transform, as gltfpack writes it) under an untransformed root "stage". POSITION as
 *   i16 (not normalized) q = (0,0,0) (1024,0,0) (0,1024,0) (1024,1024,-512): at rest the vertices
 *   land on (1,2,3) + q/1024. NORMAL as normalized i8 (0,0,127) (127,0,0) (0,-128,0) (0,90,90):
 *   +z, +x, -y (-128 clamps to -1), (0,1,1)/sqrt2 in direction. TEXCOORD_0 as normalized u16
 *   (0,0) (65535,0) (0,65535) (13107,52428) = (0,0) (1,0) (0,1) (0.2,0.8), under a transform of
 *   offset (0.25, 0.5), scale (0.5, 0.25): uv' = (0.25 + 0.5 u, 0.5 + 0.25 v).
 *  "skinned": lower (origin) and upper (0,1,0), POSITION as i16 q with the dequantisation
 *   D = T(-1, 0, 0.5) S(1/1024) folded into the inverse binds (IBM_j = inverse(global_j) * D, as
 *   gltfpack does for skinned meshes, whose node transform is ignored): q = (0,0,0) (2048,0,0)
 *   (0,2048,0) (2048,2048,1024) rest at (-1,0,0.5) (1,0,0.5) (-1,2,0.5) (1,2,1.5); v0, v1 on
 *   lower, v2, v3 on upper. Clip "bend" turns upper 90 deg about z at t = 1 (about its origin
 *   (0,1,0)). NORMAL as i8 (0,0,127) everywhere; TEXCOORD_0 as the rigid mesh's, under a transform
 *   of offset (0.5, 0), rotation pi/2, scale (1, 0.5): uv' = (0.5 + 0.5 v, -u) (the extension's
 *   matrix T R S with R = [cos sin; -sin cos]). */
static void quantized_mesh(void)
{
    glbw_doc *doc = glbw_create();
    glbw_use_extension(doc, "KHR_mesh_quantization", true);
    glbw_use_extension(doc, "KHR_texture_transform", false);
    int texture = add_small_texture(doc);
    const uint16_t uv[4][2] = {{0, 0}, {65535, 0}, {0, 65535}, {13107, 52428}};

    const int16_t q_rigid[4][4] = {{0, 0, 0}, {1024, 0, 0}, {0, 1024, 0}, {1024, 1024, -512}};
    const int8_t n_rigid[4][4] = {{0, 0, 127}, {127, 0, 0}, {0, -128, 0}, {0, 90, 90}};
    glbw_primitive_desc r = glbw_primitive_defaults();
    r.position = add_padded_vec3(doc, q_rigid, GLBW_I16, 4, false, true);
    r.normal = add_padded_vec3(doc, n_rigid, GLBW_I8, 4, true, false);
    r.texcoord0 = add_raw(doc, uv, GLBW_U16, GLBW_VEC2, 4, true, GLBW_TARGET_VERTICES, false);
    r.indices = add_indices(doc, quad_idx, 6);
    r.material = add_transformed_material(
        doc, "scaled", texture,
        (glbw_texture_transform){.enabled = true, .offset = {0.25f, 0.5f}, .scale = {0.5f, 0.25f}});
    int rigid_mesh = glbw_add_mesh(doc, "rigid", &r, 1);

    const int16_t q_skin[4][4] = {{0, 0, 0}, {2048, 0, 0}, {0, 2048, 0}, {2048, 2048, 1024}};
    const int8_t n_skin[4][4] = {{0, 0, 127}, {0, 0, 127}, {0, 0, 127}, {0, 0, 127}};
    const uint16_t joints[4][4] = {{0, 0, 0, 0}, {0, 0, 0, 0}, {1, 0, 0, 0}, {1, 0, 0, 0}};
    const float weights[4][4] = {{1, 0, 0, 0}, {1, 0, 0, 0}, {1, 0, 0, 0}, {1, 0, 0, 0}};
    glbw_primitive_desc s = glbw_primitive_defaults();
    s.position = add_padded_vec3(doc, q_skin, GLBW_I16, 4, false, true);
    s.normal = add_padded_vec3(doc, n_skin, GLBW_I8, 4, true, false);
    s.texcoord0 = add_raw(doc, uv, GLBW_U16, GLBW_VEC2, 4, true, GLBW_TARGET_VERTICES, false);
    s.joints0 = add_u16x4(doc, joints, 4);
    s.weights0 = glbw_add_floats(doc, &weights[0][0], 4, GLBW_VEC4, GLBW_TARGET_VERTICES, false);
    s.indices = add_indices(doc, quad_idx, 6);
    s.material = add_transformed_material(
        doc, "rotated", texture,
        (glbw_texture_transform){
            .enabled = true, .offset = {0.5f, 0}, .rotation = 1.57079633f, .scale = {1, 0.5f}});
    int skinned_mesh = glbw_add_mesh(doc, "skinned", &s, 1);

    glbw_node_desc n = glbw_node_defaults();
    n.name = "rigid";
    n.mesh = rigid_mesh;
    n.has_trs = true;
    memcpy(n.translation, (float[3]){1, 2, 3}, sizeof n.translation);
    memcpy(n.scale, (float[3]){1.0f / 1024, 1.0f / 1024, 1.0f / 1024}, sizeof n.scale);
    int rigid = glbw_add_node(doc, &n);
    int stage = add_node(doc, "stage", NULL, -1, -1);
    glbw_node_add_child(doc, stage, rigid);

    int lower = add_node(doc, "lower", (float[3]){0, 0, 0}, -1, -1);
    int upper = add_node(doc, "upper", (float[3]){0, 1, 0}, -1, -1);
    glbw_node_add_child(doc, stage, lower);
    glbw_node_add_child(doc, lower, upper);
    /* Column-major inverse(global) * D, D = T(-1, 0, 0.5) S(1/1024): the linear part S, the
     * translation (-1, 0, 0.5) - global. */
    float ibm[2][16];
    const float global_y[2] = {0, 1};
    for (int j = 0; j < 2; j++) {
        memset(ibm[j], 0, sizeof ibm[j]);
        ibm[j][0] = ibm[j][5] = ibm[j][10] = 1.0f / 1024;
        ibm[j][15] = 1;
        ibm[j][12] = -1;
        ibm[j][13] = -global_y[j];
        ibm[j][14] = 0.5f;
    }
    int ibm_acc = glbw_add_floats(doc, &ibm[0][0], 2, GLBW_MAT4, GLBW_TARGET_NONE, false);
    int skin = glbw_add_skin(doc, "strip", (int[2]){lower, upper}, 2, ibm_acc, lower);
    add_node(doc, "skinned", NULL, skinned_mesh, skin); /* a root: glTF ignores its parents */

    int anim = glbw_add_animation(doc, "bend");
    const float times[2] = {0, 2};
    const float turn[2][4] = {{0, 0, 0, 1}, {0, 0, 1, 0}}; /* 0 to 180 deg: 90 deg at t = 1 */
    add_channel(doc, anim, upper, GLBW_PATH_ROTATION, times, &turn[0][0], 2);
    write_doc(doc, "quantized_mesh.glb");
}

/* clip_order.glb: the quad over lower (origin) and upper (0,1,0; v2, v3 bound to it), clips:
 *   good_a:    upper turns about z, keys in order                          -> kept
 *   shuffled:  upper translation at times 1, 0, 0.5 with (0,3,0) (0,1,0) (1,1,0): distinct
 *              times, so a stable sort repairs it: at 0.75 upper sits at (0.5, 2, 0) -> kept
 *   ambiguous: upper translation at times 0, 0.5, 0.25, 0.5: out of order with 0.5 twice, so
 *              which value holds at 0.5 is unknowable                      -> dropped, 1 warning
 *   good_b:    lower scales from 1 to 2                                     -> kept
 * The surviving clips keep their order: good_a, shuffled, good_b. (The Khronos validator reports
 * both bad clips as ACCESSOR_ANIMATION_INPUT_NON_INCREASING: invalid files that exporters do
 * write.) */
static void clip_order(void)
{
    glbw_doc *doc = glbw_create();
    const uint16_t joints[4][4] = {{0, 0, 0, 0}, {0, 0, 0, 0}, {1, 0, 0, 0}, {1, 0, 0, 0}};
    const float weights[4][4] = {{1, 0, 0, 0}, {1, 0, 0, 0}, {1, 0, 0, 0}, {1, 0, 0, 0}};
    glbw_primitive_desc p = glbw_primitive_defaults();
    p.position = glbw_add_floats(doc, &quad_pos[0][0], 4, GLBW_VEC3, GLBW_TARGET_VERTICES, true);
    p.joints0 = add_u16x4(doc, joints, 4);
    p.weights0 = glbw_add_floats(doc, &weights[0][0], 4, GLBW_VEC4, GLBW_TARGET_VERTICES, false);
    p.indices = add_indices(doc, quad_idx, 6);
    int mesh = glbw_add_mesh(doc, "quad", &p, 1);
    int lower = add_node(doc, "lower", (float[3]){0, 0, 0}, -1, -1);
    int upper = add_node(doc, "upper", (float[3]){0, 1, 0}, -1, -1);
    glbw_node_add_child(doc, lower, upper);
    const float global_t[2][3] = {{0, 0, 0}, {0, 1, 0}};
    int skin = glbw_add_skin(doc, "quad", (int[2]){lower, upper}, 2,
                             add_inverse_binds(doc, global_t, 2), lower);
    add_node(doc, "quad", NULL, mesh, skin);

    int good_a = glbw_add_animation(doc, "good_a");
    const float t2[2] = {0, 1};
    const float turn[2][4] = {{0, 0, 0, 1}, {0, 0, sqrtf(0.5f), sqrtf(0.5f)}};
    add_channel(doc, good_a, upper, GLBW_PATH_ROTATION, t2, &turn[0][0], 2);

    int shuffled = glbw_add_animation(doc, "shuffled");
    const float t3[3] = {1, 0, 0.5f};
    const float moves[3][3] = {{0, 3, 0}, {0, 1, 0}, {1, 1, 0}};
    add_channel(doc, shuffled, upper, GLBW_PATH_TRANSLATION, t3, &moves[0][0], 3);

    int ambiguous = glbw_add_animation(doc, "ambiguous");
    const float t4[4] = {0, 0.5f, 0.25f, 0.5f};
    const float jumps[4][3] = {{0, 1, 0}, {1, 1, 0}, {2, 1, 0}, {3, 1, 0}};
    add_channel(doc, ambiguous, upper, GLBW_PATH_TRANSLATION, t4, &jumps[0][0], 4);

    int good_b = glbw_add_animation(doc, "good_b");
    const float grow[2][3] = {{1, 1, 1}, {2, 2, 2}};
    add_channel(doc, good_b, lower, GLBW_PATH_SCALE, t2, &grow[0][0], 2);
    write_doc(doc, "clip_order.glb");
}

/* wide_influences.glb: ten joints j0..j9 in a row (clip "shift" as above), influences over
 * JOINTS_0..2 / WEIGHTS_0..2 (float):
 *   v0 (0,0,0): 6 influences j5 .03, j0 .3, j3 .15, j1 .25, j4 .07, j2 .2 (sum 1) -> all kept
 *   v1 (1,0,0): 10 influences, joint j weighs (j + 1)/55, shuffled over the three sets -> the 8
 *               largest, j2..j9, renormalised to (j + 1)/52; j0 and j1 dropped
 *   v2 (0,1,0): 5 influences j0..j4 of 0.1 each (sum 0.5, invalid glTF as in influences.glb)
 *               -> 0.2 each
 *   v3 (1,1,0): 1 influence, j9
 *   v4 (2,1,0): 9 influences, j weighs (9 - j)/45 for j0..j8 -> j0..j7 kept as (9 - j)/44 */
static void wide_influences(void)
{
    glbw_doc *doc = glbw_create();
    const float pos[5][3] = {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {1, 1, 0}, {2, 1, 0}};
    const uint16_t j0[5][4] = {
        {5, 0, 3, 1}, {9, 0, 4, 7}, {0, 1, 2, 3}, {9, 0, 0, 0}, {8, 0, 1, 2}};
    const uint16_t j1[5][4] = {
        {4, 2, 0, 0}, {2, 8, 1, 5}, {4, 0, 0, 0}, {0, 0, 0, 0}, {3, 4, 5, 6}};
    const uint16_t j2[5][4] = {
        {0, 0, 0, 0}, {3, 6, 0, 0}, {0, 0, 0, 0}, {0, 0, 0, 0}, {7, 0, 0, 0}};
    float w0[5][4] = {{0.03f, 0.3f, 0.15f, 0.25f},
                      {10, 1, 5, 8},
                      {0.1f, 0.1f, 0.1f, 0.1f},
                      {1, 0, 0, 0},
                      {1, 9, 8, 7}};
    float w1[5][4] = {{0.07f, 0.2f, 0, 0}, {3, 9, 2, 6}, {0.1f, 0, 0, 0}, {0}, {6, 5, 4, 3}};
    float w2[5][4] = {{0}, {4, 7, 0, 0}, {0}, {0}, {2, 0, 0, 0}};
    for (int k = 0; k < 4; k++) { /* v1 in 55ths, v4 in 45ths */
        w0[1][k] /= 55, w1[1][k] /= 55, w2[1][k] /= 55;
        w0[4][k] /= 45, w1[4][k] /= 45, w2[4][k] /= 45;
    }
    const uint16_t idx[9] = {0, 1, 2, 1, 3, 2, 1, 4, 3};
    glbw_primitive_desc p = glbw_primitive_defaults();
    p.position = glbw_add_floats(doc, &pos[0][0], 5, GLBW_VEC3, GLBW_TARGET_VERTICES, true);
    p.joints0 = add_u16x4(doc, j0, 5);
    p.weights0 = glbw_add_floats(doc, &w0[0][0], 5, GLBW_VEC4, GLBW_TARGET_VERTICES, false);
    p.joints1 = add_u16x4(doc, j1, 5);
    p.weights1 = glbw_add_floats(doc, &w1[0][0], 5, GLBW_VEC4, GLBW_TARGET_VERTICES, false);
    p.joints2 = add_u16x4(doc, j2, 5);
    p.weights2 = glbw_add_floats(doc, &w2[0][0], 5, GLBW_VEC4, GLBW_TARGET_VERTICES, false);
    p.indices = add_indices(doc, idx, 9);
    write_row_model(doc, &p, "wide", 10, "wide_influences.glb");
}

/* sparse.glb: the quad without a skin under root "stage", POSITION a sparse accessor: the base
 * view holds quad_pos, and the sparse part replaces vertex 0 by (-1, 0, 0) and vertex 3 by
 * (2, 2, 0) (u16 indices, strictly increasing as glTF requires). assimp 5.2 reads sparse
 * accessors only partly; the rewrite applies them. */
static void sparse(void)
{
    glbw_doc *doc = glbw_create();
    int base = glbw_add_view(doc, quad_pos, sizeof quad_pos, 0, GLBW_TARGET_VERTICES);
    const double lo[3] = {-1, 0, 0}, hi[3] = {2, 2, 0};
    int pos = glbw_add_accessor(doc, base, 0,
                                &(glbw_accessor_desc){.component = GLBW_F32,
                                                      .type = GLBW_VEC3,
                                                      .count = 4,
                                                      .min_max = true,
                                                      .min = lo,
                                                      .max = hi});
    const uint16_t at[2] = {0, 3};
    const float values[2][3] = {{-1, 0, 0}, {2, 2, 0}};
    glbw_set_sparse(
        doc, pos,
        &(glbw_sparse_desc){.count = 2,
                            .indices_view = glbw_add_view(doc, at, sizeof at, 0, GLBW_TARGET_NONE),
                            .indices_component = GLBW_U16,
                            .values_view =
                                glbw_add_view(doc, values, sizeof values, 0, GLBW_TARGET_NONE)});
    glbw_primitive_desc p = glbw_primitive_defaults();
    p.position = pos;
    p.indices = add_indices(doc, quad_idx, 6);
    int holder = add_node(doc, "sparse", NULL, glbw_add_mesh(doc, "sparse", &p, 1), -1);
    int stage = add_node(doc, "stage", NULL, -1, -1);
    glbw_node_add_child(doc, stage, holder);
    write_doc(doc, "sparse.glb");
}

/* draco_required.glb: a plain triangle whose file requires KHR_draco_mesh_compression, which the
 * reader does not implement: refused with a message naming the extension (a loader must not
 * guess at data it cannot decode). */
static void draco_required(void)
{
    glbw_doc *doc = glbw_create();
    glbw_use_extension(doc, "KHR_draco_mesh_compression", true);
    glbw_primitive_desc p = glbw_primitive_defaults();
    p.position = glbw_add_floats(doc, &quad_pos[0][0], 3, GLBW_VEC3, GLBW_TARGET_VERTICES, true);
    p.indices = add_indices(doc, quad_idx, 3);
    add_node(doc, "triangle", NULL, glbw_add_mesh(doc, "triangle", &p, 1), -1);
    write_doc(doc, "draco_required.glb");
}

/* The rows of a DirectX matrix before its translation (the identity's). */
static const char x_identity_at[] = "1.0,0.0,0.0,0.0, 0.0,1.0,0.0,0.0, 0.0,0.0,1.0,0.0,";

/* The DirectX scene both .x fixtures share, up to the open mesh: frame "Scene" at (scene_x, 0, 0)
 * holding "Arm" at (1, 0, 0) and "Holder" (identity) with the quad's positions and faces. */
static void x_quad_scene(FILE *f, float scene_x)
{
    fprintf(f, "xof 0303txt 0032\n\nFrame Scene {\n");
    fprintf(f, "  FrameTransformMatrix { %s %.1f,0.0,0.0,1.0;; }\n", x_identity_at, scene_x);
    fprintf(f, "  Frame Arm {\n    FrameTransformMatrix { %s 1.0,0.0,0.0,1.0;; }\n  }\n",
            x_identity_at);
    fprintf(f, "  Frame Holder {\n    FrameTransformMatrix { %s 0.0,0.0,0.0,1.0;; }\n",
            x_identity_at);
    fprintf(f, "    Mesh quad {\n      4;\n");
    for (int v = 0; v < 4; v++)
        fprintf(f, "      %.1f;%.1f;%.1f;%s\n", quad_pos[v][0], quad_pos[v][1], quad_pos[v][2],
                v < 3 ? "," : ";");
    fprintf(f, "      2;\n      3;0,1,2;,\n      3;1,3,2;;\n");
}

/* orphan_bone.x (DirectX text; glTF cannot say this: a skin joint is always a node): frame
 * "Scene" at (2, 0, 0) holds frames "Arm" at (1, 0, 0) and "Holder" (identity, with the mesh).
 * The quad's v0, v1 are bound to "Arm" (offset T(-3, 0, 0), the inverse of its global), v2, v3
 * to "Ghost", a bone no frame is named after (offset T(0, -1, 0)). assimp 5.2 keeps the bone as
 * it is (checked with a probe program against aiImportFile): a bone with no node. Expected:
 * Ghost becomes a root joint with identity rest and global transform, so its palette is
 * root_inverse * offset = T(-2, -1, 0); Arm's is T(-2, 0, 0) * T(3, 0, 0) * T(-3, 0, 0) =
 * T(-2, 0, 0). The file is left-handed: assimp negates z, which is 0 throughout. */
static void orphan_bone(void)
{
    FILE *f = open_out("orphan_bone.x");
    if (!f)
        return;
    x_quad_scene(f, 2.0f);
    fprintf(f, "      MeshNormals {\n        1;\n        0.0;0.0;1.0;;\n        2;\n"
               "        3;0,0,0;,\n        3;0,0,0;;\n      }\n");
    fprintf(f, "      XSkinMeshHeader { 1; 1; 2; }\n");
    fprintf(f,
            "      SkinWeights {\n        \"Arm\";\n        2;\n        0,1;\n"
            "        1.0,1.0;\n        %s -3.0,0.0,0.0,1.0;;\n      }\n",
            x_identity_at);
    fprintf(f,
            "      SkinWeights {\n        \"Ghost\";\n        2;\n        2,3;\n"
            "        1.0,1.0;\n        %s 0.0,-1.0,0.0,1.0;;\n      }\n",
            x_identity_at);
    fprintf(f, "    }\n  }\n}\n");
    fclose(f);
}

/* clip_order.x: orphan_bone.x's quad without the orphan, with three clips of translation keys
 * on "Arm" (DirectX: times in ticks, assimp's X reader keeps them in file order and takes the
 * last key as the duration, so the first two would fail its validation unless the importer widens
 * the durations):
 *   shuffled:  ticks 0, 20, 10 -> (0,0,0), (1,0,0), (0.5,2,0): distinct, sorted to 0, 10, 20
 *   ambiguous: ticks 0, 20, 0 -> a repeated time out of order: dropped, with a warning
 *   good:      ticks 0, 20 -> (0,0,0), (1,0,0): kept as it is */
static void clip_order_x(void)
{
    FILE *f = open_out("clip_order.x");
    if (!f)
        return;
    x_quad_scene(f, 0.0f);
    fprintf(f, "      XSkinMeshHeader { 1; 1; 1; }\n");
    fprintf(f,
            "      SkinWeights {\n        \"Arm\";\n        4;\n        0,1,2,3;\n"
            "        1.0,1.0,1.0,1.0;\n        %s -1.0,0.0,0.0,1.0;;\n      }\n",
            x_identity_at);
    fprintf(f, "    }\n  }\n}\n");
    const char *clips[3][2] = {
        {"shuffled", "3;\n      0;3;0.0,0.0,0.0;;,\n      20;3;1.0,0.0,0.0;;,\n"
                     "      10;3;0.5,2.0,0.0;;;"},
        {"ambiguous", "3;\n      0;3;0.0,0.0,0.0;;,\n      20;3;1.0,0.0,0.0;;,\n"
                      "      0;3;0.5,2.0,0.0;;;"},
        {"good", "2;\n      0;3;0.0,0.0,0.0;;,\n      20;3;1.0,0.0,0.0;;;"},
    };
    for (int c = 0; c < 3; c++)
        fprintf(f,
                "AnimationSet %s {\n  Animation {\n    { Arm }\n    AnimationKey {\n      2;\n"
                "      %s\n    }\n  }\n}\n",
                clips[c][0], clips[c][1]);
    fclose(f);
}

static void random_bytes(void)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/random.glb", out_dir);
    FILE *f = fopen(path, "wb");
    if (!f) {
        perror(path);
        failures++;
        return;
    }
    uint32_t x = 12345u; /* fixed seed: the same bytes on every run */
    for (int i = 0; i < 65536; i++) {
        x = x * 1664525u + 1013904223u;
        fputc((int)(x >> 24), f);
    }
    fclose(f);
}

/* flipped_position.glb: chain.glb with one bit flipped, as storage or a transfer may flip it: the
 * exponent's top bit of vertex 3's y (0.3f, stored once in the file: the inverse binds hold -0.3),
 * which becomes 1.02e38 while the accessor still declares y within [0, 3.9]. */
static void flipped_position(void)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/chain.glb", out_dir);
    FILE *f = fopen(path, "rb");
    unsigned char *data = malloc(1 << 20);
    size_t size = f && data ? fread(data, 1, 1 << 20, f) : 0;
    if (f)
        fclose(f);
    const float y = 0.1f * 3.0f;
    unsigned char bytes[4];
    memcpy(bytes, &y, 4);
    size_t at = 0, found = 0;
    for (size_t i = 0; i + 4 <= size; i++)
        if (memcmp(data + i, bytes, 4) == 0) {
            at = i;
            found++;
        }
    if (found != 1) {
        fprintf(stderr, "make_fixtures: chain.glb holds 0.3f %zu times, not once\n", found);
        failures++;
        free(data);
        return;
    }
    data[at + 3] ^= 0x40; /* bit 30: the exponent's highest */
    snprintf(path, sizeof path, "%s/flipped_position.glb", out_dir);
    f = fopen(path, "wb");
    if (!f || fwrite(data, 1, size, f) != size || fclose(f) != 0) {
        fprintf(stderr, "make_fixtures: cannot write %s\n", path);
        failures++;
    }
    free(data);
}

/* A primitive of n skinned vertices (positions, normals, 4 joints and weights each) and its
 * triangles, the accessors written in that order. */
static glbw_primitive_desc skinned_primitive(glbw_doc *doc, const float (*pos)[3],
                                             const float (*nrm)[3], const uint16_t (*joints)[4],
                                             const float (*weights)[4], size_t n,
                                             const uint16_t *idx, size_t n_idx)
{
    glbw_primitive_desc p = glbw_primitive_defaults();
    p.position = glbw_add_floats(doc, &pos[0][0], n, GLBW_VEC3, GLBW_TARGET_VERTICES, true);
    p.normal = glbw_add_floats(doc, &nrm[0][0], n, GLBW_VEC3, GLBW_TARGET_VERTICES, false);
    p.joints0 = add_u16x4(doc, joints, n);
    p.weights0 = glbw_add_floats(doc, &weights[0][0], n, GLBW_VEC4, GLBW_TARGET_VERTICES, false);
    p.indices = add_indices(doc, idx, n_idx);
    return p;
}

/* twist.glb: a tube of radius 0.25 along +y from 0 to 2 (41 rings of 32 vertices, radial
 * normals), over two joints: base at the origin and twist at y = 1, its child. Rings below
 * y = 0.5 follow base, above y = 1.5 twist, and the weights move linearly in between. Clip
 * "twist" turns the twist joint about y: 0, 90, 180, 90, 0 degrees at 0, 0.5, 1, 1.5, 2 s. Linear
 * blending collapses the middle at 180 degrees (the "candy wrapper"); dual quaternions keep its
 * radius (tests/test_dqs.c says by how much, in closed form). */
static void twist(void)
{
    enum { RINGS = 41, SIDES = 32, N = RINGS * SIDES };
    glbw_doc *doc = glbw_create();
    float(*pos)[3] = calloc(N, sizeof *pos), (*nrm)[3] = calloc(N, sizeof *nrm);
    uint16_t(*joints)[4] = calloc(N, sizeof *joints);
    float(*weights)[4] = calloc(N, sizeof *weights);
    uint16_t *idx = calloc(6 * SIDES * (RINGS - 1), sizeof *idx);
    size_t n_idx = 0;
    for (int r = 0; r < RINGS; r++) {
        const float y = 2.0f * (float)r / (RINGS - 1);
        const float w1 = y <= 0.5f ? 0.0f : y >= 1.5f ? 1.0f : y - 0.5f;
        for (int k = 0; k < SIDES; k++) {
            const int v = r * SIDES + k;
            const float a = 2.0f * 3.14159265f * (float)k / SIDES;
            pos[v][0] = 0.25f * cosf(a), pos[v][1] = y, pos[v][2] = -0.25f * sinf(a);
            nrm[v][0] = cosf(a), nrm[v][2] = -sinf(a);
            joints[v][0] = 0, joints[v][1] = 1;
            weights[v][0] = 1.0f - w1, weights[v][1] = w1;
            if (r + 1 < RINGS) { /* two triangles, counter-clockwise from outside */
                const uint16_t a0 = (uint16_t)v, a1 = (uint16_t)(r * SIDES + (k + 1) % SIDES);
                const uint16_t b0 = (uint16_t)(a0 + SIDES), b1 = (uint16_t)(a1 + SIDES);
                const uint16_t tri[6] = {a0, a1, b1, a0, b1, b0};
                memcpy(idx + n_idx, tri, sizeof tri);
                n_idx += 6;
            }
        }
    }
    int base = add_node(doc, "base", NULL, -1, -1);
    int joint = add_node(doc, "twist", (float[3]){0, 1, 0}, -1, -1);
    glbw_node_add_child(doc, base, joint);
    glbw_primitive_desc p = skinned_primitive(doc, pos, nrm, joints, weights, N, idx, n_idx);
    int mesh = glbw_add_mesh(doc, "tube", &p, 1);
    const float global_t[2][3] = {{0, 0, 0}, {0, 1, 0}};
    int skin = glbw_add_skin(doc, "tube", (int[2]){base, joint}, 2,
                             add_inverse_binds(doc, global_t, 2), base);
    add_node(doc, "tube", NULL, mesh, skin);
    int anim = glbw_add_animation(doc, "twist");
    const float times[5] = {0, 0.5f, 1, 1.5f, 2};
    const float h = 0.70710678f;
    const float rot[5][4] = {{0, 0, 0, 1}, {0, h, 0, h}, {0, 1, 0, 0}, {0, h, 0, h}, {0, 0, 0, 1}};
    add_channel(doc, anim, joint, GLBW_PATH_ROTATION, times, &rot[0][0], 5);
    write_doc(doc, "twist.glb");
    free(pos), free(nrm), free(joints), free(weights), free(idx);
}

/* The triangles of a grid of cols x rows vertices, row by row: two a cell, (a, b, e) and
 * (a, e, d) with a its corner, b the next in the row, d the next row's, e diagonal. Returns the
 * indices written, 6 (cols - 1) (rows - 1). */
static size_t grid_indices(int cols, int rows, uint16_t *idx)
{
    size_t n = 0;
    for (int r = 0; r + 1 < rows; r++)
        for (int c = 0; c + 1 < cols; c++) {
            const uint16_t a = (uint16_t)(r * cols + c), b = (uint16_t)(a + 1),
                           d = (uint16_t)(a + cols), e = (uint16_t)(d + 1);
            const uint16_t tri[6] = {a, b, e, a, e, d};
            memcpy(idx + n, tri, sizeof tri);
            n += 6;
        }
    return n;
}

/* A sparse VEC3 morph target of `count` elements with no bufferView (zeros but where given): at
 * [n] its indices, values [n] the values there, lo and hi its bounds. */
static int sparse_target(glbw_doc *doc, size_t count, const uint16_t *at, const float (*values)[3],
                         size_t n, const double lo[3], const double hi[3])
{
    const int accessor = glbw_add_accessor(doc, GLBW_NONE, 0,
                                           &(glbw_accessor_desc){.component = GLBW_F32,
                                                                 .type = GLBW_VEC3,
                                                                 .count = count,
                                                                 .min_max = true,
                                                                 .min = lo,
                                                                 .max = hi});
    const int indices = glbw_add_view(doc, at, sizeof *at * n, 0, GLBW_TARGET_NONE);
    const int given = glbw_add_view(doc, values, sizeof *values * n, 0, GLBW_TARGET_NONE);
    glbw_set_sparse(doc, accessor,
                    &(glbw_sparse_desc){.count = n,
                                        .indices_view = indices,
                                        .indices_component = GLBW_U16,
                                        .values_view = given});
    return accessor;
}

/* morph.glb: a 4x4 grid in the plane z = 0 (x, y in 0 .. 1.5, normals +z) over two joints,
 * root at the origin and top at y = 1 (its child); rows with y <= 0.5 follow root, the others top.
 * Three morph targets, named (extras.targetNames) "raise", "pinch" and "tilt", default weights
 * (0.5, 0, 0.25):
 *   raise: POSITION (0, 0, 0.2 x) on every vertex (dense);
 *   pinch: POSITION on vertices 5 and 10 alone, through a sparse accessor with no bufferView:
 *          (0.1, 0, 0) and (-0.1, 0, 0.05);
 *   tilt:  POSITION (0, 0, 0.1 y) and NORMAL (0, -0.1, 0) on every vertex.
 * Two more primitives (each its own mesh in assimp), with the same three targets: a brow above
 * the grid (material "hair": raise lifts it by 0.3) and a lid below it (the grid's "skin",
 * merged with it at load, before the brow: raise lifts it by 0.1); their other targets are zero.
 * Clips, each on the weights of the grid's node:
 *   "talk"   LINEAR: (0, 0, 0) at 0 s, (1, 0.5, 0) at 0.5 s, (0, 0, 1) at 1 s; top also turns
 *            30 degrees about x by 1 s;
 *   "blink"  STEP: (0, 0, 0) at 0 s, (0, 1, 0) at 0.25 s, (0, 0, 0) at 0.5 s;
 *   "smooth" CUBICSPLINE: value (0, 0, 0) at 0 s with out-tangent (2, 0, 0), value (1, 0, 1) at
 *            1 s with in-tangent (0, 0, 0) (the others 0). */
static void morph(const char *file, bool nan_weight)
{
    enum { N = 16 };
    glbw_doc *doc = glbw_create();
    float pos[N][3], nrm[N][3], weights[N][4] = {{0}}, raise[N][3], tilt[N][3], tilt_n[N][3];
    uint16_t joints[N][4] = {{0}};
    for (int v = 0; v < N; v++) {
        const float x = 0.5f * (float)(v % 4), y = 0.5f * (float)(v / 4);
        pos[v][0] = x, pos[v][1] = y, pos[v][2] = 0.0f;
        nrm[v][0] = 0.0f, nrm[v][1] = 0.0f, nrm[v][2] = 1.0f;
        joints[v][0] = y <= 0.5f ? 0 : 1;
        weights[v][0] = 1.0f;
        raise[v][0] = 0.0f, raise[v][1] = 0.0f, raise[v][2] = 0.2f * x;
        tilt[v][0] = 0.0f, tilt[v][1] = 0.0f, tilt[v][2] = 0.1f * y;
        tilt_n[v][0] = 0.0f, tilt_n[v][1] = -0.1f, tilt_n[v][2] = 0.0f;
    }
    uint16_t idx[9 * 6];
    const size_t n_idx = grid_indices(4, 4, idx);
    int root = add_node(doc, "root", NULL, -1, -1);
    int top = add_node(doc, "top", (float[3]){0, 1, 0}, -1, -1);
    glbw_node_add_child(doc, root, top);
    glbw_primitive_desc p = skinned_primitive(doc, pos, nrm, joints, weights, N, idx, n_idx);
    p.target_count = 3;
    p.targets[0] = (glbw_morph_target){
        glbw_add_floats(doc, &raise[0][0], N, GLBW_VEC3, GLBW_TARGET_VERTICES, true), GLBW_NONE,
        GLBW_NONE};
    /* The sparse target: two vertices given. */
    const uint16_t at[2] = {5, 10};
    const float moved[2][3] = {{0.1f, 0, 0}, {-0.1f, 0, 0.05f}};
    const int pinch = sparse_target(doc, N, at, moved, 2, (const double[3]){-0.1, 0, 0},
                                    (const double[3]){0.1, 0, 0.05});
    p.targets[1] = (glbw_morph_target){pinch, GLBW_NONE, GLBW_NONE};
    p.targets[2] = (glbw_morph_target){
        glbw_add_floats(doc, &tilt[0][0], N, GLBW_VEC3, GLBW_TARGET_VERTICES, true),
        glbw_add_floats(doc, &tilt_n[0][0], N, GLBW_VEC3, GLBW_TARGET_VERTICES, false), GLBW_NONE};
    /* A second primitive (assimp makes it a mesh of its own, of the same material: merged
     * into the grid's at load), a quad above the grid following top, with the same three
     * targets, as glTF requires: raise lifts it by 0.3 in z, pinch and tilt move nothing. */
    const float brow[4][3] = {{0, 2, 0}, {0.5f, 2, 0}, {0, 2.5f, 0}, {0.5f, 2.5f, 0}};
    const float brow_n[4][3] = {{0, 0, 1}, {0, 0, 1}, {0, 0, 1}, {0, 0, 1}};
    const float brow_raise[4][3] = {{0, 0, 0.3f}, {0, 0, 0.3f}, {0, 0, 0.3f}, {0, 0, 0.3f}};
    const float brow_zero[4][3] = {{0}};
    const uint16_t brow_j[4][4] = {{1}, {1}, {1}, {1}}, brow_idx[6] = {0, 1, 3, 0, 3, 2};
    const float brow_w[4][4] = {{1}, {1}, {1}, {1}};
    glbw_primitive_desc q = skinned_primitive(doc, brow, brow_n, brow_j, brow_w, 4, brow_idx, 6);
    q.target_count = 3;
    q.targets[0] = (glbw_morph_target){
        glbw_add_floats(doc, &brow_raise[0][0], 4, GLBW_VEC3, GLBW_TARGET_VERTICES, true),
        GLBW_NONE, GLBW_NONE};
    const int zero =
        glbw_add_floats(doc, &brow_zero[0][0], 4, GLBW_VEC3, GLBW_TARGET_VERTICES, true);
    q.targets[1] = (glbw_morph_target){zero, GLBW_NONE, GLBW_NONE};
    q.targets[2] = (glbw_morph_target){zero, GLBW_NONE, GLBW_NONE};
    /* A third primitive, a lid below the grid following root, of the grid's material: merged
     * with the grid, it moves before the brow, and its targets' and the brow's ranges with it.
     * raise lifts it by 0.1 in z; pinch and tilt move nothing. */
    const float lid[4][3] = {{0, -1, 0}, {0.5f, -1, 0}, {0, -0.5f, 0}, {0.5f, -0.5f, 0}};
    const float lid_raise[4][3] = {{0, 0, 0.1f}, {0, 0, 0.1f}, {0, 0, 0.1f}, {0, 0, 0.1f}};
    const uint16_t lid_j[4][4] = {{0}, {0}, {0}, {0}};
    glbw_primitive_desc r = q;
    r.position = glbw_add_floats(doc, &lid[0][0], 4, GLBW_VEC3, GLBW_TARGET_VERTICES, true);
    r.joints0 = add_u16x4(doc, lid_j, 4);
    r.targets[0] = (glbw_morph_target){
        glbw_add_floats(doc, &lid_raise[0][0], 4, GLBW_VEC3, GLBW_TARGET_VERTICES, true), GLBW_NONE,
        GLBW_NONE};
    p.material = r.material = add_colored_material(doc, "skin", 0.8f, 0.6f, 0.5f);
    q.material = add_colored_material(doc, "hair", 0.2f, 0.1f, 0.05f);
    int mesh = glbw_add_mesh(doc, "face", (const glbw_primitive_desc[3]){p, q, r}, 3);
    glbw_mesh_set_targets(doc, mesh, (const float[3]){0.5f, 0.0f, 0.25f}, 3,
                          (const char *const[3]){"raise", "pinch", "tilt"}, 3);
    const float global_t[2][3] = {{0, 0, 0}, {0, 1, 0}};
    int skin = glbw_add_skin(doc, "face", (int[2]){root, top}, 2,
                             add_inverse_binds(doc, global_t, 2), root);
    int grid = add_node(doc, "face", NULL, mesh, skin);

    /* Weight channels: an output of 3 floats a key (9 for CUBICSPLINE: in-tangents, values,
     * out-tangents). */
    const struct {
        const char *name;
        glbw_interp interp;
        int keys;
        float times[3];
        float values[27];
    } clips[3] = {
        {"talk", GLBW_LINEAR, 3, {0, 0.5f, 1}, {0, 0, 0, nan_weight ? NAN : 1, 0.5f, 0, 0, 0, 1}},
        {"blink", GLBW_STEP, 3, {0, 0.25f, 0.5f}, {0, 0, 0, 0, 1, 0, 0, 0, 0}},
        {"smooth",
         GLBW_CUBICSPLINE,
         2,
         {0, 1},
         {0, 0, 0, 0, 0, 0, 2, 0, 0, 0, 0, 0, 1, 0, 1, 0, 0, 0}},
    };
    for (int k = 0; k < 3; k++) {
        int anim = glbw_add_animation(doc, clips[k].name);
        const int per_key = clips[k].interp == GLBW_CUBICSPLINE ? 9 : 3;
        int in = glbw_add_floats(doc, clips[k].times, (size_t)clips[k].keys, GLBW_SCALAR,
                                 GLBW_TARGET_NONE, true);
        int out = glbw_add_floats(doc, clips[k].values, (size_t)(clips[k].keys * per_key),
                                  GLBW_SCALAR, GLBW_TARGET_NONE, false);
        glbw_add_anim_channel(doc, anim, glbw_add_anim_sampler(doc, anim, in, out, clips[k].interp),
                              grid, GLBW_PATH_WEIGHTS);
        if (k == 0) { /* top turns 30 degrees about x by 1 s */
            const float times[2] = {0, 1}, h = 0.25881905f, c = 0.96592583f;
            const float rot[2][4] = {{0, 0, 0, 1}, {h, 0, 0, c}};
            add_channel(doc, anim, top, GLBW_PATH_ROTATION, times, &rot[0][0], 2);
        }
    }
    write_doc(doc, file);
}

/* A box of `size` centred at `c` (24 vertices, flat normals) skinned to joint j alone, as a mesh
 * of its own on a node of its own (for robot.glb). */
static int robot_box(glbw_doc *doc, const char *name, const float c[3], const float size[3],
                     uint16_t j, int material, int skin)
{
    float pos[24][3], nrm[24][3], weights[24][4] = {{0}};
    uint16_t joints[24][4] = {{0}}, idx[36];
    for (int f = 0; f < 6; f++) {
        const int axis = f / 2;
        const float sign = f % 2 ? -1.0f : 1.0f;
        const int u = (axis + 1) % 3, v = (axis + 2) % 3;
        for (int k = 0; k < 4; k++) {
            float *p = pos[4 * f + k];
            p[axis] = c[axis] + sign * 0.5f * size[axis];
            p[u] = c[u] + ((k & 1) ? 0.5f : -0.5f) * size[u];
            p[v] = c[v] + ((k & 2) ? 0.5f : -0.5f) * size[v];
            memset(nrm[4 * f + k], 0, sizeof nrm[0]);
            nrm[4 * f + k][axis] = sign;
            joints[4 * f + k][0] = j;
            weights[4 * f + k][0] = 1.0f;
        }
        const uint16_t b = (uint16_t)(4 * f);
        const uint16_t tri[6] = {b, (uint16_t)(b + 1), (uint16_t)(b + 3),
                                 b, (uint16_t)(b + 3), (uint16_t)(b + 2)};
        memcpy(idx + 6 * f, tri, sizeof tri);
    }
    glbw_primitive_desc p =
        skinned_primitive(doc, (const float(*)[3])pos, (const float(*)[3])nrm,
                          (const uint16_t(*)[4])joints, (const float(*)[4])weights, 24, idx, 36);
    p.material = material;
    return add_node(doc, name, NULL, glbw_add_mesh(doc, name, &p, 1), skin);
}

/* robot.glb: a character as avatar files carry one, its face animated by morph-target weights:
 * joints hips (origin), torso (y = 1), head (y = 1.6) and arm.L / arm.R (x = +-0.4, y = 1.4) under
 * torso; 7 boxes of 3 materials on nodes of their own (body, arms, legs, hat, eye), and two
 * morphed meshes, each on its own node:
 *   face: a half cylinder of radius 0.3 about the y axis, 33 columns (angle -1.2 .. 1.2 rad from
 *         +z) x 17 rows (y 1.55 .. 2.05), radial normals, tangents along the angle (w = 1); rows
 *         from y >= 1.65 follow head, the lower ones blend torso and head. Targets:
 *         "smile" POSITION (0, 0.05 s^2, 0.02 c), NORMAL (0, 0.1 s, 0), TANGENT (0, 0.05 s, 0)
 *                 with s, c the sine and cosine of the vertex's angle, on every vertex;
 *         "blink" POSITION (0, -0.03, 0) on the 5 middle vertices of row 13 alone (sparse);
 *         "open"  POSITION (0, -0.3 (1.75 - y) / 0.2, 0) on rows below y = 1.75, 0 above (the jaw
 *                 drops);
 *         default weights (0.1, 0, 0);
 *   teeth: a 5 x 3 grid (x -0.1 .. 0.1, y 1.62 .. 1.68, z 0.25) following head, targets
 *         "open" POSITION (0, -0.1, 0) on every vertex, "smile" (0, 0, 0.01 x / 0.1).
 * Clips (a weights channel per morphed node, the rest joints):
 *   "Wave"  LINEAR: arm.L turns 90 degrees about z by 1 s and back by 2 s; face smile 0, 1, 0;
 *   "Talk"  LINEAR, weights alone: face open 0, 1, 0.2, 0.8, 0 at 0, 0.25, 0.5, 0.75, 1 s,
 *           teeth open likewise;
 *   "Blink" STEP, weights alone: face blink 0, 1, 0 at 0, 0.1, 0.2 s (and 1 s: 0);
 *   "Smile" CUBICSPLINE, weights alone: face (smile, open) 0 at 0 s with out-tangent 3, 1 at 1 s
 *           with in-tangent 0; teeth smile the same. */
static void robot(void)
{
    enum { COLS = 33, ROWS = 17, N = COLS * ROWS, TEETH = 15 };
    glbw_doc *doc = glbw_create();
    const char *names[5] = {"hips", "torso", "head", "arm.L", "arm.R"};
    const float at[5][3] = {{0, 0, 0}, {0, 1, 0}, {0, 1.6f, 0}, {0.4f, 1.4f, 0}, {-0.4f, 1.4f, 0}};
    const float local[5][3] = {
        {0, 0, 0}, {0, 1, 0}, {0, 0.6f, 0}, {0.4f, 0.4f, 0}, {-0.4f, 0.4f, 0}};
    const int parent[5] = {-1, 0, 1, 1, 1};
    int joint[5];
    for (int j = 0; j < 5; j++) {
        joint[j] = add_node(doc, names[j], local[j], -1, -1);
        if (parent[j] >= 0)
            glbw_node_add_child(doc, joint[parent[j]], joint[j]);
    }
    int skin = glbw_add_skin(doc, "robot", joint, 5, add_inverse_binds(doc, at, 5), joint[0]);
    const int grey = add_colored_material(doc, "metal", 0.6f, 0.6f, 0.65f);
    const int red = add_colored_material(doc, "paint", 0.8f, 0.1f, 0.1f);
    const int face_m = add_colored_material(doc, "face", 0.9f, 0.8f, 0.6f);
    const struct {
        const char *name;
        float c[3], size[3];
        uint16_t joint;
        int material;
    } boxes[7] = {
        {"body", {0, 1.1f, 0}, {0.6f, 0.8f, 0.4f}, 1, grey},
        {"arm.L", {0.65f, 1.4f, 0}, {0.5f, 0.15f, 0.15f}, 3, red},
        {"arm.R", {-0.65f, 1.4f, 0}, {0.5f, 0.15f, 0.15f}, 4, red},
        {"leg.L", {0.15f, 0.35f, 0}, {0.2f, 0.7f, 0.2f}, 0, grey},
        {"leg.R", {-0.15f, 0.35f, 0}, {0.2f, 0.7f, 0.2f}, 0, grey},
        {"hat", {0, 2.15f, 0}, {0.5f, 0.1f, 0.5f}, 2, red},
        {"eye", {0, 1.85f, 0.32f}, {0.2f, 0.05f, 0.02f}, 2, grey},
    };
    for (int b = 0; b < 7; b++)
        robot_box(doc, boxes[b].name, boxes[b].c, boxes[b].size, boxes[b].joint, boxes[b].material,
                  skin);

    float(*pos)[3] = calloc(N, sizeof *pos), (*nrm)[3] = calloc(N, sizeof *nrm);
    float(*tan)[4] = calloc(N, sizeof *tan), (*weights)[4] = calloc(N, sizeof *weights);
    float(*smile)[3] = calloc(N, sizeof *smile), (*smile_n)[3] = calloc(N, sizeof *smile_n);
    float(*smile_t)[3] = calloc(N, sizeof *smile_t), (*open)[3] = calloc(N, sizeof *open);
    uint16_t(*joints)[4] = calloc(N, sizeof *joints);
    uint16_t *idx = calloc(6 * (COLS - 1) * (ROWS - 1), sizeof *idx);
    for (int r = 0; r < ROWS; r++)
        for (int c = 0; c < COLS; c++) {
            const int v = r * COLS + c;
            const float a = -1.2f + 2.4f * (float)c / (COLS - 1),
                        y = 1.55f + 0.5f * (float)r / (ROWS - 1);
            const float sn = sinf(a), cs = cosf(a);
            pos[v][0] = 0.3f * sn, pos[v][1] = y, pos[v][2] = 0.3f * cs;
            nrm[v][0] = sn, nrm[v][2] = cs;
            tan[v][0] = cs, tan[v][2] = -sn, tan[v][3] = 1.0f;
            const float h = y >= 1.65f ? 1.0f : (y - 1.55f) / 0.1f;
            joints[v][0] = 2, joints[v][1] = 1;
            weights[v][0] = h, weights[v][1] = 1.0f - h;
            smile[v][1] = 0.05f * sn * sn, smile[v][2] = 0.02f * cs;
            smile_n[v][1] = 0.1f * sn;
            smile_t[v][1] = 0.05f * sn;
            open[v][1] = y < 1.75f ? -0.3f * (1.75f - y) / 0.2f : 0.0f;
        }
    const size_t n_idx = grid_indices(COLS, ROWS, idx);
    glbw_primitive_desc p =
        skinned_primitive(doc, (const float(*)[3])pos, (const float(*)[3])nrm,
                          (const uint16_t(*)[4])joints, (const float(*)[4])weights, N, idx, n_idx);
    p.tangent = glbw_add_floats(doc, &tan[0][0], N, GLBW_VEC4, GLBW_TARGET_VERTICES, false);
    p.material = face_m;
    p.target_count = 3;
    p.targets[0] = (glbw_morph_target){
        glbw_add_floats(doc, &smile[0][0], N, GLBW_VEC3, GLBW_TARGET_VERTICES, true),
        glbw_add_floats(doc, &smile_n[0][0], N, GLBW_VEC3, GLBW_TARGET_VERTICES, false),
        glbw_add_floats(doc, &smile_t[0][0], N, GLBW_VEC3, GLBW_TARGET_VERTICES, false)};
    const uint16_t blinked[5] = {13 * COLS + 14, 13 * COLS + 15, 13 * COLS + 16, 13 * COLS + 17,
                                 13 * COLS + 18};
    const float down[5][3] = {
        {0, -0.03f, 0}, {0, -0.03f, 0}, {0, -0.03f, 0}, {0, -0.03f, 0}, {0, -0.03f, 0}};
    const int blink = sparse_target(doc, N, blinked, down, 5, (const double[3]){0, -0.03, 0},
                                    (const double[3]){0, 0, 0});
    p.targets[1] = (glbw_morph_target){blink, GLBW_NONE, GLBW_NONE};
    p.targets[2] = (glbw_morph_target){
        glbw_add_floats(doc, &open[0][0], N, GLBW_VEC3, GLBW_TARGET_VERTICES, true), GLBW_NONE,
        GLBW_NONE};
    int face_mesh = glbw_add_mesh(doc, "face", &p, 1);
    glbw_mesh_set_targets(doc, face_mesh, (const float[3]){0.1f, 0, 0}, 3,
                          (const char *const[3]){"smile", "blink", "open"}, 3);
    int face = add_node(doc, "face", NULL, face_mesh, skin);

    float tp[TEETH][3], tn[TEETH][3], tw[TEETH][4] = {{0}}, t_open[TEETH][3], t_smile[TEETH][3];
    uint16_t tj[TEETH][4] = {{0}}, t_idx[6 * 4 * 2];
    for (int v = 0; v < TEETH; v++) {
        const float x = -0.1f + 0.05f * (float)(v % 5), y = 1.62f + 0.03f * (float)(v / 5);
        tp[v][0] = x, tp[v][1] = y, tp[v][2] = 0.25f;
        tn[v][0] = 0, tn[v][1] = 0, tn[v][2] = 1;
        tj[v][0] = 2, tw[v][0] = 1.0f;
        t_open[v][0] = 0, t_open[v][1] = -0.1f, t_open[v][2] = 0;
        t_smile[v][0] = 0, t_smile[v][1] = 0, t_smile[v][2] = 0.01f * x / 0.1f;
    }
    const size_t nt = grid_indices(5, 3, t_idx);
    glbw_primitive_desc q =
        skinned_primitive(doc, (const float(*)[3])tp, (const float(*)[3])tn,
                          (const uint16_t(*)[4])tj, (const float(*)[4])tw, TEETH, t_idx, nt);
    q.material = grey;
    q.target_count = 2;
    q.targets[0] = (glbw_morph_target){
        glbw_add_floats(doc, &t_open[0][0], TEETH, GLBW_VEC3, GLBW_TARGET_VERTICES, true),
        GLBW_NONE, GLBW_NONE};
    q.targets[1] = (glbw_morph_target){
        glbw_add_floats(doc, &t_smile[0][0], TEETH, GLBW_VEC3, GLBW_TARGET_VERTICES, true),
        GLBW_NONE, GLBW_NONE};
    int teeth_mesh = glbw_add_mesh(doc, "teeth", &q, 1);
    glbw_mesh_set_targets(doc, teeth_mesh, (const float[2]){0, 0}, 2,
                          (const char *const[2]){"open", "smile"}, 2);
    int teeth = add_node(doc, "teeth", NULL, teeth_mesh, skin);

    /* Wave: arm.L about z, face smile. */
    int wave = glbw_add_animation(doc, "Wave");
    const float wt[3] = {0, 1, 2}, s2 = 0.70710678f;
    const float wr[3][4] = {{0, 0, 0, 1}, {0, 0, s2, s2}, {0, 0, 0, 1}};
    add_channel(doc, wave, joint[3], GLBW_PATH_ROTATION, wt, &wr[0][0], 3);
    const float wave_w[9] = {0, 0, 0, 1, 0, 0, 0, 0, 0};
    struct {
        int anim, node, keys, per;
        glbw_interp interp;
        const float *times, *values;
    } channels[7];
    int n_ch = 0;
    channels[n_ch++] = (__typeof__(channels[0])){wave, face, 3, 3, GLBW_LINEAR, wt, wave_w};
    int talk = glbw_add_animation(doc, "Talk");
    const float tt[5] = {0, 0.25f, 0.5f, 0.75f, 1};
    const float talk_face[15] = {0, 0, 0, 0, 0, 1, 0, 0, 0.2f, 0, 0, 0.8f, 0, 0, 0};
    const float talk_teeth[10] = {0, 0, 1, 0, 0.2f, 0, 0.8f, 0, 0, 0};
    channels[n_ch++] = (__typeof__(channels[0])){talk, face, 5, 3, GLBW_LINEAR, tt, talk_face};
    channels[n_ch++] = (__typeof__(channels[0])){talk, teeth, 5, 2, GLBW_LINEAR, tt, talk_teeth};
    int blink_anim = glbw_add_animation(doc, "Blink");
    const float bt[4] = {0, 0.1f, 0.2f, 1};
    const float blink_w[12] = {0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0};
    channels[n_ch++] = (__typeof__(channels[0])){blink_anim, face, 4, 3, GLBW_STEP, bt, blink_w};
    int smile_anim = glbw_add_animation(doc, "Smile");
    const float st[2] = {0, 1};
    /* Per key: in-tangents, values, out-tangents. */
    const float smile_face[18] = {0, 0, 0, 0, 0, 0, 3, 0, 3, 0, 0, 0, 1, 0, 1, 0, 0, 0};
    const float smile_teeth[12] = {0, 0, 0, 0, 0, 3, 0, 0, 0, 1, 0, 0};
    channels[n_ch++] =
        (__typeof__(channels[0])){smile_anim, face, 2, 9, GLBW_CUBICSPLINE, st, smile_face};
    channels[n_ch++] =
        (__typeof__(channels[0])){smile_anim, teeth, 2, 6, GLBW_CUBICSPLINE, st, smile_teeth};
    for (int k = 0; k < n_ch; k++) {
        int in = glbw_add_floats(doc, channels[k].times, (size_t)channels[k].keys, GLBW_SCALAR,
                                 GLBW_TARGET_NONE, true);
        int out =
            glbw_add_floats(doc, channels[k].values, (size_t)(channels[k].keys * channels[k].per),
                            GLBW_SCALAR, GLBW_TARGET_NONE, false);
        glbw_add_anim_channel(
            doc, channels[k].anim,
            glbw_add_anim_sampler(doc, channels[k].anim, in, out, channels[k].interp),
            channels[k].node, GLBW_PATH_WEIGHTS);
    }
    write_doc(doc, "robot.glb");
    free(pos), free(nrm), free(tan), free(weights), free(smile), free(smile_n), free(smile_t);
    free(open), free(joints), free(idx);
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: make_fixtures OUT_DIR\n");
        return 2;
    }
    out_dir = argv[1];
    unordered();
    influences();
    textured();
    tangents();
    nan_tangent();
    no_animation();
    static_mesh();
    md5();
    chain("chain.glb", 40, CHAIN_OK);
    flipped_position();
    /* More joints than 8 bits index: the GPU's 16-bit joint stream (shaders/vks_shared.h). */
    chain("long_chain.glb", 300, CHAIN_OK);
    chain("long_clip.glb", 24, CHAIN_LONG_CLIP);
    chain("too_many_joints.glb", VKS_MAX_JOINTS + 20, CHAIN_OK);
    chain("nan_key.glb", 12, CHAIN_NAN_VALUE);
    chain("nan_time.glb", 12, CHAIN_NAN_TIME);
    chain("far_key.glb", 12, CHAIN_FAR_KEY);
    chain("far_time.glb", 12, CHAIN_FAR_TIME);
    chain("no_meshes.glb", 12, CHAIN_NO_MESH);
    chain("no_inverse_binds.glb", 12, CHAIN_NO_INVERSE_BINDS);
    weights_u8();
    weights_u16();
    quantized_rotation();
    quantized_mesh();
    clip_order();
    wide_influences();
    sparse();
    draco_required();
    orphan_bone();
    clip_order_x();
    random_bytes();
    twist();
    morph("morph.glb", false);
    /* nan_weight.glb: the same with a NaN weight in clip "talk"'s second key. */
    morph("nan_weight.glb", true);
    robot();
    return failures ? 1 : 0;
}
