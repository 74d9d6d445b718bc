local g = proc.graph()
local ground = g:node("ground", "terrain.source")
    :param("size", { 4000, 4000 }):param("resolution", 2)
local dunes = g:node("dunes", "terrain.fbm"):input("raster", ground)
    :param("amplitude", 18):param("featureSize", 180)
-- Coverage per surface is an ordinary mask layer. A slope band is in DEGREES.
local sand = g:node("sand", "terrain.mask"):input("raster", dunes)
    :param("name", "sand"):param("input", "slope"):param("max", 18):param("feather", 4)
local rock = g:node("rock", "terrain.mask"):input("raster", sand)
    :param("name", "rock"):param("input", "slope"):param("min", 18):param("feather", 4)

g:node("bake", "terrain.write"):input("raster", rock)
    :param("name", "dunes")
    :param("layers", {
        { name = "sand", tiling = 12, albedo = "textures.sand_albedo",
          normal = "textures.sand_normal", mask = "textures.sand_mask" },
        { name = "rock", tiling = 8, albedo = "textures.rock_albedo" },
    })
