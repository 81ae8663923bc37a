/* The public API (include/vkskin/vkskin.h) against the engine it wraps and against closed forms:
 * model facts, bounds skinned here, palettes against the direct path, instance control, culling
 * against a sphere-box test written here, the caller's threads, and every misuse returning an
 * error with a message.
 *   usage: test_api DEFAULT_GLB FIXTURES_DIR */
#define _GNU_SOURCE /* sched_getaffinity, CPU_COUNT */
#include "vkskin/vkskin.h"

#include "anim/anim.h"
#include "api/api.h"
#include "asset/import.h"
#include "skin/dqs.h"
#include "skin/skin_cpu.h"
#include "api_check.h"

#include <pthread.h>
#include <stdatomic.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>

static const char *glb_path;
static vks_model ref; /* the same file through the engine's importer */

static unsigned char *read_file(const char *path, size_t *size)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    unsigned char *data = n > 0 ? malloc((size_t)n) : NULL;
    if (data && fread(data, 1, (size_t)n, f) != (size_t)n) {
        free(data);
        data = NULL;
    }
    fclose(f);
    *size = data ? (size_t)n : 0;
    return data;
}

/* err filled as the call returned, with a message that contains `needle`. */
static void test_version(void)
{
    char want[32];
    snprintf(want, sizeof want, "%d.%d.%d", VKSKIN_VERSION_MAJOR, VKSKIN_VERSION_MINOR,
             VKSKIN_VERSION_PATCH);
    CHECK(strcmp(vkskin_version(), want) == 0 && strcmp(VKSKIN_VERSION_STRING, want) == 0);
}

/* The cores follow the affinity mask: pinned to one processor, then to two (when the process
 * may run on two), vkskin_cores says 1, then 2; the mask is given back after. */
static void test_cores(void)
{
    cpu_set_t all, some;
    CHECK(sched_getaffinity(0, sizeof all, &all) == 0);
    int first[2] = {-1, -1}, found = 0;
    for (int cpu = 0; cpu < CPU_SETSIZE && found < 2; cpu++)
        if (CPU_ISSET(cpu, &all))
            first[found++] = cpu;
    CHECK(found >= 1);
    for (int want = 1; want <= found; want++) {
        CPU_ZERO(&some);
        for (int k = 0; k < want; k++)
            CPU_SET(first[k], &some);
        CHECK(sched_setaffinity(0, sizeof some, &some) == 0);
        CHECK(vkskin_cores() == (uint32_t)want);
    }
    CHECK(sched_setaffinity(0, sizeof all, &all) == 0);
    printf("cores: 1 and %d when pinned to them, %u with the process's own mask\n", found,
           vkskin_cores());
}

/* The bind pose skinned here: every vertex by the rest palettes, blended by its weights. */
static void bind_pose_box(const vks_model *m, float lo[3], float hi[3])
{
    const vks_skeleton *sk = &m->skeleton;
    vks_xform *local = malloc(sizeof *local * sk->joint_count);
    vks_affine *model = malloc(sizeof *model * sk->joint_count);
    vks_bone *palette = malloc(sizeof *palette * sk->joint_count);
    vks_pose_rest(sk, local);
    vks_pose_palette(sk, local, model, palette);
    for (uint32_t v = 0; v < m->vertex_count; v++) {
        double p[3] = {0, 0, 0};
        for (int i = 0; i < 4; i++) {
            const vks_bone *b = &palette[m->joints[v][i]];
            for (int r = 0; r < 3; r++)
                p[r] += m->weights[v][i] *
                        (b->row[r][0] * m->positions[v][0] + b->row[r][1] * m->positions[v][1] +
                         b->row[r][2] * m->positions[v][2] + b->row[r][3]);
        }
        for (int k = 0; k < 3; k++) {
            lo[k] = v == 0 || p[k] < lo[k] ? (float)p[k] : lo[k];
            hi[k] = v == 0 || p[k] > hi[k] ? (float)p[k] : hi[k];
        }
    }
    free(local);
    free(model);
    free(palette);
}

static void test_model(void)
{
    vkskin_model *m = NULL;
    vkskin_error err;
    CHECK(vkskin_model_load(
              &(vkskin_model_desc){.desc_size = sizeof(vkskin_model_desc), .path = glb_path}, &m,
              &err) == VKSKIN_OK);
    CHECK(m && err.result == VKSKIN_OK && err.message[0] == '\0');
    if (!m)
        return;
    vkskin_model_info info;
    CHECK(vkskin_model_get_info(m, &info, &err) == VKSKIN_OK);
    CHECK(info.vertex_count == ref.vertex_count && info.index_count == ref.index_count);
    CHECK(info.mesh_count == ref.mesh_count && info.clip_count == ref.clip_count);
    CHECK(info.joint_count == ref.skeleton.joint_count);
    CHECK(info.bone_count == ref.skeleton.bone_count && info.bone_count <= info.joint_count);
    CHECK(info.level_count >= 1 && info.name && strstr(info.name, "default") != NULL);
    float lo[3], hi[3];
    bind_pose_box(&ref, lo, hi);
    for (int k = 0; k < 3; k++) {
        CHECK_NEAR(info.bounds_min[k], lo[k], 1e-4);
        CHECK_NEAR(info.bounds_max[k], hi[k], 1e-4);
    }
    for (uint32_t c = 0; c < info.clip_count; c++) {
        vkskin_clip_info clip;
        CHECK(vkskin_model_get_clip(m, c, &clip, &err) == VKSKIN_OK);
        CHECK(strcmp(clip.name, ref.clips[c].name) == 0 && clip.duration == ref.clips[c].duration);
        CHECK(vkskin_model_find_clip(m, clip.name) == (int32_t)c);
    }
    CHECK(vkskin_model_find_clip(m, "1") == 1 &&
          vkskin_model_find_clip(m, "no such clip") == VKSKIN_CLIP_NOT_FOUND);
    CHECK(vkskin_model_find_clip(NULL, "walk") == VKSKIN_CLIP_NOT_FOUND &&
          vkskin_model_find_clip(m, NULL) == VKSKIN_CLIP_NOT_FOUND);
    CHECK(VKSKIN_CLIP_NOT_FOUND != VKSKIN_CLIP_NONE && VKSKIN_CLIP_NOT_FOUND != VKSKIN_CLIP_VARIED);
    for (uint32_t j = 0; j < info.joint_count; j++) {
        vkskin_joint_info joint;
        CHECK(vkskin_model_get_joint(m, j, &joint, &err) == VKSKIN_OK);
        CHECK(strcmp(joint.name, ref.skeleton.names[j]) == 0);
        CHECK(joint.parent == ref.skeleton.parents[j] && joint.parent < (int32_t)j);
    }
    vkskin_clip_info clip;
    check_error(vkskin_model_get_clip(m, info.clip_count, &clip, &err), &err, VKSKIN_ERROR_ARGUMENT,
                "clip(s): no clip");
    vkskin_joint_info joint;
    check_error(vkskin_model_get_joint(m, info.joint_count, &joint, &err), &err,
                VKSKIN_ERROR_ARGUMENT, "joint(s): no joint");
    check_error(vkskin_model_get_info(NULL, &info, &err), &err, VKSKIN_ERROR_ARGUMENT,
                "a model and an info");
    check_error(vkskin_model_get_info(m, NULL, &err), &err, VKSKIN_ERROR_ARGUMENT,
                "a model and an info");
    CHECK(vkskin_model_get_info(m, NULL, NULL) == VKSKIN_ERROR_ARGUMENT); /* err is optional */
    vkskin_model_destroy(m);
    vkskin_model_destroy(NULL);

    /* From memory: the same model. */
    size_t size = 0;
    unsigned char *data = read_file(glb_path, &size);
    CHECK(data != NULL);
    if (data) {
        vkskin_model_desc desc = {.desc_size = sizeof(vkskin_model_desc),
                                  .data = data,
                                  .size = size,
                                  .format_hint = "glb"};
        CHECK(vkskin_model_load(&desc, &m, &err) == VKSKIN_OK);
        if (m) {
            vkskin_model_info mem;
            CHECK(vkskin_model_get_info(m, &mem, &err) == VKSKIN_OK);
            CHECK(mem.vertex_count == ref.vertex_count && mem.clip_count == ref.clip_count);
            vkskin_model_destroy(m);
        }
        /* Both a path and data, or data of 0 bytes: misuse. */
        desc.path = glb_path;
        check_error(vkskin_model_load(&desc, &m, &err), &err, VKSKIN_ERROR_ARGUMENT, "not both");
        CHECK(m == NULL);
        check_error(vkskin_model_load(&(vkskin_model_desc){.desc_size = sizeof(vkskin_model_desc),
                                                           .data = data,
                                                           .format_hint = "glb"},
                                      &m, &err),
                    &err, VKSKIN_ERROR_ARGUMENT, "0 bytes");
        /* Bytes that are no model: a load error naming the memory file. */
        memset(data, 0x5A, size);
        check_error(vkskin_model_load(&(vkskin_model_desc){.desc_size = sizeof(vkskin_model_desc),
                                                           .data = data,
                                                           .size = size,
                                                           .format_hint = "glb",
                                                           .name = "junk in memory"},
                                      &m, &err),
                    &err, VKSKIN_ERROR_LOAD, "junk in memory");
        /* The same through assimp (another format): the message names the caller's data, not
         * the file name assimp gives memory internally. */
        check_error(vkskin_model_load(&(vkskin_model_desc){.desc_size = sizeof(vkskin_model_desc),
                                                           .data = data,
                                                           .size = size,
                                                           .name = "junk, no hint"},
                                      &m, &err),
                    &err, VKSKIN_ERROR_LOAD, "junk, no hint");
        printf("junk through assimp: %s\n", err.message);
        CHECK(strstr(err.message, "$$$") == NULL && strstr(err.message, "magic") == NULL);
        free(data);
    }
    check_error(
        vkskin_model_load(&(vkskin_model_desc){.desc_size = sizeof(vkskin_model_desc)}, &m, &err),
        &err, VKSKIN_ERROR_ARGUMENT, "neither");
    check_error(vkskin_model_load(NULL, &m, &err), &err, VKSKIN_ERROR_ARGUMENT, "desc and model");
    check_error(vkskin_model_load(
                    &(vkskin_model_desc){.desc_size = sizeof(vkskin_model_desc), .path = glb_path},
                    NULL, &err),
                &err, VKSKIN_ERROR_ARGUMENT, "desc and model");
    check_error(vkskin_model_load(&(vkskin_model_desc){.desc_size = sizeof(vkskin_model_desc),
                                                       .path = "/nonexistent/x.glb"},
                                  &m, &err),
                &err, VKSKIN_ERROR_LOAD, "cannot open");
    /* The crash guard, asked for: the same error for a missing file through the forked read. */
    check_error(vkskin_model_load(&(vkskin_model_desc){.desc_size = sizeof(vkskin_model_desc),
                                                       .path = "/nonexistent/x.glb",
                                                       .isolate = true},
                                  &m, &err),
                &err, VKSKIN_ERROR_LOAD, "cannot open");
}

/* The model's parts through the API against the engine's own import of the file (`ref`) and
 * against sums the test forms; the CPU skinning at the bind pose against the positions. */
