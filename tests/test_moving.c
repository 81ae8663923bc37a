/* Crowds the crowd moves itself (vkskin_crowd_set_velocities, root motion), drawn by a renderer
 * with validation on (core and synchronization), on the walker (tests/walker.h):
 *   Uploads: a frame uploads exactly the instances placed anew, each a place record (32 bytes)
 *   when it stands on the ground, a whole entry and its scatter record (64 + 16) when it was
 *   placed any other way (here: tilted).
 *   Drawn where they went: the image of a walking crowd equals, but for a few edge pixels, the
 *   image of the same poses with every instance placed again with its world whole
 *   (vkskin_crowd_set_world: the CPU's entries), for both palette paths and both skinnings.
 *   Culling follows: an instance walking sideways out of a fixed view is drawn while its sphere
 *   (restated here against the view's planes) meets the frustum and not from the frame it leaves.
 *   A million walking instances, few of them in view: every one uploaded (a million place
 *   records), validation silent.
 *   usage: test_moving FIXTURES_DIR */
#include "api_check.h"
#include "walker.h"

#include "vkskin/vkskin_render.h"

#define W 160u
#define H 120u
#define PLACE_BYTES 32u
#define WHOLE_BYTES (64u + 16u)

static vkskin_model *load(const char *dir, const char *file)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", dir, file);
    vkskin_model *m = NULL;
    vkskin_error err;
    CHECK(vkskin_model_load(
              &(vkskin_model_desc){.desc_size = sizeof(vkskin_model_desc), .path = path}, &m,
              &err) == VKSKIN_OK);
    if (!m)
        fprintf(stderr, "%s: %s\n", path, err.message);
    return m;
}

static vkskin_crowd *crowd_of(vkskin_model *m, uint32_t n, vkskin_skinning skinning)
{
    vkskin_crowd *c = NULL;
    vkskin_error err;
    CHECK(vkskin_crowd_create(&(vkskin_crowd_desc){.desc_size = sizeof(vkskin_crowd_desc),
                                                   .models = (const vkskin_model *const *)&m,
                                                   .model_count = 1,
                                                   .instance_count = n,
                                                   .skinning = skinning,
                                                   .threads = 2},
                              &c, &err) == VKSKIN_OK);
    if (!c)
        fprintf(stderr, "crowd: %s\n", err.message);
    return c;
}

static vkskin_renderer *renderer_of(vkskin_crowd *c, vkskin_palettes palettes)
{
    vkskin_renderer *r = NULL;
    vkskin_error err;
    CHECK(vkskin_renderer_create(&(vkskin_renderer_desc){.desc_size = sizeof(vkskin_renderer_desc),
                                                         .crowd = c,
                                                         .validate = true,
                                                         .width = W,
                                                         .height = H,
                                                         .fixed_lod = true,
                                                         .pose_every_frame = true,
                                                         .palettes = palettes,
                                                         .raster = VKSKIN_RASTER_HARDWARE},
                                 &r, &err) == VKSKIN_OK);
    if (!r)
        fprintf(stderr, "renderer: %s\n", err.message);
    return r;
}

static void close_renderer(vkskin_renderer *r)
{
    vkskin_messages m;
    vkskin_renderer_destroy(r, &m);
    CHECK(m.errors == 0 && m.warnings == 0);
}

static bool frame(vkskin_renderer *r, const vkskin_view *view, vkskin_frame_info *info)
{
    vkskin_error err;
    const bool ok =
        vkskin_renderer_frame(
            r, &(vkskin_frame_desc){.desc_size = sizeof(vkskin_frame_desc), .view = view}, info,
            &err) == VKSKIN_OK;
    if (!ok)
        fprintf(stderr, "frame: %s\n", err.message);
    CHECK(ok);
    return ok;
}

/* Every instance walking at `speed` (its model's walk's ground speed: no blend, the walk alone
 * time-warped by 1), each in its own direction (a closed form of its index). */
static void walk(vkskin_crowd *c, uint32_t n, float speed)
{
    float *v = malloc(sizeof *v * 2 * n);
    for (uint32_t i = 0; i < n; i++) {
        const float h = 0.7f * (float)i;
        v[2 * i] = speed * sinf(h);
        v[2 * i + 1] = speed * cosf(h);
    }
    vkskin_error err;
    CHECK(vkskin_crowd_set_velocities(c, NULL, n, v, &err) == VKSKIN_OK);
    free(v);
}

/* Pixels of a and b (RGBA) whose channels differ by more than 8 levels. */
static uint32_t differing(const uint8_t *a, const uint8_t *b)
{
    uint32_t n = 0;
    for (uint32_t p = 0; p < W * H; p++) {
        int worst = 0;
        for (int k = 0; k < 3; k++)
            worst =
                abs(a[4 * p + k] - b[4 * p + k]) > worst ? abs(a[4 * p + k] - b[4 * p + k]) : worst;
        n += worst > 8;
    }
    return n;
}

