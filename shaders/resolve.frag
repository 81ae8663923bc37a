#version 450
// The resolve: the compute rasterizer's visibility buffer shaded, every material at once, as
// mesh.frag shades the graphics pipeline's pixels (vks_shade.glsl), and depth-tested against them.
// Drawn as one full-screen triangle after the graphics pipeline's draws, in the same rendering
// (on the descriptors binding, one per output chunk the rasterized entries' outputs are in): the
// depth it writes (the visibility buffer's, gl_FragDepth) meets the depth test LESS, so near
// characters drawn by the hardware and far ones rasterized in compute hide each other. The word
// names the visible entry and the triangle within its level; the level (found from the entry's
// vertex_first), the level's mesh (by its first index), its material (the material table:
// vks_raster_material) and the three corners follow; an entry drawn as a far splat
// (VKS_VISIBLE_SPLAT) is shaded with its model's splat color. UVs and normals are interpolated
// perspective-correct at the pixel center, as the hardware does. The texture is read from the
// materials buffer, where every texture's mip chain lies (texels as the sampled image holds them,
// sRGB-encoded), and filtered here, trilinearly at the level of detail the spec gives the UV
// gradients, which come from the same triangle one pixel right and down: no descriptor per
// texture, so one pass shades any number of materials (lavapipe has no descriptor arrays and 128
// sampled images a stage). (The draw pass's sampler may also filter anisotropically, which this
// does not: at grazing angles the graphics pipeline's texture is sharper.) Built twice, as
// mesh.vert: by device address, and with VKS_DESCRIPTORS through descriptors (sets 1 and 2).
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
#include "vks_shared.h"

layout(std140, set = 0, binding = 0) uniform Frame { vks_frame_uniforms frame; };
layout(push_constant) uniform Push { vks_resolve_push push; };
#define VKS_DATA_SET 1
#define VKS_RASTER_SET 2
#define VKS_VIS_TYPE uvec2
#define VKS_VIS_ACCESS readonly
#define VKS_OUT_BASE push.out_base.x
#include "vks_raster.glsl"
#include "vks_oct.glsl"
#include "vks_shade.glsl"

layout(location = 0) out vec4 out_color;

// A texture as the material table stores it: its first texel, its top stored level's size, how
// many levels follow.
struct texture_ref {
    uint first;
    ivec2 size;
    int levels;
};

vec3 srgb_to_linear(vec3 c)
{
    return mix(c / 12.92, pow((c + 0.055) / 1.055, vec3(2.4)), greaterThan(c, vec3(0.04045)));
}

// Where level `level` of t starts (the levels before it, each half the one above, at least 1).
uint level_first(texture_ref t, int level)
{
    uint at = t.first;
    for (int k = 0; k < level; k++)
        at += uint(max(t.size.x >> k, 1) * max(t.size.y >> k, 1));
    return at;
}

// Texel p of a level (starting at `at`, `size` texels), with the repeat wrap, decoded from sRGB.
vec4 texel(uint at, ivec2 size, ivec2 p)
{
    ivec2 q = ((p % size) + size) % size;
    vec4 c = unpackUnorm4x8(R_MATERIALS[at + uint(q.y * size.x + q.x)]);
    return vec4(srgb_to_linear(c.rgb), c.a);
}

vec4 bilinear(texture_ref t, vec2 uv, int level)
{
    ivec2 size = max(t.size >> level, ivec2(1));
    uint at = level_first(t, level);
    vec2 p = uv * vec2(size) - 0.5;
    vec2 f = p - floor(p);
    ivec2 i = ivec2(floor(p));
    return mix(mix(texel(at, size, i), texel(at, size, i + ivec2(1, 0)), f.x),
               mix(texel(at, size, i + ivec2(0, 1)), texel(at, size, i + ivec2(1, 1)), f.x), f.y);
}

// The sampler's trilinear filtering by hand, at lambda = log2(rho_max) of the UV gradients.
vec4 trilinear(texture_ref t, vec2 uv, vec2 dx, vec2 dy)
{
    vec2 size = vec2(t.size);
    float rho = max(length(dx * size), length(dy * size));
    int last = t.levels - 1;
    float lambda = isnan(rho) ? 0.0 : clamp(log2(max(rho, 1e-30)), 0.0, float(last));
    int l0 = int(lambda);
    return mix(bilinear(t, uv, l0), bilinear(t, uv, min(l0 + 1, last)), lambda - float(l0));
}

