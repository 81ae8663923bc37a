/* What a GLB file holds, counted from its JSON and binary chunk alone, without vkskin's importer:
 * the expected values of the CLI tests (tests/cli_crowd.sh) that would otherwise come from the
 * program under test (`vkskin info`).
 *   triangles  indices / 3 of every triangle primitive of every mesh a node shows
 *   meshes     those primitives, one each: the importer's meshes
 *   materials  the distinct materials of those primitives (one without a material counts as
 *              the default one): the meshes the loader merges them into (one draw each a level)
 *   vertices   per such primitive, the distinct vertices its indices use (all attributes
 *              compared byte for byte): the importer drops vertices no triangle uses and joins
 *              identical ones
 *   influences the most joints a vertex may name: 4 per JOINTS_n set, over the primitives
 *   bones      distinct joints over the file's skins
 *   joints     the palette's entries: the bones, the nodes that show meshes and every ancestor of
 *              either, plus the root the importer adds above a scene of several root nodes
 * Prints "NAME COUNT" lines. Only what the project's GLBs use: accessors in buffer views of the
 * binary chunk, indexed triangles. Anything else is refused with a message (exit 1). The vertex
 * count is the importer's for the project's own files (tools/gen_character.c,
 * tests/make_fixtures.c); assimp also joins vertices that are equal within a tolerance, which
 * other files may hold.
 *   usage: glb_counts FILE.glb */
#include <cjson/cJSON.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *path;

static int fail(const char *what)
{
    fprintf(stderr, "glb_counts: %s: %s\n", path, what);
    exit(1);
}

static uint32_t u32(const unsigned char *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static int number(const cJSON *o, const char *key, int fallback)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    return cJSON_IsNumber(v) ? v->valueint : fallback;
}

typedef struct accessor {
    const unsigned char *data; /* the first element */
    size_t size, stride;       /* of an element, between elements */
    uint32_t count;
    int component; /* glTF componentType */
} accessor;

static accessor accessor_of(const cJSON *doc, const unsigned char *bin, size_t bin_size, int index)
{
    static const struct {
        const char *type;
        int components;
    } types[] = {{"SCALAR", 1}, {"VEC2", 2}, {"VEC3", 3}, {"VEC4", 4}, {"MAT4", 16}};
    const cJSON *a = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(doc, "accessors"), index);
    const cJSON *type = cJSON_GetObjectItemCaseSensitive(a, "type");
    const int view_index = number(a, "bufferView", -1), component = number(a, "componentType", 0);
    if (!a || view_index < 0 || cJSON_GetObjectItemCaseSensitive(a, "sparse"))
        fail("an accessor without a buffer view, or sparse: not counted here");
    const cJSON *view =
        cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(doc, "bufferViews"), view_index);
    /* glTF's component types: 5120/5121 (i8/u8), 5122/5123 (i16/u16), 5125 (u32), 5126 (f32). */
    const size_t component_size = component == 5126 || component == 5125   ? 4
                                  : component == 5122 || component == 5123 ? 2
                                  : component == 5120 || component == 5121 ? 1
                                                                           : 0;
    int components = 0;
    for (size_t k = 0; k < sizeof types / sizeof types[0]; k++)
        if (cJSON_IsString(type) && strcmp(type->valuestring, types[k].type) == 0)
            components = types[k].components;
    if (!view || number(view, "buffer", 0) != 0 || components == 0 || component_size == 0)
        fail("an accessor of a kind not counted here");
    const int count = number(a, "count", -1), stride = number(view, "byteStride", 0);
    const int view_offset = number(view, "byteOffset", 0), offset = number(a, "byteOffset", 0);
    if (count < 0 || stride < 0 || view_offset < 0 || offset < 0)
        fail("a negative count, stride or offset");
    accessor r = {.size = component_size * (size_t)components,
                  .count = (uint32_t)count,
                  .component = component};
    r.stride = stride ? (size_t)stride : r.size;
    const size_t at = (size_t)view_offset + (size_t)offset;
    if (r.count && at + r.stride * (r.count - 1) + r.size > bin_size)
        fail("an accessor past the binary chunk");
    r.data = bin + at;
    return r;
}

static uint32_t index_at(const accessor *a, uint32_t i)
{
    const unsigned char *p = a->data + a->stride * i;
    return a->component == 5125   ? u32(p)
           : a->component == 5123 ? (uint32_t)(p[0] | p[1] << 8)
                                  : p[0];
}

/* Distinct vertices among those a primitive's indices use: each vertex's attribute bytes
 * concatenated into a key, the keys sorted, runs counted. */
static size_t key_size;
static int by_key(const void *a, const void *b)
{
    return memcmp(a, b, key_size);
}

