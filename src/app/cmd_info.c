#include "app.h"
#include "commands.h"
#include "skin/skin_cpu.h"

#include <float.h>
#include <stdio.h>
#include <stdlib.h>

static void print_joint_tree(const vks_skeleton *sk)
{
    /* Depth from the parent chain: parents come first, so one pass suffices. */
    uint32_t *depth = malloc(sizeof *depth * (sk->joint_count ? sk->joint_count : 1));
    printf("joints: %u (%u of them skin bones; index, parent, name; indented by depth)\n",
           sk->joint_count, sk->bone_count);
    for (uint32_t j = 0; j < sk->joint_count; j++) {
        int32_t p = sk->parents[j];
        uint32_t d = p < 0 ? 0 : depth ? depth[p] + 1 : 0;
        if (depth)
            depth[j] = d;
        printf("  %4u %5d  %*s%s\n", j, p, (int)(2 * (d < 40 ? d : 40)), "", sk->names[j]);
    }
    free(depth);
}

static void print_bounds(const vks_model *m)
{
    float lo[3], hi[3];
    if (vks_skin_cpu_bind_box(m, lo, hi))
        printf("bounds (bind pose, palette space): min (%.4g, %.4g, %.4g) max (%.4g, %.4g, %.4g)\n",
               lo[0], lo[1], lo[2], hi[0], hi[1], hi[2]);
}

static void print_model(const vks_model *m)
{
    printf("model: %s\n", m->name);
    printf("meshes: %u, vertices: %u, indices: %u (%u triangles)\n", m->mesh_count, m->vertex_count,
           m->index_count, m->index_count / 3);
    printf("  %3s  %-24s %8s %8s %8s %9s  %-8s %s\n", "#", "name", "base", "vertices", "indices",
           "material", "skinned", "node joint");
    for (uint32_t i = 0; i < m->mesh_count; i++) {
        const vks_mesh *me = &m->meshes[i];
        printf("  %3u  %-24s %8u %8u %8u %9u  %-8s %u (%s)\n", i, me->name, me->base_vertex,
               me->vertex_count, me->index_count, me->material, me->skinned ? "yes" : "no",
               me->node_joint, m->skeleton.names[me->node_joint]);
    }
    printf("materials: %u\n", m->material_count);
    for (uint32_t i = 0; i < m->material_count; i++) {
        const vks_material *ma = &m->materials[i];
        printf("  %3u  %-24s base color (%.3f, %.3f, %.3f, %.3f)", i, ma->name, ma->base_color[0],
               ma->base_color[1], ma->base_color[2], ma->base_color[3]);
        if (ma->texture >= 0) {
            const vks_texture *t = &m->textures[ma->texture];
            printf("  texture %ux%u from %s\n", t->width, t->height, t->source);
        } else {
            printf("  no texture\n");
        }
    }
    print_joint_tree(&m->skeleton);
    printf("clips: %u\n", m->clip_count);
    for (uint32_t i = 0; i < m->clip_count; i++) {
        const vks_clip *c = &m->clips[i];
        printf("  %3u  %-24s %8.3f s  %u channels, keys: %u translation, %u rotation, %u scale\n",
               i, c->name, c->duration, c->channel_count, c->t_key_count, c->r_key_count,
               c->s_key_count);
    }
    const vks_influence_stats *s = &m->influences;
    printf("influences (vertices of skinned meshes by joints kept):");
    for (uint32_t k = 0; k <= VKS_WIDE_INFLUENCES; k++)
        printf(" %u: %u%s", k, s->histogram[k], k == 0 ? " (follow their node)" : "");
    printf("\n  most in the file on one vertex: %u; truncated to %u: %u; renormalised (sum != 1): "
           "%u; dropped (weight <= 0): %u\n",
           s->max_influences, VKS_WIDE_INFLUENCES, s->truncated, s->renormalised, s->dropped);
    /* Wide models carry influences 5 to 8 in streams of their own and skin with 8. */
    if (m->joints_extra)
        printf("skinning: %u influences per vertex (a vertex has %u in the file)\n",
               VKS_WIDE_INFLUENCES, s->max_influences);
    else
        printf("skinning: %u influences per vertex\n", VKS_MAX_INFLUENCES);
    print_bounds(m);
    /* The levels of detail (asset/lod.h): the model's, then each mesh's chain. */
    printf("levels: %u (level, triangles, vertices, error in model units)\n",
           vks_model_level_count(m));
    for (uint32_t l = 0; l < vks_model_level_count(m); l++) {
        const vks_level lv = vks_model_level(m, l);
        printf("  %3u  %8u %8u  %.4g\n", l, lv.triangle_count, lv.vertex_count, lv.error);
    }
    for (uint32_t i = 0; i < m->mesh_count && vks_model_level_count(m) > 1; i++) {
        printf("  mesh %u %s:", i, m->meshes[i].name);
        for (uint32_t l = 0; l < vks_model_level_count(m); l++) {
            const vks_mesh_level ml = vks_model_mesh_level(m, l, i);
            printf(" %u: %u tri, %.3g;", l, ml.index_count / 3, ml.error);
        }
        printf("\n");
    }
    printf("warnings: %u\n", m->warning_count);
    for (uint32_t i = 0; i < m->warning_count; i++)
        printf("  %s\n", m->warnings[i]);
}

int cmd_info(int argc, char **argv)
{
    static const app_command cmd = {
        .name = "info",
        .summary = "Prints a model's meshes, vertex and index counts, materials, the joint tree,\n"
                   "clips with durations and key counts, and influence statistics.",
        .positional = "[MODEL]",
    };
    const char *path;
    int rc = app_parse(&cmd, argc, argv, &path);
    if (rc != APP_OK)
        return rc == APP_HELP ? APP_OK : rc;
    vks_model model;
    vks_error err;
    if (!app_load_model(path, &model, &err)) {
        fprintf(stderr, "vkskin info: %s\n", err.msg);
        return APP_FAILED;
    }
    print_model(&model);
    vks_model_destroy(&model);
    return APP_OK;
}