/* Uploads and the image of a walking crowd against whole entries, for one palette path and
 * skinning. */
static void check_walking(vkskin_model *m, float speed, vkskin_palettes palettes,
                          vkskin_skinning skinning)
{
    enum { N = 24 };
    const char *name = palettes == VKSKIN_PALETTES_HOST ? "host palettes" : "palette store";
    const char *how = skinning == VKSKIN_SKINNING_DUAL_QUATERNION ? "dual quaternions" : "linear";
    vkskin_crowd *c = crowd_of(m, N, skinning);
    vkskin_renderer *r = c ? renderer_of(c, palettes) : NULL;
    uint8_t *moving = malloc(4 * W * H), *whole = malloc(4 * W * H);
    if (!r || !moving || !whole) {
        vkskin_renderer_destroy(r, NULL);
        vkskin_crowd_destroy(c);
        free(moving), free(whole);
        return;
    }
    vkskin_view view;
    vkskin_error err;
    CHECK(vkskin_crowd_frame_view(c, (float)W / H, &view, &err) == VKSKIN_OK);
    vkskin_frame_info info;
    walk(c, N, speed);
    vkskin_instance_uploads up = {0};
    bool exact = true;
    for (int f = 0; f < 12; f++) {
        CHECK(vkskin_crowd_advance(c, 1.0 / 30.0, &err) == VKSKIN_OK);
        frame(r, &view, &info);
        CHECK(vkskin_renderer_get_instance_uploads(r, &up, &err) == VKSKIN_OK);
        exact &= up.instances == N && up.bytes == (uint64_t)N * PLACE_BYTES;
    }
    CHECK(exact);
    CHECK(vkskin_renderer_read_image(r, moving, &err) == VKSKIN_OK);
    /* The same poses and places, every instance placed again with its world whole
     * (vkskin_crowd_set_world: the CPU's entries), drawn with no clock moved. */
    for (uint32_t i = 0; i < N; i++) {
        vkskin_instance_info a;
        CHECK(vkskin_crowd_get_instance(c, i, &a, &err) == VKSKIN_OK);
        CHECK(vkskin_crowd_set_world(c, i, a.world, &err) == VKSKIN_OK);
    }
    frame(r, &view, &info);
    vkskin_instance_uploads again = {0};
    CHECK(vkskin_renderer_get_instance_uploads(r, &again, &err) == VKSKIN_OK);
    CHECK(again.instances == N && again.bytes == (uint64_t)N * WHOLE_BYTES);
    CHECK(vkskin_renderer_read_image(r, whole, &err) == VKSKIN_OK);
    const uint32_t differ = differing(moving, whole);
    CHECK(differ <= W * H / 1000); /* a few edge pixels of float rounding at most */
    /* Tilt one: its entry goes whole; only it was placed anew. */
    vkskin_instance_info in;
    CHECK(vkskin_crowd_get_instance(c, 3, &in, &err) == VKSKIN_OK);
    float tilted[16];
    memcpy(tilted, in.world, sizeof tilted);
    tilted[4] += 0.05f; /* its y axis leans over x */
    CHECK(vkskin_crowd_set_world(c, 3, tilted, &err) == VKSKIN_OK);
    frame(r, &view, &info);
    vkskin_instance_uploads tilt = {0};
    CHECK(vkskin_renderer_get_instance_uploads(r, &tilt, &err) == VKSKIN_OK);
    CHECK(tilt.instances == 1 && tilt.bytes == WHOLE_BYTES);
    printf("%s, %s: %u walking instances upload %llu bytes a frame (place records); their image "
           "and that of the same crowd placed whole differ in %u of %u pixels; a tilted one "
           "uploads %llu bytes (its entry whole)\n",
           name, how, N, (unsigned long long)up.bytes, differ, W * H,
           (unsigned long long)tilt.bytes);
    close_renderer(r);
    vkskin_crowd_destroy(c);
    free(moving), free(whole);
}

/* Whether the sphere meets the frustum of view_proj (column-major, Vulkan clip space), by its six
 * planes (Gribb and Hartmann), restated here. */
static bool sphere_in_view(const float vp[16], const float c[3], float radius)
{
    float rows[4][4];
    for (int r = 0; r < 4; r++)
        for (int k = 0; k < 4; k++)
            rows[r][k] = vp[4 * k + r];
    float planes[6][4];
    for (int k = 0; k < 4; k++) {
        planes[0][k] = rows[3][k] + rows[0][k];
        planes[1][k] = rows[3][k] - rows[0][k];
        planes[2][k] = rows[3][k] + rows[1][k];
        planes[3][k] = rows[3][k] - rows[1][k];
        planes[4][k] = rows[2][k];
        planes[5][k] = rows[3][k] - rows[2][k];
    }
    for (int p = 0; p < 6; p++) {
        const float n = sqrtf(planes[p][0] * planes[p][0] + planes[p][1] * planes[p][1] +
                              planes[p][2] * planes[p][2]);
        const float d =
            (planes[p][0] * c[0] + planes[p][1] * c[1] + planes[p][2] * c[2] + planes[p][3]) / n;
        if (d < -radius)
            return false;
    }
    return true;
}

