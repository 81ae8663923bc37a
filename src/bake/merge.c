/* Meshes merged by material (merge.h). */
#include "merge.h"
#include "../core/alloc.h"
#include "../asset/texture.h"
#include "../../shaders/vks_shared.h" /* VKS_FLAT_UV */

#include <assert.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The joint both a and b hang from (the nearest common ancestor; parents come first), or a when
 * they have none. */
static uint32_t merge__common_joint(const vks_skeleton *s, uint32_t a, uint32_t b)
{
    int64_t x = a, y = b;
    while (x != y && x >= 0 && y >= 0) {
        if (x > y)
            x = s->parents[x];
        else
            y = s->parents[y];
    }
    return x == y && x >= 0 ? (uint32_t)x : a;
}

/* The vertex streams, each one element per vertex (NULL ones absent): their fields in the model
 * and element sizes. */
enum { MERGE_STREAMS = 8 };
static void merge__streams(vks_model *m, void **fields[MERGE_STREAMS], size_t sizes[MERGE_STREAMS])
{
    void **f[MERGE_STREAMS] = {(void **)&m->positions,    (void **)&m->normals,
                               (void **)&m->tangents,     (void **)&m->uvs,
                               (void **)&m->joints,       (void **)&m->weights,
                               (void **)&m->joints_extra, (void **)&m->weights_extra};
    const size_t z[MERGE_STREAMS] = {sizeof *m->positions,    sizeof *m->normals,
                                     sizeof *m->tangents,     sizeof *m->uvs,
                                     sizeof *m->joints,       sizeof *m->weights,
                                     sizeof *m->joints_extra, sizeof *m->weights_extra};
    memcpy(fields, f, sizeof f);
    memcpy(sizes, z, sizeof z);
}

/* Gathers `stream` (elements of `size` bytes, one per vertex) in the merged order: mesh order[k]'s
 * vertices one after the other. A NULL stream stays NULL; false when out of memory. */
static bool merge__gather(const void *stream, size_t size, const vks_model *m,
                          const uint32_t *order, void **out)
{
    *out = NULL;
    if (!stream)
        return true;
    char *dst = vks_malloc(size * m->vertex_count);
    if (!dst)
        return false;
    size_t at = 0;
    for (uint32_t k = 0; k < m->mesh_count; k++) {
        const vks_mesh *me = &m->meshes[order[k]];
        memcpy(dst + at * size, (const char *)stream + (size_t)me->base_vertex * size,
               size * me->vertex_count);
        at += me->vertex_count;
    }
    assert(at == m->vertex_count);
    *out = dst;
    return true;
}

/* The meshes grouped by material, each group where its material first appears: order[k] the
 * k-th mesh in the merged order, group_of[k] the merged mesh it joins. first_of: room for a
 * group per material. Returns the number of groups. */
static uint32_t merge__group(const vks_model *m, uint32_t *order, uint32_t *group_of,
                             int32_t *first_of)
{
    const uint32_t n = m->mesh_count;
    for (uint32_t i = 0; i < m->material_count; i++)
        first_of[i] = -1;
    uint32_t groups = 0, at = 0;
    for (uint32_t i = 0; i < n; i++) {
        const uint32_t mat = m->meshes[i].material;
        assert(mat < m->material_count);
        if (first_of[mat] >= 0)
            continue;
        first_of[mat] = (int32_t)groups;
        for (uint32_t j = i; j < n; j++)
            if (m->meshes[j].material == mat) {
                order[at] = j;
                group_of[at++] = groups;
            }
        groups++;
    }
    assert(at == n);
    return groups;
}

/* The merged meshes: vertices and indices in the gathered order, each part's indices moved by
 * the vertices of the parts before it in its group. Per part, moved_to gets where its vertices
 * start now and its merged mesh (for the morph targets). */
static void merge__parts(const vks_model *m, const uint32_t *order, const uint32_t *group_of,
                         vks_mesh *meshes, uint32_t *indices, uint32_t *moved_to)
{
    uint32_t vertex_at = 0, index_at = 0;
    for (uint32_t k = 0; k < m->mesh_count; k++) {
        const vks_mesh *src = &m->meshes[order[k]];
        vks_mesh *dst = &meshes[group_of[k]];
        moved_to[2 * order[k]] = vertex_at;
        moved_to[2 * order[k] + 1] = group_of[k];
        if (!dst->source_count) { /* its first part: the merged mesh starts here, named by it */
            *dst = (vks_mesh){.name = src->name,
                              .base_vertex = vertex_at,
                              .first_index = index_at,
                              .material = src->material,
                              .node_joint = src->node_joint};
        } else {
            dst->node_joint = merge__common_joint(&m->skeleton, dst->node_joint, src->node_joint);
        }
        const uint32_t shift = vertex_at - dst->base_vertex;
        for (uint32_t i = 0; i < src->index_count; i++)
            indices[index_at + i] = m->indices[src->first_index + i] + shift;
        dst->vertex_count += src->vertex_count;
        dst->index_count += src->index_count;
        dst->skinned = dst->skinned || src->skinned;
        assert(src->source_count == 1); /* as imported */
        dst->source_count++;
        vertex_at += src->vertex_count;
        index_at += src->index_count;
    }
    assert(vertex_at == m->vertex_count && index_at == m->index_count);
}

