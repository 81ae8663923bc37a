/* The public API's owned device (include/vkskin/vkskin_render.h), headless, validation on: each
 * frame's skinned output against the CPU reference (skin/skin_cpu.h), the image's silhouette
 * against the CPU-skinned vertices projected by the test, frames in flight with no wait between
 * them, the vertex-shader mode and an overflowing output against the compute image, the address
 * path (asked for under validation) against the descriptors binding's image bit for bit, palettes
 * copied to device memory against the host path, the animation level of detail's kept poses
 * through the renderer's per-slot palette buffers, the frame's counts, and misuse. Every renderer
 * must finish with no validation message.
 *   usage: test_api_render DEFAULT_GLB */
#include "api/render_api.h"
#include "api_check.h"
#include "skin/skin_cpu.h"

#include "vkskin/vkskin_render.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define W 160u
#define H 120u
#define INSTANCES 6u
#define POSITION_TOLERANCE 1e-4 /* times the bind-pose box's diagonal, as test_gpu_skin */

/* Destroys the renderer and checks that validation said nothing over its life. */
static void close_renderer(vkskin_renderer *r)
{
    vkskin_messages m;
    vkskin_renderer_destroy(r, &m);
    CHECK(m.errors == 0 && m.warnings == 0);
}

/* Instance i's vertices skinned on the CPU at its clip and clock, in palette space. */
static void cpu_pose(const vkskin_crowd *crowd, uint32_t i, float (*pos)[3], float (*nrm)[3])
{
    vkskin_instance_info in;
    CHECK(vkskin_crowd_get_instance(crowd, i, &in, NULL) == VKSKIN_OK);
    CHECK(!in.fading);
    const vks_model *m = crowd->crowd.models[in.model];
    CHECK(vks_skin_cpu_pose(m, in.clip, in.time, pos, nrm, NULL));
}

/* The output of the last frame of instances 0 .. count - 1, or of those `list` names, against the
 * CPU reference; returns the worst position error over the diagonal. */
static double check_listed(vkskin_renderer *r, const vkskin_crowd *crowd, const uint32_t *list,
                           uint32_t count, double diag)
{
    const vks_model *m = crowd->crowd.models[0];
    const uint32_t n = m->vertex_count;
    float(*gp)[3] = malloc(sizeof *gp * n), (*gn)[3] = malloc(sizeof *gn * n);
    float(*cp)[3] = malloc(sizeof *cp * n), (*cn)[3] = malloc(sizeof *cn * n);
    double worst = 0.0;
    for (uint32_t at = 0; at < count; at++) {
        const uint32_t i = list ? list[at] : at;
        uint32_t level = 99;
        vkskin_error err;
        CHECK(vkskin_renderer_read_skinned(r, i, &gp[0][0], &gn[0][0], NULL, &level, &err) ==
              VKSKIN_OK);
        CHECK(level == 0);
        cpu_pose(crowd, i, cp, cn);
        /* check_max_diff: a NaN is an infinite difference, not one fmax drops. */
        worst = fmax(worst, check_max_diff(&gp[0][0], 3, &cp[0][0], 3, n, 3) / diag);
        for (uint32_t v = 0; v < n; v++)
            for (int k = 0; k < 3; k++)
                CHECK_NEAR(gn[v][k], cn[v][k], 1e-3);
    }
    free(gp), free(gn), free(cp), free(cn);
    return worst;
}

static double check_outputs(vkskin_renderer *r, const vkskin_crowd *crowd, uint32_t count,
                            double diag)
{
    return check_listed(r, crowd, NULL, count, diag);
}

/* The image's box of pixels unlike the background (the corner's) against the box of every
 * instance's CPU-skinned vertices projected through the view: within 2 pixels a side. */
static void check_silhouette(const uint8_t *rgba, const vkskin_crowd *crowd,
                             const vkskin_view *view)
{
    const uint8_t *bg = rgba;
    int lo[2] = {INT32_MAX, INT32_MAX}, hi[2] = {-1, -1};
    for (uint32_t y = 0; y < H; y++)
        for (uint32_t x = 0; x < W; x++) {
            const uint8_t *p = rgba + 4 * (y * W + x);
            if (abs(p[0] - bg[0]) + abs(p[1] - bg[1]) + abs(p[2] - bg[2]) > 6) {
                lo[0] = x < (uint32_t)lo[0] ? (int)x : lo[0],
                hi[0] = (int)x > hi[0] ? (int)x : hi[0];
                lo[1] = y < (uint32_t)lo[1] ? (int)y : lo[1],
                hi[1] = (int)y > hi[1] ? (int)y : hi[1];
            }
        }
    const vks_model *m = crowd->crowd.models[0];
    float(*p)[3] = malloc(sizeof *p * m->vertex_count),
    (*n)[3] = malloc(sizeof *n * m->vertex_count);
    double plo[2] = {1e30, 1e30}, phi[2] = {-1e30, -1e30};
    const float *vp = view->view_proj;
    for (uint32_t i = 0; i < vkskin_crowd_instance_count(crowd); i++) {
        vkskin_instance_info in;
        vkskin_crowd_get_instance(crowd, i, &in, NULL);
        cpu_pose(crowd, i, p, n);
        for (uint32_t v = 0; v < m->vertex_count; v++) {
            double w[4], c[4];
            for (int k = 0; k < 4; k++) /* world = in.world * (p, 1), column-major */
                w[k] = in.world[k] * p[v][0] + in.world[4 + k] * p[v][1] +
                       in.world[8 + k] * p[v][2] + in.world[12 + k];
            for (int k = 0; k < 4; k++)
                c[k] = vp[k] * w[0] + vp[4 + k] * w[1] + vp[8 + k] * w[2] + vp[12 + k] * w[3];
            /* Vulkan clip space to pixels: x right, y down. */
            const double px = (c[0] / c[3] * 0.5 + 0.5) * W, py = (c[1] / c[3] * 0.5 + 0.5) * H;
            plo[0] = fmin(plo[0], px), phi[0] = fmax(phi[0], px);
            plo[1] = fmin(plo[1], py), phi[1] = fmax(phi[1], py);
        }
    }
    free(p), free(n);
    CHECK(hi[0] >= 0);
    for (int k = 0; k < 2; k++) {
        CHECK_NEAR(lo[k], plo[k], 2.0);
        CHECK_NEAR(hi[k] + 1, phi[k], 2.0);
    }
}

/* Pixels that differ by more than 24/255 in a channel. */
static uint32_t differing(const uint8_t *a, const uint8_t *b)
{
    uint32_t n = 0;
    for (uint32_t i = 0; i < W * H; i++)
        for (int k = 0; k < 3; k++)
            if (abs(a[4 * i + k] - b[4 * i + k]) > 24) {
                n++;
                break;
            }
    return n;
}

/* A turned and closer view whose visible list (into `visible`, *count of them) has a gap: some
 * instances culled between visible ones. False when none of the views tried has one. */
static bool view_with_gaps(const vkskin_crowd *crowd, vkskin_view *view, uint32_t *visible,
                           uint32_t *count)
{
    for (int k = 0; k < 64; k++) {
        const vkskin_orbit o = {.aspect = (float)W / (float)H,
                                .yaw = 0.4f * (float)k,
                                .zoom = 0.25f + 0.05f * (float)(k % 8)};
        vkskin_crowd_orbit_view(crowd, &o, view, NULL);
        if (vkskin_crowd_cull(crowd, view->view_proj, visible, vkskin_crowd_instance_count(crowd),
                              count, NULL) != VKSKIN_OK)
            return false;
        for (uint32_t v = 1; v < *count; v++)
            if (visible[v] != visible[v - 1] + 1)
                return true;
    }
    return false;
}

/* The measurements of the last two frames, which no later frame's info reports: the one before
 * the last drew every instance, the last only those a closer view keeps (`per` triangles each);
 * the next frame's info then carries the first of the two. */
static void check_previous_stats(const vkskin_renderer_desc *desc, vkskin_crowd *crowd,
                                 const vkskin_view *all, uint64_t per)
{
    vkskin_renderer *r;
    vkskin_error err;
    vkskin_gpu_stats previous, last;
    vkskin_frame_info info;
    uint32_t visible[INSTANCES], n;
    vkskin_view fewer;
    CHECK(view_with_gaps(crowd, &fewer, visible, &n) && n < INSTANCES);
    CHECK(vkskin_renderer_create(desc, &r, &err) == VKSKIN_OK);
    CHECK(vkskin_renderer_frame(
              r, &(vkskin_frame_desc){.desc_size = sizeof(vkskin_frame_desc), .view = all}, &info,
              &err) == VKSKIN_OK);
    CHECK(vkskin_renderer_previous_stats(r, &previous, &err) == VKSKIN_OK);
    CHECK(previous.triangles == UINT64_MAX && previous.draw_ms == -1.0); /* one frame: none */
    CHECK(vkskin_renderer_frame(
              r, &(vkskin_frame_desc){.desc_size = sizeof(vkskin_frame_desc), .view = &fewer},
              &info, &err) == VKSKIN_OK);
    CHECK(vkskin_renderer_previous_stats(r, &previous, &err) == VKSKIN_OK);
    CHECK(vkskin_renderer_last_stats(r, &last, &err) == VKSKIN_OK);
    CHECK(previous.draw_ms >= 0.0 && last.draw_ms >= 0.0);
    if (previous.triangles != UINT64_MAX) {
        CHECK(previous.triangles == INSTANCES * per && last.triangles == n * per);
        CHECK(vkskin_renderer_frame(
                  r, &(vkskin_frame_desc){.desc_size = sizeof(vkskin_frame_desc), .view = all},
                  &info, &err) == VKSKIN_OK);
        CHECK(info.gpu.triangles == INSTANCES * per); /* the first frame's, as previous said */
        CHECK(vkskin_renderer_previous_stats(r, &previous, &err) == VKSKIN_OK);
        CHECK(previous.triangles == n * per);
        printf("previous stats: three frames drew %llu, %llu and %llu triangles\n",
               (unsigned long long)info.gpu.triangles, (unsigned long long)previous.triangles,
               (unsigned long long)INSTANCES * per);
    } else
        printf("skipped: the last two frames' triangles: this device has no pipeline statistics\n");
    check_error(vkskin_renderer_previous_stats(r, NULL, &err), &err, VKSKIN_ERROR_ARGUMENT,
                "a renderer and stats are needed");
    close_renderer(r);
}

/* The skinned output made for what frames draw: one instance's room at creation, grown (a
 * quarter past the need) by the first frame that lists more, by a frame whose view shows more,
 * never for a frame that needs no more, and never shrunk; no frame overflows, and each frame's
 * outputs agree with the CPU. With max_skinned_vertices the room is fixed and the rest overflows.
 * `vertices`: one instance's at level 0 (what the desc's fixed level draws). */