static uint32_t distinct_vertices(const cJSON *doc, const unsigned char *bin, size_t bin_size,
                                  const cJSON *primitive, const accessor *indices)
{
    const cJSON *attributes = cJSON_GetObjectItemCaseSensitive(primitive, "attributes");
    accessor streams[16];
    int n = 0;
    key_size = 0;
    for (const cJSON *at = attributes ? attributes->child : NULL; at; at = at->next) {
        if (n == 16)
            fail("more than 16 attributes");
        streams[n] = accessor_of(doc, bin, bin_size, at->valueint);
        key_size += streams[n++].size;
    }
    unsigned char *keys = malloc(key_size * (indices->count ? indices->count : 1));
    if (!keys)
        fail("out of memory");
    for (uint32_t i = 0; i < indices->count; i++) {
        const uint32_t v = index_at(indices, i);
        unsigned char *key = keys + key_size * i;
        for (int k = 0; k < n; k++) {
            if (v >= streams[k].count)
                fail("an index past its vertices");
            memcpy(key, streams[k].data + streams[k].stride * v, streams[k].size);
            key += streams[k].size;
        }
    }
    qsort(keys, indices->count, key_size, by_key);
    uint32_t distinct = 0;
    for (uint32_t i = 0; i < indices->count; i++)
        distinct += i == 0 || memcmp(keys + key_size * i, keys + key_size * (i - 1), key_size);
    free(keys);
    return distinct;
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: glb_counts FILE.glb\n");
        return 2;
    }
    path = argv[1];
    FILE *f = fopen(path, "rb");
    if (!f)
        fail("cannot open");
    fseek(f, 0, SEEK_END);
    const long size = ftell(f);
    fseek(f, 0, SEEK_SET);
    unsigned char *file = size > 28 ? malloc((size_t)size + 1) : NULL;
    if (!file || fread(file, 1, (size_t)size, f) != (size_t)size)
        fail("cannot read, or too short for a GLB");
    fclose(f);
    const uint32_t json_size = u32(file + 12);
    if (u32(file) != 0x46546c67u || (size_t)json_size + 28 > (size_t)size ||
        u32(file + 16) != 0x4e4f534au)
        fail("not a GLB with a JSON chunk");
    const unsigned char *bin_chunk = file + 20 + json_size;
    const size_t bin_size = u32(bin_chunk);
    if (u32(bin_chunk + 4) != 0x004e4942u || 28 + (size_t)json_size + bin_size > (size_t)size)
        fail("no binary chunk");
    cJSON *doc = cJSON_ParseWithLength((const char *)file + 20, json_size);
    if (!doc)
        fail("the JSON does not parse");

    const cJSON *nodes = cJSON_GetObjectItemCaseSensitive(doc, "nodes");
    const cJSON *meshes = cJSON_GetObjectItemCaseSensitive(doc, "meshes");
    const int node_count = cJSON_GetArraySize(nodes);
    int *parent = malloc(sizeof *parent * (size_t)(node_count + 1));
    char *kept = calloc((size_t)node_count + 1, 1), *bone = calloc((size_t)node_count + 1, 1);
    if (!parent || !kept || !bone)
        fail("out of memory");
    for (int i = 0; i < node_count; i++)
        parent[i] = -1;
    for (int i = 0; i < node_count; i++) {
        const cJSON *children =
            cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(nodes, i), "children");
        for (const cJSON *c = children ? children->child : NULL; c; c = c->next)
            if (c->valueint >= 0 && c->valueint < node_count)
                parent[c->valueint] = i;
    }
    const cJSON *skins = cJSON_GetObjectItemCaseSensitive(doc, "skins");
    for (const cJSON *s = skins ? skins->child : NULL; s; s = s->next) {
        const cJSON *joints = cJSON_GetObjectItemCaseSensitive(s, "joints");
        for (const cJSON *j = joints ? joints->child : NULL; j; j = j->next)
            if (j->valueint >= 0 && j->valueint < node_count)
                bone[j->valueint] = kept[j->valueint] = 1;
    }
    uint64_t triangles = 0, vertices = 0;
    uint32_t influences = 0, primitives = 0, materials = 0;
    const int material_count =
        cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(doc, "materials"));
    char *material_used = calloc((size_t)material_count + 1, 1); /* [count]: no material */
    if (!material_used)
        fail("out of memory");
    for (int i = 0; i < node_count; i++) {
        const int mesh = number(cJSON_GetArrayItem(nodes, i), "mesh", -1);
        if (mesh < 0)
            continue;
        kept[i] = 1;
        const cJSON *prims =
            cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(meshes, mesh), "primitives");
        for (const cJSON *p = prims ? prims->child : NULL; p; p = p->next) {
            if (number(p, "mode", 4) != 4 || number(p, "indices", -1) < 0)
                fail("a primitive that is not indexed triangles");
            const accessor indices =
                accessor_of(doc, bin_chunk + 8, bin_size, number(p, "indices", -1));
            triangles += indices.count / 3;
            primitives++;
            int material = number(p, "material", -1);
            if (material < 0 || material >= material_count)
                material = material_count;
            materials += !material_used[material];
            material_used[material] = 1;
            vertices += distinct_vertices(doc, bin_chunk + 8, bin_size, p, &indices);
            uint32_t sets = 0;
            const cJSON *attributes = cJSON_GetObjectItemCaseSensitive(p, "attributes");
            for (const cJSON *at = attributes ? attributes->child : NULL; at; at = at->next)
                sets += strncmp(at->string, "JOINTS_", 7) == 0;
            influences = 4 * sets > influences ? 4 * sets : influences;
        }
    }
    uint32_t joints = 0, bones = 0;
    for (int i = 0; i < node_count; i++) /* ancestors of what is kept */
        for (int p = kept[i] ? parent[i] : -1; p >= 0 && !kept[p]; p = parent[p])
            kept[p] = 1;
    for (int i = 0; i < node_count; i++)
        joints += kept[i], bones += bone[i];
    const cJSON *scenes = cJSON_GetObjectItemCaseSensitive(doc, "scenes");
    const cJSON *scene = cJSON_GetArrayItem(scenes, number(doc, "scene", 0));
    joints += cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(scene, "nodes")) > 1;
    printf("triangles %llu\nvertices %llu\nmeshes %u\nmaterials %u\ninfluences %u\njoints %u\n"
           "bones %u\n",
           (unsigned long long)triangles, (unsigned long long)vertices, primitives, materials,
           influences, joints, bones);
    cJSON_Delete(doc);
    free(parent), free(kept), free(bone), free(material_used), free(file);
    return 0;
}
