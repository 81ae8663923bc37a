/* The importer's rules on models made for them (tests/make_fixtures.c) and on the default
 * character.  usage: test_import FIXTURES_DIR DEFAULT_GLB */
#include "anim/anim.h"
#include "asset/import.h"
#include "check.h"
#include "skin/skin_cpu.h"

#include <stdlib.h>
#include <string.h>

static const char *fixtures;

static bool load(const char *file, vks_model *m)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", fixtures, file);
    vks_error err;
    if (!vks_model_import(&(vks_import_desc){.path = path}, m, &err)) {
        fprintf(stderr, "%s\n", err.msg);
        CHECK(!"import failed");
        return false;
    }
    return true;
}

static int32_t joint(const vks_model *m, const char *name)
{
    for (uint32_t j = 0; j < m->skeleton.joint_count; j++)
        if (strcmp(m->skeleton.names[j], name) == 0)
            return (int32_t)j;
    fprintf(stderr, "no joint '%s'\n", name);
    CHECK(!"joint missing");
    return 0;
}

static void check_parent_order(const vks_model *m)
{
    for (uint32_t j = 0; j < m->skeleton.joint_count; j++)
        CHECK(m->skeleton.parents[j] < (int32_t)j);
}

/* Skins the whole model at (clip, t) on the CPU, t unwrapped, and keeps the model transforms
 * (vks_skin_cpu_pose does not return them). */
static void pose(const vks_model *m, int32_t clip, float t, float (*pos)[3], float (*nrm)[3],
                 vks_affine *world)
{
    const vks_skeleton *sk = &m->skeleton;
    vks_xform *local = malloc(sizeof *local * sk->joint_count);
    vks_bone *palette = malloc(sizeof *palette * sk->joint_count);
    if (clip < 0)
        vks_pose_rest(sk, local);
    else
        vks_clip_sample(sk, &m->clips[clip], t, NULL, local);
    vks_pose_palette(sk, local, world, palette);
    vks_skin_input in = vks_skin_input_of(m);
    vks_skin_cpu(&in, palette, pos, nrm, NULL);
    free(local);
    free(palette);
}

static void test_unordered(void)
{
    vks_model m;
    if (!load("unordered.glb", &m))
        return;
    check_parent_order(&m);
    CHECK(m.tangents == NULL); /* the file has none, and none are generated */
    const vks_skeleton *sk = &m.skeleton;
    int32_t base = joint(&m, "base"), mid = joint(&m, "mid"), tip = joint(&m, "tip");
    int32_t holder = joint(&m, "rigid_holder"), twist = joint(&m, "twist");
    CHECK(sk->parents[tip] == twist); /* a node with no bone between two bones stays */
    CHECK(sk->parents[twist] == mid);
    CHECK(sk->parents[mid] == base);
    CHECK(sk->parents[holder] == mid);
    CHECK(base < mid && mid < twist && twist < tip);
    CHECK(m.clips[0].tracks[twist].r_count == 3); /* its animation is kept */
    CHECK(m.mesh_count == 2);

    /* The rigid mesh follows its node "rigid_holder", animated: every vertex is bound to it with
     * weight 1 and lands where the node's transform puts it. */
    const vks_mesh *rigid = NULL;
    for (uint32_t i = 0; i < m.mesh_count; i++)
        if (!m.meshes[i].skinned)
            rigid = &m.meshes[i];
    CHECK(rigid != NULL);
    if (!rigid) {
        vks_model_destroy(&m);
        return;
    }
    CHECK(rigid->node_joint == (uint32_t)holder);
    float(*pos)[3] = malloc(sizeof *pos * m.vertex_count);
    float(*nrm)[3] = malloc(sizeof *nrm * m.vertex_count);
    vks_affine *world = malloc(sizeof *world * sk->joint_count);
    CHECK(m.clip_count == 1);
    pose(&m, 0, 0.5f, pos, nrm, world);
    for (uint32_t v = rigid->base_vertex; v < rigid->base_vertex + rigid->vertex_count; v++) {
        CHECK(m.joints[v][0] == holder && m.weights[v][0] == 1.0f);
        const float *p = m.positions[v];
        const vks_affine *w = &world[holder];
        for (int r = 0; r < 3; r++)
            CHECK_NEAR(pos[v][r],
                       w->row[r][0] * p[0] + w->row[r][1] * p[1] + w->row[r][2] * p[2] +
                           w->row[r][3],
                       1e-5);
    }
    /* At t = 0.5 the holder sits 0.25 higher than at rest: its first vertex (0, 0, 0) moves with
     * it. */
    pose(&m, -1, 0.0f, pos, nrm, world);
    float rest_y = pos[rigid->base_vertex][1];
    pose(&m, 0, 0.5f, pos, nrm, world);
    CHECK(fabsf(pos[rigid->base_vertex][1] - rest_y) > 0.05f);
    /* Asked for tangents of a model without them, the reference leaves the array alone. */
    float(*tan)[4] = malloc(sizeof *tan * m.vertex_count);
    for (uint32_t v = 0; v < m.vertex_count; v++)
        tan[v][0] = tan[v][1] = tan[v][2] = tan[v][3] = 42.0f;
    CHECK(vks_skin_cpu_pose(&m, 0, 0.5, pos, nrm, tan));
    bool untouched = true;
    for (uint32_t v = 0; v < m.vertex_count; v++)
        for (int k = 0; k < 4; k++)
            untouched = untouched && tan[v][k] == 42.0f;
    CHECK(untouched);
    free(tan);
    free(pos);
    free(nrm);
    free(world);
    vks_model_destroy(&m);
}

