/* A small thread pool for data-parallel loops: a fixed set of worker threads that sleep between
 * jobs, and one call that splits [0, count) into chunks the threads (the caller included) take
 * with an atomic counter. Not a thread per task: the same workers run every frame's job. */
#ifndef VKS_POOL_H
#define VKS_POOL_H

#include "error.h"

#include <stdbool.h>
#include <stdint.h>

typedef struct vks_pool vks_pool;

/* The processors this process may run on (sched_getaffinity), at least 1. */
uint32_t vks_pool_cores(void);

/* Creates a pool of `threads` threads in all, the caller's included (threads - 1 workers);
 * 0 means vks_pool_cores(). Start it only after models are loaded: the importer's crash guard
 * forks (import.h). */
bool vks_pool_create(uint32_t threads, vks_pool **pool, vks_error *err);
/* Joins the workers. NULL is a no-op. */
void vks_pool_destroy(vks_pool *pool);
/* The threads in all, the caller's included; 1 for NULL. */
uint32_t vks_pool_threads(const vks_pool *pool);

/* fn(ctx, begin, end, thread): one chunk [begin, end) of the range, on thread `thread` in
 * [0, vks_pool_threads()) (0 is the caller). */
typedef void vks_pool_fn(void *ctx, uint32_t begin, uint32_t end, uint32_t thread);

/* Runs fn over [0, count) in chunks of at most `grain` items (0: count split evenly over the
 * threads) and returns when every chunk is done. Each item is visited exactly once. Calls must not
 * nest or overlap; a pool of one thread (or NULL) runs fn on the caller. */
void vks_pool_run(vks_pool *pool, uint32_t count, uint32_t grain, vks_pool_fn *fn, void *ctx);

/* A grain for a pass over `count` items whose chunks keep findings apart (indexed begin / grain):
 * at least `least` (and 1), and large enough for at most `chunks` chunks. */
uint32_t vks_pool_grain(uint32_t count, uint32_t least, uint32_t chunks);

#endif
