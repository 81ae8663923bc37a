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

/* A model with more than VKS_MERGE_COLOURS_MIN single-colour materials (no texture) that meshes
 * use draws once per material and level: 1 168 draws a level for a low-poly knight. Their colours
 * are gathered instead into one texture, a 2x2 block of texels a colour (so that bilinear
 * filtering at the block's centre, and every mip level down to the block, reads the colour
 * exactly), each of their meshes' vertices given its block's centre as its UV, flat (U past
 * VKS_FLAT_UV: a triangle reads its first corner's, so that the levels of detail, which join
 * corners of different colours, draw each triangle in one colour as they did), and the materials
 * replaced by one textured material, "N colours", last in the list (the others keep their order);
 * vks_model_merge_meshes then merges their meshes into one. The colours are stored sRGB-encoded
 * in 8 bits, as a texture is (the factor's alpha as it is): within half a step of the factor.
 * Fewer such materials (or more than 2^20) are left as they are, each simplified on its own by the levels of
 * detail. Before vks_model_merge_meshes (asserted). Fails only when out of memory (the model is
 * then left as it was). */
#define VKS_MERGE_COLOURS_MIN 16u
bool vks_model_merge_colours(vks_model *model, vks_error *err);

#endif
