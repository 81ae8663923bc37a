/* vkskin owning the Vulkan instance and device: whole frames of a crowd (culling, levels of
 * detail, posing, skinning, drawing) into an image of its own, read back (headless), or into a
 * window's swapchain. The host's window system gives a surface and its framebuffer size, nothing
 * else: no window-system type crosses this header. What `vkskin render` and `vkskin view` use.
 *
 * Example (tests/header_examples.c compiles it):
 *   vkskin_renderer *r;
 *   vkskin_renderer_create(
 *       &(vkskin_renderer_desc){
 *           .desc_size = sizeof(vkskin_renderer_desc), .crowd = crowd, .width = 640, .height = 480},
 *       &r, &err);
 *   vkskin_view view;
 *   vkskin_crowd_frame_view(crowd, 640.0f / 480.0f, &view, &err);
 *   for (int frame = 0; frame < frames; frame++) {
 *       vkskin_crowd_advance(crowd, dt, &err);
 *       vkskin_renderer_frame(
 *           r, &(vkskin_frame_desc){.desc_size = sizeof(vkskin_frame_desc), .view = &view}, &info,
 *           &err);
 *       vkskin_renderer_read_image(r, rgba, &err); // headless: the frame's pixels
 *   }
 *   vkskin_renderer_destroy(r, NULL);
 *
 * A window: the desc names the instance extensions the window system needs and a function that
 * makes the window's surface on vkskin's instance (with GLFW: glfwGetRequiredInstanceExtensions
 * and glfwCreateWindowSurface); each frame says the framebuffer's size.
 *
 * The device: Vulkan 1.3 with dynamic rendering, synchronization2, maintenance4 and buffer device
 * addresses (every 1.3 device has them); discrete GPUs are preferred, then integrated, then CPU
 * ones, unless desc.device names one (vkskin_list_devices). Each renderer has its own instance
 * and device: any number of them, and of vkskin_gpu objects (vkskin_vulkan.h), live at once.
 *
 * Threads: calls on one renderer must not overlap, and its crowd must not be changed during
 * vkskin_renderer_frame; different renderers, each with its own crowd, may draw from different
 * threads at once. The frame poses the crowd, and plans what it draws, on the crowd's threads. */
#ifndef VKSKIN_RENDER_H
#define VKSKIN_RENDER_H

#include "vkskin/vkskin.h"

#include <vulkan/vulkan.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- Devices ---- */

typedef struct vkskin_device_info {
    char name[256];
    const char *type;        /* "discrete GPU", "integrated GPU", "virtual GPU", "CPU" or "other" */
    uint32_t api_version;    /* VK_MAKE_API_VERSION */
    uint32_t driver_version; /* the vendor's encoding */
    uint32_t vendor_id;
    const char *unusable; /* why vkskin cannot use it, or NULL */
} vkskin_device_info;

/* The Vulkan devices, in the order vkskin_renderer_desc.device counts them: fills
 * devices[0 .. min(capacity, *count)) and sets *count to how many there are (devices may be
 * NULL with capacity 0, to count them). */
VKSKIN_API vkskin_result vkskin_list_devices(vkskin_device_info *devices, uint32_t capacity,
                                             uint32_t *count, vkskin_error *err);

/* ---- The renderer ---- */

typedef struct vkskin_renderer vkskin_renderer;

typedef enum vkskin_skin_mode {
    VKSKIN_SKIN_COMPUTE = 0, /* a compute pass skins the visible instances; the draw reads that */
    VKSKIN_SKIN_VERTEX,      /* the draw's vertex shader skins as it goes */
} vkskin_skin_mode;

/* Which rasterizer draws the crowd. Small triangles (a pixel or less, far characters) are what
 * the graphics pipeline does worst; a compute rasterizer draws them on every shader core into a
 * visibility buffer (64-bit atomics), which a full-screen pass then shades like the graphics
 * pipeline's pixels, depth-tested against them. */
