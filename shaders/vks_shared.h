/* Layouts shared by C and GLSL: the bone palette, the skinning and draw passes' buffers, push
 * constants and uniforms, and the limits that size GPU buffers.
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
#include <stdint.h>
typedef struct vks_bone {
    float row[3][4];
} vks_bone;
static_assert(sizeof(vks_bone) == 48, "vks_bone is three vec4 in std430");
static_assert(offsetof(vks_bone, row[1]) == 16, "vks_bone rows are vec4-aligned");
#endif

/* ---- The skinning pass (shaders/skin.comp) ----
 * Inputs, one buffer each, vertex_count entries (structure of arrays, as the importer keeps them):
 * positions float[3], normals float[3], tangents vec4 (xyz, handedness in w; a placeholder when
 * the model has none), joints 4 x uint16 read as uvec2 (joint 2k in the low half), weights vec4,
 * and the palette (vks_bone per joint). Outputs: vks_skinned_vertex and vec4 tangents. */

/* Invocations per workgroup, one vertex each. 64 is what Wicked, Godot, Unreal and Unity use; the
 * measurement behind keeping it is in the README ("Workgroup size"). It is a specialization
 * constant, so `vkskin render --group-size N` compares others without a rebuild. */
#define VKS_SKIN_GROUP_SIZE 64u

/* The skinned output, read by the draw pass as vertex attributes (binding 0): 24 bytes. */
#define VKS_SKINNED_STRIDE 24u

/* Binding numbers of the skinning pass's descriptor set. */
#define VKS_SKIN_BIND_POSITIONS 0
#define VKS_SKIN_BIND_NORMALS 1
#define VKS_SKIN_BIND_TANGENTS 2
#define VKS_SKIN_BIND_JOINTS 3
#define VKS_SKIN_BIND_WEIGHTS 4
#define VKS_SKIN_BIND_PALETTE 5
#define VKS_SKIN_BIND_OUT_VERTICES 6
#define VKS_SKIN_BIND_OUT_TANGENTS 7
#define VKS_SKIN_BINDING_COUNT 8

/* ---- The draw pass (shaders/mesh.vert, shaders/mesh.frag) ----
 * Vertex bindings: 0 = the skinned output (position at 0, normal at 12), 1 = UVs (float[2]).
 * Set 0, binding 0: vks_frame_uniforms (std140). Set 1, binding 0: the material's base-color
 * texture (sRGB). Push constants: vks_draw_params. */

#ifdef GL_core_profile
struct vks_skinned_vertex {
    float position[3];
    float normal[3];
};

struct vks_skin_params {
    uint vertex_count;
    uint has_tangents;
    uint palette_first;
    uint output_first;
};

struct vks_frame_uniforms {
    mat4 view_proj;
    vec4 light_dir;
    vec4 light_color;
    vec4 ambient;
};

struct vks_draw_params {
    mat4 world;
    vec4 normal_world[3];
    vec4 base_color;
};
#else
typedef struct vks_skinned_vertex {
    float position[3];
    float normal[3];
} vks_skinned_vertex;

/* Push constants of the skinning pass. */
typedef struct vks_skin_params {
    uint32_t vertex_count;
    uint32_t has_tangents;  /* 0 or 1 */
    uint32_t palette_first; /* first palette entry of this character */
    uint32_t output_first;  /* first output vertex of this character */
} vks_skin_params;

typedef struct vks_frame_uniforms {
    float view_proj[4][4]; /* column-major, as GLSL's mat4 */
    float light_dir[4];    /* unit vector towards the light, world space */
    float light_color[4];  /* linear RGB */
    float ambient[4];      /* linear RGB */
} vks_frame_uniforms;

/* Push constants of the draw pass: 128 bytes, the minimum every device allows. */
typedef struct vks_draw_params {
    float world[4][4]; /* palette space -> world (the scene root's transform), column-major */
    float normal_world[3][4]; /* rows of the world's inverse-transpose 3x3 */
    float base_color[4];      /* linear RGBA factor */
} vks_draw_params;

static_assert(sizeof(vks_skinned_vertex) == VKS_SKINNED_STRIDE, "skinned vertex is 6 floats");
static_assert(offsetof(vks_skinned_vertex, normal) == 12, "normal follows position");
static_assert(sizeof(vks_skin_params) == 16, "skin push constants");
static_assert(sizeof(vks_frame_uniforms) == 112, "frame uniforms in std140");
static_assert(offsetof(vks_frame_uniforms, light_dir) == 64, "frame uniforms in std140");
static_assert(sizeof(vks_draw_params) == 128, "draw push constants fit the guaranteed 128");
static_assert(offsetof(vks_draw_params, normal_world) == 64, "draw push constants in std430");
static_assert(offsetof(vks_draw_params, base_color) == 112, "draw push constants in std430");
#endif

#endif
