/* The renderer's memory plan (src/render/plan.h), without a device: crowds and device limits made
 * up here, every expected value worked out here from the layouts' sizes, never read back from the
 * planner.
 *
 *   chunks:     offsets are the running sum of each instance's output, 16-byte aligned; no
 *               instance straddles two chunks; no chunk exceeds the limit; a chunk closes only
 *               when the next instance would overflow it; one hand-worked layout; an instance
 *               larger than the limit fails with its message.
 *   limit:      the smallest of the three device limits and the wish, rounded down to 16.
 *   footprint:  small crowds (with and without tangents, wide models, a texture) in compute and
 *               vertex mode, and palettes on the device adding their copies.
 *   fit:        for made-up heaps, exactly k instances fit and k + 1 do not, with the message
 *               naming k: one heap shared with the host, separate device and host heaps (either
 *               one the tighter), vertex mode, palettes on the device, and the largest buffer
 *               holding a frame's palettes. */
#include "check.h"

#include <assert.h>

#include "render/plan.h"

/* The sizes the closed forms below use, as the layouts define them (shaders/vks_shared.h). */
enum {
    SKINNED = 24,                        /* vks_skinned_vertex: position + normal */
    TANGENT = 16,                        /* a skinned tangent: vec4 */
    INSTANCE = 96,                       /* vks_instance */
    BONE = 48,                           /* vks_bone: 3x4 floats */
    VISIBLE = 4,                         /* a visible-list entry */
    STREAMS = 12 + 12 + 16 + 16 + 8 + 8, /* position, normal, tangent, weights, joints, uv */
    WIDE_STREAMS = 8 + 16,               /* joints and weights 5 to 8 */
    INDEX = 4,
    FRAMES = 2,
};
static_assert(sizeof(vks_skinned_vertex) == SKINNED && sizeof(vks_instance) == INSTANCE &&
                  sizeof(vks_bone) == BONE && GPU_FRAMES_IN_FLIGHT == FRAMES,
              "the sizes the expected values are worked out with");

static float dummy4[1][4];
static uint16_t dummy_joints[1][4];
static vks_texture texture_4x3 = {.width = 4, .height = 3};

typedef struct made_model {
    uint32_t vertices, indices, joints;
    bool tangents, wide, textured;
} made_model;

/* Only what the planner reads: counts, and which optional streams exist (pointers it never
 * follows). */
static vks_model make_model(const char *name, made_model d)
{
    return (vks_model){
        .name = (char *)name,
        .vertex_count = d.vertices,
        .index_count = d.indices,
        .tangents = d.tangents ? dummy4 : NULL,
        .joints_extra = d.wide ? dummy_joints : NULL,
        .weights_extra = d.wide ? dummy4 : NULL,
        .texture_count = d.textured ? 1 : 0,
        .textures = d.textured ? &texture_4x3 : NULL,
        .skeleton = {.joint_count = d.joints},
    };
}

/* A crowd whose instance i shows models[of[i]]. */
static vks_crowd make_crowd(const vks_model *const *models, uint32_t model_count,
                            const uint32_t *of, uint32_t n)
{
    vks_crowd c = {.model_count = model_count, .instance_count = n};
    for (uint32_t m = 0; m < model_count; m++)
        c.models[m] = models[m];
    c.instances = calloc(n, sizeof *c.instances);
    for (uint32_t i = 0; i < n; i++) {
        c.instances[i].model = of[i];
        c.palette_count += models[of[i]]->skeleton.joint_count;
    }
    return c;
}

/* n instances of one model. */
static vks_crowd make_uniform(const vks_model *model, uint32_t n)
{
    uint32_t *of = calloc(n, sizeof *of);
    vks_crowd c = make_crowd(&model, 1, of, n);
    free(of);
    return c;
}

/* One instance's skinned output, by hand: vertices, padding to 16, tangents. */
static VkDeviceSize hand_output(made_model d)
{
    VkDeviceSize v = (VkDeviceSize)d.vertices * SKINNED;
    return (v + 15) / 16 * 16 + (d.tangents ? (VkDeviceSize)d.vertices * TANGENT : 0);
}

static VkDeviceSize hand_streams(made_model d)
{
    return (VkDeviceSize)d.vertices * (STREAMS + (d.wide ? WIDE_STREAMS : 0)) +
           (VkDeviceSize)d.indices * INDEX + (d.textured ? 4 * 3 * 4 * 4 / 3 : 0);
}

