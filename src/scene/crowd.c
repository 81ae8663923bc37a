/* A crowd laid out and created (crowd.h): its instances placed on a grid or a ring with their
 * clocks, its models' samplers and bounds, the moved list and the kept poses. */
#include "crowd_impl.h"
#include "../core/alloc.h"

#include "../skin/dqs.h"
#include "../skin/skin_cpu.h"

#include <cglm/mat4.h>

#include <float.h>
#include <math.h>
#include <string.h>

/* Bounds sample each clip at this many evenly spaced times. */
#define CROWD_SAMPLES_PER_CLIP 8
/* Neighbours stand this much further apart than their footprints' diameter. */
#define CROWD_SPACING_MARGIN 1.3f
/* As the pool's limit (pool.c): per-thread scratch for more would be waste. */
#define CROWD_MAX_THREADS 1024u
#define CROWD_PI 3.14159265358979323846

/* ---- Deterministic variation ---- */

/* lowbias32 (Chris Wellons' hash-prospector): a full-avalanche 32-bit integer hash. */
static uint32_t crowd_hash(uint32_t x)
{
    x ^= x >> 16;
    x *= 0x7feb352du;
    x ^= x >> 15;
    x *= 0x846ca68bu;
    x ^= x >> 16;
    return x;
}

/* A uniform number in [0, 1) for (seed, spot, what). */
static double crowd_unit(uint32_t seed, uint32_t spot, uint32_t what)
{
    uint32_t h = crowd_hash(crowd_hash(seed ^ (what * 0x9e3779b9u)) ^ spot);
    return (double)h * (1.0 / 4294967296.0);
}

enum { CROWD_VARY_TIME, CROWD_VARY_SPEED, CROWD_VARY_HEADING };

/* A resampled clip may take this much memory: 8 times its keys' own, plus 4 MiB (a clip whose
 * channels share their key times takes 1.5 to 2 times; one whose channels' times all differ, or
 * a large skeleton with few animated joints, can take far more and is sampled directly). */
static size_t crowd_sampler_cap(const vks_clip *k)
{
    size_t keys = (size_t)k->t_key_count * sizeof(float[4]) +
                  (size_t)k->r_key_count * sizeof(float[5]) +
                  (size_t)k->s_key_count * sizeof(float[4]);
    return 8 * keys + ((size_t)4 << 20);
}

/* A model's skeleton in its pose order (model->pose_order): joint p of it is joint
 * pose_order[p], its parent given as a position. */
static bool crowd_pose_skeleton(const vks_model *m, vks_skeleton *out)
{
    const vks_skeleton *sk = &m->skeleton;
    const uint32_t n = sk->joint_count;
    uint32_t *position = vks_malloc(sizeof *position * n);
    *out = (vks_skeleton){.joint_count = n,
                          .bone_count = sk->bone_count,
                          .parents = vks_malloc(sizeof *out->parents * n),
                          .rest = vks_malloc(sizeof *out->rest * n),
                          .inverse_bind = vks_malloc(sizeof *out->inverse_bind * n),
                          .root_inverse = sk->root_inverse};
    const bool ok = position && out->parents && out->rest && out->inverse_bind;
    for (uint32_t p = 0; ok && p < n; p++)
        position[m->pose_order[p]] = p;
    for (uint32_t p = 0; ok && p < n; p++) {
        const uint32_t j = m->pose_order[p];
        out->parents[p] = sk->parents[j] < 0 ? -1 : (int32_t)position[sk->parents[j]];
        out->rest[p] = sk->rest[j];
        out->inverse_bind[p] = sk->inverse_bind[j];
    }
    vks_free(position);
    return ok;
}

static void crowd_free_skeleton(vks_skeleton *sk)
{
    vks_free(sk->parents);
    vks_free(sk->rest);
    vks_free(sk->inverse_bind);
    *sk = (vks_skeleton){0};
}

/* Samplers a model has: the bind pose's, its clips', and their copies in place (crowd_impl.h). */
static uint32_t crowd_sampler_count(const vks_model *model)
{
    return 1u + model->clip_count * (model->root_motion ? 2u : 1u);
}

/* Samplers for the bind pose and every clip of every model, and the clips' copies in place (in
 * pose order for a model with a skeleton level of detail: its clips' tracks in that order); false
 * when out of memory. A clip without root motion has no copy: its in-place sampler stays empty
 * (vks_crowd__sampler never names it). */
