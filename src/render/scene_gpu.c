#include "scene_gpu.h"
#include "../asset/pack.h"
#include "../asset/texture.h"
#include "../core/alloc.h"

#include <assert.h>
#include <stdio.h>
#include <math.h>
#include <string.h>

static const VkBufferUsageFlags ADDRESSED =
    VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_SHADER_DEVICE_ADDRESS_BIT;

static bool upload(vks_scene_gpu *s, gpu_buffer *buf, const void *data, VkDeviceSize size,
                   VkBufferUsageFlags usage, const char *name, vks_error *err)
{
    return gpu_buffer_create_filled(
        s->dev, &(gpu_buffer_desc){.size = size, .usage = usage, .name = name}, data, buf, err);
}

/* Vertices of a model on the GPU: its level-0 vertices, then those of its levels of detail
 * (asset/model.h), each a copy of a level-0 vertex. */
static uint32_t gpu_vertices(const vks_model *m)
{
    return m->vertex_count + m->lod_vertex_count;
}

/* The level-0 vertex GPU vertex g of model m copies. */
static uint32_t source_of(const vks_model *m, uint32_t g)
{
    return g < m->vertex_count ? g : m->lod_source[g - m->vertex_count];
}

static uint32_t joint_words(const vks_model *m)
{
    return m->skeleton.joint_count > VKS_JOINTS8_MAX ? 2 : 1;
}

/* The level GPU vertex g of model m belongs to. */
static uint32_t level_of(const vks_model *m, uint32_t g)
{
    uint32_t l = 0;
    while (g >= m->vertex_count && l + 1 < vks_model_level_count(m) &&
           g - m->vertex_count >= m->levels[l + 1].vertex_first)
        l++;
    return l;
}

/* A model's joint indices (`joints`, level-0 vertices) in the stream's form, for each of its GPU
 * vertices: 4 x 8 bits in one uint when it has at most 256 joints, else 4 x 16 bits in two. A
 * level's vertices use its folded joints (bake/skeleton_lod.h). */
static void pack_joints(const vks_model *m, const uint16_t (*joints)[4], uint32_t *out)
{
    const bool wide16 = joint_words(m) == 2;
    for (uint32_t g = 0; g < gpu_vertices(m); g++) {
        const uint16_t *source = joints[source_of(m, g)];
        const uint32_t level = level_of(m, g);
        uint16_t j[4];
        for (int k = 0; k < 4; k++)
            j[k] = (uint16_t)vks_model_fold(m, level, source[k]);
        if (wide16) {
            out[2 * g] = j[0] | (uint32_t)j[1] << 16;
            out[2 * g + 1] = j[2] | (uint32_t)j[3] << 16;
        } else {
            out[g] = vks_quant_joints8(j);
        }
    }
}

/* Influences 5 to 8 of the wide models, one after the other; nothing when there is none (a
 * zero-size buffer is invalid, and the shaders read these only for wide instances). */
static bool create_extra_streams(vks_scene_gpu *s, uint32_t joint_uints, vks_error *err)
{
    const vks_crowd *c = s->crowd;
    const size_t n = s->extra_vertex_count;
    if (n == 0)
        return true;
    uint16_t(*wgt)[4] = vks_malloc(sizeof *wgt * n);
    uint32_t *jnt = vks_malloc(sizeof *jnt * joint_uints);
    bool ok = wgt && jnt;
    if (!ok)
        vks_fail_memory(err, "out of memory");
    for (uint32_t m = 0; ok && m < c->model_count; m++) {
        const vks_model *model = c->models[m];
        if (!vks_model_wide(model))
            continue;
        const size_t first = s->models[m].extra_first;
        for (uint32_t g = 0; g < gpu_vertices(model); g++)
            memcpy(wgt[first + g], model->packed->weights_extra[source_of(model, g)], sizeof *wgt);
        pack_joints(model, (const uint16_t(*)[4])model->joints_extra,
                    jnt + s->models[m].joints_extra_first);
    }
    ok = ok &&
         upload(s, &s->weights_extra, wgt, sizeof *wgt * n, ADDRESSED, "joint weights 5-8", err) &&
         upload(s, &s->joints_extra, jnt, sizeof *jnt * joint_uints, ADDRESSED, "joint indices 5-8",
                err);
    vks_free(wgt);
    vks_free(jnt);
    return ok;
}

