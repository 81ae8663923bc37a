/* Layouts shared by C and GLSL: the bone palette, the skinning and draw passes' buffers, push
 * constants and uniforms, and the limits that size GPU buffers.
 * Included from C (src/) and from GLSL (shaders/, with GL_GOOGLE_include_directive). */
#ifndef VKS_SHARED_H
#define VKS_SHARED_H

/* Joints per model. Joint indices are uint16 in a model (8 bits on the GPU up to 256); 1024 covers
 * full-body rigs with facial joints (Mixamo ~65, CesiumMan 19, UE mannequin ~90, MetaHuman bodies ~
 * 500) with room. */
#define VKS_MAX_JOINTS 1024u
/* Influences per vertex: 4 joint indices + 4 weights, as Wicked, Godot, Unreal and Unity skin. */
#define VKS_MAX_INFLUENCES 4u
/* Influences per vertex of a wide model (one with a vertex of more than 4 in its file): a second
 * set of 4 joint indices and weights in their own streams, as Godot, Wicked and Unreal offer 8. */
#define VKS_WIDE_INFLUENCES 8u
/* Vertices per model (all meshes together). A crowd concatenates at most 16 models' streams:
 * 2^28 vertices at level 0, and every stream the shaders index holds one element a vertex (the
 * positions one uvec2), so each index stays below 2^31, GLSL's limit for signed array indices. */
#define VKS_MAX_VERTICES (1u << 24)
/* Morph targets per model: a file with more is refused (a face rig has tens to a few hundred). */
#define VKS_MAX_TARGETS 1024u
/* Levels of detail per model, level 0 included (src/asset/model.h). */
#define VKS_MAX_LEVELS 8u
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

/* One palette entry of dual-quaternion skinning (src/skin/dqs.h), 32 bytes: a similarity
 * P v = R(q) (s v) + t, the rotation as a unit quaternion q (x, y, z, w), the translation t and
 * the uniform, positive scale s. */
#ifdef GL_core_profile
struct vks_dq {
    vec4 q;
    vec4 ts; /* t in xyz, s in w */
};
#else
typedef struct vks_dq {
    float q[4];
    float t[3];
    float s;
} vks_dq;
static_assert(sizeof(vks_dq) == 32, "vks_dq is two vec4 in std430");
#endif

/* ---- Morph targets (src/skin/morph.h) ----
 * An instance's active targets follow its palette in its range: from vec4 morph_offset of its
 * range (vks_model_gpu), a header uvec4 whose x counts them, then per active target its index
 * within its model and its weight's float bits, two targets a uvec4, in target order. The
 * crowd's morph buffer (one per crowd, reached by the `morphs` address or VKS_DATA_MORPHS)
 * holds, as uvec4s: per target of every model (from each model's target_first) a vks_target_gpu,
 * then every target's deltas (src/asset/quant.h: vks_quant_morph; a target's from its
 * delta_first), then per vertex of every morphed model, levels of detail included, the level-0
 * vertex it copies (one uint each, from the model's source_first uint), by which a level's
 * vertex finds its deltas. Applied before skinning: p += w dp, the normal and the tangent's xyz
 * likewise (their lengths undone by the encodings after), in the pipeline variant with
 * VKS_SKIN_MORPH. */
#define VKS_MORPH_LIST_HEADER 4u
#define VKS_MORPH_LIST_WORDS(targets) (VKS_MORPH_LIST_HEADER + 2u * (targets))
#define VKS_MORPH_DELTA_BYTES 16u /* one delta: a uvec4 (vks_quant_morph) */
#define VKS_MORPH_SOURCE_BYTES 4u /* one vertex's level-0 vertex: a uint */

