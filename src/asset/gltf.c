/* glTF -> plain GLB (gltf.h says why). One pass over the JSON: every accessor a mesh primitive,
 * morph target, skin or animation sampler references is decoded to doubles (normalized integers
 * dequantised as the spec says, sparse substitutions applied, meshopt views decompressed) and
 * written again as float (joint indices u16, indices u32) into one new binary chunk; the JSON keeps
 * everything else and points at the new accessors.
 *
 * Every number read from the file is checked before use: a wrong type, an index out of range or a
 * range past the data is one error naming the object. Sizes are size_t (64-bit) and every product
 * is bounded by a division first. Output is capped (see budget) so that a small corrupt file
 * cannot make the rewrite allocate gigabytes. */
#include "gltf.h"
#include "../core/alloc.h"
#include "../../shaders/vks_shared.h" /* VKS_MAX_TARGETS */

#include <cjson/cJSON.h>
#include <meshoptimizer.h>

#include <float.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define GLB_MAGIC 0x46546C67u /* "glTF" */
#define GLB_CHUNK_JSON 0x4E4F534Au
#define GLB_CHUNK_BIN 0x004E4942u
#define MAX_JSON_SIZE ((size_t)256 << 20)
#define MAX_WARNINGS 16
/* Largest integer a JSON number holds exactly (2^53). */
#define MAX_JSON_INT 9007199254740992.0
/* The output may be this much plus BUDGET_FACTOR times the input's bytes: dequantisation grows
 * data at most 4x (u8 -> float) and matrix padding and texture-transform copies add a little. */
#define BUDGET_BASE ((size_t)64 << 20)
#define BUDGET_FACTOR 16
/* A meshopt stream expands at most ~64x (2 header bits per 16 constant bytes); more means the
 * extension's count is a lie. */
#define MESHOPT_MAX_RATIO 128
#define MESHOPT_SLACK ((size_t)64 << 10)

enum {
    CT_I8 = 5120,
    CT_U8 = 5121,
    CT_I16 = 5122,
    CT_U16 = 5123,
    CT_U32 = 5125,
    CT_F32 = 5126,
};

/* How a reference uses an accessor: what it must look like and how it is written out. */
typedef enum use_kind {
    USE_ATTRIBUTE, /* any attribute or sampler output: float */
    USE_WEIGHTS,
    USE_POSITION, /* float with min/max (the spec requires them) */
    USE_TIME,     /* animation input: float SCALAR with min/max */
    USE_IBM,      /* float MAT4 */
    USE_JOINTS,   /* u16 VEC4 */
    USE_INDICES,  /* u32 SCALAR */
} use_kind;

/* Output formats; an accessor used in two formats is written twice. */
enum { SLOT_FLOAT, SLOT_BOUNDED, SLOT_JOINTS, SLOT_INDICES, SLOT_COUNT };

typedef struct byte_vec {
    uint8_t *data;
    size_t size, cap;
} byte_vec;

typedef struct json_list {
    cJSON **items;
    int count;
} json_list;

typedef struct gbuffer {
    bool loaded, fallback; /* fallback: EXT_meshopt_compression placeholder, no data */
    const uint8_t *data;
    size_t size;
    uint8_t *owned;
} gbuffer;

typedef struct gview {
    bool resolved;
    const uint8_t *data;
    size_t size, stride; /* stride 0: tightly packed */
    uint8_t *owned;      /* decompressed meshopt data */
} gview;

typedef struct accessor_info {
    int index;
    int ctype;
    bool normalized;
    int rows, cols, ncomp;
    size_t csize, col_stride, elem_size;
    const char *type;
    size_t count, offset;
    int view; /* -1: zeros */
    const cJSON *sparse, *name;
} accessor_info;

/* KHR_texture_transform of a material's base colour texture: uv' = m * (u, v, 1). */
typedef struct uv_transform {
    bool on;
    unsigned texcoord;
    double m[6]; /* row-major 2x3 */
} uv_transform;

typedef struct transformed {
    int source, material, output;
} transformed;

typedef struct gx {
    const char *name;
    const char *dir;
    vks_error *err;
    cJSON *root;
    const uint8_t *bin;
    size_t bin_size;
    bool has_bin;

    json_list buffers, views, accessors, materials, meshes, skins, animations, images;
    gbuffer *buf;
    gview *view;
    int *map[SLOT_COUNT]; /* source accessor -> output accessor, -1 when not written yet */
    uv_transform *uv;
    transformed *xformed;
    size_t xformed_count, xformed_cap;

    byte_vec out;
    size_t budget;
    size_t decoded, decoded_limit; /* bytes meshopt views decompressed into, and their cap */
    bool version1;                 /* a glTF 1.0 file: left to assimp as it is */
    cJSON *out_views, *out_accessors;
    int out_view_count, out_accessor_count;

    char **warnings;
    uint32_t warning_count;
    vks_gltf_weights *weights; /* the weights channels read (gltf.h) */
    uint32_t weights_count;
} gx;

/* ---- messages ---------------------------------------------------------------------------- */

__attribute__((format(printf, 2, 3))) static bool gx_fail(gx *g, const char *fmt, ...)
{
    char msg[448];
    va_list args;
    va_start(args, fmt);
    vsnprintf(msg, sizeof msg, fmt, args);
    va_end(args);
    return vks_fail(g->err, "%s: %s", g->name, msg);
}

__attribute__((format(printf, 2, 3))) static void gx_warn(gx *g, const char *fmt, ...)
{
    if (g->warning_count >= MAX_WARNINGS)
        return;
    char msg[448];
    va_list args;
    va_start(args, fmt);
    vsnprintf(msg, sizeof msg, fmt, args);
    va_end(args);
    char **grown = vks_realloc(g->warnings, (g->warning_count + 1) * sizeof *grown);
    if (!grown)
        return;
    g->warnings = grown;
    size_t len = strlen(msg) + 1;
    char *copy = vks_malloc(len);
    if (!copy)
        return;
    memcpy(copy, msg, len);
    g->warnings[g->warning_count++] = copy;
}

static bool oom(gx *g)
{
    return gx_fail(g, "out of memory");
}

/* ---- JSON access, every field type-checked ------------------------------------------------ */

static cJSON *member(const cJSON *obj, const char *key)
{
    return cJSON_GetObjectItemCaseSensitive(obj, key);
}

/* An integer member in [0, max]; *out = def when absent and not required. */
static bool get_uint(gx *g, const char *where, const cJSON *obj, const char *key, bool required,
                     uint64_t def, uint64_t max, uint64_t *out)
{
    const cJSON *item = member(obj, key);
    if (!item) {
        if (required)
            return gx_fail(g, "%s: \"%s\" is missing", where, key);
        *out = def;
        return true;
    }
    double v = cJSON_IsNumber(item) ? item->valuedouble : -1.0;
    if (!(v >= 0.0 && v <= (double)max && v <= MAX_JSON_INT && v == floor(v)))
        return gx_fail(g, "%s: \"%s\" must be an integer from 0 to %" PRIu64, where, key, max);
    *out = (uint64_t)v;
    return true;
}

/* A member naming an object of another array: -1 when absent and not required. */
static bool get_ref(gx *g, const char *where, const cJSON *obj, const char *key, bool required,
                    const char *what, int count, int *out)
{
    uint64_t v;
    if (!get_uint(g, where, obj, key, required, UINT64_MAX, (uint64_t)MAX_JSON_INT, &v))
        return false;
    if (v == UINT64_MAX) {
        *out = -1;
        return true;
    }
    if (v >= (uint64_t)count)
        return gx_fail(g, "%s: %s %" PRIu64 " does not exist (the file has %d)", where, what, v,
                       count);
    *out = (int)v;
    return true;
}

static bool get_number(gx *g, const char *where, const cJSON *obj, const char *key, double def,
                       double *out)
{
    const cJSON *item = member(obj, key);
    if (!item) {
        *out = def;
        return true;
    }
    if (!cJSON_IsNumber(item) || !isfinite(item->valuedouble))
        return gx_fail(g, "%s: \"%s\" must be a number", where, key);
    *out = item->valuedouble;
    return true;
}

/* An array of n finite numbers, or def when absent. */
static bool get_numbers(gx *g, const char *where, const cJSON *obj, const char *key, int n,
                        const double *def, double *out)
{
    const cJSON *item = member(obj, key);
    if (!item) {
        memcpy(out, def, (size_t)n * sizeof *out);
        return true;
    }
    if (!cJSON_IsArray(item) || cJSON_GetArraySize(item) != n)
        return gx_fail(g, "%s: \"%s\" must be an array of %d numbers", where, key, n);
    int i = 0;
    const cJSON *e;
    cJSON_ArrayForEach(e, item)
    {
        if (!cJSON_IsNumber(e) || !isfinite(e->valuedouble))
            return gx_fail(g, "%s: \"%s\" must be an array of %d numbers", where, key, n);
        out[i++] = e->valuedouble;
    }
    return true;
}

/* An optional object member: NULL when absent, an error when something else. */
static bool get_object(gx *g, const char *where, const cJSON *obj, const char *key,
                       const cJSON **out)
{
    const cJSON *item = member(obj, key);
    if (item && !cJSON_IsObject(item))
        return gx_fail(g, "%s: \"%s\" must be an object", where, key);
    *out = item;
    return true;
}

/* A top-level array of objects, indexed (cJSON_GetArrayItem is a linear walk). */
static bool list_init(gx *g, json_list *list, const char *key, const char *what)
{
    const cJSON *arr = member(g->root, key);
    if (!arr)
        return true;
    if (!cJSON_IsArray(arr))
        return gx_fail(g, "\"%s\" must be an array", key);
    int n = cJSON_GetArraySize(arr);
    if (n == 0)
        return true;
    list->items = vks_malloc((size_t)n * sizeof *list->items);
    if (!list->items)
        return oom(g);
    cJSON *e;
    cJSON_ArrayForEach(e, arr)
    {
        if (!cJSON_IsObject(e))
            return gx_fail(g, "%s %d is not an object", what, list->count);
        list->items[list->count++] = e;
    }
    return true;
}

static bool put_num(gx *g, cJSON *obj, const char *key, double v)
{
    return cJSON_AddNumberToObject(obj, key, v) ? true : oom(g);
}

/* Replaces (or adds) obj[key] by a number. */
static bool set_num(gx *g, cJSON *obj, const char *key, double v)
{
    cJSON *item = member(obj, key);
    if (item && cJSON_IsNumber(item)) {
        cJSON_SetNumberValue(item, v);
        return true;
    }
    cJSON_DeleteItemFromObjectCaseSensitive(obj, key);
    return put_num(g, obj, key, v);
}

/* ---- output binary chunk ----------------------------------------------------------------- */

/* Whether `bytes` more fit in the output budget. */
static bool budget_check(gx *g, size_t bytes)
{
    if (bytes > g->budget || g->out.size > g->budget - bytes)
        return gx_fail(g,
                       "the rewritten file would be larger than %zu MiB; the input's counts are "
                       "not plausible",
                       g->budget >> 20);
    return true;
}

