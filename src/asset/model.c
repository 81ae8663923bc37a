#include "model.h"
#include "../core/alloc.h"
#include "pack.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

static void free_strings(char **strings, uint32_t count)
{
    if (!strings)
        return;
    for (uint32_t i = 0; i < count; i++)
        vks_free(strings[i]);
    vks_free(strings);
}

uint32_t vks_model_influences(const vks_model *m, uint32_t v, uint16_t joints[VKS_WIDE_INFLUENCES],
                              float weights[VKS_WIDE_INFLUENCES])
{
    uint32_t n = 0;
    for (uint32_t k = 0; k < VKS_WIDE_INFLUENCES; k++) {
        bool extra = k >= VKS_MAX_INFLUENCES;
        if (extra && !m->weights_extra)
            break;
        uint32_t e = k - VKS_MAX_INFLUENCES;
        float w = extra ? m->weights_extra[v][e] : m->weights[v][k];
        if (w > 0.0f) {
            joints[n] = extra ? m->joints_extra[v][e] : m->joints[v][k];
            weights[n++] = w;
        }
    }
    return n;
}

void vks_clip_free(vks_clip *c)
{
    vks_free(c->name);
    vks_free(c->tracks);
    vks_free(c->t_times);
    vks_free(c->t_values);
    vks_free(c->r_times);
    vks_free(c->r_values);
    vks_free(c->s_times);
    vks_free(c->s_values);
    vks_free(c->weight_tracks);
    vks_free(c->w_times);
    vks_free(c->w_values);
    memset(c, 0, sizeof *c);
}

void vks_model_destroy(vks_model *m)
{
    vks_free(m->name);
    vks_free(m->positions);
    vks_free(m->normals);
    vks_free(m->tangents);
    vks_free(m->uvs);
    vks_free(m->joints);
    vks_free(m->weights);
    vks_free(m->joints_extra);
    vks_free(m->weights_extra);
    vks_packed_free(m->packed);
    vks_free(m->mesh_levels);
    vks_free(m->lod_source);
    vks_free(m->lod_indices);
    vks_free(m->joint_fold);
    vks_free(m->pose_order);
    vks_free(m->indices);
    for (uint32_t i = 0; i < m->mesh_count; i++)
        vks_free(m->meshes[i].name);
    vks_free(m->meshes);
    for (uint32_t i = 0; i < m->material_count; i++)
        vks_free(m->materials[i].name);
    vks_free(m->materials);
    for (uint32_t i = 0; i < m->texture_count; i++) {
        vks_free(m->textures[i].source);
        vks_free(m->textures[i].rgba);
    }
    vks_free(m->textures);
    vks_skeleton *sk = &m->skeleton;
    free_strings(sk->names, sk->joint_count);
    vks_free(sk->parents);
    vks_free(sk->rest);
    vks_free(sk->inverse_bind);
    for (uint32_t i = 0; i < m->clip_count; i++)
        vks_clip_free(&m->clips[i]);
    for (uint32_t i = 0; m->root_motion && i < m->clip_count; i++) {
        vks_free(m->root_motion[i].samples);
        vks_clip_free(&m->root_motion[i].in_place);
    }
    vks_free(m->root_motion);
    vks_free(m->clips);
    for (uint32_t t = 0; m->targets && t < m->target_count; t++)
        vks_free(m->targets[t].name);
    vks_free(m->targets);
    vks_free(m->morph_positions);
    vks_free(m->morph_normals);
    vks_free(m->morph_tangents);
    free_strings(m->warnings, m->warning_count);
    memset(m, 0, sizeof *m);
}

int32_t vks_model_find_clip(const vks_model *m, const char *name)
{
    for (uint32_t i = 0; i < m->clip_count; i++)
        if (strcmp(m->clips[i].name, name) == 0)
            return (int32_t)i;
    char *end;
    unsigned long i = strtoul(name, &end, 10);
    if (name[0] >= '0' && name[0] <= '9' && *end == '\0' && i < m->clip_count)
        return (int32_t)i;
    return -1;
}

vks_level vks_model_level(const vks_model *m, uint32_t level)
{
    if (m->level_count) {
        assert(level < m->level_count);
        return m->levels[level];
    }
    assert(level == 0);
    return (vks_level){.vertex_count = m->vertex_count,
                       .triangle_count = m->index_count / 3,
                       .joint_count = m->skeleton.joint_count};
}

vks_mesh_level vks_model_mesh_level(const vks_model *m, uint32_t level, uint32_t mesh)
{
    assert(mesh < m->mesh_count);
    if (m->level_count) {
        assert(level < m->level_count);
        return m->mesh_levels[(size_t)level * m->mesh_count + mesh];
    }
    assert(level == 0);
    const vks_mesh *me = &m->meshes[mesh];
    return (vks_mesh_level){me->first_index, me->index_count, me->base_vertex};
}
