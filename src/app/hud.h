/* What `view` draws over the crowd through the renderer's overlays: the heads-up display (text
 * from stb_easy_font on translucent panels, in pixels) and skeletons (lines from each joint to its
 * parent, over everything). The vertices are rebuilt every frame. */
#ifndef VKS_APP_HUD_H
#define VKS_APP_HUD_H

#include "show.h"

typedef struct app_hud {
    vkskin_overlay_vertex *screen, *lines;
    uint32_t screen_count, line_count;
    uint32_t screen_room, line_room;
    float *joints; /* scratch for one instance's joints, grown as needed */
    uint32_t joint_room;
} app_hud;

/* Empties the lists (keeping their memory). */
void app_hud_clear(app_hud *h);
void app_hud_destroy(app_hud *h);
/* A rectangle of pixels [x0, x1) x [y0, y1), from the top left. */
void app_hud_panel(app_hud *h, float x0, float y0, float x1, float y1, uint32_t rgba);
/* Lines of text (\n between them) from (x, y), each glyph `scale` times stb_easy_font's 7-pixel
 * cells; returns the height written. */
float app_hud_text(app_hud *h, float x, float y, float scale, uint32_t rgba, const char *text);
/* Text on a panel around it, with a margin; returns the panel's bottom. */
float app_hud_box(app_hud *h, float x, float y, float scale, const char *text);
/* The skeleton of instance i: a line from each joint to its parent. */
bool app_hud_skeleton(app_hud *h, const app_show *show, uint32_t i, uint32_t rgba);

#endif