typedef enum vkskin_raster {
    VKSKIN_RASTER_AUTO = 0, /* hybrid where the device has 64-bit buffer atomics, else hardware */
    VKSKIN_RASTER_HARDWARE, /* the graphics pipeline draws everything */
    VKSKIN_RASTER_COMPUTE,  /* the compute rasterizer draws every instance it can (comparison) */
    VKSKIN_RASTER_HYBRID,   /* the compute rasterizer draws the instances whose triangles are
                               small on screen (raster_triangle_px), the graphics pipeline the
                               rest */
} vkskin_raster;

/* The window's surface on `instance` (which vkskin created with the desc's extensions): return
 * its result; vkskin destroys the surface with the instance. */
typedef VkResult (*vkskin_create_surface_fn)(VkInstance instance, void *user,
                                             VkSurfaceKHR *surface);

/* Where the skinning pass reads the palettes (vkskin_renderer_desc.palettes). */
typedef enum vkskin_palettes {
    /* A palette store in device-local memory that the shaders read in place: each visible
     * instance keeps its block of the store while it stays in view, rewritten only when it is
     * posed, so only the posed instances' palettes cross the bus (staged, then copied on the GPU).
     * It holds every instance's palette, or as many as the device's largest buffer (or
     * max_buffer_bytes) holds, whichever is less; the frames past that leave out the instances it
     * cannot hold (vkskin_frame_info.dropped). An instance drawn as a far splat holds one entry
     * (the joint that carries the splat), not its whole palette. */
    VKSKIN_PALETTES_STORE = 0,
    /* Each frame slot's host-visible buffer with every instance's palette, read across the bus
     * by the shaders (with the animation level of detail, each kept pose written into each frame
     * slot's buffer once). One buffer of the whole crowd's palettes: the largest buffer bounds the
     * crowd. */
    VKSKIN_PALETTES_HOST = 1,
} vkskin_palettes;

/* The default far-splat threshold (vkskin_renderer_desc.splat_density): triangles of a model's
 * coarsest level per pixel its outline covers. */
#define VKSKIN_SPLAT_DENSITY 4.0f

typedef struct vkskin_renderer_desc {
    uint32_t desc_size; /* sizeof(vkskin_renderer_desc): the layout the caller was built with */
    /* Kept: it must outlive the renderer. One renderer per crowd at a time (its animation
     * schedule, palette store and moved instances are the renderer's): a second is refused. */
    vkskin_crowd *crowd;
    /* 0: the best device; n: entry n - 1 of vkskin_list_devices. */
    uint32_t device;
    /* Khronos validation with synchronization validation: each message goes to the logger (at
     * the end of this desc; standard error by default) and is counted
     * (vkskin_renderer_destroy). Also on with VKSKIN_VALIDATE=1 in the environment. */
    bool validate;

    /* Headless: the image's size (0: 1280 x 720). With create_surface: a window instead. */
    uint32_t width, height;
    const char *const *instance_extensions; /* the window system's */
    uint32_t instance_extension_count;
    vkskin_create_surface_fn create_surface;
    void *surface_user; /* create_surface's `user` */
    bool no_vsync;      /* present as fast as the surface allows (mailbox, else immediate) */

    vkskin_skin_mode mode;
    uint32_t group_size; /* of the skinning pass: a power of two up to the device's; 0: 64 */
    /* Where the shaders read palettes from (vkskin_palettes; 0: the store). */
    vkskin_palettes palettes;
    /* Room for this many skinned vertices a frame (0: chosen from the device's memory); visible
     * instances past it are skinned in the vertex shader. */
    uint32_t max_skinned_vertices;
    uint32_t max_memory_mib;   /* plan as if each heap had at most this much (0: no cap) */
    uint64_t max_buffer_bytes; /* split buffers above this size (0: the device's limits) */
    bool readback; /* keep every frame's skinned output for vkskin_renderer_read_skinned */

    /* Levels of detail: chosen per instance, the coarsest whose error projects to at most
     * lod_error_px pixels (0: VKSKIN_LOD_ERROR_PX); or, with fixed_lod, level `lod` for all. */
    bool fixed_lod;
    uint32_t lod;
    float lod_error_px;
    /* Animation level of detail, on unless this is set: instances whose bounds project small are
     * posed every 2nd, 4th or 8th frame (staggered) and keep their last pose between. */
    bool pose_every_frame;
    /* How the shaders reach the crowd's buffers (AUTO: descriptors when validating). */
    vkskin_binding binding;
    /* The rasterizer (compute and hybrid need the compute mode and the device's 64-bit buffer
     * atomics), and hybrid's threshold: an instance whose level's mean triangle area projects to
     * at most this many square pixels is drawn in compute (0: VKSKIN_RASTER_TRIANGLE_PX). */
    vkskin_raster raster;
    float raster_triangle_px;
    /* Where validation's messages go (vkskin_logger; zero: standard error). */
    vkskin_logger logger;
    /* Compute mode only (refused in vertex mode): each workgroup of the skinning pass copies its
     * instance's pose into shared memory first, and its vertices read their joints there (the
     * models whose pose fits the device's shared memory). Off by default: what it gains or costs
     * is a GPU's to measure (docs/performance.md). */
    bool stage_palette;
    /* The far splat (compute and hybrid rasterizers): an instance whose model's coarsest level
     * would send more than this many triangles per pixel of its outline is drawn as one
     * primitive, an ellipse of its posed surface's extent and its mean color, until it projects
     * 1.25 times as large (0: VKSKIN_SPLAT_DENSITY); no_splats: never. */
    float splat_density;
    bool no_splats;
} vkskin_renderer_desc;

