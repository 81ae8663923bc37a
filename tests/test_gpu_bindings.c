/* The two ways the shaders reach the crowd's buffers (render/renderer.h, vks_binding): device
 * addresses (the fast path) and descriptors (the descriptors binding, what validation runs), and
 * what the second is for: synchronization validation seeing the skinning pass. (a) A crowd of 24
 * instances of three models (tangents.glb, with tangents; wide_influences.glb, 8 influences; the
 * default character), every instance visible, its output split into at least 3 chunks and too small
 * for all of them (the rest are skinned in the vertex shader), validation on: each model has
 * instances skinned by the pass, which match the CPU; the descriptors binding's skinned output
 * (read back) is the addresses binding's byte for byte, its frame spans at least 3 chunks and
 * overflows, and its image is the addresses binding's byte for byte; the same images in vertex
 * mode. No validation message. (b) On a second device, validation on: the descriptors binding with
 * the barrier between the skinning pass and the draw left out (the skinner told of no readers) must
 * make synchronization validation report a hazard (SYNC-HAZARD-*); the same frame with the barrier
 * reports none. The addresses binding without the barrier is run too and its count printed:
 * validation cannot follow device addresses, which is why validation runs the descriptors binding.
 * (c) On a third device, GPU-assisted validation on as well: the addresses binding's skinning pass
 *     (every load and store through a device address checked against the buffers that exist)
 *     reports nothing and matches the CPU; so does the descriptors binding's whole frame, draws
 *     included; and the skinning pass with its first visible entry naming the model one past
 *     the model table must be reported ("Device address out of bounds"): the check runs.
 *     (The addresses binding's draws are not run under it: on lavapipe 22.3 its checks misfire in
 *     the vertex stage, docs/testing.md "Validation".)
 * (d) On a device without validation, a renderer left to choose (VKS_BINDING_AUTO) takes the
 *     addresses binding; with validation (the hazard test's first frame asks for AUTO), the
 *     descriptors binding.
 *   usage: test_gpu_bindings DEFAULT_GLB FIXTURES_DIR (a missing file fails: the build writes them)
 */
#include "crowd_gpu.h"

#define INSTANCES 24u
#define SEED 99u

/* The small models first: the frame deals output in model order, so they get some before the
 * default character's instances spend the rest. */
enum { MODEL_TANGENTS, MODEL_WIDE, MODEL_DEFAULT, MODEL_COUNT };
_Static_assert(MODEL_COUNT <= CROWD_GPU_MAX_MODELS, "crowd_gpu holds the models");

static bool create_crowd(crowd_gpu *s)
{
    const vks_model *models[MODEL_COUNT];
    for (int k = 0; k < MODEL_COUNT; k++)
        models[k] = &s->models[k];
    vks_error err;
    bool ok = vks_crowd_create(&(vks_crowd_desc){.models = models,
                                                 .model_count = MODEL_COUNT,
                                                 .instance_count = INSTANCES,
                                                 .time = 0.61,
                                                 .threads = 1,
                                                 .seed = SEED},
                               &s->crowd, &err);
    if (!ok)
        fprintf(stderr, "crowd: %s\n", err.msg);
    CHECK(ok);
    /* The camera looks at a default character: the largest on screen. */
    for (uint32_t i = 0; ok && i < INSTANCES; i++)
        if (s->crowd.instances[i].model == MODEL_DEFAULT) {
            s->focus = i;
            break;
        }
    return ok;
}

/* A renderer on `binding`; the output in chunks of `chunk` bytes with room for `vertices` (0: the
 * defaults). */
static bool renderer(crowd_gpu *s, vks_skin_mode mode, vks_binding binding, VkDeviceSize chunk,
                     uint32_t vertices, bool skip_barrier, vks_renderer *r)
{
    vks_error err;
    bool ok = vks_renderer_create(&s->dev,
                                  &(vks_renderer_desc){.crowd = &s->crowd,
                                                       .color_format = s->color.format,
                                                       .mode = mode,
                                                       .readback = mode == VKS_SKIN_COMPUTE,
                                                       .buffer_limit = chunk,
                                                       .max_skinned_vertices = vertices,
                                                       .binding = binding},
                                  r, &err);
    if (!ok)
        fprintf(stderr, "renderer: %s\n", err.msg);
    if (ok && skip_barrier) { /* a client that named no readers: nothing waits for the writes */
        r->skinner.output_stages = VK_PIPELINE_STAGE_2_NONE;
        r->skinner.output_access = VK_ACCESS_2_NONE;
    }
    CHECK(ok);
    /* AUTO: descriptors exactly when the device validates. */
    CHECK(!ok || r->skinner.descriptors == (binding == VKS_BINDING_DESCRIPTORS ||
                                            (binding == VKS_BINDING_AUTO && s->dev.validate)));
    return ok;
}

