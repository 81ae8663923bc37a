#include "glb_writer.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define GLB_MAGIC 0x46546C67u
#define GLB_CHUNK_JSON 0x4E4F534Au
#define GLB_CHUNK_BIN 0x004E4942u
#define MAX_COMPONENTS 16

#if defined(__GNUC__) || defined(__clang__)
#define PRINTF_LIKE(fmt, args) __attribute__((format(printf, fmt, args)))
#else
#define PRINTF_LIKE(fmt, args)
#endif

typedef struct view {
    size_t offset;
    size_t length;
    size_t stride;
    glbw_target target;
} view;

typedef struct accessor {
    int view;
    size_t byte_offset;
    glbw_component component;
    glbw_type type;
    size_t count;
    bool normalized;
    bool has_bounds;
    double min[MAX_COMPONENTS];
    double max[MAX_COMPONENTS];
    bool sparse;
    glbw_sparse_desc sparse_desc;
} accessor;

typedef struct image {
    char *name;
    char *uri; /* NULL when embedded */
    int view;
} image;

typedef struct material {
    glbw_material_desc desc;
    char *name;
} material;

typedef struct mesh {
    char *name;
    glbw_primitive_desc *prims;
    size_t prim_count;
    float weights[GLBW_MAX_TARGETS];
    size_t weight_count;
    char *target_names[GLBW_MAX_TARGETS];
    size_t name_count;
} mesh;

typedef struct node {
    glbw_node_desc desc; /* name/children pointers replaced by owned copies below */
    char *name;
    int *children;
    size_t child_count;
    size_t child_cap;
} node;

typedef struct skin {
    char *name;
    int *joints;
    size_t joint_count;
    int inverse_bind_matrices;
    int skeleton;
} skin;

typedef struct anim_sampler {
    int input;
    int output;
    glbw_interp interp;
} anim_sampler;

typedef struct anim_channel {
    int sampler;
    int node;
    glbw_path path;
} anim_channel;

typedef struct animation {
    char *name;
    anim_sampler *samplers;
    size_t sampler_count;
    size_t sampler_cap;
    anim_channel *channels;
    size_t channel_count;
    size_t channel_cap;
} animation;

struct glbw_doc {
    uint8_t *bin;
    size_t bin_len, bin_cap;
    view *views;
    size_t view_count, view_cap;
    accessor *accessors;
    size_t accessor_count, accessor_cap;
    image *images;
    size_t image_count, image_cap;
    int *textures;
    size_t texture_count, texture_cap;
    material *materials;
    size_t material_count, material_cap;
    mesh *meshes;
    size_t mesh_count, mesh_cap;
    node *nodes;
    size_t node_count, node_cap;
    skin *skins;
    size_t skin_count, skin_cap;
    animation *anims;
    size_t anim_count, anim_cap;
    int *roots;
    size_t root_count;
    bool roots_set;
    char **ext_used;
    size_t ext_used_count, ext_used_cap;
    char **ext_required;
    size_t ext_required_count, ext_required_cap;
    bool failed;
    char error[256];
};

/* ---- errors and memory ------------------------------------------------ */

/* Records the first error; returns -1 so index-returning adds can tail-call. */
static int fail(glbw_doc *doc, const char *msg)
{
    if (!doc->failed) {
        doc->failed = true;
        snprintf(doc->error, sizeof doc->error, "%s", msg);
    }
    return -1;
}

PRINTF_LIKE(3, 4)
static void set_err(char *err, size_t err_size, const char *fmt, ...)
{
    if (!err || err_size == 0)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, err_size, fmt, ap);
    va_end(ap);
}

/* Grows the array whose pointer lives at *parray to hold `need` elements. */
static bool reserve(glbw_doc *doc, void *parray, size_t *cap, size_t need, size_t elem)
{
    if (need <= *cap)
        return true;
    size_t new_cap = *cap ? *cap : 8;
    while (new_cap < need)
        new_cap *= 2;
    if (new_cap > SIZE_MAX / elem) {
        fail(doc, "out of memory (size overflow)");
        return false;
    }
    void *old;
    memcpy(&old, parray, sizeof old);
    void *grown = realloc(old, new_cap * elem);
    if (!grown) {
        fail(doc, "out of memory");
        return false;
    }
    memcpy(parray, &grown, sizeof grown);
    *cap = new_cap;
    return true;
}

/* Reserves one more slot in arr and evaluates to its index, or -1. */
#define PUSH_SLOT(doc, arr, count, cap)                                                            \
    (reserve((doc), &(arr), &(cap), (count) + 1, sizeof *(arr))                                    \
         ? (memset(&(arr)[(count)], 0, sizeof *(arr)), (int)(count)++)                             \
         : -1)

static char *dup_str(glbw_doc *doc, const char *s, bool *ok)
{
    *ok = true;
    if (!s)
        return NULL;
    size_t n = strlen(s) + 1;
    char *copy = malloc(n);
    if (!copy) {
        *ok = false;
        fail(doc, "out of memory");
        return NULL;
    }
    memcpy(copy, s, n);
    return copy;
}

static int *dup_ints(glbw_doc *doc, const int *v, size_t n, bool *ok)
{
    *ok = true;
    if (n == 0)
        return NULL;
    if (!v) {
        *ok = false;
        fail(doc, "NULL index array with non-zero count");
        return NULL;
    }
    int *copy = malloc(n * sizeof *copy);
    if (!copy) {
        *ok = false;
        fail(doc, "out of memory");
        return NULL;
    }
    memcpy(copy, v, n * sizeof *copy);
    return copy;
}

