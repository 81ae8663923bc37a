/* Tier-2 errors: anything a user, a file or the environment can cause is returned as `false`
 * with one human-readable message in a caller-owned vks_error, and what kind of failure it was
 * (the library's API reports it as its result code). */
#ifndef VKS_ERROR_H
#define VKS_ERROR_H

#include <stdbool.h>

typedef enum vks_error_kind {
    VKS_ERROR_FAILED = 0, /* the file, the device or the system failed */
    VKS_ERROR_MEMORY,     /* host or device memory ran out, or counts outgrew what it holds */
    VKS_ERROR_USAGE,      /* the caller asked for what cannot be (a bad desc or argument) */
} vks_error_kind;

typedef struct vks_error {
    char msg[512];
    vks_error_kind kind;
} vks_error;

/* Formats the message into err (when err is not NULL), with kind VKS_ERROR_FAILED, and returns
 * false, so that call sites read `return vks_fail(err, "...", ...);`. A later call overwrites an
 * earlier message. */
bool vks_fail(vks_error *err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* The same with kind VKS_ERROR_MEMORY, and VKS_ERROR_USAGE. */
bool vks_fail_memory(vks_error *err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
bool vks_fail_usage(vks_error *err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
