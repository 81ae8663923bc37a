/* One character on the GPU and the frames that animate and draw it. The renderer owns the model's
 * buffers (uploaded once), the per-frame palette and uniform buffers, the command buffers, fences
 * and timestamp queries, and the skinning and draw passes. A frame is:
 *
 *   vks_frame *f = vks_renderer_begin_frame(r);   waits until the slot's last use finished
 *   vks_pose_palette(..., f->palette);            the animation writes the mapped palette
 *   vks_renderer_skin(r, f);                      compute pass + barrier to vertex input
 *   vks_renderer_draw(r, f, &target);             graphics pass into a window or offscreen image
 *   vks_renderer_submit(r, f, wait, signal, err);
 */
#ifndef VKS_RENDERER_H
#define VKS_RENDERER_H

#include "../asset/model.h"
#include "../draw/draw.h"
#include "../skin/skin_gpu.h"

typedef struct vks_renderer_desc {
    const vks_model *model;
    VkFormat color_format; /* of the targets vks_renderer_draw will draw into */
    uint32_t group_size;   /* of the skinning pass; 0 = VKS_SKIN_GROUP_SIZE */
    bool readback;         /* allow vks_renderer_copy_skinned (dump, tests) */
} vks_renderer_desc;

/* Times of a frame slot's previous use, read from its timestamp queries (ms; -1 when unknown). */
typedef struct vks_gpu_times {
    double skin_ms, draw_ms;
} vks_gpu_times;

typedef struct vks_frame {
    uint32_t slot;
    VkCommandBuffer cmd;
    VkFence fence;
    vks_bone *palette;            /* mapped, joint_count entries: write before vks_renderer_skin */
    vks_frame_uniforms *uniforms; /* mapped: write before submitting */
    vks_gpu_times times;          /* of this slot's previous frame */

    gpu_buffer palette_buffer, uniform_buffer;
    VkDescriptorSet skin_set, frame_set;
    VkCommandPool pool;
    VkQueryPool queries;
    uint32_t queries_written; /* bit i: timestamp i was written in the last recording */
} vks_frame;

typedef struct vks_renderer {
    const gpu_device *dev;
    const vks_model *model;
    vks_skin_pass skin;
    vks_draw_pass draw;

    /* Bind-pose streams and indices, device-local, uploaded once. */
    gpu_buffer positions, normals, tangents, joints, weights, uvs, indices;
    bool has_tangents; /* else `tangents` and `out_tangents` are 16-byte placeholders */
    /* The skinning pass's output, device-local; read as vertex attributes by the draw pass. */
    gpu_buffer out_vertices, out_tangents;
    gpu_buffer readback; /* host copy of out_vertices and out_tangents (desc.readback) */

    uint32_t texture_count;
    gpu_image *textures; /* the model's textures, then a 1x1 white one for untextured materials */
    VkDescriptorSet *material_sets;
    VkDescriptorPool descriptor_pool;

    vks_draw_params draw_params; /* world transform and its normal matrix; base color per mesh */
    vks_frame frames[GPU_FRAMES_IN_FLIGHT];
    uint64_t frame_number;
} vks_renderer;

bool vks_renderer_create(const gpu_device *dev, const vks_renderer_desc *desc, vks_renderer *r,
                         vks_error *err);
void vks_renderer_destroy(vks_renderer *r);

/* Waits for the next frame slot, reads its previous timestamps, begins its command buffer. */
vks_frame *vks_renderer_begin_frame(vks_renderer *r);
/* Records the skinning dispatch with the palette in f->palette, and the barriers around it. */
void vks_renderer_skin(vks_renderer *r, vks_frame *f);
/* Records the draw of every mesh into the target. */
void vks_renderer_draw(vks_renderer *r, vks_frame *f, const vks_draw_target *target);
/* Records a copy of the skinned output into the readback buffer, visible to the host once the
 * frame's fence signals (vks_renderer_read_skinned). */
void vks_renderer_copy_skinned(vks_renderer *r, vks_frame *f);
/* Ends and submits the frame. `wait` (may be null) is waited on at color output; `signal` (may be
 * null) is signalled when the frame completes. */
bool vks_renderer_submit(vks_renderer *r, vks_frame *f, VkSemaphore wait, VkSemaphore signal,
                         vks_error *err);
/* Waits for the frame's fence. */
bool vks_renderer_wait(vks_renderer *r, vks_frame *f, vks_error *err);
/* After vks_renderer_copy_skinned and vks_renderer_wait: the skinned vertices (vertex_count
 * entries) and tangents (NULL when the model has none). */
const vks_skinned_vertex *vks_renderer_skinned(const vks_renderer *r);
const float (*vks_renderer_skinned_tangents(const vks_renderer *r))[4];

/* Waits for the last submitted frame and returns its GPU times. */
vks_gpu_times vks_renderer_last_times(vks_renderer *r);

/* The model's world transform (the scene root's; palettes live in its frame), column-major. */
void vks_renderer_world(const vks_renderer *r, float world[4][4]);

#endif
