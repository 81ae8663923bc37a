#version 450
// A plain copy, uvec4 by uvec4: the roofline the bench holds the skinning pass's effective
// bandwidth to (same bytes moved, no arithmetic). Layout of the push constants: src/skin/copy_gpu.c.
#extension GL_EXT_buffer_reference : require
#extension GL_EXT_buffer_reference_uvec2 : require

// 256 invocations: a multiple of every subgroup size (8 to 64), and the usual size of streaming
// kernels (BabelStream, vendors' bandwidth tests); a copy keeps no per-invocation state, so the
// choice only sets how many loads a workgroup has in flight.
layout(local_size_x = 256) in;

layout(buffer_reference, std430, buffer_reference_align = 16) restrict readonly buffer Src { uvec4 src[]; };
layout(buffer_reference, std430, buffer_reference_align = 16) restrict writeonly buffer Dst { uvec4 dst[]; };

layout(push_constant) uniform Push {
    uvec2 src; // device addresses, 16-byte aligned
    uvec2 dst;
    uint count16; // uvec4 to copy, below 2^31 (access chain indices are signed)
    uint pad;
} push;

void main()
{
    Src s = Src(push.src);
    Dst d = Dst(push.dst);
    // Grid-stride: the dispatch is capped (copy_gpu.c), so one invocation may copy several.
    uint stride = gl_NumWorkGroups.x * gl_WorkGroupSize.x;
    for (uint i = gl_GlobalInvocationID.x; i < push.count16; i += stride)
        d.dst[i] = s.src[i];
}