/* ---- The skinning pass (shaders/skin.comp) ----
 * Every buffer is reached through its device address (GL_EXT_buffer_reference; an address is a
 * uvec2, low word first), or, on the descriptors binding, through descriptors (below). Bind
 * streams, every model's concatenated (structure of arrays), in the compact form src/asset/pack.h
 * encodes at load time ("Compact streams" below): positions (uvec2), normals (uint), tangents
 * (uint; zeros for models without), joints (a uint of 4 x 8 bits, or a uvec2 of 4 x 16 bits for a
 * model of more than 256 joints), weights (uvec2), UVs (float[2], for the draw). Joints are
 * addressed in uints from the model's joints_first, so both widths share one stream. Influences 5
 * to 8 (joints_extra, weights_extra, the same types) are concatenated over the wide models only: a
 * 4-influence model has no entries there, and a crowd without wide models has no such buffers
 * (their addresses are 0 and never read). The model table holds one vks_model_gpu per model (where
 * its streams start, how its positions decode), the instance table one vks_instance per instance;
 * the palettes (vks_bone) are a store the renderer keeps or a frame's buffer, each visible
 * instance's from the palette_first of its entry in the frame's visible list (vks_visible: instance
 * indices, grouped by model, each with its model, where its palette is and where its output goes
 * this frame). One dispatch skins the visible instances with output of one model at one level of
 * detail (the model's pipeline variant, VKS_SKIN_WIDE; push.visible_first is where that run of the
 * visible list starts): workgroup (x, y + z * rows) covers vertices x * GROUP_SIZE.. of its
 * instance y + z * rows, x as wide as that level needs, so a crowd that mixes a 30 000-vertex model
 * with 300-vertex ones launches no empty workgroups. (A single dispatch over a prefix sum of
 * workgroups, each finding its instance by a binary search, was slower: docs/performance.md,
 * "Measurements behind the code".) */

/* Palette staging (vkskin_renderer_desc.stage_palette; off by default, until a GPU's measurement
 * says where it wins): each workgroup first copies its instance's pose (palette_vec4s of
 * vks_model_gpu) into shared memory, and its vertices read their joints' entries there instead of
 * from memory (VKS_SKIN_STAGE, a pipeline variant of the compute pass; the shared array holds the
 * largest of the crowd's poses that fits the device's shared memory, and a model whose pose is
 * larger is not staged). */

/* Invocations per workgroup, one vertex each. 64 is what Wicked, Godot, Unreal and Unity use; the
 * measurement behind keeping it is in docs/architecture.md ("Workgroup size"). It is a
 * specialization constant, so `vkskin render --group-size N` compares others without a rebuild. */
#define VKS_SKIN_GROUP_SIZE 64u

/* ---- Compact streams ----
 * Bytes per vertex of each bind stream the skinning pass reads, and of its output. A skinned
 * vertex is one 16-byte store: the position as 3 floats and the normal octahedral (uvec4:
 * floatBitsToUint of x, y, z, then the normal's word), which the draw pass reads in one load.
 * Tangents, when the model has them, follow the instance's vertices as one word each
 * (src/asset/quant.h: octahedral with the handedness bit). */
#define VKS_BIND_POSITION_BYTES 8u /* 3 x unorm16 within the model's bounds + padding */
#define VKS_BIND_NORMAL_BYTES 4u   /* octahedral, 2 x snorm16 */
#define VKS_BIND_TANGENT_BYTES 4u  /* octahedral, snorm16 x, 15-bit y, handedness bit */
#define VKS_BIND_JOINTS8_BYTES 4u  /* 4 x 8 bits: models of at most 256 joints */
#define VKS_BIND_JOINTS16_BYTES 8u /* 4 x 16 bits: more joints */
#define VKS_BIND_WEIGHTS_BYTES 8u  /* 4 x unorm16 */
#define VKS_JOINTS8_MAX 256u
#define VKS_SKINNED_STRIDE 16u
#define VKS_TANGENT_STRIDE 4u
/* Where an instance's tangents start in its output: after its vertices, already 16-aligned. */
#define VKS_TANGENT_OFFSET(vertex_count) ((vertex_count)*VKS_SKINNED_STRIDE)

/* vks_model_gpu.flags */
#define VKS_MODEL_TANGENTS 1u
#define VKS_MODEL_JOINTS16 2u

/* ---- The descriptors binding ----
 * Under validation (vkskin_renderer_desc.binding), the shaders are built with VKS_DESCRIPTORS:
 * every buffer above is a storage-buffer descriptor of one set instead of a device address, so that
 * synchronization validation sees each access (it cannot follow addresses). Set 0 of the
 * skinning pass, set 2 of the draw pass; one set per frame slot and output chunk, each chunk's
 * instances skinned and drawn with its set bound. VKS_DATA_*: the set's binding numbers;
 * VKS_DATA_OUTPUT and _OUTPUT_TANGENTS are the chunk twice: its vertices (uvec4) and its tangents
 * (uint); an instance's output is at vks_visible.out_address - push.out_base in it. The layouts and
 * the order of operations are those of the addresses binding, so both produce the same bits. */
