/* 8-influence (wide) skinning on the GPU against the CPU reference, validation on (any error or
 * warning fails). Until the importer fills joints_extra / weights_extra, the wide models are made
 * here: the default character and tangents.glb, each vertex's 4 weights scaled by 3/4 and the
 * remaining 1/4 spread over 4 more joints (0.4, 0.3, 0.2, 0.1 of it), cycling over the bones the
 * model uses (they may repeat one of the vertex's first four: the math does not care; nor does it
 * need influences 5 to 8 to be the smaller ones, which this data does not always keep).
 * One crowd of 6 instances mixes them: 2 of the 4-influence character (first, so that the wide
 * models' first vertex in the extra streams differs from the one in the bind streams), 2 of the
 * wide character, 2 of wide tangents.glb (tangents; its extra_first is not 0), each on its clip.
 *   CPU: influences 5 to 8 matter: at each wide instance's pose, dropping them moves some vertex
 *     by more than 10x the GPU tolerance (so a GPU pass that ignored them would fail below).
 *   memory: the footprint of the crowd counts 24 bytes per wide vertex more than the same crowd
 *     with the extras dropped, and the renderer creates extra streams of exactly the wide
 *     models' vertices; a crowd without wide models creates none (address 0).
 *   compute: frame 1, every instance in one dispatch; frame 2, 0.3 s later, a mixed subset. Each
 *     visible instance's read-back output matches vks_skin_cpu_pose at its clip and time:
 *     positions within 1e-4 x its model's bind-pose radius, normals and tangents within 1e-4
 *     (the readback is filled with NaN bytes first). Whether lavapipe is bit-identical is printed.
 *   vertex mode: frame 3 drawn with the camera on a wide instance, by the compute pass and by the
 *     vertex shader: at most 1% of the drawn pixels differ by more than 3 levels; and the vertex
 *     shader drawing the crowd with influences 5 to 8 dropped differs from the compute image in
 *     more than 1% (the image comparison sees what the extras do).
 *   usage: test_gpu_wide DEFAULT_GLB FIXTURES_DIR (a missing file is a skip, exit 77) */
#include "asset/import.h"
#include "check.h"
#include "gpu/gpu.h"
#include "render/renderer.h"
#include "scene/crowd.h"
#include "skin/skin_cpu.h"

#include <cglm/cam.h>
#include <cglm/clipspace/persp_rh_zo.h>
#include <cglm/clipspace/view_rh.h>
#include <cglm/mat4.h>

#include <float.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define POSITION_TOLERANCE 1e-4 /* times the bind-pose radius */
#define UNIT_TOLERANCE 1e-4
#define EXTRAS_MATTER 10.0 /* dropping influences 5 to 8 moves a vertex this many tolerances */
#define INSTANCES 6u
#define SEED 4321u
#define IMAGE_SIZE 256u
#define MIN_DRAWN_FRACTION 0.02
#define IMAGE_DIFF_FRACTION 0.01 /* of the drawn pixels, as in test_crowd_gpu.c */
#define IMAGE_DIFF_LEVELS 3

enum { MODEL_NARROW, MODEL_WIDE, MODEL_WIDE_T, MODEL_COUNT };

typedef struct scene {
    gpu_device dev;
    vks_model models[MODEL_COUNT];
    /* The wide models with influences 5 to 8 dropped (shallow copies: they own nothing). */
    vks_model dropped[MODEL_COUNT];
    double radius[MODEL_COUNT];
    vks_crowd crowd;
    gpu_image color, depth;
    gpu_buffer pixels;
    vks_draw_target target;
    uint32_t focus;
    double worst_pos, worst_unit; /* largest errors (positions: times the radius) */
    /* Output floats compared, and how many matched the CPU bit for bit: positions and normals,
     * tangents (whose normalisation differs in form: t / |t| on the CPU, inversesqrt in GLSL). */
    uint64_t floats, identical, tangent_floats, tangents_identical;
} scene;

