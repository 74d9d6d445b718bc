package bake

import (
	"fmt"
	"math"

	"github.com/cogentcore/webgpu/wgpu"

	"strata/field"
)

// DefaultBandBytes is how large one band of a GPU bake may be, in bytes of one RGBA8 weights
// texture (the density band and the readback staging are the same size): 32 MiB, 512 rows of a
// 16384-wide grid. Small enough that a bake's device memory (and, on a software device such as
// lavapipe, its share of the process's memory) stays a few hundred MiB at any field size; large
// enough that the per-band round trip is noise next to the copy itself.
const DefaultBandBytes = 32 << 20

// band is one rectangle of whole tiles of the weights grid, evaluated, read back and (for
// scatter) densified as a unit on the GPU.
type band struct {
	I0, J0, W, H int // weights texels
	Tiles        []field.Tile
}

// bandLimits are the device limits a band must respect, and the soft budget.
type bandLimits struct {
	maxTexture uint64 // largest texture side
	maxBuffer  uint64 // largest buffer (the readback staging, the density band)
	maxBinding uint64 // largest storage binding (a tile's height block, the density band)
	budget     uint64 // bytes of one weights texture per band (Options.BandBytes)
}

// limitsOf reads the device's limits and the budget: 0 is DefaultBandBytes, < 0 none (the
// device's limits alone).
func limitsOf(l wgpu.Limits, budget int64) bandLimits {
	switch {
	case budget == 0:
		budget = DefaultBandBytes
	case budget < 0:
		budget = math.MaxInt64
	}
	b := bandLimits{maxTexture: uint64(l.MaxTextureDimension2D), maxBuffer: l.MaxBufferSize,
		maxBinding: l.MaxStorageBufferBindingSize, budget: uint64(budget)}
	// A device that reports no limit (0) is taken at WebGPU's guaranteed minimums.
	if b.maxTexture == 0 {
		b.maxTexture = 8192
	}
	if b.maxBuffer == 0 {
		b.maxBuffer = 256 << 20
	}
	if b.maxBinding == 0 {
		b.maxBinding = 128 << 20
	}
	return b
}

// bandBytes is what a band of w×h texels asks of the device: the readback of one RGBA8 texture
// (rows padded to 256 bytes) and, with populations, the density band (16-byte header + f32).
func bandBytes(w, h int, density bool) (readback, dens uint64) {
	readback = align256(uint64(w)*4) * uint64(h)
	if density {
		dens = 16 + 4*uint64(w)*uint64(h)
	}
	return readback, dens
}

func align256(v uint64) uint64 { return (v + 255) &^ 255 }

// planBands cuts the tiles of a W×H weights grid (tiles of tileSize, row-major as field.Tiles
// gives them) into bands of whole tiles: as wide as a texture may be and as the budget allows,
// then as many tile rows as fit. Every band fits the device's hard limits and the budget (a
// single tile may pass the budget, never a limit). A grid whose single tile cannot be held — a
// tile side past the largest texture, a tile's height block past the largest binding — is
// refused here, before any work, by name.
func planBands(w, h, tileSize int, tiles []field.Tile, lim bandLimits, density bool) ([]band, error) {
	if tileSize <= 0 {
		tileSize = field.DefaultTileSize
	}
	nx, ny := field.TileGrid(w, h, tileSize)
	if len(tiles) != nx*ny {
		return nil, fmt.Errorf("bake: %d tiles for a %dx%d tile grid", len(tiles), nx, ny)
	}
	ts := uint64(tileSize)
	if ts > lim.maxTexture {
		return nil, fmt.Errorf("bake: tile side %d is larger than the GPU's largest texture (%d); use a smaller --tile", tileSize, lim.maxTexture)
	}
	hard := min(lim.maxBuffer, lim.maxBinding)
	for _, t := range tiles {
		if need := 4 * uint64(t.BufW) * uint64(t.BufH); need > hard {
			return nil, fmt.Errorf("bake: tile %d reads a %dx%d height block (%d bytes), more than the GPU binds (%d); use a smaller --tile or a finer --resolution",
				t.Index, t.BufW, t.BufH, need, hard)
		}
	}
	one, oneDens := bandBytes(tileSize, tileSize, density)
	if one > lim.maxBuffer || oneDens > hard {
		return nil, fmt.Errorf("bake: one %d² tile needs %d bytes of readback and %d of density, more than the GPU allows (buffers %d, bindings %d); use a smaller --tile",
			tileSize, one, oneDens, lim.maxBuffer, lim.maxBinding)
	}
	fits := func(tx, ty int) bool {
		bw, bh := min(tx*tileSize, w), min(ty*tileSize, h)
		if uint64(bw) > lim.maxTexture || uint64(bh) > lim.maxTexture {
			return false
		}
		rb, dn := bandBytes(bw, bh, density)
		budget := max(lim.budget, one)
		return rb <= min(lim.maxBuffer, budget) && dn <= min(hard, budget+16)
	}
	// Widest first: a band of whole rows is what the encoders want next. Then balance, so the
	// bands of a grid are alike rather than full ones and a sliver.
	tx := nx
	for tx > 1 && !fits(tx, 1) {
		tx--
	}
	ty := 1
	for ty < ny && fits(tx, ty+1) {
		ty++
	}
	bx, by := (nx+tx-1)/tx, (ny+ty-1)/ty
	tx, ty = (nx+bx-1)/bx, (ny+by-1)/by
	bands := make([]band, 0, bx*by)
	for j := 0; j < ny; j += ty {
		for i := 0; i < nx; i += tx {
			b := band{I0: i * tileSize, J0: j * tileSize}
			b.W = min((i+tx)*tileSize, w) - b.I0
			b.H = min((j+ty)*tileSize, h) - b.J0
			for y := j; y < min(j+ty, ny); y++ {
				b.Tiles = append(b.Tiles, tiles[y*nx+i:y*nx+min(i+tx, nx)]...)
			}
			bands = append(bands, b)
		}
	}
	return bands, nil
}