/* Finds the vertex at position p (JoinIdenticalVertices may reorder). */
static int32_t vertex_at(const vks_model *m, float x, float y)
{
    for (uint32_t v = 0; v < m->vertex_count; v++)
        if (fabsf(m->positions[v][0] - x) < 1e-6f && fabsf(m->positions[v][1] - y) < 1e-6f)
            return (int32_t)v;
    CHECK(!"vertex not found");
    return 0;
}

/* Vertex v's influences, largest first: names[i] NULL means slot i is empty (weight 0). Slots 4-7
 * are in the extra streams, which a model keeps only when some vertex has more than 4. */
static void check_influences(const vks_model *m, int32_t v, const char *const names[8],
                             const float weights[8])
{
    float sum = 0.0f;
    for (int i = 0; i < 8; i++) {
        bool extra = i >= 4;
        if (extra && !m->weights_extra) {
            CHECK(names[i] == NULL);
            continue;
        }
        uint16_t jv = extra ? m->joints_extra[v][i - 4] : m->joints[v][i];
        float wv = extra ? m->weights_extra[v][i - 4] : m->weights[v][i];
        sum += wv;
        if (names[i]) {
            CHECK(jv == joint(m, names[i]));
            CHECK_NEAR(wv, weights[i], 1e-6);
        } else {
            CHECK(wv == 0.0f);
        }
    }
    CHECK_NEAR(sum, 1.0, 1e-6);
}

static void test_influences(void)
{
    vks_model m;
    if (!load("influences.glb", &m))
        return;
    check_parent_order(&m);
    CHECK(m.vertex_count == 5);
    /* Six influences summing to 1 are all kept (up to 8 are), largest first: 0.4 j1, 0.3 j3,
     * 0.12 j2, 0.08 j4, then the tie 0.05 on j0 and j5 in the order they came. */
    CHECK(m.joints_extra && m.weights_extra);
    check_influences(&m, vertex_at(&m, 0, 0),
                     (const char *[8]){"j1", "j3", "j2", "j4", "j0", "j5", NULL, NULL},
                     (float[8]){0.4f, 0.3f, 0.12f, 0.08f, 0.05f, 0.05f, 0, 0});
    check_influences(&m, vertex_at(&m, 1, 0), (const char *[8]){"j2", "j4"},
                     (float[8]){0.6f, 0.4f});
    check_influences(&m, vertex_at(&m, 0, 1), (const char *[8]){"influence_mesh"},
                     (float[8]){1});
    check_influences(&m, vertex_at(&m, 1, 1), (const char *[8]){"j1"}, (float[8]){1});
    check_influences(&m, vertex_at(&m, 2, 1), (const char *[8]){"j5"}, (float[8]){1});
    const vks_influence_stats *s = &m.influences;
    CHECK(s->histogram[0] == 1 && s->histogram[1] == 2 && s->histogram[2] == 1 &&
          s->histogram[3] == 0 && s->histogram[4] == 0 && s->histogram[6] == 1);
    CHECK(s->max_influences == 6);
    CHECK(s->truncated == 0);
    /* Vertex 1 (sum 0.5) and vertex 3 (positive sum 0.8; assimp's glTF reader drops the
     * negative weight itself, other readers pass it on and it counts as dropped). */
    CHECK(s->renormalised == 2);

    /* The unweighted vertex follows the mesh node (translated by z = 3) in the bind pose, like
     * the weighted ones, whose inverse binds cancel their joints. */
    float(*pos)[3] = malloc(sizeof *pos * m.vertex_count);
    float(*nrm)[3] = malloc(sizeof *nrm * m.vertex_count);
    vks_affine *world = malloc(sizeof *world * m.skeleton.joint_count);
    pose(&m, -1, 0.0f, pos, nrm, world);
    int32_t v2 = vertex_at(&m, 0, 1);
    CHECK_VEC_NEAR(pos[v2], ((float[3]){0, 1, 3}), 3, 1e-6);
    int32_t v4 = vertex_at(&m, 2, 1);
    CHECK_VEC_NEAR(pos[v4], ((float[3]){2, 1, 0}), 3, 1e-6);
    free(pos);
    free(nrm);
    free(world);
    vks_model_destroy(&m);
}

