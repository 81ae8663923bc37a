/* vkskin bench: a crowd rendered headless for F frames, and the medians of what each stage cost:
 * CPU animation (culling + palettes on every thread), GPU skinning and drawing (timestamps), the
 * whole frame (wall clock), skinned vertices per second, and the skinning pass's bandwidth beside
 * a plain copy kernel's over the bytes that reach memory (the roofline). */
#include "commands.h"
#include "bench_anim.h"
#include "gpu_app.h"
#include "target/offscreen.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Frames before measuring by default (--warmup): pipelines, caches and clocks settle. */
#define WARMUP_FRAMES 3u
/* Copy-kernel runs timed for the roofline. */
#define COPY_RUNS 9u

typedef struct bench_args {
    const char *path, *size, *frames_text, *warmup_text, *group_size_text, *threads_text, *clip;
    bool json, anim_only, phases;
    app_gpu_options gpu;
    app_crowd_args crowd;
    uint32_t width, height, frames, warmup, group_size;
} bench_args;

typedef struct bench_result {
    uint32_t samples, gpu_samples, visible, threads; /* frames measured on the CPU, the GPU */
    uint32_t skinned; /* visible instances the compute pass skinned (the rest: past the budget) */
    uint64_t overflow_vertices, budget_vertices;
    uint64_t
        triangles; /* the GPU drew in the last frame (pipeline statistics; UINT64_MAX: unknown) */
    uint32_t level_instances[VKS_MAX_LEVELS]; /* visible instances per level, last frame */
    uint32_t posed;    /* instances the last frame posed (--anim-lod: the rest kept their pose) */
    uint64_t vertices; /* skinned per frame by the pass (vertex mode: every visible) */
    uint64_t visible_vertices; /* of the visible instances */
    uint64_t joints;           /* animated per frame: the visible instances' */
    double anim_ms, skin_ms, draw_ms, frame_ms;
    double skin_bytes;   /* read + written by the skinning pass per frame, each access counted */
    double stream_bytes; /* of which the per-vertex streams (bind streams read, output written) */
    double memory_bytes; /* what reaches memory per frame: see bench_traffic */
    double copy_bytes, copy_ms;
} bench_result;

/* Bind-stream bytes the skinning pass reads for one vertex of `m`, each stream once, from the
 * compact layout (shaders/vks_shared.h): position, normal, joints (8 or 16 bits each) and
 * weights; the tangent when the model has them; influences 5 to 8 when it is wide. */
static double bind_bytes_per_vertex(const vks_model *m)
{
    const double joints = m->skeleton.joint_count > VKS_JOINTS8_MAX ? VKS_BIND_JOINTS16_BYTES
                                                                    : VKS_BIND_JOINTS8_BYTES;
    return VKS_BIND_POSITION_BYTES + VKS_BIND_NORMAL_BYTES + joints + VKS_BIND_WEIGHTS_BYTES +
           (m->tangents ? VKS_BIND_TANGENT_BYTES : 0) +
           (m->joints_extra ? joints + VKS_BIND_WEIGHTS_BYTES : 0);
}

/* Output bytes the skinning pass writes for one vertex of `m`: the 16-byte skinned vertex, and
 * the tangent's word when the model has them. */
static double out_bytes_per_vertex(const vks_model *m)
{
    return VKS_SKINNED_STRIDE + (m->tangents ? VKS_TANGENT_STRIDE : 0);
}

/* The skinning pass's traffic for the instances in `list` (all of the crowd's when NULL):
 *   logical: every instance's streams read and output written (as if each instance's bind streams
 *            came from memory), its palette read once (the workgroups of an instance share it
 *            through the cache), its table entry and visible-list slot;
 *   streams: the per-vertex part of that, bind streams + output (bytes_per_vertex's numerator);
 *   memory:  each distinct model's bind streams once (its instances read the same addresses,
 *            which the cache keeps: the H100's 50 MB L2 holds a model's many times over), plus
 *            per instance its output, palette and table entry, plus the visible list. */
typedef struct bench_traffic {
    double logical, streams, memory;
} bench_traffic;

