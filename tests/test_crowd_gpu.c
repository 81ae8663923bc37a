/* A crowd on the GPU against the CPU reference, validation on (any error or warning fails):
 * (a) 24 instances of three models (the default character; tangents.glb, which has tangents;
 *     robot.glb, whose clips play its face's morph targets, some of them nothing else), each
 *     playing its model's clips in turn from its own time, skinned by the compute pass into an
 *     output split into at least 3 chunks (buffer_limit of 4 instances), read back:
 *     frame 1, every instance visible: each matches vks_skin_cpu_pose at its clip and time
 *       (palette space), positions within 1e-4 x its model's bind-pose radius, normals and
 *       tangents within 1e-4; some instance has left the bind pose;
 *     frame 2, 0.25 s later, only even instances visible: they match the new pose, packed in the
 *       output from its start in visible order (an instance that would straddle a chunk starts
 *       the next one), and the odd ones have no output that frame (culled: no output memory);
 *     frame 3, 0.25 s later, the 6 instances nearest the middle drawn into an offscreen image:
 *       the pipeline statistics count exactly their triangles and the skinning dispatch's
 *       invocations (also counted in frames 1 and 2), the timestamps are not negative, and the
 *       character the camera looks at covers at least 2% of the image.
 *     The readback is filled with NaN bytes before each frame (when host-coherent), so stale or
 *     unwritten output cannot pass.
 * (b) The same crowd skinned in the vertex shader: the same triangles drawn, no skinning
 *     invocation, and the same image as (a) at the same time (at most 1% of the drawn pixels
 *     differ by more than 3 levels).
 * (c) Frame 3 again with room for fewer vertices than the 6 drawn instances have
 *     (max_skinned_vertices): the first that fit are skinned by the compute pass (read back:
 *     they match the CPU, the rest have no output), the rest in the vertex shader; the image is
 *     (a)'s and the statistics count every triangle but only the first ones' invocations.
 * (d) How many fit: under a 48 MiB memory cap and room for 4096 skinned vertices, a crowd too
 *     large fails with "at most K instances fit"; a crowd of exactly K is created, K + 1 is not.
 * (e) The compute pass with poses staged in shared memory, room for the smaller models' alone
 *     (test_staged): each instance against the CPU, the image (a)'s.
 *   usage: test_crowd_gpu DEFAULT_GLB FIXTURES_DIR (a missing file fails: the build writes them) */
#include "crowd_gpu.h"

#include <ctype.h>

#define MOVES_AT_LEAST 1e-2 /* times the radius: an animated instance visibly moves */
#define INSTANCES 24u
/* buffer_limit: 3.5 of the largest instance's output, so that instances reach a chunk's end
 * mid-way and the next starts the next chunk. */
#define CHUNK_HALVES 7u
#define SEED 1234u
#define DRAWN 6u                            /* instances drawn in frame 3 */
#define FIT_MEMORY ((VkDeviceSize)48 << 20) /* (d)'s cap: small, so that its crowds stay small */
#define FIT_VERTICES 4096u

enum { MODEL_DEFAULT, MODEL_TANGENTS, MODEL_ROBOT, MODEL_COUNT };
_Static_assert(MODEL_COUNT <= CROWD_GPU_MAX_MODELS, "crowd_gpu holds the models");

/* Bytes of instance i's output as the renderer lays it out: its vertices (16 bytes each), then
 * its tangents (a 4-byte word each), padded to 16. */
static size_t laid_out_bytes(const vks_crowd *c, uint32_t i)
{
    const vks_model *m = c->models[c->instances[i].model];
    return ((size_t)m->vertex_count * (16 + (m->tangents ? 4 : 0)) + 15) / 16 * 16;
}

/* visible[0 .. count)'s outputs in the readback, worked out here: packed from the start in
 * visible order, each whole within one chunk of `limit` bytes (one that would straddle starts
 * the next chunk; *jumps counts those). */
