/* Each level of detail's error measured in motion: the largest distance between a level's
 * surface and level 0's over the model's clips' poses, on the CPU reference skinning. A folded
 * knee or a raised arm shows what the bind pose hides: a level that removed the rings of a joint
 * is flat where level 0 bends.
 *
 * Both ways are sampled, where the two differ: level 0's vertices the level lost and the centroid
 * of each level-0 triangle it does not have, against the level's triangles (a part the level lost
 * or flattened: level 0's triangles are small); and seven points (the centroid, the middles of
 * the edges and those between the centroid and the corners) of each triangle of the level that
 * level 0 does not have, against level 0's triangles (a web the level spans across a gap). In
 * each pose a sample's distance is to its nearest triangle, posed, found through a uniform grid.
 * It is a sampled measure: between its samples and its poses the true distance may be larger
 * (tests/test_lod.c finds up to 1.2 times between the poses). */
#ifndef VKS_LOD_ERROR_H
#define VKS_LOD_ERROR_H

#include "../asset/model.h"
#include "../core/error.h"

/* Poses measured: the rest pose and VKS_LOD_ERROR_POSES_PER_CLIP times of each clip, evenly
 * spaced over it, at most VKS_LOD_ERROR_POSES in all: a model of many clips gets fewer times a
 * clip, and one of more than VKS_LOD_ERROR_POSES clips one time each of that many clips, spread
 * evenly over its list. */
#define VKS_LOD_ERROR_POSES_PER_CLIP 4u
#define VKS_LOD_ERROR_POSES 16u

/* Sets every level's error (vks_level.error) to its measure over the poses, in palette space
 * (the units of skinned positions), and drops each level whose error is no less than a coarser
 * level's (vks_model_keep_levels): the errors then increase along the chain. Fails only when out
 * of memory. */
bool vks_model_measure_lods(vks_model *model, vks_error *err);

/* The poses vks_model_measure_lods uses: fills clips[] and seconds[] (room for
 * VKS_LOD_ERROR_POSES + 1; clip -1 is the rest pose) and returns their count. For tests. */
uint32_t vks_lod_error_poses(const vks_model *model, int32_t *clips, double *seconds);

#endif
