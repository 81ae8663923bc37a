/* assimp scene -> vks_model. The only file that sees an assimp type.
 *
 * Order of work: check the file, let assimp read it, then build the skeleton (which nodes move
 * vertices), the vertex streams (influences ranked, truncated to 4 and renormalised), materials
 * and textures, and clips (keys in seconds, validated). Every failure path frees what was built. */
#include "import.h"
#include "../core/alloc.h"

#include "gltf.h"
#include "influence.h"
#include "texture.h"

#include <assimp/cimport.h>
#include <assimp/config.h>
#include <assimp/postprocess.h>
#include <assimp/scene.h>

#include <cglm/mat4.h>

#include <assert.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

/* Triangles only (points and lines dropped), smooth normals where the file has none (Fox), UV
 * origin at the top-left as Vulkan samples, shared vertices merged (FBX, Collada and MD5 arrive
 * unindexed; skinning cost is per vertex; tangents and bitangents take part in the comparison). No
 * LimitBoneWeights: we rank and count influences. No CalcTangentSpace: tangents come from the file
 * or not at all. */
static const unsigned import_flags = aiProcess_Triangulate | aiProcess_SortByPType |
                                     aiProcess_GenSmoothNormals | aiProcess_JoinIdenticalVertices |
                                     aiProcess_FlipUVs | aiProcess_ValidateDataStructure;

/* Weight sums further than this from 1 count as renormalised in the statistics. */
#define WEIGHT_SUM_TOLERANCE 1e-4f

/* Keys of one kind (translation, rotation or scale) in one clip, over all its channels: 64 full
 * channels of VKS_MAX_KEYS. Past it a file is corrupt, and its arrays would take gigabytes. */
#define MAX_CLIP_KEYS (64ull * VKS_MAX_KEYS)

typedef struct named_node {
    const char *name;
    uint32_t node;
} named_node;

typedef struct builder {
    const struct aiScene *scene;
    const char *name; /* for messages */
    const char *dir;  /* folder of the model file, for external textures; NULL in memory */
    vks_model *model;
    vks_error *err;

    /* Node table in depth-first pre-order (parents before children). */
    uint32_t node_count;
    const struct aiNode **nodes;
    int32_t *node_parent;
    int32_t *node_joint;   /* joint index of each node, -1 when it moves no vertex */
    int32_t *attach_joint; /* joint its meshes' rigid vertices follow, -1 until needed */
    uint8_t *node_is_bone;
    struct named_node *by_name; /* nodes sorted by name, then by index: find_node's index */
    uint8_t *joint_bound;       /* the joint's inverse bind came from a bone already */
    uint32_t *material_remap;   /* file material -> model material (only used ones are kept) */
    /* Bones that name no node: root joints with an identity rest (see build_skeleton). */
    uint32_t orphan_count;
    const char **orphan_names;
    int32_t *orphan_joints;
    /* A glTF file's weights channels, read by gltf.c (NULL for other formats), and each node's
     * morph targets: the first of its meshes' (consecutive) and how many. */
    const vks_gltf_weights *weights;
    uint32_t weights_count;
    uint32_t *node_target_first, *node_target_count;
} builder;

static char *dup_string(const char *s)
{
    size_t n = strlen(s) + 1;
    char *d = vks_malloc(n);
    if (d)
        memcpy(d, s, n);
    return d;
}

static bool out_of_memory(builder *b)
{
    return vks_fail(b->err, "%s: out of memory", b->name);
}

static void add_warning(vks_model *m, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void add_warning(vks_model *m, const char *fmt, ...)
{
    char line[512];
    va_list args;
    va_start(args, fmt);
    vsnprintf(line, sizeof line, fmt, args);
    va_end(args);
    char **grown = vks_realloc(m->warnings, sizeof(char *) * (m->warning_count + 1));
    if (!grown)
        return; /* a warning lost to memory pressure is not worth failing the import */
    m->warnings = grown;
    if ((m->warnings[m->warning_count] = dup_string(line)))
        m->warning_count++;
}

#define warn(b, ...) add_warning((b)->model, __VA_ARGS__)

static const char *ai_name(const struct aiString *s)
{
    return s->length ? s->data : "";
}

static bool finite3(const float *v)
{
    return isfinite(v[0]) && isfinite(v[1]) && isfinite(v[2]);
}

/* ---- skeleton ---------------------------------------------------------------------------- */

static int compare_named(const void *pa, const void *pb)
{
    const named_node *a = pa, *b = pb;
    int c = strcmp(a->name, b->name);
    return c ? c : (a->node > b->node) - (a->node < b->node);
}

/* The first node (in depth-first order) named `name`, or -1; a binary search over by_name. */
static int32_t find_node(const builder *b, const char *name)
{
    uint32_t lo = 0, hi = b->node_count;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (strcmp(b->by_name[mid].name, name) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo < b->node_count && strcmp(b->by_name[lo].name, name) == 0)
        return (int32_t)b->by_name[lo].node;
    return -1;
}

static void affine_from_ai(const struct aiMatrix4x4 *m, vks_affine *out)
{
    const float *src = &m->a1;
    for (int r = 0; r < 3; r++)
        for (int c = 0; c < 4; c++)
            out->row[r][c] = src[r * 4 + c];
}

static bool check_matrix(builder *b, const struct aiMatrix4x4 *m, const char *what, const char *who)
{
    const float *src = &m->a1;
    for (int i = 0; i < 16; i++)
        if (!isfinite(src[i]))
            return vks_fail(b->err, "%s: %s of '%s' is not finite", b->name, what, who);
    if (fabsf(m->d1) > 1e-6f || fabsf(m->d2) > 1e-6f || fabsf(m->d3) > 1e-6f ||
        fabsf(m->d4 - 1.0f) > 1e-6f)
        return vks_fail(b->err, "%s: %s of '%s' is not affine (projective bottom row)", b->name,
                        what, who);
    return true;
}

/* A node's pointers and its mesh and material references, as collect_nodes walks it. */
static bool check_node(builder *b, const struct aiNode *n)
{
    if (!n || (n->mNumMeshes && !n->mMeshes) || (n->mNumChildren && !n->mChildren))
        return vks_fail(b->err, "%s: the importer returned a malformed scene (a node)", b->name);
    const struct aiScene *s = b->scene;
    for (uint32_t k = 0; k < n->mNumMeshes; k++) {
        if (n->mMeshes[k] >= s->mNumMeshes)
            return vks_fail(b->err, "%s: node '%s' references mesh %u of %u", b->name,
                            ai_name(&n->mName), n->mMeshes[k], s->mNumMeshes);
        const struct aiMesh *mesh = s->mMeshes[n->mMeshes[k]];
        if (s->mNumMaterials && mesh->mMaterialIndex >= s->mNumMaterials)
            return vks_fail(b->err, "%s: mesh '%s' uses material %u of %u", b->name,
                            ai_name(&mesh->mName), mesh->mMaterialIndex, s->mNumMaterials);
    }
    return true;
}

/* The first walk: every node checked and counted (*count); *stack grows (*cap) to the walk's
 * deepest, which the second walk reaches again. */
static bool count_nodes(builder *b, const struct aiNode ***stack, uint32_t *cap, uint32_t *count)
{
    uint32_t top = 0;
    (*stack)[top++] = b->scene->mRootNode;
    while (top) {
        const struct aiNode *n = (*stack)[--top];
        (*count)++;
        if (!check_node(b, n))
            return false;
        if (top + n->mNumChildren > *cap) {
            *cap = (top + n->mNumChildren) * 2;
            const struct aiNode **grown = vks_realloc(*stack, sizeof **stack * *cap);
            if (!grown)
                return out_of_memory(b);
            *stack = grown;
        }
        for (uint32_t c = n->mNumChildren; c-- > 0;)
            (*stack)[top++] = n->mChildren[c];
    }
    return true;
}

/* The second walk: the node table in depth-first pre-order (nodes, parents, no joints yet), and
 * the index by name. `stack` has room for `cap` nodes. */
static bool number_nodes(builder *b, const struct aiNode **stack, uint32_t cap, uint32_t count)
{
    b->node_count = count;
    b->nodes = vks_malloc(sizeof *b->nodes * count);
    b->node_parent = vks_malloc(sizeof *b->node_parent * count);
    b->node_joint = vks_malloc(sizeof *b->node_joint * count);
    b->attach_joint = vks_malloc(sizeof *b->attach_joint * count);
    b->node_is_bone = vks_calloc(count, 1);
    b->by_name = vks_malloc(sizeof *b->by_name * count);
    int32_t *stack_parent = vks_malloc(sizeof *stack_parent * cap);
    if (!b->nodes || !b->node_parent || !b->node_joint || !b->attach_joint || !b->node_is_bone ||
        !b->by_name || !stack_parent) {
        vks_free(stack_parent);
        return out_of_memory(b);
    }
    uint32_t next = 0, top = 0;
    stack[top] = b->scene->mRootNode;
    stack_parent[top++] = -1;
    while (top) {
        top--;
        const struct aiNode *n = stack[top];
        uint32_t self = next++;
        b->nodes[self] = n;
        b->node_parent[self] = stack_parent[top];
        b->node_joint[self] = -1;
        b->attach_joint[self] = -1;
        for (uint32_t c = n->mNumChildren; c-- > 0;) {
            stack[top] = n->mChildren[c];
            stack_parent[top++] = (int32_t)self;
        }
    }
    vks_free(stack_parent);
    for (uint32_t i = 0; i < count; i++)
        b->by_name[i] = (named_node){ai_name(&b->nodes[i]->mName), i};
    qsort(b->by_name, count, sizeof *b->by_name, compare_named);
    return true;
}

static bool collect_nodes(builder *b)
{
    /* Count (checking mesh and material references), then fill in depth-first pre-order, with an
     * explicit stack: chains can be deep. */
    uint32_t count = 0, cap = 64;
    const struct aiNode **stack = vks_malloc(sizeof *stack * cap);
    if (!stack)
        return out_of_memory(b);
    const bool ok = count_nodes(b, &stack, &cap, &count) && number_nodes(b, stack, cap, count);
    vks_free(stack);
    return ok;
}

/* The pointers the importer follows, non-NULL wherever their counts say there is data. assimp's
 * validation checks this too, but one path runs without it (read_scene); the nodes are checked by
 * collect_nodes as it walks them. */
static bool check_scene(builder *b)
{
    const struct aiScene *s = b->scene;
    const char *what = NULL;
    if (!s->mMeshes || (s->mNumMaterials && !s->mMaterials) ||
        (s->mNumAnimations && !s->mAnimations))
        what = "scene arrays";
    for (uint32_t i = 0; !what && i < s->mNumMeshes; i++) {
        const struct aiMesh *m = s->mMeshes[i];
        if (!m || (m->mNumVertices && !m->mVertices) || (m->mNumFaces && !m->mFaces) ||
            (m->mNumBones && !m->mBones))
            what = "a mesh";
        for (uint32_t f = 0; !what && f < m->mNumFaces; f++)
            if (m->mFaces[f].mNumIndices && !m->mFaces[f].mIndices)
                what = "a face";
        for (uint32_t k = 0; !what && k < m->mNumBones; k++)
            if (!m->mBones[k] || (m->mBones[k]->mNumWeights && !m->mBones[k]->mWeights))
                what = "a bone";
    }
    for (uint32_t i = 0; !what && i < s->mNumMaterials; i++)
        if (!s->mMaterials[i])
            what = "a material";
    for (uint32_t a = 0; !what && a < s->mNumAnimations; a++) {
        const struct aiAnimation *anim = s->mAnimations[a];
        if (!anim || (anim->mNumChannels && !anim->mChannels))
            what = "a clip";
        for (uint32_t c = 0; !what && c < anim->mNumChannels; c++) {
            const struct aiNodeAnim *ch = anim->mChannels[c];
            if (!ch || (ch->mNumPositionKeys && !ch->mPositionKeys) ||
                (ch->mNumRotationKeys && !ch->mRotationKeys) ||
                (ch->mNumScalingKeys && !ch->mScalingKeys))
                what = "a clip's channel";
        }
    }
    return !what ||
           vks_fail(b->err, "%s: the importer returned a malformed scene (%s)", b->name, what);
}

/* Marks in `keep` the nodes bones name (node_is_bone too), the nodes with meshes and all their
 * ancestors. A bone that names no node goes to orphan_names, with a warning. */
static void mark_joints(builder *b, uint8_t *keep)
{
    const struct aiScene *s = b->scene;
    for (uint32_t mi = 0; mi < s->mNumMeshes; mi++) {
        const struct aiMesh *mesh = s->mMeshes[mi];
        for (uint32_t bi = 0; bi < mesh->mNumBones; bi++) {
            const char *bone = ai_name(&mesh->mBones[bi]->mName);
            int32_t n = find_node(b, bone);
            if (n >= 0) {
                keep[n] = b->node_is_bone[n] = 1;
                continue;
            }
            /* The tutorial-style reference walk never reaches such a bone and keeps its global
             * transform the identity: a root joint with an identity rest,
             * never animated, so its palette is root_inverse * offset and its vertices are placed
             * by their offset matrix alone (they may part from the rest of the mesh, as there). */
            bool seen = false;
            for (uint32_t o = 0; o < b->orphan_count && !seen; o++)
                seen = strcmp(b->orphan_names[o], bone) == 0;
            if (!seen) {
                b->orphan_names[b->orphan_count++] = bone;
                warn(b,
                     "mesh '%s' has bone '%s' but no node of that name; it keeps the identity as "
                     "its global transform",
                     ai_name(&mesh->mName), bone);
            }
        }
    }
    for (uint32_t n = 0; n < b->node_count; n++)
        if (b->nodes[n]->mNumMeshes)
            keep[n] = 1;
    /* Children come after parents, so one backward pass carries the marks up to the root. */
    for (uint32_t n = b->node_count; n-- > 1;)
        if (keep[n])
            keep[b->node_parent[n]] = 1;
}

/* The skeleton's arrays, with room up to the limit: attach_joint_of may add joints while meshes
 * are built. */
static bool alloc_skeleton(builder *b)
{
    vks_skeleton *sk = &b->model->skeleton;
    sk->names = vks_calloc(VKS_MAX_JOINTS, sizeof *sk->names);
    sk->parents = vks_malloc(sizeof *sk->parents * VKS_MAX_JOINTS);
    sk->rest = vks_malloc(sizeof *sk->rest * VKS_MAX_JOINTS);
    sk->inverse_bind = vks_malloc(sizeof *sk->inverse_bind * VKS_MAX_JOINTS);
    b->joint_bound = vks_calloc(VKS_MAX_JOINTS, 1);
    return sk->names && sk->parents && sk->rest && sk->inverse_bind && b->joint_bound;
}

/* A node's transform as its joint's rest: scale, rotation, translation. */
static void rest_of(builder *b, const struct aiNode *node, const char *name, vks_xform *rest)
{
    struct aiVector3D scaling, position;
    struct aiQuaternion rotation;
    aiDecomposeMatrix(&node->mTransformation, &scaling, &rotation, &position);
    *rest = (vks_xform){
        .t = {position.x, position.y, position.z},
        .r = {rotation.x, rotation.y, rotation.z, rotation.w},
        .s = {scaling.x, scaling.y, scaling.z},
    };
    /* A zero scale (a hidden part) leaves the rotation undefined: any will do. */
    const float *q = rest->r;
    float q2 = q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3];
    if (!(fabsf(q2 - 1.0f) < 1e-3f))
        memcpy(rest->r, (float[4]){0, 0, 0, 1}, sizeof(float[4]));
    /* TRS cannot hold shear; say so when recomposing misses the file's matrix. */
    vks_affine file, recomposed;
    affine_from_ai(&node->mTransformation, &file);
    vks_affine_from_xform(rest, &recomposed);
    float scale = 1e-6f, diff = 0.0f;
    for (int r = 0; r < 3; r++)
        for (int c = 0; c < 4; c++) {
            scale = fmaxf(scale, fabsf(file.row[r][c]));
            diff = fmaxf(diff, fabsf(file.row[r][c] - recomposed.row[r][c]));
        }
    if (diff > 1e-4f * scale)
        warn(b, "node '%s' has a sheared transform; kept as scale, rotation, translation", name);
}

