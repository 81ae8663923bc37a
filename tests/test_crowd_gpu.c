/* A crowd on the GPU against the CPU reference, validation on (any error or warning fails):
 * (a) 24 instances of two models (the default character; tangents.glb, which has tangents), each
 *     playing its model's clips in turn from its own time, skinned by the compute pass into an
 *     output split into at least 3 chunks (buffer_limit of 4 instances), read back:
 *     frame 1, every instance visible: each matches vks_skin_cpu_pose at its clip and time
 *       (palette space), positions within 1e-4 x its model's bind-pose radius, normals and
 *       tangents within 1e-4; some instance has left the bind pose;
 *     frame 2, 0.25 s later, only even instances visible: they match the new pose, odd ones hold
 *       frame 1's output bit for bit (culled: not skinned);
 *     frame 3, 0.25 s later, the 6 instances nearest the middle drawn into an offscreen image:
 *       the pipeline statistics count exactly their triangles and the skinning dispatch's
 *       invocations (also counted in frames 1 and 2), the timestamps are not negative, and the
 *       character the camera looks at covers at least 2% of the image.
 *     The readback is filled with NaN bytes before each frame (when host-coherent), so stale or
 *     unwritten output cannot pass.
 * (b) The same crowd skinned in the vertex shader: the same triangles drawn, no skinning
 *     invocation, and the same image as (a) at the same time (at most 1% of the drawn pixels
 *     differ by more than 3 levels).
 * (c) A crowd larger than the device's memory: vks_renderer_create fails, saying how many
 *     instances fit (0 < K < the crowd's size).
 *   usage: test_crowd_gpu DEFAULT_GLB FIXTURES_DIR (a missing file is a skip, exit 77) */
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

#include <ctype.h>
#include <float.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define POSITION_TOLERANCE 1e-4 /* times the bind-pose radius */
#define UNIT_TOLERANCE 1e-4
#define MOVES_AT_LEAST 1e-2 /* times the radius: an animated instance visibly moves */
#define INSTANCES 24u
#define CHUNK_INSTANCES 4u /* buffer_limit: this many of the largest instance's output */
#define SEED 1234u
#define DRAWN 6u /* instances drawn in frame 3 */
#define IMAGE_SIZE 256u
#define MIN_DRAWN_FRACTION 0.02 /* of the image: the character the camera looks at */
/* Vertex and compute skinning draw the same crowd: at most this fraction of the drawn pixels may
 * differ by more than a few levels (triangle edges where the two paths' rounding differs). */
#define IMAGE_DIFF_FRACTION 0.01
#define IMAGE_DIFF_LEVELS 3

enum { MODEL_DEFAULT, MODEL_TANGENTS, MODEL_COUNT };

typedef struct scene {
    gpu_device dev;
    vks_model models[MODEL_COUNT];
    double radius[MODEL_COUNT]; /* of each model's bind pose, palette space */
    vks_crowd crowd;
    gpu_image color, depth;
    gpu_buffer pixels; /* the color image, copied after each draw */
    vks_draw_target target;
    uint32_t focus;               /* the instance the camera looks at */
    double worst_pos, worst_unit; /* largest errors found (positions: times the radius) */
} scene;

/* Half the diagonal of the bind pose's bounds (1 for a degenerate model); 0 when out of memory. */
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

/* Instance i's read-back output against the CPU reference at its clip and time. Returns how far
 * its positions are from the bind pose (for the "it moves" check), -1 on failure. */
static double check_instance(scene *s, const vks_renderer *r, uint32_t i, const char *when)
{
    const vks_crowd_instance *inst = &s->crowd.instances[i];
    const vks_model *m = s->crowd.models[inst->model];
    const uint32_t n = m->vertex_count;
    const double radius = s->radius[inst->model];
    float(*pos)[3] = malloc(sizeof *pos * n);
    float(*nrm)[3] = malloc(sizeof *nrm * n);
    float(*tan)[4] = malloc(sizeof *tan * n);
    float(*bind)[3] = malloc(sizeof *bind * n);
    float(*bind_n)[3] = malloc(sizeof *bind_n * n);
    bool ok = pos && nrm && tan && bind && bind_n &&
              vks_skin_cpu_pose(m, inst->clip, inst->time, pos, nrm, tan) &&
              vks_skin_cpu_pose(m, -1, 0.0, bind, bind_n, NULL);
    CHECK(ok);
    const vks_skinned_vertex *out = vks_renderer_skinned(r, i);
    const float(*out_tan)[4] = vks_renderer_skinned_tangents(r, i);
    CHECK(out != NULL);
    CHECK((out_tan != NULL) == (m->tangents != NULL));
    double moved = -1.0;
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
                    "  %s: instance %u (model %u, clip %d at %.4f s): positions %.3g (tolerance "
                    "%.3g), normals %.3g, tangents %.3g\n",
                    when, i, inst->model, inst->clip, inst->time, dp, POSITION_TOLERANCE * radius,
                    dn, dt);
        moved = check_max_diff(out[0].position, stride, bind[0], 3, n, 3);
        s->worst_pos = fmax(s->worst_pos, dp / radius);
        s->worst_unit = fmax(s->worst_unit, fmax(dn, dt));
    }
    free(pos);
    free(nrm);
    free(tan);
    free(bind);
    free(bind_n);
    return moved;
}

