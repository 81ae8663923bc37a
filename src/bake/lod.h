/* Levels of detail, built once at load time with meshoptimizer (libmeshoptimizer-dev 0.18): the
 * whole character simplified as one surface to a chain of index buffers, each level a fixed
 * fraction of the triangles of the previous (about half), down to VKS_LOD_FLOOR_TRIANGLES; each
 * level above 0 with its own compact vertex range (copies of the level-0 vertices it uses, in
 * vertex-fetch order) and its triangles grouped by mesh (one draw per mesh, that is per material
 * once merged, merge.h), each group's order optimized for the vertex cache. Level 0 stays the
 * imported mesh, bit for bit. A level's error here is meshoptimizer's bind-pose estimate, in model
 * units; the load replaces it by the error measured over the clips' poses
 * (bake/lod_error.h). The result lives in the model (asset/model.h: levels, mesh_levels,
 * lod_source, lod_indices). */
#ifndef VKS_LOD_H
#define VKS_LOD_H

#include "../core/error.h"
#include "../asset/model.h"

/* The chain ends at the first level of at most this many triangles: a character a few dozen
 * pixels tall shows no more. */
#define VKS_LOD_FLOOR_TRIANGLES 64u

/* How a level was made (vks_level.kind). */
typedef enum vks_lod_kind {
    VKS_LOD_SOURCE = 0, /* level 0, the imported mesh */
    VKS_LOD_EDGES = 1,  /* edge collapses that keep the topology (meshopt_simplify) */
    VKS_LOD_GRID = 2,   /* vertices clustered on a grid, topology free (meshopt_simplifySloppy) */
} vks_lod_kind;

/* Builds the chain into the model; does nothing when it has one already. Fails only when out of
 * memory. */
bool vks_model_build_lods(vks_model *model, vks_error *err);

/* Keeps the levels L with keep[L] (level 0 and the last always stay), moving the rest of the
 * chain down in place. Does nothing to a model without levels. */
void vks_model_keep_levels(vks_model *model, const bool keep[VKS_MAX_LEVELS]);

#endif
