/* The public API (include/vkskin/vkskin.h) over the engine: every check a caller's mistake needs,
 * then one call into asset/, anim/ or scene/. */
#include "api.h"
#include "../core/alloc.h"

#include "anim/anim.h"
#include "bake/load.h"
#include "bake/lod.h"
#include "scene/camera.h"
#include "skin/dqs.h"
#include "skin/skin_cpu.h"

#include <float.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

vkskin_result vkskin_set_allocator(const vkskin_allocator *allocator, vkskin_error *err)
{
    if (allocator && (!allocator->alloc || !allocator->free))
        return vks_api_fail(err, VKSKIN_ERROR_ARGUMENT,
                            "vkskin_set_allocator: alloc and free are both needed (or no "
                            "allocator: the C library's)");
    const long live = vks_live_objects();
    if (live)
        return vks_api_fail(err, VKSKIN_ERROR_ARGUMENT,
                            "vkskin_set_allocator: %ld vkskin object(s) still live: the allocator "
                            "changes only before the first is made or after the last is destroyed",
                            live);
    vks_set_allocator(
        allocator ? &(vks_allocator){allocator->alloc, allocator->free, allocator->user} : NULL);
    return vks_api_ok(err);
}

vkskin_result vks_api_desc(const char *call, const char *type, const void **desc, void *copy,
                           size_t known, vkskin_error *err)
{
    if (!*desc)
        return VKSKIN_OK;
    uint32_t size;
    memcpy(&size, *desc, sizeof size);
    if (size < sizeof size)
        return vks_api_fail(err, VKSKIN_ERROR_ARGUMENT,
                            "%s: %s->desc_size is %u: set it to the desc's sizeof (the layout "
                            "your vkskin headers have)",
                            call, type, size);
    const unsigned char *bytes = *desc;
    for (size_t k = known; k < size; k++)
        if (bytes[k])
            return vks_api_fail(err, VKSKIN_ERROR_ARGUMENT,
                                "%s: %s is %u bytes with fields set past the %zu this vkskin (%s) "
                                "knows: it comes from newer headers than this library",
                                call, type, size, known, VKSKIN_VERSION_STRING);
    memset(copy, 0, known);
    memcpy(copy, *desc, size < known ? size : known);
    /* The copy is this library's layout now: checking it again reads no byte past it. */
    const uint32_t copied = (uint32_t)(size < known ? size : known);
    memcpy(copy, &copied, sizeof copied);
    *desc = copy;
    return VKSKIN_OK;
}

vkskin_result vks_api_fail(vkskin_error *err, vkskin_result result, const char *fmt, ...)
{
    if (err) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err->message, sizeof err->message, fmt, ap);
        va_end(ap);
        err->result = result;
    }
    return result;
}

vkskin_result vks_api_fail_from(vkskin_error *err, const vks_error *e, vkskin_result failed)
{
    const vkskin_result r = e->kind == VKS_ERROR_MEMORY  ? VKSKIN_ERROR_OUT_OF_MEMORY
                            : e->kind == VKS_ERROR_USAGE ? VKSKIN_ERROR_ARGUMENT
                                                         : failed;
    return vks_api_fail(err, r, "%s", e->msg);
}

vkskin_result vks_api_ok(vkskin_error *err)
{
    if (err) {
        err->result = VKSKIN_OK;
        err->message[0] = '\0';
    }
    return VKSKIN_OK;
}

_Static_assert(VKSKIN_MAX_MODELS == VKS_CROWD_MAX_MODELS &&
                   VKSKIN_MAX_INSTANCES == VKS_CROWD_MAX_INSTANCES,
               "the public limits are the engine's");

const char *vkskin_version(void)
{
    return VKSKIN_VERSION_STRING;
}

uint32_t vkskin_cores(void)
{
    return vks_pool_cores();
}

/* ---- Models ---- */

vkskin_result vkskin_model_load(const vkskin_model_desc *desc, vkskin_model **model,
                                vkskin_error *err)
{
    if (model)
        *model = NULL;
    vkskin_model_desc desc_copy;
    const vkskin_result desc_result = VKS_API_DESC("vkskin_model_load", desc, &desc_copy, err);
    if (desc_result != VKSKIN_OK)
        return desc_result;
    if (!desc || !model)
        return vks_api_fail(err, VKSKIN_ERROR_ARGUMENT,
                            "vkskin_model_load: desc and model are needed");
    if (!desc->path == !desc->data)
        return vks_api_fail(err, VKSKIN_ERROR_ARGUMENT,
                            "vkskin_model_load: give either a path or data, not %s",
                            desc->path ? "both" : "neither");
    if (desc->data && desc->size == 0)
        return vks_api_fail(err, VKSKIN_ERROR_ARGUMENT, "vkskin_model_load: data of 0 bytes");
    struct vkskin_model *m = vks_object_alloc(sizeof *m);
    if (!m)
        return vks_api_fail(err, VKSKIN_ERROR_OUT_OF_MEMORY, "out of memory for a model");
    vks_error e;
    const vks_import_desc import = {
        .path = desc->path,
        .data = desc->data,
        .size = desc->size,
        .hint = desc->format_hint,
        .name = desc->path   ? NULL
                : desc->name ? desc->name
                             : "memory",
        .in_process = !desc->isolate,
        .keep_meshes = desc->keep_meshes,
        .motion_joint = desc->motion_joint,
    };
    if (!vks_model_load(&import, &m->model, &e)) {
        vks_object_free(m);
        return vks_api_fail_from(err, &e, VKSKIN_ERROR_LOAD);
    }
    if (!vks_skin_cpu_bind_box(&m->model, m->lo, m->hi)) {
        vks_model_destroy(&m->model);
        vks_object_free(m);
        return vks_api_fail(err, VKSKIN_ERROR_OUT_OF_MEMORY, "out of memory for a model's bounds");
    }
    *model = m;
    return vks_api_ok(err);
}

void vkskin_model_destroy(vkskin_model *m)
{
    if (!m)
        return;
    vks_model_destroy(&m->model);
    vks_object_free(m);
}

/* Whether any of n deltas (3 floats each) is not zero. */
static bool any_delta(const float (*d)[3], uint32_t n)
{
    for (uint32_t i = 0; d && i < n; i++)
        if (d[i][0] != 0.0f || d[i][1] != 0.0f || d[i][2] != 0.0f)
            return true;
    return false;
}

vkskin_result vkskin_model_get_target(const vkskin_model *m, uint32_t target,
                                      vkskin_target_info *info, vkskin_error *err)
{
    if (!m || !info)
        return vks_api_fail(err, VKSKIN_ERROR_ARGUMENT,
                            "vkskin_model_get_target: a model and an info to fill are needed");
    const vks_model *model = &m->model;
    if (target >= model->target_count)
        return vks_api_fail(err, VKSKIN_ERROR_ARGUMENT, "%s has %u morph target(s): no target %u",
                            model->name, model->target_count, target);
    const vks_morph_target *t = &model->targets[target];
    *info = (vkskin_target_info){
        .name = t->name,
        .mesh = t->mesh,
        .weight = t->weight,
        .vertex_count = t->vertex_count,
        .normals =
            model->morph_normals &&
            any_delta((const float(*)[3])model->morph_normals + t->delta_first, t->vertex_count),
        .tangents =
            model->morph_tangents &&
            any_delta((const float(*)[3])model->morph_tangents + t->delta_first, t->vertex_count),
    };
    return vks_api_ok(err);
}

vkskin_result vkskin_model_get_info(const vkskin_model *m, vkskin_model_info *info,
                                    vkskin_error *err)
{
    if (!m || !info)
        return vks_api_fail(err, VKSKIN_ERROR_ARGUMENT,
                            "vkskin_model_get_info: a model and an info to fill are needed");
    const vks_model *model = &m->model;
    *info = (vkskin_model_info){
        .name = model->name,
        .vertex_count = model->vertex_count,
        .index_count = model->index_count,
        .mesh_count = model->mesh_count,
        .joint_count = model->skeleton.joint_count,
        .bone_count = model->skeleton.bone_count,
        .clip_count = model->clip_count,
        .level_count = vks_model_level_count(model),
        .warning_count = model->warning_count,
        .material_count = model->material_count,
        .influences = model->joints_extra ? VKS_WIDE_INFLUENCES : VKS_MAX_INFLUENCES,
        .tangents = model->tangents != NULL,
        .max_file_influences = model->influences.max_influences,
        .truncated = model->influences.truncated,
        .renormalised = model->influences.renormalised,
        .dropped = model->influences.dropped,
        .target_count = model->target_count,
    };
    _Static_assert(sizeof info->influence_histogram == sizeof model->influences.histogram,
                   "the public histogram is the engine's");
    memcpy(info->influence_histogram, model->influences.histogram,
           sizeof info->influence_histogram);
    memcpy(info->bounds_min, m->lo, sizeof m->lo);
    memcpy(info->bounds_max, m->hi, sizeof m->hi);
    return vks_api_ok(err);
}