#define VKS_DATA_MODELS 0
#define VKS_DATA_INSTANCES 1
#define VKS_DATA_VISIBLE 2
#define VKS_DATA_PALETTE 3
#define VKS_DATA_POSITIONS 4
#define VKS_DATA_NORMALS 5
#define VKS_DATA_TANGENTS 6
#define VKS_DATA_JOINTS 7
#define VKS_DATA_WEIGHTS 8
#define VKS_DATA_UVS 9
#define VKS_DATA_JOINTS_EXTRA 10
#define VKS_DATA_WEIGHTS_EXTRA 11
/* The morph buffer (uvec4s); another buffer when no model has targets. */
#define VKS_DATA_MORPHS 12
#define VKS_DATA_OUTPUT 13
#define VKS_DATA_OUTPUT_TANGENTS 14
/* Pages 1 .. VKS_PALETTE_PAGES - 1 of the palette store (VKS_DATA_PALETTE is page 0), or page 0
 * again where a store has fewer. */
#define VKS_DATA_PALETTE_PAGE1 15
#define VKS_DATA_PALETTE_PAGE2 16
#define VKS_DATA_PALETTE_PAGE3 17
#define VKS_DATA_COUNT 18

/* ---- Palette pages ----
 * The palette store is up to VKS_PALETTE_PAGES buffers (pages), each within the storage-buffer
 * range, so that a store one buffer cannot hold still binds (src/scene/palette_store.h). A
 * palette_first names its page in its top bits and its entry in that page below them; no
 * instance's range crosses a page. Without the store (a frame's palettes in one buffer) the page
 * is always 0. Page 0's entry 0 is the page table of a store of several pages: pages 0 .. 3's
 * device addresses (a uvec2 each), which the addresses binding reads to reach pages past 0;
 * the descriptors binding binds every page instead. vks_palette.glsl reads them. */
#define VKS_PALETTE_PAGES 4u
#define VKS_PALETTE_PAGE_SHIFT 28u
#define VKS_PALETTE_PAGE_MASK ((1u << VKS_PALETTE_PAGE_SHIFT) - 1u)

/* ---- The palette store's scatter (shaders/scatter.comp) ----
 * A frame stages its posed instances' palettes packed in host-visible memory, and one record per
 * posed instance (entries of vks_bone, not bytes) says where its palette is staged and where its
 * block of the device-local store is (src/scene/palette_store.h). The same pass moves the worlds
 * of instances placed anew into the instance table (entries of vks_instance), and writes the
 * entries of instances placed on the ground from their place records (vks_place_record, one
 * invocation each, entry_vec4s 0). One workgroup copies
 * one record at a time, uvec4 by uvec4, looping over the records when there are more than the
 * dispatch's workgroups: a vkCmdCopyBuffer with one region per posed instance runs its regions one
 * after another, the workgroups of this pass side by side (docs/performance.md, the H200's
 * table). Through device addresses, or on the descriptors binding through a set of its own (the
 * bindings below). */
#define VKS_SCATTER_GROUP_SIZE 64
#define VKS_SCATTER_BINDING_STAGING 0
#define VKS_SCATTER_BINDING_RECORDS 1
#define VKS_SCATTER_BINDING_STORE 2
#define VKS_SCATTER_BINDING_MODELS 3 /* the model table: what placing reads */
#define VKS_SCATTER_BINDING_COUNT 4

/* ---- The compute rasterizer (shaders/raster.comp) and its resolve (shaders/resolve.frag) ----
 * Through device addresses (vks_raster_push, vks_resolve_push), or on the descriptors binding
 * through the data set above (models, instances, visible list, UVs, output chunk) and a raster set
 * of its own: */
