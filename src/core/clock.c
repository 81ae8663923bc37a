#include "clock.h"

#include <stdlib.h>
#include <time.h>

double vks_now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}

static int compare_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double vks_median(double *v, uint32_t n)
{
    qsort(v, n, sizeof *v, compare_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

double vks_median_known(double *v, uint32_t n)
{
    qsort(v, n, sizeof *v, compare_double);
    uint32_t first = 0;
    while (first < n && v[first] < 0.0) /* the negatives sort first */
        first++;
    return first < n ? vks_median(v + first, n - first) : -1.0;
}
