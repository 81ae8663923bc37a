// Linear blend skinning of one vertex from the compact streams: the same operations, in the same
// order, as src/skin/skin_cpu.c (the oracle), which skins the same decoded values
// (src/asset/quant.h: the decoders here mirror it operation for operation), up to the skinned
// normal's and tangent's lengths, which the output's encoding undoes instead (vks_skin_point). Shared by skin.comp
// (compute mode) and mesh_skin.vert (vertex mode). Needs vks_shared.h and, declared before it is
// included, `push` (vks_skin_push or vks_draw_push) and, with VKS_DESCRIPTORS, VKS_DATA_SET.
#extension GL_EXT_buffer_reference : require
#extension GL_EXT_buffer_reference_uvec2 : require

// ---- Where the data is read ----
// VKS_MODELS[i], VKS_POSITIONS[v], ...: through the device addresses in `push` (the fast path), or
// with VKS_DESCRIPTORS through the descriptors of set VKS_DATA_SET (the descriptors binding, under
// validation: vks_shared.h). The same elements either way.
#ifdef VKS_DESCRIPTORS
#define VKS_DATA(name, binding_, type)                                                              \
    layout(std430, set = VKS_DATA_SET, binding = binding_) readonly buffer name { type v[]; }
VKS_DATA(DataModels, VKS_DATA_MODELS, vks_model_gpu) vks_data_models;
VKS_DATA(DataInstances, VKS_DATA_INSTANCES, vks_instance) vks_data_instances;
VKS_DATA(DataVisible, VKS_DATA_VISIBLE, vks_visible) vks_data_visible;
VKS_DATA(DataPositions, VKS_DATA_POSITIONS, uvec2) vks_data_positions;
VKS_DATA(DataNormals, VKS_DATA_NORMALS, uint) vks_data_normals;
VKS_DATA(DataTangents, VKS_DATA_TANGENTS, uint) vks_data_tangents;
VKS_DATA(DataJoints, VKS_DATA_JOINTS, uint) vks_data_joints;
VKS_DATA(DataWeights, VKS_DATA_WEIGHTS, uvec2) vks_data_weights;
VKS_DATA(DataUvs, VKS_DATA_UVS, float) vks_data_uvs;
VKS_DATA(DataJointsExtra, VKS_DATA_JOINTS_EXTRA, uint) vks_data_joints_extra;
VKS_DATA(DataWeightsExtra, VKS_DATA_WEIGHTS_EXTRA, uvec2) vks_data_weights_extra;
VKS_DATA(DataMorphs, VKS_DATA_MORPHS, uvec4) vks_data_morphs;
#define VKS_MODELS vks_data_models.v
#define VKS_INSTANCES vks_data_instances.v
#define VKS_VISIBLE vks_data_visible.v
#define VKS_POSITIONS vks_data_positions.v
#define VKS_NORMALS vks_data_normals.v
#define VKS_TANGENTS vks_data_tangents.v
#define VKS_JOINTS vks_data_joints.v
#define VKS_WEIGHTS vks_data_weights.v
#define VKS_UVS vks_data_uvs.v
#define VKS_JOINTS_EXTRA vks_data_joints_extra.v
#define VKS_WEIGHTS_EXTRA vks_data_weights_extra.v
#define VKS_MORPHS vks_data_morphs.v
#else
#include "vks_refs.glsl"
#define VKS_MODELS Models(push.models).v
#define VKS_INSTANCES Instances(push.instances).v
#define VKS_VISIBLE Visibles(push.visible).v
#define VKS_POSITIONS Uvec2s(push.streams.positions).v
#define VKS_NORMALS Uints(push.streams.normals).v
#define VKS_TANGENTS Uints(push.streams.tangents).v
#define VKS_JOINTS Uints(push.streams.joints).v
#define VKS_WEIGHTS Uvec2s(push.streams.weights).v
#define VKS_UVS Floats(push.streams.uvs).v
#define VKS_JOINTS_EXTRA Uints(push.streams.joints_extra).v
#define VKS_WEIGHTS_EXTRA Uvec2s(push.streams.weights_extra).v
#define VKS_MORPHS Uvec4s(push.morphs).v
#endif
#include "vks_palette.glsl"