/* Appends `size` bytes (zeros when data is NULL) at a 4-byte aligned offset. */
static bool out_append(gx *g, const void *data, size_t size, size_t *offset)
{
    size_t start = (g->out.size + 3) & ~(size_t)3;
    if (!budget_check(g, size + 3))
        return false;
    size_t end = start + size;
    if (end > g->out.cap) {
        size_t cap = g->out.cap ? g->out.cap : 4096;
        while (cap < end)
            cap *= 2;
        uint8_t *grown = vks_realloc(g->out.data, cap);
        if (!grown)
            return oom(g);
        g->out.data = grown;
        g->out.cap = cap;
    }
    memset(g->out.data + g->out.size, 0, start - g->out.size);
    if (data)
        memcpy(g->out.data + start, data, size);
    else
        memset(g->out.data + start, 0, size);
    g->out.size = end;
    *offset = start;
    return true;
}

/* A new bufferView over out[offset, offset + size). */
static bool out_view(gx *g, size_t offset, size_t size, int *index)
{
    cJSON *v = cJSON_CreateObject();
    if (!v || !cJSON_AddItemToArray(g->out_views, v)) {
        cJSON_Delete(v);
        return oom(g);
    }
    if (!put_num(g, v, "buffer", 0) || !put_num(g, v, "byteOffset", (double)offset) ||
        !put_num(g, v, "byteLength", (double)size))
        return false;
    *index = g->out_view_count++;
    return true;
}

/* ---- buffers ----------------------------------------------------------------------------- */

static int base64_value(unsigned char c)
{
    if (c >= 'A' && c <= 'Z')
        return c - 'A';
    if (c >= 'a' && c <= 'z')
        return c - 'a' + 26;
    if (c >= '0' && c <= '9')
        return c - '0' + 52;
    return c == '+' ? 62 : c == '/' ? 63 : -1;
}

/* Standard alphabet, '=' padding optional; anything else is an error. */
static bool base64_decode(const char *s, size_t n, uint8_t **out, size_t *out_size)
{
    for (int pad = 0; pad < 2 && n > 0 && s[n - 1] == '='; pad++)
        n--;
    if (n % 4 == 1)
        return false;
    size_t size = n / 4 * 3 + (n % 4 ? n % 4 - 1 : 0);
    uint8_t *d = vks_malloc(size ? size : 1);
    if (!d)
        return false;
    uint32_t acc = 0;
    int bits = 0;
    size_t o = 0;
    for (size_t i = 0; i < n; i++) {
        int v = base64_value((unsigned char)s[i]);
        if (v < 0) {
            vks_free(d);
            return false;
        }
        acc = (acc << 6) | (uint32_t)v;
        bits += 6;
        if (bits >= 8) {
            bits -= 8;
            d[o++] = (uint8_t)(acc >> bits);
        }
    }
    *out = d;
    *out_size = o;
    return true;
}

/* "data:[mime][;params];base64,DATA" -> bytes; mime (possibly empty) copied out. */
static bool decode_data_uri(gx *g, const char *where, const char *uri, uint8_t **out, size_t *size,
                            char *mime, size_t mime_size)
{
    const char *body = uri + 5, *comma = strchr(body, ',');
    if (!comma || comma - body < 7 || memcmp(comma - 7, ";base64", 7) != 0)
        return gx_fail(g, "%s: only base64 data: URIs are supported", where);
    size_t mime_len = strcspn(body, ";,");
    if (mime_len >= mime_size)
        mime_len = 0;
    memcpy(mime, body, mime_len);
    mime[mime_len] = '\0';
    if (!base64_decode(comma + 1, strlen(comma + 1), out, size))
        return gx_fail(g, "%s: the data: URI is not valid base64 (or out of memory)", where);
    return true;
}