const char *vkskin_model_get_warning(const vkskin_model *m, uint32_t index)
{
    return m && index < m->model.warning_count ? m->model.warnings[index] : NULL;
}

vkskin_result vkskin_model_get_clip(const vkskin_model *m, uint32_t clip, vkskin_clip_info *info,
                                    vkskin_error *err)
{
    if (!m || !info)
        return vks_api_fail(err, VKSKIN_ERROR_ARGUMENT,
                            "vkskin_model_get_clip: a model and an info to fill are needed");
    if (clip >= m->model.clip_count)
        return vks_api_fail(err, VKSKIN_ERROR_ARGUMENT, "%s has %u clip(s): no clip %u",
                            m->model.name, m->model.clip_count, clip);
    const vks_clip *c = &m->model.clips[clip];
    *info = (vkskin_clip_info){.name = c->name,
                               .duration = c->duration,
                               .channel_count = c->channel_count,
                               .translation_keys = c->t_key_count,
                               .rotation_keys = c->r_key_count,
                               .scale_keys = c->s_key_count,
                               .weight_tracks = c->weight_track_count};
    for (uint32_t t = 0; t < c->weight_track_count; t++)
        info->weight_keys += c->weight_tracks[t].key_count;
    return vks_api_ok(err);
}

vkskin_result vkskin_model_get_travel(const vkskin_model *m, uint32_t clip,
                                      vkskin_travel_info *info, vkskin_error *err)
{
    if (!m || !info)
        return vks_api_fail(err, VKSKIN_ERROR_ARGUMENT,
                            "vkskin_model_get_travel: a model and an info to fill are needed");
    if (clip >= m->model.clip_count)
        return vks_api_fail(err, VKSKIN_ERROR_ARGUMENT, "%s has %u clip(s): no clip %u",
                            m->model.name, m->model.clip_count, clip);
    const vks_root_motion *rm = m->model.root_motion ? &m->model.root_motion[clip] : NULL;
    *info = (vkskin_travel_info){.motion_joint = m->model.root_motion ? m->model.motion_joint : -1};
    if (rm && rm->sample_count) {
        info->travels = true;
        info->distance = rm->distance;
        info->heading = rm->heading;
        info->speed = (float)(rm->distance / m->model.clips[clip].duration);
    }
    const vks_clip *c = &m->model.clips[clip];
    if (c->ground_speed > 0.0f) {
        info->ground_speed = c->ground_speed;
        memcpy(info->ground_dir, c->ground_dir, sizeof info->ground_dir);
    }
    return vks_api_ok(err);
}

int32_t vkskin_model_find_clip(const vkskin_model *m, const char *name)
{
    const int32_t clip = m && name ? vks_model_find_clip(&m->model, name) : -1;
    return clip >= 0 ? clip : VKSKIN_CLIP_NOT_FOUND;
}

vkskin_result vkskin_model_get_joint(const vkskin_model *m, uint32_t joint, vkskin_joint_info *info,
                                     vkskin_error *err)
{
    if (!m || !info)
        return vks_api_fail(err, VKSKIN_ERROR_ARGUMENT,
                            "vkskin_model_get_joint: a model and an info to fill are needed");
    const vks_skeleton *sk = &m->model.skeleton;
    if (joint >= sk->joint_count)
        return vks_api_fail(err, VKSKIN_ERROR_ARGUMENT, "%s has %u joint(s): no joint %u",
                            m->model.name, sk->joint_count, joint);
    *info = (vkskin_joint_info){.name = sk->names[joint], .parent = sk->parents[joint]};
    return vks_api_ok(err);
}

vkskin_result vkskin_model_get_mesh(const vkskin_model *m, uint32_t mesh, vkskin_mesh_info *info,
                                    vkskin_error *err)
{
    if (!m || !info)
        return vks_api_fail(err, VKSKIN_ERROR_ARGUMENT,
                            "vkskin_model_get_mesh: a model and an info to fill are needed");
    if (mesh >= m->model.mesh_count)
        return vks_api_fail(err, VKSKIN_ERROR_ARGUMENT, "%s has %u mesh(es): no mesh %u",
                            m->model.name, m->model.mesh_count, mesh);
    const vks_mesh *me = &m->model.meshes[mesh];
    *info = (vkskin_mesh_info){.name = me->name,
                               .base_vertex = me->base_vertex,
                               .vertex_count = me->vertex_count,
                               .first_index = me->first_index,
                               .index_count = me->index_count,
                               .material = me->material,
                               .skinned = me->skinned,
                               .node_joint = me->node_joint,
                               .source_count = me->source_count};
    return vks_api_ok(err);
}

vkskin_result vkskin_model_get_material(const vkskin_model *m, uint32_t material,
                                        vkskin_material_info *info, vkskin_error *err)
{
    if (!m || !info)
        return vks_api_fail(err, VKSKIN_ERROR_ARGUMENT,
                            "vkskin_model_get_material: a model and an info to fill are needed");
    if (material >= m->model.material_count)
        return vks_api_fail(err, VKSKIN_ERROR_ARGUMENT, "%s has %u material(s): no material %u",
                            m->model.name, m->model.material_count, material);
    const vks_material *ma = &m->model.materials[material];
    *info = (vkskin_material_info){.name = ma->name, .textured = ma->texture >= 0};
    memcpy(info->base_color, ma->base_color, sizeof info->base_color);
    if (ma->texture >= 0) {
        const vks_texture *t = &m->model.textures[ma->texture];
        info->texture_width = t->width;
        info->texture_height = t->height;
        info->texture_source = t->source;
    }
    return vks_api_ok(err);
}

/* An output of `capacity` elements into which the call writes `need`: refused when short. */
static vkskin_result api_room(const char *call, const char *what, uint64_t capacity, uint64_t need,
                              const char *unit, vkskin_error *err)
{
    if (capacity >= need)
        return VKSKIN_OK;
    return vks_api_fail(err, VKSKIN_ERROR_ARGUMENT, "%s: %s has room for %llu %s; %llu are needed",
                        call, what, (unsigned long long)capacity, unit, (unsigned long long)need);
}

vkskin_result vkskin_model_get_texture(const vkskin_model *m, uint32_t material, uint8_t *rgba,
                                       size_t capacity, vkskin_error *err)
{
    if (!m || !rgba)
        return vks_api_fail(err, VKSKIN_ERROR_ARGUMENT,
                            "vkskin_model_get_texture: a model and pixels are needed");
    if (material >= m->model.material_count)
        return vks_api_fail(err, VKSKIN_ERROR_ARGUMENT, "%s has %u material(s): no material %u",
                            m->model.name, m->model.material_count, material);
    const vks_material *ma = &m->model.materials[material];
    if (ma->texture < 0)
        return vks_api_fail(err, VKSKIN_ERROR_ARGUMENT,
                            "vkskin_model_get_texture: material %u of %s (%s) has no texture",
                            material, m->model.name, ma->name ? ma->name : "unnamed");
    const vks_texture *t = &m->model.textures[ma->texture];
    const size_t bytes = (size_t)t->width * t->height * 4;
    const vkskin_result room =
        api_room("vkskin_model_get_texture", "rgba", capacity, bytes, "bytes", err);
    if (room != VKSKIN_OK)
        return room;
    memcpy(rgba, t->rgba, bytes);
    return vks_api_ok(err);
}

vkskin_result vkskin_model_get_level(const vkskin_model *m, uint32_t level, vkskin_level_info *info,
                                     vkskin_error *err)
{
    if (!m || !info)
        return vks_api_fail(err, VKSKIN_ERROR_ARGUMENT,
                            "vkskin_model_get_level: a model and an info to fill are needed");
    if (level >= vks_model_level_count(&m->model))
        return vks_api_fail(err, VKSKIN_ERROR_ARGUMENT, "%s has %u level(s): no level %u",
                            m->model.name, vks_model_level_count(&m->model), level);
    const vks_level l = vks_model_level(&m->model, level);
    *info = (vkskin_level_info){.triangle_count = l.triangle_count,
                                .vertex_count = l.vertex_count,
                                .error = l.error,
                                .grid = l.kind == VKS_LOD_GRID,
                                .joint_count = vks_model_level_joints(&m->model, level)};
    return vks_api_ok(err);
}

