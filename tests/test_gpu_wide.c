/* 8-influence (wide) skinning on the GPU against the CPU reference, validation on (any error or
 * warning fails). The wide models are made here from 4-influence files, so that the test knows
 * what influences 5 to 8 hold (imported 8-influence files, wide_influences.glb, are held to the
 * CPU by gpu_skin_default): the default character and tangents.glb, each vertex's 4 weights scaled
 * by 3/4 and the remaining 1/4 spread over 4 more joints (0.4, 0.3, 0.2, 0.1 of it), cycling over
 * the bones the model uses (they may repeat one of the vertex's first four: the math does not
 * care; nor does it need influences 5 to 8 to be the smaller ones, which this data does not
 * always keep).
 * One crowd of 6 instances mixes them: 2 of the 4-influence character (first, so that the wide
 * models' first vertex in the extra streams differs from the one in the bind streams), 2 of the
 * wide character, 2 of wide tangents.glb (tangents; its extra_first is not 0), each on its clip.
 *   CPU: influences 5 to 8 matter: at each wide instance's pose, dropping them moves some vertex
 *     by more than 10x the GPU tolerance (so a GPU pass that ignored them would fail below).
 *   memory: the plan of the crowd counts 12 bytes per wide vertex more than the same crowd
 *     with the extras dropped, and the renderer creates extra streams of exactly the wide
 *     models' vertices; a crowd without wide models creates none (address 0).
 *   compute: frame 1, every instance (a dispatch per model); frame 2, 0.3 s later, a mixed
 *     subset. Each visible instance's read-back output matches vks_skin_cpu_pose at its clip and
 *     time:
 *     positions within 1e-4 x its model's bind-pose radius, normals and tangents within 1e-4
 *     (the readback is filled with NaN bytes first). Whether lavapipe is bit-identical is printed.
 *   vertex mode: frame 3 drawn with the camera on a wide instance, by the compute pass and by the
 *     vertex shader: at most 1% of the drawn pixels differ by more than 3 levels; and the vertex
 *     shader drawing the crowd with influences 5 to 8 dropped differs from the compute image in
 *     more than 1% (the image comparison sees what the extras do).
 *   usage: test_gpu_wide DEFAULT_GLB FIXTURES_DIR (a missing file fails: the build writes them) */
#include "crowd_gpu.h"

#define EXTRAS_MATTER 10.0 /* dropping influences 5 to 8 moves a vertex this many tolerances */
#define INSTANCES 6u
#define SEED 4321u

enum { MODEL_NARROW, MODEL_WIDE, MODEL_WIDE_T, MODEL_COUNT };
_Static_assert(MODEL_COUNT <= CROWD_GPU_MAX_MODELS, "crowd_gpu holds the models");

