/* The compute rasterizer in whole frames (include/vkskin/vkskin_render.h, headless, validation
 * on): the same frame drawn by the graphics pipeline alone (hardware), by the compute rasterizer
 * alone (compute) and split between them (hybrid), compared pixel by pixel: at most 0.5% of the
 * pixels may differ by more than 24/255 in a channel (a crowd of 400 framed at two sizes, a
 * crowd mixing three models, one of them textured and one of 24 meshes, the crowd again with its
 * skinned output split into many chunks, a crowd of a model of 1 000 single-colour materials,
 * which one resolve pass shades, and a close-up). Depth
 * order both ways, with two instances placed by the test: a small near one rasterized in compute
 * in front of a large far one the graphics pipeline draws, and a large near one the graphics
 * pipeline draws in front of a small far one rasterized in compute; there the images must agree
 * to 0.1% of the pixels, far less than either instance covers. Counts: hybrid's triangles
 * through the graphics pipeline and through the compute rasterizer add up to what the hardware
 * frame drew (its pipeline statistics), the graphics pipeline's own count in the hybrid frame is
 * its share, and the split in the depth scenes is the one the threshold rule gives (the test
 * computes it from the instances' sizes). The far splats are off: the rasterizers are compared
 * on the same triangles (tests/cli_splat.sh tests the splats). Exits 77 (skipped, saying why) on a
 * device without 64-bit buffer atomics. usage: test_raster_frames DEFAULT_GLB FIXTURES_DIR */
#include "api/render_api.h"
#include "api_check.h"

#include "vkskin/vkskin_render.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define FOV 0.7f /* radians, vertical */
/* Merged colours against kept apart at a coarse level, differing pixels over the character's:
 * those of triangles whose corners are of different pieces may take another of those colours
 * (the merged one's first corner's, the kept one's mesh of most corners): 18% and 6% at levels
 * 1 and 3; colours interpolated across the texture's blocks (streaks) differ at 71-75%. */
#define MERGED_BOUND 0.3

typedef struct shot {
    uint8_t *rgba;
    uint32_t width, height;
    vkskin_frame_info info;
    vkskin_gpu_stats gpu;        /* of the frame itself */
    vkskin_raster_counts raster; /* its resolve passes and materials */
} shot;

static bool skip_no_atomics;
/* Split GPU buffers at this many bytes (0: the device's limits): the skinned output in chunks,
 * each resolved with its own descriptor set on the descriptors binding. */
static uint64_t max_buffer;

static uint32_t fixed_level; /* with level0: the level drawn (0 unless a case sets it) */

/* One frame of `crowd` from `view` into a fresh renderer; false when the device cannot run the
 * compute rasterizer (skip_no_atomics set). */
static bool draw(vkskin_crowd *crowd, const vkskin_view *view, uint32_t width, uint32_t height,
                 vkskin_raster raster, float raster_px, bool level0, shot *out)
{
    vkskin_renderer *r = NULL;
    vkskin_error err;
    const vkskin_result res =
        vkskin_renderer_create(&(vkskin_renderer_desc){.desc_size = sizeof(vkskin_renderer_desc),
                                                       .crowd = crowd,
                                                       .validate = true,
                                                       .width = width,
                                                       .height = height,
                                                       .raster = raster,
                                                       .raster_triangle_px = raster_px,
                                                       .fixed_lod = level0,
                                                       .lod = fixed_level,
                                                       .pose_every_frame = true,
                                                       .max_buffer_bytes = max_buffer,
                                                       /* the rasterizers compared, triangle for
                                                          triangle (cli_splat tests splats) */
                                                       .no_splats = true},
                               &r, &err);
    if (res != VKSKIN_OK && strstr(err.message, "shaderBufferInt64Atomics")) {
        skip_no_atomics = true;
        return false;
    }
    CHECK(res == VKSKIN_OK);
    if (res != VKSKIN_OK) {
        fprintf(stderr, "%s\n", err.message);
        return false;
    }
    *out = (shot){.rgba = malloc((size_t)width * height * 4), .width = width, .height = height};
    CHECK(vkskin_renderer_frame(
              r, &(vkskin_frame_desc){.desc_size = sizeof(vkskin_frame_desc), .view = view},
              &out->info, &err) == VKSKIN_OK);
    CHECK(vkskin_renderer_read_image(r, out->rgba, &err) == VKSKIN_OK);
    CHECK(vkskin_renderer_last_stats(r, &out->gpu, &err) == VKSKIN_OK);
    CHECK(vkskin_renderer_get_raster_counts(r, &out->raster, &err) == VKSKIN_OK);
    vkskin_messages m;
    vkskin_renderer_destroy(r, &m);
    CHECK(m.errors == 0 && m.warnings == 0);
    return true;
}