/* The morph buffer (shaders/vks_shared.h, "Morph targets"): the targets of every model, their
 * deltas, then per GPU vertex of each morphed model its level-0 vertex; the model table's entries
 * say where theirs start. Nothing when no model has targets. */
static bool create_morphs(vks_scene_gpu *s, vks_model_gpu *table, vks_error *err)
{
    const vks_crowd *c = s->crowd;
    uint64_t targets = 0, deltas = 0, sources = 0;
    for (uint32_t m = 0; m < c->model_count; m++)
        if (c->models[m]->target_count) {
            targets += c->models[m]->target_count;
            deltas += c->models[m]->morph_delta_count;
            sources += gpu_vertices(c->models[m]);
        }
    if (!targets)
        return true;
    /* In uvec4s: 2 per target, 1 per delta, the sources 4 to a uvec4. */
    const uint64_t delta_first = 2 * targets, source_first = delta_first + deltas;
    const uint64_t size = 16 * (source_first + (sources + 3) / 4);
    if (4 * source_first + sources > UINT32_MAX)
        return vks_fail(err, "the crowd's morph targets take more than 2^32 words");
    uint32_t(*buf)[4] = vks_calloc(size / 16, sizeof *buf);
    if (!buf)
        return vks_fail_memory(err, "out of memory");
    uint32_t target = 0, delta = (uint32_t)delta_first, source = (uint32_t)(4 * source_first);
    for (uint32_t m = 0; m < c->model_count; m++) {
        const vks_model *model = c->models[m];
        if (!model->target_count)
            continue;
        const vks_packed *pk = model->packed;
        table[m].morph_offset = 3 * vks_crowd_pose_entries(model, c->dq[m]);
        table[m].target_first = target;
        table[m].source_first = source;
        for (uint32_t t = 0; t < model->target_count; t++, target++) {
            const vks_morph_target *tg = &model->targets[t];
            vks_target_gpu g = {.vertex_first = tg->vertex_first,
                                .vertex_count = tg->vertex_count,
                                .delta_first = delta + tg->delta_first};
            memcpy(g.steps, pk->morph_steps[t], sizeof pk->morph_steps[t]);
            memcpy(buf[2 * target], &g, sizeof g);
        }
        memcpy(buf[delta], pk->morph, sizeof *pk->morph * model->morph_delta_count);
        delta += model->morph_delta_count;
        for (uint32_t g = 0; g < gpu_vertices(model); g++, source++)
            buf[source / 4][source % 4] = source_of(model, g);
    }
    bool ok = upload(s, &s->morphs, buf, size, ADDRESSED, "morph targets", err);
    vks_free(buf);
    return ok;
}

/* The concatenated streams' totals, each model's place in them in s->models. */
typedef struct stream_counts {
    uint32_t vertices, indices, materials, extra, joints, joints_extra;
} stream_counts;

static stream_counts lay_out_models(vks_scene_gpu *s)
{
    const vks_crowd *c = s->crowd;
    stream_counts n = {0};
    for (uint32_t m = 0; m < c->model_count; m++) {
        const vks_model *model = c->models[m];
        assert(model->packed); /* vks_model_pack */
        const uint32_t count = gpu_vertices(model);
        s->models[m] = (vks_scene_model){.vertex_first = n.vertices,
                                         .first_index = n.indices,
                                         .lod_first_index = n.indices + model->index_count,
                                         .material_first = n.materials,
                                         .extra_first = n.extra,
                                         .joints_first = n.joints,
                                         .joints_extra_first = n.joints_extra};
        n.joints += count * joint_words(model);
        if (vks_model_wide(model)) {
            n.extra += count;
            n.joints_extra += count * joint_words(model);
        }
        n.vertices += count;
        n.indices += model->index_count + model->lod_index_count;
        n.materials += model->material_count;
    }
    return n;
}

