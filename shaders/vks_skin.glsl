// Linear blend skinning of one vertex: the same operations, in the same order, as
// src/skin/skin_cpu.c (the oracle). Shared by skin.comp (compute mode) and mesh_skin.vert (vertex
// mode). Needs vks_shared.h and the buffer references below.
#extension GL_EXT_buffer_reference : require
#extension GL_EXT_buffer_reference_uvec2 : require

layout(buffer_reference, std430, buffer_reference_align = 4) readonly buffer Floats { float v[]; };
layout(buffer_reference, std430, buffer_reference_align = 16) readonly buffer Vec4s { vec4 v[]; };
layout(buffer_reference, std430, buffer_reference_align = 8) readonly buffer Uvec2s { uvec2 v[]; };
layout(buffer_reference, std430, buffer_reference_align = 16) readonly buffer Bones { vks_bone v[]; };
layout(buffer_reference, std430, buffer_reference_align = 16) readonly buffer Instances { vks_instance v[]; };
layout(buffer_reference, std430, buffer_reference_align = 16) readonly buffer Visibles { vks_visible v[]; };

// A device address (low word first) plus a byte offset, with the carry.
uvec2 vks_address_add(uvec2 a, uint offset)
{
    uint carry;
    uint lo = uaddCarry(a.x, offset, carry);
    return uvec2(lo, a.y + carry);
}

// Whether this pipeline skins wide models (8 influences): a specialization constant, so each
// variant compiles only its own path and a 4-influence model runs exactly the 4-influence code
// (a runtime branch cost 12-14% of the pass on an H100, in registers it never used).
layout(constant_id = 1) const bool VKS_SKIN_WIDE = false;

// Adds w[k] * palette[palette_first + joint k] for the 4 joints packed in `joints`, k = 0..3 in
// order (the CPU reference adds in the same order: a different order rounds differently).
void vks_blend4(Bones bones, uint palette_first, uvec2 joints, vec4 w,
                inout vec4 r0, inout vec4 r1, inout vec4 r2)
{
    uint j[4] = uint[4](joints.x & 0xffffu, joints.x >> 16, joints.y & 0xffffu, joints.y >> 16);
    for (int i = 0; i < 4; i++) {
        vks_bone b = bones.v[palette_first + j[i]];
        r0 += w[i] * b.row[0];
        r1 += w[i] * b.row[1];
        r2 += w[i] * b.row[2];
    }
}

// The blended 3x4 matrix (its rows r0, r1, r2) of vertex i of instance inst's model, from its
// palette entries: influences 1 to 4, then 5 to 8 in the wide variant (whose dispatches and
// draws hold wide models only).
void vks_blend(vks_streams s, uvec2 palette, vks_instance inst, uint i,
               out vec4 r0, out vec4 r1, out vec4 r2)
{
    uint v = inst.vertex_first + i;
    r0 = vec4(0.0);
    r1 = vec4(0.0);
    r2 = vec4(0.0);
    Bones bones = Bones(palette);
    vks_blend4(bones, inst.palette_first, Uvec2s(s.joints).v[v], Vec4s(s.weights).v[v], r0, r1, r2);
    if (VKS_SKIN_WIDE) {
        uint e = inst.extra_first + i;
        vks_blend4(bones, inst.palette_first, Uvec2s(s.joints_extra).v[e],
                   Vec4s(s.weights_extra).v[e], r0, r1, r2);
    }
}

vec3 vks_read_vec3(uvec2 address, uint v)
{
    Floats f = Floats(address);
    return vec3(f.v[3 * v], f.v[3 * v + 1], f.v[3 * v + 2]);
}

// p' = M (p, 1); n' = normalize(cofactor(M3x3) n) * sign(det): the inverse-transpose up to a
// positive scale, so normals stay perpendicular under non-uniform scale. det is returned for
// the tangents' handedness.
void vks_skin_point(vec4 r0, vec4 r1, vec4 r2, vec3 position, vec3 normal,
                    out vec3 p, out vec3 n, out float det)
{
    vec4 p1 = vec4(position, 1.0);
    p = vec3(dot(r0, p1), dot(r1, p1), dot(r2, p1));
    vec3 c0 = r0.xyz, c1 = r1.xyz, c2 = r2.xyz; // rows of the blended 3x3
    // Cofactor matrix (det * inverse-transpose), row by row: cross products of the other rows.
    vec3 cof0 = cross(c1, c2), cof1 = cross(c2, c0), cof2 = cross(c0, c1);
    det = dot(c0, cof0);
    vec3 o = vec3(dot(cof0, normal), dot(cof1, normal), dot(cof2, normal));
    float len2 = dot(o, o);
    n = len2 > 0.0 ? o * ((det < 0.0 ? -1.0 : 1.0) * inversesqrt(len2)) : vec3(0.0);
}
