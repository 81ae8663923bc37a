/* Levels of detail, built once at load time with meshoptimizer (libmeshoptimizer-dev 0.18):
 * every mesh simplified to a chain of index buffers, each level about half the triangles of the
 * previous, down to a floor or until the simplifier cannot go further; each level's geometric
 * error measured against level 0 in model units; each level above 0 with its own compact vertex
 * range (copies of the level-0 vertices it uses, in vertex-fetch order) and its own index order
 * optimized for the vertex cache. Level 0 stays the imported mesh, bit for bit. The result lives
 * in the model (asset/model.h: levels, mesh_levels, lod_source, lod_indices). */
#ifndef VKS_LOD_H
#define VKS_LOD_H

#include "../core/error.h"
#include "import.h"
#include "model.h"

/* A level stops the chain when it has fewer triangles than this (a few dozen). */
#define VKS_LOD_FLOOR_TRIANGLES 48u

/* Builds the chains into the model; does nothing when it has them already. Fails only when out
 * of memory. */
bool vks_model_build_lods(vks_model *model, vks_error *err);

/* Imports a model (import.h) and prepares it for the renderer: its meshes merged by material
 * (merge.h; unless desc->keep_meshes), its compact streams, encoded once
 * (pack.h; the CPU then sees their decoded values), and its levels of detail. On failure *out is
 * zeroed and owns nothing. */
bool vks_model_load(const vks_import_desc *desc, vks_model *out, vks_error *err);

#endif
