/* vks_gltf_rewrite on GLBs built here: every expected value is computed from the integers written
 * (the spec's dequantisation, the KHR_texture_transform matrix), not read back from the unit.
 * Usage: test_gltf [MODEL.glb ...]: each model given must rewrite without error. */
#include "asset/gltf.h"
#include "check.h"
#include "glb_writer.h"

#include <cjson/cJSON.h>
#include <meshoptimizer.h>

#include <math.h>

#include <stdlib.h>
#include <unistd.h>

/* ---- a tiny GLB assembler for what glb_writer cannot write (i8/i16, extensions) ---------- */

typedef struct bin_builder {
    uint8_t data[8192];
    size_t size;
} bin_builder;

/* Appends at a 4-byte aligned offset, returned. */
static size_t bin_put(bin_builder *b, const void *data, size_t size)
{
    size_t at = (b->size + 3) & ~(size_t)3;
    memset(b->data + b->size, 0, at - b->size);
    memcpy(b->data + at, data, size);
    b->size = at + size;
    return at;
}

static uint8_t *assemble(const char *json, const void *bin, size_t bin_size, size_t *size)
{
    size_t jl = strlen(json), jp = (jl + 3) & ~(size_t)3, bp = (bin_size + 3) & ~(size_t)3;
    *size = 20 + jp + (bin_size ? 8 + bp : 0);
    uint8_t *g = calloc(1, *size);
    uint32_t head[5] = {0x46546C67u, 2, (uint32_t)*size, (uint32_t)jp, 0x4E4F534Au};
    memcpy(g, head, sizeof head);
    memcpy(g + 20, json, jl);
    memset(g + 20 + jl, ' ', jp - jl);
    if (bin_size) {
        uint32_t chunk[2] = {(uint32_t)bp, 0x004E4942u};
        memcpy(g + 20 + jp, chunk, 8);
        memcpy(g + 28 + jp, bin, bin_size);
    }
    return g;
}

/* ---- reading the output back ------------------------------------------------------------- */

typedef struct out_doc {
    cJSON *json;
    const uint8_t *bin;
    size_t bin_size;
} out_doc;

static bool open_out(const vks_gltf_glb *glb, out_doc *d)
{
    memset(d, 0, sizeof *d);
    uint32_t head[5];
    if (glb->size < 20)
        return false;
    memcpy(head, glb->data, sizeof head);
    CHECK(head[0] == 0x46546C67u && head[1] == 2 && head[2] == glb->size);
    CHECK(head[3] % 4 == 0 && head[4] == 0x4E4F534Au);
    d->json = cJSON_ParseWithLength((const char *)glb->data + 20, head[3]);
    size_t at = 20 + head[3];
    if (glb->size >= at + 8) {
        uint32_t chunk[2];
        memcpy(chunk, glb->data + at, 8);
        CHECK(chunk[0] % 4 == 0 && chunk[1] == 0x004E4942u && at + 8 + chunk[0] == glb->size);
        d->bin = glb->data + at + 8;
        d->bin_size = chunk[0];
    }
    return d->json != NULL;
}

static cJSON *path(const cJSON *j, const char *a, int i, const char *b)
{
    cJSON *x = cJSON_GetArrayItem(cJSON_GetObjectItem(j, a), i);
    return b ? cJSON_GetObjectItem(x, b) : x;
}

static int num(const cJSON *j, const char *key)
{
    const cJSON *x = cJSON_GetObjectItem(j, key);
    return cJSON_IsNumber(x) ? x->valueint : -1;
}

/* Reads accessor `acc` into dst (at most max values); returns the value count, 0 on a mismatch
 * with `ctype`. Checks the output's plain layout on the way. */
static size_t read_acc(const out_doc *d, int acc, int ctype, double *dst, size_t max)
{
    const cJSON *a = path(d->json, "accessors", acc, NULL);
    const cJSON *v = path(d->json, "bufferViews", num(a, "bufferView"), NULL);
    static const struct {
        const char *name;
        int n;
    } types[] = {{"SCALAR", 1}, {"VEC2", 2}, {"VEC3", 3}, {"VEC4", 4}, {"MAT4", 16}};
    int n = 0;
    for (int t = 0; t < 5; t++)
        if (strcmp(cJSON_GetStringValue(cJSON_GetObjectItem(a, "type")), types[t].name) == 0)
            n = types[t].n;
    if (!a || !v || num(a, "componentType") != ctype || !n || cJSON_GetObjectItem(a, "sparse") ||
        cJSON_IsTrue(cJSON_GetObjectItem(a, "normalized")))
        return 0;
    size_t count = (size_t)num(a, "count") * (size_t)n, csize = ctype == 5123 ? 2 : 4;
    size_t off = (size_t)num(v, "byteOffset") +
                 (size_t)(num(a, "byteOffset") > 0 ? num(a, "byteOffset") : 0);
    CHECK(off % 4 == 0 && num(v, "byteStride") < 0 && off + count * csize <= d->bin_size);
    if (count > max || off + count * csize > d->bin_size)
        return 0;
    for (size_t i = 0; i < count; i++) {
        const uint8_t *p = d->bin + off + i * csize;
        if (ctype == 5126) {
            float f;
            memcpy(&f, p, 4);
            dst[i] = f;
        } else if (ctype == 5125) {
            uint32_t u;
            memcpy(&u, p, 4);
            dst[i] = u;
        } else {
            uint16_t u;
            memcpy(&u, p, 2);
            dst[i] = u;
        }
    }
    return count;
}

static bool rewrite(const void *data, size_t size, vks_gltf_glb *out, vks_error *err)
{
    vks_gltf_desc desc = {.data = data, .size = size, .name = "test.glb"};
    return vks_gltf_rewrite(&desc, out, err);
}

/* Assembles json + bin, rewrites it (which must succeed) and opens the output: false, with the
 * failure counted and printed, when either does not. *out is for vks_gltf_glb_free either way. */
static bool rewrite_and_open(const char *json, const void *bin, size_t bin_size, vks_gltf_glb *out,
                             out_doc *d)
{
    size_t size;
    uint8_t *glb = assemble(json, bin, bin_size, &size);
    vks_error err = {{0}};
    bool ok = rewrite(glb, size, out, &err);
    free(glb);
    CHECK(ok);
    if (!ok) {
        fprintf(stderr, "%s\n", err.msg);
        return false;
    }
    bool opened = open_out(out, d);
    CHECK(opened);
    return opened;
}

/* Rewrites `json` + bin and expects failure with a message containing `expect`. */
static void expect_error(const char *json, const void *bin, size_t bin_size, const char *expect)
{
    size_t size;
    uint8_t *glb = assemble(json, bin, bin_size, &size);
    vks_gltf_glb out;
    vks_error err = {{0}};
    bool ok = rewrite(glb, size, &out, &err);
    CHECK(!ok && out.data == NULL && out.size == 0);
    if (ok || !strstr(err.msg, expect) || strncmp(err.msg, "test.glb: ", 10) != 0) {
        check_failures++;
        fprintf(stderr, "expected an error with '%s', got '%s'\n", expect,
                ok ? "(success)" : err.msg);
    }
    vks_gltf_glb_free(&out);
    free(glb);
}

/* ---- glb_writer: u8-normalized weights, u8 joints, no inverse bind matrices --------------- */

