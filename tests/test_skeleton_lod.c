/* The skeleton level of detail (src/bake/skeleton_lod.h) on every model given, each loaded as
 * vks_model_load prepares it, checked against expectations computed here.
 *   Structure: each level's kept joints (those its fold maps to themselves) are as many as it
 *   says, nested along the chain, closed under parents, roots kept; a folded joint maps to its
 *   nearest kept ancestor (walked here); the pose order is a permutation with parents first and
 *   each level's kept joints its prefix.
 *   Error: the folded skinning of each level (vks_skin_cpu_pose_level, what the GPU tests hold the
 *   GPU to) equals a folded skinning written here in double (within float rounding), and departs
 *   from the level's full skinning (its vertices skinned with their own joints) by at most
 *   VKS_SKELETON_LOD_SHARE of the level's error at the poses the analysis uses, and at most
 *   ERROR_MOTION times that between them.
 *   Posing: a crowd instance at each level poses its kept joints exactly as at level 0 (bit for
 *   bit) and leaves the others alone; as a far splat, its carrier's entry alone, as at level 0; an instance moved to a finer level than its last pose is
 *   posed again by the animation level of detail's schedule whatever its period.
 *   With --max-coarsest N: the coarsest level of every model poses at most N joints.
 *   usage: test_skeleton_lod MODEL... [--folder DIR]... [--max-coarsest N] */
#include "check.h"

#include "anim/anim.h"
#include "bake/load.h"
#include "scene/crowd.h"
#include "bake/lod_error.h"
#include "bake/skeleton_lod.h"
#include "skin/skin_cpu.h"

#include <float.h>

#define ERROR_MOTION 1.5
#define SIZE_SLACK 1e-5 /* float against double, of the bind box's diagonal */

static size_t visited, folded_models;
static uint32_t max_coarsest = UINT32_MAX;

/* Joint j's nearest ancestor (itself included) that `kept` holds. */
static uint32_t nearest_kept(const vks_skeleton *sk, const uint8_t *kept, uint32_t j)
{
    int32_t a = (int32_t)j;
    while (a >= 0 && !kept[a])
        a = sk->parents[a];
    return a < 0 ? UINT32_MAX : (uint32_t)a;
}

static void check_structure(const char *path, const vks_model *m)
{
    const vks_skeleton *sk = &m->skeleton;
    const uint32_t J = sk->joint_count, lc = vks_model_level_count(m);
    uint8_t *kept = malloc(J), *prev = malloc(J);
    uint32_t *position = malloc(sizeof *position * J);
    if (!kept || !prev || !position) {
        CHECK(!"out of memory");
        free(kept), free(prev), free(position);
        return;
    }
    memset(prev, 1, J);
    bool ok = vks_model_level_joints(m, 0) == J;
    for (uint32_t l = 0; l < lc; l++) {
        uint32_t count = 0;
        for (uint32_t j = 0; j < J; j++) {
            kept[j] = vks_model_fold(m, l, j) == j;
            count += kept[j];
        }
        ok &= count == vks_model_level_joints(m, l);
        for (uint32_t j = 0; j < J; j++) {
            const int32_t p = sk->parents[j];
            ok &= !kept[j] || prev[j];          /* nested */
            ok &= !kept[j] || p < 0 || kept[p]; /* closed under parents */
            ok &= p >= 0 || kept[j];            /* roots stay */
            ok &= vks_model_fold(m, l, j) == nearest_kept(sk, kept, j);
        }
        memcpy(prev, kept, J);
    }
    if (m->pose_order) {
        memset(position, 0xff, sizeof *position * J);
        for (uint32_t p = 0; p < J; p++) {
            ok &= m->pose_order[p] < J && position[m->pose_order[p]] == UINT32_MAX;
            if (m->pose_order[p] < J)
                position[m->pose_order[p]] = p;
        }
        for (uint32_t j = 0; ok && j < J; j++)
            ok &= sk->parents[j] < 0 || position[sk->parents[j]] < position[j];
        for (uint32_t l = 0; ok && l < lc; l++)
            for (uint32_t j = 0; j < J; j++)
                ok &= (vks_model_fold(m, l, j) == j) == (position[j] < m->levels[l].joint_count);
    } else {
        ok &= m->joint_fold == NULL;
        for (uint32_t l = 0; l < lc; l++)
            ok &= vks_model_level_joints(m, l) == J;
    }
    CHECK(ok);
    if (!ok)
        fprintf(stderr, "  %s: the folds are not nested, closed and ordered\n", path);
    CHECK(vks_model_level_joints(m, lc - 1) <= max_coarsest);
    free(kept), free(prev), free(position);
}

