/* Root motion, taken out of the clips at load time.
 *
 * A walk either carries its travel in a joint (the hips move 1.5 m forward over the clip) or is
 * authored in place. For each clip that travels, the motion joint's path in the placement frame
 * (the model's root transform's, y up) is split into what the character travels and what stays
 * in the pose:
 *
 * - the travel M(t) is the joint's horizontal position and its heading about +Y, each averaged
 *   over a window of one loop around t (the clip extended past its ends by its own loop: the
 *   pose at the end is the start's, moved by the loop). The average takes out what repeats
 *   within a loop, the sway from foot to foot, and keeps the steady part; M(0) is the identity
 *   and M(duration) the loop's whole travel;
 * - the clip in place (vks_root_motion.in_place) is the clip with M(t)^-1 applied to the motion
 *   joint's placement-frame transform at each of its keys: its vertical bob, the sway and every
 *   other joint stay as authored.
 *
 * So posing the in-place clip at t and moving the character by M(t) gives back the clip's own
 * motion, the feet where the author put them (between keys, within the interpolation's
 * difference). A crowd that plays a clip with root motion poses it in place and moves its
 * instance by M(t1) relative to M(t0) between two clocks, a loop adding M(duration).
 *
 * The motion joint is the one named at load, or else the first joint (parents before children)
 * above most of the skin (at least half of the joints that move vertices are below it or it) that
 * travels in some clip: the skeleton's root where it carries the motion, the hips where the root
 * stays still. A clip that travels less than VKS_ROOT_MOTION_MIN_DISTANCE of the model's height
 * and turns less than VKS_ROOT_MOTION_MIN_TURN a loop has none. */
#ifndef VKS_ROOT_MOTION_H
#define VKS_ROOT_MOTION_H

#include "../anim/travel.h"
#include "../asset/model.h"
#include "../core/error.h"

#define VKS_ROOT_MOTION_MIN_DISTANCE 0.01 /* of the model's bind-pose height, a loop */
#define VKS_ROOT_MOTION_MIN_TURN 0.0175   /* radians a loop (1 degree) */
#define VKS_ROOT_MOTION_RATE 60.0         /* travel samples a second, at least 33 a clip */
/* At most 2 x this + 1 travel samples a clip (a clip of over 9 minutes is sampled more sparsely):
 * each sample poses the whole skeleton, and a damaged file's duration must not cost minutes. */
#define VKS_ROOT_MOTION_MAX_HALF 16384u

/* Sets model->motion_joint and model->root_motion (NULL when no clip travels). `joint` names
 * the motion joint (NULL: chosen as above); a name the skeleton lacks fails with a message that
 * says so. Fails otherwise only when out of memory. */
bool vks_model_extract_root_motion(vks_model *model, const char *joint, vks_error *err);

#endif