static const made_model A = {.vertices = 10, .indices = 30, .joints = 5}; /* 240 B */
static const made_model B = {
    .vertices = 7, .indices = 12, .joints = 3, .tangents = true, .wide = true}; /* 288 B */
static const made_model C = {.vertices = 3, .indices = 3, .joints = 2, .tangents = true}; /* 128 */

/* ---- Chunks ---- */

static void test_output_bytes(void)
{
    vks_model a = make_model("A", A), b = make_model("B", B), c = make_model("C", C);
    CHECK(vks_plan_output_bytes(&a) == 240);   /* 10 x 24, already a multiple of 16 */
    CHECK(vks_plan_tangent_offset(&b) == 176); /* 7 x 24 = 168, padded to 176 */
    CHECK(vks_plan_output_bytes(&b) == 176 + 7 * 16);
    CHECK(vks_plan_tangent_offset(&c) == 80); /* 72 -> 80 */
    CHECK(vks_plan_output_bytes(&c) == 80 + 3 * 16);
    CHECK(hand_output(A) == 240 && hand_output(B) == 288 && hand_output(C) == 128);
}

/* A, B, B, A under a 600-byte limit, worked by hand: A at 0 and B at 240 fill 528 bytes; the
 * second B would make 816, so chunk 1 starts at 528 and takes it and the last A (816 .. 1056). */
static void test_chunks_by_hand(void)
{
    vks_model a = make_model("A", A), b = make_model("B", B);
    const vks_model *models[] = {&a, &b};
    const uint32_t of[] = {0, 1, 1, 0};
    vks_crowd crowd = make_crowd(models, 2, of, 4);
    uint32_t chunk[4];
    VkDeviceSize offset[4], start[4];
    vks_plan_chunking plan = {.chunk = chunk, .offset = offset, .chunk_start = start};
    vks_error err = {{0}};
    CHECK(vks_plan_chunks(&crowd, 600, &plan, &err));
    CHECK(plan.chunk_count == 2 && plan.total == 1056);
    CHECK(start[0] == 0 && start[1] == 528);
    CHECK(offset[0] == 0 && offset[1] == 240 && offset[2] == 528 && offset[3] == 816);
    CHECK(chunk[0] == 0 && chunk[1] == 0 && chunk[2] == 1 && chunk[3] == 1);

    /* A limit of exactly one B: every B gets a chunk, and no A shares one with a B. */
    const uint32_t bs[] = {1, 1, 1, 0};
    vks_crowd three_b = make_crowd(models, 2, bs, 4);
    CHECK(vks_plan_chunks(&three_b, 288, &plan, &err));
    CHECK(plan.chunk_count == 4 && plan.total == 3 * 288 + 240);
    CHECK(start[0] == 0 && start[1] == 288 && start[2] == 576 && start[3] == 864);
    free(crowd.instances);
    free(three_b.instances);
}

/* A long mixed sequence under many limits: the invariants, against sums made here. */
static void test_chunk_invariants(void)
{
    vks_model a = make_model("A", A), b = make_model("B", B), c = make_model("C", C);
    const vks_model *models[] = {&a, &b, &c};
    const VkDeviceSize bytes[] = {hand_output(A), hand_output(B), hand_output(C)};
    enum { N = 37 };
    uint32_t of[N];
    uint32_t x = 12345;
    for (uint32_t i = 0; i < N; i++) {
        x = x * 1103515245u + 12345u;
        of[i] = (x >> 16) % 3;
    }
    vks_crowd crowd = make_crowd(models, 3, of, N);
    VkDeviceSize sum = 0, expected_offset[N];
    for (uint32_t i = 0; i < N; i++) {
        expected_offset[i] = sum;
        sum += bytes[of[i]];
    }
    uint32_t chunk[N];
    VkDeviceSize offset[N], start[N];
    int bad = 0;
    for (VkDeviceSize limit = 288; limit <= sum + 16; limit += 8) {
        vks_plan_chunking plan = {.chunk = chunk, .offset = offset, .chunk_start = start};
        vks_error err = {{0}};
        if (!vks_plan_chunks(&crowd, limit, &plan, &err)) {
            bad++;
            continue;
        }
        bad += plan.total != sum || plan.chunk_count == 0 || plan.chunk_count > N || start[0] != 0;
        for (uint32_t k = 0; k < plan.chunk_count; k++) {
            VkDeviceSize end = k + 1 < plan.chunk_count ? start[k + 1] : sum;
            bad += end <= start[k] || end - start[k] > limit; /* never over the limit */
        }
        for (uint32_t i = 0; i < N; i++) {
            uint32_t k = chunk[i];
            VkDeviceSize end = k + 1 < plan.chunk_count ? start[k + 1] : sum;
            bad += offset[i] != expected_offset[i] || offset[i] % 16 != 0;
            bad += k >= plan.chunk_count || (i > 0 && k != chunk[i - 1] && k != chunk[i - 1] + 1);
            /* inside its chunk, whole: no straddling */
            bad += offset[i] < start[k] || offset[i] + bytes[of[i]] > end;
            /* a chunk opens at an instance, and only when that instance overflows the one before */
            if (i > 0 && k != chunk[i - 1])
                bad += start[k] != offset[i] || offset[i] + bytes[of[i]] - start[k - 1] <= limit;
        }
        if (limit >= sum)
            bad += plan.chunk_count != 1;
    }
    CHECK(bad == 0);
    free(crowd.instances);
}