vkskin_result vkskin_model_get_mesh_level(const vkskin_model *m, uint32_t level, uint32_t mesh,
                                          vkskin_mesh_level_info *info, vkskin_error *err)
{
    if (!m || !info)
        return vks_api_fail(err, VKSKIN_ERROR_ARGUMENT,
                            "vkskin_model_get_mesh_level: a model and an info to fill are needed");
    if (level >= vks_model_level_count(&m->model) || mesh >= m->model.mesh_count)
        return vks_api_fail(
            err, VKSKIN_ERROR_ARGUMENT, "%s has %u level(s) and %u mesh(es): no level %u mesh %u",
            m->model.name, vks_model_level_count(&m->model), m->model.mesh_count, level, mesh);
    const vks_mesh_level ml = vks_model_mesh_level(&m->model, level, mesh);
    *info = (vkskin_mesh_level_info){.triangle_count = ml.index_count / 3,
                                     .error = vks_model_level(&m->model, level).error};
    return vks_api_ok(err);
}

const float *vkskin_model_positions(const vkskin_model *m)
{
    return m ? &m->model.positions[0][0] : NULL;
}

vkskin_result vkskin_model_weights(const vkskin_model *m, int32_t clip, double seconds,
                                   float *weights, uint32_t capacity, vkskin_error *err)
{
    if (!m || !weights)
        return vks_api_fail(err, VKSKIN_ERROR_ARGUMENT,
                            "vkskin_model_weights: a model and weights to fill are needed");
    if (clip < -1 || clip >= (int64_t)m->model.clip_count)
        return vks_api_fail(err, VKSKIN_ERROR_ARGUMENT,
                            "vkskin_model_weights: %s has %u clip(s): no clip %d (-1 is the bind "
                            "pose)",
                            m->model.name, m->model.clip_count, clip);
    if (!isfinite(seconds))
        return vks_api_fail(err, VKSKIN_ERROR_ARGUMENT, "vkskin_model_weights: time is not finite");
    const vkskin_result room = api_room("vkskin_model_weights", "weights", capacity,
                                        m->model.target_count, "morph targets", err);
    if (room != VKSKIN_OK)
        return room;
    const vks_clip *c = clip < 0 ? NULL : &m->model.clips[clip];
    vks_clip_weights(&m->model, c, c ? vks_clip_time(c, seconds, VKS_WRAP_LOOP) : 0.0, weights);
    return vks_api_ok(err);
}

/* vkskin_model_skin and _as, under the name of the call made. */
static vkskin_result api_skin(const char *call, const vkskin_model *m, int32_t clip, double seconds,
                              vkskin_skinning skinning, float *positions, float *normals,
                              float *tangents, uint32_t capacity, vkskin_error *err)
{
    if (!m || !positions || !normals)
        return vks_api_fail(err, VKSKIN_ERROR_ARGUMENT,
                            "%s: a model, positions and normals are needed", call);
    if (skinning != VKSKIN_SKINNING_LINEAR && skinning != VKSKIN_SKINNING_DUAL_QUATERNION)
        return vks_api_fail(err, VKSKIN_ERROR_ARGUMENT,
                            "%s: skinning %d is neither linear nor dual-quaternion", call,
                            (int)skinning);
    const vkskin_result room =
        api_room(call, "the output", capacity, m->model.vertex_count, "vertices", err);
    if (room != VKSKIN_OK)
        return room;
    if (clip < -1 || clip >= (int64_t)m->model.clip_count)
        return vks_api_fail(err, VKSKIN_ERROR_ARGUMENT,
                            "%s: %s has %u clip(s): no clip %d (-1 is the bind pose)", call,
                            m->model.name, m->model.clip_count, clip);
    if (!isfinite(seconds))
        return vks_api_fail(err, VKSKIN_ERROR_ARGUMENT, "%s: time is not finite", call);
    const bool dq = skinning == VKSKIN_SKINNING_DUAL_QUATERNION;
    vks_error e;
    if (dq && !vks_dq_check_model(&m->model, &e))
        return vks_api_fail_from(err, &e, VKSKIN_ERROR_ARGUMENT);
    if (!vks_skin_cpu_pose_level_as(&m->model, 0, clip, seconds, dq, (float(*)[3])positions,
                                    (float(*)[3])normals,
                                    m->model.tangents ? (float(*)[4])tangents : NULL))
        return vks_api_fail(err, VKSKIN_ERROR_OUT_OF_MEMORY, "out of memory for skinning");
    return vks_api_ok(err);
}

vkskin_result vkskin_model_skin(const vkskin_model *m, int32_t clip, double seconds,
                                float *positions, float *normals, float *tangents,
                                uint32_t capacity, vkskin_error *err)
{
    return api_skin("vkskin_model_skin", m, clip, seconds, VKSKIN_SKINNING_LINEAR, positions,
                    normals, tangents, capacity, err);
}

vkskin_result vkskin_model_skin_as(const vkskin_model *m, int32_t clip, double seconds,
                                   vkskin_skinning skinning, float *positions, float *normals,
                                   float *tangents, uint32_t capacity, vkskin_error *err)
{
    return api_skin("vkskin_model_skin_as", m, clip, seconds, skinning, positions, normals,
                    tangents, capacity, err);
}

/* ---- Crowds ---- */

vkskin_result vks_api_crowd_models(const vkskin_crowd_desc *desc, const char *fn,
                                   const vks_model **models, vkskin_error *err)
{
    if (!desc->models || desc->model_count == 0 || desc->model_count > VKSKIN_MAX_MODELS)
        return vks_api_fail(err, VKSKIN_ERROR_ARGUMENT, "a crowd takes 1 to %u models, not %u",
                            VKSKIN_MAX_MODELS, desc->models ? desc->model_count : 0);
    for (uint32_t m = 0; m < desc->model_count; m++) {
        if (!desc->models[m])
            return vks_api_fail(err, VKSKIN_ERROR_ARGUMENT, "%s: model %u is NULL", fn, m);
        models[m] = &desc->models[m]->model;
    }
    /* The engine's words (scene/crowd.c), so that either check says the same. */
    if (desc->instance_count == 0 || desc->instance_count > VKSKIN_MAX_INSTANCES)
        return vks_api_fail(err, VKSKIN_ERROR_ARGUMENT, "a crowd needs 1 to %u instances, not %u",
                            VKSKIN_MAX_INSTANCES, desc->instance_count);
    return VKSKIN_OK;
}

vkskin_result vkskin_crowd_memory_of(const vkskin_crowd_desc *desc, vkskin_crowd_memory *memory,
                                     vkskin_error *err)
{
    vkskin_crowd_desc desc_copy;
    const vkskin_result desc_result = VKS_API_DESC("vkskin_crowd_memory_of", desc, &desc_copy, err);
    if (desc_result != VKSKIN_OK)
        return desc_result;
    if (!desc || !memory)
        return vks_api_fail(err, VKSKIN_ERROR_ARGUMENT,
                            "vkskin_crowd_memory_of: desc and memory are needed");
    *memory = (vkskin_crowd_memory){0};
    const vks_model *models[VKSKIN_MAX_MODELS];
    const vkskin_result res = vks_api_crowd_models(desc, "vkskin_crowd_memory_of", models, err);
    if (res != VKSKIN_OK)
        return res;
    const uint32_t n = desc->instance_count, mc = desc->model_count;
    memory->palette_entries = vks_crowd_palette_entries(models, mc, n);
    /* The engine's crowd with its kept poses, and the API's: each instance as created
     * (vkskin_crowd_reset) and its posing period. */
    memory->host_bytes =
        vks_crowd_host_bytes(models, mc, n, true) + (uint64_t)n * (sizeof(vks_crowd_instance) + 1);
    const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    memory->machine_bytes = pages > 0 && page > 0 ? (uint64_t)pages * (uint64_t)page : 0;
    return vks_api_ok(err);
}

vkskin_result vkskin_crowd_fits(const vkskin_crowd_desc *desc, uint64_t extra_bytes,
                                vkskin_error *err)
{
    vkskin_crowd_memory m;
    const vkskin_result res = vkskin_crowd_memory_of(desc, &m, err);
    if (res != VKSKIN_OK)
        return res;
    const double need = (double)m.host_bytes + (double)extra_bytes;
    const double ram = (double)m.machine_bytes, n = desc->instance_count;
    if (m.machine_bytes && need > ram)
        return vks_api_fail(err, VKSKIN_ERROR_OUT_OF_MEMORY,
                            "a crowd of %u instances needs %.0f MiB of this machine's memory for "
                            "its animation state and palettes, and it has %.0f MiB: at most %.0f "
                            "instances fit",
                            desc->instance_count, need / 1048576.0, ram / 1048576.0,
                            floor(ram / (need / n)));
    return vks_api_ok(err);
}

