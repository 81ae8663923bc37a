#include "alloc.h"

#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static vks_allocator host; /* alloc NULL: the C library */
static atomic_long live;   /* objects handed out */

enum { HEADER = 16 };

/* The header before a host block's pointer: its usable size, and how far back the host's block
 * starts. */
typedef struct header {
    uint64_t size, offset;
} header;
_Static_assert(sizeof(header) == HEADER, "the header is 16 bytes");

static void *host_alloc(size_t align, size_t size)
{
    if (size > SIZE_MAX - align)
        return NULL;
    unsigned char *block = host.alloc(host.user, align + size, align);
    if (!block)
        return NULL;
    unsigned char *p = block + align; /* align >= HEADER: the header fits before p */
    const header h = {size, align};
    memcpy(p - HEADER, &h, sizeof h);
    return p;
}

static header header_of(const void *p)
{
    header h;
    memcpy(&h, (const unsigned char *)p - HEADER, sizeof h);
    return h;
}

void *vks_malloc(size_t size)
{
    return host.alloc ? host_alloc(HEADER, size ? size : 1) : malloc(size);
}

void *vks_calloc(size_t count, size_t size)
{
    if (!host.alloc)
        return calloc(count, size);
    if (size && count > SIZE_MAX / size)
        return NULL;
    const size_t n = count * size;
    void *p = host_alloc(HEADER, n ? n : 1);
    if (p)
        memset(p, 0, n);
    return p;
}

void *vks_realloc(void *ptr, size_t size)
{
    if (!host.alloc)
        return realloc(ptr, size);
    if (!ptr)
        return vks_malloc(size);
    const header h = header_of(ptr);
    void *p = host_alloc(HEADER, size ? size : 1);
    if (!p)
        return NULL;
    memcpy(p, ptr, h.size < size ? h.size : size);
    vks_free(ptr);
    return p;
}

void *vks_aligned_alloc(size_t align, size_t size)
{
    if (size > SIZE_MAX - (align - 1))
        return NULL;
    if (!host.alloc) {
        const size_t rounded = (size + align - 1) & ~(align - 1); /* C11: a multiple of align */
        return aligned_alloc(align, rounded ? rounded : align);
    }
    return host_alloc(align < HEADER ? HEADER : align, size ? size : 1);
}

void vks_free(void *ptr)
{
    if (!ptr)
        return;
    if (!host.alloc) {
        free(ptr);
        return;
    }
    host.free(host.user, (unsigned char *)ptr - header_of(ptr).offset);
}

char *vks_strdup(const char *s)
{
    const size_t n = strlen(s) + 1;
    char *d = vks_malloc(n);
    if (d)
        memcpy(d, s, n);
    return d;
}

void vks_set_allocator(const vks_allocator *allocator)
{
    host = allocator ? *allocator : (vks_allocator){0};
}

void *vks_object_alloc(size_t size)
{
    void *p = vks_calloc(1, size);
    if (p)
        atomic_fetch_add(&live, 1);
    return p;
}

void vks_object_free(void *object)
{
    if (!object)
        return;
    atomic_fetch_sub(&live, 1);
    vks_free(object);
}

long vks_live_objects(void)
{
    return atomic_load(&live);
}
