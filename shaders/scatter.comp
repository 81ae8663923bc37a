#version 450
// The palette store's scatter: each record (vks_scatter_record, one posed instance's) copies its
// palette from the frame's staging into its block of the store (or an instance's world into the
// instance table), one workgroup a record, uvec4 by uvec4 (push.entry_vec4s to an entry: 3 for a
// vks_bone, 4 for a vks_instance). Layouts and why it is not a vkCmdCopyBuffer: vks_shared.h.
// Built twice: reaching its buffers by device address, and with VKS_DESCRIPTORS through the
// descriptors of set 0 (the descriptors binding, which synchronization validation follows).
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_buffer_reference : require
#extension GL_EXT_buffer_reference_uvec2 : require
#include "vks_shared.h"

layout(local_size_x = VKS_SCATTER_GROUP_SIZE) in;
layout(push_constant) uniform Push { vks_scatter_push push; };

#ifdef VKS_DESCRIPTORS
layout(std430, set = 0, binding = VKS_SCATTER_BINDING_STAGING) restrict readonly buffer Staging { uvec4 v[]; } staging;
layout(std430, set = 0, binding = VKS_SCATTER_BINDING_RECORDS) restrict readonly buffer Records { uvec4 v[]; } records;
layout(std430, set = 0, binding = VKS_SCATTER_BINDING_STORE) restrict writeonly buffer Store { uvec4 v[]; } store;
layout(std430, set = 0, binding = VKS_SCATTER_BINDING_MODELS) restrict readonly buffer Models { vks_model_gpu v[]; } models;
#define STAGING staging.v
#define RECORDS records.v
#define STORE store.v
#define MODELS models.v
#else
#include "vks_refs.glsl" // Models
layout(buffer_reference, std430, buffer_reference_align = 16) restrict readonly buffer Staging { uvec4 v[]; };
layout(buffer_reference, std430, buffer_reference_align = 16) restrict readonly buffer Records { uvec4 v[]; };
layout(buffer_reference, std430, buffer_reference_align = 16) restrict writeonly buffer Store { uvec4 v[]; };
#define STAGING Staging(push.staging).v
#define RECORDS Records(push.records).v
#define STORE Store(push.store).v
#define MODELS Models(push.models).v
#endif

// Place record r (vks_place_record, two uvec4 from push.place_first in the staging): its
// instance's entry, T(position) Ry S(scale) times its model's placed rows.
void place(uint r)
{
    uvec4 a = STAGING[push.place_first + 2u * r], b = STAGING[push.place_first + 2u * r + 1u];
    uint instance = a.x, model = a.y;
    vec3 p = vec3(uintBitsToFloat(a.z), uintBitsToFloat(a.w), uintBitsToFloat(b.x));
    float c = uintBitsToFloat(b.y), s = uintBitsToFloat(b.z), k = uintBitsToFloat(b.w);
    // The placement's rows: (c 0 s px), (0 k 0 py), (-s 0 c pz).
    vec4 m0 = MODELS[model].placed[0], m1 = MODELS[model].placed[1], m2 = MODELS[model].placed[2];
    vec4 w0 = c * m0 + s * m2 + vec4(0.0, 0.0, 0.0, p.x);
    vec4 w1 = k * m1 + vec4(0.0, 0.0, 0.0, p.y);
    vec4 w2 = -s * m0 + c * m2 + vec4(0.0, 0.0, 0.0, p.z);
    uint e = 4u * instance;
    STORE[e] = floatBitsToUint(w0);
    STORE[e + 1u] = floatBitsToUint(w1);
    STORE[e + 2u] = floatBitsToUint(w2);
    STORE[e + 3u] = uvec4(model, 0u, 0u, 0u);
}

void main()
{
    if (push.entry_vec4s == 0u) { // placing: a record an invocation
        for (uint r = gl_GlobalInvocationID.x; r < push.record_count;
             r += gl_NumWorkGroups.x * VKS_SCATTER_GROUP_SIZE)
            place(r);
        return;
    }
    for (uint r = gl_WorkGroupID.x; r < push.record_count; r += gl_NumWorkGroups.x) {
        uvec4 rec = RECORDS[push.record_first + r]; // from_entry, to_entry, count
        uint e = push.entry_vec4s, from = rec.x * e, to = rec.y * e, n = rec.z * e;
        for (uint i = gl_LocalInvocationID.x; i < n; i += VKS_SCATTER_GROUP_SIZE)
            STORE[to + i] = STAGING[from + i];
    }
}