vkskin_result vkskin_crowd_create(const vkskin_crowd_desc *desc, vkskin_crowd **crowd,
                                  vkskin_error *err)
{
    if (crowd)
        *crowd = NULL;
    vkskin_crowd_desc desc_copy;
    const vkskin_result desc_result = VKS_API_DESC("vkskin_crowd_create", desc, &desc_copy, err);
    if (desc_result != VKSKIN_OK)
        return desc_result;
    if (!desc || !crowd)
        return vks_api_fail(err, VKSKIN_ERROR_ARGUMENT,
                            "vkskin_crowd_create: desc and crowd are needed");
    const vks_model *models[VKSKIN_MAX_MODELS];
    const vkskin_result res = vks_api_crowd_models(desc, "vkskin_crowd_create", models, err);
    if (res != VKSKIN_OK)
        return res;
    int32_t clips[VKSKIN_MAX_MODELS];
    for (uint32_t m = 0; m < desc->model_count; m++) {
        const int32_t clip = desc->clips ? desc->clips[m] : desc->clip;
        /* The default, clip 0, is the bind pose for a model without clips. */
        clips[m] = clip == 0 && models[m]->clip_count == 0 ? -1 : clip;
    }
    if (desc->layout != VKSKIN_LAYOUT_GRID && desc->layout != VKSKIN_LAYOUT_RING)
        return vks_api_fail(err, VKSKIN_ERROR_ARGUMENT, "vkskin_crowd_create: no layout %d",
                            (int)desc->layout);
    if (!isfinite(desc->time))
        return vks_api_fail(err, VKSKIN_ERROR_ARGUMENT, "vkskin_crowd_create: time is not finite");
    if (desc->skinning != VKSKIN_SKINNING_LINEAR &&
        desc->skinning != VKSKIN_SKINNING_DUAL_QUATERNION)
        return vks_api_fail(err, VKSKIN_ERROR_ARGUMENT, "vkskin_crowd_create: no skinning %d",
                            (int)desc->skinning);
    const uint32_t threads = desc->threads ? desc->threads : 1;
    const uint32_t workers = desc->workers ? desc->workers : 1;
    struct vkskin_crowd *c = vks_object_alloc(sizeof *c);
    if (!c)
        return vks_api_fail(err, VKSKIN_ERROR_OUT_OF_MEMORY, "out of memory for a crowd");
    vks_error e;
    const vks_crowd_desc d = {
        .models = models,
        .model_count = desc->model_count,
        .clips = clips,
        .instance_count = desc->instance_count,
        .layout = desc->layout == VKSKIN_LAYOUT_RING ? VKS_CROWD_RING : VKS_CROWD_GRID,
        .time = desc->time,
        .threads = threads > workers ? threads : workers, /* scratch for either */
        .seed = desc->seed,
        .normalize = desc->normalize_height,
        .dual_quaternion = desc->skinning == VKSKIN_SKINNING_DUAL_QUATERNION,
        .root_motion = desc->root_motion,
    };
    if (!vks_crowd_create(&d, &c->crowd, &e)) {
        vks_object_free(c);
        return vks_api_fail_from(err, &e, VKSKIN_ERROR_FAILED);
    }
    if (threads > 1 && !vks_pool_create(threads, &c->pool, &e)) {
        vks_crowd_destroy(&c->crowd);
        vks_object_free(c);
        return vks_api_fail_from(err, &e, VKSKIN_ERROR_FAILED);
    }
    c->workers = workers;
    c->start = vks_malloc(sizeof *c->start * c->crowd.instance_count);
    if (!c->start) {
        vkskin_crowd_destroy(c);
        return vks_api_fail(err, VKSKIN_ERROR_OUT_OF_MEMORY, "out of memory for a crowd");
    }
    memcpy(c->start, c->crowd.instances, sizeof *c->start * c->crowd.instance_count);
    c->start_count = c->crowd.instance_count;
    vks_camera_crowd_box(&c->crowd, c->frame_lo, c->frame_hi);
    *crowd = c;
    return vks_api_ok(err);
}

void vkskin_crowd_destroy(vkskin_crowd *c)
{
    if (!c)
        return;
    vks_pool_destroy(c->pool);
    vks_crowd_destroy(&c->crowd);
    vks_free(c->start);
    vks_anim_lod_free(&c->anim_lod);
    vks_object_free(c);
}

uint32_t vkskin_crowd_instance_count(const vkskin_crowd *c)
{
    return c ? c->crowd.instance_count : 0;
}

uint32_t vkskin_crowd_live_count(const vkskin_crowd *c)
{
    return c ? c->crowd.live_count : 0;
}

vkskin_result vkskin_crowd_get_info(const vkskin_crowd *c, vkskin_crowd_info *info,
                                    vkskin_error *err)
{
    if (!c || !info)
        return vks_api_fail(err, VKSKIN_ERROR_ARGUMENT,
                            "vkskin_crowd_get_info: a crowd and an info are needed");
    vks_sampler_isa isa = VKS_SAMPLER_SCALAR;
    uint32_t clips = 0;
    const uint32_t sampled = vks_crowd_sampled_clips(&c->crowd, &clips, &isa);
    *info = (vkskin_crowd_info){.instance_count = c->crowd.instance_count,
                                .palette_count = c->crowd.palette_count,
                                .model_count = c->crowd.model_count,
                                .threads = c->pool ? vks_pool_threads(c->pool) : 1,
                                .workers = c->workers,
                                .sampled_clips = sampled,
                                .clips = clips,
                                .simd = vks_sampler_isa_name(isa)};
    return vks_api_ok(err);
}

uint32_t vkskin_crowd_palette_count(const vkskin_crowd *c)
{
    return c ? c->crowd.palette_count : 0;
}

uint32_t vkskin_crowd_palette_first(const vkskin_crowd *c, uint32_t instance)
{
    return c && instance < c->crowd.instance_count && !c->crowd.instances[instance].removed
               ? c->crowd.palette_first[instance]
               : VKSKIN_NO_ENTRY;
}

/* The instance, or a message: NULL crowd or an index out of range. */
static vks_crowd_instance *api_instance(const vkskin_crowd *c, uint32_t i, const char *call,
                                        vkskin_error *err)
{
    if (!c) {
        vks_api_fail(err, VKSKIN_ERROR_ARGUMENT, "%s: the crowd is NULL", call);
        return NULL;
    }
    if (i >= c->crowd.instance_count) {
        vks_api_fail(err, VKSKIN_ERROR_ARGUMENT, "%s: the crowd has %u instance(s): no instance %u",
                     call, c->crowd.instance_count, i);
        return NULL;
    }
    if (c->crowd.instances[i].removed) {
        vks_api_fail(err, VKSKIN_ERROR_ARGUMENT,
                     "%s: instance %u was removed (its index is free until an add reuses it)", call,
                     i);
        return NULL;
    }
    return &c->crowd.instances[i];
}

vkskin_result vkskin_crowd_get_instance(const vkskin_crowd *c, uint32_t i,
                                        vkskin_instance_info *info, vkskin_error *err)
{
    const vks_crowd_instance *in = api_instance(c, i, "vkskin_crowd_get_instance", err);
    if (!in)
        return VKSKIN_ERROR_ARGUMENT;
    if (!info)
        return vks_api_fail(err, VKSKIN_ERROR_ARGUMENT, "vkskin_crowd_get_instance: info is NULL");
    *info = (vkskin_instance_info){.model = in->model,
                                   .clip = in->clip,
                                   .time = in->time,
                                   .speed = in->speed,
                                   .radius = in->radius,
                                   .fading = in->fade_left > 0.0,
                                   .shown = !in->hidden};
    memcpy(info->world, in->world, sizeof info->world);
    memcpy(info->center, in->center, sizeof info->center);
    return vks_api_ok(err);
}

vkskin_result vkskin_crowd_set_shown(vkskin_crowd *c, uint32_t i, bool shown, vkskin_error *err)
{
    if (!api_instance(c, i, "vkskin_crowd_set_shown", err))
        return VKSKIN_ERROR_ARGUMENT;
    c->crowd.instances[i].hidden = !shown;
    return vks_api_ok(err);
}

