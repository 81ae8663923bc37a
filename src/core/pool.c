/* sched_getaffinity and CPU_COUNT are GNU extensions. */
#define _GNU_SOURCE
#include "pool.h"
#include "../core/alloc.h"

#include <assert.h>
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* More threads than this is a mistake, not a machine: each costs a stack and a wake-up per job. */
#define POOL_MAX_THREADS 1024u

typedef struct pool_worker {
    struct vks_pool *pool;
    uint32_t index;
    pthread_t thread;
} pool_worker;

struct vks_pool {
    uint32_t threads;
    uint32_t started; /* workers running: threads - 1 once created */
    pool_worker *workers;

    pthread_mutex_t mutex;
    pthread_cond_t wake; /* a new job was posted, or quit */
    pthread_cond_t idle; /* the last worker inside a job left it */

    /* The job, written under the mutex while no worker is inside one. */
    uint64_t generation; /* bumped per job: a worker joins each generation at most once */
    bool open;           /* workers may still join the current job */
    bool quit;
    bool running;    /* a vks_pool_run is in progress (to catch nesting) */
    uint32_t active; /* workers inside the job */
    vks_pool_fn *fn;
    void *ctx;
    uint32_t count, grain;
    uint64_t chunk_count;
    /* The next chunk to take. 64-bit: every thread may overshoot by one past chunk_count. */
    _Atomic uint64_t next;
};

/* Takes chunks until none is left. fn/ctx/count/grain are the caller's copies, read under the
 * mutex, so the job fields can be rewritten as soon as every thread has left. */
static void pool_work(struct vks_pool *p, vks_pool_fn *fn, void *ctx, uint32_t count,
                      uint32_t grain, uint64_t chunk_count, uint32_t thread)
{
    for (;;) {
        uint64_t c = atomic_fetch_add_explicit(&p->next, 1, memory_order_relaxed);
        if (c >= chunk_count)
            return;
        uint64_t begin = c * grain, end = begin + grain;
        fn(ctx, (uint32_t)begin, (uint32_t)(end < count ? end : count), thread);
    }
}

static void *pool_worker_main(void *arg)
{
    pool_worker *w = arg;
    struct vks_pool *p = w->pool;
    uint64_t seen = 0;
    pthread_mutex_lock(&p->mutex);
    for (;;) {
        while (!p->quit && p->generation == seen)
            pthread_cond_wait(&p->wake, &p->mutex);
        if (p->quit)
            break;
        seen = p->generation;
        /* A worker that wakes after the caller closed the job must not touch the counter: the
         * next job resets it. Joining happens under the mutex, closing too, so either the caller
         * waits for this worker or this worker stays out. */
        if (!p->open)
            continue;
        p->active++;
        vks_pool_fn *fn = p->fn;
        void *ctx = p->ctx;
        uint32_t count = p->count, grain = p->grain;
        uint64_t chunk_count = p->chunk_count;
        pthread_mutex_unlock(&p->mutex);

        pool_work(p, fn, ctx, count, grain, chunk_count, w->index);

        pthread_mutex_lock(&p->mutex);
        if (--p->active == 0)
            pthread_cond_signal(&p->idle);
    }
    pthread_mutex_unlock(&p->mutex);
    return NULL;
}

uint32_t vks_pool_cores(void)
{
    cpu_set_t set;
    CPU_ZERO(&set);
    if (sched_getaffinity(0, sizeof set, &set) == 0) {
        int n = CPU_COUNT(&set);
        if (n > 0)
            return (uint32_t)n;
    }
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? (uint32_t)n : 1u;
}

bool vks_pool_create(uint32_t threads, vks_pool **out, vks_error *err)
{
    *out = NULL;
    if (threads == 0)
        threads = vks_pool_cores();
    if (threads > POOL_MAX_THREADS)
        return vks_fail(err, "a thread pool takes 1 to %u threads, not %u", POOL_MAX_THREADS,
                        threads);
    struct vks_pool *p = vks_calloc(1, sizeof *p);
    pool_worker *workers = threads > 1 ? vks_calloc(threads - 1, sizeof *workers) : NULL;
    if (!p || (threads > 1 && !workers)) {
        vks_free(p);
        vks_free(workers);
        return vks_fail_memory(err, "out of memory for a pool of %u threads", threads);
    }
    p->threads = threads;
    p->workers = workers;
    atomic_init(&p->next, 0);
    pthread_mutex_init(&p->mutex, NULL);
    pthread_cond_init(&p->wake, NULL);
    pthread_cond_init(&p->idle, NULL);
    for (uint32_t i = 0; i + 1 < threads; i++) {
        workers[i] = (pool_worker){.pool = p, .index = i + 1};
        int rc = pthread_create(&workers[i].thread, NULL, pool_worker_main, &workers[i]);
        if (rc != 0) {
            vks_pool_destroy(p);
            return vks_fail(err, "cannot start thread %u of %u: %s", i + 2, threads, strerror(rc));
        }
        p->started++;
    }
    *out = p;
    return true;
}

void vks_pool_destroy(vks_pool *p)
{
    if (!p)
        return;
    pthread_mutex_lock(&p->mutex);
    assert(!p->running);
    p->quit = true;
    pthread_cond_broadcast(&p->wake);
    pthread_mutex_unlock(&p->mutex);
    for (uint32_t i = 0; i < p->started; i++)
        pthread_join(p->workers[i].thread, NULL);
    pthread_cond_destroy(&p->idle);
    pthread_cond_destroy(&p->wake);
    pthread_mutex_destroy(&p->mutex);
    vks_free(p->workers);
    vks_free(p);
}

uint32_t vks_pool_threads(const vks_pool *p)
{
    return p ? p->threads : 1u;
}

void vks_pool_run(vks_pool *p, uint32_t count, uint32_t grain, vks_pool_fn *fn, void *ctx)
{
    if (count == 0)
        return;
    uint32_t threads = vks_pool_threads(p);
    if (grain == 0)
        grain = (uint32_t)(((uint64_t)count + threads - 1) / threads);
    uint64_t chunk_count = ((uint64_t)count + grain - 1) / grain;
    /* One chunk or no workers: no reason to wake anyone. */
    if (threads == 1 || chunk_count == 1) {
        for (uint64_t begin = 0; begin < count; begin += grain) {
            uint64_t end = begin + grain;
            fn(ctx, (uint32_t)begin, (uint32_t)(end < count ? end : count), 0);
        }
        return;
    }

    pthread_mutex_lock(&p->mutex);
    assert(!p->running && p->active == 0); /* calls must not nest or overlap */
    p->running = true;
    p->fn = fn;
    p->ctx = ctx;
    p->count = count;
    p->grain = grain;
    p->chunk_count = chunk_count;
    atomic_store_explicit(&p->next, 0, memory_order_relaxed);
    p->open = true;
    p->generation++;
    pthread_cond_broadcast(&p->wake);
    pthread_mutex_unlock(&p->mutex);

    pool_work(p, fn, ctx, count, grain, chunk_count, 0);

    /* Every chunk is taken; the workers holding one are counted in `active`. */
    pthread_mutex_lock(&p->mutex);
    p->open = false;
    while (p->active > 0)
        pthread_cond_wait(&p->idle, &p->mutex);
    p->running = false;
    pthread_mutex_unlock(&p->mutex);
}

uint32_t vks_pool_grain(uint32_t count, uint32_t least, uint32_t chunks)
{
    const uint32_t even = (uint32_t)(((uint64_t)count + chunks - 1) / chunks);
    return even > least ? even : least ? least : 1;
}
