/* gltfpack's output against its input: each model is packed at test time with gltfpack's default
 * options, with -noq and with -c, and both files are imported (vks_model_import) and skinned on
 * the CPU at every clip's resampled frames; every packed vertex must land, in world space, within
 * the error gltfpack's quantization allows of the original vertex it came from.
 *   usage: test_gltfpack GLTFPACK OUT_DIR (MODEL | --folder DIR)...
 * Exits 77 when gltfpack cannot be run, or when only absent folders were named.
 *
 * Vertices are matched by bind position (gltfpack re-indexes, merges duplicates and may reorder
 * or merge meshes): each packed vertex goes with the nearest original one, ties (seams) broken by
 * UV and then normal. Clips are matched by name. Times: gltfpack 0.18 resamples every clip at
 * 30 Hz from its first key (gltf/animation.cpp: frame i at mint + i / 30), so the comparison runs
 * at exactly those times, below both clips' ends.
 *
 * The bound, per vertex and pose, first order in each error source, with gltfpack 0.18's defaults
 * (`gltfpack -h`) and the model's own geometry (nothing fitted to the observed error):
 *  (a) positions, -vp 14: every coordinate is rounded to a uniform grid of step E / (2^14 - 1),
 *      E the largest extent of the positions' box (mesh space; the world-space rest box is taken
 *      too, for meshes gltfpack bakes into world space). |dp| <= sqrt(3)/2 step, moved by the
 *      blended skinning matrix M: <= |M|_F |dp|. -noq keeps float positions: 0.
 *  (b) rotations, -ar 12 (-noq still quantizes animation; seen in its output): each quaternion
 *      component rounded to 1/(2^11 - 1): |dq| <= 2 * 0.5/2047, a rotation error of at most
 *      2 |dq| = 2/2047 rad. Resampling between the original keys uses gltfpack's approximate slerp
 *      (gltf/animation.cpp, interpolateLinear, "Approximating slerp"); its difference from exact
 *      slerp is computed here for each key pair and time with gltfpack's published formula.
 *      A track gltfpack finds constant, or equal to the node's rest, within 0.001 (its
 *      getDeltaTolerance: acos|dot| for rotations, i.e. 0.002 rad; 0.001 per component for
 *      translations; 0.001 as a ratio for scale) is written as one key or dropped: where the
 *      packed track has at most one key those tolerances are added.
 *      A rotation error e at joint k moves a point x below it by e |x - o_k| (o_k: its origin).
 *  (c) translations, -at 16, and (d) scales, -as 16: floats rounded to 16 mantissa bits, a
 *      relative error of 2^-17 per component: sqrt(3) 2^-17 |t| (scaled by the parent's |A|_F),
 *      and sqrt(3) 2^-17 |x - o_k| for scale.
 *      (b)-(d) add up over the joint and its ancestors, weighted by the vertex's influences.
 *  (e) weights, stored as 8-bit unorm with the largest adjusted so they sum to 255: each weight
 *      off by <= 0.5/255 before and the adjusted one by <= 2.5/255 after, sum |dw| <= 4/255;
 *      since sum dw = 0 the position moves by <= sum |dw| * max_ij |x_i - x_j| over the vertex's
 *      influences' transformed positions x_i.
 *  plus float rounding, 1e-6 of the model's size per level of the skeleton. */
#include "anim/anim.h"
#include "asset/import.h"
#include "check.h"
#include "skin/skin_cpu.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static const char *gltfpack;
static const char *out_dir;
static size_t visited;

/* gltfpack 0.18's defaults (gltfpack -h). */
enum { POSITION_BITS = 14, ROTATION_BITS = 12, TRANSLATION_BITS = 16, SCALE_BITS = 16 };
#define COLLAPSE_TOLERANCE 0.001 /* gltf/animation.cpp getDeltaTolerance, every path */
#define RESAMPLE_HZ 30.0

/* ---- running gltfpack ------------------------------------------------------------------------ */

