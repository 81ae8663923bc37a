/* `vkskin bench --anim-only`: the crowd's CPU animation timed alone (bench_anim.c). */
#ifndef VKS_APP_BENCH_ANIM_H
#define VKS_APP_BENCH_ANIM_H

#include "show.h"

typedef struct app_bench_anim_desc {
    uint32_t frames, warmup; /* measured, and before measuring */
    uint32_t width, height;  /* of the image the camera frames (culling) */
    bool anim_lod;           /* --anim-lod */
    bool store;              /* --palettes store: a palette store deals the frames' palettes */
    bool phases, json;
    bool progress; /* --progress */
} app_bench_anim_desc;

/* The bytes app_bench_anim allocates beside the crowd: a frame's palettes and visible list. */
uint64_t app_bench_anim_bytes(uint32_t instances, uint64_t palette_entries);

/* Runs on the started crowd (app_show_start) and prints the figures; APP_OK or APP_FAILED. */
int app_bench_anim(app_show *s, const app_bench_anim_desc *desc);

#endif
