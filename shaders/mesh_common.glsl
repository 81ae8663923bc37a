// What both vertex shaders share: the instance of this invocation and its world transform.
// Included after vks_skin.glsl (its data access, VKS_VISIBLE and the others).
layout(std140, set = 0, binding = 0) uniform Frame { vks_frame_uniforms frame; };

layout(location = 0) out vec3 out_normal;
layout(location = 1) out vec2 out_uv;
layout(location = 2) flat out vec2 out_flat_uv; // the provoking (first) corner's: VKS_FLAT_UV

// gl_InstanceIndex (the draw's first instance plus the instance) indexes the visible list.
vks_visible this_visible()
{
    return VKS_VISIBLE[gl_InstanceIndex];
}

vks_instance instance_of(vks_visible e)
{
    return VKS_INSTANCES[e.instance];
}

// Palette space -> world, then the camera. Normals take the world's cofactor matrix (its
// inverse-transpose up to scale; the fragment shader normalises).
void emit(vks_instance inst, vec3 p, vec3 n, uint v)
{
    vec4 w0 = inst.world[0], w1 = inst.world[1], w2 = inst.world[2];
    vec4 p1 = vec4(p, 1.0);
    gl_Position = frame.view_proj * vec4(dot(w0, p1), dot(w1, p1), dot(w2, p1), 1.0);
    vec3 cof0 = cross(w1.xyz, w2.xyz), cof1 = cross(w2.xyz, w0.xyz), cof2 = cross(w0.xyz, w1.xyz);
    out_normal = vec3(dot(cof0, n), dot(cof1, n), dot(cof2, n)) * sign(dot(w0.xyz, cof0));
    uint first = VKS_MODELS[inst.model].vertex_first;
    vec2 uv = vec2(VKS_UVS[2 * (first + v)], VKS_UVS[2 * (first + v) + 1]);
    out_flat_uv = uv; // as stored: U past VKS_FLAT_UV marks it flat
    out_uv = vec2(uv.x >= VKS_FLAT_UV ? uv.x - VKS_FLAT_UV : uv.x, uv.y); // in the texture's range
}