static void check_output_growth(const vkskin_renderer_desc *desc, vkskin_crowd *crowd,
                                const vkskin_view *all, uint64_t vertices, double diag)
{
    vkskin_renderer *r;
    vkskin_error err;
    vkskin_renderer_info ri;
    vkskin_frame_info info;
    uint32_t visible[INSTANCES], n;
    vkskin_view fewer;
    vkskin_crowd_reset(crowd, NULL);
    /* A closer view that shows so few that the room grown for them (a quarter more) holds not
     * all of them. */
    n = 0;
    for (int k = 0; k < 256 && !(n > 0 && 5 * n < 4 * INSTANCES); k++) {
        vkskin_crowd_orbit_view(crowd,
                                &(vkskin_orbit){.aspect = (float)W / (float)H,
                                                .yaw = 0.3f * (float)k,
                                                .zoom = 0.1f + 0.02f * (float)(k % 16)},
                                &fewer, NULL);
        CHECK(vkskin_crowd_cull(crowd, fewer.view_proj, visible, INSTANCES, &n, NULL) == VKSKIN_OK);
    }
    CHECK(n > 0 && 5 * n < 4 * INSTANCES);
    CHECK(vkskin_renderer_create(desc, &r, &err) == VKSKIN_OK);
    CHECK(vkskin_renderer_get_info(r, &ri, &err) == VKSKIN_OK);
    CHECK(ri.max_skinned_vertices >= vertices && ri.max_skinned_vertices < 2 * vertices);
    CHECK(ri.max_output_vertices >= INSTANCES * vertices && ri.output_growths == 0);
    CHECK(ri.device_bytes > 0 && ri.host_bytes > 0);
    const uint64_t created_bytes = ri.device_bytes;
    const struct {
        const vkskin_view *view;
        uint32_t visible, growths; /* the frame's, and the growths after it */
    } frames[] = {{&fewer, n, 1}, {&fewer, n, 1}, {all, INSTANCES, 2}, {&fewer, n, 2}};
    uint64_t room = 0;
    double worst = 0.0;
    for (size_t k = 0; k < sizeof frames / sizeof frames[0]; k++) {
        CHECK(vkskin_renderer_frame(r,
                                    &(vkskin_frame_desc){.desc_size = sizeof(vkskin_frame_desc),
                                                         .view = frames[k].view},
                                    &info, &err) == VKSKIN_OK);
        CHECK(vkskin_renderer_get_info(r, &ri, &err) == VKSKIN_OK);
        CHECK(info.visible == frames[k].visible && info.overflow == 0);
        CHECK(info.skinned == frames[k].visible);
        CHECK(ri.output_growths == frames[k].growths);
        const uint64_t need = (uint64_t)frames[k].visible * vertices;
        CHECK(ri.max_skinned_vertices >= need && ri.max_skinned_vertices >= room);
        /* Grown for this frame: a quarter past it, or to the most it may have (every
         * instance at once, here). */
        const uint64_t grown =
            need + need / 4 < ri.max_output_vertices ? need + need / 4 : ri.max_output_vertices;
        if (ri.max_skinned_vertices != room)
            CHECK(ri.max_skinned_vertices + 1 >= grown &&
                  ri.max_skinned_vertices <= need + need / 4 + vertices);
        room = ri.max_skinned_vertices;
        worst = fmax(worst, frames[k].view == all ? check_outputs(r, crowd, INSTANCES, diag)
                                                  : check_listed(r, crowd, visible, n, diag));
    }
    CHECK(ri.device_bytes > created_bytes);
    printf("output growth: room for %llu vertices after %u growths, %u and %u visible, worst "
           "position error %.3g of the diagonal\n",
           (unsigned long long)room, ri.output_growths, n, INSTANCES, worst);
    CHECK(worst <= POSITION_TOLERANCE);
    close_renderer(r);

    vkskin_renderer_desc fixed = *desc;
    fixed.max_skinned_vertices = (uint32_t)(2 * vertices);
    CHECK(vkskin_renderer_create(&fixed, &r, &err) == VKSKIN_OK);
    CHECK(vkskin_renderer_frame(
              r, &(vkskin_frame_desc){.desc_size = sizeof(vkskin_frame_desc), .view = all}, &info,
              &err) == VKSKIN_OK);
    CHECK(vkskin_renderer_get_info(r, &ri, &err) == VKSKIN_OK);
    CHECK(ri.output_growths == 0 && ri.max_output_vertices == ri.max_skinned_vertices);
    CHECK(info.skinned == 2 && info.overflow == INSTANCES - 2);
    close_renderer(r);
}

/* Palettes read from each frame slot's host buffer (--palettes host): the store's image bit for
 * bit (the same palettes, read from elsewhere), then frames in flight over both slots, each
 * instance's output against the CPU at its clock. */
/* `frames` frames of `view`, then the last image read into `image`. */
static void draw_frames(vkskin_renderer *r, const vkskin_view *view, int frames, uint8_t *image)
{
    vkskin_error err;
    for (int k = 0; k < frames; k++)
        CHECK(vkskin_renderer_frame(
                  r, &(vkskin_frame_desc){.desc_size = sizeof(vkskin_frame_desc), .view = view},
                  NULL, &err) == VKSKIN_OK);
    CHECK(vkskin_renderer_read_image(r, image, &err) == VKSKIN_OK);
}

static void check_host_palettes(const vkskin_renderer_desc *store, vkskin_crowd *crowd,
                                const vkskin_view *view, const uint8_t *store_image, double diag)
{
    vkskin_crowd_reset(crowd, NULL);
    vkskin_renderer_desc desc = *store;
    desc.palettes = VKSKIN_PALETTES_HOST;
    vkskin_renderer *r;
    vkskin_error err;
    vkskin_frame_info info;
    uint8_t *image = malloc(W * H * 4);
    CHECK(vkskin_renderer_create(&desc, &r, &err) == VKSKIN_OK);
    draw_frames(r, view, 1, image);
    printf("host palettes: %u of %u pixels differ from the store's image\n",
           differing(store_image, image), W * H);
    CHECK(memcmp(image, store_image, W * H * 4) == 0);
    double worst = check_outputs(r, crowd, INSTANCES, diag);
    for (int f = 0; f < 5; f++) { /* no wait between them: both slots' palettes in use */
        vkskin_crowd_advance(crowd, 1.0 / 30.0, NULL);
        CHECK(vkskin_renderer_frame(
                  r, &(vkskin_frame_desc){.desc_size = sizeof(vkskin_frame_desc), .view = view},
                  &info, &err) == VKSKIN_OK);
    }
    CHECK(info.visible == INSTANCES && info.skinned == INSTANCES);
    worst = fmax(worst, check_outputs(r, crowd, INSTANCES, diag));
    /* A view that culls some instances, leaving gaps in the visible list. */
    uint32_t visible[INSTANCES], n;
    vkskin_view gaps;
    CHECK(view_with_gaps(crowd, &gaps, visible, &n));
    CHECK(vkskin_renderer_frame(
              r, &(vkskin_frame_desc){.desc_size = sizeof(vkskin_frame_desc), .view = &gaps}, &info,
              &err) == VKSKIN_OK);
    CHECK(info.visible == n && info.skinned == n);
    worst = fmax(worst, check_listed(r, crowd, visible, n, diag));
    printf("host palettes: worst position error %.3g of the diagonal over 7 frames, the last "
           "with %u instances visible, not all in a row\n",
           worst, n);
    CHECK(worst <= POSITION_TOLERANCE);
    /* The path asked for is the one that ran: no store. */
    CHECK(!r->r.skinner.use_store && r->r.skinner.pages[0].buffer == VK_NULL_HANDLE);
    close_renderer(r);
    free(image);
}

/* Palette staging (vkskin_renderer_desc.stage_palette): the renderer says the room it staged
 * (the default character's pose: 3 vec4s a joint), the image is the store's (no pixel more than
 * 24 levels apart) and every output the CPU's: staging moves the same values, not the
 * arithmetic. */
static void check_staged_palette(const vkskin_renderer_desc *store, vkskin_crowd *crowd,
                                 const vkskin_view *view, const uint8_t *store_image, double diag)
{
    vkskin_crowd_reset(crowd, NULL);
    vkskin_renderer_desc desc = *store;
    desc.stage_palette = true;
    vkskin_renderer *r = NULL;
    vkskin_error err;
    vkskin_renderer_info ri;
    uint8_t *image = malloc(W * H * 4);
    CHECK(image && vkskin_renderer_create(&desc, &r, &err) == VKSKIN_OK);
    if (!image || !r) {
        free(image);
        return;
    }
    CHECK(vkskin_renderer_get_info(r, &ri, &err) == VKSKIN_OK &&
          ri.staged_palette_vec4s == 3 * crowd->crowd.models[0]->skeleton.joint_count);
    draw_frames(r, view, 1, image);
    /* (lavapipe: byte for byte; another compiler may round the staged variant apart) */
    CHECK(differing(store_image, image) == 0);
    const double worst = check_outputs(r, crowd, INSTANCES, diag);
    CHECK(worst <= POSITION_TOLERANCE);
    printf("staged palettes: %u vec4s of shared memory, %u pixels differ from the store's image, "
           "worst position error %.3g of the diagonal\n",
           ri.staged_palette_vec4s, differing(store_image, image), worst);
    close_renderer(r);
    free(image);
}

/* The animation level of detail: instances that project small are posed every 2nd, 4th or 8th
 * frame and keep their pose between. Each frame, every visible instance's skinned output must be
 * either its pose at its clock now (posed this frame) or its previous frame's output bit for bit
 * (kept, when it was visible the frame before). With host palettes, a kept pose left out of the
 * slot's buffer would show the pose that slot held two frames before (or nothing, in a slot not
 * used yet). With the store, every 4th frame is a closer view that culls some instances: their
 * slots are freed and taken by others while the frame before may still read them, and they come
 * back posed afresh; a kept pose whose slot was overwritten would show another's. */
