/* The smallest host of vkskin's CPU side: load a model, make a crowd, pose it into a buffer of
 * palettes (in a real host: a mapped Vulkan buffer its skinning shader reads).
 *   usage: palettes MODEL
 * The crowd starts in the bind pose, where every palette entry is the identity (that is what a
 * bind pose means): the program checks that, then plays the model's first clip for a second. */
#include <vkskin/vkskin.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: palettes MODEL\n");
        return 2;
    }
    vkskin_error err;
    vkskin_model *model;
    if (vkskin_model_load(
            &(vkskin_model_desc){.desc_size = sizeof(vkskin_model_desc), .path = argv[1]}, &model,
            &err) != VKSKIN_OK) {
        fprintf(stderr, "palettes: %s\n", err.message);
        return 1;
    }
    vkskin_crowd *crowd;
    const vkskin_model *models[] = {model};
    if (vkskin_crowd_create(&(vkskin_crowd_desc){.desc_size = sizeof(vkskin_crowd_desc),
                                                 .models = models,
                                                 .model_count = 1,
                                                 .instance_count = 4,
                                                 .clip = VKSKIN_CLIP_NONE},
                            &crowd, &err) != VKSKIN_OK) {
        fprintf(stderr, "palettes: %s\n", err.message);
        vkskin_model_destroy(model);
        return 1;
    }
    const uint32_t n = vkskin_crowd_instance_count(crowd);
    const uint32_t entries = vkskin_crowd_palette_count(crowd);
    float *palettes = malloc(sizeof(float) * 12 * entries);
    uint32_t visible[4] = {0, 1, 2, 3};
    int status = palettes ? 0 : 1;

    if (palettes && vkskin_crowd_pose(crowd, visible, n, palettes, entries, &err) == VKSKIN_OK) {
        float worst = 0.0f; /* from the identity */
        for (uint32_t e = 0; e < entries; e++)
            for (int k = 0; k < 12; k++)
                worst = fmaxf(worst, fabsf(palettes[12 * e + k] - (k % 5 == 0 ? 1.0f : 0.0f)));
        printf("bind pose: %u instances, %u palette entries, %.2g from the identity\n", n, entries,
               worst);
        status = worst <= 1e-4f ? 0 : 1;
    }
    /* Every instance plays the first clip (if any) for a second at 60 frames a second. */
    vkskin_model_info info;
    vkskin_model_get_info(model, &info, NULL);
    for (uint32_t i = 0; i < n && status == 0 && info.clip_count > 0; i++)
        if (vkskin_crowd_play(crowd, i, 0, 0.0, &err) != VKSKIN_OK)
            status = 1;
    for (int frame = 0; frame < 60 && status == 0; frame++) {
        vkskin_crowd_advance(crowd, 1.0 / 60.0, NULL);
        if (vkskin_crowd_pose(crowd, visible, n, palettes, entries, &err) != VKSKIN_OK)
            status = 1;
    }
    if (status != 0 && err.result != VKSKIN_OK)
        fprintf(stderr, "palettes: %s\n", err.message);
    else if (status == 0)
        printf("%s for 60 frames with vkskin %s\n",
               info.clip_count ? "played clip 0" : "no clip: held the bind pose", vkskin_version());
    free(palettes);
    vkskin_crowd_destroy(crowd);
    vkskin_model_destroy(model);
    return status;
}
