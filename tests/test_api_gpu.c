/* The public API's Vulkan side (include/vkskin/vkskin_vulkan.h) on a device the test owns, as a
 * host would: vkskin records the skinning into the test's command buffer, the test copies each
 * instance's output (vkskin_gpu_get_output) into its own readback buffer and holds it to the CPU
 * reference (skin/skin_cpu.h), at levels of detail 0 and 1, over three frames in both slots.
 * Validation is on (with synchronization validation, which sees the pass: the descriptors binding)
 * and must stay silent. Misuse returns errors.
 *   usage: test_api_gpu DEFAULT_GLB */
#include "gpu/gpu.h"

#include "api/api.h"
#include "api_check.h"
#include "skin/skin_cpu.h"
#include "test_binding.h"

#include "vkskin/vkskin_render.h"
#include "vkskin/vkskin_vulkan.h"

#include <stdlib.h>
#include <string.h>

#define INSTANCES 5u
#define POSITION_TOLERANCE 1e-4 /* times the bind-pose box's diagonal, as test_gpu_skin */
#define NORMAL_TOLERANCE 1e-4   /* octahedral, 16 bits */

static gpu_device host; /* the "host": its own instance and device, validation on */
static double worst_position, worst_normal; /* over every instance of every frame */
static uint64_t vertices_checked;

static vkskin_gpu_desc host_desc(void)
{
    return (vkskin_gpu_desc){.desc_size = sizeof(vkskin_gpu_desc),
                             .get_instance_proc_addr = host.vk.vkGetInstanceProcAddr,
                             .instance = host.instance,
                             .physical_device = host.physical,
                             .device = host.device,
                             .queue_family = host.queue_family,
                             .api_version = VK_API_VERSION_1_3,
                             .buffer_device_address = true,
                             .synchronization2 = true,
                             .maintenance4 = true,
                             .debug_utils = host.debug_utils,
                             /* what the host's synchronization validation can follow, unless
                              * the test runs the addresses binding */
                             .binding = test_binding_addresses() ? VKSKIN_BINDING_ADDRESSES
                                                                 : VKSKIN_BINDING_DESCRIPTORS};
}

