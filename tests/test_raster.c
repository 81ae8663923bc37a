/* The compute rasterizer (src/raster/raster.h, shaders/raster.comp) on the GPU, validation on,
 * against a reference written here from the Vulkan spec's words. Each triangle is rasterized
 * alone into its own visibility buffer (one dispatch each, one command buffer), and every pixel
 * is compared with the reference: covered exactly where the reference covers it (vertices snapped
 * to the device's sub-pixel grid; a pixel center inside, or on an edge that is a top edge,
 * "exactly horizontal and above the other edges", or a left edge, "not exactly horizontal and on
 * the left side of the triangle"; back faces, counter-clockwise in the spec's area, culled), with
 * the entry and triangle in the word's low 40 bits and the depth interpolated in its top 24. Then:
 * the two halves of a square share their diagonal and cover each pixel center of the square once;
 * a back face covers nothing, or with culling off what the same triangle wound the other way
 * covers; two overlapping triangles in one buffer keep the nearer one's
 * word at each pixel (depth above, so the id does not decide); the device's own graphics
 * pipeline, drawing each front face alone, covers exactly the same pixels (those within the
 * image: see hardware_coverage's caller); and the packing of the id
 * (vks_raster_id_bits). Exits 77 (skipped, saying why) on a device without 64-bit buffer atomics.
 */
#include "check.h"

#include "gpu/gpu.h"
#include "raster/raster.h"
#include "test_binding.h"

#include <fenv.h>

enum { W = 40, H = 32, RANDOM = 160, QUAD = 2, PAIR = RANDOM + QUAD + 1, TRIANGLES = PAIR + 2 };
/* A far entry, as the 70 000th of a crowd whose level has 2^17 triangles: its id, 69 999 << 17
 * | 5, is past 32 bits. */
enum { FAR_ENTRY = 69999, FAR_BITS = 17, FAR_TRIANGLE = 5 };

typedef struct tri {
    float p[3][3]; /* normalized device coordinates: x, y in [-1, 1] (y down), z in [0, 1] */
} tri;

/* The reference: what the spec covers. fixed: corners snapped to 1/2^bits pixel. */
typedef struct ref_tri {
    int64_t x[3], y[3];
    double z[3];
    bool front;
} ref_tri;

static ref_tri ref_of(const tri *t, uint32_t bits)
{
    ref_tri r;
    const double scale = (double)(1u << bits);
    for (int k = 0; k < 3; k++) {
        const double sx = ((double)t->p[k][0] * 0.5 + 0.5) * W,
                     sy = ((double)t->p[k][1] * 0.5 + 0.5) * H;
        r.x[k] = (int64_t)nearbyint(sx * scale); /* round half to even: the default mode */
        r.y[k] = (int64_t)nearbyint(sy * scale);
        r.z[k] = t->p[k][2];
    }
    /* The spec's a = -1/2 sum(x_i y_(i+1) - x_(i+1) y_i); front (counter-clockwise) when > 0. */
    int64_t sum = 0;
    for (int k = 0; k < 3; k++)
        sum += r.x[k] * r.y[(k + 1) % 3] - r.x[(k + 1) % 3] * r.y[k];
    r.front = -sum > 0;
    return r;
}

/* Where point (px, py) lies against the line through corners a, b: the sign of the cross product,
 * oriented so that the third corner c is positive. */
static int side(const ref_tri *r, int a, int b, int c, int64_t px, int64_t py)
{
    const int64_t ex = r->x[b] - r->x[a], ey = r->y[b] - r->y[a];
    const int64_t p = ex * (py - r->y[a]) - ey * (px - r->x[a]);
    const int64_t q = ex * (r->y[c] - r->y[a]) - ey * (r->x[c] - r->x[a]);
    return q > 0 ? (p > 0) - (p < 0) : (p < 0) - (p > 0);
}

/* The spec's top and left edges: a horizontal edge above the third corner; a non-horizontal
 * edge with the third corner to its right (at the third corner's height). */