static void test_weights_and_identity(void)
{
    glbw_doc *doc = glbw_create();
    const float pos[] = {0, 0, 0, 1, 0, 0, 0, 1, 0};
    const uint8_t joints[] = {0, 1, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0};
    const uint8_t weights[] = {255, 0, 0, 0, 128, 127, 0, 0, 1, 254, 0, 0};
    const uint16_t idx[] = {0, 1, 2};
    const float times[] = {0, 0.5f, 1};
    const uint16_t scales[] = {0, 65535, 32768, 1, 2, 3, 4, 5, 6}; /* u16 normalized VEC3 */
    glbw_primitive_desc prim = glbw_primitive_defaults();
    prim.position = glbw_add_floats(doc, pos, 3, GLBW_VEC3, GLBW_TARGET_VERTICES, true);
    prim.joints0 =
        glbw_add_data(doc, joints, GLBW_TARGET_VERTICES,
                      &(glbw_accessor_desc){.component = GLBW_U8, .type = GLBW_VEC4, .count = 3});
    prim.weights0 =
        glbw_add_data(doc, weights, GLBW_TARGET_VERTICES,
                      &(glbw_accessor_desc){
                          .component = GLBW_U8, .type = GLBW_VEC4, .count = 3, .normalized = true});
    prim.indices = glbw_add_data(
        doc, idx, GLBW_TARGET_INDICES,
        &(glbw_accessor_desc){.component = GLBW_U16, .type = GLBW_SCALAR, .count = 3});
    int mesh = glbw_add_mesh(doc, "tri", &prim, 1);
    int j0 = glbw_add_node(doc, &(glbw_node_desc){.name = "j0", .mesh = -1, .skin = -1});
    int j1 = glbw_add_node(doc, &(glbw_node_desc){.name = "j1", .mesh = -1, .skin = -1});
    glbw_node_add_child(doc, j0, j1);
    int skin = glbw_add_skin(doc, "skin", (int[]){j0, j1}, 2, GLBW_NONE, GLBW_NONE);
    glbw_add_node(doc, &(glbw_node_desc){.name = "body", .mesh = mesh, .skin = skin});
    int anim = glbw_add_animation(doc, "a");
    int in = glbw_add_floats(doc, times, 3, GLBW_SCALAR, GLBW_TARGET_NONE, true);
    int outp = glbw_add_data(
        doc, scales, GLBW_TARGET_NONE,
        &(glbw_accessor_desc){
            .component = GLBW_U16, .type = GLBW_VEC3, .count = 3, .normalized = true});
    glbw_add_anim_channel(doc, anim, glbw_add_anim_sampler(doc, anim, in, outp, GLBW_LINEAR), j1,
                          GLBW_PATH_SCALE);
    uint8_t *bytes;
    size_t size;
    char msg[256];
    CHECK(glbw_write_memory(doc, &bytes, &size, msg, sizeof msg));
    glbw_destroy(doc);

    vks_gltf_glb out;
    vks_error err = {{0}};
    bool ok = rewrite(bytes, size, &out, &err);
    CHECK(ok);
    if (!ok) {
        fprintf(stderr, "%s\n", err.msg);
        glbw_free_bytes(bytes);
        return;
    }
    /* Deterministic: the same input gives the same bytes. */
    vks_gltf_glb again;
    CHECK(rewrite(bytes, size, &again, &err) && again.size == out.size &&
          memcmp(again.data, out.data, out.size) == 0);
    vks_gltf_glb_free(&again);
    glbw_free_bytes(bytes);

    out_doc d;
    CHECK(open_out(&out, &d));
    CHECK(cJSON_GetArraySize(cJSON_GetObjectItem(d.json, "buffers")) == 1);
    const cJSON *p = cJSON_GetObjectItem(
        cJSON_GetArrayItem(cJSON_GetObjectItem(path(d.json, "meshes", 0, NULL), "primitives"), 0),
        "attributes");
    double v[64];
    CHECK(read_acc(&d, num(p, "WEIGHTS_0"), 5126, v, 64) == 12);
    CHECK_NEAR(v[0], 1.0, 0);
    CHECK_NEAR(v[1], 0.0, 0);
    CHECK_NEAR(v[4], 128.0 / 255.0, 1e-7);
    CHECK_NEAR(v[5], 127.0 / 255.0, 1e-7);
    CHECK_NEAR(v[8], 1.0 / 255.0, 1e-7);
    CHECK_NEAR(v[9], 254.0 / 255.0, 1e-7);
    CHECK(read_acc(&d, num(p, "JOINTS_0"), 5123, v, 64) == 12);
    for (int i = 0; i < 12; i++)
        CHECK(v[i] == joints[i]);
    const cJSON *prim0 =
        cJSON_GetArrayItem(cJSON_GetObjectItem(path(d.json, "meshes", 0, NULL), "primitives"), 0);
    CHECK(read_acc(&d, num(prim0, "indices"), 5125, v, 64) == 3);
    CHECK(v[0] == 0 && v[1] == 1 && v[2] == 2);
    int pa = num(p, "POSITION");
    CHECK(read_acc(&d, pa, 5126, v, 64) == 9);
    const cJSON *mx = cJSON_GetObjectItem(path(d.json, "accessors", pa, NULL), "max");
    CHECK(cJSON_GetArraySize(mx) == 3 && cJSON_GetArrayItem(mx, 0)->valuedouble == 1.0);
    /* The missing inverse bind matrices: two identities. */
    int ibm = num(path(d.json, "skins", 0, NULL), "inverseBindMatrices");
    CHECK(read_acc(&d, ibm, 5126, v, 64) == 32);
    for (int i = 0; i < 32; i++)
        CHECK(v[i] == ((i % 16) % 5 == 0 ? 1.0 : 0.0));
    /* The u16-normalized scale keys: c / 65535. */
    const cJSON *sampler =
        cJSON_GetArrayItem(cJSON_GetObjectItem(path(d.json, "animations", 0, NULL), "samplers"), 0);
    CHECK(read_acc(&d, num(sampler, "output"), 5126, v, 64) == 9);
    for (int i = 0; i < 9; i++)
        CHECK_NEAR(v[i], scales[i] / 65535.0, 1e-7);
    int ti = num(sampler, "input");
    CHECK(read_acc(&d, ti, 5126, v, 64) == 3 && v[2] == 1.0);
    CHECK(cJSON_GetObjectItem(path(d.json, "accessors", ti, NULL), "min") != NULL);
    cJSON_Delete(d.json);
    vks_gltf_glb_free(&out);
}

/* ---- by hand: quantized attributes, an interleaved padded view, sparse, MAT3 padding, i16
 * rotations, a texture transform, the extension lists ------------------------------------- */