static void test_model_parts(void)
{
    vkskin_model *m;
    vkskin_error err;
    CHECK(vkskin_model_load(
              &(vkskin_model_desc){.desc_size = sizeof(vkskin_model_desc), .path = glb_path}, &m,
              &err) == VKSKIN_OK);
    vkskin_model_info info;
    CHECK(vkskin_model_get_info(m, &info, &err) == VKSKIN_OK);
    CHECK(info.material_count == ref.material_count && info.influences == 4 && !info.tangents);
    uint32_t histogram = 0;
    for (int k = 0; k < 9; k++)
        histogram += info.influence_histogram[k];
    CHECK(histogram <= info.vertex_count && histogram > 0);
    uint32_t vertices = 0, indices = 0;
    for (uint32_t i = 0; i < info.mesh_count; i++) {
        vkskin_mesh_info me;
        CHECK(vkskin_model_get_mesh(m, i, &me, &err) == VKSKIN_OK);
        CHECK(me.base_vertex == vertices && strcmp(me.name, ref.meshes[i].name) == 0);
        CHECK(me.material < info.material_count && me.node_joint < info.joint_count);
        vertices += me.vertex_count;
        indices += me.index_count;
        vkskin_mesh_level_info ml;
        CHECK(vkskin_model_get_mesh_level(m, 0, i, &ml, &err) == VKSKIN_OK);
        CHECK(ml.triangle_count * 3 == me.index_count && ml.error == 0.0f);
    }
    CHECK(vertices == info.vertex_count && indices == info.index_count);
    vkskin_level_info lv;
    CHECK(vkskin_model_get_level(m, 0, &lv, &err) == VKSKIN_OK);
    CHECK(lv.vertex_count == info.vertex_count && lv.triangle_count * 3 == info.index_count);
    for (uint32_t l = 1; l < info.level_count; l++) { /* each level coarser than the one before */
        vkskin_level_info coarser;
        CHECK(vkskin_model_get_level(m, l, &coarser, &err) == VKSKIN_OK);
        CHECK(coarser.triangle_count < lv.triangle_count && coarser.error >= lv.error);
        lv = coarser;
    }
    for (uint32_t i = 0; i < info.clip_count; i++) {
        vkskin_clip_info c;
        CHECK(vkskin_model_get_clip(m, i, &c, &err) == VKSKIN_OK);
        CHECK(c.channel_count == ref.clips[i].channel_count);
        CHECK(c.rotation_keys >= c.channel_count && c.rotation_keys == ref.clips[i].r_key_count);
    }
    check_error(vkskin_model_get_mesh(m, info.mesh_count, &(vkskin_mesh_info){0}, &err), &err,
                VKSKIN_ERROR_ARGUMENT, "no mesh");
    check_error(vkskin_model_get_material(m, info.material_count, &(vkskin_material_info){0}, &err),
                &err, VKSKIN_ERROR_ARGUMENT, "no material");
    check_error(vkskin_model_get_level(m, info.level_count, &lv, &err), &err, VKSKIN_ERROR_ARGUMENT,
                "no level");
    /* The bind pose skins to the positions as loaded (palettes of identities, to rounding). */
    const float *bind = vkskin_model_positions(m);
    float *p = malloc(sizeof *p * 3 * info.vertex_count),
          *n = malloc(sizeof *n * 3 * info.vertex_count);
    CHECK(vkskin_model_skin(m, VKSKIN_CLIP_NONE, 0.0, p, n, NULL, info.vertex_count, &err) ==
          VKSKIN_OK);
    const double worst = check_max_diff(p, 3, bind, 3, info.vertex_count, 3); /* NaN: inf */
    CHECK(worst <= 1e-5 * (info.bounds_max[1] - info.bounds_min[1]));
    check_error(
        vkskin_model_skin(m, (int32_t)info.clip_count, 0.0, p, n, NULL, info.vertex_count, &err),
        &err, VKSKIN_ERROR_ARGUMENT, "no clip");
    check_error(vkskin_model_skin(m, 0, NAN, p, n, NULL, info.vertex_count, &err), &err,
                VKSKIN_ERROR_ARGUMENT, "not finite");
    check_error(vkskin_model_skin(m, 0, 0.0, NULL, n, NULL, info.vertex_count, &err), &err,
                VKSKIN_ERROR_ARGUMENT, "positions and normals are needed");
    char room[160];
    snprintf(room, sizeof room,
             "vkskin_model_skin: the output has room for %u vertices; %u are needed",
             info.vertex_count - 1, info.vertex_count);
    check_error(vkskin_model_skin(m, 0, 0.0, p, n, NULL, info.vertex_count - 1, &err), &err,
                VKSKIN_ERROR_ARGUMENT, room);
    free(p);
    free(n);
    vkskin_model_destroy(m);
}

/* A material through the API against what the file's writer put there (tools/gen_character.c,
 * tests/make_fixtures.c), restated here: name, base color, and the texture's size and source
 * (`source` a suffix of it; NULL: untextured). */
static void check_material(const vkskin_model *m, uint32_t i, const char *name,
                           const float color[4], uint32_t width, uint32_t height,
                           const char *source)
{
    vkskin_material_info ma;
    vkskin_error err;
    CHECK(vkskin_model_get_material(m, i, &ma, &err) == VKSKIN_OK);
    CHECK(strcmp(ma.name, name) == 0);
    for (int k = 0; k < 4; k++)
        CHECK_NEAR(ma.base_color[k], color[k], 1e-6);
    CHECK(ma.textured == (source != NULL));
    CHECK(ma.texture_width == width && ma.texture_height == height);
    if (!source)
        CHECK(ma.texture_source == NULL);
    else {
        const size_t n = ma.texture_source ? strlen(ma.texture_source) : 0;
        CHECK(n >= strlen(source) && strcmp(ma.texture_source + n - strlen(source), source) == 0);
    }
}

/* Materials: the default character's four untextured colors, and textured.glb's embedded and
 * external textures beside one whose file does not exist (untextured, with a warning). */
static void test_materials(const char *fixtures)
{
    vkskin_model *m;
    vkskin_error err;
    CHECK(vkskin_model_load(
              &(vkskin_model_desc){.desc_size = sizeof(vkskin_model_desc), .path = glb_path}, &m,
              &err) == VKSKIN_OK);
    vkskin_model_info info;
    CHECK(vkskin_model_get_info(m, &info, &err) == VKSKIN_OK && info.material_count == 4);
    check_material(m, 0, "shirt", (const float[4]){0.12f, 0.28f, 0.58f, 1.0f}, 0, 0, NULL);
    check_material(m, 1, "trousers", (const float[4]){0.13f, 0.13f, 0.16f, 1.0f}, 0, 0, NULL);
    check_material(m, 2, "shoes", (const float[4]){0.26f, 0.13f, 0.06f, 1.0f}, 0, 0, NULL);
    check_material(m, 3, "skin", (const float[4]){0.80f, 0.56f, 0.43f, 1.0f}, 0, 0, NULL);
    check_error(vkskin_model_get_material(m, 4, &(vkskin_material_info){0}, &err), &err,
                VKSKIN_ERROR_ARGUMENT, "no material 4");
    vkskin_model_destroy(m);

    char path[4096];
    snprintf(path, sizeof path, "%s/textured.glb", fixtures);
    CHECK(vkskin_model_load(
              &(vkskin_model_desc){.desc_size = sizeof(vkskin_model_desc), .path = path}, &m,
              &err) == VKSKIN_OK);
    CHECK(vkskin_model_get_info(m, &info, &err) == VKSKIN_OK && info.material_count == 3);
    check_material(m, 0, "embedded", (const float[4]){1.0f, 0.5f, 0.25f, 1.0f}, 4, 2,
                   "embedded *0");
    check_material(m, 1, "external", (const float[4]){0.2f, 0.4f, 0.6f, 0.8f}, 2, 2,
                   "/textured_external.png");
    check_material(m, 2, "missing", (const float[4]){0.0f, 1.0f, 0.0f, 1.0f}, 0, 0, NULL);
    CHECK(info.warning_count == 1); /* the missing file, named */
    const char *warning = vkskin_model_get_warning(m, 0);
    CHECK(warning && strstr(warning, "missing_texture.png") != NULL);
    /* The pixels, as make_fixtures wrote them: embedded byte i is 8 i + 1, external 255 - 16 i
     * (lossless PNGs, RGBA, top row first). */
    uint8_t rgba[32];
    CHECK(vkskin_model_get_texture(m, 0, rgba, sizeof rgba, &err) == VKSKIN_OK);
    uint32_t wrong = 0;
    for (int i = 0; i < 32; i++)
        wrong += rgba[i] != (uint8_t)(i * 8 + 1);
    CHECK(vkskin_model_get_texture(m, 1, rgba, 16, &err) == VKSKIN_OK);
    for (int i = 0; i < 16; i++)
        wrong += rgba[i] != (uint8_t)(255 - i * 16);
    CHECK(wrong == 0);
    check_error(vkskin_model_get_texture(m, 0, rgba, 31, &err), &err, VKSKIN_ERROR_ARGUMENT,
                "vkskin_model_get_texture: rgba has room for 31 bytes; 32 are needed");
    check_error(vkskin_model_get_texture(m, 2, rgba, sizeof rgba, &err), &err,
                VKSKIN_ERROR_ARGUMENT, "textured.glb (missing) has no texture");
    check_error(vkskin_model_get_texture(m, 3, rgba, sizeof rgba, &err), &err,
                VKSKIN_ERROR_ARGUMENT, "no material 3");
    vkskin_model_destroy(m);
}

/* The model's box (bind pose; the fixtures here have no clips) carried by `world`: its y extent. */
static void world_y(const vkskin_model_info *m, const float world[16], double *lo, double *hi)
{
    *lo = 1e30, *hi = -1e30;
    for (int i = 0; i < 8; i++) {
        const float p[3] = {i & 1 ? m->bounds_max[0] : m->bounds_min[0],
                            i & 2 ? m->bounds_max[1] : m->bounds_min[1],
                            i & 4 ? m->bounds_max[2] : m->bounds_min[2]};
        const double y =
            (double)world[1] * p[0] + (double)world[5] * p[1] + (double)world[9] * p[2] + world[13];
        *lo = fmin(*lo, y), *hi = fmax(*hi, y);
    }
}

/* normalize_height: models of other heights (1.8 and 3.2 units, the second floating 1 unit up)
 * come out as tall as the first, standing on y = 0; without it, as they are. */
static void test_normalize(const char *fixtures)
{
    char a[4096], b[4096];
    snprintf(a, sizeof a, "%s/no_animation.glb", fixtures);
    snprintf(b, sizeof b, "%s/static_mesh.glb", fixtures);
    vkskin_model *models[2];
    vkskin_error err;
    if (vkskin_model_load(&(vkskin_model_desc){.desc_size = sizeof(vkskin_model_desc), .path = a},
                          &models[0], &err) != VKSKIN_OK ||
        vkskin_model_load(&(vkskin_model_desc){.desc_size = sizeof(vkskin_model_desc), .path = b},
                          &models[1], &err) != VKSKIN_OK) {
        fprintf(stderr, "%s\n", err.message);
        CHECK(false);
        return;
    }
    vkskin_model_info info[2];
    vkskin_model_get_info(models[0], &info[0], NULL);
    vkskin_model_get_info(models[1], &info[1], NULL);
    /* Heights that differ, or normalising would change nothing to see. */
    const double height[2] = {info[0].bounds_max[1] - info[0].bounds_min[1],
                              info[1].bounds_max[1] - info[1].bounds_min[1]};
    CHECK(fabs(height[0] - height[1]) > 0.1 * fmax(height[0], height[1]));
    for (int normalize = 0; normalize < 2; normalize++) {
        vkskin_crowd *c;
        CHECK(vkskin_crowd_create(&(vkskin_crowd_desc){.desc_size = sizeof(vkskin_crowd_desc),
                                                       .models = (const vkskin_model **)models,
                                                       .model_count = 2,
                                                       .instance_count = 4,
                                                       .normalize_height = normalize},
                                  &c, &err) == VKSKIN_OK);
        const double first = info[0].bounds_max[1] - info[0].bounds_min[1];
        bool seen[2] = {false, false}; /* both models are in the crowd */
        for (uint32_t i = 0; i < 4; i++) {
            vkskin_instance_info in;
            vkskin_crowd_get_instance(c, i, &in, NULL);
            seen[in.model < 2 ? in.model : 0] = true;
            double lo, hi;
            world_y(&info[in.model], in.world, &lo, &hi);
            const double own = info[in.model].bounds_max[1] - info[in.model].bounds_min[1];
            CHECK_NEAR(hi - lo, normalize ? first : own, 1e-5 * own);
            CHECK_NEAR(lo, normalize ? 0.0 : info[in.model].bounds_min[1], 1e-5 * own);
        }
        CHECK(seen[0] && seen[1]);
        vkskin_crowd_destroy(c);
    }
    vkskin_model_destroy(models[0]);
    vkskin_model_destroy(models[1]);
}

