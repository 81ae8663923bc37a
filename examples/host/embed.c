/* examples/host/embed.c: vkskin inside a host's frame (docs/library.md shows this file). */
#include "embed.h"

/* Culls and poses the crowd on the CPU and records its skinning into the host's command buffer,
 * outside a render pass. Returns how many instances are in view (UINT32_MAX on failure). */
uint32_t embed_skin(vkskin_gpu *gpu, vkskin_crowd *crowd, uint32_t slot, VkCommandBuffer cmd,
                    const float view_proj[16], uint32_t *visible, uint32_t capacity,
                    vkskin_error *err)
{
    uint32_t shown = 0;
    if (vkskin_crowd_cull(crowd, view_proj, visible, capacity, &shown, err) ||
        vkskin_crowd_pose(crowd, visible, shown, vkskin_gpu_palettes(gpu, slot),
                          vkskin_crowd_palette_count(crowd), err) ||
        vkskin_gpu_skin(gpu, slot, cmd, visible, shown, NULL, err))
        return UINT32_MAX;
    return shown;
}

/* Draws one skinned instance with the host's pipeline bound, inside its render pass: its skinned
 * vertices as vertex buffer 0 (16 bytes each: position, octahedral normal), its model's UVs at
 * its level as vertex buffer 1 (8 bytes), each mesh after bind_material(user, mesh). */
vkskin_result embed_draw(const vkskin_gpu *gpu, uint32_t slot, VkCommandBuffer cmd,
                         uint32_t instance, uint32_t model, uint32_t mesh_count,
                         void (*bind_material)(void *user, uint32_t mesh), void *user,
                         vkskin_error *err)
{
    vkskin_gpu_output out;
    vkskin_gpu_uvs uvs;
    vkskin_result r = vkskin_gpu_get_output(gpu, slot, instance, &out, err);
    if (r != VKSKIN_OK || (r = vkskin_gpu_get_uvs(gpu, model, out.level, &uvs, err)) != VKSKIN_OK)
        return r;
    const VkBuffer buffers[2] = {out.buffer, uvs.buffer};
    const VkDeviceSize offsets[2] = {out.offset, uvs.offset};
    vkCmdBindVertexBuffers(cmd, 0, 2, buffers, offsets);
    for (uint32_t m = 0; m < mesh_count; m++) {
        vkskin_gpu_mesh mesh;
        if ((r = vkskin_gpu_get_mesh(gpu, model, out.level, m, &mesh, err)) != VKSKIN_OK)
            return r;
        bind_material(user, m);
        vkCmdBindIndexBuffer(cmd, mesh.index_buffer, 0, VK_INDEX_TYPE_UINT32);
        if (mesh.index_count)
            vkCmdDrawIndexed(cmd, mesh.index_count, 1, mesh.first_index, mesh.vertex_offset, 0);
    }
    return VKSKIN_OK;
}
