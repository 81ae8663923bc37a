// The one shading of a crowd's pixel, whoever rasterized it (mesh.frag after the graphics
// pipeline, resolve.frag after the compute rasterizer): base color (factor x sRGB texture, decoded
// by the sampler) lit by one directional light plus ambient. `normal` is the interpolated world
// normal, not normalised; `front` whether the triangle faces the eye (back faces, of thin or open
// meshes, are lit from their own side). Needs `frame` (vks_frame_uniforms).
vec3 vks_shade(vec4 base, vec3 normal, bool front)
{
    float len2 = dot(normal, normal);
    vec3 n = len2 > 0.0 ? normal * inversesqrt(len2) : vec3(0.0);
    if (!front)
        n = -n;
    float diffuse = max(dot(n, frame.light_dir.xyz), 0.0);
    return base.rgb * (frame.ambient.rgb + frame.light_color.rgb * diffuse);
}
