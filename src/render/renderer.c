#include "renderer.h"

#include <cglm/mat4.h>

#include <assert.h>
#include <stdlib.h>
#include <string.h>

enum { QUERY_BEGIN, QUERY_SKINNED, QUERY_DRAWN, QUERY_COUNT };

static bool upload(vks_renderer *r, gpu_buffer *buf, const void *data, VkDeviceSize size,
                   VkBufferUsageFlags usage, const char *name, vks_error *err)
{
    return gpu_buffer_create_filled(
        r->dev, &(gpu_buffer_desc){.size = size, .usage = usage, .name = name}, data, buf, err);
}

static bool create_buffers(vks_renderer *r, const vks_renderer_desc *desc, vks_error *err)
{
    const vks_model *m = r->model;
    const VkDeviceSize n = m->vertex_count;
    const VkBufferUsageFlags storage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT;
    const VkBufferUsageFlags vertex = VK_BUFFER_USAGE_VERTEX_BUFFER_BIT;
    const float placeholder[4] = {0};
    r->has_tangents = m->tangents != NULL;
    if (!upload(r, &r->positions, m->positions, n * sizeof *m->positions, storage, "bind positions",
                err) ||
        !upload(r, &r->normals, m->normals, n * sizeof *m->normals, storage, "bind normals", err) ||
        !upload(r, &r->tangents, r->has_tangents ? (const void *)m->tangents : placeholder,
                r->has_tangents ? n * sizeof *m->tangents : sizeof placeholder, storage,
                "bind tangents", err) ||
        !upload(r, &r->joints, m->joints, n * sizeof *m->joints, storage, "joint indices", err) ||
        !upload(r, &r->weights, m->weights, n * sizeof *m->weights, storage, "joint weights",
                err) ||
        !upload(r, &r->uvs, m->uvs, n * sizeof *m->uvs, vertex, "uvs", err) ||
        !upload(r, &r->indices, m->indices, (VkDeviceSize)m->index_count * sizeof *m->indices,
                VK_BUFFER_USAGE_INDEX_BUFFER_BIT, "indices", err))
        return false;

    const VkBufferUsageFlags out_usage = storage | vertex | VK_BUFFER_USAGE_TRANSFER_SRC_BIT;
    VkDeviceSize out_size = n * sizeof(vks_skinned_vertex);
    VkDeviceSize tan_size = r->has_tangents ? n * sizeof(float[4]) : sizeof placeholder;
    if (!gpu_buffer_create(
            r->dev,
            &(gpu_buffer_desc){.size = out_size, .usage = out_usage, .name = "skinned vertices"},
            &r->out_vertices, err) ||
        !gpu_buffer_create(
            r->dev,
            &(gpu_buffer_desc){.size = tan_size, .usage = out_usage, .name = "skinned tangents"},
            &r->out_tangents, err))
        return false;
    if (desc->readback &&
        !gpu_buffer_create(r->dev,
                           &(gpu_buffer_desc){.size = out_size + tan_size,
                                              .usage = VK_BUFFER_USAGE_TRANSFER_DST_BIT,
                                              .memory = GPU_MEMORY_READBACK,
                                              .name = "skinned readback"},
                           &r->readback, err))
        return false;
    return true;
}

static bool create_textures(vks_renderer *r, vks_error *err)
{
    const vks_model *m = r->model;
    r->texture_count = m->texture_count + 1;
    r->textures = calloc(r->texture_count, sizeof *r->textures);
    if (!r->textures)
        return vks_fail(err, "out of memory");
    for (uint32_t i = 0; i < r->texture_count; i++) {
        const vks_texture *t = i < m->texture_count ? &m->textures[i] : NULL;
        static const uint8_t white[4] = {255, 255, 255, 255};
        char name[96];
        snprintf(name, sizeof name, "texture %s", t ? t->source : "white");
        gpu_image_desc d = {
            .width = t ? t->width : 1,
            .height = t ? t->height : 1,
            .format = VK_FORMAT_R8G8B8A8_SRGB, /* glTF base color is sRGB-encoded */
            .usage = VK_IMAGE_USAGE_SAMPLED_BIT | VK_IMAGE_USAGE_TRANSFER_DST_BIT |
                     VK_IMAGE_USAGE_TRANSFER_SRC_BIT,
            .mips = true,
            .name = name,
        };
        if (!gpu_image_create(r->dev, &d, &r->textures[i], err) ||
            !gpu_image_upload_rgba8(r->dev, &r->textures[i], t ? t->rgba : white, err))
            return false;
    }
    return true;
}