/* The share of pixels whose channels differ by more than 24/255. */
static double differing(const shot *a, const shot *b)
{
    const size_t n = (size_t)a->width * a->height;
    size_t count = 0;
    for (size_t p = 0; p < n; p++) {
        int worst = 0;
        for (int k = 0; k < 3; k++) {
            const int d = abs((int)a->rgba[4 * p + k] - (int)b->rgba[4 * p + k]);
            worst = d > worst ? d : worst;
        }
        count += worst > 24;
    }
    return (double)count / (double)n;
}

/* Pixels unlike the top-left corner (the background). */
static size_t covered(const shot *s)
{
    const size_t n = (size_t)s->width * s->height;
    size_t count = 0;
    for (size_t p = 0; p < n; p++)
        count += memcmp(s->rgba + 4 * p, s->rgba, 3) != 0;
    return count;
}

/* The frame drawn three ways; hybrid and compute against hardware within `bound`; the counts.
 * Returns the hybrid frame's split (triangles in compute) through *compute_share. */
static void three_ways(const char *what, vkskin_crowd *crowd, const vkskin_view *view,
                       uint32_t width, uint32_t height, float raster_px, bool level0, double bound,
                       shot *hybrid_out)
{
    shot hw, cs, hy;
    if (!draw(crowd, view, width, height, VKSKIN_RASTER_HARDWARE, raster_px, level0, &hw))
        return;
    if (!draw(crowd, view, width, height, VKSKIN_RASTER_COMPUTE, raster_px, level0, &cs) ||
        !draw(crowd, view, width, height, VKSKIN_RASTER_HYBRID, raster_px, level0, &hy)) {
        free(hw.rgba);
        return;
    }
    const double d_compute = differing(&cs, &hw), d_hybrid = differing(&hy, &hw);
    printf("%s, %ux%u: %zu pixels covered; compute: %.3f%% differ (%llu pixels resolved), hybrid: "
           "%.3f%% (%llu triangles to the graphics pipeline, %llu in compute, of %llu)\n",
           what, width, height, covered(&hw), 100.0 * d_compute,
           (unsigned long long)cs.gpu.pixels_resolved, 100.0 * d_hybrid,
           (unsigned long long)hy.info.triangles_hardware,
           (unsigned long long)hy.info.triangles_compute, (unsigned long long)hw.gpu.triangles);
    CHECK(covered(&hw) > 100); /* the scene is on screen */
    CHECK(d_compute <= bound && d_hybrid <= bound);
    /* Counts: the split adds up to the hardware frame's triangles (its pipeline statistics), and
     * the graphics pipeline counted exactly its share in each frame. */
    CHECK(hw.info.triangles_compute == 0 && hw.info.triangles_hardware == hw.gpu.triangles);
    CHECK(hy.info.triangles_hardware + hy.info.triangles_compute == hw.gpu.triangles);
    CHECK(hy.gpu.triangles == hy.info.triangles_hardware);
    CHECK(cs.info.triangles_hardware == 0 && cs.info.triangles_compute == hw.gpu.triangles &&
          cs.gpu.triangles == 0);
    /* The compute frame resolved about what the hardware covered (its silhouette, to 2%). */
    CHECK(fabs((double)cs.gpu.pixels_resolved - (double)covered(&hw)) <= 0.02 * covered(&hw) + 4);
    CHECK(hw.gpu.pixels_resolved == 0 && hw.gpu.raster_ms < 0.0);
    /* One resolve for every material: one pass, or one per output chunk on the descriptors
     * binding (the 1 MiB chunks), whatever the number of materials. */
    CHECK(hw.raster.resolve_passes == 0 && cs.raster.resolve_passes >= 1);
    CHECK(max_buffer || cs.raster.resolve_passes == 1);
    free(hw.rgba);
    free(cs.rgba);
    if (hybrid_out)
        *hybrid_out = hy;
    else
        free(hy.rgba);
}

