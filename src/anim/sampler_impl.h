/* The sampler's private layout and its per-instruction-set entry points (sampler_kernel.h). */
#ifndef VKS_SAMPLER_IMPL_H
#define VKS_SAMPLER_IMPL_H

#include "sampler.h"

/* Floats of one block (VKS_SAMPLER_LANES joints) of one segment, and of one block of local
 * matrices (12 components: row * 4 + column). */
#define VKS_SAMPLER_BLOCK_FLOATS (VKS_SAMPLER_COMPONENTS * VKS_SAMPLER_LANES)
#define VKS_SAMPLER_LOCAL_FLOATS (12 * VKS_SAMPLER_LANES)

struct vks_sampler_impl {
    vks_sampler_isa isa;
    void (*local)(const float *segment, uint32_t block_count, float u, float *local);
    void (*model)(const vks_skeleton *sk, uint32_t n, const float *local, float (*model)[4][4]);
    void (*skin)(const vks_skeleton *sk, uint32_t n, const float (*model)[4][4], vks_bone *palette);
    void (*palette)(const vks_skeleton *sk, uint32_t n, const float *local, float (*model)[4][4],
                    vks_bone *palette, bool stream);
};

/* An affine matrix as 4 columns of 4 floats (lane 3 zero). */
static inline void vks_sampler_root_columns(const vks_affine *a, float cols[4][4])
{
    for (int c = 0; c < 4; c++) {
        for (int r = 0; r < 3; r++)
            cols[c][r] = a->row[r][c];
        cols[c][3] = 0.0f;
    }
}

extern const vks_sampler_impl vks_sampler_base_impl; /* SSE2 on x86-64, plain C elsewhere */
#if defined(VKS_SAMPLER_X86)
extern const vks_sampler_impl vks_sampler_avx2_impl;   /* sampler_avx2.c */
extern const vks_sampler_impl vks_sampler_scalar_impl; /* sampler_scalar.c */
#endif

#endif