/* Runs gltfpack -i in -o out [option]; false (after saying why) when it fails. */
static bool run_gltfpack(const char *in, const char *out, const char *option)
{
    pid_t pid = fork();
    if (pid < 0)
        return false;
    if (pid == 0) {
        const char *args[8] = {gltfpack, "-i", in, "-o", out, option, NULL};
        execv(gltfpack, (char *const *)args);
        _exit(127);
    }
    int status;
    if (waitpid(pid, &status, 0) < 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        fprintf(stderr, "gltfpack -i %s -o %s %s failed (status %d)\n", in, out,
                option ? option : "", status);
        return false;
    }
    return true;
}

/* ---- world-space poses ----------------------------------------------------------------------- */

typedef struct mat34 {
    double m[3][4];
} mat34;

static mat34 to_mat(const vks_affine *a)
{
    mat34 r;
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 4; j++)
            r.m[i][j] = a->row[i][j];
    return r;
}

static mat34 mat_mul(const mat34 *a, const mat34 *b)
{
    mat34 r;
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 4; j++) {
            r.m[i][j] = a->m[i][0] * b->m[0][j] + a->m[i][1] * b->m[1][j] + a->m[i][2] * b->m[2][j];
            if (j == 3)
                r.m[i][j] += a->m[i][3];
        }
    return r;
}

/* Inverse of an affine 3x4 (by the adjugate). */
static mat34 mat_inverse(const mat34 *a)
{
    const double(*m)[4] = a->m;
    double c[3][3];
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) {
            int i1 = (i + 1) % 3, i2 = (i + 2) % 3, j1 = (j + 1) % 3, j2 = (j + 2) % 3;
            c[j][i] = m[i1][j1] * m[i2][j2] - m[i1][j2] * m[i2][j1]; /* adjugate = cofactor^T */
        }
    double det = m[0][0] * c[0][0] + m[0][1] * c[1][0] + m[0][2] * c[2][0];
    mat34 r;
    for (int i = 0; i < 3; i++) {
        for (int j = 0; j < 3; j++)
            r.m[i][j] = c[i][j] / det;
        r.m[i][3] = -(r.m[i][0] * m[0][3] + r.m[i][1] * m[1][3] + r.m[i][2] * m[2][3]);
    }
    return r;
}

static void mat_apply(const mat34 *a, const float p[3], double out[3])
{
    for (int i = 0; i < 3; i++)
        out[i] = a->m[i][0] * p[0] + a->m[i][1] * p[1] + a->m[i][2] * p[2] + a->m[i][3];
}

static double frobenius3(const mat34 *a)
{
    double s = 0.0;
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            s += a->m[i][j] * a->m[i][j];
    return sqrt(s);
}

static double dist3(const double a[3], const double b[3])
{
    return sqrt((a[0] - b[0]) * (a[0] - b[0]) + (a[1] - b[1]) * (a[1] - b[1]) +
                (a[2] - b[2]) * (a[2] - b[2]));
}

/* One pose of a model in world space: skinned positions, joint origins, joint world transforms
 * and palettes (world * inverse bind). */
typedef struct world_pose {
    double (*pos)[3];
    mat34 *joint_world;
    mat34 *palette;
} world_pose;

static world_pose world_pose_alloc(const vks_model *m)
{
    return (world_pose){malloc(sizeof(double[3]) * m->vertex_count),
                        malloc(sizeof(mat34) * m->skeleton.joint_count),
                        malloc(sizeof(mat34) * m->skeleton.joint_count)};
}

static void world_pose_free(world_pose *w)
{
    free(w->pos);
    free(w->joint_world);
    free(w->palette);
}

/* Samples clip c (-1: rest) at t and skins on the CPU; the root's transform (the inverse of
 * root_inverse) takes everything from palette space to world space, so two files whose scene
 * roots differ still compare. */
