/* The volk meta-loader's implementation (Debian: libvulkan-volk-dev ships it as a header-side
 * source). Vulkan functions are loaded at run time: no link-time dependency on libvulkan. */
#include <volk.c>