/* The level's vertices skinned with `palette`, each influence's joint folded (`fold`) or not, in
 * double, into out. */
static void skin_level(const vks_model *m, uint32_t level, const vks_bone *palette, bool fold,
                       double (*out)[3])
{
    const vks_level lv = vks_model_level(m, level);
    for (uint32_t i = 0; i < lv.vertex_count; i++) {
        const uint32_t s = level ? m->lod_source[lv.vertex_first + i] : i;
        uint16_t joints[VKS_WIDE_INFLUENCES];
        float weights[VKS_WIDE_INFLUENCES];
        const uint32_t n = vks_model_influences(m, s, joints, weights);
        out[i][0] = out[i][1] = out[i][2] = 0.0;
        for (uint32_t k = 0; k < n; k++) {
            const vks_bone *b = &palette[fold ? vks_model_fold(m, level, joints[k]) : joints[k]];
            for (int r = 0; r < 3; r++)
                out[i][r] +=
                    weights[k] * ((double)b->row[r][0] * m->positions[s][0] +
                                  (double)b->row[r][1] * m->positions[s][1] +
                                  (double)b->row[r][2] * m->positions[s][2] + b->row[r][3]);
        }
    }
}

static double distance(const double *a, const float *b)
{
    return sqrt((a[0] - b[0]) * (a[0] - b[0]) + (a[1] - b[1]) * (a[1] - b[1]) +
                (a[2] - b[2]) * (a[2] - b[2]));
}

static double distance_dd(const double *a, const double *b)
{
    return sqrt((a[0] - b[0]) * (a[0] - b[0]) + (a[1] - b[1]) * (a[1] - b[1]) +
                (a[2] - b[2]) * (a[2] - b[2]));
}