static bool host_is_little_endian(void)
{
    const uint16_t probe = 1;
    uint8_t first;
    memcpy(&first, &probe, 1);
    return first == 1;
}

/* ---- lifetime ---------------------------------------------------------- */

glbw_doc *glbw_create(void)
{
    if (!host_is_little_endian())
        return NULL;
    return calloc(1, sizeof(glbw_doc));
}

void glbw_destroy(glbw_doc *doc)
{
    if (!doc)
        return;
    for (size_t i = 0; i < doc->image_count; i++) {
        free(doc->images[i].name);
        free(doc->images[i].uri);
    }
    for (size_t i = 0; i < doc->material_count; i++)
        free(doc->materials[i].name);
    for (size_t i = 0; i < doc->mesh_count; i++) {
        free(doc->meshes[i].name);
        free(doc->meshes[i].prims);
        for (size_t k = 0; k < doc->meshes[i].name_count; k++)
            free(doc->meshes[i].target_names[k]);
    }
    for (size_t i = 0; i < doc->node_count; i++) {
        free(doc->nodes[i].name);
        free(doc->nodes[i].children);
    }
    for (size_t i = 0; i < doc->skin_count; i++) {
        free(doc->skins[i].name);
        free(doc->skins[i].joints);
    }
    for (size_t i = 0; i < doc->anim_count; i++) {
        free(doc->anims[i].name);
        free(doc->anims[i].samplers);
        free(doc->anims[i].channels);
    }
    free(doc->bin);
    free(doc->views);
    free(doc->accessors);
    free(doc->images);
    free(doc->textures);
    free(doc->materials);
    free(doc->meshes);
    free(doc->nodes);
    free(doc->skins);
    free(doc->anims);
    free(doc->roots);
    for (size_t i = 0; i < doc->ext_used_count; i++)
        free(doc->ext_used[i]);
    for (size_t i = 0; i < doc->ext_required_count; i++)
        free(doc->ext_required[i]);
    free(doc->ext_used);
    free(doc->ext_required);
    free(doc);
}

const char *glbw_error(const glbw_doc *doc)
{
    return doc->failed ? doc->error : NULL;
}

/* ---- buffer data ------------------------------------------------------- */

static size_t component_size(glbw_component c)
{
    switch (c) {
    case GLBW_I8:
    case GLBW_U8:
        return 1;
    case GLBW_I16:
    case GLBW_U16:
        return 2;
    case GLBW_U32:
    case GLBW_F32:
        return 4;
    }
    return 4;
}

static size_t type_components(glbw_type t)
{
    static const size_t n[] = {1, 2, 3, 4, 16};
    return n[t];
}

static const char *type_name(glbw_type t)
{
    static const char *names[] = {"SCALAR", "VEC2", "VEC3", "VEC4", "MAT4"};
    return names[t];
}

static bool valid_layout(const glbw_accessor_desc *d)
{
    bool comp_ok = d->component == GLBW_I8 || d->component == GLBW_U8 || d->component == GLBW_I16 ||
                   d->component == GLBW_U16 || d->component == GLBW_U32 || d->component == GLBW_F32;
    return comp_ok && (unsigned)d->type <= GLBW_MAT4;
}

int glbw_add_view(glbw_doc *doc, const void *data, size_t size, size_t byte_stride,
                  glbw_target target)
{
    if (doc->failed)
        return -1;
    if (!data && size > 0)
        return fail(doc, "glbw_add_view: NULL data");
    size_t offset = doc->bin_len;
    size_t padded = (size + 3) & ~(size_t)3;
    if (padded < size || offset > SIZE_MAX - padded)
        return fail(doc, "glbw_add_view: size overflow");
    if (!reserve(doc, &doc->bin, &doc->bin_cap, offset + padded, 1))
        return -1;
    int idx = PUSH_SLOT(doc, doc->views, doc->view_count, doc->view_cap);
    if (idx < 0)
        return -1;
    if (size > 0)
        memcpy(doc->bin + offset, data, size);
    memset(doc->bin + offset + size, 0, padded - size);
    doc->bin_len = offset + padded;
    doc->views[idx] = (view){offset, size, byte_stride, target};
    return idx;
}

static double read_component(const uint8_t *p, glbw_component c)
{
    switch (c) {
    case GLBW_I8:
        return (int8_t)*p;
    case GLBW_U8:
        return *p;
    case GLBW_I16: {
        int16_t v;
        memcpy(&v, p, 2);
        return v;
    }
    case GLBW_U16: {
        uint16_t v;
        memcpy(&v, p, 2);
        return v;
    }
    case GLBW_U32: {
        uint32_t v;
        memcpy(&v, p, 4);
        return v;
    }
    case GLBW_F32: {
        float v;
        memcpy(&v, p, 4);
        return (double)v;
    }
    }
    return 0.0;
}