static void test_quantized(void)
{
    bin_builder b = {0};
    /* 3 vertices, stride 20: u16 POSITION (not normalized) at 0, float TEXCOORD_0 at 8. */
    uint8_t inter[60] = {0};
    const uint16_t qpos[9] = {1000, 0, 0, 0, 2000, 0, 0, 0, 65535};
    const float uv[6] = {0.5f, 0.5f, 0, 0, 1, 0};
    for (int i = 0; i < 3; i++) {
        memcpy(inter + 20 * i, qpos + 3 * i, 6);
        memcpy(inter + 20 * i + 8, uv + 2 * i, 8);
    }
    size_t o_inter = bin_put(&b, inter, sizeof inter);
    const int8_t nrm[12] = {-128, 0, 127, 0, 64, -127, 0, 0, 0, 0, 0, 0}; /* i8 VEC3, stride 4 */
    size_t o_nrm = bin_put(&b, nrm, sizeof nrm);
    const uint8_t idx[3] = {2, 1, 0};
    size_t o_idx = bin_put(&b, idx, 3);
    const float times[2] = {0, 1};
    size_t o_t = bin_put(&b, times, sizeof times);
    const int16_t rot[8] = {-32768, 0, 0, 32767, 16384, -16384, 0, -32767};
    size_t o_rot = bin_put(&b, rot, sizeof rot);
    const uint8_t sp_idx[1] = {1};
    size_t o_spi = bin_put(&b, sp_idx, 1);
    const float sp_val[3] = {1, 2, 3};
    size_t o_spv = bin_put(&b, sp_val, sizeof sp_val);
    /* MAT3 of u8 normalized: 3 columns of 3 bytes, each padded to 4 (spec 3.6.2.4). */
    uint8_t m3[24];
    for (int e = 0; e < 2; e++)
        for (int c = 0; c < 3; c++)
            for (int r = 0; r < 4; r++)
                m3[e * 12 + c * 4 + r] = r == 3 ? 0xEE : (uint8_t)(10 * e + 3 * c + r);
    size_t o_m3 = bin_put(&b, m3, sizeof m3);

    char json[4096];
    snprintf(
        json, sizeof json,
        "{\"asset\":{\"version\":\"2.0\"},"
        "\"extensionsUsed\":[\"KHR_mesh_quantization\",\"KHR_texture_transform\",\"EXT_other\"],"
        "\"extensionsRequired\":[\"KHR_mesh_quantization\"],"
        "\"buffers\":[{\"byteLength\":%zu}],"
        "\"bufferViews\":["
        "{\"buffer\":0,\"byteOffset\":%zu,\"byteLength\":60,\"byteStride\":20},"
        "{\"buffer\":0,\"byteOffset\":%zu,\"byteLength\":12,\"byteStride\":4},"
        "{\"buffer\":0,\"byteOffset\":%zu,\"byteLength\":3},"
        "{\"buffer\":0,\"byteOffset\":%zu,\"byteLength\":8},"
        "{\"buffer\":0,\"byteOffset\":%zu,\"byteLength\":16},"
        "{\"buffer\":0,\"byteOffset\":%zu,\"byteLength\":1},"
        "{\"buffer\":0,\"byteOffset\":%zu,\"byteLength\":12},"
        "{\"buffer\":0,\"byteOffset\":%zu,\"byteLength\":24}],"
        "\"accessors\":["
        "{\"bufferView\":0,\"componentType\":5123,\"count\":3,\"type\":\"VEC3\"},"
        "{\"bufferView\":0,\"byteOffset\":8,\"componentType\":5126,\"count\":3,"
        "\"type\":\"VEC2\"},"
        "{\"bufferView\":1,\"componentType\":5120,\"normalized\":true,\"count\":3,"
        "\"type\":\"VEC3\"},"
        "{\"bufferView\":2,\"componentType\":5121,\"count\":3,\"type\":\"SCALAR\"},"
        "{\"bufferView\":3,\"componentType\":5126,\"count\":2,\"type\":\"SCALAR\"},"
        "{\"bufferView\":4,\"componentType\":5122,\"normalized\":true,\"count\":2,"
        "\"type\":\"VEC4\"},"
        "{\"componentType\":5126,\"count\":3,\"type\":\"VEC3\",\"sparse\":{\"count\":1,"
        "\"indices\":{\"bufferView\":5,\"componentType\":5121},\"values\":{\"bufferView\":6}}},"
        "{\"bufferView\":7,\"componentType\":5121,\"normalized\":true,\"count\":2,"
        "\"type\":\"MAT3\"},"
        "{\"bufferView\":0,\"componentType\":5126,\"count\":1,\"type\":\"MAT4\"}],"
        "\"images\":[{\"uri\":\"data:image/png;base64,iVBORw0KGgo=\"}],"
        "\"textures\":[{\"source\":0}],"
        "\"materials\":[{\"pbrMetallicRoughness\":{\"baseColorTexture\":{\"index\":0,"
        "\"extensions\":{\"KHR_texture_transform\":{\"offset\":[0.1,0.2],\"rotation\":0.5,"
        "\"scale\":[2,3]}}}}}],"
        "\"meshes\":[{\"primitives\":["
        "{\"attributes\":{\"POSITION\":0,\"TEXCOORD_0\":1,\"NORMAL\":2},"
        "\"indices\":3,\"material\":0,\"targets\":[{\"POSITION\":6}]},"
        "{\"attributes\":{\"POSITION\":0,\"TEXCOORD_0\":1}},{\"attributes\":{\"_M3\":7}}]}],"
        "\"nodes\":[{\"mesh\":0,\"extras\":{\"keep\":1}}],"
        "\"animations\":[{\"samplers\":[{\"input\":4,\"output\":5}],"
        "\"channels\":[{\"sampler\":0,\"target\":{\"node\":0,\"path\":\"rotation\"}}]}]}",
        b.size, o_inter, o_nrm, o_idx, o_t, o_rot, o_spi, o_spv, o_m3);
    vks_gltf_glb out;
    out_doc d;
    if (!rewrite_and_open(json, b.data, b.size, &out, &d)) {
        vks_gltf_glb_free(&out);
        return;
    }
    cJSON *prims = cJSON_GetObjectItem(path(d.json, "meshes", 0, NULL), "primitives");
    cJSON *p0 = cJSON_GetArrayItem(prims, 0), *p1 = cJSON_GetArrayItem(prims, 1);
    /* _M3 has its own primitive: the attributes of one primitive have one count. */
    const cJSON *m3_attr = cJSON_GetObjectItem(cJSON_GetArrayItem(prims, 2), "attributes");
    cJSON *a0 = cJSON_GetObjectItem(p0, "attributes"), *a1 = cJSON_GetObjectItem(p1, "attributes");
    double v[64];
    /* KHR_mesh_quantization: u16 positions as plain integers, i8 normals max(c/127, -1). */
    CHECK(read_acc(&d, num(a0, "POSITION"), 5126, v, 64) == 9);
    for (int i = 0; i < 9; i++)
        CHECK(v[i] == qpos[i]);
    CHECK(num(a0, "POSITION") == num(a1, "POSITION")); /* one source, one output */
    CHECK(read_acc(&d, num(a0, "NORMAL"), 5126, v, 64) == 9);
    for (int i = 0; i < 3; i++)
        for (int c = 0; c < 3; c++)
            CHECK_NEAR(v[3 * i + c], fmax(nrm[4 * i + c] / 127.0, -1.0), 1e-7);
    CHECK(v[0] == -1.0);
    CHECK(read_acc(&d, num(p0, "indices"), 5125, v, 64) == 3 && v[0] == 2 && v[2] == 0);
    /* MAT3 u8 normalized: the padding byte (0xEE) is skipped. */
    CHECK(read_acc(&d, num(m3_attr, "_M3"), 5126, v, 64) == 0); /* MAT3 is not in read_acc's list */
    {
        const cJSON *acc = path(d.json, "accessors", num(m3_attr, "_M3"), NULL);
        const cJSON *view = path(d.json, "bufferViews", num(acc, "bufferView"), NULL);
        CHECK(num(acc, "componentType") == 5126 && num(view, "byteLength") == 2 * 9 * 4);
        const uint8_t *mp = d.bin + num(view, "byteOffset");
        for (int e = 0; e < 2; e++)
            for (int c = 0; c < 3; c++)
                for (int r = 0; r < 3; r++) {
                    float f;
                    memcpy(&f, mp + 4 * (e * 9 + c * 3 + r), 4);
                    CHECK_NEAR(f, (10 * e + 3 * c + r) / 255.0, 1e-7);
                }
    }
    /* Texture transform: primitive 0 (material 0) gets T*R*S*uv; primitive 1 the original. */
    CHECK(num(a0, "TEXCOORD_0") != num(a1, "TEXCOORD_0"));
    CHECK(read_acc(&d, num(a0, "TEXCOORD_0"), 5126, v, 64) == 6);
    double c = cos(0.5), s = sin(0.5);
    for (int i = 0; i < 3; i++) {
        double u = uv[2 * i], w = uv[2 * i + 1];
        CHECK_NEAR(v[2 * i], c * 2 * u + s * 3 * w + 0.1, 1e-6);
        CHECK_NEAR(v[2 * i + 1], -s * 2 * u + c * 3 * w + 0.2, 1e-6);
    }
    /* (0.5, 0.5): x = cos(0.5) + 1.5 sin(0.5) + 0.1, y = 1.5 cos(0.5) - sin(0.5) + 0.2 */
    CHECK_NEAR(v[0], 0.8775825619 + 1.5 * 0.4794255386 + 0.1, 1e-6);
    CHECK_NEAR(v[1], 1.5 * 0.8775825619 - 0.4794255386 + 0.2, 1e-6);
    CHECK(read_acc(&d, num(a1, "TEXCOORD_0"), 5126, v, 64) == 6);
    CHECK_VEC_NEAR(v, uv, 6, 0);
    const cJSON *bct = cJSON_GetObjectItem(path(d.json, "materials", 0, "pbrMetallicRoughness"),
                                           "baseColorTexture");
    CHECK(bct && !cJSON_GetObjectItem(bct, "extensions") && num(bct, "texCoord") == 0);
    /* Sparse over zeros: element 1 = (1, 2, 3), the others 0; POSITION target gets bounds. */
    int ta = num(cJSON_GetArrayItem(cJSON_GetObjectItem(p0, "targets"), 0), "POSITION");
    CHECK(read_acc(&d, ta, 5126, v, 64) == 9);
    CHECK_VEC_NEAR(v, ((double[9]){0, 0, 0, 1, 2, 3, 0, 0, 0}), 9, 0);
    CHECK(cJSON_GetObjectItem(path(d.json, "accessors", ta, NULL), "max") != NULL);
    /* i16 normalized rotations: max(c / 32767, -1). */
    const cJSON *sampler =
        cJSON_GetArrayItem(cJSON_GetObjectItem(path(d.json, "animations", 0, NULL), "samplers"), 0);
    CHECK(read_acc(&d, num(sampler, "output"), 5126, v, 64) == 8);
    CHECK(v[0] == -1.0 && v[3] == 1.0 && v[7] == -1.0);
    CHECK_NEAR(v[4], 16384 / 32767.0, 1e-7);
    CHECK_NEAR(v[5], -16384 / 32767.0, 1e-7);
    /* Extension lists, the image embedded from its data: URI, untouched extras. */
    const cJSON *used = cJSON_GetObjectItem(d.json, "extensionsUsed");
    CHECK(cJSON_GetArraySize(used) == 1 &&
          strcmp(cJSON_GetArrayItem(used, 0)->valuestring, "EXT_other") == 0);
    CHECK(!cJSON_GetObjectItem(d.json, "extensionsRequired"));
    const cJSON *img = path(d.json, "images", 0, NULL);
    CHECK(!cJSON_GetObjectItem(img, "uri") &&
          strcmp(cJSON_GetStringValue(cJSON_GetObjectItem(img, "mimeType")), "image/png") == 0);
    const cJSON *iv = path(d.json, "bufferViews", num(img, "bufferView"), NULL);
    CHECK(num(iv, "byteLength") == 8 &&
          memcmp(d.bin + num(iv, "byteOffset"), "\x89PNG\r\n\x1a\n", 8) == 0);
    CHECK(num(cJSON_GetObjectItem(path(d.json, "nodes", 0, NULL), "extras"), "keep") == 1);
    /* Accessor 8 is referenced nowhere: not copied. */
    CHECK(cJSON_GetArraySize(cJSON_GetObjectItem(d.json, "accessors")) == 9);
    cJSON_Delete(d.json);
    vks_gltf_glb_free(&out);
}