static bool crowd_build_samplers(vks_crowd *c)
{
    for (uint32_t m = 0; m < c->model_count; m++) {
        const vks_model *model = c->models[m];
        const uint32_t count = crowd_sampler_count(model);
        c->samplers[m] = vks_calloc(count, sizeof *c->samplers[m]);
        if (!c->samplers[m])
            return false;
        const vks_skeleton *sk = &model->skeleton;
        vks_track *tracks = NULL;
        if (model->pose_order) {
            if (!crowd_pose_skeleton(model, &c->pose_skeletons[m]) ||
                !(tracks = vks_malloc(sizeof *tracks * sk->joint_count)))
                return false;
            sk = &c->pose_skeletons[m];
        }
        for (uint32_t k = 0; k < count; k++) {
            /* k - 1 as a clip argument: past the clips, their copies in place. */
            const int32_t arg = k <= model->clip_count
                                    ? (int32_t)k - 1
                                    : (int32_t)(k - 1 - model->clip_count) | VKS_CLIP_IN_PLACE;
            if (k > model->clip_count && !vks_model_travels(model, vks_clip_index(arg)))
                continue;
            const vks_clip *source = vks_model_clip(model, arg);
            vks_clip clip = source ? *source : (vks_clip){0};
            if (k && tracks) {
                for (uint32_t p = 0; p < sk->joint_count; p++)
                    tracks[p] = source->tracks[model->pose_order[p]];
                clip.tracks = tracks;
            }
            if (vks_sampler_build(sk, k ? &clip : NULL, k ? crowd_sampler_cap(&clip) : SIZE_MAX,
                                  &c->samplers[m][k]) == VKS_SAMPLER_NO_MEMORY) {
                vks_free(tracks);
                return false;
            }
        }
        vks_free(tracks);
    }
    return true;
}

/* ---- Bounds and placement ---- */

/* The palette-space box around the bind pose and every clip's motion, skinned the crowd's way
 * (dual quaternions keep volume linear blending loses: their vertices reach further out). */
static bool crowd_model_bounds(const vks_model *m, bool dq, float lo[3], float hi[3])
{
    for (int k = 0; k < 3; k++) {
        lo[k] = FLT_MAX;
        hi[k] = -FLT_MAX;
    }
    float(*pos)[3] = vks_malloc(sizeof *pos * m->vertex_count);
    float(*nrm)[3] = vks_malloc(sizeof *nrm * m->vertex_count);
    bool ok = pos && nrm;
    /* The clips, then their copies in place (each a clip argument, asset/model.h). */
    const int32_t args = 1 + (int32_t)m->clip_count * (m->root_motion ? 2 : 1);
    for (int32_t a = 0; ok && a < args; a++) {
        const int32_t c = a <= (int32_t)m->clip_count
                              ? a - 1
                              : (a - 1 - (int32_t)m->clip_count) | VKS_CLIP_IN_PLACE;
        if (a > (int32_t)m->clip_count && !vks_model_travels(m, vks_clip_index(c)))
            continue;
        for (int s = 0; ok && s < (c < 0 ? 1 : CROWD_SAMPLES_PER_CLIP); s++) {
            double t =
                c < 0 ? 0.0
                      : (double)m->clips[vks_clip_index(c)].duration * s / CROWD_SAMPLES_PER_CLIP;
            ok = vks_skin_cpu_pose_level_as(m, 0, c, t, dq, pos, nrm, NULL);
            for (uint32_t v = 0; ok && v < m->vertex_count; v++) {
                for (int k = 0; k < 3; k++) {
                    lo[k] = fminf(lo[k], pos[v][k]);
                    hi[k] = fmaxf(hi[k], pos[v][k]);
                }
            }
        }
    }
    vks_free(pos);
    vks_free(nrm);
    return ok;
}

/* Palette space -> the model's world frame: the inverse of the root inverse (as the renderer). */
static void crowd_root_transform(const vks_model *m, mat4 root)
{
    const vks_affine *ri = &m->skeleton.root_inverse;
    mat4 inv;
    for (int c = 0; c < 4; c++)
        for (int row = 0; row < 4; row++)
            inv[c][row] = row < 3 ? ri->row[row][c] : (c == 3 ? 1.0f : 0.0f);
    glm_mat4_inv(inv, root);
}

/* How far the model reaches from the vertical axis its placement turns it about, in world units:
 * the farthest corner of its box carried into the world by the root transform. */
