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
    CHAIN_NO_MESH,
    CHAIN_NO_INVERSE_BINDS
};

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
        char name[16];
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
        /* Without inverseBindMatrices (optional in glTF: identity) assimp 5.2 dereferences null. */
        int ibm =
            flaw == CHAIN_NO_INVERSE_BINDS ? GLBW_NONE : add_inverse_binds(doc, global_t, count);
        int skin = glbw_add_skin(doc, "chain", nodes, count, ibm, nodes[0]);
        add_node(doc, "chain_mesh", NULL, mesh, skin);
        free(global_t);
    }
    int anim = glbw_add_animation(doc, "sway");
    float times[3] = {0, 0.5f, 1};
    float rot[3][4] = {{0, 0, 0, 1}, {0, 0, sinf(0.1f), cosf(0.1f)}, {0, 0, 0, 1}};
    if (flaw == CHAIN_NAN_VALUE)
        rot[1][2] = NAN;
    if (flaw == CHAIN_NAN_TIME)
        times[1] = NAN;
    add_channel(doc, anim, nodes[count / 2], GLBW_PATH_ROTATION, times, &rot[0][0], 3);
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
    chain("too_many_joints.glb", VKS_MAX_JOINTS + 20, CHAIN_OK);
    chain("nan_key.glb", 12, CHAIN_NAN_VALUE);
    chain("nan_time.glb", 12, CHAIN_NAN_TIME);
    chain("no_meshes.glb", 12, CHAIN_NO_MESH);
    chain("no_inverse_binds.glb", 12, CHAIN_NO_INVERSE_BINDS);
    random_bytes();
    return failures ? 1 : 0;
}
