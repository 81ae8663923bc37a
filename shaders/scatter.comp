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
#define STAGING staging.v
#define RECORDS records.v
#define STORE store.v
#else
layout(buffer_reference, std430, buffer_reference_align = 16) restrict readonly buffer Staging { uvec4 v[]; };
layout(buffer_reference, std430, buffer_reference_align = 16) restrict readonly buffer Records { uvec4 v[]; };
layout(buffer_reference, std430, buffer_reference_align = 16) restrict writeonly buffer Store { uvec4 v[]; };
#define STAGING Staging(push.staging).v
#define RECORDS Records(push.records).v
#define STORE Store(push.store).v
#endif

void main()
{
    for (uint r = gl_WorkGroupID.x; r < push.record_count; r += gl_NumWorkGroups.x) {
        uvec4 rec = RECORDS[r]; // from_entry, to_entry, count
        uint e = push.entry_vec4s, from = rec.x * e, to = rec.y * e, n = rec.z * e;
        for (uint i = gl_LocalInvocationID.x; i < n; i += VKS_SCATTER_GROUP_SIZE)
            STORE[to + i] = STAGING[from + i];
    }
}
