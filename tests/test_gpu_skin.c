/* The GPU skinning pass against the CPU reference (vks_skin_cpu_pose), on a headless device with
 * validation on: for the bind pose and every clip at several times (0, 0.37, 0.81 of its duration
 * and duration + 0.25 s, which wraps around), the palette is written into the frame exactly as
 * the CPU path builds it, the compute pass runs, its output is copied back and compared:
 *   positions: max |gpu - cpu| <= 1e-4 * the radius of the model's bind-pose bounds
 *   normals, tangents (unit vectors, handedness +-1): max |gpu - cpu| <= 1e-4
 * Before each frame the host-visible readback is filled with NaN bytes, so a frame whose copy or
 * dispatch did not happen cannot pass on the previous frame's data; and an animated model must
 * move on the GPU (some sampled pose differs from the bind pose by more than 1% of the radius),
 * so a shader that writes the bind pose fails even where the CPU side were wrong the same way.
 * Any validation error or warning fails the test.
 *   usage: test_gpu_skin [FILE | --folder DIR]...
 * Every model is loaded before the device exists (the importer forks: see asset/import.h). A FILE
 * must import; a folder contributes every *.glb in it and may be absent. Nothing found at all is a
 * skip (exit 77) with the reason. */
#include "anim/anim.h"
#include "asset/import.h"
#include "bake/load.h"
#include "bake/lod.h"
#include "asset/pack.h"
#include "check.h"
#include "gpu/gpu.h"
#include "render/renderer.h"
#include "skin/dqs.h"
#include "skin/morph.h"
#include "skin/skin_cpu.h"
#include "test_binding.h"

#include <dirent.h>
#include <float.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define POSITION_TOLERANCE 1e-4 /* times the bind-pose radius */
#define UNIT_TOLERANCE 1e-4
#define MOVES_AT_LEAST 1e-2 /* times the radius: an animated model visibly moves */

typedef struct loaded {
    char *path;
    vks_model model;
} loaded;

static loaded *models;
static size_t model_count;

static void load(const char *path)
{
    vks_model model;
    vks_error err;
    if (!vks_model_load(&(vks_import_desc){.path = path}, &model, &err)) {
        fprintf(stderr, "%s\n", err.msg);
        CHECK(!"import failed");
        return;
    }
    models = realloc(models, sizeof *models * (model_count + 1));
    models[model_count].path = malloc(strlen(path) + 1);
    strcpy(models[model_count].path, path);
    models[model_count++].model = model;
}

/* Half the diagonal of the bind pose's bounds in palette space (1 for a degenerate model). */
static double bind_radius(const float (*pos)[3], uint32_t n)
{
    double lo[3] = {DBL_MAX, DBL_MAX, DBL_MAX}, hi[3] = {-DBL_MAX, -DBL_MAX, -DBL_MAX}, r2 = 0.0;
    for (uint32_t v = 0; v < n; v++)
        for (int k = 0; k < 3; k++) {
            lo[k] = fmin(lo[k], pos[v][k]);
            hi[k] = fmax(hi[k], pos[v][k]);
        }
    for (int k = 0; k < 3; k++)
        r2 += 0.25 * (hi[k] - lo[k]) * (hi[k] - lo[k]);
    return r2 > 0.0 ? sqrt(r2) : 1.0;
}

typedef struct stats {
    double pos, nrm, tan; /* largest errors found */
    double moved;         /* largest distance from the bind pose of any sampled pose */
    int poses;
} stats;

/* One frame: palette of (clip, seconds) -> skinning pass at level of detail `level` ->
 * readback, compared with the CPU reference of the same vertices (vks_skin_cpu_pose_level). */
