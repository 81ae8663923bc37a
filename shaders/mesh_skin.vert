#version 450
// Vertex mode (`--mode vertex`), and in compute mode the instances past a frame's output budget:
// skins in the vertex shader, as the tutorials do, from the same compact streams, palettes and
// tables: every vertex-shader invocation blends its four bones (eight for a wide model).
#extension GL_GOOGLE_include_directive : require
#include "vks_shared.h"
#include "vks_skin.glsl"
#include "mesh_common.glsl"

void main()
{
    vks_visible e = this_visible();
    vks_instance inst = instance_of(e);
    vks_model_gpu m = Models(push.models).v[inst.model];
    uint i = e.vertex_first + gl_VertexIndex; // its level's vertices start at e.vertex_first
    uint v = m.vertex_first + i;
    vec4 r0, r1, r2;
    vks_blend(push.streams, push.palette, m, inst.palette_first, i, r0, r1, r2);
    vec3 p, n;
    float det;
    vks_skin_point(r0, r1, r2, vks_read_position(push.streams, m, v),
                   vks_oct_decode(Uints(push.streams.normals).v[v]), p, n, det);
    emit(inst, p, n, i);
}