/* Opens the device (and, for a window, its surface) and creates everything the crowd needs on it.
 * Fails with a message: no usable device, a crowd the device's memory cannot hold (saying how many
 * instances fit), a bad desc. */
VKSKIN_API vkskin_result vkskin_renderer_create(const vkskin_renderer_desc *desc,
                                                vkskin_renderer **renderer, vkskin_error *err);

/* Whether vkskin_renderer_create(desc) would fit the device's and the machine's memory for a
 * crowd made from `crowd` (its models and instance count; desc->crowd is not read), asked before
 * the crowd is made: the renderer's memory plan on counts alone, the headless image included, and
 * the crowd's own state against the machine's memory. Opens a Vulkan instance to read the
 * device's limits and heaps, no device; allocates nothing that grows with the request, so the
 * answer to any request comes at once. VKSKIN_OK, or VKSKIN_ERROR_OUT_OF_MEMORY with the plan's
 * message (vkskin_renderer_create's own: "... at most N instances fit") or, past the machine's
 * memory, one saying so (which create does not check); the desc's mistakes as
 * vkskin_renderer_create reports them. The same one-device-per-process rule applies. The device
 * is the one create would pick but for a window's surface: with several, name it (desc.device). */
VKSKIN_API vkskin_result vkskin_renderer_check(const vkskin_renderer_desc *desc,
                                               const vkskin_crowd_desc *crowd, vkskin_error *err);

/* Validation messages over the renderer's life (vkDestroyInstance's included). */
typedef struct vkskin_messages {
    uint32_t errors, warnings;
} vkskin_messages;

/* Destroys the renderer, its device and instance; `messages` (may be NULL) gets the counts. */
VKSKIN_API void vkskin_renderer_destroy(vkskin_renderer *renderer, vkskin_messages *messages);

#define VKSKIN_MAX_LEVELS 8u