/* A crowd's memory from counts (vkskin_crowd_memory_of): its palette entries against the sum of
 * the models' joints over the instances dealt to them, host bytes linear in the instances, the
 * machine's memory, and the desc's mistakes. */
static void test_crowd_memory(const char *fixtures)
{
    vkskin_model *m[2];
    vkskin_error err;
    char chain[1024];
    snprintf(chain, sizeof chain, "%s/chain.glb", fixtures);
    CHECK(vkskin_model_load(
              &(vkskin_model_desc){.desc_size = sizeof(vkskin_model_desc), .path = glb_path}, &m[0],
              &err) == VKSKIN_OK);
    CHECK(vkskin_model_load(
              &(vkskin_model_desc){.desc_size = sizeof(vkskin_model_desc), .path = chain}, &m[1],
              &err) == VKSKIN_OK);
    vkskin_model_info a, b;
    vkskin_model_get_info(m[0], &a, NULL);
    vkskin_model_get_info(m[1], &b, NULL);
    vkskin_crowd_desc d = {.desc_size = sizeof(vkskin_crowd_desc),
                           .models = (const vkskin_model *const *)m,
                           .model_count = 2,
                           .instance_count = 1001};
    vkskin_crowd_memory one, two;
    CHECK(vkskin_crowd_memory_of(&d, &one, &err) == VKSKIN_OK);
    CHECK(one.palette_entries == 501ull * a.joint_count + 500ull * b.joint_count);
    CHECK(one.machine_bytes > 0 && one.host_bytes > 0);
    d.instance_count = 1000;
    CHECK(vkskin_crowd_memory_of(&d, &one, &err) == VKSKIN_OK);
    d.instance_count = 2000; /* each model twice as many */
    CHECK(vkskin_crowd_memory_of(&d, &two, &err) == VKSKIN_OK);
    CHECK(two.palette_entries == 2 * one.palette_entries && two.host_bytes == 2 * one.host_bytes);
    d.instance_count = 0;
    check_error(vkskin_crowd_memory_of(&d, &one, &err), &err, VKSKIN_ERROR_ARGUMENT,
                "1 to 16777216 instances, not 0");
    check_error(vkskin_crowd_memory_of(NULL, &one, &err), &err, VKSKIN_ERROR_ARGUMENT,
                "desc and memory are needed");
    vkskin_model_destroy(m[0]);
    vkskin_model_destroy(m[1]);
}

/* The framing view of a ring of 400 looks down on it (not along it), and zooming in goes to the
 * instance nearest the eye, not to the ring's empty middle. */
static void test_ring_view(void)
{
    vkskin_model *m;
    vkskin_error err;
    CHECK(vkskin_model_load(
              &(vkskin_model_desc){.desc_size = sizeof(vkskin_model_desc), .path = glb_path}, &m,
              &err) == VKSKIN_OK);
    vkskin_crowd *single, *ring;
    CHECK(vkskin_crowd_create(&(vkskin_crowd_desc){.desc_size = sizeof(vkskin_crowd_desc),
                                                   .models = (const vkskin_model **)&m,
                                                   .model_count = 1,
                                                   .instance_count = 1},
                              &single, &err) == VKSKIN_OK);
    CHECK(vkskin_crowd_create(&(vkskin_crowd_desc){.desc_size = sizeof(vkskin_crowd_desc),
                                                   .models = (const vkskin_model **)&m,
                                                   .model_count = 1,
                                                   .instance_count = 400,
                                                   .layout = VKSKIN_LAYOUT_RING},
                              &ring, &err) == VKSKIN_OK);
    vkskin_view one, whole, close;
    vkskin_crowd_frame_view(single, 1.5f, &one, NULL);
    vkskin_crowd_frame_view(ring, 1.5f, &whole, NULL);
    CHECK(vkskin_crowd_orbit_view(ring, &(vkskin_orbit){.aspect = 1.5f, .zoom = 0.01f}, &close,
                                  &err) == VKSKIN_OK);
    /* The view direction: the clip w row is minus the view's back axis (eye - target). */
    const double pitch_one = asin(
        -one.view_proj[7] / hypot(hypot(one.view_proj[3], one.view_proj[7]), one.view_proj[11]));
    const double pitch_ring =
        asin(-whole.view_proj[7] /
             hypot(hypot(whole.view_proj[3], whole.view_proj[7]), whole.view_proj[11]));
    CHECK_NEAR(pitch_one, 0.2, 1e-3);
    CHECK(pitch_ring >= 0.6);
    CHECK_NEAR(one.pitch, pitch_one, 1e-5); /* the view's own angle, as its matrix has it */
    CHECK_NEAR(whole.pitch, pitch_ring, 1e-5);
    double nearest = 1e30, to_center = 0.0;
    float at[3] = {0};
    for (uint32_t i = 0; i < 400; i++) {
        vkskin_instance_info in;
        vkskin_crowd_get_instance(ring, i, &in, NULL);
        const double d = hypot(hypot(in.center[0] - whole.eye[0], in.center[1] - whole.eye[1]),
                               in.center[2] - whole.eye[2]);
        if (d < nearest)
            nearest = d, memcpy(at, in.center, sizeof at);
        to_center = fmax(to_center, hypot(in.center[0], in.center[2])); /* the ring's radius */
    }
    const double close_to_it =
        hypot(hypot(close.eye[0] - at[0], close.eye[1] - at[1]), close.eye[2] - at[2]);
    printf("ring of 400: framing pitch %.2f rad (one instance %.2f); zoom 0.01 puts the eye %.3g "
           "from the nearest instance (ring radius %.3g)\n",
           pitch_ring, pitch_one, close_to_it, to_center);
    CHECK(close_to_it < 0.05 * to_center);
    vkskin_crowd_destroy(single);
    vkskin_crowd_destroy(ring);
    vkskin_model_destroy(m);
}

/* vkskin_crowd_get_joints at the bind pose against the joints' origins the test composes itself
 * from the rest transforms down the hierarchy (in double), through the palette space's root and
 * the instance's world; then a played clip moves them; misuse. */
static void test_joints(void)
{
    vkskin_model *m;
    vkskin_error err;
    CHECK(vkskin_model_load(
              &(vkskin_model_desc){.desc_size = sizeof(vkskin_model_desc), .path = glb_path}, &m,
              &err) == VKSKIN_OK);
    vkskin_crowd *c;
    CHECK(vkskin_crowd_create(&(vkskin_crowd_desc){.desc_size = sizeof(vkskin_crowd_desc),
                                                   .models = (const vkskin_model **)&m,
                                                   .model_count = 1,
                                                   .instance_count = 3,
                                                   .clip = VKSKIN_CLIP_NONE},
                              &c, &err) == VKSKIN_OK);
    const vks_skeleton *sk = &ref.skeleton;
    double(*g)[4][4] = malloc(sizeof *g * sk->joint_count); /* row-major global rest */
    for (uint32_t j = 0; j < sk->joint_count; j++) {
        const vks_xform *x = &sk->rest[j];
        const double qx = x->r[0], qy = x->r[1], qz = x->r[2], qw = x->r[3];
        const double rot[3][3] = {
            {1 - 2 * (qy * qy + qz * qz), 2 * (qx * qy - qz * qw), 2 * (qx * qz + qy * qw)},
            {2 * (qx * qy + qz * qw), 1 - 2 * (qx * qx + qz * qz), 2 * (qy * qz - qx * qw)},
            {2 * (qx * qz - qy * qw), 2 * (qy * qz + qx * qw), 1 - 2 * (qx * qx + qy * qy)}};
        double l[4][4] = {{0}};
        for (int r = 0; r < 3; r++) {
            for (int k = 0; k < 3; k++)
                l[r][k] = rot[r][k] * x->s[k];
            l[r][3] = x->t[r];
        }
        l[3][3] = 1.0;
        const int32_t p = sk->parents[j];
        for (int r = 0; r < 4; r++)
            for (int k = 0; k < 4; k++) {
                double v = 0.0;
                for (int q = 0; q < 4; q++)
                    v += (p < 0 ? (r == q ? 1.0 : 0.0) : g[p][r][q]) * l[q][k];
                g[j][r][k] = v;
            }
    }
    uint32_t joints = sk->joint_count;
    float *pos = malloc(sizeof *pos * 3 * joints), *moved = malloc(sizeof *moved * 3 * joints);
    double worst = 0.0, size = 0.0;
    for (uint32_t i = 0; i < 3; i++) {
        vkskin_instance_info in;
        vkskin_crowd_get_instance(c, i, &in, NULL);
        CHECK(vkskin_crowd_get_joints(c, i, pos, joints, &err) == VKSKIN_OK);
        for (uint32_t j = 0; j < joints; j++) {
            double pal[3], w[3];
            for (int r = 0; r < 3; r++) /* palette space = root_inverse * global */
                pal[r] = sk->root_inverse.row[r][0] * g[j][0][3] +
                         sk->root_inverse.row[r][1] * g[j][1][3] +
                         sk->root_inverse.row[r][2] * g[j][2][3] + sk->root_inverse.row[r][3];
            for (int r = 0; r < 3; r++)
                w[r] = in.world[r] * pal[0] + in.world[4 + r] * pal[1] + in.world[8 + r] * pal[2] +
                       in.world[12 + r];
            for (int r = 0; r < 3; r++) {
                const double d = fabs(pos[3 * j + r] - w[r]);
                worst = d == d ? fmax(worst, d) : INFINITY; /* a NaN is infinitely far */
                size = fmax(size, fabs(w[r] - in.world[12 + r]));
            }
        }
    }
    printf("joints at the bind pose: worst %.3g of a %.3g-unit skeleton\n", worst, size);
    CHECK(worst <= 1e-5 * size);
    /* Playing a clip moves some joint. */
    CHECK(vkskin_crowd_play(c, 0, 0, 0.0, &err) == VKSKIN_OK);
    CHECK(vkskin_crowd_set_time(c, 0, 0.4, 1.0f, &err) == VKSKIN_OK);
    CHECK(vkskin_crowd_get_joints(c, 0, moved, joints, &err) == VKSKIN_OK);
    /* Reading the joints changes nothing of the crowd's: a second read gives the same. */
    CHECK(vkskin_crowd_get_joints(c, 0, pos, joints, &err) == VKSKIN_OK &&
          memcmp(pos, moved, sizeof *pos * 3 * joints) == 0);
    vkskin_crowd_play(c, 0, VKSKIN_CLIP_NONE, 0.0, NULL);
    CHECK(vkskin_crowd_get_joints(c, 0, pos, joints, &err) == VKSKIN_OK);
    double moved_most = 0.0;
    for (uint32_t k = 0; k < 3 * joints; k++)
        moved_most = fmax(moved_most, fabs(pos[k] - moved[k]));
    CHECK(moved_most > 1e-3 * size);
    check_error(vkskin_crowd_get_joints(c, 3, pos, joints, &err), &err, VKSKIN_ERROR_ARGUMENT,
                "no instance 3");
    check_error(vkskin_crowd_get_joints(c, 0, NULL, joints, &err), &err, VKSKIN_ERROR_ARGUMENT,
                "positions is NULL");
    char room[160];
    snprintf(room, sizeof room,
             "vkskin_crowd_get_joints: positions has room for %u joints; %u are needed", joints - 1,
             joints);
    check_error(vkskin_crowd_get_joints(c, 0, pos, joints - 1, &err), &err, VKSKIN_ERROR_ARGUMENT,
                room);
    free(g);
    free(pos);
    free(moved);
    vkskin_crowd_destroy(c);
    vkskin_model_destroy(m);
}

