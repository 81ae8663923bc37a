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
    vks_instance inst = instance_of(this_visible());
    vks_model_gpu m = Models(push.models).v[inst.model];
    uint v = m.vertex_first + gl_VertexIndex;
    vec4 r0, r1, r2;
    vks_blend(push.streams, push.palette, m, inst.palette_first, gl_VertexIndex, r0, r1, r2);
    vec3 p, n;
    float det;
    vks_skin_point(r0, r1, r2, vks_read_position(push.streams, m, v),
                   vks_oct_decode(Uints(push.streams.normals).v[v]), p, n, det);
    emit(inst, p, n, gl_VertexIndex);
}