/* ---- EXT_meshopt_compression, encoded here with meshoptimizer's encoders ------------------ */

static void test_meshopt(void)
{
    enum { N = 64, T = 2 };
    float pos[N * 3];
    for (int i = 0; i < N * 3; i++)
        pos[i] = (float)(i % 7) * 0.25f - (float)(i / 7);
    unsigned idx[3 * T] = {0, 1, 2, 2, 1, 3};
    /* Rotations through the quaternion filter: 8 bytes (i16 x4) per key. */
    float quats[4 * 4];
    for (int k = 0; k < 4; k++) {
        double a = 0.3 * k, len = sqrt(1 + 0.25 + 0.04);
        double q[4] = {sin(a) * 1 / len, sin(a) * 0.5 / len, sin(a) * 0.2 / len, cos(a)};
        for (int c = 0; c < 4; c++)
            quats[4 * k + c] = (float)q[c];
    }
    int16_t qenc[16];
    meshopt_encodeFilterQuat(qenc, 4, 8, 12, quats);
    const float times[4] = {0, 1, 2, 3};

    static uint8_t comp[3][4096];
    size_t vlen = meshopt_encodeVertexBuffer(comp[0], sizeof comp[0], pos, N, 12);
    size_t ilen = meshopt_encodeIndexBuffer(comp[1], sizeof comp[1], idx, 3 * T);
    size_t qlen = meshopt_encodeVertexBuffer(comp[2], sizeof comp[2], qenc, 4, 8);
    CHECK(vlen && ilen && qlen);
    bin_builder b = {0};
    size_t ov = bin_put(&b, comp[0], vlen), oi = bin_put(&b, comp[1], ilen);
    size_t oq = bin_put(&b, comp[2], qlen), ot = bin_put(&b, times, sizeof times);
    char json[4096];
    const char *fmt =
        "{\"asset\":{\"version\":\"2.0\"},"
        "\"extensionsUsed\":[\"EXT_meshopt_compression\"],"
        "\"extensionsRequired\":[\"EXT_meshopt_compression\"],"
        "\"buffers\":[{\"byteLength\":%zu},{\"byteLength\":%d,"
        "\"extensions\":{\"EXT_meshopt_compression\":{\"fallback\":true}}}],"
        "\"bufferViews\":["
        "{\"buffer\":1,\"byteLength\":%d,\"byteStride\":12,\"extensions\":{"
        "\"EXT_meshopt_compression\":{\"buffer\":0,\"byteOffset\":%zu,\"byteLength\":%zu,"
        "\"byteStride\":12,\"count\":%d,\"mode\":\"ATTRIBUTES\"}}},"
        "{\"buffer\":1,\"byteOffset\":%d,\"byteLength\":%d,\"extensions\":{"
        "\"EXT_meshopt_compression\":{\"buffer\":0,\"byteOffset\":%zu,\"byteLength\":%zu,"
        "\"byteStride\":2,\"count\":%d,\"mode\":\"TRIANGLES\"}}},"
        "{\"buffer\":1,\"byteOffset\":%d,\"byteLength\":32,\"extensions\":{"
        "\"EXT_meshopt_compression\":{\"buffer\":0,\"byteOffset\":%zu,\"byteLength\":%zu,"
        "\"byteStride\":8,\"count\":4,\"mode\":\"ATTRIBUTES\",\"filter\":\"QUATERNION\"}}},"
        "{\"buffer\":0,\"byteOffset\":%zu,\"byteLength\":16}%s],"
        "\"accessors\":["
        "{\"bufferView\":0,\"componentType\":5126,\"count\":%d,\"type\":\"VEC3\"},"
        "{\"bufferView\":1,\"componentType\":5123,\"count\":%d,\"type\":\"SCALAR\"},"
        "{\"bufferView\":2,\"componentType\":5122,\"normalized\":true,\"count\":4,"
        "\"type\":\"VEC4\"},"
        "{\"bufferView\":3,\"componentType\":5126,\"count\":4,\"type\":\"SCALAR\"}%s],"
        "\"meshes\":[{\"primitives\":[{\"attributes\":{\"POSITION\":0},\"indices\":1}]}],"
        "\"nodes\":[{\"mesh\":0}],"
        "\"animations\":[{\"samplers\":[{\"input\":3,\"output\":2}],"
        "\"channels\":[{\"sampler\":0,\"target\":{\"node\":0,\"path\":\"rotation\"}}]}]}";
    int ib = N * 12, qb = ib + 12;
    snprintf(json, sizeof json, fmt, b.size, qb + 32, N * 12, ov, vlen, N, ib, 12, oi, ilen, 3 * T,
             qb, oq, qlen, ot, "", N, 3 * T, "");
    vks_gltf_glb out;
    out_doc d;
    if (!rewrite_and_open(json, b.data, b.size, &out, &d)) {
        vks_gltf_glb_free(&out);
        return;
    }
    const cJSON *p0 =
        cJSON_GetArrayItem(cJSON_GetObjectItem(path(d.json, "meshes", 0, NULL), "primitives"), 0);
    double v[N * 3];
    CHECK(read_acc(&d, num(cJSON_GetObjectItem(p0, "attributes"), "POSITION"), 5126, v, N * 3) ==
          N * 3);
    CHECK_VEC_NEAR(v, pos, N * 3, 0);
    CHECK(read_acc(&d, num(p0, "indices"), 5125, v, N * 3) == 3 * T);
    CHECK_VEC_NEAR(v, idx, 3 * T, 0);
    const cJSON *sampler =
        cJSON_GetArrayItem(cJSON_GetObjectItem(path(d.json, "animations", 0, NULL), "samplers"), 0);
    CHECK(read_acc(&d, num(sampler, "output"), 5126, v, N * 3) == 16);
    for (int k = 0; k < 4; k++) {
        double dot = 0, norm = 0;
        for (int c = 0; c < 4; c++) {
            dot += v[4 * k + c] * quats[4 * k + c];
            norm += v[4 * k + c] * v[4 * k + c];
        }
        CHECK_NEAR(fabs(dot), 1.0, 2e-3); /* same rotation (q and -q alike) */
        CHECK_NEAR(norm, 1.0, 2e-3);
    }
    CHECK(!cJSON_GetObjectItem(d.json, "extensionsRequired"));
    cJSON_Delete(d.json);
    vks_gltf_glb_free(&out);

    /* An uncompressed view over the fallback buffer has no data to read. */
    snprintf(json, sizeof json, fmt, b.size, qb + 32, N * 12, ov, vlen, N, ib, 12, oi, ilen, 3 * T,
             qb, oq, qlen, ot, ",{\"buffer\":1,\"byteLength\":4}", N, 3 * T,
             ",{\"bufferView\":4,\"componentType\":5126,\"count\":1,\"type\":\"SCALAR\"}");
    char *sampler_at = strstr(json, "\"input\":3");
    CHECK(sampler_at != NULL);
    if (sampler_at)
        sampler_at[8] = '4';
    expect_error(json, b.data, b.size, "bufferView 4: buffer 1 is an EXT_meshopt_compression");
    /* Corrupt compressed bytes: the decoder's error, naming the view. */
    bin_builder bad = b;
    memset(bad.data + ov, 0xFF, vlen);
    bad.data[ov] = 0x00; /* not the vertex codec's header byte */
    snprintf(json, sizeof json, fmt, b.size, qb + 32, N * 12, ov, vlen, N, ib, 12, oi, ilen, 3 * T,
             qb, oq, qlen, ot, "", N, 3 * T, "");
    expect_error(json, bad.data, bad.size, "bufferView 0: EXT_meshopt_compression");
}

/* ---- failures: one message naming what is wrong ------------------------------------------- */

