/* The crowd's CPU side: layout, per-instance variation, bounds, culling against an independent
 * check, palettes on a pool against the caller's thread alone and against direct sampling, clip
 * switches, and the messages for bad descs.
 *   usage: test_crowd DEFAULT_GLB FIXTURES_DIR */
#include "anim/anim.h"
#include "asset/import.h"
#include "bake/lod.h"
#include "bake/lod_error.h"
#include "check.h"
#include "scene/crowd.h"

#include <cglm/cam.h>
#include <cglm/clipspace/persp_rh_zo.h>
#include <cglm/clipspace/view_rh.h>
#include <cglm/mat4.h>

#include <assert.h>
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

static vks_model def, chain, still; /* the default character; chain.glb; no_animation.glb */
static vks_model robot;             /* robot.glb: its face plays morph targets */

static bool load(const char *path, vks_model *m)
{
    vks_error err;
    if (!vks_model_import(&(vks_import_desc){.path = path}, m, &err)) {
        fprintf(stderr, "%s\n", err.msg);
        CHECK(!"import failed");
        return false;
    }
    return true;
}

/* The default character with its levels of detail. */
static const char *lods_path;
static bool load_lods(vks_model *m)
{
    vks_error err;
    if (!load(lods_path, m))
        return false;
    if (!vks_model_build_lods(m, &err) || !vks_model_measure_lods(m, &err)) {
        CHECK(!"levels of detail");
        vks_model_destroy(m);
        return false;
    }
    return true;
}

static bool create(const vks_crowd_desc *desc, vks_crowd *c)
{
    vks_error err = {{0}};
    bool ok = vks_crowd_create(desc, c, &err);
    if (!ok)
        fprintf(stderr, "vks_crowd_create: %s\n", err.msg);
    CHECK(ok);
    return ok;
}

/* Two crowds, from desc_a and desc_b (the same, or one keeping poses), both or neither. */
static bool create_twins(const vks_crowd_desc *desc_a, const vks_crowd_desc *desc_b, vks_crowd *a,
                         vks_crowd *b)
{
    if (!create(desc_a, a))
        return false;
    if (!create(desc_b, b)) {
        vks_crowd_destroy(a);
        return false;
    }
    return true;
}

/* The model's root transform, as the renderer computes it: the inverse of the root inverse. */
static void root_transform(const vks_model *m, mat4 root)
{
    const vks_affine *ri = &m->skeleton.root_inverse;
    mat4 inv;
    for (int c = 0; c < 4; c++)
        for (int r = 0; r < 4; r++)
            inv[c][r] = r < 3 ? ri->row[r][c] : (c == 3 ? 1.0f : 0.0f);
    glm_mat4_inv(inv, root);
}

/* The placement of an instance: world * root_inverse (column-major 4x4), in doubles. */
static void placement(const vks_crowd_instance *in, const vks_model *m, double p[4][4])
{
    const vks_affine *ri = &m->skeleton.root_inverse;
    for (int c = 0; c < 4; c++)
        for (int r = 0; r < 4; r++) {
            double s = 0.0;
            for (int k = 0; k < 4; k++) {
                double rik = k < 3 ? ri->row[k][c] : (c == 3 ? 1.0 : 0.0);
                s += (double)in->world[k][r] * rik;
            }
            p[c][r] = s;
        }
}

static void transform(const float m[4][4], const float p[3], double out[3])
{
    for (int r = 0; r < 3; r++)
        out[r] = (double)m[0][r] * p[0] + (double)m[1][r] * p[1] + (double)m[2][r] * p[2] + m[3][r];
}

/* The direct way to a pose: sample without key hints, or the rest pose. */
static void sample_local(const vks_model *m, int32_t clip, double time, vks_xform *local)
{
    if (clip < 0)
        vks_pose_rest(&m->skeleton, local);
    else
        vks_clip_sample(&m->skeleton, &m->clips[clip],
                        vks_clip_time(&m->clips[clip], time, VKS_WRAP_LOOP), NULL, local);
}

/* ... and on to the palette. */
static void direct_palette(const vks_model *m, int32_t clip, double time, vks_xform *local,
                           vks_affine *scratch, vks_bone *palette)
{
    sample_local(m, clip, time, local);
    vks_pose_palette(&m->skeleton, local, scratch, palette);
}

/* The crowd poses through its samplers (anim/sampler.h), the direct path through anim.h: each is
 * within 1e-6 of the model's size of the double-precision walk (test_walk), so within 2e-6 of
 * each other, as a bound on how far they move any bind-pose vertex apart. */
#define POSE_TOL 2e-6

static double pose_deviation(const vks_model *m, const vks_bone *got, const vks_bone *want)
{
    float lo[3], hi[3];
    check_box((const float(*)[3])m->positions, m->vertex_count, lo, hi);
    return check_palette_deviation((const float *)got, (const float *)want, m->skeleton.joint_count,
                                   lo, hi);
}

/* (a) A crowd of one is the single character: world = root transform, palette = direct. */
static void test_one(void)
{
    const vks_model *models[] = {&def};
    const int32_t clips_list[] = {1, -1, VKS_CROWD_VARIED_CLIP};
    for (int layout = 0; layout < 2; layout++) {
        for (int k = 0; k < 3; k++) {
            vks_crowd c;
            int32_t clip = clips_list[k];
            vks_crowd_desc desc = {.models = models,
                                   .model_count = 1,
                                   .clips = &clip,
                                   .instance_count = 1,
                                   .layout = (vks_crowd_layout)layout,
                                   .time = 0.35,
                                   .seed = 1234};
            if (!create(&desc, &c))
                continue;
            const vks_crowd_instance *in = &c.instances[0];
            uint32_t clips = 0;
            vks_sampler_isa isa;
            CHECK(vks_crowd_sampled_clips(&c, &clips, &isa) == clips); /* all resampled */
            CHECK(clips == def.clip_count + 1);
            mat4 root;
            root_transform(&def, root);
            uint32_t world_wrong = 0; /* by value: a zero's sign may differ */
            for (int e = 0; e < 16; e++)
                world_wrong += in->world[e / 4][e % 4] != root[e / 4][e % 4];
            CHECK(world_wrong == 0);
            int32_t expect_clip = clip == VKS_CROWD_VARIED_CLIP ? 0 : clip;
            CHECK(in->clip == expect_clip);
            CHECK(in->time == 0.35);
            CHECK(in->speed == 1.0f);
            CHECK(in->model == 0 && c.palette_first[0] == 0);
            CHECK(c.palette_count == def.skeleton.joint_count);
            CHECK(c.model_first[0] == 0 && c.model_first[1] == 1);

            uint32_t n = def.skeleton.joint_count;
            vks_bone *got = malloc(sizeof *got * n), *want = malloc(sizeof *want * n);
            vks_xform *local = malloc(sizeof *local * n);
            vks_affine *scratch = malloc(sizeof *scratch * n);
            if (got && want && local && scratch) {
                const uint32_t visible = 0;
                for (int frame = 0; frame < 2; frame++) { /* fresh and hinted cursors */
                    vks_crowd_palettes(&c, NULL, &visible, 1, got);
                    direct_palette(&def, expect_clip, 0.35, local, scratch, want);
                    CHECK(pose_deviation(&def, got, want) <= POSE_TOL);
                }
            }
            free(got);
            free(want);
            free(local);
            free(scratch);
            vks_crowd_destroy(&c);
        }
    }
}

/* Checks what every crowd promises about its layout and bounds. */
static void check_layout(const vks_crowd *c)
{
    /* Grouped by model, palettes a prefix sum in instance order. */
    uint32_t first = 0;
    for (uint32_t m = 0; m < c->model_count; m++) {
        CHECK(c->model_first[m] <= c->model_first[m + 1]);
        for (uint32_t i = c->model_first[m]; i < c->model_first[m + 1]; i++)
            CHECK(c->instances[i].model == m);
    }
    CHECK(c->model_first[c->model_count] == c->instance_count);
    for (uint32_t i = 0; i < c->instance_count; i++) {
        CHECK(c->palette_first[i] == first);
        first += c->models[c->instances[i].model]->skeleton.joint_count;
    }
    CHECK(c->palette_count == first);

    /* Each sphere holds its model's box carried into the world, and the crowd box every sphere. */
    uint32_t outside = 0;
    for (uint32_t i = 0; i < c->instance_count; i++) {
        const vks_crowd_instance *in = &c->instances[i];
        const float *lo = c->model_lo[in->model], *hi = c->model_hi[in->model];
        for (int k = 0; k < 8; k++) {
            float p[3] = {k & 1 ? hi[0] : lo[0], k & 2 ? hi[1] : lo[1], k & 4 ? hi[2] : lo[2]};
            double w[3], d2 = 0.0;
            transform(in->world, p, w);
            for (int a = 0; a < 3; a++)
                d2 += (w[a] - in->center[a]) * (w[a] - in->center[a]);
            outside += sqrt(d2) > in->radius * 1.0001 + 1e-5;
        }
        for (int a = 0; a < 3; a++) {
            outside += in->center[a] - in->radius < c->lo[a] - 1e-4f;
            outside += in->center[a] + in->radius > c->hi[a] + 1e-4f;
        }
    }
    CHECK(outside == 0);

    /* Footprints apart: the placements (world * root inverse) turn about +Y only, stand on the
     * ground, and no two origins are closer than twice the largest footprint radius (the farthest
     * a model reaches from the axis it is turned about). */
    double reach = 0.0;
    for (uint32_t m = 0; m < c->model_count; m++) {
        mat4 root;
        root_transform(c->models[m], root);
        for (int k = 0; k < 8; k++) {
            const float *lo = c->model_lo[m], *hi = c->model_hi[m];
            float p[3] = {k & 1 ? hi[0] : lo[0], k & 2 ? hi[1] : lo[1], k & 4 ? hi[2] : lo[2]};
            double w[3];
            transform(root, p, w);
            reach = fmax(reach, sqrt(w[0] * w[0] + w[2] * w[2]));
        }
    }
    double(*spot)[2] = malloc(sizeof *spot * c->instance_count);
    if (!spot)
        return;
    uint32_t bad = 0;
    for (uint32_t i = 0; i < c->instance_count; i++) {
        double p[4][4];
        placement(&c->instances[i], c->models[c->instances[i].model], p);
        bad += fabs(p[1][0]) > 1e-4 || fabs(p[1][1] - 1.0) > 1e-4 || fabs(p[1][2]) > 1e-4;
        bad += fabs(p[0][1]) > 1e-4 || fabs(p[2][1]) > 1e-4 || fabs(p[3][1]) > 1e-4;
        bad += fabs(p[0][0] * p[0][0] + p[0][2] * p[0][2] - 1.0) > 1e-4;
        spot[i][0] = p[3][0];
        spot[i][1] = p[3][2];
    }
    CHECK(bad == 0);
    double closest = DBL_MAX;
    for (uint32_t i = 0; i < c->instance_count; i++)
        for (uint32_t j = i + 1; j < c->instance_count; j++)
            closest = fmin(closest, hypot(spot[i][0] - spot[j][0], spot[i][1] - spot[j][1]));
    if (c->instance_count > 1) {
        CHECK(closest >= 2.0 * reach * 0.999);
        if (!(closest >= 2.0 * reach * 0.999))
            fprintf(stderr, "  closest spots %g apart, footprints reach %g\n", closest, reach);
    }
    free(spot);
}

