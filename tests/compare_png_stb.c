/* stb_image for compare_png, from Debian's libstb-dev header: PNG and JPEG as the program writes
 * them, and binary PNM, which examples/quickstart writes without an image library. Apart from the
 * engine's stb_image (external/stb_image.c), whose decoders are those textures come in. */
#define STB_IMAGE_IMPLEMENTATION
#define STBI_ONLY_PNG
#define STBI_ONLY_JPEG
#define STBI_ONLY_PNM
#include <stb/stb_image.h>
