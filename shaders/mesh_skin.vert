#version 450
// Vertex mode (`--mode vertex`), and in compute mode the instances past a frame's output budget:
// skins in the vertex shader, as the tutorials do, from the same compact streams, palettes and
// tables: every vertex-shader invocation blends its four bones (eight for a wide model). Built
// twice, as skin.comp: by device address, and with VKS_DESCRIPTORS through descriptors (set 2).
#extension GL_GOOGLE_include_directive : require
#include "vks_shared.h"

layout(push_constant) uniform Push { vks_draw_push push; };
#define VKS_DATA_SET 2
#include "vks_skin.glsl"
#include "mesh_common.glsl"

void main()
{
    vks_visible e = this_visible();
    vks_instance inst = instance_of(e);
    vks_model_gpu m = VKS_MODELS[inst.model];
    uint i = e.vertex_first + gl_VertexIndex; // its level's vertices start at e.vertex_first
    uint v = m.vertex_first + i;
    vec3 position = vks_read_position(m, v), normal = vks_oct_decode(VKS_NORMALS[v]);
    if (VKS_SKIN_MORPH) {
        vec4 t = vec4(0.0); // (the draw has no use for the tangent)
        vks_morph(m, e.palette_first, i, position, normal, t);
    }
    vec3 p, n;
    if (VKS_SKIN_DQ) {
        vec4 c, ce;
        float s;
        vks_dq_blend(m, e.palette_first, i, c, ce, s);
        p = vks_dq_point(c, ce, s, position);
        n = vks_quat_rotate(c, normal);
    } else {
        vec4 r0, r1, r2;
        vks_blend(m, e.palette_first, i, r0, r1, r2);
        float det;
        vks_skin_point(r0, r1, r2, position, normal, p, n, det);
    }
    emit(inst, p, vks_unit(n), i);
}
