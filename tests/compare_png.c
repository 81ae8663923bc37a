/* Compares a rendered PNG with a reference image, or checks one image's silhouette.
 *
 *   compare_png ACTUAL REFERENCE [--threshold N] [--max-differing PERCENT] [--max-mean N]
 *               [--count-tolerance PERCENT] [--bbox-tolerance PIXELS] [--any-framing]
 *               [--shape-only] [--background-tolerance N] [--downsample N] [--of-silhouette]
 *               [--figures]
 *   compare_png --silhouette IMAGE [--min-cover PERCENT]
 *
 * The background colour is the reference's top-left pixel (the image's own in --silhouette mode);
 * the silhouette is every pixel whose largest channel differs from it by more than 8/255
 * (--background-tolerance: less for images with parts shaded close to the background).
 *
 * Pass criteria of a comparison (defaults; edges rasterise differently between GPUs, so a few
 * pixels along them may differ a lot while the image as a whole must agree closely):
 *   - at most 0.5% of the pixels differ by more than 24/255 in any channel (--threshold 24,
 *     --max-differing 0.5);
 *   - the mean absolute difference over all channels of all pixels is at most 2/255
 *     (--max-mean 2);
 *   - the silhouettes' pixel counts are within 3% of the reference's (--count-tolerance 3) and
 *     their bounding boxes within 3 pixels on each side (--bbox-tolerance 3);
 *   - the silhouette covers the expected part of the frame, in both images: its bounding box is
 *     40% to 95% of the image height tall and its centre lies within 25% of the width of the
 *     image's vertical centre line (not checked with --any-framing: crowds fill the frame
 *     their own way).
 * --downsample N first averages each N x N block of both images into one pixel (a box filter; a
 * last partial block averages what it has): a viewer does not see what moves less than a pixel
 * or two, and neither does the comparison then. --of-silhouette counts the differing pixels as a
 * share of the silhouettes (the pixels in either image's), not of the image: for a small figure
 * in a large frame. --figures prints how many figures the reference shows (its silhouette's
 * connected parts, before any downsample) and their heights: how tall a crowd's characters are.
 * Both images must have the same size. --shape-only compares the silhouettes alone, each image's
 * against its own background (its top-left pixel): two renderers of one scene that shade it
 * their own way (the library's example host against vkskin render).
 *
 * --silhouette passes when more than 1% of the pixels (--min-cover) differ from the background
 * and the silhouette's bounding box touches no border of the image (the model is inside the
 * frame, not cut off).
 *
 * Exit code: 0 pass, 1 fail (the numbers and the failed criterion are printed), 2 bad usage or an
 * image that cannot be read. It reads PNG, JPEG and binary PNM (what examples/quickstart writes),
 * with stb_image compiled apart from the engine's (tests/compare_png_stb.c). */
#include <stb/stb_image.h>

#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Of 255: what still counts as background (--background-tolerance). */
static double background_tolerance = 8;

typedef struct image {
    const char *path;
    int w, h;
    unsigned char *rgba;
} image;

typedef struct silhouette {
    long count;
    int x0, y0, x1, y1; /* inclusive bounds; x0 > x1 when empty */
} silhouette;

static bool load(const char *path, image *img)
{
    int channels;
    img->path = path;
    img->rgba = stbi_load(path, &img->w, &img->h, &channels, 4);
    if (!img->rgba) {
        fprintf(stderr, "compare_png: cannot read '%s': %s\n", path, stbi_failure_reason());
        return false;
    }
    return true;
}

/* Each n x n block of img averaged into one pixel. */
static bool downsample(image *img, int n)
{
    const int w = (img->w + n - 1) / n, h = (img->h + n - 1) / n;
    unsigned char *out = malloc((size_t)w * h * 4);
    if (!out)
        return false;
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++)
            for (int c = 0; c < 4; c++) {
                int sum = 0, count = 0;
                for (int dy = 0; dy < n && y * n + dy < img->h; dy++)
                    for (int dx = 0; dx < n && x * n + dx < img->w; dx++, count++)
                        sum += img->rgba[4 * ((size_t)(y * n + dy) * img->w + x * n + dx) + c];
                out[4 * ((size_t)y * w + x) + c] = (unsigned char)((sum + count / 2) / count);
            }
    stbi_image_free(img->rgba);
    img->rgba = out;
    img->w = w;
    img->h = h;
    return true;
}

