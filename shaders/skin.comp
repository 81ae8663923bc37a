#version 450
// Compute-mode skinning: one invocation per vertex of every visible instance, one dispatch per
// model with visible instances (its pipeline variant: VKS_SKIN_WIDE, vks_skin.glsl), as wide as
// that model's vertices need, so a mixed crowd launches no empty workgroups. Workgroup
// (x, y + z * gl_NumWorkGroups.y) skins vertices x * GROUP_SIZE + i of the model's visible
// instance y + z * rows; x loops when a model has more vertices than one row of workgroups
// covers. Layouts: vks_shared.h; the math: vks_skin.glsl.
#extension GL_GOOGLE_include_directive : require
#include "vks_shared.h"
#include "vks_skin.glsl"

layout(constant_id = 0) const uint GROUP_SIZE = VKS_SKIN_GROUP_SIZE;
layout(local_size_x_id = 0) in;

layout(buffer_reference, std430, buffer_reference_align = 4) writeonly buffer OutVertices { vks_skinned_vertex v[]; };
layout(buffer_reference, std430, buffer_reference_align = 16) writeonly buffer OutTangents { vec4 v[]; };

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
    OutVertices out_vertices = OutVertices(e.out_address);
    bool tangents = (inst.flags & VKS_INSTANCE_TANGENTS) != 0u;
    OutTangents out_tangents = OutTangents(vks_address_add(e.out_address, VKS_TANGENT_OFFSET(inst.vertex_count)));
    for (uint i = gl_GlobalInvocationID.x; i < inst.vertex_count; i += gl_NumWorkGroups.x * GROUP_SIZE) {
        uint v = inst.vertex_first + i;
        vec4 r0, r1, r2;
        vks_blend(push.streams, push.palette, inst, i, r0, r1, r2);
        vec3 p, n;
        float det;
        vks_skin_point(r0, r1, r2, vks_read_vec3(push.streams.positions, v),
                       vks_read_vec3(push.streams.normals, v), p, n, det);
        out_vertices.v[i].position = float[3](p.x, p.y, p.z);
        out_vertices.v[i].normal = float[3](n.x, n.y, n.z);
        if (tangents) {
            // Tangents lie in the surface: they follow M, not the inverse-transpose.
            vec4 t = Vec4s(push.streams.tangents).v[v];
            vec3 t3 = vec3(dot(r0.xyz, t.xyz), dot(r1.xyz, t.xyz), dot(r2.xyz, t.xyz));
            float tl2 = dot(t3, t3);
            out_tangents.v[i] = vec4(tl2 > 0.0 ? t3 * inversesqrt(tl2) : vec3(0.0),
                                     t.w * (det < 0.0 ? -1.0 : 1.0));
        }
    }
}