/* (b) 37 instances of two models: grouping, prefix sums, layout, variety, determinism. */
static void test_mixed(void)
{
    const vks_model *models[] = {&def, &chain};
    vks_crowd_desc desc = {
        .models = models, .model_count = 2, .instance_count = 37, .time = 0.5, .seed = 99};
    vks_crowd c, again, other;
    if (!create(&desc, &c))
        return;
    CHECK(c.model_count == 2);
    CHECK(c.model_first[0] == 0 && c.model_first[1] == 19 && c.model_first[2] == 37);
    CHECK(c.palette_count == 19 * def.skeleton.joint_count + 18 * chain.skeleton.joint_count);
    check_layout(&c);

    /* Grid centred on the origin: 7 columns, 6 rows (the last one partial). */
    double lo[2] = {DBL_MAX, DBL_MAX}, hi[2] = {-DBL_MAX, -DBL_MAX};
    for (uint32_t i = 0; i < c.instance_count; i++) {
        double p[4][4];
        placement(&c.instances[i], c.models[c.instances[i].model], p);
        for (int a = 0; a < 2; a++) {
            lo[a] = fmin(lo[a], p[3][2 * a]);
            hi[a] = fmax(hi[a], p[3][2 * a]);
        }
    }
    CHECK_NEAR(lo[0] + hi[0], 0.0, 1e-4);
    CHECK_NEAR(lo[1] + hi[1], 0.0, 1e-4);
    CHECK(hi[0] - lo[0] > 0.0 && hi[1] - lo[1] > 0.0);

    /* Varied clips: model m's instance k plays clip k mod clip_count. */
    uint32_t clip_wrong = 0, speed_wrong = 0, time_wrong = 0, distinct_times = 0,
             distinct_speeds = 0, distinct_clips = 0;
    for (uint32_t m = 0; m < 2; m++) {
        const vks_model *model = models[m];
        for (uint32_t i = c.model_first[m], k = 0; i < c.model_first[m + 1]; i++, k++) {
            const vks_crowd_instance *in = &c.instances[i];
            int32_t want = model->clip_count ? (int32_t)(k % model->clip_count) : -1;
            clip_wrong += in->clip != want;
            speed_wrong += !(in->speed >= 0.8f && in->speed <= 1.25f);
            double d = in->clip >= 0 ? model->clips[in->clip].duration : 0.0;
            time_wrong += !(in->time >= 0.0 && (d == 0.0 || in->time <= d));
            if (i > 0) {
                distinct_times += in->time != c.instances[i - 1].time;
                distinct_speeds += in->speed != c.instances[i - 1].speed;
                distinct_clips += in->clip != c.instances[i - 1].clip;
            }
        }
    }
    CHECK(clip_wrong == 0 && speed_wrong == 0 && time_wrong == 0);
    CHECK(distinct_times > 20 && distinct_speeds > 20 && distinct_clips > 10);
    CHECK(c.instances[0].speed == 1.0f && c.instances[0].time == 0.5);

    /* The same seed, the same crowd; another seed, another. */
    if (create(&desc, &again)) {
        CHECK(memcmp(c.instances, again.instances, sizeof *c.instances * c.instance_count) == 0);
        vks_crowd_destroy(&again);
    }
    desc.seed = 100;
    if (create(&desc, &other)) {
        uint32_t differ = 0;
        for (uint32_t i = 1; i < c.instance_count; i++)
            differ += other.instances[i].speed != c.instances[i].speed;
        CHECK(differ > 20);
        vks_crowd_destroy(&other);
    }
    vks_crowd_destroy(&c);

    /* A root transform that turns, scales and moves the model (as a Z-up file's would): the
     * spheres and footprints must follow it. */
    vks_model turned = def;
    const float ri[3][4] = {
        {0.0f, 0.0f, 0.5f, 0.1f}, {0.5f, 0.0f, 0.0f, -0.2f}, {0.0f, 0.5f, 0.0f, 0.3f}};
    memcpy(turned.skeleton.root_inverse.row, ri, sizeof ri);
    const vks_model *turned_models[] = {&turned, &chain};
    for (int layout = 0; layout < 2; layout++) {
        desc = (vks_crowd_desc){.models = turned_models,
                                .model_count = 2,
                                .instance_count = 30,
                                .layout = (vks_crowd_layout)layout};
        if (create(&desc, &c)) {
            check_layout(&c);
            vks_crowd_destroy(&c);
        }
    }

    /* A ring of three models (one without clips: the bind pose), every spot facing the centre. */
    const vks_model *three[] = {&def, &chain, &still};
    desc = (vks_crowd_desc){.models = three,
                            .model_count = 3,
                            .instance_count = 25,
                            .layout = VKS_CROWD_RING,
                            .threads = 2,
                            .seed = 5};
    if (!create(&desc, &c))
        return;
    check_layout(&c);
    uint32_t facing_wrong = 0;
    double radius = -1.0;
    for (uint32_t i = 0; i < c.instance_count; i++) {
        double p[4][4];
        placement(&c.instances[i], c.models[c.instances[i].model], p);
        double r = hypot(p[3][0], p[3][2]);
        if (radius < 0.0)
            radius = r;
        facing_wrong += fabs(r - radius) > 1e-4 * radius;
        /* +Z turned by the placement points from the spot to the centre. */
        facing_wrong += fabs(p[2][0] + p[3][0] / r) > 1e-4 || fabs(p[2][2] + p[3][2] / r) > 1e-4;
        if (c.instances[i].model == 2)
            facing_wrong += c.instances[i].clip != -1;
    }
    CHECK(facing_wrong == 0);
    vks_crowd_destroy(&c);
}

/* (c) A 2-thread pool writes exactly what the caller alone writes, and only the listed
 * instances' palettes; over frames with advances and a cross-fade. 3000 instances listed, up to
 * 42 joints each: past the 4 MiB a frame from which the crowd streams its palettes
 * (non-temporal stores); the first frame's are checked against the direct path. */
static void test_pool_equal(void)
{
    const vks_model *models[] = {&def, &chain, &still};
    vks_crowd_desc desc = {
        .models = models, .model_count = 3, .instance_count = 4500, .threads = 2, .seed = 3};
    vks_crowd a, b;
    vks_pool *pool = NULL;
    vks_error err = {{0}};
    CHECK(vks_pool_create(2, &pool, &err));
    if (!pool || !create_twins(&desc, &desc, &a, &b))
        return;
    uint32_t n = a.palette_count;
    vks_bone *pa = malloc(sizeof *pa * n), *pb = malloc(sizeof *pb * n);
    uint32_t *visible = malloc(sizeof *visible * a.instance_count);
    uint32_t *listed = calloc(a.instance_count, sizeof *listed);
    if (pa && pb && visible && listed) {
        uint32_t count = 0;
        for (uint32_t i = 0; i < a.instance_count; i++) {
            if (i % 3 != 1) {
                visible[count++] = i;
                listed[i] = 1;
            }
        }
        memset(pa, 0xA5, sizeof *pa * n);
        memset(pb, 0xA5, sizeof *pb * n);
        vks_bone sentinel;
        memset(&sentinel, 0xA5, sizeof sentinel);
        for (int frame = 0; frame < 12; frame++) {
            if (frame == 4) {
                vks_crowd_switch_clip(&a, 1, 0.25);
                vks_crowd_switch_clip(&b, 1, 0.25);
            }
            vks_crowd_palettes(&a, pool, visible, count, pa);
            vks_crowd_palettes(&b, NULL, visible, count, pb);
            CHECK(memcmp(pa, pb, sizeof *pa * n) == 0);
            if (frame == 0) {
                uint32_t far = 0, max_joints = chain.skeleton.joint_count;
                vks_bone *want = malloc(sizeof *want * max_joints);
                vks_xform *local = malloc(sizeof *local * max_joints);
                vks_affine *scratch = malloc(sizeof *scratch * max_joints);
                for (uint32_t k = 0; k < count && want && local && scratch; k++) {
                    const vks_crowd_instance *in = &a.instances[visible[k]];
                    const vks_model *m = a.models[in->model];
                    direct_palette(m, in->clip, in->time, local, scratch, want);
                    far += !(pose_deviation(m, pa + a.palette_first[visible[k]], want) <= POSE_TOL);
                }
                CHECK(want && local && scratch && far == 0);
                free(want);
                free(local);
                free(scratch);
            }
            uint32_t touched = 0, untouched = 0;
            for (uint32_t i = 0; i < a.instance_count; i++) {
                uint32_t joints = a.models[a.instances[i].model]->skeleton.joint_count;
                for (uint32_t j = 0; j < joints; j++) {
                    bool same =
                        memcmp(&pa[a.palette_first[i] + j], &sentinel, sizeof sentinel) == 0;
                    touched += !listed[i] && !same;
                    untouched += listed[i] && same;
                }
            }
            CHECK(touched == 0 && untouched == 0);
            vks_crowd_advance(&a, NULL, 1.0 / 30);
            vks_crowd_advance(&b, NULL, 1.0 / 30);
        }
    }
    free(pa);
    free(pb);
    free(visible);
    free(listed);
    vks_crowd_destroy(&a);
    vks_crowd_destroy(&b);
    vks_pool_destroy(pool);
}

/* min over the sphere of the linear function f(p) = a . p + b (a row combination of the clip
 * transform): positive means the whole sphere is outside that clip plane. */
static double sphere_min(const double a[4], const float c[3], float r)
{
    return a[0] * c[0] + a[1] * c[1] + a[2] * c[2] + a[3] -
           sqrt(a[0] * a[0] + a[1] * a[1] + a[2] * a[2]) * r;
}

/* Strictly inside the clip volume: |x|, |y| < w and 0 < z < w. */
static bool clip_inside(const double row[4][4], const float p[3])
{
    double clip[4];
    for (int r = 0; r < 4; r++)
        clip[r] = row[r][0] * p[0] + row[r][1] * p[1] + row[r][2] * p[2] + row[r][3];
    return fabs(clip[0]) < clip[3] && fabs(clip[1]) < clip[3] && clip[2] > 0.0 && clip[2] < clip[3];
}

