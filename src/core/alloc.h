/* Every heap allocation vkskin makes of its own goes through these: the C library's, or the
 * host's allocator once vkskin_set_allocator has given one (include/vkskin/vkskin.h). The
 * allocator changes only while no vkskin object lives, so each block is freed the way it was
 * allocated. Blocks from the host's allocator carry a 16-byte header before the pointer (its size
 * and where the host's block starts), for vks_realloc and for aligned blocks. assimp,
 * meshoptimizer and cJSON keep allocating with the C library. */
#ifndef VKS_ALLOC_H
#define VKS_ALLOC_H

#include <stdbool.h>
#include <stddef.h>

typedef struct vks_allocator {
    void *(*alloc)(void *user, size_t size, size_t align);
    void (*free)(void *user, void *ptr);
    void *user;
} vks_allocator;

void *vks_malloc(size_t size);
void *vks_calloc(size_t count, size_t size);
void *vks_realloc(void *ptr, size_t size);
/* align: a power of two, at least 16; size need not be a multiple of it. */
void *vks_aligned_alloc(size_t align, size_t size);
void vks_free(void *ptr);
char *vks_strdup(const char *s);

/* The host's allocator (NULL: the C library's). The caller makes sure no block is live. */
void vks_set_allocator(const vks_allocator *allocator);

/* The API's objects (models, crowds, stores, renderers, vkskin_gpu), zeroed, counted while they
 * live: the allocator cannot change meanwhile. */
void *vks_object_alloc(size_t size);
void vks_object_free(void *object); /* NULL is ignored */
long vks_live_objects(void);

#endif
