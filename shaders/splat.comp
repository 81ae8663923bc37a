#version 450
// The far splat (vks_shared.h, "The far splat"; bake/splat.h): one invocation per visible entry
// of one model, each drawn as its model's splat into the compute rasterizer's visibility buffer.
// The splat is the covariance of the model's posed surface in the frame of one joint: carried by
// that joint's palette entry and the instance's world, projected (the projection's Jacobian at its
// center), it is an ellipse on screen, and the pixel centers within splat_center.w standard
// deviations of it are covered at its center's depth, as primitive 0 of the entry (the resolve
// shades it with the splat's color). Built twice, as raster.comp: by device address, and with
// VKS_DESCRIPTORS through descriptors (sets 0 and 1). Layout of the push constants:
// vks_splat_push.
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
#extension GL_EXT_shader_atomic_int64 : require
#include "vks_shared.h"

layout(local_size_x = VKS_SPLAT_GROUP_SIZE) in;
layout(push_constant) uniform Push { vks_splat_push push; };
#define VKS_DATA_SET 0
#define VKS_RASTER_SET 1
#define VKS_VIS_TYPE uint64_t
#define VKS_VIS_ACCESS
#define VKS_OUT_BASE 0u
#include "vks_raster.glsl"
#include "vks_palette.glsl"

// The 3x3 of three rows.
mat3 rows3(vec3 a, vec3 b, vec3 c)
{
    return transpose(mat3(a, b, c));
}

shared uint group_first;

void main()
{
    if (gl_LocalInvocationIndex == 0)
        group_first = 0u;
    barrier();
    uint first = 0u;
    uint k = gl_GlobalInvocationID.x;
    uint width = push.size & 0xffffu, height = push.size >> 16;
    uint triangle_bits = (push.bits >> 8) & 0xffu;
    uint entry = push.visible_first + k;
    vks_visible e = R_VISIBLE[min(entry, push.visible_first + push.visible_count - 1u)];
    vks_model_gpu m = R_MODELS[e.model];
    if (k < push.visible_count && (m.splat_info.z & VKS_SPLAT_VALID) != 0u) {
        vks_instance inst = R_INSTANCES[e.instance];
        uint j = (push.bits & VKS_SPLAT_CARRIER_ONLY) != 0u ? 0u : m.splat_info.x;
        // The joint's skin matrix (palette space from bind space), as rows.
        vec4 r0, r1, r2;
        if ((push.bits & VKS_SPLAT_DQ) != 0u) {
            vec4 q = vks_palette_vec4(e.palette_first, 2u * j);
            vec4 ts = vks_palette_vec4(e.palette_first, 2u * j + 1u);
            float s = ts.w;
            r0 = vec4(s * vec3(1.0 - 2.0 * (q.y * q.y + q.z * q.z), 2.0 * (q.x * q.y - q.z * q.w),
                               2.0 * (q.x * q.z + q.y * q.w)), ts.x);
            r1 = vec4(s * vec3(2.0 * (q.x * q.y + q.z * q.w), 1.0 - 2.0 * (q.x * q.x + q.z * q.z),
                               2.0 * (q.y * q.z - q.x * q.w)), ts.y);
            r2 = vec4(s * vec3(2.0 * (q.x * q.z - q.y * q.w), 2.0 * (q.y * q.z + q.x * q.w),
                               1.0 - 2.0 * (q.x * q.x + q.y * q.y)), ts.z);
        } else {
            r0 = vks_palette_vec4(e.palette_first, 3u * j);
            r1 = vks_palette_vec4(e.palette_first, 3u * j + 1u);
            r2 = vks_palette_vec4(e.palette_first, 3u * j + 2u);
        }
        vec4 c1 = vec4(m.splat_center.xyz, 1.0);
        vec4 p = vec4(dot(r0, c1), dot(r1, c1), dot(r2, c1), 1.0);
        vec3 world = vec3(dot(inst.world[0], p), dot(inst.world[1], p), dot(inst.world[2], p));
        // The covariance carried to the world: A S A^T, A the world's 3x3 after the joint's.
        mat3 a = rows3(inst.world[0].xyz, inst.world[1].xyz, inst.world[2].xyz) *
                 rows3(r0.xyz, r1.xyz, r2.xyz);
        mat3 sb = mat3(m.splat_cov0.x, m.splat_cov0.y, m.splat_cov0.z,
                       m.splat_cov0.y, m.splat_cov0.w, m.splat_cov1.x,
                       m.splat_cov0.z, m.splat_cov1.x, m.splat_cov1.y);
        mat3 sw = a * sb * transpose(a);
        vec4 c = push.view_proj * vec4(world, 1.0);
        if (c.w > 0.0) {
            vec3 ndc = c.xyz / c.w;
            vec2 center = (ndc.xy * 0.5 + 0.5) * vec2(float(width), float(height));
            // The screen's Jacobian at the center: rows of pixels per world unit.
            mat4 vp = push.view_proj;
            vec3 row0 = vec3(vp[0][0], vp[1][0], vp[2][0]), row1 = vec3(vp[0][1], vp[1][1], vp[2][1]),
                 row3 = vec3(vp[0][3], vp[1][3], vp[2][3]);
            vec3 jx = (0.5 * float(width) / c.w) * (row0 - ndc.x * row3);
            vec3 jy = (0.5 * float(height) / c.w) * (row1 - ndc.y * row3);
            float cxx = dot(jx, sw * jx), cxy = dot(jx, sw * jy), cyy = dot(jy, sw * jy);
            float det = cxx * cyy - cxy * cxy;
            float r2 = m.splat_center.w;
            float depth = ndc.z;
            if (det > 0.0 && !isnan(depth) && abs(center.x) <= 32768.0 &&
                abs(center.y) <= 32768.0) {
                depth = clamp(depth, 0.0, 1.0);
                float half_max = 0.5 * float(VKS_SPLAT_MAX_PX);
                vec2 reach = min(sqrt(r2 * vec2(cxx, cyy)), vec2(half_max));
                // The pixels whose centers (x + 0.5) lie within reach of the center.
                int x0 = max(int(ceil(center.x - reach.x - 0.5)), 0);
                int x1 = min(int(floor(center.x + reach.x - 0.5)), int(width) - 1);
                int y0 = max(int(ceil(center.y - reach.y - 0.5)), 0);
                int y1 = min(int(floor(center.y + reach.y - 0.5)), int(height) - 1);
                uint64_t word = (uint64_t(roundEven(depth * VKS_RASTER_DEPTH_MAX)) << VKS_RASTER_ID_BITS) |
                                (uint64_t(entry) << triangle_bits);
                for (int y = y0; y <= y1; y++)
                    for (int x = x0; x <= x1; x++) {
                        vec2 d = vec2(float(x) + 0.5, float(y) + 0.5) - center;
                        // d^T C^-1 d <= r2, times det (> 0).
                        if (cyy * d.x * d.x - 2.0 * cxy * d.x * d.y + cxx * d.y * d.y <= r2 * det &&
                            atomicMin(R_VIS[uint(y) * width + uint(x)], word) == ~0ul)
                            first++;
                    }
            }
        }
    }
    if (first != 0u)
        atomicAdd(group_first, first);
    barrier();
    if (gl_LocalInvocationIndex == 0 && group_first != 0u)
        atomicAdd(R_VIS[width * height], uint64_t(group_first));
}