/* Bounds over the elements that lie inside the view; NaN values are skipped. */
static void compute_bounds(const glbw_doc *doc, accessor *a)
{
    size_t ncomp = type_components(a->type);
    size_t csize = component_size(a->component);
    size_t elem = ncomp * csize;
    bool seen[MAX_COMPONENTS] = {false};
    for (size_t c = 0; c < ncomp; c++)
        a->min[c] = a->max[c] = 0.0;
    if (a->view < 0 || (size_t)a->view >= doc->view_count)
        return;
    const view *v = &doc->views[a->view];
    size_t stride = v->stride ? v->stride : elem;
    for (size_t i = 0; i < a->count; i++) {
        if (i > (SIZE_MAX - a->byte_offset) / stride)
            break;
        size_t start = a->byte_offset + i * stride;
        if (start > v->length || v->length - start < elem)
            break;
        const uint8_t *p = doc->bin + v->offset + start;
        for (size_t c = 0; c < ncomp; c++) {
            double x = read_component(p + c * csize, a->component);
            if (isnan(x))
                continue;
            if (!seen[c] || x < a->min[c])
                a->min[c] = x;
            if (!seen[c] || x > a->max[c])
                a->max[c] = x;
            seen[c] = true;
        }
    }
}

int glbw_add_accessor(glbw_doc *doc, int view_index, size_t byte_offset,
                      const glbw_accessor_desc *desc)
{
    if (doc->failed)
        return -1;
    if (!desc || !valid_layout(desc))
        return fail(doc, "glbw_add_accessor: bad component or type");
    if ((desc->min == NULL) != (desc->max == NULL))
        return fail(doc, "glbw_add_accessor: min and max must be given together");
    int idx = PUSH_SLOT(doc, doc->accessors, doc->accessor_count, doc->accessor_cap);
    if (idx < 0)
        return -1;
    accessor *a = &doc->accessors[idx];
    a->view = view_index;
    a->byte_offset = byte_offset;
    a->component = desc->component;
    a->type = desc->type;
    a->count = desc->count;
    a->normalized = desc->normalized;
    a->has_bounds = desc->min_max;
    if (!desc->min_max)
        return idx;
    if (desc->min) {
        size_t ncomp = type_components(desc->type);
        memcpy(a->min, desc->min, ncomp * sizeof(double));
        memcpy(a->max, desc->max, ncomp * sizeof(double));
    } else {
        compute_bounds(doc, a);
    }
    return idx;
}

bool glbw_set_sparse(glbw_doc *doc, int accessor_index, const glbw_sparse_desc *sparse)
{
    if (doc->failed)
        return false;
    if (accessor_index < 0 || (size_t)accessor_index >= doc->accessor_count || !sparse) {
        fail(doc, "glbw_set_sparse: no such accessor");
        return false;
    }
    glbw_component c = sparse->indices_component;
    if (c != GLBW_U8 && c != GLBW_U16 && c != GLBW_U32) {
        fail(doc, "glbw_set_sparse: indices must be U8, U16 or U32");
        return false;
    }
    doc->accessors[accessor_index].sparse = true;
    doc->accessors[accessor_index].sparse_desc = *sparse;
    return true;
}

int glbw_add_data(glbw_doc *doc, const void *data, glbw_target target,
                  const glbw_accessor_desc *desc)
{
    if (doc->failed)
        return -1;
    if (!desc || !valid_layout(desc))
        return fail(doc, "glbw_add_data: bad component or type");
    size_t elem = type_components(desc->type) * component_size(desc->component);
    if (desc->count > SIZE_MAX / elem)
        return fail(doc, "glbw_add_data: size overflow");
    int v = glbw_add_view(doc, data, desc->count * elem, 0, target);
    if (v < 0)
        return -1;
    return glbw_add_accessor(doc, v, 0, desc);
}

int glbw_add_floats(glbw_doc *doc, const float *data, size_t count, glbw_type type,
                    glbw_target target, bool min_max)
{
    glbw_accessor_desc d = {
        .component = GLBW_F32, .type = type, .count = count, .min_max = min_max};
    return glbw_add_data(doc, data, target, &d);
}

/* ---- images, textures, materials, meshes ------------------------------- */

static int add_image(glbw_doc *doc, const char *name, const char *uri, int view_index)
{
    bool ok_name, ok_uri;
    char *name_copy = dup_str(doc, name, &ok_name);
    char *uri_copy = dup_str(doc, uri, &ok_uri);
    int idx =
        (ok_name && ok_uri) ? PUSH_SLOT(doc, doc->images, doc->image_count, doc->image_cap) : -1;
    if (idx < 0) {
        free(name_copy);
        free(uri_copy);
        return -1;
    }
    doc->images[idx] = (image){name_copy, uri_copy, view_index};
    return idx;
}

int glbw_add_image_png(glbw_doc *doc, const char *name, const void *png, size_t size)
{
    int v = glbw_add_view(doc, png, size, 0, GLBW_TARGET_NONE);
    return v < 0 ? -1 : add_image(doc, name, NULL, v);
}

int glbw_add_image_uri(glbw_doc *doc, const char *name, const char *uri)
{
    if (doc->failed)
        return -1;
    if (!uri)
        return fail(doc, "glbw_add_image_uri: NULL uri");
    return add_image(doc, name, uri, GLBW_NONE);
}

int glbw_add_texture(glbw_doc *doc, int image_index)
{
    if (doc->failed)
        return -1;
    int idx = PUSH_SLOT(doc, doc->textures, doc->texture_count, doc->texture_cap);
    if (idx >= 0)
        doc->textures[idx] = image_index;
    return idx;
}

glbw_material_desc glbw_material_defaults(void)
{
    return (glbw_material_desc){.base_color = {1.0f, 1.0f, 1.0f, 1.0f},
                                .metallic = 0.0f,
                                .roughness = 1.0f,
                                .base_color_texture = GLBW_NONE};
}

