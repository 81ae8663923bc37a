/* Two renderers in one process, each on its own Vulkan instance and device, driven from two
 * threads at once with validation on: each thread's images must equal, bit for bit, the ones the
 * same crowd and renderer settings drew alone beforehand (one renderer at a time, on the main
 * thread), the two crowds' images must differ (nothing crossed between them), and validation must
 * say nothing. vkskin keeps no process-wide Vulkan state (src/gpu/vk.h): each device calls
 * through its own function table. Public API only. */
#include "api_check.h"

#include "vkskin/vkskin_render.h"

#include <pthread.h>

#define W 96u
#define H 72u
#define FRAMES 4u
#define INSTANCES 5u

typedef struct job {
    const vkskin_model *model;
    uint32_t seed;
    uint8_t *images[FRAMES];                                 /* W * H * 4 each */
    pthread_barrier_t *start;                                /* NULL: alone */
    char failure[sizeof(((vkskin_error *)0)->message) + 64]; /* "" when all went well */
    uint32_t validation_messages;
} job;

/* Makes the crowd and the renderer, draws FRAMES frames (the clocks a fixed step apart), reads
 * each image, and destroys both. On the calling thread: CHECK is not thread-safe, so what fails
 * is written into j->failure. */
static void *run(void *arg)
{
    job *j = arg;
    vkskin_error err;
    vkskin_crowd *crowd = NULL;
    vkskin_renderer *r = NULL;
    const char *what = NULL;
    if (vkskin_crowd_create(&(vkskin_crowd_desc){.desc_size = sizeof(vkskin_crowd_desc),
                                                 .models = &j->model,
                                                 .model_count = 1,
                                                 .instance_count = INSTANCES,
                                                 .clip = VKSKIN_CLIP_VARIED,
                                                 .time = 0.2,
                                                 .seed = j->seed,
                                                 .threads = 1},
                            &crowd, &err) != VKSKIN_OK)
        what = "crowd";
    else if (vkskin_renderer_create(
                 &(vkskin_renderer_desc){.desc_size = sizeof(vkskin_renderer_desc),
                                         .crowd = crowd,
                                         .validate = true,
                                         .width = W,
                                         .height = H,
                                         .pose_every_frame = true},
                 &r, &err) != VKSKIN_OK)
        what = "renderer";
    vkskin_view view;
    if (!what && vkskin_crowd_frame_view(crowd, (float)W / (float)H, &view, &err) != VKSKIN_OK)
        what = "view";
    if (j->start)
        pthread_barrier_wait(j->start); /* both threads draw at once (a failed one too) */
    for (uint32_t f = 0; f < FRAMES && !what; f++) {
        vkskin_crowd_advance_one_thread(crowd, 1.0 / 30.0, NULL);
        if (vkskin_renderer_frame(
                r, &(vkskin_frame_desc){.desc_size = sizeof(vkskin_frame_desc), .view = &view},
                NULL, &err) != VKSKIN_OK)
            what = "frame";
        else if (vkskin_renderer_read_image(r, j->images[f], &err) != VKSKIN_OK)
            what = "read_image";
    }
    if (what)
        snprintf(j->failure, sizeof j->failure, "%s: %s", what, err.message);
    vkskin_messages m = {0};
    vkskin_renderer_destroy(r, &m);
    j->validation_messages = m.errors + m.warnings;
    vkskin_crowd_destroy(crowd);
    return NULL;
}

static void check_job(const job *j, const char *when)
{
    CHECK(j->failure[0] == 0);
    CHECK(j->validation_messages == 0);
    if (j->failure[0] || j->validation_messages)
        fprintf(stderr, "  %s (seed %u): '%s', %u validation messages\n", when, j->seed, j->failure,
                j->validation_messages);
}

/* Pixels of the image unlike its first (the background): the crowd is in it. */
static uint32_t drawn(const uint8_t *image)
{
    uint32_t n = 0;
    for (uint32_t p = 1; p < W * H; p++)
        n += memcmp(image + 4 * p, image, 4) != 0;
    return n;
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: test_two_renderers MODEL_A MODEL_B\n");
        return 2;
    }
    vkskin_error err;
    vkskin_model *models[2] = {NULL, NULL};
    for (int k = 0; k < 2; k++)
        if (vkskin_model_load(
                &(vkskin_model_desc){.desc_size = sizeof(vkskin_model_desc), .path = argv[1 + k]},
                &models[k], &err) != VKSKIN_OK) {
            fprintf(stderr, "%s\n", err.message);
            return 1;
        }
    job alone[2], together[2];
    for (int k = 0; k < 2; k++) {
        alone[k] = (job){.model = models[k], .seed = 3 + (uint32_t)k};
        together[k] = alone[k];
        for (uint32_t f = 0; f < FRAMES; f++) {
            alone[k].images[f] = calloc(W * H, 4);
            together[k].images[f] = calloc(W * H, 4);
            if (!alone[k].images[f] || !together[k].images[f])
                return 1;
        }
    }

    /* Alone, one after the other, on this thread: the expected images. */
    for (int k = 0; k < 2; k++) {
        run(&alone[k]);
        check_job(&alone[k], "alone");
    }
    /* Together: two threads, two renderers and devices at once. */
    pthread_barrier_t start;
    pthread_barrier_init(&start, NULL, 2);
    pthread_t threads[2];
    for (int k = 0; k < 2; k++) {
        together[k].start = &start;
        CHECK(pthread_create(&threads[k], NULL, run, &together[k]) == 0);
    }
    for (int k = 0; k < 2; k++)
        pthread_join(threads[k], NULL);
    pthread_barrier_destroy(&start);

    uint32_t same = 0, crowd_pixels = 0;
    for (int k = 0; k < 2; k++) {
        check_job(&together[k], "together");
        for (uint32_t f = 0; f < FRAMES; f++) {
            const bool equal = memcmp(alone[k].images[f], together[k].images[f], W * H * 4) == 0;
            CHECK(equal);
            if (!equal)
                fprintf(stderr,
                        "  renderer %d, frame %u: the image drawn beside the other "
                        "renderer differs from the one drawn alone\n",
                        k, f);
            const uint32_t n = drawn(together[k].images[f]);
            CHECK(n > W * H / 50); /* the crowd covers more than 2% of the image */
            crowd_pixels += n;
        }
        /* The clocks moved: the first and last frames differ. */
        CHECK(memcmp(together[k].images[0], together[k].images[FRAMES - 1], W * H * 4) != 0);
    }
    for (uint32_t f = 0; f < FRAMES; f++)
        same += memcmp(together[0].images[f], together[1].images[f], W * H * 4) == 0;
    CHECK(same == 0); /* two models, two crowds: two different pictures */
    printf("two renderers on two threads: %u frames each, %u crowd pixels\n", FRAMES, crowd_pixels);

    for (int k = 0; k < 2; k++) {
        for (uint32_t f = 0; f < FRAMES; f++) {
            free(alone[k].images[f]);
            free(together[k].images[f]);
        }
        vkskin_model_destroy(models[k]);
    }
    printf("test_two_renderers: %d checks, %d failed\n", check_count, check_failures);
    return check_failures ? 1 : 0;
}