/* A second format: MD5 (text), whose vertices may carry any number of weights. */
static void test_md5(void)
{
    vks_model m;
    if (!load("figure.md5mesh", &m))
        return;
    check_parent_order(&m);
    CHECK(m.vertex_count == 8 && m.index_count == 18 && m.clip_count == 1);
    CHECK(m.influences.max_influences == 5 && m.influences.truncated == 0);
    CHECK(m.influences.histogram[1] == 3 && m.influences.histogram[2] == 4 &&
          m.influences.histogram[5] == 1);
    /* The five-weight vertex at (0.3, 0.8) keeps all five (they sum to 1). */
    check_influences(&m, vertex_at(&m, 0.3f, 0.8f),
                     (const char *[8]){"joint0", "joint1", "joint2", "joint3", "joint4"},
                     (float[8]){0.3f, 0.25f, 0.2f, 0.15f, 0.1f});
    CHECK(m.clips[0].tracks[joint(&m, "joint2")].r_count == 4);
    vks_model_destroy(&m);
}

static void test_textured(void)
{
    vks_model m;
    if (!load("textured.glb", &m))
        return;
    CHECK(m.material_count == 3 && m.texture_count == 2);
    const char *names[3] = {"embedded", "external", "missing"};
    const float colors[3][4] = {{1, 0.5f, 0.25f, 1}, {0.2f, 0.4f, 0.6f, 0.8f}, {0, 1, 0, 1}};
    for (uint32_t i = 0; i < m.material_count && i < 3; i++) {
        CHECK(strcmp(m.materials[i].name, names[i]) == 0);
        CHECK_VEC_NEAR(m.materials[i].base_color, colors[i], 4, 1e-6);
    }
    if (m.material_count == 3 && m.texture_count == 2) {
        const vks_texture *e = &m.textures[m.materials[0].texture];
        const vks_texture *x = &m.textures[m.materials[1].texture];
        CHECK(m.materials[0].texture >= 0 && m.materials[1].texture >= 0);
        CHECK(m.materials[2].texture == -1);
        CHECK(e->width == 4 && e->height == 2 && strncmp(e->source, "embedded", 8) == 0);
        CHECK(x->width == 2 && x->height == 2 && strstr(x->source, "textured_external.png"));
        for (int i = 0; i < 32; i++)
            CHECK(e->rgba[i] == (uint8_t)(i * 8 + 1));
        for (int i = 0; i < 16; i++)
            CHECK(x->rgba[i] == (uint8_t)(255 - i * 16));
    }
    CHECK(m.warning_count == 1);
    if (m.warning_count == 1)
        CHECK(strstr(m.warnings[0], "missing_texture.png") != NULL);
    vks_model_destroy(&m);
}

/* static_mesh.glb: no skin, no clips; every vertex follows its node "holder" (translation
 * (0.5, 1, -0.25), 90 degrees about +y, scale 2) into palette space. */
