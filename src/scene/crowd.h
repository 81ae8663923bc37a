/* A crowd: N instances of one or more models, placed on a grid or a ring, each playing its own
 * clip from its own time offset at its own speed. This is the CPU side of every frame:
 *
 *   vks_crowd_advance(&c, pool, dt);                            the clocks
 *   n = vks_crowd_cull(&c, pool, view_proj, visible);           the instances in the frustum
 *   vks_crowd_palettes(&c, pool, visible, n, palette);          their palettes
 *
 * Each step runs on the pool's threads (NULL: the caller's alone), with the same result.
 *
 * It knows nothing of Vulkan: `visible` and `palette` are caller memory (mapped GPU buffers).
 * A crowd is created grouped by model (model m's instances [model_first[m], model_first[m + 1])),
 * and changes after: instances added (vks_crowd_add: a removed index first, else a new one at the
 * end, the arrays growing as needed), removed (their index free; no other index changes) and
 * given another model (vks_crowd_set_model). A frame groups its visible list by model itself
 * (render/frame_plan.h). */
#ifndef VKS_CROWD_H
#define VKS_CROWD_H

#include "../anim/sampler.h"
#include "../asset/model.h"
#include "../skin/morph.h"
#include "../core/pool.h"
#include "../../shaders/vks_shared.h"

/* p carried by a column-major 4x4 affine transform (an instance's world, a root transform). */
static inline void vks_transform_point(const float m[4][4], const float p[3], float out[3])
{
    for (int r = 0; r < 3; r++)
        out[r] = m[0][r] * p[0] + m[1][r] * p[1] + m[2][r] * p[2] + m[3][r];
}

#define VKS_CROWD_MAX_MODELS 16u
/* vks_crowd.model_of of a removed index. */
#define VKS_CROWD_REMOVED 0xFFu
/* Instances per crowd: 2^24 keeps every count and index far from 32-bit overflow; memory runs out
 * long before (100 000 CesiumMan need 6 GB of skinned vertices). */
#define VKS_CROWD_MAX_INSTANCES (1u << 24)
/* A per-model clip that gives each instance its own: instance k of a model plays clip
 * k mod clip_count (the bind pose for a model without clips). */
#define VKS_CROWD_VARIED_CLIP (-2)

typedef enum vks_crowd_layout {
    VKS_CROWD_GRID, /* rows and columns on the ground plane (y = 0), centred on the origin,
                       headings at random (instance 0's is 0) */
    VKS_CROWD_RING, /* a circle around the origin, every instance facing its centre (its model's
                       +Z, glTF's forward, turned towards the origin) */
} vks_crowd_layout;

typedef struct vks_crowd_desc {
    const vks_model *const *models; /* 1 .. VKS_CROWD_MAX_MODELS, kept by pointer */
    uint32_t model_count;
    const int32_t *clips;    /* per model: a clip index, -1 (bind pose) or VKS_CROWD_VARIED_CLIP;
                                NULL: VKS_CROWD_VARIED_CLIP for every model */
    uint32_t instance_count; /* 1 .. VKS_CROWD_MAX_INSTANCES; spots are dealt to the models in
                                turn (spot k gets model k mod model_count) */
    vks_crowd_layout layout;
    double time;      /* seconds: instance 0's clock at the start */
    uint32_t threads; /* the pool's thread count (per-thread scratch); 0 means 1 */
    uint32_t seed;    /* of the offsets, speeds and headings; the same seed, the same crowd */
    bool keep_poses;  /* keep every instance's last palette (animation level of detail) */
    /* Every model scaled to the first one's height (the box over its bind pose and clips, in the
     * world after its root transform) and lifted to stand on the ground (its lowest point at
     * y = 0): models in other units (a fox 80 units tall beside 1.8-unit humans) side by side. */
    bool normalize;
    /* Every model skinned with dual quaternions (skin/dqs.h): its palettes written as vks_dq,
     * each model checked first (vks_dq_check_model: uniform, positive scale only). */
    bool dual_quaternion;
    /* Every instance plays its clips with root motion (vks_crowd_set_root_motion). */
    bool root_motion;
} vks_crowd_desc;

