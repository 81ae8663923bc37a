/* Layouts shared by C and GLSL: the bone palette and the limits that size GPU buffers.
 * Included from C (src/) and from GLSL (shaders/, with GL_GOOGLE_include_directive). */
#ifndef VKS_SHARED_H
#define VKS_SHARED_H

/* Joints per model. Joint indices are stored as uint16 per vertex; 1024 covers full-body rigs with
 * facial joints (Mixamo ~65, CesiumMan 19, UE mannequin ~90, MetaHuman bodies ~ 500) with room. */
#define VKS_MAX_JOINTS 1024u
/* Influences per vertex: 4 joint indices + 4 weights, as every engine in ../shared/ANCHORS.md. */
#define VKS_MAX_INFLUENCES 4u
/* Vertices per model (all meshes together): 2^24 keeps byte offsets of every stream below 2^31. */
#define VKS_MAX_VERTICES (1u << 24)
/* Keys per channel of a clip: an hour at 240 Hz stays under it; a larger count is a corrupt
 * file. */
#define VKS_MAX_KEYS (1u << 20)

/* One palette entry: a row-major 3x4 affine matrix (48 bytes), the form Wicked, Godot and Unreal
 * use. row[r] = (m[r][0], m[r][1], m[r][2], m[r][3]); skinned p' = (dot(row0, p1), dot(row1, p1),
 * dot(row2, p1)) with p1 = (p, 1). The implicit fourth row is (0, 0, 0, 1).
 * palette[j] = root_inverse * model[j] * inverse_bind[j] (see src/anim/anim.h). */
#ifdef GL_core_profile
struct vks_bone {
    vec4 row[3];
};
#else
#include <assert.h>
#include <stddef.h>
typedef struct vks_bone {
    float row[3][4];
} vks_bone;
static_assert(sizeof(vks_bone) == 48, "vks_bone is three vec4 in std430");
static_assert(offsetof(vks_bone, row[1]) == 16, "vks_bone rows are vec4-aligned");
#endif

#endif