static float crowd_footprint_radius(const float lo[3], const float hi[3], const mat4 root)
{
    float r2 = 0.0f;
    for (int i = 0; i < 8; i++) {
        float p[3] = {i & 1 ? hi[0] : lo[0], i & 2 ? hi[1] : lo[1], i & 4 ? hi[2] : lo[2]}, w[3];
        vks_transform_point(root, p, w);
        r2 = fmaxf(r2, w[0] * w[0] + w[2] * w[2]);
    }
    return sqrtf(r2);
}

/* Spot k's position on the ground and heading (radians about +Y; 0 faces +Z, glTF's forward). */
static void crowd_spot(const vks_crowd_desc *d, uint32_t k, float spacing, float pos[3],
                       float *heading)
{
    uint32_t n = d->instance_count;
    pos[0] = pos[1] = pos[2] = 0.0f;
    *heading = 0.0f;
    if (n == 1)
        return;
    if (d->layout == VKS_CROWD_RING) {
        /* Neighbours a chord of 2 R sin(pi / n) apart: at least `spacing`, as is the radius. */
        double radius = fmax(spacing, spacing / (2.0 * sin(CROWD_PI / n)));
        double a = 2.0 * CROWD_PI * k / n;
        pos[0] = (float)(radius * cos(a));
        pos[2] = (float)(radius * sin(a));
        *heading = (float)atan2(-cos(a), -sin(a)); /* +Z turned towards the centre */
        return;
    }
    uint32_t cols = (uint32_t)ceil(sqrt((double)n));
    while ((uint64_t)cols * cols < n) /* sqrt's rounding */
        cols++;
    uint32_t rows = (n + cols - 1) / cols;
    pos[0] = (float)(((double)(k % cols) - 0.5 * (cols - 1)) * spacing);
    pos[2] = (float)(((double)(k / cols) - 0.5 * (rows - 1)) * spacing);
    if (k > 0)
        *heading = (float)(2.0 * CROWD_PI * crowd_unit(d->seed, k, CROWD_VARY_HEADING));
}

/* world = translate(pos) * rotate_y(heading) * root, and the sphere around the model's box. */
/* The instance at `world`: its bounding sphere around its model's box [lo, hi] and its scale. */
static void crowd_set_world(vks_crowd_instance *in, const float world[4][4], const float lo[3],
                            const float hi[3])
{
    memcpy(in->world, world, sizeof in->world);
    float mid[3], half2 = 0.0f, scale2 = 0.0f;
    for (int k = 0; k < 3; k++) {
        mid[k] = 0.5f * (lo[k] + hi[k]);
        half2 += 0.25f * (hi[k] - lo[k]) * (hi[k] - lo[k]);
    }
    vks_transform_point(in->world, mid, in->center);
    /* The largest column length bounds the stretch of a rotation times a scale (a TRS root). */
    for (int col = 0; col < 3; col++) {
        float l2 = world[col][0] * world[col][0] + world[col][1] * world[col][1] +
                   world[col][2] * world[col][2];
        scale2 = fmaxf(scale2, l2);
    }
    in->scale = sqrtf(scale2);
    in->radius = sqrtf(half2) * in->scale;
}

static void crowd_place(vks_crowd_instance *in, const float pos[3], float heading, const mat4 root,
                        const float lo[3], const float hi[3])
{
    float c = cosf(heading), s = sinf(heading);
    mat4 place = {{c, 0, -s, 0}, {0, 1, 0, 0}, {s, 0, c, 0}, {pos[0], pos[1], pos[2], 1}};
    mat4 world;
    glm_mat4_mul(place, (vec4 *)root, world);
    crowd_set_world(in, (const float(*)[4])world, lo, hi);
}

/* The world-space extent in y of the model's box carried by `root`. */
static void crowd_world_y(const float lo[3], const float hi[3], const mat4 root, float *y_lo,
                          float *y_hi)
{
    *y_lo = FLT_MAX;
    *y_hi = -FLT_MAX;
    for (int i = 0; i < 8; i++) {
        float p[3] = {i & 1 ? hi[0] : lo[0], i & 2 ? hi[1] : lo[1], i & 4 ? hi[2] : lo[2]}, w[3];
        vks_transform_point(root, p, w);
        *y_lo = fminf(*y_lo, w[1]);
        *y_hi = fmaxf(*y_hi, w[1]);
    }
}

/* desc.normalize: each model's root transform scaled (uniformly, about the world origin) to the
 * first model's height and lifted so that its lowest point is on the ground. */
