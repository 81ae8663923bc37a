#include "error.h"

#include <stdarg.h>
#include <stdio.h>

static void fail_as(vks_error *err, vks_error_kind kind, const char *fmt, va_list args)
    __attribute__((format(printf, 3, 0)));

static void fail_as(vks_error *err, vks_error_kind kind, const char *fmt, va_list args)
{
    if (err) {
        vsnprintf(err->msg, sizeof err->msg, fmt, args);
        err->kind = kind;
    }
}

bool vks_fail(vks_error *err, const char *fmt, ...)
{
    va_list args;
    va_start(args, fmt);
    fail_as(err, VKS_ERROR_FAILED, fmt, args);
    va_end(args);
    return false;
}

bool vks_fail_memory(vks_error *err, const char *fmt, ...)
{
    va_list args;
    va_start(args, fmt);
    fail_as(err, VKS_ERROR_MEMORY, fmt, args);
    va_end(args);
    return false;
}

bool vks_fail_usage(vks_error *err, const char *fmt, ...)
{
    va_list args;
    va_start(args, fmt);
    fail_as(err, VKS_ERROR_USAGE, fmt, args);
    va_end(args);
    return false;
}