// Whether this pipeline skins wide models (8 influences): a specialization constant, so each
// variant compiles only its own path and a 4-influence model runs exactly the 4-influence code
// (a runtime branch costs the pass registers it never uses: docs/performance.md, "Measurements
// behind the code").
layout(constant_id = 1) const bool VKS_SKIN_WIDE = false;
// Whether it skins with dual quaternions (src/skin/dqs.h): its models' palettes are vks_dq.
layout(constant_id = 2) const bool VKS_SKIN_DQ = false;
// Whether its models have morph targets, applied before skinning (vks_morph).
layout(constant_id = 3) const bool VKS_SKIN_MORPH = false;
// Whether each workgroup reads its instance's pose from a staged copy in shared memory
// (skin.comp alone, which declares the array and defines VKS_STAGED_PALETTE; vks_shared.h,
// "Palette staging").
layout(constant_id = 4) const bool VKS_SKIN_STAGE = false;

// Vec4 k of the pose of the instance whose range starts at palette_first: the workgroup's
// staged copy in the staging variant, else memory.
vec4 vks_palette(uint palette_first, uint k)
{
#ifdef VKS_STAGED_PALETTE
    if (VKS_SKIN_STAGE)
        return vks_staged[k];
#endif
    return vks_palette_vec4(palette_first, k);
}

// A device address (low word first) plus a byte offset, with the carry.
uvec2 vks_address_add(uvec2 a, uint offset)
{
    uint carry;
    uint lo = uaddCarry(a.x, offset, carry);
    return uvec2(lo, a.y + carry);
}

// ---- Decoders (vks_dequant_* in src/asset/quant.c) ----

vec3 vks_read_position(vks_model_gpu m, uint v)
{
    uvec2 q = VKS_POSITIONS[v];
    vec3 f = vec3(float(q.x & 0xffffu), float(q.x >> 16), float(q.y & 0xffffu));
    return m.box_offset.xyz + m.box_scale.xyz * f;
}

#include "vks_oct.glsl"

// Tangents (vks_dequant_tangent): x as snorm16, y as a 15-bit snorm above the handedness bit.
vec4 vks_tangent_decode(uint q)
{
    if ((q & 0xffffu) == 0x8000u)
        return vec4(0.0);
    int hi = int(q) >> 16;
    vec2 e = vec2(unpackSnorm2x16(q).x, max(float(hi >> 1) / 16383.0, -1.0));
    return vec4(vks_oct_unfold(e), (hi & 1) != 0 ? -1.0 : 1.0);
}

vec4 vks_unorm16x4(uvec2 q)
{
    return vec4(float(q.x & 0xffffu), float(q.x >> 16), float(q.y & 0xffffu), float(q.y >> 16)) *
           (1.0 / 65535.0);
}

// Word k of the joints stream (of influences 5 to 8 with `extra`).
uint vks_joint_word(bool extra, uint k)
{
    return extra ? VKS_JOINTS_EXTRA[k] : VKS_JOINTS[k];
}

// Joints k = 0..3 of a vertex: 8 bits each, or 16 for a model of more than 256 joints.
uvec4 vks_joints(bool extra, uint first, bool wide16, uint i)
{
    if (wide16) {
        uint a = vks_joint_word(extra, first + 2u * i), b = vks_joint_word(extra, first + 2u * i + 1u);
        return uvec4(a & 0xffffu, a >> 16, b & 0xffffu, b >> 16);
    }
    uint a = vks_joint_word(extra, first + i);
    return uvec4(a & 0xffu, (a >> 8) & 0xffu, (a >> 16) & 0xffu, a >> 24);
}

// ---- Encoders of the output (vks_quant_oct, vks_quant_tangent) ----

vec2 vks_oct_fold(vec3 n, float s)
{
    vec2 o = n.xy / s;
    if (n.z < 0.0)
        o = (1.0 - abs(o.yx)) * vec2(o.x >= 0.0 ? 1.0 : -1.0, o.y >= 0.0 ? 1.0 : -1.0);
    return o;
}

uint vks_oct_encode(vec3 n)
{
    float s = abs(n.x) + abs(n.y) + abs(n.z);
    if (!(s > 0.0))
        return 0x8000u;
    return packSnorm2x16(vks_oct_fold(n, s));
}

uint vks_tangent_encode(vec3 t, float w)
{
    float s = abs(t.x) + abs(t.y) + abs(t.z);
    if (!(s > 0.0))
        return 0x8000u;
    vec2 o = vks_oct_fold(t, s);
    int y = int(round(clamp(o.y, -1.0, 1.0) * 16383.0));
    return (packSnorm2x16(vec2(o.x, 0.0)) & 0xffffu) |
           (uint((y << 1) | (w < 0.0 ? 1 : 0)) << 16);
}