/* The direct path's palette of an instance at its clock. */
static void direct_palette(const vkskin_instance_info *in, vks_bone *out)
{
    const vks_skeleton *sk = &ref.skeleton;
    vks_xform *local = malloc(sizeof *local * sk->joint_count);
    vks_affine *model = malloc(sizeof *model * sk->joint_count);
    if (in->clip >= 0)
        vks_clip_sample(sk, &ref.clips[in->clip],
                        vks_clip_time(&ref.clips[in->clip], in->time, VKS_WRAP_LOOP), NULL, local);
    else
        vks_pose_rest(sk, local);
    vks_pose_palette(sk, local, model, out);
    free(local);
    free(model);
}

/* Every listed instance's palette within 2e-6 of the model's size of the direct path's (each
 * path is within 1e-6 of the double-precision walk, test_walk). */
static uint32_t palettes_off(const vkskin_crowd *c, const float *palettes)
{
    float lo[3], hi[3];
    check_box((const float(*)[3])ref.positions, ref.vertex_count, lo, hi);
    vks_bone *want = malloc(sizeof *want * ref.skeleton.joint_count);
    uint32_t off = 0;
    for (uint32_t i = 0; i < vkskin_crowd_instance_count(c); i++) {
        vkskin_instance_info in;
        vkskin_crowd_get_instance(c, i, &in, NULL);
        direct_palette(&in, want);
        const float *got = palettes + 12 * (size_t)vkskin_crowd_palette_first(c, i);
        off += !(check_palette_deviation(got, (const float *)want, ref.skeleton.joint_count, lo,
                                         hi) <= 2e-6);
    }
    free(want);
    return off;
}

typedef struct range_job {
    vkskin_crowd *crowd;
    const uint32_t *list;
    uint32_t begin, end, worker;
    float *palettes;
    uint32_t capacity; /* entries */
    vkskin_result result;
} range_job;

static void *pose_range_thread(void *arg)
{
    range_job *j = arg;
    j->result = vkskin_crowd_pose_range(j->crowd, j->list, j->begin, j->end, j->palettes,
                                        j->capacity, j->worker, NULL);
    return NULL;
}

/* The default character through the public loader, or NULL after a failed CHECK. */
static vkskin_model *load_default(void)
{
    vkskin_model *m = NULL;
    vkskin_error err;
    const vkskin_result r = vkskin_model_load(
        &(vkskin_model_desc){.desc_size = sizeof(vkskin_model_desc), .path = glb_path}, &m, &err);
    CHECK(r == VKSKIN_OK);
    if (r != VKSKIN_OK)
        fprintf(stderr, "  %s\n", err.message);
    return m;
}

static void test_crowd(void)
{
    vkskin_error err;
    vkskin_model *m = load_default();
    if (!m)
        return;
    const vkskin_model *models[] = {m};
    vkskin_crowd *c = NULL;
    const uint32_t n = 6, joints = ref.skeleton.joint_count, entries = n * joints;
    CHECK(vkskin_crowd_create(&(vkskin_crowd_desc){.desc_size = sizeof(vkskin_crowd_desc),
                                                   .models = models,
                                                   .model_count = 1,
                                                   .instance_count = n,
                                                   .time = 0.3,
                                                   .threads = 2,
                                                   .workers = 2},
                              &c, &err) == VKSKIN_OK);
    if (!c) {
        vkskin_model_destroy(m);
        return;
    }
    CHECK(vkskin_crowd_instance_count(c) == n && vkskin_crowd_palette_count(c) == n * joints);
    /* An instance out of range has no place: never an offset that another instance's is. */
    CHECK(vkskin_crowd_palette_first(c, n) == VKSKIN_NO_ENTRY &&
          vkskin_crowd_palette_first(NULL, 0) == VKSKIN_NO_ENTRY);
    uint32_t list[6];
    for (uint32_t i = 0; i < n; i++) {
        list[i] = i;
        CHECK(vkskin_crowd_palette_first(c, i) == i * joints);
        vkskin_instance_info in;
        CHECK(vkskin_crowd_get_instance(c, i, &in, &err) == VKSKIN_OK);
        CHECK(in.model == 0 && in.clip == 0 && !in.fading); /* the default: clip 0 for all */
    }
    const size_t floats = 12 * (size_t)n * joints;
    float *a = malloc(sizeof *a * floats), *b = malloc(sizeof *b * floats);
    CHECK(vkskin_crowd_pose(c, list, n, a, entries, &err) == VKSKIN_OK);
    CHECK(palettes_off(c, a) == 0);

    /* Clocks, clips and cross-fades. */
    CHECK(vkskin_crowd_set_time(c, 1, 0.55, 2.0f, &err) == VKSKIN_OK);
    CHECK(vkskin_crowd_play(c, 2, 1, 0.0, &err) == VKSKIN_OK);
    /* A misspelt clip name is refused where it is used, not played as the bind pose. */
    check_error(vkskin_crowd_play(c, 2, vkskin_model_find_clip(m, "wlak"), 0.0, &err), &err,
                VKSKIN_ERROR_ARGUMENT, "no clip -3");
    vkskin_crowd *misspelt = NULL;
    check_error(vkskin_crowd_create(&(vkskin_crowd_desc){.desc_size = sizeof(vkskin_crowd_desc),
                                                         .models = models,
                                                         .model_count = 1,
                                                         .instance_count = 1,
                                                         .clip = vkskin_model_find_clip(m, "wlak")},
                                    &misspelt, &err),
                &err, VKSKIN_ERROR_ARGUMENT, "clip");
    CHECK(misspelt == NULL);
    CHECK(vkskin_crowd_play(c, 3, VKSKIN_CLIP_NONE, 0.0, &err) == VKSKIN_OK);
    CHECK(vkskin_crowd_play(c, 4, 2, 0.5, &err) == VKSKIN_OK);
    vkskin_instance_info in;
    vkskin_crowd_get_instance(c, 1, &in, NULL);
    CHECK(in.time == 0.55 && in.speed == 2.0f);
    vkskin_crowd_get_instance(c, 2, &in, NULL);
    CHECK(in.clip == 1 && in.time == 0.0 && !in.fading);
    vkskin_crowd_get_instance(c, 4, &in, NULL);
    CHECK(in.clip == 2 && in.fading);
    vkskin_crowd_advance(c, 0.2, NULL);
    vkskin_crowd_get_instance(c, 1, &in, NULL);
    CHECK_NEAR(in.time, fmod(0.55 + 0.4, ref.clips[0].duration), 1e-9); /* speed 2 */
    vkskin_crowd_advance(c, 0.4, NULL);
    vkskin_crowd_get_instance(c, 4, &in, NULL);
    CHECK(!in.fading);
    CHECK(vkskin_crowd_pose(c, list, n, a, entries, &err) == VKSKIN_OK);
    CHECK(palettes_off(c, a) == 0);

    /* The pool, and the caller's two workers on two threads, write what one thread writes. */
    memset(b, 0, sizeof *b * floats);
    range_job jobs[2] = {{c, list, 0, 3, 0, b, entries, VKSKIN_ERROR_FAILED},
                         {c, list, 3, n, 1, b, entries, VKSKIN_ERROR_FAILED}};
    pthread_t t[2];
    for (int k = 0; k < 2; k++)
        CHECK(pthread_create(&t[k], NULL, pose_range_thread, &jobs[k]) == 0);
    for (int k = 0; k < 2; k++)
        pthread_join(t[k], NULL);
    CHECK(jobs[0].result == VKSKIN_OK && jobs[1].result == VKSKIN_OK);
    CHECK(memcmp(a, b, sizeof *a * floats) == 0);

    /* Placement: moved 10 along x, its sphere follows. */
    vkskin_instance_info before, after;
    vkskin_crowd_get_instance(c, 0, &before, NULL);
    float world[16];
    memcpy(world, before.world, sizeof world);
    world[12] += 10.0f;
    CHECK(vkskin_crowd_set_world(c, 0, world, &err) == VKSKIN_OK);
    vkskin_crowd_get_instance(c, 0, &after, NULL);
    CHECK_NEAR(after.center[0], before.center[0] + 10.0f, 1e-4);
    CHECK_NEAR(after.center[1], before.center[1], 1e-5);
    CHECK_NEAR(after.radius, before.radius, 1e-5);

    /* Culling with the identity as view-projection (the box -1 <= x, y <= 1, 0 <= z <= 1),
     * against a sphere-box test written here. */
    uint32_t visible[6], expect = 0;
    const float identity[16] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1};
    for (uint32_t i = 0; i < n; i++) {
        vkskin_crowd_get_instance(c, i, &in, NULL);
        const float *p = in.center, r = in.radius;
        expect += p[0] + r >= -1 && p[0] - r <= 1 && p[1] + r >= -1 && p[1] - r <= 1 &&
                  p[2] + r >= 0 && p[2] - r <= 1;
    }
    uint32_t count = UINT32_MAX;
    CHECK(vkskin_crowd_cull(c, identity, visible, n, &count, &err) == VKSKIN_OK);
    CHECK(count == expect && count < n); /* instance 0 moved away */
    /* Failures are results, not a count of 0 that reads as "none visible". */
    check_error(vkskin_crowd_cull(NULL, identity, visible, n, &count, &err), &err,
                VKSKIN_ERROR_ARGUMENT, "a crowd, a view, visible and count are needed");
    check_error(vkskin_crowd_cull(c, identity, visible, n - 1, &count, &err), &err,
                VKSKIN_ERROR_ARGUMENT,
                "vkskin_crowd_cull: visible has room for 5 instances; 6 are needed");
    CHECK(count == 0);

    /* The framing view: every instance's centre projects inside the image and in front of the
     * eye, and the eye sits outside every sphere. */
    vkskin_view view;
    CHECK(vkskin_crowd_frame_view(c, 16.0f / 9.0f, &view, &err) == VKSKIN_OK);
    uint32_t outside = 0;
    for (uint32_t i = 0; i < n; i++) {
        vkskin_crowd_get_instance(c, i, &in, NULL);
        float clip[4];
        for (int r = 0; r < 4; r++)
            clip[r] = view.view_proj[0 * 4 + r] * in.center[0] +
                      view.view_proj[1 * 4 + r] * in.center[1] +
                      view.view_proj[2 * 4 + r] * in.center[2] + view.view_proj[3 * 4 + r];
        outside += !(clip[3] > 0 && fabsf(clip[0]) <= clip[3] && fabsf(clip[1]) <= clip[3] &&
                     clip[2] >= 0 && clip[2] <= clip[3]);
        float d2 = 0.0f;
        for (int k = 0; k < 3; k++)
            d2 += (view.eye[k] - in.center[k]) * (view.eye[k] - in.center[k]);
        outside += !(sqrtf(d2) > in.radius);
    }
    CHECK(outside == 0);
    check_error(vkskin_crowd_frame_view(c, 0.0f, &view, &err), &err, VKSKIN_ERROR_ARGUMENT,
                "aspect must be positive");

    /* Misuse. */
    check_error(vkskin_crowd_play(c, n, 0, 0.0, &err), &err, VKSKIN_ERROR_ARGUMENT,
                "no instance 6");
    check_error(vkskin_crowd_play(c, 0, 99, 0.0, &err), &err, VKSKIN_ERROR_ARGUMENT, "no clip 99");
    check_error(vkskin_crowd_play(c, 0, 0, NAN, &err), &err, VKSKIN_ERROR_ARGUMENT, "a fade");
    check_error(vkskin_crowd_set_time(c, 0, INFINITY, 1.0f, &err), &err, VKSKIN_ERROR_ARGUMENT,
                "finite");
    world[3] = 0.5f;
    check_error(vkskin_crowd_set_world(c, 0, world, &err), &err, VKSKIN_ERROR_ARGUMENT,
                "not affine");
    world[3] = 0.0f;
    world[5] = NAN;
    check_error(vkskin_crowd_set_world(c, 0, world, &err), &err, VKSKIN_ERROR_ARGUMENT,
                "element 5 is not finite");
    const uint32_t bad[] = {0, 7}, twice[] = {1, 2, 2};
    check_error(vkskin_crowd_pose(c, bad, 2, a, entries, &err), &err, VKSKIN_ERROR_ARGUMENT,
                "ascend below 6; entry 1 is 7");
    check_error(vkskin_crowd_pose(c, twice, 3, a, entries, &err), &err, VKSKIN_ERROR_ARGUMENT,
                "entry 2 is 2");
    /* Ranges of one list: the second range sees the entry before it. */
    check_error(vkskin_crowd_pose_range(c, twice, 2, 3, a, entries, 0, &err), &err,
                VKSKIN_ERROR_ARGUMENT, "entry 2 is 2");
    /* The clip it plays restarts. */
    vkskin_crowd_get_instance(c, 2, &in, NULL);
    CHECK(in.time > 0.0);
    CHECK(vkskin_crowd_play(c, 2, in.clip, 0.5, &err) == VKSKIN_OK);
    vkskin_crowd_get_instance(c, 2, &in, NULL);
    CHECK(in.time == 0.0 && !in.fading);
    check_error(vkskin_crowd_pose(c, list, n, NULL, entries, &err), &err, VKSKIN_ERROR_ARGUMENT,
                "palettes are needed");
    check_error(vkskin_crowd_pose(c, list, n, a, entries - 1, &err), &err, VKSKIN_ERROR_ARGUMENT,
                "vkskin_crowd_pose: palettes has room for");
    check_error(vkskin_crowd_pose_range(c, list, 0, n, a, 0, 0, &err), &err, VKSKIN_ERROR_ARGUMENT,
                "are needed");
    check_error(vkskin_crowd_pose_range(c, list, 0, n, a, entries, 2, &err), &err,
                VKSKIN_ERROR_ARGUMENT, "worker 2 (of 2)");
    check_error(vkskin_crowd_pose_range(c, list, 4, 2, a, entries, 0, &err), &err,
                VKSKIN_ERROR_ARGUMENT, "range [4, 2)");
    check_error(vkskin_crowd_get_instance(NULL, 0, &in, &err), &err, VKSKIN_ERROR_ARGUMENT,
                "the crowd is NULL");
    /* The crowd-wide calls refuse what they used to ignore: no crowd, a time step or fade that
     * is not a number, a negative fade; nothing moves then. */
    check_error(vkskin_crowd_advance(NULL, 1.0, &err), &err, VKSKIN_ERROR_ARGUMENT,
                "vkskin_crowd_advance: the crowd is NULL");
    vkskin_crowd_get_instance(c, 1, &in, NULL);
    const double clock = in.time;
    check_error(vkskin_crowd_advance(c, NAN, &err), &err, VKSKIN_ERROR_ARGUMENT,
                "dt must be a finite number, not nan");
    check_error(vkskin_crowd_advance_one_thread(c, INFINITY, &err), &err, VKSKIN_ERROR_ARGUMENT,
                "dt must be a finite number, not inf");
    vkskin_crowd_get_instance(c, 1, &in, NULL);
    CHECK(in.time == clock);
    /* The deprecated viewer calls (docs/library.md) still check their fades. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
    check_error(vkskin_crowd_step_clips(c, 1, -0.5, &err), &err, VKSKIN_ERROR_ARGUMENT,
                "fade must be a finite number of seconds, 0 or more, not -0.5");
    check_error(vkskin_crowd_bind_pose(c, true, NAN, &err), &err, VKSKIN_ERROR_ARGUMENT,
                "vkskin_crowd_bind_pose: fade must be a finite number");
#pragma GCC diagnostic pop
    vkskin_crowd_get_instance(c, 1, &in, NULL);
    CHECK(!in.fading);
    check_error(vkskin_crowd_reset(NULL, &err), &err, VKSKIN_ERROR_ARGUMENT,
                "vkskin_crowd_reset: the crowd is NULL");
    check_error(vkskin_palette_store_forget(NULL, &err), &err, VKSKIN_ERROR_ARGUMENT,
                "the store is NULL");
    CHECK(vkskin_crowd_advance(c, -0.1, &err) == VKSKIN_OK); /* back in time: allowed */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
    CHECK(vkskin_crowd_step_clips(c, 1, 0.25, &err) == VKSKIN_OK);