static void check_kept_poses(const vkskin_renderer_desc *base, vkskin_palettes palettes,
                             vkskin_crowd *crowd, double diag)
{
    enum { FRAMES = 16 };
    vkskin_crowd_reset(crowd, NULL);
    vkskin_renderer_desc desc = *base;
    desc.pose_every_frame = false;
    desc.palettes = palettes;
    const bool store = palettes == VKSKIN_PALETTES_STORE;
    const uint32_t n = crowd->crowd.models[0]->vertex_count;
    float(*gp)[3] = malloc(sizeof *gp * n), (*gn)[3] = malloc(sizeof *gn * n);
    float(*cp)[3] = malloc(sizeof *cp * n), (*cn)[3] = malloc(sizeof *cn * n);
    float(*prev)[3] = malloc(sizeof *prev * n * INSTANCES);
    bool shown[INSTANCES] = {false}; /* visible the frame before */
    vkskin_renderer *r;
    vkskin_error err;
    CHECK(vkskin_renderer_create(&desc, &r, &err) == VKSKIN_OK);
    CHECK(r->r.skinner.use_store == store);
    /* From further away than the framing view: every instance small, posed every 2nd to 8th. */
    vkskin_view far, near;
    CHECK(vkskin_crowd_orbit_view(crowd,
                                  &(vkskin_orbit){.aspect = (float)W / (float)H, .zoom = 2.0f},
                                  &far, &err) == VKSKIN_OK);
    uint32_t near_list[INSTANCES], near_count;
    CHECK(view_with_gaps(crowd, &near, near_list, &near_count) && near_count < INSTANCES);
    uint32_t kept = 0, posed = 0, unposed_by_count = 0, wrong = 0, returned = 0;
    uint64_t staged = 0, posed_entries = 0;
    for (int f = 0; f < FRAMES; f++) {
        const bool closer = store && f % 4 == 3;
        vkskin_frame_info info;
        CHECK(vkskin_renderer_frame(r,
                                    &(vkskin_frame_desc){.desc_size = sizeof(vkskin_frame_desc),
                                                         .view = closer ? &near : &far},
                                    &info, &err) == VKSKIN_OK);
        const uint32_t visible = closer ? near_count : INSTANCES;
        CHECK(info.visible == visible && info.skinned == visible);
        unposed_by_count += info.visible - info.posed;
        /* What crossed the bus: the posed instances' palettes, no more (one model). */
        staged += info.palette_bytes;
        posed_entries += (uint64_t)info.posed * crowd->crowd.models[0]->skeleton.joint_count;
        bool listed[INSTANCES] = {false};
        for (uint32_t k = 0; k < visible; k++)
            listed[closer ? near_list[k] : k] = true;
        for (uint32_t i = 0; i < INSTANCES; i++) {
            if (!listed[i]) {
                shown[i] = false;
                continue;
            }
            CHECK(vkskin_renderer_read_skinned(r, i, &gp[0][0], &gn[0][0], NULL, NULL, &err) ==
                  VKSKIN_OK);
            cpu_pose(crowd, i, cp, cn);
            float(*last)[3] = prev + (size_t)n * i;
            const bool now =
                check_max_diff(&gp[0][0], 3, &cp[0][0], 3, n, 3) / diag <= POSITION_TOLERANCE;
            if (shown[i] && memcmp(gp, last, sizeof *gp * n) == 0)
                kept++;
            else if (now) {
                posed++;
                returned += f > 0 && !shown[i];
            } else {
                wrong++;
                printf("frame %d, instance %u: neither its pose now nor its last frame's\n", f, i);
            }
            memcpy(last, gp, sizeof *gp * n);
            shown[i] = true;
        }
        vkskin_crowd_advance(crowd, 1.0 / 30.0, NULL);
    }
    /* Frames in flight with slots changing hands (no wait between them), validation on. (The
     * layer here checks hazards within a submission, not across them: removing the barrier
     * before the copies, which orders them after the frame before's reads, goes unreported.) */
    for (int f = 0; store && f < 6; f++) {
        vkskin_frame_info info;
        CHECK(vkskin_renderer_frame(r,
                                    &(vkskin_frame_desc){.desc_size = sizeof(vkskin_frame_desc),
                                                         .view = f % 2 ? &near : &far},
                                    &info, &err) == VKSKIN_OK);
        vkskin_crowd_advance(crowd, 1.0 / 30.0, NULL);
    }
    printf("kept poses (%s palettes): over %d frames of %u instances, %u posed (%u of them back "
           "in view), %u kept (the renderer says %u not posed), %u wrong; %llu palette bytes "
           "written for %llu posed entries\n",
           store ? "store" : "host", FRAMES, INSTANCES, posed, returned, kept, unposed_by_count,
           wrong, (unsigned long long)staged, (unsigned long long)posed_entries);
    CHECK(wrong == 0);
    CHECK(kept > 0 && kept == unposed_by_count);
    if (store) {
        CHECK(returned > 0);
        CHECK(staged == posed_entries * 48);
    }
    close_renderer(r);
    free(gp), free(gn), free(cp), free(cn), free(prev);
}

static VkResult failing_surface(VkInstance instance, void *user, VkSurfaceKHR *surface)
{
    (void)instance;
    (*(int *)user)++;
    *surface = VK_NULL_HANDLE;
    return VK_ERROR_INITIALIZATION_FAILED;
}

/* The memory plan on counts (vkskin_renderer_check), before any crowd, against the one the
 * renderer makes with its crowd: under a 64 MiB cap the N the check names fits and N + 1 does
 * not, and a real crowd of N + 1 fails to get a renderer with the very same message. */
static void check_plan_before_crowd(const vkskin_model *model)
{
    vkskin_error err, said;
    const vkskin_model *const models[1] = {model};
    vkskin_crowd_desc cd = {.desc_size = sizeof(vkskin_crowd_desc),
                            .models = models,
                            .model_count = 1,
                            .instance_count = 100000};
    vkskin_renderer_desc rd = {.desc_size = sizeof(vkskin_renderer_desc),
                               .validate = true,
                               .width = W,
                               .height = H,
                               .max_memory_mib = 64};
    check_error(vkskin_renderer_check(&rd, &cd, &err), &err, VKSKIN_ERROR_OUT_OF_MEMORY,
                "instances fit");
    const char *at = strstr(err.message, "at most ");
    const unsigned long n = at ? strtoul(at + 8, NULL, 10) : 0;
    CHECK(n > 0 && n < 100000);
    cd.instance_count = (uint32_t)n;
    CHECK(vkskin_renderer_check(&rd, &cd, &err) == VKSKIN_OK);
    /* The same crowd desc from newer headers (a longer layout, its new fields zero): accepted,
     * and nothing read past the library's own copy when the check hands it on. */
    struct {
        vkskin_crowd_desc desc;
        unsigned char more[24];
    } newer = {.desc = cd};
    newer.desc.desc_size = sizeof newer;
    CHECK(vkskin_renderer_check(&rd, &newer.desc, &err) == VKSKIN_OK);
    cd.instance_count = (uint32_t)n + 1;
    CHECK(vkskin_renderer_check(&rd, &cd, &said) == VKSKIN_ERROR_OUT_OF_MEMORY);
    vkskin_crowd *crowd;
    CHECK(vkskin_crowd_create(&cd, &crowd, &err) == VKSKIN_OK);
    rd.crowd = crowd;
    vkskin_renderer *r = NULL;
    check_error(vkskin_renderer_create(&rd, &r, &err), &err, VKSKIN_ERROR_OUT_OF_MEMORY,
                "instances fit");
    CHECK(r == NULL && strcmp(err.message, said.message) == 0);
    vkskin_crowd_destroy(crowd);
    /* ... and n, which the check lets through, does get its renderer: not too optimistic. */
    cd.instance_count = (uint32_t)n;
    crowd = NULL;
    CHECK(vkskin_crowd_create(&cd, &crowd, &err) == VKSKIN_OK);
    rd.crowd = crowd;
    const vkskin_result made = crowd ? vkskin_renderer_create(&rd, &r, &err) : VKSKIN_ERROR_FAILED;
    CHECK(made == VKSKIN_OK && r != NULL);
    if (made == VKSKIN_OK)
        close_renderer(r);
    else
        fprintf(stderr, "%lu instances: %s\n", n, err.message);
    vkskin_crowd_destroy(crowd);
    rd.crowd = NULL;
    printf("plan on counts: %lu instances fit under 64 MiB and get a renderer; %lu: %s\n", n, n + 1,
           said.message);
    check_error(vkskin_renderer_check(&rd, NULL, &err), &err, VKSKIN_ERROR_ARGUMENT,
                "desc and crowd are needed");
    cd.instance_count = 0;
    check_error(vkskin_renderer_check(&rd, &cd, &err), &err, VKSKIN_ERROR_ARGUMENT,
                "1 to 16777216 instances, not 0");
}

/* The logger: validation's messages go to it, with their level, and not to standard error. A
 * buffer created with no usage (VUID-VkBufferCreateInfo-usage-requiredbitmask) on the renderer's
 * own device raises one error. */
typedef struct log_record {
    uint32_t errors, warnings;
    char last[160];
} log_record;

static void record_log(void *user, vkskin_log_level level, const char *message)
{
    log_record *rec = user;
    rec->errors += level == VKSKIN_LOG_ERROR;
    rec->warnings += level == VKSKIN_LOG_WARNING;
    snprintf(rec->last, sizeof rec->last, "%s", message);
}

static void check_logger(vkskin_crowd *crowd)
{
    log_record rec = {0};
    vkskin_renderer *r = NULL;
    vkskin_error err;
    CHECK(vkskin_renderer_create(&(vkskin_renderer_desc){.desc_size = sizeof(vkskin_renderer_desc),
                                                         .crowd = crowd,
                                                         .validate = true,
                                                         .width = 64,
                                                         .height = 48,
                                                         .logger = {record_log, &rec}},
                                 &r, &err) == VKSKIN_OK);
    if (!r)
        return;
    CHECK(rec.errors == 0 && rec.warnings == 0);
    char path[] = "/tmp/vkskin_logger_XXXXXX";
    const int fd = mkstemp(path), saved = dup(2);
    fflush(stderr);
    dup2(fd, 2);
    VkBufferCreateInfo bad = {VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO};
    bad.size = 16; /* and no usage */
    VkBuffer buffer = VK_NULL_HANDLE;
    if (r->dev.vk.vkCreateBuffer(r->dev.device, &bad, NULL, &buffer) == VK_SUCCESS)
        r->dev.vk.vkDestroyBuffer(r->dev.device, buffer, NULL);
    fflush(stderr);
    dup2(saved, 2);
    close(saved);
    const off_t printed = lseek(fd, 0, SEEK_END);
    close(fd);
    unlink(path);
    CHECK(rec.errors == 1 && strstr(rec.last, "VUID-VkBufferCreateInfo-usage") != NULL);
    CHECK(printed == 0); /* nothing on standard error */
    vkskin_messages m;
    vkskin_renderer_destroy(r, &m);
    CHECK(m.errors == rec.errors && m.warnings == rec.warnings);
    printf("logger: %u error(s) logged, %lld bytes on stderr: %.60s...\n", rec.errors,
           (long long)printed, rec.last);
}

/* An instance placed anew after the renderer exists is drawn where it now stands: the image, two
 * frames on (frames in flight), is bit for bit the one a renderer made after the move draws; a
 * reset brings the first image back. */