// ---- Morph targets (vks_shared.h, "Morph targets"; src/skin/morph.c is the reference) ----

// Adds the active targets of the instance whose palette starts at palette_first to vertex i of
// model m (its GPU vertex, of any level: the sources name its level-0 vertex), each in the list's
// order: position += w * dp, the normal and the tangent's xyz likewise.
void vks_morph(vks_model_gpu m, uint palette_first, uint i, inout vec3 position,
               inout vec3 normal, inout vec4 tangent)
{
    uint at = m.morph_offset;
    uint count = floatBitsToUint(vks_palette_vec4(palette_first, at).x); // (the list's words are read as uints)
    if (count == 0u)
        return;
    uint s = m.source_first + i;
    uint source = VKS_MORPHS[s >> 2][s & 3u];
    for (uint k = 0u; k < count; k++) {
        uvec4 pair = floatBitsToUint(vks_palette_vec4(palette_first, at + 1u + (k >> 1)));
        bool odd = (k & 1u) != 0u;
        uint t = m.target_first + (odd ? pair.z : pair.x);
        float w = uintBitsToFloat(odd ? pair.w : pair.y);
        uvec4 a = VKS_MORPHS[2u * t];
        uint d = source - a.x; // unsigned: below the range wraps past its end
        if (d >= a.y)
            continue;
        vec4 steps = uintBitsToFloat(VKS_MORPHS[2u * t + 1u]);
        ivec4 q = ivec4(VKS_MORPHS[a.z + d]);
        vec3 dp = vec3(bitfieldExtract(q.x, 0, 16), bitfieldExtract(q.x, 16, 16),
                       bitfieldExtract(q.y, 0, 16)) * steps.x;
        vec3 dn = vec3(bitfieldExtract(q.y, 16, 16), bitfieldExtract(q.z, 0, 16),
                       bitfieldExtract(q.z, 16, 16)) * steps.y;
        vec3 dt = vec3(bitfieldExtract(q.w, 0, 10), bitfieldExtract(q.w, 10, 10),
                       bitfieldExtract(q.w, 20, 10)) * steps.z;
        position += w * dp;
        normal += w * dn;
        tangent.xyz += w * dt;
    }
}

// ---- Skinning ----

// The palette is read in vec4s: joint j of an instance's range is the vks_bone at vec4
// 3 (palette_first + j), or, dual-quaternion skinned, the vks_dq at 3 palette_first + 2 j (its
// entries packed in the range, 32 bytes each).

// Adds w[k] * palette[palette_first + joint k] for k = 0..3 in order (the CPU reference adds in
// the same order: a different order rounds differently).
void vks_blend4(uint palette_first, uvec4 j, vec4 w, inout vec4 r0, inout vec4 r1, inout vec4 r2)
{
    for (int i = 0; i < 4; i++) {
        uint at = 3u * j[i];
        r0 += w[i] * vks_palette(palette_first, at);
        r1 += w[i] * vks_palette(palette_first, at + 1u);
        r2 += w[i] * vks_palette(palette_first, at + 2u);
    }
}

// Dual quaternions (src/skin/dqs.h, operation for operation): adds w[k] sign_k (q_k, qe_k) and
// w[k] s_k, the sign against q0, qe_k = 0.5 (t_k, 0) q_k.
void vks_dq_blend4(uint palette_first, uvec4 j, vec4 w, vec4 q0, inout vec4 b, inout vec4 be,
                   inout float s)
{
    for (int i = 0; i < 4; i++) {
        uint at = 2u * j[i];
        vec4 q = vks_palette(palette_first, at), ts = vks_palette(palette_first, at + 1u);
        float wi = dot(q0, q) < 0.0 ? -w[i] : w[i];
        vec4 qe = vec4(q.w * ts.xyz + cross(ts.xyz, q.xyz), -dot(ts.xyz, q.xyz));
        b += wi * q;
        be += wi * 0.5 * qe;
        s += w[i] * ts.w;
    }
}