/* (d) Culling against the clip-space definition, on a camera that sees part of a grid. */
static void test_cull(void)
{
    const vks_model *models[] = {&def};
    vks_crowd_desc desc = {.models = models, .model_count = 1, .instance_count = 100, .seed = 8};
    vks_crowd c;
    if (!create(&desc, &c))
        return;
    uint32_t *visible = malloc(sizeof *visible * c.instance_count);
    if (!visible) {
        vks_crowd_destroy(&c);
        return;
    }
    /* From above one corner, looking across the grid's middle; the far plane cuts it too. */
    const struct {
        vec3 eye, at;
        float far_z, near_z;
    } cams[] = {
        {{0.0f, 1.6f, 0.0f}, {10.0f, 1.2f, 3.0f}, 6.0f, 0.1f},
        {{c.lo[0], 3.0f, c.lo[2]}, {0.0f, 0.0f, 0.0f}, 100.0f, 0.1f},
        {{0.0f, 20.0f, 0.1f}, {0.0f, 0.0f, 0.0f}, 50.0f, 0.1f},   /* straight down, narrow */
        {{c.lo[0], 1.0f, 0.0f}, {0.0f, 1.0f, 0.0f}, 40.0f, 4.0f}, /* a far near plane */
    };
    uint32_t partly_total = 0;
    for (size_t k = 0; k < sizeof cams / sizeof *cams; k++) {
        mat4 view, proj, vp;
        vec3 eye, at;
        glm_vec3_copy((float *)cams[k].eye, eye);
        glm_vec3_copy((float *)cams[k].at, at);
        glm_lookat_rh(eye, at, (vec3){0.0f, 1.0f, 0.0f}, view);
        glm_perspective_rh_zo(glm_rad(k == 2 ? 20.0f : 40.0f), 16.0f / 9.0f, cams[k].near_z,
                              cams[k].far_z, proj);
        proj[1][1] = -proj[1][1]; /* Vulkan's y points down, as app_camera_uniforms */
        glm_mat4_mul(proj, view, vp);

        for (uint32_t i = 0; i < c.instance_count; i++)
            visible[i] = UINT32_MAX;
        uint32_t count = vks_crowd_cull(&c, NULL, vp, visible);
        CHECK(count > 0 && count < c.instance_count);
        uint32_t order_wrong = 0;
        for (uint32_t v = 0; v < count; v++)
            order_wrong +=
                visible[v] >= c.instance_count || (v > 0 && visible[v] <= visible[v - 1]);
        CHECK(order_wrong == 0);
        uint8_t *is_visible = calloc(c.instance_count, 1);
        if (!is_visible)
            break;
        for (uint32_t v = 0; v < count; v++)
            if (visible[v] < c.instance_count)
                is_visible[visible[v]] = 1;

        /* Rows of the clip transform, in doubles, and the six "outside" functions: x - w, -x - w,
         * y - w, -y - w, -z, z - w (the sphere is outside where one is positive throughout). */
        double row[4][4];
        for (int r = 0; r < 4; r++)
            for (int col = 0; col < 4; col++)
                row[r][col] = vp[col][r];
        double out_f[6][4];
        for (int col = 0; col < 4; col++) {
            out_f[0][col] = row[0][col] - row[3][col];
            out_f[1][col] = -row[0][col] - row[3][col];
            out_f[2][col] = row[1][col] - row[3][col];
            out_f[3][col] = -row[1][col] - row[3][col];
            out_f[4][col] = -row[2][col];
            out_f[5][col] = row[2][col] - row[3][col];
        }
        uint32_t missed = 0, kept = 0, inside_centres = 0, outside_spheres = 0, partly = 0;
        for (uint32_t i = 0; i < c.instance_count; i++) {
            const vks_crowd_instance *in = &c.instances[i];
            bool centre_inside = clip_inside(row, in->center);
            /* Points of the sphere (just inside its surface, along 26 directions) that project
             * inside: the sphere meets the frustum even when its centre does not. */
            bool some_inside = centre_inside;
            for (int d = 0; d < 27; d++) {
                float dir[3] = {(float)(d % 3) - 1.0f, (float)(d / 3 % 3) - 1.0f,
                                (float)(d / 9) - 1.0f};
                float len = sqrtf(dir[0] * dir[0] + dir[1] * dir[1] + dir[2] * dir[2]);
                if (len == 0.0f)
                    continue;
                float p[3];
                for (int a = 0; a < 3; a++)
                    p[a] = in->center[a] + dir[a] / len * in->radius * 0.999f;
                some_inside |= clip_inside(row, p);
            }
            bool sphere_outside = false;
            for (int p = 0; p < 6; p++)
                sphere_outside |= sphere_min(out_f[p], in->center, in->radius) > 1e-4;
            inside_centres += centre_inside;
            outside_spheres += sphere_outside;
            partly += some_inside && !centre_inside;
            missed += some_inside && !is_visible[i];
            kept += sphere_outside && is_visible[i];
        }
        CHECK(missed == 0 && kept == 0);
        CHECK(inside_centres > 0 && outside_spheres > 0);
        partly_total += partly;
        if (missed || kept || !inside_centres || !outside_spheres)
            fprintf(stderr, "  camera %zu: %u visible, %u centres inside, %u spheres outside\n", k,
                    count, inside_centres, outside_spheres);
        if (getenv("VKS_TEST_VERBOSE"))
            printf("camera %zu: %u visible, %u centres inside, %u more partly, %u outside\n", k,
                   count, inside_centres, partly, outside_spheres);
        free(is_visible);
    }
    CHECK(partly_total > 0); /* the cameras cut through some spheres */
    /* Everything in view from far away; nothing when looking away. */
    {
        mat4 view, proj, vp;
        glm_lookat_rh((vec3){0.0f, 200.0f, 200.0f}, (vec3){0.0f, 0.0f, 0.0f},
                      (vec3){0.0f, 1.0f, 0.0f}, view);
        glm_perspective_rh_zo(glm_rad(60.0f), 1.0f, 1.0f, 1000.0f, proj);
        glm_mat4_mul(proj, view, vp);
        CHECK(vks_crowd_cull(&c, NULL, vp, visible) == c.instance_count);
        glm_lookat_rh((vec3){0.0f, 200.0f, 200.0f}, (vec3){0.0f, 400.0f, 400.0f},
                      (vec3){0.0f, 1.0f, 0.0f}, view);
        glm_mat4_mul(proj, view, vp);
        CHECK(vks_crowd_cull(&c, NULL, vp, visible) == 0);
    }
    free(visible);
    vks_crowd_destroy(&c);
}

/* (e) Clip switches and clocks. */
static void test_switch_advance(void)
{
    const vks_model *models[] = {&def, &still};
    vks_crowd_desc desc = {
        .models = models, .model_count = 2, .instance_count = 10, .time = 0.2, .seed = 11};
    vks_crowd c;
    if (!create(&desc, &c))
        return;
    int32_t before[10];
    double times[10];
    for (uint32_t i = 0; i < 10; i++) {
        before[i] = c.instances[i].clip;
        times[i] = c.instances[i].time;
    }
    vks_crowd_switch_clip(&c, 0, 0.3); /* no step: nothing changes */
    for (uint32_t i = 0; i < 10; i++)
        CHECK(c.instances[i].clip == before[i] && c.instances[i].fade_left == 0.0);

    vks_crowd_switch_clip(&c, -1, 0.3);
    uint32_t n = c.palette_count;
    vks_bone *got = malloc(sizeof *got * n), *want = malloc(sizeof *want * n);
    uint32_t max_joints = def.skeleton.joint_count > still.skeleton.joint_count
                              ? def.skeleton.joint_count
                              : still.skeleton.joint_count;
    vks_xform *la = malloc(sizeof *la * max_joints), *lb = malloc(sizeof *lb * max_joints);
    vks_affine *scratch = malloc(sizeof *scratch * max_joints);
    uint32_t visible[10] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9};
    for (uint32_t i = 0; i < 10; i++) {
        const vks_crowd_instance *in = &c.instances[i];
        const vks_model *m = c.models[in->model];
        if (m->clip_count == 0) {
            CHECK(in->clip == -1 && in->fade_left == 0.0 && in->time == times[i]);
            continue;
        }
        int32_t cc = (int32_t)m->clip_count;
        CHECK(in->clip == (before[i] - 1 + cc) % cc);
        CHECK(in->from_clip == before[i] && in->from_time == times[i]);
        CHECK(in->time == 0.0 && in->fade == 0.3 && in->fade_left == 0.3);
    }
    int faded_at = -1;
    for (int frame = 0; frame < 20 && got && want && la && lb && scratch; frame++) {
        vks_crowd_palettes(&c, NULL, visible, 10, got);
        /* Each instance's palette is the cross-fade of the two direct samples. */
        uint32_t wrong = 0;
        for (uint32_t i = 0; i < 10; i++) {
            const vks_crowd_instance *in = &c.instances[i];
            const vks_model *m = c.models[in->model];
            vks_bone *w = want + c.palette_first[i];
            sample_local(m, in->clip, in->time, la);
            if (in->fade_left > 0.0) {
                sample_local(m, in->from_clip, in->from_time, lb);
                float u = (float)(1.0 - in->fade_left / in->fade);
                vks_pose_blend(lb, la, u, m->skeleton.joint_count, la);
            }
            vks_pose_palette(&m->skeleton, la, scratch, w);
            wrong += !(pose_deviation(m, got + c.palette_first[i], w) <= POSE_TOL);
        }
        CHECK(wrong == 0);
        vks_crowd_advance(&c, NULL, 0.05);
        bool faded = true;
        for (uint32_t i = 0; i < 10; i++)
            faded &= !(c.instances[i].fade_left > 0.0);
        if (faded && faded_at < 0)
            faded_at = frame + 1;
    }
    /* 0.3 s at 0.05 s a frame: six advances, or seven after rounding. */
    CHECK(faded_at == 6 || faded_at == 7);

    /* Long and odd steps keep every clock within its clip. */
    const double steps[] = {1000.37, 0.0, 1e-9, 7.5, 123456.789};
    for (size_t s = 0; s < sizeof steps / sizeof *steps; s++) {
        vks_crowd_switch_clip(&c, 2, 0.5);
        vks_crowd_advance(&c, NULL, steps[s]);
        uint32_t wrong = 0;
        for (uint32_t i = 0; i < 10; i++) {
            const vks_crowd_instance *in = &c.instances[i];
            const vks_model *m = c.models[in->model];
            if (in->clip < 0)
                continue;
            double d = m->clips[in->clip].duration;
            wrong += !(in->time >= 0.0 && in->time < d);
            wrong += !(in->fade_left >= 0.0 && in->fade_left <= in->fade);
        }
        CHECK(wrong == 0);
    }
    /* Not-a-number or infinite steps and fades must not crash, nor leave NaN palettes behind a
     * finite step. */
    vks_crowd_switch_clip(&c, 1, NAN);
    vks_crowd_switch_clip(&c, 1, INFINITY);
    vks_crowd_advance(&c, NULL, 0.1);
    if (got) {
        vks_crowd_palettes(&c, NULL, visible, 10, got);
        uint32_t bad = 0;
        for (uint32_t e = 0; e < n; e++)
            for (int r = 0; r < 3; r++)
                for (int k = 0; k < 4; k++)
                    bad += !isfinite(got[e].row[r][k]);
        CHECK(bad == 0);
    }
    free(got);
    free(want);
    free(la);
    free(lb);
    free(scratch);
    vks_crowd_destroy(&c);
}

