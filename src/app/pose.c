#include "app.h"

#include <stdlib.h>

extern const unsigned char vks_default_glb[];
extern const size_t vks_default_glb_size;

bool app_load_model(const char *path, vks_model *model, vks_error *err)
{
    vks_import_desc desc = {.path = path};
    if (!path)
        desc = (vks_import_desc){
            .data = vks_default_glb,
            .size = vks_default_glb_size,
            .hint = "glb",
            .name = "default character",
        };
    return vks_model_import(&desc, model, err);
}

bool app_find_clip(const vks_model *model, const char *clip, int32_t *index, vks_error *err)
{
    if (!clip) {
        *index = model->clip_count ? 0 : -1;
        return true;
    }
    if (!model->clip_count)
        return vks_fail(err, "%s has no clips, so there is no clip '%s'", model->name, clip);
    *index = vks_model_find_clip(model, clip);
    if (*index < 0)
        return vks_fail(err, "%s has no clip '%s' (it has %u: see vkskin info)", model->name, clip,
                        model->clip_count);
    return true;
}

bool app_skin_pose(const vks_model *model, int32_t clip, double seconds, float (*positions)[3],
                   float (*normals)[3])
{
    const vks_skeleton *sk = &model->skeleton;
    vks_xform *local = malloc(sizeof *local * sk->joint_count);
    vks_affine *world = malloc(sizeof *world * sk->joint_count);
    vks_bone *palette = malloc(sizeof *palette * sk->joint_count);
    bool ok = local && world && palette;
    if (ok) {
        if (clip < 0) {
            vks_pose_rest(sk, local);
        } else {
            const vks_clip *c = &model->clips[clip];
            vks_clip_sample(sk, c, vks_clip_time(c, seconds, VKS_WRAP_LOOP), NULL, local);
        }
        vks_pose_palette(sk, local, world, palette);
        vks_skin_input in = {
            .vertex_count = model->vertex_count,
            .positions = (const float(*)[3])model->positions,
            .normals = (const float(*)[3])model->normals,
            .joints = (const uint16_t(*)[VKS_MAX_INFLUENCES])model->joints,
            .weights = (const float(*)[VKS_MAX_INFLUENCES])model->weights,
        };
        vks_skin_cpu(&in, palette, positions, normals);
    }
    free(local);
    free(world);
    free(palette);
    return ok;
}
