/* The compact streams' encoders and decoders (src/asset/quant.h), against closed forms and values
 * worked out here (in double where it matters), never read back from the module:
 *
 *   snorm16:    the packSnorm2x16 values at the ends, 0, outside [-1, 1] and at a half; NaN -> 0.
 *   positions:  a hand-made box and its corners; every point back within half a step; a flat axis
 *               exact; 10 000 random points in random boxes, within half a step plus the decoder's
 *               two float roundings.
 *   octahedral: the six axes as hand-worked words and back; two words decoded by hand; zero,
 *               NaN and infinite vectors; 100 000 random unit vectors (uniform, near the equator,
 *               near the fold's seams) within 0.01 degrees and of unit length; re-encoding the
 *               decoded vector gives the same word except on a seam (where the mirror word may
 *               come back) and the same vector within 1e-6.
 *   tangents:   hand-worked words, the zero tangent, 10 000 random tangents within 0.02 degrees
 *               with their handedness kept.
 *   weights:    100 000 random normalised sets of 1..8 summing to exactly 65535, each within one
 *               step, zeros kept; hand-worked sets (ties, a remainder dealt by fraction, sums
 *               1e-3 off either way); a set far from 1 rounded plainly; unorm16 decoding.
 *   joints8:    a hand-worked word.
 *   morph:      a hand-worked record (each field in its bits, negatives two's complement); 1000
 *               random targets of 1..64 deltas at scales 1e-4..10: each decoded component
 *               within half its step (plus 2^-22 of the largest: the floats' rounding), the steps
 * the largest component over 32767 (511 for tangents), the largest component decoded exactly; a
 * zero target and NaN give 0. */
#include "check.h"

#include "asset/quant.h"

#include <stdbool.h>

/* splitmix64: a fixed sequence, so a failure reproduces. */
static uint64_t rng_state = 0x9e3779b97f4a7c15u;

static double rnd(void) /* [0, 1) */
{
    uint64_t z = (rng_state += 0x9e3779b97f4a7c15u);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
    z ^= z >> 31;
    return (double)(z >> 11) * 0x1.0p-53;
}

static double rnd_range(double lo, double hi)
{
    return lo + (hi - lo) * rnd();
}

/* The angle between a and b in degrees, in double: atan2(|a x b|, a . b). */
static double angle_deg(const float a[3], const float b[3])
{
    double cx = (double)a[1] * b[2] - (double)a[2] * b[1];
    double cy = (double)a[2] * b[0] - (double)a[0] * b[2];
    double cz = (double)a[0] * b[1] - (double)a[1] * b[0];
    double dot = (double)a[0] * b[0] + (double)a[1] * b[1] + (double)a[2] * b[2];
    return atan2(sqrt(cx * cx + cy * cy + cz * cz), dot) * (180.0 / 3.14159265358979323846);
}

static double length(const float v[3])
{
    return sqrt((double)v[0] * v[0] + (double)v[1] * v[1] + (double)v[2] * v[2]);
}

/* A unit vector, rounded to float after normalising in double. */
static void unit(double x, double y, double z, float out[3])
{
    double l = sqrt(x * x + y * y + z * z);
    out[0] = (float)(x / l);
    out[1] = (float)(y / l);
    out[2] = (float)(z / l);
}

/* A uniform random direction: z uniform in [-1, 1], the azimuth uniform (Archimedes). */
static void random_unit(float out[3])
{
    double z = rnd_range(-1.0, 1.0), phi = rnd_range(0.0, 2.0 * 3.14159265358979323846);
    double r = sqrt(fmax(0.0, 1.0 - z * z));
    unit(r * cos(phi), r * sin(phi), z, out);
}

/* Uniform for a third of the calls; near the equator (z = 0, where the fold meets itself) for a
 * third, some exactly on it; near the planes x = 0 or y = 0 for the rest, where the lower
 * hemisphere's fold flips sign, with -0.0 and exact zeros among them. */
static void test_unit(uint32_t i, float out[3])
{
    random_unit(out);
    double tiny[] = {0.0, -0.0, 1e-30, -1e-30, 1e-7, -1e-7, 1e-5, -1e-5, 1e-3, -1e-3};
    double e = tiny[i / 3 % 10];
    if (i % 3 == 1) {
        unit(out[0], out[1], e, out);
    } else if (i % 3 == 2) {
        int a = i / 30 % 2; /* which of x and y goes to (nearly) 0 */
        double v[3] = {out[0], out[1], out[2]};
        v[a] = e;
        unit(v[0], v[1], v[2], out); /* -0.0 stays -0.0 */
    }
}

