/* Helpers shared by the GPU crowd tests (test_crowd_gpu.c, test_gpu_wide.c): a device with
 * validation on, an offscreen IMAGE_SIZE^2 target read back after each draw, a crowd's frame
 * (palettes, skinning, then a draw or a readback), the skinned output against the CPU reference,
 * and pixel counts. Each test keeps its own crowd, clips and checks. */
#ifndef VKS_CROWD_GPU_H
#define VKS_CROWD_GPU_H

#include "asset/import.h"
#include "bake/load.h"
#include "bake/lod.h"
#include "asset/pack.h"
#include "check.h"
#include "gpu/gpu.h"
#include "render/renderer.h"
#include "scene/crowd.h"
#include "skin/skin_cpu.h"
#include "test_binding.h"

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
#define IMAGE_SIZE 256u
#define MIN_DRAWN_FRACTION 0.02 /* of the image: the character the camera looks at */
/* Vertex and compute skinning draw the same crowd: at most this fraction of the drawn pixels may
 * differ by more than a few levels (triangle edges where the two paths' rounding differs). */
#define IMAGE_DIFF_FRACTION 0.01
#define IMAGE_DIFF_LEVELS 3
#define CROWD_GPU_MAX_MODELS 3

typedef struct crowd_gpu {
    gpu_device dev;
    vks_model models[CROWD_GPU_MAX_MODELS];
    double radius[CROWD_GPU_MAX_MODELS]; /* of each model's bind pose, palette space */
    vks_crowd crowd;
    gpu_image color, depth;
    gpu_buffer pixels; /* the color image, copied after each draw */
    vks_draw_target target;
    uint32_t focus;               /* the instance the camera looks at */
    double worst_pos, worst_unit; /* largest errors found (positions: times the radius) */
    /* Output floats compared, and how many matched the CPU bit for bit: positions and normals,
     * tangents (whose normalisation differs in form: t / |t| on the CPU, inversesqrt in GLSL). */
    uint64_t floats, identical; /* skinned position floats, and how many equal the CPU's */
    /* The levels of detail crowd_gpu_frame gives its visible list's slots (NULL: level 0). */
    const uint8_t *levels;
    /* crowd_gpu_renderer's palette staging: on, on a device whose shared memory holds at most
     * stage_limit vec4s (0: the device's own; less stands in for a smaller GPU: the device's
     * recorded limit is lowered while the renderer is made, which is all the skinner reads). */
    bool stage;
    uint32_t stage_limit;
} crowd_gpu;

/* Checks the arguments DEFAULT_GLB FIXTURES_DIR and writes FIXTURES_DIR/tangents.glb into
 * `tangents`. Returns 0 to go on, 2 after a usage line, 1 after saying which file cannot be read
 * (the build writes them: a missing one is a failure, not a skip). */
static inline int crowd_gpu_args(int argc, char **argv, const char *name, char *tangents,
                                 size_t size)
{
    if (argc != 3) {
        fprintf(stderr, "usage: %s DEFAULT_GLB FIXTURES_DIR\n", name);
        return 2;
    }
    snprintf(tangents, size, "%s/tangents.glb", argv[2]);
    const char *paths[2] = {argv[1], tangents};
    for (int k = 0; k < 2; k++)
        if (access(paths[k], R_OK) != 0) {
            fprintf(stderr, "%s: %s cannot be read (the build writes it)\n", name, paths[k]);
            return 1;
        }
    return 0;
}

/* Imports `path` into *m and, when `pack`, packs its streams for the GPU (vks_model_pack, which
 * the renderer needs: a caller that changes the streams first packs after). A failed CHECK, said
 * on stderr, when it cannot. */
static inline bool crowd_gpu_import_as(const char *path, vks_model *m, bool pack)
{
    vks_error err;
    const vks_import_desc desc = {.path = path};
    if (pack ? vks_model_load(&desc, m, &err) : vks_model_import(&desc, m, &err))
        return true;
    fprintf(stderr, "%s\n", err.msg);
    CHECK(!"import failed");
    return false;
}

static inline bool crowd_gpu_import(const char *path, vks_model *m)
{
    return crowd_gpu_import_as(path, m, true);
}

