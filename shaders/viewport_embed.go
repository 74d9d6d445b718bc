package shaders

// The viewport's WGSL, for Load (which expands their //!include of viewport_common.wgsl).
const (
	// ViewportTerrain is the terrain pipeline: chunked-LOD grid, layer blend, overlays.
	ViewportTerrain = "viewport_terrain.wgsl"
	// ViewportInstances draws a population from its mat4 pool buffer.
	ViewportInstances = "viewport_instances.wgsl"
	// ViewportCommon is the uniform block both include.
	ViewportCommon = "viewport_common.wgsl"
	// ViewportPages is the virtual textures' page lookup both include.
	ViewportPages = "viewport_pages.wgsl"
)
