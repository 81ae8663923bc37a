#version 450
// The graphics pipeline's pixels: shaded by vks_shade.glsl (as the compute rasterizer's resolve
// shades its own), written to an sRGB target (encoded by the hardware).
#extension GL_GOOGLE_include_directive : require
#include "vks_shared.h"

layout(location = 0) in vec3 in_normal;
layout(location = 1) in vec2 in_uv;
layout(location = 2) flat in vec2 in_flat_uv;

layout(std140, set = 0, binding = 0) uniform Frame { vks_frame_uniforms frame; };
layout(set = 1, binding = 0) uniform sampler2D base_color_texture;
layout(push_constant) uniform Push { vks_draw_push push; };

layout(location = 0) out vec4 out_color;

#include "vks_shade.glsl"

void main()
{
    // A flat UV (VKS_FLAT_UV) reads the first corner's texel over the whole triangle: its
    // derivatives are 0, so the sampler takes level 0.
    vec2 uv = in_flat_uv.x >= VKS_FLAT_UV ? vec2(in_flat_uv.x - VKS_FLAT_UV, in_flat_uv.y) : in_uv;
    vec4 base = push.base_color * texture(base_color_texture, uv);
    out_color = vec4(vks_shade(base, in_normal, gl_FrontFacing), 1.0);
}