/* Gives every vertex 8 influences (see the top of the file). False when out of memory. */
static bool widen(vks_model *m)
{
    bool used[VKS_MAX_JOINTS] = {0};
    uint16_t bones[VKS_MAX_JOINTS];
    uint32_t bone_count = 0;
    for (uint32_t v = 0; v < m->vertex_count; v++)
        for (int i = 0; i < 4; i++)
            if (m->weights[v][i] > 0.0f && !used[m->joints[v][i]]) {
                used[m->joints[v][i]] = true;
                bones[bone_count++] = m->joints[v][i];
            }
    m->joints_extra = malloc(sizeof *m->joints_extra * m->vertex_count);
    m->weights_extra = malloc(sizeof *m->weights_extra * m->vertex_count);
    if (!m->joints_extra || !m->weights_extra || bone_count == 0)
        return false;
    static const float share[4] = {0.4f, 0.3f, 0.2f, 0.1f};
    for (uint32_t v = 0; v < m->vertex_count; v++)
        for (int i = 0; i < 4; i++) {
            m->weights[v][i] *= 0.75f;
            m->weights_extra[v][i] = 0.25f * share[i];
            m->joints_extra[v][i] = bones[(v + 1 + (uint32_t)i) % bone_count];
        }
    m->influences.max_influences = VKS_WIDE_INFLUENCES;
    return true;
}

static double bind_radius(const vks_model *m)
{
    float(*pos)[3] = malloc(sizeof *pos * m->vertex_count);
    float(*nrm)[3] = malloc(sizeof *nrm * m->vertex_count);
    double lo[3] = {DBL_MAX, DBL_MAX, DBL_MAX}, hi[3] = {-DBL_MAX, -DBL_MAX, -DBL_MAX}, r2 = 0.0;
    bool ok = pos && nrm && vks_skin_cpu_pose(m, -1, 0.0, pos, nrm, NULL);
    for (uint32_t v = 0; ok && v < m->vertex_count; v++)
        for (int k = 0; k < 3; k++) {
            lo[k] = fmin(lo[k], pos[v][k]);
            hi[k] = fmax(hi[k], pos[v][k]);
        }
    for (int k = 0; ok && k < 3; k++)
        r2 += 0.25 * (hi[k] - lo[k]) * (hi[k] - lo[k]);
    free(pos);
    free(nrm);
    return !ok ? 0.0 : r2 > 0.0 ? sqrt(r2) : 1.0;
}

/* How many of n floats are bit-identical (NaN never is). */
static uint32_t same_floats(const float *a, size_t a_stride, const float *b, size_t b_stride,
                            uint32_t n, int dim)
{
    uint32_t same = 0;
    for (uint32_t v = 0; v < n; v++)
        for (int k = 0; k < dim; k++)
            same += memcmp(&a[v * a_stride + k], &b[v * b_stride + k], sizeof(float)) == 0;
    return same;
}

