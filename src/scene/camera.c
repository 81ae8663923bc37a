#include "camera.h"

#include <cglm/cam.h>
#include <cglm/clipspace/persp_rh_zo.h>
#include <cglm/clipspace/view_rh.h>
#include <cglm/mat4.h>

#include <float.h>
#include <math.h>
#include <string.h>

void vks_camera_grow_box(const vks_crowd *crowd, uint32_t i, float lo[3], float hi[3])
{
    const vks_crowd_instance *inst = &crowd->instances[i];
    const float *mlo = crowd->model_lo[inst->model], *mhi = crowd->model_hi[inst->model];
    for (int corner = 0; corner < 8; corner++) {
        const float p[3] = {corner & 1 ? mhi[0] : mlo[0], corner & 2 ? mhi[1] : mlo[1],
                            corner & 4 ? mhi[2] : mlo[2]};
        float v[3];
        vks_transform_point(inst->world, p, v);
        for (int r = 0; r < 3; r++) {
            lo[r] = fminf(lo[r], v[r]);
            hi[r] = fmaxf(hi[r], v[r]);
        }
    }
}

void vks_camera_crowd_box(const vks_crowd *crowd, float lo[3], float hi[3])
{
    for (int k = 0; k < 3; k++) {
        lo[k] = FLT_MAX;
        hi[k] = -FLT_MAX;
    }
    for (uint32_t i = 0; i < crowd->instance_count; i++)
        if (!crowd->instances[i].removed)
            vks_camera_grow_box(crowd, i, lo, hi);
}

void vks_camera_frame_box(vks_camera *cam, const float lo[3], const float hi[3])
{
    float r2 = 0.0f;
    for (int k = 0; k < 3; k++) {
        cam->center[k] = 0.5f * (lo[k] + hi[k]);
        cam->half[k] = 0.5f * (hi[k] - lo[k]);
        r2 += cam->half[k] * cam->half[k];
    }
    cam->radius = r2 > 0.0f ? sqrtf(r2) : 1.0f;
    cam->yaw = 0.45f; /* a three-quarter view from the front right, a bit above */
    /* A crowd much wider than tall (a ring of hundreds, a large grid) seen from a bit above is a
     * thin band: from higher up the flatter it is, to 0.7 rad (40 degrees). */
    const float width = 2.0f * fmaxf(cam->half[0], cam->half[2]), height = 2.0f * cam->half[1];
    const float tall = width > 0.0f ? fminf(height / width / 0.5f, 1.0f) : 1.0f;
    cam->pitch = 0.2f + 0.5f * (1.0f - tall);
    cam->zoom = 1.0f;
    memcpy(cam->focus, cam->center, sizeof cam->focus);
}

/* Where the eye is: its distance from the centre along `back`, which framing the bounds at this
 * aspect and the zoom decide. */
static float camera_distance(const vks_camera *cam, float aspect, const float back[3],
                             const float right[3], const float up[3])
{
    const float tan_v = tanf(glm_rad(VKS_CAMERA_FOV_DEGREES) * 0.5f), tan_h = tan_v * aspect;
    /* The nearest distance at which every corner of the bounds is inside the frustum: a corner
     * at (r, u) across and f towards the eye needs |u| <= (d - f) tan_v and |r| <= (d - f) tan_h.
     */
    float dist = 0.0f;
    for (int i = 0; i < 8; i++) {
        float c[3] = {(i & 1 ? 1.0f : -1.0f) * cam->half[0], (i & 2 ? 1.0f : -1.0f) * cam->half[1],
                      (i & 4 ? 1.0f : -1.0f) * cam->half[2]};
        float r = c[0] * right[0] + c[1] * right[1] + c[2] * right[2];
        float u = c[0] * up[0] + c[1] * up[1] + c[2] * up[2];
        float f = c[0] * back[0] + c[1] * back[1] + c[2] * back[2];
        dist = fmaxf(dist, fmaxf(fabsf(u) / tan_v, fabsf(r) / tan_h) + f);
    }
    return cam->zoom * fmaxf(dist * 1.08f, cam->radius * 0.1f); /* a margin of 8% */
}

/* The view direction (from the centre towards the eye), and the camera's right and up axes. */
static void camera_axes(const vks_camera *cam, float back[3], float right[3], float up[3])
{
    float cy = cosf(cam->yaw), sy = sinf(cam->yaw), cp = cosf(cam->pitch), sp = sinf(cam->pitch);
    back[0] = sy * cp, back[1] = sp, back[2] = cy * cp;
    right[0] = cy, right[1] = 0.0f, right[2] = -sy;
    up[0] = -sy * sp, up[1] = cp, up[2] = -cy * sp;
}