/* A perspective view from `eye` along -Z, Vulkan clip space (y down, depth 0 to 1). */
static vkskin_view view_along_z(const float eye[3], float aspect)
{
    const float f = 1.0f / tanf(0.5f * FOV), n = 0.05f, far = 100.0f;
    vkskin_view v = {{0}, {eye[0], eye[1], eye[2]}};
    float *m = v.view_proj; /* column-major: (row k, column c) at 4 c + k */
    m[0] = f / aspect;
    m[5] = -f;
    m[10] = far / (n - far);
    m[11] = -1.0f;
    m[14] = n * far / (n - far);
    /* times the translation by -eye */
    m[12] = -m[0] * eye[0];
    m[13] = -m[5] * eye[1];
    m[14] += -m[10] * eye[2];
    m[15] = eye[2];
    return v;
}

/* Places instance i: its first world, scaled about the origin by s, then moved by (x, y, z). */
static void place(vkskin_crowd *crowd, const float base[16], uint32_t i, float s, float x, float y,
                  float z)
{
    float w[16];
    for (int k = 0; k < 16; k++)
        w[k] = base[k] * ((k % 4 < 3) ? s : 1.0f);
    w[12] += x;
    w[13] += y;
    w[14] += z;
    CHECK(vkskin_crowd_set_world(crowd, i, w, NULL) == VKSKIN_OK);
}

/* Mean triangle area at level 0 that instance i projects to from `eye` (the rule
 * vks_crowd_choose applies, written again here). */
static double projected_area(const vkskin_crowd *crowd, uint32_t i, const float eye[3],
                             uint32_t height)
{
    vkskin_instance_info in;
    CHECK(vkskin_crowd_get_instance(crowd, i, &in, NULL) == VKSKIN_OK);
    double d2 = 0.0, scale = 0.0;
    for (int a = 0; a < 3; a++) {
        d2 += ((double)in.center[a] - eye[a]) * ((double)in.center[a] - eye[a]);
        const double col = sqrt((double)in.world[4 * a] * in.world[4 * a] +
                                (double)in.world[4 * a + 1] * in.world[4 * a + 1] +
                                (double)in.world[4 * a + 2] * in.world[4 * a + 2]);
        scale = fmax(scale, col);
    }
    const double ppu = 0.5 * (1.0 / tan(0.5 * FOV)) * height;
    const double px = scale * ppu / (sqrt(d2) - in.radius);
    return crowd->crowd.triangle_area[in.model][0] * px * px;
}

/* Two default characters on the Z axis, seen from +Z: the far one at the origin, the near one
 * between it and the eye, a little aside, their centres at the eye's height; whichever projects
 * smaller triangles goes to the compute rasterizer (the threshold set between the two). */