/* Decodes the output's octahedral normal (the formula in vkskin_vulkan.h, written here). */
static void decode_normal(uint32_t q, float n[3])
{
    float x = fmaxf((float)(int16_t)(q & 0xFFFF) / 32767.0f, -1.0f);
    float y = fmaxf((float)(int16_t)(q >> 16) / 32767.0f, -1.0f);
    float v[3] = {x, y, 1.0f - fabsf(x) - fabsf(y)};
    float t = fmaxf(-v[2], 0.0f);
    v[0] += v[0] >= 0.0f ? -t : t;
    v[1] += v[1] >= 0.0f ? -t : t;
    float len = sqrtf(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
    for (int k = 0; k < 3; k++)
        n[k] = v[k] / len;
}

/* What the previous frame skinned, per instance, and in which slot (the motion vectors'
 * expectations: a frame in the same slot again has no previous frame beside it). */
static struct {
    bool skinned;
    uint32_t level;
    double time;
} last[4 * INSTANCES];
static uint32_t last_slot = UINT32_MAX;

/* `bytes` of `buffer` from `offset`, copied out on the host's queue into a readback buffer the
 * caller destroys (its mapping in back->mapped). False, after a CHECK, when that fails. */
static bool read_back(VkBuffer buffer, VkDeviceSize offset, VkDeviceSize bytes, gpu_buffer *back)
{
    *back = (gpu_buffer){0};
    vks_error e;
    VkCommandBuffer cmd = VK_NULL_HANDLE;
    if (!bytes ||
        !gpu_buffer_create(&host,
                           &(gpu_buffer_desc){.size = bytes,
                                              .usage = VK_BUFFER_USAGE_TRANSFER_DST_BIT,
                                              .memory = GPU_MEMORY_READBACK,
                                              .name = "test readback"},
                           back, &e) ||
        !gpu_once_begin(&host, &cmd, &e)) {
        CHECK(!"readback");
        gpu_buffer_destroy(&host, back);
        return false;
    }
    host.vk.vkCmdCopyBuffer(cmd, buffer, back->buffer, 1, &(VkBufferCopy){offset, 0, bytes});
    gpu_barrier_buffer(&host, cmd, back->buffer,
                       (gpu_access){VK_PIPELINE_STAGE_2_COPY_BIT, VK_ACCESS_2_TRANSFER_WRITE_BIT},
                       (gpu_access){VK_PIPELINE_STAGE_2_HOST_BIT, VK_ACCESS_2_HOST_READ_BIT});
    const bool ok = gpu_once_end(&host, cmd, &e);
    CHECK(ok);
    gpu_buffer_invalidate(&host, back);
    return ok;
}

/* One frame in `slot`: palettes posed into the slot's buffer, the skinning recorded with the
 * given levels, each listed instance's output copied out by the test (and, with `previous`, its
 * previous frame's output too), submitted and waited on; then every copy against the CPU
 * reference: the current one at the instance's clock, the previous one at its clock of the frame
 * before when it was skinned then at the same level, else at the current clock (zero motion). */
static void frame(vkskin_gpu *gpu, vkskin_crowd *crowd, const vks_model *m, uint32_t slot,
                  const uint32_t *list, const uint8_t *levels, uint32_t count, double diag,
                  bool previous)
{
    vkskin_error err;
    CHECK(vkskin_crowd_pose(crowd, list, count, vkskin_gpu_palettes(gpu, slot),
                            vkskin_crowd_palette_count(crowd), &err) == VKSKIN_OK);
    VkCommandBuffer cmd;
    vks_error begun;
    if (!gpu_once_begin(&host, &cmd, &begun)) {
        CHECK(!"a command buffer");
        return;
    }
    CHECK(vkskin_gpu_skin(gpu, slot, cmd, list, count, levels, &err) == VKSKIN_OK);
    const uint32_t entries = previous ? 2 * count : count;
    vkskin_gpu_output out[8 * INSTANCES]; /* (lists of up to 4 INSTANCES) */
    double when[8 * INSTANCES];
    VkDeviceSize at[8 * INSTANCES], total = 0;
    for (uint32_t e = 0; e < entries; e++) {
        const uint32_t k = e % count, i = list[k];
        vkskin_instance_info in;
        vkskin_crowd_get_instance(crowd, i, &in, NULL);
        const uint32_t level = levels ? levels[k] : 0u;
        when[e] = in.time;
        if (e < count) {
            CHECK(vkskin_gpu_get_output(gpu, slot, i, &out[e], &err) == VKSKIN_OK);
        } else {
            CHECK(vkskin_gpu_get_previous_output(gpu, slot, i, &out[e], &err) == VKSKIN_OK);
            const bool moved = last_slot != slot && last[i].skinned && last[i].level == level;
            if (moved)
                when[e] = last[i].time;
            /* Zero motion: the very same vertices. */
            CHECK(moved == (out[e].buffer != out[k].buffer || out[e].offset != out[k].offset));
        }
        CHECK(out[e].level == level && out[e].address != 0);
        at[e] = total;
        total += (VkDeviceSize)out[e].vertex_count * VKSKIN_SKINNED_STRIDE;
    }
    gpu_buffer readback = {0};
    vks_error e;
    CHECK(gpu_buffer_create(&host,
                            &(gpu_buffer_desc){.size = total,
                                               .usage = VK_BUFFER_USAGE_TRANSFER_DST_BIT,
                                               .memory = GPU_MEMORY_READBACK,
                                               .name = "test readback"},
                            &readback, &e));
    /* vkskin's barrier after the dispatch covers copies: nothing more before these. */
    for (uint32_t k = 0; k < entries && readback.buffer; k++)
        host.vk.vkCmdCopyBuffer(
            cmd, out[k].buffer, readback.buffer, 1,
            &(VkBufferCopy){out[k].offset, at[k],
                            (VkDeviceSize)out[k].vertex_count * VKSKIN_SKINNED_STRIDE});
    gpu_barrier_buffer(&host, cmd, readback.buffer,
                       (gpu_access){VK_PIPELINE_STAGE_2_COPY_BIT, VK_ACCESS_2_TRANSFER_WRITE_BIT},
                       (gpu_access){VK_PIPELINE_STAGE_2_HOST_BIT, VK_ACCESS_2_HOST_READ_BIT});
    CHECK(gpu_once_end(&host, cmd, &e));
    gpu_buffer_invalidate(&host, &readback);
    for (uint32_t k = 0; k < entries && readback.mapped; k++) {
        vkskin_instance_info in;
        vkskin_crowd_get_instance(crowd, list[k % count], &in, NULL);
        /* Each instance's own model (a crowd of one model: `m`), and its diagonal. */
        m = crowd->crowd.models[in.model];
        float lo[3], hi[3];
        check_box((const float(*)[3])m->positions, m->vertex_count, lo, hi);
        diag = check_box_diagonal(lo, hi);
        const uint32_t n = out[k].vertex_count;
        CHECK(n == vks_model_level(m, out[k].level).vertex_count);
        float(*pos)[3] = malloc(sizeof *pos * m->vertex_count);
        float(*nrm)[3] = malloc(sizeof *nrm * m->vertex_count);
        if (!pos || !nrm ||
            !vks_skin_cpu_pose_level_as(m, out[k].level, in.clip, when[k],
                                        crowd->crowd.dq[in.model], pos, nrm, NULL)) {
            CHECK(!"CPU reference");
            free(pos);
            free(nrm);
            continue;
        }
        const unsigned char *base = (const unsigned char *)readback.mapped + at[k];
        double dp = 0.0, dn = 0.0;
        for (uint32_t v = 0; v < n; v++) {
            float p[3], nn[3];
            uint32_t q;
            memcpy(p, base + (size_t)v * VKSKIN_SKINNED_STRIDE, sizeof p);
            memcpy(&q, base + (size_t)v * VKSKIN_SKINNED_STRIDE + 12, sizeof q);
            decode_normal(q, nn);
            /* check_max_diff: a NaN is an infinite difference, not one fmax drops. */
            dp = fmax(dp, check_max_diff(p, 3, pos[v], 3, 1, 3));
            dn = fmax(dn, check_max_diff(nn, 3, nrm[v], 3, 1, 3));
        }
        CHECK(dp <= POSITION_TOLERANCE * diag && dn <= NORMAL_TOLERANCE);
        worst_position = fmax(worst_position, dp / diag);
        worst_normal = fmax(worst_normal, dn);
        vertices_checked += n;
        if (!(dp <= POSITION_TOLERANCE * diag && dn <= NORMAL_TOLERANCE))
            fprintf(stderr, "  slot %u instance %u level %u%s: positions %.3g, normals %.3g\n",
                    slot, list[k % count], out[k].level, k >= count ? " (previous)" : "", dp, dn);
        free(pos);
        free(nrm);
    }
    gpu_buffer_destroy(&host, &readback);
    memset(last, 0, sizeof last);
    last_slot = slot;
    for (uint32_t k = 0; k < count; k++) {
        vkskin_instance_info in;
        vkskin_crowd_get_instance(crowd, list[k], &in, NULL);
        last[list[k]].skinned = true;
        last[list[k]].level = levels ? levels[k] : 0u;
        last[list[k]].time = in.time;
    }
}

/* A crowd that changes under a vkskin_gpu made with room for 5: instances added and removed, one
 * given the other model and back (more joints: its palette range moves), an index reused, each
 * output against the CPU reference of its own model; then the crowd grown to 20: each slot made
 * again when the host takes it, not before, the outputs right in both. */
static void check_capacity(const vkskin_model *a, const vkskin_model *b)
{
    const vkskin_model *models[] = {a, b};
    vkskin_crowd *crowd = NULL;
    vkskin_gpu *gpu = NULL;
    vkskin_error err;
    CHECK(vkskin_crowd_create(&(vkskin_crowd_desc){.desc_size = sizeof(vkskin_crowd_desc),
                                                   .models = models,
                                                   .model_count = 2,
                                                   .instance_count = 2,
                                                   .clip = VKSKIN_CLIP_VARIED,
                                                   .time = 0.3},
                              &crowd, &err) == VKSKIN_OK);
    if (!crowd)
        return;
    const uint32_t most_joints = a->model.skeleton.joint_count > b->model.skeleton.joint_count
                                     ? a->model.skeleton.joint_count
                                     : b->model.skeleton.joint_count;
    vkskin_palette_store *store = NULL; /* made for the crowd of 2: lists for 2 */
    CHECK(vkskin_palette_store_create(crowd, 1000, &store, &err) == VKSKIN_OK);
    vkskin_gpu_desc d = host_desc();
    d.instance_capacity = INSTANCES;
    /* The skinned output is a budget made once (shared by the slots in flight): room for all. */
    const uint32_t most_vertices = a->model.vertex_count > b->model.vertex_count
                                       ? a->model.vertex_count
                                       : b->model.vertex_count;
    d.max_skinned_vertices = 4 * INSTANCES * (most_vertices + 1);
    d.previous_positions = true; /* motion across a model change: none */
    d.palette_capacity = 2 * INSTANCES * most_joints;
    CHECK(vkskin_gpu_create(&d, crowd, &gpu, &err) == VKSKIN_OK);
    if (!gpu) {
        vkskin_palette_store_destroy(store);
        vkskin_crowd_destroy(crowd);
        return;
    }
    const double diag = 0.0; /* frame() takes each instance's model's own */
    memset(last, 0, sizeof last);
    last_slot = UINT32_MAX;
    const uint32_t both[] = {0, 1};
    frame(gpu, crowd, &a->model, 0, both, NULL, 2, diag, false);
    vkskin_instance_info first;
    CHECK(vkskin_crowd_get_instance(crowd, 0, &first, &err) == VKSKIN_OK);
    uint32_t at = 0;
    for (uint32_t k = 0; k < 3; k++) {
        float w[16];
        memcpy(w, first.world, sizeof w);
        w[12] += (float)(k + 1);
        CHECK(vkskin_crowd_add(crowd, (k + 1) % 2, w, &at, &err) == VKSKIN_OK && at == 2 + k);
        if (k == 1)
            CHECK(vkskin_crowd_play(crowd, at, 0, 0.0, &err) == VKSKIN_OK);
    }
    const uint32_t model0 = first.model;
    CHECK(vkskin_crowd_set_model(crowd, 0, 1 - model0, &err) == VKSKIN_OK);
    CHECK(vkskin_crowd_play(crowd, 0, 0, 0.0, &err) == VKSKIN_OK);
    CHECK(vkskin_crowd_remove(crowd, 1, &err) == VKSKIN_OK);
    vkskin_crowd_advance(crowd, 0.2, NULL);
    const uint32_t live[] = {0, 2, 3, 4};
    frame(gpu, crowd, &a->model, 1, live, NULL, 4, diag, false);
    vkskin_crowd_advance(crowd, 0.2, NULL);
    CHECK(vkskin_crowd_set_model(crowd, 0, model0, &err) == VKSKIN_OK); /* and back */
    /* Slot 1's output of instance 0 is still the other model's vertices, and says so; its frame
     * before (slot 0) skinned the first model: no motion across the change, its current
     * vertices. */
    vkskin_gpu_output out, before;
    const vks_model *other = crowd->crowd.models[1 - model0];
    CHECK(vkskin_gpu_get_output(gpu, 1, 0, &out, &err) == VKSKIN_OK &&
          out.vertex_count == vks_model_level(other, out.level).vertex_count);
    CHECK(vkskin_gpu_get_previous_output(gpu, 1, 0, &before, &err) == VKSKIN_OK &&
          before.buffer == out.buffer && before.offset == out.offset &&
          before.vertex_count == out.vertex_count);
    /* A removed index in a list, and a palette store's block of an index it has no room for. */
    VkCommandBuffer cmd = VK_NULL_HANDLE;
    vks_error e;
    const uint32_t with_removed[] = {0, 1};
    CHECK(gpu_once_begin(&host, &cmd, &e));
    check_error(vkskin_gpu_skin(gpu, 0, cmd, with_removed, 2, NULL, &err), &err,
                VKSKIN_ERROR_ARGUMENT, "entry 1 is instance 1, which was removed");
    CHECK(gpu_once_end(&host, cmd, &e));
    CHECK(vkskin_palette_store_first(store, 4) == VKSKIN_NO_ENTRY);
    frame(gpu, crowd, &a->model, 0, live, NULL, 4, diag, false);
    /* The removed index reused: INSTANCES indices, the room given; then past it, to 4 times
     * as many: slot 0, taken next, is made again larger; slot 1 still holds what it held (its
     * frame's outputs, none of the new indices) until it is taken in turn. */
    CHECK(vkskin_crowd_add(crowd, 0, first.world, &at, &err) == VKSKIN_OK && at == 1);
    const uint32_t all[] = {0, 1, 2, 3, 4};
    frame(gpu, crowd, &a->model, 1, all, NULL, 5, diag, false);
    uint32_t many[4 * INSTANCES];
    for (uint32_t i = 0; i < 4 * INSTANCES; i++) {
        many[i] = i;
        if (i >= INSTANCES) {
            float w[16];
            memcpy(w, first.world, sizeof w);
            w[14] += (float)i;
            CHECK(vkskin_crowd_add(crowd, i % 2, w, &at, &err) == VKSKIN_OK && at == i);
        }
    }
    CHECK(vkskin_gpu_palettes(gpu, 0) != NULL);
    frame(gpu, crowd, &a->model, 0, many, NULL, 4 * INSTANCES, diag, false);
    check_error(vkskin_gpu_get_output(gpu, 1, 4 * INSTANCES - 1, &out, &err), &err,
                VKSKIN_ERROR_ARGUMENT, "was not skinned in slot 1");
    CHECK(vkskin_gpu_get_output(gpu, 1, 4, &out, &err) == VKSKIN_OK); /* slot 1's last frame */
    vkskin_crowd_advance(crowd, 0.1, NULL);
    frame(gpu, crowd, &a->model, 1, many, NULL, 4 * INSTANCES, diag, false);
    CHECK(vkskin_gpu_get_output(gpu, 1, 4 * INSTANCES - 1, &out, &err) == VKSKIN_OK);
    printf("changes: a crowd of 2 grown to %u under a vkskin_gpu with room for %u, one model "
           "swapped twice, an index reused: every output right; each slot made again larger "
           "when taken\n",
           4 * INSTANCES, INSTANCES);
    vkskin_gpu_destroy(gpu);
    vkskin_palette_store_destroy(store);
    vkskin_crowd_destroy(crowd);
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: test_api_gpu DEFAULT_GLB OTHER_GLB\n");
        return 2;
    }
    vks_error e;
    if (!gpu_device_create(&(gpu_device_desc){.device_index = -1, .validate = true}, &host, &e)) {
        fprintf(stderr, "test_api_gpu: %s\n", e.msg);
        return 1;
    }
    printf("device: %s, %s\n", host.props.deviceName, test_binding_name());
    vkskin_error err;
    vkskin_model *model = NULL;
    vkskin_crowd *crowd = NULL;
    vkskin_gpu *gpu = NULL;
    CHECK(vkskin_model_load(
              &(vkskin_model_desc){.desc_size = sizeof(vkskin_model_desc), .path = argv[1]}, &model,
              &err) == VKSKIN_OK);
    const vkskin_model *models[] = {model};
    if (model)
        CHECK(vkskin_crowd_create(&(vkskin_crowd_desc){.desc_size = sizeof(vkskin_crowd_desc),
                                                       .models = models,
                                                       .model_count = 1,
                                                       .instance_count = INSTANCES,
                                                       .clip = VKSKIN_CLIP_VARIED,
                                                       .time = 0.4},
                                  &crowd, &err) == VKSKIN_OK);
    if (crowd) {
        /* What the host did not enable, and a host of Vulkan 1.2: refused with what is missing. */
        vkskin_gpu_desc d = host_desc();
        d.synchronization2 = false;
        check_error(vkskin_gpu_create(&d, crowd, &gpu, &err), &err, VKSKIN_ERROR_ARGUMENT,
                    "lacks synchronization2");
        d = host_desc();
        d.api_version = VK_API_VERSION_1_2;
        check_error(vkskin_gpu_create(&d, crowd, &gpu, &err), &err, VKSKIN_ERROR_ARGUMENT,
                    "asks for 1.2");
        d = host_desc();
        d.binding = (vkskin_binding)3;
        check_error(vkskin_gpu_create(&d, crowd, &gpu, &err), &err, VKSKIN_ERROR_ARGUMENT,
                    "no binding 3");
        d = host_desc();
        d.queue_family = 99;
        check_error(vkskin_gpu_create(&d, crowd, &gpu, &err), &err, VKSKIN_ERROR_ARGUMENT,
                    "not a compute queue");
        check_error(vkskin_gpu_create(NULL, crowd, &gpu, &err), &err, VKSKIN_ERROR_ARGUMENT,
                    "desc, crowd and gpu");
        /* More skinned output than the device has: refused with the sizes, not an abort. The
         * most a desc can ask for is 2^32 vertices of 16 bytes, twice (previous_positions):
         * 128 GiB, which a device with a larger heap holds (an H200's 139 GiB). */
        VkDeviceSize largest_heap = 0;
        for (uint32_t h = 0; h < host.memory.memoryHeapCount; h++)
            if (host.memory.memoryHeaps[h].flags & VK_MEMORY_HEAP_DEVICE_LOCAL_BIT &&
                host.memory.memoryHeaps[h].size > largest_heap)
                largest_heap = host.memory.memoryHeaps[h].size;
        const VkDeviceSize most = 2 * (VkDeviceSize)UINT32_MAX * VKSKIN_SKINNED_STRIDE;
        d = host_desc();
        d.max_skinned_vertices = UINT32_MAX;
        d.previous_positions = true;
        if (largest_heap < most) {
            CHECK(vkskin_gpu_create(&d, crowd, &gpu, &err) == VKSKIN_ERROR_OUT_OF_MEMORY);
            CHECK(strstr(err.message, "skinned vertices") && strstr(err.message, "more than"));
            if (!strstr(err.message, "more than"))
                fprintf(stderr, "  got '%s'\n", err.message);
            CHECK(gpu == NULL);
            vkskin_gpu_destroy(gpu);
            gpu = NULL;
        } else {
            printf("not checked: the device's %.0f GiB heap holds the most skinned output a "
                   "desc can ask for\n",
                   (double)largest_heap / (1 << 30));
        }
        d = host_desc();
        CHECK(vkskin_gpu_create(&d, crowd, &gpu, &err) == VKSKIN_OK);
        if (!gpu)
            fprintf(stderr, "%s\n", err.message);
    }
    if (gpu) {
        const vks_model *m = &model->model;
        float lo[3], hi[3];
        check_box((const float(*)[3])m->positions, m->vertex_count, lo, hi);
        const double diag = check_box_diagonal(lo, hi);
        CHECK(vks_model_level_count(m) >= 2);
        /* Frame 1 in slot 0: four of five instances, one at level 1; frame 2 in slot 1 a
         * second later: all five, two at level 1. */
        const uint32_t list1[] = {0, 2, 3, 4}, list2[] = {0, 1, 2, 3, 4};
        const uint8_t levels1[] = {0, 1, 0, 0}, levels2[] = {1, 0, 0, 1, 0};
        frame(gpu, crowd, m, 0, list1, levels1, 4, diag, false);
        vkskin_gpu_output out;
        check_error(vkskin_gpu_get_output(gpu, 0, 1, &out, &err), &err, VKSKIN_ERROR_ARGUMENT,
                    "instance 1 was not skinned in slot 0");
        vkskin_crowd_advance(crowd, 1.0, NULL);
        frame(gpu, crowd, m, 1, list2, levels2, 5, diag, false);
        frame(gpu, crowd, m, 0, list2, NULL, 5, diag, false); /* slot 0 again: all at level 0 */
        check_error(vkskin_gpu_get_previous_output(gpu, 0, 0, &out, &err), &err,
                    VKSKIN_ERROR_ARGUMENT, "without previous_positions");

        /* The same crowd dual-quaternion skinned, under a vkskin_gpu of its own: the host
         * writes vkskin_dq palettes (vkskin_crowd_pose), vkskin's pass blends them. */
        vkskin_crowd *dq_crowd = NULL;
        vkskin_gpu *dq_gpu = NULL;
        const vkskin_gpu_desc dq_desc = host_desc();
        CHECK(vkskin_crowd_create(&(vkskin_crowd_desc){.desc_size = sizeof(vkskin_crowd_desc),
                                                       .models = models,
                                                       .model_count = 1,
                                                       .instance_count = INSTANCES,
                                                       .clip = VKSKIN_CLIP_VARIED,
                                                       .time = 0.7,
                                                       .skinning = VKSKIN_SKINNING_DUAL_QUATERNION},
                                  &dq_crowd, &err) == VKSKIN_OK &&
              vkskin_gpu_create(&dq_desc, dq_crowd, &dq_gpu, &err) == VKSKIN_OK);
        if (dq_gpu) {
            /* (slot 0 last, as the frames above: what the previous-output checks below expect
             * of the frame before theirs) */
            frame(dq_gpu, dq_crowd, m, 1, list2, levels2, 5, diag, false);
            frame(dq_gpu, dq_crowd, m, 0, list1, levels1, 4, diag, false);
        }
        vkskin_gpu_destroy(dq_gpu);
        vkskin_crowd_destroy(dq_crowd);

        /* Meshes: each level's index range, copied out of vkskin's index buffer by the test,
         * holds the model's own indices of that mesh at that level. */
        vkskin_gpu_mesh mesh;
        uint32_t index_mismatches = 0, ranges = 0;
        for (uint32_t l = 0; l < vks_model_level_count(m); l++)
            for (uint32_t i = 0; i < m->mesh_count; i++) {
                CHECK(vkskin_gpu_get_mesh(gpu, 0, l, i, &mesh, &err) == VKSKIN_OK);
                const vks_mesh_level ml = vks_model_mesh_level(m, l, i);
                CHECK(mesh.index_buffer != VK_NULL_HANDLE && mesh.index_count == ml.index_count);
                CHECK(mesh.vertex_offset == (int32_t)ml.base_vertex);
                if (!mesh.index_count)
                    continue;
                const VkDeviceSize bytes = sizeof(uint32_t) * mesh.index_count;
                gpu_buffer back;
                if (!read_back(mesh.index_buffer, sizeof(uint32_t) * mesh.first_index, bytes,
                               &back))
                    continue;
                const uint32_t *want = (l ? m->lod_indices : m->indices) + ml.first_index;
                index_mismatches += memcmp(back.mapped, want, bytes) != 0;
                ranges++;
                gpu_buffer_destroy(&host, &back);
            }
        CHECK(index_mismatches == 0 && ranges >= 2);
        check_error(vkskin_gpu_get_mesh(gpu, 0, 9, 0, &mesh, &err), &err, VKSKIN_ERROR_ARGUMENT,
                    "no level 9 mesh 0");
        check_error(vkskin_gpu_get_mesh(gpu, 1, 0, 0, &mesh, &err), &err, VKSKIN_ERROR_ARGUMENT,
                    "a model of its crowd");

        /* UVs: each level's range, copied out by the test, holds vertex for vertex the UVs of
         * the level-0 vertices the level's vertices copy (the model's lod_source). */
        uint32_t uv_mismatches = 0;
        for (uint32_t l = 0; l < vks_model_level_count(m); l++) {
            vkskin_gpu_uvs uvs;
            CHECK(vkskin_gpu_get_uvs(gpu, 0, l, &uvs, &err) == VKSKIN_OK);
            const vks_level lv = vks_model_level(m, l);
            CHECK(uvs.vertex_count == lv.vertex_count && uvs.buffer != VK_NULL_HANDLE);
            gpu_buffer back;
            if (!read_back(uvs.buffer, uvs.offset, sizeof(float[2]) * uvs.vertex_count, &back))
                continue;
            const float(*got)[2] = back.mapped;
            for (uint32_t v = 0; v < uvs.vertex_count; v++) {
                const uint32_t source = l ? m->lod_source[lv.vertex_first + v] : v;
                uv_mismatches += memcmp(got[v], m->uvs[source], sizeof got[v]) != 0;
            }
            gpu_buffer_destroy(&host, &back);
        }
        CHECK(uv_mismatches == 0);
        check_error(vkskin_gpu_get_uvs(gpu, 0, 9, &(vkskin_gpu_uvs){0}, &err), &err,
                    VKSKIN_ERROR_ARGUMENT, "no level 9");

        /* A second vkskin_gpu beside this one (no process-wide state: each has its own
         * function table), and listing devices meanwhile. */
        vkskin_gpu *other = NULL;
        const vkskin_gpu_desc od = host_desc();
        CHECK(vkskin_gpu_create(&od, crowd, &other, &err) == VKSKIN_OK && other);
        uint32_t listed = 0;
        CHECK(vkskin_list_devices(NULL, 0, &listed, &err) == VKSKIN_OK && listed >= 1);
        vkskin_gpu_destroy(other);

        /* Misuse of the frame calls. */
        VkCommandBuffer cmd = VK_NULL_HANDLE;
        CHECK(gpu_once_begin(&host, &cmd, &e));
        const uint32_t unsorted[] = {3, 1};
        check_error(vkskin_gpu_skin(gpu, 0, cmd, unsorted, 2, NULL, &err), &err,
                    VKSKIN_ERROR_ARGUMENT, "must ascend below 5; entry 1 is 1");
        check_error(vkskin_gpu_skin(gpu, 2, cmd, list1, 4, NULL, &err), &err, VKSKIN_ERROR_ARGUMENT,
                    "no slot 2");
        check_error(vkskin_gpu_skin(gpu, 0, VK_NULL_HANDLE, list1, 4, NULL, &err), &err,
                    VKSKIN_ERROR_ARGUMENT, "a command buffer");
        CHECK(gpu_once_end(&host, cmd, &e));
        CHECK(vkskin_gpu_palettes(gpu, 2) == NULL && vkskin_gpu_palettes(NULL, 0) == NULL);
    }
    vkskin_gpu_destroy(gpu);
    vkskin_gpu_destroy(NULL);

    /* Motion vectors: a second vkskin_gpu keeping the previous frame's vertices. Frame by frame,
     * an instance skinned the frame before at the same level gets those vertices (checked
     * against the CPU at its earlier clock); one that was not, that changed level, or whose
     * previous frame is not in the other slot (a slot used twice in a row) gets its current
     * ones. */
    gpu = NULL;
    vkskin_gpu_desc pd = host_desc();
    pd.previous_positions = true;
    if (crowd)
        CHECK(vkskin_gpu_create(&pd, crowd, &gpu, &err) == VKSKIN_OK);
    if (gpu) {
        const vks_model *m = &model->model;
        float lo[3], hi[3];
        check_box((const float(*)[3])m->positions, m->vertex_count, lo, hi);
        const double diag = check_box_diagonal(lo, hi);
        memset(last, 0, sizeof last);
        last_slot = UINT32_MAX;
        const uint32_t four[] = {0, 2, 3, 4}, five[] = {0, 1, 2, 3, 4};
        const uint8_t la[] = {0, 1, 0, 0}, lb[] = {1, 0, 0, 0, 0};
        frame(gpu, crowd, m, 0, four, la, 4, diag, true); /* no frame before: all still */
        vkskin_crowd_advance(crowd, 0.05, NULL);
        frame(gpu, crowd, m, 1, five, lb, 5, diag, true); /* 3 and 4 moved */
        vkskin_crowd_advance(crowd, 0.05, NULL);
        frame(gpu, crowd, m, 0, five, NULL, 5, diag, true); /* 1, 2, 3, 4 moved */
        vkskin_crowd_advance(crowd, 0.05, NULL);
        frame(gpu, crowd, m, 0, five, NULL, 5, diag, true); /* slot 0 twice: all still */
    }
    vkskin_gpu_destroy(gpu);

    /* The output's readers, given by the host: its copies named (COPY, TRANSFER_READ), the
     * frame's copies are covered and the values right; a compute reader named instead, the same
     * copies race the skinning's writes, and synchronization validation (the descriptors binding,
     * which it follows) says so. Giving one of the two alone is refused. */
    gpu = NULL;
    vkskin_gpu_desc rd = host_desc();
    rd.output_stages = VK_PIPELINE_STAGE_2_COPY_BIT;
    check_error(vkskin_gpu_create(&rd, crowd, &gpu, &err), &err, VKSKIN_ERROR_ARGUMENT,
                "output_stages and output_access go together");
    rd.output_access = VK_ACCESS_2_TRANSFER_READ_BIT;
    if (crowd)
        CHECK(vkskin_gpu_create(&rd, crowd, &gpu, &err) == VKSKIN_OK);
    if (gpu) {
        const vks_model *m = &model->model;
        float lo[3], hi[3];
        check_box((const float(*)[3])m->positions, m->vertex_count, lo, hi);
        const uint32_t five[] = {0, 1, 2, 3, 4};
        const gpu_messages before = *host.messages;
        frame(gpu, crowd, m, 0, five, NULL, 5, check_box_diagonal(lo, hi), false);
        CHECK(host.messages->sync_hazards == before.sync_hazards);
        vkskin_gpu_destroy(gpu);
        gpu = NULL;
        if (!test_binding_addresses()) {
            rd.output_stages = VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT;
            rd.output_access = VK_ACCESS_2_SHADER_STORAGE_READ_BIT;
            CHECK(vkskin_gpu_create(&rd, crowd, &gpu, &err) == VKSKIN_OK);
            frame(gpu, crowd, m, 1, five, NULL, 5, check_box_diagonal(lo, hi), false);
            const uint32_t hazards = host.messages->sync_hazards - before.sync_hazards;
            CHECK(hazards > 0);
            printf("a compute reader named, the copies after the pass: %u hazards reported\n",
                   hazards);
            *host.messages = before; /* those were expected: the rest of the run must be clean */
            vkskin_gpu_destroy(gpu);
        }
    }
    vkskin_crowd_destroy(crowd);
    vkskin_model *chain_model = NULL;
    CHECK(vkskin_model_load(
              &(vkskin_model_desc){.desc_size = sizeof(vkskin_model_desc), .path = argv[2]},
              &chain_model, &err) == VKSKIN_OK);
    if (model && chain_model)
        check_capacity(model, chain_model);
    vkskin_model_destroy(chain_model);
    vkskin_model_destroy(model);
    gpu_messages msgs = gpu_device_destroy(&host);
    CHECK(msgs.error == 0 && msgs.warning == 0);
    printf("%llu skinned vertices against the CPU: positions within %.2g of the diagonal, normals "
           "%.2g; validation: %u errors, %u warnings\n",
           (unsigned long long)vertices_checked, worst_position, worst_normal, msgs.error,
           msgs.warning);
    CHECK(vertices_checked > 0);
    return check_report("test_api_gpu");
}
