/* Tier-2 errors: anything a user, a file or the environment can cause is returned as `false`
 * with one human-readable message in a caller-owned vks_error. */
#ifndef VKS_ERROR_H
#define VKS_ERROR_H

#include <stdbool.h>

typedef struct vks_error {
    char msg[512];
} vks_error;

/* Formats the message into err (when err is not NULL) and returns false, so that call sites read
 * `return vks_fail(err, "...", ...);`. A later call overwrites an earlier message. */
bool vks_fail(vks_error *err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
