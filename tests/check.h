/* Minimal test helpers: every CHECK counts, a test program exits non-zero when any failed, and
 * 77 (ctest's SKIP_RETURN_CODE) after printing why when it cannot run. */
#ifndef VKS_CHECK_H
#define VKS_CHECK_H

#include <math.h>
#include <stdio.h>

static int check_failures, check_count;

#define CHECK(cond)                                                                                \
    do {                                                                                           \
        check_count++;                                                                             \
        if (!(cond)) {                                                                             \
            check_failures++;                                                                      \
            fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond);               \
        }                                                                                          \
    } while (0)

#define CHECK_NEAR(a, b, tol)                                                                      \
    do {                                                                                           \
        double check_a_ = (a), check_b_ = (b);                                                     \
        check_count++;                                                                             \
        if (!(fabs(check_a_ - check_b_) <= (tol))) {                                               \
            check_failures++;                                                                      \
            fprintf(stderr, "%s:%d: CHECK_NEAR failed: %s = %.9g, %s = %.9g (tol %g)\n", __FILE__, \
                    __LINE__, #a, check_a_, #b, check_b_, (double)(tol));                          \
        }                                                                                          \
    } while (0)

#define CHECK_VEC_NEAR(a, b, n, tol)                                                               \
    do {                                                                                           \
        for (int check_i_ = 0; check_i_ < (n); check_i_++)                                         \
            CHECK_NEAR((a)[check_i_], (b)[check_i_], tol);                                         \
    } while (0)

static inline int check_report(const char *name)
{
    printf("%s: %d checks, %d failed\n", name, check_count, check_failures);
    return check_failures ? 1 : 0;
}

#define SKIP_RETURN 77
#define PI_F 3.14159265358979f

#endif