/* Node n as the next joint: its name, parent joint (numbered before it) and rest; its inverse
 * bind the identity until a bone sets it. */
static bool add_node_joint(builder *b, uint32_t n)
{
    vks_skeleton *sk = &b->model->skeleton;
    const struct aiNode *node = b->nodes[n];
    const char *name = ai_name(&node->mName);
    if (!check_matrix(b, &node->mTransformation, "the transform", name))
        return false;
    uint32_t j = sk->joint_count++;
    b->node_joint[n] = (int32_t)j;
    if (b->node_is_bone[n] && find_node(b, name) != (int32_t)n)
        warn(b, "two nodes are named '%s'; bones bind to the first", name);
    sk->names[j] = dup_string(name);
    if (!sk->names[j])
        return out_of_memory(b);
    sk->parents[j] = n ? b->node_joint[b->node_parent[n]] : -1;
    rest_of(b, node, name, &sk->rest[j]);
    sk->inverse_bind[j] = vks_affine_identity();
    return true;
}

/* The bones without a node, after the nodes' joints: root joints with an identity rest. */
static bool add_orphan_joints(builder *b)
{
    vks_skeleton *sk = &b->model->skeleton;
    for (uint32_t o = 0; o < b->orphan_count; o++) {
        uint32_t j = sk->joint_count++;
        b->orphan_joints[o] = (int32_t)j;
        if (!(sk->names[j] = dup_string(b->orphan_names[o])))
            return out_of_memory(b);
        sk->parents[j] = -1;
        sk->rest[j] = (vks_xform){.r = {0, 0, 0, 1}, .s = {1, 1, 1}};
        sk->inverse_bind[j] = vks_affine_identity();
    }
    return true;
}

/* The tutorials' global inverse transform: palettes live in the scene root's frame. */
static bool root_inverse(builder *b)
{
    vks_skeleton *sk = &b->model->skeleton;
    mat4 root, root_inv;
    const float *src = &b->scene->mRootNode->mTransformation.a1;
    for (int r = 0; r < 4; r++)
        for (int c = 0; c < 4; c++)
            root[c][r] = src[r * 4 + c]; /* cglm is column-major */
    if (fabsf(glm_mat4_det(root)) < 1e-12f)
        return vks_fail(b->err, "%s: the scene root's transform is not invertible", b->name);
    glm_mat4_inv(root, root_inv);
    for (int r = 0; r < 3; r++)
        for (int c = 0; c < 4; c++)
            sk->root_inverse.row[r][c] = root_inv[c][r];
    return true;
}

/* Marks bones, mesh nodes and all their ancestors, then numbers the marked nodes as joints in
 * node order, which keeps parents before children. */
static bool build_skeleton(builder *b)
{
    const struct aiScene *s = b->scene;
    uint8_t *keep = vks_calloc(b->node_count, 1);
    uint32_t bones = 0;
    for (uint32_t mi = 0; mi < s->mNumMeshes; mi++)
        bones += s->mMeshes[mi]->mNumBones;
    b->orphan_names = vks_malloc(sizeof *b->orphan_names * (bones + 1));
    b->orphan_joints = vks_malloc(sizeof *b->orphan_joints * (bones + 1));
    if (!keep || !b->orphan_names || !b->orphan_joints) {
        vks_free(keep);
        return out_of_memory(b);
    }
    mark_joints(b, keep);
    uint32_t needed = b->orphan_count;
    for (uint32_t n = 0; n < b->node_count; n++)
        needed += keep[n];
    if (needed > VKS_MAX_JOINTS) {
        vks_free(keep);
        return vks_fail(b->err, "%s: needs %u joints, more than the limit of %u", b->name, needed,
                        VKS_MAX_JOINTS);
    }
    if (!alloc_skeleton(b)) {
        vks_free(keep);
        return out_of_memory(b);
    }
    for (uint32_t n = 0; n < b->node_count; n++)
        if (keep[n] && !add_node_joint(b, n)) {
            vks_free(keep);
            return false;
        }
    vks_free(keep);
    if (!add_orphan_joints(b))
        return false;
    vks_skeleton *sk = &b->model->skeleton;
    sk->bone_count = b->orphan_count;
    for (uint32_t n = 0; n < b->node_count; n++)
        sk->bone_count += b->node_is_bone[n];
    return root_inverse(b);
}

/* Rigid vertices follow their mesh's node with an identity inverse bind. When that node is also a
 * bone (whose inverse bind is not identity), a child joint "<node>#mesh" with an identity local
 * transform stands in for it. */
