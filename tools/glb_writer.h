/* glb_writer: a small builder for binary glTF 2.0 (.glb) files.
 *
 * Usage: create a document, add data and objects (each add returns the new
 * object's index, or -1 on failure), then write it out and destroy it.
 *
 *   glbw_doc *doc = glbw_create();
 *   int pos = glbw_add_floats(doc, xyz, n, GLBW_VEC3, GLBW_TARGET_VERTICES, true);
 *   ...
 *   char err[256];
 *   bool ok = glbw_write_file(doc, "out.glb", err, sizeof err);
 *   glbw_destroy(doc);
 *
 * The writer does not validate references or data: it writes what it is given,
 * so callers can produce deliberately broken files for tests. The first
 * failure of an add (allocation, bad arguments) is remembered; later adds keep
 * returning -1 and the write functions report that first error.
 *
 * Binary data is copied as-is in host byte order (the writer refuses to work
 * on big-endian hosts). JSON cannot hold NaN or infinity, so any non-finite
 * number that would land in the JSON text (TRS, factors, explicit min/max) is
 * written as 0; computed min/max skip NaN values.
 */
#ifndef GLB_WRITER_H
#define GLB_WRITER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define GLBW_NONE (-1)

typedef enum glbw_component {
    GLBW_I8 = 5120,
    GLBW_U8 = 5121,
    GLBW_I16 = 5122,
    GLBW_U16 = 5123,
    GLBW_U32 = 5125,
    GLBW_F32 = 5126,
} glbw_component;

typedef enum glbw_type {
    GLBW_SCALAR,
    GLBW_VEC2,
    GLBW_VEC3,
    GLBW_VEC4,
    GLBW_MAT4,
} glbw_type;

typedef enum glbw_target {
    GLBW_TARGET_NONE = 0, /* bufferView.target omitted (animation data, IBMs, images) */
    GLBW_TARGET_VERTICES = 34962,
    GLBW_TARGET_INDICES = 34963,
} glbw_target;

typedef enum glbw_interp {
    GLBW_LINEAR,
    GLBW_STEP,
    GLBW_CUBICSPLINE,
} glbw_interp;

typedef enum glbw_path {
    GLBW_PATH_TRANSLATION,
    GLBW_PATH_ROTATION,
    GLBW_PATH_SCALE,
    GLBW_PATH_WEIGHTS, /* the node's mesh's morph-target weights (an output of target count a key)
                        */
} glbw_path;

/* Morph targets a primitive may carry (glTF sets no limit; this writer's tests need few). */
#define GLBW_MAX_TARGETS 8

/* One morph target of a primitive: accessors of its deltas (VEC3 float), GLBW_NONE to omit. */
typedef struct glbw_morph_target {
    int position, normal, tangent;
} glbw_morph_target;

typedef struct glbw_doc glbw_doc;

/* Layout of one accessor. min/max: when `min_max` is set, bounds are written;
 * explicit `min`/`max` (one value per component, both or neither) win over
 * bounds computed from the data. Computed bounds ignore NaN; a component
 * whose values are all NaN (or an accessor with no readable element) gets 0. */
typedef struct glbw_accessor_desc {
    glbw_component component;
    glbw_type type;
    size_t count;
    bool normalized;
    bool min_max;
    const double *min;
    const double *max;
} glbw_accessor_desc;

/* One mesh primitive (triangles). Fields are indices; GLBW_NONE omits the
 * attribute. Start from glbw_primitive_defaults(), which sets all to none. */
typedef struct glbw_primitive_desc {
    int position;
    int normal;
    int tangent; /* VEC4 float: unit xyz, handedness w = +-1 */
    int texcoord0;
    int joints0;
    int weights0;
    int joints1; /* a second set of 4 influences (JOINTS_1/WEIGHTS_1) */
    int weights1;
    int joints2; /* a third set (JOINTS_2/WEIGHTS_2): up to 12 influences */
    int weights2;
    int indices;
    int material;
    glbw_morph_target targets[GLBW_MAX_TARGETS]; /* the first target_count are written */
    size_t target_count;
} glbw_primitive_desc;

/* KHR_texture_transform on a texture reference: uv' = T(offset) * R(rotation) * S(scale) * uv,
 * with R = [cos sin; -sin cos] (the extension's matrix). A zeroed struct writes nothing. */
typedef struct glbw_texture_transform {
    bool enabled; /* false: no extension object written */
    float offset[2];
    float rotation; /* radians */
    float scale[2];
    bool has_tex_coord; /* write texCoord: tex_coord overrides the texture's TEXCOORD set */
    int tex_coord;
} glbw_texture_transform;

/* pbrMetallicRoughness material. Start from glbw_material_defaults():
 * white, metallic 0, roughness 1, no texture, single-sided, no texture transform. */
typedef struct glbw_material_desc {
    const char *name; /* may be NULL */
    float base_color[4];
    float metallic;
    float roughness;
    int base_color_texture; /* texture index or GLBW_NONE */
    bool double_sided;
    /* KHR_texture_transform on base_color_texture (the caller lists the extension in
     * extensionsUsed with glbw_use_extension). */
    glbw_texture_transform base_color_transform;
} glbw_material_desc;

/* A node. Start from glbw_node_defaults(): no name, no children, no TRS
 * (identity), no mesh, no skin. Children may name nodes not added yet. */