/* Instance i's read-back output against the CPU reference at its clip and time. */
static void check_instance(scene *s, const vks_renderer *r, uint32_t i, const char *when)
{
    const vks_crowd_instance *inst = &s->crowd.instances[i];
    const vks_model *m = s->crowd.models[inst->model];
    const uint32_t n = m->vertex_count;
    const double radius = s->radius[inst->model];
    float(*pos)[3] = malloc(sizeof *pos * n);
    float(*nrm)[3] = malloc(sizeof *nrm * n);
    float(*tan)[4] = malloc(sizeof *tan * n);
    bool ok = pos && nrm && tan && vks_skin_cpu_pose(m, inst->clip, inst->time, pos, nrm, tan);
    CHECK(ok);
    const vks_skinned_vertex *out = vks_renderer_skinned(r, i);
    const float(*out_tan)[4] = vks_renderer_skinned_tangents(r, i);
    CHECK(out != NULL);
    CHECK((out_tan != NULL) == (m->tangents != NULL));
    if (ok && out) {
        const size_t stride = sizeof *out / sizeof(float);
        double dp = check_max_diff(out[0].position, stride, pos[0], 3, n, 3);
        double dn = check_max_diff(out[0].normal, stride, nrm[0], 3, n, 3);
        double dt = out_tan && m->tangents ? check_max_diff(out_tan[0], 4, tan[0], 4, n, 4) : 0.0;
        int before = check_failures;
        CHECK(dp <= POSITION_TOLERANCE * radius);
        CHECK(dn <= UNIT_TOLERANCE);
        CHECK(dt <= UNIT_TOLERANCE);
        if (check_failures != before)
            fprintf(stderr,
                    "  %s: instance %u (model %u%s, clip %d at %.4f s): positions %.3g "
                    "(tolerance %.3g), normals %.3g, tangents %.3g\n",
                    when, i, inst->model, m->joints_extra ? ", wide" : "", inst->clip, inst->time,
                    dp, POSITION_TOLERANCE * radius, dn, dt);
        s->worst_pos = fmax(s->worst_pos, dp / radius);
        s->worst_unit = fmax(s->worst_unit, fmax(dn, dt));
        s->floats += (uint64_t)n * 6;
        s->identical += same_floats(out[0].position, stride, pos[0], 3, n, 3) +
                        same_floats(out[0].normal, stride, nrm[0], 3, n, 3);
        if (out_tan && m->tangents) {
            s->tangent_floats += (uint64_t)n * 4;
            s->tangents_identical += same_floats(out_tan[0], 4, tan[0], 4, n, 4);
        }
    }
    free(pos);
    free(nrm);
    free(tan);
}

/* Influences 5 to 8 change each wide instance's pose by far more than the GPU tolerance. */
static void check_extras_matter(scene *s)
{
    for (uint32_t i = 0; i < s->crowd.instance_count; i++) {
        const vks_crowd_instance *inst = &s->crowd.instances[i];
        const vks_model *m = s->crowd.models[inst->model];
        if (!m->joints_extra)
            continue;
        const uint32_t n = m->vertex_count;
        float(*pos)[3] = malloc(sizeof *pos * n), (*nrm)[3] = malloc(sizeof *nrm * n);
        float(*pos4)[3] = malloc(sizeof *pos4 * n), (*nrm4)[3] = malloc(sizeof *nrm4 * n);
        bool ok =
            pos && nrm && pos4 && nrm4 &&
            vks_skin_cpu_pose(m, inst->clip, inst->time, pos, nrm, NULL) &&
            vks_skin_cpu_pose(&s->dropped[inst->model], inst->clip, inst->time, pos4, nrm4, NULL);
        CHECK(ok);
        double d = ok ? check_max_diff(pos[0], 3, pos4[0], 3, n, 3) : 0.0;
        CHECK(d > EXTRAS_MATTER * POSITION_TOLERANCE * s->radius[inst->model]);
        printf("extras matter: instance %u: dropping influences 5-8 moves a vertex by %.3g "
               "(%.0f x the tolerance)\n",
               i, d, d / (POSITION_TOLERANCE * s->radius[inst->model]));
        free(pos);
        free(nrm);
        free(pos4);
        free(nrm4);
    }
}

/* A camera on instance `focus`'s bounding sphere, and a light (as test_crowd_gpu.c). */
static void camera(const vks_crowd *c, uint32_t focus, vks_frame_uniforms *u)
{
    const vks_crowd_instance *in = &c->instances[focus];
    vec3 center = {in->center[0], in->center[1], in->center[2]}, eye;
    const float radius = fmaxf(in->radius, 1e-3f), fov = glm_rad(45.0f);
    const float dist = 1.05f * radius / sinf(0.5f * fov);
    const float back[3] = {0.0f, 0.37139f, 0.92848f};
    for (int k = 0; k < 3; k++)
        eye[k] = center[k] + dist * back[k];
    mat4 view, proj, vp;
    glm_lookat_rh(eye, center, (vec3){0.0f, 1.0f, 0.0f}, view);
    glm_perspective_rh_zo(fov, 1.0f, dist - 1.1f * radius, dist + 1.1f * radius, proj);
    proj[1][1] = -proj[1][1]; /* Vulkan's framebuffer y points down */
    glm_mat4_mul(proj, view, vp);
    memcpy(u->view_proj, vp, sizeof vp);
    const vks_frame_uniforms light = {
        .light_dir = {0.0f, 0.70711f, 0.70711f, 0.0f},
        .light_color = {0.8f, 0.8f, 0.8f, 0.0f},
        .ambient = {0.25f, 0.25f, 0.25f, 0.0f},
    };
    memcpy(u->light_dir, light.light_dir, sizeof light.light_dir);
    memcpy(u->light_color, light.light_color, sizeof light.light_color);
    memcpy(u->ambient, light.ambient, sizeof light.ambient);
}

