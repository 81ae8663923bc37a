/* The compact streams (src/asset/pack.h) against the float streams they replace, on every model
 * given: each file is imported twice, once packed (vks_model_pack) and once not, and both are
 * skinned by the CPU reference at the bind pose and at 8 times spread over every clip. The packed
 * model's skinned positions stay within 2e-5 of the unpacked model's bind-pose bounding-box
 * diagonal, and its normals and tangents within 0.1 degree (vectors the unpacked model has as
 * zero stay zero). The packed model's float streams hold exactly what its packed words decode to
 * (what the GPU reads), its weights sum to 1 within a float's rounding, and packing twice changes
 * nothing.
 *   usage: test_pack MODEL... [--folder DIR]...  (a file that does not import is a failure; no
 *          model at all is a skip) */
#include "check.h"

#include "asset/import.h"
#include "asset/pack.h"
#include "skin/skin_cpu.h"

#include <float.h>

#define POSITION_BOUND 2e-5 /* of the bind-pose bounding-box diagonal */
#define ANGLE_BOUND 0.1     /* degrees */
#define TIMES 8u

static size_t visited;
static double worst_position, worst_angle; /* over every model */

/* The angle between a and b in degrees (atan2 of |a x b| and a . b, in double); -1 when exactly
 * one of them is zero, 0 when both are. */
static double angle_deg(const float *a, const float *b)
{
    double ax = a[0], ay = a[1], az = a[2], bx = b[0], by = b[1], bz = b[2];
    bool za = ax == 0 && ay == 0 && az == 0, zb = bx == 0 && by == 0 && bz == 0;
    if (za || zb)
        return za && zb ? 0.0 : -1.0;
    double cx = ay * bz - az * by, cy = az * bx - ax * bz, cz = ax * by - ay * bx;
    return atan2(sqrt(cx * cx + cy * cy + cz * cz), ax * bx + ay * by + az * bz) * 180.0 /
           3.14159265358979323846;
}

/* The diagonal of the bind pose's bounds (palette space). */
static double bind_diagonal(const float (*pos)[3], uint32_t n)
{
    double lo[3] = {DBL_MAX, DBL_MAX, DBL_MAX}, hi[3] = {-DBL_MAX, -DBL_MAX, -DBL_MAX}, d2 = 0.0;
    for (uint32_t v = 0; v < n; v++)
        for (int k = 0; k < 3; k++) {
            lo[k] = fmin(lo[k], pos[v][k]);
            hi[k] = fmax(hi[k], pos[v][k]);
        }
    for (int k = 0; k < 3 && n; k++)
        d2 += (hi[k] - lo[k]) * (hi[k] - lo[k]);
    return sqrt(d2);
}

typedef struct pose {
    float (*pos)[3], (*nrm)[3], (*tan)[4];
} pose;

static bool pose_alloc(pose *p, uint32_t n)
{
    p->pos = malloc(sizeof *p->pos * (n ? n : 1));
    p->nrm = malloc(sizeof *p->nrm * (n ? n : 1));
    p->tan = malloc(sizeof *p->tan * (n ? n : 1));
    return p->pos && p->nrm && p->tan;
}

static void pose_free(pose *p)
{
    free(p->pos);
    free(p->nrm);
    free(p->tan);
}

/* The stored streams are the packed words decoded, weights sum to 1, and packing is idempotent. */
static void check_streams(const char *path, vks_model *m)
{
    const vks_packed *p = m->packed;
    uint32_t bad = 0, sums = 0;
    for (uint32_t v = 0; v < m->vertex_count; v++) {
        float d[4];
        vks_dequant_position(&p->box, p->positions[v], d);
        bad += memcmp(d, m->positions[v], sizeof(float[3])) != 0;
        vks_dequant_oct(p->normals[v], d);
        bad += memcmp(d, m->normals[v], sizeof(float[3])) != 0;
        if (m->tangents) {
            vks_dequant_tangent(p->tangents[v], d);
            bad += memcmp(d, m->tangents[v], sizeof d) != 0;
        }
        uint32_t q = 0;
        double w = 0.0;
        for (int k = 0; k < 4; k++) {
            q += p->weights[v][k];
            w += m->weights[v][k];
            if (m->weights_extra) {
                q += p->weights_extra[v][k];
                w += m->weights_extra[v][k];
            }
        }
        sums += q == 65535 && fabs(w - 1.0) <= 8 * FLT_EPSILON;
    }
    CHECK(bad == 0);
    /* Vertices whose weights sum to 1 before packing keep that exactly: all, in these files. */
    CHECK(sums == m->vertex_count);
    if (bad || sums != m->vertex_count)
        fprintf(stderr,
                "  %s: %u stream values differ from their words, %u of %u weight sums "
                "exact\n",
                path, bad, sums, m->vertex_count);
    const vks_packed *before = m->packed;
    vks_error err;
    CHECK(vks_model_pack(m, &err) && m->packed == before);
}

