#version 450
// The host's own vertex shader: vkskin's skinned vertices as vertex buffer 0 (position, then the
// normal as an octahedral snorm16x2 word, vkskin_vulkan.h) and the model's UVs as vertex buffer 1
// (vkskin_gpu_get_uvs), placed by the instance's world transform.
layout(location = 0) in vec3 position;
layout(location = 1) in uint normal_oct;
layout(location = 2) in vec2 uv;
layout(push_constant) uniform Push {
    mat4 clip_from_model; // view_proj times the instance's world
    vec4 world_rows[3];   // the world transform's rows (xyz), for normals
    vec4 base_color;      // the mesh's material's (host.frag)
} pc;
layout(location = 0) out vec3 world_normal;
layout(location = 1) out vec2 out_uv;

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
    gl_Position = pc.clip_from_model * vec4(position, 1.0);
    // Normals by the world's cofactor matrix (its inverse transpose times its determinant): right
    // under any scale; the determinant's sign keeps mirrored instances' normals outward.
    vec3 r0 = pc.world_rows[0].xyz, r1 = pc.world_rows[1].xyz, r2 = pc.world_rows[2].xyz;
    vec3 c0 = cross(r1, r2), c1 = cross(r2, r0), c2 = cross(r0, r1);
    vec3 n = decode_oct(normal_oct);
    world_normal = vec3(dot(c0, n), dot(c1, n), dot(c2, n)) * sign(dot(r0, c0));
    out_uv = uv;
}
