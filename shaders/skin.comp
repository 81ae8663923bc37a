#version 450
// Compute-mode skinning: one invocation per vertex of every visible instance that got output,
// one dispatch per model (its pipeline variant: VKS_SKIN_WIDE, vks_skin.glsl), as wide as that
// model's vertices need, so a mixed crowd launches no empty workgroups. Workgroup
// (x, y + z * gl_NumWorkGroups.y) skins vertices x * GROUP_SIZE + i of the model's visible
// instance y + z * rows; x loops when a model has more vertices than one row of workgroups
// covers. It reads the compact bind streams and writes each vertex as one 16-byte store.
// Layouts: vks_shared.h; the math: vks_skin.glsl.
#extension GL_GOOGLE_include_directive : require
#include "vks_shared.h"
#include "vks_skin.glsl"

layout(constant_id = 0) const uint GROUP_SIZE = VKS_SKIN_GROUP_SIZE;
layout(local_size_x_id = 0) in;

layout(buffer_reference, std430, buffer_reference_align = 16) writeonly buffer OutVertices { uvec4 v[]; };
layout(buffer_reference, std430, buffer_reference_align = 4) writeonly buffer OutTangents { uint v[]; };

layout(push_constant) uniform Push { vks_skin_push push; };

void main()
{
    uint slot = gl_WorkGroupID.z * gl_NumWorkGroups.y + gl_WorkGroupID.y;
    if (slot >= push.visible_count)
        return;
    // The same instance for the whole workgroup: its palette stays in cache. Its output is where
    // this frame put it (vks_visible.out_address).
    vks_visible e = Visibles(push.visible).v[slot];
    vks_instance inst = Instances(push.instances).v[e.instance];
    vks_model_gpu m = Models(push.models).v[inst.model];
    OutVertices out_vertices = OutVertices(e.out_address);
    bool tangents = (m.flags & VKS_MODEL_TANGENTS) != 0u;
    // The instance's level of detail: its vertices are push.vertex_count from e.vertex_first.
    OutTangents out_tangents =
        OutTangents(vks_address_add(e.out_address, VKS_TANGENT_OFFSET(push.vertex_count)));
    for (uint i = gl_GlobalInvocationID.x; i < push.vertex_count; i += gl_NumWorkGroups.x * GROUP_SIZE) {
        uint v = m.vertex_first + e.vertex_first + i;
        vec4 r0, r1, r2;
        vks_blend(push.streams, push.palette, m, inst.palette_first, e.vertex_first + i, r0, r1, r2);
        vec3 p, n;
        float det;
        vks_skin_point(r0, r1, r2, vks_read_position(push.streams, m, v),
                       vks_oct_decode(Uints(push.streams.normals).v[v]), p, n, det);
        out_vertices.v[i] = uvec4(floatBitsToUint(p), vks_oct_encode(n));
        if (tangents) {
            // Tangents lie in the surface: they follow M, not the inverse-transpose.
            vec4 t = vks_tangent_decode(Uints(push.streams.tangents).v[v]);
            vec3 t3 = vec3(dot(r0.xyz, t.xyz), dot(r1.xyz, t.xyz), dot(r2.xyz, t.xyz));
            float tl2 = dot(t3, t3);
            out_tangents.v[i] = vks_tangent_encode(tl2 > 0.0 ? t3 * inversesqrt(tl2) : vec3(0.0),
                                                   t.w * (det < 0.0 ? -1.0 : 1.0));
        }
    }
}