/* Bytes of instance i's output: its vertices, then its tangents when its model has them. */
static size_t output_bytes(const vks_crowd *c, uint32_t i)
{
    const vks_model *m = c->models[c->instances[i].model];
    return (size_t)m->vertex_count * (sizeof(vks_skinned_vertex) + (m->tangents ? 16 : 0));
}

/* A copy of every instance's read-back output, concatenated (offsets: output_bytes). */
static unsigned char *save_outputs(const vks_crowd *c, const vks_renderer *r)
{
    size_t total = 0;
    for (uint32_t i = 0; i < c->instance_count; i++)
        total += output_bytes(c, i);
    unsigned char *copy = malloc(total), *at = copy;
    for (uint32_t i = 0; copy && i < c->instance_count; i++) {
        const vks_model *m = c->models[c->instances[i].model];
        size_t vb = (size_t)m->vertex_count * sizeof(vks_skinned_vertex);
        memcpy(at, vks_renderer_skinned(r, i), vb);
        if (m->tangents)
            memcpy(at + vb, vks_renderer_skinned_tangents(r, i), output_bytes(c, i) - vb);
        at += output_bytes(c, i);
    }
    return copy;
}

/* Instance i's read-back output equals `saved` (from save_outputs) bit for bit. */
static bool same_output(const vks_crowd *c, const vks_renderer *r, uint32_t i,
                        const unsigned char *saved)
{
    for (uint32_t k = 0; k < i; k++)
        saved += output_bytes(c, k);
    const vks_model *m = c->models[c->instances[i].model];
    size_t vb = (size_t)m->vertex_count * sizeof(vks_skinned_vertex);
    return memcmp(saved, vks_renderer_skinned(r, i), vb) == 0 &&
           (!m->tangents ||
            memcmp(saved + vb, vks_renderer_skinned_tangents(r, i), output_bytes(c, i) - vb) == 0);
}

/* A camera on instance `focus`'s bounding sphere (the other instances drawn are in the frame or
 * not: the statistics count them either way), and a light. */