typedef struct vkskin_renderer_info {
    char device_name[256];
    uint32_t api_version, driver_version;
    uint32_t group_size; /* of the skinning pass */
    /* The skinned output's room, in vertices: made small and grown, a quarter past what a frame
     * wants, up to max_output_vertices (what the plan lets it have: every instance at level 0 at
     * once, or half the device-local memory left), unless desc.max_skinned_vertices fixed it. */
    uint64_t max_skinned_vertices;
    VkFormat color_format;       /* of the image or swapchain */
    uint32_t swapchain_rebuilds; /* after the first build (a window) */
    uint32_t width, height;      /* of the last image drawn (headless: the image's) */
    vkskin_binding binding;      /* how the shaders reach buffers: ADDRESSES or DESCRIPTORS */
    vkskin_raster raster;        /* the rasterizer in use: HARDWARE, COMPUTE or HYBRID */
    /* Why AUTO chose HARDWARE (the device lacks the atomics, or vertex mode), else NULL. */
    const char *raster_note;
    /* stage_palette: the shared array's room, in vec4s (the largest staged pose); else 0. */
    uint32_t staged_palette_vec4s;
    uint64_t max_output_vertices; /* the most max_skinned_vertices may grow to */
    uint32_t output_growths;      /* how many times it grew (each waited for the device) */
    /* What the renderer holds now, planned by the plan's arithmetic: device-local memory (models,
     * instance table, palette store, skinned output, image) and host-visible (palettes or their
     * staging, visible lists, scatter records, readback). */
    uint64_t device_bytes, host_bytes;
    /* The palette store (the store palettes): its entries now, in how many buffers (pages, each
     * within the device's storage-buffer range or desc.max_buffer_bytes), the most it may grow
     * to (a store one buffer cannot hold grows by pages, up to 4, while the memory the skinned
     * output leaves holds them) and how many times it grew (each waited for the device). Zeros
     * with host palettes. */
    uint64_t store_entries;
    uint32_t store_pages, store_most_pages, store_growths;
} vkskin_renderer_info;

VKSKIN_API vkskin_result vkskin_renderer_get_info(const vkskin_renderer *renderer,
                                                  vkskin_renderer_info *info, vkskin_error *err);

/* An overlay vertex: a position (world units; or pixels from the top left for screen overlays, z
 * ignored) and a color, RGBA8 in sRGB with red in the lowest byte, alpha-blended. */
typedef struct vkskin_overlay_vertex {
    float position[3];
    uint32_t rgba;
} vkskin_overlay_vertex;

typedef struct vkskin_frame_desc {
    uint32_t desc_size; /* sizeof(vkskin_frame_desc): the layout the caller was built with */
    /* The camera: a perspective projection times a rigid view (vkskin_crowd_frame_view's, or the
     * host's), Vulkan clip space. The key light comes from the camera's upper left. */
    const vkskin_view *view;
    /* A window's framebuffer size now, in pixels (0 x 0: minimised; nothing is drawn). Not read
     * headless. */
    uint32_t width, height;
    /* A ground under the crowd: a plane at y = 0 around it, a grid on it, and a soft contact
     * shadow under each visible instance (the first 4096 of them). */
    bool ground;
    /* Overlays, drawn after the crowd and the ground, copied during the call: world-space
     * triangles, hidden behind the crowd and writing no depth (markers); world-space line segments
     * (vertex pairs) over everything (a skeleton); then screen-space triangles (a heads-up
     * display). At most 2^24 vertices of each. */
    const vkskin_overlay_vertex *lines;
    uint32_t line_vertex_count;
    const vkskin_overlay_vertex *triangles;
    uint32_t triangle_vertex_count;
    const vkskin_overlay_vertex *screen;
    uint32_t screen_vertex_count;
    /* A window's frame kept for vkskin_renderer_read_image (a screenshot). Headless frames always
     * are. */
    bool capture;
} vkskin_frame_desc;

/* What the GPU measured: -1 (times) or UINT64_MAX (counts) when unknown. */
typedef struct vkskin_gpu_stats {
    double skin_ms, draw_ms;   /* the skinning pass (-1 in vertex mode) and the graphics
                                  pipeline's draws (with the ground and overlays) */
    uint64_t triangles;        /* the crowd's draws fed (the ground and overlays not counted) */
    uint64_t skin_invocations; /* of the skinning pass */
    double raster_ms;          /* the compute rasterizer's dispatches (-1: none ran) */
    double resolve_ms;         /* its resolve (-1: none ran) */
    uint64_t pixels_resolved;  /* pixels it covered (0: it drew nothing) */
} vkskin_gpu_stats;