static bool top_or_left(const ref_tri *r, int a, int b, int c)
{
    if (r->y[a] == r->y[b])
        return r->y[c] > r->y[a];
    /* x of the edge at the third corner's y, against the corner's x (exact: cross-multiplied) */
    const int64_t dy = r->y[b] - r->y[a];
    const int64_t lhs = r->x[c] * dy,
                  rhs = r->x[a] * dy + (r->x[b] - r->x[a]) * (r->y[c] - r->y[a]);
    return dy > 0 ? lhs > rhs : lhs < rhs;
}

static bool ref_covers(const ref_tri *r, uint32_t bits, int x, int y)
{
    if (!r->front)
        return false;
    const int64_t one = (int64_t)1 << bits;
    const int64_t px = x * one + one / 2, py = y * one + one / 2;
    static const int e[3][3] = {{0, 1, 2}, {1, 2, 0}, {2, 0, 1}};
    for (int k = 0; k < 3; k++) {
        const int s = side(r, e[k][0], e[k][1], e[k][2], px, py);
        if (s < 0 || (s == 0 && !top_or_left(r, e[k][0], e[k][1], e[k][2])))
            return false;
    }
    return true;
}

static float frand(uint32_t *state)
{
    *state = *state * 1664525u + 1013904223u;
    return (float)(*state >> 8) / 16777216.0f;
}

extern const unsigned char vks_raster_hw_vert_spv[], vks_raster_hw_frag_spv[];
extern const size_t vks_raster_hw_vert_spv_size, vks_raster_hw_frag_spv_size;

/* The device's graphics pipeline draws each triangle alone (the draw pass's rasterization state:
 * no multisampling, counter-clockwise front faces; culling off, so only front faces are
 * compared) into an R32_UINT image; the coverage lands in out[t * W * H + pixel] (1 covered).
 * False when the pipeline or a resource cannot be made. */
