/* The camera that frames a crowd: the view `vkskin render` shows and `vkskin view` starts from,
 * and the library's vkskin_crowd_frame_view. Orbits its centre by yaw and pitch; zoom scales the
 * distance that frames every instance's bounds. */
#ifndef VKS_CAMERA_H
#define VKS_CAMERA_H

#include "crowd.h"

#define VKS_CAMERA_FOV_DEGREES 40.0f /* vertical */

typedef struct vks_camera {
    float center[3];
    float half[3];    /* half sizes of the bounds */
    float radius;     /* of the sphere around them */
    float yaw, pitch; /* radians: 0, 0 looks along -Z at the character's front (+Z) */
    float zoom;       /* 1 frames the bounds; smaller is closer */
    /* Where zooming in goes: the camera looks at the centre at zoom 1 and moves its target
     * towards the focus as the zoom goes to 0 (the centre itself unless set: the nearest
     * instance, say, so that zooming into a ring moves towards characters, not its middle). */
    float focus[3];
} vks_camera;

/* The world-space box around every instance's bounds (its model's over the bind pose and every
 * clip); the same box grown by instance i's. */
void vks_camera_crowd_box(const vks_crowd *crowd, float lo[3], float hi[3]);
void vks_camera_grow_box(const vks_crowd *crowd, uint32_t i, float lo[3], float hi[3]);
/* Frames a box: seen three-quarters from the front right and a bit above (higher for a box much
 * wider than tall). */
void vks_camera_frame_box(vks_camera *cam, const float lo[3], const float hi[3]);
/* Focuses on the crowd's live instance nearest the eye at this aspect (a crowd of more than
 * one): what zooming in goes towards, the same instance however the view is then turned. */
void vks_camera_focus_nearest(vks_camera *cam, const vks_crowd *crowd, float aspect);
/* The point looked at: the centre at zoom 1 and above, moving towards the focus below. */
void vks_camera_target(const vks_camera *cam, float target[3]);
/* The eye at this aspect (width / height); returns its distance from the target. */
float vks_camera_eye(const vks_camera *cam, float aspect, float eye[3]);
/* View and projection together, column-major, Vulkan clip space (y down, 0 <= z <= w). */
void vks_camera_view_proj(const vks_camera *cam, float aspect, float view_proj[4][4]);

#define VKS_STREET_FOV_DEGREES 60.0f /* vertical */
#define VKS_STREET_EYE_HEIGHT 0.93f  /* of the first model's height: a person's eyes */

/* A person's view of the crowd in the box [lo, hi]: the eye at VKS_STREET_EYE_HEIGHT of the first
 * model's standing height (its box in the world over the ground), at the middle of the box's +Z
 * edge (the crowd's front), half a height outside it, looking level along -Z across the crowd;
 * depth from a tenth of that height to past the box's far corner. */
void vks_camera_street(const vks_crowd *crowd, const float lo[3], const float hi[3], float aspect,
                       float view_proj[4][4], float eye[3]);

#endif