typedef struct vks_crowd_instance {
    /* What culling, the levels of detail and the animation schedule read, first: each pass over
     * a large crowd then touches one cache line of each instance it visits, not two. */
    float center[3], radius; /* bounding sphere in world space, over every clip's motion */
    float scale;             /* the world transform's largest axis scale */
    uint32_t model;
    uint8_t level; /* the level of detail it was drawn at last (vks_crowd_choose) */
    /* The level its last pose was computed for: only that level's joints (a coarser level's
     * skeleton, bake/skeleton_lod.h) are in it, so a finer level must pose again. */
    uint8_t posed_level;
    uint8_t hidden; /* left out of culling (vkskin_crowd_set_shown): never listed, posed or drawn */
    uint8_t removed; /* vks_crowd_remove: a free index (hidden too) until vks_crowd_add reuses it */
    /* Its clips play with root motion (vks_crowd_set_root_motion): posed in place, the instance
     * moved by their travel as its clocks run. */
    uint8_t root_motion;
    /* Moved by the crowd at `velocity` (vks_crowd_set_velocities): its locomotion clips chosen,
     * blended and time-warped by its speed (crowd_motion.c); `blend` while two of them are
     * blended (from_clip and clip, phase-matched, fade_left holding the weight). */
    uint8_t driven, blend;
    /* Its world is a placement on the ground times its model's placed (vks_crowd.model_placed):
     * T(position) Ry(heading) S(scale) * placed, as the crowd's layout, its batch placements, the
     * velocities and root motion leave it; 0 for one placed any other way (vks_crowd_set_world,
     * vks_crowd_add). What the renderer uploads as a place record (vks_place_record). */
    uint8_t placed;
    uint8_t splat; /* drawn as its far splat last time (vks_crowd_choose) */
    /* Animation level of detail (vks_crowd_animate): the frames it was last posed and last
     * seen; UINT64_MAX for never. */
    uint64_t posed_frame, seen_frame;
    /* The clock (vks_crowd_advance). */
    int32_t clip; /* -1: bind pose */
    float speed;  /* clock rate: 1 for instance 0 of each layout, 0.8 .. 1.25 for others */
    double time;  /* seconds into the clip (looping) */
    double from_time, fade, fade_left;
    int32_t from_clip; /* the clip fading out while fade_left > 0 (vks_crowd_switch_clip) */
    int32_t held_clip; /* the clip vks_crowd_bind_pose(.., false, ..) goes back to */
    float velocity[2]; /* world units a second on the ground (x, z), when driven */
    /* Palette space -> world, column-major: the spot's placement (heading about +Y, then the
     * translation) times the model's root transform (inverse of skeleton.root_inverse). A crowd
     * of one sits at the origin with heading 0, so its world is the root transform. */
    float world[4][4];
} vks_crowd_instance;

