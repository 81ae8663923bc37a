#version 450
// Overlays over the frame: world-space lines and triangles (view_proj, depth-tested against the
// crowd), or screen-space triangles (pixels from the top left; push.screen = 1). The color is
// RGBA8 in sRGB, as a vertex attribute (R8G8B8A8_UNORM), made linear here.
layout(location = 0) in vec3 in_position;
layout(location = 1) in vec4 in_color;
layout(location = 0) out vec4 out_color;

layout(push_constant) uniform Push
{
    mat4 view_proj;
    vec2 size;   // the target in pixels
    uint screen; // 1: in_position.xy are pixels
} push;

vec3 linear_of(vec3 c)
{
    return mix(c / 12.92, pow((c + 0.055) / 1.055, vec3(2.4)), greaterThan(c, vec3(0.04045)));
}

void main()
{
    if (push.screen == 1u)
        gl_Position = vec4(in_position.xy / push.size * 2.0 - 1.0, 0.0, 1.0);
    else
        gl_Position = push.view_proj * vec4(in_position, 1.0);
    out_color = vec4(linear_of(in_color.rgb), in_color.a);
}