static bool packed_in_order(const vks_crowd *c, const vks_renderer *r, const uint32_t *visible,
                            uint32_t count, size_t limit, uint32_t *jumps)
{
    const unsigned char *base = r->skinner.readback.mapped;
    size_t at = 0;
    bool ok = true;
    *jumps = 0;
    for (uint32_t k = 0; k < count; k++) {
        size_t bytes = laid_out_bytes(c, visible[k]);
        if (at / limit != (at + bytes - 1) / limit) {
            at = (at / limit + 1) * limit;
            ++*jumps;
        }
        ok &= (const unsigned char *)vks_skinner_skinned(&r->skinner, visible[k]) == base + at;
        at += bytes;
    }
    return ok;
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

/* Invocations of the skinning dispatches over visible[0 .. count): each instance's vertices
 * rounded up to whole workgroups, and nothing more (no idle workgroups), computed here from the
 * models' vertex counts. */
static uint64_t skin_invocations(const crowd_gpu *s, const vks_renderer *r, const uint32_t *visible,
                                 uint32_t count)
{
    uint64_t n = 0, group = r->skinner.pass.group_size;
    for (uint32_t k = 0; k < count; k++) {
        uint64_t v = s->crowd.models[s->crowd.instances[visible[k]].model]->vertex_count;
        n += (v + group - 1) / group * group;
    }
    return n;
}

/* The statistics of a frame that drew visible[0 .. count), of which the compute pass skinned
 * the first `skinned`. */
static void check_draw_stats(const crowd_gpu *s, const vks_renderer *r, const uint32_t *visible,
                             uint32_t count, vks_gpu_stats st, uint32_t skinned, const char *when)
{
    uint64_t triangles = 0;
    for (uint32_t k = 0; k < count; k++)
        triangles += s->crowd.models[s->crowd.instances[visible[k]].model]->index_count / 3;
    if (s->dev.statistics) {
        uint64_t invocations = skin_invocations(s, r, visible, skinned);
        CHECK(st.primitives == triangles);
        CHECK(st.skin_invocations == invocations);
        printf("%s: %llu triangles (expected %llu), %llu skinning invocations (expected %llu)\n",
               when, (unsigned long long)st.primitives, (unsigned long long)triangles,
               (unsigned long long)st.skin_invocations, (unsigned long long)invocations);
    } else {
        printf("skipped: %s: the triangle and invocation counts: this device has no pipeline "
               "statistics\n",
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
static void test_compute(crowd_gpu *s, uint8_t *image, uint32_t *visible, uint32_t *count)
{
    vks_crowd *c = &s->crowd;
    size_t largest = 0;
    for (uint32_t i = 0; i < c->instance_count; i++)
        largest = laid_out_bytes(c, i) > largest ? laid_out_bytes(c, i) : largest;
    vks_renderer r;
    if (!crowd_gpu_renderer(s, VKS_SKIN_COMPUTE, CHUNK_HALVES * largest / 2 / 16 * 16, 0, &r,
                            "compute"))
        return;
    /* The output starts at one largest instance's room (one chunk) and grows for frame 1. */
    CHECK(r.skinner.chunk_count == 1 && r.skinner.memory.output_bytes == largest);

    /* Frame 1: everyone. */
    uint32_t all[INSTANCES];
    for (uint32_t i = 0; i < INSTANCES; i++)
        all[i] = i;
    double moved = 0.0;
    const bool framed = crowd_gpu_frame(s, &r, all, INSTANCES, false);
    CHECK(r.skinner.chunk_count >= 3 && r.skinner.output_grown == 1);
    printf("compute: %u instances, output %llu bytes in %u chunks\n", c->instance_count,
           (unsigned long long)r.skinner.memory.output_bytes, r.skinner.chunk_count);
    if (framed) {
        for (uint32_t i = 0; i < INSTANCES; i++) {
            double d;
            crowd_gpu_check_instance(s, &r, i, "frame 1", &d);
            moved = fmax(moved, d / s->radius[c->instances[i].model]);
        }
        CHECK(moved > MOVES_AT_LEAST);
        if (s->dev.statistics)
            CHECK(vks_renderer_last_stats(&r).skin_invocations ==
                  skin_invocations(s, &r, all, INSTANCES));
        else
            printf("skipped: frame 1's invocation count: this device has no pipeline statistics\n");
    }
    uint32_t jumps = 0;
    CHECK(packed_in_order(c, &r, all, INSTANCES, r.skinner.chunk_limit, &jumps));
    CHECK(jumps >= 2); /* instances did reach chunk ends: the straddle rule ran */
    printf("compute: frame 1 started %u chunks early rather than straddle one\n", jumps);

    /* Frame 2: the even instances only, packed from the output's start; the odd ones have none.
     * The pose moved on 0.25 s, so matching the CPU says the output is this frame's. */
    vks_crowd_advance(c, NULL, 0.25);
    uint32_t even[INSTANCES], evens = 0;
    for (uint32_t i = 0; i < INSTANCES; i += 2)
        even[evens++] = i;
    if (crowd_gpu_frame(s, &r, even, evens, false)) {
        for (uint32_t i = 0; i < INSTANCES; i++) {
            if (i % 2 == 0) {
                crowd_gpu_check_instance(s, &r, i, "frame 2", NULL);
            } else { /* the API's contract: no output to read for a culled instance */
                bool none = vks_skinner_skinned(&r.skinner, i) == NULL;
                CHECK(none);
                if (!none)
                    fprintf(stderr, "  frame 2: culled instance %u has output\n", i);
            }
        }
        /* The memory claim: the even ones are packed from the output's start, so the culled
         * ones took none of it. */
        CHECK(packed_in_order(c, &r, even, evens, r.skinner.chunk_limit, &jumps));
        if (s->dev.statistics)
            CHECK(vks_renderer_last_stats(&r).skin_invocations ==
                  skin_invocations(s, &r, even, evens));
        else
            printf("skipped: frame 2's invocation count: this device has no pipeline statistics\n");
    }
    printf("compute: largest errors over frames 1 and 2: positions %.3g of the radius, unit "
           "vectors %.3g\n",
           s->worst_pos, s->worst_unit);

    /* Frame 3: a subset drawn. */
    vks_crowd_advance(c, NULL, 0.25);
    *count = nearest_to_center(c, DRAWN, visible, &s->focus);
    if (crowd_gpu_frame(s, &r, visible, *count, true)) {
        check_draw_stats(s, &r, visible, *count, vks_renderer_last_stats(&r), *count,
                         "compute draw");
        uint32_t drawn = crowd_gpu_drawn_pixels(s->pixels.mapped);
        CHECK(drawn >= MIN_DRAWN_FRACTION * IMAGE_SIZE * IMAGE_SIZE);
        printf("compute draw: %u of %u pixels drawn\n", drawn, IMAGE_SIZE * IMAGE_SIZE);
        memcpy(image, s->pixels.mapped, (size_t)IMAGE_SIZE * IMAGE_SIZE * 4);
    }
    vks_renderer_destroy(&r);
}

/* The image just drawn (s->pixels) against the compute draw's: enough drawn, few pixels apart. */
static void check_same_image(const crowd_gpu *s, const uint8_t *image, const char *what)
{
    uint32_t differ = crowd_gpu_differing_pixels(s->pixels.mapped, image);
    uint32_t drawn = crowd_gpu_drawn_pixels(s->pixels.mapped);
    CHECK(drawn >= MIN_DRAWN_FRACTION * IMAGE_SIZE * IMAGE_SIZE);
    CHECK(differ <= IMAGE_DIFF_FRACTION * drawn);
    printf("%s: %u pixels drawn, %u differ from the compute draw\n", what, drawn, differ);
}

/* (b) The same draw skinned in the vertex shader. */
static void test_vertex(crowd_gpu *s, const uint8_t *image, const uint32_t *visible, uint32_t count)
{
    vks_renderer r;
    if (!crowd_gpu_renderer(s, VKS_SKIN_VERTEX, 0, 0, &r, "vertex"))
        return;
    if (crowd_gpu_frame(s, &r, visible, count, true)) {
        check_draw_stats(s, &r, visible, count, vks_renderer_last_stats(&r), 0, "vertex draw");
        check_same_image(s, image, "vertex draw");
    }
    vks_renderer_destroy(&r);
}

/* (e) Palette staging with room for less than the default character's pose: the smaller poses
 * (robot.glb's, tangents.glb's) are staged, the default's is not (its unstaged variant in the
 * same frame); every instance matches the CPU, and the draw is (a)'s image. */
static void test_staged(crowd_gpu *s, const uint8_t *image, const uint32_t *visible, uint32_t count)
{
    const vks_crowd *c = &s->crowd;
    const uint32_t def = vks_crowd_pose_vec4s(c->models[MODEL_DEFAULT], c->dq[MODEL_DEFAULT]);
    s->stage = true;
    s->stage_limit = def - 1;
    vks_renderer r;
    const bool made = crowd_gpu_renderer(s, VKS_SKIN_COMPUTE, 0, 0, &r, "staged");
    s->stage = false;
    s->stage_limit = 0;
    if (!made)
        return;
    uint32_t staged = 0;
    for (uint32_t m = 0; m < c->model_count; m++)
        staged += (r.skinner.variant[m] & VKS_SKIN_VARIANT_STAGE) != 0;
    CHECK(r.skinner.pass.stage_vec4s > 0 && r.skinner.pass.stage_vec4s < def && staged >= 1 &&
          !(r.skinner.variant[MODEL_DEFAULT] & VKS_SKIN_VARIANT_STAGE));
    uint32_t all[INSTANCES];
    for (uint32_t i = 0; i < INSTANCES; i++)
        all[i] = i;
    if (crowd_gpu_frame(s, &r, all, INSTANCES, false))
        for (uint32_t i = 0; i < INSTANCES; i++)
            crowd_gpu_check_instance(s, &r, i, "staged", NULL);
    if (crowd_gpu_frame(s, &r, visible, count, true))
        check_same_image(s, image, "staged draw");
    printf("staged: %u of %u models' poses staged in %u vec4s, the default's (%u) not\n", staged,
           c->model_count, r.skinner.pass.stage_vec4s, def);
    vks_renderer_destroy(&r);
}

/* (c) Frame 3 with room for fewer vertices than its instances have: the first that fit go
 * through the compute pass, the rest through the vertex shader, and the image is the same. */
static void test_overflow(crowd_gpu *s, const uint8_t *image, const uint32_t *visible,
                          uint32_t count)
{
    const vks_crowd *c = &s->crowd;
    /* Room for the first half of the drawn instances' outputs: a vertex of this crowd counts 20
     * bytes (a skinned vertex and a tangent word: a model with tangents is in it), so the room is
     * those bytes over 20, rounded up, which is less than one more vertex: the next instance
     * cannot fit. */
    const uint32_t fit = count / 2;
    size_t bytes = 0;
    for (uint32_t k = 0; k < fit; k++)
        bytes += laid_out_bytes(c, visible[k]);
    const uint32_t vertices = (uint32_t)((bytes + 19) / 20);
    vks_renderer r;
    if (!crowd_gpu_renderer(s, VKS_SKIN_COMPUTE, 0, vertices, &r, "overflow"))
        return;
    CHECK(vks_plan_vertex_bytes(c) == 20);
    CHECK(fit > 0 && fit < count);
    if (crowd_gpu_frame(s, &r, visible, count, false)) {
        vks_frame *f = &r.frames[r.skinner.readback_slot];
        CHECK(f->skin->plan.skinned_count == fit && f->skin->plan.overflow_count == count - fit);
        for (uint32_t k = 0; k < count; k++) {
            if (k < fit)
                crowd_gpu_check_instance(s, &r, visible[k], "overflow", NULL);
            else
                CHECK(vks_skinner_skinned(&r.skinner, visible[k]) == NULL);
        }
        printf("overflow: room for %llu vertices: %u of %u instances skinned by the compute "
               "pass, %u (%llu vertices) in the vertex shader\n",
               (unsigned long long)vertices, f->skin->plan.skinned_count, count,
               f->skin->plan.overflow_count, (unsigned long long)f->skin->plan.overflow_vertices);
    }
    if (crowd_gpu_frame(s, &r, visible, count, true)) {
        /* Triangles of every instance; invocations of the first `fit` only. */
        check_draw_stats(s, &r, visible, count, vks_renderer_last_stats(&r), fit, "overflow draw");
        check_same_image(s, image, "overflow draw");
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

/* A crowd of n default characters. */
static bool make_crowd_of(crowd_gpu *s, uint32_t n, vks_crowd *c)
{
    vks_error err;
    if (vks_crowd_create(&(vks_crowd_desc){.models = (const vks_model *const[]){&s->models[0]},
                                           .model_count = 1,
                                           .instance_count = n,
                                           .time = 0.37,
                                           .threads = 1,
                                           .seed = SEED},
                         c, &err))
        return true;
    fprintf(stderr, "crowd of %u: %s\n", n, err.msg);
    CHECK(!"crowd creation failed");
    return false;
}

/* Whether a renderer for n instances is created under the cap (err: why not). */
static bool renderer_fits(crowd_gpu *s, uint32_t n, vks_error *err)
{
    vks_crowd c;
    if (!make_crowd_of(s, n, &c))
        return false;
    vks_renderer r;
    bool created = vks_renderer_create(&s->dev,
                                       &(vks_renderer_desc){.binding = test_binding(),
                                                            .crowd = &c,
                                                            .color_format = s->color.format,
                                                            .max_skinned_vertices = FIT_VERTICES,
                                                            .memory_limit = FIT_MEMORY},
                                       &r, err);
    if (created)
        vks_renderer_destroy(&r);
    vks_crowd_destroy(&c);
    return created;
}

/* (d) The "how many fit" figure, checked by building exactly that many and one more. */
static void test_fit(crowd_gpu *s)
{
    vks_error err;
    const uint32_t too_many = 100000; /* a frame's palettes still fit one buffer */
    CHECK(!renderer_fits(s, too_many, &err));
    long long k = instances_fit(err.msg);
    printf("fit: %u instances under a %llu MiB cap: \"%s\"\n", too_many,
           (unsigned long long)(FIT_MEMORY >> 20), err.msg);
    CHECK(k > 0 && k < too_many);
    if (k <= 0 || k >= too_many)
        return;
    bool fits = renderer_fits(s, (uint32_t)k, &err);
    CHECK(fits);
    if (!fits)
        fprintf(stderr, "  %lld instances refused: %s\n", k, err.msg);
    CHECK(!renderer_fits(s, (uint32_t)k + 1, &err));
    CHECK(instances_fit(err.msg) == k);
    printf("fit: %lld instances created, %lld refused (\"%s\")\n", k, k + 1, err.msg);
}

/* The crowd of (a) and (b), and what it must contain to test anything. */
static bool create_crowd(crowd_gpu *s)
{
    const vks_model *models[MODEL_COUNT] = {&s->models[MODEL_DEFAULT], &s->models[MODEL_TANGENTS],
                                            &s->models[MODEL_ROBOT]};
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
    char tangents[4096];
    int args = crowd_gpu_args(argc, argv, "test_crowd_gpu", tangents, sizeof tangents);
    if (args)
        return args;
    char robot[4096];
    snprintf(robot, sizeof robot, "%s/robot.glb", argv[2]);
    const char *paths[MODEL_COUNT] = {argv[1], tangents, robot};

    crowd_gpu s = {0};
    /* Models before the device: the importer forks (asset/import.h). */
    for (int k = 0; k < MODEL_COUNT; k++) {
        if (!crowd_gpu_import(paths[k], &s.models[k]))
            return check_report("test_crowd_gpu");
        s.radius[k] = crowd_gpu_bind_radius(&s.models[k]);
        CHECK(s.radius[k] > 0.0);
    }
    CHECK(s.models[MODEL_TANGENTS].tangents != NULL);
    CHECK(s.models[MODEL_DEFAULT].clip_count >= 2);
    CHECK(s.models[MODEL_ROBOT].target_count > 0); /* its face plays through morph targets */

    bool target = false;
    if (crowd_gpu_open(&s, "test_crowd_gpu", &target)) {
        if (target && create_crowd(&s)) {
            uint8_t *image = calloc((size_t)IMAGE_SIZE * IMAGE_SIZE, 4);
            uint32_t visible[INSTANCES], count = 0;
            CHECK(image != NULL);
            if (image) {
                test_compute(&s, image, visible, &count);
                if (count) {
                    test_vertex(&s, image, visible, count);
                    test_overflow(&s, image, visible, count);
                    test_staged(&s, image, visible, count);
                }
            }
            free(image);
            vks_crowd_destroy(&s.crowd);
        }
        test_fit(&s);
        crowd_gpu_close(&s);
    }
    for (int k = 0; k < MODEL_COUNT; k++)
        vks_model_destroy(&s.models[k]);
    return check_report("test_crowd_gpu");
}
