// Where the compute rasterizer (raster.comp) and its resolve (resolve.frag) read and write:
// through the device addresses in `push` (the fast path) or, with VKS_DESCRIPTORS, through the data set
// (set VKS_DATA_SET, VKS_DATA_*) and the raster set (set VKS_RASTER_SET,
// VKS_RASTER_BINDING_*): vks_shared.h. Declare before including: `push`, VKS_VIS_TYPE (the
// visibility buffer's element) and VKS_VIS_ACCESS (its qualifiers), and VKS_OUT_BASE (the low
// word of the bound output chunk's address; descriptors binding).
#extension GL_EXT_buffer_reference : require
#extension GL_EXT_buffer_reference_uvec2 : require

#ifdef VKS_DESCRIPTORS
#define VKS_R(set_, binding_, access, name, type)                                                    \
    layout(std430, set = set_, binding = binding_) access buffer name { type v[]; }
VKS_R(VKS_DATA_SET, VKS_DATA_MODELS, readonly, DataModels, vks_model_gpu) r_models;
VKS_R(VKS_DATA_SET, VKS_DATA_INSTANCES, readonly, DataInstances, vks_instance) r_instances;
VKS_R(VKS_DATA_SET, VKS_DATA_VISIBLE, readonly, DataVisible, vks_visible) r_visible;
VKS_R(VKS_DATA_SET, VKS_DATA_UVS, readonly, DataUvs, float) r_uvs;
VKS_R(VKS_DATA_SET, VKS_DATA_OUTPUT, readonly, DataOutput, uvec4) r_output;
VKS_R(VKS_RASTER_SET, VKS_RASTER_BINDING_VIS, VKS_VIS_ACCESS, RVis, VKS_VIS_TYPE) r_vis;
VKS_R(VKS_RASTER_SET, VKS_RASTER_BINDING_INDICES, readonly, RIndices, uint) r_indices;
VKS_R(VKS_RASTER_SET, VKS_RASTER_BINDING_LEVELS, readonly, RLevels, vks_raster_level) r_levels;
VKS_R(VKS_RASTER_SET, VKS_RASTER_BINDING_MESHES, readonly, RMeshes, vks_raster_mesh) r_meshes;
VKS_R(VKS_RASTER_SET, VKS_RASTER_BINDING_MATERIALS, readonly, RMaterials, uint) r_materials;
#define R_MODELS r_models.v
#define R_INSTANCES r_instances.v
#define R_VISIBLE r_visible.v
#define R_UVS r_uvs.v
#define R_VIS r_vis.v
#define R_INDICES r_indices.v
#define R_LEVELS r_levels.v
#define R_MESHES r_meshes.v
#define R_MATERIALS r_materials.v
// Vertex v of entry e's skinned output, in the bound chunk (less than 4 GiB from its start: the
// low words suffice).
uvec4 r_skinned(vks_visible e, uint v)
{
    return r_output.v[(e.out_address.x - VKS_OUT_BASE) / VKS_SKINNED_STRIDE + v];
}
#else
#include "vks_refs.glsl"
layout(buffer_reference, std430, buffer_reference_align = 8) VKS_VIS_ACCESS buffer RVis { VKS_VIS_TYPE v[]; };
layout(buffer_reference, std430, buffer_reference_align = 4) readonly buffer RIndices { uint v[]; };
layout(buffer_reference, std430, buffer_reference_align = 16) readonly buffer RLevels { vks_raster_level v[]; };
layout(buffer_reference, std430, buffer_reference_align = 16) readonly buffer RMeshes { vks_raster_mesh v[]; };
layout(buffer_reference, std430, buffer_reference_align = 4) readonly buffer RMaterials { uint v[]; };
#define R_MODELS Models(push.models).v
#define R_INSTANCES Instances(push.instances).v
#define R_VISIBLE Visibles(push.visible).v
#define R_UVS Floats(push.uvs).v
#define R_VIS RVis(push.vis).v
#define R_INDICES RIndices(push.indices).v
#define R_LEVELS RLevels(push.levels).v
#define R_MESHES RMeshes(push.meshes).v
#define R_MATERIALS RMaterials(push.materials).v
uvec4 r_skinned(vks_visible e, uint v)
{
    return Uvec4s(e.out_address).v[v];
}
#endif