/* The bind pose on demand (the viewer's B key): every instance fades into the rest pose, whose
 * palettes are computed here from the skeleton alone, and back into the clip it held. */
static void test_bind_pose(void)
{
    const vks_model *models[] = {&def, &still};
    vks_crowd_desc desc = {
        .models = models, .model_count = 2, .instance_count = 6, .time = 0.4, .seed = 5};
    vks_crowd c;
    if (!create(&desc, &c))
        return;
    int32_t held[6];
    for (uint32_t i = 0; i < 6; i++)
        held[i] = c.instances[i].clip;
    vks_bone *got = malloc(sizeof *got * c.palette_count);
    vks_bone *want = malloc(sizeof *want * def.skeleton.joint_count);
    vks_xform *local = malloc(sizeof *local * def.skeleton.joint_count);
    vks_affine *scratch = malloc(sizeof *scratch * def.skeleton.joint_count);
    uint32_t visible[6] = {0, 1, 2, 3, 4, 5};
    if (got && want && local && scratch) {
        vks_crowd_bind_pose(&c, true, 0.0); /* at once */
        vks_crowd_advance(&c, NULL, 0.3);
        vks_crowd_palettes(&c, NULL, visible, 6, got);
        uint32_t wrong = 0, moved = 0;
        for (uint32_t i = 0; i < 6; i++) {
            const vks_model *m = c.models[c.instances[i].model];
            vks_pose_rest(&m->skeleton, local);
            vks_pose_palette(&m->skeleton, local, scratch, want);
            wrong += c.instances[i].clip != -1;
            wrong += !(pose_deviation(m, got + c.palette_first[i], want) <= POSE_TOL);
        }
        CHECK(wrong == 0);
        /* Back: each instance plays the clip it held, from its start, fading over 0.2 s. */
        vks_crowd_bind_pose(&c, false, 0.2);
        for (uint32_t i = 0; i < 6; i++) {
            const vks_crowd_instance *in = &c.instances[i];
            CHECK(in->clip == held[i]);
            if (held[i] >= 0)
                CHECK(in->from_clip == -1 && in->fade_left == 0.2 && in->time == 0.0);
        }
        vks_crowd_advance(&c, NULL, 0.5);
        vks_crowd_palettes(&c, NULL, visible, 6, got);
        for (uint32_t i = 0; i < 6; i++) {
            const vks_crowd_instance *in = &c.instances[i];
            const vks_model *m = c.models[in->model];
            if (in->clip < 0)
                continue;
            direct_palette(m, in->clip, in->time, local, scratch, want);
            moved += pose_deviation(m, got + c.palette_first[i], want) <= POSE_TOL;
        }
        CHECK(moved == 3); /* the three default characters play again; the still model has none */
    }
    free(got);
    free(want);
    free(local);
    free(scratch);
    vks_crowd_destroy(&c);
}

static void expect_fail(const vks_crowd_desc *desc, const char *message)
{
    vks_crowd c;
    memset(&c, 0x5A, sizeof c);
    vks_error err = {{0}};
    CHECK(!vks_crowd_create(desc, &c, &err));
    CHECK(strcmp(err.msg, message) == 0);
    if (strcmp(err.msg, message) != 0)
        fprintf(stderr, "  got      '%s'\n  expected '%s'\n", err.msg, message);
    CHECK(c.instances == NULL && c.instance_count == 0);
    vks_crowd_destroy(&c); /* safe after a failure */
}

/* (f) Bad descs: one clear message each, nothing allocated. */
static void test_bad(void)
{
    const vks_model *one[] = {&def};
    const vks_model *many[VKS_CROWD_MAX_MODELS + 1];
    for (uint32_t m = 0; m <= VKS_CROWD_MAX_MODELS; m++)
        many[m] = &def;
    char msg[512];

    expect_fail(&(vks_crowd_desc){.models = one, .instance_count = 1},
                "a crowd needs at least one model");
    expect_fail(&(vks_crowd_desc){.model_count = 1, .instance_count = 1},
                "a crowd needs at least one model");
    expect_fail(&(vks_crowd_desc){.models = many, .model_count = 17, .instance_count = 100},
                "a crowd takes at most 16 models, not 17");
    expect_fail(&(vks_crowd_desc){.models = one, .model_count = 1},
                "a crowd needs 1 to 16777216 instances, not 0");
    expect_fail(&(vks_crowd_desc){.models = one, .model_count = 1, .instance_count = 16777217},
                "a crowd needs 1 to 16777216 instances, not 16777217");
    expect_fail(
        &(vks_crowd_desc){
            .models = one, .model_count = 1, .instance_count = 1, .layout = (vks_crowd_layout)7},
        "unknown crowd layout 7");
    expect_fail(
        &(vks_crowd_desc){.models = one, .model_count = 1, .instance_count = 1, .threads = 5000},
        "a crowd takes 0 to 1024 threads, not 5000");
    expect_fail(
        &(vks_crowd_desc){.models = one, .model_count = 1, .instance_count = 1, .time = NAN},
        "a crowd's start time must be finite, not nan");

    const vks_model *with_null[] = {&def, NULL};
    expect_fail(&(vks_crowd_desc){.models = with_null, .model_count = 2, .instance_count = 4},
                "crowd model 1 is missing (NULL)");

    const int32_t bad_clips[] = {3, -3, INT32_MAX, INT32_MIN};
    for (int k = 0; k < 4; k++) {
        snprintf(msg, sizeof msg, "%s has 3 clip(s): clip %d is out of range", def.name,
                 (int)bad_clips[k]);
        expect_fail(
            &(vks_crowd_desc){
                .models = one, .model_count = 1, .clips = &bad_clips[k], .instance_count = 2},
            msg);
    }
    const vks_model *pair[] = {&def, &still};
    const int32_t pair_clips[] = {1, 0};
    snprintf(msg, sizeof msg, "%s has 0 clip(s): clip 0 is out of range", still.name);
    expect_fail(
        &(vks_crowd_desc){
            .models = pair, .model_count = 2, .clips = pair_clips, .instance_count = 2},
        msg);

    vks_model no_joints = def, no_vertices = def;
    no_joints.skeleton.joint_count = 0;
    no_vertices.vertex_count = 0;
    const vks_model *nj[] = {&def, &no_joints}, *nv[] = {&no_vertices};
    snprintf(msg, sizeof msg, "%s has nothing to draw (%u vertices, %u indices, 0 joints)",
             def.name, def.vertex_count, def.index_count);
    expect_fail(&(vks_crowd_desc){.models = nj, .model_count = 2, .instance_count = 3}, msg);
    snprintf(msg, sizeof msg, "%s has nothing to draw (0 vertices, %u indices, %u joints)",
             def.name, def.index_count, def.skeleton.joint_count);
    expect_fail(&(vks_crowd_desc){.models = nv, .model_count = 1, .instance_count = 3}, msg);

    /* The limits themselves are fine. */
    vks_crowd c;
    if (create(
            &(vks_crowd_desc){
                .models = many, .model_count = 16, .instance_count = 16, .threads = 1024},
            &c)) {
        CHECK(c.model_first[16] == 16 && c.threads == 1024);
        vks_crowd_destroy(&c);
    }
}

/* Levels of detail chosen along a camera path that drifts slowly out through the boundary between
 * level 0 and level 1 with a jitter of 1% a frame: with the hysteresis the level changes once;
 * the same path without it (the coarsest level within the bound, worked out here) flips back and
 * forth, so the path does test the hysteresis. Also: --lod forces (clamped to the last level),
 * and the eye inside the bounding sphere gives level 0. */
static void test_lod_hysteresis(void)
{
    vks_model m;
    vks_error err;
    if (!load_lods(&m))
        return;
    CHECK(vks_model_level_count(&m) >= 2);
    vks_crowd c;
    if (vks_model_level_count(&m) < 2 ||
        !create(&(vks_crowd_desc){.models = (const vks_model *const[]){&m},
                                  .model_count = 1,
                                  .instance_count = 1},
                &c)) {
        vks_model_destroy(&m);
        return;
    }
    const vks_crowd_instance *in = &c.instances[0];
    /* The default character: no scale in its nodes, and a crowd of one stands unscaled. */
    CHECK_NEAR(in->scale, 1.0, 1e-6);
    vks_lod_view view = {.pixels_per_unit = 1000.0f, .max_error_px = 1.0f, .force = -1};
    /* Where level 1's error projects to exactly the bound: distance to the sphere d_b. */
    const double px_per_unit_err = in->scale * view.pixels_per_unit;
    const double d_b = vks_model_level(&m, 1).error * px_per_unit_err / view.max_error_px;
    const double e2 = vks_model_level(&m, 2 < vks_model_level_count(&m) ? 2 : 1).error;
    uint32_t switches = 0, naive_switches = 0, last = UINT32_MAX, naive_last = UINT32_MAX;
    const uint32_t steps = 400;
    for (uint32_t k = 0; k <= 2 * steps; k++) {
        /* From 0.9 to 1.3 times the boundary and back, jittering by 1% (a hand-held camera). */
        const uint32_t out = k <= steps ? k : 2 * steps - k;
        double d = d_b * (0.9 + 0.4 * out / steps) * (1.0 + 0.01 * sin(1.7 * k));
        view.eye[0] = in->center[0] + (float)(d + in->radius);
        view.eye[1] = in->center[1];
        view.eye[2] = in->center[2];
        uint8_t level = 0;
        vks_crowd_choose(&c, NULL, &view, (const uint32_t[]){0}, 1, &level, NULL, NULL, 0, NULL);
        switches += last != UINT32_MAX && level != last;
        last = level;
        /* Without hysteresis: level 1 once its error is within the bound (level 2 stays out of
         * reach on this path while its error is over the bound). */
        const double dd = sqrt(pow(view.eye[0] - in->center[0], 2)) - in->radius;
        /* The level is within the contract at every step: no coarser than the coarsest whose
         * error projects within the bound, no finer than the coarsest within the bound less the
         * hysteresis (both worked out here in double; a step at a boundary within 1e-4 skipped). */
        uint32_t fine = 0, coarse = 0;
        bool tie = false;
        for (uint32_t l = 1; l < vks_model_level_count(&m); l++) {
            const double px = vks_model_level(&m, l).error * px_per_unit_err / dd;
            fine = px <= view.max_error_px ? l : fine;
            coarse = px <= view.max_error_px * VKS_LOD_HYSTERESIS ? l : coarse;
            tie |= fabs(px / view.max_error_px - 1.0) < 1e-4 ||
                   fabs(px / (view.max_error_px * VKS_LOD_HYSTERESIS) - 1.0) < 1e-4;
        }
        CHECK(tie || (level <= fine && level >= coarse));
        uint32_t naive = vks_model_level(&m, 1).error * px_per_unit_err / dd <= view.max_error_px;
        if (e2 * px_per_unit_err / dd <= view.max_error_px)
            naive = 2;
        naive_switches += naive_last != UINT32_MAX && naive != naive_last;
        naive_last = naive;
    }
    CHECK(switches == 2 && last == 0); /* coarser once on the way out, finer once back */
    CHECK(naive_switches > 2);
    printf("lod hysteresis: %u switch(es) along the path, %u without hysteresis\n", switches,
           naive_switches);

    uint8_t level;
    view.force = 99; /* past the last level: the last */
    vks_crowd_choose(&c, NULL, &view, (const uint32_t[]){0}, 1, &level, NULL, NULL, 0, NULL);
    CHECK(level == vks_model_level_count(&m) - 1);
    view.force = 0;
    vks_crowd_choose(&c, NULL, &view, (const uint32_t[]){0}, 1, &level, NULL, NULL, 0, NULL);
    CHECK(level == 0);
    view.force = -1; /* the eye inside the sphere: full detail */
    memcpy(view.eye, in->center, sizeof view.eye);
    c.instances[0].level = 3;
    vks_crowd_choose(&c, NULL, &view, (const uint32_t[]){0}, 1, &level, NULL, NULL, 0, NULL);
    CHECK(level == 0);
    vks_crowd_destroy(&c);
    vks_model_destroy(&m);
    (void)err;
}

