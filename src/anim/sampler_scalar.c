/* The sampler's plain-C arithmetic, what a CPU without SSE2 runs (sampler.c is that build's
 * baseline there). On x86-64, where the baseline is SSE2, this file builds it as well, so that
 * the tests run it too (vks_sampler_use_isa). */
#undef __SSE2__
#undef __AVX__
#undef __FMA__
#define KERNEL(name) vks_sampler_scalar_##name
#define KERNEL_ISA VKS_SAMPLER_SCALAR
#include "sampler_kernel.h"