/* Half the diagonal of the bind pose's bounds (1 for a degenerate model); 0 when out of memory. */
static inline double crowd_gpu_bind_radius(const vks_model *m)
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
static inline uint32_t crowd_gpu_same_floats(const float *a, size_t a_stride, const float *b,
                                             size_t b_stride, uint32_t n, int dim)
{
    uint32_t same = 0;
    for (uint32_t v = 0; v < n; v++)
        for (int k = 0; k < dim; k++)
            same += memcmp(&a[v * a_stride + k], &b[v * b_stride + k], sizeof(float)) == 0;
    return same;
}

/* Instance i's read-back output against the CPU reference at its clip and time: positions within
 * POSITION_TOLERANCE x its model's radius, normals and tangents within UNIT_TOLERANCE; the largest
 * errors and the bit-identical floats are tallied in g. With `moved`, also how far its positions
 * are from the bind pose there (-1 when they could not be compared). */
static inline void crowd_gpu_check_instance(crowd_gpu *g, const vks_renderer *r, uint32_t i,
                                            const char *when, double *moved)
{
    const vks_crowd_instance *inst = &g->crowd.instances[i];
    const vks_model *m = g->crowd.models[inst->model];
    const uint32_t n = m->vertex_count;
    const double radius = g->radius[inst->model];
    float(*gpos)[3] = malloc(sizeof *gpos * n), (*gnrm)[3] = malloc(sizeof *gnrm * n);
    float(*gtan)[4] = malloc(sizeof *gtan * n);
    CHECK(gpos && gnrm && gtan);
    const bool has_output =
        gpos && gnrm && gtan && vks_skinner_decode_skinned(&r->skinner, i, gpos, gnrm, gtan);
    CHECK(has_output);
    CHECK((vks_skinner_skinned_tangents(&r->skinner, i) != NULL) == (m->tangents != NULL));
    if (moved)
        *moved = -1.0;
    /* The CPU's reference of the vertices the output holds: its level's (level 0: all). */
    const uint32_t level = has_output ? vks_skinner_skinned_level(&r->skinner, i) : 0;
    const vks_level lv = vks_model_level(m, level);
    if (level)
        moved = NULL; /* the bind pose is level 0's */
    float(*pos)[3] = malloc(sizeof *pos * n);
    float(*nrm)[3] = malloc(sizeof *nrm * n);
    float(*tan)[4] = malloc(sizeof *tan * n);
    float(*bind)[3] = moved ? malloc(sizeof *bind * n) : NULL;
    float(*bind_n)[3] = moved ? malloc(sizeof *bind_n * n) : NULL;
    bool ok = pos && nrm && tan && (!moved || (bind && bind_n)) &&
              vks_skin_cpu_pose_level(m, level, inst->clip, inst->time, pos, nrm, tan) &&
              (!moved || vks_skin_cpu_pose(m, -1, 0.0, bind, bind_n, NULL));
    CHECK(ok);
    const uint32_t nl = lv.vertex_count;
    if (ok && has_output) {
        /* Normals and tangents come back octahedral (16 and 15 bits: under 1e-4 off). */
        double dp = check_max_diff(gpos[0], 3, pos[0], 3, nl, 3);
        double dn = check_max_diff(gnrm[0], 3, nrm[0], 3, nl, 3);
        double dt = m->tangents ? check_max_diff(gtan[0], 4, tan[0], 4, nl, 4) : 0.0;
        int before = check_failures;
        CHECK(dp <= POSITION_TOLERANCE * radius);
        CHECK(dn <= UNIT_TOLERANCE);
        CHECK(dt <= UNIT_TOLERANCE);
        if (check_failures != before)
            fprintf(stderr,
                    "  %s: instance %u (model %u%s, clip %d at %.4f s, level %u): positions %.3g "
                    "(tolerance %.3g), normals %.3g, tangents %.3g\n",
                    when, i, inst->model, m->joints_extra ? ", wide" : "", inst->clip, inst->time,
                    level, dp, POSITION_TOLERANCE * radius, dn, dt);
        if (moved)
            *moved = check_max_diff(gpos[0], 3, bind[0], 3, n, 3);
        g->worst_pos = fmax(g->worst_pos, dp / radius);
        g->worst_unit = fmax(g->worst_unit, fmax(dn, dt));
        g->floats += (uint64_t)nl * 3;
        g->identical += crowd_gpu_same_floats(gpos[0], 3, pos[0], 3, nl, 3);
    }
    free(gpos);
    free(gnrm);
    free(gtan);
    free(pos);
    free(nrm);
    free(tan);
    free(bind);
    free(bind_n);
}