#define VKS_RASTER_BINDING_VIS 0       /* the visibility buffer and its count */
#define VKS_RASTER_BINDING_INDICES 1   /* the crowd's index buffer */
#define VKS_RASTER_BINDING_LEVELS 2    /* vks_raster_level per model and level */
#define VKS_RASTER_BINDING_MESHES 3    /* vks_raster_mesh */
#define VKS_RASTER_BINDING_MATERIALS 4 /* vks_raster_material per material, then the texels */
#define VKS_RASTER_BINDING_COUNT 5
/* A flat UV: a vertex whose U is at least this reads its texture flat, the triangle's first
 * corner's UV at every pixel of it (the merged single-colour materials' colour texture,
 * bake/merge.h, whose blocks no interpolation may cross when levels of detail join corners of
 * different colours). The texture repeats, so U - VKS_FLAT_UV addresses the same texel. */
#define VKS_FLAT_UV 4096.0
/* A vks_raster_material's 32-bit words, as the resolve reads the materials buffer. */
#define VKS_RASTER_MATERIAL_WORDS 8u
/* vks_raster_push.bits: cull back faces (else both sides are rasterized, as the draw pass does). */
#define VKS_RASTER_CULL_BACK (1u << 16)
/* The visibility word: the depth in its top 24 bits (round(depth * (2^24 - 1)): the spacing of a
 * 32-bit float depth near 1, where far characters are), the id (entry and triangle) in the 40
 * below. */
#define VKS_RASTER_ID_BITS 40
#define VKS_RASTER_DEPTH_MAX 16777215.0

/* ---- The far splat (shaders/splat.comp, bake/splat.h) ----
 * An instance whose whole projection is a few pixels is drawn as one primitive: its model's splat,
 * an ellipse with the covariance of its posed surface, carried by one joint of its palette, and
 * the surface's mean color. One invocation per entry; its pixels go into the visibility buffer as
 * a triangle's do, with primitive 0 of the entry, whose vks_visible.vertex_first is
 * VKS_VISIBLE_SPLAT (it has no skinned output). */
#define VKS_SPLAT_GROUP_SIZE 64u
#define VKS_SPLAT_VALID 1u /* vks_model_gpu.splat_info.z: the model has a splat */
#define VKS_SPLAT_DQ 1u    /* vks_splat_push.bits: the model's palettes are vks_dq */
/* vks_splat_push.bits: an entry's palette block is its carrier's entry alone (the palette store's
 * far-splat blocks); else the whole palette, the carrier's at its joint. */
#define VKS_SPLAT_CARRIER_ONLY 2u
#define VKS_VISIBLE_SPLAT 0xffffffffu
/* The widest footprint rasterized, in pixels across: a splat is for characters of a few pixels;
 * one larger (a splat threshold set high) is cut to this box around its center. */
#define VKS_SPLAT_MAX_PX 32

/* ---- The draw pass (shaders/mesh.vert or mesh_skin.vert, shaders/mesh.frag) ----
 * Vertices are pulled: gl_InstanceIndex indexes the visible list, gl_VertexIndex (index plus the
 * mesh's base vertex) the instance's skinned vertices (compute mode) or its model's bind streams
 * (vertex mode, which skins there). Set 0, binding 0: vks_frame_uniforms (std140). Set 1,
 * binding 0: the material's base-color texture (sRGB). Push constants: vks_draw_push. */

#ifdef GL_core_profile
struct vks_model_gpu {
    vec4 box_offset;
    vec4 box_scale;
    uint vertex_first;
    uint extra_first;
    uint flags;
    uint joints_first;
    uint joints_extra_first;
    uint morph_offset;
    uint target_first;
    uint source_first;
    uint palette_vec4s;
    uint pad0, pad1, pad2;
    vec4 placed[3];
    vec4 splat_center;
    vec4 splat_cov0;
    vec4 splat_cov1;
    uvec4 splat_info;
};

struct vks_target_gpu {
    uint vertex_first;
    uint vertex_count;
    uint delta_first;
    uint pad0;
    vec4 steps;
};

struct vks_instance {
    vec4 world[3];
    uint model;
    uint pad0, pad1, pad2;
};

struct vks_visible {
    uint instance;
    uint vertex_first;
    uvec2 out_address;
    uint palette_first;
    uint model;
};

struct vks_streams {
    uvec2 positions, normals, tangents, joints, weights, uvs, joints_extra, weights_extra;
};

struct vks_scatter_record {
    uint from_entry, to_entry, count, pad;
};

struct vks_place_record {
    uint instance, model;
    float position_x, position_y, position_z, turn_cos, turn_sin, scale;
};

