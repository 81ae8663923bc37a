#version 450
// Draws pre-skinned vertices: no skinning here, only the world transform and the camera.
#extension GL_GOOGLE_include_directive : require
#include "vks_shared.h"

layout(location = 0) in vec3 in_position; // binding 0: the skinning pass's output
layout(location = 1) in vec3 in_normal;
layout(location = 2) in vec2 in_uv;       // binding 1: the model's UVs

layout(std140, set = 0, binding = 0) uniform Frame { vks_frame_uniforms frame; };
layout(push_constant) uniform Params { vks_draw_params params; };

layout(location = 0) out vec3 out_normal;
layout(location = 1) out vec2 out_uv;

void main()
{
    gl_Position = frame.view_proj * (params.world * vec4(in_position, 1.0));
    mat3 nw = mat3(params.normal_world[0].xyz, params.normal_world[1].xyz,
                   params.normal_world[2].xyz);
    out_normal = in_normal * nw; // rows given: v * M == transpose(M) * v, i.e. M_rows * n
    out_uv = in_uv;
}