static void check_moves(const vkskin_model *model)
{
    enum { MW = 160, MH = 120, N = 3 };
    const vkskin_crowd_desc cd = {.desc_size = sizeof(vkskin_crowd_desc),
                                  .models = &model,
                                  .model_count = 1,
                                  .instance_count = N,
                                  .time = 0.25,
                                  .seed = 5};
    vkskin_renderer_desc rd = {.desc_size = sizeof(vkskin_renderer_desc),
                               .validate = true,
                               .width = MW,
                               .height = MH,
                               .fixed_lod = true,
                               .pose_every_frame = true,
                               .raster = VKSKIN_RASTER_HARDWARE};
    vkskin_crowd *a = NULL, *b = NULL;
    vkskin_renderer *ra = NULL, *rb = NULL;
    vkskin_error err;
    CHECK(vkskin_crowd_create(&cd, &a, &err) == VKSKIN_OK);
    CHECK(vkskin_crowd_create(&cd, &b, &err) == VKSKIN_OK);
    if (!a || !b)
        return;
    vkskin_view view;
    CHECK(vkskin_crowd_frame_view(a, (float)MW / (float)MH, &view, &err) == VKSKIN_OK);
    rd.crowd = a;
    CHECK(vkskin_renderer_create(&rd, &ra, &err) == VKSKIN_OK);
    uint8_t *before = malloc(MW * MH * 4), *moved = malloc(MW * MH * 4),
            *fresh = malloc(MW * MH * 4), *reset = malloc(MW * MH * 4);
    if (ra && before && moved && fresh && reset) {
        draw_frames(ra, &view, 1, before);
        /* Instance 1 a step to the side and up (palette space -> world, column-major). */
        vkskin_instance_info in;
        CHECK(vkskin_crowd_get_instance(a, 1, &in, &err) == VKSKIN_OK);
        float w[16];
        memcpy(w, in.world, sizeof w);
        w[12] += 0.3f * (in.radius > 0.0f ? in.radius : 1.0f);
        w[13] += 0.2f * (in.radius > 0.0f ? in.radius : 1.0f);
        CHECK(vkskin_crowd_set_world(a, 1, w, &err) == VKSKIN_OK);
        draw_frames(ra, &view, 2, moved);
        CHECK(vkskin_crowd_set_world(b, 1, w, &err) == VKSKIN_OK);
        rd.crowd = b;
        CHECK(vkskin_renderer_create(&rd, &rb, &err) == VKSKIN_OK);
        if (rb)
            draw_frames(rb, &view, 2, fresh);
        CHECK(memcmp(moved, before, MW * MH * 4) != 0); /* it moved */
        const bool same = memcmp(moved, fresh, MW * MH * 4) == 0;
        CHECK(same);
        CHECK(vkskin_crowd_reset(a, &err) == VKSKIN_OK);
        draw_frames(ra, &view, 2, reset);
        CHECK(memcmp(reset, before, MW * MH * 4) == 0);
        /* Hidden: the image of the same crowd with that instance out of view, and one instance
         * fewer in view; shown again: the first image. */
        CHECK(vkskin_crowd_set_shown(a, 1, false, &err) == VKSKIN_OK);
        vkskin_instance_info hid;
        CHECK(vkskin_crowd_get_instance(a, 1, &hid, &err) == VKSKIN_OK && !hid.shown);
        draw_frames(ra, &view, 2, moved);
        vkskin_frame_info fi;
        CHECK(vkskin_renderer_frame(
                  ra, &(vkskin_frame_desc){.desc_size = sizeof(vkskin_frame_desc), .view = &view},
                  &fi, &err) == VKSKIN_OK &&
              fi.visible == N - 1);
        uint32_t listed[N], count = N;
        CHECK(vkskin_crowd_cull(a, view.view_proj, listed, N, &count, &err) == VKSKIN_OK &&
              count == N - 1 && listed[0] == 0 && listed[1] == 2);
        w[12] += 1000.0f; /* far outside the view */
        CHECK(vkskin_crowd_set_world(b, 1, w, &err) == VKSKIN_OK);
        if (rb)
            draw_frames(rb, &view, 2, fresh);
        CHECK(memcmp(moved, fresh, MW * MH * 4) == 0);
        CHECK(vkskin_crowd_set_shown(a, 1, true, &err) == VKSKIN_OK);
        draw_frames(ra, &view, 2, reset);
        CHECK(memcmp(reset, before, MW * MH * 4) == 0);
        check_error(vkskin_crowd_set_shown(a, N, false, &err), &err, VKSKIN_ERROR_ARGUMENT,
                    "no instance 3");
        printf("moves: instance 1 placed anew after the renderer: drawn there (%s the image of a "
               "renderer made after the move); reset: the first image again\n",
               same ? "exactly" : "NOT");
    }
    if (ra)
        close_renderer(ra);
    if (rb)
        close_renderer(rb);
    vkskin_crowd_destroy(a);
    vkskin_crowd_destroy(b);
    free(before);
    free(moved);
    free(fresh);
    free(reset);
}

/* Every live, shown instance's output in the renderer's last frame against the CPU reference (its
 * own model, clip and clock); returns the worst position error over its model's diagonal, and
 * counts in *checked the instances read. */
static double check_live(vkskin_renderer *r, const vkskin_crowd *crowd, uint32_t *checked)
{
    double worst = 0.0;
    *checked = 0;
    for (uint32_t i = 0; i < crowd->crowd.instance_count; i++) {
        const vks_crowd_instance *in = &crowd->crowd.instances[i];
        if (in->removed || in->hidden)
            continue;
        const vks_model *m = crowd->crowd.models[in->model];
        const uint32_t n = m->vertex_count;
        float(*gp)[3] = malloc(sizeof *gp * n), (*gn)[3] = malloc(sizeof *gn * n);
        float(*cp)[3] = malloc(sizeof *cp * n), (*cn)[3] = malloc(sizeof *cn * n);
        float lo[3], hi[3];
        check_box((const float(*)[3])m->positions, n, lo, hi);
        double diag = 0.0;
        for (int k = 0; k < 3; k++)
            diag += ((double)hi[k] - lo[k]) * ((double)hi[k] - lo[k]);
        vkskin_error err;
        if (gp && gn && cp && cn &&
            vkskin_renderer_read_skinned(r, i, &gp[0][0], &gn[0][0], NULL, NULL, &err) ==
                VKSKIN_OK) {
            CHECK(vks_skin_cpu_pose(m, in->clip, in->time, cp, cn, NULL));
            worst = fmax(worst, check_max_diff(&gp[0][0], 3, &cp[0][0], 3, n, 3) / sqrt(diag));
            ++*checked;
        } else {
            printf("%u: %s\n", i, err.message);
            CHECK(!"a live instance's output");
        }
        free(gp), free(gn), free(cp), free(cn);
    }
    return worst;
}

/* The renderer most checks here use: validation on, its outputs read back, level 0, every instance
 * posed every frame (what the CPU reference poses), the graphics pipeline. */
static vkskin_renderer_desc checked_desc(vkskin_crowd *crowd, vkskin_palettes palettes)
{
    return (vkskin_renderer_desc){.desc_size = sizeof(vkskin_renderer_desc),
                                  .crowd = crowd,
                                  .validate = true,
                                  .width = W,
                                  .height = H,
                                  .readback = true,
                                  .fixed_lod = true,
                                  .pose_every_frame = true,
                                  .palettes = palettes,
                                  .raster = VKSKIN_RASTER_HARDWARE};
}

/* The store renderer made for a crowd with room to spare (added to before), then growing twice:
 * its store's lists follow every index the crowd gives out, whether the renderer grew at that
 * frame or not (the crowd's room and the renderer's differ), and the outputs stay right. */
static void check_store_room(const vkskin_model *a, const vkskin_model *b)
{
    const vkskin_model *models[] = {a, b};
    vkskin_crowd *crowd = NULL;
    vkskin_error err;
    CHECK(vkskin_crowd_create(&(vkskin_crowd_desc){.desc_size = sizeof(vkskin_crowd_desc),
                                                   .models = models,
                                                   .model_count = 2,
                                                   .instance_count = 4,
                                                   .time = 0.2,
                                                   .normalize_height = true},
                              &crowd, &err) == VKSKIN_OK);
    if (!crowd)
        return;
    vkskin_instance_info first;
    CHECK(vkskin_crowd_get_instance(crowd, 0, &first, &err) == VKSKIN_OK);
    uint32_t at;
    CHECK(vkskin_crowd_add(crowd, 1, first.world, &at, &err) == VKSKIN_OK && at == 4);
    vkskin_renderer *r = NULL;
    const vkskin_renderer_desc rd = checked_desc(crowd, VKSKIN_PALETTES_STORE);
    CHECK(vkskin_renderer_create(&rd, &r, &err) == VKSKIN_OK);
    if (!r) {
        vkskin_crowd_destroy(crowd);
        return;
    }
    vkskin_view view;
    const vkskin_frame_desc fd = {.desc_size = sizeof(vkskin_frame_desc), .view = &view};
    int bad_room = 0;
    for (uint32_t step = 0; step < 3; step++) {
        for (uint32_t k = 0; k < (step == 1 ? 1u : 3u); k++) {
            float w[16];
            memcpy(w, first.world, sizeof w);
            w[12] += (float)(step * 3 + k + 1) * 0.5f * first.radius;
            CHECK(vkskin_crowd_add(crowd, k % 2, w, &at, &err) == VKSKIN_OK);
        }
        CHECK(vkskin_crowd_frame_view(crowd, (float)W / H, &view, &err) == VKSKIN_OK);
        CHECK(vkskin_renderer_frame(r, &fd, NULL, &err) == VKSKIN_OK);
        bad_room += r->r.skinner.store.instances < vkskin_crowd_instance_count(crowd);
    }
    CHECK(bad_room == 0);
    uint32_t checked = 0;
    CHECK(check_live(r, crowd, &checked) <= POSITION_TOLERANCE);
    CHECK(checked == vkskin_crowd_live_count(crowd));
    close_renderer(r);
    vkskin_crowd_destroy(crowd);
}

/* Entries that `count` palettes of `size` take packed into pages of `page` from entry 1 (page 0's
 * entry 0 is the table), none across a page's end. */
static uint64_t packed_pages(uint32_t count, uint32_t size, uint64_t page)
{
    uint64_t top = 1;
    for (uint32_t k = 0; k < count; k++) {
        if (top % page + size > page)
            top = (top / page + 1) * page;
        top += size;
    }
    return top;
}

/* A store one buffer cannot hold (max_buffer_bytes of 64 KiB: pages of 1 344 entries, a multiple
 * of 64, 61 palettes of the default character's 22 entries), on both bindings: 100 instances
 * framed grow it from one page to what they want (worked out here: packed, a quarter more, in
 * pages: 3 of the 4 it may have), none dropped, and every output the CPU's; a frame after that
 * grows nothing. */