static void crowd_normalize(const vks_crowd *c, mat4 roots[])
{
    float lo0, hi0;
    crowd_world_y(c->model_lo[0], c->model_hi[0], roots[0], &lo0, &hi0);
    const float target = hi0 - lo0;
    for (uint32_t m = 0; m < c->model_count; m++) {
        float y_lo, y_hi;
        crowd_world_y(c->model_lo[m], c->model_hi[m], roots[m], &y_lo, &y_hi);
        const float height = y_hi - y_lo;
        const float scale =
            target > 0.0f && height > 0.0f && isfinite(target / height) ? target / height : 1.0f;
        mat4 fit = {{scale, 0, 0, 0}, {0, scale, 0, 0}, {0, 0, scale, 0}, {0, -y_lo * scale, 0, 1}};
        mat4 root;
        glm_mat4_mul(fit, roots[m], root);
        glm_mat4_copy(root, roots[m]);
    }
}

/* ---- Create / destroy ---- */

static const char *crowd_model_name(const vks_model *m)
{
    return m->name ? m->name : "a model";
}

static bool crowd_check(const vks_crowd_desc *d, vks_error *err)
{
    if (!d->models || d->model_count == 0)
        return vks_fail_usage(err, "a crowd needs at least one model");
    if (d->model_count > VKS_CROWD_MAX_MODELS)
        return vks_fail_usage(err, "a crowd takes at most %u models, not %u", VKS_CROWD_MAX_MODELS,
                              d->model_count);
    if (d->instance_count == 0 || d->instance_count > VKS_CROWD_MAX_INSTANCES)
        return vks_fail_usage(err, "a crowd needs 1 to %u instances, not %u",
                              VKS_CROWD_MAX_INSTANCES, d->instance_count);
    if (d->layout != VKS_CROWD_GRID && d->layout != VKS_CROWD_RING)
        return vks_fail_usage(err, "unknown crowd layout %d", (int)d->layout);
    if (d->threads > CROWD_MAX_THREADS)
        return vks_fail_usage(err, "a crowd takes 0 to %u threads, not %u", CROWD_MAX_THREADS,
                              d->threads);
    if (!isfinite(d->time))
        return vks_fail_usage(err, "a crowd's start time must be finite, not %g", d->time);
    for (uint32_t m = 0; m < d->model_count; m++) {
        const vks_model *model = d->models[m];
        if (!model)
            return vks_fail_usage(err, "crowd model %u is missing (NULL)", m);
        if (model->vertex_count == 0 || model->index_count == 0 || model->skeleton.joint_count == 0)
            return vks_fail_usage(err,
                                  "%s has nothing to draw (%u vertices, %u indices, %u joints)",
                                  crowd_model_name(model), model->vertex_count, model->index_count,
                                  model->skeleton.joint_count);
        if (d->dual_quaternion && !vks_dq_check_model(model, err))
            return false;
        int32_t clip = d->clips ? d->clips[m] : VKS_CROWD_VARIED_CLIP;
        if (clip != VKS_CROWD_VARIED_CLIP && (clip < -1 || clip >= (int32_t)model->clip_count))
            return vks_fail_usage(err, "%s has %u clip(s): clip %d is out of range",
                                  crowd_model_name(model), model->clip_count, clip);
    }
    return true;
}

uint64_t vks_crowd_palette_entries(const vks_model *const *models, uint32_t model_count,
                                   uint32_t instance_count)
{
    uint64_t entries = 0;
    for (uint32_t m = 0; m < model_count; m++)
        entries += (uint64_t)vks_crowd_dealt(instance_count, model_count, m) *
                   vks_crowd_range_entries(models[m], false); /* (dual quaternions take less) */
    return entries;
}

uint64_t vks_crowd_host_bytes(const vks_model *const *models, uint32_t model_count,
                              uint32_t instance_count, bool keep_poses)
{
    /* What vks_crowd_create and vks_crowd_keep_poses allocate that grows with the crowd: per
     * instance its state, first palette entry, sampler cursor and culling scratch (and schedule
     * flag and two stamps); per palette entry six key cursors (and the kept pose). (The culling's
     * counts, 4 bytes per 8 192 instances, are left out: the figure stays linear.) */
    const uint64_t entries = vks_crowd_palette_entries(models, model_count, instance_count);
    return (uint64_t)instance_count *
               (sizeof(vks_crowd_instance) + 3 * sizeof(uint32_t) +
                (keep_poses ? 1 + VKS_CROWD_DESTINATIONS * sizeof(uint64_t) : 0)) +
           entries * (6 * sizeof(uint32_t) + (keep_poses ? sizeof(vks_bone) : 0));
}