static bool hardware_coverage(const gpu_device *dev, const gpu_buffer *vertices, uint32_t count,
                              uint32_t *out)
{
    vks_error err;
    VkShaderModule vs = gpu_shader_module(dev, vks_raster_hw_vert_spv, vks_raster_hw_vert_spv_size,
                                          "raster_hw.vert");
    VkShaderModule fs = gpu_shader_module(dev, vks_raster_hw_frag_spv, vks_raster_hw_frag_spv_size,
                                          "raster_hw.frag");
    VkPipelineLayout layout = VK_NULL_HANDLE;
    VkPipelineLayoutCreateInfo li = {VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO};
    dev->vk.vkCreatePipelineLayout(dev->device, &li, NULL, &layout);
    const VkVertexInputBindingDescription binding = {0, sizeof(vks_skinned_vertex),
                                                     VK_VERTEX_INPUT_RATE_VERTEX};
    const VkVertexInputAttributeDescription attribute = {0, 0, VK_FORMAT_R32G32B32_SFLOAT, 0};
    VkPipelineVertexInputStateCreateInfo input = {
        VK_STRUCTURE_TYPE_PIPELINE_VERTEX_INPUT_STATE_CREATE_INFO};
    input.vertexBindingDescriptionCount = 1;
    input.pVertexBindingDescriptions = &binding;
    input.vertexAttributeDescriptionCount = 1;
    input.pVertexAttributeDescriptions = &attribute;
    VkPipeline pipeline =
        vs && fs && layout
            ? gpu_pipeline_graphics(dev,
                                    &(gpu_graphics_desc){
                                        .vertex = vs,
                                        .fragment = fs,
                                        .vertex_input = &input,
                                        .topology = VK_PRIMITIVE_TOPOLOGY_TRIANGLE_LIST,
                                        .color_format = VK_FORMAT_R32_UINT,
                                        .depth_format = VK_FORMAT_UNDEFINED,
                                        .layout = layout,
                                    })
            : VK_NULL_HANDLE;
    gpu_image image = {0};
    gpu_buffer back = {0};
    VkCommandBuffer cmd;
    bool ok = pipeline &&
              gpu_image_create(dev,
                               &(gpu_image_desc){W, H, VK_FORMAT_R32_UINT,
                                                 VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT |
                                                     VK_IMAGE_USAGE_TRANSFER_SRC_BIT,
                                                 false, "hardware coverage"},
                               &image, &err) &&
              gpu_buffer_create(dev,
                                &(gpu_buffer_desc){sizeof(uint32_t) * W * H * count,
                                                   VK_BUFFER_USAGE_TRANSFER_DST_BIT,
                                                   GPU_MEMORY_READBACK, "coverage readback"},
                                &back, &err) &&
              gpu_once_begin(dev, &cmd, &err);
    if (ok) {
        const gpu_access none = {VK_PIPELINE_STAGE_2_NONE, VK_ACCESS_2_NONE};
        const gpu_access attach = {VK_PIPELINE_STAGE_2_COLOR_ATTACHMENT_OUTPUT_BIT,
                                   VK_ACCESS_2_COLOR_ATTACHMENT_WRITE_BIT};
        const gpu_access copy = {VK_PIPELINE_STAGE_2_COPY_BIT, VK_ACCESS_2_TRANSFER_READ_BIT};
        for (uint32_t t = 0; t < count; t++) {
            gpu_barrier_image(dev, cmd, &image,
                              t ? VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL : VK_IMAGE_LAYOUT_UNDEFINED,
                              VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL, t ? copy : none, attach);
            VkRenderingAttachmentInfo color = {VK_STRUCTURE_TYPE_RENDERING_ATTACHMENT_INFO};
            color.imageView = image.view;
            color.imageLayout = VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL;
            color.loadOp = VK_ATTACHMENT_LOAD_OP_CLEAR;
            color.storeOp = VK_ATTACHMENT_STORE_OP_STORE;
            VkRenderingInfo ri = {VK_STRUCTURE_TYPE_RENDERING_INFO};
            ri.renderArea.extent = (VkExtent2D){W, H};
            ri.layerCount = 1;
            ri.colorAttachmentCount = 1;
            ri.pColorAttachments = &color;
            dev->vk.vkCmdBeginRendering(cmd, &ri);
            dev->vk.vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_GRAPHICS, pipeline);
            dev->vk.vkCmdSetViewport(cmd, 0, 1, &(VkViewport){0, 0, W, H, 0, 1});
            dev->vk.vkCmdSetScissor(cmd, 0, 1, &(VkRect2D){{0, 0}, {W, H}});
            const VkDeviceSize offset = 0;
            dev->vk.vkCmdBindVertexBuffers(cmd, 0, 1, &vertices->buffer, &offset);
            dev->vk.vkCmdDraw(cmd, 3, 1, 3 * t, 0);
            dev->vk.vkCmdEndRendering(cmd);
            gpu_barrier_image(dev, cmd, &image, VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL,
                              VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, attach, copy);
            const VkBufferImageCopy region = {
                .bufferOffset = sizeof(uint32_t) * W * H * t,
                .imageSubresource = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 1},
                .imageExtent = {W, H, 1},
            };
            dev->vk.vkCmdCopyImageToBuffer(cmd, image.image, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL,
                                           back.buffer, 1, &region);
        }
        gpu_barrier_memory(
            dev, cmd, (gpu_access){VK_PIPELINE_STAGE_2_COPY_BIT, VK_ACCESS_2_TRANSFER_WRITE_BIT},
            (gpu_access){VK_PIPELINE_STAGE_2_HOST_BIT, VK_ACCESS_2_HOST_READ_BIT});
        ok = gpu_once_end(dev, cmd, &err);
    }
    if (ok) {
        gpu_buffer_invalidate(dev, &back);
        memcpy(out, back.mapped, sizeof(uint32_t) * W * H * count);
    } else {
        fprintf(stderr, "test_raster: the hardware side: %s\n", err.msg);
    }
    gpu_buffer_destroy(dev, &back);
    gpu_image_destroy(dev, &image);
    if (pipeline)
        dev->vk.vkDestroyPipeline(dev->device, pipeline, NULL);
    if (layout)
        dev->vk.vkDestroyPipelineLayout(dev->device, layout, NULL);
    if (vs)
        dev->vk.vkDestroyShaderModule(dev->device, vs, NULL);
    if (fs)
        dev->vk.vkDestroyShaderModule(dev->device, fs, NULL);
    return ok;
}

