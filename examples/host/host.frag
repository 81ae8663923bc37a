#version 450
// The host's shading, the one vkskin's own draw uses (vkskin_view_light): the material's base
// colour times its texture, lit by one directional light and an ambient term, back faces from
// their own side, into an sRGB target. The light comes in as specialization constants.
layout(location = 0) in vec3 world_normal;
layout(location = 1) in vec2 uv;
layout(set = 0, binding = 0) uniform sampler2D base_texture;
layout(push_constant) uniform Push {
    mat4 clip_from_model;
    vec4 world_rows[3];
    vec4 base_color;
} pc;
layout(constant_id = 0) const float light_x = 0.0;
layout(constant_id = 1) const float light_y = 1.0;
layout(constant_id = 2) const float light_z = 0.0;
layout(constant_id = 3) const float light_r = 1.0;
layout(constant_id = 4) const float light_g = 1.0;
layout(constant_id = 5) const float light_b = 1.0;
layout(constant_id = 6) const float ambient_r = 0.0;
layout(constant_id = 7) const float ambient_g = 0.0;
layout(constant_id = 8) const float ambient_b = 0.0;
layout(location = 0) out vec4 color;

void main()
{
    float len2 = dot(world_normal, world_normal);
    vec3 n = len2 > 0.0 ? world_normal * inversesqrt(len2) : vec3(0.0);
    if (!gl_FrontFacing)
        n = -n;
    vec4 base = pc.base_color * texture(base_texture, uv);
    float diffuse = max(dot(n, vec3(light_x, light_y, light_z)), 0.0);
    vec3 light = vec3(ambient_r, ambient_g, ambient_b) + vec3(light_r, light_g, light_b) * diffuse;
    color = vec4(base.rgb * light, 1.0);
}
