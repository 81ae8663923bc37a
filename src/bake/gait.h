/* Locomotion, measured at load time: how fast each clip's character must move for its feet to
 * stay planted (vks_clip.ground_speed and ground_dir), so that a crowd moving an instance at speed
 * v plays the clip at rate v / ground_speed and its feet do not slide.
 *
 * A clip with root motion (root_motion.h) moves at its travel's speed (when that is at least
 * VKS_GAIT_MIN_SPEED heights a second: a turn in place that drifts is no walk), along its loop's
 * translation. Any other is measured from its feet, in the model's frame: the joints named as
 * feet, toes, balls or ankles (any case; any rig prefix), or where none is so named, the leaves
 * of the skeleton in the lowest VKS_GAIT_LOW of the model's height. Sampled at
 * VKS_ROOT_MOTION_RATE over a loop, a foot is in contact in the lowest VKS_GAIT_CONTACT of its
 * own height range (it must lift by VKS_GAIT_MIN_LIFT of the model's height to count); the
 * contacts' horizontal velocities, all feet together, give the direction (the opposite of their
 * mean: the feet move back under a body that moves forward) and the speed (the median of their
 * components along it). A clip is locomotion when that speed is at least VKS_GAIT_MIN_SPEED model
 * heights a second and the contacts agree on the direction (their mean velocity at least
 * VKS_GAIT_AGREEMENT of their mean speed); else its ground speed is 0. */
#ifndef VKS_GAIT_H
#define VKS_GAIT_H

#include "../asset/model.h"
#include "../core/error.h"

#define VKS_GAIT_LOW 0.15
#define VKS_GAIT_CONTACT 0.2
#define VKS_GAIT_MIN_LIFT 0.01
#define VKS_GAIT_MIN_SPEED 0.05
#define VKS_GAIT_AGREEMENT 0.7

/* Sets every clip's ground_speed and ground_dir (after vks_model_extract_root_motion). Fails only
 * when out of memory. */
bool vks_model_measure_gaits(vks_model *model, vks_error *err);

/* Whether joint j's name says it is a foot (foot, toe, ball or ankle, in any case). */
bool vks_gait_foot_name(const char *name);

#endif
