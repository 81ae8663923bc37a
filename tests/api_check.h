/* What the public API's tests share: a call's error against what it must be. */
#ifndef VKS_API_CHECK_H
#define VKS_API_CHECK_H

#include "check.h"

#include "vkskin/vkskin.h"

/* The call returned `want`, with err->result the same and one line of message that contains
 * `needle`. */
static inline void check_error(vkskin_result r, const vkskin_error *err, vkskin_result want,
                               const char *needle)
{
    const bool ok = r == want && err->result == want && strstr(err->message, needle) != NULL &&
                    strchr(err->message, '\n') == NULL;
    CHECK(ok);
    if (!ok)
        fprintf(stderr, "  got %d '%s', want %d '...%s...'\n", (int)r, err->message, (int)want,
                needle);
}

#endif