static void test_errors(void)
{
    const float f[4] = {0, 1, 2, 3};
    expect_error("{\"asset\":{\"version\":\"2.0\"},\"extensionsRequired\":[\"KHR_draco_mesh_"
                 "compression\"]}",
                 NULL, 0,
                 "requires the glTF extension 'KHR_draco_mesh_compression', which vkskin does not "
                 "support");
    expect_error("{\"asset\":{\"version\":\"2.0\"},\"meshes\":[{\"primitives\":[{\"attributes\""
                 ":{\"POSITION\":7}}]}]}",
                 NULL, 0,
                 "mesh 0, primitive 0: attribute POSITION: accessor 7 does not exist (the "
                 "file has 0)");
    expect_error("{\"asset\":{\"version\":\"2.0\"},\"buffers\":[{\"byteLength\":16}],"
                 "\"bufferViews\":[{\"buffer\":0,\"byteLength\":16}],"
                 "\"accessors\":[{\"bufferView\":12,\"componentType\":5126,\"count\":1,\"type\":"
                 "\"SCALAR\"}],\"meshes\":[{\"primitives\":[{\"attributes\":{\"POSITION\":0}}]}]}",
                 f, sizeof f, "accessor 0: bufferView 12 does not exist (the file has 1)");
    expect_error("{\"asset\":{\"version\":\"2.0\"},\"buffers\":[{\"byteLength\":16}],"
                 "\"bufferViews\":[{\"buffer\":0,\"byteLength\":16}],"
                 "\"accessors\":[{\"bufferView\":0,\"componentType\":5126,\"count\":5,\"type\":"
                 "\"SCALAR\"}],\"meshes\":[{\"primitives\":[{\"attributes\":{\"POSITION\":0}}]}]}",
                 f, sizeof f, "accessor 0: 5 elements of 4 bytes");
    expect_error("{\"asset\":{\"version\":\"2.0\"},\"buffers\":[{\"byteLength\":16}],"
                 "\"bufferViews\":[{\"buffer\":0,\"byteLength\":16}],"
                 "\"accessors\":[{\"bufferView\":0,\"componentType\":\"5126\",\"count\":1,"
                 "\"type\":\"SCALAR\"}],\"skins\":[{\"joints\":[0],\"inverseBindMatrices\":0}]}",
                 f, sizeof f, "accessor 0: \"componentType\" must be an integer");
    expect_error("{\"asset\":{\"version\":\"2.0\"},\"buffers\":[{\"byteLength\":16}],"
                 "\"bufferViews\":[{\"buffer\":0,\"byteLength\":16}],"
                 "\"accessors\":[{\"bufferView\":0,\"componentType\":5126,\"count\":1.5,"
                 "\"type\":\"SCALAR\"}],\"skins\":[{\"joints\":[0],\"inverseBindMatrices\":0}]}",
                 f, sizeof f, "accessor 0: \"count\" must be an integer");
    expect_error("{\"asset\":{\"version\":\"2.0\"},\"buffers\":[{\"byteLength\":16}],"
                 "\"bufferViews\":[{\"buffer\":0,\"byteLength\":16}],"
                 "\"accessors\":[{\"bufferView\":0,\"componentType\":5126,\"count\":1,"
                 "\"type\":\"SCALAR\"}],\"skins\":[{\"joints\":[0],\"inverseBindMatrices\":0}]}",
                 f, sizeof f, "skin 0: accessor 0 must be MAT4");
    expect_error("{\"asset\":{\"version\":\"2.0\"},\"buffers\":[{\"byteLength\":64}],"
                 "\"bufferViews\":[{\"buffer\":0,\"byteLength\":4}],"
                 "\"images\":[{\"bufferView\":0,\"mimeType\":\"image/png\"}]}",
                 f, sizeof f, "buffer 0: byteLength 64 is past the GLB binary chunk (16 bytes)");
    expect_error("{\"asset\":{\"version\":\"2.0\"},\"buffers\":[{\"uri\":\"x.bin\","
                 "\"byteLength\":4}],\"bufferViews\":[{\"buffer\":0,\"byteLength\":4}],"
                 "\"images\":[{\"bufferView\":0,\"mimeType\":\"image/png\"}]}",
                 NULL, 0, "buffer 0: refers to the external file 'x.bin'");
    expect_error("{\"asset\":{\"version\":\"2.0\"},\"buffers\":[{\"uri\":\"data:application/"
                 "octet-stream;base64,AA*A\",\"byteLength\":3}],\"bufferViews\":[{\"buffer\":0,"
                 "\"byteLength\":3}],\"images\":[{\"bufferView\":0,\"mimeType\":\"image/png\"}]}",
                 NULL, 0, "buffer 0: the data: URI is not valid base64");
    expect_error("{\"asset\":{\"version\":\"2.0\"},\"meshes\":[{\"primitives\":[", NULL, 0,
                 "invalid JSON");
    expect_error("[1,2]", NULL, 0, "the JSON is not an object");

    /* Truncations of a valid GLB: every prefix fails cleanly or (a whole file) succeeds. */
    size_t size;
    uint8_t *glb = assemble("{\"asset\":{\"version\":\"2.0\"},\"buffers\":[{\"byteLength\":16}],"
                            "\"bufferViews\":[{\"buffer\":0,\"byteLength\":16}],\"accessors\":[{"
                            "\"bufferView\":0,\"componentType\":5126,\"count\":4,\"type\":"
                            "\"SCALAR\"}],\"animations\":[{\"samplers\":[{\"input\":0,"
                            "\"output\":0}],\"channels\":[]}]}",
                            f, sizeof f, &size);
    int failed = 0;
    for (size_t n = 0; n < size; n++) {
        vks_gltf_glb out;
        vks_error err;
        uint8_t *copy = malloc(n ? n : 1); /* exact size: ASan sees any over-read */
        memcpy(copy, glb, n);
        failed += !rewrite(copy, n, &out, &err);
        vks_gltf_glb_free(&out);
        free(copy);
    }
    CHECK(failed == (int)size);
    vks_gltf_glb out;
    vks_error err;
    CHECK(!rewrite(glb, 10, &out, &err) && strstr(err.msg, "GLB: the file is truncated"));
    CHECK(!rewrite(glb, size - 4, &out, &err) && strstr(err.msg, "the header says"));
    CHECK(rewrite(glb, size, &out, &err));
    vks_gltf_glb_free(&out);
    /* glTF JSON text (with a BOM) works as well as a GLB, with a data: buffer. */
    const char *text = "\xEF\xBB\xBF  {\"asset\":{\"version\":\"2.0\"},\"buffers\":[{\"uri\":"
                       "\"data:application/octet-stream;base64,AACAPw==\",\"byteLength\":4}],"
                       "\"bufferViews\":[{\"buffer\":0,\"byteLength\":4}],\"accessors\":[{"
                       "\"bufferView\":0,\"componentType\":5126,\"count\":1,\"type\":\"SCALAR\"}],"
                       "\"animations\":[{\"samplers\":[{\"input\":0,\"output\":0}]}]}";
    CHECK(vks_gltf_detect(text, strlen(text)) && vks_gltf_detect(glb, 4) &&
          !vks_gltf_detect("xyz", 3));
    CHECK(rewrite(text, strlen(text), &out, &err));
    out_doc d;
    double v[1] = {0};
    if (out.data && open_out(&out, &d)) {
        CHECK(read_acc(&d, 0, 5126, v, 1) == 1 && v[0] == 1.0);
        cJSON_Delete(d.json);
    }
    vks_gltf_glb_free(&out);
    free(glb);
}

/* Counts assimp 5.2 reads without checking, refused here with a message each (it read past the
 * data, or crashed, on every one), and a key given twice (assimp might read the unchecked one). */
