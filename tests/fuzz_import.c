/* libFuzzer harness for the load path (assimp + our importer, then what vks_model_load does
 * next: colours and meshes merged, the compact streams' encoding, the levels of detail, the
 * skeleton's, the far splat, root motion and gaits; then the crowd's resampled clips), in memory
 * as a .glb:
 *   cmake -S . -B build-fuzz -DCMAKE_C_COMPILER=clang -DVKS_FUZZ=ON && cmake --build build-fuzz
 *   LSAN_OPTIONS=suppressions=tests/lsan.supp build-fuzz/tests/fuzz_import -max_total_time=60
 * CORPUS Every input must end in a model or one error message: no crash, no sanitizer report. */
#include "anim/sampler.h"
#include "asset/import.h"
#include "bake/lod.h"
#include "bake/merge.h"
#include "asset/pack.h"
#include "bake/lod_error.h"
#include "bake/skeleton_lod.h"
#include "bake/root_motion.h"
#include "bake/gait.h"
#include "bake/splat.h"

#include <stdint.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    vks_model model;
    vks_error err;
    vks_import_desc desc = {
        .data = data, .size = size, .hint = "glb", .name = "fuzz", .in_process = true};
    if (vks_model_import(&desc, &model, &err)) {
        if (vks_model_merge_colours(&model, &err) && vks_model_merge_meshes(&model, &err) &&
            vks_model_pack(&model, &err) && vks_model_build_lods(&model, &err) &&
            vks_model_measure_lods(&model, &err) && vks_model_fold_skeleton(&model, &err) &&
            vks_model_build_splat(&model, &err) &&
            vks_model_extract_root_motion(&model, NULL, &err)) /* as vks_model_load */
            vks_model_measure_gaits(&model, &err);
        for (uint32_t c = 0; c <= model.clip_count; c++) { /* the bind pose, then every clip */
            vks_sampler s;
            if (vks_sampler_build(&model.skeleton, c ? &model.clips[c - 1] : NULL, 64u << 20, &s) ==
                VKS_SAMPLER_BUILT)
                vks_sampler_free(&s);
        }
        vks_model_destroy(&model);
    }
    return 0;
}