static void test_chunk_too_large(void)
{
    vks_model a = make_model("A", A), b = make_model("tall B", B);
    const vks_model *models[] = {&a, &b};
    const uint32_t of[] = {0, 1};
    vks_crowd crowd = make_crowd(models, 2, of, 2);
    uint32_t chunk[2];
    VkDeviceSize offset[2], start[2];
    vks_plan_chunking plan = {.chunk = chunk, .offset = offset, .chunk_start = start};
    vks_error err = {{0}};
    CHECK(!vks_plan_chunks(&crowd, 272, &plan, &err)); /* A's 240 fits, B's 288 does not */
    CHECK(strcmp(err.msg, "one instance of tall B needs 288 bytes of skinned vertices, more than "
                          "the largest buffer (272 bytes)") == 0);
    printf("  too large: %s\n", err.msg);
    free(crowd.instances);
}

/* ---- Buffer limit ---- */

static void test_buffer_limit(void)
{
    vks_plan_limits lim = {
        .max_memory_allocation = 1000000, .max_buffer = 900000, .max_storage_buffer_range = 800008};
    CHECK(vks_plan_buffer_limit(&lim, 0) == 800000); /* the storage range, rounded down to 16 */
    lim.max_buffer = 700000;
    CHECK(vks_plan_buffer_limit(&lim, 0) == 700000);
    lim.max_memory_allocation = 600001;
    CHECK(vks_plan_buffer_limit(&lim, 0) == 600000);
    CHECK(vks_plan_buffer_limit(&lim, 5000) == 4992);       /* the wish, rounded down */
    CHECK(vks_plan_buffer_limit(&lim, 10000000) == 600000); /* a larger wish changes nothing */
}

/* ---- Footprint ---- */

