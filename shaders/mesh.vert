#version 450
// Compute mode: draws pre-skinned vertices, pulled from the instance's output by gl_VertexIndex
// (the index plus the mesh's base vertex) in one 16-byte load. No skinning here.
#extension GL_GOOGLE_include_directive : require
#include "vks_shared.h"
#include "vks_skin.glsl"
#include "mesh_common.glsl"

layout(buffer_reference, std430, buffer_reference_align = 16) readonly buffer Skinned { uvec4 v[]; };

void main()
{
    vks_visible e = this_visible();
    vks_instance inst = instance_of(e);
    uvec4 s = Skinned(e.out_address).v[gl_VertexIndex];
    emit(inst, uintBitsToFloat(s.xyz), vks_oct_decode(s.w), e.vertex_first + gl_VertexIndex);
}