static int32_t attach_joint_of(builder *b, uint32_t node)
{
    if (b->attach_joint[node] >= 0)
        return b->attach_joint[node];
    int32_t j = b->node_joint[node];
    if (b->node_is_bone[node]) {
        vks_skeleton *sk = &b->model->skeleton;
        if (sk->joint_count == VKS_MAX_JOINTS) {
            vks_fail(b->err, "%s: needs more than %u joints, the limit", b->name, VKS_MAX_JOINTS);
            return -1;
        }
        uint32_t a = sk->joint_count;
        char name[300];
        snprintf(name, sizeof name, "%s#mesh", sk->names[j]);
        if (!(sk->names[a] = dup_string(name))) {
            out_of_memory(b);
            return -1;
        }
        sk->joint_count++;
        sk->parents[a] = j;
        sk->rest[a] = (vks_xform){.r = {0, 0, 0, 1}, .s = {1, 1, 1}};
        sk->inverse_bind[a] = vks_affine_identity();
        j = (int32_t)a;
    }
    return b->attach_joint[node] = j;
}

static int32_t joint_of_name(const builder *b, const char *name)
{
    int32_t n = find_node(b, name);
    return n < 0 ? -1 : b->node_joint[n];
}

/* The joint of a bone: its node's, or the root joint standing in for a bone without a node. */
static int32_t joint_of_bone(const builder *b, const char *name)
{
    int32_t j = joint_of_name(b, name);
    for (uint32_t o = 0; o < b->orphan_count && j < 0; o++)
        if (strcmp(b->orphan_names[o], name) == 0)
            j = b->orphan_joints[o];
    return j;
}

/* ---- vertices ---------------------------------------------------------------------------- */

/* Vertex v's tangent as (unit xyz, handedness w), from the file's tangent and bitangent: w is the
 * sign of dot(cross(n, t), b), +1 when that is 0 or not a number (a zero or missing normal or
 * bitangent). assimp's glTF reader stores b = cross(n, t) * w, so the file's w comes back. A mesh
 * without tangents gets (0, 0, 0, 0); a zero tangent stays (0, 0, 0, 1). */
static bool convert_tangent(builder *b, const struct aiMesh *mesh, uint32_t v, const float n[3],
                            float out[4])
{
    if (!mesh->mTangents) {
        memset(out, 0, sizeof(float[4]));
        return true;
    }
    const float *t = &mesh->mTangents[v].x;
    if (!finite3(t))
        return vks_fail(b->err, "%s: mesh '%s' vertex %u has a non-finite tangent", b->name,
                        ai_name(&mesh->mName), v);
    float d = 0.0f;
    if (mesh->mBitangents) {
        const float *bt = &mesh->mBitangents[v].x;
        float c[3] = {n[1] * t[2] - n[2] * t[1], n[2] * t[0] - n[0] * t[2],
                      n[0] * t[1] - n[1] * t[0]};
        d = c[0] * bt[0] + c[1] * bt[1] + c[2] * bt[2];
    }
    /* In double: a finite float vector's squared length may overflow a float. */
    double len = sqrt((double)t[0] * t[0] + (double)t[1] * t[1] + (double)t[2] * t[2]);
    for (int k = 0; k < 3; k++)
        out[k] = len > 0.0 ? (float)(t[k] / len) : 0.0f;
    out[3] = d < 0.0f ? -1.0f : 1.0f;
    return true;
}

/* Whether a and b (3 floats) differ. */
static bool differ3(const float *a, const float *b)
{
    return a[0] != b[0] || a[1] != b[1] || a[2] != b[2];
}

/* Whether morph target `am` of `mesh` moves vertex v: its position, normal or tangent (assimp
 * holds a target's as the mesh's plus its delta) differs from the mesh's. */
static bool target_moves(const struct aiMesh *mesh, const struct aiAnimMesh *am, uint32_t v)
{
    return (am->mVertices && differ3(&am->mVertices[v].x, &mesh->mVertices[v].x)) ||
           (am->mNormals && mesh->mNormals && differ3(&am->mNormals[v].x, &mesh->mNormals[v].x)) ||
           (am->mTangents && mesh->mTangents &&
            differ3(&am->mTangents[v].x, &mesh->mTangents[v].x));
}

/* The vertices morph target `am` moves: from the first to the last (count 0 for none). */
static void target_range(const struct aiMesh *mesh, const struct aiAnimMesh *am, uint32_t *first,
                         uint32_t *count)
{
    const uint32_t n =
        am->mNumVertices < mesh->mNumVertices ? am->mNumVertices : mesh->mNumVertices;
    uint32_t lo = 0, hi = n;
    while (lo < n && !target_moves(mesh, am, lo))
        lo++;
    while (hi > lo && !target_moves(mesh, am, hi - 1))
        hi--;
    *first = lo;
    *count = hi - lo;
}

/* A delta to the model's morph stream: the target's value less the mesh's (zero where the target
 * or the mesh has none). */
static bool morph_delta(builder *b, const struct aiVector3D *target, const struct aiVector3D *base,
                        uint32_t v, const char *mesh_name, uint32_t t, float out[3])
{
    out[0] = out[1] = out[2] = 0.0f;
    if (!target || !base)
        return true;
    for (int k = 0; k < 3; k++)
        out[k] = (&target[v].x)[k] - (&base[v].x)[k];
    if (!finite3(out) || fabsf(out[0]) > VKS_MAX_COORDINATE || fabsf(out[1]) > VKS_MAX_COORDINATE ||
        fabsf(out[2]) > VKS_MAX_COORDINATE)
        return vks_fail(b->err,
                        "%s: mesh '%s' morph target %u moves vertex %u by (%g, %g, %g): the file "
                        "is damaged",
                        b->name, mesh_name, t, v, out[0], out[1], out[2]);
    return true;
}

/* The mesh's morph targets into the model (after its vertices: base is its first). */
static bool append_targets(builder *b, const struct aiMesh *mesh, uint32_t base)
{
    vks_model *m = b->model;
    const char *mesh_name = ai_name(&mesh->mName);
    for (uint32_t a = 0; a < mesh->mNumAnimMeshes; a++) {
        const struct aiAnimMesh *am = mesh->mAnimMeshes[a];
        if (am->mNumVertices != mesh->mNumVertices)
            return vks_fail(b->err, "%s: mesh '%s' morph target %u has %u vertices, not %u",
                            b->name, mesh_name, a, am->mNumVertices, mesh->mNumVertices);
        if (!isfinite(am->mWeight))
            return vks_fail(b->err, "%s: mesh '%s' morph target %u has a non-finite weight",
                            b->name, mesh_name, a);
        uint32_t first, count;
        target_range(mesh, am, &first, &count);
        char fallback[32];
        snprintf(fallback, sizeof fallback, "target %u", a);
        const char *name = ai_name(&am->mName);
        vks_morph_target *t = &m->targets[m->target_count++];
        *t = (vks_morph_target){.name = dup_string(name[0] ? name : fallback),
                                .mesh = m->mesh_count,
                                .weight = am->mWeight,
                                .vertex_first = base + first,
                                .vertex_count = count,
                                .delta_first = m->morph_delta_count};
        if (!t->name)
            return out_of_memory(b);
        for (uint32_t v = first; v < first + count; v++) {
            const uint32_t d = m->morph_delta_count++;
            if (!morph_delta(b, am->mVertices, mesh->mVertices, v, mesh_name, a,
                             m->morph_positions[d]) ||
                (m->morph_normals && !morph_delta(b, am->mNormals, mesh->mNormals, v, mesh_name, a,
                                                  m->morph_normals[d])) ||
                (m->morph_tangents && !morph_delta(b, am->mTangents, mesh->mTangents, v, mesh_name,
                                                   a, m->morph_tangents[d])))
                return false;
        }
    }
    return true;
}

/* The mesh's positions, normals, tangents and UVs into the model's streams from vertex `base`. */
static bool append_vertices(builder *b, const struct aiMesh *mesh, uint32_t base)
{
    vks_model *m = b->model;
    const char *mesh_name = ai_name(&mesh->mName);
    for (uint32_t v = 0; v < mesh->mNumVertices; v++) {
        const float *p = &mesh->mVertices[v].x;
        if (!finite3(p))
            return vks_fail(b->err, "%s: mesh '%s' vertex %u has a non-finite position", b->name,
                            mesh_name, v);
        if (fabsf(p[0]) > VKS_MAX_COORDINATE || fabsf(p[1]) > VKS_MAX_COORDINATE ||
            fabsf(p[2]) > VKS_MAX_COORDINATE)
            return vks_fail(b->err,
                            "%s: mesh '%s' vertex %u is at (%g, %g, %g), beyond the %g units a "
                            "model may reach: the file is damaged",
                            b->name, mesh_name, v, p[0], p[1], p[2], VKS_MAX_COORDINATE);
        memcpy(m->positions[base + v], p, sizeof(float[3]));
        if (mesh->mNormals && finite3(&mesh->mNormals[v].x))
            memcpy(m->normals[base + v], &mesh->mNormals[v].x, sizeof(float[3]));
        else
            memset(m->normals[base + v], 0, sizeof(float[3]));
        if (m->tangents &&
            !convert_tangent(b, mesh, v, m->normals[base + v], m->tangents[base + v]))
            return false;
        if (mesh->mTextureCoords[0]) {
            if (!isfinite(mesh->mTextureCoords[0][v].x) || !isfinite(mesh->mTextureCoords[0][v].y))
                return vks_fail(b->err,
                                "%s: mesh '%s' vertex %u has a non-finite texture coordinate",
                                b->name, mesh_name, v);
            m->uvs[base + v][0] = mesh->mTextureCoords[0][v].x;
            m->uvs[base + v][1] = mesh->mTextureCoords[0][v].y;
        } else {
            m->uvs[base + v][0] = m->uvs[base + v][1] = 0.0f;
        }
    }
    return true;
}