typedef struct vks_crowd {
    const vks_model *models[VKS_CROWD_MAX_MODELS];
    uint32_t model_count;
    /* Per model: skinned with dual quaternions (desc.dual_quaternion): an instance's palette is
     * vks_dq entries packed from its range's start (vks_crowd_written_entries). */
    bool dq[VKS_CROWD_MAX_MODELS];
    uint32_t model_first[VKS_CROWD_MAX_MODELS + 1]; /* as created (not kept after) */
    /* Per model: its root transform as the file has it (palette space -> the model's frame, the
     * one root motion travels in), and its inverse. */
    float model_root[VKS_CROWD_MAX_MODELS][4][4], model_root_inverse[VKS_CROWD_MAX_MODELS][4][4];
    /* Per model: what an instance's placement multiplies, the root transform with the height's
     * normalisation (desc.normalize), and its inverse: world = placement * placed. */
    float model_placed[VKS_CROWD_MAX_MODELS][4][4],
        model_placed_inverse[VKS_CROWD_MAX_MODELS][4][4];
    /* Per model: its locomotion clips (vks_clip.ground_speed > 0), slowest first, and the
     * direction they move in (the slowest's ground_dir, the model's frame): what a driven
     * instance faces along its velocity. */
    uint32_t gait_count[VKS_CROWD_MAX_MODELS];
    int32_t *gaits[VKS_CROWD_MAX_MODELS];
    float forward[VKS_CROWD_MAX_MODELS][2];
    /* Per model, palette space: the box around the bind pose and every clip (8 samples each; the
     * clips' copies in place too, for the models with root motion). */
    float model_lo[VKS_CROWD_MAX_MODELS][3], model_hi[VKS_CROWD_MAX_MODELS][3];
    /* Per model and level: the mean area of its triangles in the bind pose, palette units
     * squared (the model's units brought to palette space by the ratio of the two boxes'
     * diagonals: approximate where the clips widen the box). What vks_crowd_choose sends to
     * the compute rasterizer by. */
    float triangle_area[VKS_CROWD_MAX_MODELS][VKS_MAX_LEVELS];
    /* Per model: its coarsest level's triangles over its far splat's outline area (palette units
     * squared; 0 without a splat), what vks_crowd_choose weighs against the pixels. */
    float splat_weight[VKS_CROWD_MAX_MODELS];

    /* Indices in use: live instances and removed ones (free indices, vks_crowd_remove), in
     * [0, instance_count); the per-instance arrays have room for instance_capacity. */
    uint32_t instance_count, instance_capacity;
    uint32_t live_count; /* instances not removed */
    bool root_motion;    /* desc.root_motion: what instances added later play with */
    vks_crowd_instance *instances;
    /* Per instance: its first palette entry, and the entries its range holds
     * (vks_crowd_range_entries of its model: its pose and its morph targets' active list, at
     * least its joint count). At creation the ranges follow one another (a prefix sum); an
     * instance added, or given a model whose range is larger than its own, gets a range at the
     * end (vks_crowd_set_model), and the ranges are packed again when more than half of the
     * entries lie unused. */
    uint32_t *palette_first, *palette_room;
    uint32_t palette_count; /* palette entries in use: every range ends below it */
    uint32_t
        palette_capacity; /* entries the per-entry arrays (cursors, kept poses) have room for */
    /* Per instance: its model (instances[i].model), or VKS_CROWD_REMOVED, one byte each: what a
     * frame's passes over a visible list read (render/frame_plan.h), and what checking a caller's
     * list for removed indices reads, not the instance's 200-byte record. */
    uint8_t *model_of;
    /* Removed indices, the last removed on top: vks_crowd_add takes them first. */
    uint32_t *free_indices;
    uint32_t free_count;
    float lo[3], hi[3]; /* world-space box around every instance's sphere */

    /* Private: per model, a sampler (anim/sampler.h) for each clip and the bind pose, at clip + 1;
     * segments NULL where a clip would take too much memory resampled (sampled directly then).
     * Key cursors: the samplers' (one per instance) and the direct path's (2 x vks_cursor_size
     * per instance, at 6 * palette_first: the clip and the one fading out), which poses
     * cross-fades. Per-thread scratch for the pose (the direct path's local, local_from and model
     * transforms, the sampler's scratch, for the largest skeleton). */
    vks_sampler *samplers[VKS_CROWD_MAX_MODELS];
    /* Per model with a skeleton level of detail (model->pose_order): its skeleton in pose order
     * (parents as positions), which its samplers are built on, so that an instance at a level
     * poses the prefix its level keeps (then placed at the joints' own entries). */
    vks_skeleton pose_skeletons[VKS_CROWD_MAX_MODELS];
    uint32_t *sampler_cursors;
    uint32_t *cursors;
    uint32_t threads;
    void *scratch;
    /* desc.keep_poses: each instance's last palette (palette_first order), and per visible entry
     * 1 where this frame poses it (vks_crowd_schedule), 0 where its kept pose is copied. */
    vks_bone *poses;
    uint8_t *schedule;
    /* vks_crowd_animate with `reuse`: the last VKS_CROWD_DESTINATIONS palette buffers it wrote,
     * and for each, per instance, the pose it holds (the instance's posed_frame then; UINT64_MAX:
     * none), the least recently used replaced by a new buffer. */
    struct vks_crowd_destination {
        const vks_bone *palette;
        uint64_t *held;
        uint64_t used;
    } destinations[2];
    uint64_t destination_clock; /* counts their uses (0: none yet) */
    uint64_t destination_frame; /* the frame of the last use */
    /* Culling on a pool (vks_crowd_cull, whose crowd is otherwise read only): each chunk's
     * visible instances, at the chunk's own place, and how many each chunk found. */
    uint32_t *cull_scratch, *cull_counts;
    /* (The clocks on a pool, vks_crowd_advance, reuse the culling's scratch for each chunk's
     * instances that travelled or were driven.) */
    /* Instances placed anew (vks_crowd_set_world, a reset) since a renderer last took them
     * (vks_crowd_clear_moved): moved[0 .. moved_count), each once (moved_mark). The renderer's
     * instance table follows them. Allocated at the first move. */
    uint32_t *moved;
    uint8_t *moved_mark;
    uint32_t moved_count;
} vks_crowd;

