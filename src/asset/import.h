/* Import through assimp into the engine-owned model (model.h). Nothing from assimp leaves here. */
#ifndef VKS_IMPORT_H
#define VKS_IMPORT_H

#include "../core/error.h"
#include "model.h"

#include <stddef.h>

typedef struct vks_import_desc {
    const char *path; /* a file to read, or NULL to import `data` */
    const void *data; /* an in-memory file (the embedded default character) */
    size_t size;
    const char *hint; /* the in-memory file's extension, e.g. "glb" */
    const char *name; /* the name messages use for in-memory files */
    const char *dir;  /* the folder external textures of an in-memory file are read from (NULL:
                         the path's folder, or none) */
    bool in_process;  /* skip the crash guard below (the fuzzer wants to see every crash) */
    bool keep_meshes; /* vks_model_load: keep the file's meshes apart (default: merged by
                         material, merge.h) */
    /* vks_model_load: the joint root motion is taken from (bake/root_motion.h); NULL: chosen */
    const char *motion_joint;
} vks_import_desc;

/* Reads a model. On failure returns false with one message in err and leaves *out zeroed.
 * Bad input (missing or unreadable file, unknown format, truncated data, no meshes, joint, vertex
 * or key counts over the limits in shaders/vks_shared.h, non-finite keys or weights) fails.
 * glTF (GLB or .gltf) is first read and rewritten by gltf.h into a plain GLB that assimp reads
 * right; its warnings join the model's.
 * Crash guard: assimp 5.2 itself crashes on some files (a glTF skin without the optional
 * inverseBindMatrices, found by tests/fuzz_import.c, before the rewrite made those plain).
 * assimp's read therefore runs first in a forked child; when the child dies, the import fails
 * with a message instead of taking the program down. Call it before starting threads, as with
 * any fork. */
bool vks_model_import(const vks_import_desc *desc, vks_model *out, vks_error *err);

#endif