typedef struct glbw_node_desc {
    const char *name;
    const int *children;
    size_t child_count;
    bool has_trs; /* false: no translation/rotation/scale written */
    float translation[3];
    float rotation[4]; /* x, y, z, w */
    float scale[3];
    int mesh;
    int skin;
} glbw_node_desc;

/* Document lifetime. glbw_create returns NULL when out of memory or on a
 * big-endian host. */
glbw_doc *glbw_create(void);
void glbw_destroy(glbw_doc *doc);

/* First error recorded by an add, or NULL when none. */
const char *glbw_error(const glbw_doc *doc);

/* Appends `size` bytes to the binary chunk as a new bufferView, 4-byte
 * aligned. byte_stride 0 omits byteStride. Returns the bufferView index. */
int glbw_add_view(glbw_doc *doc, const void *data, size_t size, size_t byte_stride,
                  glbw_target target);

/* Sparse storage of an accessor: `count` elements replaced at the indices (component U8, U16 or
 * U32) found in bufferView `indices_view`, by the values in bufferView `values_view` (tightly
 * packed elements of the accessor's layout). Byte offsets into both views are 0. */
typedef struct glbw_sparse_desc {
    size_t count;
    int indices_view;
    glbw_component indices_component;
    int values_view;
} glbw_sparse_desc;

/* Adds an accessor into an existing bufferView at byte_offset. The range is
 * not checked against the view; bounds are computed only over the elements
 * that fit. Returns the accessor index. */
int glbw_add_accessor(glbw_doc *doc, int view, size_t byte_offset, const glbw_accessor_desc *desc);

/* Makes accessor `accessor` sparse (see glbw_sparse_desc). An accessor added with view GLBW_NONE
 * has no bufferView: its base values are zeros, as glTF defines. Bounds are not recomputed with
 * the sparse values: give explicit min/max where they matter. Returns false on failure. */
bool glbw_set_sparse(glbw_doc *doc, int accessor, const glbw_sparse_desc *sparse);

/* Copies tightly packed elements into a new bufferView and adds an accessor
 * covering all of it. Returns the accessor index. */
int glbw_add_data(glbw_doc *doc, const void *data, glbw_target target,
                  const glbw_accessor_desc *desc);

/* Shorthand for glbw_add_data with float components. */
int glbw_add_floats(glbw_doc *doc, const float *data, size_t count, glbw_type type,
                    glbw_target target, bool min_max);

/* Images: PNG bytes embedded in the binary chunk, or an external uri.
 * name may be NULL. Returns the image index. */
int glbw_add_image_png(glbw_doc *doc, const char *name, const void *png, size_t size);
int glbw_add_image_uri(glbw_doc *doc, const char *name, const char *uri);

/* A texture sampling `image` with default sampler. Returns the texture index. */
int glbw_add_texture(glbw_doc *doc, int image);

glbw_material_desc glbw_material_defaults(void);
int glbw_add_material(glbw_doc *doc, const glbw_material_desc *desc);

glbw_primitive_desc glbw_primitive_defaults(void);
/* A mesh of prim_count primitives (copied). name may be NULL. */
int glbw_add_mesh(glbw_doc *doc, const char *name, const glbw_primitive_desc *prims,
                  size_t prim_count);

/* The mesh's default morph-target weights ("weights") and the targets' names ("extras":
 * {"targetNames": [...]}, as exporters write them); either may be NULL. Copied; at most
 * GLBW_MAX_TARGETS each. Returns false on failure. */
bool glbw_mesh_set_targets(glbw_doc *doc, int mesh, const float *weights, size_t weight_count,
                           const char *const *names, size_t name_count);

glbw_node_desc glbw_node_defaults(void);
int glbw_add_node(glbw_doc *doc, const glbw_node_desc *desc);
/* Appends `child` to the children of `node`. Returns false on failure. */
bool glbw_node_add_child(glbw_doc *doc, int node, int child);

/* A skin over joint_count joint nodes (copied). inverse_bind_matrices and
 * skeleton may be GLBW_NONE. Returns the skin index. */
int glbw_add_skin(glbw_doc *doc, const char *name, const int *joints, size_t joint_count,
                  int inverse_bind_matrices, int skeleton);

/* Animations are built incrementally: add the animation, then its samplers
 * and channels. Sampler/channel functions return the index within the
 * animation. */
int glbw_add_animation(glbw_doc *doc, const char *name);
int glbw_add_anim_sampler(glbw_doc *doc, int anim, int input, int output, glbw_interp interp);
int glbw_add_anim_channel(glbw_doc *doc, int anim, int sampler, int node, glbw_path path);

/* Lists `name` in extensionsUsed and, when `required`, in extensionsRequired (each once, in the
 * order of first use). Documents with no extension write neither list. Returns false on
 * failure. */
bool glbw_use_extension(glbw_doc *doc, const char *name, bool required);

/* Root nodes of the single scene (copied). When never called, the roots are
 * the nodes that are nobody's child, in index order. */
bool glbw_set_scene(glbw_doc *doc, const int *roots, size_t root_count);

/* Serialises to a malloc'd buffer the caller releases with glbw_free_bytes.
 * On failure returns false and writes a message to err (if err_size > 0). */
bool glbw_write_memory(const glbw_doc *doc, uint8_t **out, size_t *out_size, char *err,
                       size_t err_size);
void glbw_free_bytes(uint8_t *bytes);

/* Serialises to a file at path. Same error reporting as glbw_write_memory. */
bool glbw_write_file(const glbw_doc *doc, const char *path, char *err, size_t err_size);

#ifdef __cplusplus
}
#endif

#endif