/* Model m's entry of the model table: where its streams start, how its positions decode. */
static vks_model_gpu model_table_entry(const vks_scene_gpu *s, uint32_t m)
{
    const vks_model *model = s->crowd->models[m];
    const vks_packed *pk = model->packed;
    const vks_scene_model *rm = &s->models[m];
    vks_model_gpu t = {0};
    for (int k = 0; k < 3; k++) {
        t.box_offset[k] = pk->box.offset[k];
        t.box_scale[k] = pk->box.scale[k];
    }
    t.vertex_first = rm->vertex_first;
    t.extra_first = vks_model_wide(model) ? rm->extra_first : 0;
    t.flags = (model->tangents ? VKS_MODEL_TANGENTS : 0) |
              (joint_words(model) == 2 ? VKS_MODEL_JOINTS16 : 0);
    t.joints_first = rm->joints_first;
    t.joints_extra_first = vks_model_wide(model) ? rm->joints_extra_first : 0;
    t.palette_vec4s = vks_crowd_pose_vec4s(model, s->crowd->dq[m]);
    for (int row = 0; row < 3; row++) /* the crowd's placed (column-major) as rows */
        for (int col = 0; col < 4; col++)
            t.placed[row][col] = s->crowd->model_placed[m][col][row];
    const vks_splat *sp = &model->splat;
    if (sp->valid) {
        memcpy(t.splat_center, sp->center, sizeof sp->center);
        t.splat_center[3] = sp->radius2;
        memcpy(t.splat_cov, sp->cov, sizeof sp->cov);
        /* sRGB-encoded as a texel (alpha linear), as the resolve decodes it. */
        const float a = sp->color[3] < 0.0f ? 0.0f : sp->color[3] > 1.0f ? 1.0f : sp->color[3];
        uint32_t rgba = (uint32_t)lrintf(a * 255.0f) << 24;
        for (int k = 0; k < 3; k++)
            rgba |= (uint32_t)vks_srgb8_of_linear(sp->color[k]) << (8 * k);
        t.splat_info[0] = sp->joint;
        t.splat_info[1] = rgba;
        t.splat_info[2] = VKS_SPLAT_VALID;
    }
    return t;
}

/* Every model's compact streams (asset/pack.h), one after the other, each model's levels of
 * detail after its level 0; models without tangents get zeros. Its indices likewise (level 0's,
 * then the levels'). Then the model table: where each model's streams start and how its
 * positions decode. */
