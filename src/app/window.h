/* The window target: a GLFW window, its Vulkan surface and swapchain (recreated on resize and when
 * out of date; frames are skipped while minimised), a depth image of the same size, and the input
 * since the last poll. Nothing from GLFW leaves window.c. */
#ifndef VKS_APP_WINDOW_H
#define VKS_APP_WINDOW_H

#include "draw/draw.h"

typedef struct app_window app_window;

/* Input gathered by app_window_poll: key presses since the last poll and mouse motion. */
typedef struct app_input {
    bool quit, pause, reset, prev_clip, next_clip, faster, slower;
    bool bind_pose;        /* B: toggle the bind pose */
    double drag_x, drag_y; /* pixels moved with the left button held */
    double scroll;         /* wheel steps, positive away from the user */
} app_input;

typedef struct app_window_desc {
    const char *title;
    uint32_t width, height;
    bool vsync; /* FIFO; else MAILBOX or IMMEDIATE when the surface offers them */
} app_window_desc;

/* Opens the window system and a window (no Vulkan yet). Fails with a message naming the missing
 * display when there is none. */
bool app_window_create(const app_window_desc *desc, app_window **out, vks_error *err);
void app_window_destroy(app_window *win, const gpu_device *dev);

/* What the device needs to present: instance extensions and a presentation-support query. */
void app_window_device_desc(gpu_device_desc *desc);

/* Creates the surface, the swapchain and the depth image; picks the color format (sRGB). */
bool app_window_attach(app_window *win, const gpu_device *dev, VkFormat depth_format,
                       vks_error *err);
VkFormat app_window_color_format(const app_window *win);

typedef struct app_window_frame {
    uint32_t image;
    VkSemaphore acquired;    /* signalled when the image may be drawn into */
    VkSemaphore presentable; /* to signal when drawing is done; presentation waits on it */
    vks_draw_target target;
} app_window_frame;

typedef enum app_acquire { APP_ACQUIRED, APP_SKIP, APP_WINDOW_ERROR } app_acquire;

/* Acquires the next image for frame slot `slot` (< GPU_FRAMES_IN_FLIGHT; its previous use must
 * have completed). APP_SKIP: minimised, or the swapchain was rebuilt: draw nothing this time. */
app_acquire app_window_acquire(app_window *win, uint32_t slot, app_window_frame *frame,
                               vks_error *err);
/* Presents; an out-of-date or suboptimal swapchain is rebuilt before the next acquire. */
bool app_window_present(app_window *win, const app_window_frame *frame, vks_error *err);

void app_window_poll(app_window *win, app_input *input);
void app_window_set_title(app_window *win, const char *title);
/* Asks the window system for a new size (tests resize through this). */
void app_window_request_size(app_window *win, uint32_t width, uint32_t height);
VkExtent2D app_window_extent(const app_window *win);
uint32_t app_window_rebuilds(const app_window *win);

#endif