/* Animation level of detail: two crowds of the same 400 (a 20 x 20 grid), one keeping poses. The
 * eye low beside one corner: near instances get period 1, far ones 2 and 4 (by projected size,
 * worked out here from the same rule). Over 8 frames each instance is posed exactly on frame 0
 * and on the frames where (frame + i) is a multiple of its period, and its palette is then the
 * plain crowd's at that time, bit for bit; on the frames between it holds the palette it had the
 * frame before. The work per frame is the count of those posings, a fraction of the crowd. */
static void test_anim_lod(void)
{
    const vks_crowd_desc desc = {.models = (const vks_model *const[]){&def},
                                 .model_count = 1,
                                 .instance_count = 400,
                                 .threads = 2,
                                 .seed = 7};
    vks_crowd_desc kept = desc;
    kept.keep_poses = true;
    vks_crowd a, b;
    if (!create_twins(&kept, &desc, &a, &b))
        return;
    const uint32_t n = a.instance_count;
    uint32_t *all = malloc(sizeof *all * n);
    uint8_t *periods = malloc(n);
    /* Two palette buffers used in turn, as the renderer's frame slots: a kept pose must be
     * written into the frame's buffer, which holds the frame before last's (here: garbage). */
    vks_bone *slots[2] = {malloc(sizeof(vks_bone) * a.palette_count),
                          malloc(sizeof(vks_bone) * a.palette_count)};
    vks_bone *pb = malloc(sizeof *pb * b.palette_count), *pa = slots[0], *before = slots[1];
    if (!all || !periods || !slots[0] || !slots[1] || !pb) {
        CHECK(!"out of memory");
        goto done;
    }
    for (uint32_t i = 0; i < n; i++)
        all[i] = i;
    /* The eye a little above the ground, just outside one corner of the grid. */
    vks_lod_view view = {.pixels_per_unit = 150.0f, .force = -1};
    view.eye[0] = a.lo[0] - 1.0f;
    view.eye[1] = 1.0f;
    view.eye[2] = a.lo[2] - 1.0f;
    vks_crowd_choose(&a, NULL, &view, all, n, NULL, NULL, periods, 0, NULL);
    uint32_t by_period[9] = {0}, bad_period = 0;
    for (uint32_t i = 0; i < n; i++) {
        const vks_crowd_instance *in = &a.instances[i];
        double d = sqrt(pow(in->center[0] - view.eye[0], 2) + pow(in->center[1] - view.eye[1], 2) +
                        pow(in->center[2] - view.eye[2], 2));
        double px = in->radius * view.pixels_per_unit / d;
        uint32_t want = d <= in->radius ? 1 : px >= 48.0 ? 1 : px >= 16.0 ? 2 : px >= 6.0 ? 4 : 8;
        bad_period += periods[i] != want;
        by_period[periods[i] <= 8 ? periods[i] : 0]++;
    }
    CHECK(bad_period == 0);
    CHECK(by_period[1] > 0 && by_period[2] > 0 && by_period[4] > 0 && by_period[8] > 0 &&
          by_period[0] + by_period[3] == 0); /* all four happen */
    uint64_t posed_total = 0;
    uint32_t wrong = 0;
    for (uint64_t frame = 0; frame < 16; frame++) {
        before = pa, pa = slots[frame % 2];
        memset(pa, 0xff, sizeof *pa * a.palette_count); /* NaN: what no pose writes */
        uint32_t posed = vks_crowd_animate(&a, NULL, all, periods, n, frame, pa, false, NULL);
        vks_crowd_palettes(&b, NULL, all, n, pb);
        uint32_t expected = 0;
        for (uint32_t i = 0; i < n; i++) {
            const bool pose = frame == 0 || (frame + i) % periods[i] == 0;
            expected += pose;
            const size_t at = a.palette_first[i], bytes = sizeof *pa * def.skeleton.joint_count;
            wrong += memcmp(pa + at, pose ? pb + at : before + at, bytes) != 0;
        }
        CHECK(posed == expected);
        posed_total += posed;
        vks_crowd_advance(&a, NULL, 1.0 / 60.0);
        vks_crowd_advance(&b, NULL, 1.0 / 60.0);
    }
    CHECK(wrong == 0);
    /* Frames 1 to 15 pose 1, 1/2, 1/4 or 1/8 of each group a frame: the work drops to the mean
     * of 1 / period (within the stagger's rounding over 15 frames). */
    const double share = (double)(posed_total - n) / (15.0 * n);
    const double mean =
        (by_period[1] + by_period[2] / 2.0 + by_period[4] / 4.0 + by_period[8] / 8.0) / n;
    CHECK(fabs(share - mean) < 0.05 && share < 0.9);
    printf("anim lod: periods 1: %u, 2: %u, 4: %u, 8: %u instances; %.0f%% of the crowd posed a "
           "frame after the first\n",
           by_period[1], by_period[2], by_period[4], by_period[8], 100.0 * share);
    /* A sparse list (every third instance: slot != index) on a pool of 2 threads, 4 more frames:
     * the same rule, by instance index and each slot's own period. */
    {
        vks_pool *pool = NULL;
        vks_error err;
        CHECK(vks_pool_create(2, &pool, &err));
        uint32_t sparse[134], m = 0;
        uint8_t sparse_periods[134];
        for (uint32_t i = 0; i < n; i += 3) {
            sparse_periods[m] = periods[i];
            sparse[m++] = i;
        }
        uint32_t sparse_wrong = 0;
        for (uint64_t frame = 16; pool && frame < 20; frame++) {
            before = pa, pa = slots[frame % 2];
            memset(pa, 0xff, sizeof *pa * a.palette_count);
            uint32_t posed =
                vks_crowd_animate(&a, pool, sparse, sparse_periods, m, frame, pa, false, NULL);
            vks_crowd_palettes(&b, NULL, sparse, m, pb);
            uint32_t expected = 0;
            for (uint32_t k = 0; k < m; k++) {
                const uint32_t i = sparse[k];
                const bool pose = (frame + i) % sparse_periods[k] == 0;
                expected += pose;
                const size_t at = a.palette_first[i], bytes = sizeof *pa * def.skeleton.joint_count;
                sparse_wrong += memcmp(pa + at, pose ? pb + at : before + at, bytes) != 0;
            }
            CHECK(posed == expected);
            vks_crowd_advance(&a, NULL, 1.0 / 60.0);
            vks_crowd_advance(&b, NULL, 1.0 / 60.0);
        }
        CHECK(sparse_wrong == 0);
        vks_pool_destroy(pool);
    }
    /* Seen again after a frame out of view: posed at once, whatever its period. */
    {
        const uint32_t far = n - 1; /* the corner away from the eye */
        CHECK(periods[far] == 8);
        uint32_t posed =
            vks_crowd_animate(&a, NULL, &far, &periods[far], 1, 21, pa, false, NULL); /* seen 19 */
        CHECK(posed == 1);
    }
done:
    free(all);
    free(periods);
    free(slots[0]);
    free(slots[1]);
    free(pb);
    vks_crowd_destroy(&a);
    vks_crowd_destroy(&b);
}

/* The animation level of detail writing into two palette buffers in turn with `reuse` (frames in
 * flight): each frame's buffer holds, for every listed instance, what a twin crowd without reuse
 * writes in full (its last computed pose), while only the posed instances' palettes and the kept
 * ones the buffer lacks are written: after the first two frames, those posed this frame and those
 * posed the frame before but not this one (they reached only the other buffer). */
