#include "window.h"

#define GLFW_INCLUDE_NONE
#include <GLFW/glfw3.h>

#include <stdlib.h>
#include <string.h>

#define MAX_IMAGES 8

struct app_window {
    GLFWwindow *window;
    const gpu_device *dev;
    bool vsync;
    app_input input; /* accumulated by the callbacks */
    double last_x, last_y;
    bool dragging;
    bool resized; /* the framebuffer changed size: rebuild before the next acquire */

    VkSurfaceKHR surface;
    VkSurfaceFormatKHR format;
    VkSwapchainKHR swapchain;
    VkExtent2D extent;
    uint32_t image_count;
    VkImage images[MAX_IMAGES];
    VkImageView views[MAX_IMAGES];
    VkSemaphore presentable[MAX_IMAGES]; /* per image: reused only when the image comes back */
    VkSemaphore acquired[GPU_FRAMES_IN_FLIGHT];
    gpu_image depth;
    VkFormat depth_format;
    uint32_t rebuilds;
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
        in->pause = action == GLFW_PRESS ? !in->pause : in->pause;
        break;
    case GLFW_KEY_R:
        in->reset = true;
        break;
    case GLFW_KEY_B:
        in->bind_pose = in->bind_pose || action == GLFW_PRESS;
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

static void on_resize(GLFWwindow *w, int width, int height)
{
    (void)width;
    (void)height;
    ((app_window *)glfwGetWindowUserPointer(w))->resized = true;
}

bool app_window_create(const app_window_desc *desc, app_window **out, vks_error *err)
{
    *out = NULL;
    const char *x11 = getenv("DISPLAY"), *wayland = getenv("WAYLAND_DISPLAY");
    if ((!x11 || !*x11) && (!wayland || !*wayland))
        return vks_fail(err, "no display (DISPLAY and WAYLAND_DISPLAY are unset): use "
                             "'vkskin render --out FILE.png' to render without a window");
    glfwSetErrorCallback(on_glfw_error);
    if (!glfwInit())
        return vks_fail(err,
                        "cannot open the display: %s; use 'vkskin render --out FILE.png' to "
                        "render without a window",
                        glfw_message);
    if (!glfwVulkanSupported()) {
        glfwTerminate();
        return vks_fail(err, "the window system offers no Vulkan support (%s)", glfw_message);
    }
    app_window *win = calloc(1, sizeof *win);
    if (!win) {
        glfwTerminate();
        return vks_fail_memory(err, "out of memory");
    }
    win->vsync = desc->vsync;
    glfwWindowHint(GLFW_CLIENT_API, GLFW_NO_API);
    win->window = glfwCreateWindow((int)desc->width, (int)desc->height, desc->title, NULL, NULL);
    if (!win->window) {
        free(win);
        glfwTerminate();
        return vks_fail(err, "cannot create a window: %s", glfw_message);
    }
    glfwSetWindowUserPointer(win->window, win);
    glfwSetKeyCallback(win->window, on_key);
    glfwSetMouseButtonCallback(win->window, on_button);
    glfwSetCursorPosCallback(win->window, on_cursor);
    glfwSetScrollCallback(win->window, on_scroll);
    glfwSetFramebufferSizeCallback(win->window, on_resize);
    *out = win;
    return true;
}

static bool can_present(VkInstance instance, VkPhysicalDevice physical, uint32_t family)
{
    return glfwGetPhysicalDevicePresentationSupport(instance, physical, family) == GLFW_TRUE;
}

void app_window_device_desc(gpu_device_desc *desc)
{
    desc->instance_extensions = glfwGetRequiredInstanceExtensions(&desc->instance_extension_count);
    desc->can_present = can_present;
}

static void destroy_swapchain_views(app_window *win)
{
    VkDevice d = win->dev->device;
    for (uint32_t i = 0; i < win->image_count; i++) {
        vkDestroyImageView(d, win->views[i], NULL);
        vkDestroySemaphore(d, win->presentable[i], NULL);
        win->views[i] = VK_NULL_HANDLE;
        win->presentable[i] = VK_NULL_HANDLE;
    }
    gpu_image_destroy(win->dev, &win->depth);
    win->image_count = 0;
}

static VkPresentModeKHR present_mode(const app_window *win)
{
    if (win->vsync)
        return VK_PRESENT_MODE_FIFO_KHR; /* always supported */
    VkPresentModeKHR modes[16];
    uint32_t n = 16;
    vkGetPhysicalDeviceSurfacePresentModesKHR(win->dev->physical, win->surface, &n, modes);
    VkPresentModeKHR best = VK_PRESENT_MODE_FIFO_KHR;
    for (uint32_t i = 0; i < n; i++) {
        if (modes[i] == VK_PRESENT_MODE_MAILBOX_KHR)
            return modes[i];
        if (modes[i] == VK_PRESENT_MODE_IMMEDIATE_KHR)
            best = modes[i];
    }
    return best;
}

/* (Re)creates the swapchain at the framebuffer's size. A zero size (minimised) leaves none. */
static bool build_swapchain(app_window *win, vks_error *err)
{
    const gpu_device *dev = win->dev;
    vkDeviceWaitIdle(dev->device); /* nothing in flight may use the old images or semaphores */
    destroy_swapchain_views(win);
    win->resized = false;

    VkSurfaceCapabilitiesKHR caps;
    VkResult r = vkGetPhysicalDeviceSurfaceCapabilitiesKHR(dev->physical, win->surface, &caps);
    if (r != VK_SUCCESS)
        return vks_fail(err, "cannot query the window surface: %s", gpu_result_name(r));
    int fw, fh;
    glfwGetFramebufferSize(win->window, &fw, &fh);
    VkExtent2D extent = caps.currentExtent;
    if (extent.width == UINT32_MAX) { /* the surface takes the swapchain's size */
        extent.width = (uint32_t)fw;
        extent.height = (uint32_t)fh;
    }
    if (extent.width < caps.minImageExtent.width)
        extent.width = caps.minImageExtent.width;
    if (extent.height < caps.minImageExtent.height)
        extent.height = caps.minImageExtent.height;
    if (extent.width > caps.maxImageExtent.width)
        extent.width = caps.maxImageExtent.width;
    if (extent.height > caps.maxImageExtent.height)
        extent.height = caps.maxImageExtent.height;
    win->extent = extent;
    if (extent.width == 0 || extent.height == 0 || fw == 0 || fh == 0)
        return true; /* minimised: acquire skips until it has a size again */

    uint32_t images = caps.minImageCount + 1;
    if (caps.maxImageCount && images > caps.maxImageCount)
        images = caps.maxImageCount;
    if (images > MAX_IMAGES)
        images = MAX_IMAGES;
    VkSwapchainCreateInfoKHR info = {VK_STRUCTURE_TYPE_SWAPCHAIN_CREATE_INFO_KHR};
    info.surface = win->surface;
    info.minImageCount = images;
    info.imageFormat = win->format.format;
    info.imageColorSpace = win->format.colorSpace;
    info.imageExtent = extent;
    info.imageArrayLayers = 1;
    info.imageUsage = VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT;
    info.imageSharingMode = VK_SHARING_MODE_EXCLUSIVE;
    info.preTransform = caps.currentTransform;
    info.compositeAlpha = (caps.supportedCompositeAlpha & VK_COMPOSITE_ALPHA_OPAQUE_BIT_KHR)
                              ? VK_COMPOSITE_ALPHA_OPAQUE_BIT_KHR
                              : (VkCompositeAlphaFlagBitsKHR)(caps.supportedCompositeAlpha &
                                                              -caps.supportedCompositeAlpha);
    info.presentMode = present_mode(win);
    info.clipped = VK_TRUE;
    info.oldSwapchain = win->swapchain;
    VkSwapchainKHR swapchain;
    r = vkCreateSwapchainKHR(dev->device, &info, NULL, &swapchain);
    if (win->swapchain)
        vkDestroySwapchainKHR(dev->device, win->swapchain, NULL);
    win->swapchain = VK_NULL_HANDLE;
    if (r != VK_SUCCESS)
        return vks_fail(err, "cannot create a swapchain: %s", gpu_result_name(r));
    win->swapchain = swapchain;
    GPU_NAME(dev, VK_OBJECT_TYPE_SWAPCHAIN_KHR, swapchain, "swapchain %ux%u", extent.width,
             extent.height);

    uint32_t n = MAX_IMAGES;
    GPU_CHECK(vkGetSwapchainImagesKHR(dev->device, swapchain, &n, win->images));
    for (uint32_t i = 0; i < n; i++) {
        GPU_NAME(dev, VK_OBJECT_TYPE_IMAGE, win->images[i], "swapchain image %u", i);
        VkImageViewCreateInfo vi = {VK_STRUCTURE_TYPE_IMAGE_VIEW_CREATE_INFO};
        vi.image = win->images[i];
        vi.viewType = VK_IMAGE_VIEW_TYPE_2D;
        vi.format = win->format.format;
        vi.subresourceRange = (VkImageSubresourceRange){VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, 1};
        GPU_CHECK(vkCreateImageView(dev->device, &vi, NULL, &win->views[i]));
        GPU_NAME(dev, VK_OBJECT_TYPE_IMAGE_VIEW, win->views[i], "swapchain view %u", i);
        VkSemaphoreCreateInfo si = {VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO};
        GPU_CHECK(vkCreateSemaphore(dev->device, &si, NULL, &win->presentable[i]));
        GPU_NAME(dev, VK_OBJECT_TYPE_SEMAPHORE, win->presentable[i], "presentable %u", i);
    }
    win->image_count = n;
    win->rebuilds++;
    return gpu_image_create(dev,
                            &(gpu_image_desc){.width = extent.width,
                                              .height = extent.height,
                                              .format = win->depth_format,
                                              .usage = VK_IMAGE_USAGE_DEPTH_STENCIL_ATTACHMENT_BIT,
                                              .name = "window depth"},
                            &win->depth, err);
}

bool app_window_attach(app_window *win, const gpu_device *dev, VkFormat depth_format,
                       vks_error *err)
{
    win->dev = dev;
    win->depth_format = depth_format;
    VkResult r = glfwCreateWindowSurface(dev->instance, win->window, NULL, &win->surface);
    if (r != VK_SUCCESS)
        return vks_fail(err, "cannot create a Vulkan surface for the window: %s",
                        gpu_result_name(r));
    VkSurfaceFormatKHR formats[64];
    uint32_t n = 64;
    r = vkGetPhysicalDeviceSurfaceFormatsKHR(dev->physical, win->surface, &n, formats);
    if ((r != VK_SUCCESS && r != VK_INCOMPLETE) || n == 0)
        return vks_fail(err, "the window surface offers no formats: %s", gpu_result_name(r));
    win->format = formats[0];
    for (uint32_t i = 0; i < n; i++)
        if ((formats[i].format == VK_FORMAT_B8G8R8A8_SRGB ||
             formats[i].format == VK_FORMAT_R8G8B8A8_SRGB) &&
            formats[i].colorSpace == VK_COLOR_SPACE_SRGB_NONLINEAR_KHR) {
            win->format = formats[i];
            break;
        }
    for (uint32_t i = 0; i < GPU_FRAMES_IN_FLIGHT; i++) {
        VkSemaphoreCreateInfo si = {VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO};
        GPU_CHECK(vkCreateSemaphore(dev->device, &si, NULL, &win->acquired[i]));
        GPU_NAME(dev, VK_OBJECT_TYPE_SEMAPHORE, win->acquired[i], "acquired %u", i);
    }
    win->rebuilds = 0;
    bool ok = build_swapchain(win, err);
    win->rebuilds = 0; /* count rebuilds, not the first build */
    return ok;
}

VkFormat app_window_color_format(const app_window *win)
{
    return win->format.format;
}

app_acquire app_window_acquire(app_window *win, uint32_t slot, app_window_frame *frame,
                               vks_error *err)
{
    int fw, fh;
    glfwGetFramebufferSize(win->window, &fw, &fh);
    if (fw == 0 || fh == 0) {
        glfwWaitEventsTimeout(0.05); /* minimised: do not spin */
        win->resized = true;
        return APP_SKIP;
    }
    if (win->resized || !win->swapchain) {
        if (!build_swapchain(win, err))
            return APP_WINDOW_ERROR;
        if (!win->swapchain)
            return APP_SKIP;
    }
    uint32_t image;
    VkResult r = vkAcquireNextImageKHR(win->dev->device, win->swapchain, UINT64_MAX,
                                       win->acquired[slot], VK_NULL_HANDLE, &image);
    if (r == VK_ERROR_OUT_OF_DATE_KHR) {
        win->resized = true;
        return APP_SKIP;
    }
    if (r != VK_SUCCESS && r != VK_SUBOPTIMAL_KHR) {
        vks_fail(err, "cannot acquire a window image: %s", gpu_result_name(r));
        return APP_WINDOW_ERROR;
    }
    if (r == VK_SUBOPTIMAL_KHR) /* still presentable: draw it, rebuild afterwards */
        win->resized = true;
    *frame = (app_window_frame){
        .image = image,
        .acquired = win->acquired[slot],
        .presentable = win->presentable[image],
        .target =
            {
                .color = win->images[image],
                .color_view = win->views[image],
                .depth = &win->depth,
                .extent = win->extent,
                .final_layout = VK_IMAGE_LAYOUT_PRESENT_SRC_KHR,
                /* Presentation is ordered by the semaphore: no access to make visible. */
                .final_access = {VK_PIPELINE_STAGE_2_NONE, VK_ACCESS_2_NONE},
                .clear = {0.046f, 0.05f, 0.06f, 1.0f},
            },
    };
    return APP_ACQUIRED;
}

bool app_window_present(app_window *win, const app_window_frame *frame, vks_error *err)
{
    VkPresentInfoKHR info = {VK_STRUCTURE_TYPE_PRESENT_INFO_KHR};
    info.waitSemaphoreCount = 1;
    info.pWaitSemaphores = &frame->presentable;
    info.swapchainCount = 1;
    info.pSwapchains = &win->swapchain;
    info.pImageIndices = &frame->image;
    VkResult r = vkQueuePresentKHR(win->dev->queue, &info);
    if (r == VK_ERROR_OUT_OF_DATE_KHR || r == VK_SUBOPTIMAL_KHR) {
        win->resized = true;
        return true;
    }
    if (r != VK_SUCCESS)
        return vks_fail(err, "cannot present: %s", gpu_result_name(r));
    return true;
}

void app_window_poll(app_window *win, app_input *input)
{
    glfwPollEvents();
    *input = win->input;
    if (glfwWindowShouldClose(win->window))
        input->quit = true;
    bool paused = win->input.pause;
    win->input = (app_input){.pause = paused}; /* pause is a state, the rest are events */
}

void app_window_set_title(app_window *win, const char *title)
{
    glfwSetWindowTitle(win->window, title);
}

void app_window_request_size(app_window *win, uint32_t width, uint32_t height)
{
    glfwSetWindowSize(win->window, (int)width, (int)height);
}

VkExtent2D app_window_extent(const app_window *win)
{
    return win->extent;
}

uint32_t app_window_rebuilds(const app_window *win)
{
    return win->rebuilds;
}

void app_window_destroy(app_window *win, const gpu_device *dev)
{
    if (!win)
        return;
    if (dev && dev->device) {
        win->dev = dev;
        vkDeviceWaitIdle(dev->device);
        destroy_swapchain_views(win);
        for (uint32_t i = 0; i < GPU_FRAMES_IN_FLIGHT; i++)
            if (win->acquired[i])
                vkDestroySemaphore(dev->device, win->acquired[i], NULL);
        if (win->swapchain)
            vkDestroySwapchainKHR(dev->device, win->swapchain, NULL);
    }
    if (dev && dev->instance && win->surface)
        vkDestroySurfaceKHR(dev->instance, win->surface, NULL);
    glfwDestroyWindow(win->window);
    glfwTerminate();
    free(win);
}