struct vks_scatter_push {
    uvec2 staging, records, store;
    uint record_count;
    uint entry_vec4s;
    uvec2 models;
    uint place_first;
    uint record_first; /* the dispatch's first record */
};

struct vks_skin_push {
    vks_streams streams;
    uvec2 models, instances, visible, palette;
    uint visible_count;
    uint vertex_count;
    uint visible_first;
    uint model;
    uvec2 out_base;
    uvec2 morphs;
};

struct vks_raster_push {
    mat4 view_proj;
    uvec2 instances, visible, indices, vis;
    uint first_index;
    uint triangle_count;
    uint visible_first;
    uint triangle_first;
    uint base_vertex;
    uint size;
    uint bits;
    uint out_base;
};

struct vks_splat_push {
    mat4 view_proj;
    uvec2 models, instances, visible, palette, vis;
    uint visible_first;
    uint visible_count;
    uint size;
    uint bits;
    uint pad0, pad1;
};

struct vks_raster_level {
    uint vertex_first;
    uint first_index;
    uint mesh_first;
    uint mesh_count;
};

struct vks_raster_mesh {
    uint first_index;
    uint base_vertex;
    uint material;
    uint pad0;
};

struct vks_raster_material {
    vec4 base_color;
    uint texel_first;
    uint size;
    uint levels;
    uint pad0;
};

struct vks_resolve_push {
    uvec2 models, instances, visible, indices, uvs, vis, levels, meshes, materials;
    uvec2 out_base;
    uint width;
    uint height;
    uint triangle_bits;
    uint subpixel_bits;
    uint out_bytes;
    uint splats;
};

struct vks_frame_uniforms {
    mat4 view_proj;
    vec4 light_dir;
    vec4 light_color;
    vec4 ambient;
};

struct vks_draw_push {
    vks_streams streams;
    uvec2 models, instances, visible, palette;
    vec4 base_color;
    uvec2 out_base;
    uvec2 morphs;
};
#else
/* One vertex of the skinning pass's output (16 bytes): its position and its normal as
 * vks_quant_oct's word (src/asset/quant.h decodes it). */
typedef struct vks_skinned_vertex {
    float position[3];
    uint32_t normal;
} vks_skinned_vertex;

/* One model (128 bytes): where its streams start, how its positions decode, how its instances
 * are placed. */
typedef struct vks_model_gpu {
    float box_offset[4]; /* positions decode as box_offset + box_scale * q (xyz; w unused) */
    float box_scale[4];
    uint32_t vertex_first;       /* its first vertex in the concatenated streams */
    uint32_t extra_first;        /* its first vertex in the extra streams (wide models) */
    uint32_t flags;              /* VKS_MODEL_* */
    uint32_t joints_first;       /* its first uint in the joints stream */
    uint32_t joints_extra_first; /* its first uint in the extra joints stream (wide models) */
    /* Morph targets (a model with any; else 0): where an instance's active list starts in its
     * palette range (vec4s), its first target and its first source uint in the morph buffer. */
    uint32_t morph_offset, target_first, source_first;
    /* vec4s of an instance's pose in its palette range (3 a joint; 2 with dual quaternions):
     * what a workgroup stages (VKS_SKIN_STAGE). */
    uint32_t palette_vec4s;
    uint32_t pad[3]; /* std430: a multiple of its vec4 alignment */
    /* Rows of what an instance's placement multiplies (palette space -> the placement's frame:
     * the root transform, normalised), for the instances the scatter places (vks_place_record). */
    float placed[3][4];
    /* The far splat (bake/splat.h): its center (bind space, w: the footprint's squared radius
     * in standard deviations), its covariance in the joint's bind frame (xx, xy, xz, yy; yz, zz,
     * then unused), and its joint, its color (RGBA8, sRGB) and VKS_SPLAT_VALID in splat_info. */
    float splat_center[4];
    float splat_cov[8];
    uint32_t splat_info[4];
} vks_model_gpu;

/* One morph target in the morph buffer (32 bytes): the level-0 vertices it moves,
 * [vertex_first, + vertex_count) of its model's, their deltas from uvec4 delta_first of the
 * buffer, and its position, normal and tangent steps (vks_quant_morph; w unused). */
