#version 450
// Linear blend skinning, one invocation per vertex: the same operations as src/skin/skin_cpu.c
// (the oracle). Layouts: vks_shared.h.
#extension GL_GOOGLE_include_directive : require
#include "vks_shared.h"

layout(constant_id = 0) const uint GROUP_SIZE = VKS_SKIN_GROUP_SIZE;
layout(local_size_x_id = 0) in;

layout(std430, set = 0, binding = VKS_SKIN_BIND_POSITIONS) readonly buffer Positions { float positions[]; };
layout(std430, set = 0, binding = VKS_SKIN_BIND_NORMALS) readonly buffer Normals { float normals[]; };
layout(std430, set = 0, binding = VKS_SKIN_BIND_TANGENTS) readonly buffer Tangents { vec4 tangents[]; };
layout(std430, set = 0, binding = VKS_SKIN_BIND_JOINTS) readonly buffer Joints { uvec2 joints[]; };
layout(std430, set = 0, binding = VKS_SKIN_BIND_WEIGHTS) readonly buffer Weights { vec4 weights[]; };
layout(std430, set = 0, binding = VKS_SKIN_BIND_PALETTE) readonly buffer Palette { vks_bone palette[]; };
layout(std430, set = 0, binding = VKS_SKIN_BIND_OUT_VERTICES) writeonly buffer OutVertices { vks_skinned_vertex out_vertices[]; };
layout(std430, set = 0, binding = VKS_SKIN_BIND_OUT_TANGENTS) writeonly buffer OutTangents { vec4 out_tangents[]; };

layout(push_constant) uniform Params { vks_skin_params params; };

void main()
{
    // Rows of workgroups when one row would exceed maxComputeWorkGroupCount[0] (65535 on some
    // devices, i.e. 4M vertices).
    uint v = gl_GlobalInvocationID.y * gl_NumWorkGroups.x * GROUP_SIZE + gl_GlobalInvocationID.x;
    if (v >= params.vertex_count)
        return;

    uvec2 packed = joints[v];
    uint j[4] = uint[4](packed.x & 0xffffu, packed.x >> 16, packed.y & 0xffffu, packed.y >> 16);
    vec4 w = weights[v];
    vec4 r0 = vec4(0.0), r1 = vec4(0.0), r2 = vec4(0.0);
    for (int i = 0; i < 4; i++) {
        vks_bone b = palette[params.palette_first + j[i]];
        r0 += w[i] * b.row[0];
        r1 += w[i] * b.row[1];
        r2 += w[i] * b.row[2];
    }

    vec4 p = vec4(positions[3 * v], positions[3 * v + 1], positions[3 * v + 2], 1.0);
    vec3 n = vec3(normals[3 * v], normals[3 * v + 1], normals[3 * v + 2]);
    vec3 c0 = r0.xyz, c1 = r1.xyz, c2 = r2.xyz; // rows of the blended 3x3
    // Cofactor matrix (det * inverse-transpose), row by row: cross products of the other rows.
    vec3 cof0 = cross(c1, c2), cof1 = cross(c2, c0), cof2 = cross(c0, c1);
    float det = dot(c0, cof0);
    vec3 o = vec3(dot(cof0, n), dot(cof1, n), dot(cof2, n));
    float len2 = dot(o, o);
    vec3 nrm = len2 > 0.0 ? o * ((det < 0.0 ? -1.0 : 1.0) * inversesqrt(len2)) : vec3(0.0);

    uint out_v = params.output_first + v;
    out_vertices[out_v].position = float[3](dot(r0, p), dot(r1, p), dot(r2, p));
    out_vertices[out_v].normal = float[3](nrm.x, nrm.y, nrm.z);

    if (params.has_tangents != 0u) {
        vec4 t = tangents[v];
        vec3 t3 = vec3(dot(c0, t.xyz), dot(c1, t.xyz), dot(c2, t.xyz));
        float tl2 = dot(t3, t3);
        out_tangents[out_v] = vec4(tl2 > 0.0 ? t3 * inversesqrt(tl2) : vec3(0.0),
                                   t.w * (det < 0.0 ? -1.0 : 1.0));
    }
}
