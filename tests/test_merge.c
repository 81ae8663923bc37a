/* Meshes merged by material (src/bake/merge.h) on every model given: each file is imported
 * twice, one copy merged, and the merged model checked against the file's meshes: one mesh per
 * material, in the order the materials first appear; each merged mesh's triangles are its
 * parts' triangles in file order, every corner the same vertex (all streams compared byte for
 * byte); vertices and indices add up; its node joint is an ancestor of (or equal to) each part's;
 * a model whose materials are all distinct is left as it was, pointer for pointer. Single-colour
 * materials merged into one colour texture (vks_model_merge_colours): a model with more than
 * VKS_MERGE_COLOURS_MIN of them keeps its other materials in order plus one textured material,
 * each merged mesh's vertex reads, at its UV, a 2x2 block of its old factor's colour (sRGB-encoded
 * by the spec's formula, written again here, to half a step), the UV flat (past VKS_FLAT_UV),
 * every other stream unchanged; a
 * model with fewer is left as it was. vks_model_load merges both ways, and keeps the meshes apart
 * with keep_meshes.
 *   usage: test_merge MODEL... [--folder DIR]...  (a file that does not import is a failure) */
#include "check.h"

#include "asset/import.h"
#include "bake/load.h"
#include "bake/lod.h"
#include "bake/merge.h"

static size_t visited;

/* Vertex v of model m (all its streams) equals vertex w of model n, byte for byte. */
static bool same_vertex(const vks_model *m, uint32_t v, const vks_model *n, uint32_t w)
{
#define SAME(field)                                                                                \
    (!m->field == !n->field && (!m->field || !memcmp(m->field[v], n->field[w], sizeof m->field[v])))
    return SAME(positions) && SAME(normals) && SAME(tangents) && SAME(uvs) && SAME(joints) &&
           SAME(weights) && SAME(joints_extra) && SAME(weights_extra);
#undef SAME
}

static bool hangs_from(const vks_skeleton *s, uint32_t joint, uint32_t ancestor)
{
    for (int64_t j = joint; j >= 0; j = s->parents[j])
        if ((uint32_t)j == ancestor)
            return true;
    return false;
}

/* The spec's sRGB encoding of a linear channel, times 255. */
static double srgb255(double c)
{
    c = c < 0.0 ? 0.0 : c > 1.0 ? 1.0 : c;
    return 255.0 * (c <= 0.0031308 ? 12.92 * c : 1.055 * pow(c, 1.0 / 2.4) - 0.055);
}

/* vks_model_merge_colours on a fresh import of `path`, against the file; returns the distinct
 * materials its meshes use after it. */