static bool create_descriptors(vks_renderer *r, vks_error *err)
{
    const gpu_device *dev = r->dev;
    const vks_model *m = r->model;
    uint32_t materials = m->material_count;
    VkDescriptorPoolSize sizes[] = {
        {VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, VKS_SKIN_BINDING_COUNT * GPU_FRAMES_IN_FLIGHT},
        {VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER, GPU_FRAMES_IN_FLIGHT},
        {VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER, materials ? materials : 1},
    };
    VkDescriptorPoolCreateInfo pi = {VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO};
    pi.maxSets = 2 * GPU_FRAMES_IN_FLIGHT + materials;
    pi.poolSizeCount = 3;
    pi.pPoolSizes = sizes;
    VkResult res = vkCreateDescriptorPool(dev->device, &pi, NULL, &r->descriptor_pool);
    if (res != VK_SUCCESS)
        return vks_fail(err, "cannot create a descriptor pool: %s", gpu_result_name(res));
    GPU_NAME(dev, VK_OBJECT_TYPE_DESCRIPTOR_POOL, r->descriptor_pool, "descriptor pool");

    VkDescriptorSetAllocateInfo ai = {VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO};
    ai.descriptorPool = r->descriptor_pool;
    ai.descriptorSetCount = 1;
    for (uint32_t i = 0; i < GPU_FRAMES_IN_FLIGHT; i++) {
        vks_frame *f = &r->frames[i];
        ai.pSetLayouts = &r->skin.set_layout;
        GPU_CHECK(vkAllocateDescriptorSets(dev->device, &ai, &f->skin_set));
        GPU_NAME(dev, VK_OBJECT_TYPE_DESCRIPTOR_SET, f->skin_set, "skin set %u", i);
        ai.pSetLayouts = &r->draw.frame_layout;
        GPU_CHECK(vkAllocateDescriptorSets(dev->device, &ai, &f->frame_set));
        GPU_NAME(dev, VK_OBJECT_TYPE_DESCRIPTOR_SET, f->frame_set, "frame set %u", i);

        vks_skin_buffers b = {0};
        b.buffers[VKS_SKIN_BIND_POSITIONS] = r->positions.buffer;
        b.buffers[VKS_SKIN_BIND_NORMALS] = r->normals.buffer;
        b.buffers[VKS_SKIN_BIND_TANGENTS] = r->tangents.buffer;
        b.buffers[VKS_SKIN_BIND_JOINTS] = r->joints.buffer;
        b.buffers[VKS_SKIN_BIND_WEIGHTS] = r->weights.buffer;
        b.buffers[VKS_SKIN_BIND_PALETTE] = f->palette_buffer.buffer;
        b.buffers[VKS_SKIN_BIND_OUT_VERTICES] = r->out_vertices.buffer;
        b.buffers[VKS_SKIN_BIND_OUT_TANGENTS] = r->out_tangents.buffer;
        vks_skin_pass_write_set(dev, f->skin_set, &b);

        VkDescriptorBufferInfo ub = {f->uniform_buffer.buffer, 0, VK_WHOLE_SIZE};
        VkWriteDescriptorSet w = {VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET};
        w.dstSet = f->frame_set;
        w.descriptorCount = 1;
        w.descriptorType = VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER;
        w.pBufferInfo = &ub;
        vkUpdateDescriptorSets(dev->device, 1, &w, 0, NULL);
    }

    r->material_sets = calloc(materials ? materials : 1, sizeof *r->material_sets);
    if (!r->material_sets)
        return vks_fail(err, "out of memory");
    ai.pSetLayouts = &r->draw.material_layout;
    for (uint32_t i = 0; i < materials; i++) {
        GPU_CHECK(vkAllocateDescriptorSets(dev->device, &ai, &r->material_sets[i]));
        GPU_NAME(dev, VK_OBJECT_TYPE_DESCRIPTOR_SET, r->material_sets[i], "material %s",
                 m->materials[i].name);
        int32_t t = m->materials[i].texture;
        const gpu_image *img = &r->textures[t >= 0 ? (uint32_t)t : r->texture_count - 1];
        VkDescriptorImageInfo ii = {r->draw.sampler, img->view,
                                    VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL};
        VkWriteDescriptorSet w = {VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET};
        w.dstSet = r->material_sets[i];
        w.descriptorCount = 1;
        w.descriptorType = VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER;
        w.pImageInfo = &ii;
        vkUpdateDescriptorSets(dev->device, 1, &w, 0, NULL);
    }
    return true;
}