/* The largest instance output (bytes, as the renderer lays it out) and the total. */
static void output_sizes(const vks_crowd *c, size_t *largest, size_t *total)
{
    *largest = *total = 0;
    for (uint32_t i = 0; i < c->instance_count; i++) {
        const vks_model *m = c->models[c->instances[i].model];
        size_t bytes = ((size_t)m->vertex_count * (16 + (m->tangents ? 4 : 0)) + 15) / 16 * 16;
        *largest = bytes > *largest ? bytes : *largest;
        *total += bytes;
    }
}

/* (a) */
static void test_same_results(crowd_gpu *s)
{
    uint32_t all[INSTANCES];
    for (uint32_t i = 0; i < INSTANCES; i++)
        all[i] = i;
    size_t largest, total;
    output_sizes(&s->crowd, &largest, &total);
    /* Chunks of 2.5 of the largest instance; room for 85% of the crowd's vertices, so that each
     * model's instances get output (tangents and 8 influences skinned by both builds of the
     * pass) and the last ones do not. */
    const VkDeviceSize chunk = 5 * largest / 2 / 16 * 16;
    const uint32_t vertices = (uint32_t)(total * 85 / 100 / vks_plan_vertex_bytes(&s->crowd));
    const size_t image_bytes = (size_t)IMAGE_SIZE * IMAGE_SIZE * 4;
    uint8_t *image[2] = {malloc(image_bytes), malloc(image_bytes)};
    uint8_t *output = NULL;
    size_t output_bytes = 0;
    CHECK(image[0] && image[1]);
    for (int mode = 0; image[0] && image[1] && mode < 2; mode++) {
        const vks_skin_mode skin = mode ? VKS_SKIN_VERTEX : VKS_SKIN_COMPUTE;
        const char *name = mode ? "vertex" : "compute";
        for (int p = 0; p < 2; p++) {
            const vks_binding binding = p ? VKS_BINDING_DESCRIPTORS : VKS_BINDING_ADDRESSES;
            vks_renderer r;
            if (!renderer(s, skin, binding, chunk, vertices, false, &r))
                continue;
            if (skin == VKS_SKIN_COMPUTE && crowd_gpu_frame(s, &r, all, INSTANCES, false)) {
                const vks_frame *f = &r.frames[r.skinner.readback_slot];
                const uint32_t chunks_used =
                    f->skin->plan.skinned_count
                        ? (uint32_t)(f->skin->plan.out_offset[f->skin->plan.skinned_count - 1] /
                                     r.skinner.chunk_limit) +
                              1
                        : 0;
                CHECK(chunks_used >= 3);
                CHECK(f->skin->plan.overflow_count > 0 && f->skin->plan.skinned_count > 0);
                bool model_skinned[MODEL_COUNT] = {false};
                for (uint32_t i = 0; i < INSTANCES; i++)
                    if (vks_skinner_skinned(&r.skinner, i)) {
                        crowd_gpu_check_instance(s, &r, i, name, NULL);
                        model_skinned[s->crowd.instances[i].model] = true;
                    }
                for (int k = 0; k < MODEL_COUNT; k++)
                    CHECK(model_skinned[k]);
                /* Each skinned instance's vertices then tangents, in instance order (the gaps
                 * between outputs in the chunks hold whatever was there). */
                size_t bytes = 0;
                uint8_t *out = malloc(total);
                CHECK(out != NULL);
                for (uint32_t i = 0; out && i < INSTANCES; i++) {
                    const vks_model *m = s->crowd.models[s->crowd.instances[i].model];
                    const vks_skinned_vertex *v = vks_skinner_skinned(&r.skinner, i);
                    const uint32_t *t = vks_skinner_skinned_tangents(&r.skinner, i);
                    if (!v)
                        continue;
                    memcpy(out + bytes, v, sizeof *v * m->vertex_count);
                    bytes += sizeof *v * m->vertex_count;
                    if (t) {
                        memcpy(out + bytes, t, sizeof *t * m->vertex_count);
                        bytes += sizeof *t * m->vertex_count;
                    }
                }
                if (p == 0) {
                    output = out;
                    output_bytes = bytes;
                } else {
                    bool same =
                        out && output && output_bytes == bytes && memcmp(output, out, bytes) == 0;
                    CHECK(same);
                    printf("compute: descriptors binding's output %s the addresses binding's (%zu "
                           "bytes, "
                           "%u instances in %u chunks, %u skinned in the vertex shader)\n",
                           same ? "is" : "differs from", bytes, f->skin->plan.skinned_count,
                           chunks_used, f->skin->plan.overflow_count);
                    free(out);
                }
            }
            if (crowd_gpu_frame(s, &r, all, INSTANCES, true))
                memcpy(image[p], s->pixels.mapped, image_bytes);
            vks_renderer_destroy(&r);
        }
        const uint32_t drawn = crowd_gpu_drawn_pixels(image[0]);
        const bool same = memcmp(image[0], image[1], image_bytes) == 0;
        CHECK(drawn >= MIN_DRAWN_FRACTION * IMAGE_SIZE * IMAGE_SIZE);
        CHECK(same);
        printf("%s: %u pixels drawn; the descriptors binding's image %s the addresses binding's\n",
               name, drawn, same ? "is" : "differs from");
    }
    free(output);
    free(image[0]);
    free(image[1]);
}

