/* Minimal test helpers: every CHECK counts, a test program exits non-zero when any failed, and
 * 77 (ctest's SKIP_RETURN_CODE) after printing why when it cannot run. */
#ifndef VKS_CHECK_H
#define VKS_CHECK_H

#include <dirent.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

static inline int check__by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Calls visit(path) for every *.glb in dir (the sample models' folder), in name order; says
 * "skipped: ..." when there is none (ctest's post-test step lists such lines). */
static inline void check_each_glb(const char *dir, void (*visit)(const char *path))
{
    DIR *d = opendir(dir);
    if (!d) {
        printf("skipped: the sample models: cannot read '%s' (set VKS_SAMPLE_MODELS; "
               "docs/testing.md)\n",
               dir);
        return;
    }
    char **names = NULL;
    size_t count = 0;
    for (struct dirent *e; (e = readdir(d));) {
        size_t n = strlen(e->d_name);
        char **grown = n > 4 && strcmp(e->d_name + n - 4, ".glb") == 0
                           ? realloc(names, sizeof *names * (count + 1))
                           : NULL;
        if (!grown)
            continue;
        names = grown;
        names[count] = malloc(strlen(dir) + n + 2);
        if (names[count])
            sprintf(names[count++], "%s/%s", dir, e->d_name);
    }
    closedir(d);
    if (count)
        qsort(names, count, sizeof *names, check__by_name);
    else
        printf("skipped: the sample models: no .glb file in '%s' (set VKS_SAMPLE_MODELS; "
               "docs/testing.md)\n",
               dir);
    for (size_t i = 0; i < count; i++) {
        visit(names[i]);
        free(names[i]);
    }
    free(names);
}

/* Calls visit(path) for every model named in argv (FILE, or --folder DIR for its *.glb files).
 * Returns SKIP_RETURN when `visited` stayed 0 and nothing failed (the folders were absent or
 * empty, which check_each_glb said); 0 otherwise. */
static inline int check_each_model_arg(int argc, char **argv, void (*visit)(const char *path),
                                       const size_t *visited)
{
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--folder") == 0 && i + 1 < argc)
            check_each_glb(argv[++i], visit);
        else
            visit(argv[i]);
    }
    return *visited || check_failures ? 0 : SKIP_RETURN;
}

/* Largest |a - b| over n vectors of `dim` floats (strides in floats); NaN anywhere counts as
 * infinite, so unwritten (NaN-filled) output cannot pass. */
static inline double check_max_diff(const float *a, size_t a_stride, const float *b,
                                    size_t b_stride, uint32_t n, int dim)
{
    double worst = 0.0;
    for (uint32_t v = 0; v < n; v++)
        for (int k = 0; k < dim; k++) {
            double d = fabs((double)a[v * a_stride + k] - (double)b[v * b_stride + k]);
            worst = d == d ? fmax(worst, d) : INFINITY;
        }
    return worst;
}

/* The box [lo, hi] around n positions. */
static inline void check_box(const float (*p)[3], uint32_t n, float lo[3], float hi[3])
{
    for (int k = 0; k < 3; k++)
        lo[k] = n ? p[0][k] : 0.0f, hi[k] = n ? p[0][k] : 0.0f;
    for (uint32_t v = 0; v < n; v++)
        for (int k = 0; k < 3; k++)
            lo[k] = fminf(lo[k], p[v][k]), hi[k] = fmaxf(hi[k], p[v][k]);
}

/* How far apart two palette entries (3 rows x 4, row-major) move a point of the box [lo, hi]:
 * the largest |(a - b) * corner| over the box's 8 corners (|(a - b) v| is convex in v, so no
 * point of the box moves further). NaN counts as infinite. */
static inline double check_entry_deviation(const float a[12], const double b[12], const float lo[3],
                                           const float hi[3])
{
    double worst = 0.0;
    for (int corner = 0; corner < 8; corner++) {
        double d2 = 0.0;
        for (int r = 0; r < 3; r++) {
            double d = a[r * 4 + 3] - b[r * 4 + 3];
            for (int c = 0; c < 3; c++)
                d += (a[r * 4 + c] - b[r * 4 + c]) * (corner >> c & 1 ? hi[c] : lo[c]);
            d2 += d * d;
        }
        worst = d2 == d2 ? fmax(worst, sqrt(d2)) : INFINITY;
    }
    return worst;
}

/* The box's diagonal, 1 for an empty or degenerate box. */
static inline double check_box_diagonal(const float lo[3], const float hi[3])
{
    double d2 = 0.0;
    for (int c = 0; c < 3; c++)
        d2 += ((double)hi[c] - lo[c]) * ((double)hi[c] - lo[c]);
    return d2 > 0.0 ? sqrt(d2) : 1.0;
}

/* The largest distance two palettes (n entries) move a point of the box [lo, hi] apart, over the
 * box's diagonal: how far skinned vertices of a model with that bind-pose box can differ,
 * relative to its size. */
static inline double check_palette_deviation(const float *a, const float *b, uint32_t n,
                                             const float lo[3], const float hi[3])
{
    double worst = 0.0;
    for (uint32_t e = 0; e < n; e++) {
        double want[12];
        for (int k = 0; k < 12; k++)
            want[k] = b[e * 12 + k];
        worst = fmax(worst, check_entry_deviation(a + e * 12, want, lo, hi));
    }
    return worst / check_box_diagonal(lo, hi);
}

#endif