static bool create_streams(vks_scene_gpu *s, vks_error *err)
{
    const vks_crowd *c = s->crowd;
    const stream_counts counts = lay_out_models(s);
    const uint32_t vertices = counts.vertices, indices = counts.indices, joints = counts.joints;
    const uint32_t joints_extra = counts.joints_extra, materials = counts.materials,
                   extra = counts.extra;
    s->material_count = materials;
    s->extra_vertex_count = extra;
    const size_t n = vertices;
    uint16_t(*pos)[4] = vks_malloc(sizeof *pos * n), (*wgt)[4] = vks_malloc(sizeof *wgt * n);
    uint32_t *nrm = vks_malloc(sizeof *nrm * n), *tan = vks_calloc(n, sizeof *tan);
    uint32_t *jnt = vks_malloc(sizeof *jnt * joints);
    float(*uv)[2] = vks_malloc(sizeof *uv * n);
    uint32_t *idx = vks_malloc(sizeof *idx * (size_t)indices);
    vks_model_gpu *table = vks_calloc(c->model_count, sizeof *table);
    bool ok = pos && nrm && tan && wgt && uv && jnt && idx && table;
    if (!ok)
        vks_fail_memory(err, "out of memory");
    for (uint32_t m = 0; ok && m < c->model_count; m++) {
        const vks_model *model = c->models[m];
        const vks_packed *pk = model->packed;
        const vks_scene_model *rm = &s->models[m];
        for (uint32_t g = 0; g < gpu_vertices(model); g++) {
            const size_t at = rm->vertex_first + g, v = source_of(model, g);
            memcpy(pos[at], pk->positions[v], sizeof *pos);
            nrm[at] = pk->normals[v];
            if (pk->tangents)
                tan[at] = pk->tangents[v];
            memcpy(wgt[at], pk->weights[v], sizeof *wgt);
            memcpy(uv[at], model->uvs[v], sizeof *uv);
        }
        pack_joints(model, (const uint16_t(*)[4])model->joints, jnt + rm->joints_first);
        memcpy(idx + rm->first_index, model->indices, sizeof *idx * (size_t)model->index_count);
        if (model->lod_index_count)
            memcpy(idx + rm->lod_first_index, model->lod_indices,
                   sizeof *idx * (size_t)model->lod_index_count);
        table[m] = model_table_entry(s, m);
    }
    ok = ok && upload(s, &s->positions, pos, sizeof *pos * n, ADDRESSED, "bind positions", err) &&
         upload(s, &s->normals, nrm, sizeof *nrm * n, ADDRESSED, "bind normals", err) &&
         upload(s, &s->tangents, tan, sizeof *tan * n, ADDRESSED, "bind tangents", err) &&
         upload(s, &s->weights, wgt, sizeof *wgt * n, ADDRESSED, "joint weights", err) &&
         /* a host's draw binds them as a vertex buffer beside the output (vkskin_gpu_get_uvs) */
         upload(s, &s->uvs, uv, sizeof *uv * n,
                ADDRESSED | VK_BUFFER_USAGE_VERTEX_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_SRC_BIT,
                "uvs", err) &&
         upload(s, &s->joints, jnt, sizeof *jnt * joints, ADDRESSED, "joint indices", err) &&
         upload(s, &s->indices, idx, sizeof *idx * (size_t)indices,
                VK_BUFFER_USAGE_INDEX_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_SRC_BIT |
                    (s->index_addresses ? ADDRESSED : 0),
                "indices", err) && /* (a host may copy them: the library's tests do; the
                                      compute rasterizer and its resolve read them) */
         create_morphs(s, table, err) &&
         upload(s, &s->model_table, table, sizeof *table * c->model_count, ADDRESSED, "model table",
                err);
    vks_free(pos);
    vks_free(nrm);
    vks_free(tan);
    vks_free(wgt);
    vks_free(uv);
    vks_free(jnt);
    vks_free(idx);
    vks_free(table);
    return ok && create_extra_streams(s, joints_extra, err);
}

/* Instance i's entry of the instance table: its world transform (rows) and its model. */
vks_instance vks_scene_gpu_instance(const vks_crowd *c, uint32_t i)
{
    const vks_crowd_instance *inst = &c->instances[i];
    vks_instance t = {.model = inst->model};
    for (int row = 0; row < 3; row++)
        for (int col = 0; col < 4; col++)
            t.world[row][col] = inst->world[col][row];
    return t;
}

/* The instance table: each instance's world transform and its model, with room for
 * s->instance_capacity (the entries past the crowd's zeros, written when instances are added). */
static bool create_instances(vks_scene_gpu *s, vks_error *err)
{
    const vks_crowd *c = s->crowd;
    const uint32_t n = s->instance_capacity;
    vks_instance *table = vks_calloc(n, sizeof *table);
    if (!table)
        return vks_fail_memory(err, "out of memory");
    for (uint32_t i = 0; i < c->instance_count; i++)
        table[i] = vks_scene_gpu_instance(c, i);
    bool ok = upload(s, &s->instances, table, sizeof *table * n, ADDRESSED, "instance table", err);
    vks_free(table);
    return ok;
}

bool vks_scene_gpu_resize_instances(vks_scene_gpu *s, uint32_t capacity, vks_error *err)
{
    gpu_buffer_destroy(s->dev, &s->instances);
    s->instance_capacity = capacity;
    return create_instances(s, err);
}

