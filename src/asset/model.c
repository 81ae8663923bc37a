#include "model.h"
#include "pack.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

static void free_strings(char **strings, uint32_t count)
{
    if (!strings)
        return;
    for (uint32_t i = 0; i < count; i++)
        free(strings[i]);
    free(strings);
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
    free(c->name);
    free(c->tracks);
    free(c->t_times);
    free(c->t_values);
    free(c->r_times);
    free(c->r_values);
    free(c->s_times);
    free(c->s_values);
    memset(c, 0, sizeof *c);
}

void vks_model_destroy(vks_model *m)
{
    free(m->name);
    free(m->positions);
    free(m->normals);
    free(m->tangents);
    free(m->uvs);
    free(m->joints);
    free(m->weights);
    free(m->joints_extra);
    free(m->weights_extra);
    vks_packed_free(m->packed);
    free(m->mesh_levels);
    free(m->lod_source);
    free(m->lod_indices);
    free(m->joint_fold);
    free(m->pose_order);
    free(m->indices);
    for (uint32_t i = 0; i < m->mesh_count; i++)
        free(m->meshes[i].name);
    free(m->meshes);
    for (uint32_t i = 0; i < m->material_count; i++)
        free(m->materials[i].name);
    free(m->materials);
    for (uint32_t i = 0; i < m->texture_count; i++) {
        free(m->textures[i].source);
        free(m->textures[i].rgba);
    }
    free(m->textures);
    vks_skeleton *sk = &m->skeleton;
    free_strings(sk->names, sk->joint_count);
    free(sk->parents);
    free(sk->rest);
    free(sk->inverse_bind);
    for (uint32_t i = 0; i < m->clip_count; i++)
        vks_clip_free(&m->clips[i]);
    free(m->clips);
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