static void test_footprint(void)
{
    vks_model a =
        make_model("A", (made_model){.vertices = 10, .indices = 30, .joints = 5, .textured = true});
    vks_model b = make_model("B", B);
    const vks_model *models[] = {&a, &b};

    /* One model, no tangents, not wide: 10 x 72 + 30 x 4 of streams, a 4x3 texture with its
     * mips (48 x 4 / 3 = 64); per instance 240 of output and 96 of table; host: 2 frames of
     * 5 x 48 palette bytes and 4 visible-list bytes. */
    const uint32_t zeros[3] = {0};
    vks_crowd plain = make_crowd(models, 1, zeros, 3);
    vks_plan_footprint fp = vks_plan_footprint_of(&plain, VKS_SKIN_COMPUTE, false);
    CHECK(fp.device_bytes == 720 + 120 + 64 + 3 * (240 + 96));
    CHECK(fp.per_instance_device == 240 + 96);
    CHECK(fp.host_bytes == 2 * 3 * (5 * 48 + 4) && fp.per_instance_host == 2 * (5 * 48 + 4));
    fp = vks_plan_footprint_of(&plain, VKS_SKIN_VERTEX, false);
    CHECK(fp.device_bytes == 720 + 120 + 64 + 3 * 96 && fp.per_instance_device == 96);
    CHECK(fp.host_bytes == 2 * 3 * (5 * 48 + 4));

    /* Three A and two B (tangents, wide: 7 x (72 + 24) + 12 x 4 of streams; 176 + 112 of output;
     * 3 joints). */
    const uint32_t of[] = {0, 0, 0, 1, 1};
    vks_crowd mixed = make_crowd(models, 2, of, 5);
    const VkDeviceSize streams = 904 + 7 * 96 + 48, out = 3 * 240 + 2 * 288, table = 5 * 96;
    const VkDeviceSize host = 2 * ((3 * 5 + 2 * 3) * 48 + 5 * 4);
    CHECK(streams == hand_streams((made_model){.vertices = 10, .indices = 30, .textured = true}) +
                         hand_streams(B));
    fp = vks_plan_footprint_of(&mixed, VKS_SKIN_COMPUTE, false);
    CHECK(fp.device_bytes == streams + out + table);
    CHECK(fp.per_instance_device == (out + table) / 5); /* 1776 / 5 = 355 */
    CHECK(fp.host_bytes == host && fp.per_instance_host == host / 5);
    fp = vks_plan_footprint_of(&mixed, VKS_SKIN_VERTEX, false);
    CHECK(fp.device_bytes == streams + table && fp.per_instance_device == 96);
    CHECK(fp.host_bytes == host);

    /* Palettes on the device: each frame's copy of all 21 palette entries, on the device side. */
    const VkDeviceSize copies = 2 * 21 * 48;
    fp = vks_plan_footprint_of(&mixed, VKS_SKIN_COMPUTE, true);
    CHECK(fp.device_bytes == streams + out + table + copies);
    CHECK(fp.per_instance_device == (out + table) / 5 + copies / 5);
    CHECK(fp.host_bytes == host && fp.per_instance_host == host / 5);
    fp = vks_plan_footprint_of(&mixed, VKS_SKIN_VERTEX, true);
    CHECK(fp.device_bytes == streams + table + copies);
    CHECK(fp.per_instance_device == 96 + copies / 5);
    free(plain.instances);
    free(mixed.instances);
}

/* ---- Fit ---- */

static double mib(VkDeviceSize b)
{
    return (double)b / (1024.0 * 1024.0);
}

/* A crowd of k instances of `d` passes the check and one of k + 1 fails with the message built
 * here; per_device and per_host are the per-instance bytes worked out by the caller. */
static void check_fit(const char *what, const vks_plan_limits *lim, made_model d,
                      vks_skin_mode mode, bool palettes_on_device, uint32_t k,
                      VkDeviceSize per_device, VkDeviceSize per_host)
{
    vks_model model = make_model("M", d);
    vks_crowd fits = make_uniform(&model, k), over = make_uniform(&model, k + 1);
    vks_error err = {{0}};
    bool ok = vks_plan_check_memory(lim, &fits, mode, palettes_on_device, &err);
    CHECK(ok);
    if (!ok)
        fprintf(stderr, "  %s: %u instances refused: %s\n", what, k, err.msg);
    CHECK(!vks_plan_check_memory(lim, &over, mode, palettes_on_device, &err));
    const VkDeviceSize device = hand_streams(d) + (VkDeviceSize)(k + 1) * per_device;
    char expected[sizeof err.msg];
    snprintf(expected, sizeof expected,
             "a crowd of %u instances needs %.0f MiB of GPU memory and %.0f MiB for its "
             "palettes and visible lists, more than %s has (%.0f MiB device-local%s): "
             "at most %u instances fit",
             k + 1, mib(device), mib((VkDeviceSize)(k + 1) * per_host), lim->name,
             mib(lim->device_heap),
             lim->host_heap ? ", plus host memory" : ", shared with the host", k);
    bool same = strcmp(err.msg, expected) == 0;
    CHECK(same);
    if (!same)
        fprintf(stderr, "  %s:\n    got      %s\n    expected %s\n", what, err.msg, expected);
    free(fits.instances);
    free(over.instances);
}