/* Each level's mean triangle area in the bind pose, in palette units squared: the model's
 * positions' area scaled by the ratio of the palette-space box's diagonal (lo, hi: over the clips
 * too) to the positions' box's. */
static void crowd_triangle_areas(const vks_model *m, const float lo[3], const float hi[3],
                                 float area[VKS_MAX_LEVELS])
{
    float plo[3] = {FLT_MAX, FLT_MAX, FLT_MAX}, phi[3] = {-FLT_MAX, -FLT_MAX, -FLT_MAX};
    for (uint32_t v = 0; v < m->vertex_count; v++)
        for (int a = 0; a < 3; a++) {
            plo[a] = fminf(plo[a], m->positions[v][a]);
            phi[a] = fmaxf(phi[a], m->positions[v][a]);
        }
    double diag = 0.0, pdiag = 0.0;
    for (int a = 0; a < 3; a++) {
        diag += ((double)hi[a] - lo[a]) * ((double)hi[a] - lo[a]);
        pdiag += m->vertex_count ? ((double)phi[a] - plo[a]) * ((double)phi[a] - plo[a]) : 0.0;
    }
    const double ratio2 = pdiag > 0.0 ? diag / pdiag : 1.0;
    memset(area, 0, sizeof *area * VKS_MAX_LEVELS);
    for (uint32_t l = 0; l < vks_model_level_count(m); l++) {
        const vks_level lv = vks_model_level(m, l);
        const uint32_t *indices = l ? m->lod_indices : m->indices;
        double sum = 0.0;
        for (uint32_t i = 0; i < m->mesh_count; i++) {
            const vks_mesh_level ml = vks_model_mesh_level(m, l, i);
            for (uint32_t t = 0; t + 3 <= ml.index_count; t += 3) {
                const float *p[3];
                for (int k = 0; k < 3; k++) {
                    const uint32_t v = indices[ml.first_index + t + k] + ml.base_vertex;
                    p[k] = m->positions[l ? m->lod_source[lv.vertex_first + v] : v];
                }
                const double e1[3] = {p[1][0] - p[0][0], p[1][1] - p[0][1], p[1][2] - p[0][2]};
                const double e2[3] = {p[2][0] - p[0][0], p[2][1] - p[0][1], p[2][2] - p[0][2]};
                const double x = e1[1] * e2[2] - e1[2] * e2[1], y = e1[2] * e2[0] - e1[0] * e2[2],
                             z = e1[0] * e2[1] - e1[1] * e2[0];
                sum += 0.5 * sqrt(x * x + y * y + z * z);
            }
        }
        area[l] = lv.triangle_count ? (float)(sum * ratio2 / lv.triangle_count) : 0.0f;
    }
}

/* The crowd's per-instance and per-entry arrays for n instances of palette_count entries, its
 * threads' scratch and samplers; false (with a message) when out of memory, the crowd destroyed. */
static bool crowd_alloc(const vks_crowd_desc *d, vks_crowd *c, uint64_t palette_count,
                        vks_error *err)
{
    const uint32_t n = c->instance_count;
    const vks_crowd__scratch layout = vks_crowd__scratch_of(c);
    c->instances = vks_calloc(n, sizeof *c->instances);
    c->palette_first = vks_malloc(sizeof *c->palette_first * n);
    c->palette_room = vks_malloc(sizeof *c->palette_room * n);
    c->model_of = vks_malloc(n);
    c->cursors = vks_calloc(6 * (size_t)palette_count, sizeof *c->cursors);
    c->sampler_cursors = vks_calloc(n, sizeof *c->sampler_cursors);
    c->cull_scratch = vks_malloc(sizeof *c->cull_scratch * n);
    c->cull_counts = vks_malloc(sizeof *c->cull_counts * (n / VKS_CROWD_GRAIN + 2));
    size_t scratch_size = layout.stride * c->threads; /* both below 2^62: no overflow */
    c->scratch =
        scratch_size / c->threads == layout.stride ? vks_aligned_alloc(64, scratch_size) : NULL;
    if (!c->instances || !c->palette_first || !c->palette_room || !c->model_of || !c->cursors ||
        !c->sampler_cursors || !c->scratch || !c->cull_scratch || !c->cull_counts ||
        (d->keep_poses && !vks_crowd_keep_poses(c, err)) || !crowd_build_samplers(c)) {
        vks_crowd_destroy(c);
        return vks_fail_memory(err, "out of memory for a crowd of %u instances", n);
    }
    return true;
}

/* Each model's posed bounds (a model listed twice shares its first listing's), checked within
 * VKS_MAX_COORDINATE, its root transform in roots[m] and its triangles' areas; false (with a
 * message) on a model out of reach or out of memory, the crowd destroyed. */