/* ---- snorm16 ---- */

static void test_snorm16(void)
{
    CHECK(vks_quant_snorm16(1.0f) == 32767);
    CHECK(vks_quant_snorm16(-1.0f) == -32767);
    CHECK(vks_quant_snorm16(0.0f) == 0);
    CHECK(vks_quant_snorm16(2.0f) == 32767);
    CHECK(vks_quant_snorm16(-7.0f) == -32767);
    CHECK(vks_quant_snorm16(INFINITY) == 32767);
    CHECK(vks_quant_snorm16(0.5f) == 16384);   /* 16383.5: roundf rounds halves away from 0 */
    CHECK(vks_quant_snorm16(-0.5f) == -16384); /* and so does packSnorm's round() here */
    CHECK(vks_quant_snorm16(NAN) == 0);
    CHECK(vks_dequant_snorm16(-32768) == -1.0f);
    CHECK(vks_dequant_snorm16(-32767) == -1.0f);
    CHECK(vks_dequant_snorm16(32767) == 1.0f);
    CHECK(vks_dequant_snorm16(0) == 0.0f);
    CHECK(vks_dequant_snorm16(16384) == (float)(16384.0 / 32767.0));
}

/* ---- Positions ---- */

static void test_positions_by_hand(void)
{
    /* x in [-1, 3], y flat at 2, z in [-4, 5]. */
    const float p[4][3] = {{-1, 2, 5}, {3, 2, -4}, {0.5f, 2, 1}, {2.25f, 2, -3.3f}};
    vks_quant_box box = vks_quant_box_of(p, 4);
    CHECK(box.offset[0] == -1.0f && box.offset[1] == 2.0f && box.offset[2] == -4.0f);
    CHECK_NEAR(box.scale[0], 4.0 / 65535.0, 1e-7 * 4.0 / 65535.0);
    CHECK(box.scale[1] == 0.0f);
    CHECK_NEAR(box.scale[2], 9.0 / 65535.0, 1e-7 * 9.0 / 65535.0);

    vks_quant_box none = vks_quant_box_of(NULL, 0);
    CHECK(none.offset[0] == 0 && none.offset[1] == 0 && none.offset[2] == 0);
    CHECK(none.scale[0] == 0 && none.scale[1] == 0 && none.scale[2] == 0);

    uint16_t q[4];
    const float lo[3] = {-1, 2, -4}, hi[3] = {3, 2, 5};
    vks_quant_position(&box, lo, q);
    CHECK(q[0] == 0 && q[1] == 0 && q[2] == 0 && q[3] == 0);
    vks_quant_position(&box, hi, q);
    CHECK(q[0] == 65535 && q[1] == 0 && q[2] == 65535 && q[3] == 0);

    /* 0.5 is 1.5 / 4 of the way: 24575.625 -> 24576; 1 is 5 / 9 of z: 36408.33 -> 36408. */
    vks_quant_position(&box, p[2], q);
    CHECK(q[0] == 24576 && q[2] == 36408);

    for (int i = 0; i < 4; i++) {
        float out[3];
        vks_quant_position(&box, p[i], q);
        vks_dequant_position(&box, q, out);
        for (int a = 0; a < 3; a++)
            CHECK_NEAR(out[a], p[i][a], 0.5 * box.scale[a] + 1e-6);
        CHECK(out[1] == 2.0f); /* the flat axis, exactly */
    }

    /* Outside the box it clamps; NaN gives 0 (and no undefined conversion). */
    const float outside[3] = {-10, 1e30f, NAN};
    vks_quant_position(&box, outside, q);
    CHECK(q[0] == 0 && q[1] == 0 && q[2] == 0);
    const float beyond[3] = {10, 2, INFINITY};
    vks_quant_position(&box, beyond, q);
    CHECK(q[0] == 65535 && q[2] == 65535);
}

/* The decoder's error is the half step of the rounding (widened by 1e-5 for the float scale and
 * the double ratio) plus its two float roundings: the product scale * q within 2^-24 of itself,
 * and the sum within 2^-24 of itself. The second term is not 1e-7 * |value| alone: in a box
 * across the origin a point near 0 comes from offset + scale * q with both terms large. */
