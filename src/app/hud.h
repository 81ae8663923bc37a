/* What `view` draws over the crowd through the renderer's overlays: the heads-up display (text
 * from stb_easy_font on translucent panels, in pixels), rebuilt when its text changes, and
 * skeletons (lines from each joint to its parent, over everything), rebuilt every frame. */
#ifndef VKS_APP_HUD_H
#define VKS_APP_HUD_H

#include "show.h"

typedef struct app_hud {
    vkskin_overlay_vertex *screen, *lines;
    uint32_t screen_count, line_count;
    uint32_t screen_room, line_room;
    float *joints; /* scratch for one instance's joints, grown as needed */
    uint32_t joint_room;
    int32_t *parents[VKSKIN_MAX_MODELS]; /* each model's joint parents, read at first use */
} app_hud;

/* Empties the text (screen triangles) or the lines, keeping their memory. */
void app_hud_clear_text(app_hud *h);
void app_hud_clear_lines(app_hud *h);
void app_hud_destroy(app_hud *h);
/* Lines of text (\n between them) from (x, y) on a translucent panel around them with a margin,
 * each glyph `scale` times stb_easy_font's 7-pixel cells; returns the panel's bottom. */
float app_hud_box(app_hud *h, float x, float y, float scale, const char *text);
/* The skeleton of instance i: a line from each joint to its parent. */
bool app_hud_skeleton(app_hud *h, const app_show *show, uint32_t i, uint32_t rgba);

#endif