/* Names: a part alone keeps its own; a merged mesh is its first part's and a count. Until here
 * each holds its first part's pointer; *named of them hold their own copy after (NULL for the
 * last when out of memory, which returns false). */
static bool merge__name(vks_mesh *meshes, uint32_t groups, uint32_t *named)
{
    bool ok = true;
    uint32_t g = 0;
    for (; ok && g < groups; g++) {
        vks_mesh *me = &meshes[g];
        char buf[160];
        if (me->source_count == 1)
            snprintf(buf, sizeof buf, "%s", me->name);
        else
            snprintf(buf, sizeof buf, "%.120s +%u", me->name, me->source_count - 1);
        ok = (me->name = vks_strdup(buf)) != NULL; /* NULL on failure: freeing it is harmless */
    }
    *named = g;
    return ok;
}

/* The merged meshes, indices and streams in the model's place, and the morph targets moved with
 * their parts' vertices (each names its merged mesh). */
static void merge__install(vks_model *m, vks_mesh *meshes, uint32_t groups, uint32_t *indices,
                           void **fields[MERGE_STREAMS], void *streams[MERGE_STREAMS],
                           const uint32_t *moved_to)
{
    for (uint32_t t = 0; t < m->target_count; t++) {
        vks_morph_target *tg = &m->targets[t];
        const uint32_t part = tg->mesh;
        tg->vertex_first = moved_to[2 * part] + (tg->vertex_first - m->meshes[part].base_vertex);
        tg->mesh = moved_to[2 * part + 1];
    }
    for (uint32_t i = 0; i < m->mesh_count; i++)
        vks_free(m->meshes[i].name);
    vks_free(m->meshes);
    m->meshes = meshes;
    m->mesh_count = groups;
    vks_free(m->indices);
    m->indices = indices;
    for (int s = 0; s < MERGE_STREAMS; s++) {
        vks_free(*fields[s]);
        *fields[s] = streams[s];
    }
}

bool vks_model_merge_meshes(vks_model *m, vks_error *err)
{
    assert(!m->packed && !m->level_count);
    const uint32_t n = m->mesh_count;
    uint32_t *order = vks_malloc(sizeof *order * (n ? n : 1));
    uint32_t *group_of = vks_malloc(sizeof *group_of * (n ? n : 1));
    int32_t *first_of = vks_malloc(sizeof *first_of * (m->material_count ? m->material_count : 1));
    if (!order || !group_of || !first_of) {
        vks_free(order), vks_free(group_of), vks_free(first_of);
        return vks_fail_memory(err, "out of memory merging %s's meshes", m->name);
    }
    const uint32_t groups = merge__group(m, order, group_of, first_of);
    vks_free(first_of);
    if (groups == n) {
        vks_free(order), vks_free(group_of);
        return true;
    }

    void **fields[MERGE_STREAMS], *streams[MERGE_STREAMS] = {0};
    size_t sizes[MERGE_STREAMS];
    merge__streams(m, fields, sizes);
    vks_mesh *meshes = vks_calloc(groups, sizeof *meshes);
    uint32_t *indices = vks_malloc(sizeof *indices * (m->index_count ? m->index_count : 1));
    bool ok = meshes && indices;
    for (int s = 0; ok && s < MERGE_STREAMS; s++)
        ok = merge__gather(*fields[s], sizes[s], m, order, &streams[s]);
    uint32_t *moved_to = vks_malloc(sizeof *moved_to * 2 * n);
    ok = ok && moved_to;
    if (ok)
        merge__parts(m, order, group_of, meshes, indices, moved_to);
    uint32_t named = 0;
    if (ok)
        ok = merge__name(meshes, groups, &named);
    vks_free(order), vks_free(group_of);
    if (!ok) {
        vks_free(moved_to);
        for (uint32_t g = 0; meshes && g < named; g++)
            vks_free(meshes[g].name);
        vks_free(meshes), vks_free(indices);
        for (int s = 0; s < MERGE_STREAMS; s++)
            vks_free(streams[s]);
        return vks_fail_memory(err, "out of memory merging %s's meshes", m->name);
    }
    merge__install(m, meshes, groups, indices, fields, streams, moved_to);
    vks_free(moved_to);
    return true;
}

/* ---- Single-colour materials into one colour texture ---- */