typedef struct vks_target_gpu {
    uint32_t vertex_first, vertex_count, delta_first, pad;
    float steps[4];
} vks_target_gpu;

/* One instance (64 bytes): its world transform and its model. It owns no skinned output and no
 * palette entries: each frame gives its visible instances output space and says where their
 * palettes are (vks_visible). */
typedef struct vks_instance {
    float world[3][4]; /* rows of the 3x4 palette space -> world transform */
    uint32_t model;    /* index into the model table */
    uint32_t pad[3];   /* std430: a multiple of its vec4 alignment */
} vks_instance;

/* One entry of a frame's visible list (24 bytes): a visible instance, the first vertex of its
 * level of detail this frame within its model's vertices (0 for level 0: a level's vertices are
 * one range, asset/model.h), the device address of its skinned output this frame (its level's
 * vertices, vks_skinned_vertex each, then their tangents at VKS_TANGENT_OFFSET), or 0 when the
 * frame's output budget was spent before it: the draw then skins it in the vertex shader; its
 * palette's first entry in the palettes the frame reads (the renderer's store, or the frame's
 * buffer at the crowd's palette_first), and its model: the skinning pass needs nothing of the
 * instance table. */
typedef struct vks_visible {
    uint32_t instance;
    uint32_t vertex_first;
    uint32_t out_address[2];
    uint32_t palette_first;
    uint32_t model;
} vks_visible;

/* Device addresses of the concatenated bind streams; joints_extra and weights_extra are 0 when
 * the crowd has no wide model. */
typedef struct vks_streams {
    uint32_t positions[2], normals[2], tangents[2], joints[2], weights[2], uvs[2];
    uint32_t joints_extra[2], weights_extra[2];
} vks_streams;

/* One posed instance's copy: `count` entries from staging entry `from_entry` to store entry
 * `to_entry`. */
typedef struct vks_scatter_record {
    uint32_t from_entry, to_entry, count, pad;
} vks_scatter_record;

/* An instance placed on the ground (32 bytes, against 64 for its entry and 16 for a scatter
 * record): the scatter writes its instance-table entry as T(position) Ry(heading) S(scale) times
 * its model's `placed` rows, turn = scale (cos, sin) of the heading (+Z towards +X). What a frame
 * uploads for the instances the crowd moves itself, walking, carried by root motion or placed in
 * batches; an instance placed any other way (tilted, sheared) keeps its whole entry. */
typedef struct vks_place_record {
    uint32_t instance, model;
    float position[3];
    float turn_cos, turn_sin, scale;
} vks_place_record;

/* Push constants of the scatter: the device addresses of the staging, the records, the store
 * and the model table (ignored on the descriptors binding), how many records from which, and an
 * entry's size in uvec4 (3 for a palette entry, 4 for an instance-table entry; 0: placing, the
 * place records in the staging from uvec4 place_first). */
typedef struct vks_scatter_push {
    uint32_t staging[2], records[2], store[2];
    uint32_t record_count;
    uint32_t entry_vec4s;
    uint32_t models[2];
    uint32_t place_first;
    uint32_t record_first; /* the dispatch's first record */
} vks_scatter_push;

/* Push constants of the skinning pass: one (model, level)'s range of the frame's visible list,
 * visible_count entries from visible_first; `model` is that model (its table entry is read once
 * per workgroup, independently of the entry's), vertex_count that level's. out_base: the device
 * address of the output chunk bound at VKS_DATA_OUTPUT (descriptors binding only). */
typedef struct vks_skin_push {
    vks_streams streams;
    uint32_t models[2], instances[2], visible[2], palette[2]; /* device addresses */
    uint32_t visible_count;
    uint32_t vertex_count;
    uint32_t visible_first;
    uint32_t model;
    uint32_t out_base[2];
    uint32_t morphs[2]; /* the morph buffer's address; 0 when no model has targets */
} vks_skin_push;

