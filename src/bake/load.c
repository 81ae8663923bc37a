/* The load pipeline (load.h). */
#include "load.h"

#include "lod_error.h"
#include "skeleton_lod.h"
#include "lod.h"
#include "merge.h"
#include "root_motion.h"
#include "gait.h"
#include "splat.h"
#include "../asset/pack.h"

bool vks_model_load(const vks_import_desc *desc, vks_model *out, vks_error *err)
{
    if (!vks_model_import(desc, out, err))
        return false;
    if ((!desc->keep_meshes &&
         (!vks_model_merge_colours(out, err) || !vks_model_merge_meshes(out, err))) ||
        !vks_model_pack(out, err) || !vks_model_build_lods(out, err) ||
        !vks_model_measure_lods(out, err) || !vks_model_fold_skeleton(out, err) ||
        !vks_model_build_splat(out, err) ||
        !vks_model_extract_root_motion(out, desc->motion_joint, err) ||
        !vks_model_measure_gaits(out, err)) {
        vks_model_destroy(out);
        return false;
    }
    return true;
}