// The blended 3x4 matrix (its rows r0, r1, r2) of vertex i of model m, from an instance's palette
// entries: influences 1 to 4, then 5 to 8 in the wide variant (whose dispatches and draws hold
// wide models only).
void vks_blend(vks_model_gpu m, uint palette_first, uint i, out vec4 r0, out vec4 r1, out vec4 r2)
{
    uint v = m.vertex_first + i;
    bool joints16 = (m.flags & VKS_MODEL_JOINTS16) != 0u;
    r0 = vec4(0.0);
    r1 = vec4(0.0);
    r2 = vec4(0.0);
    vks_blend4(palette_first, vks_joints(false, m.joints_first, joints16, i),
               vks_unorm16x4(VKS_WEIGHTS[v]), r0, r1, r2);
    if (VKS_SKIN_WIDE) {
        uint e = m.extra_first + i;
        vks_blend4(palette_first, vks_joints(true, m.joints_extra_first, joints16, i),
                   vks_unorm16x4(VKS_WEIGHTS_EXTRA[e]), r0, r1, r2);
    }
}

// The blended dual quaternion (c, ce) and scale s of vertex i of model m: normalised; the bind
// pose (identity, scale 1) when the blend vanishes.
void vks_dq_blend(vks_model_gpu m, uint palette_first, uint i, out vec4 c, out vec4 ce,
                  out float s)
{
    uint v = m.vertex_first + i;
    bool joints16 = (m.flags & VKS_MODEL_JOINTS16) != 0u;
    uvec4 j = vks_joints(false, m.joints_first, joints16, i);
    vec4 q0 = vks_palette(palette_first, 2u * j.x);
    vec4 b = vec4(0.0), be = vec4(0.0);
    s = 0.0;
    vks_dq_blend4(palette_first, j, vks_unorm16x4(VKS_WEIGHTS[v]), q0, b, be, s);
    if (VKS_SKIN_WIDE) {
        uint e = m.extra_first + i;
        vks_dq_blend4(palette_first, vks_joints(true, m.joints_extra_first, joints16, i),
                      vks_unorm16x4(VKS_WEIGHTS_EXTRA[e]), q0, b, be, s);
    }
    float len2 = dot(b, b);
    if (len2 > 0.0) {
        float inv = 1.0 / sqrt(len2);
        c = b * inv;
        ce = be * inv;
    } else {
        c = vec4(0.0, 0.0, 0.0, 1.0);
        ce = vec4(0.0);
        s = 1.0;
    }
}

// R(c) x for a unit quaternion c.
vec3 vks_quat_rotate(vec4 c, vec3 x)
{
    return x + 2.0 * cross(c.xyz, cross(c.xyz, x) + c.w * x);
}

// p' = R(c) (s p) + t, t = 2 (c.w ce.xyz - ce.w c.xyz + c.xyz x ce.xyz).
vec3 vks_dq_point(vec4 c, vec4 ce, float s, vec3 p)
{
    return vks_quat_rotate(c, s * p) + 2.0 * (c.w * ce.xyz - ce.w * c.xyz + cross(c.xyz, ce.xyz));
}

// p' = M (p, 1); n' = cofactor(M3x3) n * sign(det): the inverse-transpose up to a positive
// scale, so normals stay perpendicular under non-uniform scale. n' is a direction, not unit
// length: the compute pass's octahedral encoding divides by its norm anyway (vks_oct_encode), and
// the vertex shader normalises it (vks_unit). det is returned for the tangents' handedness.
void vks_skin_point(vec4 r0, vec4 r1, vec4 r2, vec3 position, vec3 normal,
                    out vec3 p, out vec3 n, out float det)
{
    vec4 p1 = vec4(position, 1.0);
    p = vec3(dot(r0, p1), dot(r1, p1), dot(r2, p1));
    vec3 c0 = r0.xyz, c1 = r1.xyz, c2 = r2.xyz; // rows of the blended 3x3
    // Cofactor matrix (det * inverse-transpose), row by row: cross products of the other rows.
    vec3 cof0 = cross(c1, c2), cof1 = cross(c2, c0), cof2 = cross(c0, c1);
    det = dot(c0, cof0);
    n = vec3(dot(cof0, normal), dot(cof1, normal), dot(cof2, normal)) * (det < 0.0 ? -1.0 : 1.0);
}

// v at unit length, or zero when it has none (as the CPU reference).
vec3 vks_unit(vec3 v)
{
    float len2 = dot(v, v);
    return len2 > 0.0 ? v * inversesqrt(len2) : vec3(0.0);
}
