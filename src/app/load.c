#include "app.h"
#include "asset/lod.h"

#include <string.h>

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
    return vks_model_load(&desc, model, err);
}

const char app_bind_pose[] = "none";

bool app_bind_pose_option(const char **clip, bool bind_pose, vks_error *err)
{
    if (!bind_pose)
        return true;
    if (*clip)
        return vks_fail(err, "--bind-pose and --clip exclude each other");
    *clip = app_bind_pose;
    return true;
}

bool app_find_clip(const vks_model *model, const char *clip, int32_t *index, vks_error *err)
{
    if (!clip) {
        *index = model->clip_count ? 0 : -1;
        return true;
    }
    /* "none" is the bind pose, unless the model has a clip of that name (--bind-pose is not). */
    if (clip == app_bind_pose ||
        (strcmp(clip, app_bind_pose) == 0 && vks_model_find_clip(model, clip) < 0)) {
        *index = -1;
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
