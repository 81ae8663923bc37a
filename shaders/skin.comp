#version 450
// Compute-mode skinning: one invocation per vertex of every visible instance, one dispatch per
// run of 4- or 8-influence models (VKS_SKIN_WIDE, vks_skin.glsl). Workgroup y * width + x of the
// run skins GROUP_SIZE vertices of the instance whose range of workgroups holds it (the starts in
// push.groups, a prefix sum over the visible list). Layouts: vks_shared.h; the math:
// vks_skin.glsl.
#extension GL_GOOGLE_include_directive : require
#include "vks_shared.h"
#include "vks_skin.glsl"

layout(constant_id = 0) const uint GROUP_SIZE = VKS_SKIN_GROUP_SIZE;
layout(local_size_x_id = 0) in;

layout(buffer_reference, std430, buffer_reference_align = 4) writeonly buffer OutVertices { vks_skinned_vertex v[]; };
layout(buffer_reference, std430, buffer_reference_align = 16) writeonly buffer OutTangents { vec4 v[]; };

layout(push_constant) uniform Push { vks_skin_push push; };

// The run's slot whose workgroups contain workgroup g (starts ascending, starts[0] <= g).
uint slot_of(Uints starts, uint count, uint g)
{
    uint lo = 0u, hi = count; // starts[lo] <= g < starts[hi], hi = count meaning the end
    while (hi - lo > 1u) {
        uint mid = (lo + hi) / 2u;
        if (starts.v[mid] <= g)
            lo = mid;
        else
            hi = mid;
    }
    return lo;
}

void main()
{
    uint linear = gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x;
    if (linear >= push.group_count)
        return;
    Uints starts = Uints(push.groups);
    uint g = starts.v[0] + linear; // the frame's numbering: the run starts at starts[0]
    uint slot = slot_of(starts, push.visible_count, g);
    // The same instance for the whole workgroup: its palette stays in cache.
    vks_instance inst = Instances(push.instances).v[Uints(push.visible).v[slot]];
    uint i = (g - starts.v[slot]) * GROUP_SIZE + gl_LocalInvocationID.x;
    if (i >= inst.vertex_count)
        return;
    OutVertices out_vertices = OutVertices(inst.out_vertices);
    OutTangents out_tangents = OutTangents(inst.out_tangents);
    uint v = inst.vertex_first + i;
    vec4 r0, r1, r2;
    vks_blend(push.streams, push.palette, inst, i, r0, r1, r2);
    vec3 p, n;
    float det;
    vks_skin_point(r0, r1, r2, vks_read_vec3(push.streams.positions, v),
                   vks_read_vec3(push.streams.normals, v), p, n, det);
    out_vertices.v[i].position = float[3](p.x, p.y, p.z);
    out_vertices.v[i].normal = float[3](n.x, n.y, n.z);
    if ((inst.flags & VKS_INSTANCE_TANGENTS) != 0u) {
        // Tangents lie in the surface: they follow M, not the inverse-transpose.
        vec4 t = Vec4s(push.streams.tangents).v[v];
        vec3 t3 = vec3(dot(r0.xyz, t.xyz), dot(r1.xyz, t.xyz), dot(r2.xyz, t.xyz));
        float tl2 = dot(t3, t3);
        out_tangents.v[i] = vec4(tl2 > 0.0 ? t3 * inversesqrt(tl2) : vec3(0.0),
                                 t.w * (det < 0.0 ? -1.0 : 1.0));
    }
}