/* A camera on instance `focus`'s bounding sphere (the other instances drawn are in the frame or
 * not), and a light. */
static inline void crowd_gpu_camera(const vks_crowd *c, uint32_t focus, vks_frame_uniforms *u)
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

/* One frame over visible[0 .. count): palettes, skinning, then a draw into g's target followed by
 * a copy of the image into g->pixels (draw) or a readback of the skinned output (otherwise),
 * submitted and waited on. */
static inline bool crowd_gpu_frame(crowd_gpu *g, vks_renderer *r, const uint32_t *visible,
                                   uint32_t count, bool draw)
{
    vks_frame *f = vks_renderer_begin_frame(r);
    memcpy(f->skin->visible, visible, sizeof *visible * count);
    f->skin->visible_count = count;
    if (g->levels)
        memcpy(f->skin->level, g->levels, sizeof *f->skin->level * count);
    vks_crowd_palettes(&g->crowd, NULL, f->skin->visible, count, f->skin->palette);
    crowd_gpu_camera(&g->crowd, g->focus, f->uniforms);
    vks_error err;
    CHECK(vks_renderer_fit_output(r, f, &err)); /* (the readback grows with the output) */
    if (!draw &&
        r->skinner.readback.coherent) /* NaN bytes: stale or unwritten output cannot pass */
        memset(r->skinner.readback.mapped, 0xff, r->skinner.readback.size);
    vks_renderer_skin(r, f);
    if (draw) {
        if (g->pixels.coherent) /* a copy that did not happen cannot pass */
            memset(g->pixels.mapped, 0, g->pixels.size);
        CHECK(vks_renderer_draw(r, f, &g->target, &err)); /* (no visibility buffer: hardware) */
        VkBufferImageCopy region = {0};
        region.imageSubresource = (VkImageSubresourceLayers){VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 1};
        region.imageExtent = (VkExtent3D){IMAGE_SIZE, IMAGE_SIZE, 1};
        g->dev.vk.vkCmdCopyImageToBuffer(f->cmd, g->color.image,
                                         VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, g->pixels.buffer, 1,
                                         &region);
        gpu_barrier_buffer(
            &g->dev, f->cmd, g->pixels.buffer,
            (gpu_access){VK_PIPELINE_STAGE_2_COPY_BIT, VK_ACCESS_2_TRANSFER_WRITE_BIT},
            (gpu_access){VK_PIPELINE_STAGE_2_HOST_BIT, VK_ACCESS_2_HOST_READ_BIT});
    } else {
        vks_renderer_copy_skinned(r, f);
    }
    bool ok = vks_renderer_submit(r, f, VK_NULL_HANDLE, VK_NULL_HANDLE, &err) &&
              vks_renderer_wait(r, f, &err);
    if (!ok)
        fprintf(stderr, "frame: %s\n", err.msg);
    CHECK(ok);
    if (ok && draw)
        gpu_buffer_invalidate(&g->dev, &g->pixels);
    return ok;
}

/* Pixels of an IMAGE_SIZE^2 RGBA8 image that are not the clear color. */
static inline uint32_t crowd_gpu_drawn_pixels(const uint8_t *p)
{
    uint32_t drawn = 0;
    for (uint32_t i = 0; i < IMAGE_SIZE * IMAGE_SIZE; i++)
        drawn += p[4 * i] || p[4 * i + 1] || p[4 * i + 2];
    return drawn;
}

/* Pixels where a channel differs by more than IMAGE_DIFF_LEVELS. */
static inline uint32_t crowd_gpu_differing_pixels(const uint8_t *a, const uint8_t *b)
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

/* A renderer of g's crowd in `mode` (with a readback in compute mode), its output buffers at most
 * buffer_limit bytes (0: the renderer's default), its output room for max_skinned_vertices
 * vertices (0: the renderer's default). False, after a failed CHECK and a line naming `what`,
 * when it cannot be created. */