/* The mesh's triangles into the model's indices, relative to the mesh's base vertex. */
static bool append_indices(builder *b, const struct aiMesh *mesh)
{
    vks_model *m = b->model;
    const uint32_t nv = mesh->mNumVertices;
    for (uint32_t f = 0; f < mesh->mNumFaces; f++) {
        const struct aiFace *face = &mesh->mFaces[f];
        if (face->mNumIndices != 3)
            continue; /* SortByPType removed points and lines; nothing else is left */
        for (int i = 0; i < 3; i++) {
            if (face->mIndices[i] >= nv)
                return vks_fail(b->err, "%s: mesh '%s' face %u indexes vertex %u of %u", b->name,
                                ai_name(&mesh->mName), f, face->mIndices[i], nv);
            m->indices[m->index_count++] = face->mIndices[i];
        }
    }
    return true;
}

/* A bone's offset matrix as its joint's inverse bind: the first mesh's; another mesh's that
 * differs is warned about. */
static bool bind_offset(builder *b, const struct aiBone *bone, int32_t j, const char *mesh_name)
{
    const char *bone_name = ai_name(&bone->mName);
    if (!check_matrix(b, &bone->mOffsetMatrix, "the offset matrix", bone_name))
        return false;
    vks_affine offset;
    affine_from_ai(&bone->mOffsetMatrix, &offset);
    vks_affine *ib = &b->model->skeleton.inverse_bind[j];
    if (!b->joint_bound[j]) {
        *ib = offset;
        b->joint_bound[j] = 1;
    } else {
        float diff = 0.0f;
        for (int r = 0; r < 3; r++)
            for (int c = 0; c < 4; c++)
                diff = fmaxf(diff, fabsf(ib->row[r][c] - offset.row[r][c]));
        if (diff > 1e-4f)
            warn(b, "bone '%s' has another offset matrix in mesh '%s'; the first is kept",
                 bone_name, mesh_name);
    }
    return true;
}

/* The mesh's bones: their inverse binds, and their weights gathered per vertex in
 * `influences`. */
static bool gather_influences(builder *b, const struct aiMesh *mesh, vks_influence_acc *influences)
{
    const char *mesh_name = ai_name(&mesh->mName);
    const uint32_t nv = mesh->mNumVertices;
    memset(influences, 0, sizeof *influences * nv);
    for (uint32_t bi = 0; bi < mesh->mNumBones; bi++) {
        const struct aiBone *bone = mesh->mBones[bi];
        const char *bone_name = ai_name(&bone->mName);
        int32_t j = joint_of_bone(b, bone_name);
        assert(j >= 0); /* build_skeleton made every bone a joint */
        if (!bind_offset(b, bone, j, mesh_name))
            return false;
        for (uint32_t w = 0; w < bone->mNumWeights; w++) {
            uint32_t v = bone->mWeights[w].mVertexId;
            float weight = bone->mWeights[w].mWeight;
            if (v >= nv)
                return vks_fail(b->err,
                                "%s: bone '%s' weights vertex %u of mesh '%s' with %u vertices",
                                b->name, bone_name, v, mesh_name, nv);
            if (!isfinite(weight))
                return vks_fail(b->err,
                                "%s: bone '%s' has a non-finite weight on vertex %u of mesh '%s'",
                                b->name, bone_name, v, mesh_name);
            vks_influence_add(&influences[v], (uint16_t)j, weight);
        }
    }
    return true;
}

/* Each vertex's influences ranked, the 8 largest kept and renormalised, into the model's streams
 * from `base`, counted in the statistics. A vertex without any follows the mesh's node: *attach,
 * its joint (attach_joint_of), -1 until one needs it. */
static bool write_influences(builder *b, uint32_t node, const struct aiMesh *mesh, uint32_t base,
                             vks_influence_acc *influences, int32_t *attach)
{
    vks_model *m = b->model;
    vks_influence_stats *st = &m->influences;
    for (uint32_t v = 0; v < mesh->mNumVertices; v++) {
        vks_influence_acc *acc = &influences[v];
        uint16_t joints[VKS_WIDE_INFLUENCES];
        float weights[VKS_WIDE_INFLUENCES];
        uint32_t kept = vks_influence_finish(acc, joints, weights);
        st->dropped += acc->dropped;
        if (kept == 0) {
            if (*attach < 0 && (*attach = attach_joint_of(b, node)) < 0)
                return false;
            joints[0] = (uint16_t)*attach;
            weights[0] = 1.0f;
            if (mesh->mNumBones)
                st->histogram[0]++;
        } else {
            st->histogram[kept]++;
            if (acc->count > st->max_influences)
                st->max_influences = acc->count;
            if (acc->count > VKS_WIDE_INFLUENCES)
                st->truncated++;
            if (fabsf(acc->sum - 1.0f) > WEIGHT_SUM_TOLERANCE)
                st->renormalised++;
        }
        memcpy(m->joints[base + v], joints, sizeof(uint16_t[VKS_MAX_INFLUENCES]));
        memcpy(m->weights[base + v], weights, sizeof(float[VKS_MAX_INFLUENCES]));
        memcpy(m->joints_extra[base + v], joints + VKS_MAX_INFLUENCES,
               sizeof(uint16_t[VKS_MAX_INFLUENCES]));
        memcpy(m->weights_extra[base + v], weights + VKS_MAX_INFLUENCES,
               sizeof(float[VKS_MAX_INFLUENCES]));
    }
    return true;
}

/* One (node, mesh) reference as the model's next mesh: its vertices, indices, influences and
 * morph targets appended to the model's. */
static bool append_mesh(builder *b, uint32_t node, const struct aiMesh *mesh,
                        vks_influence_acc *influences)
{
    vks_model *m = b->model;
    const char *mesh_name = ai_name(&mesh->mName);
    uint32_t base = m->vertex_count, nv = mesh->mNumVertices;
    if (!append_vertices(b, mesh, base))
        return false;
    uint32_t first_index = m->index_count;
    if (!append_indices(b, mesh))
        return false;
    /* Influences: rank per vertex, keep the 8 largest, renormalise. */
    int32_t attach = -1;
    if (!gather_influences(b, mesh, influences) ||
        !write_influences(b, node, mesh, base, influences, &attach))
        return false;
    if (!append_targets(b, mesh, base))
        return false;
    vks_mesh *out = &m->meshes[m->mesh_count++];
    *out = (vks_mesh){
        .name = dup_string(mesh_name[0] ? mesh_name : ai_name(&b->nodes[node]->mName)),
        .base_vertex = base,
        .vertex_count = nv,
        .first_index = first_index,
        .index_count = m->index_count - first_index,
        .material = b->material_remap[mesh->mMaterialIndex],
        .node_joint = (uint32_t)(attach >= 0 ? attach : b->node_joint[node]),
        .skinned = mesh->mNumBones > 0,
        .source_count = 1,
    };
    m->vertex_count += nv;
    if (!out->name)
        return out_of_memory(b);
    return true;
}

/* What the nodes' mesh references add up to, for the streams' sizes. */
typedef struct mesh_counts {
    uint64_t refs, vertices, indices, targets, deltas; /* deltas: vertices the targets move */
    uint32_t largest;                                  /* a mesh's most vertices */
    bool tangents, target_normals, target_tangents;
} mesh_counts;

static mesh_counts count_meshes(const builder *b)
{
    const struct aiScene *s = b->scene;
    mesh_counts c = {0};
    for (uint32_t n = 0; n < b->node_count; n++) {
        const struct aiNode *node = b->nodes[n];
        for (uint32_t k = 0; k < node->mNumMeshes; k++) { /* references checked in collect_nodes */
            const struct aiMesh *mesh = s->mMeshes[node->mMeshes[k]];
            c.refs++;
            c.vertices += mesh->mNumVertices;
            c.indices += 3ull * mesh->mNumFaces;
            if (mesh->mNumVertices > c.largest)
                c.largest = mesh->mNumVertices;
            c.tangents = c.tangents || mesh->mTangents;
            for (uint32_t a = 0; a < mesh->mNumAnimMeshes; a++) {
                const struct aiAnimMesh *am = mesh->mAnimMeshes[a];
                uint32_t first, count;
                target_range(mesh, am, &first, &count);
                c.targets++;
                c.deltas += count;
                c.target_normals = c.target_normals || (am->mNormals && mesh->mNormals);
                c.target_tangents = c.target_tangents || (am->mTangents && mesh->mTangents);
            }
        }
    }
    return c;
}

/* The counts within the model's limits, and some triangles. */
static bool check_counts(builder *b, const mesh_counts *c)
{
    if (c->targets > VKS_MAX_TARGETS)
        return vks_fail(b->err, "%s: has %llu morph targets, more than the limit of %u", b->name,
                        (unsigned long long)c->targets, VKS_MAX_TARGETS);
    if (c->refs == 0)
        return vks_fail(b->err, "%s: no node of the scene shows a mesh", b->name);
    if (c->vertices > VKS_MAX_VERTICES)
        return vks_fail(b->err, "%s: has %llu vertices, more than the limit of %u", b->name,
                        (unsigned long long)c->vertices, VKS_MAX_VERTICES);
    if (c->indices > 4ull * VKS_MAX_VERTICES)
        return vks_fail(b->err, "%s: has %llu indices, more than the limit of %u", b->name,
                        (unsigned long long)c->indices, 4u * VKS_MAX_VERTICES);

    if (c->vertices == 0 || c->indices == 0)
        return vks_fail(b->err, "%s: has no triangles", b->name);
    return true;
}

/* The model's meshes and streams, sized by the counts, and *slots: room for the largest mesh's
 * influences. False when out of memory (*slots freed). */