static void test_positions_random(void)
{
    enum { BOXES = 10, PER_BOX = 1000, N = BOXES * PER_BOX };
    static float p[PER_BOX][3];
    double worst_rel = 0.0, worst_step = 0.0; /* of the diagonal; of the bound's half step */
    int bad = 0;
    for (int b = 0; b < BOXES; b++) {
        double center[3], half[3];
        for (int a = 0; a < 3; a++) {
            center[a] = b % 2 ? rnd_range(-1000.0, 1000.0) : rnd_range(-1.0, 1.0);
            half[a] = rnd_range(0.01, 100.0);
        }
        for (int i = 0; i < PER_BOX; i++)
            for (int a = 0; a < 3; a++)
                p[i][a] = (float)(center[a] + half[a] * rnd_range(-1.0, 1.0));
        vks_quant_box box = vks_quant_box_of(p, PER_BOX);
        double diag = 0.0;
        for (int a = 0; a < 3; a++) {
            double lo = INFINITY, hi = -INFINITY;
            for (int i = 0; i < PER_BOX; i++) {
                lo = fmin(lo, p[i][a]);
                hi = fmax(hi, p[i][a]);
            }
            bad += box.offset[a] != (float)lo;
            bad += fabs(box.scale[a] - (hi - lo) / 65535.0) > 1e-7 * (hi - lo) / 65535.0;
            diag += (hi - lo) * (hi - lo);
        }
        diag = sqrt(diag);
        for (int i = 0; i < PER_BOX; i++) {
            uint16_t q[4];
            float out[3];
            vks_quant_position(&box, p[i], q);
            vks_dequant_position(&box, q, out);
            for (int a = 0; a < 3; a++) {
                double err = fabs((double)out[a] - p[i][a]);
                double product = (double)box.scale[a] * q[a];
                double bound = 0.5 * box.scale[a] * (1.0 + 1e-5) +
                               0x1.0p-24 * (fabs(product) + fabs((double)out[a]));
                bad += !(err <= bound);
                worst_rel = fmax(worst_rel, err / diag);
                worst_step = fmax(worst_step, err / (0.5 * box.scale[a]));
            }
        }
    }
    CHECK(bad == 0);
    CHECK(worst_rel <= 2e-5);
    printf("  positions: %d points, worst error %.3g of the box diagonal, %.6f half steps\n", N,
           worst_rel, worst_step);
}

/* ---- Octahedral ---- */

