/* examples/quickstart/main.c: 100 characters play a model's first clip for a second, drawn
 * headless; the last frame goes to crowd.ppm. Usage: quickstart MODEL */
#include <vkskin/vkskin_render.h>

#include <stdio.h>

int main(int argc, char **argv)
{
    static unsigned char rgba[360][640][4];
    if (argc != 2)
        return fprintf(stderr, "usage: quickstart MODEL\n"), 2;
    vkskin_error err;
    vkskin_model *model = NULL;
    vkskin_crowd *crowd = NULL;
    vkskin_renderer *renderer = NULL;
    vkskin_model_desc load = {.desc_size = sizeof(vkskin_model_desc), .path = argv[1]};
    vkskin_result r = vkskin_model_load(&load, &model, &err);
    const vkskin_model *models[] = {model};
    vkskin_crowd_desc crowd_desc = {.desc_size = sizeof(vkskin_crowd_desc),
                                    .models = models,
                                    .model_count = 1,
                                    .instance_count = 100};
    if (r == VKSKIN_OK)
        r = vkskin_crowd_create(&crowd_desc, &crowd, &err);
    vkskin_renderer_desc desc = {
        .desc_size = sizeof(vkskin_renderer_desc), .crowd = crowd, .width = 640, .height = 360};
    if (r == VKSKIN_OK)
        r = vkskin_renderer_create(&desc, &renderer, &err);
    for (int frame = 0; r == VKSKIN_OK && frame < 60; frame++) {
        vkskin_view view;
        vkskin_crowd_advance(crowd, 1.0 / 60.0, NULL);
        vkskin_crowd_frame_view(crowd, 640.0f / 360.0f, &view, NULL);
        vkskin_frame_desc frame_desc = {.desc_size = sizeof(vkskin_frame_desc), .view = &view};
        r = vkskin_renderer_frame(renderer, &frame_desc, NULL, &err);
    }
    if (r == VKSKIN_OK)
        r = vkskin_renderer_read_image(renderer, rgba, &err);
    FILE *out = r == VKSKIN_OK ? fopen("crowd.ppm", "wb") : NULL;
    int written = out && fprintf(out, "P6 640 360 255\n") > 0; /* binary PPM: RGB, no alpha */
    for (int i = 0; written && i < 640 * 360; i++)
        written = fwrite(rgba[i / 640][i % 640], 1, 3, out) == 3;
    written = out && fclose(out) == 0 && written;
    vkskin_renderer_destroy(renderer, NULL); /* each ignores NULL */
    vkskin_crowd_destroy(crowd);
    vkskin_model_destroy(model);
    if (!written)
        return fprintf(stderr, "quickstart: %s\n", r ? err.message : "cannot write crowd.ppm"), 1;
    return 0;
}
