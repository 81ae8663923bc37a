#include "hud.h"

#include <stdlib.h>
#include <string.h>

#define STB_EASY_FONT_IMPLEMENTATION /* header-only; its functions are static */
#if defined(__GNUC__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wsign-compare"
#pragma GCC diagnostic ignored "-Wunused-function"
#endif
#include <stb/stb_easy_font.h>
#if defined(__GNUC__)
#pragma GCC diagnostic pop
#endif

/* Room for n more vertices in a list; NULL when out of memory. */
static vkskin_overlay_vertex *grow(vkskin_overlay_vertex **list, uint32_t *count, uint32_t *room,
                                   uint32_t n)
{
    if (*count + n > *room) {
        uint32_t want = *room ? *room : 4096;
        while (want < *count + n)
            want *= 2;
        vkskin_overlay_vertex *more = realloc(*list, sizeof *more * want);
        if (!more)
            return NULL;
        *list = more;
        *room = want;
    }
    vkskin_overlay_vertex *at = *list + *count;
    *count += n;
    return at;
}

void app_hud_clear_text(app_hud *h)
{
    h->screen_count = 0;
}

void app_hud_clear_lines(app_hud *h)
{
    h->line_count = 0;
}

void app_hud_destroy(app_hud *h)
{
    free(h->screen);
    free(h->lines);
    free(h->joints);
    for (uint32_t m = 0; m < VKSKIN_MAX_MODELS; m++)
        free(h->parents[m]);
    *h = (app_hud){0};
}

/* A rectangle of pixels [x0, x1) x [y0, y1), from the top left. */
static void hud_panel(app_hud *h, float x0, float y0, float x1, float y1, uint32_t rgba)
{
    vkskin_overlay_vertex *v = grow(&h->screen, &h->screen_count, &h->screen_room, 6);
    if (!v)
        return;
    const float corners[6][2] = {{x0, y0}, {x1, y0}, {x1, y1}, {x0, y0}, {x1, y1}, {x0, y1}};
    for (int k = 0; k < 6; k++)
        v[k] = (vkskin_overlay_vertex){{corners[k][0], corners[k][1], 0.0f}, rgba};
}

/* stb_easy_font draws ASCII 32..126 (and reads past its tables for other bytes): the rest, as in
 * a UTF-8 clip name, become '?'. */
static void printable(const char *text, char *out, size_t size)
{
    size_t n = 0;
    for (; text[n] && n + 1 < size; n++) {
        const unsigned char c = (unsigned char)text[n];
        out[n] = c == '\n' || (c >= 32 && c <= 126) ? (char)c : '?';
    }
    out[n] = '\0';
}

/* Printable text (printable()) from (x, y); returns the height written. */
static float hud_text(app_hud *h, float x, float y, float scale, uint32_t rgba, char *text)
{
    /* stb_easy_font's quads: 4 vertices of x, y, z and 4 color bytes each, the layout of
     * vkskin_overlay_vertex; each quad made two triangles. */
    static vkskin_overlay_vertex quads[4 * 4096];
    const unsigned char color[4] = {(unsigned char)rgba, (unsigned char)(rgba >> 8),
                                    (unsigned char)(rgba >> 16), (unsigned char)(rgba >> 24)};
    const int n =
        stb_easy_font_print(0.0f, 0.0f, text, (unsigned char *)color, quads, (int)sizeof quads);
    vkskin_overlay_vertex *v =
        grow(&h->screen, &h->screen_count, &h->screen_room, 6u * (uint32_t)n);
    if (!v)
        return 0.0f;
    static const int corner[6] = {0, 1, 2, 0, 2, 3};
    for (int q = 0; q < n; q++)
        for (int k = 0; k < 6; k++) {
            vkskin_overlay_vertex c = quads[4 * q + corner[k]];
            c.position[0] = x + c.position[0] * scale;
            c.position[1] = y + c.position[1] * scale;
            c.position[2] = 0.0f;
            *v++ = c;
        }
    return (float)stb_easy_font_height(text) * scale;
}

float app_hud_box(app_hud *h, float x, float y, float scale, const char *raw)
{
    char text[2048];
    printable(raw, text, sizeof text);
    const float margin = 4.0f * scale;
    const float w = (float)stb_easy_font_width(text) * scale,
                ht = (float)stb_easy_font_height(text) * scale;
    hud_panel(h, x, y, x + w + 2.0f * margin, y + ht + 2.0f * margin, 0xb0101010u);
    hud_text(h, x + margin, y + margin, scale, 0xffe8e8e8u, text);
    return y + ht + 2.0f * margin;
}

/* Model m's joint parents, read once. */
static const int32_t *parents_of(app_hud *h, const app_show *show, uint32_t m, uint32_t joints)
{
    if (!h->parents[m] && (h->parents[m] = malloc(sizeof *h->parents[m] * joints)))
        for (uint32_t j = 0; j < joints; j++) {
            vkskin_joint_info joint;
            vkskin_model_get_joint(show->models[m], j, &joint, NULL);
            h->parents[m][j] = joint.parent;
        }
    return h->parents[m];
}

bool app_hud_skeleton(app_hud *h, const app_show *show, uint32_t i, uint32_t rgba)
{
    vkskin_instance_info in;
    vkskin_model_info m;
    if (vkskin_crowd_get_instance(show->crowd, i, &in, NULL) != VKSKIN_OK ||
        vkskin_model_get_info(show->models[in.model], &m, NULL) != VKSKIN_OK)
        return false;
    const int32_t *parents = parents_of(h, show, in.model, m.joint_count);
    if (!parents)
        return false;
    if (m.joint_count > h->joint_room) { /* grown once for the largest skeleton */
        float *more = realloc(h->joints, sizeof *more * 3 * m.joint_count);
        if (!more)
            return false;
        h->joints = more;
        h->joint_room = m.joint_count;
    }
    const float *p = h->joints;
    if (vkskin_crowd_get_joints(show->crowd, i, h->joints, h->joint_room, NULL) != VKSKIN_OK)
        return false;
    for (uint32_t j = 0; j < m.joint_count; j++) {
        if (parents[j] < 0)
            continue;
        vkskin_overlay_vertex *v = grow(&h->lines, &h->line_count, &h->line_room, 2);
        if (!v)
            break;
        const float *a = p + 3 * j, *b = p + 3 * (uint32_t)parents[j];
        v[0] = (vkskin_overlay_vertex){{a[0], a[1], a[2]}, rgba};
        v[1] = (vkskin_overlay_vertex){{b[0], b[1], b[2]}, rgba};
    }
    return true;
}
