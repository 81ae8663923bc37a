/* Meshes merged at load: every mesh of a material joins the first mesh of that material, so that
 * a model made of many parts draws once per material and level, and its levels of detail
 * simplify each material's surface whole. All of a model's meshes share its one skeleton and each
 * vertex carries its own joints and weights (a rigid mesh's vertices follow its node through
 * them, import.c), so a merged mesh skins exactly as its parts did. */
#ifndef VKS_MERGE_H
#define VKS_MERGE_H

#include "../core/error.h"
#include "../asset/model.h"

/* Merges the meshes of each material, in the order each material first appears; the parts keep
 * their file order inside it. Before vks_model_pack and vks_model_build_lods (asserted). Does
 * nothing when no two meshes share a material. Fails only when out of memory (the model is then
 * left as it was). */
bool vks_model_merge_meshes(vks_model *model, vks_error *err);

#endif