// Perspective-correct barycentric weights at screen point p of the triangle with screen corners
// s[k] and clip w's w[k].
vec3 weights_at(vec2 s[3], float w[3], vec2 p)
{
    vec3 b = vec3((s[1].x - p.x) * (s[2].y - p.y) - (s[1].y - p.y) * (s[2].x - p.x),
                  (s[2].x - p.x) * (s[0].y - p.y) - (s[2].y - p.y) * (s[0].x - p.x),
                  (s[0].x - p.x) * (s[1].y - p.y) - (s[0].y - p.y) * (s[1].x - p.x));
    b /= vec3(w[0], w[1], w[2]);
    return b / (b.x + b.y + b.z);
}

void main()
{
    uvec2 pixel = uvec2(gl_FragCoord.xy);
    uvec2 word = R_VIS[pixel.y * push.width + pixel.x]; // low word, then high
    if (word == uvec2(0xffffffffu))
        discard; // empty
    uint64_t id = (uint64_t(word.y & ((1u << (VKS_RASTER_ID_BITS - 32)) - 1u)) << 32) | uint64_t(word.x);
    uint entry = uint(id >> push.triangle_bits);
    uint tri = uint(id & ((uint64_t(1) << push.triangle_bits) - 1ul));
    vks_visible e = R_VISIBLE[entry];
    if (e.vertex_first == VKS_VISIBLE_SPLAT) {
        // A far splat (splat.comp): its model's mean color, lit as a Lambertian sphere seen along
        // the view (the disc's mean of max(n.l, 0): 2/3 of the Lambert phase function at the
        // angle between the view and the light).
        if (push.splats == 0u)
            discard; // another pass resolves them (descriptors binding)
        vec4 base = unpackUnorm4x8(R_MODELS[e.model].splat_info.y);
        // Towards the eye: against clip w's row (perspective), or depth's (orthographic, where
        // that row is zero).
        vec3 w_row = vec3(frame.view_proj[0][3], frame.view_proj[1][3], frame.view_proj[2][3]);
        vec3 z_row = vec3(frame.view_proj[0][2], frame.view_proj[1][2], frame.view_proj[2][2]);
        vec3 forward = mix(z_row, w_row, step(1e-30, dot(w_row, w_row)));
        vec3 toward = -forward * inversesqrt(max(dot(forward, forward), 1e-30));
        float cos_a = clamp(dot(toward, frame.light_dir.xyz), -1.0, 1.0);
        float alpha = acos(cos_a);
        float diffuse = (2.0 / 3.0) * (sin(alpha) + (3.14159265 - alpha) * cos_a) / 3.14159265;
        out_color = vec4(srgb_to_linear(base.rgb) * (frame.ambient.rgb + frame.light_color.rgb * diffuse), 1.0);
        gl_FragDepth = float(word.y >> (VKS_RASTER_ID_BITS - 32)) / VKS_RASTER_DEPTH_MAX;
        return;
    }
#ifdef VKS_DESCRIPTORS
    // Another chunk's entry: another pass resolves it.
    uint borrow;
    uint offset = usubBorrow(e.out_address.x, push.out_base.x, borrow);
    if (e.out_address.y - push.out_base.y - borrow != 0u || offset >= push.out_bytes)
        discard;
#endif
    vks_instance inst = R_INSTANCES[e.instance];
    // The entry's level: the one whose vertices it was skinned from.
    uint first = inst.model * VKS_MAX_LEVELS, l = 0u;
    while (l + 1u < VKS_MAX_LEVELS && R_LEVELS[first + l].vertex_first != e.vertex_first)
        l++;
    vks_raster_level level = R_LEVELS[first + l];
    if (level.mesh_count == 0u)
        discard; // (no such level: not written by the rasterizer)
    uint at = level.first_index + 3u * tri;
    // The mesh: the last of the level's whose indices start at or before the triangle's (the
    // first starts at the level's first index). Halving the count ends for any count.
    uint found = level.mesh_first;
    for (uint n = level.mesh_count; n > 1u;) {
        uint half_n = n >> 1;
        if (R_MESHES[found + half_n].first_index <= at)
            found += half_n;
        n -= half_n;
    }
    vks_raster_mesh mesh = R_MESHES[found];
    uint mat = VKS_RASTER_MATERIAL_WORDS * mesh.material;
    vec4 factor = uintBitsToFloat(uvec4(R_MATERIALS[mat], R_MATERIALS[mat + 1u],
                                        R_MATERIALS[mat + 2u], R_MATERIALS[mat + 3u]));
    uint size = R_MATERIALS[mat + 5u];
    texture_ref tex = texture_ref(R_MATERIALS[mat + 4u], ivec2(size & 0xffffu, size >> 16),
                                  int(R_MATERIALS[mat + 6u]));

    vec4 w0 = inst.world[0], w1 = inst.world[1], w2 = inst.world[2];
    vec3 cof0 = cross(w1.xyz, w2.xyz), cof1 = cross(w2.xyz, w0.xyz), cof2 = cross(w0.xyz, w1.xyz);
    float handed = sign(dot(w0.xyz, cof0));
    uint uv_first = R_MODELS[inst.model].vertex_first + e.vertex_first;
    vec2 image = vec2(float(push.width), float(push.height));
    vec2 s[3], uv[3];
    float w[3];
    vec3 n[3];
    for (int k = 0; k < 3; k++) {
        uint v = R_INDICES[at + k] + mesh.base_vertex;
        uvec4 q = r_skinned(e, v);
        vec4 p1 = vec4(uintBitsToFloat(q.xyz), 1.0);
        vec4 c = frame.view_proj * vec4(dot(w0, p1), dot(w1, p1), dot(w2, p1), 1.0);
        s[k] = (c.xy / c.w * 0.5 + 0.5) * image;
        w[k] = c.w;
        vec3 nk = vks_oct_decode(q.w);
        n[k] = vec3(dot(cof0, nk), dot(cof1, nk), dot(cof2, nk)) * handed;
        uv[k] = vec2(R_UVS[2u * (uv_first + v)], R_UVS[2u * (uv_first + v) + 1u]);
    }
    vec2 center = vec2(pixel) + 0.5;
    vec3 b = weights_at(s, w, center);
    vec3 bx = weights_at(s, w, center + vec2(1.0, 0.0));
    vec3 by = weights_at(s, w, center + vec2(0.0, 1.0));
    // A flat UV (VKS_FLAT_UV): the first corner's over the triangle, as the draw pass's
    // provoking vertex gives it, with no gradient (level 0); the others interpolated in the
    // texture's range (a corner of another mesh's flat UV taken back into it).
    bool flat_uv = uv[0].x >= VKS_FLAT_UV;
    for (int k = 0; k < 3; k++)
        uv[k].x -= uv[k].x >= VKS_FLAT_UV ? VKS_FLAT_UV : 0.0;
    vec2 t = uv[0], tx = uv[0], ty = uv[0];
    if (!flat_uv) {
        t = b.x * uv[0] + b.y * uv[1] + b.z * uv[2];
        tx = bx.x * uv[0] + bx.y * uv[1] + bx.z * uv[2];
        ty = by.x * uv[0] + by.y * uv[1] + by.z * uv[2];
    }
    vec4 base = factor * trilinear(tex, t, tx - t, ty - t);
    // Front facing: the spec's area positive, from the corners snapped as the rasterizer snapped
    // them (a sliver's sign could differ unsnapped).
    float scale = float(1u << push.subpixel_bits);
    i64vec2 f0 = i64vec2(roundEven(s[0] * scale)), f1 = i64vec2(roundEven(s[1] * scale)),
            f2 = i64vec2(roundEven(s[2] * scale));
    int64_t twice = (f1.x - f0.x) * (f2.y - f0.y) - (f2.x - f0.x) * (f1.y - f0.y);
    out_color = vec4(vks_shade(base, b.x * n[0] + b.y * n[1] + b.z * n[2], twice < 0l), 1.0);
    gl_FragDepth = float(word.y >> (VKS_RASTER_ID_BITS - 32)) / VKS_RASTER_DEPTH_MAX;
}