static void depth_order(vkskin_model *model, float far_scale, float near_scale, const char *what)
{
    const vkskin_model *models[] = {model};
    vkskin_crowd *crowd;
    CHECK(vkskin_crowd_create(&(vkskin_crowd_desc){.desc_size = sizeof(vkskin_crowd_desc),
                                                   .models = models,
                                                   .model_count = 1,
                                                   .instance_count = 2},
                              &crowd, NULL) == VKSKIN_OK);
    vkskin_instance_info first;
    CHECK(vkskin_crowd_get_instance(crowd, 0, &first, NULL) == VKSKIN_OK);
    float base[16];
    memcpy(base, first.world, sizeof base);
    base[12] -= first.center[0]; /* centred on the Z axis */
    base[14] -= first.center[2];
    const float r = first.radius, distance = 3.0f * r;
    const float height = first.center[1]; /* of the unscaled centre, and of the eye */
    place(crowd, base, 0, far_scale, 0.0f, height * (1.0f - far_scale), 0.0f);
    place(crowd, base, 1, near_scale, 0.05f * r, height * (1.0f - near_scale), 0.5f * distance);
    const float eye[3] = {0.0f, height, distance};
    const uint32_t size = 128;
    const vkskin_view view = view_along_z(eye, 1.0f);
    const double a_far = projected_area(crowd, 0, eye, size),
                 a_near = projected_area(crowd, 1, eye, size);
    const float threshold = (float)sqrt(a_far * a_near);
    shot hybrid = {0};
    three_ways(what, crowd, &view, size, size, threshold, true, 0.001, &hybrid);
    if (hybrid.rgba) {
        /* The split the rule gives: the instance with the smaller triangles in compute. */
        const uint64_t level0 = hybrid.info.triangles_hardware + hybrid.info.triangles_compute;
        CHECK(level0 % 2 == 0 && hybrid.info.triangles_compute == level0 / 2);
        free(hybrid.rgba);
    }
    vkskin_crowd_destroy(crowd);
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: test_raster_frames DEFAULT_GLB FIXTURES_DIR\n");
        return 2;
    }
    vkskin_error err;
    vkskin_model *model = NULL, *textured = NULL, *pieces = NULL;
    char path[4096];
    CHECK(vkskin_model_load(
              &(vkskin_model_desc){.desc_size = sizeof(vkskin_model_desc), .path = argv[1]}, &model,
              &err) == VKSKIN_OK);
    snprintf(path, sizeof path, "%s/textured.glb", argv[2]);
    CHECK(vkskin_model_load(
              &(vkskin_model_desc){.desc_size = sizeof(vkskin_model_desc), .path = path}, &textured,
              &err) == VKSKIN_OK);
    snprintf(path, sizeof path, "%s/many_meshes.glb", argv[2]);
    CHECK(vkskin_model_load(&(vkskin_model_desc){.desc_size = sizeof(vkskin_model_desc),
                                                 .path = path,
                                                 .keep_meshes = true},
                            &pieces, &err) == VKSKIN_OK);
    if (!model || !textured || !pieces)
        return check_report("test_raster_frames");

    /* A crowd of 400 at two sizes: small on screen, most of it goes to compute in hybrid. */
    const vkskin_model *one[] = {model};
    vkskin_crowd *crowd;
    CHECK(vkskin_crowd_create(&(vkskin_crowd_desc){.desc_size = sizeof(vkskin_crowd_desc),
                                                   .models = one,
                                                   .model_count = 1,
                                                   .instance_count = 400},
                              &crowd, &err) == VKSKIN_OK);
    vkskin_view view;
    CHECK(vkskin_crowd_frame_view(crowd, 16.0f / 9.0f, &view, &err) == VKSKIN_OK);
    shot hybrid = {0};
    three_ways("400 default characters", crowd, &view, 320, 180, 0.0f, false, 0.005, &hybrid);
    if (skip_no_atomics) {
        printf("SKIP: the device lacks shaderInt64 or shaderBufferInt64Atomics, which the compute "
               "rasterizer needs\n");
        return 77;
    }
    CHECK(hybrid.info.triangles_compute > 0); /* the case the rasterizer is for */
    free(hybrid.rgba);
    three_ways("400 default characters", crowd, &view, 960, 540, 0.0f, false, 0.005, NULL);
    /* The output split into chunks of 1 MiB (the frame needs several), which the
     * rasterizer's dispatches and the resolve take one at a time on the descriptors binding. */
    max_buffer = 1u << 20;
    three_ways("400 default characters, output in 1 MiB chunks", crowd, &view, 320, 180, 0.0f,
               false, 0.005, NULL);
    max_buffer = 0;
    vkskin_crowd_destroy(crowd);

    /* A mixed crowd: the default character, a textured one, one of 24 meshes kept apart. */
    const vkskin_model *mixed[] = {model, textured, pieces};
    CHECK(vkskin_crowd_create(&(vkskin_crowd_desc){.desc_size = sizeof(vkskin_crowd_desc),
                                                   .models = mixed,
                                                   .model_count = 3,
                                                   .instance_count = 90},
                              &crowd, &err) == VKSKIN_OK);
    CHECK(vkskin_crowd_frame_view(crowd, 16.0f / 9.0f, &view, &err) == VKSKIN_OK);
    three_ways("a mixed crowd of 90", crowd, &view, 480, 270, 0.0f, false, 0.005, NULL);
    vkskin_crowd_destroy(crowd);

    /* 1 000 single-colour materials (a piece each), kept apart (the load would merge their
     * colours into one texture): one resolve pass shades them all. */
    snprintf(path, sizeof path, "%s/many_materials.glb", argv[2]);
    vkskin_model *colours = NULL;
    CHECK(vkskin_model_load(&(vkskin_model_desc){.desc_size = sizeof(vkskin_model_desc),
                                                 .path = path,
                                                 .keep_meshes = true},
                            &colours, &err) == VKSKIN_OK);
    const vkskin_model *coloured[] = {colours};
    /* (kept for the merged colours' case below) */
    CHECK(colours &&
          vkskin_crowd_create(&(vkskin_crowd_desc){.desc_size = sizeof(vkskin_crowd_desc),
                                                   .models = coloured,
                                                   .model_count = 1,
                                                   .instance_count = 100},
                              &crowd, &err) == VKSKIN_OK);
    CHECK(vkskin_crowd_frame_view(crowd, 16.0f / 9.0f, &view, &err) == VKSKIN_OK);
    three_ways("100 characters of 1 000 materials", crowd, &view, 480, 270, 0.0f, false, 0.005,
               &hybrid);
    CHECK(hybrid.rgba && hybrid.raster.materials == 1000 && hybrid.raster.resolve_passes == 1);
    free(hybrid.rgba);
    vkskin_crowd_destroy(crowd);

    /* Its colours merged (the load's default) against kept apart, at a coarse level whose
     * triangles join corners of different pieces: each triangle one colour both ways (the merged
     * one's flat UV), not streaks across the colour texture; both rasterizers. */
    vkskin_model *merged = NULL;
    CHECK(vkskin_model_load(
              &(vkskin_model_desc){.desc_size = sizeof(vkskin_model_desc), .path = path}, &merged,
              &err) == VKSKIN_OK);
    for (uint32_t level = 1; merged && colours && level <= 3; level += 2) {
        const vkskin_model *which[2] = {merged, colours};
        shot both[2][2] = {{{0}}};
        for (int k = 0; k < 2; k++) {
            CHECK(vkskin_crowd_create(&(vkskin_crowd_desc){.desc_size = sizeof(vkskin_crowd_desc),
                                                           .models = &which[k],
                                                           .model_count = 1,
                                                           .instance_count = 1},
                                      &crowd, &err) == VKSKIN_OK);
            CHECK(vkskin_crowd_frame_view(crowd, 1.0f, &view, &err) == VKSKIN_OK);
            fixed_level = level;
            CHECK(draw(crowd, &view, 256, 256, VKSKIN_RASTER_HARDWARE, 0.0f, true, &both[k][0]));
            CHECK(draw(crowd, &view, 256, 256, VKSKIN_RASTER_COMPUTE, 0.0f, true, &both[k][1]));
            fixed_level = 0;
            vkskin_crowd_destroy(crowd);
        }
        if (!both[0][0].rgba || !both[0][1].rgba || !both[1][0].rgba || !both[1][1].rgba) {
            for (int k = 0; k < 2; k++)
                free(both[k][0].rgba), free(both[k][1].rgba);
            continue;
        }
        const double pixels = 256.0 * 256.0, character = (double)covered(&both[1][0]);
        const double hw = differing(&both[0][0], &both[1][0]) * pixels / character,
                     cs = differing(&both[0][1], &both[1][1]) * pixels / character;
        printf("1 000 materials at level %u, merged against kept apart, 256x256: %.0f pixels "
               "covered; of them, hardware %.1f%% differ, compute %.1f%%\n",
               level, character, 100.0 * hw, 100.0 * cs);
        CHECK(character > 1000 && hw <= MERGED_BOUND && cs <= MERGED_BOUND);
        for (int k = 0; k < 2; k++)
            free(both[k][0].rgba), free(both[k][1].rgba);
    }
    vkskin_model_destroy(merged);

    /* A close-up: one character filling the image (hybrid leaves it to the graphics pipeline). */
    CHECK(vkskin_crowd_create(&(vkskin_crowd_desc){.desc_size = sizeof(vkskin_crowd_desc),
                                                   .models = one,
                                                   .model_count = 1,
                                                   .instance_count = 1},
                              &crowd, &err) == VKSKIN_OK);
    CHECK(vkskin_crowd_frame_view(crowd, 1.0f, &view, &err) == VKSKIN_OK);
    three_ways("a close-up", crowd, &view, 256, 256, 0.0f, false, 0.005, &hybrid);
    CHECK(hybrid.rgba && hybrid.info.triangles_compute == 0);
    free(hybrid.rgba);
    vkskin_crowd_destroy(crowd);

    /* Depth order both ways. */
    depth_order(model, 1.0f, 0.3f, "near and small (compute) before far and large (hardware)");
    depth_order(model, 0.3f, 1.2f, "near and large (hardware) before far and small (compute)");

    vkskin_model_destroy(model);
    vkskin_model_destroy(colours);
    vkskin_model_destroy(textured);
    vkskin_model_destroy(pieces);
    return check_report("test_raster_frames");
}