static void test_counts(void)
{
    const float f[32] = {0, 1, 2, 3};
#define HEAD                                                                                       \
    "{\"asset\":{\"version\":\"2.0\"},\"buffers\":[{\"byteLength\":128}],"                         \
    "\"bufferViews\":[{\"buffer\":0,\"byteLength\":128}],"
    expect_error("{\"asset\":{\"version\":\"2.0\"},\"accessors\":[],\"accessors\":[]}", NULL, 0,
                 "the JSON has the key \"accessors\" twice in one object");
    expect_error("{\"asset\":{\"version\":\"2.0\"},\"nodes\":[{\"name\":\"a\",\"name\":\"b\"}]}",
                 NULL, 0, "the JSON has the key \"name\" twice in one object");
    expect_error(HEAD "\"accessors\":[{\"bufferView\":0,\"componentType\":5126,\"count\":4,"
                      "\"type\":\"SCALAR\"},{\"bufferView\":0,\"componentType\":5126,\"count\":2,"
                      "\"type\":\"SCALAR\"}],\"animations\":[{\"samplers\":[{\"input\":0,"
                      "\"output\":1}],\"channels\":[]}]}",
                 f, sizeof f,
                 "animation 0, sampler 0: output accessor 1 has 2 elements, not a multiple of 4 "
                 "for 4 LINEAR keys");
    expect_error(HEAD "\"accessors\":[{\"bufferView\":0,\"componentType\":5126,\"count\":4,"
                      "\"type\":\"SCALAR\"}],\"animations\":[{\"samplers\":[{\"input\":0,"
                      "\"output\":0,\"interpolation\":\"CUBICSPLINE\"}],\"channels\":[]}]}",
                 f, sizeof f,
                 "output accessor 0 has 4 elements, not a multiple of 12 for 4 CUBICSPLINE keys");
    expect_error(HEAD "\"accessors\":[{\"bufferView\":0,\"componentType\":5126,\"count\":4,"
                      "\"type\":\"SCALAR\"}],\"animations\":[{\"samplers\":[{\"input\":0,"
                      "\"output\":0,\"interpolation\":\"SMOOTH\"}],\"channels\":[]}]}",
                 f, sizeof f, "\"interpolation\" must be LINEAR, STEP or CUBICSPLINE");
    expect_error(HEAD "\"accessors\":[{\"bufferView\":0,\"componentType\":5126,\"count\":4,"
                      "\"type\":\"SCALAR\"}],\"nodes\":[{}],\"animations\":[{\"samplers\":[{"
                      "\"input\":0,\"output\":0}],\"channels\":[{\"sampler\":3,\"target\":{"
                      "\"node\":0,\"path\":\"scale\"}}]}]}",
                 f, sizeof f, "animation 0, channel 0: sampler 3 does not exist (the file has 1)");
    expect_error(HEAD "\"accessors\":[{\"bufferView\":0,\"componentType\":5126,\"count\":4,"
                      "\"type\":\"SCALAR\"}],\"nodes\":[{}],\"animations\":[{\"samplers\":[{"
                      "\"input\":0,\"output\":0}],\"channels\":[{\"sampler\":0,\"target\":{"
                      "\"node\":5,\"path\":\"scale\"}}]}]}",
                 f, sizeof f, "animation 0, channel 0: node 5 does not exist (the file has 1)");
    expect_error(HEAD "\"accessors\":[{\"bufferView\":0,\"componentType\":5126,\"count\":1,"
                      "\"type\":\"MAT4\"}],\"nodes\":[{},{}],\"skins\":[{\"joints\":[0,1],"
                      "\"inverseBindMatrices\":0}]}",
                 f, sizeof f, "skin 0: inverseBindMatrices accessor 0 has 1 matrices for 2 joints");
    expect_error(HEAD "\"nodes\":[{}],\"skins\":[{\"joints\":[0,1]}]}", f, sizeof f,
                 "skin 0: a joint is not the index of a node (the file has 1)");
    expect_error(HEAD "\"accessors\":[{\"bufferView\":0,\"componentType\":5126,\"count\":4,"
                      "\"type\":\"VEC3\"},{\"bufferView\":0,\"componentType\":5126,\"count\":2,"
                      "\"type\":\"VEC4\"}],\"meshes\":[{\"primitives\":[{\"attributes\":{"
                      "\"POSITION\":0,\"WEIGHTS_0\":1}}]}]}",
                 f, sizeof f,
                 "mesh 0, primitive 0: attribute WEIGHTS_0: accessor 1 has 2 elements, the other "
                 "attributes 4");
#undef HEAD

    /* glTF 1.0 is assimp's own: nothing rewritten, the caller reads the file as it is. */
    const char *v1 = "{\"asset\":{\"version\":\"1.0\"},\"meshes\":{\"m\":{}}}";
    vks_gltf_glb out;
    vks_error err;
    CHECK(rewrite(v1, strlen(v1), &out, &err) && out.version1 && !out.data);
    vks_gltf_glb_free(&out);
}

/* Keys out of time order with distinct times are sorted, CUBICSPLINE's three values a key (in-
 * tangent, value, out-tangent) moving together; a repeated time drops the clip. */
static void test_key_order(void)
{
    /* times 0, 2, 1; outputs (10+k, 20+k, 30+k) for key k */
    const float bin[12] = {0, 2, 1, 10, 20, 30, 11, 21, 31, 12, 22, 32};
    vks_gltf_glb out;
    out_doc d;
    bool ok = rewrite_and_open(
        "{\"asset\":{\"version\":\"2.0\"},\"buffers\":[{\"byteLength\":48}],"
        "\"bufferViews\":[{\"buffer\":0,\"byteLength\":12},{\"buffer\":0,\"byteOffset\":12,"
        "\"byteLength\":36}],\"accessors\":[{\"bufferView\":0,\"componentType\":5126,\"count\":3,"
        "\"type\":\"SCALAR\"},{\"bufferView\":1,\"componentType\":5126,\"count\":9,\"type\":"
        "\"SCALAR\"}],\"nodes\":[{}],\"animations\":[{\"name\":\"spline\",\"samplers\":[{\"input\":"
        "0,\"output\":1,\"interpolation\":\"CUBICSPLINE\"}],\"channels\":[{\"sampler\":0,"
        "\"target\":{\"node\":0,\"path\":\"scale\"}}]}]}",
        bin, sizeof bin, &out, &d);
    if (ok) {
        const cJSON *sampler = path(path(d.json, "animations", 0, NULL), "samplers", 0, NULL);
        double t[8] = {0}, v[16] = {0};
        CHECK(read_acc(&d, num(sampler, "input"), 5126, t, 8) == 3);
        CHECK(read_acc(&d, num(sampler, "output"), 5126, v, 16) == 9);
        const double want_t[3] = {0, 1, 2}, want_v[9] = {10, 20, 30, 12, 22, 32, 11, 21, 31};
        for (int k = 0; k < 3; k++)
            CHECK(t[k] == want_t[k]);
        for (int k = 0; k < 9; k++)
            CHECK(v[k] == want_v[k]);
        CHECK(out.warning_count == 1 && strstr(out.warnings[0], "clip 'spline' had keys out of "
                                                                "time order"));
        cJSON_Delete(d.json);
    }
    vks_gltf_glb_free(&out);
}

/* A sparse accessor over real data (its indices replace those values), a texture transform whose
 * own texCoord picks TEXCOORD_1 (TEXCOORD_0 stays), and an external buffer named with a %20. */
static void test_sparse_texcoord_uri(void)
{
    /* view 0: 4 scalars; view 1: sparse index 2 (u8); view 2: its value 9; view 3: two uv sets */
    const float base[4] = {0, 1, 2, 3}, nine = 9, uv[4] = {0.5f, 0.5f, 0.25f, 0.75f};
    const uint8_t at = 2;
    bin_builder b = {0};
    size_t o0 = bin_put(&b, base, sizeof base), o1 = bin_put(&b, &at, 1);
    size_t o2 = bin_put(&b, &nine, 4), o3 = bin_put(&b, uv, sizeof uv);
    char json[2048];
    snprintf(json, sizeof json,
             "{\"asset\":{\"version\":\"2.0\"},\"extensionsUsed\":[\"KHR_texture_transform\"],"
             "\"buffers\":[{\"byteLength\":%zu}],\"bufferViews\":["
             "{\"buffer\":0,\"byteOffset\":%zu,\"byteLength\":16},"
             "{\"buffer\":0,\"byteOffset\":%zu,\"byteLength\":1},"
             "{\"buffer\":0,\"byteOffset\":%zu,\"byteLength\":4},"
             "{\"buffer\":0,\"byteOffset\":%zu,\"byteLength\":16}],\"accessors\":["
             "{\"bufferView\":0,\"componentType\":5126,\"count\":4,\"type\":\"SCALAR\","
             "\"sparse\":{\"count\":1,\"indices\":{\"bufferView\":1,\"componentType\":5121},"
             "\"values\":{\"bufferView\":2}}},"
             "{\"bufferView\":0,\"componentType\":5126,\"count\":4,\"type\":\"SCALAR\"},"
             "{\"bufferView\":3,\"componentType\":5126,\"count\":1,\"type\":\"VEC2\"},"
             "{\"bufferView\":3,\"byteOffset\":8,\"componentType\":5126,\"count\":1,"
             "\"type\":\"VEC2\"}],"
             "\"images\":[{\"uri\":\"data:image/png;base64,iVBORw0KGgo=\"}],"
             "\"textures\":[{\"source\":0}],\"materials\":[{\"pbrMetallicRoughness\":{"
             "\"baseColorTexture\":{\"index\":0,\"extensions\":{\"KHR_texture_transform\":{"
             "\"offset\":[1,2],\"texCoord\":1}}}}}],"
             "\"meshes\":[{\"primitives\":[{\"attributes\":{\"TEXCOORD_0\":2,\"TEXCOORD_1\":3},"
             "\"material\":0}]}],\"nodes\":[{}],"
             "\"animations\":[{\"samplers\":[{\"input\":1,\"output\":0}],\"channels\":[]}]}",
             b.size, o0, o1, o2, o3);
    vks_gltf_glb out;
    out_doc d;
    bool ok = rewrite_and_open(json, b.data, b.size, &out, &d);
    if (ok) {
        double v[8] = {0};
        const cJSON *sampler = path(path(d.json, "animations", 0, NULL), "samplers", 0, NULL);
        CHECK(read_acc(&d, num(sampler, "output"), 5126, v, 8) == 4);
        CHECK(v[0] == 0 && v[1] == 1 && v[2] == 9 && v[3] == 3); /* index 2 replaced */
        const cJSON *attr = cJSON_GetObjectItem(
            cJSON_GetArrayItem(cJSON_GetObjectItem(path(d.json, "meshes", 0, NULL), "primitives"),
                               0),
            "attributes");
        CHECK(read_acc(&d, num(attr, "TEXCOORD_0"), 5126, v, 8) == 2);
        CHECK(v[0] == 0.5 && v[1] == 0.5); /* not the transform's set */
        CHECK(read_acc(&d, num(attr, "TEXCOORD_1"), 5126, v, 8) == 2);
        CHECK(v[0] == 1.25 && v[1] == 2.75); /* (0.25, 0.75) + offset (1, 2) */
        cJSON_Delete(d.json);
    }
    vks_gltf_glb_free(&out);

    /* .gltf text with its buffer in "my data.bin", named "my%20data.bin". */
    char dir[] = "/tmp/vks_gltf_XXXXXX", file[64];
    if (!mkdtemp(dir)) {
        CHECK(!"mkdtemp");
        return;
    }
    snprintf(file, sizeof file, "%s/my data.bin", dir);
    FILE *f = fopen(file, "wb");
    CHECK(f && fwrite(base, sizeof base, 1, f) == 1);
    if (f)
        fclose(f);
    const char *text = "{\"asset\":{\"version\":\"2.0\"},\"buffers\":[{\"uri\":\"my%20data.bin\","
                       "\"byteLength\":16}],\"bufferViews\":[{\"buffer\":0,\"byteLength\":16}],"
                       "\"accessors\":[{\"bufferView\":0,\"componentType\":5126,\"count\":4,"
                       "\"type\":\"SCALAR\"}],\"animations\":[{\"samplers\":[{\"input\":0,"
                       "\"output\":0}],\"channels\":[]}]}";
    vks_error err = {{0}};
    ok = vks_gltf_rewrite(
        &(vks_gltf_desc){.data = text, .size = strlen(text), .dir = dir, .name = "test.gltf"}, &out,
        &err);
    CHECK(ok);
    if (ok && open_out(&out, &d)) {
        double v[4] = {0};
        const cJSON *sampler = path(path(d.json, "animations", 0, NULL), "samplers", 0, NULL);
        CHECK(read_acc(&d, num(sampler, "input"), 5126, v, 4) == 4 && v[3] == 3);
        cJSON_Delete(d.json);
    }
    vks_gltf_glb_free(&out);
    remove(file);
    rmdir(dir);
}