static void test_anim_lod_reuse(void)
{
    const vks_model *models[] = {&def};
    vks_crowd_desc desc = {
        .models = models, .model_count = 1, .instance_count = 300, .seed = 5, .keep_poses = true};
    vks_crowd a, b;
    if (!create_twins(&desc, &desc, &a, &b))
        return;
    const uint32_t n = a.instance_count, joints = def.skeleton.joint_count;
    uint32_t *all = malloc(sizeof *all * n);
    uint8_t *periods = malloc(n), *posed_before = calloc(n, 1), *posed_now = calloc(n, 1);
    vks_bone *bufs[2] = {malloc(sizeof(vks_bone) * a.palette_count),
                         malloc(sizeof(vks_bone) * a.palette_count)};
    vks_bone *ref = malloc(sizeof(vks_bone) * b.palette_count);
    if (!all || !periods || !posed_before || !posed_now || !bufs[0] || !bufs[1] || !ref)
        goto done;
    for (uint32_t i = 0; i < n; i++) {
        all[i] = i;
        periods[i] = (uint8_t)(1u << (i % 4)); /* 1, 2, 4, 8 in turn */
    }
    memset(bufs[0], 0xff, sizeof(vks_bone) * a.palette_count); /* NaN: never written */
    memset(bufs[1], 0xff, sizeof(vks_bone) * a.palette_count);
    uint32_t held_wrong = 0, bytes_wrong = 0;
    uint64_t written_total = 0, full_total = 0;
    for (uint64_t frame = 0; frame < 24; frame++) {
        vks_bone *buf = bufs[frame % 2];
        uint64_t bytes = 0, ref_bytes = 0;
        const uint32_t posed =
            vks_crowd_animate(&a, NULL, all, periods, n, frame, buf, true, &bytes);
        vks_crowd_animate(&b, NULL, all, periods, n, frame, ref, false, &ref_bytes);
        held_wrong += memcmp(buf, ref, sizeof(vks_bone) * a.palette_count) != 0;
        /* The rule, written again: posed when (frame + i) is a multiple of its period (every
         * instance at frame 0). */
        uint64_t want = 0, posed_want = 0;
        for (uint32_t i = 0; i < n; i++) {
            posed_now[i] = frame == 0 || (frame + i) % periods[i] == 0;
            posed_want += posed_now[i];
            want += frame < 2 || posed_now[i] || posed_before[i]; /* the first two fill both */
        }
        bytes_wrong += posed != posed_want || bytes != want * joints * sizeof(vks_bone) ||
                       ref_bytes != (uint64_t)n * joints * sizeof(vks_bone);
        memcpy(posed_before, posed_now, n);
        if (frame >= 2) {
            written_total += bytes;
            full_total += ref_bytes;
        }
        vks_crowd_advance(&a, NULL, 1.0 / 60.0);
        vks_crowd_advance(&b, NULL, 1.0 / 60.0);
    }
    CHECK(held_wrong == 0 && bytes_wrong == 0);
    /* Periods 1, 2, 4, 8: 15/32 of the crowd posed a frame on average, the bytes below 0.8 of
     * writing everything (a kept pose reaches each buffer once). */
    CHECK(written_total < 0.8 * full_total);
    /* Frames counted again from 0, twice, 6 frames each (shorter than the longest period, so
     * that stamps of the first count survive into the second), on a pool of 2, the clocks
     * running on: each buffer still as the twin's full write. */
    vks_pool *pool = NULL;
    vks_error err;
    CHECK(vks_pool_create(2, &pool, &err));
    uint32_t again_wrong = 0;
    memset(periods, 8, n); /* all every 8th: some kept through a whole run */
    for (uint64_t run = 0; pool && run < 2; run++)
        for (uint64_t frame = 0; frame < 6; frame++) {
            vks_bone *buf = bufs[frame % 2];
            vks_crowd_animate(&a, pool, all, periods, n, frame, buf, true, NULL);
            /* the twin's frames go on counting, in step mod 8 */
            vks_crowd_animate(&b, NULL, all, periods, n, 32 + 8 * run + frame, ref, false, NULL);
            again_wrong += memcmp(buf, ref, sizeof(vks_bone) * a.palette_count) != 0;
            vks_crowd_advance(&a, NULL, 1.0 / 60.0);
            vks_crowd_advance(&b, NULL, 1.0 / 60.0);
        }
    CHECK(again_wrong == 0);
    vks_pool_destroy(pool);
    /* Written by other means (vks_crowd_palettes into one of them): forgotten, written whole. */
    vks_crowd_palettes(&a, NULL, all, n, bufs[0]);
    uint64_t bytes = 0;
    vks_crowd_animate(&a, NULL, all, periods, n, 12, bufs[0], true, &bytes);
    CHECK(bytes == (uint64_t)n * joints * sizeof(vks_bone));
    /* The same by the phase timings, which pose into the buffer their own way. */
    CHECK(vks_crowd_time_phases(&a, all, n, 1, 1, bufs[1], (double[3]){0}));
    vks_crowd_animate(&a, NULL, all, periods, n, 13, bufs[1], true, &bytes);
    CHECK(bytes == (uint64_t)n * joints * sizeof(vks_bone));
    printf("anim lod reuse: 24 frames in two buffers, each as the full write; %.0f%% of the "
           "bytes of writing every palette\n",
           100.0 * (double)written_total / (double)full_total);
done:
    free(all), free(periods), free(posed_before), free(posed_now);
    free(bufs[0]), free(bufs[1]), free(ref);
    vks_crowd_destroy(&a);
    vks_crowd_destroy(&b);
}

/* Culling, levels of detail, posing periods and clocks on a pool of 4 threads against the same
 * steps on one thread, on two equal crowds of 100 000 (13 chunks of VKS_CROWD_GRAIN and a part):
 * the same visible lists, levels, compute-rasterizer flags, periods and clocks, byte for byte,
 * over views that see all, a part at either end of the list, a scatter, and none. */
static void test_pool_frame_steps(void)
{
    vks_model m;
    if (!load_lods(&m))
        return;
    const vks_model *models[] = {&m};
    const vks_crowd_desc desc = {
        .models = models, .model_count = 1, .instance_count = 100000, .seed = 3};
    vks_crowd a, b;
    vks_pool *pool = NULL;
    vks_error err;
    if (!create_twins(&desc, &desc, &a, &b)) {
        vks_model_destroy(&m);
        return;
    }
    const uint32_t n = desc.instance_count;
    uint32_t *va = malloc(sizeof *va * n), *vb = malloc(sizeof *vb * n);
    uint8_t *la = malloc(n), *lb = malloc(n), *ra = malloc(n), *rb = malloc(n);
    uint8_t *pa = malloc(n), *pb = malloc(n), *ua = malloc(n), *ub = malloc(n);
    CHECK(vks_pool_create(4, &pool, &err));
    if (!va || !vb || !la || !lb || !ra || !rb || !pool)
        goto done;
    const float cx = 0.5f * (a.lo[0] + a.hi[0]), cz = 0.5f * (a.lo[2] + a.hi[2]);
    const struct {
        vec3 eye, at;
        float fov;
    } cams[] = {
        {{cx, 400.0f, cz + 1.0f}, {cx, 0.0f, cz}, 120.0f},               /* all of it */
        {{a.lo[0] - 2.0f, 2.0f, a.lo[2] - 2.0f}, {cx, 0.0f, cz}, 30.0f}, /* one corner */
        {{a.hi[0] + 2.0f, 2.0f, a.hi[2] + 2.0f}, {cx, 0.0f, cz}, 30.0f}, /* the other */
        {{cx, 1.0f, cz}, {cx + 10.0f, 1.0f, cz + 3.0f}, 60.0f},          /* from the middle */
        {{cx, 50.0f, cz}, {cx, 100.0f, cz}, 40.0f},                      /* the sky: none */
    };
    uint32_t lists_wrong = 0, counts[5] = {0};
    for (size_t k = 0; k < sizeof cams / sizeof *cams; k++) {
        mat4 view, proj, vp;
        vec3 eye, at;
        glm_vec3_copy((float *)cams[k].eye, eye);
        glm_vec3_copy((float *)cams[k].at, at);
        glm_lookat_rh(eye, at, (vec3){0.0f, 1.0f, 0.0f}, view);
        glm_perspective_rh_zo(glm_rad(cams[k].fov), 16.0f / 9.0f, 0.1f, 1000.0f, proj);
        proj[1][1] = -proj[1][1];
        glm_mat4_mul(proj, view, vp);
        const uint32_t ca = vks_crowd_cull(&a, NULL, vp, va);
        const uint32_t cb = vks_crowd_cull(&b, pool, vp, vb);
        counts[k] = cb;
        lists_wrong += ca != cb || memcmp(va, vb, sizeof *va * ca) != 0;
        vks_lod_view lv = {
            .pixels_per_unit = 540.0f, .max_error_px = 0.45f, .force = -1, .raster_area_px = 4.0f};
        memcpy(lv.eye, cams[k].eye, sizeof lv.eye);
        /* Levels and flags, then periods alone (levels not chosen), then all of it with the
         * schedule in one pass: each on the pool as on one thread, and the one pass's periods
         * those computed alone. */
        vks_crowd_choose(&a, NULL, &lv, va, ca, la, ra, NULL, 0, NULL);
        vks_crowd_choose(&b, pool, &lv, vb, cb, lb, rb, NULL, 0, NULL);
        lists_wrong += memcmp(la, lb, ca) != 0 || memcmp(ra, rb, ca) != 0;
        uint8_t *alone = la;
        vks_crowd_choose(&a, NULL, &lv, va, ca, NULL, NULL, alone, 0, NULL);
        vks_crowd_choose(&b, pool, &lv, vb, cb, NULL, NULL, lb, 0, NULL);
        lists_wrong += memcmp(alone, lb, ca) != 0;
        const uint32_t posed_a = vks_crowd_choose(&a, NULL, &lv, va, ca, ra, NULL, pa, k, ua);
        const uint32_t posed_b = vks_crowd_choose(&b, pool, &lv, vb, cb, rb, NULL, pb, k, ub);
        lists_wrong += posed_a != posed_b || memcmp(pa, pb, ca) != 0 ||
                       memcmp(pa, alone, ca) != 0 || memcmp(ua, ub, ca) != 0 ||
                       memcmp(ra, rb, ca) != 0;
        vks_crowd_advance(&a, NULL, 0.37);
        vks_crowd_advance(&b, pool, 0.37);
    }
    CHECK(lists_wrong == 0);
    CHECK(counts[0] == n && counts[1] > 0 && counts[1] < n && counts[2] > 0 && counts[2] < n &&
          counts[3] > 0 && counts[3] < n && counts[4] == 0);
    uint32_t clocks_wrong = 0, levels_wrong = 0;
    for (uint32_t i = 0; i < n; i++) {
        clocks_wrong += memcmp(&a.instances[i].time, &b.instances[i].time, sizeof(double)) != 0;
        levels_wrong += a.instances[i].level != b.instances[i].level;
    }
    CHECK(clocks_wrong == 0 && levels_wrong == 0);
    printf("pool of 4 against one thread, 100000 instances: visible %u, %u, %u, %u, %u; lists, "
           "levels, flags, periods and clocks the same\n",
           counts[0], counts[1], counts[2], counts[3], counts[4]);
done:
    vks_pool_destroy(pool);
    free(va), free(vb), free(la), free(lb), free(ra), free(rb);
    free(pa), free(pb), free(ua), free(ub);
    vks_crowd_destroy(&a);
    vks_crowd_destroy(&b);
    vks_model_destroy(&m);
}

/* Every live instance's palette posed by the crowd (one call over every live index) against the
 * direct path at its clip and clock; counts in *bad those past POSE_TOL, and the live instances
 * whose ranges overlap another's or pass palette_count. */
