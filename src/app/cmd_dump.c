#include "app.h"
#include "commands.h"
#include "skin/skin_cpu.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* One line per vertex: mesh, vertex within the mesh, bind-pose position, skinned position and
 * normal. */
static bool write_dump(FILE *f, const vks_model *m, const float (*pos)[3], const float (*nrm)[3])
{
    for (uint32_t i = 0; i < m->mesh_count; i++) {
        const vks_mesh *me = &m->meshes[i];
        for (uint32_t v = 0; v < me->vertex_count; v++) {
            uint32_t g = me->base_vertex + v;
            const float *b = m->positions[g], *p = pos[g], *n = nrm[g];
            fprintf(f, "%u %u %.9g %.9g %.9g %.9g %.9g %.9g %.9g %.9g %.9g\n", i, v, b[0], b[1],
                    b[2], p[0], p[1], p[2], n[0], n[1], n[2]);
        }
    }
    return !ferror(f);
}

int cmd_dump(int argc, char **argv)
{
    const char *clip = NULL, *time = "0", *out = NULL;
    bool cpu = false;
    const app_option options[] = {
        {"clip", &clip, NULL, "NAME|INDEX", "clip to sample (default: the first; none: bind pose)"},
        {"time", &time, NULL, "SECONDS", "time in the clip, looping (default 0)"},
        {"out", &out, NULL, "FILE", "where to write the lines ('-' for standard output)"},
        {"cpu", NULL, &cpu, NULL, "skin on the CPU reference (the only path so far)"},
    };
    const app_command cmd = {
        .name = "dump",
        .summary = "Skins a model at one clip and time and writes one line per vertex:\n"
                   "  mesh vertex bind_x bind_y bind_z x y z nx ny nz\n"
                   "(bind-pose position, then skinned position and normal in the palette's space).",
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
    if (!app_parse_seconds(time, &seconds, &err)) {
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
    float(*pos)[3] = malloc(sizeof *pos * model.vertex_count);
    float(*nrm)[3] = malloc(sizeof *nrm * model.vertex_count);
    if (!app_find_clip(&model, clip, &clip_index, &err)) {
        fprintf(stderr, "vkskin dump: %s\n", err.msg);
    } else if (!pos || !nrm || !vks_skin_cpu_pose(&model, clip_index, seconds, pos, nrm, NULL)) {
        fprintf(stderr, "vkskin dump: out of memory\n");
    } else {
        bool to_stdout = strcmp(out, "-") == 0;
        FILE *f = to_stdout ? stdout : fopen(out, "w");
        if (!f) {
            fprintf(stderr, "vkskin dump: cannot write '%s': %s\n", out, strerror(errno));
        } else {
            bool ok = write_dump(f, &model, (const float(*)[3])pos, (const float(*)[3])nrm);
            ok = (to_stdout ? fflush(f) == 0 : fclose(f) == 0) && ok;
            if (ok)
                rc = APP_OK;
            else
                fprintf(stderr, "vkskin dump: failed writing '%s'\n", out);
        }
    }
    free(pos);
    free(nrm);
    vks_model_destroy(&model);
    return rc;
}
