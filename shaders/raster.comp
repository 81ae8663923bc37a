#version 450
// The compute rasterizer (src/raster/raster.h): one invocation per triangle of one mesh of one
// (model, level), one row of workgroups per visible entry. Built twice, as skin.comp: by device
// address, and with VKS_DESCRIPTORS through descriptors (sets 0 and 1). Small triangles, a pixel or less,
// are what the hardware rasterizer does worst (2x2 quads, setup-bound); here each is a few
// edge tests. Layout of the push constants: vks_raster_push (shaders/vks_shared.h).
//
// Rasterization follows the Vulkan spec's rules for the default pipeline state the draw pass
// uses: vertices snapped to the sub-pixel grid, a pixel covered when its center is inside the
// triangle or on a top or left edge (so an edge shared by two triangles covers each center once),
// back faces culled when push.bits asks (counter-clockwise front faces: positive area as the spec
// computes it in framebuffer coordinates; the draw pass culls none), depth interpolated linearly in screen space. What it does not do is
// clip: a triangle with a corner behind the eye (w <= 0) or past a guard band is skipped, and
// depth is clamped to [0, 1]. Such triangles belong to instances near the eye, which hybrid
// rendering gives the graphics pipeline (the renderer sends only small ones here); the compute
// mode, a comparison, loses them.
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
#extension GL_EXT_shader_atomic_int64 : require
#include "vks_shared.h"

layout(local_size_x = 64) in;
layout(push_constant) uniform Push { vks_raster_push push; };
#define VKS_DATA_SET 0
#define VKS_RASTER_SET 1
#define VKS_VIS_TYPE uint64_t
#define VKS_VIS_ACCESS
#define VKS_OUT_BASE push.out_base
#include "vks_raster.glsl"

// Twice the signed area of (a, b, p) in fixed point: > 0 when p lies to one side of a -> b.
int64_t edge(i64vec2 a, i64vec2 b, i64vec2 p)
{
    return (b.x - a.x) * (p.y - a.y) - (b.y - a.y) * (p.x - a.x);
}

// Whether a -> b is a top or a left edge of a triangle whose edge functions are positive inside
// (framebuffer y down, so its corners run clockwise on screen): top: horizontal with the inside
// below it (it runs towards +x); left: it runs upwards (towards -y).
bool top_left(i64vec2 a, i64vec2 b)
{
    return (a.y == b.y && b.x > a.x) || b.y < a.y;
}