/* One drawn frame of every instance; the validation messages it caused (on top of `before`). */
static gpu_messages drawn_frame(crowd_gpu *s, vks_binding binding, bool skip_barrier)
{
    uint32_t all[INSTANCES];
    for (uint32_t i = 0; i < INSTANCES; i++)
        all[i] = i;
    const gpu_messages before = *s->dev.messages;
    vks_renderer r;
    if (renderer(s, VKS_SKIN_COMPUTE, binding, 0, 0, skip_barrier, &r)) {
        crowd_gpu_frame(s, &r, all, INSTANCES, true);
        vks_renderer_destroy(&r);
    }
    const gpu_messages *now = s->dev.messages;
    return (gpu_messages){.warning = now->warning - before.warning,
                          .error = now->error - before.error,
                          .sync_hazards = now->sync_hazards - before.sync_hazards};
}

/* (b) */
static void test_hazard(crowd_gpu *s)
{
    gpu_messages with = drawn_frame(s, VKS_BINDING_AUTO, false) /* descriptors */;
    CHECK(with.error == 0 && with.warning == 0);
    printf("hazard: descriptors binding with the barrier: %u error(s), %u warning(s)\n", with.error,
           with.warning);
    printf("hazard: the frame without it (the hazard reports below are expected):\n");
    fflush(stdout);
    gpu_messages without = drawn_frame(s, VKS_BINDING_DESCRIPTORS, true);
    CHECK(without.sync_hazards >= 1);
    CHECK(without.error + without.warning == without.sync_hazards); /* those, and nothing else */
    printf(
        "hazard: descriptors binding without the barrier: %u synchronization hazard(s) reported\n",
        without.sync_hazards);
    gpu_messages addresses = drawn_frame(s, VKS_BINDING_ADDRESSES, true);
    /* Whatever it reports can only be a hazard (none, with this layer: not asserted, a layer
     * that learns to follow addresses would be welcome). */
    CHECK(addresses.error + addresses.warning == addresses.sync_hazards);
    printf("hazard: addresses binding without the barrier: %u synchronization hazard(s) reported "
           "(validation cannot follow device addresses)\n",
           addresses.sync_hazards);
}

/* A device (with validation, and GPU-assisted validation) and the test's target; false, said,
 * when it cannot be made. */
static bool open_device(crowd_gpu *h, bool validate, bool gpu_assisted)
{
    h->dev = (gpu_device){0};
    h->color = h->depth = (gpu_image){0};
    h->pixels = (gpu_buffer){0};
    vks_error err;
    bool have = gpu_device_create(&(gpu_device_desc){.device_index = -1,
                                                     .validate = validate,
                                                     .gpu_assisted = gpu_assisted},
                                  &h->dev, &err) &&
                crowd_gpu_create_target(h, &err);
    if (!have)
        fprintf(stderr, "device: %s\n", err.msg);
    CHECK(have);
    return have;
}

/* The device gone, with nothing reported at its destruction (nothing left undestroyed) beyond
 * what its frames did. */
static void close_device(crowd_gpu *h)
{
    gpu_image_destroy(&h->dev, &h->color);
    gpu_image_destroy(&h->dev, &h->depth);
    gpu_buffer_destroy(&h->dev, &h->pixels);
    if (!h->dev.device)
        return;
    const gpu_messages before = h->dev.messages ? *h->dev.messages : (gpu_messages){0};
    const gpu_messages after = gpu_device_destroy(&h->dev);
    CHECK(after.error == before.error && after.warning == before.warning);
}