/* EXT_meshopt_compression's octahedral filter (normals as i16, 12 bits) and exponential filter
 * (positions, a 15-bit mantissa shared per vector), encoded here with meshoptimizer's own encoders:
 * the decoded normals point within the 12-bit grid's error of the originals, the positions within
 * the mantissa's step of their largest component. */
static void test_meshopt_filters(void)
{
    enum { N = 16 };
    float nrm[N * 4], pos[N * 3];
    for (int i = 0; i < N; i++) {
        double a = 0.37 * i, b = 0.21 * i - 1.0;
        double v[3] = {cos(a) * cos(b), sin(b), sin(a) * cos(b)};
        for (int c = 0; c < 3; c++) {
            nrm[4 * i + c] = (float)v[c];
            pos[3 * i + c] = (float)(sin(1.3 * i + c) * 123.456 + 100.0 * (c == 1));
        }
        nrm[4 * i + 3] = 0.0f;
    }
    int16_t oct[N * 4];
    float expo[N * 3];
    meshopt_encodeFilterOct(oct, N, 8, 12, nrm);
    meshopt_encodeFilterExp(expo, N, 12, 15, pos);
    static uint8_t comp[2][4096];
    size_t olen = meshopt_encodeVertexBuffer(comp[0], sizeof comp[0], oct, N, 8);
    size_t elen = meshopt_encodeVertexBuffer(comp[1], sizeof comp[1], expo, N, 12);
    CHECK(olen && elen);
    bin_builder b = {0};
    size_t oo = bin_put(&b, comp[0], olen), oe = bin_put(&b, comp[1], elen);
    char json[2048];
    snprintf(
        json, sizeof json,
        "{\"asset\":{\"version\":\"2.0\"},\"extensionsUsed\":[\"EXT_meshopt_compression\"],"
        "\"buffers\":[{\"byteLength\":%zu},{\"byteLength\":%d,\"extensions\":{"
        "\"EXT_meshopt_compression\":{\"fallback\":true}}}],\"bufferViews\":["
        "{\"buffer\":1,\"byteLength\":%d,\"byteStride\":8,\"extensions\":{"
        "\"EXT_meshopt_compression\":{\"buffer\":0,\"byteOffset\":%zu,\"byteLength\":%zu,"
        "\"byteStride\":8,\"count\":%d,\"mode\":\"ATTRIBUTES\",\"filter\":\"OCTAHEDRAL\"}}},"
        "{\"buffer\":1,\"byteOffset\":%d,\"byteLength\":%d,\"byteStride\":12,\"extensions\":{"
        "\"EXT_meshopt_compression\":{\"buffer\":0,\"byteOffset\":%zu,\"byteLength\":%zu,"
        "\"byteStride\":12,\"count\":%d,\"mode\":\"ATTRIBUTES\",\"filter\":\"EXPONENTIAL\"}}}],"
        "\"accessors\":[{\"bufferView\":0,\"componentType\":5122,\"normalized\":true,"
        "\"count\":%d,\"type\":\"VEC3\"},{\"bufferView\":1,\"componentType\":5126,"
        "\"count\":%d,\"type\":\"VEC3\"}],\"meshes\":[{\"primitives\":[{\"attributes\":{"
        "\"NORMAL\":0,\"POSITION\":1}}]}],\"nodes\":[{\"mesh\":0}]}",
        b.size, N * 20, N * 8, oo, olen, N, N * 8, N * 12, oe, elen, N, N, N);
    vks_gltf_glb out;
    out_doc d;
    if (rewrite_and_open(json, b.data, b.size, &out, &d)) {
        const cJSON *attr = cJSON_GetObjectItem(
            cJSON_GetArrayItem(cJSON_GetObjectItem(path(d.json, "meshes", 0, NULL), "primitives"),
                               0),
            "attributes");
        double n[N * 3], p[N * 3];
        CHECK(read_acc(&d, num(attr, "NORMAL"), 5126, n, N * 3) == N * 3);
        CHECK(read_acc(&d, num(attr, "POSITION"), 5126, p, N * 3) == N * 3);
        double worst_angle = 0, worst_pos = 0;
        for (int i = 0; i < N; i++) {
            double dot = 0, len = 0, largest = 0;
            for (int c = 0; c < 3; c++) {
                dot += n[3 * i + c] * nrm[4 * i + c];
                len += n[3 * i + c] * n[3 * i + c];
                largest = fmax(largest, fabs(pos[3 * i + c]));
            }
            worst_angle = fmax(worst_angle, acos(fmin(1.0, dot / sqrt(len))));
            for (int c = 0; c < 3; c++)
                worst_pos = fmax(worst_pos, fabs(p[3 * i + c] - pos[3 * i + c]) / largest);
        }
        /* 12-bit octahedral coordinates: a grid step of 2/4095 over [-1, 1], at most about twice
         * that in angle near the folds, and the i16 storage of the result rounds by 1/32767. */
        CHECK(worst_angle < 4.0 / 4095 + 2.0 / 32767);
        /* A signed 15-bit mantissa m = round(v / 2^e), the smallest e with |max| / 2^e below
         * 2^14 - 1: the rounding (half of 2^e) is under 1 / (2^14 - 1) of the largest component. */
        CHECK(worst_pos < 1.0 / ((1 << 14) - 1));
        printf("meshopt filters: normals within %.3g rad, positions within %.3g of their largest "
               "component\n",
               worst_angle, worst_pos);
        cJSON_Delete(d.json);
    }
    vks_gltf_glb_free(&out);
}

/* Morph targets pass the rewrite whole: a triangle with a dense target and a sparse one without
 * a bufferView (zeros, one vertex given), the mesh's default weights and target names, and a
 * CUBICSPLINE weights channel (in-tangents, values and out-tangents: 3 x 2 floats a key). The
 * sparse target comes out plain, its other vertices zero; the weights, the names and the
 * channel's 12 outputs as they were. (The file is written here with tools/glb_writer.) */