/* One instance walks sideways out of a fixed view: drawn exactly while its sphere meets it. */
static void check_culled(vkskin_model *m, float speed)
{
    vkskin_crowd *c = crowd_of(m, 1, VKSKIN_SKINNING_LINEAR);
    vkskin_renderer *r = c ? renderer_of(c, VKSKIN_PALETTES_STORE) : NULL;
    if (!r) {
        vkskin_crowd_destroy(c);
        return;
    }
    vkskin_view view;
    vkskin_error err;
    CHECK(vkskin_crowd_frame_view(c, (float)W / H, &view, &err) == VKSKIN_OK);
    CHECK(vkskin_crowd_set_velocities(c, NULL, 1, (const float[]){speed, 0.0f}, &err) == VKSKIN_OK);
    uint32_t agree = 0, frames = 0, left_at = 0;
    bool was_in = true;
    for (; frames < 240; frames++) {
        CHECK(vkskin_crowd_advance(c, 1.0 / 30.0, &err) == VKSKIN_OK);
        vkskin_instance_info in;
        CHECK(vkskin_crowd_get_instance(c, 0, &in, &err) == VKSKIN_OK);
        const bool inside = sphere_in_view(view.view_proj, in.center, in.radius);
        vkskin_frame_info info;
        if (!frame(r, &view, &info))
            break;
        agree += info.visible == (inside ? 1u : 0u);
        if (was_in && !inside)
            left_at = frames;
        was_in = inside;
        if (!inside && frames > left_at + 5)
            break;
    }
    CHECK(left_at > 0 && agree == frames + (frames < 240 ? 1 : 0));
    printf("culling: walking out of the view at %.2f m/s, it left at frame %u; the frames drawn "
           "it exactly while its sphere met the frustum (%u of %u)\n",
           speed, left_at, agree, frames + (frames < 240 ? 1 : 0));
    close_renderer(r);
    vkskin_crowd_destroy(c);
}

/* A million walking instances, few in view: all of them uploaded, validation silent. */
static void check_million(vkskin_model *m, float speed)
{
    enum { N = 1000000 };
    vkskin_crowd *c = crowd_of(m, N, VKSKIN_SKINNING_LINEAR);
    vkskin_renderer *r = c ? renderer_of(c, VKSKIN_PALETTES_STORE) : NULL;
    if (!r) {
        vkskin_crowd_destroy(c);
        return;
    }
    vkskin_view view;
    vkskin_error err;
    /* Zoomed in on the instance nearest the framing view's eye: a few in view. */
    CHECK(vkskin_crowd_orbit_view(c, &(vkskin_orbit){.aspect = (float)W / H, .zoom = 0.01f}, &view,
                                  &err) == VKSKIN_OK);
    walk(c, N, speed);
    vkskin_frame_info info = {0};
    vkskin_instance_uploads up = {0};
    for (int f = 0; f < 3; f++) {
        CHECK(vkskin_crowd_advance(c, 1.0 / 30.0, &err) == VKSKIN_OK);
        frame(r, &view, &info);
    }
    CHECK(vkskin_renderer_get_instance_uploads(r, &up, &err) == VKSKIN_OK);
    CHECK(up.instances == N && up.bytes == (uint64_t)N * PLACE_BYTES);
    CHECK(info.visible > 0 && info.visible < N / 10);
    printf("a million walking: %u uploaded (%llu bytes) a frame, %u in view, validation silent\n",
           up.instances, (unsigned long long)up.bytes, info.visible);
    close_renderer(r);
    vkskin_crowd_destroy(c);
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: test_moving FIXTURES_DIR\n");
        return 2;
    }
    vkskin_model *walker = load(argv[1], "walker_in_place.glb");
    if (!walker)
        return check_report("test_moving");
    vkskin_travel_info walk_travel;
    CHECK(vkskin_model_get_travel(walker, (uint32_t)vkskin_model_find_clip(walker, "walk"),
                                  &walk_travel, NULL) == VKSKIN_OK);
    const float speed = walk_travel.ground_speed;
    CHECK(speed > 0.0f);
    for (int p = 0; p < 2; p++)
        for (int s = 0; s < 2; s++)
            check_walking(walker, speed, p ? VKSKIN_PALETTES_HOST : VKSKIN_PALETTES_STORE,
                          s ? VKSKIN_SKINNING_DUAL_QUATERNION : VKSKIN_SKINNING_LINEAR);
    check_culled(walker, speed);
    check_million(walker, speed);
    vkskin_model_destroy(walker);
    return check_report("test_moving");
}
