/* The one translation unit that compiles stb_image_write from Debian's libstb-dev header: PNG
 * output for the test models' textures (and, with the GPU path, headless frames). */
#define STB_IMAGE_WRITE_IMPLEMENTATION
#include <stb/stb_image_write.h>
