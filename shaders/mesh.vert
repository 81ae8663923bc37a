#version 450
// Compute mode: draws pre-skinned vertices, pulled from the instance's output by gl_VertexIndex
// (the index plus the mesh's base vertex) in one 16-byte load. No skinning here. Built twice, as
// skin.comp: by device address, and with VKS_DESCRIPTORS through descriptors (set 2).
#extension GL_GOOGLE_include_directive : require
#include "vks_shared.h"

layout(push_constant) uniform Push { vks_draw_push push; };
#define VKS_DATA_SET 2
#include "vks_skin.glsl"
#include "mesh_common.glsl"

#ifdef VKS_DESCRIPTORS
layout(std430, set = 2, binding = VKS_DATA_OUTPUT) readonly buffer Skinned { uvec4 v[]; } skinned;
#else
layout(buffer_reference, std430, buffer_reference_align = 16) readonly buffer Skinned { uvec4 v[]; };
#endif

void main()
{
    vks_visible e = this_visible();
    vks_instance inst = instance_of(e);
#ifdef VKS_DESCRIPTORS
    // Its place in the bound chunk (less than 4 GiB from its start: the low words suffice).
    uvec4 s = skinned.v[(e.out_address.x - push.out_base.x) / VKS_SKINNED_STRIDE + gl_VertexIndex];
#else
    uvec4 s = Skinned(e.out_address).v[gl_VertexIndex];
#endif
    emit(inst, uintBitsToFloat(s.xyz), vks_oct_decode(s.w), e.vertex_first + gl_VertexIndex);
}
