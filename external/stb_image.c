/* The one translation unit that compiles stb_image from Debian's libstb-dev header (chosen over a
 * PNG library for one header and one call that covers the formats glTF, FBX and Collada embed),
 * with only the decoders base-color textures come in: PNG, JPEG, TGA, BMP; and binary PNM, the
 * image examples/quickstart writes without an image library, which the tests compare. */
#define STB_IMAGE_IMPLEMENTATION
#define STBI_ONLY_PNG
#define STBI_ONLY_JPEG
#define STBI_ONLY_TGA
#define STBI_ONLY_BMP
#define STBI_ONLY_PNM
#include <stb/stb_image.h>