/* Instances a thread of the pool takes at a time in culling, levels of detail and clocks. */
#define VKS_CROWD_GRAIN 8192u

/* Builds the crowd: places the instances, gives each its clip, offset, speed and heading, and
 * computes the models' bounds by skinning them on the CPU. Fails with a message on a bad desc
 * (no models, too many instances, a clip out of range) or when out of memory. */
bool vks_crowd_create(const vks_crowd_desc *desc, vks_crowd *crowd, vks_error *err);
void vks_crowd_destroy(vks_crowd *crowd);
/* Spots are dealt to the models in turn: model m of model_count gets instance_count /
 * model_count of them, one more for the first instance_count % model_count. */
static inline uint32_t vks_crowd_dealt(uint32_t instance_count, uint32_t model_count, uint32_t m)
{
    return instance_count / model_count + (m < instance_count % model_count);
}
/* The vec4s of an instance's pose in its palette range: a joint's 3x4 matrix (vks_bone, 3 of
 * them), or with dual quaternions its 32-byte vks_dq (2), packed from the range's start. */
static inline uint32_t vks_crowd_pose_vec4s(const vks_model *model, bool dq)
{
    return (dq ? 2u : 3u) * model->skeleton.joint_count;
}
/* The palette entries (vks_bone, 48 bytes each) that pose fills: its joints, or with dual
 * quaternions 2/3 of them. */
static inline uint32_t vks_crowd_pose_entries(const vks_model *model, bool dq)
{
    return (vks_crowd_pose_vec4s(model, dq) + 2) / 3;
}
/* The entries an instance of `model` writes each time it is posed: its pose, then the active
 * list of its morph targets (skin/morph.h) when the model has any. */
static inline uint32_t vks_crowd_model_written(const vks_model *model, bool dq)
{
    return vks_crowd_pose_entries(model, dq) + vks_morph_entries(model);
}
/* The same for the crowd's model m. */
static inline uint32_t vks_crowd_written_entries(const vks_crowd *c, uint32_t m)
{
    return vks_crowd_model_written(c->models[m], c->dq[m]);
}
/* The entries an instance's range holds: what it writes, and at least an entry per joint (the
 * key cursors and the kept poses are laid out by them). */
static inline uint32_t vks_crowd_range_entries(const vks_model *model, bool dq)
{
    const uint32_t written = vks_crowd_model_written(model, dq);
    return written > model->skeleton.joint_count ? written : model->skeleton.joint_count;
}

/* The palette entries (every instance's range, as linear blending lays it out: dual quaternions
 * take at most as many) of a crowd dealt so. */
uint64_t vks_crowd_palette_entries(const vks_model *const *models, uint32_t model_count,
                                   uint32_t instance_count);
/* Bytes of host memory vks_crowd_create would allocate for `instance_count` instances of the
 * models (dealt in turn) that grow with the crowd, the kept poses included with keep_poses: what
 * to check before asking for them. */