static bool crowd_measure_models(vks_crowd *c, mat4 roots[VKS_CROWD_MAX_MODELS], vks_error *err)
{
    const uint32_t mc = c->model_count;
    for (uint32_t m = 0; m < mc; m++) {
        /* The model's name, for messages after vks_crowd_destroy has cleared the crowd. */
        const char *name = crowd_model_name(c->models[m]);
        uint32_t same = 0; /* a model listed twice is skinned once */
        while (c->models[same] != c->models[m])
            same++;
        if (same < m) {
            memcpy(c->model_lo[m], c->model_lo[same], sizeof c->model_lo[m]);
            memcpy(c->model_hi[m], c->model_hi[same], sizeof c->model_hi[m]);
        } else if (!crowd_model_bounds(c->models[m], c->dq[m], c->model_lo[m], c->model_hi[m])) {
            vks_crowd_destroy(c);
            return vks_fail_memory(err, "out of memory for the bounds of %s", name);
        }
        /* Posed by its clips, a model must stay finite and within reach of the camera's
         * arithmetic (asset/model.h); its bind pose was checked at import. */
        for (int k = 0; k < 3; k++)
            if (!(fabsf(c->model_lo[m][k]) <= VKS_MAX_COORDINATE &&
                  fabsf(c->model_hi[m][k]) <= VKS_MAX_COORDINATE)) {
                /* The bound that fails: not finite, or past the limit. */
                const float far = !(fabsf(c->model_lo[m][k]) <= VKS_MAX_COORDINATE)
                                      ? c->model_lo[m][k]
                                      : c->model_hi[m][k];
                vks_crowd_destroy(c);
                return vks_fail(err,
                                "%s: posed (bind pose or clips) it reaches %g on axis %c, beyond "
                                "the %g units a model may reach: the file is damaged",
                                name, far, "xyz"[k], VKS_MAX_COORDINATE);
            }
        crowd_root_transform(c->models[m], roots[m]);
        mat4 inverse; /* (cglm's aligned matrices, copied into the crowd's) */
        glm_mat4_inv(roots[m], inverse);
        memcpy(c->model_root[m], roots[m], sizeof c->model_root[m]);
        memcpy(c->model_root_inverse[m], inverse, sizeof c->model_root_inverse[m]);
        crowd_triangle_areas(c->models[m], c->model_lo[m], c->model_hi[m], c->triangle_area[m]);
        const vks_model *model = c->models[m];
        c->splat_weight[m] =
            model->splat.valid && model->splat.area > 0.0f
                ? (float)vks_model_level(model, vks_model_level_count(model) - 1).triangle_count /
                      model->splat.area
                : 0.0f;
    }
    return true;
}

/* Every instance placed on its spot of the grid (spacing apart), its clip, clock and speed
 * varied by the seed, its palette range dealt in index order; the crowd's box around them. */
static void crowd_place_all(const vks_crowd_desc *d, vks_crowd *c,
                            const mat4 roots[VKS_CROWD_MAX_MODELS], float spacing)
{
    const uint32_t mc = c->model_count;
    for (int k = 0; k < 3; k++) {
        c->lo[k] = FLT_MAX;
        c->hi[k] = -FLT_MAX;
    }
    const double speed_lo = log(0.8), speed_hi = log(1.25); /* symmetric about 1 in log scale */
    uint32_t palette_first = 0;
    for (uint32_t m = 0; m < mc; m++) {
        const vks_model *model = c->models[m];
        int32_t clip = d->clips ? d->clips[m] : VKS_CROWD_VARIED_CLIP;
        for (uint32_t i = c->model_first[m], j = 0; i < c->model_first[m + 1]; i++, j++) {
            uint32_t spot = j * mc + m; /* the inverse of dealing spot k to model k mod mc */
            vks_crowd_instance *in = &c->instances[i];
            in->model = m;
            in->clip = clip;
            if (clip == VKS_CROWD_VARIED_CLIP)
                in->clip = model->clip_count ? (int32_t)(j % model->clip_count) : -1;
            in->from_clip = -1;
            in->held_clip = in->clip;
            in->time = d->time;
            in->speed = 1.0f;
            if (spot > 0) {
                double duration = in->clip >= 0 ? model->clips[in->clip].duration : 0.0;
                in->time = fmod(d->time + duration * crowd_unit(d->seed, spot, CROWD_VARY_TIME),
                                duration > 0.0 ? duration : INFINITY);
                in->speed = (float)exp(speed_lo + (speed_hi - speed_lo) *
                                                      crowd_unit(d->seed, spot, CROWD_VARY_SPEED));
            }
            in->from_time = in->time;
            in->root_motion = d->root_motion;
            in->placed = 1; /* (crowd_place: its spot times the model's placed) */
            in->posed_frame = in->seen_frame = UINT64_MAX;
            float pos[3], heading;
            crowd_spot(d, spot, spacing, pos, &heading);
            crowd_place(in, pos, heading, roots[m], c->model_lo[m], c->model_hi[m]);
            for (int k = 0; k < 3; k++) {
                c->lo[k] = fminf(c->lo[k], in->center[k] - in->radius);
                c->hi[k] = fmaxf(c->hi[k], in->center[k] + in->radius);
            }
            c->palette_first[i] = palette_first;
            c->palette_room[i] = vks_crowd_range_entries(model, c->dq[m]);
            c->model_of[i] = (uint8_t)m;
            palette_first += c->palette_room[i];
        }
    }
    c->palette_count = palette_first; /* (dual quaternions may take fewer than counted above) */
}

