/* Palettes against a straightforward recursive node walk in the style of the skeletal-animation
 * tutorials, written here independently of src/anim: assimp's scene, name look-ups per node,
 * a linear key search, slerp as aiQuaternion::Interpolate, doubles throughout.
 *   usage: test_walk [FILE | --folder DIR]...
 * A FILE must import; a folder contributes every *.glb in it and may be absent. Nothing found at
 * all is a skip (exit 77) with the reason. */
#include "anim/anim.h"
#include "anim/sampler.h"
#include "asset/import.h"
#include "check.h"

#include <assimp/cimport.h>
#include <assimp/postprocess.h>
#include <assimp/scene.h>

#include <dirent.h>
#include <stdlib.h>
#include <string.h>

typedef struct dmat4 {
    double m[4][4];
} dmat4;

static dmat4 dmat4_mul(const dmat4 *a, const dmat4 *b)
{
    dmat4 r = {0};
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < 4; j++)
            for (int k = 0; k < 4; k++)
                r.m[i][j] += a->m[i][k] * b->m[k][j];
    return r;
}

static dmat4 dmat4_from_ai(const struct aiMatrix4x4 *a)
{
    dmat4 r;
    const float *s = &a->a1;
    for (int i = 0; i < 16; i++)
        r.m[i / 4][i % 4] = s[i];
    return r;
}

/* Gauss-Jordan with partial pivoting. */
static dmat4 dmat4_inverse(dmat4 a)
{
    dmat4 inv = {{{1, 0, 0, 0}, {0, 1, 0, 0}, {0, 0, 1, 0}, {0, 0, 0, 1}}};
    for (int c = 0; c < 4; c++) {
        int p = c;
        for (int r = c + 1; r < 4; r++)
            if (fabs(a.m[r][c]) > fabs(a.m[p][c]))
                p = r;
        for (int k = 0; k < 4; k++) {
            double t = a.m[c][k];
            a.m[c][k] = a.m[p][k];
            a.m[p][k] = t;
            t = inv.m[c][k];
            inv.m[c][k] = inv.m[p][k];
            inv.m[p][k] = t;
        }
        double d = a.m[c][c];
        for (int k = 0; k < 4; k++) {
            a.m[c][k] /= d;
            inv.m[c][k] /= d;
        }
        for (int r = 0; r < 4; r++) {
            if (r == c)
                continue;
            double f = a.m[r][c];
            for (int k = 0; k < 4; k++) {
                a.m[r][k] -= f * a.m[c][k];
                inv.m[r][k] -= f * inv.m[c][k];
            }
        }
    }
    return inv;
}

/* A key's time in ticks, at the file's own time. assimp's glTF reader turns the file's float
 * seconds into ticks with a float multiplication, which moves keys by up to 1.6e-6 s a minute
 * into a clip (long_clip.glb); ticks / rate rounded to float gives the file's seconds back
 * exactly, so the walk keys its curves there (for the other formats' short test clips the rounding
 * is far below the tolerance). */
static double key_rate; /* ticks per second of the clip walked */

static double key_time(double ticks)
{
    return (double)(float)(ticks / key_rate) * key_rate;
}

/* The tutorials' key search: the first i with t < time[i + 1]. */
static unsigned find_key(const double *first_time, size_t stride, unsigned count, double t)
{
    for (unsigned i = 0; i + 1 < count; i++)
        if (t < key_time(*(const double *)((const char *)first_time + (i + 1) * stride)))
            return i;
    return count - 1;
}

static double factor(double t0, double t1, double t)
{
    if (t1 <= t0)
        return 0.0;
    double f = (t - t0) / (t1 - t0);
    return f < 0.0 ? 0.0 : f > 1.0 ? 1.0 : f;
}

static void interp_vec(const struct aiVectorKey *keys, unsigned n, double t, double fallback[3],
                       double out[3])
{
    if (n == 0) {
        memcpy(out, fallback, sizeof(double[3]));
        return;
    }
    unsigned i = find_key(&keys[0].mTime, sizeof keys[0], n, t);
    const struct aiVector3D *a = &keys[i].mValue, *b = &keys[i + (i + 1 < n)].mValue;
    double f = i + 1 < n ? factor(key_time(keys[i].mTime), key_time(keys[i + 1].mTime), t) : 0.0;
    out[0] = a->x + f * (b->x - a->x);
    out[1] = a->y + f * (b->y - a->y);
    out[2] = a->z + f * (b->z - a->z);
}