uint64_t vks_crowd_host_bytes(const vks_model *const *models, uint32_t model_count,
                              uint32_t instance_count, bool keep_poses);

/* ---- Instances that come and go ---- */

/* Adds an instance of model `model` at `world` (palette space -> world, affine), in the bind
 * pose, its clock at 0 and speed 1, shown: at the last removed index when there is one, else at
 * instance_count (the arrays grow by doubling). *instance gets its index. Listed as moved. False,
 * with a message, for a model out of range or when out of memory (the crowd unchanged). */
bool vks_crowd_add(vks_crowd *crowd, uint32_t model, const float world[4][4], uint32_t *instance,
                   vks_error *err);
/* Removes instance i (not removed): it is hidden and its index free, for vks_crowd_add to reuse;
 * no other index changes. False, the instance as it was, when out of memory for the free list. */
bool vks_crowd_remove(vks_crowd *crowd, uint32_t i);
/* Instance i (not removed) shows model `model` from now on, in its bind pose (clip -1, clock 0),
 * where it stands; its palette range moves to the end when the model has more joints than the
 * range holds. Listed as moved. False, with a message, for a model out of range or when out of
 * memory (the instance unchanged). */
bool vks_crowd_set_model(vks_crowd *crowd, uint32_t i, uint32_t model, vks_error *err);
/* The crowd back to `count` instances as `start` holds them (records of its first instances, as
 * created): each takes its record, those past `count` are removed, and the palette ranges are
 * packed again for the models they now show. Every instance listed as moved. False when out of
 * memory (the crowd as it was). */
bool vks_crowd_restore(vks_crowd *crowd, const vks_crowd_instance *start, uint32_t count,
                       vks_error *err);

/* Keeps the schedule (vks_crowd.schedule) from now on, grown with the crowd (idempotent). */
bool vks_crowd_keep_schedule(vks_crowd *crowd, vks_error *err);
/* Keeps every instance's last palette from now on, as desc.keep_poses, and the schedule
 * (idempotent). */
bool vks_crowd_keep_poses(vks_crowd *crowd, vks_error *err);

/* How many of the models' clips and bind poses pose through a sampler (anim/sampler.h; the rest
 * are sampled directly), of `total`, and the instruction set the samplers use. */
uint32_t vks_crowd_sampled_clips(const vks_crowd *crowd, uint32_t *total, vks_sampler_isa *isa);

/* Moves every clock forward by dt seconds (times each instance's speed), looping within its clip,
 * and runs the cross-fades down, VKS_CROWD_GRAIN instances a thread of the pool at a time. An
 * instance playing with root motion moves by its clips' travel between its clocks (a loop adds
 * the clip's whole travel; during a cross-fade the two travels blended by the pose's weight)
 * and is listed as moved; the crowd's box grows to hold it. */
void vks_crowd_advance(vks_crowd *crowd, vks_pool *pool, double dt);

/* Instance i plays its clips with root motion from now on (on), or as authored (off). Its
 * placement takes in the current travel so that it stays where it is seen: on, it moves to where
 * its clip has carried it and poses in place; off, it goes back to its clip's start and poses as
 * authored. False, leaving it as it was, when out of memory for the moved list. */
bool vks_crowd_set_root_motion(vks_crowd *crowd, uint32_t i, bool on);

/* Every instance steps `delta` clips (mod its model's clip count) and cross-fades into it over
 * `fade` seconds from its current pose. Models without clips stay in the bind pose. */
void vks_crowd_switch_clip(vks_crowd *crowd, int32_t delta, double fade);

/* Instance i cross-fades from its current pose into `clip` (-1: the bind pose; else below its
 * model's clip count), played from its start, over `fade` seconds (0, negative or NaN: at once).
 * The clip it already plays restarts at once. */
void vks_crowd_play(vks_crowd *crowd, uint32_t i, int32_t clip, double fade);

/* Places instance i: palette space -> world (column-major, affine). Its bounding sphere and scale
 * follow, and the crowd's box grows to hold the sphere (it stays a bound, not the tightest). */