static void check_pose(vks_renderer *r, const vks_model *m, int32_t clip, double seconds,
                       uint32_t level, double radius, const float (*bind)[3], stats *s,
                       const char *path)
{
    const bool dq = r->skinner.crowd->dq[0];
    const vks_skeleton *sk = &m->skeleton;
    const uint32_t n = m->vertex_count;
    vks_xform *local = malloc(sizeof *local * sk->joint_count);
    vks_affine *scratch = malloc(sizeof *scratch * sk->joint_count);
    float(*pos)[3] = malloc(sizeof *pos * n);
    float(*nrm)[3] = malloc(sizeof *nrm * n);
    float(*tan)[4] = m->tangents ? malloc(sizeof *tan * n) : NULL;
    CHECK(local && scratch && pos && nrm && (!m->tangents || tan));

    vks_frame *f = vks_renderer_begin_frame(r);
    if (clip < 0) {
        vks_pose_rest(sk, local);
    } else {
        const vks_clip *c = &m->clips[clip];
        vks_clip_sample(sk, c, vks_clip_time(c, seconds, VKS_WRAP_LOOP), NULL, local);
    }
    /* A crowd of one: its palette starts at 0; as dual quaternions, written so. */
    vks_bone *palette = dq ? malloc(sizeof *palette * sk->joint_count) : f->skin->palette;
    CHECK(palette != NULL);
    vks_pose_palette(sk, local, scratch, palette);
    if (dq) {
        vks_dq_write(palette, sk->joint_count, f->skin->palette);
        free(palette);
    }
    if (m->target_count) { /* the clip's morph-target weights, as the crowd writes them */
        float *w = malloc(sizeof *w * m->target_count);
        CHECK(w != NULL);
        const vks_clip *k = clip < 0 ? NULL : &m->clips[clip];
        vks_clip_weights(m, k, k ? vks_clip_time(k, seconds, VKS_WRAP_LOOP) : 0.0, w);
        vks_morph_write(m, w, f->skin->palette + vks_crowd_pose_entries(m, dq));
        free(w);
    }
    f->skin->visible[0] = 0;
    f->skin->visible_count = 1;
    f->skin->level[0] = (uint8_t)level;
    if (r->skinner.readback.coherent) /* NaN bytes: stale or unwritten output cannot pass */
        memset(r->skinner.readback.mapped, 0xff, r->skinner.readback.size);
    vks_renderer_skin(r, f);
    vks_renderer_copy_skinned(r, f);
    vks_error err;
    bool ok = vks_renderer_submit(r, f, VK_NULL_HANDLE, VK_NULL_HANDLE, &err) &&
              vks_renderer_wait(r, f, &err);
    if (!ok)
        fprintf(stderr, "%s: %s\n", path, err.msg);
    CHECK(ok);
    /* The CPU's reference of the same vertices: the level's, copies of level-0 ones. */
    const vks_level lv = vks_model_level(m, level);
    for (uint32_t i = 0; level && i < lv.vertex_count; i++) {
        const uint32_t src = m->lod_source[lv.vertex_first + i];
        CHECK(src < n);
    }
    CHECK(vks_skin_cpu_pose_level_as(m, level, clip, seconds, dq, pos, nrm, tan));
    float(*gpos)[3] = malloc(sizeof *gpos * n), (*gnrm)[3] = malloc(sizeof *gnrm * n);
    float(*gtan)[4] = malloc(sizeof *gtan * n);
    CHECK(gpos && gnrm && gtan);
    if (ok && gpos && gnrm && gtan) {
        CHECK((vks_skinner_skinned_tangents(&r->skinner, 0) != NULL) == (m->tangents != NULL));
        CHECK(vks_skinner_skinned_level(&r->skinner, 0) == level);
        CHECK(vks_skinner_decode_skinned(&r->skinner, 0, gpos, gnrm, gtan));
        const uint32_t n_level = lv.vertex_count;
        /* Normals and tangents come back octahedral (16 and 15 bits: under 1e-4 off). */
        double dp = check_max_diff(gpos[0], 3, pos[0], 3, n_level, 3);
        double dn = check_max_diff(gnrm[0], 3, nrm[0], 3, n_level, 3);
        double dt = m->tangents && tan ? check_max_diff(gtan[0], 4, tan[0], 4, n_level, 4) : 0.0;
        int before = check_failures;
        CHECK(dp <= POSITION_TOLERANCE * radius);
        CHECK(dn <= UNIT_TOLERANCE);
        CHECK(dt <= UNIT_TOLERANCE);
        if (check_failures != before)
            fprintf(stderr,
                    "  in %s (%s), clip %d at %.4f s, level %u: positions %.3g (tolerance "
                    "%.3g), normals %.3g, tangents %.3g\n",
                    path, dq ? "dual quaternions" : "linear", clip, seconds, level, dp,
                    POSITION_TOLERANCE * radius, dn, dt);
        s->pos = fmax(s->pos, dp);
        s->nrm = fmax(s->nrm, dn);
        s->tan = fmax(s->tan, dt);
        if (bind && !level)
            s->moved = fmax(s->moved, check_max_diff(gpos[0], 3, bind[0], 3, n, 3));
        s->poses++;
    }
    free(gpos);
    free(gnrm);
    free(gtan);
    free(local);
    free(scratch);
    free(pos);
    free(nrm);
    free(tan);
}

