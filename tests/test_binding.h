/* Which binding the GPU tests' renderers take. Validation is on in every test, so by default they
 * run the descriptors binding (what validation runs, render/renderer.h); with
 * VKS_TEST_BINDING=addresses in the environment they ask for the fast path, device addresses, which
 * is what runs outside validation. ctest runs the GPU tests both ways (tests/CMakeLists.txt). */
#ifndef VKS_TEST_BINDING_H
#define VKS_TEST_BINDING_H

#include "render/renderer.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

static inline bool test_binding_addresses(void)
{
    const char *value = getenv("VKS_TEST_BINDING");
    return value && strcmp(value, "addresses") == 0;
}

/* The renderer's binding for a GPU test: the addresses binding, or AUTO (under validation:
 * descriptors). */
static inline vks_binding test_binding(void)
{
    return test_binding_addresses() ? VKS_BINDING_ADDRESSES : VKS_BINDING_AUTO;
}

static inline const char *test_binding_name(void)
{
    return test_binding_addresses() ? "the addresses binding" : "the descriptors binding";
}

#endif