/* One frame over visible[0 .. count): palettes, skinning, then a draw and a copy of the image
 * (draw) or a readback of the skinned output, submitted and waited on. */
static bool frame(scene *s, vks_renderer *r, const uint32_t *visible, uint32_t count, bool draw)
{
    vks_frame *f = vks_renderer_begin_frame(r);
    memcpy(f->visible, visible, sizeof *visible * count);
    f->visible_count = count;
    vks_crowd_palettes(&s->crowd, NULL, f->visible, count, f->palette);
    camera(&s->crowd, s->focus, f->uniforms);
    if (!draw && r->readback.coherent) /* NaN bytes: stale or unwritten output cannot pass */
        memset(r->readback.mapped, 0xff, r->readback.size);
    vks_renderer_skin(r, f);
    if (draw) {
        if (s->pixels.coherent)
            memset(s->pixels.mapped, 0, s->pixels.size);
        vks_renderer_draw(r, f, &s->target);
        VkBufferImageCopy region = {0};
        region.imageSubresource = (VkImageSubresourceLayers){VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 1};
        region.imageExtent = (VkExtent3D){IMAGE_SIZE, IMAGE_SIZE, 1};
        vkCmdCopyImageToBuffer(f->cmd, s->color.image, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL,
                               s->pixels.buffer, 1, &region);
        gpu_barrier_buffer(
            f->cmd, s->pixels.buffer,
            (gpu_access){VK_PIPELINE_STAGE_2_COPY_BIT, VK_ACCESS_2_TRANSFER_WRITE_BIT},
            (gpu_access){VK_PIPELINE_STAGE_2_HOST_BIT, VK_ACCESS_2_HOST_READ_BIT});
    } else {
        vks_renderer_copy_skinned(r, f);
    }
    vks_error err;
    bool ok = vks_renderer_submit(r, f, VK_NULL_HANDLE, VK_NULL_HANDLE, &err) &&
              vks_renderer_wait(r, f, &err);
    if (!ok)
        fprintf(stderr, "frame: %s\n", err.msg);
    CHECK(ok);
    if (ok && draw)
        gpu_buffer_invalidate(&s->dev, &s->pixels);
    return ok;
}

static uint32_t drawn_pixels(const uint8_t *p)
{
    uint32_t drawn = 0;
    for (uint32_t i = 0; i < IMAGE_SIZE * IMAGE_SIZE; i++)
        drawn += p[4 * i] || p[4 * i + 1] || p[4 * i + 2];
    return drawn;
}

/* Pixels where a channel differs by more than IMAGE_DIFF_LEVELS. */
static uint32_t differing_pixels(const uint8_t *a, const uint8_t *b)
{
    uint32_t differ = 0;
    for (uint32_t i = 0; i < IMAGE_SIZE * IMAGE_SIZE; i++) {
        bool d = false;
        for (int k = 0; k < 4; k++)
            d |= abs((int)a[4 * i + k] - (int)b[4 * i + k]) > IMAGE_DIFF_LEVELS;
        differ += d;
    }
    return differ;
}