static void world_pose_at(const vks_model *m, int32_t c, float t, world_pose *w)
{
    const vks_skeleton *sk = &m->skeleton;
    vks_xform *local = malloc(sizeof *local * sk->joint_count);
    vks_affine *model = malloc(sizeof *model * sk->joint_count);
    vks_bone *palette = malloc(sizeof *palette * sk->joint_count);
    float(*pos)[3] = malloc(sizeof *pos * m->vertex_count);
    float(*nrm)[3] = malloc(sizeof *nrm * m->vertex_count);
    if (c < 0)
        vks_pose_rest(sk, local);
    else
        vks_clip_sample(sk, &m->clips[c], t, NULL, local);
    vks_pose_palette(sk, local, model, palette);
    vks_skin_input in = vks_skin_input_of(m);
    vks_skin_cpu(&in, palette, pos, nrm, NULL);
    mat34 ri = to_mat(&sk->root_inverse), root = mat_inverse(&ri);
    for (uint32_t j = 0; j < sk->joint_count; j++) {
        mat34 mj = to_mat(&model[j]), pj = to_mat(&palette[j]);
        w->joint_world[j] = mat_mul(&root, &mj);
        w->palette[j] = mat_mul(&root, &pj);
    }
    for (uint32_t v = 0; v < m->vertex_count; v++)
        mat_apply(&root, pos[v], w->pos[v]);
    free(local);
    free(model);
    free(palette);
    free(pos);
    free(nrm);
}

/* ---- influences ------------------------------------------------------------------------------ */

static int32_t find_joint(const vks_model *m, const char *name)
{
    for (uint32_t j = 0; j < m->skeleton.joint_count; j++)
        if (strcmp(m->skeleton.names[j], name) == 0)
            return (int32_t)j;
    return -1;
}

/* ---- the bound's ingredients ----------------------------------------------------------------- */

/* gltfpack's rotation interpolation (gltf/animation.cpp interpolateLinear, with its published
 * constants), so the resampling error is computed, not guessed. */
static void gltfpack_nlerp(const float l[4], const float r[4], double t, double out[4])
{
    double ca = l[0] * r[0] + l[1] * r[1] + l[2] * r[2] + l[3] * r[3];
    double d = fabs(ca);
    double A = 1.0904 + d * (-3.2452 + d * (3.55645 - d * 1.43519));
    double B = 0.848013 + d * (-1.06021 + d * 0.215638);
    double k = A * (t - 0.5) * (t - 0.5) + B;
    double ot = t + t * (t - 0.5) * (t - 1) * k;
    double t0 = 1 - ot, t1 = ca > 0 ? ot : -ot, len = 0.0;
    for (int i = 0; i < 4; i++) {
        out[i] = l[i] * t0 + r[i] * t1;
        len += out[i] * out[i];
    }
    for (int i = 0; i < 4; i++)
        out[i] /= sqrt(len);
}

/* The angle between our sampler's rotation of one track at t and gltfpack's resampled one. */
static double resample_error(const vks_clip *c, const vks_track *tr, float t)
{
    if (tr->r_count < 2)
        return 0.0;
    const float *times = c->r_times + tr->r_first;
    uint32_t i = vks_key_find(times, tr->r_count, t, NULL);
    double span = times[i + 1] - times[i];
    double u = span > 0.0 ? fmin(1.0, fmax(0.0, (t - times[i]) / span)) : 0.0;
    const float *a = c->r_values[tr->r_first + i], *b = c->r_values[tr->r_first + i + 1];
    float ours[4];
    double theirs[4];
    vks_quat_slerp(a, b, (float)u, ours);
    gltfpack_nlerp(a, b, u, theirs);
    double d =
        fabs(ours[0] * theirs[0] + ours[1] * theirs[1] + ours[2] * theirs[2] + ours[3] * theirs[3]);
    return 2.0 * acos(fmin(1.0, d));
}

/* Per-joint error sources of one original joint in one clip at one time: a rotation angle, a
 * translation length (before the parent's scale), a relative scale. */
typedef struct joint_error {
    double angle, shift, scale;
} joint_error;

