/* The skinning pass's traffic from the streams' layout (traffic.h). */
#include "traffic.h"

/* Bind-stream bytes the skinning pass reads for one vertex of `m`, each stream once, from the
 * compact layout (shaders/vks_shared.h): position, normal, joints (8 or 16 bits each) and
 * weights; the tangent when the model has them; influences 5 to 8 when it is wide. */
static double bind_bytes_per_vertex(const vks_model *m)
{
    const double joints = m->skeleton.joint_count > VKS_JOINTS8_MAX ? VKS_BIND_JOINTS16_BYTES
                                                                    : VKS_BIND_JOINTS8_BYTES;
    return VKS_BIND_POSITION_BYTES + VKS_BIND_NORMAL_BYTES + joints + VKS_BIND_WEIGHTS_BYTES +
           (m->tangents ? VKS_BIND_TANGENT_BYTES : 0) +
           (m->joints_extra ? joints + VKS_BIND_WEIGHTS_BYTES : 0);
}

/* Output bytes the skinning pass writes for one vertex of `m`: the 16-byte skinned vertex, and
 * the tangent's word when the model has them. */
static double out_bytes_per_vertex(const vks_model *m)
{
    return VKS_SKINNED_STRIDE + (m->tangents ? VKS_TANGENT_STRIDE : 0);
}

/* What each figure counts: traffic.h. */
vks_traffic vks_skin_traffic(const vks_crowd *c, const uint32_t *list, const uint8_t *levels,
                             uint32_t count)
{
    vks_traffic t = {0};
    bool seen[VKS_CROWD_MAX_MODELS][VKS_MAX_LEVELS] = {{false}};
    for (uint32_t k = 0; k < count; k++) {
        if (!list && c->instances[k].removed) /* the whole crowd: its live instances */
            continue;
        const uint32_t model = c->instances[list ? list[k] : k].model,
                       level = levels ? levels[k] : 0;
        const vks_model *m = c->models[model];
        const uint32_t n = vks_model_level(m, level).vertex_count;
        /* A morphed model's morph buffer: each vertex's source word and, at most, every target's
         * record and deltas (a target not active for the instance reads nothing). */
        const double bind = bind_bytes_per_vertex(m) * n + (double)vks_morph_gpu_bytes(m, n);
        const double out = out_bytes_per_vertex(m) * n;
        /* Its palette (vks_dq when dual-quaternion skinned), its morph targets' active list and
         * its visible entry. */
        const double own =
            (c->dq[model] ? sizeof(vks_dq) : sizeof(vks_bone)) * m->skeleton.joint_count +
            (double)sizeof(vks_bone) * vks_morph_entries(m) + sizeof(vks_visible);
        t.stream_bytes += bind + out;
        t.logical_bytes += bind + out + own;
        t.memory_bytes += out + own + (seen[model][level] ? 0.0 : bind);
        seen[model][level] = true;
    }
    return t;
}