static bool alloc_streams(builder *b, const mesh_counts *c, vks_influence_acc **slots)
{
    vks_model *m = b->model;
    const uint64_t vertices = c->vertices, indices = c->indices, targets = c->targets;
    m->meshes = vks_calloc(c->refs, sizeof *m->meshes);
    m->positions = vks_malloc(sizeof *m->positions * vertices);
    m->normals = vks_malloc(sizeof *m->normals * vertices);
    m->tangents = c->tangents ? vks_malloc(sizeof *m->tangents * vertices) : NULL;
    m->uvs = vks_malloc(sizeof *m->uvs * vertices);
    m->joints = vks_malloc(sizeof *m->joints * vertices);
    m->weights = vks_malloc(sizeof *m->weights * vertices);
    /* Influences 5-8: kept only if some vertex has more than 4 (see the end of build_meshes). */
    m->joints_extra = vks_malloc(sizeof *m->joints_extra * vertices);
    m->weights_extra = vks_malloc(sizeof *m->weights_extra * vertices);
    m->indices = vks_malloc(sizeof *m->indices * indices);
    *slots = vks_malloc(sizeof **slots * c->largest);
    const size_t d = c->deltas ? (size_t)c->deltas : 1;
    m->targets = targets ? vks_calloc(targets, sizeof *m->targets) : NULL;
    m->morph_positions = targets ? vks_malloc(sizeof *m->morph_positions * d) : NULL;
    m->morph_normals = c->target_normals ? vks_malloc(sizeof *m->morph_normals * d) : NULL;
    m->morph_tangents = c->target_tangents ? vks_malloc(sizeof *m->morph_tangents * d) : NULL;
    if (!m->meshes || !m->positions || !m->normals || (c->tangents && !m->tangents) || !m->uvs ||
        !m->joints || !m->weights || !m->joints_extra || !m->weights_extra || !m->indices ||
        !*slots || (targets && (!m->targets || !m->morph_positions)) ||
        (c->target_normals && !m->morph_normals) || (c->target_tangents && !m->morph_tangents)) {
        vks_free(*slots);
        return false;
    }
    b->node_target_first = vks_calloc(b->node_count + 1, sizeof *b->node_target_first);
    b->node_target_count = vks_calloc(b->node_count + 1, sizeof *b->node_target_count);
    if (!b->node_target_first || !b->node_target_count) {
        vks_free(*slots);
        return false;
    }
    return true;
}

/* One engine mesh per (node, mesh) reference, in node order: a mesh instanced by two nodes is two
 * meshes, each following its own node. */
static bool build_meshes(builder *b)
{
    const struct aiScene *s = b->scene;
    vks_model *m = b->model;
    const mesh_counts counts = count_meshes(b);
    if (!check_counts(b, &counts))
        return false;
    vks_influence_acc *slots;
    if (!alloc_streams(b, &counts, &slots))
        return out_of_memory(b);
    for (uint32_t n = 0; n < b->node_count; n++) {
        const struct aiNode *node = b->nodes[n];
        b->node_target_first[n] = m->target_count;
        for (uint32_t k = 0; k < node->mNumMeshes; k++)
            if (!append_mesh(b, n, s->mMeshes[node->mMeshes[k]], slots)) {
                vks_free(slots);
                return false;
            }
        b->node_target_count[n] = m->target_count - b->node_target_first[n];
    }
    vks_free(slots);
    if (m->index_count == 0)
        return vks_fail(b->err, "%s: has no triangles", b->name);
    bool wide = false;
    for (uint32_t k = VKS_MAX_INFLUENCES + 1; k <= VKS_WIDE_INFLUENCES; k++)
        wide = wide || m->influences.histogram[k];
    if (!wide) { /* a 4-influence model keeps today's streams alone */
        vks_free(m->joints_extra);
        vks_free(m->weights_extra);
        m->joints_extra = NULL;
        m->weights_extra = NULL;
    }
    return true;
}

/* ---- materials --------------------------------------------------------------------------- */

static int32_t load_texture(builder *b, const char *path, const char *material)
{
    vks_model *m = b->model;
    const struct aiScene *s = b->scene;
    char source[1100];
    const struct aiTexture *embedded = NULL;
    if (path[0] == '*') {
        char *end;
        unsigned long i = strtoul(path + 1, &end, 10);
        if (*end == '\0' && i < s->mNumTextures)
            embedded = s->mTextures[i];
    } else {
        /* Some importers name embedded textures by their file name. */
        const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
        for (uint32_t i = 0; i < s->mNumTextures && !embedded; i++) {
            const char *f = ai_name(&s->mTextures[i]->mFilename);
            const char *fb = strrchr(f, '/') ? strrchr(f, '/') + 1 : f;
            if (f[0] && strcmp(fb, base) == 0)
                embedded = s->mTextures[i];
        }
    }
    if (embedded)
        snprintf(source, sizeof source, "embedded %s", path);
    else if (path[0] == '/' || !b->dir)
        snprintf(source, sizeof source, "%s", path);
    else
        snprintf(source, sizeof source, "%s/%s", b->dir, path);

    for (uint32_t t = 0; t < m->texture_count; t++)
        if (strcmp(m->textures[t].source, source) == 0)
            return (int32_t)t;

    vks_texture tex = {0};
    char why[256] = "";
    bool ok;
    if (embedded && embedded->mHeight == 0) {
        ok = vks_texture_decode(embedded->pcData, embedded->mWidth, &tex, why, sizeof why);
    } else if (embedded) {
        /* Uncompressed aiTexel rows are BGRA. */
        uint64_t count = (uint64_t)embedded->mWidth * embedded->mHeight;
        ok = count && count <= (1u << 28) && (tex.rgba = vks_malloc(count * 4));
        if (ok) {
            tex.width = embedded->mWidth;
            tex.height = embedded->mHeight;
            for (uint64_t i = 0; i < count; i++) {
                const struct aiTexel *t = &embedded->pcData[i];
                uint8_t *o = tex.rgba + 4 * i;
                o[0] = t->r, o[1] = t->g, o[2] = t->b, o[3] = t->a;
            }
        } else {
            snprintf(why, sizeof why, "bad size %ux%u", embedded->mWidth, embedded->mHeight);
        }
    } else if (!b->dir && path[0] != '/') {
        ok = false;
        snprintf(why, sizeof why, "a model read from memory has no folder for external files");
    } else {
        ok = vks_texture_load(source, &tex, why, sizeof why);
    }
    if (!ok) {
        warn(b, "material '%s': texture '%s' not loaded (%s); using the base color alone", material,
             source, why);
        return -1;
    }
    vks_texture *grown = vks_realloc(m->textures, sizeof *grown * (m->texture_count + 1));
    if (!grown || !(tex.source = dup_string(source))) {
        if (grown)
            m->textures = grown;
        vks_free(tex.rgba);
        out_of_memory(b);
        return -2;
    }
    m->textures = grown;
    m->textures[m->texture_count] = tex;
    return (int32_t)m->texture_count++;
}

/* One material: name, base color factor (base color, else diffuse), base-color texture. */
static bool convert_material(builder *b, const struct aiMaterial *mat, uint32_t index,
                             vks_material *out)
{
    struct aiString name = {0};
    char fallback[32];
    snprintf(fallback, sizeof fallback, "material %u", index);
    aiGetMaterialString(mat, AI_MATKEY_NAME, &name);
    if (!(out->name = dup_string(name.length ? name.data : fallback)))
        return out_of_memory(b);

    struct aiColor4D c;
    float rgba[4] = {1, 1, 1, 1};
    if (aiGetMaterialColor(mat, AI_MATKEY_BASE_COLOR, &c) == aiReturn_SUCCESS ||
        aiGetMaterialColor(mat, AI_MATKEY_COLOR_DIFFUSE, &c) == aiReturn_SUCCESS)
        memcpy(rgba, (float[4]){c.r, c.g, c.b, c.a}, sizeof rgba);
    for (int k = 0; k < 4; k++)
        out->base_color[k] = isfinite(rgba[k]) ? fminf(fmaxf(rgba[k], 0.0f), 1.0f) : 1.0f;

    out->texture = -1;
    struct aiString path = {0};
    if (aiGetMaterialTexture(mat, aiTextureType_BASE_COLOR, 0, &path, NULL, NULL, NULL, NULL, NULL,
                             NULL) == aiReturn_SUCCESS ||
        aiGetMaterialTexture(mat, aiTextureType_DIFFUSE, 0, &path, NULL, NULL, NULL, NULL, NULL,
                             NULL) == aiReturn_SUCCESS) {
        if (path.length && (out->texture = load_texture(b, path.data, out->name)) == -2)
            return false;
    }
    return true;
}

/* Keeps the materials that meshes shown by nodes use (assimp adds a default one to some formats),
 * in file order, and records in material_remap where each went. */
static bool build_materials(builder *b)
{
    const struct aiScene *s = b->scene;
    vks_model *m = b->model;
    /* material_remap doubles as the "used" mark until the materials are numbered. */
    b->material_remap = vks_calloc(s->mNumMaterials + 1, sizeof *b->material_remap);
    m->materials = vks_calloc(s->mNumMaterials + 1, sizeof *m->materials);
    if (!b->material_remap || !m->materials)
        return out_of_memory(b);
    for (uint32_t n = 0; n < b->node_count; n++)
        for (uint32_t k = 0; k < b->nodes[n]->mNumMeshes; k++)
            b->material_remap[s->mMeshes[b->nodes[n]->mMeshes[k]]->mMaterialIndex] = 1;
    for (uint32_t i = 0; i < s->mNumMaterials; i++) {
        if (!b->material_remap[i])
            continue;
        b->material_remap[i] = m->material_count;
        if (!convert_material(b, s->mMaterials[i], i, &m->materials[m->material_count++]))
            return false;
    }
    if (m->material_count == 0) { /* a file without materials: give its meshes a neutral one */
        b->material_remap[0] = 0;
        m->material_count = 1;
        m->materials[0] = (vks_material){
            .name = dup_string("default"), .base_color = {1, 1, 1, 1}, .texture = -1};
        if (!m->materials[0].name)
            return out_of_memory(b);
    }
    return true;
}

/* ---- clips ------------------------------------------------------------------------------- */

/* Key order of one key list. assimp's Ogre reader (and files that are simply wrong) can return
 * keys whose times go back. When the times are distinct, sorting them is the only reading that
 * makes sense, so the clip is repaired; when a time repeats, which of the equal keys comes first
 * (a step) cannot be known, and the clip is dropped. Either way the other clips still play. */
typedef enum key_order { KEYS_ORDERED, KEYS_SORTABLE, KEYS_AMBIGUOUS } key_order;

static int compare_double(const void *pa, const void *pb)
{
    double a = *(const double *)pa, b = *(const double *)pb;
    return (a > b) - (a < b);
}

/* Whether n times (finite, checked before) are in order; if not, whether they are distinct. */
static key_order order_of(builder *b, const double *times, uint32_t n, bool *failed)
{
    bool ordered = true;
    for (uint32_t k = 1; k < n && ordered; k++)
        ordered = times[k] >= times[k - 1];
    if (ordered)
        return KEYS_ORDERED;
    double *sorted = vks_malloc(sizeof *sorted * n);
    if (!sorted) {
        *failed = !out_of_memory(b);
        return KEYS_AMBIGUOUS;
    }
    memcpy(sorted, times, sizeof *sorted * n);
    qsort(sorted, n, sizeof *sorted, compare_double);
    key_order order = KEYS_SORTABLE;
    for (uint32_t k = 1; k < n; k++)
        if (sorted[k] == sorted[k - 1])
            order = KEYS_AMBIGUOUS;
    vks_free(sorted);
    return order;
}