static void test_morph_targets(void)
{
    glbw_doc *doc = glbw_create();
    const float pos[3][3] = {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}};
    const float dense[3][3] = {{0, 0, 0.5f}, {0, 0, 0.25f}, {0, 0, 0}};
    glbw_primitive_desc p = glbw_primitive_defaults();
    p.position = glbw_add_floats(doc, &pos[0][0], 3, GLBW_VEC3, GLBW_TARGET_VERTICES, true);
    p.target_count = 2;
    p.targets[0] = (glbw_morph_target){
        glbw_add_floats(doc, &dense[0][0], 3, GLBW_VEC3, GLBW_TARGET_VERTICES, true), GLBW_NONE,
        GLBW_NONE};
    const double lo[3] = {0, 0, 0}, hi[3] = {0.5, 0, 0};
    int sparse = glbw_add_accessor(doc, GLBW_NONE, 0,
                                   &(glbw_accessor_desc){.component = GLBW_F32,
                                                         .type = GLBW_VEC3,
                                                         .count = 3,
                                                         .min_max = true,
                                                         .min = lo,
                                                         .max = hi});
    const uint16_t at = 2;
    const float moved[3] = {0.5f, 0, 0};
    glbw_set_sparse(
        doc, sparse,
        &(glbw_sparse_desc){.count = 1,
                            .indices_view = glbw_add_view(doc, &at, sizeof at, 0, GLBW_TARGET_NONE),
                            .indices_component = GLBW_U16,
                            .values_view =
                                glbw_add_view(doc, moved, sizeof moved, 0, GLBW_TARGET_NONE)});
    p.targets[1] = (glbw_morph_target){sparse, GLBW_NONE, GLBW_NONE};
    int mesh = glbw_add_mesh(doc, "tri", &p, 1);
    CHECK(glbw_mesh_set_targets(doc, mesh, (const float[2]){0.5f, 0.25f}, 2,
                                (const char *const[2]){"up", "side"}, 2));
    glbw_node_desc nd = glbw_node_defaults();
    nd.mesh = mesh;
    int node = glbw_add_node(doc, &nd);
    /* A clip dropped first (its keys go back in time and repeat one: ambiguous), so that the
     * weights clips after it are 0 and 1 in the rewritten file; then the cubic one, then a STEP
     * one with its keys out of order (sorted: distinct times). */
    int broken = glbw_add_animation(doc, "broken");
    const float bad_times[3] = {1, 0, 1}, bad_t[3][3] = {{0}};
    glbw_add_anim_channel(
        doc, broken,
        glbw_add_anim_sampler(
            doc, broken, glbw_add_floats(doc, bad_times, 3, GLBW_SCALAR, GLBW_TARGET_NONE, true),
            glbw_add_floats(doc, &bad_t[0][0], 3, GLBW_VEC3, GLBW_TARGET_NONE, false), GLBW_LINEAR),
        node, GLBW_PATH_TRANSLATION);
    int anim = glbw_add_animation(doc, "wave");
    const float times[2] = {0, 1}, out[12] = {0, 0, 0, 0, 1, 0, 0, 0, 1, 1, 0, 0};
    int sampler = glbw_add_anim_sampler(
        doc, anim, glbw_add_floats(doc, times, 2, GLBW_SCALAR, GLBW_TARGET_NONE, true),
        glbw_add_floats(doc, out, 12, GLBW_SCALAR, GLBW_TARGET_NONE, false), GLBW_CUBICSPLINE);
    glbw_add_anim_channel(doc, anim, sampler, node, GLBW_PATH_WEIGHTS);
    int blink = glbw_add_animation(doc, "blink");
    const float step_times[2] = {0.5f, 0}, step_out[4] = {1, 0, 0, 1};
    glbw_add_anim_channel(
        doc, blink,
        glbw_add_anim_sampler(
            doc, blink, glbw_add_floats(doc, step_times, 2, GLBW_SCALAR, GLBW_TARGET_NONE, true),
            glbw_add_floats(doc, step_out, 4, GLBW_SCALAR, GLBW_TARGET_NONE, false), GLBW_STEP),
        node, GLBW_PATH_WEIGHTS);
    uint8_t *bytes = NULL;
    size_t size = 0;
    char msg[256];
    CHECK(glbw_write_memory(doc, &bytes, &size, msg, sizeof msg));
    glbw_destroy(doc);
    vks_gltf_glb glb;
    vks_error err = {{0}};
    out_doc d;
    if (bytes && rewrite(bytes, size, &glb, &err) && open_out(&glb, &d)) {
        const cJSON *m = path(d.json, "meshes", 0, NULL);
        const cJSON *targets = path(m, "primitives", 0, "targets");
        CHECK(cJSON_GetArraySize(targets) == 2);
        double v[16] = {0};
        CHECK(read_acc(&d, num(cJSON_GetArrayItem(targets, 0), "POSITION"), 5126, v, 16) == 9);
        CHECK(v[2] == 0.5 && v[5] == 0.25 && v[8] == 0);
        CHECK(read_acc(&d, num(cJSON_GetArrayItem(targets, 1), "POSITION"), 5126, v, 16) == 9);
        CHECK(v[0] == 0 && v[3] == 0 && v[6] == 0.5 && v[7] == 0 && v[8] == 0);
        const cJSON *w = cJSON_GetObjectItem(m, "weights");
        CHECK(cJSON_GetArraySize(w) == 2 && cJSON_GetArrayItem(w, 0)->valuedouble == 0.5 &&
              cJSON_GetArrayItem(w, 1)->valuedouble == 0.25);
        const cJSON *names = cJSON_GetObjectItem(cJSON_GetObjectItem(m, "extras"), "targetNames");
        CHECK(cJSON_GetArraySize(names) == 2 &&
              strcmp(cJSON_GetStringValue(cJSON_GetArrayItem(names, 1)), "side") == 0);
        const cJSON *smp = path(path(d.json, "animations", 0, NULL), "samplers", 0, NULL);
        CHECK(strcmp(cJSON_GetStringValue(cJSON_GetObjectItem(smp, "interpolation")),
                     "CUBICSPLINE") == 0);
        CHECK(read_acc(&d, num(smp, "output"), 5126, v, 16) == 12 && v[4] == 1 && v[9] == 1);
        /* The weights channels read beside the file (assimp loses their interpolation): the
         * unnamed node as assimp names it, the clips' indices after the dropped one, the cubic
         * channel's 12 values as written, the STEP channel's keys in time order. */
        CHECK(glb.weights_count == 2);
        if (glb.weights_count == 2) {
            const vks_gltf_weights *c = &glb.weights[0], *st = &glb.weights[1];
            CHECK(c->animation == 0 && strcmp(c->node, "nodes[0]") == 0 &&
                  c->interp == VKS_GLTF_CUBICSPLINE && c->key_count == 2 && c->target_count == 2);
            CHECK(c->times[0] == 0 && c->times[1] == 1 && memcmp(c->values, out, sizeof out) == 0);
            CHECK(st->animation == 1 && st->interp == VKS_GLTF_STEP && st->key_count == 2 &&
                  st->target_count == 2);
            CHECK(st->times[0] == 0 && st->times[1] == 0.5f && st->values[0] == 0 &&
                  st->values[1] == 1 && st->values[2] == 1 && st->values[3] == 0);
        }
        cJSON_Delete(d.json);
        vks_gltf_glb_free(&glb);
    } else {
        CHECK(!"the morph-target file rewritten");
    }
    glbw_free_bytes(bytes);
}

static void rewrite_model(const char *file)
{
    FILE *f = fopen(file, "rb");
    if (!f) {
        check_failures++;
        fprintf(stderr, "cannot open %s\n", file);
        return;
    }
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    uint8_t *data = malloc((size_t)n);
    CHECK(fread(data, 1, (size_t)n, f) == (size_t)n);
    fclose(f);
    vks_gltf_glb out;
    vks_error err = {{0}};
    vks_gltf_desc desc = {.data = data, .size = (size_t)n, .dir = ".", .name = file};
    bool ok = vks_gltf_rewrite(&desc, &out, &err);
    CHECK(ok);
    if (!ok)
        fprintf(stderr, "%s\n", err.msg);
    else
        printf("%s: %zu -> %zu bytes, %u warnings\n", file, (size_t)n, out.size, out.warning_count);
    vks_gltf_glb_free(&out);
    free(data);
}

int main(int argc, char **argv)
{
    test_weights_and_identity();
    test_quantized();
    test_meshopt();
    test_errors();
    test_counts();
    test_key_order();
    test_sparse_texcoord_uri();
    test_meshopt_filters();
    test_morph_targets();
    for (int i = 1; i < argc; i++)
        rewrite_model(argv[i]);
    return check_report("gltf_rewrite");
}