#pragma GCC diagnostic pop
    vkskin_crowd_get_instance(c, 1, &in, NULL);
    CHECK(in.fading);
    vkskin_crowd_destroy(c);
    vkskin_crowd_destroy(NULL);

    vkskin_crowd *d = NULL;
    check_error(vkskin_crowd_create(&(vkskin_crowd_desc){.desc_size = sizeof(vkskin_crowd_desc),
                                                         .models = models,
                                                         .model_count = 1},
                                    &d, &err),
                &err, VKSKIN_ERROR_ARGUMENT, "1 to 16777216 instances, not 0");
    CHECK(d == NULL);
    check_error(vkskin_crowd_create(&(vkskin_crowd_desc){.desc_size = sizeof(vkskin_crowd_desc),
                                                         .models = models,
                                                         .instance_count = 1},
                                    &d, &err),
                &err, VKSKIN_ERROR_ARGUMENT, "1 to 16 models, not 0");
    const vkskin_model *none[] = {NULL};
    check_error(vkskin_crowd_create(&(vkskin_crowd_desc){.desc_size = sizeof(vkskin_crowd_desc),
                                                         .models = none,
                                                         .model_count = 1,
                                                         .instance_count = 1},
                                    &d, &err),
                &err, VKSKIN_ERROR_ARGUMENT, "model 0 is NULL");
    check_error(vkskin_crowd_create(&(vkskin_crowd_desc){.desc_size = sizeof(vkskin_crowd_desc),
                                                         .models = models,
                                                         .model_count = 1,
                                                         .instance_count = 1,
                                                         .clip = 42},
                                    &d, &err),
                &err, VKSKIN_ERROR_ARGUMENT, "clip 42");
    check_error(vkskin_crowd_create(NULL, &d, &err), &err, VKSKIN_ERROR_ARGUMENT, "desc and crowd");
    free(a);
    free(b);
    vkskin_model_destroy(m);
}

/* Morph targets at import (tests/make_fixtures.c's morph.glb, restated here): the grid's three
 * targets, then the brow's and the lid's (merged with the grid: same material), each with its
 * name, default weight, mesh and the vertices it moves, and its deltas as the file gives them,
 * told apart by the vertices' own positions: raise lifts the grid by 0.2 x, the brow by 0.3 and
 * the lid by 0.1; pinch moves the vertices at (0.5, 0.5) and (1, 1) alone; tilt lifts by 0.1 y
 * and turns the normals by (0, -0.1, 0). */
/* The CPU reference (vkskin_model_skin) of morph.glb's clip talk and bind pose against one
 * written here in double from the fixture's definition (tests/make_fixtures.c): each vertex
 * morphed (p + sum w_t d_t, n + sum w_t dn_t, the weights of the keys restated), then skinned by
 * its joint: root is the identity, top turns 30 t degrees about x (t in s, below 1 s) about
 * (0, 1, 0). Positions within 2e-5 (the deltas' packing: 1/65534 of a target's largest), normals
 * within 1e-4. */
static void check_morphed_pose(const vkskin_model *m)
{
    const vks_model *mm = &m->model;
    const uint32_t n = mm->vertex_count;
    const float *bind = vkskin_model_positions(m);
    float *pos = malloc(sizeof(float[3]) * n), *nrm = malloc(sizeof(float[3]) * n);
    CHECK(pos && nrm);
    /* -1: the bind pose; the clip loops at 1 s (1 s reads as 0). */
    const double at[] = {-1.0, 0.25, 0.6, 0.9};
    double worst_p = 0.0, worst_n = 0.0;
    for (size_t k = 0; pos && nrm && k < sizeof at / sizeof at[0]; k++) {
        const double t = at[k];
        CHECK(vkskin_model_skin(m, t < 0 ? VKSKIN_CLIP_NONE : 0, t < 0 ? 0.0 : t, pos, nrm, NULL, n,
                                NULL) == VKSKIN_OK);
        double w[3], angle = 0.0;
        if (t < 0) { /* the default weights */
            w[0] = 0.5, w[1] = 0.0, w[2] = 0.25;
        } else if (t <= 0.5) {
            w[0] = 2 * t, w[1] = t, w[2] = 0.0;
            angle = 30.0 * t;
        } else {
            const double u = (t - 0.5) / 0.5;
            w[0] = 1 - u, w[1] = 0.5 * (1 - u), w[2] = u;
            angle = 30.0 * t;
        }
        const double c = cos(angle * M_PI / 180.0), sn = sin(angle * M_PI / 180.0);
        for (uint32_t v = 0; v < n; v++) {
            const double x = bind[3 * v], y = bind[3 * v + 1];
            const bool lid = y<-0.25, brow = y> 1.75;
            double p[3] = {x, y, bind[3 * v + 2]}, q[3] = {0, 0, 1};
            if (lid || brow) { /* raise alone moves them */
                p[2] += w[0] * (lid ? 0.1 : 0.3);
            } else {
                p[2] += w[0] * 0.2 * x + w[2] * 0.1 * y;
                if (fabs(x - 0.5) < 1e-3 && fabs(y - 0.5) < 1e-3)
                    p[0] += w[1] * 0.1;
                if (fabs(x - 1.0) < 1e-3 && fabs(y - 1.0) < 1e-3)
                    p[0] -= w[1] * 0.1, p[2] += w[1] * 0.05;
                q[1] -= w[2] * 0.1;
            }
            if (brow || (!lid && y > 0.75)) { /* top's: turned about (0, 1, 0) */
                const double py = p[1] - 1.0, pz = p[2];
                p[1] = 1.0 + c * py - sn * pz, p[2] = sn * py + c * pz;
                const double qy = q[1], qz = q[2];
                q[1] = c * qy - sn * qz, q[2] = sn * qy + c * qz;
            }
            const double len = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2]);
            for (int i = 0; i < 3; i++) {
                worst_p = fmax(worst_p, fabs(pos[3 * v + i] - p[i]));
                worst_n = fmax(worst_n, fabs(nrm[3 * v + i] - q[i] / len));
            }
        }
    }
    printf("morph.glb morphed, then skinned: positions within %.3g, normals within %.3g of the "
           "double reference\n",
           worst_p, worst_n);
    CHECK(worst_p < 2e-5 && worst_n < 1e-4);
    free(pos);
    free(nrm);
}