/* One key: finite time and values. */
static bool check_key(builder *b, const char *clip, const char *node, const char *kind, uint32_t k,
                      double t, const float *v, int components)
{
    bool finite = isfinite(t);
    for (int c = 0; c < components; c++)
        finite = finite && isfinite(v[c]);
    if (!finite)
        return vks_fail(b->err, "%s: clip '%s' has a non-finite %s key (#%u) on '%s'", b->name,
                        clip, kind, k, node);
    return true;
}

/* Checks a channel's keys; a data error fails the import. Sets *order to the worst key order of
 * its three lists and *what to the kind of key that has it. */
static bool check_channel(builder *b, const char *clip, const struct aiNodeAnim *ch,
                          key_order *order, const char **what)
{
    const char *node = ai_name(&ch->mNodeName);
    uint32_t most = ch->mNumPositionKeys;
    most = ch->mNumRotationKeys > most ? ch->mNumRotationKeys : most;
    most = ch->mNumScalingKeys > most ? ch->mNumScalingKeys : most;
    if (most > VKS_MAX_KEYS)
        return vks_fail(b->err,
                        "%s: clip '%s' has %u keys in a channel of '%s', more than the limit of %u",
                        b->name, clip, most, node, VKS_MAX_KEYS);
    double *times = vks_malloc(sizeof *times * (most + 1));
    if (!times)
        return out_of_memory(b);
    bool failed = false;
    *order = KEYS_ORDERED;
    for (uint32_t k = 0; k < ch->mNumPositionKeys && !failed; k++) {
        const struct aiVectorKey *key = &ch->mPositionKeys[k];
        times[k] = key->mTime;
        failed = !check_key(b, clip, node, "translation", k, key->mTime, &key->mValue.x, 3);
    }
    key_order o = failed ? KEYS_ORDERED : order_of(b, times, ch->mNumPositionKeys, &failed);
    if (o > *order)
        *order = o, *what = "translation";
    for (uint32_t k = 0; k < ch->mNumRotationKeys && !failed; k++) {
        const struct aiQuatKey *key = &ch->mRotationKeys[k];
        times[k] = key->mTime;
        failed = !check_key(b, clip, node, "rotation", k, key->mTime, &key->mValue.w, 4);
        const struct aiQuaternion *q = &key->mValue;
        if (!failed && !(q->w * q->w + q->x * q->x + q->y * q->y + q->z * q->z > 1e-12f))
            failed = !vks_fail(b->err, "%s: clip '%s' has a zero rotation key (#%u) on '%s'",
                               b->name, clip, k, node);
    }
    o = failed ? KEYS_ORDERED : order_of(b, times, ch->mNumRotationKeys, &failed);
    if (o > *order)
        *order = o, *what = "rotation";
    for (uint32_t k = 0; k < ch->mNumScalingKeys && !failed; k++) {
        const struct aiVectorKey *key = &ch->mScalingKeys[k];
        times[k] = key->mTime;
        failed = !check_key(b, clip, node, "scale", k, key->mTime, &key->mValue.x, 3);
    }
    o = failed ? KEYS_ORDERED : order_of(b, times, ch->mNumScalingKeys, &failed);
    if (o > *order)
        *order = o, *what = "scale";
    vks_free(times);
    return !failed;
}

/* A key as it is sorted: time, then up to 4 values. */
typedef struct sort_key {
    float time;
    float value[4];
} sort_key;

static int compare_sort_key(const void *pa, const void *pb)
{
    const sort_key *a = pa, *b = pb;
    return (a->time > b->time) - (a->time < b->time);
}

/* Sorts n keys appended at times/values (components floats each) by time. Only called on distinct
 * times, so any sort is the stable one. */
static bool sort_keys(builder *b, float *times, float *values, uint32_t n, int components)
{
    if (n < 2)
        return true;
    sort_key *keys = vks_malloc(sizeof *keys * n);
    if (!keys)
        return out_of_memory(b);
    for (uint32_t k = 0; k < n; k++) {
        keys[k].time = times[k];
        memcpy(keys[k].value, values + (size_t)k * components, sizeof(float) * components);
    }
    qsort(keys, n, sizeof *keys, compare_sort_key);
    for (uint32_t k = 0; k < n; k++) {
        times[k] = keys[k].time;
        memcpy(values + (size_t)k * components, keys[k].value, sizeof(float) * components);
    }
    vks_free(keys);
    return true;
}

/* Appends n translation or scale keys with times in seconds; returns the index of the first. */
static uint32_t append_vector_keys(const struct aiVectorKey *keys, uint32_t n, double tps,
                                   float *times, float (*values)[3], uint32_t *count,
                                   double *last_key)
{
    uint32_t first = *count;
    for (uint32_t k = 0; k < n; k++) {
        times[*count] = (float)(keys[k].mTime / tps);
        memcpy(values[(*count)++], &keys[k].mValue.x, sizeof(float[3]));
        *last_key = fmax(*last_key, keys[k].mTime / tps);
    }
    return first;
}

/* Clip `index`'s weights channels from the glTF reader (b->weights) into weight tracks: each
 * on a node whose meshes have, each, as many targets as the channel has weights a key (else it
 * is left out, with a warning). *taken: the channels taken. False on bad data (a non-finite time
 * or value) or out of memory. */
static bool build_weights(builder *b, uint32_t index, const char *clip_name, vks_clip *clip,
                          uint32_t *taken)
{
    uint64_t keys = 0, values = 0;
    uint32_t tracks = 0;
    for (uint32_t w = 0; w < b->weights_count; w++) {
        const vks_gltf_weights *ch = &b->weights[w];
        if (ch->animation != index)
            continue;
        tracks++;
        keys += ch->key_count;
        values += (uint64_t)ch->key_count * ch->target_count *
                  (ch->interp == VKS_GLTF_CUBICSPLINE ? 3 : 1);
    }
    if (!tracks)
        return true;
    if (keys > MAX_CLIP_KEYS || values > 64 * MAX_CLIP_KEYS)
        return vks_fail(b->err, "%s: clip '%s' has more weight keys than the limit of %llu",
                        b->name, clip_name, MAX_CLIP_KEYS);
    clip->weight_tracks = vks_calloc(tracks, sizeof *clip->weight_tracks);
    clip->w_times = vks_malloc(sizeof *clip->w_times * (keys + 1));
    clip->w_values = vks_malloc(sizeof *clip->w_values * (values + 1));
    if (!clip->weight_tracks || !clip->w_times || !clip->w_values)
        return out_of_memory(b);
    uint32_t key_at = 0, value_at = 0;
    for (uint32_t w = 0; w < b->weights_count; w++) {
        const vks_gltf_weights *ch = &b->weights[w];
        if (ch->animation != index)
            continue;
        const int32_t n = find_node(b, ch->node);
        const uint32_t parts = n >= 0 ? b->nodes[n]->mNumMeshes : 0;
        if (n < 0 || !parts || b->node_target_count[n] != parts * ch->target_count) {
            warn(b,
                 "clip '%s' animates %u morph-target weights of '%s', whose meshes have %u "
                 "targets; ignored",
                 clip_name, ch->target_count, ch->node, n >= 0 ? b->node_target_count[n] : 0);
            continue;
        }
        const uint32_t per_key = ch->target_count * (ch->interp == VKS_GLTF_CUBICSPLINE ? 3 : 1);
        for (uint32_t k = 0; k < ch->key_count; k++) {
            if (!isfinite(ch->times[k]) || ch->times[k] < 0.0f)
                return vks_fail(b->err,
                                "%s: clip '%s' has a weights key on '%s' at a non-finite or "
                                "negative time",
                                b->name, clip_name, ch->node);
            for (uint32_t i = 0; i < per_key; i++)
                if (!isfinite(ch->values[(size_t)k * per_key + i]))
                    return vks_fail(b->err,
                                    "%s: clip '%s' has a non-finite weight on '%s' (key %u)",
                                    b->name, clip_name, ch->node, k);
        }
        clip->weight_tracks[clip->weight_track_count++] =
            (vks_weight_track){.target_first = b->node_target_first[n],
                               .parts = parts,
                               .weight_count = ch->target_count,
                               .interp = ch->interp == VKS_GLTF_STEP          ? VKS_INTERP_STEP
                                         : ch->interp == VKS_GLTF_CUBICSPLINE ? VKS_INTERP_CUBIC
                                                                              : VKS_INTERP_LINEAR,
                               .key_first = key_at,
                               .key_count = ch->key_count,
                               .value_first = value_at};
        memcpy(clip->w_times + key_at, ch->times, sizeof *ch->times * ch->key_count);
        memcpy(clip->w_values + value_at, ch->values, sizeof *ch->values * ch->key_count * per_key);
        key_at += ch->key_count;
        value_at += ch->key_count * per_key;
        (*taken)++;
    }
    return true;
}

/* Appends n rotation keys with times in seconds, each normalised (files need not); returns the
 * index of the first. */