// Rasterizes triangle `tri` of visible entry `entry`; returns how many pixels it was the first to cover.
uint rasterize(uint tri, uint entry)
{
    uint width = push.size & 0xffffu, height = push.size >> 16;
    uint triangle_bits = push.bits & 0xffu, subpixel_bits = (push.bits >> 8) & 0xffu;
    vks_visible e = R_VISIBLE[entry];
    vks_instance inst = R_INSTANCES[e.instance];

    vec3 s[3];
    float z[3];
    i64vec2 f[3];
    float scale = float(1u << subpixel_bits);
    for (int k = 0; k < 3; k++) {
        vec3 p = uintBitsToFloat(r_skinned(e, R_INDICES[push.first_index + 3 * tri + k] + push.base_vertex).xyz);
        vec4 p1 = vec4(p, 1.0);
        vec4 w = vec4(dot(inst.world[0], p1), dot(inst.world[1], p1), dot(inst.world[2], p1), 1.0);
        vec4 c = push.view_proj * w;
        if (!(c.w > 0.0))
            return 0u;
        vec3 ndc = c.xyz / c.w;
        s[k] = vec3((ndc.x * 0.5 + 0.5) * float(width), (ndc.y * 0.5 + 0.5) * float(height), ndc.z);
        // Past a guard band of 32 768 pixels (a triangle reaching far off screen: a near one),
        // the fixed-point products could overflow: left out.
        if (!(abs(s[k].x) <= 32768.0 && abs(s[k].y) <= 32768.0))
            return 0u;
        z[k] = ndc.z;
        f[k] = i64vec2(roundEven(s[k].xy * scale));
    }
    // The spec's area: a = -1/2 sum(x_i y_(i+1) - x_(i+1) y_i); front facing when positive.
    int64_t twice = -(f[0].x * f[1].y - f[1].x * f[0].y + f[1].x * f[2].y - f[2].x * f[1].y +
                      f[2].x * f[0].y - f[0].x * f[2].y);
    if (twice == 0 || (twice < 0 && (push.bits & VKS_RASTER_CULL_BACK) != 0u))
        return 0u; // no area, or a back face culled
    // Positive area means clockwise in y-down coordinates: edge(a, b, p) is then negative inside;
    // walk the corners the other way round so that it is positive (a back face: as they are).
    bool front = twice > 0;
    i64vec2 v0 = f[0], v1 = front ? f[2] : f[1], v2 = front ? f[1] : f[2];
    float z0 = z[0], z1 = front ? z[2] : z[1], z2 = front ? z[1] : z[2];
    twice = abs(twice);
    int64_t px = 1l << subpixel_bits;
    int64_t half_px = px >> 1;
    // The pixels whose centers the box can hold, clamped to the image.
    int64_t lo_x = min(v0.x, min(v1.x, v2.x)), hi_x = max(v0.x, max(v1.x, v2.x));
    int64_t lo_y = min(v0.y, min(v1.y, v2.y)), hi_y = max(v0.y, max(v1.y, v2.y));
    if (hi_x - half_px < 0 || hi_y - half_px < 0)
        return 0u; // wholly left of or above the first centers
    int x0 = int(max((lo_x - half_px + px - 1) / px, 0l)); // first center >= lo
    int y0 = int(max((lo_y - half_px + px - 1) / px, 0l));
    int x1 = int(min((hi_x - half_px) / px, int64_t(width) - 1));
    int y1 = int(min((hi_y - half_px) / px, int64_t(height) - 1));
    bool t0 = top_left(v1, v2), t1 = top_left(v2, v0), t2 = top_left(v0, v1);
    float inv = 1.0 / float(twice);
    uint64_t id = (uint64_t(entry) << triangle_bits) | uint64_t(push.triangle_first + tri);
    uint first = 0u;
    for (int y = y0; y <= y1; y++)
        for (int x = x0; x <= x1; x++) {
            i64vec2 c = i64vec2(int64_t(x) * px + half_px, int64_t(y) * px + half_px);
            int64_t e0 = edge(v1, v2, c), e1 = edge(v2, v0, c), e2 = edge(v0, v1, c);
            if ((e0 > 0 || (e0 == 0 && t0)) && (e1 > 0 || (e1 == 0 && t1)) &&
                (e2 > 0 || (e2 == 0 && t2))) {
                float depth = (float(e0) * z0 + float(e1) * z1 + float(e2) * z2) * inv;
                if (isnan(depth))
                    continue; // (clamp leaves NaN undefined: it would quantize as the nearest)
                depth = clamp(depth, 0.0, 1.0);
                uint64_t word = (uint64_t(roundEven(depth * VKS_RASTER_DEPTH_MAX)) << VKS_RASTER_ID_BITS) | id;
                if (atomicMin(R_VIS[uint(y) * width + uint(x)], word) == ~0ul)
                    first++;
            }
        }
    return first;
}

shared uint group_first;

void main()
{
    if (gl_LocalInvocationIndex == 0)
        group_first = 0u;
    barrier();
    uint tri = gl_GlobalInvocationID.x;
    uint first = tri < push.triangle_count ? rasterize(tri, push.visible_first + gl_WorkGroupID.y) : 0u;
    if (first != 0u)
        atomicAdd(group_first, first);
    barrier();
    // The pixels first covered, one atomic a workgroup: after the image's words.
    if (gl_LocalInvocationIndex == 0 && group_first != 0u)
        atomicAdd(R_VIS[(push.size & 0xffffu) * (push.size >> 16)], uint64_t(group_first));
}
