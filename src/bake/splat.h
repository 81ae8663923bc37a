/* The far splat: what an instance whose whole projection is a few pixels is drawn as, one
 * primitive instead of its coarsest level's triangles (shaders/splat.comp). A character of a pixel
 * or two shows its outline and its color, not its triangles: the splat is the second moments of
 * its posed surface (area-weighted, over the poses the levels of detail measure: bake/lod_error.h)
 * in the frame of the joint that carries it best (the smallest spread among the first joints a
 * coarsest level keeps, so that every level's pose has it), and the surface's mean base color. On
 * screen the covariance, carried by that joint's palette entry and projected, is an ellipse; the
 * pixel centers within radius2 (squared) standard deviations of its center are covered, radius2
 * set so that the ellipse's area is the outline's: the mean over the poses and six directions of
 * the carrier's frame (its axes and their diagonals) of the area the posed triangles cover,
 * sampled on a VKS_SPLAT_GRID grid across each view (cell centers, as pixels are), over the same
 * mean of the projected ellipse of one standard deviation. That mean outline area (vks_splat.area)
 * is also what the crowd's choice weighs a level's triangles against (scene/crowd.h).
 *
 * Moments are exact per triangle (a triangle's uniform distribution: mean the centroid, E[x y] =
 * (sum x_i y_i + sum x_i sum y_i) / 12), so a test can state them in closed form. */
#ifndef VKS_SPLAT_H
#define VKS_SPLAT_H

#include "../asset/model.h"
#include "../core/error.h"

/* Joints tried as the carrier: the first of those the coarsest level poses (parents first). */
#define VKS_SPLAT_CANDIDATES 16u

/* Sets model->splat: after the levels of detail and the skeleton level of detail (the carrier is
 * kept at every level). A model without triangles has none (valid false). Fails only when out of
 * memory. */
bool vks_model_build_splat(vks_model *model, vks_error *err);

#endif
