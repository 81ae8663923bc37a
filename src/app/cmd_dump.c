#include "commands.h"
#include "dump_joints.h"
#include "show.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* One line per vertex: mesh, vertex within the mesh, bind-pose position, skinned position and
 * normal, and the skinned tangent when the model has tangents. */
static bool write_dump(FILE *f, const vkskin_model *m, const float (*pos)[3], const float (*nrm)[3],
                       const float (*tan)[4])
{
    vkskin_model_info info;
    vkskin_model_get_info(m, &info, NULL);
    const float(*bind)[3] = (const float(*)[3])vkskin_model_positions(m);
    for (uint32_t i = 0; i < info.mesh_count; i++) {
        vkskin_mesh_info me;
        vkskin_model_get_mesh(m, i, &me, NULL);
        for (uint32_t v = 0; v < me.vertex_count; v++) {
            uint32_t g = me.base_vertex + v;
            const float *b = bind[g], *p = pos[g], *n = nrm[g];
            fprintf(f, "%u %u %.9g %.9g %.9g %.9g %.9g %.9g %.9g %.9g %.9g", i, v, b[0], b[1], b[2],
                    p[0], p[1], p[2], n[0], n[1], n[2]);
            if (tan)
                fprintf(f, " %.9g %.9g %.9g %.9g", tan[g][0], tan[g][1], tan[g][2], tan[g][3]);
            fputc('\n', f);
        }
    }
    return !ferror(f);
}

/* Skins on the GPU: one frame of a crowd of one, its compute pass's output read back, and the
 * morph-target weights its instance's pose applied (`weights`: the model's target count). */
static int skin_gpu(vkskin_model *model, int32_t clip, double seconds, vkskin_skinning skinning,
                    const app_gpu_options *options, float (*pos)[3], float (*nrm)[3],
                    float (*tan)[4], float *weights, uint32_t target_count)
{
    vkskin_error err;
    vkskin_crowd *crowd;
    vkskin_renderer *r = NULL;
    vkskin_view view;
    int rc = APP_FAILED;
    if (vkskin_crowd_create(&(vkskin_crowd_desc){.desc_size = sizeof(vkskin_crowd_desc),
                                                 .models = (const vkskin_model *const *)&model,
                                                 .model_count = 1,
                                                 .instance_count = 1,
                                                 .clip = clip,
                                                 .time = seconds,
                                                 .skinning = skinning},
                            &crowd, &err) == VKSKIN_OK &&
        vkskin_renderer_create(&(vkskin_renderer_desc){.desc_size = sizeof(vkskin_renderer_desc),
                                                       .crowd = crowd,
                                                       .device = options->device_id,
                                                       .validate = options->validate,
                                                       .width = 64,
                                                       .height = 64,
                                                       .readback = true,
                                                       .fixed_lod = true,
                                                       .pose_every_frame = true},
                               &r, &err) == VKSKIN_OK &&
        vkskin_crowd_frame_view(crowd, 1.0f, &view, &err) == VKSKIN_OK &&
        vkskin_renderer_frame(
            r, &(vkskin_frame_desc){.desc_size = sizeof(vkskin_frame_desc), .view = &view}, NULL,
            &err) == VKSKIN_OK &&
        vkskin_renderer_read_skinned(r, 0, &pos[0][0], &nrm[0][0], tan ? &tan[0][0] : NULL, NULL,
                                     &err) == VKSKIN_OK &&
        (!target_count ||
         vkskin_crowd_get_weights(crowd, 0, weights, target_count, &err) == VKSKIN_OK))
        rc = APP_OK;
    else
        fprintf(stderr, "vkskin dump: %s\n", err.message);
    if (r)
        rc = app_show_close("dump", r, rc);
    vkskin_crowd_destroy(crowd);
    return rc;
}

/* Whether `path` is the file standard output writes to (--out - or, say, /dev/stdout). */
static bool is_stdout(const char *path)
{
    struct stat a, b;
    return strcmp(path, "-") == 0 || (stat(path, &a) == 0 && fstat(STDOUT_FILENO, &b) == 0 &&
                                      a.st_dev == b.st_dev && a.st_ino == b.st_ino);
}

/* Writes the lines to `out` ("-": standard output), whole or not at all (output.h), and says how
 * many (one a vertex), on standard output, or on stderr when the lines go there. */