static bool create_renderer(scene *s, vks_skin_mode mode, vks_renderer *r, const char *what)
{
    vks_error err;
    if (vks_renderer_create(&s->dev,
                            &(vks_renderer_desc){.crowd = &s->crowd,
                                                 .color_format = s->color.format,
                                                 .mode = mode,
                                                 .readback = mode == VKS_SKIN_COMPUTE},
                            r, &err))
        return true;
    fprintf(stderr, "%s renderer: %s\n", what, err.msg);
    CHECK(!"renderer creation failed");
    return false;
}

/* Points the crowd at the wide models, or at their copies with influences 5 to 8 dropped. */
static void use_dropped(scene *s, bool dropped)
{
    for (int k = 0; k < MODEL_COUNT; k++)
        s->crowd.models[k] = dropped ? &s->dropped[k] : &s->models[k];
}

/* Extra streams: counted in the footprint, created for the wide models only, none without. */
static void test_memory(scene *s)
{
    const uint32_t wide_vertices =
        s->models[MODEL_WIDE].vertex_count + s->models[MODEL_WIDE_T].vertex_count;
    vks_renderer_footprint wide = vks_renderer_footprint_of(&s->crowd, VKS_SKIN_COMPUTE);
    use_dropped(s, true);
    vks_renderer_footprint narrow = vks_renderer_footprint_of(&s->crowd, VKS_SKIN_COMPUTE);
    CHECK(wide.device_bytes - narrow.device_bytes ==
          (VkDeviceSize)wide_vertices * (sizeof(uint16_t[4]) + sizeof(float[4])));
    CHECK(wide.host_bytes == narrow.host_bytes);
    vks_renderer r;
    if (create_renderer(s, VKS_SKIN_COMPUTE, &r, "4-influence")) {
        CHECK(r.extra_vertex_count == 0);
        CHECK(r.joints_extra.buffer == VK_NULL_HANDLE && r.weights_extra.buffer == VK_NULL_HANDLE);
        const vks_streams *st = &r.frames[0].skin_push.streams;
        CHECK(st->joints_extra[0] == 0 && st->joints_extra[1] == 0);
        vks_renderer_destroy(&r);
    }
    use_dropped(s, false);
    if (create_renderer(s, VKS_SKIN_VERTEX, &r, "wide")) {
        CHECK(r.extra_vertex_count == wide_vertices);
        CHECK(r.joints_extra.buffer != VK_NULL_HANDLE && r.weights_extra.buffer != VK_NULL_HANDLE);
        CHECK(r.models[MODEL_NARROW].extra_first == 0 && r.models[MODEL_WIDE].extra_first == 0 &&
              r.models[MODEL_WIDE_T].extra_first == s->models[MODEL_WIDE].vertex_count);
        vks_renderer_destroy(&r);
    }
    printf("memory: %llu device bytes with influences 5-8, %llu without (%u wide vertices)\n",
           (unsigned long long)wide.device_bytes, (unsigned long long)narrow.device_bytes,
           wide_vertices);
}

/* The compute pass on the mixed crowd, then frame 3 drawn; leaves the image in `image`. */
static void test_compute(scene *s, uint8_t *image, const uint32_t *all)
{
    vks_renderer r;
    if (!create_renderer(s, VKS_SKIN_COMPUTE, &r, "compute"))
        return;
    if (frame(s, &r, all, INSTANCES, false))
        for (uint32_t i = 0; i < INSTANCES; i++)
            check_instance(s, &r, i, "frame 1");
    check_extras_matter(s);

    /* Frame 2: one instance of each model (the narrow one first, wide ones after it). */
    vks_crowd_advance(&s->crowd, 0.3);
    const uint32_t mixed[3] = {1, 2, 5};
    if (frame(s, &r, mixed, 3, false))
        for (uint32_t k = 0; k < 3; k++)
            check_instance(s, &r, mixed[k], "frame 2");
    printf("compute: largest errors over frames 1 and 2: positions %.3g of the radius, unit "
           "vectors %.3g; bit-identical to the CPU: %llu of %llu position and normal floats, "
           "%llu of %llu tangent floats\n",
           s->worst_pos, s->worst_unit, (unsigned long long)s->identical,
           (unsigned long long)s->floats, (unsigned long long)s->tangents_identical,
           (unsigned long long)s->tangent_floats);

    /* Frame 3: everyone drawn, the camera on a wide character. */
    vks_crowd_advance(&s->crowd, 0.3);
    if (frame(s, &r, all, INSTANCES, true)) {
        uint32_t drawn = drawn_pixels(s->pixels.mapped);
        CHECK(drawn >= MIN_DRAWN_FRACTION * IMAGE_SIZE * IMAGE_SIZE);
        printf("compute draw: %u of %u pixels drawn\n", drawn, IMAGE_SIZE * IMAGE_SIZE);
        memcpy(image, s->pixels.mapped, (size_t)IMAGE_SIZE * IMAGE_SIZE * 4);
    }
    vks_renderer_destroy(&r);
}