void vks_camera_target(const vks_camera *cam, float target[3])
{
    const float t = fminf(cam->zoom, 1.0f); /* 1: the centre; towards 0: the focus */
    for (int k = 0; k < 3; k++)
        target[k] = cam->focus[k] + (cam->center[k] - cam->focus[k]) * t;
}

float vks_camera_eye(const vks_camera *cam, float aspect, float eye[3])
{
    float back[3], right[3], up[3], target[3];
    camera_axes(cam, back, right, up);
    const float dist = camera_distance(cam, aspect, back, right, up);
    vks_camera_target(cam, target);
    for (int k = 0; k < 3; k++)
        eye[k] = target[k] + dist * back[k];
    return dist;
}

void vks_camera_view_proj(const vks_camera *cam, float aspect, float view_proj[4][4])
{
    vec3 eye, center;
    vks_camera_target(cam, center);
    const float dist = vks_camera_eye(cam, aspect, eye);
    mat4 view, proj, vp;
    glm_lookat_rh(eye, center, (vec3){0.0f, 1.0f, 0.0f}, view);
    /* Depth covers the bounds' sphere about the centre, however far the target moved from it. */
    const float off = sqrtf((center[0] - cam->center[0]) * (center[0] - cam->center[0]) +
                            (center[1] - cam->center[1]) * (center[1] - cam->center[1]) +
                            (center[2] - cam->center[2]) * (center[2] - cam->center[2]));
    const float reach = 1.5f * cam->radius + off;
    float near_z = fmaxf(dist - reach, dist * 0.01f);
    glm_perspective_rh_zo(glm_rad(VKS_CAMERA_FOV_DEGREES), aspect, near_z, dist + reach, proj);
    proj[1][1] = -proj[1][1]; /* Vulkan's framebuffer y points down */
    glm_mat4_mul(proj, view, vp);
    memcpy(view_proj, vp, sizeof vp);
}

/* The first model's standing height in the world: its box (palette space) carried by its
 * placement, over y. */
static float camera_model_height(const vks_crowd *c)
{
    float lo = FLT_MAX, hi = -FLT_MAX;
    for (int i = 0; i < 8; i++) {
        const float p[3] = {i & 1 ? c->model_hi[0][0] : c->model_lo[0][0],
                            i & 2 ? c->model_hi[0][1] : c->model_lo[0][1],
                            i & 4 ? c->model_hi[0][2] : c->model_lo[0][2]};
        float w[3];
        vks_transform_point(c->model_placed[0], p, w);
        lo = fminf(lo, w[1]);
        hi = fmaxf(hi, w[1]);
    }
    return hi > lo ? hi - lo : 1.0f;
}

void vks_camera_street(const vks_crowd *crowd, const float lo[3], const float hi[3], float aspect,
                       float view_proj[4][4], float eye_out[3])
{
    const float height = camera_model_height(crowd);
    vec3 eye = {0.5f * (lo[0] + hi[0]), VKS_STREET_EYE_HEIGHT * height, hi[2] + 0.5f * height};
    vec3 center = {eye[0], eye[1], eye[2] - 1.0f};
    mat4 view, proj, vp;
    glm_lookat_rh(eye, center, (vec3){0.0f, 1.0f, 0.0f}, view);
    const float dx = hi[0] - lo[0], dy = hi[1] - lo[1], dz = hi[2] - lo[2] + 0.5f * height;
    const float far_z = sqrtf(dx * dx + dy * dy + dz * dz) + height;
    glm_perspective_rh_zo(glm_rad(VKS_STREET_FOV_DEGREES), aspect, 0.1f * height, far_z, proj);
    proj[1][1] = -proj[1][1]; /* Vulkan's framebuffer y points down */
    glm_mat4_mul(proj, view, vp);
    memcpy(view_proj, vp, sizeof vp);
    memcpy(eye_out, eye, sizeof(float[3]));
}

void vks_camera_focus_nearest(vks_camera *cam, const vks_crowd *crowd, float aspect)
{
    if (crowd->instance_count < 2)
        return;
    float eye[3], best = FLT_MAX;
    vks_camera_eye(cam, aspect, eye);
    for (uint32_t i = 0; i < crowd->instance_count; i++) {
        if (crowd->instances[i].removed)
            continue;
        const float *p = crowd->instances[i].center;
        const float d2 = (p[0] - eye[0]) * (p[0] - eye[0]) + (p[1] - eye[1]) * (p[1] - eye[1]) +
                         (p[2] - eye[2]) * (p[2] - eye[2]);
        if (d2 < best) {
            best = d2;
            memcpy(cam->focus, p, sizeof cam->focus);
        }
    }
}