static int write_out(const char *out, const vkskin_model *model, float (*pos)[3], float (*nrm)[3],
                     float (*tan)[4])
{
    vkskin_model_info info;
    vkskin_model_get_info(model, &info, NULL);
    /* Asked before the write: a file replaced by rename is no longer the one stdout holds. */
    const bool to_stdout = is_stdout(out);
    char *data = NULL;
    size_t size = 0;
    FILE *f = open_memstream(&data, &size);
    bool ok = f && write_dump(f, model, (const float(*)[3])pos, (const float(*)[3])nrm,
                              (const float(*)[4])tan);
    ok = f && fclose(f) == 0 && ok;
    vkskin_error err;
    if (!ok)
        app_fail(&err, "cannot write '%s': out of memory for the lines", out);
    else
        ok = app_write_file(out, data, size, false, &err);
    free(data);
    if (!ok) {
        fprintf(stderr, "vkskin dump: %s\n", err.message);
        return APP_FAILED;
    }
    fprintf(to_stdout ? stderr : stdout, "dump: wrote %u vertices (%u mesh%s) to %s\n",
            info.vertex_count, info.mesh_count, info.mesh_count == 1 ? "" : "es",
            strcmp(out, "-") == 0 ? "standard output" : out);
    return APP_OK;
}

/* The morph-target weights the pose applied (a model with targets), one line after the count:
 * "dump: morph-target weights: name w, ...", each target's in target order. */
static void say_weights(const vkskin_model *model, const float *w, uint32_t target_count, FILE *f)
{
    if (!target_count)
        return;
    fprintf(f, "dump: morph-target weights:");
    for (uint32_t t = 0; t < target_count; t++) {
        vkskin_target_info ti;
        vkskin_model_get_target(model, t, &ti, NULL);
        fprintf(f, "%s %s %.6g", t ? "," : "", ti.name, w[t]);
    }
    fputc('\n', f);
}

typedef struct dump_args {
    const char *path, *clip, *time, *out, *skinning_text;
    const char *frames_text, *fps_text, *root_motion_text, *motion_joint, *speed_text;
    bool cpu, bind_pose, joints;
    app_joints_args joint_args;
    app_gpu_options gpu;
    double seconds;
    vkskin_skinning skinning;
} dump_args;

/* The options into *a, checked, and the output found writable before any work: APP_OK, or what
 * app_parse returned, or APP_USAGE or APP_FAILED (said). */
static int parse_args(int argc, char **argv, dump_args *a)
{
    const app_option options[] = {
        {"clip", &a->clip, NULL, "NAME|INDEX",
         "clip to sample (default: the first; none: bind pose)"},
        {"bind-pose", NULL, &a->bind_pose, NULL, "skin the bind pose (as --clip none)"},
        {"time", &a->time, NULL, "SECONDS", "time in the clip, looping: 0 to 1000000 (default 0)"},
        {"out", &a->out, NULL, "FILE", "where to write the lines ('-' for standard output)"},
        {"cpu", NULL, &a->cpu, NULL, "skin with the CPU reference instead of the GPU"},
        {"skinning", &a->skinning_text, NULL, "linear|dual-quaternion",
         "blend the joints' matrices (default), or their dual quaternions (joints must scale "
         "uniformly)"},
        {"joints", NULL, &a->joints, NULL,
         "write instead each joint's world position, 'FRAME NAME X Y Z', on the CPU"},
        {"frames", &a->frames_text, NULL, "N", "--joints: frames to write (default 1)"},
        {"fps", &a->fps_text, NULL, "F", "--joints: frames a second (default 30)"},
        {"root-motion", &a->root_motion_text, NULL, "on|off",
         "--joints: the clip's travel moves the character, posed in place (default off)"},
        {"speed", &a->speed_text, NULL, "V",
         "--joints: the character walks along its heading at V units a second, its locomotion "
         "clips time-warped to V (default: it stays on its spot)"},
        {"motion-joint", &a->motion_joint, NULL, "NAME",
         "the joint root motion is taken from (default: the root, or the hips where the root "
         "stays still)"},
        APP_GPU_OPTIONS(a->gpu),
    };
    const app_command cmd = {
        .name = "dump",
        .summary = "Skins a model at one clip and time and writes one line per vertex:\n"
                   "  mesh vertex bind_x bind_y bind_z x y z nx ny nz [tx ty tz tw]\n"
                   "(bind-pose position, then skinned position, normal and, when the model has\n"
                   "tangents, tangent, in the palette's space). Skins on the GPU (the compute\n"
                   "pass's output, read back) unless --cpu is given. A model with morph targets\n"
                   "is morphed first, by the clip's weights; --skinning dual-quaternion\n"
                   "blends dual quaternions, on the GPU and the CPU alike. Then says how many\n"
                   "lines it wrote and the weights: on standard output, or on stderr when the\n"
                   "lines go there. With --joints, writes each joint's world position instead,\n"
                   "one line a joint a frame, for --frames frames at --fps.",
        .positional = "[MODEL]",
        .options = options,
        .option_count = sizeof options / sizeof options[0],
    };
    int rc = app_parse(&cmd, argc, argv, &a->path);
    if (rc != APP_OK)
        return rc;
    vkskin_error err;
    if (!a->out) {
        fprintf(stderr, "vkskin dump: --out FILE is required ('-' for standard output)\n");
        return APP_USAGE;
    }
    uint32_t frames = 1;
    double fps = 30.0;
    if (!app_parse_time(a->time, &a->seconds, &err) || !app_gpu_check(&a->gpu, &err) ||
        !app_parse_skinning(a->skinning_text, &a->skinning, &err) ||
        !app_bind_pose_option(&a->clip, a->bind_pose, &err) ||
        !app_parse_root_motion(a->root_motion_text, &a->joint_args.root_motion, &err) ||
        (a->frames_text &&
         !app_parse_count("--frames", a->frames_text, 1, 1000000, &frames, &err)) ||
        (a->fps_text &&
         !app_parse_real("--fps", a->fps_text, "frames a second", 0.001, 100000.0, &fps, &err)) ||
        (a->speed_text && !app_parse_real("--speed", a->speed_text, "units a second", 0.0, 1e6,
                                          &a->joint_args.speed, &err))) {
        fprintf(stderr, "vkskin dump: %s\n", err.message);
        return APP_USAGE;
    }
    if (!a->joints && (a->frames_text || a->fps_text || a->root_motion_text || a->speed_text)) {
        fprintf(stderr, "vkskin dump: --%s goes with --joints\n",
                a->frames_text  ? "frames"
                : a->fps_text   ? "fps"
                : a->speed_text ? "speed"
                                : "root-motion");
        return APP_USAGE;
    }
    a->joint_args.frames = frames;
    a->joint_args.fps = fps;
    a->joint_args.seconds = a->seconds;
    if (strcmp(a->out, "-") != 0 && app_check_writable(a->out, 1, &err) != APP_OK) {
        fprintf(stderr, "vkskin dump: %s\n", err.message); /* before any work */
        return APP_FAILED;
    }
    return APP_OK;
}

