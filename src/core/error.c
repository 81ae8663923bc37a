#include "error.h"

#include <stdarg.h>
#include <stdio.h>

bool vks_fail(vks_error *err, const char *fmt, ...)
{
    if (err) {
        va_list args;
        va_start(args, fmt);
        vsnprintf(err->msg, sizeof err->msg, fmt, args);
        va_end(args);
    }
    return false;
}