static void test_oct_by_hand(void)
{
    /* x and y are snorm16 of the octahedral square's point; 32767 = 0x7FFF, -32767 = 0x8001.
     * (0, 0, -1) folds to (1, 1): sgn(0) is +1. */
    static const struct {
        float n[3];
        uint32_t word;
    } axes[] = {
        {{0, 0, 1}, 0x00000000u},  {{1, 0, 0}, 0x00007FFFu},  {{0, 1, 0}, 0x7FFF0000u},
        {{-1, 0, 0}, 0x00008001u}, {{0, -1, 0}, 0x80010000u}, {{0, 0, -1}, 0x7FFF7FFFu},
    };
    for (size_t i = 0; i < sizeof axes / sizeof axes[0]; i++) {
        uint32_t w = vks_quant_oct(axes[i].n);
        CHECK(w == axes[i].word);
        float back[3];
        vks_dequant_oct(w, back);
        CHECK_VEC_NEAR(back, axes[i].n, 3, 1e-6);
    }

    /* Two words by hand. 0x00004000: x = a = 16384 / 32767, y = 0, z = 1 - a (upper). */
    float n[3];
    double a = 16384.0 / 32767.0, l = sqrt(a * a + (1 - a) * (1 - a));
    vks_dequant_oct(0x00004000u, n);
    CHECK_NEAR(n[0], a / l, 1e-6);
    CHECK_NEAR(n[1], 0.0, 1e-6);
    CHECK_NEAR(n[2], (1 - a) / l, 1e-6);
    /* 0xA0006000: x = b = 24576 / 32767, y = -b (0xA000 = -24576): z = 1 - 2b < 0 unfolds to
     * (b - t, -(b - t), -t) with t = 2b - 1. */
    double b = 24576.0 / 32767.0, t = 2 * b - 1;
    l = sqrt(2 * (b - t) * (b - t) + t * t);
    vks_dequant_oct(0xA0006000u, n);
    CHECK_NEAR(n[0], (b - t) / l, 1e-6);
    CHECK_NEAR(n[1], -(b - t) / l, 1e-6);
    CHECK_NEAR(n[2], -t / l, 1e-6);

    /* Zero and non-finite vectors. */
    const float zero[3] = {0, 0, 0}, neg_zero[3] = {-0.0f, -0.0f, -0.0f};
    const float nan3[3] = {NAN, 0, 1}, inf3[3] = {INFINITY, 0, 0};
    CHECK(vks_quant_oct(zero) == VKS_QUANT_ZERO && vks_quant_oct(neg_zero) == VKS_QUANT_ZERO);
    CHECK(vks_quant_oct(nan3) == VKS_QUANT_ZERO && vks_quant_oct(inf3) == VKS_QUANT_ZERO);
    vks_dequant_oct(VKS_QUANT_ZERO, n);
    CHECK(n[0] == 0.0f && n[1] == 0.0f && n[2] == 0.0f);
    /* Any word whose low half is -32768 is zero, whatever its high half. */
    vks_dequant_oct(0x12348000u, n);
    CHECK(n[0] == 0.0f && n[1] == 0.0f && n[2] == 0.0f);

    /* A finite vector whose float length overflows, and a tiny one, still encode. */
    const float huge[3] = {3e38f, -3e38f, 3e38f}, small[3] = {1e-40f, 0, 0};
    float expect[3];
    unit(1, -1, 1, expect);
    vks_dequant_oct(vks_quant_oct(huge), n);
    CHECK(angle_deg(n, expect) < 0.01);
    vks_dequant_oct(vks_quant_oct(small), n);
    CHECK(n[0] == 1.0f);
}

/* Whether a word lies on the fold's seam in the lower hemisphere: a half at +-32767 (|x| or |y| is
 * 1). Such a point, (x, +-1), and its mirror (-x, +-1) decode to the same vector with its other
 * coordinate 0: v.x = x - sgn(x) * t with t = -(1 - |x| - 1) = |x|. But the decoder's float
 * z = (1 - |x|) - 1 is not exactly -|x|, so that 0 comes out as about +-4e-8 with a sign that is
 * rounding noise, and re-encoding it may pick the mirror word. */
static bool on_seam(uint32_t w)
{
    uint32_t x = w & 0xffffu, y = w >> 16;
    return x == 0x7FFFu || x == 0x8001u || y == 0x7FFFu || y == 0x8001u;
}

/* Re-encoding a decoded vector: off the seams the decoded point is within float error (about
 * 1e-7) of its grid point, far from a rounding boundary (half a step is 1.5e-5), so the word comes
 * back exactly; on them it may come back as its mirror (above), which decodes to the same vector
 * but for the sign of that near-zero coordinate. Measured on this sample: about 5% of words
 * change, all in the third built on or next to the seams (none in the uniform or equator
 * thirds). */
static void test_oct_random(void)
{
    enum { N = 100000 };
    double worst = 0.0, worst_len = 0.0, worst_again = 0.0;
    int bad_angle = 0, bad_len = 0, word_changed = 0, off_seam_changed = 0;
    for (uint32_t i = 0; i < N; i++) {
        float n[3], back[3], again[3];
        test_unit(i, n);
        uint32_t w = vks_quant_oct(n);
        vks_dequant_oct(w, back);
        double angle = angle_deg(n, back), len = fabs(length(back) - 1.0);
        bad_angle += !(angle <= 0.01);
        bad_len += !(len <= 1e-6);
        worst = fmax(worst, angle);
        worst_len = fmax(worst_len, len);
        uint32_t w2 = vks_quant_oct(back);
        vks_dequant_oct(w2, again);
        for (int a = 0; a < 3; a++)
            worst_again = fmax(worst_again, fabs((double)again[a] - back[a]));
        word_changed += w2 != w;
        off_seam_changed += w2 != w && !(on_seam(w) && on_seam(w2));
    }
    CHECK(bad_angle == 0);
    CHECK(bad_len == 0);
    CHECK(off_seam_changed == 0);
    CHECK(worst_again <= 1e-6);
    printf("  octahedral: %d vectors, worst %.6f degrees, length off by %.2g; re-encoded: %d words "
           "changed, all on a seam, vectors within %.2g\n",
           N, worst, worst_len, word_changed, worst_again);
}