static void check_live_palettes(vks_crowd *c, int *bad)
{
    uint32_t *list = calloc(c->instance_count, sizeof *list), n = 0;
    vks_bone *got = malloc(sizeof *got * (c->palette_count ? c->palette_count : 1));
    uint8_t *owner = calloc(c->palette_count ? c->palette_count : 1, 1);
    vks_xform local[256];
    vks_affine scratch[256];
    vks_bone want[256];
    if (!list || !got || !owner) {
        CHECK(!"out of memory");
        free(list), free(got), free(owner);
        return;
    }
    for (uint32_t i = 0; i < c->instance_count; i++)
        if (!c->instances[i].removed)
            list[n++] = i;
    vks_crowd_palettes(c, NULL, list, n, got);
    for (uint32_t k = 0; k < n; k++) {
        const uint32_t i = list[k];
        const vks_crowd_instance *in = &c->instances[i];
        const vks_model *m = c->models[in->model];
        const uint32_t first = c->palette_first[i], joints = m->skeleton.joint_count;
        *bad += c->model_of[i] != in->model || first + joints > c->palette_count ||
                joints > c->palette_room[i];
        for (uint32_t j = 0; j < joints && first + j < c->palette_count; j++)
            *bad += owner[first + j]++ != 0; /* another live instance's entry */
        assert(joints <= 256);
        direct_palette(m, in->clip, in->time, local, scratch, want);
        *bad += !(pose_deviation(m, got + first, want) <= POSE_TOL);
    }
    free(list), free(got), free(owner);
}

/* Instances that come and go: a crowd of two models changed while another, made the same, is
 * left alone. Indices (a removed index is free and reused last-removed first; every other index
 * keeps its instance, which culls and poses as its twin does), the arrays growing past their
 * capacity, ranges that never overlap, model swaps to more and fewer joints, the ranges packed
 * again after many swaps, and restore: the crowd as created, instance for instance. */
static void test_changes(void)
{
    const vks_model *models[] = {&def, &chain};
    CHECK(def.skeleton.joint_count != chain.skeleton.joint_count);
    enum { N = 6 };
    const vks_crowd_desc desc = {
        .models = models, .model_count = 2, .instance_count = N, .time = 0.2, .seed = 9};
    vks_crowd a, b;
    if (!create_twins(&desc, &desc, &a, &b))
        return;
    vks_error err;
    vks_crowd_instance *start = malloc(sizeof *start * N);
    if (!start) {
        CHECK(!"out of memory");
        return;
    }
    memcpy(start, a.instances, sizeof *start * N);
    const float world[4][4] = {{1, 0, 0, 0}, {0, 1, 0, 0}, {0, 0, 1, 0}, {3, 0, -2, 1}};
    uint32_t at = 99;
    vks_crowd_remove(&a, 1);
    vks_crowd_remove(&a, 4);
    CHECK(a.live_count == N - 2 && a.instance_count == N && a.instances[4].hidden);
    /* The last removed first, then the other, then new indices at the end, growing. */
    CHECK(vks_crowd_add(&a, 1, world, &at, &err) && at == 4);
    CHECK(vks_crowd_add(&a, 0, world, &at, &err) && at == 1);
    int bad_index = 0;
    for (uint32_t k = 0; k < 3 * N; k++) {
        bad_index += !vks_crowd_add(&a, k % 2, world, &at, &err) || at != N + k;
        vks_crowd_play(&a, at, 0, 0.0); /* its model's first clip, from 0 */
    }
    CHECK(bad_index == 0);
    CHECK(a.instance_count == 4 * N && a.live_count == 4 * N && a.instance_capacity >= 4 * N);
    CHECK(a.instances[4].model == 1 && a.instances[1].model == 0 && a.instances[4].clip == -1);
    CHECK(!vks_crowd_add(&a, 2, world, &at, &err) && strstr(err.msg, "no model 2"));
    /* Swaps both ways; instance 0 untouched. */
    CHECK(vks_crowd_set_model(&a, 2, 1 - a.instances[2].model, &err));
    CHECK(vks_crowd_set_model(&a, 3, 1 - a.instances[3].model, &err));
    vks_crowd_advance(&a, NULL, 0.4);
    vks_crowd_advance(&b, NULL, 0.4);
    int bad = 0;
    check_live_palettes(&a, &bad);
    CHECK(bad == 0);
    /* The untouched instances pose as their twins, bit for bit. */
    const uint32_t same[] = {0, 5};
    vks_bone *ga = malloc(sizeof *ga * (a.palette_count + 4096)),
             *gb = malloc(sizeof *gb * b.palette_count);
    for (uint32_t k = 0; ga && gb && k < 2; k++) {
        const uint32_t i = same[k], joints = a.models[a.instances[i].model]->skeleton.joint_count;
        vks_crowd_palettes(&a, NULL, &i, 1, ga);
        vks_crowd_palettes(&b, NULL, &i, 1, gb);
        CHECK(memcmp(ga + a.palette_first[i], gb + b.palette_first[i], sizeof *ga * joints) == 0);
    }
    /* Culling: every live instance in a view of everything, no removed one. */
    vks_crowd_remove(&a, 7);
    uint32_t *visible = malloc(sizeof *visible * a.instance_count);
    if (visible) {
        mat4 proj, view, vp;
        glm_perspective_rh_zo(1.2f, 1.0f, 0.1f, 1e4f, proj);
        glm_lookat_rh((vec3){0, 300, 600}, (vec3){0, 0, 0}, (vec3){0, 1, 0}, view);
        glm_mat4_mul(proj, view, vp);
        const uint32_t n = vks_crowd_cull(&a, NULL, (const float(*)[4])vp, visible);
        CHECK(n == a.live_count);
        for (uint32_t k = 0; k < n; k++)
            CHECK(visible[k] != 7);
    }
    free(visible);
    /* Swaps both ways reuse an index's range once it holds the larger model. Ranges left behind
     * (the removed instances', those outgrown) pile up at the end until the arrays would grow
     * with more than half of the entries unused: then they are packed again, and the palettes
     * are still right. Added (new indices) and removed by the hundred, then an instance of the
     * smaller model swapped up at a time, until a pack. */
    CHECK(vks_crowd_add(&a, 0, world, &at, &err) && at == 7); /* the one free index */
    const uint32_t small = def.skeleton.joint_count < chain.skeleton.joint_count ? 0 : 1;
    const uint32_t small_joints = models[small]->skeleton.joint_count;
    uint32_t most = 0, packs = 0;
    /* Room for many: 400 of the larger model added and removed (their indices free). */
    for (uint32_t k = 0; k < 400; k++) {
        CHECK(vks_crowd_add(&a, 1 - small, world, &at, &err));
        vks_crowd_remove(&a, at);
    }
    CHECK(a.free_count == 1); /* the same index, each time */
    const uint32_t first_new = a.instance_count;
    for (uint32_t k = 0; k < 400; k++)
        CHECK(vks_crowd_add(&a, 1 - small, world, &at, &err));
    for (uint32_t i = first_new - 1; i < a.instance_count; i++)
        vks_crowd_remove(&a, i);
    /* Small ones, reusing those indices, then at new ones until the entries fill the arrays to
     * the brim; then all removed but the last. */
    uint32_t last = 0, added = 0;
    while (a.palette_count + small_joints <= a.palette_capacity && added < 100000) {
        CHECK(vks_crowd_add(&a, small, world, &last, &err));
        added++;
    }
    CHECK(added > 400 && a.free_count == 0);
    for (uint32_t i = first_new - 1; i < a.instance_count; i++)
        if (i != last)
            vks_crowd_remove(&a, i);
    const uint32_t before = most = a.palette_count;
    /* The last one up: a new range would grow the arrays, with most entries unused: packed. */
    CHECK(vks_crowd_set_model(&a, last, 1 - small, &err));
    packs += a.palette_count < before;
    uint64_t live = 0;
    for (uint32_t i = 0; i < a.instance_count; i++)
        live += a.instances[i].removed ? 0 : a.models[a.instances[i].model]->skeleton.joint_count;
    CHECK(packs == 1);
    CHECK(a.palette_count <= 2 * live + 4096 + def.skeleton.joint_count);
    bad = 0;
    check_live_palettes(&a, &bad);
    CHECK(bad == 0);
    /* Restored: the instances as created at their indices (the twin's records), the added ones
     * removed; every one poses as its twin. */
    CHECK(vks_crowd_restore(&a, start, N, &err));
    CHECK(a.live_count == N && a.free_count == a.instance_count - N);
    bad = 0;
    check_live_palettes(&a, &bad); /* the restored ranges disjoint, the palettes right */
    CHECK(bad == 0);
    vks_crowd_restore(&b, start, N, &err);
    bool same_records = true;
    for (uint32_t i = 0; i < N; i++)
        same_records &= memcmp(&a.instances[i], &start[i], sizeof start[i]) == 0;
    CHECK(same_records);
    uint32_t all[N];
    for (uint32_t i = 0; i < N; i++)
        all[i] = i;
    free(ga);
    ga = malloc(sizeof *ga * a.palette_count);
    if (ga && gb) {
        vks_crowd_palettes(&a, NULL, all, N, ga);
        vks_crowd_palettes(&b, NULL, all, N, gb);
        for (uint32_t i = 0; i < N; i++)
            CHECK(memcmp(ga + a.palette_first[i], gb + b.palette_first[i],
                         sizeof *ga * a.models[a.instances[i].model]->skeleton.joint_count) == 0);
    }
    CHECK(vks_crowd_add(&a, 0, world, &at, &err) && at == N); /* the lowest free index first */
    free(ga), free(gb), free(start);
    printf("  changes: %u instances (%u live), capacity %u, palettes %u entries at most %u (live "
           "%llu)\n",
           a.instance_count, a.live_count, a.instance_capacity, a.palette_count, most,
           (unsigned long long)live);
    vks_crowd_destroy(&a);
    vks_crowd_destroy(&b);
}

/* A vks_dq back to its similarity's 3x4 (rows), in double: R(q) s, then t. */
static void dq_to_bone(const vks_dq *d, vks_bone *b)
{
    const double x = d->q[0], y = d->q[1], z = d->q[2], w = d->q[3], s = d->s;
    const double r[3][3] = {{1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)},
                            {2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)},
                            {2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)}};
    for (int i = 0; i < 3; i++) {
        for (int j = 0; j < 3; j++)
            b->row[i][j] = (float)(s * r[i][j]);
        b->row[i][3] = d->t[i];
    }
}

/* Dual-quaternion crowds: every listed instance's range holds its palette as vks_dq packed from
 * its start (read back as similarities: the direct path's palette), the rest of the range left
 * as it was, on the pool as alone; the written bytes counted as such; with the animation level of
 * detail, a kept pose copied out as the posed one (both buffers in turn). */