static void camera(const vks_crowd *c, uint32_t focus, vks_frame_uniforms *u)
{
    const vks_crowd_instance *in = &c->instances[focus];
    vec3 center = {in->center[0], in->center[1], in->center[2]}, eye;
    const float radius = fmaxf(in->radius, 1e-3f), fov = glm_rad(45.0f);
    const float dist = 1.05f * radius / sinf(0.5f * fov);
    const float back[3] = {0.0f, 0.37139f, 0.92848f}; /* unit: from the center, up and back */
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

/* One frame over visible[0 .. count): palettes, skinning, then a draw into the scene's target
 * followed by a copy of the image (draw) or a readback of the skinned output (otherwise),
 * submitted and waited on. */
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
        if (s->pixels.coherent) /* a copy that did not happen cannot pass */
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

/* Pixels of the copied image that are not the clear color. */
static uint32_t drawn_pixels(const scene *s)
{
    const uint8_t *p = s->pixels.mapped;
    uint32_t drawn = 0;
    for (uint32_t i = 0; i < IMAGE_SIZE * IMAGE_SIZE; i++)
        drawn += p[4 * i] || p[4 * i + 1] || p[4 * i + 2];
    return drawn;
}

/* The `count` instances nearest to the middle of the crowd, ascending; the nearest in *nearest.
 * Returns count. */
static uint32_t nearest_to_center(const vks_crowd *c, uint32_t count, uint32_t *visible,
                                  uint32_t *nearest)
{
    float d2[INSTANCES];
    bool taken[INSTANCES] = {0};
    for (uint32_t i = 0; i < c->instance_count; i++) {
        d2[i] = 0.0f;
        for (int k = 0; k < 3; k += 2) {
            float d = c->instances[i].center[k] - 0.5f * (c->lo[k] + c->hi[k]);
            d2[i] += d * d;
        }
    }
    for (uint32_t n = 0; n < count; n++) {
        uint32_t best = UINT32_MAX;
        for (uint32_t i = 0; i < c->instance_count; i++)
            if (!taken[i] && (best == UINT32_MAX || d2[i] < d2[best]))
                best = i;
        taken[best] = true;
        if (n == 0)
            *nearest = best;
    }
    uint32_t n = 0;
    for (uint32_t i = 0; i < c->instance_count; i++)
        if (taken[i])
            visible[n++] = i;
    return n;
}

/* Invocations of a skinning dispatch over `count` visible instances. */
static uint64_t skin_invocations(const vks_renderer *r, uint32_t count)
{
    uint32_t g[3];
    vks_skin_pass_groups(&r->skin, r->max_vertex_count, count, g);
    return (uint64_t)g[0] * g[1] * g[2] * r->skin.group_size;
}

/* The statistics of a frame that drew visible[0 .. count). */
static void check_draw_stats(const scene *s, const vks_renderer *r, const uint32_t *visible,
                             uint32_t count, vks_gpu_stats st, bool skinned, const char *when)
{
    uint64_t triangles = 0;
    for (uint32_t k = 0; k < count; k++)
        triangles += s->crowd.models[s->crowd.instances[visible[k]].model]->index_count / 3;
    if (s->dev.statistics) {
        uint64_t invocations = skinned ? skin_invocations(r, count) : 0;
        CHECK(st.primitives == triangles);
        CHECK(st.skin_invocations == invocations);
        printf("%s: %llu triangles (expected %llu), %llu skinning invocations (expected %llu)\n",
               when, (unsigned long long)st.primitives, (unsigned long long)triangles,
               (unsigned long long)st.skin_invocations, (unsigned long long)invocations);
    } else {
        printf("%s: pipeline statistics queries unsupported on this device: triangle and "
               "invocation counts not checked\n",
               when);
    }
    if (s->dev.timestamps) {
        CHECK(!skinned || st.skin_ms >= 0.0); /* vertex mode: no dispatch to time */
        CHECK(st.draw_ms >= 0.0);
        printf("%s: skin %.3f ms, draw %.3f ms\n", when, st.skin_ms, st.draw_ms);
    }
}

/* (a) The compute pass over a split output, culling, and a draw; leaves the drawn image in
 * `image` (IMAGE_SIZE^2 RGBA8) and the drawn instances in visible / count. */
static void test_compute(scene *s, uint8_t *image, uint32_t *visible, uint32_t *count)
{
    vks_crowd *c = &s->crowd;
    size_t largest = 0;
    for (uint32_t i = 0; i < c->instance_count; i++)
        largest = output_bytes(c, i) > largest ? output_bytes(c, i) : largest;
    vks_renderer r;
    vks_error err;
    if (!vks_renderer_create(&s->dev,
                             &(vks_renderer_desc){.crowd = c,
                                                  .color_format = s->color.format,
                                                  .mode = VKS_SKIN_COMPUTE,
                                                  .readback = true,
                                                  .buffer_limit = CHUNK_INSTANCES * largest},
                             &r, &err)) {
        fprintf(stderr, "compute renderer: %s\n", err.msg);
        CHECK(!"renderer creation failed");
        return;
    }
    CHECK(r.chunk_count >= 3);
    printf("compute: %u instances, output %llu bytes in %u chunks\n", c->instance_count,
           (unsigned long long)r.out_bytes, r.chunk_count);

    /* Frame 1: everyone. */
    uint32_t all[INSTANCES];
    for (uint32_t i = 0; i < INSTANCES; i++)
        all[i] = i;
    double moved = 0.0;
    if (frame(s, &r, all, INSTANCES, false)) {
        for (uint32_t i = 0; i < INSTANCES; i++) {
            double d = check_instance(s, &r, i, "frame 1");
            moved = fmax(moved, d / s->radius[c->instances[i].model]);
        }
        CHECK(moved > MOVES_AT_LEAST);
        if (s->dev.statistics)
            CHECK(vks_renderer_last_stats(&r).skin_invocations == skin_invocations(&r, INSTANCES));
    }
    unsigned char *saved = save_outputs(c, &r);
    CHECK(saved != NULL);

    /* Frame 2: the even instances only; the odd ones keep frame 1's output. */
    vks_crowd_advance(c, 0.25);
    uint32_t even[INSTANCES], evens = 0;
    for (uint32_t i = 0; i < INSTANCES; i += 2)
        even[evens++] = i;
    if (frame(s, &r, even, evens, false) && saved) {
        uint32_t changed = 0;
        for (uint32_t i = 0; i < INSTANCES; i++) {
            if (i % 2 == 0) {
                check_instance(s, &r, i, "frame 2");
                changed += !same_output(c, &r, i, saved);
            } else {
                bool same = same_output(c, &r, i, saved);
                CHECK(same);
                if (!same)
                    fprintf(stderr, "  frame 2: culled instance %u was written\n", i);
            }
        }
        CHECK(changed > 0); /* 0.25 s later the visible ones moved */
        if (s->dev.statistics)
            CHECK(vks_renderer_last_stats(&r).skin_invocations == skin_invocations(&r, evens));
    }
    free(saved);
    printf("compute: largest errors over frames 1 and 2: positions %.3g of the radius, unit "
           "vectors %.3g\n",
           s->worst_pos, s->worst_unit);

    /* Frame 3: a subset drawn. */
    vks_crowd_advance(c, 0.25);
    *count = nearest_to_center(c, DRAWN, visible, &s->focus);
    if (frame(s, &r, visible, *count, true)) {
        check_draw_stats(s, &r, visible, *count, vks_renderer_last_stats(&r), true, "compute draw");
        uint32_t drawn = drawn_pixels(s);
        CHECK(drawn >= MIN_DRAWN_FRACTION * IMAGE_SIZE * IMAGE_SIZE);
        printf("compute draw: %u of %u pixels drawn\n", drawn, IMAGE_SIZE * IMAGE_SIZE);
        memcpy(image, s->pixels.mapped, (size_t)IMAGE_SIZE * IMAGE_SIZE * 4);
    }
    vks_renderer_destroy(&r);
}

/* (b) The same draw skinned in the vertex shader. */
static void test_vertex(scene *s, const uint8_t *image, const uint32_t *visible, uint32_t count)
{
    vks_renderer r;
    vks_error err;
    if (!vks_renderer_create(&s->dev,
                             &(vks_renderer_desc){.crowd = &s->crowd,
                                                  .color_format = s->color.format,
                                                  .mode = VKS_SKIN_VERTEX},
                             &r, &err)) {
        fprintf(stderr, "vertex renderer: %s\n", err.msg);
        CHECK(!"renderer creation failed");
        return;
    }
    if (frame(s, &r, visible, count, true)) {
        check_draw_stats(s, &r, visible, count, vks_renderer_last_stats(&r), false, "vertex draw");
        const uint8_t *p = s->pixels.mapped;
        uint32_t differ = 0;
        for (uint32_t i = 0; i < IMAGE_SIZE * IMAGE_SIZE; i++) {
            bool d = false;
            for (int k = 0; k < 4; k++)
                d |= abs((int)p[4 * i + k] - (int)image[4 * i + k]) > IMAGE_DIFF_LEVELS;
            differ += d;
        }
        uint32_t drawn = drawn_pixels(s);
        CHECK(drawn >= MIN_DRAWN_FRACTION * IMAGE_SIZE * IMAGE_SIZE);
        CHECK(differ <= IMAGE_DIFF_FRACTION * drawn);
        printf("vertex draw: %u pixels drawn, %u differ from the compute draw\n", drawn, differ);
    }
    vks_renderer_destroy(&r);
}

/* The count in "... K instances fit ..." (or "instances fit: K"), -1 when absent. */
static long long instances_fit(const char *msg)
{
    const char *at = strstr(msg, "instances fit");
    if (!at)
        return -1;
    const char *end = at;
    while (end > msg && end[-1] == ' ')
        end--;
    const char *p = end;
    while (p > msg && isdigit((unsigned char)p[-1]))
        p--;
    if (p < end)
        return strtoll(p, NULL, 10);
    for (p = at; *p && !isdigit((unsigned char)*p); p++)
        ;
    return *p ? strtoll(p, NULL, 10) : -1;
}

/* (c) More instances than every heap together could hold twice over: creation must fail. */
static void test_too_big(scene *s)
{
    const vks_model *m = &s->models[MODEL_DEFAULT];
    VkDeviceSize heaps = 0;
    for (uint32_t h = 0; h < s->dev.memory.memoryHeapCount; h++)
        heaps += s->dev.memory.memoryHeaps[h].size;
    uint64_t n = 2 * heaps / ((uint64_t)m->vertex_count * sizeof(vks_skinned_vertex)) + 1;
    n = n < 200000 ? 200000 : n > VKS_CROWD_MAX_INSTANCES ? VKS_CROWD_MAX_INSTANCES : n;
    vks_crowd c;
    vks_error err;
    if (!vks_crowd_create(&(vks_crowd_desc){.models = (const vks_model *const[]){m},
                                            .model_count = 1,
                                            .instance_count = (uint32_t)n,
                                            .time = 0.37,
                                            .threads = 1,
                                            .seed = SEED},
                          &c, &err)) {
        fprintf(stderr, "crowd of %llu: %s\n", (unsigned long long)n, err.msg);
        CHECK(!"crowd creation failed");
        return;
    }
    vks_renderer r;
    bool created = vks_renderer_create(
        &s->dev,
        &(vks_renderer_desc){.crowd = &c, .color_format = s->color.format, .readback = true}, &r,
        &err);
    CHECK(!created);
    if (created) {
        fprintf(stderr, "  a renderer for %llu instances was created\n", (unsigned long long)n);
        vks_renderer_destroy(&r);
    } else {
        long long fit = instances_fit(err.msg);
        CHECK(fit > 0 && fit < (long long)n);
        printf("too big: %llu instances: \"%s\" (%lld fit)\n", (unsigned long long)n, err.msg, fit);
    }
    vks_crowd_destroy(&c);
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

/* The crowd of (a) and (b), and what it must contain to test anything. */
static bool create_crowd(scene *s)
{
    const vks_model *models[MODEL_COUNT] = {&s->models[MODEL_DEFAULT], &s->models[MODEL_TANGENTS]};
    vks_error err;
    if (!vks_crowd_create(&(vks_crowd_desc){.models = models,
                                            .model_count = MODEL_COUNT,
                                            .clips = NULL, /* VKS_CROWD_VARIED_CLIP */
                                            .instance_count = INSTANCES,
                                            .time = 0.37,
                                            .threads = 1,
                                            .seed = SEED},
                          &s->crowd, &err)) {
        fprintf(stderr, "crowd: %s\n", err.msg);
        CHECK(!"crowd creation failed");
        return false;
    }
    const vks_crowd *c = &s->crowd;
    CHECK(c->instance_count == INSTANCES && c->model_count == MODEL_COUNT);
    /* Distinct (model, clip) pairs, and two instances on the same clip at different times (so
     * that an instance reading another's palette shows). */
    uint32_t pairs = 0;
    bool same_clip_other_time = false;
    for (uint32_t i = 0; i < c->instance_count; i++) {
        const vks_crowd_instance *a = &c->instances[i];
        bool first = true;
        for (uint32_t k = 0; k < i; k++) {
            const vks_crowd_instance *b = &c->instances[k];
            if (a->model == b->model && a->clip == b->clip) {
                first = false;
                same_clip_other_time |= a->time != b->time;
            }
        }
        pairs += first;
    }
    CHECK(pairs >= 3);
    CHECK(same_clip_other_time);
    printf("crowd: %u instances, %u (model, clip) pairs\n", c->instance_count, pairs);
    return true;
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: test_crowd_gpu DEFAULT_GLB FIXTURES_DIR\n");
        return 2;
    }
    char tangents[4096];
    snprintf(tangents, sizeof tangents, "%s/tangents.glb", argv[2]);
    const char *paths[MODEL_COUNT] = {argv[1], tangents};
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
            return check_report("test_crowd_gpu");
        }
        s.radius[k] = bind_radius(&s.models[k]);
        CHECK(s.radius[k] > 0.0);
    }
    CHECK(s.models[MODEL_TANGENTS].tangents != NULL);
    CHECK(s.models[MODEL_DEFAULT].clip_count >= 2);

    bool have_device =
        gpu_device_create(&(gpu_device_desc){.device_index = -1, .validate = true}, &s.dev, &err);
    if (!have_device)
        fprintf(stderr, "test_crowd_gpu: %s\n", err.msg);
    CHECK(have_device);
    if (have_device) {
        printf("device: %s\n", s.dev.props.deviceName);
        bool target = create_target(&s, &err);
        if (!target)
            fprintf(stderr, "target: %s\n", err.msg);
        CHECK(target);
        if (target && create_crowd(&s)) {
            uint8_t *image = calloc((size_t)IMAGE_SIZE * IMAGE_SIZE, 4);
            uint32_t visible[INSTANCES], count = 0;
            CHECK(image != NULL);
            if (image) {
                test_compute(&s, image, visible, &count);
                if (count)
                    test_vertex(&s, image, visible, count);
            }
            free(image);
            vks_crowd_destroy(&s.crowd);
        }
        test_too_big(&s);
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
    return check_report("test_crowd_gpu");
}