typedef struct vkskin_frame_info {
    bool drawn;       /* false: the window is minimised or its swapchain was rebuilt; try again */
    uint32_t visible; /* instances in the view (drawn) */
    uint32_t posed;   /* of them posed this frame (the rest kept their last pose) */
    /* Bytes of palettes written for the GPU this frame: with the store, the posed instances'
     * (what the frame copies into it); with host palettes, the posed instances' and the kept
     * ones' the frame slot's buffer did not hold yet (each kept pose reaches both slots once). */
    uint64_t palette_bytes;
    /* Instances in the view left out of the frame: the palette store (its pages, as many as the
     * memory holds: vkskin_renderer_info) could not hold every visible instance's palette at
     * once. */
    uint32_t dropped;
    uint32_t skinned;  /* of them skinned by the compute pass (the rest in the vertex shader) */
    uint32_t overflow; /* of them skinned in the vertex shader because the output was full */
    uint64_t overflow_vertices;
    uint64_t vertices;         /* of the visible instances, at their levels of detail */
    uint64_t skinned_vertices; /* of those the compute pass skinned */
    uint32_t model_instances[VKSKIN_MAX_MODELS]; /* visible instances of each model */
    uint32_t level_instances[VKSKIN_MAX_LEVELS]; /* visible instances at each level */
    /* The crowd's draw calls (the ground and overlays not counted): one per mesh of each model at
     * each level drawn, and again for each output chunk, or for instances skinned in the vertex
     * shader, that a (model, level) spans. */
    uint32_t draws;
    /* Triangles sent to the graphics pipeline (the crowd's) and to the compute rasterizer:
     * instances times their levels' triangles. */
    uint64_t triangles_hardware, triangles_compute;
    double cpu_ms; /* culling, levels of detail and posing, on the host */
    /* The rest of the call on the host: waiting for the frame two before (the GPU, when it is
     * the slower), and recording and submitting the frame's commands (and presenting). */
    double wait_ms, record_ms;
    vkskin_gpu_stats gpu; /* of an earlier frame: the last one the GPU finished in this slot */
} vkskin_frame_info;

/* Draws one frame: waits until the frame two before it is done, culls the crowd against the view,
 * chooses levels of detail, poses the visible instances, records the skinning and the draws,
 * submits, and presents (a window). `info` may be NULL. When a submission or presentation fails
 * (out of memory, a lost device), the renderer is spent: every later frame fails; destroy it. */
VKSKIN_API vkskin_result vkskin_renderer_frame(vkskin_renderer *renderer,
                                               const vkskin_frame_desc *desc,
                                               vkskin_frame_info *info, vkskin_error *err);

/* Waits for the last frame and copies its image into `rgba`: width * height * 4 bytes (the
 * size vkskin_renderer_get_info gives), 8-bit sRGB RGBA, the top row first. Headless, any frame;
 * in a window, a frame drawn with `capture`. */
VKSKIN_API vkskin_result vkskin_renderer_read_image(vkskin_renderer *renderer, void *rgba,
                                                    vkskin_error *err);

/* desc.readback and compute mode: waits for the last frame and writes the instance's skinned
 * vertices in it (palette space, before its world transform), its level's vertex count of each:
 * positions and normals (3 floats each), and tangents (4: xyz and the bitangent's sign) when
 * `tangents` is not NULL and the model has them. `level` (may be NULL) gets the level. Fails when
 * the last frame did not skin the instance in the compute pass. */
VKSKIN_API vkskin_result vkskin_renderer_read_skinned(vkskin_renderer *renderer, uint32_t instance,
                                                      float *positions, float *normals,
                                                      float *tangents, uint32_t *level,
                                                      vkskin_error *err);