/* Frame 3 skinned in the vertex shader: the compute image; with influences 5 to 8 dropped, not. */
static void test_vertex(scene *s, const uint8_t *image, const uint32_t *all)
{
    for (int dropped = 0; dropped < 2; dropped++) {
        use_dropped(s, dropped);
        vks_renderer r;
        if (create_renderer(s, VKS_SKIN_VERTEX, &r, dropped ? "vertex (dropped)" : "vertex")) {
            if (frame(s, &r, all, INSTANCES, true)) {
                uint32_t drawn = drawn_pixels(s->pixels.mapped);
                uint32_t differ = differing_pixels(s->pixels.mapped, image);
                CHECK(drawn >= MIN_DRAWN_FRACTION * IMAGE_SIZE * IMAGE_SIZE);
                if (dropped)
                    CHECK(differ > IMAGE_DIFF_FRACTION * drawn);
                else
                    CHECK(differ <= IMAGE_DIFF_FRACTION * drawn);
                printf("vertex draw%s: %u pixels drawn, %u differ from the compute draw\n",
                       dropped ? " with influences 5-8 dropped" : "", drawn, differ);
            }
            vks_renderer_destroy(&r);
        }
    }
    use_dropped(s, false);
}

static bool create_target(scene *s, vks_error *err)
{
    if (!gpu_image_create(&s->dev,
                          &(gpu_image_desc){.width = IMAGE_SIZE,
                                            .height = IMAGE_SIZE,
                                            .format = VK_FORMAT_R8G8B8A8_SRGB,
                                            .usage = VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT |
                                                     VK_IMAGE_USAGE_TRANSFER_SRC_BIT,
                                            .name = "test color"},
                          &s->color, err) ||
        !gpu_image_create(&s->dev,
                          &(gpu_image_desc){.width = IMAGE_SIZE,
                                            .height = IMAGE_SIZE,
                                            .format = vks_draw_depth_format(&s->dev),
                                            .usage = VK_IMAGE_USAGE_DEPTH_STENCIL_ATTACHMENT_BIT,
                                            .name = "test depth"},
                          &s->depth, err) ||
        !gpu_buffer_create(&s->dev,
                           &(gpu_buffer_desc){.size = (VkDeviceSize)IMAGE_SIZE * IMAGE_SIZE * 4,
                                              .usage = VK_BUFFER_USAGE_TRANSFER_DST_BIT,
                                              .memory = GPU_MEMORY_READBACK,
                                              .name = "test pixels"},
                           &s->pixels, err))
        return false;
    s->target = (vks_draw_target){
        .color = s->color.image,
        .color_view = s->color.view,
        .depth = &s->depth,
        .extent = s->color.extent,
        .final_layout = VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL,
        .final_access = {VK_PIPELINE_STAGE_2_COPY_BIT, VK_ACCESS_2_TRANSFER_READ_BIT},
        .clear = {0.0f, 0.0f, 0.0f, 1.0f},
    };
    return true;
}