static bench_traffic traffic_of(const vks_crowd *c, const uint32_t *list, const uint8_t *levels,
                                uint32_t count)
{
    bench_traffic t = {0};
    bool seen[VKS_CROWD_MAX_MODELS][VKS_MAX_LEVELS] = {{false}};
    for (uint32_t k = 0; k < count; k++) {
        const uint32_t model = c->instances[list ? list[k] : k].model,
                       level = levels ? levels[k] : 0;
        const vks_model *m = c->models[model];
        const double n = vks_model_level(m, level).vertex_count;
        const double bind = bind_bytes_per_vertex(m) * n;
        const double out = out_bytes_per_vertex(m) * n;
        const double own =
            sizeof(vks_bone) * m->skeleton.joint_count + sizeof(vks_instance) + sizeof(vks_visible);
        t.streams += bind + out;
        t.logical += bind + out + own;
        t.memory += out + own + (seen[model][level] ? 0.0 : bind);
        seen[model][level] = true;
    }
    return t;
}

/* Times the copy kernel over `bytes` (read + written), median of COPY_RUNS. Each buffer is
 * capped at 1 GiB and a quarter of the device's largest heap: far past every cache, which is
 * what matters for a bandwidth figure. */
static bool measure_copy(const gpu_device *dev, VkDeviceSize bytes, bench_result *res,
                         vks_error *err)
{
    VkDeviceSize half = bytes / 2, limit = (VkDeviceSize)1 << 30, heap = 0;
    for (uint32_t h = 0; h < dev->memory.memoryHeapCount; h++)
        if (dev->memory.memoryHeaps[h].size > heap)
            heap = dev->memory.memoryHeaps[h].size;
    if (heap / 4 < limit)
        limit = heap / 4;
    half = (half < limit ? half : limit) & ~(VkDeviceSize)15;
    if (half < 16 || !dev->timestamps)
        return true;
    vks_copy_pass pass;
    gpu_buffer src = {0}, dst = {0};
    const VkBufferUsageFlags usage =
        VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_SHADER_DEVICE_ADDRESS_BIT;
    if (!vks_copy_pass_create(dev, &pass, err))
        return false;
    bool ok =
        gpu_buffer_create(dev,
                          &(gpu_buffer_desc){.size = half,
                                             .usage = usage | VK_BUFFER_USAGE_TRANSFER_DST_BIT,
                                             .name = "copy src"},
                          &src, err) &&
        gpu_buffer_create(dev, &(gpu_buffer_desc){.size = half, .usage = usage, .name = "copy dst"},
                          &dst, err);
    VkQueryPool queries = VK_NULL_HANDLE;
    if (ok) {
        VkQueryPoolCreateInfo qi = {VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO};
        qi.queryType = VK_QUERY_TYPE_TIMESTAMP;
        qi.queryCount = 2;
        GPU_CHECK(vkCreateQueryPool(dev->device, &qi, NULL, &queries));
        GPU_NAME(dev, VK_OBJECT_TYPE_QUERY_POOL, queries, "copy timestamps");
        /* Written once before: never-written memory may read as one shared zero page (CPU
         * devices), which would flatter the copy. */
        VkCommandBuffer cmd;
        ok = gpu_once_begin(dev, &cmd, err);
        if (ok) {
            vkCmdFillBuffer(cmd, src.buffer, 0, VK_WHOLE_SIZE, 0x5eed5eedu);
            gpu_barrier_buffer(
                cmd, src.buffer,
                (gpu_access){VK_PIPELINE_STAGE_2_CLEAR_BIT, VK_ACCESS_2_TRANSFER_WRITE_BIT},
                (gpu_access){VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT,
                             VK_ACCESS_2_SHADER_STORAGE_READ_BIT});
            ok = gpu_once_end(dev, cmd, err);
        }
    }
    double ms[COPY_RUNS];
    const gpu_access rw = {VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT,
                           VK_ACCESS_2_SHADER_STORAGE_READ_BIT |
                               VK_ACCESS_2_SHADER_STORAGE_WRITE_BIT};
    /* One submission per run, timed as a frame's skinning is: from the top of the command
     * buffer to after the barrier behind the dispatch. (Several runs in one command buffer
     * timed far too fast on lavapipe.) */
    for (uint32_t i = 0; ok && i < COPY_RUNS; i++) {
        VkCommandBuffer cmd;
        if (!(ok = gpu_once_begin(dev, &cmd, err)))
            break;
        vkCmdResetQueryPool(cmd, queries, 0, 2);
        vkCmdWriteTimestamp2(cmd, VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT, queries, 0);
        vks_copy_pass_record(cmd, &pass, src.address, dst.address, half);
        gpu_barrier_memory(cmd, rw, rw);
        vkCmdWriteTimestamp2(cmd, VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT, queries, 1);
        ok = gpu_once_end(dev, cmd, err);
        uint64_t t[2];
        if (ok)
            GPU_CHECK(vkGetQueryPoolResults(dev->device, queries, 0, 2, sizeof t, t, sizeof t[0],
                                            VK_QUERY_RESULT_64_BIT));
        ms[i] = ok ? gpu_ticks_to_ms(dev, t[0], t[1]) : 0.0;
    }
    if (ok) {
        res->copy_ms = app_median(ms, COPY_RUNS);
        res->copy_bytes = 2.0 * (double)half;
    }
    if (queries)
        vkDestroyQueryPool(dev->device, queries, NULL);
    gpu_buffer_destroy(dev, &src);
    gpu_buffer_destroy(dev, &dst);
    vks_copy_pass_destroy(dev, &pass);
    return ok;
}