int main(void)
{
    gpu_device dev;
    vks_error err;
    if (!gpu_device_create(&(gpu_device_desc){.device_index = -1, .validate = true}, &dev, &err)) {
        fprintf(stderr, "test_raster: %s\n", err.msg);
        return 1;
    }
    printf("device: %s, %s\n", dev.props.deviceName, test_binding_name());
    vks_raster_pass pass;
    if (!vks_raster_pass_create(&dev, &(vks_raster_pass_desc){0}, &pass, &err)) {
        printf("skipped: %s\n", err.msg);
        gpu_device_destroy(&dev);
        return SKIP_RETURN;
    }
    const uint32_t bits = pass.subpixel_bits;

    /* The triangles: random ones of every size (some corners on pixel centers and edges of the
     * pixel grid, where the rules matter), the two halves of a square, and a back face. */
    tri tris[TRIANGLES];
    uint32_t state = 12345;
    for (int t = 0; t < RANDOM; t++)
        for (int k = 0; k < 3; k++) {
            const float size = t < RANDOM / 2 ? 0.15f : 0.8f;
            const float cx = (float)(t % 8) / 4.0f - 0.9f, cy = (float)(t / 8 % 8) / 4.0f - 0.9f;
            float x = cx + (frand(&state) - 0.5f) * size, y = cy + (frand(&state) - 0.5f) * size;
            if (t % 3 == 0) { /* on the pixel grid: centers (odd halves) or corners */
                x = (roundf((x * 0.5f + 0.5f) * W * 2.0f) / 2.0f / W - 0.5f) * 2.0f;
                y = (roundf((y * 0.5f + 0.5f) * H * 2.0f) / 2.0f / H - 0.5f) * 2.0f;
            }
            tris[t].p[k][0] = x, tris[t].p[k][1] = y, tris[t].p[k][2] = 0.1f + 0.8f * frand(&state);
        }
    /* The square's halves share the diagonal a-c; both front facing. */
    const float a[3] = {-0.5f, -0.5f, 0.5f}, b[3] = {0.5f, -0.5f, 0.5f}, c[3] = {0.5f, 0.5f, 0.5f},
                d[3] = {-0.5f, 0.5f, 0.5f};
    const float *halves[2][3] = {{a, c, b}, {a, d, c}};
    for (int h = 0; h < 2; h++)
        for (int k = 0; k < 3; k++)
            memcpy(tris[RANDOM + h].p[k], halves[h][k], sizeof(float[3]));
    tris[RANDOM + QUAD] = tris[RANDOM]; /* its first half, wound the other way: a back face */
    memcpy(tris[RANDOM + QUAD].p[1], tris[RANDOM].p[2], sizeof(float[3]));
    memcpy(tris[RANDOM + QUAD].p[2], tris[RANDOM].p[1], sizeof(float[3]));
    /* Two overlapping triangles, the farther first: one buffer must keep the nearer. */
    const tri pair[2] = {{{{-0.9f, -0.8f, 0.6f}, {0.3f, 0.7f, 0.6f}, {0.4f, -0.7f, 0.6f}}},
                         {{{-0.4f, -0.5f, 0.3f}, {0.8f, 0.8f, 0.2f}, {0.7f, -0.9f, 0.4f}}}};
    tris[PAIR] = pair[0];
    tris[PAIR + 1] = pair[1];
    /* Front-facing ones are wanted among the random: flip every back-facing one but a few. */
    for (int t = 0; t < TRIANGLES; t++)
        if (!ref_of(&tris[t], bits).front && ((t < RANDOM && t % 10 != 0) || t >= PAIR)) {
            float tmp[3];
            memcpy(tmp, tris[t].p[1], sizeof tmp);
            memcpy(tris[t].p[1], tris[t].p[2], sizeof tmp);
            memcpy(tris[t].p[2], tmp, sizeof tmp);
        }

    /* Buffers: one instance (identity world), one visible entry (slot 3 of 4: the id packs it),
     * the skinned output (a triangle's 3 vertices each), indices 0..3T-1, and T visibility
     * buffers plus one shared by two overlapping triangles. */
    vks_instance inst = {.world = {{1, 0, 0, 0}, {0, 1, 0, 0}, {0, 0, 1, 0}}};
    vks_skinned_vertex verts[3 * TRIANGLES];
    uint32_t indices[3 * TRIANGLES];
    for (int t = 0; t < TRIANGLES; t++)
        for (int k = 0; k < 3; k++) {
            memcpy(verts[3 * t + k].position, tris[t].p[k], sizeof(float[3]));
            verts[3 * t + k].normal = 0;
            indices[3 * t + k] = (uint32_t)(3 * t + k);
        }
    const VkBufferUsageFlags use =
        VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_SHADER_DEVICE_ADDRESS_BIT;
    gpu_buffer instances = {0}, visible = {0}, out = {0}, index = {0}, vis = {0};
    bool ok = gpu_buffer_create_filled(
                  &dev, &(gpu_buffer_desc){sizeof inst, use, GPU_MEMORY_DEVICE, "instances"}, &inst,
                  &instances, &err) &&
              gpu_buffer_create_filled(&dev,
                                       &(gpu_buffer_desc){sizeof verts,
                                                          use | VK_BUFFER_USAGE_VERTEX_BUFFER_BIT,
                                                          GPU_MEMORY_DEVICE, "skinned"},
                                       verts, &out, &err) &&
              gpu_buffer_create_filled(
                  &dev, &(gpu_buffer_desc){sizeof indices, use, GPU_MEMORY_DEVICE, "indices"},
                  indices, &index, &err);
    vks_visible *entries = calloc(FAR_ENTRY + 1, sizeof *entries);
    ok = ok && entries;
    if (ok) {
        entries[3] = (vks_visible){
            .instance = 0, .out_address = {(uint32_t)out.address, (uint32_t)(out.address >> 32)}};
        entries[FAR_ENTRY] = entries[3];
        ok = gpu_buffer_create_filled(&dev,
                                      &(gpu_buffer_desc){sizeof *entries * (FAR_ENTRY + 1), use,
                                                         GPU_MEMORY_DEVICE, "visible"},
                                      entries, &visible, &err);
    }
    free(entries);
    /* Each buffer: its pixels, then the count of pixels first covered. */
    const size_t words = (size_t)W * H, stride = words + 1, buffers = TRIANGLES + 3;
    ok = ok && gpu_buffer_create(&dev,
                                 &(gpu_buffer_desc){sizeof(uint64_t) * stride * buffers,
                                                    use | VK_BUFFER_USAGE_TRANSFER_DST_BIT,
                                                    GPU_MEMORY_READBACK, "visibility"},
                                 &vis, &err);
    VkCommandBuffer cmd;
    ok = ok && gpu_once_begin(&dev, &cmd, &err);
    CHECK(ok);
    if (!ok) {
        fprintf(stderr, "test_raster: %s\n", err.msg);
        return check_report("test_raster");
    }
    dev.vk.vkCmdFillBuffer(cmd, vis.buffer, 0, VK_WHOLE_SIZE, 0xffffffffu);
    gpu_barrier_memory(
        &dev, cmd,
        (gpu_access){VK_PIPELINE_STAGE_2_ALL_TRANSFER_BIT, VK_ACCESS_2_TRANSFER_WRITE_BIT},
        (gpu_access){VK_PIPELINE_STAGE_2_ALL_TRANSFER_BIT, VK_ACCESS_2_TRANSFER_WRITE_BIT});
    for (size_t k = 0; k < buffers; k++) /* the counts */
        dev.vk.vkCmdFillBuffer(cmd, vis.buffer, sizeof(uint64_t) * (stride * k + words),
                               sizeof(uint64_t), 0);
    gpu_barrier_memory(
        &dev, cmd, (gpu_access){VK_PIPELINE_STAGE_2_CLEAR_BIT, VK_ACCESS_2_TRANSFER_WRITE_BIT},
        (gpu_access){VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT,
                     VK_ACCESS_2_SHADER_STORAGE_READ_BIT | VK_ACCESS_2_SHADER_STORAGE_WRITE_BIT});
    uint32_t tbits = 0;
    CHECK(vks_raster_id_bits(TRIANGLES, 4, &tbits) && tbits == 8);
    vks_raster_push push = {
        .view_proj = {{1, 0, 0, 0}, {0, 1, 0, 0}, {0, 0, 1, 0}, {0, 0, 0, 1}},
        .instances = {(uint32_t)instances.address, (uint32_t)(instances.address >> 32)},
        .visible = {(uint32_t)visible.address, (uint32_t)(visible.address >> 32)},
        .indices = {(uint32_t)index.address, (uint32_t)(index.address >> 32)},
        .visible_first = 3,
        .size = W | H << 16,
        .bits = tbits | VKS_RASTER_CULL_BACK,
    };
    /* Each triangle alone (first_index picks it; the id then says triangle 0) ... */
    for (uint32_t t = 0; t < TRIANGLES; t++) {
        const VkDeviceAddress at = vis.address + sizeof(uint64_t) * stride * t;
        push.vis[0] = (uint32_t)at, push.vis[1] = (uint32_t)(at >> 32);
        push.first_index = 3 * t;
        push.triangle_count = 1;
        vks_raster_pass_record(&dev, cmd, &pass, &push, 1);
    }
    /* ... and the overlapping pair together, ids 0 and 1. */
    const VkDeviceAddress shared = vis.address + sizeof(uint64_t) * stride * TRIANGLES;
    push.vis[0] = (uint32_t)shared, push.vis[1] = (uint32_t)(shared >> 32);
    push.first_index = 3 * PAIR;
    push.triangle_count = 2;
    vks_raster_pass_record(&dev, cmd, &pass, &push, 1);
    /* The back face again, both sides rasterized (the draw pass's state). */
    const VkDeviceAddress two_sided = vis.address + sizeof(uint64_t) * stride * (TRIANGLES + 1);
    push.vis[0] = (uint32_t)two_sided, push.vis[1] = (uint32_t)(two_sided >> 32);
    push.first_index = 3 * (RANDOM + QUAD);
    push.triangle_count = 1;
    push.bits = tbits;
    vks_raster_pass_record(&dev, cmd, &pass, &push, 1);
    /* The square's first half again as triangle 5 of the far entry's level. */
    const VkDeviceAddress far = vis.address + sizeof(uint64_t) * stride * (TRIANGLES + 2);
    push.vis[0] = (uint32_t)far, push.vis[1] = (uint32_t)(far >> 32);
    push.first_index = 3 * RANDOM;
    push.triangle_count = 1;
    push.triangle_first = FAR_TRIANGLE;
    push.visible_first = FAR_ENTRY;
    push.bits = FAR_BITS | VKS_RASTER_CULL_BACK;
    vks_raster_pass_record(&dev, cmd, &pass, &push, 1);
    gpu_barrier_memory(
        &dev, cmd,
        (gpu_access){VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT, VK_ACCESS_2_SHADER_STORAGE_WRITE_BIT},
        (gpu_access){VK_PIPELINE_STAGE_2_HOST_BIT, VK_ACCESS_2_HOST_READ_BIT});
    CHECK(gpu_once_end(&dev, cmd, &err));
    gpu_buffer_invalidate(&dev, &vis);
    const uint64_t *got = vis.mapped;

    /* Each triangle against the reference, pixel by pixel. */
    uint32_t wrong = 0, covered = 0, depth_off = 0, id_off = 0, front = 0, count_off = 0;
    double worst_depth = 0.0;
    for (uint32_t t = 0; t < TRIANGLES; t++) {
        const ref_tri r = ref_of(&tris[t], bits);
        front += r.front;
        /* The buffer's count: the pixels the reference covers. */
        uint64_t want_count = 0;
        for (int y = 0; y < H; y++)
            for (int x = 0; x < W; x++)
                want_count += ref_covers(&r, bits, x, y);
        count_off += got[stride * t + words] != want_count;
        for (int y = 0; y < H; y++)
            for (int x = 0; x < W; x++) {
                const uint64_t word = got[stride * t + (size_t)y * W + x];
                const bool want = ref_covers(&r, bits, x, y), have = word != VKS_RASTER_EMPTY;
                if (want != have) {
                    if (wrong++ < 5)
                        fprintf(stderr,
                                "triangle %u pixel (%d, %d): %s by the rasterizer, %s by the "
                                "reference\n",
                                t, x, y, have ? "covered" : "not covered",
                                want ? "covered" : "not");
                    continue;
                }
                if (!have)
                    continue;
                covered++;
                /* entry 3, triangle 0 */
                id_off += (word & (((uint64_t)1 << VKS_RASTER_ID_BITS) - 1)) != (3u << tbits);
                /* The depth at the center, by barycentric weights of the snapped corners. */
                const double one = (double)(1 << bits), cx = (x + 0.5) * one, cy = (y + 0.5) * one;
                double w[3], total = 0.0;
                for (int k = 0; k < 3; k++) {
                    const int i = (k + 1) % 3, j = (k + 2) % 3;
                    w[k] = ((double)r.x[j] - r.x[i]) * (cy - r.y[i]) -
                           ((double)r.y[j] - r.y[i]) * (cx - r.x[i]);
                    total += w[k];
                }
                const double z = (w[0] * r.z[0] + w[1] * r.z[1] + w[2] * r.z[2]) / total;
                /* The word's 24-bit depth (rounded: half a step off at most). */
                const double depth = (double)(word >> VKS_RASTER_ID_BITS) / VKS_RASTER_DEPTH_MAX;
                worst_depth = fmax(worst_depth, fabs(depth - z));
                depth_off += fabs(depth - z) > 1e-5;
            }
    }
    CHECK(wrong == 0);
    CHECK(id_off == 0 && depth_off == 0 && count_off == 0);
    CHECK(covered > 1000 && front > RANDOM / 2);

    /* The square: its halves cover each of its centers exactly once (none on both). */
    uint32_t both = 0, either = 0, square = 0;
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++) {
            const bool h0 = got[stride * RANDOM + (size_t)y * W + x] != VKS_RASTER_EMPTY;
            const bool h1 = got[stride * (RANDOM + 1) + (size_t)y * W + x] != VKS_RASTER_EMPTY;
            both += h0 && h1;
            either += h0 || h1;
            /* the square [-0.5, 0.5]^2 is pixels [10, 30) x [8, 24): whole pixels */
            square += x >= W / 4 && x < 3 * W / 4 && y >= H / 4 && y < 3 * H / 4;
        }
    CHECK(both == 0 && either == square);
    /* The back face: nothing. */
    uint32_t back = 0;
    for (size_t p = 0; p < words; p++)
        back += got[stride * (RANDOM + QUAD) + p] != VKS_RASTER_EMPTY;
    CHECK(back == 0);
    /* Not culled, it covers what its front-facing twin (the square's first half) covers, with
     * the same words, and counts them. */
    uint32_t twin_off = 0;
    for (size_t p = 0; p <= words; p++)
        twin_off += got[stride * (TRIANGLES + 1) + p] != got[stride * RANDOM + p];
    CHECK(twin_off == 0 && got[stride * RANDOM + words] > 0);
    /* The far entry: the same pixels and depths, its id past 32 bits whole. */
    const uint64_t far_id = (uint64_t)FAR_ENTRY << FAR_BITS | FAR_TRIANGLE;
    const uint64_t id_mask = ((uint64_t)1 << VKS_RASTER_ID_BITS) - 1;
    uint32_t far_off = 0, far_covered = 0;
    for (size_t p = 0; p < words; p++) {
        const uint64_t w = got[stride * (TRIANGLES + 2) + p], twin = got[stride * RANDOM + p];
        far_covered += w != VKS_RASTER_EMPTY;
        far_off += twin == VKS_RASTER_EMPTY ? w != twin : w != ((twin & ~id_mask) | far_id);
    }
    CHECK(far_id > UINT32_MAX && far_off == 0 && far_covered > 0);
    /* Two triangles in one buffer: each pixel holds the nearer one's word. */
    uint32_t overlap = 0, nearer_wrong = 0;
    for (size_t p = 0; p < words; p++) {
        const uint64_t w0 = got[stride * PAIR + p], w1 = got[stride * (PAIR + 1) + p];
        const uint64_t want0 = w0 == VKS_RASTER_EMPTY ? w0 : (w0 & ~id_mask) | (3u << tbits);
        const uint64_t want1 = w1 == VKS_RASTER_EMPTY ? w1 : (w1 & ~id_mask) | (3u << tbits | 1u);
        overlap += w0 != VKS_RASTER_EMPTY && w1 != VKS_RASTER_EMPTY;
        nearer_wrong += got[stride * TRIANGLES + p] != (want0 < want1 ? want0 : want1);
    }
    CHECK(nearer_wrong == 0 && overlap > 50);
    /* Its count: each pixel counted once, by whichever triangle covered it first. */
    uint64_t pair_pixels = 0;
    for (size_t p = 0; p < words; p++)
        pair_pixels += got[stride * TRIANGLES + p] != VKS_RASTER_EMPTY;
    CHECK(got[stride * TRIANGLES + words] == pair_pixels);
    /* The device's own graphics pipeline covers the same pixels for every front face. */
    uint32_t *hw = malloc(sizeof *hw * words * TRIANGLES);
    uint32_t hw_wrong = 0, hw_compared = 0;
    CHECK(hw && hardware_coverage(&dev, &out, TRIANGLES, hw));
    for (uint32_t t = 0; hw && t < TRIANGLES; t++) {
        /* Front faces within the image: llvmpipe covers a center exactly on the edge of a
         * triangle reaching past the image (clipped there, its edge rounds differently) where the
         * spec's rule and this rasterizer do not (one pixel of these 165 triangles). */
        const ref_tri r = ref_of(&tris[t], bits);
        bool inside = true;
        for (int k = 0; k < 3; k++)
            inside = inside && r.x[k] >= 0 && r.y[k] >= 0 && r.x[k] <= ((int64_t)W << bits) &&
                     r.y[k] <= ((int64_t)H << bits);
        if (!r.front || !inside)
            continue;
        hw_compared++;
        for (size_t p = 0; p < words; p++)
            if ((hw[words * t + p] == 1) != (got[stride * t + p] != VKS_RASTER_EMPTY) &&
                hw_wrong++ < 5)
                fprintf(stderr, "triangle %u pixel (%zu, %zu): %s by the graphics pipeline\n", t,
                        p % W, p / W, hw[words * t + p] == 1 ? "covered" : "not covered");
    }
    CHECK(hw_wrong == 0 && hw_compared > RANDOM / 2);
    free(hw);
    /* The low word's packing. */
    CHECK(vks_raster_id_bits(1, 1, &tbits) && tbits == 0);
    CHECK(vks_raster_id_bits(64, 100000, &tbits) && tbits == 6);
    CHECK(vks_raster_id_bits(1u << 15, 1u << 25, &tbits) && tbits == 15);
    CHECK(!vks_raster_id_bits((1u << 15) + 1, 1u << 25, &tbits));
    /* A level of 2^17 triangles (a 65-joint rig's 49 k round up to 2^16) leaves 2^23 entries. */
    CHECK(vks_raster_id_bits(1u << 17, 1u << 23, &tbits) && tbits == 17);
    CHECK(!vks_raster_id_bits(1u << 17, (1u << 23) + 1, &tbits));
    printf("%u triangles (%u front facing), %u pixels covered, all as the reference; depth within "
           "%.2g; the square's halves: %u centers, %u on both; %u pixels where two overlap, the "
           "nearer kept; against the graphics pipeline: %u front faces, %u pixels differ\n",
           TRIANGLES, front, covered, worst_depth, either, both, overlap, hw_compared, hw_wrong);

    gpu_buffer_destroy(&dev, &vis);
    gpu_buffer_destroy(&dev, &visible);
    gpu_buffer_destroy(&dev, &index);
    gpu_buffer_destroy(&dev, &out);
    gpu_buffer_destroy(&dev, &instances);
    vks_raster_pass_destroy(&dev, &pass);
    gpu_messages msgs = gpu_device_destroy(&dev);
    CHECK(msgs.error == 0 && msgs.warning == 0);
    printf("validation: %u errors, %u warnings\n", msgs.error, msgs.warning);
    return check_report("test_raster");
}