int glbw_add_material(glbw_doc *doc, const glbw_material_desc *desc)
{
    if (doc->failed)
        return -1;
    if (!desc)
        return fail(doc, "glbw_add_material: NULL desc");
    bool ok;
    char *name = dup_str(doc, desc->name, &ok);
    int idx = ok ? PUSH_SLOT(doc, doc->materials, doc->material_count, doc->material_cap) : -1;
    if (idx < 0) {
        free(name);
        return -1;
    }
    doc->materials[idx] = (material){*desc, name};
    doc->materials[idx].desc.name = NULL;
    return idx;
}

glbw_primitive_desc glbw_primitive_defaults(void)
{
    return (glbw_primitive_desc){.position = GLBW_NONE,
                                 .normal = GLBW_NONE,
                                 .tangent = GLBW_NONE,
                                 .texcoord0 = GLBW_NONE,
                                 .joints0 = GLBW_NONE,
                                 .weights0 = GLBW_NONE,
                                 .joints1 = GLBW_NONE,
                                 .weights1 = GLBW_NONE,
                                 .joints2 = GLBW_NONE,
                                 .weights2 = GLBW_NONE,
                                 .indices = GLBW_NONE,
                                 .material = GLBW_NONE};
}

int glbw_add_mesh(glbw_doc *doc, const char *name, const glbw_primitive_desc *prims,
                  size_t prim_count)
{
    if (doc->failed)
        return -1;
    if (!prims && prim_count > 0)
        return fail(doc, "glbw_add_mesh: NULL primitives");
    bool ok;
    char *name_copy = dup_str(doc, name, &ok);
    glbw_primitive_desc *copy = NULL;
    if (ok && prim_count > 0) {
        copy = malloc(prim_count * sizeof *copy);
        if (copy) {
            memcpy(copy, prims, prim_count * sizeof *copy);
        } else {
            fail(doc, "out of memory");
            ok = false;
        }
    }
    int idx = ok ? PUSH_SLOT(doc, doc->meshes, doc->mesh_count, doc->mesh_cap) : -1;
    if (idx < 0) {
        free(name_copy);
        free(copy);
        return -1;
    }
    doc->meshes[idx] = (mesh){.name = name_copy, .prims = copy, .prim_count = prim_count};
    return idx;
}

bool glbw_mesh_set_targets(glbw_doc *doc, int mesh_index, const float *weights, size_t weight_count,
                           const char *const *names, size_t name_count)
{
    if (doc->failed)
        return false;
    if (mesh_index < 0 || (size_t)mesh_index >= doc->mesh_count ||
        weight_count > GLBW_MAX_TARGETS || name_count > GLBW_MAX_TARGETS ||
        (weight_count && !weights) || (name_count && !names))
        return fail(doc, "glbw_mesh_set_targets: bad arguments") >= 0; /* (false) */
    mesh *m = &doc->meshes[mesh_index];
    if (weight_count)
        memcpy(m->weights, weights, sizeof *weights * weight_count);
    m->weight_count = weight_count;
    for (size_t k = 0; k < name_count; k++) {
        bool ok;
        m->target_names[k] = dup_str(doc, names[k], &ok);
        if (!ok)
            return false;
        m->name_count = k + 1;
    }
    return true;
}

/* ---- nodes, skins, animations, scene ----------------------------------- */

glbw_node_desc glbw_node_defaults(void)
{
    return (glbw_node_desc){.rotation = {0.0f, 0.0f, 0.0f, 1.0f},
                            .scale = {1.0f, 1.0f, 1.0f},
                            .mesh = GLBW_NONE,
                            .skin = GLBW_NONE};
}

int glbw_add_node(glbw_doc *doc, const glbw_node_desc *desc)
{
    if (doc->failed)
        return -1;
    if (!desc)
        return fail(doc, "glbw_add_node: NULL desc");
    bool ok_name, ok_children;
    char *name = dup_str(doc, desc->name, &ok_name);
    int *children = dup_ints(doc, desc->children, desc->child_count, &ok_children);
    int idx =
        (ok_name && ok_children) ? PUSH_SLOT(doc, doc->nodes, doc->node_count, doc->node_cap) : -1;
    if (idx < 0) {
        free(name);
        free(children);
        return -1;
    }
    node *n = &doc->nodes[idx];
    n->desc = *desc;
    n->desc.name = NULL;
    n->desc.children = NULL;
    n->name = name;
    n->children = children;
    n->child_count = n->child_cap = desc->child_count;
    return idx;
}

bool glbw_node_add_child(glbw_doc *doc, int node_index, int child)
{
    if (doc->failed)
        return false;
    if (node_index < 0 || (size_t)node_index >= doc->node_count) {
        fail(doc, "glbw_node_add_child: no such node");
        return false;
    }
    node *n = &doc->nodes[node_index];
    if (!reserve(doc, &n->children, &n->child_cap, n->child_count + 1, sizeof(int)))
        return false;
    n->children[n->child_count++] = child;
    return true;
}

int glbw_add_skin(glbw_doc *doc, const char *name, const int *joints, size_t joint_count,
                  int inverse_bind_matrices, int skeleton)
{
    if (doc->failed)
        return -1;
    bool ok_name, ok_joints;
    char *name_copy = dup_str(doc, name, &ok_name);
    int *joints_copy = dup_ints(doc, joints, joint_count, &ok_joints);
    int idx =
        (ok_name && ok_joints) ? PUSH_SLOT(doc, doc->skins, doc->skin_count, doc->skin_cap) : -1;
    if (idx < 0) {
        free(name_copy);
        free(joints_copy);
        return -1;
    }
    doc->skins[idx] = (skin){name_copy, joints_copy, joint_count, inverse_bind_matrices, skeleton};
    return idx;
}