vkskin_result vkskin_crowd_set_root_motion(vkskin_crowd *c, uint32_t i, bool on, vkskin_error *err)
{
    if (!api_instance(c, i, "vkskin_crowd_set_root_motion", err))
        return VKSKIN_ERROR_ARGUMENT;
    if (!vks_crowd_set_root_motion(&c->crowd, i, on))
        return vks_api_fail(err, VKSKIN_ERROR_OUT_OF_MEMORY,
                            "vkskin_crowd_set_root_motion: out of memory for the moved list");
    return vks_api_ok(err);
}

vkskin_result vkskin_crowd_play(vkskin_crowd *c, uint32_t i, int32_t clip, double fade,
                                vkskin_error *err)
{
    const vks_crowd_instance *in = api_instance(c, i, "vkskin_crowd_play", err);
    if (!in)
        return VKSKIN_ERROR_ARGUMENT;
    const vks_model *m = c->crowd.models[in->model];
    if (clip < -1 || clip >= (int64_t)m->clip_count)
        return vks_api_fail(
            err, VKSKIN_ERROR_ARGUMENT,
            "vkskin_crowd_play: %s has %u clip(s): no clip %d (-1 is the bind pose)", m->name,
            m->clip_count, clip);
    if (!(fade >= 0.0 && fade < INFINITY))
        return vks_api_fail(err, VKSKIN_ERROR_ARGUMENT,
                            "vkskin_crowd_play: a fade takes 0 or more seconds, not %g", fade);
    vks_crowd_play(&c->crowd, i, clip, fade);
    return vks_api_ok(err);
}

vkskin_result vkskin_crowd_set_time(vkskin_crowd *c, uint32_t i, double seconds, float speed,
                                    vkskin_error *err)
{
    vks_crowd_instance *in = api_instance(c, i, "vkskin_crowd_set_time", err);
    if (!in)
        return VKSKIN_ERROR_ARGUMENT;
    if (!isfinite(seconds) || !isfinite(speed))
        return vks_api_fail(err, VKSKIN_ERROR_ARGUMENT,
                            "vkskin_crowd_set_time: time and speed must be finite");
    const vks_model *m = c->crowd.models[in->model];
    in->time = in->clip >= 0 ? vks_clip_time(&m->clips[in->clip], seconds, VKS_WRAP_LOOP) : seconds;
    in->speed = speed;
    return vks_api_ok(err);
}

/* A world transform from the caller: present, finite and affine, as w (column-major). */
static vkskin_result api_world(const char *call, const float world[16], float w[4][4],
                               vkskin_error *err)
{
    if (!world)
        return vks_api_fail(err, VKSKIN_ERROR_ARGUMENT, "%s: world is NULL", call);
    for (int e = 0; e < 16; e++) {
        if (!isfinite(world[e]))
            return vks_api_fail(err, VKSKIN_ERROR_ARGUMENT, "%s: element %d is not finite", call,
                                e);
        w[e / 4][e % 4] = world[e];
    }
    if (w[0][3] != 0.0f || w[1][3] != 0.0f || w[2][3] != 0.0f || w[3][3] != 1.0f)
        return vks_api_fail(err, VKSKIN_ERROR_ARGUMENT,
                            "%s: not affine (its last row must be 0 0 0 1)", call);
    return VKSKIN_OK;
}

vkskin_result vkskin_crowd_set_world(vkskin_crowd *c, uint32_t i, const float world[16],
                                     vkskin_error *err)
{
    if (!api_instance(c, i, "vkskin_crowd_set_world", err))
        return VKSKIN_ERROR_ARGUMENT;
    float w[4][4];
    const vkskin_result r = api_world("vkskin_crowd_set_world", world, w, err);
    if (r != VKSKIN_OK)
        return r;
    if (!vks_crowd_set_world(&c->crowd, i, (const float(*)[4])w))
        return vks_api_fail(err, VKSKIN_ERROR_OUT_OF_MEMORY,
                            "vkskin_crowd_set_world: out of memory for the moved list");
    vks_camera_grow_box(&c->crowd, i, c->frame_lo, c->frame_hi);
    return vks_api_ok(err);
}

/* The k-th of a batch's instances, checked (api_instance); false with the message. */
static bool api_batch_instance(const vkskin_crowd *c, const uint32_t *instances, uint32_t k,
                               const char *call, vkskin_error *err)
{
    return api_instance(c, instances ? instances[k] : k, call, err) != NULL;
}

vkskin_result vkskin_crowd_set_velocities(vkskin_crowd *c, const uint32_t *instances,
                                          uint32_t count, const float *velocities,
                                          vkskin_error *err)
{
    static const char call[] = "vkskin_crowd_set_velocities";
    if (!c || (count && !velocities))
        return vks_api_fail(err, VKSKIN_ERROR_ARGUMENT, "%s: a crowd and velocities are needed",
                            call);
    for (uint32_t k = 0; k < count; k++) {
        if (!api_batch_instance(c, instances, k, call, err))
            return VKSKIN_ERROR_ARGUMENT;
        const float x = velocities[2 * k], z = velocities[2 * k + 1];
        if (!(fabsf(x) <= 1e6f && fabsf(z) <= 1e6f && hypotf(x, z) <= 1e6f))
            return vks_api_fail(err, VKSKIN_ERROR_ARGUMENT,
                                "%s: instance %u's velocity (%g, %g) is not a finite speed of at "
                                "most 1e6 a second",
                                call, instances ? instances[k] : k, x, z);
    }
    if (!vks_crowd_set_velocities(&c->crowd, instances, 0, count, (const float(*)[2])velocities))
        return vks_api_fail(err, VKSKIN_ERROR_OUT_OF_MEMORY, "%s: out of memory for the moved list",
                            call);
    return vks_api_ok(err);
}

vkskin_result vkskin_crowd_set_placements(vkskin_crowd *c, const uint32_t *instances,
                                          uint32_t count, const float *positions,
                                          const float *headings, const float *scales,
                                          vkskin_error *err)
{
    static const char call[] = "vkskin_crowd_set_placements";
    if (!c || (count && !positions))
        return vks_api_fail(err, VKSKIN_ERROR_ARGUMENT, "%s: a crowd and positions are needed",
                            call);
    for (uint32_t k = 0; k < count; k++) {
        if (!api_batch_instance(c, instances, k, call, err))
            return VKSKIN_ERROR_ARGUMENT;
        const float *p = positions + 3 * (size_t)k;
        const float h = headings ? headings[k] : 0.0f, s = scales ? scales[k] : 1.0f;
        if (!(fabsf(p[0]) <= VKS_MAX_COORDINATE && fabsf(p[1]) <= VKS_MAX_COORDINATE &&
              fabsf(p[2]) <= VKS_MAX_COORDINATE && isfinite(h) && s > 0.0f && s <= 1e6f))
            return vks_api_fail(err, VKSKIN_ERROR_ARGUMENT,
                                "%s: instance %u's placement (%g, %g, %g), heading %g, scale %g: "
                                "positions finite within 1e9, headings finite, scales in (0, 1e6]",
                                call, instances ? instances[k] : k, p[0], p[1], p[2], h, s);
    }
    if (!vks_crowd_set_placements(&c->crowd, instances, 0, count, (const float(*)[3])positions,
                                  headings, scales))
        return vks_api_fail(err, VKSKIN_ERROR_OUT_OF_MEMORY, "%s: out of memory for the moved list",
                            call);
    for (uint32_t k = 0; k < count; k++)
        vks_camera_grow_box(&c->crowd, instances ? instances[k] : k, c->frame_lo, c->frame_hi);
    return vks_api_ok(err);
}

/* Whether `model` is one of the crowd's; if not, the message names the call. */
static bool api_model(const vkskin_crowd *c, uint32_t model, const char *call, vkskin_error *err)
{
    if (model < c->crowd.model_count)
        return true;
    vks_api_fail(err, VKSKIN_ERROR_ARGUMENT, "%s: the crowd has %u model(s): no model %u", call,
                 c->crowd.model_count, model);
    return false;
}

vkskin_result vkskin_crowd_add(vkskin_crowd *c, uint32_t model, const float world[16],
                               uint32_t *instance, vkskin_error *err)
{
    if (!c || !instance)
        return vks_api_fail(err, VKSKIN_ERROR_ARGUMENT,
                            "vkskin_crowd_add: a crowd and a place for the index are needed");
    float w[4][4];
    const vkskin_result r = api_world("vkskin_crowd_add", world, w, err);
    if (r != VKSKIN_OK)
        return r;
    if (!api_model(c, model, "vkskin_crowd_add", err))
        return VKSKIN_ERROR_ARGUMENT;
    vks_error e;
    if (!vks_crowd_add(&c->crowd, model, (const float(*)[4])w, instance, &e))
        return vks_api_fail_from(err, &e, VKSKIN_ERROR_OUT_OF_MEMORY);
    vks_camera_grow_box(&c->crowd, *instance, c->frame_lo, c->frame_hi);
    return vks_api_ok(err);
}

