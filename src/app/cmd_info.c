#include "app.h"
#include "commands.h"
#include "show.h"

#include <stdio.h>
#include <stdlib.h>

static void print_joint_tree(const vkskin_model *m, const vkskin_model_info *info)
{
    /* Depth from the parent chain: parents come first, so one pass suffices. */
    uint32_t *depth = malloc(sizeof *depth * (info->joint_count ? info->joint_count : 1));
    printf("joints: %u (%u of them skin bones; index, parent, name; indented by depth)\n",
           info->joint_count, info->bone_count);
    for (uint32_t j = 0; j < info->joint_count; j++) {
        vkskin_joint_info joint;
        vkskin_model_get_joint(m, j, &joint, NULL);
        int32_t p = joint.parent;
        uint32_t d = p < 0 ? 0 : depth ? depth[p] + 1 : 0;
        if (depth)
            depth[j] = d;
        printf("  %4u %5d  %*s%s\n", j, p, (int)(2 * (d < 40 ? d : 40)), "", joint.name);
    }
    free(depth);
}

/* The meshes: counts, whether the file's were merged, then one row each. */
static void print_meshes(const vkskin_model *m, const vkskin_model_info *info)
{
    uint32_t sources = 0;
    for (uint32_t i = 0; i < info->mesh_count; i++) {
        vkskin_mesh_info me;
        vkskin_model_get_mesh(m, i, &me, NULL);
        sources += me.source_count;
    }
    printf("meshes: %u, vertices: %u, indices: %u (%u triangles)", info->mesh_count,
           info->vertex_count, info->index_count, info->index_count / 3);
    if (sources != info->mesh_count)
        printf("; the file's %u meshes merged by material", sources);
    printf("\n");
    printf("  %3s  %-24s %8s %8s %8s %9s  %-8s %s\n", "#", "name", "base", "vertices", "indices",
           "material", "skinned", "node joint");
    for (uint32_t i = 0; i < info->mesh_count; i++) {
        vkskin_mesh_info me;
        vkskin_joint_info node;
        vkskin_model_get_mesh(m, i, &me, NULL);
        vkskin_model_get_joint(m, me.node_joint, &node, NULL);
        printf("  %3u  %-24s %8u %8u %8u %9u  %-8s %u (%s)\n", i, me.name, me.base_vertex,
               me.vertex_count, me.index_count, me.material, me.skinned ? "yes" : "no",
               me.node_joint, node.name);
    }
}

static void print_materials(const vkskin_model *m, const vkskin_model_info *info)
{
    printf("materials: %u\n", info->material_count);
    for (uint32_t i = 0; i < info->material_count; i++) {
        vkskin_material_info ma;
        vkskin_model_get_material(m, i, &ma, NULL);
        printf("  %3u  %-24s base color (%.3f, %.3f, %.3f, %.3f)", i, ma.name, ma.base_color[0],
               ma.base_color[1], ma.base_color[2], ma.base_color[3]);
        if (ma.textured)
            printf("  texture %ux%u from %s\n", ma.texture_width, ma.texture_height,
                   ma.texture_source);
        else
            printf("  no texture\n");
    }
}

/* The morph targets, when there are any. */
static void print_targets(const vkskin_model *m, const vkskin_model_info *info)
{
    if (!info->target_count)
        return;
    printf("morph targets: %u (index, name, mesh, vertices moved, default weight, what)\n",
           info->target_count);
    for (uint32_t t = 0; t < info->target_count; t++) {
        vkskin_target_info ti;
        vkskin_model_get_target(m, t, &ti, NULL);
        printf("  %3u  %-24s %4u %8u  %-8.4g  %s%s%s\n", t, ti.name, ti.mesh, ti.vertex_count,
               ti.weight, ti.vertex_count ? "positions" : "nothing", ti.normals ? ", normals" : "",
               ti.tangents ? ", tangents" : "");
    }
}

static void print_clips(const vkskin_model *m, const vkskin_model_info *info)
{
    printf("clips: %u\n", info->clip_count);
    for (uint32_t i = 0; i < info->clip_count; i++) {
        vkskin_clip_info c;
        vkskin_model_get_clip(m, i, &c, NULL);
        printf("  %3u  %-24s %8.3f s  %u channels, keys: %u translation, %u rotation, %u scale", i,
               c.name, c.duration, c.channel_count, c.translation_keys, c.rotation_keys,
               c.scale_keys);
        if (c.weight_tracks) /* morph-target weights, per node that carries the meshes */
            printf("; %u weight track%s, %u keys", c.weight_tracks, c.weight_tracks == 1 ? "" : "s",
                   c.weight_keys);
        printf("\n");
        vkskin_travel_info t;
        if (vkskin_model_get_travel(m, i, &t, NULL) != VKSKIN_OK)
            continue;
        if (t.travels) {
            vkskin_joint_info j;
            vkskin_model_get_joint(m, (uint32_t)t.motion_joint, &j, NULL);
            printf("       travel: %.4g a loop, turning %.1f degrees, %.4g a second (root motion "
                   "from %s)\n",
                   t.distance, t.heading * 57.29577951308232, t.speed, j.name);
        } else if (t.ground_speed > 0.0f) {
            printf("       in place, locomotion: %.4g a second on the ground, towards (%.2f, %.2f) "
                   "(from its feet)\n",
                   t.ground_speed, t.ground_dir[0] + 0.0f, t.ground_dir[1] + 0.0f);
        }
    }
}