static void visit(const char *path)
{
    vks_model raw, packed;
    vks_error err;
    bool ok_raw = vks_model_import(&(vks_import_desc){.path = path}, &raw, &err);
    if (!ok_raw) {
        fprintf(stderr, "%s: %s\n", path, err.msg);
        CHECK(!"import failed");
        return;
    }
    bool ok = vks_model_import(&(vks_import_desc){.path = path}, &packed, &err) &&
              vks_model_pack(&packed, &err);
    CHECK(ok);
    if (!ok) {
        fprintf(stderr, "%s: %s\n", path, err.msg);
        vks_model_destroy(&raw);
        return;
    }
    visited++;
    check_streams(path, &packed);
    const uint32_t n = raw.vertex_count;
    pose a, b;
    double diag = 0.0, dp = 0.0, da = 0.0;
    uint32_t poses = 0, zero_mismatch = 0;
    if (pose_alloc(&a, n) && pose_alloc(&b, n) &&
        vks_skin_cpu_pose(&raw, -1, 0.0, a.pos, a.nrm, NULL)) {
        diag = bind_diagonal((const float(*)[3])a.pos, n);
        for (int32_t clip = -1; clip < (int32_t)raw.clip_count; clip++) {
            for (uint32_t t = 0; t < (clip < 0 ? 1 : TIMES); t++) {
                double seconds = clip < 0 ? 0.0 : raw.clips[clip].duration * t / TIMES;
                bool skinned = vks_skin_cpu_pose(&raw, clip, seconds, a.pos, a.nrm, a.tan) &&
                               vks_skin_cpu_pose(&packed, clip, seconds, b.pos, b.nrm, b.tan);
                CHECK(skinned);
                if (!skinned)
                    break;
                poses++;
                dp = fmax(dp, check_max_diff(a.pos[0], 3, b.pos[0], 3, n, 3));
                for (uint32_t v = 0; v < n; v++) {
                    double an = angle_deg(a.nrm[v], b.nrm[v]);
                    double at = raw.tangents ? angle_deg(a.tan[v], b.tan[v]) : 0.0;
                    zero_mismatch +=
                        an < 0.0 || at < 0.0 || (raw.tangents && a.tan[v][3] != b.tan[v][3]);
                    da = fmax(da, fmax(an, at));
                }
            }
        }
    } else {
        CHECK(!"out of memory");
    }
    const double rel = diag > 0.0 ? dp / diag : dp;
    CHECK(rel <= POSITION_BOUND);
    CHECK(da <= ANGLE_BOUND);
    CHECK(zero_mismatch == 0);
    printf("%s: %u vertices, %u poses: positions %.3g of the diagonal (%.4g), normals and "
           "tangents %.4f degrees\n",
           path, n, poses, rel, diag, da);
    if (rel > POSITION_BOUND || da > ANGLE_BOUND || zero_mismatch)
        fprintf(stderr,
                "  %s: positions %.3g of the diagonal, angles %.4f degrees, %u zero or "
                "handedness mismatches\n",
                path, rel, da, zero_mismatch);
    worst_position = fmax(worst_position, rel);
    worst_angle = fmax(worst_angle, da);
    pose_free(&a);
    pose_free(&b);
    vks_model_destroy(&raw);
    vks_model_destroy(&packed);
}

/* Bounds wider than a float holds would decode to infinity: refused, the model untouched. */
static void test_too_wide(void)
{
    float pos[2][3] = {{-3e38f, 0.0f, 0.0f}, {3e38f, 1.0f, 0.0f}};
    float nrm[2][3] = {{0.0f, 0.0f, 1.0f}, {0.0f, 0.0f, 1.0f}};
    float wgt[2][4] = {{1.0f, 0.0f, 0.0f, 0.0f}, {1.0f, 0.0f, 0.0f, 0.0f}};
    uint16_t jnt[2][4] = {{0}};
    vks_model m = {.name = "wide box",
                   .vertex_count = 2,
                   .positions = pos,
                   .normals = nrm,
                   .weights = wgt,
                   .joints = jnt};
    vks_error err = {{0}};
    CHECK(!vks_model_pack(&m, &err));
    CHECK(strcmp(err.msg, "wide box: its positions span more than a float holds") == 0);
    CHECK(m.packed == NULL && pos[1][0] == 3e38f);
}

int main(int argc, char **argv)
{
    test_too_wide();
    int rc = check_each_model_arg(argc, argv, visit, &visited);
    if (rc)
        return rc;
    printf("%zu models: worst positions %.3g of the diagonal, worst angle %.4f degrees\n", visited,
           worst_position, worst_angle);
    return check_report("test_pack");
}
