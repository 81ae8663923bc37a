/* Root motion at run time (travel.h). */
#include "travel.h"

vks_travel vks_travel_at(const vks_model *m, uint32_t clip, double t)
{
    const vks_root_motion *rm = &m->root_motion[clip];
    const double d = m->clips[clip].duration;
    const double u = d > 0.0 ? fmin(fmax(t / d, 0.0), 1.0) * (rm->sample_count - 1) : 0.0;
    const uint32_t i = u >= rm->sample_count - 1 ? rm->sample_count - 2 : (uint32_t)u;
    const float f = (float)(u - i);
    const vks_travel a = rm->samples[i], b = rm->samples[i + 1];
    return (vks_travel){a.yaw + (b.yaw - a.yaw) * f, a.x + (b.x - a.x) * f, a.z + (b.z - a.z) * f};
}

/* a applied n times (n may be negative). */
static vks_travel travel_power(vks_travel a, int64_t n)
{
    if (n < 0) {
        a = vks_travel_inverse(a);
        n = -n;
    }
    vks_travel out = {0.0f, 0.0f, 0.0f};
    for (; n > 0; n >>= 1) {
        if (n & 1)
            out = vks_travel_then(out, a);
        a = vks_travel_then(a, a);
    }
    return out;
}

vks_travel vks_travel_between(const vks_model *m, uint32_t clip, double t0, double step)
{
    const double d = m->clips[clip].duration;
    const vks_root_motion *rm = &m->root_motion[clip];
    const double t1 = t0 + step;
    const double k0 = floor(t0 / d), k1 = floor(t1 / d);
    const vks_travel from = vks_travel_at(m, clip, t0 - k0 * d);
    const vks_travel to = vks_travel_at(m, clip, t1 - k1 * d);
    const vks_travel loops = travel_power(rm->samples[rm->sample_count - 1], (int64_t)(k1 - k0));
    return vks_travel_then(vks_travel_inverse(from), vks_travel_then(loops, to));
}