static bool create_textures(vks_scene_gpu *s, vks_error *err)
{
    const vks_crowd *c = s->crowd;
    s->texture_count = 1;
    for (uint32_t m = 0; m < c->model_count; m++)
        s->texture_count += c->models[m]->texture_count;
    s->textures = vks_calloc(s->texture_count, sizeof *s->textures);
    if (!s->textures)
        return vks_fail_memory(err, "out of memory");
    uint32_t i = 0;
    for (uint32_t m = 0; m <= c->model_count; m++) {
        const vks_model *model = m < c->model_count ? c->models[m] : NULL;
        uint32_t count = model ? model->texture_count : 1;
        for (uint32_t k = 0; k < count; k++, i++) {
            const vks_texture *t = model ? &model->textures[k] : NULL;
            static const uint8_t white[4] = {255, 255, 255, 255};
            char name[96];
            snprintf(name, sizeof name, "texture %s", t ? t->source : "white");
            gpu_image_desc d = {
                .width = t ? t->width : 1,
                .height = t ? t->height : 1,
                .format = VK_FORMAT_R8G8B8A8_SRGB, /* glTF base color is sRGB-encoded */
                .usage = VK_IMAGE_USAGE_SAMPLED_BIT | VK_IMAGE_USAGE_TRANSFER_DST_BIT |
                         VK_IMAGE_USAGE_TRANSFER_SRC_BIT,
                .mips = true,
                .name = name,
            };
            if (!gpu_image_create(s->dev, &d, &s->textures[i], err) ||
                !gpu_image_upload_rgba8(s->dev, &s->textures[i], t ? t->rgba : white, err))
                return false;
        }
    }
    return true;
}

vks_streams vks_scene_gpu_streams(const vks_scene_gpu *s)
{
    vks_streams out;
    gpu_address_words(s->positions.address, out.positions);
    gpu_address_words(s->normals.address, out.normals);
    gpu_address_words(s->tangents.address, out.tangents);
    gpu_address_words(s->joints.address, out.joints);
    gpu_address_words(s->weights.address, out.weights);
    gpu_address_words(s->uvs.address, out.uvs);
    gpu_address_words(s->joints_extra.address, out.joints_extra); /* 0 without wide models */
    gpu_address_words(s->weights_extra.address, out.weights_extra);
    return out;
}

bool vks_scene_gpu_create(const gpu_device *dev, const vks_crowd *crowd,
                          const vks_scene_gpu_desc *desc, vks_scene_gpu *s, vks_error *err)
{
    *s = (vks_scene_gpu){.dev = dev,
                         .crowd = crowd,
                         .index_addresses = desc->index_addresses,
                         .instance_capacity = desc->instance_capacity > crowd->instance_count
                                                  ? desc->instance_capacity
                                                  : crowd->instance_count};
    if (create_streams(s, err) && create_instances(s, err) &&
        (!desc->textures || create_textures(s, err)))
        return true;
    vks_scene_gpu_destroy(s);
    return false;
}

void vks_scene_gpu_destroy(vks_scene_gpu *s)
{
    const gpu_device *dev = s->dev;
    if (!dev)
        return;
    for (uint32_t i = 0; s->textures && i < s->texture_count; i++)
        gpu_image_destroy(dev, &s->textures[i]);
    vks_free(s->textures);
    gpu_buffer *buffers[] = {&s->positions,    &s->normals,       &s->tangents,    &s->joints,
                             &s->weights,      &s->uvs,           &s->indices,     &s->instances,
                             &s->joints_extra, &s->weights_extra, &s->model_table, &s->morphs};
    for (size_t i = 0; i < sizeof buffers / sizeof buffers[0]; i++)
        gpu_buffer_destroy(dev, buffers[i]);
    *s = (vks_scene_gpu){0};
}

uint32_t vks_scene_gpu_level_vertex(const vks_scene_gpu *s, uint32_t model, uint32_t level)
{
    const vks_model *m = s->crowd->models[model];
    return s->models[model].vertex_first +
           (level ? m->vertex_count + vks_model_level(m, level).vertex_first : 0);
}

uint32_t vks_scene_gpu_level_index(const vks_scene_gpu *s, uint32_t model, uint32_t level)
{
    return level ? s->models[model].lod_first_index : s->models[model].first_index;
}