typedef struct scene {
    crowd_gpu g; /* device, models, crowd, target and tallies (crowd_gpu.h) */
    /* The wide models with influences 5 to 8 dropped (shallow copies: they own nothing). */
    vks_model dropped[MODEL_COUNT];
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

/* Influences 5 to 8 change each wide instance's pose by far more than the GPU tolerance. */
static void check_extras_matter(scene *s)
{
    for (uint32_t i = 0; i < s->g.crowd.instance_count; i++) {
        const vks_crowd_instance *inst = &s->g.crowd.instances[i];
        const vks_model *m = s->g.crowd.models[inst->model];
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
        CHECK(d > EXTRAS_MATTER * POSITION_TOLERANCE * s->g.radius[inst->model]);
        printf("extras matter: instance %u: dropping influences 5-8 moves a vertex by %.3g "
               "(%.0f x the tolerance)\n",
               i, d, d / (POSITION_TOLERANCE * s->g.radius[inst->model]));
        free(pos);
        free(nrm);
        free(pos4);
        free(nrm4);
    }
}

/* Points the crowd at the wide models, or at their copies with influences 5 to 8 dropped. */
static void use_dropped(scene *s, bool dropped)
{
    for (int k = 0; k < MODEL_COUNT; k++)
        s->g.crowd.models[k] = dropped ? &s->dropped[k] : &s->g.models[k];
}

/* The memory plan of crowd c on a made-up device with room for anything. */
static vks_plan_memory plan_of(const vks_crowd *c)
{
    const VkDeviceSize big = (VkDeviceSize)1 << 40;
    const vks_plan_limits lim = {.max_memory_allocation = big,
                                 .max_buffer = big,
                                 .max_storage_buffer_range = big,
                                 .device_heap = big,
                                 .name = "made-up GPU"};
    vks_plan_memory m = {0};
    vks_error err;
    CHECK(vks_plan_memory_of(&lim, c, &(vks_plan_request){.mode = VKS_SKIN_COMPUTE}, &m, &err));
    return m;
}

/* Extra streams: counted in the plan, created for the wide models only, none without. */
static void test_memory(scene *s)
{
    /* A model's vertices on the GPU: level 0's, then its levels of detail's copies. */
    const uint32_t wide_first =
        s->g.models[MODEL_WIDE].vertex_count + s->g.models[MODEL_WIDE].lod_vertex_count;
    const uint32_t wide_vertices = wide_first + s->g.models[MODEL_WIDE_T].vertex_count +
                                   s->g.models[MODEL_WIDE_T].lod_vertex_count;
    vks_plan_memory wide = plan_of(&s->g.crowd);
    use_dropped(s, true);
    vks_plan_memory narrow = plan_of(&s->g.crowd);
    /* Joints 5 to 8 as 4 x 8 bits (these models have at most 256 joints), weights as unorm16. */
    CHECK(wide.model_bytes - narrow.model_bytes == (VkDeviceSize)wide_vertices * (4 + 8));
    CHECK(wide.host_bytes == narrow.host_bytes && wide.output_bytes == narrow.output_bytes);
    vks_renderer r;
    if (crowd_gpu_renderer(&s->g, VKS_SKIN_COMPUTE, 0, 0, &r, "4-influence")) {
        CHECK(r.skinner.scene.extra_vertex_count == 0);
        CHECK(r.skinner.scene.joints_extra.buffer == VK_NULL_HANDLE &&
              r.skinner.scene.weights_extra.buffer == VK_NULL_HANDLE);
        const vks_streams *st = &r.frames[0].skin->push.streams;
        CHECK(st->joints_extra[0] == 0 && st->joints_extra[1] == 0);
        vks_renderer_destroy(&r);
    }
    use_dropped(s, false);
    if (crowd_gpu_renderer(&s->g, VKS_SKIN_VERTEX, 0, 0, &r, "wide")) {
        CHECK(r.skinner.scene.extra_vertex_count == wide_vertices);
        CHECK(r.skinner.scene.joints_extra.buffer != VK_NULL_HANDLE &&
              r.skinner.scene.weights_extra.buffer != VK_NULL_HANDLE);
        CHECK(r.skinner.scene.models[MODEL_NARROW].extra_first == 0 &&
              r.skinner.scene.models[MODEL_WIDE].extra_first == 0 &&
              r.skinner.scene.models[MODEL_WIDE_T].extra_first == wide_first);
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
    if (!crowd_gpu_renderer(&s->g, VKS_SKIN_COMPUTE, 0, 0, &r, "compute"))
        return;
    if (crowd_gpu_frame(&s->g, &r, all, INSTANCES, false))
        for (uint32_t i = 0; i < INSTANCES; i++)
            crowd_gpu_check_instance(&s->g, &r, i, "frame 1", NULL);
    check_extras_matter(s);

    /* Frame 2: one instance of each model (the narrow one first, wide ones after it). */
    vks_crowd_advance(&s->g.crowd, NULL, 0.3);
    const uint32_t mixed[3] = {1, 2, 5};
    if (crowd_gpu_frame(&s->g, &r, mixed, 3, false))
        for (uint32_t k = 0; k < 3; k++)
            crowd_gpu_check_instance(&s->g, &r, mixed[k], "frame 2", NULL);
    /* The same at levels of detail 1, 2 and 3 (a model's last when it has fewer): the wide
     * models' influences 5 to 8 follow their copied vertices. */
    const uint8_t levels[3] = {1, 2, 3};
    s->g.levels = levels;
    uint32_t wide_at_a_level = 0;
    if (crowd_gpu_frame(&s->g, &r, mixed, 3, false))
        for (uint32_t k = 0; k < 3; k++) {
            const vks_model *m = s->g.crowd.models[s->g.crowd.instances[mixed[k]].model];
            const uint32_t last = vks_model_level_count(m) - 1;
            const uint32_t level = levels[k] < last ? levels[k] : last;
            CHECK(vks_skinner_skinned_level(&r.skinner, mixed[k]) == level);
            wide_at_a_level += m->joints_extra && level > 0;
            crowd_gpu_check_instance(&s->g, &r, mixed[k], "frame 2, levels", NULL);
        }
    CHECK(wide_at_a_level >= 1); /* the widened default character has levels */
    s->g.levels = NULL;
    printf("compute: largest errors over frames 1 and 2: positions %.3g of the radius, unit "
           "vectors %.3g; bit-identical to the CPU: %llu of %llu position floats\n",
           s->g.worst_pos, s->g.worst_unit, (unsigned long long)s->g.identical,
           (unsigned long long)s->g.floats);

    /* Frame 3: everyone drawn, the camera on a wide character. */
    vks_crowd_advance(&s->g.crowd, NULL, 0.3);
    if (crowd_gpu_frame(&s->g, &r, all, INSTANCES, true)) {
        uint32_t drawn = crowd_gpu_drawn_pixels(s->g.pixels.mapped);
        CHECK(drawn >= MIN_DRAWN_FRACTION * IMAGE_SIZE * IMAGE_SIZE);
        printf("compute draw: %u of %u pixels drawn\n", drawn, IMAGE_SIZE * IMAGE_SIZE);
        memcpy(image, s->g.pixels.mapped, (size_t)IMAGE_SIZE * IMAGE_SIZE * 4);
    }
    vks_renderer_destroy(&r);
}

/* Frame 3 skinned in the vertex shader: the compute image; with influences 5 to 8 dropped, not. */
static void test_vertex(scene *s, const uint8_t *image, const uint32_t *all)
{
    for (int dropped = 0; dropped < 2; dropped++) {
        use_dropped(s, dropped);
        vks_renderer r;
        if (crowd_gpu_renderer(&s->g, VKS_SKIN_VERTEX, 0, 0, &r,
                               dropped ? "vertex (dropped)" : "vertex")) {
            if (crowd_gpu_frame(&s->g, &r, all, INSTANCES, true)) {
                uint32_t drawn = crowd_gpu_drawn_pixels(s->g.pixels.mapped);
                uint32_t differ = crowd_gpu_differing_pixels(s->g.pixels.mapped, image);
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

static bool create_crowd(scene *s)
{
    const vks_model *models[MODEL_COUNT] = {&s->g.models[MODEL_NARROW], &s->g.models[MODEL_WIDE],
                                            &s->g.models[MODEL_WIDE_T]};
    vks_error err;
    if (!vks_crowd_create(&(vks_crowd_desc){.models = models,
                                            .model_count = MODEL_COUNT,
                                            .instance_count = INSTANCES,
                                            .time = 0.37,
                                            .threads = 1,
                                            .seed = SEED},
                          &s->g.crowd, &err)) {
        fprintf(stderr, "crowd: %s\n", err.msg);
        CHECK(!"crowd creation failed");
        return false;
    }
    /* Grouped by model, two each: 0, 1 narrow; 2, 3 wide; 4, 5 wide with tangents. */
    for (uint32_t i = 0; i < INSTANCES; i++)
        CHECK(s->g.crowd.instances[i].model == i / 2);
    s->g.focus = 2;
    return true;
}

int main(int argc, char **argv)
{
    char tangents[4096];
    int args = crowd_gpu_args(argc, argv, "test_gpu_wide", tangents, sizeof tangents);
    if (args)
        return args;
    const char *paths[MODEL_COUNT] = {argv[1], argv[1], tangents};

    scene s = {0};
    /* Models before the device: the importer forks (asset/import.h). */
    for (int k = 0; k < MODEL_COUNT; k++) {
        if (!crowd_gpu_import_as(paths[k], &s.g.models[k], false))
            return check_report("test_gpu_wide");
        /* Both files have at most 4 influences per vertex: imported, they are not wide. */
        CHECK(s.g.models[k].joints_extra == NULL);
        if (k != MODEL_NARROW)
            CHECK(widen(&s.g.models[k]));
        vks_error err;
        CHECK(vks_model_pack(&s.g.models[k], &err)); /* widened first: 8 weights quantized */
        CHECK(vks_model_build_lods(&s.g.models[k], &err));
        s.dropped[k] = s.g.models[k];
        s.dropped[k].joints_extra = NULL;
        s.dropped[k].weights_extra = NULL;
        s.g.radius[k] = crowd_gpu_bind_radius(&s.g.models[k]);
        CHECK(s.g.radius[k] > 0.0);
    }
    CHECK(s.g.models[MODEL_WIDE_T].tangents != NULL);

    bool target = false;
    if (crowd_gpu_open(&s.g, "test_gpu_wide", &target)) {
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
            vks_crowd_destroy(&s.g.crowd);
        }
        crowd_gpu_close(&s.g);
    }
    for (int k = 0; k < MODEL_COUNT; k++)
        vks_model_destroy(&s.g.models[k]);
    return check_report("test_gpu_wide");
}