int glbw_add_animation(glbw_doc *doc, const char *name)
{
    if (doc->failed)
        return -1;
    bool ok;
    char *name_copy = dup_str(doc, name, &ok);
    int idx = ok ? PUSH_SLOT(doc, doc->anims, doc->anim_count, doc->anim_cap) : -1;
    if (idx < 0) {
        free(name_copy);
        return -1;
    }
    doc->anims[idx].name = name_copy;
    return idx;
}

static animation *find_anim(glbw_doc *doc, int anim)
{
    if (doc->failed)
        return NULL;
    if (anim < 0 || (size_t)anim >= doc->anim_count) {
        fail(doc, "no such animation");
        return NULL;
    }
    return &doc->anims[anim];
}

int glbw_add_anim_sampler(glbw_doc *doc, int anim, int input, int output, glbw_interp interp)
{
    animation *a = find_anim(doc, anim);
    if (!a)
        return -1;
    int idx = PUSH_SLOT(doc, a->samplers, a->sampler_count, a->sampler_cap);
    if (idx >= 0)
        a->samplers[idx] = (anim_sampler){input, output, interp};
    return idx;
}

int glbw_add_anim_channel(glbw_doc *doc, int anim, int sampler, int node_index, glbw_path path)
{
    animation *a = find_anim(doc, anim);
    if (!a)
        return -1;
    int idx = PUSH_SLOT(doc, a->channels, a->channel_count, a->channel_cap);
    if (idx >= 0)
        a->channels[idx] = (anim_channel){sampler, node_index, path};
    return idx;
}

static bool list_has(char *const *list, size_t count, const char *name)
{
    for (size_t i = 0; i < count; i++)
        if (strcmp(list[i], name) == 0)
            return true;
    return false;
}

/* Appends a copy of name to a string list unless it is there already. */
static bool list_add(glbw_doc *doc, char ***list, size_t *count, size_t *cap, const char *name)
{
    if (list_has(*list, *count, name))
        return true;
    bool ok;
    char *copy = dup_str(doc, name, &ok);
    if (!ok || !reserve(doc, list, cap, *count + 1, sizeof **list)) {
        free(copy);
        return false;
    }
    (*list)[(*count)++] = copy;
    return true;
}

bool glbw_use_extension(glbw_doc *doc, const char *name, bool required)
{
    if (doc->failed)
        return false;
    if (!name) {
        fail(doc, "glbw_use_extension: NULL name");
        return false;
    }
    if (!list_add(doc, &doc->ext_used, &doc->ext_used_count, &doc->ext_used_cap, name))
        return false;
    return !required || list_add(doc, &doc->ext_required, &doc->ext_required_count,
                                 &doc->ext_required_cap, name);
}

bool glbw_set_scene(glbw_doc *doc, const int *roots, size_t root_count)
{
    if (doc->failed)
        return false;
    bool ok;
    int *copy = dup_ints(doc, roots, root_count, &ok);
    if (!ok)
        return false;
    free(doc->roots);
    doc->roots = copy;
    doc->root_count = root_count;
    doc->roots_set = true;
    return true;
}

/* ---- JSON text --------------------------------------------------------- */

typedef struct jbuf {
    char *text;
    size_t len;
    size_t cap;
    bool oom;
} jbuf;

static bool jb_reserve(jbuf *b, size_t extra)
{
    if (b->oom)
        return false;
    if (b->len + extra + 1 <= b->cap)
        return true;
    size_t cap = b->cap ? b->cap : 4096;
    while (cap < b->len + extra + 1)
        cap *= 2;
    char *grown = realloc(b->text, cap);
    if (!grown) {
        b->oom = true;
        return false;
    }
    b->text = grown;
    b->cap = cap;
    return true;
}

PRINTF_LIKE(2, 3)
static void jb_printf(jbuf *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0 || !jb_reserve(b, (size_t)n))
        return;
    va_start(ap, fmt);
    vsnprintf(b->text + b->len, b->cap - b->len, fmt, ap);
    va_end(ap);
    b->len += (size_t)n;
}

static void jb_str(jbuf *b, const char *s)
{
    jb_printf(b, "\"");
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (*p == '"' || *p == '\\')
            jb_printf(b, "\\%c", *p);
        else if (*p == '\n')
            jb_printf(b, "\\n");
        else if (*p == '\t')
            jb_printf(b, "\\t");
        else if (*p < 0x20)
            jb_printf(b, "\\u%04x", *p);
        else
            jb_printf(b, "%c", *p);
    }
    jb_printf(b, "\"");
}

/* %.9g round-trips any float; JSON has no NaN/Inf, so those become 0. */
static void jb_num(jbuf *b, double v)
{
    jb_printf(b, "%.9g", isfinite(v) ? v : 0.0);
}

static void jb_floats(jbuf *b, const float *v, size_t n)
{
    jb_printf(b, "[");
    for (size_t i = 0; i < n; i++) {
        if (i)
            jb_printf(b, ",");
        jb_num(b, (double)v[i]);
    }
    jb_printf(b, "]");
}

static void jb_ints(jbuf *b, const int *v, size_t n)
{
    jb_printf(b, "[");
    for (size_t i = 0; i < n; i++)
        jb_printf(b, "%s%d", i ? "," : "", v[i]);
    jb_printf(b, "]");
}

