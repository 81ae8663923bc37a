#version 450
// The host's own vertex shader: vkskin's skinned vertices as a vertex buffer (position, then
// the normal as an octahedral snorm16x2 word, vkskin_vulkan.h), placed by the instance's world.
layout(location = 0) in vec3 position;
layout(location = 1) in uint normal_oct;
layout(push_constant) uniform Push {
    mat4 view_proj;
    mat4 world;
} pc;
layout(location = 0) out vec3 world_normal;

vec3 decode_oct(uint q)
{
    vec2 xy = unpackSnorm2x16(q);
    vec3 v = vec3(xy, 1.0 - abs(xy.x) - abs(xy.y));
    float t = max(-v.z, 0.0);
    v.xy += mix(vec2(t), vec2(-t), greaterThanEqual(v.xy, vec2(0.0)));
    return normalize(v);
}

void main()
{
    gl_Position = pc.view_proj * pc.world * vec4(position, 1.0);
    world_normal = mat3(pc.world) * decode_oct(normal_oct);
}