/* ---- Tangents ---- */

static void test_tangent_by_hand(void)
{
    /* x = 1 -> 0x7FFF; y = 0 -> 0; w < 0 sets bit 16. (0, 1, 0): x = 0, y15 = 16383, shifted
     * 32766, plus the sign bit: 0x7FFF. */
    const float px[4] = {1, 0, 0, 1}, nx[4] = {1, 0, 0, -1}, ny[4] = {0, 1, 0, -1};
    CHECK(vks_quant_tangent(px) == 0x00007FFFu);
    CHECK(vks_quant_tangent(nx) == 0x00017FFFu);
    CHECK(vks_quant_tangent(ny) == 0x7FFF0000u);
    float t[4];
    vks_dequant_tangent(0x00017FFFu, t);
    CHECK_VEC_NEAR(t, nx, 4, 1e-6);
    vks_dequant_tangent(0x7FFF0000u, t);
    CHECK_VEC_NEAR(t, ny, 4, 1e-6);
    /* (0, -1, 0, +1): y15 = -16383, shifted -32766 = 0x8002. */
    const float my[4] = {0, -1, 0, 1};
    CHECK(vks_quant_tangent(my) == 0x80020000u);
    vks_dequant_tangent(0x80020000u, t);
    CHECK_VEC_NEAR(t, my, 4, 1e-6);
    /* The lowest y15, -16384, reads as -1 (like snorm16's -32768). */
    vks_dequant_tangent(0x80000000u, t);
    CHECK(t[1] == -1.0f && t[3] == 1.0f);

    const float zero[4] = {0, 0, 0, -1}, nan4[4] = {0, NAN, 0, 1};
    CHECK(vks_quant_tangent(zero) == VKS_QUANT_ZERO && vks_quant_tangent(nan4) == VKS_QUANT_ZERO);
    vks_dequant_tangent(VKS_QUANT_ZERO, t);
    CHECK(t[0] == 0.0f && t[1] == 0.0f && t[2] == 0.0f && t[3] == 0.0f);
}

static void test_tangent_random(void)
{
    enum { N = 10000 };
    double worst = 0.0;
    int bad_angle = 0, bad_len = 0, bad_w = 0, negative = 0;
    for (uint32_t i = 0; i < N; i++) {
        float t[4], back[4];
        test_unit(i, t);
        t[3] = rnd() < 0.5 ? -1.0f : 1.0f;
        negative += t[3] < 0;
        vks_dequant_tangent(vks_quant_tangent(t), back);
        double angle = angle_deg(t, back);
        bad_angle += !(angle <= 0.02);
        bad_len += !(fabs(length(back) - 1.0) <= 1e-6);
        bad_w += back[3] != t[3];
        worst = fmax(worst, angle);
    }
    CHECK(bad_angle == 0);
    CHECK(bad_len == 0);
    CHECK(bad_w == 0);
    CHECK(negative > N / 3 && negative < 2 * N / 3); /* both signs were tried */
    printf("  tangents: %d, worst %.6f degrees\n", N, worst);
}

/* ---- Weights ---- */