/* Writes `,"key":` (no comma before the first key of an object). */
static void jb_key(jbuf *b, bool *first, const char *key)
{
    jb_printf(b, "%s\"%s\":", *first ? "" : ",", key);
    *first = false;
}

static void jb_name(jbuf *b, bool *first, const char *name)
{
    if (name) {
        jb_key(b, first, "name");
        jb_str(b, name);
    }
}

static void jb_index(jbuf *b, bool *first, const char *key, int index)
{
    if (index != GLBW_NONE) {
        jb_key(b, first, key);
        jb_printf(b, "%d", index);
    }
}

/* Opens `"key":[` for a top-level array; returns false when it is empty. */
static bool jb_section(jbuf *b, const char *key, size_t count)
{
    if (count == 0)
        return false;
    jb_printf(b, ",\"%s\":[", key);
    return true;
}

static void jb_bounds(jbuf *b, const accessor *a, const double *values)
{
    size_t ncomp = type_components(a->type);
    jb_printf(b, "[");
    for (size_t c = 0; c < ncomp; c++) {
        double v = isfinite(values[c]) ? values[c] : 0.0;
        if (c)
            jb_printf(b, ",");
        if (a->component == GLBW_F32)
            jb_num(b, (double)(float)v);
        else
            jb_printf(b, "%.0f", v);
    }
    jb_printf(b, "]");
}

static bool is_child(const glbw_doc *doc, int index)
{
    for (size_t p = 0; p < doc->node_count; p++)
        for (size_t c = 0; c < doc->nodes[p].child_count; c++)
            if (doc->nodes[p].children[c] == index)
                return true;
    return false;
}

/* scene.nodes must not be an empty array, so an empty scene is written as {}. */
static void write_scene(jbuf *b, const glbw_doc *doc)
{
    jb_printf(b, ",\"scene\":0,\"scenes\":[{");
    if (doc->roots_set) {
        if (doc->root_count) {
            jb_printf(b, "\"nodes\":");
            jb_ints(b, doc->roots, doc->root_count);
        }
    } else {
        bool first = true;
        for (size_t i = 0; i < doc->node_count; i++) {
            if (is_child(doc, (int)i))
                continue;
            jb_printf(b, first ? "\"nodes\":[%zu" : ",%zu", i);
            first = false;
        }
        if (!first)
            jb_printf(b, "]");
    }
    jb_printf(b, "}]");
}

static void write_node(jbuf *b, const node *n)
{
    bool first = true;
    jb_printf(b, "{");
    jb_name(b, &first, n->name);
    if (n->child_count) {
        jb_key(b, &first, "children");
        jb_ints(b, n->children, n->child_count);
    }
    if (n->desc.has_trs) {
        jb_key(b, &first, "translation");
        jb_floats(b, n->desc.translation, 3);
        jb_key(b, &first, "rotation");
        jb_floats(b, n->desc.rotation, 4);
        jb_key(b, &first, "scale");
        jb_floats(b, n->desc.scale, 3);
    }
    jb_index(b, &first, "mesh", n->desc.mesh);
    jb_index(b, &first, "skin", n->desc.skin);
    jb_printf(b, "}");
}

static void write_primitive(jbuf *b, const glbw_primitive_desc *p)
{
    bool first = true;
    jb_printf(b, "{\"attributes\":{");
    jb_index(b, &first, "POSITION", p->position);
    jb_index(b, &first, "NORMAL", p->normal);
    jb_index(b, &first, "TANGENT", p->tangent);
    jb_index(b, &first, "TEXCOORD_0", p->texcoord0);
    jb_index(b, &first, "JOINTS_0", p->joints0);
    jb_index(b, &first, "WEIGHTS_0", p->weights0);
    jb_index(b, &first, "JOINTS_1", p->joints1);
    jb_index(b, &first, "WEIGHTS_1", p->weights1);
    jb_index(b, &first, "JOINTS_2", p->joints2);
    jb_index(b, &first, "WEIGHTS_2", p->weights2);
    jb_printf(b, "}");
    first = false;
    jb_index(b, &first, "indices", p->indices);
    jb_index(b, &first, "material", p->material);
    if (p->target_count) {
        jb_key(b, &first, "targets");
        jb_printf(b, "[");
        for (size_t t = 0; t < p->target_count && t < GLBW_MAX_TARGETS; t++) {
            bool first_attr = true;
            jb_printf(b, "%s{", t ? "," : "");
            jb_index(b, &first_attr, "POSITION", p->targets[t].position);
            jb_index(b, &first_attr, "NORMAL", p->targets[t].normal);
            jb_index(b, &first_attr, "TANGENT", p->targets[t].tangent);
            jb_printf(b, "}");
        }
        jb_printf(b, "]");
    }
    jb_printf(b, "}");
}

static void write_mesh(jbuf *b, const mesh *m)
{
    bool first = true;
    jb_printf(b, "{");
    jb_name(b, &first, m->name);
    jb_key(b, &first, "primitives");
    jb_printf(b, "[");
    for (size_t i = 0; i < m->prim_count; i++) {
        if (i)
            jb_printf(b, ",");
        write_primitive(b, &m->prims[i]);
    }
    jb_printf(b, "]");
    if (m->weight_count) {
        jb_printf(b, ",\"weights\":");
        jb_floats(b, m->weights, m->weight_count);
    }
    if (m->name_count) {
        jb_printf(b, ",\"extras\":{\"targetNames\":[");
        for (size_t k = 0; k < m->name_count; k++) {
            if (k)
                jb_printf(b, ",");
            jb_str(b, m->target_names[k]);
        }
        jb_printf(b, "]}");
    }
    jb_printf(b, "}");
}

