#include "pack.h"
#include "../core/alloc.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

void vks_packed_free(vks_packed *p)
{
    if (!p)
        return;
    vks_free(p->positions);
    vks_free(p->normals);
    vks_free(p->tangents);
    vks_free(p->weights);
    vks_free(p->weights_extra);
    vks_free(p->morph);
    vks_free(p->morph_steps);
    vks_free(p);
}

/* Each target's deltas with its steps (quant.h), decoded back into the model's morph streams. */
static void pack_morphs(vks_model *m, vks_packed *p)
{
    for (uint32_t t = 0; t < m->target_count; t++) {
        const vks_morph_target *tg = &m->targets[t];
        const size_t d = tg->delta_first;
        float(*pos)[3] = m->morph_positions + d;
        float(*nrm)[3] = m->morph_normals ? m->morph_normals + d : NULL;
        float(*tan)[3] = m->morph_tangents ? m->morph_tangents + d : NULL;
        vks_quant_morph_steps((const float(*)[3])pos, (const float(*)[3])nrm,
                              (const float(*)[3])tan, tg->vertex_count, p->morph_steps[t]);
        for (uint32_t v = 0; v < tg->vertex_count; v++) {
            float dn[3], dt[3];
            vks_quant_morph(pos[v], nrm ? nrm[v] : NULL, tan ? tan[v] : NULL, p->morph_steps[t],
                            p->morph[d + v]);
            vks_dequant_morph(p->morph[d + v], p->morph_steps[t], pos[v], dn, dt);
            if (nrm)
                memcpy(nrm[v], dn, sizeof dn);
            if (tan)
                memcpy(tan[v], dt, sizeof dt);
        }
    }
}

bool vks_model_pack(vks_model *m, vks_error *err)
{
    if (m->packed)
        return true;
    const size_t n = m->vertex_count;
    const bool wide = m->weights_extra != NULL;
    vks_packed *p = vks_calloc(1, sizeof *p);
    bool ok = p && (p->positions = vks_malloc(sizeof *p->positions * (n ? n : 1))) &&
              (p->normals = vks_malloc(sizeof *p->normals * (n ? n : 1))) &&
              (p->weights = vks_malloc(sizeof *p->weights * (n ? n : 1))) &&
              (!m->tangents || (p->tangents = vks_malloc(sizeof *p->tangents * (n ? n : 1)))) &&
              (!wide || (p->weights_extra = vks_malloc(sizeof *p->weights_extra * (n ? n : 1)))) &&
              (!m->target_count ||
               ((p->morph = vks_malloc(sizeof *p->morph * (m->morph_delta_count + 1))) &&
                (p->morph_steps = vks_malloc(sizeof *p->morph_steps * m->target_count))));
    if (!ok) {
        vks_packed_free(p);
        return vks_fail_memory(err, "out of memory");
    }
    p->box = vks_quant_box_of((const float(*)[3])m->positions, m->vertex_count);
    /* Every decoded position must be finite: bounds wider than a float holds are refused. */
    float corner[3];
    vks_dequant_position(&p->box, (const uint16_t[4]){65535, 65535, 65535, 0}, corner);
    for (int k = 0; k < 3; k++)
        if (!isfinite(corner[k]) || !isfinite(p->box.offset[k])) {
            vks_packed_free(p);
            return vks_fail(err, "%s: its positions span more than a float holds", m->name);
        }
    for (size_t v = 0; v < n; v++) {
        vks_quant_position(&p->box, m->positions[v], p->positions[v]);
        vks_dequant_position(&p->box, p->positions[v], m->positions[v]);
        p->normals[v] = vks_quant_oct(m->normals[v]);
        vks_dequant_oct(p->normals[v], m->normals[v]);
        if (m->tangents) {
            p->tangents[v] = vks_quant_tangent(m->tangents[v]);
            vks_dequant_tangent(p->tangents[v], m->tangents[v]);
        }
        /* All of a vertex's weights together, so that they sum to exactly 1 after decoding. */
        float w[VKS_WIDE_INFLUENCES];
        uint16_t q[VKS_WIDE_INFLUENCES];
        const uint32_t count = wide ? VKS_WIDE_INFLUENCES : VKS_MAX_INFLUENCES;
        for (uint32_t k = 0; k < count; k++)
            w[k] = k < VKS_MAX_INFLUENCES ? m->weights[v][k]
                                          : m->weights_extra[v][k - VKS_MAX_INFLUENCES];
        vks_quant_weights(w, count, q);
        for (uint32_t k = 0; k < count; k++) {
            float decoded = vks_dequant_unorm16(q[k]);
            if (k < VKS_MAX_INFLUENCES) {
                p->weights[v][k] = q[k];
                m->weights[v][k] = decoded;
            } else {
                p->weights_extra[v][k - VKS_MAX_INFLUENCES] = q[k];
                m->weights_extra[v][k - VKS_MAX_INFLUENCES] = decoded;
            }
        }
    }
    pack_morphs(m, p);
    m->packed = p;
    return true;
}
