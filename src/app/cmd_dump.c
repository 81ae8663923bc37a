#include "commands.h"
#include "gpu_app.h"
#include "target/offscreen.h"
#include "skin/skin_cpu.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* One line per vertex: mesh, vertex within the mesh, bind-pose position, skinned position and
 * normal, and the skinned tangent when the model has tangents. */
static bool write_dump(FILE *f, const vks_model *m, const float (*pos)[3], const float (*nrm)[3],
                       const float (*tan)[4])
{
    for (uint32_t i = 0; i < m->mesh_count; i++) {
        const vks_mesh *me = &m->meshes[i];
        for (uint32_t v = 0; v < me->vertex_count; v++) {
            uint32_t g = me->base_vertex + v;
            const float *b = m->positions[g], *p = pos[g], *n = nrm[g];
            fprintf(f, "%u %u %.9g %.9g %.9g %.9g %.9g %.9g %.9g %.9g %.9g", i, v, b[0], b[1], b[2],
                    p[0], p[1], p[2], n[0], n[1], n[2]);
            if (tan)
                fprintf(f, " %.9g %.9g %.9g %.9g", tan[g][0], tan[g][1], tan[g][2], tan[g][3]);
            fputc('\n', f);
        }
    }
    return !ferror(f);
}

/* Skins on the GPU: one frame of the skinning pass, its output copied back. */
static bool skin_gpu(const vks_model *model, int32_t clip, double seconds,
                     const app_gpu_options *options, float (*pos)[3], float (*nrm)[3],
                     float (*tan)[4], gpu_device *dev, vks_error *err)
{
    if (!app_gpu_open(options, NULL, dev, err))
        return false;
    /* A crowd of one: instance 0 plays `clip` from `seconds` in the scene root's frame. */
    vks_crowd crowd;
    if (!vks_crowd_create(&(vks_crowd_desc){.models = &model,
                                            .model_count = 1,
                                            .clips = &clip,
                                            .instance_count = 1,
                                            .time = seconds},
                          &crowd, err))
        return false;
    vks_renderer r;
    if (!vks_renderer_create(dev,
                             &(vks_renderer_desc){.crowd = &crowd,
                                                  .color_format = VKS_OFFSCREEN_FORMAT,
                                                  .readback = true},
                             &r, err)) {
        vks_crowd_destroy(&crowd);
        return false;
    }
    vks_frame *f = vks_renderer_begin_frame(&r);
    if (!f) {
        vks_renderer_destroy(&r);
        vks_crowd_destroy(&crowd);
        return vks_fail(err, "cannot begin a frame: the device was lost");
    }
    const uint32_t first = 0;
    f->visible[0] = first;
    f->visible_count = 1;
    vks_crowd_palettes(&crowd, NULL, &first, 1, f->palette);
    vks_renderer_skin(&r, f);
    vks_renderer_copy_skinned(&r, f);
    bool ok = vks_renderer_submit(&r, f, VK_NULL_HANDLE, VK_NULL_HANDLE, err) &&
              vks_renderer_wait(&r, f, err);
    if (ok)
        ok = vks_renderer_decode_skinned(&r, 0, pos, nrm, tan) ||
             vks_fail(err, "the GPU skinned nothing"); /* a single instance always fits */
    vks_renderer_destroy(&r);
    vks_crowd_destroy(&crowd);
    return ok;
}

int cmd_dump(int argc, char **argv)
{
    const char *clip = NULL, *time = "0", *out = NULL;
    bool cpu = false, bind_pose = false;
    app_gpu_options gpu = {0};
    const app_option options[] = {
        {"clip", &clip, NULL, "NAME|INDEX", "clip to sample (default: the first; none: bind pose)"},
        {"bind-pose", NULL, &bind_pose, NULL, "skin the bind pose (as --clip none)"},
        {"time", &time, NULL, "SECONDS", "time in the clip, looping (default 0)"},
        {"out", &out, NULL, "FILE", "where to write the lines ('-' for standard output)"},
        {"cpu", NULL, &cpu, NULL, "skin with the CPU reference instead of the GPU"},
        APP_GPU_OPTIONS(gpu),
    };
    const app_command cmd = {
        .name = "dump",
        .summary = "Skins a model at one clip and time and writes one line per vertex:\n"
                   "  mesh vertex bind_x bind_y bind_z x y z nx ny nz [tx ty tz tw]\n"
                   "(bind-pose position, then skinned position, normal and, when the model has\n"
                   "tangents, tangent, in the palette's space). Skins on the GPU (the compute\n"
                   "pass's output, read back) unless --cpu is given.",
        .positional = "[MODEL]",
        .options = options,
        .option_count = sizeof options / sizeof options[0],
    };
    const char *path;
    int rc = app_parse(&cmd, argc, argv, &path);
    if (rc != APP_OK)
        return rc == APP_HELP ? APP_OK : rc;
    vks_error err;
    double seconds;
    if (!out) {
        fprintf(stderr, "vkskin dump: --out FILE is required ('-' for standard output)\n");
        return APP_USAGE;
    }
    if (!app_parse_seconds(time, &seconds, &err) || !app_gpu_check(&gpu, &err) ||
        !app_bind_pose_option(&clip, bind_pose, &err)) {
        fprintf(stderr, "vkskin dump: %s\n", err.msg);
        return APP_USAGE;
    }

    vks_model model;
    if (!app_load_model(path, &model, &err)) {
        fprintf(stderr, "vkskin dump: %s\n", err.msg);
        return APP_FAILED;
    }
    int32_t clip_index;
    rc = APP_FAILED;
    gpu_device dev = {0};
    float(*pos)[3] = malloc(sizeof *pos * model.vertex_count);
    float(*nrm)[3] = malloc(sizeof *nrm * model.vertex_count);
    float(*tan)[4] = model.tangents ? malloc(sizeof *tan * model.vertex_count) : NULL;
    if (!app_find_clip(&model, clip, &clip_index, &err)) {
        fprintf(stderr, "vkskin dump: %s\n", err.msg);
    } else if (!pos || !nrm || (model.tangents && !tan)) {
        fprintf(stderr, "vkskin dump: out of memory\n");
    } else if (cpu && !vks_skin_cpu_pose(&model, clip_index, seconds, pos, nrm, tan)) {
        fprintf(stderr, "vkskin dump: out of memory\n");
    } else if (!cpu && !skin_gpu(&model, clip_index, seconds, &gpu, pos, nrm, tan, &dev, &err)) {
        fprintf(stderr, "vkskin dump: %s\n", err.msg);
    } else {
        bool to_stdout = strcmp(out, "-") == 0;
        FILE *f = to_stdout ? stdout : fopen(out, "w");
        if (!f) {
            fprintf(stderr, "vkskin dump: cannot write '%s': %s\n", out, strerror(errno));
        } else {
            bool ok = write_dump(f, &model, (const float(*)[3])pos, (const float(*)[3])nrm,
                                 (const float(*)[4])tan);
            ok = (to_stdout ? fflush(f) == 0 : fclose(f) == 0) && ok;
            if (ok)
                rc = APP_OK;
            else
                fprintf(stderr, "vkskin dump: failed writing '%s'\n", out);
        }
    }
    if (dev.device)
        rc = app_gpu_close("dump", &dev, rc);
    free(pos);
    free(nrm);
    free(tan);
    vks_model_destroy(&model);
    return rc;
}
