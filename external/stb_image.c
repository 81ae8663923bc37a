/* The one translation unit that compiles stb_image from Debian's libstb-dev header (chosen over a
 * PNG library for one header and one call that covers the formats glTF, FBX and Collada embed),
 * with only the decoders base-color textures come in: PNG, JPEG, TGA, BMP. */
/* Its allocations are vkskin's (core/alloc.h): the host's allocator when one is set. */
#include "../src/core/alloc.h"
#define STBI_MALLOC(size) vks_malloc(size)
#define STBI_REALLOC(p, size) vks_realloc(p, size)
#define STBI_FREE(p) vks_free(p)
#define STB_IMAGE_IMPLEMENTATION
#define STBI_ONLY_PNG
#define STBI_ONLY_JPEG
#define STBI_ONLY_TGA
#define STBI_ONLY_BMP
#include <stb/stb_image.h>
