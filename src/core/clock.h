/* Time and medians, for the library's own timings (frames, profiling). */
#ifndef VKS_CLOCK_H
#define VKS_CLOCK_H

#include <stdint.h>

/* A monotonic clock in milliseconds. */
double vks_now_ms(void);
/* The median of v[0 .. n) (sorts v); n > 0. */
double vks_median(double *v, uint32_t n);

#endif