static void check_store_pages(const vkskin_model *model)
{
    enum { N = 100 };
    vkskin_crowd *crowd = NULL;
    vkskin_error err;
    CHECK(vkskin_crowd_create(&(vkskin_crowd_desc){.desc_size = sizeof(vkskin_crowd_desc),
                                                   .models = &model,
                                                   .model_count = 1,
                                                   .instance_count = N,
                                                   .time = 0.2},
                              &crowd, &err) == VKSKIN_OK);
    if (!crowd)
        return;
    const vks_model *m = crowd->crowd.models[0];
    float lo[3], hi[3];
    check_box((const float(*)[3])m->positions, m->vertex_count, lo, hi);
    const double diag = check_box_diagonal(lo, hi);
    const uint64_t page = 65536 / sizeof(vks_bone) / 64 * 64;
    const uint64_t wanted = packed_pages(N, vks_crowd_written_entries(&crowd->crowd, 0), page);
    const uint64_t pages = (wanted + wanted / 4 + page - 1) / page;
    CHECK(pages == 3);
    const vkskin_binding bindings[] = {VKSKIN_BINDING_DESCRIPTORS, VKSKIN_BINDING_ADDRESSES};
    for (size_t b = 0; b < 2; b++) {
        vkskin_renderer_desc rd = checked_desc(crowd, VKSKIN_PALETTES_STORE);
        rd.max_buffer_bytes = 65536;
        rd.binding = bindings[b];
        vkskin_renderer *r = NULL;
        CHECK(vkskin_renderer_create(&rd, &r, &err) == VKSKIN_OK);
        if (!r)
            break;
        vkskin_renderer_info ri;
        CHECK(vkskin_renderer_get_info(r, &ri, &err) == VKSKIN_OK);
        CHECK(ri.store_entries == page && ri.store_pages == 1 && ri.store_most_pages == 4);
        vkskin_view view;
        CHECK(vkskin_crowd_frame_view(crowd, (float)W / H, &view, &err) == VKSKIN_OK);
        const vkskin_frame_desc fd = {.desc_size = sizeof(vkskin_frame_desc), .view = &view};
        double worst = 0.0;
        for (int frame = 0; frame < 2; frame++) {
            vkskin_frame_info info;
            CHECK(vkskin_renderer_frame(r, &fd, &info, &err) == VKSKIN_OK);
            CHECK(info.visible == N && info.dropped == 0 && info.skinned == N);
            CHECK(vkskin_renderer_get_info(r, &ri, &err) == VKSKIN_OK);
            CHECK(ri.store_pages == pages && ri.store_growths == 1);
            CHECK(ri.store_entries == pages * page);
            worst = fmax(worst, check_outputs(r, crowd, N, diag));
        }
        printf("store pages (%s): %u pages of %llu entries for %u instances, worst position error "
               "%.3g of the diagonal\n",
               b ? "addresses" : "descriptors", ri.store_pages, (unsigned long long)page, N, worst);
        CHECK(worst <= POSITION_TOLERANCE);
        close_renderer(r);
    }
    vkskin_crowd_destroy(crowd);

    /* Pages of 1 MiB (21 824 entries, 991 palettes of 22) under a 16 MiB heap for 3 000 framed: the store
     * grows to the pages the memory the plan leaves holds, fewer than four, and the frame draws the
     * first instances of its list those hold and says how many it left out. */
    enum { MANY = 3000 };
    CHECK(vkskin_crowd_create(&(vkskin_crowd_desc){.desc_size = sizeof(vkskin_crowd_desc),
                                                   .models = &model,
                                                   .model_count = 1,
                                                   .instance_count = MANY,
                                                   .time = 0.2},
                              &crowd, &err) == VKSKIN_OK);
    if (!crowd)
        return;
    vkskin_renderer_desc rd = checked_desc(crowd, VKSKIN_PALETTES_STORE);
    rd.max_buffer_bytes = 1u << 20;
    rd.max_memory_mib = 16;
    rd.readback = false;
    vkskin_renderer *r = NULL;
    CHECK(vkskin_renderer_create(&rd, &r, &err) == VKSKIN_OK);
    if (r) {
        vkskin_renderer_info ri;
        CHECK(vkskin_renderer_get_info(r, &ri, &err) == VKSKIN_OK);
        const uint32_t big = (1u << 20) / sizeof(vks_bone) / 64 * 64;
        const uint32_t joints = vks_crowd_written_entries(&crowd->crowd, 0);
        CHECK(ri.store_entries == big && ri.store_most_pages > 1 && ri.store_most_pages < 4);
        vkskin_view view;
        CHECK(vkskin_crowd_frame_view(crowd, (float)W / H, &view, &err) == VKSKIN_OK);
        vkskin_frame_info info;
        CHECK(vkskin_renderer_frame(
                  r, &(vkskin_frame_desc){.desc_size = sizeof(vkskin_frame_desc), .view = &view},
                  &info, &err) == VKSKIN_OK);
        CHECK(vkskin_renderer_get_info(r, &ri, &err) == VKSKIN_OK);
        const uint32_t held = (big - 1) / joints + (ri.store_most_pages - 1) * (big / joints);
        printf("store pages under 16 MiB: %u pages of %u entries, %u of %u drawn, %u left out\n",
               ri.store_pages, big, info.visible, MANY, info.dropped);
        CHECK(ri.store_pages == ri.store_most_pages && ri.store_growths == 1);
        CHECK(held < MANY && info.visible == held && info.dropped == MANY - held);
        close_renderer(r);
    }
    vkskin_crowd_destroy(crowd);
}

/* Dual quaternions through the renderer's own path, on the GPU: a crowd of 6 default characters
 * (22 joints: 15 entries of vks_dq a palette) on their own clips, the palette store (staged,
 * scattered 15 entries a pose) or host palettes, at level 0 and at a level whose skeleton poses
 * fewer joints, over frames that advance: each instance's output against the dual-quaternion
 * reference of its clip, time and level. */
static void check_dual_quaternion(const vkskin_model *model)
{
    vkskin_crowd *crowd = NULL;
    vkskin_error err;
    CHECK(vkskin_crowd_create(&(vkskin_crowd_desc){.desc_size = sizeof(vkskin_crowd_desc),
                                                   .models = &model,
                                                   .model_count = 1,
                                                   .instance_count = 6,
                                                   .clip = VKSKIN_CLIP_VARIED,
                                                   .time = 0.3,
                                                   .seed = 9,
                                                   .skinning = VKSKIN_SKINNING_DUAL_QUATERNION},
                              &crowd, &err) == VKSKIN_OK);
    if (!crowd)
        return;
    const vks_model *m = crowd->crowd.models[0];
    const uint32_t levels[2] = {0, vks_model_level_count(m) - 1};
    CHECK(vks_model_level_joints(m, levels[1]) < m->skeleton.joint_count);
    float lo[3], hi[3];
    check_box((const float(*)[3])m->positions, m->vertex_count, lo, hi);
    const double diag = check_box_diagonal(lo, hi);
    double worst = 0.0;
    uint32_t checked = 0;
    for (int store = 0; store < 2; store++)
        for (int l = 0; l < 2; l++) {
            vkskin_renderer_desc rd =
                checked_desc(crowd, store ? VKSKIN_PALETTES_STORE : VKSKIN_PALETTES_HOST);
            rd.lod = levels[l];
            vkskin_renderer *r = NULL;
            CHECK(vkskin_renderer_create(&rd, &r, &err) == VKSKIN_OK);
            vkskin_view view;
            const vkskin_frame_desc fd = {.desc_size = sizeof(vkskin_frame_desc), .view = &view};
            CHECK(vkskin_crowd_frame_view(crowd, (float)W / H, &view, &err) == VKSKIN_OK);
            /* Each posed palette is 32 bytes a joint, rounded up to whole 48-byte entries. */
            const uint64_t entry_bytes = (m->skeleton.joint_count * 32 + 47) / 48 * 48;
            for (int frame = 0; r && frame < 3; frame++) {
                vkskin_frame_info info;
                CHECK(vkskin_renderer_frame(r, &fd, &info, &err) == VKSKIN_OK);
                CHECK(info.posed > 0 && info.palette_bytes == info.posed * entry_bytes);
                vkskin_crowd_advance(crowd, 0.1, NULL);
            }
            /* The last frame's times: one step back. */
            vkskin_crowd_advance(crowd, -0.1, NULL);
            const uint32_t n = vks_model_level(m, levels[l]).vertex_count;
            float(*gp)[3] = malloc(sizeof *gp * m->vertex_count);
            float(*gn)[3] = malloc(sizeof *gn * m->vertex_count);
            float(*cp)[3] = malloc(sizeof *cp * m->vertex_count);
            float(*cn)[3] = malloc(sizeof *cn * m->vertex_count);
            for (uint32_t i = 0; r && gp && gn && cp && cn && i < 6; i++) {
                uint32_t level = 99;
                const vks_crowd_instance *in = &crowd->crowd.instances[i];
                if (vkskin_renderer_read_skinned(r, i, &gp[0][0], &gn[0][0], NULL, &level, &err) !=
                        VKSKIN_OK ||
                    level != levels[l] ||
                    !vks_skin_cpu_pose_level_as(m, level, in->clip, in->time, true, cp, cn, NULL)) {
                    CHECK(!"a dual-quaternion output");
                    continue;
                }
                const double d = check_max_diff(&gp[0][0], 3, &cp[0][0], 3, n, 3) / diag;
                if (!(d <= POSITION_TOLERANCE))
                    printf("dual quaternions, %s palettes, level %u, instance %u: %.3g\n",
                           store ? "store" : "host", level, i, d);
                CHECK(d <= POSITION_TOLERANCE);
                worst = fmax(worst, d);
                checked++;
            }
            free(gp), free(gn), free(cp), free(cn);
            vkskin_crowd_advance(crowd, 0.1, NULL);
            close_renderer(r);
        }
    CHECK(checked == 4 * 6);
    printf("dual quaternions: %u outputs (store and host palettes, levels %u and %u) within %.3g "
           "of the diagonal of the reference\n",
           checked, levels[0], levels[1], worst);
    vkskin_crowd_destroy(crowd);
}

/* Growth the device's memory refuses: a renderer capped at 16 MiB, its crowd grown by 30 000.
 * Each frame says how many fit (the plan's message, not that buffers were lost), the renderer is
 * not broken, and the last frame it drew stays readable, right against the CPU. */
static void check_refused_growth(const vkskin_model *model)
{
    vkskin_crowd *crowd = NULL;
    vkskin_error err;
    CHECK(vkskin_crowd_create(&(vkskin_crowd_desc){.desc_size = sizeof(vkskin_crowd_desc),
                                                   .models = &model,
                                                   .model_count = 1,
                                                   .instance_count = 4,
                                                   .time = 0.2},
                              &crowd, &err) == VKSKIN_OK);
    if (!crowd)
        return;
    vkskin_renderer_desc rd = checked_desc(crowd, VKSKIN_PALETTES_STORE);
    rd.max_memory_mib = 16;
    vkskin_renderer *r = NULL;
    CHECK(vkskin_renderer_create(&rd, &r, &err) == VKSKIN_OK);
    vkskin_view view;
    const vkskin_frame_desc fd = {.desc_size = sizeof(vkskin_frame_desc), .view = &view};
    CHECK(vkskin_crowd_frame_view(crowd, (float)W / H, &view, &err) == VKSKIN_OK);
    if (r && vkskin_renderer_frame(r, &fd, NULL, &err) == VKSKIN_OK) {
        vkskin_instance_info first;
        CHECK(vkskin_crowd_get_instance(crowd, 0, &first, &err) == VKSKIN_OK);
        uint32_t at;
        for (uint32_t k = 0; k < 30000; k++)
            CHECK(vkskin_crowd_add(crowd, 0, first.world, &at, &err) == VKSKIN_OK);
        for (int frame = 0; frame < 2; frame++)
            check_error(vkskin_renderer_frame(r, &fd, NULL, &err), &err, VKSKIN_ERROR_OUT_OF_MEMORY,
                        "instances fit");
        CHECK(!vks_skinner_broken(&r->r.skinner));
        float pos[4096][3], nrm[4096][3], cp[4096][3], cn[4096][3];
        const vks_model *m = crowd->crowd.models[0];
        CHECK(m->vertex_count <= 4096);
        if (m->vertex_count <= 4096 &&
            vkskin_renderer_read_skinned(r, 0, &pos[0][0], &nrm[0][0], NULL, NULL, &err) ==
                VKSKIN_OK) {
            const vks_crowd_instance *in = &crowd->crowd.instances[0];
            CHECK(vks_skin_cpu_pose(m, in->clip, in->time, cp, cn, NULL));
            CHECK(check_max_diff(&pos[0][0], 3, &cp[0][0], 3, m->vertex_count, 3) < 1e-3);
        } else {
            printf("read_skinned after a refused growth: %s\n", err.message);
            CHECK(!"the last frame drawn stays readable");
        }
    } else {
        CHECK(!"a renderer of 4 under 16 MiB");
    }
    close_renderer(r);
    vkskin_crowd_destroy(crowd);
}

