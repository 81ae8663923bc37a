#version 450
// Vertex mode (`--mode vertex`), and in compute mode the instances past a frame's output budget:
// skins in the vertex shader, as the tutorials do, from the same palettes and the same instance
// table: every vertex-shader invocation blends its four bones (eight for a wide model).
#extension GL_GOOGLE_include_directive : require
#include "vks_shared.h"
#include "vks_skin.glsl"
#include "mesh_common.glsl"

void main()
{
    vks_instance inst = instance_of(this_visible());
    uint v = inst.vertex_first + gl_VertexIndex;
    vec4 r0, r1, r2;
    vks_blend(push.streams, push.palette, inst, gl_VertexIndex, r0, r1, r2);
    vec3 p, n;
    float det;
    vks_skin_point(r0, r1, r2, vks_read_vec3(push.streams.positions, v),
                   vks_read_vec3(push.streams.normals, v), p, n, det);
    emit(inst, p, n, gl_VertexIndex);
}