static joint_error joint_error_at(const vks_model *orig, const vks_model *packed, int32_t oc,
                                  int32_t pc, uint32_t j, float t, const vks_xform *local)
{
    const double rot_q = 2.0 * (2.0 * 0.5 / ((1 << (ROTATION_BITS - 1)) - 1));
    const double mant_t = sqrt(3.0) * ldexp(1.0, -(TRANSLATION_BITS + 1));
    const double mant_s = sqrt(3.0) * ldexp(1.0, -(SCALE_BITS + 1));
    joint_error e = {0, 0, 0};
    if (oc < 0)
        return e; /* the rest pose: node transforms are written as floats */
    const vks_track *ot = &orig->clips[oc].tracks[j];
    const vks_track none = {0};
    int32_t pj = find_joint(packed, orig->skeleton.names[j]);
    const vks_track *pt = pj >= 0 ? &packed->clips[pc].tracks[pj] : &none;
    double tmax = fmax(fabs(local[j].t[0]), fmax(fabs(local[j].t[1]), fabs(local[j].t[2])));
    if (ot->r_count) {
        e.angle = rot_q + resample_error(&orig->clips[oc], ot, t);
        if (pt->r_count <= 1)
            e.angle += 2.0 * COLLAPSE_TOLERANCE;
    }
    if (ot->t_count) {
        e.shift = mant_t * tmax;
        if (pt->t_count <= 1)
            e.shift += sqrt(3.0) * COLLAPSE_TOLERANCE;
    }
    if (ot->s_count) {
        e.scale = mant_s;
        if (pt->s_count <= 1)
            e.scale += sqrt(3.0) * COLLAPSE_TOLERANCE;
    }
    return e;
}

/* Largest extent of a box over positions (float streams, mesh space) or world positions. */
static double extent_of(const float (*p)[3], const double (*w)[3], uint32_t n)
{
    double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
    for (uint32_t v = 0; v < n; v++)
        for (int k = 0; k < 3; k++) {
            double x = p ? p[v][k] : w[v][k];
            lo[k] = fmin(lo[k], x);
            hi[k] = fmax(hi[k], x);
        }
    return fmax(hi[0] - lo[0], fmax(hi[1] - lo[1], hi[2] - lo[2]));
}

static uint32_t skeleton_depth(const vks_skeleton *sk)
{
    uint32_t most = 0;
    for (uint32_t j = 0; j < sk->joint_count; j++) {
        uint32_t d = 1;
        for (int32_t p = sk->parents[j]; p >= 0; p = sk->parents[p])
            d++;
        most = d > most ? d : most;
    }
    return most;
}

/* The bound for original vertex v in pose w (the original's), per the comment at the top. */
typedef struct bound_ctx {
    const vks_model *orig;
    double position_step; /* |dp| of (a), 0 for -noq */
    double float_slack;
    const joint_error *joint_errors; /* per original joint, this pose */
} bound_ctx;

static double vertex_bound(const bound_ctx *b, const world_pose *w, uint32_t v)
{
    const vks_model *m = b->orig;
    uint16_t joints[8];
    float weights[8];
    int n = (int)vks_model_influences(m, v, joints, weights);
    mat34 blend = {{{0}}};
    double xs[8][3], anim = 0.0;
    for (int i = 0; i < n; i++) {
        const mat34 *p = &w->palette[joints[i]];
        for (int r = 0; r < 3; r++)
            for (int c = 0; c < 4; c++)
                blend.m[r][c] += weights[i] * p->m[r][c];
        mat_apply(p, m->positions[v], xs[i]);
        for (int32_t k = joints[i]; k >= 0; k = m->skeleton.parents[k]) {
            const joint_error *e = &b->joint_errors[k];
            const double *origin = (const double[3]){
                w->joint_world[k].m[0][3], w->joint_world[k].m[1][3], w->joint_world[k].m[2][3]};
            double reach = dist3(xs[i], origin);
            int32_t parent = m->skeleton.parents[k];
            double parent_scale = parent >= 0 ? frobenius3(&w->joint_world[parent]) : 1.0;
            anim += weights[i] * ((e->angle + e->scale) * reach + e->shift * parent_scale);
        }
    }
    double spread = 0.0;
    for (int i = 0; i < n; i++)
        for (int k = i + 1; k < n; k++)
            spread = fmax(spread, dist3(xs[i], xs[k]));
    return frobenius3(&blend) * b->position_step + anim + 4.0 / 255.0 * spread + b->float_slack;
}

/* ---- matching and comparing ------------------------------------------------------------------ */

/* For each packed vertex, the original vertex nearest at rest (world), ties within `tie` broken
 * by UV, then normal. */