/* A crowd of one instance of m, skinned linearly or with dual quaternions, and a renderer that
 * reads its output back. False, with a message, when either cannot be made. */
static bool one_instance(const gpu_device *dev, const vks_model *m, bool dq, vks_crowd *crowd,
                         vks_renderer *r, vks_error *err)
{
    if (!vks_crowd_create(
            &(vks_crowd_desc){
                .models = &m, .model_count = 1, .instance_count = 1, .dual_quaternion = dq},
            crowd, err))
        return false;
    /* VKS_TEST_STAGE: the compute pass stages each pose in shared memory (the ctest
     * gpu_skin_staged), and must have chosen to for this model. */
    const bool stage = getenv("VKS_TEST_STAGE") != NULL;
    if (vks_renderer_create(dev,
                            &(vks_renderer_desc){.crowd = crowd,
                                                 .color_format = VK_FORMAT_R8G8B8A8_SRGB,
                                                 .readback = true,
                                                 .stage_palette = stage,
                                                 .binding = test_binding()},
                            r, err)) {
        const uint32_t pose = vks_crowd_pose_vec4s(m, crowd->dq[0]);
        if (stage && pose > vks_skin_stage_limit(dev)) /* this device cannot stage it */
            printf("skipped: staging %s's pose (%u vec4s): %s has shared memory for %u\n", m->name,
                   pose, dev->props.deviceName, vks_skin_stage_limit(dev));
        else
            CHECK(!stage || (pose <= r->skinner.pass.stage_vec4s &&
                             (r->skinner.variant[0] & VKS_SKIN_VARIANT_STAGE)));
        return true;
    }
    vks_crowd_destroy(crowd);
    return false;
}

/* Each model skinned both ways: linear blending, then dual quaternions where the model's joints
 * are similarities (else the crowd is refused, with the checker's message). */
static void check_model(const gpu_device *dev, const char *path, const vks_model *m, bool dq)
{
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    int checks_before = check_count;
    vks_crowd crowd;
    vks_renderer r;
    vks_error err, why;
    if (dq && !vks_dq_check_model(m, &why)) {
        CHECK(!vks_crowd_create(
                  &(vks_crowd_desc){
                      .models = &m, .model_count = 1, .instance_count = 1, .dual_quaternion = true},
                  &crowd, &err) &&
              strcmp(err.msg, why.msg) == 0);
        printf("%s (dual quaternions): refused: %s\n", path, err.msg);
        return;
    }
    if (!one_instance(dev, m, dq, &crowd, &r, &err)) {
        fprintf(stderr, "%s: %s\n", path, err.msg);
        CHECK(!"renderer creation failed");
        return;
    }
    const uint32_t n = m->vertex_count;
    float(*bind)[3] = malloc(sizeof *bind * n);
    float(*bind_n)[3] = malloc(sizeof *bind_n * n);
    CHECK(bind && bind_n && vks_skin_cpu_pose(m, -1, 0.0, bind, bind_n, NULL));
    double radius = bind_radius((const float(*)[3])bind, n);

    stats s = {0};
    check_pose(&r, m, -1, 0.0, 0, radius, NULL, &s, path);
    for (uint32_t c = 0; c < m->clip_count; c++) {
        double d = m->clips[c].duration;
        const double at[] = {0.0, 0.37 * d, 0.81 * d, d + 0.25};
        for (size_t k = 0; k < sizeof at / sizeof at[0]; k++)
            check_pose(&r, m, (int32_t)c, at[k], 0, radius, (const float(*)[3])bind, &s, path);
    }
    /* Every level of detail, in the first clip mid-way (or the bind pose). */
    for (uint32_t l = 1; l < vks_model_level_count(m); l++)
        check_pose(&r, m, m->clip_count ? 0 : -1, m->clip_count ? 0.37 * m->clips[0].duration : 0.0,
                   l, radius, NULL, &s, path);
    /* The GPU output moves away from the bind pose when the model is animated (a shader that
     * ignored the palette would not). Models whose clips move no vertex would be exempt, but
     * every model tested here has at least one that does. */
    if (m->clip_count > 0) {
        CHECK(s.moved > MOVES_AT_LEAST * radius);
        if (!(s.moved > MOVES_AT_LEAST * radius))
            fprintf(stderr, "  %s: the GPU output never leaves the bind pose (%.3g)\n", path,
                    s.moved);
    }
    vks_renderer_destroy(&r);
    vks_crowd_destroy(&crowd);
    free(bind);
    free(bind_n);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    printf("%s (%s): %u vertices, %u clips, %u levels, %d poses, %d checks; max error: "
           "positions %.3g (%.2g of radius %.4g), normals %.3g, tangents %s%.3g; moved up to "
           "%.3g; %.0f ms\n",
           path, dq ? "dual quaternions" : "linear", n, m->clip_count, vks_model_level_count(m),
           s.poses, check_count - checks_before, s.pos, s.pos / radius, radius, s.nrm,
           m->tangents ? "" : "(none) ", s.tan, s.moved,
           (double)(t1.tv_sec - t0.tv_sec) * 1e3 + (double)(t1.tv_nsec - t0.tv_nsec) * 1e-6);
}