static int run(const bench_args *a, app_scene *scene, gpu_device *dev, bench_result *res)
{
    vks_error err;
    if (!app_scene_start(scene, &a->crowd, a->clip, 0.0, &err) ||
        !app_gpu_open(&a->gpu, NULL, dev, &err)) {
        fprintf(stderr, "vkskin bench: %s\n", err.msg);
        return APP_FAILED;
    }
    vks_crowd *crowd = &scene->crowd;
    /* The roofline first, over as many bytes as skinning every instance puts through memory: on
     * lavapipe, timestamps around a compute-only submission come out far too short after draws
     * have run on the device. The skinning pass's own figure uses the visible instances. */
    const bench_traffic all = traffic_of(crowd, NULL, NULL, crowd->instance_count);
    if (!measure_copy(dev, (VkDeviceSize)all.memory, res, &err)) {
        fprintf(stderr, "vkskin bench: %s\n", err.msg);
        return APP_FAILED;
    }
    vks_renderer r;
    vks_renderer_desc desc = app_crowd_renderer_desc(&a->crowd, crowd, VKS_OFFSCREEN_FORMAT);
    desc.group_size = a->group_size;
    if (!vks_renderer_create(dev, &desc, &r, &err)) {
        fprintf(stderr, "vkskin bench: %s\n", err.msg);
        return APP_FAILED;
    }
    vks_offscreen target;
    if (!vks_offscreen_create(dev, a->width, a->height, r.draw.depth_format, &target, &err)) {
        fprintf(stderr, "vkskin bench: %s\n", err.msg);
        vks_renderer_destroy(&r);
        return APP_FAILED;
    }
    app_camera cam;
    app_camera_frame(&cam, crowd);
    vks_draw_target t = vks_offscreen_target(&target);
    const uint32_t warmup = a->warmup, total = warmup + a->frames;
    double *anim = calloc(total, sizeof *anim), *frame = calloc(total, sizeof *frame);
    double *skin = calloc(total, sizeof *skin), *draw = calloc(total, sizeof *draw);
    int rc = APP_FAILED;
    if (!anim || !frame || !skin || !draw) {
        fprintf(stderr, "vkskin bench: out of memory\n");
        goto done;
    }
    uint32_t gpu_samples = 0, cpu_samples = 0;
    double last = 0.0;
    for (uint32_t i = 0; i < total; i++) {
        vks_frame *f = vks_renderer_begin_frame(&r); /* waits for frame i - 2 */
        if (!f) {
            fprintf(stderr, "vkskin bench: cannot begin a frame: the device was lost\n");
            goto done;
        }
        double start = app_now_ms();
        if (i > warmup) /* begin to begin: the frame's period, GPU included */
            frame[cpu_samples - 1] = start - last;
        last = start;
        if (i >= warmup + GPU_FRAMES_IN_FLIGHT && f->stats.draw_ms >= 0.0) {
            skin[gpu_samples] = f->stats.skin_ms;
            draw[gpu_samples++] = f->stats.draw_ms;
        }
        vks_crowd_advance(crowd, 1.0 / 60.0);
        app_scene_animate(scene, f, &cam, a->width, a->height);
        if (i >= warmup)
            anim[cpu_samples++] = app_now_ms() - start;
        res->visible = f->visible_count;
        vks_renderer_skin(&r, f);
        res->skinned = r.mode == VKS_SKIN_COMPUTE ? f->skinned_count : f->visible_count;
        res->overflow_vertices = f->overflow_vertices;
        vks_renderer_draw(&r, f, &t);
        if (!vks_renderer_submit(&r, f, VK_NULL_HANDLE, VK_NULL_HANDLE, &err)) {
            fprintf(stderr, "vkskin bench: %s\n", err.msg);
            goto done;
        }
    }
    vks_gpu_stats s = vks_renderer_last_stats(&r);
    frame[cpu_samples - 1] = app_now_ms() - last;
    if (s.draw_ms >= 0.0) { /* the last frames' slots: read here, not by a later begin */
        skin[gpu_samples] = s.skin_ms;
        draw[gpu_samples++] = s.draw_ms;
    }
    res->samples = cpu_samples;
    res->gpu_samples = gpu_samples; /* the next-to-last frame's queries are never read back */
    res->anim_ms = app_median(anim, cpu_samples);
    res->frame_ms = app_median(frame, cpu_samples);
    res->skin_ms = gpu_samples ? app_median(skin, gpu_samples) : -1.0;
    res->draw_ms = gpu_samples ? app_median(draw, gpu_samples) : -1.0;
    res->threads = vks_pool_threads(scene->pool);
    /* The visible set of the last frame (the camera does not move); in compute mode the part
     * the skinning pass skinned (a prefix of it: the rest went past the output budget). */
    const vks_frame *latest = vks_renderer_latest(&r);
    res->visible_vertices = app_frame_vertices(crowd, latest, 0, scene->visible_count);
    res->vertices = app_frame_vertices(crowd, latest, 0, res->skinned);
    for (uint32_t k = 0; k < scene->visible_count; k++)
        res->joints +=
            crowd->models[crowd->instances[scene->visible[k]].model]->skeleton.joint_count;
    res->triangles = s.primitives;
    res->posed = scene->posed;
    memcpy(res->level_instances, latest->level_instances, sizeof res->level_instances);
    res->budget_vertices = r.memory.output_bytes / vks_plan_vertex_bytes(crowd);
    const bench_traffic seen = traffic_of(crowd, latest->order, latest->order_level, res->skinned);
    res->skin_bytes = seen.logical;
    res->stream_bytes = seen.streams;
    res->memory_bytes = seen.memory;
    rc = APP_OK;
done:
    free(anim);
    free(frame);
    free(skin);
    free(draw);
    vks_offscreen_destroy(dev, &target);
    vks_renderer_destroy(&r);
    return rc;
}