static inline bool crowd_gpu_renderer(crowd_gpu *g, vks_skin_mode mode, VkDeviceSize buffer_limit,
                                      uint32_t max_skinned_vertices, vks_renderer *r,
                                      const char *what)
{
    vks_error err;
    const uint32_t shared = g->dev.props.limits.maxComputeSharedMemorySize;
    if (g->stage_limit && g->stage_limit * 16 < shared)
        g->dev.props.limits.maxComputeSharedMemorySize = g->stage_limit * 16;
    const bool made =
        vks_renderer_create(&g->dev,
                            &(vks_renderer_desc){.crowd = &g->crowd,
                                                 .color_format = g->color.format,
                                                 .mode = mode,
                                                 .readback = mode == VKS_SKIN_COMPUTE,
                                                 .buffer_limit = buffer_limit,
                                                 .max_skinned_vertices = max_skinned_vertices,
                                                 .stage_palette = g->stage,
                                                 .binding = test_binding()},
                            r, &err);
    g->dev.props.limits.maxComputeSharedMemorySize = shared;
    if (made)
        return true;
    fprintf(stderr, "%s renderer: %s\n", what, err.msg);
    CHECK(!"renderer creation failed");
    return false;
}

/* The color and depth images and the pixel readback buffer, and the target drawing into them. */
static inline bool crowd_gpu_create_target(crowd_gpu *g, vks_error *err)
{
    if (!gpu_image_create(&g->dev,
                          &(gpu_image_desc){.width = IMAGE_SIZE,
                                            .height = IMAGE_SIZE,
                                            .format = VK_FORMAT_R8G8B8A8_SRGB,
                                            .usage = VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT |
                                                     VK_IMAGE_USAGE_TRANSFER_SRC_BIT,
                                            .name = "test color"},
                          &g->color, err) ||
        !gpu_image_create(&g->dev,
                          &(gpu_image_desc){.width = IMAGE_SIZE,
                                            .height = IMAGE_SIZE,
                                            .format = vks_draw_depth_format(&g->dev),
                                            .usage = VK_IMAGE_USAGE_DEPTH_STENCIL_ATTACHMENT_BIT,
                                            .name = "test depth"},
                          &g->depth, err) ||
        !gpu_buffer_create(&g->dev,
                           &(gpu_buffer_desc){.size = (VkDeviceSize)IMAGE_SIZE * IMAGE_SIZE * 4,
                                              .usage = VK_BUFFER_USAGE_TRANSFER_DST_BIT,
                                              .memory = GPU_MEMORY_READBACK,
                                              .name = "test pixels"},
                           &g->pixels, err))
        return false;
    g->target = (vks_draw_target){
        .color = g->color.image,
        .color_view = g->color.view,
        .depth = &g->depth,
        .extent = g->color.extent,
        .final_layout = VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL,
        .final_access = {VK_PIPELINE_STAGE_2_COPY_BIT, VK_ACCESS_2_TRANSFER_READ_BIT},
        .clear = {0.0f, 0.0f, 0.0f, 1.0f},
    };
    return true;
}

/* The device, validation on (named on stdout), and the target. False when there is no device
 * (said on stderr after `name`); *target: whether the target was made. */
static inline bool crowd_gpu_open(crowd_gpu *g, const char *name, bool *target)
{
    vks_error err;
    bool have_device =
        gpu_device_create(&(gpu_device_desc){.device_index = -1, .validate = true}, &g->dev, &err);
    if (!have_device)
        fprintf(stderr, "%s: %s\n", name, err.msg);
    CHECK(have_device);
    if (!have_device)
        return false;
    printf("device: %s, %s\n", g->dev.props.deviceName, test_binding_name());
    *target = crowd_gpu_create_target(g, &err);
    if (!*target)
        fprintf(stderr, "target: %s\n", err.msg);
    CHECK(*target);
    return true;
}

/* The target and the device gone; validation must have reported no error or warning. */
static inline void crowd_gpu_close(crowd_gpu *g)
{
    CHECK(!gpu_validation_failed(&g->dev));
    gpu_image_destroy(&g->dev, &g->color);
    gpu_image_destroy(&g->dev, &g->depth);
    gpu_buffer_destroy(&g->dev, &g->pixels);
    /* vkDestroyDevice still reports (objects never destroyed): count after it. */
    gpu_messages m = gpu_device_destroy(&g->dev);
    CHECK(m.error == 0 && m.warning == 0);
    if (m.error || m.warning)
        fprintf(stderr, "validation reported %u error(s) and %u warning(s)\n", m.error, m.warning);
}

#endif
