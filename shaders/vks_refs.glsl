// The buffer-reference types of the fast path (device addresses in the push constants), one
// declaration each for every shader that reads through them: the skinning (vks_skin.glsl) and
// the compute rasterizer and its resolve (vks_raster.glsl). Needs vks_shared.h's structs.
#ifndef VKS_REFS_GLSL
#define VKS_REFS_GLSL
#extension GL_EXT_buffer_reference : require
#extension GL_EXT_buffer_reference_uvec2 : require

layout(buffer_reference, std430, buffer_reference_align = 4) readonly buffer Floats { float v[]; };
layout(buffer_reference, std430, buffer_reference_align = 4) readonly buffer Uints { uint v[]; };
layout(buffer_reference, std430, buffer_reference_align = 8) readonly buffer Uvec2s { uvec2 v[]; };
layout(buffer_reference, std430, buffer_reference_align = 16) readonly buffer Vec4s { vec4 v[]; };
layout(buffer_reference, std430, buffer_reference_align = 16) readonly buffer Uvec4s { uvec4 v[]; };
layout(buffer_reference, std430, buffer_reference_align = 16) readonly buffer Models { vks_model_gpu v[]; };
layout(buffer_reference, std430, buffer_reference_align = 16) readonly buffer Instances { vks_instance v[]; };
layout(buffer_reference, std430, buffer_reference_align = 8) readonly buffer Visibles { vks_visible v[]; };
#endif