static void test_static_mesh(void)
{
    vks_model m;
    if (!load("static_mesh.glb", &m))
        return;
    CHECK(m.clip_count == 0 && m.mesh_count == 1 && !m.meshes[0].skinned);
    CHECK(m.vertex_count == 58 && m.index_count == 240);
    float(*pos)[3] = malloc(sizeof *pos * m.vertex_count);
    float(*nrm)[3] = malloc(sizeof *nrm * m.vertex_count);
    CHECK(vks_skin_cpu_pose(&m, -1, 0.0, pos, nrm, NULL));
    for (uint32_t v = 0; v < m.vertex_count; v++) {
        const float *p = m.positions[v], *n = m.normals[v];
        CHECK_VEC_NEAR(pos[v], ((float[3]){0.5f + 2 * p[2], 1 + 2 * p[1], -0.25f - 2 * p[0]}), 3,
                       1e-5);
        CHECK_VEC_NEAR(nrm[v], ((float[3]){n[2], n[1], -n[0]}), 3, 1e-5);
    }
    free(pos);
    free(nrm);
    vks_model_destroy(&m);
}

/* no_animation.glb: a skin and no clip. Its rest pose is not the bind pose: "upper" (at y = 0.8)
 * turns 0.61 rad about z, so vertices bound to it alone (y >= 1.2) turn about (0, 0.8, 0) and
 * those bound to "lower" alone (y <= 0.4) stay. */
static void test_no_animation(void)
{
    vks_model m;
    if (!load("no_animation.glb", &m))
        return;
    CHECK(m.clip_count == 0 && m.mesh_count == 1 && m.meshes[0].skinned);
    CHECK(m.vertex_count == 58);
    float(*pos)[3] = malloc(sizeof *pos * m.vertex_count);
    float(*nrm)[3] = malloc(sizeof *nrm * m.vertex_count);
    CHECK(vks_skin_cpu_pose(&m, -1, 0.0, pos, nrm, NULL));
    const float c = cosf(0.61f), s = sinf(0.61f);
    int turned = 0, kept = 0;
    for (uint32_t v = 0; v < m.vertex_count; v++) {
        const float *p = m.positions[v], *n = m.normals[v];
        if (p[1] >= 1.2f - 1e-4f) {
            float y = p[1] - 0.8f;
            CHECK_VEC_NEAR(pos[v], ((float[3]){p[0] * c - y * s, 0.8f + p[0] * s + y * c, p[2]}), 3,
                           1e-5);
            CHECK_VEC_NEAR(nrm[v], ((float[3]){n[0] * c - n[1] * s, n[0] * s + n[1] * c, n[2]}), 3,
                           1e-5);
            turned++;
        } else if (p[1] <= 0.4f + 1e-4f) {
            CHECK_VEC_NEAR(pos[v], p, 3, 1e-6);
            CHECK_VEC_NEAR(nrm[v], n, 3, 1e-6);
            kept++;
        }
    }
    CHECK(turned == 2 * 8 + 9 && kept == 2 * 8 + 9);
    free(pos);
    free(nrm);
    vks_model_destroy(&m);
}