static void test_fit(void)
{
    const made_model m = {.vertices = 10, .indices = 30, .joints = 4}; /* no tangents */
    const VkDeviceSize fixed = 10 * 72 + 30 * 4;                       /* 840 */
    const VkDeviceSize dev = 240 + 96, dev_vertex = 96;                /* output + table */
    const VkDeviceSize host = 2 * (4 * 48 + 4);                        /* 392 */
    const VkDeviceSize copies = 2 * 4 * 48;                            /* 384 */
    CHECK(fixed == hand_streams(m) && 240 == hand_output(m));
    vks_plan_limits lim = {.max_memory_allocation = 1u << 30,
                           .max_buffer = 1u << 30,
                           .max_storage_buffer_range = 1u << 30,
                           .name = "Made-up GPU"};

    /* One heap for everything: (heap - fixed) / (device + host per instance). */
    lim.device_heap = fixed + 7 * (dev + host); /* exactly 7 */
    check_fit("shared, exact", &lim, m, VKS_SKIN_COMPUTE, false, 7, dev, host);
    lim.device_heap = fixed + 8 * (dev + host) - 1; /* a byte short of 8 */
    check_fit("shared, a byte short", &lim, m, VKS_SKIN_COMPUTE, false, 7, dev, host);
    lim.device_heap = fixed + 40 * (dev_vertex + host) + 100;
    check_fit("shared, vertex mode", &lim, m, VKS_SKIN_VERTEX, false, 40, dev_vertex, host);
    lim.device_heap = fixed + 12 * (dev + copies + host) + 5;
    check_fit("shared, palettes on device", &lim, m, VKS_SKIN_COMPUTE, true, 12, dev + copies,
              host);
    lim.device_heap = fixed + 1 * (dev + host); /* one fits, two do not */
    check_fit("shared, one", &lim, m, VKS_SKIN_COMPUTE, false, 1, dev, host);

    /* Separate heaps: each holds its part; the tighter one decides. */
    lim.device_heap = fixed + 5 * dev;
    lim.host_heap = 9 * host - 1; /* 8 */
    check_fit("separate, device tighter", &lim, m, VKS_SKIN_COMPUTE, false, 5, dev, host);
    lim.device_heap = fixed + 50 * dev + 17;
    lim.host_heap = 3 * host;
    check_fit("separate, host tighter", &lim, m, VKS_SKIN_COMPUTE, false, 3, dev, host);
    lim.device_heap = fixed + 20 * dev_vertex;
    lim.host_heap = 1 << 20;
    check_fit("separate, vertex mode", &lim, m, VKS_SKIN_VERTEX, false, 20, dev_vertex, host);
    lim.device_heap = fixed + 6 * (dev + copies) + dev; /* 7 without the copies */
    check_fit("separate, palettes on device", &lim, m, VKS_SKIN_COMPUTE, true, 6, dev + copies,
              host);
    {
        /* Without the copies the same heaps take 7 (and more). */
        vks_model model = make_model("M", m);
        vks_crowd seven = make_uniform(&model, 7);
        vks_error err = {{0}};
        CHECK(vks_plan_check_memory(&lim, &seven, VKS_SKIN_COMPUTE, false, &err));
        free(seven.instances);
    }
}

/* A frame's palettes are one buffer: the largest buffer bounds the crowd first. */
static void test_fit_largest_buffer(void)
{
    const made_model m = {.vertices = 10, .indices = 30, .joints = 4}; /* 192 palette bytes */
    vks_plan_limits lim = {.max_memory_allocation = 4096 + 8,          /* 4096 after rounding */
                           .max_buffer = 1u << 30,
                           .max_storage_buffer_range = 1u << 30,
                           .device_heap = 1u << 30,
                           .name = "Made-up GPU"};
    vks_model model = make_model("M", m);
    vks_crowd fits = make_uniform(&model, 21), over = make_uniform(&model, 22),
              many = make_uniform(&model, 100);
    vks_error err = {{0}};
    CHECK(vks_plan_check_memory(&lim, &fits, VKS_SKIN_COMPUTE, false, &err));  /* 4032 bytes */
    CHECK(!vks_plan_check_memory(&lim, &over, VKS_SKIN_COMPUTE, false, &err)); /* 4224 */
    CHECK(!vks_plan_check_memory(&lim, &many, VKS_SKIN_COMPUTE, false, &err));
    char expected[sizeof err.msg];
    snprintf(expected, sizeof expected,
             "a crowd of 100 instances needs %.0f MiB of palettes per frame and a %.0f MiB "
             "instance table, one buffer each, and the largest buffer is %.0f MiB: at most 21 "
             "instances fit",
             mib(100 * 192), mib(100 * 96), mib(4096));
    CHECK(strcmp(err.msg, expected) == 0);
    printf("  largest buffer: %s\n", err.msg);
    free(fits.instances);
    free(over.instances);
    free(many.instances);
}

int main(void)
{
    test_output_bytes();
    test_chunks_by_hand();
    test_chunk_invariants();
    test_chunk_too_large();
    test_buffer_limit();
    test_footprint();
    test_fit();
    test_fit_largest_buffer();
    return check_report("render_plan");
}
