/* Time and medians, for the library's own timings (frames, profiling). */
#ifndef VKS_CLOCK_H
#define VKS_CLOCK_H

#include <stdint.h>

/* A monotonic clock in milliseconds. */
double vks_now_ms(void);
/* The median of v[0 .. n) (sorts v); n > 0. */
double vks_median(double *v, uint32_t n);
/* The median of the values of v[0 .. n) that are 0 or more (the others: a pass that did not
 * run); -1 when there is none. Sorts v. */
double vks_median_known(double *v, uint32_t n);

#endif