vkskin_result vkskin_crowd_remove(vkskin_crowd *c, uint32_t i, vkskin_error *err)
{
    if (!api_instance(c, i, "vkskin_crowd_remove", err))
        return VKSKIN_ERROR_ARGUMENT;
    if (!vks_crowd_remove(&c->crowd, i))
        return vks_api_fail(err, VKSKIN_ERROR_OUT_OF_MEMORY,
                            "vkskin_crowd_remove: out of memory for the crowd's free indices");
    return vks_api_ok(err);
}

vkskin_result vkskin_crowd_set_model(vkskin_crowd *c, uint32_t i, uint32_t model, vkskin_error *err)
{
    if (!api_instance(c, i, "vkskin_crowd_set_model", err))
        return VKSKIN_ERROR_ARGUMENT;
    if (!api_model(c, model, "vkskin_crowd_set_model", err))
        return VKSKIN_ERROR_ARGUMENT;
    vks_error e;
    if (!vks_crowd_set_model(&c->crowd, i, model, &e))
        return vks_api_fail_from(err, &e, VKSKIN_ERROR_OUT_OF_MEMORY);
    vks_camera_grow_box(&c->crowd, i, c->frame_lo, c->frame_hi);
    return vks_api_ok(err);
}

/* The light of a view: a key light from the camera's upper left, so the lit side faces the
 * viewer, and an ambient term. */
static vkskin_light light_of(const vkskin_view *view)
{
    const float *vp = view->view_proj; /* column-major: element (row k, column c) at 4 c + k */
    const float back_x = -vp[3], back_z = -vp[11];
    const float yaw = back_x == 0.0f && back_z == 0.0f ? 0.0f : atan2f(back_x, back_z);
    const float lx = sinf(yaw - 0.6f), lz = cosf(yaw - 0.6f), ly = 1.1f;
    const float len = sqrtf(lx * lx + ly * ly + lz * lz);
    return (vkskin_light){.direction = {lx / len, ly / len, lz / len},
                          .color = {0.85f, 0.82f, 0.78f},
                          .ambient = {0.22f, 0.24f, 0.28f}};
}

vkskin_result vkskin_view_light(const vkskin_view *view, vkskin_light *light, vkskin_error *err)
{
    if (!view || !light)
        return vks_api_fail(err, VKSKIN_ERROR_ARGUMENT,
                            "vkskin_view_light: a view and a light are needed");
    *light = light_of(view);
    return vks_api_ok(err);
}

vkskin_result vkskin_crowd_frame_view(const vkskin_crowd *c, float aspect, vkskin_view *view,
                                      vkskin_error *err)
{
    if (!c || !view)
        return vks_api_fail(err, VKSKIN_ERROR_ARGUMENT,
                            "vkskin_crowd_frame_view: a crowd and a view are needed");
    if (!(aspect > 0.0f && aspect < INFINITY))
        return vks_api_fail(err, VKSKIN_ERROR_ARGUMENT,
                            "vkskin_crowd_frame_view: the aspect must be positive, not %g",
                            (double)aspect);
    return vkskin_crowd_orbit_view(c, &(vkskin_orbit){.aspect = aspect}, view, err);
}

vkskin_result vkskin_crowd_street_view(const vkskin_crowd *c, float aspect, vkskin_view *view,
                                       vkskin_error *err)
{
    if (!c || !view)
        return vks_api_fail(err, VKSKIN_ERROR_ARGUMENT,
                            "vkskin_crowd_street_view: a crowd and a view are needed");
    if (!(aspect > 0.0f && aspect < INFINITY))
        return vks_api_fail(err, VKSKIN_ERROR_ARGUMENT,
                            "vkskin_crowd_street_view: the aspect must be positive, not %g",
                            (double)aspect);
    float vp[4][4];
    vks_camera_street(&c->crowd, c->frame_lo, c->frame_hi, aspect, vp, view->eye);
    memcpy(view->view_proj, vp, sizeof vp);
    view->yaw = view->pitch = 0.0f;
    return vks_api_ok(err);
}

vkskin_result vkskin_crowd_orbit_view(const vkskin_crowd *c, const vkskin_orbit *orbit,
                                      vkskin_view *view, vkskin_error *err)
{
    if (!c || !orbit || !view)
        return vks_api_fail(err, VKSKIN_ERROR_ARGUMENT,
                            "vkskin_crowd_orbit_view: a crowd, an orbit and a view are needed");
    const float zoom = orbit->zoom == 0.0f ? 1.0f : orbit->zoom;
    if (!(orbit->aspect > 0.0f && orbit->aspect < INFINITY) || !isfinite(orbit->yaw) ||
        !isfinite(orbit->pitch) || !(zoom >= 0.01f && zoom <= 100.0f))
        return vks_api_fail(err, VKSKIN_ERROR_ARGUMENT,
                            "vkskin_crowd_orbit_view: aspect > 0, finite angles and a zoom from "
                            "0.01 to 100 are needed");
    vks_camera cam;
    vks_camera_frame_box(&cam, c->frame_lo, c->frame_hi);
    if (zoom < 1.0f) /* towards the instance nearest the framing view's eye */
        vks_camera_focus_nearest(&cam, &c->crowd, orbit->aspect);
    cam.yaw += orbit->yaw;
    cam.pitch = fmaxf(-1.5f, fminf(1.5f, cam.pitch + orbit->pitch));
    cam.zoom = zoom;
    float vp[4][4];
    vks_camera_view_proj(&cam, orbit->aspect, vp);
    memcpy(view->view_proj, vp, sizeof vp);
    vks_camera_eye(&cam, orbit->aspect, view->eye);
    view->yaw = cam.yaw;
    view->pitch = cam.pitch;
    return vks_api_ok(err);
}

/* A crowd-wide call's arguments: the crowd, and a fade or time step that is a number (a fade
 * not negative). */
static vkskin_result check_crowd_call(const vkskin_crowd *c, const char *call, const char *what,
                                      double value, bool signed_ok, vkskin_error *err)
{
    if (!c)
        return vks_api_fail(err, VKSKIN_ERROR_ARGUMENT, "%s: the crowd is NULL", call);
    if (what && (!isfinite(value) || (!signed_ok && value < 0.0)))
        return vks_api_fail(err, VKSKIN_ERROR_ARGUMENT, "%s: %s must be a finite number%s, not %g",
                            call, what, signed_ok ? "" : " of seconds, 0 or more", value);
    return VKSKIN_OK;
}

vkskin_result vkskin_crowd_step_clips(vkskin_crowd *c, int32_t delta, double fade,
                                      vkskin_error *err)
{
    const vkskin_result r =
        check_crowd_call(c, "vkskin_crowd_step_clips", "fade", fade, false, err);
    if (r != VKSKIN_OK)
        return r;
    vks_crowd_switch_clip(&c->crowd, delta, fade);
    return vks_api_ok(err);
}

vkskin_result vkskin_crowd_bind_pose(vkskin_crowd *c, bool on, double fade, vkskin_error *err)
{
    const vkskin_result r = check_crowd_call(c, "vkskin_crowd_bind_pose", "fade", fade, false, err);
    if (r != VKSKIN_OK)
        return r;
    vks_crowd_bind_pose(&c->crowd, on, fade);
    return vks_api_ok(err);
}

vkskin_result vkskin_crowd_reset(vkskin_crowd *c, vkskin_error *err)
{
    const vkskin_result r = check_crowd_call(c, "vkskin_crowd_reset", NULL, 0.0, false, err);
    if (r != VKSKIN_OK)
        return r;
    /* The key cursors are hints: stale ones only cost a binary search. The renderer's table
     * follows the worlds back (every instance listed as moved). */
    vks_error e;
    if (!vks_crowd_restore(&c->crowd, c->start, c->start_count, &e))
        return vks_api_fail(err, VKSKIN_ERROR_OUT_OF_MEMORY, "vkskin_crowd_reset: %s", e.msg);
    vks_camera_crowd_box(&c->crowd, c->frame_lo, c->frame_hi);
    return vks_api_ok(err);
}