/* The KHR_texture_transform object inside a textureInfo, when enabled. */
static void write_texture_transform(jbuf *b, const glbw_texture_transform *t)
{
    if (!t->enabled)
        return;
    jb_printf(b, ",\"extensions\":{\"KHR_texture_transform\":{\"offset\":");
    jb_floats(b, t->offset, 2);
    jb_printf(b, ",\"rotation\":");
    jb_num(b, (double)t->rotation);
    jb_printf(b, ",\"scale\":");
    jb_floats(b, t->scale, 2);
    if (t->has_tex_coord)
        jb_printf(b, ",\"texCoord\":%d", t->tex_coord);
    jb_printf(b, "}}");
}

static void write_material(jbuf *b, const material *m)
{
    bool first = true;
    jb_printf(b, "{");
    jb_name(b, &first, m->name);
    jb_key(b, &first, "pbrMetallicRoughness");
    jb_printf(b, "{\"baseColorFactor\":");
    jb_floats(b, m->desc.base_color, 4);
    if (m->desc.base_color_texture != GLBW_NONE) {
        jb_printf(b, ",\"baseColorTexture\":{\"index\":%d", m->desc.base_color_texture);
        write_texture_transform(b, &m->desc.base_color_transform);
        jb_printf(b, "}");
    }
    jb_printf(b, ",\"metallicFactor\":");
    jb_num(b, (double)m->desc.metallic);
    jb_printf(b, ",\"roughnessFactor\":");
    jb_num(b, (double)m->desc.roughness);
    jb_printf(b, "}");
    if (m->desc.double_sided)
        jb_printf(b, ",\"doubleSided\":true");
    jb_printf(b, "}");
}

static void write_image(jbuf *b, const image *im)
{
    bool first = true;
    jb_printf(b, "{");
    jb_name(b, &first, im->name);
    if (im->uri) {
        jb_key(b, &first, "uri");
        jb_str(b, im->uri);
    } else {
        jb_index(b, &first, "bufferView", im->view);
        jb_key(b, &first, "mimeType");
        jb_str(b, "image/png");
    }
    jb_printf(b, "}");
}

static void write_skin(jbuf *b, const skin *s)
{
    bool first = true;
    jb_printf(b, "{");
    jb_name(b, &first, s->name);
    jb_index(b, &first, "inverseBindMatrices", s->inverse_bind_matrices);
    jb_index(b, &first, "skeleton", s->skeleton);
    jb_key(b, &first, "joints");
    jb_ints(b, s->joints, s->joint_count);
    jb_printf(b, "}");
}

static void write_animation(jbuf *b, const animation *a)
{
    static const char *paths[] = {"translation", "rotation", "scale", "weights"};
    static const char *interps[] = {"LINEAR", "STEP", "CUBICSPLINE"};
    bool first = true;
    jb_printf(b, "{");
    jb_name(b, &first, a->name);
    jb_key(b, &first, "channels");
    jb_printf(b, "[");
    for (size_t i = 0; i < a->channel_count; i++) {
        const anim_channel *c = &a->channels[i];
        jb_printf(b, "%s{\"sampler\":%d,\"target\":{\"node\":%d,\"path\":\"%s\"}}", i ? "," : "",
                  c->sampler, c->node, paths[c->path]);
    }
    jb_printf(b, "]");
    jb_key(b, &first, "samplers");
    jb_printf(b, "[");
    for (size_t i = 0; i < a->sampler_count; i++) {
        const anim_sampler *s = &a->samplers[i];
        jb_printf(b, "%s{\"input\":%d,\"interpolation\":\"%s\",\"output\":%d}", i ? "," : "",
                  s->input, interps[s->interp], s->output);
    }
    jb_printf(b, "]}");
}

static void write_sparse(jbuf *b, const glbw_sparse_desc *s)
{
    jb_printf(b,
              ",\"sparse\":{\"count\":%zu,\"indices\":{\"bufferView\":%d,\"componentType\":%d},"
              "\"values\":{\"bufferView\":%d}}",
              s->count, s->indices_view, (int)s->indices_component, s->values_view);
}

/* An accessor without a bufferView (GLBW_NONE) is all zeros but for its sparse values. */
static void write_accessor(jbuf *b, const accessor *a)
{
    jb_printf(b, "{");
    if (a->view != GLBW_NONE)
        jb_printf(b, "\"bufferView\":%d,", a->view);
    if (a->byte_offset)
        jb_printf(b, "\"byteOffset\":%zu,", a->byte_offset);
    jb_printf(b, "\"componentType\":%d", (int)a->component);
    if (a->normalized)
        jb_printf(b, ",\"normalized\":true");
    jb_printf(b, ",\"count\":%zu,\"type\":\"%s\"", a->count, type_name(a->type));
    if (a->has_bounds) {
        jb_printf(b, ",\"min\":");
        jb_bounds(b, a, a->min);
        jb_printf(b, ",\"max\":");
        jb_bounds(b, a, a->max);
    }
    if (a->sparse)
        write_sparse(b, &a->sparse_desc);
    jb_printf(b, "}");
}

static void write_view(jbuf *b, const view *v)
{
    jb_printf(b, "{\"buffer\":0,\"byteOffset\":%zu,\"byteLength\":%zu", v->offset, v->length);
    if (v->stride)
        jb_printf(b, ",\"byteStride\":%zu", v->stride);
    if (v->target != GLBW_TARGET_NONE)
        jb_printf(b, ",\"target\":%d", (int)v->target);
    jb_printf(b, "}");
}

