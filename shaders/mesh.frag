#version 450
// Base color (factor x sRGB texture, decoded by the sampler) lit by one directional light plus
// ambient, written to an sRGB target (encoded by the hardware).
#extension GL_GOOGLE_include_directive : require
#include "vks_shared.h"

layout(location = 0) in vec3 in_normal;
layout(location = 1) in vec2 in_uv;

layout(std140, set = 0, binding = 0) uniform Frame { vks_frame_uniforms frame; };
layout(set = 1, binding = 0) uniform sampler2D base_color_texture;
layout(push_constant) uniform Push { vks_draw_push push; };

layout(location = 0) out vec4 out_color;

void main()
{
    vec4 base = push.base_color * texture(base_color_texture, in_uv);
    float len2 = dot(in_normal, in_normal);
    // Two-sided: back faces (thin or open meshes) are lit from their own side.
    vec3 n = len2 > 0.0 ? in_normal * inversesqrt(len2) : vec3(0.0);
    if (!gl_FrontFacing)
        n = -n;
    float diffuse = max(dot(n, frame.light_dir.xyz), 0.0);
    vec3 color = base.rgb * (frame.ambient.rgb + frame.light_color.rgb * diffuse);
    out_color = vec4(color, 1.0);
}
