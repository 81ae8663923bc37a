// The octahedral normal decoder (vks_dequant_oct in src/asset/quant.c, operation for operation).
// Shared by the skinning pass, the vertex shaders and the resolve.
#ifndef VKS_OCT_GLSL
#define VKS_OCT_GLSL

// Octahedral (vks_dequant_oct): the zero word's low half is -32768, which packSnorm2x16 never
// writes.
vec3 vks_oct_unfold(vec2 e)
{
    vec3 v = vec3(e, 1.0 - abs(e.x) - abs(e.y));
    float t = max(-v.z, 0.0);
    v.x += v.x >= 0.0 ? -t : t;
    v.y += v.y >= 0.0 ? -t : t;
    return v * inversesqrt(dot(v, v));
}

vec3 vks_oct_decode(uint q)
{
    if ((q & 0xffffu) == 0x8000u)
        return vec3(0.0);
    return vks_oct_unfold(unpackSnorm2x16(q));
}

#endif