vkskin_result vkskin_crowd_get_weights(vkskin_crowd *c, uint32_t i, float *weights,
                                       uint32_t capacity, vkskin_error *err)
{
    const vks_crowd_instance *in = api_instance(c, i, "vkskin_crowd_get_weights", err);
    if (!in)
        return VKSKIN_ERROR_ARGUMENT;
    if (!weights)
        return vks_api_fail(err, VKSKIN_ERROR_ARGUMENT,
                            "vkskin_crowd_get_weights: weights is NULL");
    const vks_model *m = c->crowd.models[in->model];
    const vkskin_result room = api_room("vkskin_crowd_get_weights", "weights", capacity,
                                        m->target_count, "morph targets", err);
    if (room != VKSKIN_OK)
        return room;
    float *from = m->target_count ? vks_malloc(sizeof *from * m->target_count) : NULL;
    if (m->target_count && !from)
        return vks_api_fail(err, VKSKIN_ERROR_OUT_OF_MEMORY, "out of memory for the weights");
    vks_crowd_weights(&c->crowd, i, weights, from);
    vks_free(from);
    return vks_api_ok(err);
}

vkskin_result vkskin_crowd_get_joints(vkskin_crowd *c, uint32_t i, float *positions,
                                      uint32_t capacity, vkskin_error *err)
{
    const vks_crowd_instance *in = api_instance(c, i, "vkskin_crowd_get_joints", err);
    if (!in)
        return VKSKIN_ERROR_ARGUMENT;
    if (!positions)
        return vks_api_fail(err, VKSKIN_ERROR_ARGUMENT,
                            "vkskin_crowd_get_joints: positions is NULL");
    const vkskin_result room =
        api_room("vkskin_crowd_get_joints", "positions", capacity,
                 c->crowd.models[in->model]->skeleton.joint_count, "joints", err);
    if (room != VKSKIN_OK)
        return room;
    vks_crowd_joints(&c->crowd, i, (float(*)[3])positions);
    return vks_api_ok(err);
}

/* A step's dt: finite, and within a million seconds either way (a walker's place and a clip's
 * loop count stay far inside their types). */
static vkskin_result check_dt(const vkskin_crowd *c, const char *call, double dt, vkskin_error *err)
{
    const vkskin_result r = check_crowd_call(c, call, "dt", dt, true, err);
    if (r == VKSKIN_OK && !(fabs(dt) <= 1e6))
        return vks_api_fail(err, VKSKIN_ERROR_ARGUMENT,
                            "%s: dt must be within 1e6 seconds either way, not %g", call, dt);
    return r;
}

vkskin_result vkskin_crowd_advance(vkskin_crowd *c, double dt, vkskin_error *err)
{
    const vkskin_result r = check_dt(c, "vkskin_crowd_advance", dt, err);
    if (r != VKSKIN_OK)
        return r;
    vks_crowd_advance(&c->crowd, c->pool, dt);
    return vks_api_ok(err);
}

vkskin_result vkskin_crowd_advance_one_thread(vkskin_crowd *c, double dt, vkskin_error *err)
{
    const vkskin_result r = check_dt(c, "vkskin_crowd_advance_one_thread", dt, err);
    if (r != VKSKIN_OK)
        return r;
    vks_crowd_advance(&c->crowd, NULL, dt);
    return vks_api_ok(err);
}

vkskin_result vkskin_crowd_cull(const vkskin_crowd *c, const float view_proj[16], uint32_t *visible,
                                uint32_t capacity, uint32_t *count, vkskin_error *err)
{
    if (count)
        *count = 0;
    if (!c || !view_proj || !visible || !count)
        return vks_api_fail(err, VKSKIN_ERROR_ARGUMENT,
                            "vkskin_crowd_cull: a crowd, a view, visible and count are needed");
    const vkskin_result room = api_room("vkskin_crowd_cull", "visible", capacity,
                                        c->crowd.instance_count, "instances", err);
    if (room != VKSKIN_OK)
        return room;
    float vp[4][4];
    memcpy(vp, view_proj, sizeof vp);
    *count = vks_crowd_cull(&c->crowd, NULL, (const float(*)[4])vp, visible); /* reads only */
    return vks_api_ok(err);
}

/* The listed instances must exist and ascend (so they are distinct: two threads writing one
 * palette and one key cursor would race). `from` is where the check starts: a range's element
 * before it too, so that workers given ranges of one list check it all between them. */
static vkskin_result api_check_list(const vkskin_crowd *c, const uint32_t *instances, uint32_t from,
                                    uint32_t end, const float *palettes, uint32_t capacity,
                                    const char *call, vkskin_error *err)
{
    if (!c || (!instances && end > from) || !palettes)
        return vks_api_fail(err, VKSKIN_ERROR_ARGUMENT,
                            "%s: crowd, instances and palettes are needed", call);
    const vkskin_result room =
        api_room(call, "palettes", capacity, c->crowd.palette_count, "entries", err);
    if (room != VKSKIN_OK)
        return room;
    for (uint32_t k = from; k < end; k++) {
        if (instances[k] >= c->crowd.instance_count ||
            (k > from && instances[k] <= instances[k - 1]))
            return vks_api_fail(err, VKSKIN_ERROR_ARGUMENT,
                                "%s: the list must ascend below %u; entry %u is %u", call,
                                c->crowd.instance_count, k, instances[k]);
        if (c->crowd.model_of[instances[k]] == VKS_CROWD_REMOVED)
            return vks_api_fail(err, VKSKIN_ERROR_ARGUMENT,
                                "%s: entry %u is instance %u, which was removed", call, k,
                                instances[k]);
    }
    return VKSKIN_OK;
}

vkskin_result vkskin_crowd_pose(vkskin_crowd *c, const uint32_t *instances, uint32_t count,
                                float *palettes, uint32_t capacity, vkskin_error *err)
{
    vkskin_result r =
        api_check_list(c, instances, 0, count, palettes, capacity, "vkskin_crowd_pose", err);
    if (r != VKSKIN_OK)
        return r;
    vks_crowd_palettes(&c->crowd, c->pool, instances, count, (vks_bone *)palettes);
    return vks_api_ok(err);
}

vkskin_result vks_api_prepare_job(const vkskin_prepare_desc *desc, const char *call, vks_pool *pool,
                                  vks_prepare_job *job, vkskin_error *err)
{
    const vkskin_view *view = desc->view;
    for (int k = 0; k < 16; k++)
        if (!isfinite(view->view_proj[k]))
            return vks_api_fail(err, VKSKIN_ERROR_ARGUMENT,
                                "%s: view_proj element %d is not finite", call, k);
    if (!isfinite(view->eye[0]) || !isfinite(view->eye[1]) || !isfinite(view->eye[2]))
        return vks_api_fail(err, VKSKIN_ERROR_ARGUMENT, "%s: the eye is not finite", call);
    if ((desc->fixed_lod && desc->lod >= VKS_MAX_LEVELS) ||
        !(desc->lod_error_px >= 0.0f && desc->lod_error_px < INFINITY) ||
        !(desc->raster_triangle_px >= 0.0f && desc->raster_triangle_px < INFINITY) ||
        desc->height > 65536)
        return vks_api_fail(err, VKSKIN_ERROR_ARGUMENT,
                            "%s: a level below %u, an error and a triangle size of 0 or more "
                            "pixels and a height up to 65536 are needed",
                            call, VKS_MAX_LEVELS);
    *job = (vks_prepare_job){
        .lod = vks_lod_view_of(view->view_proj, view->eye, desc->height ? desc->height : 720,
                               desc->lod_error_px > 0.0f ? desc->lod_error_px : VKSKIN_LOD_ERROR_PX,
                               desc->fixed_lod ? (int32_t)desc->lod : -1,
                               desc->raster_triangle_px > 0.0f ? desc->raster_triangle_px
                                                               : VKSKIN_RASTER_TRIANGLE_PX),
        .anim_lod = !desc->pose_every_frame,
        .reuse_palettes = desc->reuse_palettes,
        .raster = desc->raster,
        .pool = desc->one_thread ? NULL : pool};
    memcpy(job->view_proj, view->view_proj, sizeof job->view_proj);
    return VKSKIN_OK;
}

static vkskin_prepared api_prepared(const vks_prepared *p)
{
    return (vkskin_prepared){.visible = p->visible,
                             .posed = p->posed,
                             .palette_bytes = p->palette_bytes,
                             .dropped = p->dropped,
                             .posed_joints = p->posed_joints};
}