static void test_weights_by_hand(void)
{
    uint16_t q[8];
    const float one[4] = {1, 0, 0, 0};
    vks_quant_weights(one, 4, q);
    CHECK(q[0] == 65535 && q[1] == 0 && q[2] == 0 && q[3] == 0);

    /* 32767.5 each: floors 32767 + 32767 = 65534, one unit left, equal fractions: the lower
     * index takes it. */
    const float halves[4] = {0.5f, 0.5f, 0, 0};
    vks_quant_weights(halves, 4, q);
    CHECK(q[0] == 32768 && q[1] == 32767 && q[2] == 0 && q[3] == 0);

    /* 65535 = 3 x 21845, and 1/3 as a float is a little above a third (21845.00065 each): the
     * floors already sum to 65535. */
    const float thirds[4] = {1.0f / 3, 1.0f / 3, 1.0f / 3, 0};
    vks_quant_weights(thirds, 4, q);
    CHECK(q[0] == 21845 && q[1] == 21845 && q[2] == 21845 && q[3] == 0);

    /* As floats x 65535: 6553.50010, 13107.00020, 19660.50078, 26214.00039. The floors sum to
     * 65534; the largest fraction (.50078, index 2) takes the unit, not the lowest index. */
    const float tenths[4] = {0.1f, 0.2f, 0.3f, 0.4f};
    vks_quant_weights(tenths, 4, q);
    CHECK(q[0] == 6553 && q[1] == 13107 && q[2] == 19661 && q[3] == 26214);

    /* Summing to 0.9995 (within 1e-3): 32734.733 and 32767.5 floor to 65501, 34 units short.
     * Dealt by the residual x - q: .733 > .5 gives one to index 0 (-.267), then index 1 (-.5),
     * and so on, alternating: 17 each. The zero stays zero. */
    const float short_sum[3] = {0.4995f, 0.5f, 0};
    vks_quant_weights(short_sum, 3, q);
    CHECK(q[0] == 32734 + 17 && q[1] == 32767 + 17 && q[2] == 0);

    /* Summing to 1.0005: 32800.269 and 32767.5 floor to 65567, 32 over. Taken back from the
     * smallest residual: .269 < .5 (index 0, now 1.269), then index 1 (1.5), alternating: 16
     * each. */
    const float long_sum[3] = {0.5005f, 0.5f, 0};
    vks_quant_weights(long_sum, 3, q);
    CHECK(q[0] == 32800 - 16 && q[1] == 32767 - 16 && q[2] == 0);

    /* Summing to 0.5: plain rounding, 16383.75 -> 16384 each, no fix-up. */
    const float half_sum[4] = {0.25f, 0.25f, 0, 0};
    vks_quant_weights(half_sum, 4, q);
    CHECK(q[0] == 16384 && q[1] == 16384 && q[2] == 0 && q[3] == 0);

    /* Out of range and NaN read as clamped and 0, without undefined conversions. */
    const float odd[3] = {NAN, 2.0f, -1.0f};
    vks_quant_weights(odd, 3, q);
    CHECK(q[0] == 0 && q[1] == 65535 && q[2] == 0);

    /* One weight of 1 among 8. */
    const float last[8] = {0, 0, 0, 0, 0, 0, 0, 1};
    vks_quant_weights(last, 8, q);
    CHECK(q[7] == 65535 && q[0] == 0 && q[6] == 0);

    CHECK(vks_dequant_unorm16(65535) == 1.0f);
    CHECK(vks_dequant_unorm16(0) == 0.0f);
    CHECK(vks_dequant_unorm16(32768) == 32768.0f * (float)(1.0 / 65535.0));
}

static void test_weights_random(void)
{
    enum { N = 100000 };
    int bad_sum = 0, bad_step = 0, bad_zero = 0;
    for (uint32_t i = 0; i < N; i++) {
        uint32_t n = 1 + i % 8;
        float w[8];
        uint16_t q[8];
        float sum = 0.0f;
        for (uint32_t k = 0; k < n; k++) {
            w[k] = rnd() < 0.25 ? 0.0f : (float)rnd();
            sum += w[k];
        }
        if (sum == 0.0f) {
            w[i % n] = 1.0f;
            sum = 1.0f;
        }
        for (uint32_t k = 0; k < n; k++)
            w[k] /= sum;
        vks_quant_weights(w, n, q);
        uint32_t total = 0;
        for (uint32_t k = 0; k < n; k++) {
            total += q[k];
            bad_step += !(fabs(q[k] / 65535.0 - w[k]) < 1.0 / 65535.0);
            bad_zero += w[k] == 0.0f && q[k] != 0;
        }
        bad_sum += total != 65535;
    }
    CHECK(bad_sum == 0);
    CHECK(bad_step == 0);
    CHECK(bad_zero == 0);
}

/* ---- Joints ---- */

static void test_joints8(void)
{
    const uint16_t j[4] = {1, 2, 255, 0};
    CHECK(vks_quant_joints8(j) == 0x00FF0201u);
    const uint16_t k[4] = {0, 0, 0, 255};
    CHECK(vks_quant_joints8(k) == 0xFF000000u);
}

