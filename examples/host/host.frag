#version 450
// The host's own shading: one light and an ambient term.
layout(location = 0) in vec3 world_normal;
layout(location = 0) out vec4 color;

void main()
{
    vec3 n = normalize(world_normal);
    float lit = max(dot(n, normalize(vec3(0.4, 1.0, 0.6))), 0.0);
    color = vec4(vec3(0.25, 0.27, 0.3) + vec3(0.75, 0.6, 0.45) * lit, 1.0);
}
