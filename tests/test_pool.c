/* The thread pool: every item of every range visited exactly once, on a thread index in range,
 * for many counts, grains and pool sizes, over repeated runs of the same pool. */
#include "core/pool.h"
#include "check.h"

#include <stdatomic.h>
#include <stdint.h>

typedef struct visit_job {
    _Atomic uint32_t *hits; /* per item */
    uint32_t count, grain, threads;
    _Atomic uint32_t bad_chunks; /* empty, reversed, past the end, too long or on a bad thread */
    _Atomic uint32_t calls;
} visit_job;

static void visit(void *ctx, uint32_t begin, uint32_t end, uint32_t thread)
{
    visit_job *job = ctx;
    atomic_fetch_add(&job->calls, 1);
    uint32_t limit = job->grain ? job->grain : job->count;
    if (begin >= end || end > job->count || end - begin > limit || thread >= job->threads)
        atomic_fetch_add(&job->bad_chunks, 1);
    for (uint32_t i = begin; i < end && i < job->count; i++)
        atomic_fetch_add_explicit(&job->hits[i], 1, memory_order_relaxed);
}

/* Runs [0, count) with `grain` on `pool` and checks that each item was visited once. */
static void run_once(vks_pool *pool, uint32_t count, uint32_t grain, _Atomic uint32_t *hits)
{
    visit_job job = {.hits = hits, .count = count, .grain = grain};
    job.threads = vks_pool_threads(pool);
    for (uint32_t i = 0; i < count; i++)
        atomic_init(&hits[i], 0);
    atomic_init(&job.bad_chunks, 0);
    atomic_init(&job.calls, 0);
    vks_pool_run(pool, count, grain, visit, &job);
    uint32_t wrong = 0;
    for (uint32_t i = 0; i < count; i++)
        wrong += atomic_load(&hits[i]) != 1;
    CHECK(wrong == 0);
    CHECK(atomic_load(&job.bad_chunks) == 0);
    if (count == 0)
        CHECK(atomic_load(&job.calls) == 0);
    /* grain 0: the range split evenly, one chunk per thread at most. */
    if (grain == 0)
        CHECK(atomic_load(&job.calls) <= job.threads);
    if (wrong || atomic_load(&job.bad_chunks))
        fprintf(stderr, "  threads %u count %u grain %u: %u wrong items, %u bad chunks\n",
                job.threads, count, grain, wrong, atomic_load(&job.bad_chunks));
}

static void test_sizes(void)
{
    enum { MAX_COUNT = 100000 };
    _Atomic uint32_t *hits = malloc(sizeof *hits * MAX_COUNT);
    CHECK(hits != NULL);
    if (!hits)
        return;
    const uint32_t thread_counts[] = {1, 2, 3, 4, 8};
    const uint32_t counts[] = {0, 1, 2, 3, 5, 7, 8, 63, 64, 65, 1000, 4097, MAX_COUNT};
    const uint32_t grains[] = {0, 1, 2, 3, 7, 64, 1000, MAX_COUNT, UINT32_MAX};
    for (size_t t = 0; t < sizeof thread_counts / sizeof *thread_counts; t++) {
        vks_pool *pool = NULL;
        vks_error err = {{0}};
        bool ok = vks_pool_create(thread_counts[t], &pool, &err);
        CHECK(ok);
        if (!ok) {
            fprintf(stderr, "%s\n", err.msg);
            continue;
        }
        CHECK(vks_pool_threads(pool) == thread_counts[t]);
        for (size_t c = 0; c < sizeof counts / sizeof *counts; c++)
            for (size_t g = 0; g < sizeof grains / sizeof *grains; g++)
                run_once(pool, counts[c], grains[g], hits);
        vks_pool_destroy(pool);
    }
    free(hits);
}

/* Many small jobs back to back on one pool: workers that wake late must not take chunks of the
 * next job with the previous job's function. */
static void test_repeated(void)
{
    enum { COUNT = 37, RUNS = 3000 };
    _Atomic uint32_t hits[COUNT];
    vks_pool *pool = NULL;
    vks_error err = {{0}};
    CHECK(vks_pool_create(4, &pool, &err));
    if (!pool)
        return;
    for (uint32_t r = 0; r < RUNS; r++)
        run_once(pool, 1 + r % COUNT, 1 + r % 5, hits);
    vks_pool_destroy(pool);
}

typedef struct sum_job {
    const uint32_t *values;
    uint64_t *partial; /* per thread: no sharing, no atomics */
} sum_job;

static void sum_chunk(void *ctx, uint32_t begin, uint32_t end, uint32_t thread)
{
    sum_job *job = ctx;
    for (uint32_t i = begin; i < end; i++)
        job->partial[thread] += job->values[i];
}

/* Per-thread results read by the caller after the run: the run's return orders them. */
static void test_per_thread_results(void)
{
    enum { COUNT = 50000, THREADS = 3 };
    uint32_t *values = malloc(sizeof *values * COUNT);
    CHECK(values != NULL);
    vks_pool *pool = NULL;
    vks_error err = {{0}};
    CHECK(vks_pool_create(THREADS, &pool, &err));
    if (!values || !pool) {
        free(values);
        vks_pool_destroy(pool);
        return;
    }
    uint64_t expect = 0;
    for (uint32_t i = 0; i < COUNT; i++) {
        values[i] = i * 2654435761u >> 7;
        expect += values[i];
    }
    for (int r = 0; r < 50; r++) {
        uint64_t partial[THREADS] = {0};
        sum_job job = {.values = values, .partial = partial};
        vks_pool_run(pool, COUNT, 128, sum_chunk, &job);
        CHECK(partial[0] + partial[1] + partial[2] == expect);
    }
    free(values);
    vks_pool_destroy(pool);
}

static void test_defaults(void)
{
    uint32_t cores = vks_pool_cores();
    CHECK(cores >= 1);
    vks_pool *pool = NULL;
    vks_error err = {{0}};
    CHECK(vks_pool_create(0, &pool, &err));
    CHECK(vks_pool_threads(pool) == cores);
    vks_pool_destroy(pool);
    vks_pool_destroy(NULL); /* a no-op */

    CHECK(!vks_pool_create(100000, &pool, &err));
    CHECK(pool == NULL);
    CHECK(strcmp(err.msg, "a thread pool takes 1 to 1024 threads, not 100000") == 0);

    /* No pool: the caller runs it alone. */
    _Atomic uint32_t hits[10];
    run_once(NULL, 10, 3, hits);
}

int main(void)
{
    test_defaults();
    test_sizes();
    test_repeated();
    test_per_thread_results();
    return check_report("test_pool");
}