/* Returns (w, x, y, z) as aiQuaternion::Interpolate followed by a normalise, in doubles. */
static void interp_quat(const struct aiQuatKey *keys, unsigned n, double t, double fallback[4],
                        double out[4])
{
    if (n == 0) {
        memcpy(out, fallback, sizeof(double[4]));
        return;
    }
    unsigned i = find_key(&keys[0].mTime, sizeof keys[0], n, t);
    const struct aiQuaternion *qa = &keys[i].mValue, *qb = &keys[i + (i + 1 < n)].mValue;
    double f = i + 1 < n ? factor(key_time(keys[i].mTime), key_time(keys[i + 1].mTime), t) : 0.0;
    double a[4] = {qa->w, qa->x, qa->y, qa->z}, b[4] = {qb->w, qb->x, qb->y, qb->z};
    double la = sqrt(a[0] * a[0] + a[1] * a[1] + a[2] * a[2] + a[3] * a[3]);
    double lb = sqrt(b[0] * b[0] + b[1] * b[1] + b[2] * b[2] + b[3] * b[3]);
    for (int k = 0; k < 4; k++)
        a[k] /= la, b[k] /= lb;
    double cosom = a[0] * b[0] + a[1] * b[1] + a[2] * b[2] + a[3] * b[3];
    if (cosom < 0.0) {
        cosom = -cosom;
        for (int k = 0; k < 4; k++)
            b[k] = -b[k];
    }
    double sp = 1.0 - f, sq = f;
    if (1.0 - cosom > 1e-9) {
        double omega = acos(cosom), sinom = sin(omega);
        sp = sin((1.0 - f) * omega) / sinom;
        sq = sin(f * omega) / sinom;
    }
    double len = 0.0;
    for (int k = 0; k < 4; k++) {
        out[k] = sp * a[k] + sq * b[k];
        len += out[k] * out[k];
    }
    for (int k = 0; k < 4; k++)
        out[k] /= sqrt(len);
}

static dmat4 trs(const double t[3], const double q[4], const double s[3])
{
    double w = q[0], x = q[1], y = q[2], z = q[3];
    double r[3][3] = {
        {1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)},
        {2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)},
        {2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)},
    };
    dmat4 m = {{{0}}};
    for (int i = 0; i < 3; i++) {
        for (int j = 0; j < 3; j++)
            m.m[i][j] = r[i][j] * s[j];
        m.m[i][3] = t[i];
    }
    m.m[3][3] = 1.0;
    return m;
}

typedef struct walk {
    const struct aiScene *scene;
    const struct aiAnimation *anim; /* NULL: bind pose */
    double ticks;
    const char **names; /* global transform of every node, by name */
    dmat4 *globals;
    unsigned count;
} walk;

static void read_node_hierarchy(walk *w, const struct aiNode *node, const dmat4 *parent)
{
    dmat4 local = dmat4_from_ai(&node->mTransformation);
    const struct aiNodeAnim *ch = NULL;
    for (unsigned c = 0; w->anim && c < w->anim->mNumChannels && !ch; c++)
        if (strcmp(w->anim->mChannels[c]->mNodeName.data, node->mName.data) == 0)
            ch = w->anim->mChannels[c];
    if (ch) {
        struct aiVector3D s0, p0;
        struct aiQuaternion r0;
        aiDecomposeMatrix(&node->mTransformation, &s0, &r0, &p0);
        double ts[3] = {s0.x, s0.y, s0.z}, tr[4] = {r0.w, r0.x, r0.y, r0.z},
               tp[3] = {p0.x, p0.y, p0.z};
        double t[3], r[4], s[3];
        interp_vec(ch->mPositionKeys, ch->mNumPositionKeys, w->ticks, tp, t);
        interp_quat(ch->mRotationKeys, ch->mNumRotationKeys, w->ticks, tr, r);
        interp_vec(ch->mScalingKeys, ch->mNumScalingKeys, w->ticks, ts, s);
        local = trs(t, r, s);
    }
    dmat4 global = dmat4_mul(parent, &local);
    w->names[w->count] = node->mName.data;
    w->globals[w->count++] = global;
    for (unsigned c = 0; c < node->mNumChildren; c++)
        read_node_hierarchy(w, node->mChildren[c], &global);
}

