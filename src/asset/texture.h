/* Base-color images decoded to RGBA8 (stb_image behind it: PNG, JPEG, TGA, BMP, ...). */
#ifndef VKS_TEXTURE_H
#define VKS_TEXTURE_H

#include "model.h"

#include <stdbool.h>
#include <stddef.h>

/* Decodes an encoded image in memory into tex->width/height/rgba (malloc'ed; the caller frees
 * tex->rgba). On failure returns false with the reason in `why`. */
bool vks_texture_decode(const void *data, size_t size, vks_texture *tex, char *why,
                        size_t why_size);

/* The same for an image file. */
bool vks_texture_load(const char *path, vks_texture *tex, char *why, size_t why_size);

/* The sRGB transfer function, as textures hold their texels: a linear channel (clamped to
 * [0, 1]) as its 8-bit code, and a code as its linear value. */
uint8_t vks_srgb8_of_linear(double linear);
double vks_linear_of_srgb8(uint8_t code);

#endif
