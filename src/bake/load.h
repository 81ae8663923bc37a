/* A model as the renderer wants it: the load pipeline, import to measured levels of detail. It
 * strings the stages together and so sees them all (the asset layer's, and the CPU reference
 * skinning that measures the levels in motion). */
#ifndef VKS_LOAD_H
#define VKS_LOAD_H

#include "../core/error.h"
#include "../asset/import.h"
#include "../asset/model.h"

/* Imports a model (import.h) and prepares it for the renderer: its meshes merged by material
 * (merge.h; unless desc->keep_meshes), its compact streams, encoded once (pack.h; the CPU then
 * sees their decoded values), its levels of detail (lod.h) and their errors over the clips'
 * poses (bake/lod_error.h), and the clips' root motion (root_motion.h). On failure *out is
 * zeroed and owns nothing. */
bool vks_model_load(const vks_import_desc *desc, vks_model *out, vks_error *err);

#endif