static bool create_frames(vks_renderer *r, vks_error *err)
{
    const gpu_device *dev = r->dev;
    for (uint32_t i = 0; i < GPU_FRAMES_IN_FLIGHT; i++) {
        vks_frame *f = &r->frames[i];
        f->slot = i;
        f->times = (vks_gpu_times){-1.0, -1.0};
        char name[64];
        snprintf(name, sizeof name, "palette %u", i);
        /* The animation writes straight into this mapping: no staging copy per frame. */
        if (!gpu_buffer_create(
                dev,
                &(gpu_buffer_desc){.size = sizeof(vks_bone) * r->model->skeleton.joint_count,
                                   .usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT,
                                   .memory = GPU_MEMORY_UPLOAD,
                                   .name = name},
                &f->palette_buffer, err))
            return false;
        snprintf(name, sizeof name, "frame uniforms %u", i);
        if (!gpu_buffer_create(dev,
                               &(gpu_buffer_desc){.size = sizeof(vks_frame_uniforms),
                                                  .usage = VK_BUFFER_USAGE_UNIFORM_BUFFER_BIT,
                                                  .memory = GPU_MEMORY_UPLOAD,
                                                  .name = name},
                               &f->uniform_buffer, err))
            return false;
        f->palette = f->palette_buffer.mapped;
        f->uniforms = f->uniform_buffer.mapped;

        VkCommandPoolCreateInfo pi = {VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO};
        pi.flags = VK_COMMAND_POOL_CREATE_TRANSIENT_BIT;
        pi.queueFamilyIndex = dev->queue_family;
        GPU_CHECK(vkCreateCommandPool(dev->device, &pi, NULL, &f->pool));
        GPU_NAME(dev, VK_OBJECT_TYPE_COMMAND_POOL, f->pool, "frame %u command pool", i);
        VkCommandBufferAllocateInfo ai = {VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
        ai.commandPool = f->pool;
        ai.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
        ai.commandBufferCount = 1;
        GPU_CHECK(vkAllocateCommandBuffers(dev->device, &ai, &f->cmd));
        GPU_NAME(dev, VK_OBJECT_TYPE_COMMAND_BUFFER, f->cmd, "frame %u commands", i);
        VkFenceCreateInfo fi = {VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
        fi.flags = VK_FENCE_CREATE_SIGNALED_BIT;
        GPU_CHECK(vkCreateFence(dev->device, &fi, NULL, &f->fence));
        GPU_NAME(dev, VK_OBJECT_TYPE_FENCE, f->fence, "frame %u fence", i);
        if (dev->timestamps) {
            VkQueryPoolCreateInfo qi = {VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO};
            qi.queryType = VK_QUERY_TYPE_TIMESTAMP;
            qi.queryCount = QUERY_COUNT;
            GPU_CHECK(vkCreateQueryPool(dev->device, &qi, NULL, &f->queries));
            GPU_NAME(dev, VK_OBJECT_TYPE_QUERY_POOL, f->queries, "frame %u timestamps", i);
        }
    }
    return true;
}

bool vks_renderer_create(const gpu_device *dev, const vks_renderer_desc *desc, vks_renderer *r,
                         vks_error *err)
{
    *r = (vks_renderer){.dev = dev, .model = desc->model};
    const vks_model *m = desc->model;
    if (m->vertex_count == 0 || m->index_count == 0 || m->skeleton.joint_count == 0) {
        return vks_fail(err, "%s has nothing to draw (%u vertices, %u indices, %u joints)", m->name,
                        m->vertex_count, m->index_count, m->skeleton.joint_count);
    }
    bool ok =
        vks_skin_pass_create(dev, desc->group_size, &r->skin, err) &&
        vks_draw_pass_create(dev, desc->color_format, vks_draw_depth_format(dev), &r->draw, err) &&
        create_buffers(r, desc, err) && create_textures(r, err) && create_frames(r, err) &&
        create_descriptors(r, err);
    if (!ok) {
        vks_renderer_destroy(r);
        return false;
    }

    /* World = inverse of the root inverse; normals use its inverse-transpose, which is the root
     * inverse's 3x3 transposed: its rows are the root inverse's columns. */
    const vks_affine *ri = &m->skeleton.root_inverse;
    mat4 inv, world;
    for (int c = 0; c < 4; c++)
        for (int row = 0; row < 4; row++)
            inv[c][row] = row < 3 ? ri->row[row][c] : (c == 3 ? 1.0f : 0.0f);
    glm_mat4_inv(inv, world);
    memcpy(r->draw_params.world, world, sizeof world);
    for (int row = 0; row < 3; row++)
        for (int c = 0; c < 3; c++)
            r->draw_params.normal_world[row][c] = ri->row[c][row];
    return true;
}

void vks_renderer_destroy(vks_renderer *r)
{
    const gpu_device *dev = r->dev;
    if (!dev)
        return;
    vkDeviceWaitIdle(dev->device);
    for (uint32_t i = 0; i < GPU_FRAMES_IN_FLIGHT; i++) {
        vks_frame *f = &r->frames[i];
        if (f->queries)
            vkDestroyQueryPool(dev->device, f->queries, NULL);
        if (f->fence)
            vkDestroyFence(dev->device, f->fence, NULL);
        if (f->pool)
            vkDestroyCommandPool(dev->device, f->pool, NULL);
        gpu_buffer_destroy(dev, &f->palette_buffer);
        gpu_buffer_destroy(dev, &f->uniform_buffer);
    }
    if (r->descriptor_pool)
        vkDestroyDescriptorPool(dev->device, r->descriptor_pool, NULL);
    free(r->material_sets);
    for (uint32_t i = 0; r->textures && i < r->texture_count; i++)
        gpu_image_destroy(dev, &r->textures[i]);
    free(r->textures);
    gpu_buffer *buffers[] = {&r->positions,    &r->normals, &r->tangents, &r->joints,
                             &r->weights,      &r->uvs,     &r->indices,  &r->out_vertices,
                             &r->out_tangents, &r->readback};
    for (size_t i = 0; i < sizeof buffers / sizeof buffers[0]; i++)
        gpu_buffer_destroy(dev, buffers[i]);
    vks_draw_pass_destroy(dev, &r->draw);
    vks_skin_pass_destroy(dev, &r->skin);
    *r = (vks_renderer){0};
}

static vks_gpu_times read_times(const vks_renderer *r, const vks_frame *f)
{
    vks_gpu_times times = {-1.0, -1.0};
    if (!f->queries || !(f->queries_written & (1u << QUERY_SKINNED)))
        return times;
    uint64_t t[QUERY_COUNT] = {0};
    /* The slot's fence has signalled, so every written query is available. */
    uint32_t count = (f->queries_written & (1u << QUERY_DRAWN)) ? 3 : 2;
    if (vkGetQueryPoolResults(r->dev->device, f->queries, 0, count, sizeof t, t, sizeof t[0],
                              VK_QUERY_RESULT_64_BIT) != VK_SUCCESS)
        return times;
    times.skin_ms = gpu_ticks_to_ms(r->dev, t[QUERY_BEGIN], t[QUERY_SKINNED]);
    if (count == 3)
        times.draw_ms = gpu_ticks_to_ms(r->dev, t[QUERY_SKINNED], t[QUERY_DRAWN]);
    return times;
}

vks_gpu_times vks_renderer_last_times(vks_renderer *r)
{
    if (r->frame_number == 0)
        return (vks_gpu_times){-1.0, -1.0};
    vks_frame *f = &r->frames[(r->frame_number - 1) % GPU_FRAMES_IN_FLIGHT];
    GPU_CHECK(vkWaitForFences(r->dev->device, 1, &f->fence, VK_TRUE, UINT64_MAX));
    return read_times(r, f);
}

vks_frame *vks_renderer_begin_frame(vks_renderer *r)
{
    vks_frame *f = &r->frames[r->frame_number++ % GPU_FRAMES_IN_FLIGHT];
    GPU_CHECK(vkWaitForFences(r->dev->device, 1, &f->fence, VK_TRUE, UINT64_MAX));
    f->times = read_times(r, f);
    GPU_CHECK(vkResetCommandPool(r->dev->device, f->pool, 0));
    VkCommandBufferBeginInfo begin = {VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
    begin.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
    GPU_CHECK(vkBeginCommandBuffer(f->cmd, &begin));
    f->queries_written = 0;
    if (f->queries) {
        vkCmdResetQueryPool(f->cmd, f->queries, 0, QUERY_COUNT);
        vkCmdWriteTimestamp2(f->cmd, VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT, f->queries, QUERY_BEGIN);
        f->queries_written |= 1u << QUERY_BEGIN;
    }
    return f;
}

void vks_renderer_skin(vks_renderer *r, vks_frame *f)
{
    /* The previous frame still reads the output (vertex input, or a copy) and wrote it last:
     * this frame's dispatch waits for both before it overwrites it. */
    const gpu_access before = {VK_PIPELINE_STAGE_2_VERTEX_ATTRIBUTE_INPUT_BIT |
                                   VK_PIPELINE_STAGE_2_COPY_BIT |
                                   VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT,
                               VK_ACCESS_2_SHADER_STORAGE_WRITE_BIT};
    const gpu_access skin_write = {VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT,
                                   VK_ACCESS_2_SHADER_STORAGE_WRITE_BIT};
    gpu_barrier_buffer(f->cmd, r->out_vertices.buffer, before, skin_write);
    gpu_barrier_buffer(f->cmd, r->out_tangents.buffer, before, skin_write);

    vks_skin_params params = {
        .vertex_count = r->model->vertex_count,
        .has_tangents = r->has_tangents,
    };
    vks_skin_pass_record(f->cmd, &r->skin, f->skin_set, &params);

    /* Compute writes -> this frame's vertex-attribute reads (and readback copies). */
    const gpu_access after = {
        VK_PIPELINE_STAGE_2_VERTEX_ATTRIBUTE_INPUT_BIT | VK_PIPELINE_STAGE_2_COPY_BIT,
        VK_ACCESS_2_VERTEX_ATTRIBUTE_READ_BIT | VK_ACCESS_2_TRANSFER_READ_BIT};
    gpu_barrier_buffer(f->cmd, r->out_vertices.buffer, skin_write, after);
    gpu_barrier_buffer(f->cmd, r->out_tangents.buffer, skin_write,
                       (gpu_access){VK_PIPELINE_STAGE_2_COPY_BIT, VK_ACCESS_2_TRANSFER_READ_BIT});
    if (f->queries) {
        vkCmdWriteTimestamp2(f->cmd, VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT, f->queries,
                             QUERY_SKINNED);
        f->queries_written |= 1u << QUERY_SKINNED;
    }
}

void vks_renderer_draw(vks_renderer *r, vks_frame *f, const vks_draw_target *target)
{
    VkCommandBuffer cmd = f->cmd;
    vks_draw_begin(cmd, &r->draw, target);
    VkBuffer vbs[2] = {r->out_vertices.buffer, r->uvs.buffer};
    VkDeviceSize offsets[2] = {0, 0};
    vkCmdBindVertexBuffers(cmd, 0, 2, vbs, offsets);
    vkCmdBindIndexBuffer(cmd, r->indices.buffer, 0, VK_INDEX_TYPE_UINT32);
    vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_GRAPHICS, r->draw.layout, 0, 1,
                            &f->frame_set, 0, NULL);
    const vks_model *m = r->model;
    vks_draw_params params = r->draw_params;
    for (uint32_t i = 0; i < m->mesh_count; i++) {
        const vks_mesh *mesh = &m->meshes[i];
        if (!mesh->index_count)
            continue;
        const vks_material *mat = &m->materials[mesh->material];
        memcpy(params.base_color, mat->base_color, sizeof params.base_color);
        vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_GRAPHICS, r->draw.layout, 1, 1,
                                &r->material_sets[mesh->material], 0, NULL);
        vkCmdPushConstants(cmd, r->draw.layout,
                           VK_SHADER_STAGE_VERTEX_BIT | VK_SHADER_STAGE_FRAGMENT_BIT, 0,
                           sizeof params, &params);
        vkCmdDrawIndexed(cmd, mesh->index_count, 1, mesh->first_index, (int32_t)mesh->base_vertex,
                         0);
    }
    vks_draw_end(cmd, target);
    if (f->queries) {
        vkCmdWriteTimestamp2(cmd, VK_PIPELINE_STAGE_2_ALL_GRAPHICS_BIT, f->queries, QUERY_DRAWN);
        f->queries_written |= 1u << QUERY_DRAWN;
    }
}

void vks_renderer_copy_skinned(vks_renderer *r, vks_frame *f)
{
    assert(r->readback.buffer);
    const gpu_access host_read = {VK_PIPELINE_STAGE_2_HOST_BIT, VK_ACCESS_2_HOST_READ_BIT};
    const gpu_access copy_write = {VK_PIPELINE_STAGE_2_COPY_BIT, VK_ACCESS_2_TRANSFER_WRITE_BIT};
    /* The host read the readback buffer after the previous frame's fence: nothing pending. */
    vkCmdCopyBuffer(f->cmd, r->out_vertices.buffer, r->readback.buffer, 1,
                    &(VkBufferCopy){0, 0, r->out_vertices.size});
    vkCmdCopyBuffer(f->cmd, r->out_tangents.buffer, r->readback.buffer, 1,
                    &(VkBufferCopy){0, r->out_vertices.size, r->out_tangents.size});
    gpu_barrier_buffer(f->cmd, r->readback.buffer, copy_write, host_read);
}

bool vks_renderer_submit(vks_renderer *r, vks_frame *f, VkSemaphore wait, VkSemaphore signal,
                         vks_error *err)
{
    GPU_CHECK(vkEndCommandBuffer(f->cmd));
    GPU_CHECK(vkResetFences(r->dev->device, 1, &f->fence));
    VkSemaphoreSubmitInfo wait_info = {VK_STRUCTURE_TYPE_SEMAPHORE_SUBMIT_INFO};
    wait_info.semaphore = wait;
    wait_info.stageMask = VK_PIPELINE_STAGE_2_COLOR_ATTACHMENT_OUTPUT_BIT;
    VkSemaphoreSubmitInfo signal_info = {VK_STRUCTURE_TYPE_SEMAPHORE_SUBMIT_INFO};
    signal_info.semaphore = signal;
    signal_info.stageMask = VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT;
    VkCommandBufferSubmitInfo cmd_info = {VK_STRUCTURE_TYPE_COMMAND_BUFFER_SUBMIT_INFO};
    cmd_info.commandBuffer = f->cmd;
    VkSubmitInfo2 submit = {VK_STRUCTURE_TYPE_SUBMIT_INFO_2};
    submit.waitSemaphoreInfoCount = wait ? 1 : 0;
    submit.pWaitSemaphoreInfos = &wait_info;
    submit.commandBufferInfoCount = 1;
    submit.pCommandBufferInfos = &cmd_info;
    submit.signalSemaphoreInfoCount = signal ? 1 : 0;
    submit.pSignalSemaphoreInfos = &signal_info;
    VkResult res = vkQueueSubmit2(r->dev->queue, 1, &submit, f->fence);
    if (res != VK_SUCCESS)
        return vks_fail(err, "submitting a frame failed: %s", gpu_result_name(res));
    return true;
}

bool vks_renderer_wait(vks_renderer *r, vks_frame *f, vks_error *err)
{
    VkResult res = vkWaitForFences(r->dev->device, 1, &f->fence, VK_TRUE, UINT64_MAX);
    if (res != VK_SUCCESS)
        return vks_fail(err, "waiting for a frame failed: %s", gpu_result_name(res));
    gpu_buffer_invalidate(r->dev, &r->readback);
    return true;
}

const vks_skinned_vertex *vks_renderer_skinned(const vks_renderer *r)
{
    return r->readback.mapped;
}

const float (*vks_renderer_skinned_tangents(const vks_renderer *r))[4]
{
    if (!r->has_tangents)
        return NULL;
    return (const float(*)[4])((const char *)r->readback.mapped + r->out_vertices.size);
}

void vks_renderer_world(const vks_renderer *r, float world[4][4])
{
    memcpy(world, r->draw_params.world, sizeof r->draw_params.world);
}
