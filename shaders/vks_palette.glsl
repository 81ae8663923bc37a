// Palette reads (vks_shared.h, "Palette pages"): vec4 k of the range that starts at
// palette_first, in the page its top bits name. Shared by the skinning (vks_skin.glsl) and the
// far splat. Needs vks_shared.h and, declared before it is included, `push` (with the palette's
// address: page 0) and, with VKS_DESCRIPTORS, VKS_DATA_SET.
#ifndef VKS_PALETTE_GLSL
#define VKS_PALETTE_GLSL
#ifdef VKS_DESCRIPTORS
#define VKS_PAGE(name, binding_)                                                                    \
    layout(std430, set = VKS_DATA_SET, binding = binding_) readonly buffer name { vec4 v[]; }
VKS_PAGE(DataPalette, VKS_DATA_PALETTE) vks_page0;
VKS_PAGE(DataPalettePage1, VKS_DATA_PALETTE_PAGE1) vks_page1;
VKS_PAGE(DataPalettePage2, VKS_DATA_PALETTE_PAGE2) vks_page2;
VKS_PAGE(DataPalettePage3, VKS_DATA_PALETTE_PAGE3) vks_page3;

vec4 vks_palette_vec4(uint palette_first, uint k)
{
    uint at = 3u * (palette_first & VKS_PALETTE_PAGE_MASK) + k;
    switch (palette_first >> VKS_PALETTE_PAGE_SHIFT) {
    case 0u:
        return vks_page0.v[at];
    case 1u:
        return vks_page1.v[at];
    case 2u:
        return vks_page2.v[at];
    default:
        return vks_page3.v[at];
    }
}
#else
#include "vks_refs.glsl"

// Page 0 through its address; a later page through page 0's table.
vec4 vks_palette_vec4(uint palette_first, uint k)
{
    uint page = palette_first >> VKS_PALETTE_PAGE_SHIFT;
    uvec2 base = page == 0u ? push.palette : Uvec2s(push.palette).v[page];
    return Vec4s(base).v[3u * (palette_first & VKS_PALETTE_PAGE_MASK) + k];
}
#endif
#endif