/* A crowd that changes while frames are in flight, for both palette paths: instances added past
 * the renderer's room (it grows twice), removed, given the other model (more and fewer joints),
 * hidden, and an index reused, each change made between frames that were not waited for. After
 * them, with validation on: every live shown instance's output against the CPU reference, the
 * counts, a removed index refused, and the image equal to that of a renderer made afresh for the
 * crowd as it now is (its instance table and palettes filled from scratch). */
static void check_changes(const vkskin_model *a, const vkskin_model *b)
{
    enum { N = 4, ADDED = 12 };
    const vkskin_model *models[] = {a, b};
    const vkskin_crowd_desc cd = {.desc_size = sizeof(vkskin_crowd_desc),
                                  .models = models,
                                  .model_count = 2,
                                  .instance_count = N,
                                  .clip = VKSKIN_CLIP_VARIED,
                                  .time = 0.25,
                                  .seed = 11,
                                  .normalize_height = true};
    for (int store = 0; store < 2; store++) {
        vkskin_crowd *crowd = NULL;
        vkskin_error err;
        CHECK(vkskin_crowd_create(&cd, &crowd, &err) == VKSKIN_OK);
        if (!crowd)
            return;
        vkskin_renderer_desc rd =
            checked_desc(crowd, store ? VKSKIN_PALETTES_STORE : VKSKIN_PALETTES_HOST);
        rd.raster = VKSKIN_RASTER_HYBRID; /* (its far splats' blocks kept as the store grows) */
        vkskin_renderer *r = NULL, *fresh = NULL;
        CHECK(vkskin_renderer_create(&rd, &r, &err) == VKSKIN_OK);
        uint8_t *grown_image = malloc(W * H * 4), *fresh_image = malloc(W * H * 4);
        if (!r || !grown_image || !fresh_image) {
            free(grown_image), free(fresh_image);
            vkskin_crowd_destroy(crowd);
            return;
        }
        vkskin_view view;
        CHECK(vkskin_crowd_frame_view(crowd, (float)W / H, &view, &err) == VKSKIN_OK);
        const vkskin_frame_desc fd = {.desc_size = sizeof(vkskin_frame_desc), .view = &view};
        CHECK(vkskin_renderer_frame(r, &fd, NULL, &err) == VKSKIN_OK);
        /* Added beside instance 0, in a row, alternating models, some playing a clip. */
        vkskin_instance_info first;
        CHECK(vkskin_crowd_get_instance(crowd, 0, &first, &err) == VKSKIN_OK);
        uint32_t at = 0;
        for (uint32_t k = 0; k < ADDED; k++) {
            float w[16];
            memcpy(w, first.world, sizeof w);
            w[12] += (0.4f + 0.3f * (float)k) * first.radius;
            CHECK(vkskin_crowd_add(crowd, k % 2, w, &at, &err) == VKSKIN_OK && at == N + k);
            if (k % 3 == 0)
                CHECK(vkskin_crowd_play(crowd, at, 0, 0.0, &err) == VKSKIN_OK);
            if (k % 4 == 3) /* a frame in flight between the changes */
                CHECK(vkskin_renderer_frame(r, &fd, NULL, &err) == VKSKIN_OK);
        }
        CHECK(vkskin_crowd_remove(crowd, 1, &err) == VKSKIN_OK);
        CHECK(vkskin_crowd_set_model(crowd, 2, 1, &err) == VKSKIN_OK);
        CHECK(vkskin_crowd_set_model(crowd, N + 1, 0, &err) == VKSKIN_OK);
        CHECK(vkskin_crowd_set_shown(crowd, N + 2, false, &err) == VKSKIN_OK);
        CHECK(vkskin_renderer_frame(r, &fd, NULL, &err) == VKSKIN_OK);
        /* The store's lists have room for every index the crowd gave out, grown or not. */
        CHECK(!store || r->r.skinner.store.instances >= vkskin_crowd_instance_count(crowd));
        /* ... and a store made anew as the crowd grew still deals far splats' blocks. */
        CHECK(r->r.skinner.grown > 0);
        CHECK(!store ||
              r->r.skinner.store.splat_list_max ==
                  (r->r.raster_mode != VKS_RASTER_HARDWARE ? r->r.skinner.raster_max_entries : 0));
        CHECK(vkskin_crowd_remove(crowd, N + 5, &err) == VKSKIN_OK);
        const uint32_t with_removed[] = {0, N + 5};
        float palettes[1];
        check_error(vkskin_crowd_pose(crowd, with_removed, 2, palettes, 0, &err), &err,
                    VKSKIN_ERROR_ARGUMENT, "palettes"); /* room first */
        float *room = malloc(sizeof(float) * 12 * vkskin_crowd_palette_count(crowd));
        if (room)
            check_error(vkskin_crowd_pose(crowd, with_removed, 2, room,
                                          vkskin_crowd_palette_count(crowd), &err),
                        &err, VKSKIN_ERROR_ARGUMENT, "entry 1 is instance 9, which was removed");
        free(room);
        float w[16];
        memcpy(w, first.world, sizeof w);
        w[14] += first.radius;
        CHECK(vkskin_crowd_add(crowd, 1, w, &at, &err) == VKSKIN_OK && at == N + 5);
        CHECK(vkskin_crowd_advance(crowd, 0.1, &err) == VKSKIN_OK);
        CHECK(vkskin_crowd_frame_view(crowd, (float)W / H, &view, &err) == VKSKIN_OK);
        /* Instance 3 (the larger model) down to the smaller one, out of view and back (its
         * palette store block now the smaller model's size), then up again: its palette range
         * holds the larger model still, so nothing grows, and its slot must be dealt anew. */
        CHECK(vkskin_renderer_frame(r, &fd, NULL, &err) == VKSKIN_OK);
        const uint32_t grown_before = r->r.skinner.grown;
        CHECK(vkskin_crowd_set_model(crowd, 3, 0, &err) == VKSKIN_OK);
        CHECK(vkskin_renderer_frame(r, &fd, NULL, &err) == VKSKIN_OK);
        CHECK(vkskin_crowd_set_shown(crowd, 3, false, &err) == VKSKIN_OK);
        CHECK(vkskin_renderer_frame(r, &fd, NULL, &err) == VKSKIN_OK);
        CHECK(vkskin_crowd_set_shown(crowd, 3, true, &err) == VKSKIN_OK);
        CHECK(vkskin_renderer_frame(r, &fd, NULL, &err) == VKSKIN_OK);
        CHECK(vkskin_crowd_set_model(crowd, 3, 1, &err) == VKSKIN_OK);
        CHECK(r->r.skinner.grown == grown_before);
        vkskin_frame_info info;
        CHECK(vkskin_renderer_frame(r, &fd, NULL, &err) == VKSKIN_OK);
        CHECK(vkskin_renderer_frame(r, &fd, &info, &err) == VKSKIN_OK);
        const uint32_t live = N + ADDED - 1, shown = live - 1;
        CHECK(vkskin_crowd_live_count(crowd) == live &&
              vkskin_crowd_instance_count(crowd) == N + ADDED);
        if (info.visible != shown || info.skinned != shown)
            printf("visible %u, skinned %u, shown %u\n", info.visible, info.skinned, shown);
        CHECK(info.visible == shown && info.skinned == shown);
        CHECK(r->r.skinner.grown >= 2 && r->r.skinner.instance_capacity >= N + ADDED);
        uint32_t checked = 0;
        const double worst = check_live(r, crowd, &checked);
        CHECK(checked == shown);
        CHECK(worst <= POSITION_TOLERANCE);
        float scratch[3];
        check_error(vkskin_renderer_read_skinned(r, 1, scratch, scratch, NULL, NULL, &err), &err,
                    VKSKIN_ERROR_ARGUMENT, "was removed");
        CHECK(vkskin_renderer_read_image(r, grown_image, &err) == VKSKIN_OK);
        const uint32_t grown = r->r.skinner.grown;
        close_renderer(r);
        rd.crowd = crowd;
        CHECK(vkskin_renderer_create(&rd, &fresh, &err) == VKSKIN_OK);
        if (fresh) {
            CHECK(vkskin_renderer_frame(fresh, &fd, NULL, &err) == VKSKIN_OK);
            CHECK(vkskin_renderer_read_image(fresh, fresh_image, &err) == VKSKIN_OK);
            close_renderer(fresh);
        }
        const uint32_t differ = differing(grown_image, fresh_image);
        CHECK(differ == 0);
        printf("changes (%s palettes): %u added (the renderer grew %u times), 2 removed, 4 models "
               "swapped, 2 hidden, an index reused, frames in flight: %u outputs within %.3g of "
               "the diagonal; %u pixels differ from a renderer made afresh\n",
               store ? "store" : "host", ADDED + 1, grown, checked, worst, differ);
        free(grown_image), free(fresh_image);
        vkskin_crowd_destroy(crowd);
    }
}

/* The whole run allocates through a host allocator that counts: every block vkskin took for
 * the renderers, crowds and models (the device's own memory aside) is given back at the end. */
static atomic_long live_blocks, all_blocks;

static void *count_alloc(void *user, size_t size, size_t align)
{
    (void)user;
    void *p = aligned_alloc(align, (size + align - 1) & ~(align - 1));
    if (p) {
        atomic_fetch_add(&live_blocks, 1);
        atomic_fetch_add(&all_blocks, 1);
    }
    return p;
}

