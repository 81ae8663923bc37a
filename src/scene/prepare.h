/* A frame's CPU half, the one sequence that vkskin_crowd_prepare, vkskin_crowd_prepare_store and
 * the owned renderer's frame (render/renderer.h) run: the crowd culled against the view, each
 * visible instance's level of detail and posing period chosen, the frame's poses scheduled, the
 * palette store's blocks dealt (with a store), and the scheduled instances posed, on the crowd's
 * pool. Its callers check their arguments; what it is given is valid.
 *
 *   vks_prepare_fit(crowd, &anim_lod, store, err);    room for the crowd as it is now
 *   vks_lod_view lod = vks_lod_view_of(view_proj, eye, height, ..);
 *   vks_prepared n = vks_prepare_palettes(crowd, &anim_lod, &job, visible, levels, palettes);
 *        or, with a palette store (palette_store.h):
 *   vks_prepared n = vks_prepare_store(crowd, &anim_lod, store, &job, visible, levels, staging);
 */
#ifndef VKS_PREPARE_H
#define VKS_PREPARE_H

#include "crowd.h"
#include "palette_store.h"

/* The animation level of detail's state from frame to frame: each visible entry's posing period
 * and the frames prepared so far, whose count staggers the periods (vks_crowd_animate). The
 * schedule (which entries this frame poses) is the crowd's (vks_crowd.schedule). */
typedef struct vks_anim_lod {
    uint8_t *periods; /* per visible entry: the frames between its poses (1, 2, 4 or 8) */
    uint32_t room;    /* the entries it has room for */
    uint64_t frame;   /* the frames prepared so far */
} vks_anim_lod;

/* Room for what a frame of `crowd` keeps with the animation level of detail: periods for every
 * index, the crowd's schedule, and without a store the crowd's kept poses (vks_crowd_keep_poses;
 * a store keeps them itself). Call before each frame: a crowd grows (the crowd grows its own
 * arrays). False, with a message, when out of memory. */
bool vks_prepare_fit(vks_crowd *crowd, vks_anim_lod *anim_lod, bool store, vks_error *err);
void vks_anim_lod_free(vks_anim_lod *anim_lod);

/* The level-of-detail view of a camera: view_proj is P V (column-major), P a perspective (clip
 * w = -z of the view) and V rigid, seen `height` pixels tall. The clip y row's length is P's
 * focal scale 1 / tan(fov_y / 2), and the pixels per unit at distance 1 are half of it times the
 * height. force: -1 to choose levels, else that level for all. */
vks_lod_view vks_lod_view_of(const float view_proj[16], const float eye[3], uint32_t height,
                             float max_error_px, int32_t force, float raster_area_px);

/* What a frame's CPU half is asked. */
typedef struct vks_prepare_job {
    float view_proj[4][4]; /* what the crowd is culled against */
    vks_lod_view lod;      /* vks_lod_view_of */
    bool anim_lod;         /* pose far instances less often (else every visible one) */
    bool reuse_palettes;   /* vks_crowd_animate's `reuse`: the caller's buffers, in turn */
    uint8_t *raster;       /* per visible entry: to the compute rasterizer (NULL: none chosen) */
    vks_pool *pool;        /* NULL: on the calling thread */
} vks_prepare_job;

/* What a frame's CPU half did. */
typedef struct vks_prepared {
    uint32_t visible; /* entries listed (with a store: those it kept) */
    uint32_t posed;   /* of them, posed this frame */
    uint32_t dropped; /* listed but past the store's room: not drawn */
    uint64_t palette_bytes, posed_joints;
} vks_prepared;

/* Culls the crowd into visible[] (room for its instance_count), chooses levels into levels[]
 * (NULL: none; the poses are then of every joint) and, with job->anim_lod, periods; poses the
 * frame's scheduled instances into `palettes` at each one's palette_first and copies the others'
 * kept poses there (vks_crowd_animate). vks_prepare_fit first. */
vks_prepared vks_prepare_palettes(vks_crowd *crowd, vks_anim_lod *anim_lod,
                                  const vks_prepare_job *job, uint32_t *visible, uint8_t *levels,
                                  vks_bone *palettes);
/* The same with a palette store: the store deals the frame's slots (vks_palette_store_frame:
 * visible[] keeps the entries it has room for) and the instances to pose are posed into
 * `staging` at the store's pose_first (room for the store's capacity). */
vks_prepared vks_prepare_store(vks_crowd *crowd, vks_anim_lod *anim_lod, vks_palette_store *store,
                               const vks_prepare_job *job, uint32_t *visible, uint8_t *levels,
                               vks_bone *staging);
/* The same in two halves, for a renderer that grows its store between them
 * (vks_palette_store_wanted on the list): the culling and the levels into visible[] and levels[]
 * (and job->raster's marks), returning how many are listed; then the store's dealing of those
 * and the posing into `staging`. */
uint32_t vks_prepare_store_list(vks_crowd *crowd, vks_anim_lod *anim_lod,
                                const vks_prepare_job *job, uint32_t *visible, uint8_t *levels);
vks_prepared vks_prepare_store_place(vks_crowd *crowd, vks_palette_store *store,
                                     const vks_prepare_job *job, uint32_t *visible, uint8_t *levels,
                                     uint32_t listed, vks_bone *staging);

#endif