/* Waits for the last frame drawn and returns what the GPU measured for it (unknowns before any
 * frame). */
VKSKIN_API vkskin_result vkskin_renderer_last_stats(vkskin_renderer *renderer,
                                                    vkskin_gpu_stats *stats, vkskin_error *err);
/* The same for the frame drawn before the last (unknowns when there was none, or when a frame has
 * begun in its slot since). A frame's info carries the measurements of the frame two before it, so
 * these two calls give those of the last two frames, which no later frame's info reports. */
VKSKIN_API vkskin_result vkskin_renderer_previous_stats(vkskin_renderer *renderer,
                                                        vkskin_gpu_stats *stats, vkskin_error *err);

/* ---- Profiling (what `vkskin bench` reports) ---- */

/* What the last frame uploaded for the instance table: the instances placed anew since the frame
 * before (moved, added, given another model, carried by root motion or a velocity), whose entries
 * it stages and scatters into the table, and the bytes that took (the palettes are
 * vkskin_frame_info.palette_bytes). Zeros before the first frame. */
typedef struct vkskin_instance_uploads {
    uint32_t instances;
    uint64_t bytes;
} vkskin_instance_uploads;

VKSKIN_API vkskin_result vkskin_renderer_get_instance_uploads(const vkskin_renderer *renderer,
                                                              vkskin_instance_uploads *uploads,
                                                              vkskin_error *err);

/* The compute rasterizer in the last frame: the resolve passes that shaded its pixels (one for
 * all the materials at once; on the descriptors binding one per output chunk its entries' outputs
 * were in; 0 when it drew nothing), the materials they could shade (every model's), the mip levels
 * left out of the largest textures so that every texture's texels fit the device's storage-buffer
 * range (0: none), the visible entries its ids can name, and those of the last frame it would have
 * drawn but could not name (the graphics pipeline drew them, far splats at their model's coarsest
 * level), and the instances drawn as far splats (one primitive each: vkskin_renderer_desc.
 * splat_density). Zeros before the first frame and with the hardware rasterizer. */
typedef struct vkskin_raster_counts {
    uint32_t resolve_passes, materials, texture_levels_dropped, max_entries;
    uint32_t entries_past_ids;
    uint32_t splats;
} vkskin_raster_counts;

VKSKIN_API vkskin_result vkskin_renderer_get_raster_counts(const vkskin_renderer *renderer,
                                                           vkskin_raster_counts *counts,
                                                           vkskin_error *err);

/* The skinning pass's traffic in the last frame, in bytes (0 in vertex mode), or with whole_crowd
 * in a frame that skinned every instance at level 0, from the streams' layout:
 *   logical: every skinned instance's bind streams read and output written (as if each came
 *            from memory), its palette read once and its visible-list entry;
 *   streams: the per-vertex part of that (bind streams and output);
 *   memory:  what must reach memory: each (model, level)'s bind streams once (its instances read
 *            the same addresses, which the cache keeps), plus every instance's output, palette
 *            and visible-list entry. */
typedef struct vkskin_traffic {
    double logical_bytes, stream_bytes, memory_bytes;
} vkskin_traffic;

VKSKIN_API vkskin_result vkskin_renderer_get_traffic(const vkskin_renderer *renderer,
                                                     bool whole_crowd, vkskin_traffic *traffic,
                                                     vkskin_error *err);

/* A plain copy kernel's time on the device over `bytes` read and written (each buffer at most
 * 1 GiB and a quarter of the largest heap): the bandwidth the skinning pass is held against.
 * Median of 9 runs, each its own submission, waited on. `bytes` gets what was moved, 0 when the
 * device cannot time it (no timestamps). */
typedef struct vkskin_copy_timing {
    double bytes, ms;
} vkskin_copy_timing;

VKSKIN_API vkskin_result vkskin_renderer_time_copy(vkskin_renderer *renderer, uint64_t bytes,
                                                   vkskin_copy_timing *timing, vkskin_error *err);

#ifdef __cplusplus
}
#endif

#endif
