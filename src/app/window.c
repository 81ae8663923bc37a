#include "window.h"

#define GLFW_INCLUDE_NONE
#include <GLFW/glfw3.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct app_window {
    GLFWwindow *window;
    app_input input; /* accumulated by the callbacks */
    double last_x, last_y;
    bool dragging;
};

static char glfw_message[256];

static void on_glfw_error(int code, const char *message)
{
    (void)code;
    snprintf(glfw_message, sizeof glfw_message, "%s", message);
}

static void on_key(GLFWwindow *w, int key, int scancode, int action, int mods)
{
    (void)scancode;
    (void)mods;
    if (action != GLFW_PRESS && action != GLFW_REPEAT)
        return;
    app_input *in = &((app_window *)glfwGetWindowUserPointer(w))->input;
    switch (key) {
    case GLFW_KEY_ESCAPE:
        in->quit = true;
        break;
    case GLFW_KEY_SPACE:
        in->pause = in->pause || action == GLFW_PRESS;
        break;
    case GLFW_KEY_R:
        in->reset = true;
        break;
    case GLFW_KEY_B:
        in->bind_pose = in->bind_pose || action == GLFW_PRESS;
        break;
    case GLFW_KEY_H:
        in->help = in->help || action == GLFW_PRESS;
        break;
    case GLFW_KEY_G:
        in->ground = in->ground || action == GLFW_PRESS;
        break;
    case GLFW_KEY_K:
        in->skeleton = in->skeleton || action == GLFW_PRESS;
        break;
    case GLFW_KEY_M:
        in->motion = in->motion || action == GLFW_PRESS;
        break;
    case GLFW_KEY_T:
        in->root_motion = in->root_motion || action == GLFW_PRESS;
        break;
    case GLFW_KEY_C:
        in->camera = in->camera || action == GLFW_PRESS;
        break;
    case GLFW_KEY_F12:
        in->screenshot = in->screenshot || action == GLFW_PRESS;
        break;
    case GLFW_KEY_LEFT:
        in->prev_clip = true;
        break;
    case GLFW_KEY_RIGHT:
        in->next_clip = true;
        break;
    case GLFW_KEY_UP:
        in->faster = true;
        break;
    case GLFW_KEY_DOWN:
        in->slower = true;
        break;
    default:
        break;
    }
}

static void on_button(GLFWwindow *w, int button, int action, int mods)
{
    (void)mods;
    app_window *win = glfwGetWindowUserPointer(w);
    if (button == GLFW_MOUSE_BUTTON_LEFT) {
        win->dragging = action == GLFW_PRESS;
        glfwGetCursorPos(w, &win->last_x, &win->last_y);
    }
}

static void on_cursor(GLFWwindow *w, double x, double y)
{
    app_window *win = glfwGetWindowUserPointer(w);
    if (win->dragging) {
        win->input.drag_x += x - win->last_x;
        win->input.drag_y += y - win->last_y;
    }
    win->last_x = x;
    win->last_y = y;
}

static void on_scroll(GLFWwindow *w, double dx, double dy)
{
    (void)dx;
    ((app_window *)glfwGetWindowUserPointer(w))->input.scroll += dy;
}

bool app_window_create(const app_window_desc *desc, app_window **out, vkskin_error *err)
{
    *out = NULL;
    const char *x11 = getenv("DISPLAY"), *wayland = getenv("WAYLAND_DISPLAY");
    if ((!x11 || !*x11) && (!wayland || !*wayland))
        return app_fail(err, "no display (DISPLAY and WAYLAND_DISPLAY are unset): use "
                             "'vkskin render --out FILE.png' to render without a window");
    glfwSetErrorCallback(on_glfw_error);
    if (!glfwInit())
        return app_fail(err,
                        "cannot open the display: %s; use 'vkskin render --out FILE.png' to "
                        "render without a window",
                        glfw_message);
    if (!glfwVulkanSupported()) {
        glfwTerminate();
        return app_fail(err, "the window system offers no Vulkan support (%s)", glfw_message);
    }
    app_window *win = calloc(1, sizeof *win);
    if (!win) {
        glfwTerminate();
        return app_fail(err, "out of memory");
    }
    glfwWindowHint(GLFW_CLIENT_API, GLFW_NO_API);
    win->window = glfwCreateWindow((int)desc->width, (int)desc->height, desc->title, NULL, NULL);
    if (!win->window) {
        free(win);
        glfwTerminate();
        return app_fail(err, "cannot create a window: %s", glfw_message);
    }
    glfwSetWindowUserPointer(win->window, win);
    glfwSetKeyCallback(win->window, on_key);
    glfwSetMouseButtonCallback(win->window, on_button);
    glfwSetCursorPosCallback(win->window, on_cursor);
    glfwSetScrollCallback(win->window, on_scroll);
    *out = win;
    return true;
}

static VkResult create_surface(VkInstance instance, void *user, VkSurfaceKHR *surface)
{
    return glfwCreateWindowSurface(instance, ((app_window *)user)->window, NULL, surface);
}

void app_window_surface(app_window *win, vkskin_renderer_desc *desc)
{
    desc->instance_extensions = glfwGetRequiredInstanceExtensions(&desc->instance_extension_count);
    desc->create_surface = create_surface;
    desc->surface_user = win;
}

void app_window_framebuffer(app_window *win, uint32_t *width, uint32_t *height)
{
    int w, h;
    glfwGetFramebufferSize(win->window, &w, &h);
    *width = w > 0 ? (uint32_t)w : 0;
    *height = h > 0 ? (uint32_t)h : 0;
}

void app_window_iconify(app_window *win, bool iconify)
{
    if (iconify)
        glfwIconifyWindow(win->window);
    else
        glfwRestoreWindow(win->window);
}

void app_window_wait(app_window *win)
{
    (void)win;
    glfwWaitEventsTimeout(0.05);
}

void app_window_poll(app_window *win, app_input *input)
{
    glfwPollEvents();
    *input = win->input;
    if (glfwWindowShouldClose(win->window))
        input->quit = true;
    win->input = (app_input){0}; /* events, each reported once */
}

void app_window_set_title(app_window *win, const char *title)
{
    glfwSetWindowTitle(win->window, title);
}

void app_window_request_size(app_window *win, uint32_t width, uint32_t height)
{
    glfwSetWindowSize(win->window, (int)width, (int)height);
}

void app_window_destroy(app_window *win)
{
    if (!win)
        return;
    glfwDestroyWindow(win->window);
    glfwTerminate();
    free(win);
}
