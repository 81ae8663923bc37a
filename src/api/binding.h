/* The public binding (vkskin_binding) as the engine's (vks_binding, render/skinner.h): what
 * the two GPU clients' files, vkskin_render.c and vkskin_vulkan.c, share; the CPU side's files
 * never see the renderer. */
#ifndef VKS_API_BINDING_H
#define VKS_API_BINDING_H

#include "vkskin/vkskin.h"

#include "render/skinner.h"

/* The engine's binding for a public one, AUTO taking `automatic`; false for a value that names
 * none. */
static inline bool vks_api_binding(vkskin_binding binding, vks_binding automatic, vks_binding *out)
{
    switch (binding) {
    case VKSKIN_BINDING_AUTO:
        *out = automatic;
        return true;
    case VKSKIN_BINDING_ADDRESSES:
        *out = VKS_BINDING_ADDRESSES;
        return true;
    case VKSKIN_BINDING_DESCRIPTORS:
        *out = VKS_BINDING_DESCRIPTORS;
        return true;
    }
    return false;
}

#endif