static void count_free(void *user, void *p)
{
    (void)user;
    atomic_fetch_sub(&live_blocks, 1);
    free(p);
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: test_api_render DEFAULT_GLB OTHER_GLB\n");
        return 2;
    }
    vkskin_error err;
    CHECK(vkskin_set_allocator(&(vkskin_allocator){count_alloc, count_free, NULL}, &err) ==
          VKSKIN_OK);
    vkskin_model *model;
    if (vkskin_model_load(
            &(vkskin_model_desc){.desc_size = sizeof(vkskin_model_desc), .path = argv[1]}, &model,
            &err) != VKSKIN_OK) {
        fprintf(stderr, "%s\n", err.message);
        return 1;
    }
    vkskin_model_info mi;
    vkskin_model_get_info(model, &mi, NULL);
    double diag = 0.0;
    for (int k = 0; k < 3; k++)
        diag +=
            (double)(mi.bounds_max[k] - mi.bounds_min[k]) * (mi.bounds_max[k] - mi.bounds_min[k]);
    diag = sqrt(diag);
    vkskin_crowd *crowd;
    CHECK(vkskin_crowd_create(&(vkskin_crowd_desc){.desc_size = sizeof(vkskin_crowd_desc),
                                                   .models = (const vkskin_model *const *)&model,
                                                   .model_count = 1,
                                                   .instance_count = INSTANCES,
                                                   .clip = VKSKIN_CLIP_VARIED,
                                                   .time = 0.3,
                                                   .seed = 7,
                                                   .threads = 2},
                              &crowd, &err) == VKSKIN_OK);

    uint32_t devices = 0;
    CHECK(vkskin_list_devices(NULL, 0, &devices, &err) == VKSKIN_OK && devices >= 1);
    check_plan_before_crowd(model);
    check_logger(crowd);
    check_moves(model);
    check_refused_growth(model);
    check_dual_quaternion(model);
    check_store_pages(model);
    vkskin_model *chain_model = NULL;
    CHECK(vkskin_model_load(
              &(vkskin_model_desc){.desc_size = sizeof(vkskin_model_desc), .path = argv[2]},
              &chain_model, &err) == VKSKIN_OK);
    if (chain_model) {
        check_changes(model, chain_model);
        check_store_room(model, chain_model);
    }
    vkskin_model_destroy(chain_model);
    /* The light a host matches vkskin's shading with: a unit direction from above, the
     * renderer's colours; misuse refused. */
    {
        vkskin_view framed;
        vkskin_light light;
        CHECK(vkskin_crowd_frame_view(crowd, 4.0f / 3.0f, &framed, &err) == VKSKIN_OK);
        CHECK(vkskin_view_light(&framed, &light, &err) == VKSKIN_OK);
        const float *d = light.direction;
        CHECK_NEAR(d[0] * d[0] + d[1] * d[1] + d[2] * d[2], 1.0, 1e-6);
        CHECK(d[1] > 0.5f);
        for (int k = 0; k < 3; k++)
            CHECK(light.color[k] > light.ambient[k] && light.ambient[k] > 0.0f);
        check_error(vkskin_view_light(NULL, &light, &err), &err, VKSKIN_ERROR_ARGUMENT,
                    "a view and a light are needed");
    }

    /* ---- Compute mode: outputs, silhouette, counts ---- */
    /* The graphics pipeline draws everything: the counts below are its own (test_raster_frames
     * covers the compute rasterizer). */
    const vkskin_renderer_desc desc = checked_desc(crowd, VKSKIN_PALETTES_STORE);
    vkskin_renderer *r;
    if (vkskin_renderer_create(&desc, &r, &err) != VKSKIN_OK) {
        fprintf(stderr, "%s\n", err.message);
        return 1;
    }
    vkskin_renderer_info ri;
    CHECK(vkskin_renderer_get_info(r, &ri, &err) == VKSKIN_OK);
    CHECK(ri.width == W && ri.height == H && ri.group_size == 64 && ri.device_name[0]);
    CHECK(ri.binding == VKSKIN_BINDING_DESCRIPTORS); /* what validation follows */
    /* Room for one instance at first (check_output_growth follows it as it grows). */
    CHECK(ri.max_skinned_vertices >= mi.vertex_count);

    /* A second renderer on the same crowd is refused (one per crowd: the schedule, the store and
     * the moved instances are the renderer's); on another crowd it lives beside this one (its
     * own instance and device: test_two_renderers drives two at once), and devices can be
     * listed meanwhile. */
    vkskin_renderer *second = NULL;
    check_error(vkskin_renderer_create(&desc, &second, &err), &err, VKSKIN_ERROR_ARGUMENT,
                "the crowd has a renderer already");
    CHECK(second == NULL);
    vkskin_crowd *other_crowd = NULL;
    CHECK(vkskin_crowd_create(&(vkskin_crowd_desc){.desc_size = sizeof(vkskin_crowd_desc),
                                                   .models = (const vkskin_model *const *)&model,
                                                   .model_count = 1,
                                                   .instance_count = 2},
                              &other_crowd, &err) == VKSKIN_OK);
    vkskin_renderer_desc other_desc = desc;
    other_desc.crowd = other_crowd;
    CHECK(vkskin_renderer_create(&other_desc, &second, &err) == VKSKIN_OK && second);
    close_renderer(second);
    vkskin_crowd_destroy(other_crowd);
    devices = 0;
    CHECK(vkskin_list_devices(NULL, 0, &devices, &err) == VKSKIN_OK && devices >= 1);
    uint8_t *image = malloc(W * H * 4), *first = malloc(W * H * 4), *other = malloc(W * H * 4);
    check_error(vkskin_renderer_read_image(r, image, &err), &err, VKSKIN_ERROR_ARGUMENT,
                "no frame was drawn yet");
    vkskin_gpu_stats none;
    CHECK(vkskin_renderer_last_stats(r, &none, &err) == VKSKIN_OK);
    CHECK(none.skin_ms == -1.0 && none.draw_ms == -1.0 && none.triangles == UINT64_MAX);

    vkskin_view view;
    CHECK(vkskin_crowd_frame_view(crowd, (float)W / (float)H, &view, &err) == VKSKIN_OK);
    vkskin_frame_info info;
    CHECK(vkskin_renderer_frame(
              r, &(vkskin_frame_desc){.desc_size = sizeof(vkskin_frame_desc), .view = &view}, &info,
              &err) == VKSKIN_OK);
    CHECK(info.drawn && info.visible == INSTANCES && info.posed == INSTANCES);
    CHECK(info.skinned == INSTANCES && info.overflow == 0);
    CHECK(info.level_instances[0] == INSTANCES);
    CHECK(info.vertices == (uint64_t)INSTANCES * mi.vertex_count);
    CHECK(vkskin_renderer_read_image(r, first, &err) == VKSKIN_OK);
    double worst = check_outputs(r, crowd, INSTANCES, diag);
    check_silhouette(first, crowd, &view);
    check_error(vkskin_renderer_read_skinned(r, INSTANCES, (float *)image, (float *)image, NULL,
                                             NULL, &err),
                &err, VKSKIN_ERROR_ARGUMENT, "no instance 6");

    /* Frames in flight with no wait between them: eight frames, each its own time and view, then
     * the last one's output and image; another frame of the same state gives the same image. */
    for (int f = 0; f < 8; f++) {
        vkskin_crowd_advance(crowd, 1.0 / 30.0, NULL);
        vkskin_view turned;
        vkskin_crowd_orbit_view(crowd,
                                &(vkskin_orbit){.aspect = (float)W / (float)H,
                                                .yaw = 0.1f * (float)f,
                                                .zoom = 1.0f + 0.05f * (float)f},
                                &turned, NULL);
        CHECK(vkskin_renderer_frame(
                  r, &(vkskin_frame_desc){.desc_size = sizeof(vkskin_frame_desc), .view = &turned},
                  &info, &err) == VKSKIN_OK);
    }
    CHECK(vkskin_renderer_read_image(r, image, &err) == VKSKIN_OK);
    worst = fmax(worst, check_outputs(r, crowd, info.visible, diag));
    vkskin_view last_view;
    vkskin_crowd_orbit_view(
        crowd, &(vkskin_orbit){.aspect = (float)W / (float)H, .yaw = 0.7f, .zoom = 1.35f},
        &last_view, NULL);
    CHECK(vkskin_renderer_frame(
              r, &(vkskin_frame_desc){.desc_size = sizeof(vkskin_frame_desc), .view = &last_view},
              &info, &err) == VKSKIN_OK);
    CHECK(vkskin_renderer_read_image(r, other, &err) == VKSKIN_OK);
    CHECK(memcmp(image, other, W * H * 4) == 0);
    CHECK(memcmp(image, first, W * H * 4) != 0); /* it moved */
    printf("compute: worst position error %.3g of the diagonal over %u frames\n", worst, 10u);
    CHECK(worst <= POSITION_TOLERANCE);
    vkskin_gpu_stats stats;
    CHECK(vkskin_renderer_last_stats(r, &stats, &err) == VKSKIN_OK);
    /* The statistics query counts what the draws fed: every visible instance's triangles. */
    if (stats.triangles != UINT64_MAX)
        CHECK(stats.triangles == (uint64_t)info.visible * (mi.index_count / 3));
    else
        printf("skipped: the triangle count: this device has no pipeline statistics\n");
    close_renderer(r);

    /* ---- The vertex-shader mode, and an output with room for one instance, against the
     * compute image of the crowd as it started ---- */
    vkskin_crowd_reset(crowd, NULL);
    vkskin_renderer_desc vertex = desc;
    vertex.readback = false;
    vertex.mode = VKSKIN_SKIN_VERTEX;
    CHECK(vkskin_renderer_create(&vertex, &r, &err) == VKSKIN_OK);
    CHECK(vkskin_renderer_frame(
              r, &(vkskin_frame_desc){.desc_size = sizeof(vkskin_frame_desc), .view = &view}, &info,
              &err) == VKSKIN_OK);
    CHECK(info.skinned == 0 && info.overflow == 0 && info.visible == INSTANCES);
    CHECK(vkskin_renderer_read_image(r, image, &err) == VKSKIN_OK);
    printf("vertex mode: %u of %u pixels differ from the compute image\n", differing(first, image),
           W * H);
    CHECK(differing(first, image) <= W * H / 100);
    check_error(
        vkskin_renderer_read_skinned(r, 0, (float *)image, (float *)image, NULL, NULL, &err), &err,
        VKSKIN_ERROR_ARGUMENT, "without readback");
    close_renderer(r);

    /* The addresses binding, asked for under validation: the same image, bit for bit, and the same
     * skinned output as the descriptors binding's (within the same tolerance of the CPU's). */
    vkskin_crowd_reset(crowd, NULL);
    vkskin_renderer_desc addresses = desc;
    addresses.binding = VKSKIN_BINDING_ADDRESSES;
    CHECK(vkskin_renderer_create(&addresses, &r, &err) == VKSKIN_OK);
    CHECK(vkskin_renderer_get_info(r, &ri, &err) == VKSKIN_OK &&
          ri.binding == VKSKIN_BINDING_ADDRESSES);
    CHECK(vkskin_renderer_frame(
              r, &(vkskin_frame_desc){.desc_size = sizeof(vkskin_frame_desc), .view = &view}, &info,
              &err) == VKSKIN_OK);
    CHECK(vkskin_renderer_read_image(r, image, &err) == VKSKIN_OK);
    printf("addresses binding: %u of %u pixels differ from the descriptors binding's image\n",
           differing(first, image), W * H);
    CHECK(memcmp(first, image, W * H * 4) == 0);
    CHECK(check_outputs(r, crowd, INSTANCES, diag) <= POSITION_TOLERANCE);
    close_renderer(r);

    check_previous_stats(&desc, crowd, &view, mi.index_count / 3);
    check_output_growth(&desc, crowd, &view, mi.vertex_count, diag);
    check_host_palettes(&desc, crowd, &view, first, diag);
    check_staged_palette(&desc, crowd, &view, first, diag);
    check_kept_poses(&desc, VKSKIN_PALETTES_HOST, crowd, diag);
    check_kept_poses(&desc, VKSKIN_PALETTES_STORE, crowd, diag);

    vkskin_crowd_reset(crowd, NULL);
    vkskin_renderer_desc small = desc;
    small.max_skinned_vertices = mi.vertex_count + 1;
    CHECK(vkskin_renderer_create(&small, &r, &err) == VKSKIN_OK);
    CHECK(vkskin_renderer_frame(
              r, &(vkskin_frame_desc){.desc_size = sizeof(vkskin_frame_desc), .view = &view}, &info,
              &err) == VKSKIN_OK);
    CHECK(info.skinned == 1 && info.overflow == INSTANCES - 1);
    CHECK(info.overflow_vertices == (uint64_t)(INSTANCES - 1) * mi.vertex_count);
    CHECK(vkskin_renderer_read_image(r, image, &err) == VKSKIN_OK);
    printf("overflow: %u of %u pixels differ from the compute image\n", differing(first, image),
           W * H);
    CHECK(differing(first, image) <= W * H / 100);
    CHECK(check_outputs(r, crowd, 1, diag) <= POSITION_TOLERANCE);
    check_error(
        vkskin_renderer_read_skinned(r, 1, (float *)image, (float *)image, NULL, NULL, &err), &err,
        VKSKIN_ERROR_ARGUMENT, "not skinned by the last frame's compute pass");
    close_renderer(r);

    /* ---- Overlays and the ground: a red screen quad at the top left, a green line through the
     * first character (over it: lines are drawn on top), and the ground's plane under the crowd,
     * in its own color where nothing else is ---- */
    CHECK(vkskin_renderer_create(&desc, &r, &err) == VKSKIN_OK);
    vkskin_instance_info in0;
    vkskin_crowd_get_instance(crowd, 0, &in0, NULL);
    const uint32_t red = 0xff0000ffu, green = 0xff00ff00u;
    const vkskin_overlay_vertex quad[6] = {{{0, 0, 0}, red}, {{16, 0, 0}, red},  {{16, 16, 0}, red},
                                           {{0, 0, 0}, red}, {{16, 16, 0}, red}, {{0, 16, 0}, red}};
    const vkskin_overlay_vertex line[2] = {
        {{in0.center[0], in0.center[1] - 0.5f * in0.radius, in0.center[2]}, green},
        {{in0.center[0], in0.center[1] + 0.5f * in0.radius, in0.center[2]}, green}};
    CHECK(vkskin_renderer_frame(r,
                                &(vkskin_frame_desc){.desc_size = sizeof(vkskin_frame_desc),
                                                     .view = &view,
                                                     .ground = true,
                                                     .screen = quad,
                                                     .screen_vertex_count = 6,
                                                     .lines = line,
                                                     .line_vertex_count = 2},
                                &info, &err) == VKSKIN_OK);
    CHECK(vkskin_renderer_read_image(r, image, &err) == VKSKIN_OK);
    uint32_t reds = 0, greens = 0, ground = 0, ground_before = 0;
    for (uint32_t p = 0; p < W * H; p++) {
        const uint8_t *c = image + 4 * p, *f = first + 4 * p;
        reds += c[0] == 255 && c[1] == 0 && c[2] == 0;
        greens += c[1] > 200 && c[0] < 60 && c[2] < 60;
        /* The plane's sRGB color, (34, 38, 42), where the first image had the background. */
        const bool plane = abs(c[0] - 34) <= 1 && abs(c[1] - 38) <= 1 && abs(c[2] - 42) <= 1;
        ground += plane;
        ground_before += abs(f[0] - 34) <= 1 && abs(f[1] - 38) <= 1 && abs(f[2] - 42) <= 1;
    }
    printf("overlays: %u red pixels (16 x 16 asked), %u green, %u of the ground's color (%u "
           "before)\n",
           reds, greens, ground, ground_before);
    CHECK(reds == 16 * 16);
    CHECK(greens >= 4);
    vkskin_gpu_stats drawn;
    CHECK(vkskin_renderer_last_stats(r, &drawn, &err) == VKSKIN_OK);
    if (drawn.triangles != UINT64_MAX) /* the crowd's alone, the ground and overlays apart */
        CHECK(drawn.triangles == (uint64_t)info.visible * (mi.index_count / 3));
    else
        printf("skipped: the overlay frame's triangles: this device has no pipeline statistics\n");
    CHECK(ground > W * H / 10 && ground_before == 0);
    check_error(vkskin_renderer_frame(r,
                                      &(vkskin_frame_desc){.desc_size = sizeof(vkskin_frame_desc),
                                                           .view = &view,
                                                           .lines = line,
                                                           .line_vertex_count = 1},
                                      &info, &err),
                &err, VKSKIN_ERROR_ARGUMENT, "in pairs for lines");
    check_error(vkskin_renderer_frame(r,
                                      &(vkskin_frame_desc){.desc_size = sizeof(vkskin_frame_desc),
                                                           .view = &view,
                                                           .screen_vertex_count = 3},
                                      &info, &err),
                &err, VKSKIN_ERROR_ARGUMENT, "overlays need their vertices");
    close_renderer(r);

    /* ---- Misuse: errors with messages, before or without a device ---- */
    check_error(vkskin_renderer_create(NULL, &r, &err), &err, VKSKIN_ERROR_ARGUMENT,
                "desc and renderer");
    check_error(vkskin_renderer_create(
                    &(vkskin_renderer_desc){.desc_size = sizeof(vkskin_renderer_desc)}, &r, &err),
                &err, VKSKIN_ERROR_ARGUMENT, "a crowd is needed");
    vkskin_renderer_desc bad = desc;
    bad.group_size = 48;
    check_error(vkskin_renderer_create(&bad, &r, &err), &err, VKSKIN_ERROR_ARGUMENT,
                "48 invocations is not a power of two");
    bad = desc;
    bad.lod = 8;
    check_error(vkskin_renderer_create(&bad, &r, &err), &err, VKSKIN_ERROR_ARGUMENT,
                "levels of detail go from 0 to 7");
    bad = desc;
    bad.binding = (vkskin_binding)3;
    check_error(vkskin_renderer_create(&bad, &r, &err), &err, VKSKIN_ERROR_ARGUMENT,
                "no binding 3");
    bad = desc;
    bad.mode = VKSKIN_SKIN_VERTEX;
    check_error(vkskin_renderer_create(&bad, &r, &err), &err, VKSKIN_ERROR_ARGUMENT,
                "readback needs the compute mode");
    bad = desc;
    bad.raster = (vkskin_raster)7;
    check_error(vkskin_renderer_create(&bad, &r, &err), &err, VKSKIN_ERROR_ARGUMENT, "no raster 7");
    bad = desc;
    bad.raster_triangle_px = NAN;
    check_error(vkskin_renderer_create(&bad, &r, &err), &err, VKSKIN_ERROR_ARGUMENT,
                "raster_triangle_px must be 0 or more");
    bad = desc;
    bad.readback = false;
    bad.mode = VKSKIN_SKIN_VERTEX;
    bad.raster = VKSKIN_RASTER_HYBRID;
    check_error(vkskin_renderer_create(&bad, &r, &err), &err, VKSKIN_ERROR_ARGUMENT,
                "the compute rasterizer draws the compute pass's output");
    bad = desc;
    bad.device = 0x80000002u;
    check_error(vkskin_renderer_create(&bad, &r, &err), &err, VKSKIN_ERROR_ARGUMENT,
                "no device 2147483650");
    bad.device = devices + 1; /* the entry after the last */
    check_error(vkskin_renderer_create(&bad, &r, &err), &err, VKSKIN_ERROR_FAILED,
                "there is no device");
    bad = desc;
    bad.width = 0;
    check_error(vkskin_renderer_create(&bad, &r, &err), &err, VKSKIN_ERROR_ARGUMENT,
                "1 to 16384 pixels a side");
    /* A window whose surface cannot be made: one message, nothing left open. */
    int calls = 0;
    bad = desc;
    bad.readback = false;
    bad.create_surface = failing_surface;
    bad.surface_user = &calls;
    check_error(vkskin_renderer_create(&bad, &r, &err), &err, VKSKIN_ERROR_FAILED,
                "cannot create a Vulkan surface for the window");
    CHECK(calls == 1 && r == NULL);
    /* A crowd bigger than the device's memory (capped here at 1 MiB): refused, saying how many
     * fit. */
    bad = desc;
    bad.readback = false;
    bad.max_memory_mib = 1;
    vkskin_crowd *big;
    CHECK(vkskin_crowd_create(&(vkskin_crowd_desc){.desc_size = sizeof(vkskin_crowd_desc),
                                                   .models = (const vkskin_model *const *)&model,
                                                   .model_count = 1,
                                                   .instance_count = 100000},
                              &big, &err) == VKSKIN_OK);
    bad.crowd = big;
    const vkskin_result big_result = vkskin_renderer_create(&bad, &r, &err);
    CHECK(big_result == VKSKIN_ERROR_OUT_OF_MEMORY || big_result == VKSKIN_ERROR_FAILED);
    CHECK(strstr(err.message, "fit") != NULL);
    printf("a crowd of 100000 in 1 MiB: %s\n", err.message);
    vkskin_crowd_destroy(big);

    CHECK(vkskin_renderer_create(&desc, &r, &err) == VKSKIN_OK); /* the device is free again */
    check_error(vkskin_renderer_frame(
                    r, &(vkskin_frame_desc){.desc_size = sizeof(vkskin_frame_desc)}, &info, &err),
                &err, VKSKIN_ERROR_ARGUMENT, "a view is needed");
    vkskin_view nan_view = view;
    nan_view.view_proj[5] = NAN;
    check_error(vkskin_renderer_frame(
                    r,
                    &(vkskin_frame_desc){.desc_size = sizeof(vkskin_frame_desc), .view = &nan_view},
                    &info, &err),
                &err, VKSKIN_ERROR_ARGUMENT, "element 5 is not finite");
    check_error(vkskin_renderer_read_image(r, NULL, &err), &err, VKSKIN_ERROR_ARGUMENT,
                "pixels are needed");
    close_renderer(r);
    vkskin_renderer_destroy(NULL, NULL);

    free(image), free(first), free(other);
    vkskin_crowd_destroy(crowd);
    vkskin_model_destroy(model);
    CHECK(atomic_load(&all_blocks) > 0 && atomic_load(&live_blocks) == 0);
    printf("allocator: %ld blocks, %ld not given back\n", atomic_load(&all_blocks),
           atomic_load(&live_blocks));
    return check_report("api_render");
}