static uint32_t append_rotation_keys(const struct aiQuatKey *keys, uint32_t n, double tps,
                                     float *times, float (*values)[4], uint32_t *count,
                                     double *last_key)
{
    uint32_t first = *count;
    for (uint32_t k = 0; k < n; k++) {
        const struct aiQuatKey *key = &keys[k];
        float q[4] = {key->mValue.x, key->mValue.y, key->mValue.z, key->mValue.w};
        float inv = 1.0f / sqrtf(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
        times[*count] = (float)(key->mTime / tps);
        for (int c = 0; c < 4; c++)
            values[*count][c] = q[c] * inv; /* files need not normalise */
        (*count)++;
        *last_key = fmax(*last_key, key->mTime / tps);
    }
    return first;
}

/* A clip's channels as build_clip reads them before copying their keys: each joint's channel
 * (the first that animates it), which have keys out of time order (sorted once copied), the keys
 * of each kind over all channels, and the first repaired channel, for the warning. */
typedef struct clip_scan {
    const struct aiNodeAnim **by_joint;
    uint8_t *unsorted;
    uint64_t nt, nr, ns;
    const char *repaired_node, *repaired_kind;
} clip_scan;

/* The clip's channels checked and matched to joints. A data error fails (false); keys whose order
 * cannot be known set *drop, with a warning. */
static bool scan_channels(builder *b, const struct aiAnimation *anim, const char *name,
                          clip_scan *sc, bool *drop)
{
    for (uint32_t c = 0; c < anim->mNumChannels; c++) {
        const struct aiNodeAnim *ch = anim->mChannels[c];
        const char *node = ai_name(&ch->mNodeName);
        int32_t j = joint_of_name(b, node);
        if (j < 0)
            continue; /* animates a node that moves no vertex */
        if (sc->by_joint[j]) {
            warn(b, "clip '%s' animates '%s' twice; the first channel is kept", name, node);
            continue;
        }
        key_order order = KEYS_ORDERED;
        const char *kind = NULL;
        if (!check_channel(b, name, ch, &order, &kind))
            return false;
        if (order == KEYS_AMBIGUOUS) {
            warn(b,
                 "clip '%s' is dropped: its %s keys on '%s' go back in time and repeat a time, "
                 "so their order cannot be known",
                 name, kind, node);
            *drop = true;
            return true;
        }
        if (order == KEYS_SORTABLE) {
            sc->unsorted[j] = 1;
            if (!sc->repaired_node)
                sc->repaired_node = node, sc->repaired_kind = kind;
        }
        sc->by_joint[j] = ch;
        sc->nt += ch->mNumPositionKeys;
        sc->nr += ch->mNumRotationKeys;
        sc->ns += ch->mNumScalingKeys;
    }
    return true;
}

/* The clip's key arrays, sized by the scan. */
static bool alloc_keys(builder *b, vks_clip *clip, const clip_scan *sc)
{
    clip->t_times = vks_malloc(sizeof *clip->t_times * (sc->nt + 1));
    clip->t_values = vks_malloc(sizeof *clip->t_values * (sc->nt + 1));
    clip->r_times = vks_malloc(sizeof *clip->r_times * (sc->nr + 1));
    clip->r_values = vks_malloc(sizeof *clip->r_values * (sc->nr + 1));
    clip->s_times = vks_malloc(sizeof *clip->s_times * (sc->ns + 1));
    clip->s_values = vks_malloc(sizeof *clip->s_values * (sc->ns + 1));
    if (!clip->t_times || !clip->t_values || !clip->r_times || !clip->r_values || !clip->s_times ||
        !clip->s_values)
        return out_of_memory(b);
    return true;
}

/* A joint's channel as its track: its keys appended to the clip's (times in seconds), sorted by
 * time when `unsorted`. False when out of memory. */
static bool append_track(builder *b, const struct aiNodeAnim *ch, bool unsorted, double tps,
                         vks_clip *clip, vks_track *tr, double *last_key)
{
    clip->channel_count++;
    tr->t_count = ch->mNumPositionKeys;
    tr->t_first = append_vector_keys(ch->mPositionKeys, tr->t_count, tps, clip->t_times,
                                     clip->t_values, &clip->t_key_count, last_key);
    tr->r_count = ch->mNumRotationKeys;
    tr->r_first = append_rotation_keys(ch->mRotationKeys, tr->r_count, tps, clip->r_times,
                                       clip->r_values, &clip->r_key_count, last_key);
    tr->s_count = ch->mNumScalingKeys;
    tr->s_first = append_vector_keys(ch->mScalingKeys, tr->s_count, tps, clip->s_times,
                                     clip->s_values, &clip->s_key_count, last_key);
    if (!unsorted)
        return true;
    return sort_keys(b, clip->t_times + tr->t_first, clip->t_values[tr->t_first], tr->t_count, 3) &&
           sort_keys(b, clip->r_times + tr->r_first, clip->r_values[tr->r_first], tr->r_count, 4) &&
           sort_keys(b, clip->s_times + tr->s_first, clip->s_values[tr->s_first], tr->s_count, 3);
}

/* The clip's tracks, weight tracks and duration, from its channels (sc: their scan, filled
 * here). False on a data error or out of memory; *drop as scan_channels sets it. */
static bool read_clip(builder *b, const struct aiAnimation *anim, uint32_t index, const char *name,
                      double tps, vks_clip *clip, clip_scan *sc, bool *drop)
{
    if (!scan_channels(b, anim, name, sc, drop))
        return false;
    if (*drop)
        return true;
    if (sc->nt > MAX_CLIP_KEYS || sc->nr > MAX_CLIP_KEYS || sc->ns > MAX_CLIP_KEYS)
        return vks_fail(b->err, "%s: clip '%s' has more keys of one kind than the limit of %llu",
                        b->name, name, MAX_CLIP_KEYS);
    /* Morph-target weights: a glTF file's as gltf.c read them (their interpolation kept);
     * assimp's own reading of them, and of other formats', is not taken. */
    uint32_t taken = 0;
    if (!build_weights(b, index, name, clip, &taken))
        return false;
    if (anim->mNumMeshChannels || anim->mNumMorphMeshChannels > taken)
        warn(b, "clip '%s' has mesh or morph-target channels; they are not supported and ignored",
             name);
    if (!alloc_keys(b, clip, sc))
        return false;
    double last_key = 0.0;
    for (uint32_t j = 0; j < b->model->skeleton.joint_count; j++)
        if (sc->by_joint[j] && !append_track(b, sc->by_joint[j], sc->unsorted[j], tps, clip,
                                             &clip->tracks[j], &last_key))
            return false;
    double duration = anim->mDuration / tps;
    if (duration <= 0.0)
        duration = last_key; /* some exporters leave the duration out */
    clip->duration = duration;
    return true;
}

/* Builds one clip. A data error fails the import (returns false); a clip that cannot be played
 * right is dropped instead: *dropped is set, with one warning, and true is returned. */
static bool build_clip(builder *b, const struct aiAnimation *anim, uint32_t index, vks_clip *clip,
                       bool *dropped)
{
    vks_skeleton *sk = &b->model->skeleton;
    char fallback[32];
    snprintf(fallback, sizeof fallback, "clip %u", index);
    const char *name = anim->mName.length ? anim->mName.data : fallback;
    if (!(clip->name = dup_string(name)))
        return out_of_memory(b);
    double tps = anim->mTicksPerSecond > 0.0 ? anim->mTicksPerSecond : 25.0;
    if (!isfinite(tps) || !isfinite(anim->mDuration) || anim->mDuration < 0.0)
        return vks_fail(b->err, "%s: clip '%s' has a bad duration or tick rate", b->name, name);

    clip->tracks = vks_calloc(sk->joint_count, sizeof *clip->tracks);
    clip_scan sc = {.by_joint = vks_calloc(sk->joint_count, sizeof *sc.by_joint),
                    .unsorted = vks_calloc(sk->joint_count, 1)};
    if (!clip->tracks || !sc.by_joint || !sc.unsorted) {
        vks_free(sc.by_joint);
        vks_free(sc.unsorted);
        return out_of_memory(b);
    }
    bool drop = false;
    const bool ok = read_clip(b, anim, index, name, tps, clip, &sc, &drop);
    vks_free(sc.by_joint);
    vks_free(sc.unsorted);
    if (!ok)
        return false;
    if (drop) {
        *dropped = true;
        return true;
    }
    if (sc.repaired_node)
        warn(b,
             "clip '%s' had %s keys out of time order on '%s' (and maybe more); their times "
             "are distinct, so they were sorted",
             name, sc.repaired_kind, sc.repaired_node);
    return true;
}

static bool build_clips(builder *b)
{
    const struct aiScene *s = b->scene;
    vks_model *m = b->model;
    if (!s->mNumAnimations)
        return true;
    m->clips = vks_calloc(s->mNumAnimations, sizeof *m->clips);
    if (!m->clips)
        return out_of_memory(b);
    for (uint32_t a = 0; a < s->mNumAnimations; a++) {
        bool dropped = false;
        vks_clip *clip = &m->clips[m->clip_count++];
        if (!build_clip(b, s->mAnimations[a], a, clip, &dropped))
            return false;
        if (dropped) {
            vks_clip_free(clip);
            m->clip_count--;
        }
    }
    return true;
}

/* ---- entry ------------------------------------------------------------------------------- */

static bool ends_with_gltf(const char *path)
{
    size_t n = strlen(path);
    const char *ext = ".gltf";
    if (n < 5)
        return false;
    for (size_t i = 0; i < 5; i++) {
        char c = path[n - 5 + i];
        if ((c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c) != ext[i])
            return false;
    }
    return true;
}

/* Checks that `path` is a non-empty regular file, not a truncated GLB; *gltf says whether it is
 * glTF (a .gltf name, or its first bytes: vks_gltf_detect). */
static bool check_file(const char *path, bool *gltf, vks_error *err)
{
    struct stat st;
    if (stat(path, &st) != 0)
        return vks_fail(err, "cannot open '%s': %s", path, strerror(errno));
    if (S_ISDIR(st.st_mode))
        return vks_fail(err, "'%s' is a directory, not a model file", path);
    if (!S_ISREG(st.st_mode))
        return vks_fail(err, "'%s' is not a regular file", path);
    if (st.st_size == 0)
        return vks_fail(err, "'%s' is empty", path);
    FILE *f = fopen(path, "rb");
    if (!f)
        return vks_fail(err, "cannot open '%s': %s", path, strerror(errno));
    /* A binary glTF states its length in its header: catch truncation before assimp, whose
     * message for it ("no suitable reader") misleads. */
    unsigned char h[64];
    size_t got = fread(h, 1, sizeof h, f);
    fclose(f);
    *gltf = ends_with_gltf(path) || vks_gltf_detect(h, got);
    if (got >= 4 && memcmp(h, "glTF", 4) == 0) {
        uint32_t declared = got >= 12 ? (uint32_t)h[8] | (uint32_t)h[9] << 8 |
                                            (uint32_t)h[10] << 16 | (uint32_t)h[11] << 24
                                      : 0;
        if (got < 12 || declared > (uint64_t)st.st_size)
            return vks_fail(err,
                            "'%s' is a truncated glTF binary: its header says %u bytes, the "
                            "file has %lld",
                            path, declared, (long long)st.st_size);
    }
    return true;
}

static void builder_free(builder *b)
{
    vks_free(b->nodes);
    vks_free(b->node_parent);
    vks_free(b->node_joint);
    vks_free(b->attach_joint);
    vks_free(b->node_is_bone);
    vks_free(b->by_name);
    vks_free(b->joint_bound);
    vks_free(b->material_remap);
    vks_free(b->orphan_names);
    vks_free(b->orphan_joints);
    vks_free(b->node_target_first);
    vks_free(b->node_target_count);
}

/* A clip whose keys go back in time (assimp's Ogre and DirectX readers pass them on in file
 * order) can have a key after the duration its reader took from the last key, which assimp's
 * validation refuses for the whole model. Widening the duration to the latest key lets the clip
 * reach build_clip, which sorts or drops it on its own. The scene is assimp's, between its read and
 * its post-processing: the one place we change it. */
static void widen_durations(const struct aiScene *scene)
{
    for (uint32_t a = 0; scene->mAnimations && a < scene->mNumAnimations; a++) {
        struct aiAnimation *anim = scene->mAnimations[a];
        double latest = anim ? anim->mDuration : 0.0;
        for (uint32_t c = 0; anim && anim->mChannels && c < anim->mNumChannels; c++) {
            const struct aiNodeAnim *ch = anim->mChannels[c];
            for (uint32_t k = 0; ch && ch->mPositionKeys && k < ch->mNumPositionKeys; k++)
                latest = fmax(latest, ch->mPositionKeys[k].mTime);
            for (uint32_t k = 0; ch && ch->mRotationKeys && k < ch->mNumRotationKeys; k++)
                latest = fmax(latest, ch->mRotationKeys[k].mTime);
            for (uint32_t k = 0; ch && ch->mScalingKeys && k < ch->mNumScalingKeys; k++)
                latest = fmax(latest, ch->mScalingKeys[k].mTime);
        }
        if (anim && anim->mDuration > 0.0 && isfinite(latest))
            anim->mDuration = latest;
    }
}

static const struct aiScene *read_with(const vks_import_desc *desc, unsigned flags)
{
    struct aiPropertyStore *props = aiCreatePropertyStore();
    aiSetImportPropertyInteger(props, AI_CONFIG_PP_SBP_REMOVE,
                               aiPrimitiveType_POINT | aiPrimitiveType_LINE);
    const struct aiScene *scene =
        desc->path ? aiImportFileExWithProperties(desc->path, flags, NULL, props)
                   : aiImportFileFromMemoryWithProperties(desc->data, (unsigned)desc->size, flags,
                                                          desc->hint, props);
    aiReleasePropertyStore(props);
    return scene;
}

/* assimp's read with our post-processing, validation first; NULL with the reason in `why`.
 * When the validation refuses keys past a clip's duration (keys out of time order), the file is
 * read again without post-processing, the durations are widened, and the rest of the
 * post-processing runs without the validation: assimp 5.2's aiApplyPostProcessing frees the scene
 * twice when a step fails, so validation cannot run there. The importer's own checks (indices,
 * weights, references, pointers it follows) then stand in for it. */
/* assimp's message with the name it gives a file read from memory ("$$$___magic___$$$." and the
 * hint) replaced by the caller's: a message names the caller's data, not assimp's internals. */
static void name_memory_file(const char *error, const char *name, char *why, size_t why_size)
{
    static const char magic[] = "$$$___magic___$$$";
    const char *at = strstr(error, magic);
    if (!at) {
        snprintf(why, why_size, "%s", error);
        return;
    }
    const char *end = at + sizeof magic - 1;
    if (*end == '.') /* the hint after the dot, up to a quote, space or the end */
        for (end++; *end && *end != '"' && *end != '\'' && *end != ' '; end++)
            ;
    snprintf(why, why_size, "%.*s%s%s", (int)(at - error), error, name, end);
}

static const struct aiScene *read_scene(const vks_import_desc *desc, const char *name, char *why,
                                        size_t why_size)
{
    const struct aiScene *scene = read_with(desc, import_flags);
    if (scene)
        return scene;
    const char *error = aiGetErrorString();
    name_memory_file(error && error[0] ? error : "unknown error", name, why, why_size);
    if (!strstr(why, "is larger than aiAnimation::mDuration"))
        return NULL;
    if (!(scene = read_with(desc, 0)))
        return NULL;
    widen_durations(scene);
    return aiApplyPostProcessing(scene, import_flags & ~(unsigned)aiProcess_ValidateDataStructure);
}

static bool import_in_process(const vks_import_desc *desc, const char *name,
                              const vks_gltf_glb *glb, vks_model *out, vks_error *err)
{
    memset(out, 0, sizeof *out);
    char why[400];
    const struct aiScene *scene = read_scene(desc, name, why, sizeof why);
    if (!scene)
        return vks_fail(err, "cannot import '%s': %s", name, why);
    if (!scene->mRootNode || scene->mNumMeshes == 0) {
        aiReleaseImport(scene);
        return vks_fail(err, "'%s' has no meshes", name);
    }

    char *dir = NULL;
    if (desc->path) {
        dir = dup_string(desc->path);
        char *slash = dir ? strrchr(dir, '/') : NULL;
        if (slash)
            *slash = '\0';
        else if (dir)
            strcpy(dir, ".");
    }
    builder b = {.scene = scene,
                 .name = name,
                 .dir = desc->dir ? desc->dir : dir,
                 .model = out,
                 .err = err,
                 .weights = glb ? glb->weights : NULL,
                 .weights_count = glb ? glb->weights_count : 0};
    bool ok = (out->name = dup_string(name)) ? true : out_of_memory(&b);
    ok = ok && check_scene(&b) && collect_nodes(&b) && build_skeleton(&b) && build_materials(&b) &&
         build_meshes(&b) && build_clips(&b);
    builder_free(&b);
    vks_free(dir);
    aiReleaseImport(scene);
    if (!ok) {
        vks_model_destroy(out);
        memset(out, 0, sizeof *out);
    }
    return ok;
}

/* Whether assimp survives reading the input, asked of a forked child (assimp 5.2 crashes on some
 * files; see import.h). Only the read runs there: our own code is covered by the tests and the
 * fuzzer, and a clean failure is reported again by the in-process import. Returns false with a
 * message when the child died (by a signal, or through a sanitizer's exit code); true otherwise,
 * also when fork is unavailable. */
static bool assimp_survives(const vks_import_desc *desc, const char *name, vks_error *err)
{
    fflush(NULL); /* the child must not flush our buffered output a second time */
    pid_t pid = fork();
    if (pid < 0)
        return true;
    if (pid == 0) {
        /* What a crash prints (a sanitizer's report) is not for the user. */
        int null = open("/dev/null", O_WRONLY);
        if (null >= 0)
            dup2(null, STDERR_FILENO);
        char why[400];
        read_scene(desc, name, why, sizeof why);
        _exit(0);
    }
    int status;
    while (waitpid(pid, &status, 0) < 0)
        if (errno != EINTR)
            return true;
    if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
        return true;
    char how[64];
    if (WIFSIGNALED(status))
        snprintf(how, sizeof how, "%s", strsignal(WTERMSIG(status)));
    else
        snprintf(how, sizeof how, "exit code %d", WIFEXITED(status) ? WEXITSTATUS(status) : -1);
    return vks_fail(err,
                    "cannot import '%s': the importer crashed on it (%s): the file is malformed or "
                    "meets an assimp bug",
                    name, how);
}

/* Reads a whole file into memory (malloc'd); false with a message on failure. */
static bool read_file(const char *path, uint8_t **data, size_t *size, vks_error *err)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return vks_fail(err, "cannot open '%s': %s", path, strerror(errno));
    struct stat st;
    if (fstat(fileno(f), &st) != 0 || st.st_size <= 0 || (uint64_t)st.st_size > SIZE_MAX / 2) {
        fclose(f);
        return vks_fail(err, "cannot read '%s': no usable size", path);
    }
    *size = (size_t)st.st_size;
    *data = vks_malloc(*size);
    bool ok = *data && fread(*data, 1, *size, f) == *size;
    fclose(f);
    if (!ok) {
        vks_free(*data);
        *data = NULL;
        return vks_fail(err, "cannot read '%s'", path);
    }
    return true;
}