/* False, leaving the instance where it was, when out of memory for the moved list. */
bool vks_crowd_set_world(vks_crowd *crowd, uint32_t i, const float world[4][4]);
/* Sets the listed instances' velocities (world units a second on the ground, x and z; list NULL:
 * instances first .. first + count - 1): each moves at its velocity from the next advance, facing
 * along it, its model's locomotion clips chosen by its speed (the two around it blended, their
 * phases kept equal so the feet land together), time-warped to it (rate = speed / ground speed)
 * and posed in place. A velocity of 0 stops it: it plays its own clip again. The values are
 * finite (the caller checks). False when out of memory for the moved list. */
bool vks_crowd_set_velocities(vks_crowd *crowd, const uint32_t *list, uint32_t first,
                              uint32_t count, const float (*velocity)[2]);
/* Places the listed instances (as vks_crowd_set_velocities lists them): on the ground plane at
 * positions[k] (world), turned by headings[k] radians about +Y (NULL: 0), scaled by scales[k]
 * (NULL: 1), times the model's placement (its root transform, normalised). Listed as moved; the
 * crowd's box grows to hold them. False when out of memory for the moved list. */
bool vks_crowd_set_placements(vks_crowd *crowd, const uint32_t *list, uint32_t first,
                              uint32_t count, const float (*positions)[3], const float *headings,
                              const float *scales);

/* Instance i's place record (its placed flag set): its placement read back from its world. */
vks_place_record vks_crowd_place_record(const vks_crowd *crowd, uint32_t i);

/* The moved instances were taken (a renderer's table has their worlds): the list empties. */
void vks_crowd_clear_moved(vks_crowd *crowd);

/* on: every instance cross-fades into the bind pose, holding its clip; off: back into the clip it
 * held (or the one it had at the start), from that clip's start. */
void vks_crowd_bind_pose(vks_crowd *crowd, bool on, double fade);

/* Writes the indices of the instances whose bounding sphere intersects the frustum of
 * `view_proj` (column-major, Vulkan clip space: 0 <= z <= w) into `visible`, ascending, and
 * returns their count. `visible` needs room for instance_count entries; each entry is written
 * once and never read (it may be write-combined memory). On a pool, each thread culls chunks of
 * VKS_CROWD_GRAIN instances into the crowd's scratch, then copies its chunks' finds to their
 * place. */
uint32_t vks_crowd_cull(const vks_crowd *crowd, vks_pool *pool, const float view_proj[4][4],
                        uint32_t *visible);

/* What choosing levels of detail needs of the camera and the user. */
typedef struct vks_lod_view {
    float eye[3];          /* world space */
    float pixels_per_unit; /* at distance 1: the image height / (2 tan(vertical fov / 2)) */
    float max_error_px;    /* a level's error may project to at most this many pixels */
    int32_t force;         /* -1: choose; else this level for every instance (its model's last
                              when it has fewer) */
    /* The compute rasterizer: an instance goes there when its level's mean triangle area
     * (vks_crowd.triangle_area, scaled to the instance) projects to at most this many square
     * pixels at the distance of its bounding sphere. 0 (or less): none does. */
    float raster_area_px;
    /* The far splat (bake/splat.h): with raster, an instance of a model with a splat whose
     * coarsest level would send more than this many triangles per pixel of its outline (the
     * splat's mean outline area, vks_splat.area, at the distance of its sphere's nearest point)
     * is drawn as its splat (raster mark VKS_RASTER_MARK_SPLAT, at its model's last level); it
     * goes back to its levels only once they send VKS_SPLAT_HYSTERESIS^2 times fewer. 0: none
     * is. */
    float splat_density;
} vks_lod_view;

/* Raster marks (vks_crowd_choose): the compute rasterizer's triangles, or the far splat. */
#define VKS_RASTER_MARK_TRIANGLES 1u
#define VKS_RASTER_MARK_SPLAT 2u
/* A splat goes back to triangles only once it projects this many times larger: a character
 * crossing the threshold at a walk switches once. */
