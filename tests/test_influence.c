/* Influence ranking: the 8 largest kept, largest first, renormalised; weights <= 0 dropped. */
#include "asset/influence.h"
#include "check.h"

#include <string.h>

static uint32_t pack(const uint16_t *j, const float *w, int n, uint16_t out_j[8], float out_w[8],
                     vks_influence_acc *acc)
{
    memset(acc, 0, sizeof *acc);
    for (int i = 0; i < n; i++)
        vks_influence_add(acc, j[i], w[i]);
    return vks_influence_finish(acc, out_j, out_w);
}

int main(void)
{
    vks_influence_acc acc;
    uint16_t j[8];
    float w[8];

    /* Seven influences: all kept, largest first, renormalised (they sum to 2). */
    const uint16_t j7[] = {1, 2, 3, 4, 5, 6, 7};
    const float w7[] = {0.1f, 0.2f, 0.3f, 0.05f, 0.5f, 0.15f, 0.7f};
    CHECK(pack(j7, w7, 7, j, w, &acc) == 7);
    CHECK(acc.count == 7 && acc.dropped == 0);
    CHECK_NEAR(acc.sum, 2.0, 1e-6);
    CHECK(j[0] == 7 && j[1] == 5 && j[2] == 3 && j[3] == 2 && j[4] == 6 && j[5] == 1 &&
          j[6] == 4 && j[7] == 0);
    CHECK_VEC_NEAR(w, ((float[8]){0.35f, 0.25f, 0.15f, 0.1f, 0.075f, 0.05f, 0.025f, 0}), 8, 1e-6);

    /* Ten influences, the largest arriving last: the 8 largest are kept (0.1 and 0.2 on joints 1
     * and 2 go) and divided by their sum, 5.2. */
    const uint16_t j10[] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10};
    const float w10[] = {0.1f, 0.2f, 0.3f, 0.4f, 0.5f, 0.6f, 0.7f, 0.8f, 0.9f, 1.0f};
    CHECK(pack(j10, w10, 10, j, w, &acc) == 8);
    CHECK(acc.count == 10);
    for (int i = 0; i < 8; i++) {
        CHECK(j[i] == 10 - i);
        CHECK_NEAR(w[i], (1.0 - 0.1 * i) / 5.2, 1e-6);
    }

    /* Negative and zero weights are dropped; a weight above 1 is normalised. */
    const uint16_t jn[] = {3, 4, 5, 6};
    const float wn[] = {-0.5f, 0.0f, 1.5f, 0.5f};
    CHECK(pack(jn, wn, 4, j, w, &acc) == 2);
    CHECK(acc.dropped == 2);
    CHECK(j[0] == 5 && j[1] == 6 && j[2] == 0 && j[3] == 0);
    CHECK_VEC_NEAR(w, ((float[8]){0.75f, 0.25f, 0, 0, 0, 0, 0, 0}), 8, 1e-6);

    /* Nothing positive: no influence kept, all slots zero. */
    CHECK(pack(jn, (float[2]){0.0f, -1.0f}, 2, j, w, &acc) == 0);
    CHECK(w[0] == 0 && w[1] == 0 && j[0] == 0);

    /* Exactly 4 summing to 1 stay as they are, sorted. */
    const float w4[] = {0.1f, 0.4f, 0.2f, 0.3f};
    CHECK(pack(j7, w4, 4, j, w, &acc) == 4);
    CHECK(j[0] == 2 && j[1] == 4 && j[2] == 3 && j[3] == 1);
    CHECK_VEC_NEAR(w, ((float[4]){0.4f, 0.3f, 0.2f, 0.1f}), 4, 1e-6);

    /* Ties: the first seen stays (stable). */
    const float wt[] = {0.25f, 0.25f, 0.25f, 0.25f, 0.25f, 0.25f, 0.25f, 0.25f, 0.25f, 0.25f};
    CHECK(pack(j10, wt, 10, j, w, &acc) == 8);
    for (int i = 0; i < 8; i++)
        CHECK(j[i] == i + 1);
    return check_report("test_influence");
}
