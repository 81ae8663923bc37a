/* The public binding (vkskin_binding) as the engine's descriptor path (render/skinner.h): what
 * the two GPU clients' files, vkskin_render.c and vkskin_vulkan.c, share; the CPU side's files
 * never see the renderer. */
#ifndef VKS_API_BINDING_H
#define VKS_API_BINDING_H

#include "vkskin/vkskin.h"

#include "render/skinner.h"

/* The engine's path for a public binding, AUTO taking `automatic`; false for a value that names
 * none. */
static inline bool vks_api_path(vkskin_binding binding, vks_path automatic, vks_path *path)
{
    switch (binding) {
    case VKSKIN_BINDING_AUTO:
        *path = automatic;
        return true;
    case VKSKIN_BINDING_ADDRESSES:
        *path = VKS_PATH_ADDRESSES;
        return true;
    case VKSKIN_BINDING_DESCRIPTORS:
        *path = VKS_PATH_DESCRIPTORS;
        return true;
    }
    return false;
}

#endif