static uint32_t *match_vertices(const vks_model *orig, const world_pose *orest,
                                const vks_model *packed, const world_pose *prest, double tie)
{
    uint32_t *match = malloc(sizeof *match * packed->vertex_count);
    for (uint32_t p = 0; p < packed->vertex_count; p++) {
        double best = INFINITY;
        for (uint32_t o = 0; o < orig->vertex_count; o++)
            best = fmin(best, dist3(prest->pos[p], orest->pos[o]));
        double best_key = INFINITY;
        match[p] = 0;
        for (uint32_t o = 0; o < orig->vertex_count; o++) {
            if (dist3(prest->pos[p], orest->pos[o]) > best + tie)
                continue;
            double du = orig->uvs[o][0] - packed->uvs[p][0],
                   dv = orig->uvs[o][1] - packed->uvs[p][1];
            double dn = 0.0;
            for (int k = 0; k < 3; k++)
                dn += fabs(orig->normals[o][k] - packed->normals[p][k]);
            double key = 1e3 * sqrt(du * du + dv * dv) + dn;
            if (key < best_key) {
                best_key = key;
                match[p] = o;
            }
        }
    }
    return match;
}

typedef struct stats {
    double worst_error, bound_at_worst, worst_ratio, largest_bound;
    uint32_t poses, failures;
} stats;

/* Compares one pose: original clip oc / packed clip pc (-1: rest) at t. */
static void compare_pose(const vks_model *orig, const vks_model *packed, int32_t oc, int32_t pc,
                         float t, const uint32_t *match, bound_ctx *b, stats *st)
{
    world_pose ow = world_pose_alloc(orig), pw = world_pose_alloc(packed);
    world_pose_at(orig, oc, t, &ow);
    world_pose_at(packed, pc, t, &pw);
    const vks_skeleton *sk = &orig->skeleton;
    vks_xform *local = malloc(sizeof *local * sk->joint_count);
    if (oc < 0)
        vks_pose_rest(sk, local);
    else
        vks_clip_sample(sk, &orig->clips[oc], t, NULL, local);
    joint_error *je = malloc(sizeof *je * sk->joint_count);
    for (uint32_t j = 0; j < sk->joint_count; j++)
        je[j] = joint_error_at(orig, packed, oc, pc, j, t, local);
    b->joint_errors = je;
    for (uint32_t p = 0; p < packed->vertex_count; p++) {
        double err = dist3(pw.pos[p], ow.pos[match[p]]);
        double bound = vertex_bound(b, &ow, match[p]);
        if (!(err <= bound)) {
            if (st->failures++ < 5)
                fprintf(stderr, "  clip %d at %.4f s: packed vertex %u off by %.3g, bound %.3g\n",
                        oc, (double)t, p, err, bound);
        }
        if (err > st->worst_error) {
            st->worst_error = err;
            st->bound_at_worst = bound;
        }
        st->worst_ratio = fmax(st->worst_ratio, err / bound);
        st->largest_bound = fmax(st->largest_bound, bound);
    }
    st->poses++;
    free(je);
    free(local);
    world_pose_free(&ow);
    world_pose_free(&pw);
}

/* The first key time of a clip (gltfpack resamples from there). */
static float clip_start(const vks_clip *c)
{
    float t = c->duration;
    for (uint32_t k = 0; k < c->t_key_count; k++)
        t = fminf(t, c->t_times[k]);
    for (uint32_t k = 0; k < c->r_key_count; k++)
        t = fminf(t, c->r_times[k]);
    for (uint32_t k = 0; k < c->s_key_count; k++)
        t = fminf(t, c->s_times[k]);
    return t;
}

