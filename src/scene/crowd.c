#include "crowd_impl.h"
#include "../core/alloc.h"

#include "../anim/anim.h"
#include "../skin/dqs.h"
#include "../skin/skin_cpu.h"

#include <cglm/mat4.h>

#include <assert.h>
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Bounds sample each clip at this many evenly spaced times. */
#define CROWD_SAMPLES_PER_CLIP 8
/* Neighbours stand this much further apart than their footprints' diameter. */
#define CROWD_SPACING_MARGIN 1.3f
/* Instances per chunk of vks_crowd_palettes: about this many joints, at most 64 instances
 * (20-joint characters: ~30 us per chunk on one core, so the atomic counter costs nothing and
 * a few thousand instances still spread over every thread). */
#define CROWD_GRAIN_JOINTS 2048u
#define CROWD_GRAIN_MAX 64u
/* Palettes written straight to their buffer are streamed (non-temporal stores: no read for
 * ownership, so half the memory traffic) when a frame's exceed this, past a core's L2. Smaller
 * ones are written as usual: the fence that streamed stores need before the chunk is handed back
 * waits for them to reach memory (bench --anim-only, one CesiumMan: 19.7 ns a skin joint with it,
 * 12.7 without). */
#define CROWD_STREAM_BYTES ((size_t)4 << 20)
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

/* ---- Per-thread scratch ---- */

typedef struct crowd_scratch_layout {
    size_t local_from, model, sampler, pose, dq, weights, stride; /* byte offsets in a thread's
                                                                     block */
} crowd_scratch_layout;

static uint32_t crowd_max_joints(const vks_crowd *c);
static uint32_t crowd_max_targets(const vks_crowd *c);

static crowd_scratch_layout crowd_scratch_of(const vks_crowd *c)
{
    const uint32_t max_joints = crowd_max_joints(c);
    crowd_scratch_layout l;
    size_t xforms = sizeof(vks_xform) * max_joints;
    l.local_from = xforms;
    l.model = 2 * xforms;
    /* Cache lines apart, so that threads never share one (and the sampler's SIMD loads are
     * aligned). */
    l.sampler = (2 * xforms + sizeof(vks_affine) * max_joints + 63) & ~(size_t)63;
    /* A palette in pose order (skeleton level of detail), placed from there. */
    l.pose = (l.sampler + vks_sampler_scratch_bytes(max_joints) + 63) & ~(size_t)63;
    /* A dual-quaternion model's palette as 3x4 matrices, before it is written as vks_dq. */
    l.dq = (l.pose + sizeof(vks_bone) * max_joints + 63) & ~(size_t)63;
    /* Morph-target weights: an instance's, and the clip's fading out. */
    l.weights = (l.dq + sizeof(vks_bone) * max_joints + 63) & ~(size_t)63;
    l.stride = (l.weights + 2 * sizeof(float) * crowd_max_targets(c) + 63) & ~(size_t)63;
    return l;
}

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

/* Samplers for the bind pose and every clip of every model (in pose order for a model with a
 * skeleton level of detail: its clips' tracks in that order); false when out of memory. */