static int channel_diff(const unsigned char *a, const unsigned char *b)
{
    int worst = 0;
    for (int c = 0; c < 4; c++) {
        int d = abs((int)a[c] - (int)b[c]);
        worst = d > worst ? d : worst;
    }
    return worst;
}

static silhouette find_silhouette(const image *img, const unsigned char bg[4])
{
    silhouette s = {0, img->w, img->h, -1, -1};
    for (int y = 0; y < img->h; y++)
        for (int x = 0; x < img->w; x++) {
            if (channel_diff(img->rgba + 4 * ((size_t)y * img->w + x), bg) <= background_tolerance)
                continue;
            s.count++;
            s.x0 = x < s.x0 ? x : s.x0;
            s.y0 = y < s.y0 ? y : s.y0;
            s.x1 = x > s.x1 ? x : s.x1;
            s.y1 = y > s.y1 ? y : s.y1;
        }
    return s;
}

static int by_int(const void *a, const void *b)
{
    const int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

/* The figures in img: its silhouette's 8-connected parts of at least 4 pixels (smaller ones are
 * specks: a far limb cut off by the pixel grid). Prints their count and heights (median, least,
 * largest). */
static bool print_figures(const image *img, const unsigned char bg[4])
{
    const size_t n = (size_t)img->w * img->h;
    int *label = calloc(n, sizeof *label), *stack = malloc(sizeof *stack * n);
    int *heights = malloc(sizeof *heights * (n / 4 + 1));
    if (!label || !stack || !heights) {
        free(label), free(stack), free(heights);
        return false;
    }
    int figures = 0;
    for (size_t start = 0; start < n; start++) {
        if (label[start] || channel_diff(img->rgba + 4 * start, bg) <= background_tolerance)
            continue;
        int top = 0, y0 = img->h, y1 = -1, pixels = 0;
        stack[top++] = (int)start;
        label[start] = 1;
        while (top) {
            const int p = stack[--top], x = p % img->w, y = p / img->w;
            pixels++;
            y0 = y < y0 ? y : y0;
            y1 = y > y1 ? y : y1;
            for (int dy = -1; dy <= 1; dy++)
                for (int dx = -1; dx <= 1; dx++) {
                    const int nx = x + dx, ny = y + dy;
                    if (nx < 0 || ny < 0 || nx >= img->w || ny >= img->h)
                        continue;
                    const size_t q = (size_t)ny * img->w + nx;
                    if (!label[q] && channel_diff(img->rgba + 4 * q, bg) > background_tolerance) {
                        label[q] = 1;
                        stack[top++] = (int)q;
                    }
                }
        }
        if (pixels >= 4)
            heights[figures++] = y1 - y0 + 1;
    }
    qsort(heights, (size_t)figures, sizeof *heights, by_int);
    if (figures)
        printf("figures: %d, heights: median %d px, from %d to %d\n", figures, heights[figures / 2],
               heights[0], heights[figures - 1]);
    else
        printf("figures: 0\n");
    free(label), free(stack), free(heights);
    return true;
}

static void print_silhouette(const char *label, const image *img, const silhouette *s)
{
    printf("%s %s: %dx%d, silhouette %ld pixels (%.2f%%)", label, img->path, img->w, img->h,
           s->count, 100.0 * (double)s->count / ((double)img->w * img->h));
    if (s->count)
        printf(", bbox x %d..%d y %d..%d\n", s->x0, s->x1, s->y0, s->y1);
    else
        printf(", empty\n");
}

static int failures;

static void fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static void fail(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    printf("FAIL ");
    vprintf(fmt, ap);
    printf("\n");
    va_end(ap);
    failures++;
}

/* The silhouette covers the expected part of the frame. */
static void check_framing(const char *label, const image *img, const silhouette *s)
{
    if (!s->count) {
        printf("FAIL %s: the silhouette is empty\n", label);
        failures++;
        return;
    }
    double height = 100.0 * (s->y1 - s->y0 + 1) / img->h;
    if (height < 40.0 || height > 95.0)
        fail("%s: silhouette is %.1f%% of the image height tall, want 40%% to 95%%", label, height);
    double off = 100.0 * fabs(0.5 * (s->x0 + s->x1 + 1) - 0.5 * img->w) / img->w;
    if (off > 25.0)
        fail("%s: silhouette centre is %.1f%% of the width off centre, limit %g%%", label, off,
             25.0);
}

static double number(const char *opt, const char *text)
{
    char *end;
    double v = strtod(text, &end);
    if (end == text || *end || !(v >= 0.0)) {
        fprintf(stderr, "compare_png: %s needs a number >= 0, not '%s'\n", opt, text);
        exit(2);
    }
    return v;
}

static int usage(void)
{
    fprintf(stderr,
            "usage: compare_png ACTUAL REFERENCE [--threshold N] [--max-differing PERCENT] "
            "[--max-mean N] [--count-tolerance PERCENT] [--bbox-tolerance PIXELS] [--any-framing] "
            "[--shape-only] [--background-tolerance N] [--downsample N] [--of-silhouette] "
            "[--figures]\n"
            "       compare_png --silhouette IMAGE [--min-cover PERCENT]\n");
    return 2;
}

static int silhouette_only(const char *path, double min_cover)
{
    image img;
    if (!load(path, &img))
        return 2;
    unsigned char bg[4];
    memcpy(bg, img.rgba, 4);
    silhouette s = find_silhouette(&img, bg);
    print_silhouette("image", &img, &s);
    double cover = 100.0 * (double)s.count / ((double)img.w * img.h);
    if (!(cover > min_cover))
        fail("%s: silhouette covers %.2f%% of the image, want more than %g%%", "image", cover,
             min_cover);
    if (s.count && (s.x0 == 0 || s.y0 == 0 || s.x1 == img.w - 1 || s.y1 == img.h - 1)) {
        printf("FAIL image: the silhouette touches the border (cut off by the frame)\n");
        failures++;
    }
    stbi_image_free(img.rgba);
    printf("%s\n", failures ? "silhouette check FAILED" : "silhouette check passed");
    return failures ? 1 : 0;
}

int main(int argc, char **argv)
{
    const char *files[2] = {NULL, NULL};
    int file_count = 0;
    bool silhouette_mode = false, any_framing = false, shape_only = false, of_silhouette = false,
         figures = false;
    double threshold = 24, max_differing = 0.5, max_mean = 2, count_tol = 3, bbox_tol = 3,
           min_cover = 1, block = 1;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--silhouette") == 0) {
            silhouette_mode = true;
        } else if (strcmp(a, "--any-framing") == 0) {
            any_framing = true;
        } else if (strcmp(a, "--shape-only") == 0) {
            shape_only = true;
        } else if (strcmp(a, "--of-silhouette") == 0) {
            of_silhouette = true;
        } else if (strcmp(a, "--figures") == 0) {
            figures = true;
        } else if (a[0] == '-' && a[1] == '-') {
            if (i + 1 >= argc)
                return usage();
            double v = number(a, argv[++i]);
            if (strcmp(a, "--threshold") == 0)
                threshold = v;
            else if (strcmp(a, "--max-differing") == 0)
                max_differing = v;
            else if (strcmp(a, "--max-mean") == 0)
                max_mean = v;
            else if (strcmp(a, "--count-tolerance") == 0)
                count_tol = v;
            else if (strcmp(a, "--bbox-tolerance") == 0)
                bbox_tol = v;
            else if (strcmp(a, "--min-cover") == 0)
                min_cover = v;
            else if (strcmp(a, "--background-tolerance") == 0)
                background_tolerance = v;
            else if (strcmp(a, "--downsample") == 0 && v >= 1 && v <= 64 && v == (int)v)
                block = v;
            else
                return usage();
        } else if (file_count < 2) {
            files[file_count++] = a;
        } else {
            return usage();
        }
    }
    if (silhouette_mode)
        return file_count == 1 ? silhouette_only(files[0], min_cover) : usage();
    if (file_count != 2)
        return usage();

    image act, ref;
    if (!load(files[0], &act))
        return 2;
    if (!load(files[1], &ref)) {
        stbi_image_free(act.rgba);
        return 2;
    }
    if (act.w != ref.w || act.h != ref.h) {
        printf("FAIL size: %s is %dx%d, the reference %s is %dx%d\n", act.path, act.w, act.h,
               ref.path, ref.w, ref.h);
        stbi_image_free(act.rgba);
        stbi_image_free(ref.rgba);
        return 1;
    }
    unsigned char bg[4], act_bg[4];
    memcpy(bg, ref.rgba, 4);
    memcpy(act_bg, shape_only ? act.rgba : ref.rgba, 4);
    if (figures && !print_figures(&ref, bg)) {
        fprintf(stderr, "compare_png: out of memory\n");
        return 2;
    }
    if (block > 1 && (!downsample(&act, (int)block) || !downsample(&ref, (int)block))) {
        fprintf(stderr, "compare_png: out of memory\n");
        return 2;
    }
    const size_t pixels = (size_t)ref.w * ref.h;
    size_t differing = 0, figure = 0;
    double sum = 0.0;
    for (size_t p = 0; p < pixels; p++) {
        const unsigned char *a = act.rgba + 4 * p, *b = ref.rgba + 4 * p;
        if (channel_diff(a, b) > threshold)
            differing++;
        figure += channel_diff(a, act_bg) > background_tolerance ||
                  channel_diff(b, bg) > background_tolerance;
        for (int c = 0; c < 4; c++)
            sum += abs((int)a[c] - (int)b[c]);
    }
    const size_t base = of_silhouette ? figure : pixels;
    double differing_pct = base ? 100.0 * (double)differing / (double)base : 0.0;
    double mean = sum / (4.0 * (double)pixels);

    silhouette sa = find_silhouette(&act, act_bg), sr = find_silhouette(&ref, bg);
    print_silhouette("actual   ", &act, &sa);
    print_silhouette("reference", &ref, &sr);
    if (block > 1)
        printf("compared after a %gx%g box filter: %dx%d\n", block, block, ref.w, ref.h);
    printf("pixels differing by more than %g/255: %zu (%.3f%% of the %s), mean abs error "
           "%.3f/255\n",
           threshold, differing, differing_pct, of_silhouette ? "silhouettes" : "image", mean);

    if (!shape_only && differing_pct > max_differing)
        fail("%s: %.3f%% of the pixels differ, limit %g%%", "pixels", differing_pct, max_differing);
    if (!shape_only && mean > max_mean)
        fail("%s: mean abs error %.3f/255, limit %g/255", "mean", mean, max_mean);
    double count_off =
        sr.count ? 100.0 * fabs((double)sa.count - (double)sr.count) / (double)sr.count : 0.0;
    if (count_off > count_tol || (sr.count == 0) != (sa.count == 0))
        fail("%s: silhouette pixel counts differ by %.2f%%, limit %g%%", "silhouette", count_off,
             count_tol);
    if (sa.count && sr.count) {
        int sides[4] = {abs(sa.x0 - sr.x0), abs(sa.y0 - sr.y0), abs(sa.x1 - sr.x1),
                        abs(sa.y1 - sr.y1)};
        int worst = 0;
        for (int k = 0; k < 4; k++)
            worst = sides[k] > worst ? sides[k] : worst;
        if (worst > bbox_tol)
            fail("bbox: silhouette bounding boxes differ by %d pixels on a side, limit %g", worst,
                 bbox_tol);
    }
    if (!any_framing) {
        check_framing("actual", &act, &sa);
        check_framing("reference", &ref, &sr);
    }
    stbi_image_free(act.rgba);
    stbi_image_free(ref.rgba);
    printf("%s\n", failures ? "images DIFFER" : "images match");
    return failures ? 1 : 0;
}
