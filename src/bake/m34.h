/* Affine transforms in double for load-time analysis (root_motion.c, gait.c, splat.c): row-major
 * 3x4, the fourth row 0 0 0 1 implied, like vks_affine. */
#ifndef VKS_M34_H
#define VKS_M34_H

#include "../asset/model.h"

typedef struct m34 {
    double m[3][4];
} m34;

static inline m34 m34_of_affine(const vks_affine *a)
{
    m34 out;
    for (int r = 0; r < 3; r++)
        for (int c = 0; c < 4; c++)
            out.m[r][c] = a->row[r][c];
    return out;
}

static inline m34 m34_mul(const m34 *a, const m34 *b)
{
    m34 out;
    for (int r = 0; r < 3; r++) {
        for (int c = 0; c < 4; c++) {
            double v = c == 3 ? a->m[r][3] : 0.0;
            for (int k = 0; k < 3; k++)
                v += a->m[r][k] * b->m[k][c];
            out.m[r][c] = v;
        }
    }
    return out;
}

/* The determinant of a's linear part. */
static inline double m34_det(const m34 *a)
{
    const double(*m)[4] = a->m;
    return m[0][0] * (m[1][1] * m[2][2] - m[1][2] * m[2][1]) -
           m[0][1] * (m[1][0] * m[2][2] - m[1][2] * m[2][0]) +
           m[0][2] * (m[1][0] * m[2][1] - m[1][1] * m[2][0]);
}

/* The inverse of an affine transform (its linear part invertible: a skeleton's root and joints
 * are, checked at import). */
static inline m34 m34_inverse(const m34 *a)
{
    const double(*m)[4] = a->m;
    double cof[3][3] = {
        {m[1][1] * m[2][2] - m[1][2] * m[2][1], m[0][2] * m[2][1] - m[0][1] * m[2][2],
         m[0][1] * m[1][2] - m[0][2] * m[1][1]},
        {m[1][2] * m[2][0] - m[1][0] * m[2][2], m[0][0] * m[2][2] - m[0][2] * m[2][0],
         m[0][2] * m[1][0] - m[0][0] * m[1][2]},
        {m[1][0] * m[2][1] - m[1][1] * m[2][0], m[0][1] * m[2][0] - m[0][0] * m[2][1],
         m[0][0] * m[1][1] - m[0][1] * m[1][0]},
    };
    const double det = m[0][0] * cof[0][0] + m[0][1] * cof[1][0] + m[0][2] * cof[2][0];
    const double inv = det != 0.0 ? 1.0 / det : 0.0;
    m34 out;
    for (int r = 0; r < 3; r++)
        for (int c = 0; c < 3; c++)
            out.m[r][c] = cof[r][c] * inv;
    for (int r = 0; r < 3; r++)
        out.m[r][3] = -(out.m[r][0] * m[0][3] + out.m[r][1] * m[1][3] + out.m[r][2] * m[2][3]);
    return out;
}

/* The point p carried by a. */
static inline void m34_point(const m34 *a, const float p[3], double out[3])
{
    for (int r = 0; r < 3; r++)
        out[r] = a->m[r][0] * p[0] + a->m[r][1] * p[1] + a->m[r][2] * p[2] + a->m[r][3];
}

/* The model's root transform (palette space -> its frame): the root inverse's inverse. */
static inline m34 m34_root(const vks_skeleton *sk)
{
    const m34 ri = m34_of_affine(&sk->root_inverse);
    return m34_inverse(&ri);
}

#endif
