/* vkskin in a host's frame: the calls examples/host/main.c makes each frame (embed.c). */
#ifndef EMBED_H
#define EMBED_H

#include <vkskin/vkskin_vulkan.h>

uint32_t embed_skin(vkskin_gpu *gpu, vkskin_crowd *crowd, uint32_t slot, VkCommandBuffer cmd,
                    const float view_proj[16], uint32_t *visible, uint32_t capacity,
                    vkskin_error *err);
vkskin_result embed_draw(const vkskin_gpu *gpu, uint32_t slot, VkCommandBuffer cmd,
                         uint32_t instance, uint32_t model, uint32_t mesh_count,
                         void (*bind_material)(void *user, uint32_t mesh), void *user,
                         vkskin_error *err);

#endif