static void check_error(const char *path, const vks_model *m)
{
    const uint32_t lc = vks_model_level_count(m), J = m->skeleton.joint_count;
    if (lc < 2 || !m->joint_fold)
        return;
    float lo[3], hi[3];
    CHECK(vks_skin_cpu_bind_box(m, lo, hi));
    const double size =
        sqrt((double)(hi[0] - lo[0]) * (hi[0] - lo[0]) + (double)(hi[1] - lo[1]) * (hi[1] - lo[1]) +
             (double)(hi[2] - lo[2]) * (hi[2] - lo[2]));
    const double slack = SIZE_SLACK * size;
    int32_t clips[VKS_LOD_ERROR_POSES + 1 + 4];
    double seconds[VKS_LOD_ERROR_POSES + 1 + 4];
    const uint32_t measured = vks_lod_error_poses(m, clips, seconds);
    uint32_t poses = measured;
    for (uint32_t c = 0; m->clip_count && c < 4; c++) { /* between the measured ones */
        clips[poses] = c < 2 ? 0 : (int32_t)m->clip_count - 1;
        seconds[poses++] = m->clips[clips[measured + c]].duration * (c % 2 ? 0.75 : 0.25);
    }
    const uint32_t n = m->levels[1].vertex_count; /* the largest level past 0 */
    double(*full)[3] = malloc(sizeof *full * n), (*mine)[3] = malloc(sizeof *mine * n);
    float(*got)[3] = malloc(sizeof *got * n), (*nrm)[3] = malloc(sizeof *nrm * n);
    vks_xform *local = malloc(sizeof *local * J);
    vks_affine *world = malloc(sizeof *world * J);
    vks_bone *palette = malloc(sizeof *palette * J);
    if (!full || !mine || !got || !nrm || !local || !world || !palette) {
        CHECK(!"out of memory");
        goto done;
    }
    double worst_measured[VKS_MAX_LEVELS] = {0}, worst_between[VKS_MAX_LEVELS] = {0},
           worst_mine = 0.0;
    for (uint32_t p = 0; p < poses; p++) {
        vks_skin_cpu_palette(m, clips[p], seconds[p], local, world, palette);
        for (uint32_t l = 1; l < lc; l++) {
            const uint32_t count = m->levels[l].vertex_count;
            skin_level(m, l, palette, false, full);
            skin_level(m, l, palette, true, mine);
            CHECK(vks_skin_cpu_pose_level(m, l, clips[p], seconds[p], got, nrm, NULL));
            for (uint32_t v = 0; v < count; v++) {
                worst_mine = fmax(worst_mine, distance(mine[v], got[v]));
                const double d = distance_dd(full[v], mine[v]);
                if (p < measured)
                    worst_measured[l] = fmax(worst_measured[l], d);
                else
                    worst_between[l] = fmax(worst_between[l], d);
            }
        }
    }
    CHECK(worst_mine <= slack);
    printf("  %s: folded skinning against full, at the analysis's %u poses / 4 between "
           "(joints, error): ",
           path, measured);
    for (uint32_t l = 1; l < lc; l++) {
        const double e = m->levels[l].error;
        CHECK(worst_measured[l] <= VKS_SKELETON_LOD_SHARE * e + slack);
        CHECK(worst_between[l] <= ERROR_MOTION * VKS_SKELETON_LOD_SHARE * e + slack);
        printf(" %u: %u, %.4g/%.4g (%.4g)", l, m->levels[l].joint_count, worst_measured[l],
               worst_between[l], e);
    }
    printf("; the production reference within %.2g of the test's\n", worst_mine);
done:
    free(full), free(mine), free(got), free(nrm), free(local), free(world), free(palette);
}

/* A crowd of one instance posed at each level: the kept joints bit for bit level 0's, the others
 * untouched (a pattern written before stays). Then the schedule: posed at a coarse level, kept
 * (its period says so), moved finer: posed again. */
