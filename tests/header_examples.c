/* The public headers' examples, compiled: each block between "example: HEADER" and "end" is the
 * header's "Example" text, line for line (tests/header_examples.sh compares them), inside a
 * function that declares what the example takes as given. The CPU side's runs on the default
 * character; the Vulkan ones are compiled only (they need a host's device or a window). */
#include "vkskin/vkskin.h"
#include "vkskin/vkskin_render.h"
#include "vkskin/vkskin_vulkan.h"

#include <stdio.h>
#include <stdlib.h>

static int fail(const char *message)
{
    fprintf(stderr, "header_examples: %s\n", message);
    return 1;
}

static int cpu_side(const char *path, int frames)
{
    const double dt = 1.0 / 60.0;
    const float view_proj[16] = {0.1f, 0, 0, 0, 0, 0.1f, 0, 0, 0, 0, 0.01f, 0, 0, 0, 0.5f, 1};
    uint32_t visible[100], capacity = 100, n = 0;
    static float palettes[100 * 64 * 12];
    const uint32_t palette_capacity = 100 * 64;
    // example: vkskin.h
    vkskin_model *model;
    vkskin_error err;
    if (vkskin_model_load(
            &(vkskin_model_desc){.desc_size = sizeof(vkskin_model_desc), .path = path}, &model,
            &err) != VKSKIN_OK)
        return fail(err.message);
    const vkskin_model *models[] = {model};
    vkskin_crowd *crowd;
    vkskin_crowd_create(&(vkskin_crowd_desc){.desc_size = sizeof(vkskin_crowd_desc),
                                             .models = models,
                                             .model_count = 1,
                                             .instance_count = 100},
                        &crowd, &err);
    for (int frame = 0; frame < frames; frame++) { // palettes: a mapped buffer, say
        vkskin_crowd_advance(crowd, dt, &err);
        vkskin_crowd_cull(crowd, view_proj, visible, capacity, &n, &err);
        vkskin_crowd_pose(crowd, visible, n, palettes, palette_capacity, &err);
    }
    // end
    if (err.result != VKSKIN_OK)
        return fail(err.message);
    printf("vkskin.h's example: %u of 100 instances in view and posed, %u palette entries\n", n,
           vkskin_crowd_palette_count(crowd));
    vkskin_crowd_destroy(crowd);
    vkskin_model_destroy(model);
    return n > 0 ? 0 : fail("nothing in view");
}

/* Compiled, not run: the owned renderer on a crowd. */
int renderer_side(vkskin_crowd *crowd, int frames, double dt, void *rgba);
int renderer_side(vkskin_crowd *crowd, int frames, double dt, void *rgba)
{
    vkskin_error err;
    vkskin_frame_info info;
    // example: vkskin_render.h
    vkskin_renderer *r;
    vkskin_renderer_create(
        &(vkskin_renderer_desc){
            .desc_size = sizeof(vkskin_renderer_desc), .crowd = crowd, .width = 640, .height = 480},
        &r, &err);
    vkskin_view view;
    vkskin_crowd_frame_view(crowd, 640.0f / 480.0f, &view, &err);
    for (int frame = 0; frame < frames; frame++) {
        vkskin_crowd_advance(crowd, dt, &err);
        vkskin_renderer_frame(
            r, &(vkskin_frame_desc){.desc_size = sizeof(vkskin_frame_desc), .view = &view}, &info,
            &err);
        vkskin_renderer_read_image(r, rgba, &err); // headless: the frame's pixels
    }
    vkskin_renderer_destroy(r, NULL);
    // end
    return err.result != VKSKIN_OK;
}

/* Compiled, not run: a host's device, its command buffers and its draw. */
typedef VkCommandBuffer begin_frame_fn(uint32_t slot);
typedef void draw_fn(VkBuffer buffer, VkDeviceSize offset);
int host_side(vkskin_crowd *crowd, PFN_vkGetInstanceProcAddr get_instance_proc_addr,
              VkInstance instance, VkPhysicalDevice physical_device, VkDevice device,
              uint32_t queue_family, uint32_t frames, const float view_proj[16], uint32_t *visible,
              uint32_t capacity, uint32_t palette_capacity, begin_frame_fn *begin_frame,
              draw_fn *draw);
int host_side(vkskin_crowd *crowd, PFN_vkGetInstanceProcAddr get_instance_proc_addr,
              VkInstance instance, VkPhysicalDevice physical_device, VkDevice device,
              uint32_t queue_family, uint32_t frames, const float view_proj[16], uint32_t *visible,
              uint32_t capacity, uint32_t palette_capacity, begin_frame_fn *begin_frame,
              draw_fn *draw)
{
    vkskin_error err;
    uint32_t n = 0;
    // example: vkskin_vulkan.h
    vkskin_gpu *gpu;
    vkskin_gpu_create(&(vkskin_gpu_desc){.desc_size = sizeof(vkskin_gpu_desc),
                                         .get_instance_proc_addr = get_instance_proc_addr,
                                         .instance = instance,
                                         .physical_device = physical_device,
                                         .device = device,
                                         .queue_family = queue_family,
                                         .api_version = VK_API_VERSION_1_3,
                                         .buffer_device_address = true,
                                         .synchronization2 = true,
                                         .maintenance4 = true},
                      crowd, &gpu, &err);
    for (uint32_t frame = 0; frame < frames; frame++) {
        uint32_t slot = frame % VKSKIN_GPU_SLOTS; // the host's fences say the slot is free
        VkCommandBuffer cmd = begin_frame(slot);  // the host's, recording
        vkskin_crowd_cull(crowd, view_proj, visible, capacity, &n, &err);
        vkskin_crowd_pose(crowd, visible, n, vkskin_gpu_palettes(gpu, slot), palette_capacity,
                          &err);
        vkskin_gpu_skin(gpu, slot, cmd, visible, n, NULL, &err); // records into cmd
        for (uint32_t k = 0; k < n; k++) {
            vkskin_gpu_output out;
            vkskin_gpu_get_output(gpu, slot, visible[k], &out, &err);
            draw(out.buffer, out.offset); // the host's: vkskin_gpu_get_mesh's indices, its
        }                                 // own pipeline and shaders
    }
    // end
    vkskin_gpu_destroy(gpu);
    return err.result != VKSKIN_OK;
}

int main(int argc, char **argv)
{
    if (argc != 2)
        return fail("usage: header_examples DEFAULT_GLB");
    return cpu_side(argv[1], 3);
}