static bool create_crowd(scene *s)
{
    const vks_model *models[MODEL_COUNT] = {&s->models[MODEL_NARROW], &s->models[MODEL_WIDE],
                                            &s->models[MODEL_WIDE_T]};
    vks_error err;
    if (!vks_crowd_create(&(vks_crowd_desc){.models = models,
                                            .model_count = MODEL_COUNT,
                                            .instance_count = INSTANCES,
                                            .time = 0.37,
                                            .threads = 1,
                                            .seed = SEED},
                          &s->crowd, &err)) {
        fprintf(stderr, "crowd: %s\n", err.msg);
        CHECK(!"crowd creation failed");
        return false;
    }
    /* Grouped by model, two each: 0, 1 narrow; 2, 3 wide; 4, 5 wide with tangents. */
    for (uint32_t i = 0; i < INSTANCES; i++)
        CHECK(s->crowd.instances[i].model == i / 2);
    s->focus = 2;
    return true;
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: test_gpu_wide DEFAULT_GLB FIXTURES_DIR\n");
        return 2;
    }
    char tangents[4096];
    snprintf(tangents, sizeof tangents, "%s/tangents.glb", argv[2]);
    const char *paths[MODEL_COUNT] = {argv[1], argv[1], tangents};
    for (int k = 0; k < MODEL_COUNT; k++)
        if (access(paths[k], R_OK) != 0) {
            printf("skipped: %s cannot be read\n", paths[k]);
            return SKIP_RETURN;
        }

    scene s = {0};
    vks_error err;
    /* Models before the device: the importer forks (asset/import.h). */
    for (int k = 0; k < MODEL_COUNT; k++) {
        if (!vks_model_import(&(vks_import_desc){.path = paths[k]}, &s.models[k], &err)) {
            fprintf(stderr, "%s\n", err.msg);
            CHECK(!"import failed");
            return check_report("test_gpu_wide");
        }
        /* Both files have at most 4 influences per vertex: imported, they are not wide. */
        CHECK(s.models[k].joints_extra == NULL);
        if (k != MODEL_NARROW)
            CHECK(widen(&s.models[k]));
        s.dropped[k] = s.models[k];
        s.dropped[k].joints_extra = NULL;
        s.dropped[k].weights_extra = NULL;
        s.radius[k] = bind_radius(&s.models[k]);
        CHECK(s.radius[k] > 0.0);
    }
    CHECK(s.models[MODEL_WIDE_T].tangents != NULL);

    bool have_device =
        gpu_device_create(&(gpu_device_desc){.device_index = -1, .validate = true}, &s.dev, &err);
    if (!have_device)
        fprintf(stderr, "test_gpu_wide: %s\n", err.msg);
    CHECK(have_device);
    if (have_device) {
        printf("device: %s\n", s.dev.props.deviceName);
        bool target = create_target(&s, &err);
        if (!target)
            fprintf(stderr, "target: %s\n", err.msg);
        CHECK(target);
        if (target && create_crowd(&s)) {
            uint8_t *image = calloc((size_t)IMAGE_SIZE * IMAGE_SIZE, 4);
            const uint32_t all[INSTANCES] = {0, 1, 2, 3, 4, 5};
            CHECK(image != NULL);
            test_memory(&s);
            if (image) {
                test_compute(&s, image, all);
                test_vertex(&s, image, all);
            }
            free(image);
            vks_crowd_destroy(&s.crowd);
        }
        CHECK(!gpu_validation_failed(&s.dev));
        gpu_image_destroy(&s.dev, &s.color);
        gpu_image_destroy(&s.dev, &s.depth);
        gpu_buffer_destroy(&s.dev, &s.pixels);
        /* vkDestroyDevice still reports (objects never destroyed): count after it. */
        gpu_messages m = gpu_device_destroy(&s.dev);
        CHECK(m.error == 0 && m.warning == 0);
        if (m.error || m.warning)
            fprintf(stderr, "validation reported %u error(s) and %u warning(s)\n", m.error,
                    m.warning);
    }
    for (int k = 0; k < MODEL_COUNT; k++)
        vks_model_destroy(&s.models[k]);
    return check_report("test_gpu_wide");
}