#define VKS_SPLAT_HYSTERESIS 1.25f

/* A level goes coarser only once its error projects below this fraction of max_error_px, and
 * finer as soon as the current one's exceeds max_error_px: a camera moving slowly through a
 * boundary switches once, not back and forth. */
#define VKS_LOD_HYSTERESIS 0.8f

/* Animation level of detail: how often an instance is posed, by the radius its bounding sphere
 * projects to: every frame from VKS_ANIM_LOD_NEAR_PX pixels, every 2nd from VKS_ANIM_LOD_FAR_PX,
 * every 4th from VKS_ANIM_LOD_TINY_PX, every 8th below (a character under about 32 pixels tall
 * moves less than a pixel a frame; under 12, less than a pixel in 4 frames). */
#define VKS_ANIM_LOD_NEAR_PX 48.0f
#define VKS_ANIM_LOD_FAR_PX 16.0f
#define VKS_ANIM_LOD_TINY_PX 6.0f

/* What a frame decides per listed instance, in one pass over them on the pool's threads (each
 * record read once; the listed indices are instances, distinct):
 * - levels (may be NULL): the coarsest level of its model whose error (palette space,
 *   bake/lod_error.h), scaled by the instance's world scale, projects to at most max_error_px
 *   pixels at the distance from the eye to its bounding sphere (level 0 when the eye is inside
 *   it), with the hysteresis above against the level it had last time, which it remembers
 *   (instance.level); levels NULL: the instance is at level 0 this frame (instance.level = 0, what
 *   the schedule compares its kept pose with). raster (may be NULL, read with levels only):
 *   raster[k] = VKS_RASTER_MARK_TRIANGLES when its level's triangles are small enough for the
 *   compute rasterizer (view->raster_area_px), VKS_RASTER_MARK_SPLAT when it is drawn as its
 *   far splat (view->splat_density; its level is then its model's last), else 0;
 * - periods (may be NULL): its posing period, 1, 2, 4 or 8 frames by the radius its sphere
 *   projects to (1 when the eye is inside it);
 * - schedule (may be NULL): vks_crowd_schedule of frame `frame` with that period.
 * Returns how many are posed (count without schedule). */
uint32_t vks_crowd_choose(vks_crowd *crowd, vks_pool *pool, const vks_lod_view *view,
                          const uint32_t *visible, uint32_t count, uint8_t *levels, uint8_t *raster,
                          uint8_t *periods, uint64_t frame, uint8_t *schedule);

/* vks_crowd_palettes with animation level of detail (crowd created with keep_poses): frame
 * `frame` (counting up by one a frame) poses listed instance i when its period is 1, when it was
 * not seen the frame before (newly visible, or first), or when (frame + i) is a multiple of its
 * period, staggering the work evenly over the frames; every other listed instance gets its last
 * palette copied from the kept ones, so the palette buffer holds every listed instance either
 * way. With `reuse`, the caller passes the same few buffers in turn (frames in flight) and leaves
 * them as the crowd wrote them: the crowd remembers which pose each of the last
 * VKS_CROWD_DESTINATIONS buffers holds for each instance and copies a kept pose only into a
 * buffer that lacks it, so that a kept pose costs nothing once both buffers hold it (frames
 * counted again from an earlier number make it forget, and write whole). periods
 * NULL: every instance posed (as vks_crowd_palettes; the buffers' memory is forgotten).
 * *palette_bytes (may be NULL) gets the bytes written into `palette`. Returns how many were
 * posed. */
#define VKS_CROWD_DESTINATIONS 2u
/* The schedule of vks_crowd_animate alone: schedule[k] = 1 for each listed instance frame `frame`
 * poses (its period 1, not seen the frame before, or its staggered turn; periods NULL: every
 * one), else 0; stamps each listed instance seen (and posed) at `frame`. Returns how many are
 * posed. What a caller that keeps the poses elsewhere (the renderer's palette store) decides by. */