bool vks_crowd_create(const vks_crowd_desc *d, vks_crowd *c, vks_error *err)
{
    *c = (vks_crowd){0};
    if (!crowd_check(d, err))
        return false;
    uint32_t n = d->instance_count, mc = d->model_count;
    c->model_count = mc;
    c->instance_count = c->instance_capacity = c->live_count = n;
    c->threads = d->threads ? d->threads : 1u;
    c->root_motion = d->root_motion;
    memcpy(c->models, d->models, sizeof *d->models * mc);
    for (uint32_t m = 0; m < mc; m++)
        c->dq[m] = d->dual_quaternion;

    for (uint32_t m = 0; m < mc; m++) /* spots dealt in turn */
        c->model_first[m + 1] = c->model_first[m] + vks_crowd_dealt(n, mc, m);
    const uint64_t palette_count = vks_crowd_palette_entries(c->models, mc, n);
    if (palette_count > UINT32_MAX) {
        vks_crowd_destroy(c);
        return vks_fail_memory(err, "a crowd of %u needs %llu palette entries, more than %u", n,
                               (unsigned long long)palette_count, UINT32_MAX);
    }
    c->palette_count = c->palette_capacity = (uint32_t)palette_count;

    if (!crowd_alloc(d, c, palette_count, err))
        return false;

    mat4 roots[VKS_CROWD_MAX_MODELS];
    if (!crowd_measure_models(c, roots, err))
        return false;
    float spacing = 0.0f;
    if (d->normalize)
        crowd_normalize(c, roots);
    for (uint32_t m = 0; m < mc; m++) { /* (cglm's aligned matrices, copied) */
        mat4 inverse;
        glm_mat4_inv(roots[m], inverse);
        memcpy(c->model_placed[m], roots[m], sizeof c->model_placed[m]);
        memcpy(c->model_placed_inverse[m], inverse, sizeof c->model_placed_inverse[m]);
    }
    if (!vks_crowd__gaits(c)) {
        vks_crowd_destroy(c);
        return vks_fail_memory(err, "out of memory for a crowd of %u instances", n);
    }
    for (uint32_t m = 0; m < mc; m++) {
        float r = crowd_footprint_radius(c->model_lo[m], c->model_hi[m], roots[m]);
        spacing = fmaxf(spacing, 2.0f * r * CROWD_SPACING_MARGIN);
    }
    if (!(spacing > 0.0f && spacing < FLT_MAX)) /* a model of one point: still apart */
        spacing = 1.0f;

    crowd_place_all(d, c, (const mat4 *)roots, spacing);
    if (d->root_motion && !vks_crowd__moved_list(c)) { /* travellers are listed as they move */
        vks_crowd_destroy(c);
        return vks_fail_memory(err, "out of memory for a crowd of %u instances", n);
    }
    return true;
}

