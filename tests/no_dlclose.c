/* Preloaded (LD_PRELOAD) into the GPU tests of the sanitizer build only: dlclose does nothing.
 * The Vulkan loader unloads the drivers and layers in vkDestroyInstance, so what they leak would
 * reach LeakSanitizer with frames in an "<unknown module>" that no suppression can name; kept
 * mapped, they are named and tests/lsan.supp can suppress exactly them. The loader in Debian 12
 * (1.3.239) predates VK_LOADER_DISABLE_DYNAMIC_LIBRARY_UNLOADING, which does the same. Built
 * without sanitizers: it is also preloaded into the test scripts' bash and awk. */
int dlclose(void *handle);

int dlclose(void *handle)
{
    (void)handle;
    return 0;
}
