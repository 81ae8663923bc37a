/* Per-object Vulkan function tables (vk.h). volk opens the loader; nothing else of it is used. */
#include "vk.h"

#include <volk.h>

#include <pthread.h>
#include <string.h>

static pthread_once_t loader_once = PTHREAD_ONCE_INIT;
static PFN_vkGetInstanceProcAddr loader_gipa; /* written once, under loader_once */

static void open_loader(void)
{
    if (volkInitialize() == VK_SUCCESS)
        loader_gipa = vkGetInstanceProcAddr; /* volk's: the loader's own entry point */
}

PFN_vkGetInstanceProcAddr gpu_vk_loader(void)
{
    pthread_once(&loader_once, open_loader);
    return loader_gipa;
}

/* Extension functions (…KHR, …EXT) may be absent: their extension is not enabled. */
static bool optional(const char *name)
{
    const size_t n = strlen(name);
    return n > 3 && (strcmp(name + n - 3, "KHR") == 0 || strcmp(name + n - 3, "EXT") == 0);
}

bool gpu_vk_load_global(gpu_vk *vk, PFN_vkGetInstanceProcAddr get_instance_proc_addr)
{
    *vk = (gpu_vk){.vkGetInstanceProcAddr = get_instance_proc_addr};
    bool ok = get_instance_proc_addr != NULL;
#define LOAD(name)                                                                                 \
    if (ok) {                                                                                      \
        vk->name = (PFN_##name)get_instance_proc_addr(VK_NULL_HANDLE, #name);                      \
        ok = vk->name || optional(#name);                                                          \
    }
    GPU_VK_GLOBAL(LOAD)
#undef LOAD
    return ok;
}

bool gpu_vk_load_instance(gpu_vk *vk, VkInstance instance)
{
    bool ok = true;
#define LOAD(name)                                                                                 \
    vk->name = (PFN_##name)vk->vkGetInstanceProcAddr(instance, #name);                             \
    ok = ok && (vk->name || optional(#name));
    GPU_VK_INSTANCE(LOAD)
#undef LOAD
    return ok;
}

bool gpu_vk_load_device(gpu_vk *vk, VkDevice device)
{
    bool ok = vk->vkGetDeviceProcAddr != NULL;
#define LOAD(name)                                                                                 \
    vk->name = ok ? (PFN_##name)vk->vkGetDeviceProcAddr(device, #name) : NULL;                     \
    ok = ok && (vk->name || optional(#name));
    GPU_VK_DEVICE(LOAD)
#undef LOAD
    return ok;
}
