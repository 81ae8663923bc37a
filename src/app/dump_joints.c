/* `vkskin dump --joints` (dump_joints.h). */
#include "dump_joints.h"
#include "app.h"
#include "output.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The lines of every frame into f: the crowd's clock advanced 1 / fps between frames. */
static bool write_frames(FILE *f, vkskin_crowd *crowd, const vkskin_model *model,
                         const app_joints_args *a, float *joints, uint32_t joint_count,
                         vkskin_error *err)
{
    for (uint32_t frame = 0; frame < a->frames; frame++) {
        if (frame && vkskin_crowd_advance_one_thread(crowd, 1.0 / a->fps, err) != VKSKIN_OK)
            return false;
        if (vkskin_crowd_get_joints(crowd, 0, joints, joint_count, err) != VKSKIN_OK)
            return false;
        for (uint32_t j = 0; j < joint_count; j++) {
            vkskin_joint_info ji = {.name = ""};
            vkskin_model_get_joint(model, j, &ji, NULL);
            fprintf(f, "%u %s %.9g %.9g %.9g\n", frame, ji.name, joints[3 * j], joints[3 * j + 1],
                    joints[3 * j + 2]);
        }
    }
    return !ferror(f) || app_fail(err, "out of memory for the lines");
}

/* The way the model's locomotion moves it (its slowest locomotion clip's, as the crowd faces
 * moving instances), +Z without any. */
static void forward_of(const vkskin_model *model, float out[2])
{
    vkskin_model_info info;
    vkskin_model_get_info(model, &info, NULL);
    out[0] = 0.0f, out[1] = 1.0f;
    float slowest = INFINITY;
    for (uint32_t c = 0; c < info.clip_count; c++) {
        vkskin_travel_info t;
        if (vkskin_model_get_travel(model, c, &t, NULL) == VKSKIN_OK && t.ground_speed > 0.0f &&
            t.ground_speed < slowest) {
            slowest = t.ground_speed;
            memcpy(out, t.ground_dir, sizeof t.ground_dir);
        }
    }
}

int app_dump_joints(vkskin_model *model, const app_joints_args *a, const char *out)
{
    vkskin_model_info info;
    vkskin_model_get_info(model, &info, NULL);
    vkskin_error err;
    vkskin_crowd *crowd = NULL;
    float *joints = malloc(sizeof *joints * 3 * (info.joint_count ? info.joint_count : 1));
    char *data = NULL;
    size_t size = 0;
    FILE *f = NULL;
    bool ok = joints != NULL || app_fail(&err, "out of memory for %u joints", info.joint_count);
    ok = ok &&
         vkskin_crowd_create(&(vkskin_crowd_desc){.desc_size = sizeof(vkskin_crowd_desc),
                                                  .models = (const vkskin_model *const *)&model,
                                                  .model_count = 1,
                                                  .instance_count = 1,
                                                  .clip = a->clip,
                                                  .time = a->seconds,
                                                  .root_motion = a->root_motion},
                             &crowd, &err) == VKSKIN_OK;
    if (ok && a->speed > 0.0) { /* along its heading: instance 0's is 0, the model's own */
        float forward[2], velocity[2];
        forward_of(model, forward);
        velocity[0] = (float)a->speed * forward[0];
        velocity[1] = (float)a->speed * forward[1];
        ok = vkskin_crowd_set_velocities(crowd, NULL, 1, velocity, &err) == VKSKIN_OK;
    }
    ok = ok && ((f = open_memstream(&data, &size)) != NULL ||
                app_fail(&err, "out of memory for the lines"));
    ok = ok && write_frames(f, crowd, model, a, joints, info.joint_count, &err);
    if (f && fclose(f) != 0 && ok)
        ok = app_fail(&err, "out of memory for the lines");
    const bool to_stdout = strcmp(out, "-") == 0;
    ok = ok && app_write_file(out, data, size, false, &err);
    if (ok)
        fprintf(to_stdout ? stderr : stdout, "dump: wrote %u joints x %u frames to %s\n",
                info.joint_count, a->frames, to_stdout ? "standard output" : out);
    else
        fprintf(stderr, "vkskin dump: %s\n", err.message);
    free(data);
    free(joints);
    vkskin_crowd_destroy(crowd);
    return ok ? APP_OK : APP_FAILED;
}