bool vks_model_merge_colours(vks_model *m, vks_error *err)
{
    assert(!m->packed && !m->level_count);
    /* The single-colour materials some mesh uses: slot[i], their block (UINT32_MAX: not one). */
    uint32_t *slot = vks_malloc(sizeof *slot * (m->material_count ? m->material_count : 1));
    if (!slot)
        return vks_fail_memory(err, "out of memory merging %s's colours", m->name);
    for (uint32_t i = 0; i < m->material_count; i++)
        slot[i] = UINT32_MAX;
    uint32_t colours = 0;
    for (uint32_t k = 0; k < m->mesh_count; k++) {
        const uint32_t mat = m->meshes[k].material;
        if (m->materials[mat].texture < 0 && slot[mat] == UINT32_MAX)
            slot[mat] = colours++;
    }
    /* Past 2^20 colours the texture's side passes 2048, where a block's centre past
     * VKS_FLAT_UV is no longer exact in a float: left as they are. */
    if (colours <= VKS_MERGE_COLOURS_MIN || colours > (1u << 20)) {
        vks_free(slot);
        return true;
    }
    /* The texture: g x g blocks of 2x2 texels, colour c at block (c % g, c / g); g a power of two,
     * so that the blocks' centres are exact in a float past VKS_FLAT_UV. */
    uint32_t g = 1;
    while ((uint64_t)g * g < colours)
        g *= 2;
    const uint32_t side = 2 * g;
    uint8_t *rgba = vks_calloc((size_t)side * side, 4);
    char *source = vks_strdup("the model's single-colour materials");
    char name[64];
    snprintf(name, sizeof name, "%u colours", colours);
    char *mat_name = vks_strdup(name);
    vks_texture *textures = vks_realloc(m->textures, sizeof *textures * (m->texture_count + 1));
    if (textures)
        m->textures = textures;
    const uint32_t kept = m->material_count - colours + 1;
    vks_material *materials = vks_calloc(kept, sizeof *materials);
    float(*uvs)[2] =
        m->uvs ? m->uvs : vks_calloc(m->vertex_count ? m->vertex_count : 1, sizeof *uvs);
    if (!rgba || !source || !mat_name || !textures || !materials || !uvs) {
        vks_free(rgba), vks_free(source), vks_free(mat_name), vks_free(materials), vks_free(slot);
        if (uvs != m->uvs)
            vks_free(uvs);
        return vks_fail_memory(err, "out of memory merging %s's colours", m->name);
    }
    /* The materials kept, in their order, then the colours' one. slot[] becomes the map: a kept
     * material's new index, or UINT32_MAX - 1 - c for colour c. */
    uint32_t at = 0;
    for (uint32_t i = 0; i < m->material_count; i++) {
        if (slot[i] != UINT32_MAX) {
            const vks_material *mt = &m->materials[i];
            const uint32_t c = slot[i], x = 2 * (c % g), y = 2 * (c / g);
            const uint8_t texel[4] = {
                vks_srgb8_of_linear(mt->base_color[0]), vks_srgb8_of_linear(mt->base_color[1]),
                vks_srgb8_of_linear(mt->base_color[2]),
                (uint8_t)lround(fmin(fmax(mt->base_color[3], 0.0), 1.0) * 255.0)};
            for (uint32_t dy = 0; dy < 2; dy++)
                for (uint32_t dx = 0; dx < 2; dx++)
                    memcpy(rgba + 4 * ((size_t)(y + dy) * side + x + dx), texel, 4);
            vks_free(mt->name);
            /* its block's centre, for its meshes' vertices below */
            slot[i] = UINT32_MAX - 1 - c;
        } else {
            materials[at] = m->materials[i];
            slot[i] = at++;
        }
    }
    assert(at == kept - 1);
    materials[at] = (vks_material){.name = mat_name,
                                   .base_color = {1.0f, 1.0f, 1.0f, 1.0f},
                                   .texture = (int32_t)m->texture_count};
    m->textures[m->texture_count++] =
        (vks_texture){.source = source, .width = side, .height = side, .rgba = rgba};
    for (uint32_t k = 0; k < m->mesh_count; k++) {
        vks_mesh *me = &m->meshes[k];
        const uint32_t s = slot[me->material];
        if (s < kept - 1) { /* a material kept */
            me->material = s;
            continue;
        }
        const uint32_t c = UINT32_MAX - 1 - s; /* a colour's block */
        /* Flat (VKS_FLAT_UV): the levels of detail join corners of different colours, whose
         * blocks an interpolated UV would cross. */
        const float u = (float)VKS_FLAT_UV + (float)(2 * (c % g) + 1) / (float)side,
                    v = (float)(2 * (c / g) + 1) / (float)side;
        for (uint32_t i = 0; i < me->vertex_count; i++)
            uvs[me->base_vertex + i][0] = u, uvs[me->base_vertex + i][1] = v;
        me->material = at;
    }
    vks_free(m->materials);
    m->materials = materials;
    m->material_count = kept;
    m->uvs = uvs;
    vks_free(slot);
    return true;
}