static uint32_t check_colours(const char *path, const vks_model *file)
{
    vks_model m;
    vks_error err;
    if (!vks_model_import(&(vks_import_desc){.path = path}, &m, &err)) {
        CHECK(!"import failed");
        return 0;
    }
    uint32_t colours = 0, used = 0;
    char *seen = calloc(file->material_count + 1, 1);
    for (uint32_t i = 0; seen && i < file->mesh_count; i++) {
        const uint32_t mat = file->meshes[i].material;
        if (!seen[mat])
            used++, colours += file->materials[mat].texture < 0;
        seen[mat] = 1;
    }
    free(seen);
    const vks_material *materials = m.materials;
    CHECK(vks_model_merge_colours(&m, &err));
    if (colours <= VKS_MERGE_COLOURS_MIN) {
        CHECK(m.materials == materials && m.material_count == file->material_count &&
              m.texture_count == file->texture_count);
        vks_model_destroy(&m);
        return used;
    }
    CHECK(m.material_count == file->material_count - colours + 1);
    CHECK(m.texture_count == file->texture_count + 1);
    const vks_material *last = &m.materials[m.material_count - 1];
    CHECK(last->texture == (int32_t)file->texture_count && last->base_color[0] == 1.0f &&
          last->base_color[3] == 1.0f);
    const vks_texture *tex = &m.textures[m.texture_count - 1];
    uint32_t wrong = 0, streams_off = 0, kept_off = 0;
    double worst = 0.0;
    for (uint32_t i = 0; i < file->mesh_count; i++) {
        const vks_mesh *fm = &file->meshes[i], *mm = &m.meshes[i];
        const vks_material *was = &file->materials[fm->material];
        for (uint32_t v = fm->base_vertex; v < fm->base_vertex + fm->vertex_count; v++)
            streams_off += memcmp(file->positions[v], m.positions[v], sizeof m.positions[v]) != 0;
        if (was->texture >= 0) { /* kept: the same material, by name */
            kept_off += mm->material >= m.material_count - 1 ||
                        strcmp(m.materials[mm->material].name, was->name) != 0;
            continue;
        }
        wrong += mm->material != m.material_count - 1;
        for (uint32_t v = fm->base_vertex; v < fm->base_vertex + fm->vertex_count; v++) {
            /* The 2x2 texels around the UV, all the old factor's colour. */
            /* Flat (U past VKS_FLAT_UV), the texture repeating: the block at U - VKS_FLAT_UV. */
            if (!(m.uvs[v][0] >= VKS_FLAT_UV)) {
                wrong++;
                continue;
            }
            const double x = (m.uvs[v][0] - VKS_FLAT_UV) * tex->width - 0.5,
                         y = m.uvs[v][1] * tex->height - 0.5;
            const int x0 = (int)floor(x), y0 = (int)floor(y);
            if (x0 < 0 || y0 < 0 || x0 + 1 >= (int)tex->width || y0 + 1 >= (int)tex->height) {
                wrong++;
                continue;
            }
            for (int k = 0; k < 4; k++) {
                const uint8_t *t = tex->rgba + 4 * ((size_t)(y0 + k / 2) * tex->width + x0 + k % 2);
                for (int c = 0; c < 3; c++)
                    worst = fmax(worst, fabs(t[c] - srgb255(was->base_color[c])));
                worst = fmax(worst, fabs(t[3] - 255.0 * was->base_color[3]));
            }
        }
    }
    CHECK(wrong == 0 && streams_off == 0 && kept_off == 0);
    CHECK(worst <= 0.5 + 1e-6);
    printf("%s: %u single-colour materials in a %ux%u texture (colours within %.3g of a step)\n",
           path, colours, tex->width, tex->height, worst);
    vks_model_destroy(&m);
    return used - colours + 1;
}

