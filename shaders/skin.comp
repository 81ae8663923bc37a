#version 450
// Compute-mode skinning: one invocation per vertex of every visible instance that got output,
// one dispatch per model and level of detail (the model's pipeline variant, vks_skin.glsl:
// VKS_SKIN_WIDE, VKS_SKIN_DQ for dual quaternions, VKS_SKIN_MORPH for morph targets applied
// first, VKS_SKIN_STAGE for the pose staged in shared memory), as wide as that level's vertices
// need, so a mixed crowd launches no empty workgroups. Workgroup (x, y + z * gl_NumWorkGroups.y)
// skins vertices x * GROUP_SIZE + i of the model's visible instance y + z * rows; x loops when a
// model has more vertices than one row of workgroups covers. It reads the compact bind streams
// and writes each vertex as one 16-byte store.
// Layouts: vks_shared.h; the math: vks_skin.glsl. Built twice: reaching its buffers by device
// address, and with VKS_DESCRIPTORS through descriptors (set 0; the descriptors binding, vks_shared.h).
#extension GL_GOOGLE_include_directive : require
#include "vks_shared.h"

layout(push_constant) uniform Push { vks_skin_push push; };
#define VKS_DATA_SET 0
// The staged pose (VKS_SKIN_STAGE): room for the crowd's largest that fits (vks_shared.h).
layout(constant_id = 5) const uint VKS_STAGE_VEC4S = 1u;
shared vec4 vks_staged[VKS_STAGE_VEC4S];
#define VKS_STAGED_PALETTE
#include "vks_skin.glsl"

layout(constant_id = 0) const uint GROUP_SIZE = VKS_SKIN_GROUP_SIZE;
layout(local_size_x_id = 0) in;

#ifdef VKS_DESCRIPTORS
layout(std430, set = 0, binding = VKS_DATA_OUTPUT) writeonly buffer Out { uvec4 v[]; } out_vertices;
layout(std430, set = 0, binding = VKS_DATA_OUTPUT_TANGENTS) writeonly buffer OutT { uint v[]; } out_tangents;
#else
layout(buffer_reference, std430, buffer_reference_align = 16) writeonly buffer OutVertices { uvec4 v[]; };
layout(buffer_reference, std430, buffer_reference_align = 4) writeonly buffer OutTangents { uint v[]; };
#endif

void main()
{
    uint entry = gl_WorkGroupID.z * gl_NumWorkGroups.y + gl_WorkGroupID.y;
    if (entry >= push.visible_count)
        return;
    // The same instance for the whole workgroup: its palette stays in cache. Its output is where
    // this frame put it (vks_visible.out_address).
    // The dispatch's model (push.model: one load of the whole dispatch, not after the entry's),
    // then the instance's entry.
    vks_model_gpu m = VKS_MODELS[push.model];
    vks_visible e = VKS_VISIBLE[push.visible_first + entry];
    bool tangents = (m.flags & VKS_MODEL_TANGENTS) != 0u;
    if (VKS_SKIN_STAGE) { // the instance's pose into shared memory, once for the workgroup
        for (uint k = gl_LocalInvocationID.x; k < m.palette_vec4s; k += GROUP_SIZE)
            vks_staged[k] = vks_palette_vec4(e.palette_first, k);
        barrier();
    }
    // The instance's level of detail: its vertices are push.vertex_count from e.vertex_first,
    // then their tangents.
#ifdef VKS_DESCRIPTORS
    // Its place in the bound chunk (less than 4 GiB from its start: the low words suffice).
    uint out_first = (e.out_address.x - push.out_base.x) / VKS_SKINNED_STRIDE;
    uint tangent_first = (e.out_address.x - push.out_base.x + VKS_TANGENT_OFFSET(push.vertex_count)) /
                         VKS_TANGENT_STRIDE;
#define OUT_VERTEX out_vertices.v[out_first + i]
#define OUT_TANGENT out_tangents.v[tangent_first + i]
#else
    OutVertices out_vertices = OutVertices(e.out_address);
    OutTangents out_tangents =
        OutTangents(vks_address_add(e.out_address, VKS_TANGENT_OFFSET(push.vertex_count)));
#define OUT_VERTEX out_vertices.v[i]
#define OUT_TANGENT out_tangents.v[i]
#endif
    for (uint i = gl_GlobalInvocationID.x; i < push.vertex_count; i += gl_NumWorkGroups.x * GROUP_SIZE) {
        uint v = m.vertex_first + e.vertex_first + i;
        vec3 position = vks_read_position(m, v), normal = vks_oct_decode(VKS_NORMALS[v]);
        vec4 t = tangents ? vks_tangent_decode(VKS_TANGENTS[v]) : vec4(0.0);
        if (VKS_SKIN_MORPH)
            vks_morph(m, e.palette_first, e.vertex_first + i, position, normal, t);
        vec3 p, n;
        // The tangent's map: M3x3 (tangents lie in the surface: they follow M, not the
        // inverse-transpose), or the blended rotation; det's sign flips the handedness.
        vec4 r0, r1, r2, c, ce;
        float det = 1.0;
        if (VKS_SKIN_DQ) {
            float s;
            vks_dq_blend(m, e.palette_first, e.vertex_first + i, c, ce, s);
            p = vks_dq_point(c, ce, s, position);
            n = vks_quat_rotate(c, normal);
        } else {
            vks_blend(m, e.palette_first, e.vertex_first + i, r0, r1, r2);
            vks_skin_point(r0, r1, r2, position, normal, p, n, det);
        }
        OUT_VERTEX = uvec4(floatBitsToUint(p), vks_oct_encode(n)); // (n: a direction)
        if (tangents) {
            // Its length is undone by the encoding (vks_tangent_encode divides by its norm).
            vec3 t3 = VKS_SKIN_DQ ? vks_quat_rotate(c, t.xyz)
                                  : vec3(dot(r0.xyz, t.xyz), dot(r1.xyz, t.xyz), dot(r2.xyz, t.xyz));
            OUT_TANGENT = vks_tangent_encode(t3, t.w * (det < 0.0 ? -1.0 : 1.0));
        }
    }
}