void vks_crowd_destroy(vks_crowd *c)
{
    vks_free(c->instances);
    vks_free(c->palette_first);
    vks_free(c->palette_room);
    vks_free(c->model_of);
    vks_free(c->free_indices);
    for (uint32_t m = 0; m < c->model_count; m++) {
        for (uint32_t k = 0; c->samplers[m] && k < crowd_sampler_count(c->models[m]); k++)
            vks_sampler_free(&c->samplers[m][k]);
        vks_free(c->samplers[m]);
        crowd_free_skeleton(&c->pose_skeletons[m]);
    }
    vks_free(c->sampler_cursors);
    vks_free(c->cursors);
    vks_free(c->scratch);
    vks_free(c->poses);
    vks_free(c->schedule);
    vks_free(c->cull_scratch);
    vks_free(c->cull_counts);
    for (uint32_t m = 0; m < VKS_CROWD_MAX_MODELS; m++)
        vks_free(c->gaits[m]);
    vks_free(c->moved);
    vks_free(c->moved_mark);
    for (uint32_t d = 0; d < VKS_CROWD_DESTINATIONS; d++)
        vks_free(c->destinations[d].held);
    *c = (vks_crowd){0};
}

uint32_t vks_crowd_sampled_clips(const vks_crowd *c, uint32_t *total, vks_sampler_isa *isa)
{
    uint32_t n = 0;
    *total = 0;
    for (uint32_t m = 0; m < c->model_count; m++)
        for (uint32_t k = 0; k <= c->models[m]->clip_count; k++) {
            const vks_sampler *s = &c->samplers[m][k];
            ++*total;
            if (s->segments) {
                n++;
                *isa = vks_sampler_current_isa(s);
            }
        }
    return n;
}

/* The moved list, allocated at the first move. */
bool vks_crowd__moved_list(vks_crowd *c)
{
    if (c->moved)
        return true;
    c->moved = vks_malloc(sizeof *c->moved * c->instance_capacity);
    c->moved_mark = vks_calloc(c->instance_capacity, 1);
    if (c->moved && c->moved_mark)
        return true;
    vks_free(c->moved);
    vks_free(c->moved_mark);
    c->moved = NULL;
    c->moved_mark = NULL;
    return false;
}

void vks_crowd__mark_moved(vks_crowd *c, uint32_t i)
{
    const vks_crowd_instance *in = &c->instances[i];
    for (int k = 0; k < 3; k++) {
        c->lo[k] = fminf(c->lo[k], in->center[k] - in->radius);
        c->hi[k] = fmaxf(c->hi[k], in->center[k] + in->radius);
    }
    if (!c->moved_mark[i]) {
        c->moved_mark[i] = 1;
        c->moved[c->moved_count++] = i;
    }
}

void vks_crowd_clear_moved(vks_crowd *c)
{
    for (uint32_t k = 0; k < c->moved_count; k++)
        c->moved_mark[c->moved[k]] = 0;
    c->moved_count = 0;
}

void vks_crowd__place(vks_crowd *c, uint32_t i, const float world[4][4])
{
    vks_crowd_instance *in = &c->instances[i];
    crowd_set_world(in, world, c->model_lo[in->model], c->model_hi[in->model]);
}

bool vks_crowd_set_world(vks_crowd *c, uint32_t i, const float world[4][4])
{
    if (!vks_crowd__moved_list(c))
        return false;
    vks_crowd_instance *in = &c->instances[i];
    crowd_set_world(in, world, c->model_lo[in->model], c->model_hi[in->model]);
    in->placed = 0; /* any affine transform: its whole entry goes to the GPU */
    vks_crowd__mark_moved(c, i);
    return true;
}

bool vks_crowd_keep_schedule(vks_crowd *c, vks_error *err)
{
    if (!c->schedule)
        c->schedule = vks_malloc(c->instance_capacity ? c->instance_capacity : 1);
    return c->schedule || vks_fail_memory(err, "out of memory for the schedule of %u instances",
                                          c->instance_count);
}

bool vks_crowd_keep_poses(vks_crowd *c, vks_error *err)
{
    if (c->poses)
        return true;
    if (!vks_crowd_keep_schedule(c, err))
        return false;
    c->poses = vks_malloc(sizeof *c->poses * (c->palette_capacity ? c->palette_capacity : 1));
    bool ok = c->poses != NULL;
    for (uint32_t d = 0; d < VKS_CROWD_DESTINATIONS; d++) {
        c->destinations[d] = (struct vks_crowd_destination){
            .held = vks_malloc(sizeof *c->destinations[d].held *
                               (c->instance_capacity ? c->instance_capacity : 1))};
        ok = ok && c->destinations[d].held;
    }
    if (!ok) {
        vks_free(c->poses);
        c->poses = NULL;
        for (uint32_t d = 0; d < VKS_CROWD_DESTINATIONS; d++) {
            vks_free(c->destinations[d].held);
            c->destinations[d].held = NULL;
        }
        return vks_fail_memory(err, "out of memory for the last poses of %u instances",
                               c->instance_count);
    }
    return true;
}