/* A JSON number in its shortest form that reads back as the same double (15 to 17 significant
 * digits), or null when unknown (negative or not finite). */
static void json_number(const char *name, double v, bool last)
{
    if (v >= 0.0 && isfinite(v)) {
        char text[32];
        for (int digits = 15; digits <= 17; digits++) {
            snprintf(text, sizeof text, "%.*g", digits, v);
            if (strtod(text, NULL) == v)
                break;
        }
        printf("  \"%s\": %s%s\n", name, text, last ? "" : ",");
    } else {
        printf("  \"%s\": null%s\n", name, last ? "" : ",");
    }
}

static void json_string(const char *name, const char *v)
{
    printf("  \"%s\": \"", name);
    for (const unsigned char *c = (const unsigned char *)v; *c; c++) {
        if (*c == '"' || *c == '\\')
            printf("\\%c", *c);
        else if (*c < 0x20)
            printf("\\u%04x", *c);
        else
            putchar(*c);
    }
    printf("\",\n");
}

static void report(const bench_args *a, const app_scene *scene, const gpu_device *dev,
                   const bench_result *res)
{
    const vks_crowd *c = &scene->crowd;
    char models[512] = "";
    for (uint32_t m = 0; m < c->model_count; m++)
        snprintf(models + strlen(models), sizeof models - strlen(models), "%s%s", m ? " + " : "",
                 c->models[m]->name);
    const bool compute = a->crowd.mode == VKS_SKIN_COMPUTE;
    /* Vertex mode skins inside the draw: its vertices per second are per draw time. */
    const double skin_ms = compute ? res->skin_ms : -1.0;
    const double per_ms = compute ? res->skin_ms : res->draw_ms;
    const double vps = per_ms > 0.0 ? res->vertices / (per_ms * 1e-3) : -1.0;
    const double vpms = per_ms > 0.0 ? res->vertices / per_ms : -1.0;
    const double jpspc =
        res->anim_ms > 0.0 ? res->joints / (res->anim_ms * 1e-3) / res->threads : -1.0;
    /* The skinning pass's traffic; unknown (null) in vertex mode, which has no such pass. */
    const double skin_bytes = compute ? res->skin_bytes : -1.0;
    const double memory_bytes = compute ? res->memory_bytes : -1.0;
    const double bytes_per_vertex =
        compute && res->vertices ? res->stream_bytes / (double)res->vertices : -1.0;
    const double skin_gbps = skin_ms > 0.0 ? skin_bytes / (skin_ms * 1e-3) / 1e9 : -1.0;
    const double memory_gbps = skin_ms > 0.0 ? memory_bytes / (skin_ms * 1e-3) / 1e9 : -1.0;
    const double copy_gbps =
        res->copy_ms > 0.0 ? res->copy_bytes / (res->copy_ms * 1e-3) / 1e9 : -1.0;
    const double ratio = memory_gbps > 0.0 && copy_gbps > 0.0 ? memory_gbps / copy_gbps : -1.0;
    const double logical_ratio = skin_gbps > 0.0 && copy_gbps > 0.0 ? skin_gbps / copy_gbps : -1.0;
    if (a->json) {
        printf("{\n");
        json_string("models", models);
        json_string("device", dev->props.deviceName);
        json_string("mode", compute ? "compute" : "vertex");
        json_string("palettes", a->crowd.palettes_on_device ? "device" : "host");
        json_number("instances", c->instance_count, false);
        json_number("visible", res->visible, false);
        json_number("width", a->width, false);
        json_number("height", a->height, false);
        json_number("warmup_frames", a->warmup, false);
        json_number("frames", res->samples, false);
        json_number("gpu_frames", res->gpu_samples, false);
        json_number("threads", res->threads, false);
        json_number("skinned_vertices", (double)res->vertices, false);
        json_number("skinned_output_vertices", compute ? (double)res->budget_vertices : -1.0,
                    false);
        json_number("overflow_instances", compute ? res->visible - res->skinned : 0, false);
        json_number("overflow_vertices", (double)res->overflow_vertices, false);
        json_number("triangles", res->triangles == UINT64_MAX ? -1.0 : (double)res->triangles,
                    false);
        printf("  \"level_instances\": [");
        for (uint32_t l = 0; l < VKS_MAX_LEVELS; l++)
            printf("%s%u", l ? ", " : "", res->level_instances[l]);
        printf("],\n");
        json_number("posed_instances", res->posed, false);
        json_number("lod", a->crowd.lod, false);
        json_number("lod_error_px", a->crowd.lod_error, false);
        json_number("cpu_anim_ms", res->anim_ms, false);
        json_number("gpu_skin_ms", skin_ms, false);
        json_number("gpu_draw_ms", res->draw_ms, false);
        json_number("frame_ms", res->frame_ms, false);
        json_number("skinned_vertices_per_s", vps, false);
        json_number("skinned_vertices_per_ms", vpms, false);
        json_number("joints_per_s_per_core", jpspc, false);
        json_number("bytes_per_vertex", bytes_per_vertex, false);
        json_number("skin_bytes", skin_bytes, false);
        json_number("memory_bytes", memory_bytes, false);
        json_number("skin_gb_per_s", skin_gbps, false);
        json_number("memory_gb_per_s", memory_gbps, false);
        json_number("copy_bytes", res->copy_bytes, false);
        json_number("copy_gb_per_s", copy_gbps, false);
        json_number("roofline_ratio", ratio, false);
        json_number("logical_roofline_ratio", logical_ratio, true);
        printf("}\n");
        return;
    }
    printf("bench: %s x %u, %s skinning, %ux%u, median of %u frames (GPU times: %u) after %u "
           "warm-up frame(s) on %s\n",
           models, c->instance_count, compute ? "compute" : "vertex-shader", a->width, a->height,
           res->samples, res->gpu_samples, a->warmup, dev->props.deviceName);
    printf("  visible          %u of %u instances, %llu vertices, %llu joints\n", res->visible,
           c->instance_count, (unsigned long long)res->visible_vertices,
           (unsigned long long)res->joints);
    {
        char levels[256];
        app_format_levels(res->level_instances, levels, sizeof levels);
        printf("  levels of detail %s (%s); the GPU drew %lld triangles\n", levels,
               a->crowd.lod >= 0 ? "forced by --lod" : "chosen per instance",
               res->triangles == UINT64_MAX ? -1LL : (long long)res->triangles);
    }
    if (compute && res->skinned < res->visible)
        printf("  past the budget  %u instances (%llu vertices) skinned in the vertex shader: "
               "the skinned output holds %llu vertices\n",
               res->visible - res->skinned, (unsigned long long)res->overflow_vertices,
               (unsigned long long)res->budget_vertices);
    printf("  cpu animation    %.3f ms on %u thread(s): %.1f M joints/s per core (%.1f ns per "
           "joint)\n",
           res->anim_ms, res->threads, jpspc / 1e6, jpspc > 0.0 ? 1e9 / jpspc : 0.0);
    if (compute)
        printf("  gpu skinning     %.3f ms: %.3g M vertices/s (%.0f per ms)\n", res->skin_ms,
               vps / 1e6, vpms);
    else
        printf("  gpu skinning     in the draw: %.3g M vertices/s of draw time (%.0f per ms)\n",
               vps / 1e6, vpms);
    printf("  gpu draw         %.3f ms\n", res->draw_ms);
    printf("  frame            %.3f ms (%.0f fps)\n", res->frame_ms,
           res->frame_ms > 0.0 ? 1e3 / res->frame_ms : 0.0);
    if (compute)
        printf("  traffic          %.0f bytes per vertex; %.2f MB logical, %.2f MB to memory per "
               "frame (bind streams once per model)\n",
               bytes_per_vertex, skin_bytes / 1e6, memory_bytes / 1e6);
    if (compute && memory_gbps > 0.0)
        printf("  bandwidth        skinning %.2f GB/s to memory (%.2f logical), copy kernel %.2f "
               "GB/s over %.1f MB: %.0f%% of the roofline (%.0f%% logical)\n",
               memory_gbps, skin_gbps, copy_gbps, res->copy_bytes / 1e6, 100.0 * ratio,
               100.0 * logical_ratio);
    else
        printf("  bandwidth        copy kernel %.2f GB/s over %.1f MB\n", copy_gbps,
               res->copy_bytes / 1e6);
}

