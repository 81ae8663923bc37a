/* Skeleton level of detail: far away, a finger or a twist bone moves no pixel, so an instance at a
 * coarse level need not pose it.
 *
 * For each level L >= 1 in turn, starting from the joints level L - 1 keeps, a joint all of whose
 * children are already folded (a leaf of what is kept; roots stay) is folded into its parent when
 * the level's vertices, skinned with every folded joint's influence given to its nearest kept
 * ancestor, stay within the level's error (vks_level.error) of their full skinning in every pose
 * bake/lod_error.h measures (the rest pose and the clips' sampled times); the leaves are tried
 * from the last joint back, again until none folds. The levels therefore keep nested sets, each
 * closed under parents, and the folded skinning of a level departs from its full skinning by at
 * most its error, in those poses, on top of the error its mesh already has (the two lie in
 * different places in practice; the bound on screen is then at most twice the level's).
 *
 * What it sets: each level's joint_count, joint_fold (the joint each level's vertices use for
 * each joint: the GPU's streams for a level and the CPU reference skin with it) and pose_order
 * (the joints ordered by the last level that keeps them, coarsest first, then by index: parents
 * before children, so that each level's kept joints are a prefix, which the crowd poses alone).
 * A model where no level folds a joint keeps joint_fold and pose_order NULL.
 *
 * Folding gives a joint's weight to an ancestor's palette entry; in the bind pose every entry is
 * the identity, so a folded level is unchanged there. */
#ifndef VKS_SKELETON_LOD_H
#define VKS_SKELETON_LOD_H

#include "../asset/model.h"
#include "../core/error.h"

/* The share of a level's error its folded joints may add: the level's mesh already departs from
 * level 0 by up to its error, and the choice of levels keeps that under a fraction of a pixel
 * (VKSKIN_LOD_ERROR_PX); a fold moving vertices by the whole error again made a framed crowd
 * differ from level 0 in more pixels than one frame of motion does (cli_lod_crowd), a quarter
 * does not. */
#define VKS_SKELETON_LOD_SHARE 0.25

/* After vks_model_measure_lods (it needs the levels' errors). Fails only when out of memory. */
bool vks_model_fold_skeleton(vks_model *model, vks_error *err);

#endif
