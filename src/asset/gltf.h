/* glTF-level rewriting, before assimp sees a file. assimp 5.2 misreads data the glTF 2.0 spec
 * allows (normalized-integer weights and animation outputs, KHR_mesh_quantization,
 * KHR_texture_transform, EXT_meshopt_compression, a skin without inverseBindMatrices). This unit
 * reads the file's JSON and accessors itself and writes an equivalent GLB in which every accessor
 * assimp reads is plain: floats, with joint indices as u16 and indices as u32; buffers embedded in
 * one binary chunk; the extensions it resolved removed. assimp then reads that GLB from memory.
 * Nothing from assimp is seen here (that is import.c's business). */
#ifndef VKS_GLTF_H
#define VKS_GLTF_H

#include "../core/error.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct vks_gltf_desc {
    const void *data; /* the file: a GLB, or glTF JSON text */
    size_t size;
    const char *dir;  /* folder of the file, for relative buffer URIs; NULL for an in-memory file
                         (then only GLB-stored and data: buffers can be read) */
    const char *name; /* what messages call the file */
} vks_gltf_desc;

/* How a weights channel's values run between keys (glTF's sampler interpolation). */
typedef enum vks_gltf_interp {
    VKS_GLTF_LINEAR,
    VKS_GLTF_STEP,
    VKS_GLTF_CUBICSPLINE,
} vks_gltf_interp;

/* A channel on a node's morph-target weights, read here because assimp 5.2 loses their
 * interpolation (it reads STEP keys as linear ones and mixes CUBICSPLINE's tangents into the
 * values). Keys in time order; per key, target_count values, or for CUBICSPLINE target_count
 * in-tangents, then values, then out-tangents (glTF's layout). */
typedef struct vks_gltf_weights {
    uint32_t animation; /* its animation's index in the rewritten file (assimp's clip index) */
    char *node;         /* the node's name as assimp gives it: its own, else "nodes[N]" */
    vks_gltf_interp interp;
    uint32_t key_count, target_count;
    float *times;  /* key_count */
    float *values; /* key_count x target_count (x 3 for CUBICSPLINE) */
} vks_gltf_weights;

typedef struct vks_gltf_glb {
    uint8_t *data; /* the rewritten GLB (malloc'd) */
    size_t size;
    bool version1; /* the file is glTF 1.0, which assimp reads itself: nothing rewritten (data is
                      NULL), hand assimp the file as it is */
    uint32_t warning_count; /* things tolerated, one line each (malloc'd strings) */
    char **warnings;
    uint32_t weights_count; /* the kept animations' weights channels */
    vks_gltf_weights *weights;
} vks_gltf_glb;

/* Whether `data` is a glTF file: the GLB magic, or JSON text (after optional BOM and white space,
 * an object). Cheap; says nothing of validity. */
bool vks_gltf_detect(const void *data, size_t size);

/* Rewrites a glTF file as described above. The output is deterministic: the same input gives the
 * same bytes. On failure returns false with one message naming what is wrong (the accessor, the
 * bufferView, or the required extension that is not supported), and *out is zeroed. */
bool vks_gltf_rewrite(const vks_gltf_desc *desc, vks_gltf_glb *out, vks_error *err);

void vks_gltf_glb_free(vks_gltf_glb *glb);

#endif
