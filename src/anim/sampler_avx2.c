/* The sampler's arithmetic with AVX2 and FMA (this file alone is compiled with -mavx2 -mfma);
 * sampler.c uses it when the CPU has both. */
#define KERNEL(name) vks_sampler_avx2_##name
#define KERNEL_ISA VKS_SAMPLER_AVX2
#include "sampler_kernel.h"
