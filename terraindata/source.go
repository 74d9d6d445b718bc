package terraindata

import (
	"fmt"
	"image"
	"path/filepath"
	"strings"

	"strata/internal/safeio"
	"strata/internal/sysmem"
)

// Limits on a layer's source map (a stack's albedo, normal or mask): PackAtlas decodes it whole
// and the bake copies it into the container.
const (
	MaxSourceSide  = 16384   // pixels per side: the largest atlas sheet
	MaxSourceBytes = 1 << 30 // bytes of the file
)

// CheckSourceImage checks a layer's source map without decoding its pixels: a regular file of at
// most MaxSourceBytes, a PNG, JPEG, TGA or EXR whose header declares at most MaxSourceSide per
// side and no more pixels than its bytes can hold (a TGA: than its bytes hold; for TGA and EXR
// also a type, depth and channels DecodeImageFile reads). It returns the header and the format
// ("png", "jpeg", "tga", "exr"); a bake calls it for every map before any work, PackAtlas before
// decoding one.
func CheckSourceImage(p string) (image.Config, string, error) {
	f, size, err := safeio.Open(p)
	if err != nil {
		return image.Config{}, "", err
	}
	defer f.Close()
	if size > MaxSourceBytes {
		return image.Config{}, "", fmt.Errorf("%s is %d bytes, more than the %d a layer texture may be", p, size, int64(MaxSourceBytes))
	}
	var cfg image.Config
	var format string
	if ext := strings.ToLower(filepath.Ext(p)); ext == ".tga" || ext == ".exr" {
		// Read by extension, as DecodeImageFile reads them: the header only.
		w, h, err := imageFileSize(f, size, ext)
		if err != nil {
			return image.Config{}, "", fmt.Errorf("%s: %w", p, err)
		}
		cfg, format = image.Config{Width: w, Height: h}, ext[1:]
	} else if cfg, format, err = image.DecodeConfig(f); err != nil {
		return image.Config{}, "", fmt.Errorf("%s: not a PNG, JPEG, TGA or EXR image (%w)", p, err)
	}
	if cfg.Width < 1 || cfg.Height < 1 || cfg.Width > MaxSourceSide || cfg.Height > MaxSourceSide {
		return image.Config{}, "", fmt.Errorf("%s: %dx%d: a layer texture is 1 … %d pixels per side", p, cfg.Width, cfg.Height, MaxSourceSide)
	}
	if need := int64(cfg.Width) * int64(cfg.Height); need > size*expansionRatio+1<<16 {
		return image.Config{}, "", fmt.Errorf("%s: header claims %dx%d pixels, more than the %d-byte file can hold", p, cfg.Width, cfg.Height, size)
	}
	return cfg, format, nil
}

// readSourceImage decodes a layer's source map after CheckSourceImage and a memory check.
func readSourceImage(p string) (image.Image, error) {
	cfg, _, err := CheckSourceImage(p)
	if err != nil {
		return nil, err
	}
	if err := sysmem.Check(uint64(cfg.Width)*uint64(cfg.Height)*4, fmt.Sprintf("decoding %s (%dx%d)", p, cfg.Width, cfg.Height)); err != nil {
		return nil, err
	}
	f, _, err := safeio.Open(p)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	img, _, err := image.Decode(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", p, err)
	}
	return img, nil
}