/* (c) */
static void test_gpu_assisted(crowd_gpu *s)
{
    uint32_t all[INSTANCES];
    for (uint32_t i = 0; i < INSTANCES; i++)
        all[i] = i;
    const gpu_messages *now = s->dev.messages;
    vks_renderer r;
    if (renderer(s, VKS_SKIN_COMPUTE, VKS_BINDING_ADDRESSES, 0, 0, false, &r)) {
        if (crowd_gpu_frame(s, &r, all, INSTANCES, false))
            for (uint32_t i = 0; i < INSTANCES; i++)
                crowd_gpu_check_instance(s, &r, i, "gpu-assisted", NULL);
        CHECK(now->error == 0 && now->warning == 0);
        printf("gpu-assisted: addresses binding's skinning pass: %u error(s), %u warning(s)\n",
               now->error, now->warning);
        /* The first visible entry's palette lies past the palette buffer's end: its loads read
         * after it. */
        vks_frame *f = vks_renderer_begin_frame(&r);
        memcpy(f->skin->visible, all, sizeof all);
        f->skin->visible_count = INSTANCES;
        vks_crowd_palettes(&s->crowd, NULL, f->skin->visible, INSTANCES, f->skin->palette);
        vks_error err;
        CHECK(vks_renderer_fit_output(&r, f, &err));
        vks_renderer_skin(&r, f);
        ((vks_visible *)f->skin->visible_buffer.mapped)[0].palette_first =
            (uint32_t)(f->skin->palette_buffer.size / sizeof(vks_bone));
        printf("gpu-assisted: a visible entry's palette past its buffer (the report below is "
               "expected):\n");
        fflush(stdout);
        CHECK(vks_renderer_submit(&r, f, VK_NULL_HANDLE, VK_NULL_HANDLE, &err) &&
              vks_renderer_wait(&r, f, &err));
        vks_renderer_destroy(&r);
        CHECK(now->error >= 1 && strstr(now->last_id, "Device address out of bounds"));
        printf("gpu-assisted: %u error(s), the last \"%s\"\n", now->error, now->last_id);
    }
    const uint32_t errors = now->error, warnings = now->warning;
    if (renderer(s, VKS_SKIN_COMPUTE, VKS_BINDING_DESCRIPTORS, 0, 0, false, &r)) {
        crowd_gpu_frame(s, &r, all, INSTANCES, true);
        vks_renderer_destroy(&r);
        CHECK(now->error == errors && now->warning == warnings);
        CHECK(crowd_gpu_drawn_pixels(s->pixels.mapped) >=
              MIN_DRAWN_FRACTION * IMAGE_SIZE * IMAGE_SIZE);
        printf("gpu-assisted: descriptors binding's frame: %u error(s)\n", now->error - errors);
    }
}

int main(int argc, char **argv)
{
    char tangents[4096], wide[4096];
    int args = crowd_gpu_args(argc, argv, "test_gpu_bindings", tangents, sizeof tangents);
    if (args)
        return args;
    snprintf(wide, sizeof wide, "%s/wide_influences.glb", argv[2]);
    if (access(wide, R_OK) != 0) {
        fprintf(stderr, "test_gpu_bindings: %s cannot be read (the build writes it)\n", wide);
        return 1;
    }
    const char *paths[MODEL_COUNT] = {
        [MODEL_DEFAULT] = argv[1], [MODEL_TANGENTS] = tangents, [MODEL_WIDE] = wide};
    crowd_gpu s = {0};
    /* Models before the device: the importer forks (asset/import.h). */
    for (int k = 0; k < MODEL_COUNT; k++) {
        if (!crowd_gpu_import(paths[k], &s.models[k]))
            return check_report("test_gpu_bindings");
        s.radius[k] = crowd_gpu_bind_radius(&s.models[k]);
    }
    CHECK(s.models[MODEL_WIDE].joints_extra != NULL && s.models[MODEL_TANGENTS].tangents != NULL);

    bool target = false;
    if (create_crowd(&s)) {
        if (crowd_gpu_open(&s, "test_gpu_bindings", &target)) {
            if (target)
                test_same_results(&s);
            crowd_gpu_close(&s); /* no validation message */
        }
        /* Devices of their own: the messages they must report would fail crowd_gpu_close. */
        crowd_gpu h = s;
        if (open_device(&h, true, false))
            test_hazard(&h);
        close_device(&h);
        if (open_device(&h, true, true))
            test_gpu_assisted(&h);
        close_device(&h);
        /* (d) Without validation, AUTO takes the fast path (renderer() checks it). */
        vks_renderer r;
        if (open_device(&h, false, false) &&
            renderer(&h, VKS_SKIN_COMPUTE, VKS_BINDING_AUTO, 0, 0, false, &r)) {
            printf("auto: without validation, %s\n",
                   r.skinner.descriptors ? "descriptors" : "addresses");
            vks_renderer_destroy(&r);
        }
        close_device(&h);
        vks_crowd_destroy(&s.crowd);
    }
    for (int k = 0; k < MODEL_COUNT; k++)
        vks_model_destroy(&s.models[k]);
    return check_report("test_gpu_bindings");
}
