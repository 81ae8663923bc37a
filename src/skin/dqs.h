/* Dual-quaternion skinning (Kavan, Collins, Zara and O'Sullivan, "Geometric skinning with
 * approximate dual quaternion blending", 2008): the joints' rigid motions blended as unit dual
 * quaternions, so that a twisting wrist or elbow keeps its volume where linear blending collapses
 * it (the "candy wrapper").
 *
 * Scale: the joints may scale, uniformly and positively (or to zero, a part hidden). A palette
 * entry is a similarity, P v = R(q) (s v) + t, and scale is blended first, linearly, then the rigid
 * parts as dual quaternions: Kavan et al.'s scale-aware two-phase blending, restricted to uniform
 * scale (with one influence, or influences that agree on the scale, it is exact). A model that
 * scales a joint non-uniformly, shears it or mirrors it is refused (vks_dq_check_model: one line
 * naming the joint and where).
 *
 * A palette entry (vks_dq, shaders/vks_shared.h) is 32 bytes where vks_bone's 3x4 matrix is 48:
 * the rotation as a unit quaternion, the translation and the scale. Per vertex, with its
 * influences' weights w_i (the first influence's quaternion q_0 as the reference):
 *
 *   sign_i = dot(q_0, q_i) < 0 ? -1 : 1          antipodal: q and -q are the same rotation; the
 *                                                 blend takes each on q_0's side
 *   b  = sum_i w_i sign_i q_i                     (added in influence order, as linear blending)
 *   be = sum_i w_i sign_i qe_i,  qe_i = 0.5 (t_i, 0) q_i      the dual parts
 *   s  = sum_i w_i s_i                            the blended scale
 *   c  = b / |b|,  ce = be / |b|
 *   p' = R(c) (s p) + 2 (c.w ce.xyz - ce.w c.xyz + cross(c.xyz, ce.xyz))
 *   n' = R(c) n,  t' = R(c) t.xyz, its handedness kept (no mirror: the scale is positive),
 *   each brought to unit length (0 stays 0): a morphed one comes at another (skin/morph.h)
 *
 * R(c) x = x + 2 c.xyz x (c.xyz x x + c.w x). A vertex whose blended quaternion vanishes (|b| = 0:
 * weights that cancel) keeps its bind position, normal and tangent. */
#ifndef VKS_DQS_H
#define VKS_DQS_H

#include "../core/error.h"
#include "skin_cpu.h"

/* Relative tolerance of "uniform" and "orthogonal" in the checks below: a joint whose scale's
 * axes differ by more, or whose axes are further from perpendicular, is not a similarity. */
#define VKS_DQ_SIMILARITY_TOLERANCE 1e-3f

/* The similarity in `bone` as a palette entry. False (out zeroed) when it is none within
 * VKS_DQ_SIMILARITY_TOLERANCE: axes of different lengths, not perpendicular, or a mirror. */
bool vks_dq_from_bone(const vks_bone *bone, vks_dq *out);
/* The same without the check, for palettes of a model that passed vks_dq_check_model (each of its
 * palettes is a similarity). */
void vks_dq_from_bone_fast(const vks_bone *bone, vks_dq *out);

/* Writes the `joints` entries of a palette of such a model as vks_dq, packed from `out` (32
 * bytes each: 2/3 of the entries they came in). Each written once, in order: `out` may be
 * write-combined memory. */
void vks_dq_write(const vks_bone *palette, uint32_t joints, vks_bone *out);

/* Whether every palette of the model is a similarity: its root inverse and inverse binds are
 * similarities, and every joint's scale is uniform and positive (or exactly zero) in its rest
 * transform and in every scale key of every clip (then every palette, at any time and cross-fade,
 * composes similarities). False with one line naming the joint and the clip (or the bind pose). */
bool vks_dq_check_model(const vks_model *model, vks_error *err);

/* The reference: skins every vertex of `in` with the dual-quaternion palette, as above. */
void vks_skin_cpu_dq(const vks_skin_input *in, const vks_dq *palette, float (*out_positions)[3],
                     float (*out_normals)[3], float (*out_tangents)[4]);

#endif
