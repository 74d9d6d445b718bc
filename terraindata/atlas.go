package terraindata

import (
	"fmt"
	"image"
	"image/color"
	_ "image/jpeg" // layer maps may be JPEG
	_ "image/png"
	"path/filepath"
	"strings"

	"golang.org/x/image/draw"
)

// Atlas layout (seed "The atlases"): four cells across, two down, layer n (1-based) at cell
// ((n-1) % 4, (n-1) / 4). Three sheets bind three textures whatever the layer count.
const (
	AtlasColumns = 4
	AtlasRows    = 2
	MaxLayers    = AtlasColumns * AtlasRows
)

// atlasRole is one of the three sheets.
type atlasRole struct {
	name       string // manifest key and child name suffix
	neutral    color.NRGBA
	colorSpace string
	source     func(Layer) string
}

var atlasRoles = []atlasRole{
	{"albedo", color.NRGBA{255, 255, 255, 255}, SRGB, func(l Layer) string { return l.Albedo }},
	{"normal", color.NRGBA{128, 128, 255, 255}, Linear, func(l Layer) string { return l.Normal }},
	{"mask", color.NRGBA{255, 255, 255, 255}, Linear, func(l Layer) string { return l.Mask }},
}

// AtlasCell returns the cell rectangle of layer i (0-based; the seed's layer i+1) in a sheet of
// the given size.
func AtlasCell(i int, size [2]int) image.Rectangle {
	cw, ch := size[0]/AtlasColumns, size[1]/AtlasRows
	x, y := i%AtlasColumns, i/AtlasColumns
	return image.Rect(x*cw, y*ch, (x+1)*cw, (y+1)*ch)
}

// validAtlasSize reports a sheet size PackAtlas can write: positive multiples of AtlasColumns
// (width) and AtlasRows (height), at most MaxAtlasSide.
func validAtlasSize(size [2]int) bool {
	return size[0] >= AtlasColumns && size[1] >= AtlasRows && size[0]%AtlasColumns == 0 && size[1]%AtlasRows == 0 &&
		size[0] <= MaxAtlasSide && size[1] <= MaxAtlasSide
}

// PackAtlas writes the atlas sheets for layers into dir (the container being written) as
// atlas_albedo.texture, atlas_normal.texture and atlas_mask.texture, resampling each source map
// (PNG, JPEG, TGA or EXR: DecodeImageFile; relative paths resolve against base, the stack file's folder) into its cell with
// Catmull-Rom. A cell whose layer has no map for a role keeps the neutral colour; a role no layer
// declares is not written. It returns nil when no layer carries any texture.
func PackAtlas(dir string, layers []Layer, base string, size [2]int) (*Atlas, error) {
	if len(layers) > MaxLayers {
		return nil, fmt.Errorf("terraindata: atlas: %d layers, at most %d fit a 4x2 sheet", len(layers), MaxLayers)
	}
	if size == [2]int{} {
		size = DefaultAtlasSize
	}
	if !validAtlasSize(size) {
		return nil, fmt.Errorf("terraindata: atlas: size %v must be positive multiples of 4 and 2, at most %d", size, MaxAtlasSide)
	}
	a := &Atlas{Size: size}
	any := false
	for _, role := range atlasRoles {
		sheet, err := AtlasSheet(role.name, layers, base, size)
		if err != nil {
			return nil, err
		}
		if sheet == nil {
			continue
		}
		any = true
		name := "atlas_" + role.name + ".texture"
		if _, err := WriteTextureRGBA8(filepath.Join(dir, name), sheet, role.colorSpace); err != nil {
			return nil, err
		}
		switch role.name {
		case "albedo":
			a.Albedo = name
		case "normal":
			a.Normal = name
		case "mask":
			a.Mask = name
		}
	}
	if !any {
		return nil, nil
	}
	return a, nil
}

// AtlasSheet packs one sheet ("albedo", "normal" or "mask") of size texels in memory, as
// PackAtlas writes it; nil when no layer declares a map for that role. The editor shows the
// sheets this way before anything is saved.
func AtlasSheet(roleName string, layers []Layer, base string, size [2]int) (*image.NRGBA, error) {
	var role *atlasRole
	for i := range atlasRoles {
		if atlasRoles[i].name == roleName {
			role = &atlasRoles[i]
		}
	}
	if role == nil {
		return nil, fmt.Errorf("terraindata: atlas: no role %q (albedo, normal, mask)", roleName)
	}
	if len(layers) > MaxLayers {
		return nil, fmt.Errorf("terraindata: atlas: %d layers, at most %d fit a 4x2 sheet", len(layers), MaxLayers)
	}
	declared := false
	for _, l := range layers {
		declared = declared || role.source(l) != ""
	}
	if !declared {
		return nil, nil
	}
	sheet := image.NewNRGBA(image.Rect(0, 0, size[0], size[1]))
	draw.Draw(sheet, sheet.Bounds(), image.NewUniform(role.neutral), image.Point{}, draw.Src)
	for i, l := range layers {
		src := role.source(l)
		if src == "" {
			continue
		}
		img, err := loadImage(src, base, role.colorSpace)
		if err != nil {
			return nil, fmt.Errorf("terraindata: atlas: layer %q %s: %w", l.Name, role.name, err)
		}
		draw.CatmullRom.Scale(sheet, AtlasCell(i, size), img, img.Bounds(), draw.Src, nil)
	}
	return sheet, nil
}

// loadImage reads a layer's source map: PNG and JPEG through the checked reader, TGA and EXR
// through DecodeImageFile (both bounded; see source.go).
func loadImage(p, base, colorSpace string) (image.Image, error) {
	if !filepath.IsAbs(p) {
		p = filepath.Join(base, p)
	}
	switch strings.ToLower(filepath.Ext(p)) {
	case ".tga", ".exr":
		return DecodeImageFile(p, colorSpace)
	}
	return readSourceImage(p)
}