/* Push constants of the compute rasterizer (src/raster/raster.h), 128 bytes: one mesh of one
 * (model, level), over visible entries [visible_first, + the dispatch's rows). Its triangles are
 * indices[first_index ..] (3 each; plus base_vertex, they index the entry's skinned output, which
 * holds its level's vertices), its corners that output. Each covered pixel center of a
 * triangle (front-facing only with VKS_RASTER_CULL_BACK) is written to the visibility buffer
 * `vis` (width x height 64-bit words,
 * row by row from the top, then one word that counts the pixels first covered) by atomicMin of
 * (depth as a 24-bit fixed-point fraction << VKS_RASTER_ID_BITS) | (visible entry << triangle_bits)
 * | (triangle_first + triangle): triangles are numbered within the level
 * (vks_raster_level.first_index), so that the entry's level names the mesh. Vertices snap to
 * 1/2^subpixel_bits of a pixel, as the hardware's do. */
typedef struct vks_raster_push {
    float view_proj[4][4];                                 /* column-major, as GLSL's mat4 */
    uint32_t instances[2], visible[2], indices[2], vis[2]; /* device addresses */
    uint32_t first_index;
    uint32_t triangle_count;
    uint32_t visible_first;
    uint32_t triangle_first; /* the mesh's first triangle within its level */
    uint32_t base_vertex;    /* the mesh's, added to each index */
    uint32_t size;           /* width | height << 16 */
    uint32_t bits;           /* triangle_bits | subpixel_bits << 8 | VKS_RASTER_CULL_BACK */
    /* The descriptors binding: the low word of the bound output chunk's address (an entry's output
     * is at out_address - out_base in it). */
    uint32_t out_base;
} vks_raster_push;

/* Push constants of the splat pass (the rasterizer's layout, so as large as vks_raster_push):
 * the entries [visible_first, + visible_count) of one model, each drawn as its splat. */
typedef struct vks_splat_push {
    float view_proj[4][4];
    uint32_t models[2], instances[2], visible[2], palette[2], vis[2]; /* device addresses */
    uint32_t visible_first, visible_count;
    uint32_t size; /* width | height << 16 */
    uint32_t bits; /* VKS_SPLAT_DQ | VKS_SPLAT_CARRIER_ONLY | the scene's triangle_bits << 8 (the
                      id's entry shift) */
    uint32_t pad[2];
} vks_splat_push;

/* The rasterizer's map from an id back to its triangle (the resolve reads it): per model,
 * VKS_MAX_LEVELS of these (levels it lacks are zero), and the meshes of each level. */
typedef struct vks_raster_level {
    uint32_t vertex_first;           /* as vks_visible.vertex_first for an entry at this level */
    uint32_t first_index;            /* triangle t of the level is indices[first_index + 3 t ..] */
    uint32_t mesh_first, mesh_count; /* its meshes in the mesh table, by first_index */
} vks_raster_level;

typedef struct vks_raster_mesh {
    uint32_t first_index; /* where its indices start in the crowd's index buffer */
    uint32_t base_vertex; /* added to each of its indices */
    uint32_t material;    /* the crowd's material (models' materials one after the other) */
    uint32_t pad;
} vks_raster_mesh;

/* The resolve's material table (the materials buffer's start, one per material of the crowd, as
 * vks_raster_mesh.material numbers them), and after it every texture's texels: texel_first is
 * the first of the texture's stored levels, in 32-bit words of the buffer (RGBA8, sRGB-encoded,
 * each level row by row after the one before), `size` its top stored level's width | height <<
 * 16, `levels` how many are stored (a material without a texture names a white texel). */
typedef struct vks_raster_material {
    float base_color[4]; /* the linear RGBA factor */
    uint32_t texel_first, size, levels, pad;
} vks_raster_material;

/* Push constants of the resolve (shaders/resolve.frag): every material's pixels of the
 * visibility buffer at once. out_base and out_bytes: the bound output chunk (descriptors binding
 * only): pixels whose entry's output lies outside it are another pass's. */
typedef struct vks_resolve_push {
    uint32_t models[2], instances[2], visible[2], indices[2], uvs[2], vis[2], levels[2], meshes[2],
        materials[2]; /* device addresses */
    uint32_t out_base[2];
    uint32_t width, height; /* of the visibility buffer */
    uint32_t triangle_bits;
    uint32_t subpixel_bits; /* the rasterizer's snapping, for the facing */
    uint32_t out_bytes;
    uint32_t splats; /* this pass resolves the splat entries too (one pass a frame does) */
} vks_resolve_push;