static void check_posing(const char *path, const vks_model *m)
{
    const uint32_t lc = vks_model_level_count(m), J = m->skeleton.joint_count;
    if (!m->joint_fold || m->clip_count == 0)
        return;
    const vks_model *models[1] = {m};
    vks_crowd c;
    vks_error err;
    if (!vks_crowd_create(
            &(vks_crowd_desc){.models = models, .model_count = 1, .instance_count = 1, .time = 0.3},
            &c, &err)) {
        fprintf(stderr, "%s: %s\n", path, err.msg);
        CHECK(!"crowd");
        return;
    }
    vks_bone *all = malloc(sizeof *all * J), *level = malloc(sizeof *level * J);
    const uint32_t list[1] = {0};
    bool ok = all && level;
    c.instances[0].level = 0;
    if (ok)
        vks_crowd_palettes_at(&c, NULL, list, (const uint32_t[]){0}, 1, all, true, NULL);
    for (uint32_t l = 1; ok && l < lc; l++) {
        memset(level, 0x5a, sizeof *level * J);
        c.instances[0].level = (uint8_t)l;
        vks_crowd_palettes_at(&c, NULL, list, (const uint32_t[]){0}, 1, level, true, NULL);
        for (uint32_t j = 0; j < J; j++) {
            vks_bone pattern;
            memset(&pattern, 0x5a, sizeof pattern);
            const bool kept = vks_model_fold(m, l, j) == j;
            ok &= kept ? memcmp(&level[j], &all[j], sizeof all[j]) == 0
                       : memcmp(&level[j], &pattern, sizeof pattern) == 0;
        }
        ok &= c.instances[0].posed_level == l;
    }
    CHECK(ok);
    /* A far splat's pose at the last level: its carrier's entry alone (bake/splat.h), the very
     * bits of that joint in the full pose, and nothing past it. */
    if (ok && m->splat.valid) {
        memset(level, 0x5a, sizeof *level * J);
        c.instances[0].level = (uint8_t)(lc - 1);
        vks_crowd_palettes_at(&c, NULL, list, (const uint32_t[]){0}, 1, level, true,
                              (const uint8_t[]){1});
        vks_bone pattern;
        memset(&pattern, 0x5a, sizeof pattern);
        CHECK(memcmp(&level[0], &all[m->splat.joint], sizeof all[0]) == 0);
        CHECK(J < 2 || memcmp(&level[1], &pattern, sizeof pattern) == 0);
        CHECK(c.instances[0].posed_level == lc - 1);
    }
    /* The phase timings (bench --phases) pose through the same samplers, in pose order: every
     * entry placed at its joint's, as a full pose. */
    double ms[3];
    if (ok && vks_crowd_time_phases(&c, list, 1, 1, 1, level, ms)) {
        const double worst = check_max_diff(&level[0].row[0][0], 12, &all[0].row[0][0], 12, J, 12);
        CHECK(worst <= 1e-5);
        if (worst > 1e-5)
            fprintf(stderr, "  %s: the phases' palette differs from the pose by %g\n", path, worst);
    } else
        CHECK(!"phases");
    /* Posed at the coarsest level at frame 0, seen at frame 1 with period 8 (frame 1 + instance
     * 0 is no multiple of 8): kept at the same level, posed again at level 0. */
    uint8_t update = 0, period = 8;
    c.instances[0].level = (uint8_t)(lc - 1);
    CHECK(vks_crowd_schedule(&c, list, &period, 1, 0, &update) == 1 && update == 1);
    vks_crowd_palettes_at(&c, NULL, list, (const uint32_t[]){0}, 1, level, true, NULL);
    CHECK(c.instances[0].posed_level == lc - 1);
    /* A pose into the caller's buffer (vkskin_crowd_pose) is not the kept one: it leaves what
     * the schedule knows of the kept pose alone. */
    vks_crowd_palettes(&c, NULL, list, 1, all);
    CHECK(c.instances[0].posed_level == lc - 1);
    CHECK(vks_crowd_schedule(&c, list, &period, 1, 1, &update) == 0 && update == 0);
    c.instances[0].level = 0;
    CHECK(vks_crowd_schedule(&c, list, &period, 1, 2, &update) == 1 && update == 1);
    free(all), free(level);
    vks_crowd_destroy(&c);
}

static void visit(const char *path)
{
    vks_model m;
    vks_error err;
    if (!vks_model_load(&(vks_import_desc){.path = path}, &m, &err)) {
        fprintf(stderr, "%s: %s\n", path, err.msg);
        CHECK(!"load failed");
        return;
    }
    visited++;
    folded_models += m.joint_fold != NULL;
    printf("%s: %u joints; posed a level:", path, m.skeleton.joint_count);
    for (uint32_t l = 0; l < vks_model_level_count(&m); l++)
        printf(" %u", vks_model_level_joints(&m, l));
    printf("\n");
    check_structure(path, &m);
    check_error(path, &m);
    check_posing(path, &m);
    vks_model_destroy(&m);
}

int main(int argc, char **argv)
{
    int kept = 1;
    for (int i = 1; i < argc; i++) { /* --max-coarsest N, taken out of the list */
        if (strcmp(argv[i], "--max-coarsest") == 0 && i + 1 < argc) {
            max_coarsest = (uint32_t)strtoul(argv[++i], NULL, 10);
            continue;
        }
        argv[kept++] = argv[i];
    }
    int rc = check_each_model_arg(kept, argv, visit, &visited);
    if (rc)
        return rc;
    printf("%zu models, %zu of them with folded joints\n", visited, folded_models);
    CHECK(folded_models > 0);
    return check_report("test_skeleton_lod");
}