bool vks_model_import(const vks_import_desc *desc, vks_model *out, vks_error *err)
{
    memset(out, 0, sizeof *out);
    const char *name = desc->path ? desc->path : desc->name ? desc->name : "(memory)";
    bool gltf = false;
    if (desc->path && !check_file(desc->path, &gltf, err))
        return false;
    if (!desc->path && (!desc->data || !desc->size))
        return vks_fail(err, "%s: no data", name);

    /* glTF is read here first and handed to assimp rewritten (gltf.h says why); every other
     * format goes to assimp as it is. */
    vks_import_desc plain = *desc;
    vks_gltf_glb glb = {0};
    char *dir = NULL;
    if (!desc->path)
        gltf = vks_gltf_detect(desc->data, desc->size);
    if (gltf) {
        uint8_t *file = NULL;
        size_t size = desc->size;
        if (desc->path) {
            if (!read_file(desc->path, &file, &size, err))
                return false;
            dir = dup_string(desc->path);
            char *slash = dir ? strrchr(dir, '/') : NULL;
            if (slash)
                *slash = '\0';
            else if (dir)
                strcpy(dir, ".");
            if (!dir) {
                vks_free(file);
                return vks_fail(err, "%s: out of memory", name);
            }
        }
        bool ok = vks_gltf_rewrite(&(vks_gltf_desc){.data = file ? file : desc->data,
                                                    .size = size,
                                                    .dir = dir ? dir : desc->dir,
                                                    .name = name},
                                   &glb, err);
        vks_free(file);
        if (!ok) {
            vks_free(dir);
            return false;
        }
        if (!glb.version1)
            plain = (vks_import_desc){.data = glb.data,
                                      .size = glb.size,
                                      .hint = "glb",
                                      .name = name,
                                      .dir = dir ? dir : desc->dir,
                                      .in_process = desc->in_process};
    }

    bool ok = true;
    if (!plain.path && plain.size > UINT_MAX) /* assimp takes an unsigned size */
        ok = vks_fail(err, "%s: %zu bytes, more than an in-memory import takes", name, plain.size);
    ok = ok && (plain.in_process || assimp_survives(&plain, name, err)) &&
         import_in_process(&plain, name, gltf ? &glb : NULL, out, err);
    for (uint32_t i = 0; ok && i < glb.warning_count; i++)
        add_warning(out, "%s", glb.warnings[i]);
    vks_gltf_glb_free(&glb);
    vks_free(dir);
    return ok;
}