static void visit(const char *path)
{
    vks_model file, merged;
    vks_error err;
    const vks_import_desc desc = {.path = path};
    if (!vks_model_import(&desc, &file, &err) || !vks_model_import(&desc, &merged, &err)) {
        fprintf(stderr, "%s: %s\n", path, err.msg);
        CHECK(!"import failed");
        return;
    }
    visited++;
    const void *positions = merged.positions;
    const vks_mesh *meshes = merged.meshes;
    CHECK(vks_model_merge_meshes(&merged, &err));

    /* The materials in the order they first appear: the merged meshes. */
    uint32_t materials = 0, *order = calloc(file.material_count + 1, sizeof *order);
    char *seen = calloc(file.material_count + 1, 1);
    for (uint32_t i = 0; order && seen && i < file.mesh_count; i++)
        if (!seen[file.meshes[i].material]) {
            seen[file.meshes[i].material] = 1;
            order[materials++] = file.meshes[i].material;
        }
    CHECK(merged.mesh_count == materials);
    CHECK(merged.vertex_count == file.vertex_count && merged.index_count == file.index_count);
    if (materials == file.mesh_count)
        CHECK(merged.positions == positions && merged.meshes == meshes);
    uint32_t sources = 0, vertices = 0;
    for (uint32_t g = 0; g < merged.mesh_count && g < materials; g++) {
        const vks_mesh *me = &merged.meshes[g];
        CHECK(me->material == order[g]);
        CHECK(me->base_vertex == vertices);
        vertices += me->vertex_count;
        sources += me->source_count;
        /* Its triangles: the parts' own, in file order, corner by corner. */
        uint32_t at = 0, parts = 0, part_vertices = 0;
        bool corners_same = true, skinned = false;
        for (uint32_t i = 0; i < file.mesh_count; i++) {
            const vks_mesh *part = &file.meshes[i];
            if (part->material != me->material)
                continue;
            parts++;
            part_vertices += part->vertex_count;
            skinned = skinned || part->skinned;
            CHECK(hangs_from(&merged.skeleton, part->node_joint, me->node_joint));
            for (uint32_t k = 0; k < part->index_count && at + k < me->index_count; k++) {
                const uint32_t v = part->base_vertex + file.indices[part->first_index + k];
                const uint32_t w = me->base_vertex + merged.indices[me->first_index + at + k];
                corners_same = corners_same && w < me->base_vertex + me->vertex_count &&
                               same_vertex(&file, v, &merged, w);
            }
            at += part->index_count;
        }
        CHECK(corners_same);
        CHECK(at == me->index_count);
        CHECK(parts == me->source_count && part_vertices == me->vertex_count);
        CHECK(skinned == me->skinned);
        if (parts == 1)
            for (uint32_t i = 0; i < file.mesh_count; i++)
                if (file.meshes[i].material == me->material)
                    CHECK(strcmp(file.meshes[i].name, me->name) == 0);
    }
    CHECK(sources == file.mesh_count && vertices == merged.vertex_count);
    /* Morph targets follow their vertices: each keeps its name, weight, deltas and vertex
     * count; its range now holds the same vertices (every stream), inside the merged mesh its
     * part joined. */
    CHECK(merged.target_count == file.target_count);
    uint32_t targets_wrong = 0;
    for (uint32_t t = 0; t < file.target_count && t < merged.target_count; t++) {
        const vks_morph_target *a = &file.targets[t], *b = &merged.targets[t];
        const vks_mesh *into = &merged.meshes[b->mesh];
        bool ok = strcmp(a->name, b->name) == 0 && a->weight == b->weight &&
                  a->vertex_count == b->vertex_count && a->delta_first == b->delta_first &&
                  b->mesh < merged.mesh_count && into->material == file.meshes[a->mesh].material &&
                  b->vertex_first >= into->base_vertex &&
                  b->vertex_first + b->vertex_count <= into->base_vertex + into->vertex_count;
        for (uint32_t k = 0; ok && k < a->vertex_count; k++)
            ok = same_vertex(&file, a->vertex_first + k, &merged, b->vertex_first + k);
        targets_wrong += !ok;
    }
    CHECK(targets_wrong == 0);
    printf("%s: %u meshes in %u materials -> %u meshes (%u morph targets)\n", path, file.mesh_count,
           file.material_count, merged.mesh_count, merged.target_count);
    free(order), free(seen);
    vks_model_destroy(&file);
    vks_model_destroy(&merged);

    /* The load merges (colours first); keep_meshes keeps the file's meshes. */
    vks_model loaded, kept, again;
    if (!vks_model_import(&desc, &again, &err)) {
        CHECK(!"import failed");
        return;
    }
    const uint32_t after_colours = check_colours(path, &again);
    vks_model_destroy(&again);
    if (vks_model_load(&desc, &loaded, &err)) {
        CHECK(loaded.mesh_count == after_colours);
        vks_model_destroy(&loaded);
    } else {
        CHECK(!"vks_model_load failed");
    }
    if (vks_model_load(&(vks_import_desc){.path = path, .keep_meshes = true}, &kept, &err)) {
        CHECK(kept.mesh_count == sources);
        vks_model_destroy(&kept);
    } else {
        CHECK(!"vks_model_load with keep_meshes failed");
    }
}

int main(int argc, char **argv)
{
    int rc = check_each_model_arg(argc, argv, visit, &visited);
    if (rc)
        return rc;
    return check_report("test_merge");
}