static unsigned count_nodes(const struct aiNode *n)
{
    unsigned c = 1;
    for (unsigned i = 0; i < n->mNumChildren; i++)
        c += count_nodes(n->mChildren[i]);
    return c;
}

static const struct aiBone *find_bone(const struct aiScene *s, const char *name)
{
    for (unsigned m = 0; m < s->mNumMeshes; m++)
        for (unsigned b = 0; b < s->mMeshes[m]->mNumBones; b++)
            if (strcmp(s->mMeshes[m]->mBones[b]->mName.data, name) == 0)
                return s->mMeshes[m]->mBones[b];
    return NULL;
}

/* The worst deviation from the walk seen per model, over the box's diagonal (printed). */
static double worst_direct, worst_sampler;

/* Compares the palettes of (clip, seconds) with the walk's rootInv * global * offset per joint:
 * anim.h's direct path and the sampler `s` (of that clip) with each instruction set this CPU
 * has, within 1e-6 of the bind-pose box's diagonal as a bound on how far they move a vertex. */
static void compare(const char *path, const vks_model *model, const struct aiScene *scene,
                    vks_sampler *s, int32_t clip, double seconds)
{
    const vks_skeleton *sk = &model->skeleton;
    vks_xform *local = malloc(sizeof *local * sk->joint_count);
    vks_affine *world = malloc(sizeof *world * sk->joint_count);
    vks_bone *palette = malloc(sizeof *palette * sk->joint_count);
    walk w = {.scene = scene};
    w.names = malloc(sizeof *w.names * count_nodes(scene->mRootNode));
    w.globals = malloc(sizeof *w.globals * count_nodes(scene->mRootNode));
    if (clip >= 0) {
        const vks_clip *c = &model->clips[clip];
        vks_clip_sample(sk, c, vks_clip_time(c, seconds, VKS_WRAP_LOOP), NULL, local);
        w.anim = scene->mAnimations[clip];
        double tps = w.anim->mTicksPerSecond > 0 ? w.anim->mTicksPerSecond : 25.0;
        w.ticks = w.anim->mDuration > 0 ? fmod(seconds * tps, w.anim->mDuration) : 0.0;
        key_rate = tps;
    } else {
        vks_pose_rest(sk, local);
    }
    vks_pose_palette(sk, local, world, palette);
    dmat4 identity = {{{1, 0, 0, 0}, {0, 1, 0, 0}, {0, 0, 1, 0}, {0, 0, 0, 1}}};
    read_node_hierarchy(&w, scene->mRootNode, &identity);
    dmat4 root_inv = dmat4_inverse(dmat4_from_ai(&scene->mRootNode->mTransformation));

    dmat4 *expected = malloc(sizeof *expected * sk->joint_count);
    for (uint32_t j = 0; j < sk->joint_count; j++) {
        /* "<node>#mesh" joints stand for their node with no offset. */
        char name[512];
        snprintf(name, sizeof name, "%s", sk->names[j]);
        char *hash = strstr(name, "#mesh");
        bool attach = hash && hash[5] == '\0';
        if (attach)
            *hash = '\0';
        int found = -1;
        for (unsigned n = 0; n < w.count && found < 0; n++)
            if (strcmp(w.names[n], name) == 0)
                found = (int)n;
        CHECK(found >= 0);
        if (found < 0)
            continue;
        const struct aiBone *bone = attach ? NULL : find_bone(scene, name);
        dmat4 offset = bone ? dmat4_from_ai(&bone->mOffsetMatrix) : identity;
        dmat4 g = dmat4_mul(&root_inv, &w.globals[found]);
        expected[j] = dmat4_mul(&g, &offset);
    }
    float lo[3], hi[3];
    check_box((const float(*)[3])model->positions, model->vertex_count, lo, hi);
    const double diag = check_box_diagonal(lo, hi);
    int before = check_failures;
    /* anim.h's direct path, then the sampler with each instruction set. */
    for (int isa = -1; isa <= VKS_SAMPLER_AVX2; isa++) {
        if (isa >= 0) {
            if (!vks_sampler_use_isa(s, (vks_sampler_isa)isa)) {
                static bool said[VKS_SAMPLER_AVX2 + 1];
                if (!said[isa])
                    printf("skipped: the sampler's %s path: this CPU lacks it\n",
                           vks_sampler_isa_name((vks_sampler_isa)isa));
                said[isa] = true;
                continue;
            }
            void *scratch =
                aligned_alloc(64, (vks_sampler_scratch_bytes(sk->joint_count) + 63) & ~(size_t)63);
            uint32_t cursor = 0;
            const double t =
                clip >= 0 ? vks_clip_time(&model->clips[clip], seconds, VKS_WRAP_LOOP) : 0.0;
            CHECK(scratch != NULL);
            if (!scratch)
                continue;
            vks_sampler_pose(s, sk, t, &cursor, scratch, palette, isa == VKS_SAMPLER_SSE2);
            vks_sampler_fence();
            free(scratch);
        }
        double worst = 0.0;
        for (uint32_t j = 0; j < sk->joint_count; j++) {
            double want[12];
            for (int k = 0; k < 12; k++)
                want[k] = expected[j].m[k / 4][k % 4];
            worst =
                fmax(worst, check_entry_deviation((const float *)&palette[j], want, lo, hi) / diag);
        }
        CHECK(worst <= 1e-6);
        if (!(worst <= 1e-6))
            fprintf(stderr, "  %s: %.3g of the diagonal\n",
                    isa < 0 ? "direct" : vks_sampler_isa_name((vks_sampler_isa)isa), worst);
        if (isa < 0)
            worst_direct = fmax(worst_direct, worst);
        else
            worst_sampler = fmax(worst_sampler, worst);
    }
    if (check_failures != before)
        fprintf(stderr, "  in %s, clip %d at %.4f s\n", path, clip, seconds);
    free(expected);
    free(w.names);
    free(w.globals);
    free(local);
    free(world);
    free(palette);
}

