#version 450
// Compute mode: draws pre-skinned vertices, pulled from the instance's output by gl_VertexIndex
// (the index plus the mesh's base vertex). No skinning here.
#extension GL_GOOGLE_include_directive : require
#include "vks_shared.h"
#include "vks_skin.glsl"
#include "mesh_common.glsl"

layout(buffer_reference, std430, buffer_reference_align = 4) readonly buffer Skinned { vks_skinned_vertex v[]; };

void main()
{
    vks_visible e = this_visible();
    vks_instance inst = instance_of(e);
    vks_skinned_vertex s = Skinned(e.out_address).v[gl_VertexIndex];
    emit(inst, vec3(s.position[0], s.position[1], s.position[2]),
         vec3(s.normal[0], s.normal[1], s.normal[2]), gl_VertexIndex);
}
