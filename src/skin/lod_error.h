/* Each level of detail's error measured in motion: the largest distance between a level's
 * surface and level 0's over the model's clips' poses, on the CPU reference skinning. A folded
 * knee or a raised arm shows what the bind pose hides: a level that removed the rings of a joint
 * is flat where level 0 bends.
 *
 * Both ways are sampled: every vertex of level 0 against the level's triangles (a part the level
 * lost or flattened), and four points of every triangle of the level (its centroid and the
 * middles of its edges) against level 0's triangles (a web the level spans across a gap). Each
 * sample's candidates are found once, in the bind pose: the nearest triangle and any within twice
 * its distance (at most VKS_LOD_ERROR_CANDIDATES). In each pose a sample's distance is the least
 * over its candidates, posed as the vertices they join: never less than its true distance to the
 * posed surface, so the measure is an upper bound at its samples. */
#ifndef VKS_LOD_ERROR_H
#define VKS_LOD_ERROR_H

#include "../asset/model.h"
#include "../core/error.h"

#define VKS_LOD_ERROR_CANDIDATES 8u
/* Poses measured: the rest pose and up to this many per clip, evenly spaced over it, at most
 * VKS_LOD_ERROR_POSES in all (fewer a clip for a model of many clips). */
#define VKS_LOD_ERROR_POSES_PER_CLIP 4u
#define VKS_LOD_ERROR_POSES 16u

/* Sets every level's error (vks_level.error and each of its mesh levels') to its measure over the
 * poses, in palette space (the units of skinned positions), and drops each level whose error is
 * no less than a coarser level's (vks_model_keep_levels): the errors then increase along the
 * chain. Fails only when out of memory. */
bool vks_model_measure_lods(vks_model *model, vks_error *err);

/* The poses vks_model_measure_lods uses: fills clips[] and seconds[] (room for
 * VKS_LOD_ERROR_POSES + 1; clip -1 is the rest pose) and returns their count. For tests. */
uint32_t vks_lod_error_poses(const vks_model *model, int32_t *clips, double *seconds);

#endif