int cmd_bench(int argc, char **argv)
{
    bench_args a = {.size = "1920x1080", .frames_text = "100", .warmup = WARMUP_FRAMES};
    const app_option options[] = {
        {"frames", &a.frames_text, NULL, "F", "frames to measure (default 100)"},
        {"warmup", &a.warmup_text, NULL, "N", "frames before measuring (default 3; 0 allowed)"},
        {"size", &a.size, NULL, "WxH", "image size in pixels (default 1920x1080)"},
        {"json", NULL, &a.json, NULL, "print one JSON object instead of the table"},
        {"group-size", &a.group_size_text, NULL, "N",
         "skinning workgroup size, a power of two (default 64)"},
        {"threads", &a.threads_text, NULL, "N", "animation threads (default: one per core)"},
        {"clip", &a.clip, NULL, "NAME|INDEX", "every instance plays this clip (default: its own)"},
        {"anim-only", NULL, &a.anim_only, NULL,
         "time the CPU animation alone (no GPU): ns per skin joint on 1 and on every thread"},
        {"phases", NULL, &a.phases, NULL,
         "with --anim-only: time sampling, local-to-model and palette apart"},
        APP_CROWD_OPTIONS(a.crowd),
        APP_GPU_OPTIONS(a.gpu),
    };
    const app_command cmd = {
        .name = "bench",
        .summary = "Renders a crowd headless for F frames (after --warmup frames) and prints\n"
                   "the medians per frame of CPU animation, GPU skinning and drawing (timestamp\n"
                   "queries), the frame, skinned vertices per second and per ms, the skinning\n"
                   "pass's traffic (bytes per vertex; logical and to memory) and its bandwidth\n"
                   "beside a copy kernel's over as many bytes. Validation is off unless\n"
                   "--validate is given. Every instance plays its own clip.",
        .positional = "[MODEL]",
        .options = options,
        .option_count = sizeof options / sizeof options[0],
    };
    int rc = app_parse(&cmd, argc, argv, &a.path);
    if (rc != APP_OK)
        return rc == APP_HELP ? APP_OK : rc;
    vks_error err;
    if (!app_parse_size(a.size, &a.width, &a.height, &err) ||
        !app_parse_count("--frames", a.frames_text, 1, 100000, &a.frames, &err) ||
        (a.warmup_text &&
         !app_parse_count("--warmup", a.warmup_text, 0, 100000, &a.warmup, &err)) ||
        (a.group_size_text &&
         !app_parse_count("--group-size", a.group_size_text, 1, 1024, &a.group_size, &err)) ||
        (a.threads_text &&
         !app_parse_count("--threads", a.threads_text, 1, 256, &a.crowd.threads, &err)) ||
        !app_crowd_check(&a.crowd, &err) || !app_gpu_check(&a.gpu, &err)) {
        fprintf(stderr, "vkskin bench: %s\n", err.msg);
        return APP_USAGE;
    }
    app_scene scene;
    if (!app_scene_load(&scene, "bench", a.path, &a.crowd,
                        &err)) { /* before any thread: see import.h */
        fprintf(stderr, "vkskin bench: %s\n", err.msg);
        return APP_FAILED;
    }
    if (a.phases && !a.anim_only) {
        fprintf(stderr, "vkskin bench: --phases goes with --anim-only\n");
        app_scene_destroy(&scene);
        return APP_USAGE;
    }
    if (a.anim_only) {
        rc = app_scene_start(&scene, &a.crowd, a.clip, 0.0, &err)
                 ? app_bench_anim(&scene, &(app_bench_anim_desc){.frames = a.frames,
                                                                 .warmup = a.warmup,
                                                                 .width = a.width,
                                                                 .height = a.height,
                                                                 .phases = a.phases,
                                                                 .json = a.json})
                 : (fprintf(stderr, "vkskin bench: %s\n", err.msg), APP_FAILED);
        app_scene_destroy(&scene);
        return rc;
    }
    gpu_device dev = {0};
    bench_result res = {0};
    rc = run(&a, &scene, &dev, &res);
    if (rc == APP_OK)
        report(&a, &scene, &dev, &res);
    app_scene_destroy(&scene);
    if (dev.device)
        rc = app_gpu_close("bench", &dev, rc);
    return rc;
}
