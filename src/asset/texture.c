#include "texture.h"
#include "../core/alloc.h"

#include <stb/stb_image.h>

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* stb allocates through vks_malloc (external/stb_image.c sets STBI_MALLOC and friends), so the
 * pixels are freed with vks_free(), whichever allocator the host set. */
static bool take(unsigned char *pixels, int w, int h, vks_texture *tex, char *why, size_t why_size)
{
    if (!pixels) {
        snprintf(why, why_size, "%s", stbi_failure_reason() ? stbi_failure_reason() : "unreadable");
        return false;
    }
    tex->width = (uint32_t)w;
    tex->height = (uint32_t)h;
    tex->rgba = pixels;
    return true;
}

bool vks_texture_decode(const void *data, size_t size, vks_texture *tex, char *why, size_t why_size)
{
    if (size == 0 || size > 0x7fffffff) {
        snprintf(why, why_size, "bad encoded size %zu", size);
        return false;
    }
    int w, h, n;
    unsigned char *pixels = stbi_load_from_memory(data, (int)size, &w, &h, &n, 4);
    return take(pixels, w, h, tex, why, why_size);
}

bool vks_texture_load(const char *path, vks_texture *tex, char *why, size_t why_size)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        snprintf(why, why_size, "%s", strerror(errno));
        return false;
    }
    int w, h, n;
    unsigned char *pixels = stbi_load_from_file(f, &w, &h, &n, 4);
    fclose(f);
    return take(pixels, w, h, tex, why, why_size);
}

uint8_t vks_srgb8_of_linear(double linear)
{
    const double x = linear <= 0.0 ? 0.0 : linear >= 1.0 ? 1.0 : linear;
    const double s = x <= 0.0031308 ? 12.92 * x : 1.055 * pow(x, 1.0 / 2.4) - 0.055;
    return (uint8_t)lround(s * 255.0);
}

double vks_linear_of_srgb8(uint8_t code)
{
    const double c = code / 255.0;
    return c <= 0.04045 ? c / 12.92 : pow((c + 0.055) / 1.055, 2.4);
}
