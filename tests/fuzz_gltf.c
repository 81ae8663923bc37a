/* libFuzzer harness for the glTF reader alone (src/asset/gltf.c, no assimp behind it), so that
 * the fuzzer spends its time in our parsing and decoding:
 *   cmake -S . -B build-fuzz -DCMAKE_C_COMPILER=clang -DVKS_FUZZ=ON && cmake --build build-fuzz
 *   build-fuzz/tests/fuzz_gltf -max_total_time=300 CORPUS
 * Every input must end in a GLB or one error message: no crash, no sanitizer report, no leak. A
 * GLB that comes out must itself be read back the same (the rewrite of a rewrite is stable). */
#include "asset/gltf.h"

#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    vks_gltf_glb glb, again;
    vks_error err;
    if (!vks_gltf_rewrite(&(vks_gltf_desc){.data = data, .size = size, .name = "fuzz"}, &glb, &err))
        return 0;
    if (glb.version1) { /* glTF 1.0: left to assimp, nothing written */
        vks_gltf_glb_free(&glb);
        return 0;
    }
    if (!vks_gltf_rewrite(&(vks_gltf_desc){.data = glb.data, .size = glb.size, .name = "again"},
                          &again, &err))
        abort(); /* our own output must be readable */
    if (again.size != glb.size || memcmp(again.data, glb.data, glb.size) != 0)
        abort(); /* and plain already: a second rewrite changes nothing */
    vks_gltf_glb_free(&again);
    vks_gltf_glb_free(&glb);
    return 0;
}
