/* What the public API's files share: the handles' insides and the error helpers. */
#ifndef VKS_API_H
#define VKS_API_H

#include "vkskin/vkskin.h"

#include "core/pool.h"
#include "scene/crowd.h"
#include "scene/palette_store.h"
#include "scene/prepare.h"

struct vkskin_model {
    vks_model model;
    float lo[3], hi[3]; /* the bind pose's box, palette space */
};

struct vkskin_crowd {
    vks_crowd crowd;
    vks_pool *pool; /* NULL for one thread */
    uint32_t workers;
    vks_crowd_instance *start; /* the instances as created (vkskin_crowd_reset) */
    uint32_t start_count;
    /* The box the framing views fit (scene/camera.h): every instance's bounds, grown as
     * instances are placed (a bound, not the tightest, after vkskin_crowd_set_world). */
    float frame_lo[3], frame_hi[3];
    vks_anim_lod anim_lod; /* what its frames' animation level of detail keeps (prepare.h) */
    /* The crowd's renderer, if one lives: one at a time (its animation schedule, its palette
     * store and the instances placed anew are the renderer's). */
    bool rendered;
};

/* A prepare desc (its view given) checked and translated into the CPU half's job, on `pool`
 * unless desc.one_thread; `call` names the public call in the messages. */
vkskin_result vks_api_prepare_job(const vkskin_prepare_desc *desc, const char *call, vks_pool *pool,
                                  vks_prepare_job *job, vkskin_error *err);

struct vkskin_palette_store {
    vks_palette_store store;
    const struct vkskin_crowd *crowd;
};

/* A crowd desc's models and instance count, checked (1 to VKSKIN_MAX_MODELS models, none NULL;
 * 1 to VKSKIN_MAX_INSTANCES instances; `fn` names the call in the message), and its models as
 * the engine's into models[]. */
vkskin_result vks_api_crowd_models(const vkskin_crowd_desc *desc, const char *fn,
                                   const vks_model **models, vkskin_error *err);

/* A desc as the caller's headers laid it out (its desc_size, the first field) read into this
 * library's layout (the ABI policy, docs/library.md): desc_size bytes of it copied over zeros,
 * so fields newer than the caller's headers take their defaults. Refused, with a message, when
 * desc_size is below the field itself (it was not set) or when bytes past this library's layout
 * are not zero (fields from newer headers that this library would ignore). *desc (NULL left
 * alone) then points to `copy`. */
vkskin_result vks_api_desc(const char *call, const char *type, const void **desc, void *copy,
                           size_t known, vkskin_error *err);
#define VKS_API_DESC(call, desc, copy, err)                                                        \
    vks_api_desc(call, #desc, (const void **)&(desc), (copy), sizeof *(copy), err)

/* Fills err (when not NULL) with the message and `result`, and returns `result`. */
vkskin_result vks_api_fail(vkskin_error *err, vkskin_result result, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* An engine failure under the result its kind says: VKSKIN_ERROR_OUT_OF_MEMORY for memory,
 * VKSKIN_ERROR_ARGUMENT for usage, `failed` for the rest (what the call reports by default). */
vkskin_result vks_api_fail_from(vkskin_error *err, const vks_error *e, vkskin_result failed);
/* Clears err (when not NULL) and returns VKSKIN_OK. */
vkskin_result vks_api_ok(vkskin_error *err);

#endif
