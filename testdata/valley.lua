-- valley.lua — a richer procgen script (docs/procgen.md walks through it).
--
-- The ground is real: maps/topobathy_120x91_f32le.raw is a 120 × 91 float32 elevation model of
-- a coast and its sea floor (−1437 … 2205 m, 2 arc-minute samples; maps/README.md).
-- It is imported at 800 m per sample (96 km × 72.8 km, about a third of its real extent, so the
-- relief reads steeper), resampled to 200 m texels and given fbm detail. Seven surfaces are
-- masks over height, slope, curvature and noise; pines are scattered over the grass.

local g = proc.graph()

local dem = g:node("dem", "terrain.import")
    :param("file", "maps/topobathy_120x91_f32le.raw")
    :param("heightSize", { 120, 91 })          -- a .raw file says nothing of its grid
    :param("size", { 96000, 72800 })
    :param("resolution", 200)                  -- 480 × 364 texels
local ground = g:node("ground", "terrain.fbm"):input("raster", dem)
    :param("amplitude", 60):param("featureSize", 3000):param("octaves", 5):param("seed", 7)

-- A helper: a mask node reading the raster r, with the given params.
local function mask(name, r, params)
    local n = g:node(name, "terrain.mask"):input("raster", r)
    for _, kv in ipairs(params) do
        n:param(kv[1], kv[2])
    end
    return n
end

-- By height: sea floor, beach, the grass belt, snow.
local r = mask("seabed", ground, { { "input", "height" }, { "max", -4 }, { "feather", 4 } })
r = mask("sand", r, { { "input", "height" }, { "min", -4 }, { "max", 14 }, { "feather", 4 }, { "jitter", 3 } })
r = mask("snow", r, { { "input", "height" }, { "min", 1500 }, { "feather", 90 }, { "jitter", 70 },
                      { "featureSize", 400 } })
-- Grass between the beach and the snow line, on slopes under 26°, split in two by noise: dry
-- where the noise is low, lush where it is high (the same seed and feature size: complements).
for _, kind in ipairs({ "grass", "lush" }) do
    r = mask(kind, r, { { "input", "height" }, { "min", 14 }, { "max", 1450 }, { "feather", 60 }, { "jitter", 40 } })
    r = mask(kind .. "_flat", r, { { "name", kind }, { "combine", "multiply" },
                                   { "input", "slope" }, { "max", 26 }, { "feather", 4 } })
    r = mask(kind .. "_noise", r, { { "name", kind }, { "combine", "multiply" },
                                    { "input", "noise" }, { "min", 0.5 }, { "feather", 0.08 },
                                    { "featureSize", 1500 }, { "seed", 42 }, { "invert", kind == "grass" } })
end
-- Rock on the steep faces, scree in the gullies (curvature + is a gully) of the steep land.
r = mask("rock", r, { { "input", "slope" }, { "min", 26 }, { "feather", 4 }, { "jitter", 3 } })
r = mask("scree", r, { { "input", "curvature" }, { "min", 0.0012 }, { "feather", 0.0006 } })
r = mask("scree_steep", r, { { "name", "scree" }, { "combine", "multiply" },
                             { "input", "slope" }, { "min", 14 }, { "feather", 4 } })

-- Pines on the grass (either kind), below 1200 m and off the steep ground.
local pines = g:node("pines", "terrain.scatter"):input("raster", r)
    :param("density", 0.0004):param("seed", 11):param("scale", { 0.8, 1.4 }):param("mesh", "tree")
    :param("rules", {
        { input = "layer", layer = "rock", max = 0.2, softness = 0.1 },
        { input = "height", min = 20, max = 1200, softness = 80 },
        { input = "slope", max = 22, softness = 4 },
        { input = "noise", min = 0.45, softness = 0.15, featureSize = 600 },
    })

g:node("bake", "terrain.write"):input("raster", pines)
    :param("name", "valley")
    :param("layers", {
        { name = "seabed", tint = "#3b5560" },
        { name = "sand", tiling = 6, albedo = "textures.sand_albedo",
          normal = "textures.sand_normal", mask = "textures.sand_mask" },
        { name = "grass", tint = "#6f8a3a" },
        { name = "lush", tint = "#3e6b2c" },
        { name = "rock", tiling = 10, albedo = "textures.rock_albedo" },
        { name = "scree", tint = "#8d867c" },
        { name = "snow", tint = "#eef1f5" },
    })
    :param("channels", { "mask.snow" })