static size_t models_checked;

static void check_model(const char *path)
{
    vks_model model;
    vks_error err;
    if (!vks_model_import(&(vks_import_desc){.path = path}, &model, &err)) {
        fprintf(stderr, "%s\n", err.msg);
        CHECK(!"import failed");
        return;
    }
    /* The walk reads the file the tutorials' way; post-processing does not touch nodes or keys. */
    const struct aiScene *scene = aiImportFile(path, aiProcess_Triangulate);
    CHECK(scene != NULL);
    if (scene) {
        CHECK(scene->mNumAnimations == model.clip_count);
        worst_direct = worst_sampler = 0.0;
        for (int32_t c = -1; c < (int32_t)model.clip_count; c++) {
            vks_sampler s;
            const vks_clip *clip = c >= 0 ? &model.clips[c] : NULL;
            CHECK(vks_sampler_build(&model.skeleton, clip, SIZE_MAX, &s) == VKS_SAMPLER_BUILT);
            if (!s.segments)
                continue;
            if (c < 0) {
                compare(path, &model, scene, &s, -1, 0.0);
            } else {
                double d = clip->duration;
                const double at[] = {0.0, 0.013, 0.25, 0.5, 0.618, 0.999, 1.37, 2.5};
                for (size_t k = 0; k < sizeof at / sizeof at[0]; k++)
                    compare(path, &model, scene, &s, c, at[k] * d);
            }
            vks_sampler_free(&s);
        }
        aiReleaseImport(scene);
    }
    printf("%s: %u joints, %u clips compared; worst %.2g (direct), %.2g (sampler) of the "
           "diagonal\n",
           path, model.skeleton.joint_count, model.clip_count, worst_direct, worst_sampler);
    models_checked++;
    vks_model_destroy(&model);
}

int main(int argc, char **argv)
{
    if (check_each_model_arg(argc, argv, check_model, &models_checked) == SKIP_RETURN)
        return SKIP_RETURN;
    return check_report("test_walk");
}