/* The weights through the API (morph.glb): vkskin_model_weights of talk at 0.25 s (LINEAR half
 * way to (1, 0.5, 0): (0.5, 0.25, 0) on each part) and of the bind pose (the defaults); the
 * clips' weight tracks in their info; a crowd instance's vkskin_crowd_get_weights, also a
 * quarter of the way through a cross-fade (restated below); too little room is refused. */
static void check_weights_api(const vkskin_model *m)
{
    vkskin_error err;
    float w[9];
    CHECK(vkskin_model_weights(m, 0, 0.25, w, 9, &err) == VKSKIN_OK);
    CHECK(w[0] == 0.5f && w[1] == 0.25f && w[2] == 0.0f && w[6] == 0.5f && w[7] == 0.25f);
    CHECK(vkskin_model_weights(m, VKSKIN_CLIP_NONE, 0.0, w, 9, &err) == VKSKIN_OK);
    CHECK(w[0] == 0.5f && w[1] == 0.0f && w[2] == 0.25f);
    check_error(vkskin_model_weights(m, 0, 0.25, w, 8, &err), &err, VKSKIN_ERROR_ARGUMENT,
                "vkskin_model_weights: weights has room for 8 morph targets; 9 are needed");
    check_error(vkskin_model_weights(m, 3, 0.25, w, 9, &err), &err, VKSKIN_ERROR_ARGUMENT,
                "no clip 3");
    vkskin_clip_info ci;
    CHECK(vkskin_model_get_clip(m, 2, &ci, &err) == VKSKIN_OK && ci.weight_tracks == 1 &&
          ci.weight_keys == 2 && ci.channel_count == 0);
    vkskin_crowd *c = NULL;
    CHECK(vkskin_crowd_create(&(vkskin_crowd_desc){.desc_size = sizeof(vkskin_crowd_desc),
                                                   .models = &m,
                                                   .model_count = 1,
                                                   .instance_count = 1,
                                                   .clip = 0,
                                                   .time = 0.25},
                              &c, &err) == VKSKIN_OK);
    if (!c)
        return;
    CHECK(vkskin_crowd_get_weights(c, 0, w, 9, &err) == VKSKIN_OK && w[0] == 0.5f &&
          w[1] == 0.25f && w[2] == 0.0f);
    /* Into blink over 0.4 s, then 0.1 s on: talk at 0.35 s is (0.7, 0.35, 0), blink at 0.1 s
     * (0, 0, 0), a quarter of the way: 0.75 of talk's. */
    CHECK(vkskin_crowd_play(c, 0, 1, 0.4, &err) == VKSKIN_OK);
    CHECK(vkskin_crowd_advance(c, 0.1, &err) == VKSKIN_OK);
    CHECK(vkskin_crowd_get_weights(c, 0, w, 9, &err) == VKSKIN_OK);
    CHECK(fabsf(w[0] - 0.525f) < 1e-6f && fabsf(w[1] - 0.2625f) < 1e-6f && w[2] == 0.0f);
    check_error(vkskin_crowd_get_weights(c, 0, w, 2, &err), &err, VKSKIN_ERROR_ARGUMENT,
                "vkskin_crowd_get_weights: weights has room for 2 morph targets; 9 are needed");
    vkskin_crowd_destroy(c);
}

static void test_morph_import(const char *fixtures)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/morph.glb", fixtures);
    vkskin_model *m = NULL;
    vkskin_error err;
    CHECK(vkskin_model_load(
              &(vkskin_model_desc){.desc_size = sizeof(vkskin_model_desc), .path = path}, &m,
              &err) == VKSKIN_OK);
    if (!m)
        return;
    vkskin_model_info info;
    CHECK(vkskin_model_get_info(m, &info, &err) == VKSKIN_OK && info.target_count == 9);
    const struct {
        const char *name;
        float weight;
        uint32_t vertices;
        bool normals;
    } want[9] = {{"raise", 0.5f, 15, false}, {"pinch", 0, 6, false}, {"tilt", 0.25f, 16, true},
                 {"raise", 0.5f, 4, false},  {"pinch", 0, 0, false}, {"tilt", 0.25f, 0, false},
                 {"raise", 0.5f, 4, false},  {"pinch", 0, 0, false}, {"tilt", 0.25f, 0, false}};
    const vks_model *mm = &m->model;
    uint32_t wrong = 0, deltas_wrong = 0;
    for (uint32_t t = 0; t < 9 && t < info.target_count; t++) {
        vkskin_target_info ti;
        CHECK(vkskin_model_get_target(m, t, &ti, &err) == VKSKIN_OK);
        wrong += strcmp(ti.name, want[t].name) != 0 || ti.weight != want[t].weight ||
                 ti.vertex_count != want[t].vertices || ti.normals != want[t].normals ||
                 ti.tangents;
        const vks_morph_target *tg = &mm->targets[t];
        for (uint32_t k = 0; k < tg->vertex_count; k++) {
            const float *p = mm->positions[tg->vertex_first + k];
            const float *d = mm->morph_positions[tg->delta_first + k];
            float e[3] = {0, 0, 0};
            /* (The positions are the compact streams' decoded values: within 1e-4 of the
             * file's; the deltas are the file's.) */
            const bool at_a = fabsf(p[0] - 0.5f) < 1e-3f && fabsf(p[1] - 0.5f) < 1e-3f;
            const bool at_b = fabsf(p[0] - 1.0f) < 1e-3f && fabsf(p[1] - 1.0f) < 1e-3f;
            if (t == 0)
                e[2] = 0.2f * p[0];
            else if (t == 1 && at_a)
                e[0] = 0.1f;
            else if (t == 1 && at_b)
                e[0] = -0.1f, e[2] = 0.05f;
            else if (t == 2)
                e[2] = 0.1f * p[1];
            else if (t == 3 || t == 6)
                e[2] = p[1] >= 1.9f ? 0.3f : 0.1f; /* the brow, the lid */
            deltas_wrong += fabsf(d[0] - e[0]) > 1e-4f || fabsf(d[1] - e[1]) > 1e-4f ||
                            fabsf(d[2] - e[2]) > 1e-4f;
            if (t == 2) {
                const float *n = mm->morph_normals[tg->delta_first + k];
                deltas_wrong +=
                    fabsf(n[0]) > 1e-6f || fabsf(n[1] + 0.1f) > 1e-6f || fabsf(n[2]) > 1e-6f;
            }
        }
    }
    if (wrong || deltas_wrong)
        printf("morph targets: %u wrong, %u deltas wrong\n", wrong, deltas_wrong);
    CHECK(wrong == 0 && deltas_wrong == 0);
    CHECK(mm->targets[3].mesh == 1 && mm->targets[6].mesh == 0); /* the brow's, the lid's */
    /* The clips' weights, every part alike (grid, brow, lid), by the file's keys restated:
     * talk LINEAR (0,0,0) -> (1,0.5,0) -> (0,0,1) at 0, 0.5, 1 s; blink STEP (0,1,0) from 0.25
     * to 0.5 s, else 0; smooth CUBICSPLINE from (0,0,0), out-tangent (2,0,0), to (1,0,1), in-
     * tangent 0, over 1 s: at s = 1/2 the Hermite basis gives 0.5 p0 + 0.125 m0 + 0.5 p1 -
     * 0.125 m1 = (0.75, 0, 0.5). No clip: the default weights. The import warns of none. */
    CHECK(mm->clip_count == 3 && mm->warning_count == 0);
    const struct {
        int32_t clip;
        double t;
        float w[3];
    } at[] = {
        {-1, 0, {0.5f, 0, 0.25f}},  {0, 0.25, {0.5f, 0.25f, 0}}, {0, 0.75, {0.5f, 0.25f, 0.5f}},
        {0, 2.0, {0, 0, 1}},        {1, 0.1, {0, 0, 0}},         {1, 0.25, {0, 1, 0}},
        {1, 0.3, {0, 1, 0}},        {1, 0.5, {0, 0, 0}},         {2, 0.0, {0, 0, 0}},
        {2, 0.5, {0.75f, 0, 0.5f}}, {2, 1.0, {1, 0, 1}}};
    uint32_t weights_wrong = 0;
    for (size_t k = 0; mm->clip_count == 3 && k < sizeof at / sizeof at[0]; k++) {
        float w[9];
        vks_clip_weights(mm, at[k].clip < 0 ? NULL : &mm->clips[at[k].clip], at[k].t, w);
        for (int p = 0; p < 3; p++)
            for (int i = 0; i < 3; i++)
                weights_wrong += !(fabsf(w[3 * p + i] - at[k].w[i]) < 1e-6f);
        if (weights_wrong)
            printf("weights of clip %d at %.2f s: %g %g %g\n", at[k].clip, at[k].t, w[0], w[1],
                   w[2]);
    }
    CHECK(weights_wrong == 0);
    check_error(vkskin_model_get_target(m, 9, &(vkskin_target_info){0}, &err), &err,
                VKSKIN_ERROR_ARGUMENT, "9 morph target(s): no target 9");
    check_morphed_pose(m);
    check_weights_api(m);
    vkskin_model_destroy(m);
}

/* vkskin_model_skin_as: linear is vkskin_model_skin byte for byte; dual quaternions are the
 * engine's reference as the crowd's GPU pass is checked against (the palette of skin_cpu.h,
 * converted entry by entry with the similarity check, then vks_skin_cpu_dq), and keep twist.glb's
 * radius of 0.25 with its top turned 180 degrees (tests/make_fixtures.c); a non-uniform scale and
 * an unknown skinning are refused with their messages. */