static bool crowd_build_samplers(vks_crowd *c)
{
    for (uint32_t m = 0; m < c->model_count; m++) {
        const vks_model *model = c->models[m];
        c->samplers[m] = vks_calloc(model->clip_count + 1u, sizeof *c->samplers[m]);
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
        for (uint32_t k = 0; k <= model->clip_count; k++) {
            vks_clip clip = k ? model->clips[k - 1] : (vks_clip){0};
            if (k && tracks) {
                for (uint32_t p = 0; p < sk->joint_count; p++)
                    tracks[p] = model->clips[k - 1].tracks[model->pose_order[p]];
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

static uint32_t crowd_max_joints(const vks_crowd *c)
{
    uint32_t n = 0;
    for (uint32_t m = 0; m < c->model_count; m++)
        if (c->models[m]->skeleton.joint_count > n)
            n = c->models[m]->skeleton.joint_count;
    return n;
}

static uint32_t crowd_max_targets(const vks_crowd *c)
{
    uint32_t n = 0;
    for (uint32_t m = 0; m < c->model_count; m++)
        if (c->models[m]->target_count > n)
            n = c->models[m]->target_count;
    return n;
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
    for (int32_t c = -1; ok && c < (int32_t)m->clip_count; c++) {
        for (int s = 0; ok && s < (c < 0 ? 1 : CROWD_SAMPLES_PER_CLIP); s++) {
            double t = c < 0 ? 0.0 : (double)m->clips[c].duration * s / CROWD_SAMPLES_PER_CLIP;
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
     * instance its state, first palette entry, sampler cursor and culling scratch (and update
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

bool vks_crowd_create(const vks_crowd_desc *d, vks_crowd *c, vks_error *err)
{
    *c = (vks_crowd){0};
    if (!crowd_check(d, err))
        return false;
    uint32_t n = d->instance_count, mc = d->model_count;
    c->model_count = mc;
    c->instance_count = c->instance_capacity = c->live_count = n;
    c->threads = d->threads ? d->threads : 1u;
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

    crowd_scratch_layout layout = crowd_scratch_of(c);
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

    float spacing = 0.0f;
    mat4 roots[VKS_CROWD_MAX_MODELS];
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
        crowd_triangle_areas(c->models[m], c->model_lo[m], c->model_hi[m], c->triangle_area[m]);
    }
    if (d->normalize)
        crowd_normalize(c, roots);
    for (uint32_t m = 0; m < mc; m++) {
        float r = crowd_footprint_radius(c->model_lo[m], c->model_hi[m], roots[m]);
        spacing = fmaxf(spacing, 2.0f * r * CROWD_SPACING_MARGIN);
    }
    if (!(spacing > 0.0f && spacing < FLT_MAX)) /* a model of one point: still apart */
        spacing = 1.0f;

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
        for (uint32_t k = 0; c->samplers[m] && k <= c->models[m]->clip_count; k++)
            vks_sampler_free(&c->samplers[m][k]);
        vks_free(c->samplers[m]);
        crowd_free_skeleton(&c->pose_skeletons[m]);
    }
    vks_free(c->sampler_cursors);
    vks_free(c->cursors);
    vks_free(c->scratch);
    vks_free(c->poses);
    vks_free(c->update);
    vks_free(c->cull_scratch);
    vks_free(c->cull_counts);
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

/* ---- Per frame ---- */

static double crowd_wrap(double t, const vks_model *m, int32_t clip)
{
    /* Keep times within a period, where a double's precision does not run out over long runs. */
    if (clip >= 0 && m->clips[clip].duration > 0.0) {
        const double d = m->clips[clip].duration;
        return t >= 0.0 && t < d ? t : fmod(t, d); /* the same value: fmod is exact */
    }
    return t;
}

typedef struct crowd_advance_job {
    vks_crowd *crowd;
    double dt;
} crowd_advance_job;

static void crowd_advance_chunk(void *ctx, uint32_t begin, uint32_t end, uint32_t thread)
{
    (void)thread;
    const crowd_advance_job *job = ctx;
    vks_crowd *c = job->crowd;
    const double dt = job->dt;
    for (uint32_t i = begin; i < end; i++) {
        vks_crowd_instance *in = &c->instances[i];
        const vks_model *m = c->models[in->model];
        double step = dt * in->speed;
        in->time = crowd_wrap(in->time + step, m, in->clip);
        if (in->fade_left > 0.0) {
            in->from_time = crowd_wrap(in->from_time + step, m, in->from_clip);
            in->fade_left = fmax(in->fade_left - dt, 0.0);
        }
    }
}

void vks_crowd_advance(vks_crowd *c, vks_pool *pool, double dt)
{
    crowd_advance_job job = {c, dt};
    vks_pool_run(pool, c->instance_count, VKS_CROWD_GRAIN, crowd_advance_chunk, &job);
}

/* Instance i cross-fades from its current pose into `clip` (-1: the bind pose) over `fade`. */
static void crowd_fade_to(vks_crowd *c, uint32_t i, int32_t clip, double fade)
{
    vks_crowd_instance *in = &c->instances[i];
    if (clip == in->clip)
        return;
    const vks_model *m = c->models[in->model];
    /* The current clip's key hints become the fading clip's; the new clip starts afresh. */
    uint32_t size = vks_cursor_size(&m->skeleton);
    uint32_t *cursor = c->cursors + 6 * (size_t)c->palette_first[i];
    memcpy(cursor + size, cursor, sizeof *cursor * size);
    memset(cursor, 0, sizeof *cursor * size);
    c->sampler_cursors[i] = 0; /* (a cross-fade poses by the direct path: no sampler fades out) */
    in->from_clip = in->clip;
    in->from_time = in->time;
    in->clip = clip;
    in->time = 0.0;
    in->fade = in->fade_left = fade;
    in->posed_frame = UINT64_MAX; /* the animation level of detail poses it next frame */
}

static double crowd_fade_seconds(double fade)
{
    return fade > 0.0 && fade < INFINITY ? fade : 0.0; /* 0, negative or NaN: switch at once */
}

void vks_crowd_play(vks_crowd *c, uint32_t i, int32_t clip, double fade)
{
    vks_crowd_instance *in = &c->instances[i];
    if (clip >= 0)
        in->held_clip = clip;
    if (clip == in->clip) /* the clip it plays: from its start, at once */
        in->time = 0.0;
    else
        crowd_fade_to(c, i, clip, crowd_fade_seconds(fade));
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

bool vks_crowd_set_world(vks_crowd *c, uint32_t i, const float world[4][4])
{
    if (!vks_crowd__moved_list(c))
        return false;
    vks_crowd__mark_moved(c, i);
    vks_crowd_instance *in = &c->instances[i];
    crowd_set_world(in, world, c->model_lo[in->model], c->model_hi[in->model]);
    for (int k = 0; k < 3; k++) {
        c->lo[k] = fminf(c->lo[k], in->center[k] - in->radius);
        c->hi[k] = fmaxf(c->hi[k], in->center[k] + in->radius);
    }
    return true;
}

bool vks_crowd_keep_poses(vks_crowd *c, vks_error *err)
{
    if (c->poses)
        return true;
    c->poses = vks_malloc(sizeof *c->poses * (c->palette_capacity ? c->palette_capacity : 1));
    c->update = vks_malloc(c->instance_capacity);
    bool ok = c->poses && c->update;
    for (uint32_t d = 0; d < VKS_CROWD_DESTINATIONS; d++) {
        c->destinations[d] = (struct vks_crowd_destination){
            .held = vks_malloc(sizeof *c->destinations[d].held *
                               (c->instance_capacity ? c->instance_capacity : 1))};
        ok = ok && c->destinations[d].held;
    }
    if (!ok) {
        vks_free(c->poses);
        vks_free(c->update);
        c->poses = NULL;
        c->update = NULL;
        for (uint32_t d = 0; d < VKS_CROWD_DESTINATIONS; d++) {
            vks_free(c->destinations[d].held);
            c->destinations[d].held = NULL;
        }
        return vks_fail_memory(err, "out of memory for the last poses of %u instances",
                               c->instance_count);
    }
    return true;
}

void vks_crowd_switch_clip(vks_crowd *c, int32_t delta, double fade)
{
    fade = crowd_fade_seconds(fade);
    for (uint32_t i = 0; i < c->instance_count; i++) {
        vks_crowd_instance *in = &c->instances[i];
        int64_t n = c->models[in->model]->clip_count;
        if (n == 0 || in->removed) /* (a removed index's cursors may be another's after a pack) */
            continue;
        int64_t next = ((int64_t)in->clip + delta) % n; /* as the viewer's left / right keys */
        crowd_fade_to(c, i, (int32_t)(next < 0 ? next + n : next), fade);
    }
}

void vks_crowd_bind_pose(vks_crowd *c, bool on, double fade)
{
    fade = crowd_fade_seconds(fade);
    for (uint32_t i = 0; i < c->instance_count; i++) {
        vks_crowd_instance *in = &c->instances[i];
        if (in->removed)
            continue;
        if (on && in->clip >= 0)
            in->held_clip = in->clip;
        crowd_fade_to(c, i, on ? -1 : in->held_clip, fade);
    }
}

typedef struct crowd_cull_job {
    const vks_crowd *crowd;
    float plane[6][4]; /* unit normals: the plane equation gives a distance */
    uint32_t *visible;
} crowd_cull_job;

/* Instances [begin, end) inside the planes, ascending, into out; returns how many. */
static uint32_t crowd_cull_range(const vks_crowd *c, const float plane[6][4], uint32_t begin,
                                 uint32_t end, uint32_t *out)
{
    uint32_t count = 0;
    for (uint32_t i = begin; i < end; i++) {
        const vks_crowd_instance *in = &c->instances[i];
        bool inside = !in->hidden;
        for (int p = 0; p < 6; p++) {
            float d = plane[p][0] * in->center[0] + plane[p][1] * in->center[1] +
                      plane[p][2] * in->center[2] + plane[p][3];
            inside &= d >= -in->radius;
        }
        /* A branch, not an unconditional store: `out` may be write-combined GPU memory, and
         * culled runs are long (neighbours share the verdict), so it predicts well. */
        if (inside)
            out[count++] = i;
    }
    return count;
}

/* Pass 1: each chunk's finds at its own place in the scratch. */
static void crowd_cull_chunk(void *ctx, uint32_t begin, uint32_t end, uint32_t thread)
{
    (void)thread;
    const crowd_cull_job *job = ctx;
    const vks_crowd *c = job->crowd;
    c->cull_counts[begin / VKS_CROWD_GRAIN] =
        crowd_cull_range(c, job->plane, begin, end, c->cull_scratch + begin);
}

/* Pass 2: each chunk's finds to their place in `visible` (cull_counts: where they start). */
static void crowd_cull_copy(void *ctx, uint32_t begin, uint32_t end, uint32_t thread)
{
    (void)thread;
    const crowd_cull_job *job = ctx;
    const vks_crowd *c = job->crowd;
    for (uint32_t k = begin; k < end; k++) {
        const uint32_t first = c->cull_counts[k], n = c->cull_counts[k + 1] - first;
        memcpy(job->visible + first, c->cull_scratch + (size_t)k * VKS_CROWD_GRAIN,
               sizeof *job->visible * n);
    }
}

uint32_t vks_crowd_cull(const vks_crowd *c, vks_pool *pool, const float vp[4][4], uint32_t *visible)
{
    /* Gribb & Hartmann, "Fast extraction of viewing frustum planes from the world-view-projection
     * matrix" (2001): with rows r0..r3 of the matrix, a point is inside when r3 + r0, r3 - r0,
     * r3 + r1, r3 - r1 (|x|, |y| <= w), r2 (z >= 0, Vulkan) and r3 - r2 (z <= w) are >= 0. */
    crowd_cull_job job = {.crowd = c, .visible = visible};
    float(*plane)[4] = job.plane;
    for (int k = 0; k < 4; k++) {
        float r0 = vp[k][0], r1 = vp[k][1], r2 = vp[k][2], r3 = vp[k][3];
        plane[0][k] = r3 + r0;
        plane[1][k] = r3 - r0;
        plane[2][k] = r3 + r1;
        plane[3][k] = r3 - r1;
        plane[4][k] = r2;
        plane[5][k] = r3 - r2;
    }
    /* Unit normals, so that the plane equation gives a distance to compare with the radius. */
    for (int p = 0; p < 6; p++) {
        float len = sqrtf(plane[p][0] * plane[p][0] + plane[p][1] * plane[p][1] +
                          plane[p][2] * plane[p][2]);
        float inv = len > 0.0f ? 1.0f / len : 1.0f;
        for (int k = 0; k < 4; k++)
            plane[p][k] *= inv;
    }
    const uint32_t n = c->instance_count;
    if (vks_pool_threads(pool) == 1 || n <= VKS_CROWD_GRAIN || !c->cull_scratch)
        return crowd_cull_range(c, job.plane, 0, n, visible);
    const uint32_t chunks = (n + VKS_CROWD_GRAIN - 1) / VKS_CROWD_GRAIN;
    vks_pool_run(pool, n, VKS_CROWD_GRAIN, crowd_cull_chunk, &job);
    /* Where each chunk's finds go: a prefix sum, in place (count k becomes chunk k's start). */
    uint32_t total = 0;
    for (uint32_t k = 0; k < chunks; k++) {
        const uint32_t count = c->cull_counts[k];
        c->cull_counts[k] = total;
        total += count;
    }
    c->cull_counts[chunks] = total;
    vks_pool_run(pool, chunks, 1, crowd_cull_copy, &job);
    return total;
}

typedef struct crowd_job {
    vks_crowd *crowd;
    const uint32_t *visible;
    vks_bone *palette;
    /* vks_crowd_palettes_at: per listed instance, its first entry in `palette` (NULL: its
     * palette_first) */
    const uint32_t *first;
    crowd_scratch_layout layout;
    bool lod; /* vks_crowd_animate with periods: c->update says which to pose */
    /* Each instance posed for its level of detail (instance.lod): the joints the level keeps
     * (skeleton level of detail); else every joint. */
    bool at_levels;
    /* The pose written is the one kept for the schedule (the kept poses, or a palette store's
     * staging): its level is what the schedule knows (instance.posed_lod). A pose into a
     * caller's buffer is not (vkskin_crowd_pose). */
    bool keeps;
    bool stream; /* the sampler's non-temporal stores (crowd_job_of) */
    /* vks_crowd_animate with reuse: per instance, the pose `palette` holds (see vks_crowd). */
    uint64_t *held;
    uint64_t written; /* palette entries written into `palette` (added to atomically) */
} crowd_job;

static void crowd_sample(const vks_model *m, int32_t clip, double time, uint32_t *cursor,
                         vks_xform *local)
{
    if (clip < 0) {
        vks_pose_rest(&m->skeleton, local);
        return;
    }
    const vks_clip *k = &m->clips[clip];
    vks_clip_sample(&m->skeleton, k, vks_clip_time(k, time, VKS_WRAP_LOOP), cursor, local);
}

/* Instance i's local pose through anim.h's direct path into `local`: its clip, blended with the
 * one fading out (sampled into `local_from`) during a cross-fade. */
static void crowd_local_direct(vks_crowd *c, uint32_t i, vks_xform *local, vks_xform *local_from)
{
    const vks_crowd_instance *in = &c->instances[i];
    const vks_model *m = c->models[in->model];
    const uint32_t joints = m->skeleton.joint_count;
    uint32_t *cursor = c->cursors + 6 * (size_t)c->palette_first[i];
    crowd_sample(m, in->clip, in->time, cursor, local);
    if (in->fade_left > 0.0) {
        crowd_sample(m, in->from_clip, in->from_time, cursor + 3 * joints, local_from);
        float w = (float)(1.0 - in->fade_left / in->fade); /* 0 -> 1 towards the new */
        vks_pose_blend(local_from, local, w, joints, local);
    }
}

/* The morph-target weights of `clip` (-1: the bind pose, the targets' default weights) at its
 * clock `time`, looping. */
static void crowd_clip_weights(const vks_model *m, int32_t clip, double time, float *w)
{
    const vks_clip *k = clip < 0 ? NULL : &m->clips[clip];
    vks_clip_weights(m, k, k ? vks_clip_time(k, time, VKS_WRAP_LOOP) : 0.0, w);
}

void vks_crowd_weights(const vks_crowd *c, uint32_t i, float *weights, float *from)
{
    const vks_crowd_instance *in = &c->instances[i];
    const vks_model *m = c->models[in->model];
    crowd_clip_weights(m, in->clip, in->time, weights);
    if (in->fade_left > 0.0) { /* as crowd_local_direct blends the pose */
        crowd_clip_weights(m, in->from_clip, in->from_time, from);
        const float u = (float)(1.0 - in->fade_left / in->fade);
        for (uint32_t t = 0; t < m->target_count; t++)
            weights[t] = from[t] + (weights[t] - from[t]) * u;
    }
}

static void crowd_palettes_chunk(void *ctx, uint32_t begin, uint32_t end, uint32_t thread)
{
    const crowd_job *job = ctx;
    vks_crowd *c = job->crowd;
    /* Each thread its own scratch: chunks of one thread run one after the other. */
    char *scratch = (char *)c->scratch + job->layout.stride * thread;
    vks_xform *local = (vks_xform *)scratch;
    vks_xform *local_from = (vks_xform *)(scratch + job->layout.local_from);
    vks_affine *model = (vks_affine *)(scratch + job->layout.model);
    void *sampler_scratch = scratch + job->layout.sampler;
    uint64_t written = 0;
    for (uint32_t v = begin; v < end; v++) {
        uint32_t i = job->visible[v];
        if (i >= c->instance_count) /* not an instance: nothing to write */
            continue;
        vks_crowd_instance *in = &c->instances[i];
        const vks_model *m = c->models[in->model];
        const uint32_t joints = m->skeleton.joint_count;
        const uint32_t entries = vks_crowd_written_entries(c, in->model);
        vks_bone *out = job->palette + (job->first ? job->first[v] : c->palette_first[i]);
        if (job->lod && !c->update[v]) { /* its last pose, kept in cached memory */
            if (job->held && job->held[i] == in->posed_frame)
                continue; /* the buffer holds it already */
            memcpy(out, c->poses + c->palette_first[i], sizeof *out * entries);
            if (job->held)
                job->held[i] = in->posed_frame;
            written += entries;
            continue;
        }
        written += entries;
        if (job->held)
            job->held[i] = in->posed_frame;
        /* With the level of detail, posed into the kept poses (cached memory) and copied out;
         * else straight into the palette, written once. A dual-quaternion model's is posed in
         * the scratch and written as vks_dq where it goes. */
        vks_bone *const placed = job->lod ? c->poses + c->palette_first[i] : out;
        vks_bone *dst = c->dq[in->model] ? (vks_bone *)(scratch + job->layout.dq) : placed;
        const vks_sampler *s = &c->samplers[in->model][in->clip + 1];
        if (in->fade_left <= 0.0 && s->segments) { /* the fast path */
            const double t =
                in->clip < 0 ? 0.0 : vks_clip_time(&m->clips[in->clip], in->time, VKS_WRAP_LOOP);
            if (m->pose_order) { /* the joints its level keeps, in pose order, then placed */
                const uint8_t level = job->at_levels ? in->lod : 0;
                const uint32_t n = vks_model_level_joints(m, level);
                vks_bone *pose = (vks_bone *)(scratch + job->layout.pose);
                vks_sampler_pose_joints(s, &c->pose_skeletons[in->model], t, &c->sampler_cursors[i],
                                        sampler_scratch, pose, false, n);
                if (c->dq[in->model]) { /* the posed joints alone, each as its vks_dq */
                    for (uint32_t p = 0; p < n; p++) {
                        vks_dq d;
                        vks_dq_from_bone_fast(&pose[p], &d);
                        memcpy((char *)placed + sizeof d * m->pose_order[p], &d, sizeof d);
                    }
                    dst = NULL; /* written */
                } else {
                    for (uint32_t p = 0; p < n; p++)
                        dst[m->pose_order[p]] = pose[p];
                }
                if (job->keeps)
                    in->posed_lod = level;
            } else {
                vks_sampler_pose(s, &m->skeleton, t, &c->sampler_cursors[i], sampler_scratch, dst,
                                 job->stream && dst == placed);
                if (job->keeps)
                    in->posed_lod = 0;
            }
        } else { /* a cross-fade, or a clip without a sampler: anim.h's direct path */
            crowd_local_direct(c, i, local, local_from);
            vks_pose_palette(&m->skeleton, local, model, dst);
            if (job->keeps)
                in->posed_lod = 0; /* every joint */
        }
        if (c->dq[in->model] && dst) /* posed as 3x4 in the scratch: written as vks_dq */
            vks_dq_write(dst, joints, placed);
        if (m->target_count) { /* its active morph targets, after the pose */
            float *w = (float *)(scratch + job->layout.weights);
            vks_crowd_weights(c, i, w, w + m->target_count);
            vks_morph_write(m, w, placed + vks_crowd_pose_entries(m, c->dq[in->model]));
        }
        if (job->lod)
            memcpy(out, placed, sizeof *out * entries);
    }
    if (job->stream)
        vks_sampler_fence(); /* the streamed entries, before the pool hands the chunk back */
    __atomic_fetch_add(&((crowd_job *)ctx)->written, written, __ATOMIC_RELAXED);
}

void vks_crowd_joints(vks_crowd *c, uint32_t i, float (*out)[3])
{
    const crowd_scratch_layout layout = crowd_scratch_of(c);
    char *scratch = (char *)c->scratch; /* thread 0's: calls on a crowd do not overlap */
    vks_affine *model = (vks_affine *)(scratch + layout.model);
    const vks_skeleton *sk = &c->models[c->instances[i].model]->skeleton;
    crowd_local_direct(c, i, (vks_xform *)scratch, (vks_xform *)(scratch + layout.local_from));
    vks_pose_model(sk, (const vks_xform *)scratch, model);
    /* A joint's origin is its model transform's translation (palette space), carried to the
     * world by the instance's placement. */
    for (uint32_t j = 0; j < sk->joint_count; j++) {
        const float p[3] = {model[j].row[0][3], model[j].row[1][3], model[j].row[2][3]};
        vks_transform_point(c->instances[i].world, p, out[j]);
    }
}

/* The job of posing `count` listed instances: the scratch layout, and whether palettes are
 * streamed (written straight to the buffer, and a frame's past CROWD_STREAM_BYTES). */
static crowd_job crowd_job_of(vks_crowd *c, const uint32_t *visible, uint32_t count,
                              vks_bone *palette, bool lod)
{
    const uint32_t max_joints = crowd_max_joints(c);
    return (crowd_job){
        .crowd = c,
        .visible = visible,
        .palette = palette,
        .layout = crowd_scratch_of(c),
        .lod = lod,
        .stream = !lod && (size_t)count * max_joints * sizeof(vks_bone) > CROWD_STREAM_BYTES,
    };
}

static void crowd_run(crowd_job *job, vks_pool *pool, uint32_t count);

void vks_crowd_forget_palettes(vks_crowd *c)
{
    /* Atomic stores: vks_crowd_palettes_range runs on several threads at once (the stores are
     * the same; the reads, in vks_crowd_animate, come after the caller's join). */
    for (uint32_t d = 0; d < VKS_CROWD_DESTINATIONS; d++)
        __atomic_store_n(&c->destinations[d].palette, NULL, __ATOMIC_RELAXED);
}

void vks_crowd_palettes(vks_crowd *c, vks_pool *pool, const uint32_t *visible, uint32_t count,
                        vks_bone *palette)
{
    vks_crowd_forget_palettes(c);
    crowd_job job = crowd_job_of(c, visible, count, palette, false);
    crowd_run(&job, pool, count);
}

void vks_crowd_palettes_at(vks_crowd *c, vks_pool *pool, const uint32_t *list,
                           const uint32_t *first, uint32_t count, vks_bone *dest, bool at_levels)
{
    /* Another buffer than those the crowd remembers: what they hold stays as it was. */
    crowd_job job = crowd_job_of(c, list, count, dest, false);
    job.first = first;
    job.at_levels = at_levels;
    job.keeps = true;
    crowd_run(&job, pool, count);
}

void vks_crowd_palettes_range(vks_crowd *c, const uint32_t *visible, uint32_t begin, uint32_t end,
                              vks_bone *palette, uint32_t thread)
{
    vks_crowd_forget_palettes(c);
    crowd_job job = crowd_job_of(c, visible, end - begin, palette, false);
    crowd_palettes_chunk(&job, begin, end, thread);
}

/* An instance's posing period from the radius its sphere projects to (the eye inside: 1). */
static uint8_t crowd_period_of(const vks_crowd_instance *in, const vks_lod_view *view)
{
    float d2 = 0.0f;
    for (int a = 0; a < 3; a++)
        d2 += (in->center[a] - view->eye[a]) * (in->center[a] - view->eye[a]);
    const float dist = sqrtf(d2);
    const float px = dist > in->radius ? in->radius * view->pixels_per_unit / dist : INFINITY;
    return px >= VKS_ANIM_LOD_NEAR_PX   ? 1
           : px >= VKS_ANIM_LOD_FAR_PX  ? 2
           : px >= VKS_ANIM_LOD_TINY_PX ? 4
                                        : 8;
}

/* The stamps of buffer `palette` (a new one replaces the least recently used; all unknown). */
static uint64_t *crowd_destination(vks_crowd *c, const vks_bone *palette)
{
    struct vks_crowd_destination *pick = &c->destinations[0];
    for (uint32_t d = 0; d < VKS_CROWD_DESTINATIONS; d++) {
        struct vks_crowd_destination *dest = &c->destinations[d];
        if (dest->palette == palette) {
            pick = dest;
            break;
        }
        if (dest->used < pick->used)
            pick = dest;
    }
    if (pick->palette != palette) {
        pick->palette = palette;
        memset(pick->held, 0xff, sizeof *pick->held * c->instance_count); /* none */
    }
    pick->used = ++c->destination_clock;
    return pick->held;
}

/* Whether frame `frame` poses instance i of period p, stamping it seen (and posed). */
static bool crowd_schedule_one(vks_crowd_instance *in, uint32_t i, uint32_t p, uint64_t frame)
{
    const bool fresh = in->posed_frame == UINT64_MAX || frame == 0 ||
                       in->seen_frame != frame - 1; /* not shown the frame before */
    /* A finer level than its pose was computed for needs joints the pose lacks. */
    const bool pose = p <= 1 || fresh || (frame + i) % p == 0 || in->lod < in->posed_lod;
    if (pose)
        in->posed_frame = frame;
    in->seen_frame = frame;
    return pose;
}

uint32_t vks_crowd_schedule(vks_crowd *c, const uint32_t *visible, const uint8_t *periods,
                            uint32_t count, uint64_t frame, uint8_t *update)
{
    uint32_t posed = 0;
    for (uint32_t k = 0; k < count; k++) {
        const uint32_t i = visible[k];
        /* not an instance: skipped, as by vks_crowd_palettes */
        update[k] = i < c->instance_count &&
                    crowd_schedule_one(&c->instances[i], i, periods ? periods[k] : 1, frame);
        posed += update[k];
    }
    return posed;
}

static uint32_t crowd_animate(vks_crowd *c, vks_pool *pool, const uint32_t *visible,
                              const uint8_t *periods, uint32_t count, uint64_t frame,
                              vks_bone *palette, bool reuse, uint64_t *palette_bytes,
                              bool at_levels)
{
    if (!periods) {
        vks_crowd_forget_palettes(c);
        crowd_job job = crowd_job_of(c, visible, count, palette, false);
        job.at_levels = at_levels;
        crowd_run(&job, pool, count);
        uint64_t entries = 0;
        for (uint32_t k = 0; palette_bytes && k < count; k++)
            if (visible[k] < c->instance_count)
                entries += vks_crowd_written_entries(c, c->instances[visible[k]].model);
        if (palette_bytes)
            *palette_bytes = entries * sizeof(vks_bone);
        return count;
    }
    assert(c->poses && c->update); /* vks_crowd_desc.keep_poses */
    const uint32_t posed = vks_crowd_schedule(c, visible, periods, count, frame, c->update);
    crowd_job job = crowd_job_of(c, visible, count, palette, true);
    job.at_levels = at_levels;
    job.keeps = true;
    /* A stamp is a frame number: frames counted again from an earlier one could match a stamp of
     * another pose. */
    if (reuse && c->destination_clock && frame <= c->destination_frame)
        vks_crowd_forget_palettes(c);
    if (reuse) {
        job.held = crowd_destination(c, palette);
        c->destination_frame = frame;
    } else {
        vks_crowd_forget_palettes(c);
    }
    crowd_run(&job, pool, count);
    if (palette_bytes)
        *palette_bytes = job.written * sizeof(vks_bone); /* (the pool's run has returned) */
    return posed;
}

uint32_t vks_crowd_animate(vks_crowd *c, vks_pool *pool, const uint32_t *visible,
                           const uint8_t *periods, uint32_t count, uint64_t frame,
                           vks_bone *palette, bool reuse, uint64_t *palette_bytes)
{
    return crowd_animate(c, pool, visible, periods, count, frame, palette, reuse, palette_bytes,
                         false);
}

uint32_t vks_crowd_animate_at_levels(vks_crowd *c, vks_pool *pool, const uint32_t *visible,
                                     const uint8_t *periods, uint32_t count, uint64_t frame,
                                     vks_bone *palette, bool reuse, uint64_t *palette_bytes)
{
    return crowd_animate(c, pool, visible, periods, count, frame, palette, reuse, palette_bytes,
                         true);
}

static void crowd_run(crowd_job *job, vks_pool *pool, uint32_t count)
{
    vks_crowd *c = job->crowd;
    const uint32_t max_joints = crowd_max_joints(c);
    /* Scratch exists for c->threads threads only: a larger pool would share it, so the caller
     * does the work alone (correct, slower). */
    if (pool && vks_pool_threads(pool) > c->threads)
        pool = NULL;
    uint32_t grain = max_joints ? CROWD_GRAIN_JOINTS / max_joints : CROWD_GRAIN_MAX;
    grain = grain < 1 ? 1 : grain > CROWD_GRAIN_MAX ? CROWD_GRAIN_MAX : grain;
    if (!pool) {
        crowd_palettes_chunk(job, 0, count, 0);
        return;
    }
    vks_pool_run(pool, count, grain, crowd_palettes_chunk, job);
}

typedef struct crowd_lod_job {
    vks_crowd *crowd;
    const vks_lod_view *view;
    const uint32_t *visible;
    uint8_t *levels, *raster;
    uint8_t *periods, *update; /* with update, the schedule of `frame` (posed counted) */
    uint64_t frame;
    uint32_t posed;
} crowd_lod_job;

/* Instance in's level of detail (remembered in in->lod) and whether its triangles are small
 * enough for the compute rasterizer. */
static uint8_t crowd_lod_of(const vks_crowd *c, vks_crowd_instance *in, const vks_lod_view *view,
                            uint8_t *raster)
{
    const vks_model *m = c->models[in->model];
    const uint32_t last = vks_model_level_count(m) - 1;
    float d2 = 0.0f;
    for (int a = 0; a < 3; a++)
        d2 += (in->center[a] - view->eye[a]) * (in->center[a] - view->eye[a]);
    const float dist = sqrtf(d2) - in->radius;
    /* Pixels per palette unit (the units of the levels' errors, bake/lod_error.h) at the nearest
     * point of this instance's sphere. */
    const float px = dist > 0.0f ? in->scale * view->pixels_per_unit / dist : INFINITY;
    uint32_t level;
    if (view->force >= 0) {
        level = (uint32_t)view->force < last ? (uint32_t)view->force : last;
    } else {
        uint32_t fine = 0, coarse = 0; /* the coarsest within the bound, and within the bound
                                          less the hysteresis (errors only grow) */
        for (uint32_t l = 1; l <= last; l++) {
            const float e = vks_model_level(m, l).error * px;
            if (e <= view->max_error_px)
                fine = l;
            if (e <= view->max_error_px * VKS_LOD_HYSTERESIS)
                coarse = l;
        }
        level = in->lod < coarse ? coarse : in->lod > fine ? fine : in->lod;
    }
    in->lod = (uint8_t)level;
    if (raster)
        *raster = view->raster_area_px > 0.0f &&
                  c->triangle_area[in->model][level] * px * px <= view->raster_area_px;
    return (uint8_t)level;
}

static void crowd_choose_chunk(void *ctx, uint32_t begin, uint32_t end, uint32_t thread)
{
    (void)thread;
    crowd_lod_job *job = ctx;
    vks_crowd *c = job->crowd;
    uint32_t posed = 0;
    for (uint32_t k = begin; k < end; k++) {
        const uint32_t i = job->visible[k];
        vks_crowd_instance *in = &c->instances[i];
        if (job->levels)
            job->levels[k] = crowd_lod_of(c, in, job->view, job->raster ? &job->raster[k] : NULL);
        else /* skinned at level 0 this frame: the schedule compares the kept pose with that */
            in->lod = 0;
        if (!job->periods && !job->update)
            continue;
        const uint8_t period = crowd_period_of(in, job->view);
        if (job->periods)
            job->periods[k] = period;
        if (job->update) {
            job->update[k] = crowd_schedule_one(in, i, period, job->frame);
            posed += job->update[k];
        }
    }
    __atomic_fetch_add(&job->posed, posed, __ATOMIC_RELAXED);
}

uint32_t vks_crowd_choose(vks_crowd *c, vks_pool *pool, const vks_lod_view *view,
                          const uint32_t *visible, uint32_t count, uint8_t *levels, uint8_t *raster,
                          uint8_t *periods, uint64_t frame, uint8_t *update)
{
    crowd_lod_job job = {c, view, visible, levels, raster, periods, update, frame, 0};
    vks_pool_run(pool, count, VKS_CROWD_GRAIN, crowd_choose_chunk, &job);
    return update ? job.posed : count;
}