/* The influence statistics, the influences skinned per vertex, and the bind pose's bounds. */
static void print_influences(const vkskin_model_info *info)
{
    printf("influences (vertices of skinned meshes by joints kept):");
    for (uint32_t k = 0; k < 9; k++)
        printf(" %u: %u%s", k, info->influence_histogram[k], k == 0 ? " (follow their node)" : "");
    printf("\n  most in the file on one vertex: %u; truncated to 8: %u; renormalised (sum != 1): "
           "%u; dropped (weight <= 0): %u\n",
           info->max_file_influences, info->truncated, info->renormalised, info->dropped);
    /* Wide models carry influences 5 to 8 in streams of their own and skin with 8. */
    if (info->influences > 4)
        printf("skinning: %u influences per vertex (a vertex has %u in the file)\n",
               info->influences, info->max_file_influences);
    else
        printf("skinning: %u influences per vertex\n", info->influences);
    if (info->vertex_count)
        printf("bounds (bind pose, palette space): min (%.4g, %.4g, %.4g) max (%.4g, %.4g, "
               "%.4g)\n",
               info->bounds_min[0], info->bounds_min[1], info->bounds_min[2], info->bounds_max[0],
               info->bounds_max[1], info->bounds_max[2]);
}

/* The levels of detail: the whole character's, then each mesh's (material's) share. */
static void print_levels(const vkskin_model *m, const vkskin_model_info *info)
{
    printf("levels: %u (level, triangles, vertices, error over the clips in palette units, "
           "joints posed, how)\n",
           info->level_count);
    for (uint32_t l = 0; l < info->level_count; l++) {
        vkskin_level_info lv;
        vkskin_model_get_level(m, l, &lv, NULL);
        printf("  %3u  %8u %8u  %-10.4g %6u  %s\n", l, lv.triangle_count, lv.vertex_count, lv.error,
               lv.joint_count,
               l == 0    ? "as loaded"
               : lv.grid ? "grid"
                         : "edge collapses");
    }
    /* Each mesh's (material's) triangles at each level: one draw each. */
    for (uint32_t i = 0; i < info->mesh_count && info->level_count > 1; i++) {
        vkskin_mesh_info me;
        vkskin_model_get_mesh(m, i, &me, NULL);
        printf("  mesh %u %s: triangles", i, me.name);
        for (uint32_t l = 0; l < info->level_count; l++) {
            vkskin_mesh_level_info ml;
            vkskin_model_get_mesh_level(m, l, i, &ml, NULL);
            printf(" %u", ml.triangle_count);
        }
        printf("\n");
    }
}

static void print_model(const vkskin_model *m)
{
    vkskin_model_info info;
    vkskin_model_get_info(m, &info, NULL);
    printf("model: %s\n", info.name);
    print_meshes(m, &info);
    print_materials(m, &info);
    print_joint_tree(m, &info);
    print_targets(m, &info);
    print_clips(m, &info);
    print_influences(&info);
    print_levels(m, &info);
    printf("warnings: %u\n", info.warning_count);
    for (uint32_t i = 0; i < info.warning_count; i++)
        printf("  %s\n", vkskin_model_get_warning(m, i));
}

int cmd_info(int argc, char **argv)
{
    const char *motion_joint = NULL;
    const app_option options[] = {
        {"motion-joint", &motion_joint, NULL, "NAME",
         "the joint root motion is taken from (default: the root, or the hips where the root "
         "stays still)"},
    };
    const app_command cmd = {
        .name = "info",
        .summary = "Prints a model's meshes, vertex and index counts, materials, the joint tree,\n"
                   "clips with durations, key counts and what they travel (root motion), and\n"
                   "influence statistics.",
        .positional = "[MODEL]",
        .options = options,
        .option_count = sizeof options / sizeof options[0],
    };
    const char *path;
    int rc = app_parse(&cmd, argc, argv, &path);
    if (rc != APP_OK)
        return rc == APP_HELP ? APP_OK : rc;
    vkskin_model *model;
    vkskin_error err;
    if (app_load(path, motion_joint, &model, &err) != VKSKIN_OK) {
        fprintf(stderr, "vkskin info: %s\n", err.message);
        return APP_FAILED;
    }
    print_model(model);
    vkskin_model_destroy(model);
    return APP_OK;
}