static float dot3(const float a[3], const float b[3])
{
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

static void cross(const float a[3], const float b[3], float out[3])
{
    out[0] = a[1] * b[2] - a[2] * b[1];
    out[1] = a[2] * b[0] - a[0] * b[2];
    out[2] = a[0] * b[1] - a[1] * b[0];
}

/* The vertex at (x, y) whose tangent has handedness w (two vertices of tangents.glb differ only
 * in it). */
static int32_t tangent_vertex_at(const vks_model *m, float x, float y, float w)
{
    for (uint32_t v = 0; v < m->vertex_count; v++)
        if (fabsf(m->positions[v][0] - x) < 1e-6f && fabsf(m->positions[v][1] - y) < 1e-6f &&
            m->tangents[v][3] == w)
            return (int32_t)v;
    fprintf(stderr, "no vertex at (%g, %g) with handedness %g\n", x, y, w);
    CHECK(!"vertex not found");
    return 0;
}

/* tangents.glb (see make_fixtures.c): tangents as written (normalised), handedness kept,
 * JoinIdenticalVertices telling vertices apart by their tangents, zeros for the mesh without, and
 * the reference skinning them under a non-uniform scale and a mirror. */
static void test_tangents(void)
{
    vks_model m;
    if (!load("tangents.glb", &m))
        return;
    CHECK(m.tangents != NULL && m.mesh_count == 2);
    if (!m.tangents || m.mesh_count != 2) {
        vks_model_destroy(&m);
        return;
    }
    /* Which mesh is which: the one without tangents sits at x >= 3. */
    const vks_mesh *with = &m.meshes[0], *without = &m.meshes[1];
    if (m.positions[with->base_vertex][0] >= 3.0f) {
        with = &m.meshes[1];
        without = &m.meshes[0];
    }
    CHECK(with->vertex_count == 7); /* 8 written: the exact duplicate merged, the w twin kept */
    CHECK(without->vertex_count == 3);

    static const struct {
        float x, y, t[4];
    } written[7] = {
        {0, 0, {1, 0, 0, 1}},  {1, 0, {0, 1, 0, -1}},  {0, 1, {0.6f, 0.8f, 0, 1}},
        {1, 1, {1, 0, 0, -1}}, {0, 2, {-1, 0, 0, -1}}, {1, 2, {0, -1, 0, 1}},
        {0, 2, {-1, 0, 0, 1}},
    };
    for (int i = 0; i < 7; i++) {
        int32_t v = tangent_vertex_at(&m, written[i].x, written[i].y, written[i].t[3]);
        CHECK(v >= (int32_t)with->base_vertex &&
              v < (int32_t)(with->base_vertex + with->vertex_count));
        CHECK_VEC_NEAR(m.tangents[v], written[i].t, 4, 1e-6);
    }
    for (uint32_t v = without->base_vertex; v < without->base_vertex + without->vertex_count; v++)
        CHECK(m.tangents[v][0] == 0 && m.tangents[v][1] == 0 && m.tangents[v][2] == 0 &&
              m.tangents[v][3] == 0);

    /* Skinned: unit, perpendicular to the skinned normal (the bind tangents lie in the surface),
     * w kept by "bend" (det > 0) and flipped by "mirror" (det < 0), and the bitangent
     * cross(n', t') * w' on the same side as the skinned bind bitangent M (cross(n, t) * w). */
    float(*pos)[3] = malloc(sizeof *pos * m.vertex_count);
    float(*nrm)[3] = malloc(sizeof *nrm * m.vertex_count);
    float(*tan)[4] = malloc(sizeof *tan * m.vertex_count);
    float(*moved)[3] = malloc(sizeof *moved * m.vertex_count);
    const char *clips[2] = {"bend", "mirror"};
    for (int c = 0; c < 2; c++) {
        int32_t clip = vks_model_find_clip(&m, clips[c]);
        CHECK(clip >= 0);
        if (clip < 0)
            continue;
        float flip = c == 1 ? -1.0f : 1.0f;
        /* M (bitangent) by finite difference: skin bind positions p and p + e * b, subtract. */
        vks_model shifted = m;
        float(*p2)[3] = malloc(sizeof *p2 * m.vertex_count);
        for (uint32_t v = 0; v < m.vertex_count; v++) {
            float b[3];
            cross(m.normals[v], m.tangents[v], b);
            for (int k = 0; k < 3; k++)
                p2[v][k] = m.positions[v][k] + 0.01f * b[k] * m.tangents[v][3];
        }
        shifted.positions = p2;
        CHECK(vks_skin_cpu_pose(&shifted, clip, 0.5, moved, nrm, NULL));
        CHECK(vks_skin_cpu_pose(&m, clip, 0.5, pos, nrm, tan));
        for (uint32_t v = with->base_vertex; v < with->base_vertex + with->vertex_count; v++) {
            CHECK_NEAR(dot3(tan[v], tan[v]), 1.0, 1e-5);
            CHECK_NEAR(dot3(tan[v], nrm[v]), 0.0, 1e-5);
            CHECK(tan[v][3] == m.tangents[v][3] * flip);
            float bt[3], mb[3];
            cross(nrm[v], tan[v], bt);
            for (int k = 0; k < 3; k++)
                mb[k] = moved[v][k] - pos[v][k];
            CHECK(dot3(bt, mb) * tan[v][3] > 0.1f * sqrtf(dot3(mb, mb)));
        }
        for (uint32_t v = without->base_vertex; v < without->base_vertex + without->vertex_count;
             v++)
            CHECK(tan[v][0] == 0 && tan[v][1] == 0 && tan[v][2] == 0 && tan[v][3] == 0);
        free(p2);
    }
    /* "mirror" at time 0: upper is not turned yet, so every vertex's M is the mirror in x. */
    int32_t mirror = vks_model_find_clip(&m, "mirror");
    if (mirror >= 0 && vks_skin_cpu_pose(&m, mirror, 0.0, pos, nrm, tan))
        for (uint32_t v = with->base_vertex; v < with->base_vertex + with->vertex_count; v++) {
            const float *t = m.tangents[v];
            CHECK_VEC_NEAR(tan[v], ((float[4]){-t[0], t[1], t[2], -t[3]}), 4, 1e-6);
        }
    free(pos);
    free(nrm);
    free(tan);
    free(moved);
    vks_model_destroy(&m);

    /* A non-finite tangent is bad data, reported like a non-finite position. */
    char path[1024];
    snprintf(path, sizeof path, "%s/nan_tangent.glb", fixtures);
    vks_error err;
    CHECK(!vks_model_import(&(vks_import_desc){.path = path}, &m, &err));
    CHECK(strstr(err.msg, "vertex 1 has a non-finite tangent") != NULL);
}

/* The bundled character meets what it promises: 15+ joints, 2+ clips named idle and walk,
 * smooth weights with up to 4 influences, several base colors, and real motion. */
static void test_default(const char *path)
{
    vks_model m;
    vks_error err;
    if (!vks_model_import(&(vks_import_desc){.path = path}, &m, &err)) {
        fprintf(stderr, "%s\n", err.msg);
        CHECK(!"default import failed");
        return;
    }
    check_parent_order(&m);
    CHECK(m.tangents == NULL);
    CHECK(m.skeleton.joint_count >= 15);
    CHECK(m.clip_count >= 2);
    CHECK(vks_model_find_clip(&m, "idle") >= 0);
    CHECK(vks_model_find_clip(&m, "walk") >= 0);
    /* Smooth weights: blends of 2, 3 and 4 joints all occur, and never more than 4. */
    CHECK(m.influences.histogram[2] > 0 && m.influences.histogram[3] > 0);
    CHECK(m.influences.histogram[4] > 0);
    CHECK(m.influences.max_influences == 4);
    CHECK(m.influences.truncated == 0 && m.influences.renormalised == 0);
    CHECK(m.material_count >= 3);
    CHECK(m.warning_count == 0);
    for (uint32_t i = 0; i < m.mesh_count; i++)
        CHECK(m.meshes[i].skinned);
    uint32_t distinct = 0;
    for (uint32_t i = 0; i < m.material_count; i++) {
        bool seen = false;
        for (uint32_t k = 0; k < i; k++)
            seen = seen || memcmp(m.materials[i].base_color, m.materials[k].base_color,
                                  sizeof(float[4])) == 0;
        distinct += !seen;
    }
    CHECK(distinct >= 3);
    /* Walking moves vertices, and loops: the start and the end of the clip agree. */
    int32_t walk = vks_model_find_clip(&m, "walk");
    if (walk >= 0) {
        float(*a)[3] = malloc(sizeof *a * m.vertex_count);
        float(*b)[3] = malloc(sizeof *b * m.vertex_count);
        float(*n)[3] = malloc(sizeof *n * m.vertex_count);
        vks_affine *world = malloc(sizeof *world * m.skeleton.joint_count);
        float d = m.clips[walk].duration;
        pose(&m, walk, 0.0f, a, n, world);
        pose(&m, walk, d, b, n, world);
        float end_gap = 0.0f, moved = 0.0f;
        for (uint32_t v = 0; v < m.vertex_count; v++)
            for (int k = 0; k < 3; k++)
                end_gap = fmaxf(end_gap, fabsf(a[v][k] - b[v][k]));
        pose(&m, walk, 0.5f * d, b, n, world);
        for (uint32_t v = 0; v < m.vertex_count; v++)
            for (int k = 0; k < 3; k++)
                moved = fmaxf(moved, fabsf(a[v][k] - b[v][k]));
        CHECK(end_gap < 1e-4f);
        CHECK(moved > 0.1f);
        free(a);
        free(b);
        free(n);
        free(world);
    }
    vks_model_destroy(&m);
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: test_import FIXTURES_DIR DEFAULT_GLB\n");
        return 2;
    }
    fixtures = argv[1];
    test_unordered();
    test_influences();
    test_textured();
    test_tangents();
    test_md5();
    test_static_mesh();
    test_no_animation();
    test_default(argv[2]);
    return check_report("test_import");
}