/* Emits one top-level array by calling `write` on each element. */
#define WRITE_SECTION(b, key, items, count, write)                                                 \
    do {                                                                                           \
        if (jb_section((b), (key), (count))) {                                                     \
            for (size_t i_ = 0; i_ < (count); i_++) {                                              \
                if (i_)                                                                            \
                    jb_printf((b), ",");                                                           \
                write((b), &(items)[i_]);                                                          \
            }                                                                                      \
            jb_printf((b), "]");                                                                   \
        }                                                                                          \
    } while (0)

static void write_texture(jbuf *b, const int *image_index)
{
    jb_printf(b, "{\"source\":%d}", *image_index);
}

static bool has_bin(const glbw_doc *doc)
{
    return doc->bin_len > 0 || doc->view_count > 0;
}

static void write_strings(jbuf *b, const char *key, char *const *list, size_t count)
{
    if (count == 0)
        return;
    jb_printf(b, ",\"%s\":[", key);
    for (size_t i = 0; i < count; i++) {
        if (i)
            jb_printf(b, ",");
        jb_str(b, list[i]);
    }
    jb_printf(b, "]");
}

static void write_extension_lists(jbuf *b, const glbw_doc *doc)
{
    write_strings(b, "extensionsUsed", doc->ext_used, doc->ext_used_count);
    write_strings(b, "extensionsRequired", doc->ext_required, doc->ext_required_count);
}

static void write_json(jbuf *b, const glbw_doc *doc)
{
    jb_printf(b, "{\"asset\":{\"version\":\"2.0\",\"generator\":\"vkskin glb_writer\"}");
    write_extension_lists(b, doc);
    write_scene(b, doc);
    WRITE_SECTION(b, "nodes", doc->nodes, doc->node_count, write_node);
    WRITE_SECTION(b, "meshes", doc->meshes, doc->mesh_count, write_mesh);
    WRITE_SECTION(b, "materials", doc->materials, doc->material_count, write_material);
    WRITE_SECTION(b, "textures", doc->textures, doc->texture_count, write_texture);
    WRITE_SECTION(b, "images", doc->images, doc->image_count, write_image);
    WRITE_SECTION(b, "skins", doc->skins, doc->skin_count, write_skin);
    WRITE_SECTION(b, "animations", doc->anims, doc->anim_count, write_animation);
    WRITE_SECTION(b, "accessors", doc->accessors, doc->accessor_count, write_accessor);
    WRITE_SECTION(b, "bufferViews", doc->views, doc->view_count, write_view);
    if (has_bin(doc))
        jb_printf(b, ",\"buffers\":[{\"byteLength\":%zu}]", doc->bin_len);
    jb_printf(b, "}");
}

/* ---- GLB container ----------------------------------------------------- */

static uint8_t *put_u32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
    p[2] = (uint8_t)(v >> 16);
    p[3] = (uint8_t)(v >> 24);
    return p + 4;
}

bool glbw_write_memory(const glbw_doc *doc, uint8_t **out, size_t *out_size, char *err,
                       size_t err_size)
{
    *out = NULL;
    *out_size = 0;
    if (doc->failed) {
        set_err(err, err_size, "%s", doc->error);
        return false;
    }
    jbuf json = {0};
    write_json(&json, doc);
    while (!json.oom && json.len % 4 != 0)
        jb_printf(&json, " ");
    if (json.oom) {
        free(json.text);
        set_err(err, err_size, "out of memory while writing JSON");
        return false;
    }
    size_t bin_chunk = has_bin(doc) ? 8 + doc->bin_len : 0;
    size_t total = 12 + 8 + json.len + bin_chunk;
    if (total > UINT32_MAX) {
        free(json.text);
        set_err(err, err_size, "GLB larger than 4 GiB");
        return false;
    }
    uint8_t *bytes = malloc(total);
    if (!bytes) {
        free(json.text);
        set_err(err, err_size, "out of memory while assembling GLB");
        return false;
    }
    uint8_t *p = put_u32(bytes, GLB_MAGIC);
    p = put_u32(p, 2);
    p = put_u32(p, (uint32_t)total);
    p = put_u32(p, (uint32_t)json.len);
    p = put_u32(p, GLB_CHUNK_JSON);
    memcpy(p, json.text, json.len);
    p += json.len;
    if (bin_chunk) {
        p = put_u32(p, (uint32_t)doc->bin_len);
        p = put_u32(p, GLB_CHUNK_BIN);
        if (doc->bin_len)
            memcpy(p, doc->bin, doc->bin_len);
    }
    free(json.text);
    *out = bytes;
    *out_size = total;
    return true;
}

void glbw_free_bytes(uint8_t *bytes)
{
    free(bytes);
}

bool glbw_write_file(const glbw_doc *doc, const char *path, char *err, size_t err_size)
{
    uint8_t *bytes;
    size_t size;
    if (!glbw_write_memory(doc, &bytes, &size, err, err_size))
        return false;
    FILE *f = fopen(path, "wb");
    if (!f) {
        set_err(err, err_size, "cannot open %s for writing: %s", path, strerror(errno));
        glbw_free_bytes(bytes);
        return false;
    }
    bool ok = fwrite(bytes, 1, size, f) == size;
    ok = (fclose(f) == 0) && ok;
    glbw_free_bytes(bytes);
    if (!ok)
        set_err(err, err_size, "error writing %s", path);
    return ok;
}