uint32_t vks_crowd_schedule(vks_crowd *crowd, const uint32_t *visible, const uint8_t *periods,
                            uint32_t count, uint64_t frame, uint8_t *schedule);

/* A palette buffer was written by other means than vks_crowd_animate with reuse: it forgets what
 * every buffer holds (the next reuse writes them whole). */
void vks_crowd_forget_palettes(vks_crowd *crowd);
uint32_t vks_crowd_animate(vks_crowd *crowd, vks_pool *pool, const uint32_t *visible,
                           const uint8_t *periods, uint32_t count, uint64_t frame,
                           vks_bone *palette, bool reuse, uint64_t *palette_bytes);
/* The same, each instance posed for its level of detail, as vks_crowd_palettes_at with
 * at_levels: for a caller that chose the levels this frame and skins each instance at its. */
uint32_t vks_crowd_animate_at_levels(vks_crowd *crowd, vks_pool *pool, const uint32_t *visible,
                                     const uint8_t *periods, uint32_t count, uint64_t frame,
                                     vks_bone *palette, bool reuse, uint64_t *palette_bytes);

/* Samples the pose of each listed instance (cross-fades included) and writes its palette to
 * palette + palette_first[instance] (every joint), on every thread of the pool
 * (pool may be NULL: the caller's thread only; a pool of more than desc.threads threads has no
 * scratch for its extra threads and leaves the work to the caller's too). Instances not listed are
 * left alone; the listed indices must be distinct (those not below instance_count are skipped). */
void vks_crowd_palettes(vks_crowd *crowd, vks_pool *pool, const uint32_t *visible, uint32_t count,
                        vks_bone *palette);

/* vks_crowd_palettes into places the caller chooses: list[k]'s palette at dest + first[k] (a
 * staging buffer packed with the instances posed this frame), each entry written once (streamed
 * past a few MiB). The buffers vks_crowd_animate remembers are not touched. With at_levels, each
 * instance is posed for its level of detail (instance.level, chosen this frame): only the joints
 * the level keeps (bake/skeleton_lod.h), the level's vertices reading no other; else every
 * joint, as vks_crowd_palettes poses them. carrier (may be NULL): carrier[k] set, list[k] is a
 * far splat: only its model's splat carrier (vks_splat.joint) is written, one entry at
 * dest + first[k], from its pose at its level (its model's last). */
void vks_crowd_palettes_at(vks_crowd *crowd, vks_pool *pool, const uint32_t *list,
                           const uint32_t *first, uint32_t count, vks_bone *dest, bool at_levels,
                           const uint8_t *carrier);

/* Instance i's morph-target weights (its model's target_count into `weights`; `from`, as many, is
 * scratch): its clip's at its clock (vks_clip_weights; the bind pose: the targets' default
 * weights), during a cross-fade blended with the clip fading out by the pose's factor,
 * from + (weights - from) * u. What vks_crowd_palettes writes as its active list. */
void vks_crowd_weights(const vks_crowd *crowd, uint32_t i, float *weights, float *from);

/* Where instance i's joints are in the world at its pose (its model's joint_count origins), on
 * the calling thread through anim.h's direct path (the crowd's threads must be idle). */
void vks_crowd_joints(vks_crowd *crowd, uint32_t i, float (*out)[3]);

/* vks_crowd_palettes of visible[begin, end) on the calling thread, with the per-thread scratch of
 * `thread` (< desc.threads; one call per thread at a time): for a caller's own job system. */
void vks_crowd_palettes_range(vks_crowd *crowd, const uint32_t *visible, uint32_t begin,
                              uint32_t end, vks_bone *palette, uint32_t thread);

/* Profiling (the public vkskin_crowd_time_phases): sampling, local-to-model and palette timed
 * apart on the calling thread over the listed instances, each of `frames` samples running each
 * step `batch` times, then advancing the crowd 1/60 s; ms[] gets the medians per step. False when
 * out of memory. */
bool vks_crowd_time_phases(vks_crowd *crowd, const uint32_t *visible, uint32_t count,
                           uint32_t frames, uint32_t batch, vks_bone *palette, double ms[3]);

#endif