static void test_dual_quaternion(void)
{
    const vks_model *models[] = {&def, &chain, &still};
    vks_crowd_desc desc = {.models = models,
                           .model_count = 3,
                           .instance_count = 600,
                           .threads = 2,
                           .seed = 5,
                           .dual_quaternion = true,
                           .keep_poses = true};
    vks_crowd a, b;
    vks_pool *pool = NULL;
    vks_error err = {{0}};
    CHECK(vks_pool_create(2, &pool, &err));
    if (!pool || !create_twins(&desc, &desc, &a, &b))
        return;
    const uint32_t n = a.palette_count, count = a.instance_count;
    vks_bone *pa = malloc(sizeof *pa * n), *pb = malloc(sizeof *pb * n);
    uint32_t *all = malloc(sizeof *all * count);
    vks_bone *want = malloc(sizeof *want * 64), *got = malloc(sizeof *got * 64);
    vks_xform *local = malloc(sizeof *local * 64);
    vks_affine *scratch = malloc(sizeof *scratch * 64);
    if (!pa || !pb || !all || !want || !got || !local || !scratch) {
        CHECK(!"memory");
        goto done;
    }
    for (uint32_t i = 0; i < count; i++)
        all[i] = i;
    vks_bone sentinel;
    memset(&sentinel, 0xA5, sizeof sentinel);
    memset(pa, 0xA5, sizeof *pa * n);
    memset(pb, 0xA5, sizeof *pb * n);
    uint64_t bytes = 0, want_bytes = 0;
    vks_crowd_animate(&a, pool, all, NULL, count, 0, pa, false, &bytes);
    vks_crowd_palettes(&b, NULL, all, count, pb);
    CHECK(memcmp(pa, pb, sizeof *pa * n) == 0);
    uint32_t far = 0, untouched = 0, spilled = 0;
    for (uint32_t i = 0; i < count; i++) {
        const vks_crowd_instance *in = &a.instances[i];
        const vks_model *m = a.models[in->model];
        const uint32_t joints = m->skeleton.joint_count;
        const uint32_t entries = (joints * 32 + 47) / 48;
        CHECK(joints <= 64 && vks_crowd_written_entries(&a, in->model) == entries);
        want_bytes += 48ull * entries;
        direct_palette(m, in->clip, in->time, local, scratch, want);
        const char *range = (const char *)(pa + a.palette_first[i]);
        for (uint32_t j = 0; j < joints; j++) {
            vks_dq d;
            memcpy(&d, range + sizeof d * j, sizeof d);
            dq_to_bone(&d, &got[j]);
        }
        far += !(pose_deviation(m, got, want) <= POSE_TOL);
        for (uint32_t e = 0; e < entries; e++)
            untouched += memcmp(&pa[a.palette_first[i] + e], &sentinel, sizeof sentinel) == 0;
        for (uint32_t e = entries; e < joints; e++)
            spilled += memcmp(&pa[a.palette_first[i] + e], &sentinel, sizeof sentinel) != 0;
    }
    CHECK(far == 0 && untouched == 0 && spilled == 0);
    CHECK(bytes == want_bytes);
    /* The animation level of detail: every other frame posed (period 2), the other one's palette
     * copied from the kept poses: it must be the posed frame's, bit for bit. */
    uint8_t *periods = malloc(count);
    if (periods) {
        memset(periods, 2, count);
        uint32_t wrong = 0, kept = 0;
        for (uint64_t frame = 1; frame < 5; frame++) {
            memcpy(pb, pa, sizeof *pa * n);
            vks_crowd_advance(&a, NULL, 1.0 / 30);
            const uint32_t posed =
                vks_crowd_animate(&a, pool, all, periods, count, frame, pa, false, NULL);
            CHECK(posed > 0);
            kept += count - posed;
            for (uint32_t k = 0; k < count; k++) {
                const uint32_t entries = vks_crowd_written_entries(&a, a.instances[k].model);
                if (!a.schedule[k]) /* kept: as last written */
                    wrong += memcmp(pa + a.palette_first[k], pb + a.palette_first[k],
                                    sizeof *pa * entries) != 0;
            }
        }
        CHECK(wrong == 0 && kept > 0);
        printf("dual quaternions: %u instances, %llu palette bytes (linear: %llu), %u kept poses "
               "copied as posed\n",
               count, (unsigned long long)want_bytes, (unsigned long long)(48ull * a.palette_count),
               kept);
    }
    free(periods);
done:
    free(pa), free(pb), free(all), free(want), free(got), free(local), free(scratch);
    vks_crowd_destroy(&a);
    vks_crowd_destroy(&b);
    vks_pool_destroy(pool);
}

/* Instance i's active list in `palette` against its weights restated: its clip's at its clock
 * (vks_clip_weights; the bind pose: the default weights), blended as its pose during a
 * cross-fade, from + (to - from) u with u = 1 - fade_left / fade; the list holds the targets whose
 * weight is not 0, in target order, after the pose. Returns the count it found (-1: wrong). */
static int check_morph_list(const vks_crowd *c, uint32_t i, const vks_bone *palette)
{
    const vks_crowd_instance *in = &c->instances[i];
    const vks_model *m = c->models[in->model];
    float want[64], from[64];
    CHECK(m->target_count <= 64);
    const vks_clip *k = in->clip < 0 ? NULL : &m->clips[in->clip];
    vks_clip_weights(m, k, k ? vks_clip_time(k, in->time, VKS_WRAP_LOOP) : 0.0, want);
    if (in->fade_left > 0.0) {
        const vks_clip *f = in->from_clip < 0 ? NULL : &m->clips[in->from_clip];
        vks_clip_weights(m, f, f ? vks_clip_time(f, in->from_time, VKS_WRAP_LOOP) : 0.0, from);
        const float u = (float)(1.0 - in->fade_left / in->fade);
        for (uint32_t t = 0; t < m->target_count; t++)
            want[t] = from[t] + (want[t] - from[t]) * u;
    }
    const uint32_t *words = (const uint32_t *)(palette + c->palette_first[i] +
                                               vks_crowd_pose_entries(m, c->dq[in->model]));
    uint32_t n = 0;
    bool ok = c->palette_room[i] >= vks_crowd_written_entries(c, in->model);
    for (uint32_t t = 0; t < m->target_count; t++) {
        if (want[t] == 0.0f)
            continue;
        float w;
        memcpy(&w, &words[VKS_MORPH_LIST_HEADER + 2 * n + 1], sizeof w);
        ok &=
            n < words[0] && words[VKS_MORPH_LIST_HEADER + 2 * n] == t && fabsf(w - want[t]) < 1e-6f;
        n++;
    }
    ok &= words[0] == n;
    return ok ? (int)n : -1;
}

/* Morph targets through the crowd: robot.glb beside the default character, linear and
 * dual-quaternion skinned, one robot mid-way through a cross-fade: every robot's active list
 * (check_morph_list) after vks_crowd_palettes on a pool, and after two frames of animation level
 * of detail that pose half of them and copy the others' kept poses (the clocks held: the same
 * lists). Some robot has targets active; the default character writes no list. */
static void test_morph_lists(void)
{
    for (int dq = 0; dq < 2; dq++) {
        const vks_model *models[] = {&robot, &def};
        const vks_crowd_desc desc = {.models = models,
                                     .model_count = 2,
                                     .instance_count = 40,
                                     .threads = 2,
                                     .seed = 9,
                                     .dual_quaternion = dq,
                                     .keep_poses = true};
        vks_crowd c;
        vks_error err;
        vks_pool *pool = NULL;
        CHECK(vks_pool_create(2, &pool, &err));
        if (!pool || !vks_crowd_create(&desc, &c, &err)) {
            CHECK(!"morph crowd");
            vks_pool_destroy(pool);
            return;
        }
        CHECK(vks_crowd_written_entries(&c, 1) == vks_crowd_pose_entries(&def, dq));
        vks_crowd_advance(&c, NULL, 0.3);
        vks_crowd_play(&c, 0, 2, 0.4);    /* robot 0 fades into Blink... */
        vks_crowd_advance(&c, NULL, 0.1); /* ...a quarter of the way */
        CHECK(c.instances[0].model == 0 && c.instances[0].fade_left > 0.0);
        vks_bone *palette = calloc(c.palette_count, sizeof *palette);
        uint32_t *all = malloc(sizeof *all * c.instance_count);
        uint8_t *periods = malloc(c.instance_count);
        CHECK(palette && all && periods);
        if (palette && all && periods) {
            for (uint32_t i = 0; i < c.instance_count; i++)
                all[i] = i, periods[i] = 2;
            vks_crowd_palettes(&c, pool, all, c.instance_count, palette);
            int wrong = 0, active = 0;
            for (uint32_t i = 0; i < c.instance_count; i++)
                if (c.instances[i].model == 0) {
                    const int n = check_morph_list(&c, i, palette);
                    wrong += n < 0;
                    active += n > 0;
                }
            uint32_t posed[2];
            for (uint64_t frame = 1; frame <= 2; frame++) {
                memset(palette, 0, sizeof *palette * c.palette_count);
                posed[frame - 1] = vks_crowd_animate(&c, pool, all, periods, c.instance_count,
                                                     frame, palette, false, NULL);
                for (uint32_t i = 0; i < c.instance_count; i++)
                    if (c.instances[i].model == 0)
                        wrong += check_morph_list(&c, i, palette) < 0;
            }
            CHECK(wrong == 0 && active > 0);
            CHECK(posed[0] == c.instance_count && posed[1] < c.instance_count);
            printf("morph lists (%s): %d robots with active targets, %d wrong; frames posed %u "
                   "then %u of %u\n",
                   dq ? "dual quaternions" : "linear", active, wrong, posed[0], posed[1],
                   c.instance_count);
        }
        free(palette);
        free(all);
        free(periods);
        vks_crowd_destroy(&c);
        vks_pool_destroy(pool);
    }
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: test_crowd DEFAULT_GLB FIXTURES_DIR\n");
        return 2;
    }
    char path[4096];
    bool ok = load(argv[1], &def);
    snprintf(path, sizeof path, "%s/chain.glb", argv[2]);
    ok = load(path, &chain) && ok;
    snprintf(path, sizeof path, "%s/no_animation.glb", argv[2]);
    ok = load(path, &still) && ok;
    snprintf(path, sizeof path, "%s/robot.glb", argv[2]);
    ok = load(path, &robot) && ok;
    if (ok) {
        CHECK(def.clip_count == 3 && chain.clip_count >= 1 && still.clip_count == 0);
        test_one();
        test_mixed();
        test_pool_equal();
        test_cull();
        test_switch_advance();
        test_bind_pose();
        test_bad();
        lods_path = argv[1];
        test_lod_hysteresis();
        test_anim_lod();
        test_pool_frame_steps();
        test_anim_lod_reuse();
        test_changes();
        test_dual_quaternion();
        test_morph_lists();
    }
    vks_model_destroy(&def);
    vks_model_destroy(&chain);
    vks_model_destroy(&still);
    vks_model_destroy(&robot);
    return check_report("test_crowd");
}
