/* Which path the GPU tests' renderers take. Validation is on in every test, so by default they
 * run the descriptor path (what validation runs, render/renderer.h); with VKS_TEST_PATH=addresses
 * in the environment they ask for the fast path, device addresses, which is what runs outside
 * validation. ctest runs the GPU tests both ways (tests/CMakeLists.txt). */
#ifndef VKS_TEST_PATH_H
#define VKS_TEST_PATH_H

#include "render/renderer.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

static inline bool test_path_addresses(void)
{
    const char *path = getenv("VKS_TEST_PATH");
    return path && strcmp(path, "addresses") == 0;
}

/* The renderer's path for a GPU test: the address path, or AUTO (under validation: descriptors). */
static inline vks_path test_path(void)
{
    return test_path_addresses() ? VKS_PATH_ADDRESSES : VKS_PATH_AUTO;
}

static inline const char *test_path_name(void)
{
    return test_path_addresses() ? "the address path" : "the descriptor path";
}

#endif