/* twist.glb (tests/make_fixtures.c) at 1 s, its top turned 180 degrees about the tube's axis:
 * on the GPU, dual quaternions keep every ring's radius (0.25: each vertex turns about the axis),
 * where linear blending pulls the middle ring onto the axis (its radius 0.25 |w0 + w1 e^(i pi)|,
 * 0 at w0 = w1). */
static void check_twist(const gpu_device *dev, const vks_model *m)
{
    double radius_min[2] = {1e9, 1e9}, radius_max[2] = {0, 0};
    for (int dq = 0; dq < 2; dq++) {
        vks_crowd crowd;
        vks_renderer r;
        vks_error err;
        if (!one_instance(dev, m, dq, &crowd, &r, &err)) {
            fprintf(stderr, "twist: %s\n", err.msg);
            CHECK(!"twist renderer");
            return;
        }
        stats s = {0};
        check_pose(&r, m, 0, 1.0, 0, 1.0, NULL, &s, "twist.glb");
        float(*p)[3] = malloc(sizeof *p * m->vertex_count),
        (*n)[3] = malloc(sizeof *n * m->vertex_count);
        if (p && n && vks_skinner_decode_skinned(&r.skinner, 0, p, n, NULL))
            for (uint32_t v = 0; v < m->vertex_count; v++) {
                const double rad = hypot(p[v][0], p[v][2]);
                radius_min[dq] = fmin(radius_min[dq], rad);
                radius_max[dq] = fmax(radius_max[dq], rad);
            }
        else
            CHECK(!"twist output");
        free(p), free(n);
        vks_renderer_destroy(&r);
        vks_crowd_destroy(&crowd);
    }
    CHECK(fabs(radius_min[1] - 0.25) < 1e-4 && fabs(radius_max[1] - 0.25) < 1e-4);
    CHECK(radius_min[0] < 1e-3 && fabs(radius_max[0] - 0.25) < 1e-4);
    printf("twist.glb at 180 degrees: radius %.5f to %.5f with dual quaternions, %.5f to %.5f "
           "linear\n",
           radius_min[1], radius_max[1], radius_min[0], radius_max[0]);
}

int main(int argc, char **argv)
{
    if (check_each_model_arg(argc, argv, load, &model_count) == SKIP_RETURN)
        return SKIP_RETURN;

    /* Only now the device: no fork after Vulkan has started its threads. */
    gpu_device dev = {0};
    vks_error err;
    bool have_device =
        gpu_device_create(&(gpu_device_desc){.device_index = -1, .validate = true}, &dev, &err);
    if (!have_device)
        fprintf(stderr, "test_gpu_skin: %s\n", err.msg);
    CHECK(have_device);
    if (have_device) {
        printf("device: %s, %s\n", dev.props.deviceName, test_binding_name());
        for (size_t i = 0; i < model_count; i++) {
            for (int dq = 0; dq < 2; dq++)
                check_model(&dev, models[i].path, &models[i].model, dq);
            if (strstr(models[i].path, "twist.glb"))
                check_twist(&dev, &models[i].model);
        }
        CHECK(!gpu_validation_failed(&dev)); /* while skinning */
        /* vkDestroyDevice still reports (objects never destroyed): count after it. */
        gpu_messages m = gpu_device_destroy(&dev);
        CHECK(m.error == 0 && m.warning == 0);
        if (m.error || m.warning)
            fprintf(stderr, "validation reported %u error(s) and %u warning(s)\n", m.error,
                    m.warning);
    }
    for (size_t i = 0; i < model_count; i++) {
        vks_model_destroy(&models[i].model);
        free(models[i].path);
    }
    free(models);
    return check_report("test_gpu_skin");
}