static int hex_value(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

/* dir + "/" + the percent-decoded uri, malloc'd; NULL after failing. */
static char *uri_path(gx *g, const char *where, const char *uri)
{
    if (strstr(uri, "://"))
        return gx_fail(g, "%s: URI '%.64s' is not a relative file path", where, uri), NULL;
    size_t dir_len = strlen(g->dir), uri_len = strlen(uri);
    char *path = vks_malloc(dir_len + 1 + uri_len + 1);
    if (!path)
        return oom(g), NULL;
    memcpy(path, g->dir, dir_len);
    char *o = path + dir_len;
    *o++ = '/';
    for (const char *s = uri; *s; s++) {
        if (*s != '%') {
            *o++ = *s;
            continue;
        }
        int hi = hex_value(s[1]), lo = hi < 0 ? -1 : hex_value(s[2]);
        if (lo < 0 || (hi == 0 && lo == 0)) {
            vks_free(path);
            return gx_fail(g, "%s: URI '%.64s' has a bad %% escape", where, uri), NULL;
        }
        *o++ = (char)(hi * 16 + lo);
        s += 2;
    }
    *o = '\0';
    return path;
}

/* Reads the first `size` bytes of the file an external URI names. */
static bool read_external(gx *g, const char *where, const char *uri, size_t size, uint8_t **out)
{
    if (!g->dir)
        return gx_fail(g,
                       "%s: refers to the external file '%.64s', which cannot be read for a "
                       "model in memory",
                       where, uri);
    char *path = uri_path(g, where, uri);
    if (!path)
        return false;
    /* stat before opening: opening a FIFO would block. */
    struct stat st;
    bool regular = stat(path, &st) == 0 && S_ISREG(st.st_mode);
    FILE *f = regular ? fopen(path, "rb") : NULL;
    bool ok = false;
    if (!regular)
        gx_fail(g, "%s: '%s' is missing or not a regular file", where, path);
    else if (!f)
        gx_fail(g, "%s: cannot open '%s'", where, path);
    else if (fstat(fileno(f), &st) != 0 || !S_ISREG(st.st_mode))
        gx_fail(g, "%s: '%s' is not a regular file", where, path);
    else if ((uint64_t)st.st_size < size)
        gx_fail(g, "%s: '%s' has %lld bytes, fewer than the %zu its byteLength says", where, path,
                (long long)st.st_size, size);
    else if (!(*out = vks_malloc(size ? size : 1)))
        oom(g);
    else if (fread(*out, 1, size, f) != size) {
        gx_fail(g, "%s: cannot read '%s'", where, path);
        vks_free(*out);
        *out = NULL;
    } else
        ok = true;
    if (f)
        fclose(f);
    vks_free(path);
    return ok;
}

static bool is_meshopt_fallback(const cJSON *buffer)
{
    const cJSON *ext = member(member(buffer, "extensions"), "EXT_meshopt_compression");
    return cJSON_IsTrue(member(ext, "fallback"));
}

static bool get_buffer(gx *g, int i, gbuffer **out)
{
    gbuffer *b = &g->buf[i];
    *out = b;
    if (b->loaded)
        return true;
    char where[32];
    snprintf(where, sizeof where, "buffer %d", i);
    const cJSON *j = g->buffers.items[i], *uri = member(j, "uri");
    uint64_t len;
    if (!get_uint(g, where, j, "byteLength", true, 0, (uint64_t)MAX_JSON_INT, &len))
        return false;
    if (uri && !cJSON_IsString(uri))
        return gx_fail(g, "%s: \"uri\" must be a string", where);
    if (!uri) {
        if (i == 0 && g->has_bin) {
            if (len > g->bin_size)
                return gx_fail(g,
                               "%s: byteLength %" PRIu64 " is past the GLB binary chunk (%zu "
                               "bytes)",
                               where, len, g->bin_size);
            b->data = g->bin;
        } else if (is_meshopt_fallback(j)) {
            b->fallback = true;
        } else {
            return gx_fail(g, "%s: has no uri and is not the GLB binary chunk", where);
        }
    } else if (strncmp(uri->valuestring, "data:", 5) == 0) {
        char mime[64];
        size_t got;
        if (!decode_data_uri(g, where, uri->valuestring, &b->owned, &got, mime, sizeof mime))
            return false;
        if (got < len)
            return gx_fail(g, "%s: its data: URI holds %zu bytes, fewer than byteLength %" PRIu64,
                           where, got, len);
        b->data = b->owned;
    } else {
        if (!read_external(g, where, uri->valuestring, (size_t)len, &b->owned))
            return false;
        b->data = b->owned;
        /* External data is input too: let the output grow with it. */
        g->budget += (len < SIZE_MAX / (4 * BUDGET_FACTOR)) ? BUDGET_FACTOR * len : 0;
    }
    b->size = (size_t)len;
    b->loaded = true;
    return true;
}

/* ---- buffer views, EXT_meshopt_compression ----------------------------------------------- */

/* An EXT_meshopt_compression object's fields, checked against each other. */
typedef struct meshopt_ext {
    int buffer;
    uint64_t offset, len, stride, count;
    const char *mode;
    int filter; /* 0 NONE, 1 OCTAHEDRAL, 2 QUATERNION, 3 EXPONENTIAL */
    bool attributes, triangles;
} meshopt_ext;

/* Reads the extension object ext: its fields, a known mode and filter, and a stride and count
 * that fit them. */
static bool read_meshopt(gx *g, const char *where, const cJSON *ext, meshopt_ext *mo)
{
    uint64_t offset, len, stride, count;
    int src;
    if (!get_ref(g, where, ext, "buffer", true, "buffer", g->buffers.count, &src) ||
        !get_uint(g, where, ext, "byteOffset", false, 0, (uint64_t)MAX_JSON_INT, &offset) ||
        !get_uint(g, where, ext, "byteLength", true, 0, (uint64_t)MAX_JSON_INT, &len) ||
        !get_uint(g, where, ext, "byteStride", true, 0, 256, &stride) ||
        !get_uint(g, where, ext, "count", true, 0, (uint64_t)MAX_JSON_INT, &count))
        return false;
    const cJSON *mode = member(ext, "mode"), *filter = member(ext, "filter");
    if (!cJSON_IsString(mode) || (filter && !cJSON_IsString(filter)))
        return gx_fail(g, "%s: EXT_meshopt_compression: \"mode\" and \"filter\" must be strings",
                       where);
    const char *m = mode->valuestring, *f = filter ? filter->valuestring : "NONE";
    bool attributes = strcmp(m, "ATTRIBUTES") == 0, triangles = strcmp(m, "TRIANGLES") == 0;
    if (!attributes && !triangles && strcmp(m, "INDICES") != 0)
        return gx_fail(g, "%s: EXT_meshopt_compression: unknown mode '%.32s'", where, m);
    bool stride_ok = attributes ? (stride >= 4 && stride % 4 == 0) : (stride == 2 || stride == 4);
    if (!stride_ok || count == 0 || (triangles && count % 3 != 0))
        return gx_fail(g,
                       "%s: EXT_meshopt_compression: byteStride %" PRIu64 " or count %" PRIu64
                       " is not valid for mode %s",
                       where, stride, count, m);
    int filter_id = strcmp(f, "NONE") == 0          ? 0
                    : strcmp(f, "OCTAHEDRAL") == 0  ? 1
                    : strcmp(f, "QUATERNION") == 0  ? 2
                    : strcmp(f, "EXPONENTIAL") == 0 ? 3
                                                    : -1;
    /* The filters' own asserts compile away in release builds: check what they assume. */
    if (filter_id < 0 || (filter_id > 0 && !attributes) ||
        (filter_id == 1 && stride != 4 && stride != 8) || (filter_id == 2 && stride != 8))
        return gx_fail(g,
                       "%s: EXT_meshopt_compression: filter '%.32s' does not fit mode %s and "
                       "byteStride %" PRIu64,
                       where, f, m, stride);
    *mo = (meshopt_ext){.buffer = src,
                        .offset = offset,
                        .len = len,
                        .stride = stride,
                        .count = count,
                        .mode = m,
                        .filter = filter_id,
                        .attributes = attributes,
                        .triangles = triangles};
    return true;
}

/* Decompresses a view (extension object ext) into v->owned. */
static bool decode_meshopt(gx *g, const char *where, const cJSON *ext, gview *v)
{
    meshopt_ext mo = {0};
    if (!read_meshopt(g, where, ext, &mo))
        return false;
    const uint64_t offset = mo.offset, len = mo.len, stride = mo.stride, count = mo.count;
    const int src = mo.buffer;
    gbuffer *b;
    if (!get_buffer(g, src, &b))
        return false;
    if (b->fallback)
        return gx_fail(g, "%s: EXT_meshopt_compression: buffer %d has no data", where, src);
    if (offset > b->size || len > b->size - offset)
        return gx_fail(g,
                       "%s: EXT_meshopt_compression: bytes %" PRIu64 "..%" PRIu64
                       " are past the end of buffer %d (%zu bytes)",
                       where, offset, offset + len, src, b->size);
    size_t limit = len * MESHOPT_MAX_RATIO + MESHOPT_SLACK;
    if (count > limit / stride)
        return gx_fail(g,
                       "%s: EXT_meshopt_compression: count %" PRIu64 " is implausible for %" PRIu64
                       " compressed bytes",
                       where, count, len);
    size_t size = (size_t)(count * stride);
    /* Each view is capped by its own bytes above; many views can name the same bytes, so the
     * sum is capped by the input's size too. */
    if (size > g->decoded_limit - g->decoded)
        return gx_fail(g,
                       "%s: EXT_meshopt_compression: the compressed views decode to more than "
                       "%zu MiB in all",
                       where, g->decoded_limit >> 20);
    g->decoded += size;
    if (!budget_check(g, size))
        return false;
    if (!(v->owned = vks_malloc(size)))
        return oom(g);
    const uint8_t *data = b->data + offset;
    int rc = mo.attributes  ? meshopt_decodeVertexBuffer(v->owned, count, stride, data, len)
             : mo.triangles ? meshopt_decodeIndexBuffer(v->owned, count, stride, data, len)
                            : meshopt_decodeIndexSequence(v->owned, count, stride, data, len);
    if (rc != 0)
        return gx_fail(g, "%s: EXT_meshopt_compression: the %s data does not decode (error %d)",
                       where, mo.mode, rc);
    if (mo.filter == 1)
        meshopt_decodeFilterOct(v->owned, count, stride);
    else if (mo.filter == 2)
        meshopt_decodeFilterQuat(v->owned, count, stride);
    else if (mo.filter == 3)
        meshopt_decodeFilterExp(v->owned, count, stride);
    g->budget += size < SIZE_MAX / 8 ? 4 * size : 0;
    v->data = v->owned;
    v->size = size;
    v->stride = mo.attributes ? stride : 0;
    return true;
}

static bool get_view(gx *g, int i, gview **out)
{
    gview *v = &g->view[i];
    *out = v;
    if (v->resolved)
        return true;
    char where[32];
    snprintf(where, sizeof where, "bufferView %d", i);
    const cJSON *j = g->views.items[i];
    int bi;
    uint64_t offset, len, stride;
    if (!get_ref(g, where, j, "buffer", true, "buffer", g->buffers.count, &bi) ||
        !get_uint(g, where, j, "byteOffset", false, 0, (uint64_t)MAX_JSON_INT, &offset) ||
        !get_uint(g, where, j, "byteLength", true, 0, (uint64_t)MAX_JSON_INT, &len) ||
        !get_uint(g, where, j, "byteStride", false, 0, 252, &stride))
        return false;
    gbuffer *b;
    if (!get_buffer(g, bi, &b))
        return false;
    if (offset > b->size || len > b->size - offset)
        return gx_fail(g,
                       "%s: bytes %" PRIu64 "..%" PRIu64 " are past the end of buffer %d (%zu "
                       "bytes)",
                       where, offset, offset + len, bi, b->size);
    const cJSON *ext = member(member(j, "extensions"), "EXT_meshopt_compression");
    if (ext) {
        if (!cJSON_IsObject(ext))
            return gx_fail(g, "%s: EXT_meshopt_compression must be an object", where);
        if (!decode_meshopt(g, where, ext, v))
            return false;
    } else if (b->fallback) {
        return gx_fail(g,
                       "%s: buffer %d is an EXT_meshopt_compression fallback without data, and "
                       "this view is not compressed",
                       where, bi);
    } else {
        v->data = b->data + offset;
        v->size = (size_t)len;
        v->stride = (size_t)stride;
    }
    v->resolved = true;
    return true;
}

/* ---- accessors --------------------------------------------------------------------------- */

static size_t component_size(int ctype)
{
    switch (ctype) {
    case CT_I8:
    case CT_U8:
        return 1;
    case CT_I16:
    case CT_U16:
        return 2;
    case CT_U32:
    case CT_F32:
        return 4;
    default:
        return 0;
    }
}

static const struct {
    const char *name;
    int rows, cols;
} accessor_types[] = {{"SCALAR", 1, 1}, {"VEC2", 2, 1}, {"VEC3", 3, 1}, {"VEC4", 4, 1},
                      {"MAT2", 2, 2},   {"MAT3", 3, 3}, {"MAT4", 4, 4}};

static bool parse_accessor(gx *g, int index, accessor_info *a)
{
    char where[32];
    snprintf(where, sizeof where, "accessor %d", index);
    const cJSON *j = g->accessors.items[index];
    uint64_t ctype, count, offset;
    memset(a, 0, sizeof *a);
    a->index = index;
    if (!get_uint(g, where, j, "componentType", true, 0, 65535, &ctype) ||
        !get_uint(g, where, j, "count", true, 0, (uint64_t)MAX_JSON_INT, &count) ||
        !get_uint(g, where, j, "byteOffset", false, 0, (uint64_t)MAX_JSON_INT, &offset) ||
        !get_ref(g, where, j, "bufferView", false, "bufferView", g->views.count, &a->view) ||
        !get_object(g, where, j, "sparse", &a->sparse))
        return false;
    a->ctype = (int)ctype;
    a->csize = component_size(a->ctype);
    if (!a->csize)
        return gx_fail(g, "%s: componentType %d is not a glTF component type", where, a->ctype);
    if (count == 0)
        return gx_fail(g, "%s: count must be at least 1", where);
    const cJSON *type = member(j, "type"), *norm = member(j, "normalized");
    for (size_t t = 0; cJSON_IsString(type) && t < sizeof accessor_types / sizeof *accessor_types;
         t++)
        if (strcmp(type->valuestring, accessor_types[t].name) == 0) {
            a->type = accessor_types[t].name;
            a->rows = accessor_types[t].rows;
            a->cols = accessor_types[t].cols;
        }
    if (!a->type)
        return gx_fail(g, "%s: \"type\" must be one of SCALAR, VEC2..4, MAT2..4", where);
    if (norm && !cJSON_IsBool(norm))
        return gx_fail(g, "%s: \"normalized\" must be true or false", where);
    a->normalized = cJSON_IsTrue(norm) && a->ctype != CT_F32 && a->ctype != CT_U32;
    if (cJSON_IsTrue(norm) && !a->normalized)
        gx_warn(g, "%s: normalized float or u32 components; read as plain", where);
    a->ncomp = a->rows * a->cols;
    /* Matrix columns start on 4-byte boundaries (spec 3.6.2.4): MAT2/MAT3 of bytes, MAT3 of
     * shorts are padded. */
    a->col_stride = (size_t)a->rows * a->csize;
    if (a->cols > 1)
        a->col_stride = (a->col_stride + 3) & ~(size_t)3;
    a->elem_size = a->col_stride * (size_t)a->cols;
    a->count = (size_t)count;
    a->offset = (size_t)offset;
    a->name = member(j, "name");
    return true;
}

/* A normalized integer component's value (the spec's dequantisation, 3.11). */
static double normalize_component(int ctype, double v)
{
    switch (ctype) {
    case CT_I8:
        return fmax(v / 127.0, -1.0);
    case CT_U8:
        return v / 255.0;
    case CT_I16:
        return fmax(v / 32767.0, -1.0);
    default:
        return v / 65535.0;
    }
}

static double read_component(const uint8_t *p, int ctype, bool normalized)
{
    switch (ctype) {
    case CT_I8: {
        int8_t v;
        memcpy(&v, p, 1);
        return normalized ? normalize_component(ctype, v) : v;
    }
    case CT_U8:
        return normalized ? normalize_component(ctype, p[0]) : p[0];
    case CT_I16: {
        int16_t v;
        memcpy(&v, p, 2);
        return normalized ? normalize_component(ctype, v) : v;
    }
    case CT_U16: {
        uint16_t v;
        memcpy(&v, p, 2);
        return normalized ? normalize_component(ctype, v) : v;
    }
    case CT_U32: {
        uint32_t v;
        memcpy(&v, p, 4);
        return v;
    }
    default: {
        float v;
        memcpy(&v, p, 4);
        return v;
    }
    }
}

static void read_element(const accessor_info *a, const uint8_t *p, double *dst)
{
    for (int c = 0; c < a->cols; c++)
        for (int r = 0; r < a->rows; r++)
            *dst++ = read_component(p + (size_t)c * a->col_stride + (size_t)r * a->csize, a->ctype,
                                    a->normalized);
}

/* Whether `count` items of `size` bytes spaced `stride` apart, from `offset`, fit in `avail`. */
static bool range_fits(size_t avail, size_t offset, size_t count, size_t size, size_t stride)
{
    if (offset > avail || size > avail - offset)
        return false;
    return count - 1 <= (stride ? (avail - offset - size) / stride : SIZE_MAX);
}

static bool apply_sparse(gx *g, const char *where, const accessor_info *a, double *dst)
{
    const cJSON *sp = a->sparse, *idx = NULL, *val = NULL;
    uint64_t count, ioff, voff, ictype;
    int iview, vview;
    if (!get_uint(g, where, sp, "count", true, 0, a->count, &count) ||
        !get_object(g, where, sp, "indices", &idx) || !get_object(g, where, sp, "values", &val))
        return false;
    if (!idx || !val)
        return gx_fail(g, "%s: sparse needs \"indices\" and \"values\"", where);
    if (!get_ref(g, where, idx, "bufferView", true, "bufferView", g->views.count, &iview) ||
        !get_uint(g, where, idx, "byteOffset", false, 0, (uint64_t)MAX_JSON_INT, &ioff) ||
        !get_uint(g, where, idx, "componentType", true, 0, 65535, &ictype) ||
        !get_ref(g, where, val, "bufferView", true, "bufferView", g->views.count, &vview) ||
        !get_uint(g, where, val, "byteOffset", false, 0, (uint64_t)MAX_JSON_INT, &voff))
        return false;
    if (ictype != CT_U8 && ictype != CT_U16 && ictype != CT_U32)
        return gx_fail(g, "%s: sparse indices must be unsigned integers", where);
    if (count == 0)
        return true;
    size_t isize = component_size((int)ictype);
    gview *iv, *vv;
    if (!get_view(g, iview, &iv) || !get_view(g, vview, &vv))
        return false;
    if (!range_fits(iv->size, (size_t)ioff, (size_t)count, isize, isize) ||
        !range_fits(vv->size, (size_t)voff, (size_t)count, a->elem_size, a->elem_size))
        return gx_fail(g, "%s: sparse indices or values are past the end of their bufferView",
                       where);
    for (size_t k = 0; k < count; k++) {
        double i = read_component(iv->data + ioff + k * isize, (int)ictype, false);
        if (i >= (double)a->count)
            return gx_fail(g, "%s: sparse index %.0f is out of range (count %zu)", where, i,
                           a->count);
        read_element(a, vv->data + voff + k * a->elem_size, dst + (size_t)i * (size_t)a->ncomp);
    }
    return true;
}

/* Decodes all elements into a malloc'd array of count * ncomp doubles. */
static bool decode_accessor(gx *g, const accessor_info *a, double **out)
{
    char where[32];
    snprintf(where, sizeof where, "accessor %d", a->index);
    /* Bound the allocation by what its output would take before making it. */
    if (a->count > SIZE_MAX / 64 || !budget_check(g, a->count * (size_t)a->ncomp * 4))
        return false;
    double *vals = vks_calloc(a->count * (size_t)a->ncomp, sizeof *vals);
    if (!vals)
        return oom(g);
    *out = vals;
    if (a->view >= 0) {
        gview *v;
        if (!get_view(g, a->view, &v))
            return false;
        size_t stride = v->stride ? v->stride : a->elem_size;
        if (stride < a->elem_size)
            return gx_fail(g,
                           "%s: byteStride %zu of bufferView %d is smaller than an element "
                           "(%zu bytes)",
                           where, stride, a->view, a->elem_size);
        if (!range_fits(v->size, a->offset, a->count, a->elem_size, stride))
            return gx_fail(g,
                           "%s: %zu elements of %zu bytes from byteOffset %zu are past the end "
                           "of bufferView %d (%zu bytes)",
                           where, a->count, a->elem_size, a->offset, a->view, v->size);
        if (a->offset % a->csize || stride % a->csize)
            gx_warn(g, "%s: byteOffset or byteStride not a multiple of the component size", where);
        for (size_t i = 0; i < a->count; i++)
            read_element(a, v->data + a->offset + i * stride, vals + i * (size_t)a->ncomp);
    }
    return !a->sparse || apply_sparse(g, where, a, vals);
}

/* Checks what a use requires of an accessor (before decoding). */
static bool check_use(gx *g, const char *where, const accessor_info *a, use_kind use)
{
    bool int_type = a->ctype == CT_U8 || a->ctype == CT_U16 || a->ctype == CT_U32;
    switch (use) {
    case USE_INDICES:
        if (a->ncomp != 1 || !int_type)
            return gx_fail(g, "%s: accessor %d: indices must be SCALAR u8, u16 or u32", where,
                           a->index);
        return true;
    case USE_JOINTS:
    case USE_WEIGHTS:
        if (strcmp(a->type, "VEC4") != 0)
            return gx_fail(g, "%s: accessor %d must be VEC4", where, a->index);
        return true;
    case USE_TIME:
        if (a->ncomp != 1)
            return gx_fail(g, "%s: accessor %d must be SCALAR", where, a->index);
        return true;
    case USE_IBM:
        if (a->ncomp != 16)
            return gx_fail(g, "%s: accessor %d must be MAT4", where, a->index);
        return true;
    default:
        return true;
    }
}

static int use_slot(use_kind use)
{
    switch (use) {
    case USE_POSITION:
    case USE_TIME:
        return SLOT_BOUNDED;
    case USE_JOINTS:
        return SLOT_JOINTS;
    case USE_INDICES:
        return SLOT_INDICES;
    default:
        return SLOT_FLOAT;
    }
}

/* Doubles beyond float range become infinities (a plain cast would be undefined). */
static float to_float(double d)
{
    if (d > FLT_MAX)
        return INFINITY;
    if (d < -FLT_MAX)
        return -INFINITY;
    return (float)d;
}

/* Writes decoded values as a new accessor in the given slot's format. */
static bool emit_accessor(gx *g, const accessor_info *a, int slot, const double *vals, int *index)
{
    size_t n = a->count * (size_t)a->ncomp, csize = slot == SLOT_JOINTS ? 2 : 4, offset;
    if (!out_append(g, NULL, n * csize, &offset))
        return false;
    uint8_t *p = g->out.data + offset;
    for (size_t i = 0; i < n; i++, p += csize) {
        if (slot == SLOT_JOINTS) {
            uint16_t v = (uint16_t)vals[i];
            memcpy(p, &v, 2);
        } else if (slot == SLOT_INDICES) {
            uint32_t v = (uint32_t)vals[i];
            memcpy(p, &v, 4);
        } else {
            float v = to_float(vals[i]);
            memcpy(p, &v, 4);
        }
    }
    int view;
    if (!out_view(g, offset, n * csize, &view))
        return false;
    cJSON *acc = cJSON_CreateObject();
    if (!acc || !cJSON_AddItemToArray(g->out_accessors, acc)) {
        cJSON_Delete(acc);
        return oom(g);
    }
    int ctype = slot == SLOT_JOINTS ? CT_U16 : slot == SLOT_INDICES ? CT_U32 : CT_F32;
    if (!put_num(g, acc, "bufferView", view) || !put_num(g, acc, "componentType", ctype) ||
        !put_num(g, acc, "count", (double)a->count) ||
        !cJSON_AddStringToObject(acc, "type", a->type))
        return oom(g);
    if (cJSON_IsString(a->name) && !cJSON_AddStringToObject(acc, "name", a->name->valuestring))
        return oom(g);
    if (slot == SLOT_BOUNDED) {
        /* JSON has no NaN or infinity: bounds are over the finite values (0 when none). */
        double lo[16] = {0}, hi[16] = {0};
        bool seen[16] = {false};
        for (size_t i = 0; i < n; i++) {
            float f = to_float(vals[i]);
            int c = (int)(i % (size_t)a->ncomp);
            if (!isfinite(f))
                continue;
            lo[c] = seen[c] && lo[c] < f ? lo[c] : f;
            hi[c] = seen[c] && hi[c] > f ? hi[c] : f;
            seen[c] = true;
        }
        for (int c = 0; c < a->ncomp; c++)
            if (!seen[c])
                lo[c] = hi[c] = 0.0;
        cJSON *mn = cJSON_CreateDoubleArray(lo, a->ncomp),
              *mx = cJSON_CreateDoubleArray(hi, a->ncomp);
        if (!mn || !cJSON_AddItemToObject(acc, "min", mn)) {
            cJSON_Delete(mn);
            cJSON_Delete(mx);
            return oom(g);
        }
        if (!mx || !cJSON_AddItemToObject(acc, "max", mx)) {
            cJSON_Delete(mx);
            return oom(g);
        }
    }
    *index = g->out_accessor_count++;
    return true;
}

/* Output-side checks and warnings once the values are known. */
static bool check_values(gx *g, const char *where, const accessor_info *a, use_kind use,
                         const double *vals)
{
    if (use == USE_JOINTS) {
        for (size_t i = 0; i < a->count * 4; i++)
            if (!(vals[i] >= 0.0 && vals[i] <= 65535.0 && vals[i] == floor(vals[i])))
                return gx_fail(g, "%s: accessor %d: joint index %g is not an integer in 0..65535",
                               where, a->index, vals[i]);
        if (a->ctype != CT_U8 && a->ctype != CT_U16)
            gx_warn(g,
                    "%s: accessor %d: joint indices of componentType %d (the spec allows u8 "
                    "and u16)",
                    where, a->index, a->ctype);
    }
    if (use == USE_WEIGHTS && a->ctype != CT_F32 && !a->normalized)
        gx_warn(g, "%s: accessor %d: weights are integers that are not normalized; read as is",
                where, a->index);
    return true;
}

/* A declared bound as the decoded values read: glTF's min and max hold the stored components
 * (spec 3.6.2: "normalized has no effect on array values"), floats rounded to single precision. */
static double declared_bound(const accessor_info *a, double v)
{
    if (a->ctype == CT_F32)
        return to_float(v);
    return a->normalized ? normalize_component(a->ctype, v) : v;
}

/* An accessor's values against the range its min and max declare (required of positions and
 * animation inputs, allowed on any accessor): a value outside it, beyond the rounding of bounds
 * printed in JSON (the tolerance below), is damage (a flipped bit, a cut or mangled
 * export), and the file is refused rather than clamped: a clamped value would still be wrong,
 * only quieter, and neither the data nor its bounds can be trusted. Bounds that are not arrays
 * of the accessor's component count are ignored with a warning. */
static bool check_declared_range(gx *g, const char *where, const accessor_info *a,
                                 const double *vals)
{
    const cJSON *j = g->accessors.items[a->index];
    const cJSON *mn = member(j, "min"), *mx = member(j, "max");
    if (!mn && !mx)
        return true;
    double lo[16], hi[16];
    const cJSON *bounds[2] = {mn, mx};
    double *into[2] = {lo, hi};
    for (int b = 0; b < 2; b++) {
        const cJSON *arr = bounds[b];
        if (!arr) {
            for (int c = 0; c < a->ncomp; c++)
                into[b][c] = b ? INFINITY : -INFINITY;
            continue;
        }
        if (!cJSON_IsArray(arr) || cJSON_GetArraySize(arr) != a->ncomp) {
            gx_warn(g, "accessor %d: \"%s\" is not an array of %d numbers; not checked", a->index,
                    b ? "max" : "min", a->ncomp);
            return true;
        }
        for (int c = 0; c < a->ncomp; c++) {
            const cJSON *e = cJSON_GetArrayItem(arr, c);
            if (!cJSON_IsNumber(e) || !isfinite(e->valuedouble)) {
                gx_warn(g,
                        "accessor %d: \"%s\" holds a value that is not a finite number; not "
                        "checked",
                        a->index, b ? "max" : "min");
                return true;
            }
            into[b][c] = declared_bound(a, e->valuedouble);
        }
    }
    /* Per component 1e-4 of its bounds' magnitude, plus 1e-5 of the largest bound of any
     * component and 1e-6 outright: bounds printed with six decimals ("%f") round a component
     * near zero to 0. A flipped bit is off by orders of magnitude. */
    double tol[16], largest = 0.0;
    for (int c = 0; c < a->ncomp; c++)
        largest = fmax(largest, fmax(isfinite(lo[c]) ? fabs(lo[c]) : 0.0,
                                     isfinite(hi[c]) ? fabs(hi[c]) : 0.0));
    for (int c = 0; c < a->ncomp; c++) {
        const double span =
            (isfinite(lo[c]) ? fabs(lo[c]) : 0.0) + (isfinite(hi[c]) ? fabs(hi[c]) : 0.0);
        tol[c] = 1e-4 * span + 1e-5 * largest + 1e-6;
    }
    for (size_t i = 0; i < a->count; i++)
        for (int c = 0; c < a->ncomp; c++) {
            const double v = vals[i * (size_t)a->ncomp + (size_t)c];
            /* Non-finite values are the import's to name, with what they are (a position, a
             * key). */
            if (isfinite(v) && !(v >= lo[c] - tol[c] && v <= hi[c] + tol[c]))
                return gx_fail(g,
                               "%s: accessor %d%s%.40s%s: value %zu.%d is %g, outside its "
                               "declared range [%g, %g]: the file is damaged",
                               where, a->index, cJSON_IsString(a->name) ? " ('" : "",
                               cJSON_IsString(a->name) ? a->name->valuestring : "",
                               cJSON_IsString(a->name) ? "')" : "", i, c, v, lo[c], hi[c]);
        }
    return true;
}

static bool find_transformed(const gx *g, int source, int material, int *out)
{
    for (size_t i = 0; i < g->xformed_count; i++)
        if (g->xformed[i].source == source && g->xformed[i].material == material) {
            *out = g->xformed[i].output;
            return true;
        }
    return false;
}

static bool remember_transformed(gx *g, int source, int material, int output)
{
    if (g->xformed_count == g->xformed_cap) {
        size_t cap = g->xformed_cap ? 2 * g->xformed_cap : 8;
        transformed *grown = vks_realloc(g->xformed, cap * sizeof *grown);
        if (!grown)
            return oom(g);
        g->xformed = grown;
        g->xformed_cap = cap;
    }
    g->xformed[g->xformed_count++] = (transformed){source, material, output};
    return true;
}

/* Resolves one reference (the JSON number `ref`) to an output accessor and rewrites it. With a
 * uv transform (material >= 0), the accessor is written transformed, once per material. */
/* The accessor a reference names, checked to exist. */
static bool accessor_ref(gx *g, const char *where, const cJSON *ref, int *index)
{
    if (!cJSON_IsNumber(ref) || !(ref->valuedouble >= 0) ||
        ref->valuedouble != floor(ref->valuedouble))
        return gx_fail(g, "%s: the accessor index must be a non-negative integer", where);
    if (ref->valuedouble >= g->accessors.count)
        return gx_fail(g, "%s: accessor %.0f does not exist (the file has %d)", where,
                       ref->valuedouble, g->accessors.count);
    *index = (int)ref->valuedouble;
    return true;
}

static bool use_accessor(gx *g, const char *where, cJSON *ref, use_kind use, int material)
{
    int src, slot = use_slot(use), out;
    if (!accessor_ref(g, where, ref, &src))
        return false;
    const uv_transform *uv = material >= 0 ? &g->uv[material] : NULL;
    accessor_info a;
    if (!parse_accessor(g, src, &a) || !check_use(g, where, &a, use))
        return false;
    if (uv && a.ncomp != 2)
        return gx_fail(g, "%s: accessor %d: texture coordinates must be VEC2", where, src);
    bool done = uv ? find_transformed(g, src, material, &out) : (out = g->map[slot][src]) >= 0;
    if (!done) {
        if (use == USE_JOINTS)
            a.normalized = false; /* indices, whatever the flag says */
        double *vals = NULL;
        bool ok = decode_accessor(g, &a, &vals) && check_declared_range(g, where, &a, vals) &&
                  check_values(g, where, &a, use, vals);
        for (size_t i = 0; ok && uv && i < a.count; i++) {
            double u = vals[2 * i], v = vals[2 * i + 1];
            vals[2 * i] = uv->m[0] * u + uv->m[1] * v + uv->m[2];
            vals[2 * i + 1] = uv->m[3] * u + uv->m[4] * v + uv->m[5];
        }
        ok = ok && emit_accessor(g, &a, slot, vals, &out);
        vks_free(vals);
        if (!ok || !(uv ? remember_transformed(g, src, material, out) : true))
            return false;
        if (!uv)
            g->map[slot][src] = out;
    }
    cJSON_SetNumberValue(ref, out);
    return true;
}

/* ---- the document ------------------------------------------------------------------------ */

static const char *const resolved_extensions[] = {"KHR_mesh_quantization", "KHR_texture_transform",
                                                  "EXT_meshopt_compression"};

static bool is_resolved(const char *name)
{
    for (size_t i = 0; i < sizeof resolved_extensions / sizeof *resolved_extensions; i++)
        if (strcmp(name, resolved_extensions[i]) == 0)
            return true;
    return false;
}

/* Drops the resolved extensions from extensionsUsed/Required; fails when another is required. */
static bool check_extensions(gx *g)
{
    static const char *const keys[] = {"extensionsRequired", "extensionsUsed"};
    for (int k = 0; k < 2; k++) {
        cJSON *list = cJSON_GetObjectItemCaseSensitive(g->root, keys[k]);
        if (!list)
            continue;
        if (!cJSON_IsArray(list))
            return gx_fail(g, "\"%s\" must be an array", keys[k]);
        for (cJSON *e = list->child, *next; e; e = next) {
            next = e->next;
            if (!cJSON_IsString(e))
                return gx_fail(g, "\"%s\" must hold strings", keys[k]);
            if (is_resolved(e->valuestring))
                cJSON_Delete(cJSON_DetachItemViaPointer(list, e));
            else if (k == 0)
                return gx_fail(g,
                               "requires the glTF extension '%.64s', which vkskin does not "
                               "support",
                               e->valuestring);
        }
        if (!list->child)
            cJSON_DeleteItemFromObjectCaseSensitive(g->root, keys[k]);
    }
    return true;
}

/* The material's base colour KHR_texture_transform, as the spec's matrix T * R * S. Transforms
 * on other textures (normal, occlusion, emissive...) stay in the file: vkskin draws base colour
 * only, and assimp ignores them. */
static bool parse_uv_transform(gx *g, int mi, uv_transform *uv)
{
    char where[64];
    snprintf(where, sizeof where, "material %d", mi);
    const cJSON *pbr = member(g->materials.items[mi], "pbrMetallicRoughness");
    const cJSON *info = member(pbr, "baseColorTexture");
    const cJSON *ext = member(member(info, "extensions"), "KHR_texture_transform");
    if (!ext)
        return true;
    if (!cJSON_IsObject(ext))
        return gx_fail(g, "%s: KHR_texture_transform must be an object", where);
    static const double zero[2] = {0, 0}, one[2] = {1, 1};
    double offset[2], scale[2], rotation = 0.0;
    uint64_t set;
    snprintf(where, sizeof where, "material %d: KHR_texture_transform", mi);
    if (!get_uint(g, where, info, "texCoord", false, 0, 1u << 20, &set) ||
        !get_uint(g, where, ext, "texCoord", false, set, 1u << 20, &set) ||
        !get_numbers(g, where, ext, "offset", 2, zero, offset) ||
        !get_numbers(g, where, ext, "scale", 2, one, scale) ||
        !get_number(g, where, ext, "rotation", 0.0, &rotation))
        return false;
    double c = cos(rotation), s = sin(rotation);
    *uv = (uv_transform){
        .on = true,
        .texcoord = (unsigned)set,
        .m = {c * scale[0], s * scale[1], offset[0], -s * scale[0], c * scale[1], offset[1]}};
    return true;
}

/* Removes the baked transforms; the texCoord the extension chose becomes the textureInfo's. */
static bool strip_uv_transforms(gx *g)
{
    for (int mi = 0; mi < g->materials.count; mi++) {
        if (!g->uv[mi].on)
            continue;
        cJSON *pbr = member(g->materials.items[mi], "pbrMetallicRoughness");
        cJSON *info = member(pbr, "baseColorTexture"), *exts = member(info, "extensions");
        cJSON_DeleteItemFromObjectCaseSensitive(exts, "KHR_texture_transform");
        if (!exts->child)
            cJSON_DeleteItemFromObjectCaseSensitive(info, "extensions");
        if (!set_num(g, info, "texCoord", g->uv[mi].texcoord))
            return false;
    }
    return true;
}

/* Rewrites a primitive's (or morph target's) attributes. Every one must have *vertices elements
 * (set by the first when 0): assimp reads them all by POSITION's count, unchecked. */
static bool rewrite_attributes(gx *g, const char *where, cJSON *attributes, int material,
                               bool morph, size_t *vertices)
{
    char name[160], set_name[32];
    int uv_material = -1;
    if (material >= 0 && g->uv[material].on) {
        snprintf(set_name, sizeof set_name, "TEXCOORD_%u", g->uv[material].texcoord);
        uv_material = material;
    }
    cJSON *attr;
    cJSON_ArrayForEach(attr, attributes)
    {
        const char *key = attr->string;
        snprintf(name, sizeof name, "%s: attribute %.40s", where, key);
        use_kind use = USE_ATTRIBUTE;
        if (strcmp(key, "POSITION") == 0)
            use = USE_POSITION;
        else if (!morph && strncmp(key, "JOINTS_", 7) == 0)
            use = USE_JOINTS;
        else if (!morph && strncmp(key, "WEIGHTS_", 8) == 0)
            use = USE_WEIGHTS;
        bool xform = !morph && uv_material >= 0 && strcmp(key, set_name) == 0;
        int src;
        accessor_info a;
        if (!accessor_ref(g, name, attr, &src) || !parse_accessor(g, src, &a))
            return false;
        if (*vertices == 0)
            *vertices = a.count;
        if (a.count != *vertices)
            return gx_fail(g, "%s: accessor %d has %zu elements, the other attributes %zu", name,
                           src, a.count, *vertices);
        if (!use_accessor(g, name, attr, use, xform ? uv_material : -1))
            return false;
    }
    return true;
}

static bool rewrite_meshes(gx *g)
{
    char where[96];
    for (int mi = 0; mi < g->meshes.count; mi++) {
        cJSON *prims = member(g->meshes.items[mi], "primitives");
        if (!cJSON_IsArray(prims))
            return gx_fail(g, "mesh %d: \"primitives\" must be an array", mi);
        int pi = 0;
        cJSON *p;
        cJSON_ArrayForEach(p, prims)
        {
            snprintf(where, sizeof where, "mesh %d, primitive %d", mi, pi++);
            int material;
            cJSON *attributes = member(p, "attributes"), *indices = member(p, "indices");
            if (!cJSON_IsObject(p))
                return gx_fail(g, "%s is not an object", where);
            if (!get_ref(g, where, p, "material", false, "material", g->materials.count, &material))
                return false;
            if (!cJSON_IsObject(attributes))
                return gx_fail(g, "%s: \"attributes\" must be an object", where);
            size_t vertices = 0;
            if (!rewrite_attributes(g, where, attributes, material, false, &vertices))
                return false;
            if (indices && !use_accessor(g, where, indices, USE_INDICES, -1))
                return false;
            cJSON *targets = member(p, "targets"), *t;
            if (targets && !cJSON_IsArray(targets))
                return gx_fail(g, "%s: \"targets\" must be an array", where);
            cJSON_ArrayForEach(t, targets)
            {
                if (!cJSON_IsObject(t))
                    return gx_fail(g, "%s: a morph target is not an object", where);
                if (!rewrite_attributes(g, where, t, -1, true, &vertices))
                    return false;
            }
        }
    }
    return true;
}

/* How many nodes the file has (skins and channels name them by index). */
static int nodes_in(const gx *g)
{
    const cJSON *nodes = member(g->root, "nodes");
    return cJSON_IsArray(nodes) ? cJSON_GetArraySize(nodes) : 0;
}

/* A skin without inverseBindMatrices means identities (the spec); assimp 5.2 crashes on it. */
static bool rewrite_skins(gx *g)
{
    char where[32];
    for (int si = 0; si < g->skins.count; si++) {
        snprintf(where, sizeof where, "skin %d", si);
        cJSON *skin = g->skins.items[si], *ibm = member(skin, "inverseBindMatrices");
        const cJSON *joints = member(skin, "joints"), *j;
        int n = cJSON_IsArray(joints) ? cJSON_GetArraySize(joints) : 0;
        if (n == 0)
            return gx_fail(g, "%s: \"joints\" must be a non-empty array", where);
        if (ibm) {
            int src;
            accessor_info a;
            /* use_accessor checks it (a MAT4 and all) and points the reference at the output. */
            if (!accessor_ref(g, where, ibm, &src) || !use_accessor(g, where, ibm, USE_IBM, -1) ||
                !parse_accessor(g, src, &a))
                return false;
            if (a.count < (size_t)n) /* assimp reads one matrix per joint, unchecked */
                return gx_fail(g,
                               "%s: inverseBindMatrices accessor %d has %zu matrices for %d "
                               "joints",
                               where, src, a.count, n);
        }
        int node_count = nodes_in(g);
        cJSON_ArrayForEach(j, joints)
        {
            if (!cJSON_IsNumber(j) || !(j->valuedouble >= 0 && j->valuedouble < node_count) ||
                j->valuedouble != floor(j->valuedouble))
                return gx_fail(g, "%s: a joint is not the index of a node (the file has %d)", where,
                               node_count);
        }
        if (ibm)
            continue;
        if (!budget_check(g, (size_t)n * 64))
            return false;
        double *vals = vks_calloc((size_t)n * 16, sizeof *vals);
        if (!vals)
            return oom(g);
        for (int k = 0; k < n; k++)
            for (int d = 0; d < 4; d++)
                vals[k * 16 + d * 5] = 1.0;
        accessor_info a = {.index = -1, .ncomp = 16, .type = "MAT4", .count = (size_t)n};
        int out;
        bool ok = emit_accessor(g, &a, SLOT_FLOAT, vals, &out) &&
                  put_num(g, skin, "inverseBindMatrices", out);
        vks_free(vals);
        if (!ok)
            return false;
    }
    return true;
}

/* A sampler's key order, decided on its input times (finite or not: NaN is import.c's to refuse).
 * assimp's own validation rejects a glTF clip whose keys go back past its last one, so the repair
 * import.c makes for other formats happens here for glTF, by the same rule: distinct times are
 * sorted (the only reading that makes sense); a repeated time among unordered keys leaves the
 * order of the equal keys unknown, and the clip is dropped. */
typedef enum key_order { KEYS_ORDERED, KEYS_SORTABLE, KEYS_AMBIGUOUS } key_order;

typedef struct timed_key {
    double time;
    size_t key;
} timed_key;

static int compare_timed(const void *pa, const void *pb)
{
    const timed_key *a = pa, *b = pb;
    if (a->time != b->time)
        return a->time < b->time ? -1 : 1;
    return (a->key > b->key) - (a->key < b->key);
}

/* Sorts keys by time into *order (malloc'd) and says whether they were ordered, sortable or not. */
static bool key_order_of(gx *g, const double *times, size_t n, timed_key **order, key_order *how)
{
    *how = KEYS_ORDERED;
    for (size_t k = 0; k < n; k++)
        if (!isfinite(times[k]))
            return true; /* left as it is: import.c refuses the key by name */
    for (size_t k = 1; k < n && *how == KEYS_ORDERED; k++)
        if (times[k] < times[k - 1])
            *how = KEYS_SORTABLE;
    if (*how == KEYS_ORDERED)
        return true;
    if (!(*order = vks_malloc(sizeof **order * n)))
        return oom(g);
    for (size_t k = 0; k < n; k++)
        (*order)[k] = (timed_key){times[k], k};
    qsort(*order, n, sizeof **order, compare_timed);
    for (size_t k = 1; k < n; k++)
        if ((*order)[k].time == (*order)[k - 1].time)
            *how = KEYS_AMBIGUOUS;
    return true;
}

/* Writes a sampler's input and output again with its keys in time order (an output key is
 * out.count / in.count elements: 3 for CUBICSPLINE's tangents and value, more for morph weights).
 * Fresh accessors: the originals may be shared with samplers whose keys are in order. */
static bool sort_sampler(gx *g, const char *where, cJSON *input, cJSON *output, int in_src,
                         int out_src, const timed_key *order, size_t keys)
{
    accessor_info ai, ao;
    double *in_vals = NULL, *out_vals = NULL, *in_sorted = NULL, *out_sorted = NULL;
    bool ok = parse_accessor(g, in_src, &ai) && parse_accessor(g, out_src, &ao);
    if (ok && (ao.count % keys != 0))
        ok = gx_fail(g, "%s: output accessor %d has %zu elements, not a multiple of the %zu keys",
                     where, out_src, ao.count, keys);
    ok = ok && decode_accessor(g, &ai, &in_vals) && decode_accessor(g, &ao, &out_vals);
    size_t per_key = ok ? ao.count / keys * (size_t)ao.ncomp : 0;
    if (ok && (!(in_sorted = vks_malloc(sizeof *in_sorted * keys)) ||
               !(out_sorted = vks_malloc(sizeof *out_sorted * per_key * keys))))
        ok = oom(g);
    for (size_t k = 0; ok && k < keys; k++) {
        in_sorted[k] = in_vals[order[k].key];
        memcpy(out_sorted + k * per_key, out_vals + order[k].key * per_key,
               sizeof *out_sorted * per_key);
    }
    int in_out, out_out;
    ok = ok && emit_accessor(g, &ai, use_slot(USE_TIME), in_sorted, &in_out) &&
         emit_accessor(g, &ao, use_slot(USE_ATTRIBUTE), out_sorted, &out_out);
    if (ok) {
        cJSON_SetNumberValue(input, in_out);
        cJSON_SetNumberValue(output, out_out);
    }
    vks_free(in_vals);
    vks_free(out_vals);
    vks_free(in_sorted);
    vks_free(out_sorted);
    return ok;
}

/* A sampler's accessors and the order of its keys (*order is malloc'd when not KEYS_ORDERED). */
static bool sampler_keys(gx *g, const char *where, const cJSON *sampler, int *in_src, int *out_src,
                         timed_key **order, key_order *how)
{
    const cJSON *input = member(sampler, "input"), *output = member(sampler, "output");
    if (!input || !output)
        return gx_fail(g, "%s: needs \"input\" and \"output\"", where);
    const cJSON *interp = member(sampler, "interpolation");
    const char *mode = cJSON_IsString(interp) ? interp->valuestring : interp ? "" : "LINEAR";
    bool cubic = strcmp(mode, "CUBICSPLINE") == 0;
    if (!cubic && strcmp(mode, "LINEAR") != 0 && strcmp(mode, "STEP") != 0)
        return gx_fail(g, "%s: \"interpolation\" must be LINEAR, STEP or CUBICSPLINE", where);
    accessor_info a, o;
    double *times = NULL;
    *order = NULL;
    *how = KEYS_ORDERED;
    if (!accessor_ref(g, where, input, in_src) || !accessor_ref(g, where, output, out_src) ||
        !parse_accessor(g, *in_src, &a) || !check_use(g, where, &a, USE_TIME) ||
        !parse_accessor(g, *out_src, &o))
        return false;
    /* assimp reads as many outputs as there are keys (3 each for CUBICSPLINE: in-tangent, value,
     * out-tangent) without checking: a shorter output is read past its end. More per key are
     * morph-target weights. */
    size_t per_key = cubic ? 3 : 1;
    if (o.count / per_key < a.count || o.count % (per_key * a.count) != 0)
        return gx_fail(g,
                       "%s: output accessor %d has %zu elements, not a multiple of %zu for %zu "
                       "%s keys",
                       where, *out_src, o.count, per_key * a.count, a.count, mode);
    bool ok = decode_accessor(g, &a, &times) && key_order_of(g, times, a.count, order, how);
    vks_free(times);
    return ok;
}

/* The clip name import.c gives animation ai. */
static const char *clip_name(gx *g, int ai, char *fallback, size_t size)
{
    const cJSON *name = member(g->animations.items[ai], "name");
    snprintf(fallback, size, "clip %d", ai);
    return cJSON_IsString(name) && name->valuestring[0] ? name->valuestring : fallback;
}

/* Every channel of animation ai names a sampler and a node that exist (assimp 5.2 follows both
 * unchecked). */
static bool check_channels(gx *g, int ai, int samplers)
{
    char where[64];
    const cJSON *channels = member(g->animations.items[ai], "channels"), *c;
    if (channels && !cJSON_IsArray(channels))
        return gx_fail(g, "animation %d: \"channels\" must be an array", ai);
    int node_count = nodes_in(g), ci = 0, index;
    cJSON_ArrayForEach(c, channels)
    {
        snprintf(where, sizeof where, "animation %d, channel %d", ai, ci++);
        const cJSON *target = member(c, "target");
        if (!get_ref(g, where, c, "sampler", true, "sampler", samplers, &index) ||
            !cJSON_IsObject(target) ||
            !get_ref(g, where, target, "node", false, "node", node_count, &index))
            return cJSON_IsObject(target) ? false
                                          : gx_fail(g, "%s: \"target\" must be an object", where);
    }
    return true;
}

/* Checks animation ai's channels and samplers and sets *worst to the worst key order among its
 * samplers: KEYS_AMBIGUOUS (keys go back in time and repeat a time: the clip is dropped, with a
 * warning), KEYS_SORTABLE, or KEYS_ORDERED. Decided before anything of the animation is written,
 * so a dropped clip leaves nothing behind and the output reads back to itself. */
static bool animation_order(gx *g, int ai, key_order *worst)
{
    char where[64], fallback[32];
    cJSON *samplers = member(g->animations.items[ai], "samplers"), *s;
    if (!cJSON_IsArray(samplers))
        return gx_fail(g, "animation %d: \"samplers\" must be an array", ai);
    if (!check_channels(g, ai, cJSON_GetArraySize(samplers)))
        return false;
    int si = 0;
    *worst = KEYS_ORDERED;
    cJSON_ArrayForEach(s, samplers)
    {
        snprintf(where, sizeof where, "animation %d, sampler %d", ai, si++);
        int in_src, out_src;
        timed_key *order;
        key_order how;
        if (!sampler_keys(g, where, s, &in_src, &out_src, &order, &how))
            return false;
        vks_free(order);
        if (how > *worst)
            *worst = how;
        if (how == KEYS_AMBIGUOUS) {
            gx_warn(g,
                    "clip '%s' is dropped: its keys in %s go back in time and repeat a time, so "
                    "their order cannot be known",
                    clip_name(g, ai, fallback, sizeof fallback), where);
            return true;
        }
    }
    return true;
}

/* Writes a kept animation's samplers: plain, or, when animation_order found keys to sort, each
 * sampler's keys in time order (distinct times). Samplers were checked by animation_order. */
static bool rewrite_animation(gx *g, int ai, bool sortable)
{
    char where[64], fallback[32];
    cJSON *samplers = member(g->animations.items[ai], "samplers"), *s;
    int si = 0;
    bool sorted = false;
    cJSON_ArrayForEach(s, samplers)
    {
        snprintf(where, sizeof where, "animation %d, sampler %d", ai, si++);
        int in_src, out_src;
        timed_key *order = NULL;
        key_order how = KEYS_ORDERED;
        if (sortable && !sampler_keys(g, where, s, &in_src, &out_src, &order, &how))
            return false;
        cJSON *input = member(s, "input"), *output = member(s, "output");
        bool ok;
        if (how == KEYS_SORTABLE) {
            accessor_info a;
            ok = parse_accessor(g, in_src, &a) &&
                 sort_sampler(g, where, input, output, in_src, out_src, order, a.count);
            if (ok && !sorted)
                gx_warn(g,
                        "clip '%s' had keys out of time order (%s, and maybe more); their times "
                        "are distinct, so they were sorted",
                        clip_name(g, ai, fallback, sizeof fallback), where);
            sorted = true;
        } else {
            ok = use_accessor(g, where, input, USE_TIME, -1) &&
                 use_accessor(g, where, output, USE_ATTRIBUTE, -1);
        }
        vks_free(order);
        if (!ok)
            return false;
    }
    return true;
}

/* The weights channels of kept animation ai (final: its index in the rewritten file), with
 * their keys and values decoded, in time order (gltf.h). The samplers were checked by
 * animation_order; a channel on another path is assimp's to read. */
static bool collect_weights(gx *g, int ai, uint32_t final)
{
    char where[64];
    const cJSON *anim = g->animations.items[ai], *samplers = member(anim, "samplers"), *c;
    const cJSON *nodes = member(g->root, "nodes");
    int ci = 0;
    cJSON_ArrayForEach(c, member(anim, "channels"))
    {
        snprintf(where, sizeof where, "animation %d, channel %d", ai, ci++);
        const cJSON *target = member(c, "target"), *path = member(target, "path");
        const cJSON *node_ref = member(target, "node"), *sampler_ref = member(c, "sampler");
        if (!cJSON_IsString(path) || strcmp(path->valuestring, "weights") != 0 ||
            !cJSON_IsNumber(node_ref) || !cJSON_IsNumber(sampler_ref))
            continue; /* (no node: nothing to animate; the references were checked) */
        const cJSON *sampler = cJSON_GetArrayItem(samplers, sampler_ref->valueint);
        const cJSON *interp = member(sampler, "interpolation");
        const char *mode = cJSON_IsString(interp) ? interp->valuestring : "LINEAR";
        const vks_gltf_interp how = strcmp(mode, "STEP") == 0          ? VKS_GLTF_STEP
                                    : strcmp(mode, "CUBICSPLINE") == 0 ? VKS_GLTF_CUBICSPLINE
                                                                       : VKS_GLTF_LINEAR;
        int in_src, out_src;
        accessor_info a, o;
        double *times = NULL, *values = NULL;
        timed_key *order = NULL;
        key_order sorted = KEYS_ORDERED;
        bool ok = accessor_ref(g, where, member(sampler, "input"), &in_src) &&
                  accessor_ref(g, where, member(sampler, "output"), &out_src) &&
                  parse_accessor(g, in_src, &a) && parse_accessor(g, out_src, &o) &&
                  decode_accessor(g, &a, &times) && decode_accessor(g, &o, &values) &&
                  key_order_of(g, times, a.count, &order, &sorted);
        const size_t parts = how == VKS_GLTF_CUBICSPLINE ? 3 : 1;
        const size_t per_key = ok && a.count ? o.count * (size_t)o.ncomp / a.count : 0;
        if (ok && (a.count == 0 || per_key % parts || per_key / parts == 0 ||
                   per_key / parts > VKS_MAX_TARGETS || o.count * (size_t)o.ncomp % a.count))
            ok = gx_fail(g,
                         "%s: a weights output of %zu values is not a whole number of "
                         "weights for each of %zu keys",
                         where, o.count * (size_t)o.ncomp, a.count);
        vks_gltf_weights w = {.animation = final,
                              .interp = how,
                              .key_count = (uint32_t)a.count,
                              .target_count = ok ? (uint32_t)(per_key / parts) : 0};
        if (ok) {
            const cJSON *name = member(cJSON_GetArrayItem(nodes, node_ref->valueint), "name");
            char fallback[32];
            snprintf(fallback, sizeof fallback, "nodes[%d]", node_ref->valueint);
            w.node = vks_strdup(cJSON_IsString(name) && name->valuestring[0] ? name->valuestring
                                                                             : fallback);
            w.times = vks_malloc(sizeof *w.times * (a.count ? a.count : 1));
            w.values = vks_malloc(sizeof *w.values * (per_key * a.count + 1));
            vks_gltf_weights *grown =
                vks_realloc(g->weights, sizeof *g->weights * (g->weights_count + 1));
            ok = w.node && w.times && w.values && grown;
            if (grown)
                g->weights = grown;
            if (!ok)
                oom(g);
        }
        for (size_t k = 0; ok && k < a.count; k++) { /* time order (sortable: distinct times) */
            const size_t from = order ? order[k].key : k;
            w.times[k] = (float)times[from];
            for (size_t i = 0; i < per_key; i++)
                w.values[k * per_key + i] = (float)values[from * per_key + i];
        }
        if (ok)
            g->weights[g->weights_count++] = w;
        else
            vks_free(w.node), vks_free(w.times), vks_free(w.values);
        vks_free(times), vks_free(values), vks_free(order);
        if (!ok)
            return false;
    }
    return true;
}

static bool rewrite_animations(gx *g)
{
    cJSON *animations = member(g->root, "animations");
    bool *drop = vks_calloc((size_t)g->animations.count + 1, sizeof *drop);
    if (!drop)
        return oom(g);
    bool ok = true;
    uint32_t kept = 0;
    for (int ai = 0; ok && ai < g->animations.count; ai++) {
        key_order worst = KEYS_ORDERED;
        ok = animation_order(g, ai, &worst);
        drop[ai] = ok && worst == KEYS_AMBIGUOUS;
        ok = ok && (drop[ai] || (collect_weights(g, ai, kept++) &&
                                 rewrite_animation(g, ai, worst == KEYS_SORTABLE)));
    }
    /* Backwards, so that the indices still to delete stay valid. Nothing in the core spec refers
     * to an animation by index. */
    for (int ai = g->animations.count; ok && ai-- > 0;)
        if (drop[ai])
            cJSON_DeleteItemFromArray(animations, ai);
    vks_free(drop);
    return ok;
}

/* Images in bufferViews or data: URIs move into the new binary chunk; file URIs stay. */
static bool rewrite_images(gx *g)
{
    char where[32];
    for (int ii = 0; ii < g->images.count; ii++) {
        snprintf(where, sizeof where, "image %d", ii);
        cJSON *img = g->images.items[ii], *uri = member(img, "uri");
        int vi;
        if (!get_ref(g, where, img, "bufferView", false, "bufferView", g->views.count, &vi))
            return false;
        size_t offset, size;
        int out;
        if (vi >= 0) {
            gview *v;
            if (!get_view(g, vi, &v) || !out_append(g, v->data, v->size, &offset) ||
                !out_view(g, offset, v->size, &out) || !set_num(g, img, "bufferView", out))
                return false;
        } else if (cJSON_IsString(uri) && strncmp(uri->valuestring, "data:", 5) == 0) {
            char mime[64];
            uint8_t *bytes;
            if (!decode_data_uri(g, where, uri->valuestring, &bytes, &size, mime, sizeof mime))
                return false;
            bool ok = out_append(g, bytes, size, &offset) && out_view(g, offset, size, &out);
            vks_free(bytes);
            if (!ok || !put_num(g, img, "bufferView", out))
                return false;
            cJSON_DeleteItemFromObjectCaseSensitive(img, "uri");
            if (mime[0]) {
                cJSON_DeleteItemFromObjectCaseSensitive(img, "mimeType");
                if (!cJSON_AddStringToObject(img, "mimeType", mime))
                    return oom(g);
            }
        }
    }
    return true;
}

/* Splits the input into JSON text and the GLB binary chunk (when there is one). */
static bool split_input(gx *g, const uint8_t *data, size_t size, const uint8_t **json,
                        size_t *json_size)
{
    uint32_t head[5];
    if (size >= 4 && memcmp(data, "glTF", 4) == 0) {
        if (size < 20)
            return gx_fail(g, "GLB: the file is truncated (%zu bytes)", size);
        memcpy(head, data, sizeof head);
        if (head[1] == 1) { /* binary glTF 1.0 (KHR_binary_glTF): assimp's own */
            g->version1 = true;
            return true;
        }
        if (head[1] != 2)
            return gx_fail(g, "GLB: version %u is not supported (only 2)", head[1]);
        if (head[2] > size || head[2] < 20)
            return gx_fail(g, "GLB: the header says %u bytes, the file has %zu", head[2], size);
        size = head[2];
        if (head[4] != GLB_CHUNK_JSON)
            return gx_fail(g, "GLB: the first chunk is not JSON");
        if (head[3] > size - 20)
            return gx_fail(g, "GLB: the JSON chunk (%u bytes) is past the end of the file",
                           head[3]);
        *json = data + 20;
        *json_size = head[3];
        size_t at = 20 + (size_t)head[3];
        if (head[3] % 4)
            gx_warn(g, "GLB: the JSON chunk's length is not a multiple of 4");
        if (size - at >= 8) {
            uint32_t chunk[2];
            memcpy(chunk, data + at, sizeof chunk);
            if (chunk[1] == GLB_CHUNK_BIN) {
                if (chunk[0] > size - at - 8)
                    return gx_fail(g, "GLB: the BIN chunk (%u bytes) is past the end of the file",
                                   chunk[0]);
                g->bin = data + at + 8;
                g->bin_size = chunk[0];
                g->has_bin = true;
            }
        } else if (size != at) {
            return gx_fail(g, "GLB: %zu stray bytes after the JSON chunk", size - at);
        }
        return true;
    }
    if (size >= 3 && memcmp(data, "\xEF\xBB\xBF", 3) == 0)
        data += 3, size -= 3;
    *json = data;
    *json_size = size;
    return true;
}

static int compare_names(const void *pa, const void *pb)
{
    return strcmp(*(const char *const *)pa, *(const char *const *)pb);
}

/* Refuses an object with a key twice anywhere in the document. cJSON keeps both; this reader
 * checks and replaces the first, while assimp's JSON reader might take the other one, and read
 * data nobody checked. Depth is bounded by cJSON's nesting limit. */
static bool unique_keys(gx *g, const cJSON *node)
{
    int n = 0;
    const cJSON *c;
    cJSON_ArrayForEach(c, node)
    {
        n++;
        if ((cJSON_IsObject(c) || cJSON_IsArray(c)) && !unique_keys(g, c))
            return false;
    }
    if (!cJSON_IsObject(node) || n < 2)
        return true;
    const char **names = vks_malloc(sizeof *names * (size_t)n);
    if (!names)
        return oom(g);
    int k = 0;
    cJSON_ArrayForEach(c, node) names[k++] = c->string ? c->string : "";
    qsort(names, (size_t)n, sizeof *names, compare_names);
    const char *twice = NULL;
    for (int i = 1; i < n && !twice; i++)
        if (strcmp(names[i], names[i - 1]) == 0)
            twice = names[i];
    bool ok = !twice || gx_fail(g, "the JSON has the key \"%.64s\" twice in one object", twice);
    vks_free(names);
    return ok;
}

static bool parse_json(gx *g, const uint8_t *json, size_t size)
{
    if (size > MAX_JSON_SIZE)
        return gx_fail(g, "the JSON is larger than %zu MiB", MAX_JSON_SIZE >> 20);
    /* A NUL-terminated copy: cJSON then never depends on its length checks alone. */
    char *text = vks_malloc(size + 1);
    if (!text)
        return oom(g);
    memcpy(text, json, size);
    text[size] = '\0';
    const char *end = NULL;
    g->root = cJSON_ParseWithLengthOpts(text, size + 1, &end, false);
    size_t at = end ? (size_t)(end - text) : 0;
    vks_free(text);
    if (!g->root)
        return gx_fail(g, "invalid JSON near byte %zu", at);
    if (!cJSON_IsObject(g->root))
        return gx_fail(g, "the JSON is not an object");
    const cJSON *version = member(member(g->root, "asset"), "version");
    if (!cJSON_IsString(version))
        return gx_fail(g, "\"asset\".\"version\" is missing");
    if (strncmp(version->valuestring, "1.", 2) == 0 || strcmp(version->valuestring, "1") == 0) {
        g->version1 = true; /* assimp reads glTF 1.0 itself, and it has none of 2.0's formats */
        return true;
    }
    if (strncmp(version->valuestring, "2.", 2) != 0 && strcmp(version->valuestring, "2") != 0)
        return gx_fail(g, "glTF version '%.16s' is not supported (only 2.x)", version->valuestring);
    return unique_keys(g, g->root);
}

static bool setup(gx *g)
{
    if (!list_init(g, &g->buffers, "buffers", "buffer") ||
        !list_init(g, &g->views, "bufferViews", "bufferView") ||
        !list_init(g, &g->accessors, "accessors", "accessor") ||
        !list_init(g, &g->materials, "materials", "material") ||
        !list_init(g, &g->meshes, "meshes", "mesh") || !list_init(g, &g->skins, "skins", "skin") ||
        !list_init(g, &g->animations, "animations", "animation") ||
        !list_init(g, &g->images, "images", "image"))
        return false;
    g->buf = vks_calloc((size_t)g->buffers.count + 1, sizeof *g->buf);
    g->view = vks_calloc((size_t)g->views.count + 1, sizeof *g->view);
    g->uv = vks_calloc((size_t)g->materials.count + 1, sizeof *g->uv);
    g->out_views = cJSON_CreateArray();
    g->out_accessors = cJSON_CreateArray();
    if (!g->buf || !g->view || !g->uv || !g->out_views || !g->out_accessors)
        return oom(g);
    for (int s = 0; s < SLOT_COUNT; s++) {
        if (!(g->map[s] = vks_malloc(((size_t)g->accessors.count + 1) * sizeof *g->map[s])))
            return oom(g);
        for (int i = 0; i < g->accessors.count; i++)
            g->map[s][i] = -1;
    }
    for (int mi = 0; mi < g->materials.count; mi++)
        if (!parse_uv_transform(g, mi, &g->uv[mi]))
            return false;
    return true;
}

/* Puts the new buffer, views and accessors in place of the old (or drops them when empty). */
static bool replace_arrays(gx *g)
{
    static const char *const keys[] = {"buffers", "bufferViews", "accessors"};
    for (int k = 0; k < 3; k++)
        cJSON_DeleteItemFromObjectCaseSensitive(g->root, keys[k]);
    cJSON *views = g->out_views, *accessors = g->out_accessors;
    g->out_views = g->out_accessors = NULL;
    if (g->out.size == 0) {
        cJSON_Delete(views);
        cJSON_Delete(accessors);
        return true;
    }
    g->out.size = (g->out.size + 3) & ~(size_t)3;
    cJSON *buffers = cJSON_CreateArray(), *buffer = cJSON_CreateObject();
    bool ok = buffers && buffer && cJSON_AddItemToArray(buffers, buffer);
    if (!ok)
        cJSON_Delete(buffer);
    ok = ok && cJSON_AddNumberToObject(buffer, "byteLength", (double)g->out.size);
    ok = ok && cJSON_AddItemToObject(g->root, "buffers", buffers);
    if (!ok)
        cJSON_Delete(buffers);
    bool v_ok = ok && cJSON_AddItemToObject(g->root, "bufferViews", views);
    if (!v_ok)
        cJSON_Delete(views);
    bool a_ok =
        v_ok && g->out_accessor_count > 0 && cJSON_AddItemToObject(g->root, "accessors", accessors);
    if (!a_ok)
        cJSON_Delete(accessors);
    return v_ok ? true : oom(g);
}

static void put_u32(uint8_t *p, uint32_t v)
{
    memcpy(p, &v, 4);
}

static bool write_glb(gx *g, vks_gltf_glb *out)
{
    char *json = cJSON_PrintUnformatted(g->root);
    if (!json)
        return oom(g);
    size_t json_len = strlen(json), json_padded = (json_len + 3) & ~(size_t)3;
    size_t bin_len = g->out.size, total = 20 + json_padded + (bin_len ? 8 + bin_len : 0);
    if (total > UINT32_MAX) {
        cJSON_free(json);
        return gx_fail(g, "the rewritten GLB would exceed 4 GiB");
    }
    uint8_t *glb = vks_malloc(total);
    if (!glb) {
        cJSON_free(json);
        return oom(g);
    }
    memcpy(glb, "glTF", 4);
    put_u32(glb + 4, 2);
    put_u32(glb + 8, (uint32_t)total);
    put_u32(glb + 12, (uint32_t)json_padded);
    put_u32(glb + 16, GLB_CHUNK_JSON);
    memcpy(glb + 20, json, json_len);
    memset(glb + 20 + json_len, ' ', json_padded - json_len);
    cJSON_free(json);
    if (bin_len) {
        uint8_t *chunk = glb + 20 + json_padded;
        put_u32(chunk, (uint32_t)bin_len);
        put_u32(chunk + 4, GLB_CHUNK_BIN);
        memcpy(chunk + 8, g->out.data, bin_len);
    }
    out->data = glb;
    out->size = total;
    return true;
}

static bool rewrite(gx *g, const vks_gltf_desc *desc, vks_gltf_glb *out)
{
    const uint8_t *json = NULL;
    size_t json_size = 0;
    if (!split_input(g, desc->data, desc->size, &json, &json_size) ||
        (!g->version1 && !parse_json(g, json, json_size)))
        return false;
    if (g->version1) {
        out->version1 = true; /* nothing rewritten: the caller hands assimp the file as it is */
        return true;
    }
    return check_extensions(g) && setup(g) && rewrite_meshes(g) && rewrite_skins(g) &&
           rewrite_animations(g) && rewrite_images(g) && strip_uv_transforms(g) &&
           replace_arrays(g) && write_glb(g, out);
}

static void gx_free(gx *g)
{
    for (int i = 0; g->buf && i < g->buffers.count; i++)
        vks_free(g->buf[i].owned);
    for (int i = 0; g->view && i < g->views.count; i++)
        vks_free(g->view[i].owned);
    json_list *lists[] = {&g->buffers, &g->views, &g->accessors,  &g->materials,
                          &g->meshes,  &g->skins, &g->animations, &g->images};
    for (size_t i = 0; i < sizeof lists / sizeof *lists; i++)
        vks_free(lists[i]->items);
    for (int s = 0; s < SLOT_COUNT; s++)
        vks_free(g->map[s]);
    vks_free(g->buf);
    vks_free(g->view);
    vks_free(g->uv);
    vks_free(g->xformed);
    vks_free(g->out.data);
    cJSON_Delete(g->out_views);
    cJSON_Delete(g->out_accessors);
    cJSON_Delete(g->root);
}

bool vks_gltf_rewrite(const vks_gltf_desc *desc, vks_gltf_glb *out, vks_error *err)
{
    memset(out, 0, sizeof *out);
    gx g = {.name = desc->name ? desc->name : "glTF", .dir = desc->dir, .err = err};
    g.budget = BUDGET_BASE +
               (desc->size < SIZE_MAX / (4 * BUDGET_FACTOR) ? BUDGET_FACTOR * desc->size : 0);
    g.decoded_limit = g.budget;
    bool ok = desc->data ? rewrite(&g, desc, out) : gx_fail(&g, "no data");
    gx_free(&g);
    if (ok) {
        out->warnings = g.warnings;
        out->warning_count = g.warning_count;
        out->weights = g.weights;
        out->weights_count = g.weights_count;
    } else {
        for (uint32_t i = 0; i < g.warning_count; i++)
            vks_free(g.warnings[i]);
        vks_free(g.warnings);
        vks_free(out->data);
        memset(out, 0, sizeof *out);
        out->weights = g.weights; /* freed with the glb below */
        out->weights_count = g.weights_count;
        vks_gltf_glb_free(out);
    }
    return ok;
}

bool vks_gltf_detect(const void *data, size_t size)
{
    const uint8_t *p = data;
    if (!p)
        return false;
    if (size >= 4 && memcmp(p, "glTF", 4) == 0)
        return true;
    size_t i = size >= 3 && memcmp(p, "\xEF\xBB\xBF", 3) == 0 ? 3 : 0;
    while (i < size && (p[i] == ' ' || p[i] == '\t' || p[i] == '\n' || p[i] == '\r'))
        i++;
    return i < size && p[i] == '{';
}

void vks_gltf_glb_free(vks_gltf_glb *glb)
{
    if (!glb)
        return;
    vks_free(glb->data);
    for (uint32_t i = 0; i < glb->warning_count; i++)
        vks_free(glb->warnings[i]);
    vks_free(glb->warnings);
    for (uint32_t i = 0; i < glb->weights_count; i++) {
        vks_free(glb->weights[i].node);
        vks_free(glb->weights[i].times);
        vks_free(glb->weights[i].values);
    }
    vks_free(glb->weights);
    memset(glb, 0, sizeof *glb);
}