static void test_skin_as(const char *fixtures)
{
    vkskin_model *def = load_default(), *twist = NULL, *scaled = NULL;
    vkskin_error err;
    char path[4096];
    snprintf(path, sizeof path, "%s/twist.glb", fixtures);
    CHECK(vkskin_model_load(
              &(vkskin_model_desc){.desc_size = sizeof(vkskin_model_desc), .path = path}, &twist,
              &err) == VKSKIN_OK);
    snprintf(path, sizeof path, "%s/tangents.glb", fixtures);
    CHECK(vkskin_model_load(
              &(vkskin_model_desc){.desc_size = sizeof(vkskin_model_desc), .path = path}, &scaled,
              &err) == VKSKIN_OK);
    if (!def || !twist || !scaled)
        return;
    vkskin_model_info info;
    vkskin_model_get_info(def, &info, NULL);
    const uint32_t nv = info.vertex_count;
    float *p0 = malloc(sizeof(float) * 3 * nv), *n0 = malloc(sizeof(float) * 3 * nv),
          *p1 = malloc(sizeof(float) * 3 * nv), *n1 = malloc(sizeof(float) * 3 * nv);
    CHECK(vkskin_model_skin(def, 1, 0.35, p0, n0, NULL, nv, &err) == VKSKIN_OK);
    CHECK(vkskin_model_skin_as(def, 1, 0.35, VKSKIN_SKINNING_LINEAR, p1, n1, NULL, nv, &err) ==
          VKSKIN_OK);
    CHECK(memcmp(p0, p1, sizeof(float) * 3 * nv) == 0 &&
          memcmp(n0, n1, sizeof(float) * 3 * nv) == 0);
    /* Dual quaternions differ from linear on the walk (its joints bend). */
    CHECK(vkskin_model_skin_as(def, 1, 0.35, VKSKIN_SKINNING_DUAL_QUATERNION, p1, n1, NULL, nv,
                               &err) == VKSKIN_OK);
    CHECK(check_max_diff(p0, 3, p1, 3, nv, 3) > 1e-4);
    free(p0), free(n0), free(p1), free(n1);

    /* twist.glb at 1 s through the API and through the engine's own pieces. */
    const vks_model *tm = &twist->model;
    const uint32_t tv = tm->vertex_count, joints = tm->skeleton.joint_count;
    float(*pa)[3] = malloc(sizeof *pa * tv), (*na)[3] = malloc(sizeof *na * tv);
    float(*pb)[3] = malloc(sizeof *pb * tv), (*nb)[3] = malloc(sizeof *nb * tv);
    vks_xform *local = malloc(sizeof *local * joints);
    vks_affine *world = malloc(sizeof *world * joints);
    vks_bone *palette = malloc(sizeof *palette * joints);
    vks_dq *dq = malloc(sizeof *dq * joints);
    CHECK(vkskin_model_skin_as(twist, 0, 1.0, VKSKIN_SKINNING_DUAL_QUATERNION, &pa[0][0], &na[0][0],
                               NULL, tv, &err) == VKSKIN_OK);
    vks_skin_cpu_palette(tm, 0, 1.0, local, world, palette);
    bool similar = true;
    for (uint32_t j = 0; j < joints; j++)
        similar = vks_dq_from_bone(&palette[j], &dq[j]) && similar;
    CHECK(similar);
    const vks_skin_input in = vks_skin_input_of(tm);
    vks_skin_cpu_dq(&in, dq, pb, nb, NULL);
    CHECK(check_max_diff(&pa[0][0], 3, &pb[0][0], 3, tv, 3) <= 1e-6);
    CHECK(check_max_diff(&na[0][0], 3, &nb[0][0], 3, tv, 3) <= 1e-6);
    double worst = 0;
    for (uint32_t v = 0; v < tv; v++) {
        const double r = sqrt((double)pa[v][0] * pa[v][0] + (double)pa[v][2] * pa[v][2]);
        worst = fmax(worst, fabs(r - 0.25));
    }
    CHECK(worst <= 1e-4);
    free(pa), free(na), free(pb), free(nb), free(local), free(world), free(palette), free(dq);

    vkskin_model_get_info(scaled, &info, NULL);
    float *ps = malloc(sizeof(float) * 3 * info.vertex_count),
          *ns = malloc(sizeof(float) * 3 * info.vertex_count);
    check_error(vkskin_model_skin_as(scaled, 0, 0.0, VKSKIN_SKINNING_DUAL_QUATERNION, ps, ns, NULL,
                                     info.vertex_count, &err),
                &err, VKSKIN_ERROR_ARGUMENT,
                "joint 'lower' scales by (1.5, 0.6, 1) in clip 'bend' at 0.5 s: dual-quaternion "
                "skinning takes uniform, positive scale only");
    check_error(vkskin_model_skin_as(scaled, 0, 0.0, (vkskin_skinning)7, ps, ns, NULL,
                                     info.vertex_count, &err),
                &err, VKSKIN_ERROR_ARGUMENT,
                "vkskin_model_skin_as: skinning 7 is neither linear nor dual-quaternion");
    /* Its other refusals name it too, not vkskin_model_skin. */
    check_error(vkskin_model_skin_as(scaled, 5, 0.0, VKSKIN_SKINNING_LINEAR, ps, ns, NULL,
                                     info.vertex_count, &err),
                &err, VKSKIN_ERROR_ARGUMENT, "vkskin_model_skin_as: ");
    check_error(vkskin_model_skin_as(scaled, 0, 0.0, VKSKIN_SKINNING_LINEAR, ps, ns, NULL,
                                     info.vertex_count - 1, &err),
                &err, VKSKIN_ERROR_ARGUMENT, "vkskin_model_skin_as: the output has room for");
    free(ps), free(ns);
    vkskin_model_destroy(def);
    vkskin_model_destroy(twist);
    vkskin_model_destroy(scaled);
}

/* Dual-quaternion crowds through the API: a model whose joints scale uniformly is taken, and
 * vkskin_crowd_pose writes its palette as vkskin_dq packed from palette_first * 12 floats (each
 * a unit quaternion, scale about 1 for the default character); a model that scales a joint
 * non-uniformly (tangents.glb's 'lower', in clip 'bend') is refused naming both; an unknown
 * skinning is refused. */
static void test_skinning(const char *fixtures)
{
    vkskin_model *m = load_default(), *stretchy = NULL;
    vkskin_error err;
    char path[4096];
    snprintf(path, sizeof path, "%s/tangents.glb", fixtures);
    CHECK(vkskin_model_load(
              &(vkskin_model_desc){.desc_size = sizeof(vkskin_model_desc), .path = path}, &stretchy,
              &err) == VKSKIN_OK);
    if (!m || !stretchy)
        return;
    vkskin_crowd *c = NULL;
    vkskin_crowd_desc d = {.desc_size = sizeof(vkskin_crowd_desc),
                           .models = (const vkskin_model *const[]){m},
                           .model_count = 1,
                           .instance_count = 3,
                           .skinning = VKSKIN_SKINNING_DUAL_QUATERNION};
    CHECK(vkskin_crowd_create(&d, &c, &err) == VKSKIN_OK);
    if (c) {
        vkskin_crowd_info info;
        CHECK(vkskin_crowd_get_info(c, &info, &err) == VKSKIN_OK);
        float *palette = calloc((size_t)info.palette_count * 12, sizeof *palette);
        const uint32_t list[3] = {0, 1, 2};
        uint32_t first = 0, bad = 0;
        vkskin_model_info mi;
        vkskin_model_get_info(m, &mi, NULL);
        CHECK(palette &&
              vkskin_crowd_pose(c, list, 3, palette, info.palette_count * 12u, &err) == VKSKIN_OK);
        for (uint32_t i = 0; palette && i < 3; i++) {
            first = vkskin_crowd_palette_first(c, i);
            for (uint32_t j = 0; j < mi.joint_count; j++) {
                vkskin_dq dq;
                memcpy(&dq, palette + 12 * (size_t)first + 8 * j, sizeof dq);
                const double len = sqrt(dq.q[0] * dq.q[0] + dq.q[1] * dq.q[1] + dq.q[2] * dq.q[2] +
                                        dq.q[3] * dq.q[3]);
                bad += !(fabs(len - 1.0) < 1e-5 && dq.s > 0.5f && dq.s < 2.0f);
            }
        }
        CHECK(bad == 0);
        free(palette);
        vkskin_crowd_destroy(c);
    }
    d.models = (const vkskin_model *const[]){stretchy};
    c = NULL;
    check_error(vkskin_crowd_create(&d, &c, &err), &err, VKSKIN_ERROR_ARGUMENT,
                "joint 'lower' scales by (1.5, 0.6, 1) in clip 'bend' at 0.5 s");
    CHECK(c == NULL);
    d.skinning = (vkskin_skinning)7;
    check_error(vkskin_crowd_create(&d, &c, &err), &err, VKSKIN_ERROR_ARGUMENT, "no skinning 7");
    d.skinning = VKSKIN_SKINNING_LINEAR; /* linear takes any scale */
    CHECK(vkskin_crowd_create(&d, &c, &err) == VKSKIN_OK);
    vkskin_crowd_destroy(c);
    vkskin_model_destroy(m);
    vkskin_model_destroy(stretchy);
}

/* The public palette store (vkskin_palette_store, vkskin_crowd_prepare_store) over frames that
 * alternate a framed view and a closer one: a store written here only by the copies it lists,
 * from the staging it fills, holds for every listed instance either its pose this frame (posed:
 * vkskin_crowd_pose at the same clocks, bit for bit) or exactly what its slot held the frame
 * before (kept, same slot); the staged bytes are the posed instances' palettes; forgetting the
 * store poses everyone again; misuse gets its message. */
static void test_palette_store(void)
{
    vkskin_error err;
    vkskin_model *m = load_default();
    if (!m)
        return;
    const vkskin_model *models[] = {m};
    vkskin_crowd *c = NULL, *other = NULL;
    enum { N = 40, FRAMES = 12 };
    const vkskin_crowd_desc cd = {.desc_size = sizeof(vkskin_crowd_desc),
                                  .models = models,
                                  .model_count = 1,
                                  .instance_count = N};
    CHECK(vkskin_crowd_create(&cd, &c, &err) == VKSKIN_OK);
    CHECK(vkskin_crowd_create(&cd, &other, &err) == VKSKIN_OK);
    const uint32_t J = ref.skeleton.joint_count, capacity = vkskin_crowd_palette_count(c);
    vkskin_palette_store *s = NULL;
    check_error(vkskin_palette_store_create(c, J - 1, &s, &err), &err, VKSKIN_ERROR_ARGUMENT,
                "fewer than one palette of");
    CHECK(vkskin_palette_store_create(c, capacity, &s, &err) == VKSKIN_OK && s);
    const size_t bytes = sizeof(float) * 12 * capacity;
    float *staging = malloc(bytes), *store = calloc(1, bytes), *before = malloc(bytes);
    float *posed = malloc(sizeof(float) * 12 * (size_t)N * J);
    uint32_t visible[N], slot_before[N];
    vkskin_view framed, near;
    CHECK(vkskin_crowd_frame_view(c, 16.0f / 9.0f, &framed, &err) == VKSKIN_OK);
    CHECK(vkskin_crowd_orbit_view(c, &(vkskin_orbit){.aspect = 16.0f / 9.0f, .zoom = 0.3f}, &near,
                                  &err) == VKSKIN_OK);
    vkskin_prepared out;
    check_error(
        vkskin_crowd_prepare_store(
            other,
            &(vkskin_prepare_desc){.desc_size = sizeof(vkskin_prepare_desc), .view = &framed}, s,
            visible, NULL, N, staging, capacity, &out, &err),
        &err, VKSKIN_ERROR_ARGUMENT, "made for another crowd");
    check_error(
        vkskin_crowd_prepare_store(
            c, &(vkskin_prepare_desc){.desc_size = sizeof(vkskin_prepare_desc), .view = &framed}, s,
            visible, NULL, N, NULL, capacity, &out, &err),
        &err, VKSKIN_ERROR_ARGUMENT, "are needed");
    check_error(
        vkskin_crowd_prepare_store(
            c, &(vkskin_prepare_desc){.desc_size = sizeof(vkskin_prepare_desc), .view = &framed}, s,
            visible, NULL, N - 1, staging, capacity, &out, &err),
        &err, VKSKIN_ERROR_ARGUMENT,
        "vkskin_crowd_prepare_store: visible has room for 39 instances; 40 are needed");
    check_error(
        vkskin_crowd_prepare_store(
            c, &(vkskin_prepare_desc){.desc_size = sizeof(vkskin_prepare_desc), .view = &framed}, s,
            visible, NULL, N, staging, capacity - 1, &out, &err),
        &err, VKSKIN_ERROR_ARGUMENT, "staging has room for");
    bool listed_before[N] = {false};
    uint32_t kept = 0, fresh = 0, bad = 0, fewer = 0;
    for (int f = 0; f < FRAMES && staging && store && before && posed; f++) {
        const bool closer = f % 3 == 2;
        memcpy(before, store, bytes);
        for (uint32_t i = 0; i < N; i++)
            slot_before[i] = vkskin_palette_store_first(s, i);
        if (f == 8)
            vkskin_palette_store_forget(s, NULL);
        CHECK(vkskin_crowd_prepare_store(
                  c,
                  &(vkskin_prepare_desc){.desc_size = sizeof(vkskin_prepare_desc),
                                         .view = closer ? &near : &framed,
                                         .height = 720},
                  s, visible, NULL, N, staging, capacity, &out, &err) == VKSKIN_OK);
        fewer += out.visible < N;
        /* The copies, as a host records them. */
        uint32_t copies = 0;
        const vkskin_palette_copy *cp = vkskin_palette_store_copies(s, &copies);
        uint64_t moved = 0;
        for (uint32_t k = 0; k < copies; k++) {
            memcpy(store + 12 * (size_t)cp[k].to, staging + 12 * (size_t)cp[k].from,
                   sizeof(float) * 12 * cp[k].count);
            moved += cp[k].count;
        }
        CHECK(out.palette_bytes == moved * 48 && out.palette_bytes == (uint64_t)out.posed * J * 48);
        CHECK(out.dropped == 0 && out.posed_joints == (uint64_t)out.posed * J);
        if (f == 8)
            CHECK(out.posed == out.visible); /* forgotten: everyone again */
        /* Each listed instance: posed now, or kept (listed before, same slot, same entries). */
        CHECK(vkskin_crowd_pose(c, visible, out.visible, posed, N * J, &err) == VKSKIN_OK);
        bool listed[N] = {false};
        for (uint32_t k = 0; k < out.visible; k++) {
            const uint32_t i = visible[k], slot = vkskin_palette_store_first(s, i);
            listed[i] = true;
            const float *now = store + 12 * (size_t)slot;
            const float *pose = posed + 12 * (size_t)vkskin_crowd_palette_first(c, i);
            if (slot == VKSKIN_NO_ENTRY)
                bad++;
            else if (memcmp(now, pose, sizeof(float) * 12 * J) == 0)
                fresh += !listed_before[i] || slot != slot_before[i];
            else if (listed_before[i] && slot == slot_before[i] &&
                     memcmp(now, before + 12 * (size_t)slot, sizeof(float) * 12 * J) == 0)
                kept++;
            else
                bad++;
        }
        memcpy(listed_before, listed, sizeof listed);
        vkskin_crowd_advance(c, 1.0 / 30.0, NULL);
    }
    printf("palette store: %u kept poses exact, %u instances newly placed and posed, %u wrong, "
           "%u frame(s) with fewer in view\n",
           kept, fresh, bad, fewer);
    CHECK(bad == 0 && kept > 0 && fresh > N && fewer > 0);
    CHECK(vkskin_palette_store_first(s, N) == VKSKIN_NO_ENTRY &&
          vkskin_palette_store_first(NULL, 0) == VKSKIN_NO_ENTRY);
    /* The deprecated names are the new ones (docs/library.md, "The ABI policy"). */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
    for (uint32_t i = 0; i <= N; i++)
        CHECK(vkskin_palette_store_slot(s, i) == vkskin_palette_store_first(s, i));
    CHECK(VKSKIN_NO_SLOT == VKSKIN_NO_ENTRY);
#pragma GCC diagnostic pop
    uint32_t none = 1;
    CHECK(vkskin_palette_store_copies(NULL, &none) == NULL && none == 0);
    vkskin_palette_store_destroy(s);
    vkskin_palette_store_destroy(NULL);
    free(staging), free(store), free(before), free(posed);
    vkskin_crowd_destroy(other);
    vkskin_crowd_destroy(c);
    vkskin_model_destroy(m);
}