/* The model skinned at the clip and time (on the GPU, or the CPU with --cpu), its lines written
 * and the weights said. */
static int dump_model(const dump_args *a, vkskin_model *model)
{
    vkskin_model_info info;
    vkskin_model_get_info(model, &info, NULL);
    vkskin_error err, e;
    int32_t clip_index;
    int rc = APP_FAILED;
    const size_t n = info.vertex_count ? info.vertex_count : 1;
    float(*pos)[3] = malloc(sizeof *pos * n);
    float(*nrm)[3] = malloc(sizeof *nrm * n);
    float(*tan)[4] = info.tangents ? malloc(sizeof *tan * n) : NULL;
    /* The weights the pose applies: the model's at that time (--cpu), the instance's (GPU). */
    float *weights = info.target_count ? malloc(sizeof *weights * info.target_count) : NULL;
    if (!app_show_find_clip(model, a->clip, &clip_index, &err)) {
        fprintf(stderr, "vkskin dump: %s\n", err.message);
    } else if (!pos || !nrm || (info.tangents && !tan) || (info.target_count && !weights)) {
        fprintf(stderr, "vkskin dump: out of memory\n");
    } else if (a->cpu &&
               (vkskin_model_skin_as(model, clip_index, a->seconds, a->skinning, &pos[0][0],
                                     &nrm[0][0], tan ? &tan[0][0] : NULL, n, &e) != VKSKIN_OK ||
                (info.target_count && vkskin_model_weights(model, clip_index, a->seconds, weights,
                                                           info.target_count, &e) != VKSKIN_OK))) {
        fprintf(stderr, "vkskin dump: %s\n", e.message);
    } else if (!a->cpu && skin_gpu(model, clip_index, a->seconds, a->skinning, &a->gpu, pos, nrm,
                                   tan, weights, info.target_count) != APP_OK) {
        /* said */
    } else {
        app_signals_catch(); /* the file is written whole before a signal ends the run */
        rc = write_out(a->out, model, pos, nrm, tan);
        if (rc == APP_OK)
            say_weights(model, weights, info.target_count, is_stdout(a->out) ? stderr : stdout);
    }
    free(pos);
    free(nrm);
    free(tan);
    free(weights);
    return rc;
}

int cmd_dump(int argc, char **argv)
{
    dump_args a = {.time = "0"};
    int rc = parse_args(argc, argv, &a);
    if (rc != APP_OK)
        return rc == APP_HELP ? APP_OK : rc;
    vkskin_model *model;
    vkskin_error e;
    if (app_load(a.path, a.motion_joint, &model, &e) != VKSKIN_OK) {
        fprintf(stderr, "vkskin dump: %s\n", e.message);
        return APP_FAILED;
    }
    if (a.joints) {
        vkskin_error err;
        if (!app_show_find_clip(model, a.clip, &a.joint_args.clip, &err)) {
            fprintf(stderr, "vkskin dump: %s\n", err.message);
            rc = APP_FAILED;
        } else {
            if (a.joint_args.root_motion)
                app_warn_still_clips("dump", &model, &a.joint_args.clip, 1);
            rc = app_dump_joints(model, &a.joint_args, a.out);
        }
    } else {
        rc = dump_model(&a, model);
    }
    vkskin_model_destroy(model);
    return rc;
}
