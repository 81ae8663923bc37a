/* The window: GLFW, its input since the last poll, and what vkskin's renderer needs of it (the
 * instance extensions, a surface, the framebuffer's size). Nothing from GLFW leaves window.c. */
#ifndef VKS_APP_WINDOW_H
#define VKS_APP_WINDOW_H

#include "app.h"

#include "vkskin/vkskin_render.h"

typedef struct app_window app_window;

/* Input gathered by app_window_poll: key presses since the last poll and mouse motion. */
typedef struct app_input {
    bool quit, pause, reset, prev_clip, next_clip, faster, slower; /* pause: toggle it */
    bool bind_pose;                                                /* B: toggle the bind pose */
    bool help, ground, skeleton, screenshot; /* H, G, K: toggles; F12: a screenshot */
    bool motion, root_motion, camera;        /* M, T, C: toggles */
    double drag_x, drag_y;                   /* pixels moved with the left button held */
    double scroll;                           /* wheel steps, positive away from the user */
} app_input;

typedef struct app_window_desc {
    const char *title;
    uint32_t width, height;
} app_window_desc;

/* Opens the window system and a window (no Vulkan yet). Fails with a message naming the missing
 * display when there is none. */
bool app_window_create(const app_window_desc *desc, app_window **out, vkskin_error *err);
void app_window_destroy(app_window *win); /* NULL is ignored */

/* Makes the renderer draw into the window: the window system's instance extensions and surface. */
void app_window_surface(app_window *win, vkskin_renderer_desc *desc);
/* The framebuffer's size now (0 x 0 while minimised). */
void app_window_framebuffer(app_window *win, uint32_t *width, uint32_t *height);
/* Minimises or restores the window (a window manager does it; without one nothing happens). */
void app_window_iconify(app_window *win, bool iconify);
/* Sleeps until an event or 50 ms pass (minimised: no frames to draw). */
void app_window_wait(app_window *win);

void app_window_poll(app_window *win, app_input *input);
void app_window_set_title(app_window *win, const char *title);
/* Asks the window system for a new size (tests resize through this). */
void app_window_request_size(app_window *win, uint32_t width, uint32_t height);

#endif