/* The ABI policy (docs/library.md): a desc read as desc_size says it was laid out. Unset (0):
 * refused. From older headers (a prefix of today's layout): the missing fields take their
 * defaults, whatever the bytes after the prefix hold. From newer headers (longer): accepted when
 * the bytes past this library's layout are zero, refused when they are set. */
static void test_desc_sizes(void)
{
    vkskin_error err;
    vkskin_model *m = load_default();
    if (!m)
        return;
    const vkskin_model *models[] = {m};
    vkskin_crowd *c = NULL;
    check_error(vkskin_crowd_create(
                    &(vkskin_crowd_desc){.models = models, .model_count = 1, .instance_count = 4},
                    &c, &err),
                &err, VKSKIN_ERROR_ARGUMENT,
                "vkskin_crowd_create: desc->desc_size is 0: set it to the desc's sizeof");
    CHECK(c == NULL);
    vkskin_model *unset = NULL;
    check_error(vkskin_model_load(&(vkskin_model_desc){.path = glb_path}, &unset, &err), &err,
                VKSKIN_ERROR_ARGUMENT, "vkskin_model_load: desc->desc_size is 0");
    CHECK(unset == NULL);

    /* Older headers: a desc that ends before `seed`; the bytes after it are garbage here. */
    vkskin_crowd_desc older = {.desc_size = (uint32_t)offsetof(vkskin_crowd_desc, seed),
                               .models = models,
                               .model_count = 1,
                               .instance_count = 4,
                               .clip = VKSKIN_CLIP_VARIED,
                               .seed = 12345,
                               .normalize_height = true,
                               .threads = 99999,
                               .workers = 99999};
    const vkskin_crowd_desc today = {.desc_size = sizeof(vkskin_crowd_desc),
                                     .models = models,
                                     .model_count = 1,
                                     .instance_count = 4,
                                     .clip = VKSKIN_CLIP_VARIED};
    vkskin_crowd *a = NULL, *b = NULL;
    CHECK(vkskin_crowd_create(&older, &a, &err) == VKSKIN_OK);
    CHECK(vkskin_crowd_create(&today, &b, &err) == VKSKIN_OK);
    for (uint32_t i = 0; a && b && i < 4; i++) {
        vkskin_instance_info ia, ib;
        vkskin_crowd_get_instance(a, i, &ia, NULL);
        vkskin_crowd_get_instance(b, i, &ib, NULL);
        /* seed 0 and no height normalization, as `today` asks: the same crowd */
        CHECK(ia.clip == ib.clip && ia.time == ib.time && ia.speed == ib.speed &&
              memcmp(ia.world, ib.world, sizeof ia.world) == 0);
    }
    vkskin_crowd_destroy(a);
    vkskin_crowd_destroy(b);

    /* Newer headers: 16 more bytes. Zero: fine. Set: refused, with this library's version. */
    struct {
        vkskin_crowd_desc desc;
        unsigned char more[16];
    } newer = {.desc = today};
    newer.desc.desc_size = sizeof newer;
    CHECK(vkskin_crowd_create(&newer.desc, &a, &err) == VKSKIN_OK);
    vkskin_crowd_destroy(a);
    newer.more[5] = 1;
    check_error(vkskin_crowd_create(&newer.desc, &a, &err), &err, VKSKIN_ERROR_ARGUMENT,
                "it comes from newer headers than this library");
    CHECK(strstr(err.message, VKSKIN_VERSION_STRING) != NULL);
    vkskin_model_destroy(m);
}

/* The host's allocator: every block vkskin allocates of its own comes from it, aligned as
 * asked, and goes back to it when the objects are destroyed (none left); it cannot change while
 * an object lives. Counters are atomic: the crowd's threads may allocate. */
typedef struct counting_allocator {
    atomic_long blocks, calls, misaligned;
} counting_allocator;

static void *count_alloc(void *user, size_t size, size_t align)
{
    counting_allocator *c = user;
    void *p = aligned_alloc(align, (size + align - 1) & ~(align - 1));
    if (p) {
        atomic_fetch_add(&c->blocks, 1);
        atomic_fetch_add(&c->calls, 1);
        atomic_fetch_add(&c->misaligned, (uintptr_t)p % align != 0);
    }
    return p;
}

static void count_free(void *user, void *p)
{
    counting_allocator *c = user;
    atomic_fetch_sub(&c->blocks, 1);
    free(p);
}

static void test_allocator(void)
{
    counting_allocator counts = {0};
    const vkskin_allocator a = {count_alloc, count_free, &counts};
    vkskin_error err;
    check_error(vkskin_set_allocator(&(vkskin_allocator){count_alloc, NULL, &counts}, &err), &err,
                VKSKIN_ERROR_ARGUMENT, "alloc and free are both needed");
    CHECK(vkskin_set_allocator(&a, &err) == VKSKIN_OK);
    vkskin_model *m = NULL;
    CHECK(vkskin_model_load(
              &(vkskin_model_desc){.desc_size = sizeof(vkskin_model_desc), .path = glb_path}, &m,
              &err) == VKSKIN_OK);
    const long after_load = atomic_load(&counts.calls);
    CHECK(after_load > 0);
    check_error(vkskin_set_allocator(NULL, &err), &err, VKSKIN_ERROR_ARGUMENT,
                "1 vkskin object(s) still live");
    const vkskin_model *models[] = {m};
    vkskin_crowd *c = NULL;
    CHECK(vkskin_crowd_create(&(vkskin_crowd_desc){.desc_size = sizeof(vkskin_crowd_desc),
                                                   .models = models,
                                                   .model_count = 1,
                                                   .instance_count = 50,
                                                   .clip = VKSKIN_CLIP_VARIED,
                                                   .threads = 2},
                              &c, &err) == VKSKIN_OK);
    vkskin_palette_store *s = NULL;
    const uint32_t entries = c ? vkskin_crowd_palette_count(c) : 0;
    if (c)
        CHECK(vkskin_palette_store_create(c, entries, &s, &err) == VKSKIN_OK);
    float *palettes = malloc(sizeof(float) * 12 * (entries ? entries : 1));
    uint32_t visible[50];
    uint8_t levels[50];
    vkskin_view view;
    for (int f = 0; c && s && palettes && f < 6; f++) {
        CHECK(vkskin_crowd_frame_view(c, 1.5f, &view, &err) == VKSKIN_OK);
        vkskin_prepared out;
        const vkskin_prepare_desc pd = {.desc_size = sizeof(vkskin_prepare_desc), .view = &view};
        CHECK((f % 2 ? vkskin_crowd_prepare(c, &pd, visible, levels, 50, palettes, entries, &out,
                                            &err)
                     : vkskin_crowd_prepare_store(c, &pd, s, visible, levels, 50, palettes, entries,
                                                  &out, &err)) == VKSKIN_OK);
        CHECK(vkskin_crowd_advance(c, 1.0 / 30.0, &err) == VKSKIN_OK);
    }
    CHECK(atomic_load(&counts.calls) > after_load); /* the crowd's and the store's too */
    vkskin_palette_store_destroy(s);
    vkskin_crowd_destroy(c);
    vkskin_model_destroy(m);
    free(palettes);
    CHECK(atomic_load(&counts.blocks) == 0); /* every block given back */
    CHECK(atomic_load(&counts.misaligned) == 0);
    printf("allocator: %ld blocks through the host's allocator, all given back\n",
           atomic_load(&counts.calls));
    CHECK(vkskin_set_allocator(NULL, &err) == VKSKIN_OK);
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: test_api DEFAULT_GLB FIXTURES_DIR\n");
        return 2;
    }
    glb_path = argv[1];
    vks_error e;
    if (!vks_model_import(&(vks_import_desc){.path = glb_path, .in_process = true}, &ref, &e)) {
        fprintf(stderr, "%s\n", e.msg);
        return 1;
    }
    test_allocator(); /* first: before any other object exists */
    test_version();
    test_cores();
    test_model();
    test_model_parts();
    test_materials(argv[2]);
    test_crowd();
    test_skinning(argv[2]);
    test_skin_as(argv[2]);
    test_morph_import(argv[2]);
    test_normalize(argv[2]);
    test_ring_view();
    test_crowd_memory(argv[2]);
    test_joints();
    test_palette_store();
    test_desc_sizes();
    vks_model_destroy(&ref);
    return check_report("test_api");
}