typedef struct vks_frame_uniforms {
    float view_proj[4][4]; /* column-major, as GLSL's mat4 */
    float light_dir[4];    /* unit vector towards the light, world space */
    float light_color[4];  /* linear RGB */
    float ambient[4];      /* linear RGB */
} vks_frame_uniforms;

/* Push constants of the draw pass (vertex and fragment stages): 128 bytes at most, the minimum
 * every device allows. */
typedef struct vks_draw_push {
    vks_streams streams;
    uint32_t models[2], instances[2], visible[2], palette[2]; /* device addresses */
    float base_color[4];                                      /* linear RGBA factor */
    uint32_t out_base[2]; /* as vks_skin_push.out_base (descriptors binding, pre-skinned draws) */
    uint32_t morphs[2];   /* as vks_skin_push.morphs */
} vks_draw_push;

static_assert(sizeof(vks_skinned_vertex) == VKS_SKINNED_STRIDE, "one 16-byte store");
static_assert(sizeof(vks_model_gpu) == 192, "model table entry in std430");
static_assert(sizeof(vks_splat_push) == sizeof(vks_raster_push), "the rasterizer's layout");
static_assert(offsetof(vks_model_gpu, splat_info) == 176, "model table entry in std430");
static_assert(offsetof(vks_model_gpu, placed) == 80, "model table entry in std430");
static_assert(sizeof(vks_place_record) == 32, "a place record is two uvec4");
static_assert(offsetof(vks_model_gpu, palette_vec4s) == 64, "model table entry in std430");
static_assert(offsetof(vks_model_gpu, vertex_first) == 32, "model table entry in std430");
static_assert(offsetof(vks_model_gpu, joints_first) == 44, "model table entry in std430");
static_assert(sizeof(vks_instance) == 64, "instance table entry in std430");
static_assert(offsetof(vks_instance, model) == 48, "instance table entry in std430");
static_assert(sizeof(vks_visible) == 24 && offsetof(vks_visible, out_address) == 8 &&
                  offsetof(vks_visible, model) == 20,
              "visible entry in std430 (its uvec2 aligns it to 8)");
static_assert(sizeof(vks_streams) == 64, "stream addresses");
static_assert(sizeof(vks_raster_push) == 128, "the push constants every device allows");
static_assert(sizeof(vks_resolve_push) == 104 && offsetof(vks_resolve_push, out_base) == 72 &&
                  offsetof(vks_resolve_push, width) == 80,
              "resolve push constants in std430");
static_assert(sizeof(vks_raster_material) == 32, "the resolve's material table");
static_assert(sizeof(vks_raster_level) == 16 && sizeof(vks_raster_mesh) == 16, "raster tables");
static_assert(offsetof(vks_streams, joints_extra) == 48, "stream addresses");
static_assert(sizeof(vks_skin_push) == 128, "skin push constants");
static_assert(sizeof(vks_target_gpu) == 32 && offsetof(vks_target_gpu, steps) == 16,
              "morph target in std430");
static_assert(sizeof(vks_scatter_record) == 16, "a scatter record is one uvec4");
static_assert(sizeof(vks_scatter_push) == 48, "scatter push constants in std430");
static_assert(VKS_PALETTE_PAGES <= 1u << (32 - VKS_PALETTE_PAGE_SHIFT) &&
                  8 * VKS_PALETTE_PAGES <= sizeof(vks_bone),
              "a palette_first's page bits name every page, and page 0's entry 0 holds their table");
static_assert(offsetof(vks_skin_push, visible_count) == 96, "skin push constants in std430");
static_assert(offsetof(vks_skin_push, out_base) == 112, "skin push constants in std430");
static_assert(sizeof(vks_skin_push) <= 128, "maxPushConstantsSize is 128 on some devices");
static_assert(sizeof(vks_frame_uniforms) == 112, "frame uniforms in std140");
static_assert(offsetof(vks_frame_uniforms, light_dir) == 64, "frame uniforms in std140");
static_assert(sizeof(vks_draw_push) == 128, "draw push constants fit the guaranteed 128");
static_assert(offsetof(vks_draw_push, base_color) == 96, "draw push constants in std430");
static_assert(offsetof(vks_draw_push, out_base) == 112, "draw push constants in std430");
static_assert(sizeof(vks_draw_push) <= 128, "maxPushConstantsSize is 128 on some devices");
#endif

#endif