static void test_morph_by_hand(void)
{
    const float p[3] = {1.0f, -1.0f, 0.5f}, n[3] = {0.0f, 0.25f, -0.25f}, t[3] = {-2.0f, 2.0f, 0};
    float steps[3];
    vks_quant_morph_steps(&p, &n, &t, 1, steps);
    CHECK(steps[0] == 1.0f / 32767.0f && steps[1] == 0.25f / 32767.0f && steps[2] == 2.0f / 511.0f);
    uint32_t q[4];
    vks_quant_morph(p, n, t, steps, q);
    /* position (32767, -32767, 16384), normal (0, 32767, -32767), tangent (-511, 511, 0) */
    CHECK(q[0] == (32767u | 0x8001u << 16) && q[1] == 16384u && q[2] == (32767u | 0x8001u << 16));
    CHECK(q[3] == (0x201u | 511u << 10));
    float dp[3], dn[3], dt[3];
    vks_dequant_morph(q, steps, dp, dn, dt);
    CHECK(dp[0] == 32767.0f * steps[0] && dp[1] == -32767.0f * steps[0] && dn[0] == 0.0f &&
          dt[0] == -511.0f * steps[2] && dt[2] == 0.0f);
    const float zero[3] = {0, 0, 0}, nan3[3] = {NAN, 0, 0};
    vks_quant_morph_steps(&zero, NULL, NULL, 1, steps);
    CHECK(steps[0] == 0.0f && steps[1] == 0.0f && steps[2] == 0.0f);
    vks_quant_morph(nan3, NULL, NULL, (const float[3]){1, 1, 1}, q);
    CHECK(q[0] == 0 && q[1] == 0 && q[2] == 0 && q[3] == 0);
}

static void test_morph_random(void)
{
    float pos[64][3], nrm[64][3], tan[64][3];
    int far = 0, exact = 0;
    for (int target = 0; target < 1000; target++) {
        const uint32_t count = 1 + (uint32_t)(rnd() * 64);
        const double scale = pow(10.0, rnd_range(-4, 1));
        double largest[3] = {0, 0, 0};
        for (uint32_t v = 0; v < count; v++)
            for (int k = 0; k < 3; k++) {
                pos[v][k] = (float)rnd_range(-scale, scale);
                nrm[v][k] = (float)rnd_range(-1, 1);
                tan[v][k] = (float)rnd_range(-0.5, 0.5);
                largest[0] = fmax(largest[0], fabs(pos[v][k]));
                largest[1] = fmax(largest[1], fabs(nrm[v][k]));
                largest[2] = fmax(largest[2], fabs(tan[v][k]));
            }
        float steps[3];
        vks_quant_morph_steps(pos, nrm, tan, count, steps);
        far += steps[0] != (float)largest[0] / 32767.0f ||
               steps[1] != (float)largest[1] / 32767.0f || steps[2] != (float)largest[2] / 511.0f;
        for (uint32_t v = 0; v < count; v++) {
            uint32_t q[4];
            float dp[3], dn[3], dt[3];
            vks_quant_morph(pos[v], nrm[v], tan[v], steps, q);
            vks_dequant_morph(q, steps, dp, dn, dt);
            for (int k = 0; k < 3; k++) {
                /* half a step, plus the floats' rounding of d / step and q * step (an ulp of
                 * the largest each: 2^-23 of it) */
                far += fabs(dp[k] - pos[v][k]) > 0.5 * steps[0] + 0x1p-22 * largest[0] ||
                       fabs(dn[k] - nrm[v][k]) > 0.5 * steps[1] + 0x1p-22 * largest[1] ||
                       fabs(dt[k] - tan[v][k]) > 0.5 * steps[2] + 0x1p-22 * largest[2];
                exact += fabs(pos[v][k]) == largest[0] && fabs(dp[k]) == 32767.0f * steps[0];
            }
        }
    }
    CHECK(far == 0 && exact >= 1000);
    printf("morph deltas: 1000 random targets, %d components off by more than half a step, %d "
           "largest decoded as 32767 steps\n",
           far, exact);
}

int main(void)
{
    test_snorm16();
    test_positions_by_hand();
    test_positions_random();
    test_oct_by_hand();
    test_oct_random();
    test_tangent_by_hand();
    test_tangent_random();
    test_weights_by_hand();
    test_weights_random();
    test_joints8();
    test_morph_by_hand();
    test_morph_random();
    return check_report("quant");
}