static void compare(const char *label, const vks_model *orig, const vks_model *packed,
                    bool quantized)
{
    world_pose orest = world_pose_alloc(orig), prest = world_pose_alloc(packed);
    world_pose_at(orig, -1, 0.0f, &orest);
    world_pose_at(packed, -1, 0.0f, &prest);
    double extent = fmax(extent_of((const float(*)[3])orig->positions, NULL, orig->vertex_count),
                         extent_of(NULL, (const double(*)[3])orest.pos, orig->vertex_count));
    double step = extent / ((1 << POSITION_BITS) - 1);
    bound_ctx b = {.orig = orig,
                   .position_step = quantized ? sqrt(3.0) / 2.0 * step : 0.0,
                   .float_slack = 1e-6 * extent * skeleton_depth(&orig->skeleton)};
    uint32_t *match = match_vertices(orig, &orest, packed, &prest, 2.0 * b.position_step + 1e-6);
    world_pose_free(&orest);
    world_pose_free(&prest);

    stats st = {0};
    compare_pose(orig, packed, -1, -1, 0.0f, match, &b, &st);
    for (uint32_t c = 0; c < orig->clip_count; c++) {
        int32_t pc = vks_model_find_clip(packed, orig->clips[c].name);
        if (pc < 0) {
            fprintf(stderr, "%s: packed file has no clip '%s'\n", label, orig->clips[c].name);
            CHECK(!"clip missing");
            continue;
        }
        double start = clip_start(&orig->clips[c]);
        double end = fmin(orig->clips[c].duration, packed->clips[pc].duration);
        for (int k = 0; start + k / RESAMPLE_HZ < end; k++)
            compare_pose(orig, packed, (int32_t)c, pc, (float)(start + k / RESAMPLE_HZ), match, &b,
                         &st);
    }
    printf("%s: %u -> %u vertices, %u clips, %u poses: max error %.3g (bound there %.3g), "
           "max error/bound %.3f, largest bound %.3g (model extent %.3g, depth %u)\n",
           label, orig->vertex_count, packed->vertex_count, orig->clip_count, st.poses,
           st.worst_error, st.bound_at_worst, st.worst_ratio, st.largest_bound, extent,
           skeleton_depth(&orig->skeleton));
    CHECK(st.failures == 0);
    free(match);
}

/* ---- per model ------------------------------------------------------------------------------- */

static bool load(const char *path, vks_model *m)
{
    vks_error err;
    if (!vks_model_import(&(vks_import_desc){.path = path}, m, &err)) {
        fprintf(stderr, "%s\n", err.msg);
        return false;
    }
    return true;
}

static void visit(const char *path)
{
    visited++;
    vks_model orig;
    if (!load(path, &orig)) {
        CHECK(!"original import failed");
        return;
    }
    const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
    static const struct {
        const char *name, *option;
        bool quantized;
    } runs[3] = {{"default", NULL, true}, {"noq", "-noq", false}, {"c", "-c", true}};
    for (int r = 0; r < 3; r++) {
        char out[1024], label[512];
        snprintf(out, sizeof out, "%s/%.*s.%s.glb", out_dir, (int)(strlen(base) - 4), base,
                 runs[r].name);
        snprintf(label, sizeof label, "%s gltfpack %s", base,
                 runs[r].option ? runs[r].option : "(defaults)");
        if (!run_gltfpack(path, out, runs[r].option)) {
            CHECK(!"gltfpack failed"); /* it exists (main checked): not running is a failure */
            break;
        }
        vks_model packed;
        if (!load(out, &packed)) {
            fprintf(stderr, "%s: the packed model was refused\n", label);
            CHECK(!"packed import failed");
            continue;
        }
        compare(label, &orig, &packed, runs[r].quantized);
        vks_model_destroy(&packed);
    }
    vks_model_destroy(&orig);
}

int main(int argc, char **argv)
{
    if (argc < 4) {
        fprintf(stderr, "usage: test_gltfpack GLTFPACK OUT_DIR (MODEL | --folder DIR)...\n");
        return 2;
    }
    gltfpack = argv[1];
    out_dir = argv[2];
    if (access(gltfpack, X_OK) != 0) {
        printf("skipped: gltfpack not found at '%s' (tools/setup.sh --test installs it)\n",
               gltfpack);
        return SKIP_RETURN;
    }
    mkdir(out_dir, 0777); /* may exist already; a failure shows when gltfpack writes there */
    int rc = check_each_model_arg(argc - 2, argv + 2, visit, &visited);
    return rc ? rc : check_report("gltfpack");
}