vkskin_result vkskin_crowd_prepare(vkskin_crowd *c, const vkskin_prepare_desc *desc,
                                   uint32_t *visible, uint8_t *levels, uint32_t capacity,
                                   float *palettes, uint32_t palette_capacity, vkskin_prepared *out,
                                   vkskin_error *err)
{
    if (out)
        *out = (vkskin_prepared){0};
    vkskin_prepare_desc desc_copy;
    const vkskin_result desc_result = VKS_API_DESC("vkskin_crowd_prepare", desc, &desc_copy, err);
    if (desc_result != VKSKIN_OK)
        return desc_result;
    if (!c || !desc || !desc->view || !visible || !palettes)
        return vks_api_fail(err, VKSKIN_ERROR_ARGUMENT,
                            "vkskin_crowd_prepare: a crowd, a desc with a view, visible and "
                            "palettes are needed");
    vkskin_result res = api_room("vkskin_crowd_prepare", "visible", capacity,
                                 c->crowd.instance_count, "instances", err);
    if (res == VKSKIN_OK)
        res = api_room("vkskin_crowd_prepare", "palettes", palette_capacity, c->crowd.palette_count,
                       "entries", err);
    vks_prepare_job job;
    if (res == VKSKIN_OK)
        res = vks_api_prepare_job(desc, "vkskin_crowd_prepare", c->pool, &job, err);
    if (res != VKSKIN_OK)
        return res;
    vks_error e;
    if (job.anim_lod && !vks_prepare_fit(&c->crowd, &c->anim_lod, false, &e))
        return vks_api_fail_from(err, &e, VKSKIN_ERROR_OUT_OF_MEMORY);
    const vks_prepared p =
        vks_prepare_palettes(&c->crowd, &c->anim_lod, &job, visible, levels, (vks_bone *)palettes);
    if (out)
        *out = api_prepared(&p);
    return vks_api_ok(err);
}

vkskin_result vkskin_palette_store_create(const vkskin_crowd *crowd, uint32_t capacity,
                                          vkskin_palette_store **store, vkskin_error *err)
{
    if (store)
        *store = NULL;
    if (!crowd || !store)
        return vks_api_fail(err, VKSKIN_ERROR_ARGUMENT,
                            "vkskin_palette_store_create: a crowd and a store are needed");
    if (capacity >= (1u << 31)) /* the shaders' indices are signed */
        return vks_api_fail(err, VKSKIN_ERROR_ARGUMENT,
                            "vkskin_palette_store_create: a capacity below 2^31 entries is "
                            "needed, not %u",
                            capacity);
    vkskin_palette_store *s = vks_object_alloc(sizeof *s);
    vks_error e;
    if (!s)
        return vks_api_fail(err, VKSKIN_ERROR_OUT_OF_MEMORY, "out of memory for a palette store");
    if (!vks_palette_store_init(&s->store, &crowd->crowd, capacity, &e)) {
        vks_object_free(s);
        return vks_api_fail_from(err, &e, VKSKIN_ERROR_ARGUMENT);
    }
    s->crowd = crowd;
    *store = s;
    return vks_api_ok(err);
}

void vkskin_palette_store_destroy(vkskin_palette_store *s)
{
    if (!s)
        return;
    vks_palette_store_free(&s->store);
    vks_object_free(s);
}

vkskin_result vkskin_crowd_prepare_store(vkskin_crowd *c, const vkskin_prepare_desc *desc,
                                         vkskin_palette_store *store, uint32_t *visible,
                                         uint8_t *levels, uint32_t capacity, float *staging,
                                         uint32_t staging_capacity, vkskin_prepared *out,
                                         vkskin_error *err)
{
    if (out)
        *out = (vkskin_prepared){0};
    vkskin_prepare_desc desc_copy;
    const vkskin_result desc_result =
        VKS_API_DESC("vkskin_crowd_prepare_store", desc, &desc_copy, err);
    if (desc_result != VKSKIN_OK)
        return desc_result;
    if (!c || !desc || !desc->view || !store || !visible || !staging)
        return vks_api_fail(err, VKSKIN_ERROR_ARGUMENT,
                            "vkskin_crowd_prepare_store: a crowd, a desc with a view, a store, "
                            "visible and staging are needed");
    if (store->crowd != c)
        return vks_api_fail(err, VKSKIN_ERROR_ARGUMENT,
                            "vkskin_crowd_prepare_store: the store was made for another crowd");
    vkskin_result room = api_room("vkskin_crowd_prepare_store", "visible", capacity,
                                  c->crowd.instance_count, "instances", err);
    if (room == VKSKIN_OK)
        room = api_room("vkskin_crowd_prepare_store", "staging", staging_capacity,
                        store->store.capacity, "entries (the store's capacity)", err);
    if (room != VKSKIN_OK)
        return room;
    vks_prepare_job job;
    room = vks_api_prepare_job(desc, "vkskin_crowd_prepare_store", c->pool, &job, err);
    if (room != VKSKIN_OK)
        return room;
    vks_error e; /* room for a crowd that grew */
    if (!vks_palette_store_reserve(&store->store, &c->crowd, &e) ||
        (job.anim_lod && !vks_prepare_fit(&c->crowd, &c->anim_lod, true, &e)))
        return vks_api_fail(err, VKSKIN_ERROR_OUT_OF_MEMORY,
                            "vkskin_crowd_prepare_store: out of memory for %u instances",
                            c->crowd.instance_capacity);
    const vks_prepared p = vks_prepare_store(&c->crowd, &c->anim_lod, &store->store, &job, visible,
                                             levels, (vks_bone *)staging);
    if (out)
        *out = api_prepared(&p);
    return vks_api_ok(err);
}

const vkskin_palette_copy *vkskin_palette_store_copies(const vkskin_palette_store *s,
                                                       uint32_t *count)
{
    static_assert(sizeof(vkskin_palette_copy) == sizeof(vks_palette_copy), "one layout");
    static_assert(sizeof(vkskin_dq) == sizeof(vks_dq), "one layout");
    if (count)
        *count = s ? s->store.copy_count : 0;
    return s ? (const vkskin_palette_copy *)s->store.copies : NULL;
}

uint32_t vkskin_palette_store_first(const vkskin_palette_store *s, uint32_t instance)
{
    return s && instance < s->crowd->crowd.instance_count && instance < s->store.instances
               ? s->store.block[instance]
               : VKSKIN_NO_ENTRY;
}

uint32_t vkskin_palette_store_slot(const vkskin_palette_store *s, uint32_t instance)
{
    return vkskin_palette_store_first(s, instance);
}

vkskin_result vkskin_palette_store_forget(vkskin_palette_store *s, vkskin_error *err)
{
    if (!s)
        return vks_api_fail(err, VKSKIN_ERROR_ARGUMENT,
                            "vkskin_palette_store_forget: the store is NULL");
    vks_palette_store_clear(&s->store);
    return vks_api_ok(err);
}

vkskin_result vkskin_crowd_time_phases(vkskin_crowd *c, const uint32_t *instances, uint32_t count,
                                       uint32_t samples, uint32_t repeat, float *palettes,
                                       uint32_t capacity, vkskin_pose_phases *out,
                                       vkskin_error *err)
{
    vkskin_result r =
        api_check_list(c, instances, 0, count, palettes, capacity, "vkskin_crowd_time_phases", err);
    if (r != VKSKIN_OK)
        return r;
    if (!out || samples < 1 || samples > 1000000 || repeat < 1 || repeat > 1000000)
        return vks_api_fail(err, VKSKIN_ERROR_ARGUMENT,
                            "vkskin_crowd_time_phases: an output, 1 to 1000000 samples and 1 to "
                            "1000000 repeats are needed");
    double ms[3];
    if (!vks_crowd_time_phases(&c->crowd, instances, count, samples, repeat, (vks_bone *)palettes,
                               ms))
        return vks_api_fail(err, VKSKIN_ERROR_OUT_OF_MEMORY, "out of memory for the phases");
    *out = (vkskin_pose_phases){.sample_ms = ms[0], .model_ms = ms[1], .palette_ms = ms[2]};
    return vks_api_ok(err);
}

vkskin_result vkskin_crowd_pose_range(vkskin_crowd *c, const uint32_t *instances, uint32_t begin,
                                      uint32_t end, float *palettes, uint32_t capacity,
                                      uint32_t worker, vkskin_error *err)
{
    if (!c)
        return vks_api_fail(err, VKSKIN_ERROR_ARGUMENT,
                            "vkskin_crowd_pose_range: the crowd is NULL");
    if (begin > end || worker >= c->workers)
        return vks_api_fail(err, VKSKIN_ERROR_ARGUMENT,
                            "vkskin_crowd_pose_range: range [%u, %u) or worker %u (of %u) is wrong",
                            begin, end, worker, c->workers);
    vkskin_result r = api_check_list(c, instances, begin ? begin - 1 : 0, end, palettes, capacity,
                                     "vkskin_crowd_pose_range", err);
    if (r != VKSKIN_OK)
        return r;
    vks_crowd_palettes_range(&c->crowd, instances, begin, end, (vks_bone *)palettes, worker);
    return vks_api_ok(err);
}
