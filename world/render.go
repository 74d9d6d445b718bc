package world

import (
	"context"
	"fmt"
	"image"
	"io"
	"math"
	"strings"

	"strata/landscape"
	"strata/scatter"
	"strata/terraindata"
	"strata/viewport"
)

// A world drawn as one picture: the viewport draws one Scene, so the cells' payloads are put
// together into one scene of the whole world — heights (with their gradients), control textures
// and every cell's stored instances. The cells' seams are byte-exact, so at full resolution the
// scene is the one a whole bake's container gives. A world larger than the device's textures (or
// than SceneOptions.MaxSide) is box-filtered down by a whole factor, each payload streamed a
// block at a time, so only the scene itself is ever held.

// DefaultSceneSide is the largest side of a world scene's grids when the caller gives none: a
// 4096² height field is 256 MiB of rgba32f, finer than any frame of at most 8192 pixels shows.
const DefaultSceneSide = 4096

// DefaultSceneInstances caps the instances a world scene draws (64 bytes each: 256 MiB).
const DefaultSceneInstances = 1 << 22

// SceneOptions bound a world scene.
type SceneOptions struct {
	// MaxSide is the largest side of the scene's height and control grids (the device's texture
	// limit, at most); 0 = DefaultSceneSide.
	MaxSide int
}

// SceneInfo says how a world scene was made.
type SceneInfo struct {
	// Factor and WeightsFactor are the box-filter factors of the height and weights grids (1:
	// full resolution).
	Factor, WeightsFactor int
	// Instances is how many the cells hold; Drawn how many the scene draws.
	Instances, Drawn int
}

// Scene assembles the whole world from its baked cells (every cell must be baked).
func (w *World) Scene(ctx context.Context, o SceneOptions) (*viewport.Scene, *SceneInfo, error) {
	side := o.MaxSide
	if side <= 0 {
		side = DefaultSceneSide
	}
	cells := make([]*terraindata.Container, len(w.CellList))
	var missing []string
	for i := range w.CellList {
		c, err := w.openCell(i)
		if err != nil {
			return nil, nil, err
		}
		if c == nil {
			missing = append(missing, fmt.Sprint(i))
			continue
		}
		if probs := landscape.CheckContainer(c); len(probs) > 0 {
			return nil, nil, fmt.Errorf("world: cell %d cannot be drawn:\n%w", i, probs)
		}
		cells[i] = c
	}
	if len(missing) > 0 {
		return nil, nil, fmt.Errorf("world: %s: cells %s are not baked (strata world status lists them)", w.Dir, strings.Join(missing, ", "))
	}
	info := &SceneInfo{Factor: factor(w.HeightGrid, side), WeightsFactor: factor(w.WeightsGrid, side)}
	s := &viewport.Scene{Placement: viewport.Placement{Size: w.Size, Origin: w.Origin}}
	var err error
	if s.Layers, s.Atlas, err = viewport.SurfacesFromContainer(cells[0]); err != nil {
		return nil, nil, err
	}
	hs := newBoxSum(w.HeightGrid, info.Factor, 4)
	ws := [2]*boxSum{newBoxSum(w.WeightsGrid, info.WeightsFactor, 4), newBoxSum(w.WeightsGrid, info.WeightsFactor, 4)}
	haveHi := false
	s.HeightRange = [2]float64{math.Inf(1), math.Inf(-1)}
	for i, c := range cells {
		if err := ctx.Err(); err != nil {
			return nil, nil, fmt.Errorf("world: %w", err)
		}
		cl := &w.CellList[i]
		hr := c.Placement().HeightRange
		s.HeightRange = [2]float64{min(s.HeightRange[0], hr[0]), max(s.HeightRange[1], hr[1])}
		if err := hs.addPayload(c.Height(), cl.Height); err != nil {
			return nil, nil, err
		}
		for k, ref := range c.Controls() {
			if k >= 2 {
				break
			}
			haveHi = haveHi || k == 1
			if err := ws[k].addPayload(ref, cl.Weights); err != nil {
				return nil, nil, err
			}
		}
	}
	s.Height = viewport.HeightField{W: hs.w, H: hs.h, Data: hs.floats()}
	s.Controls[0] = ws[0].image()
	if haveHi {
		s.Controls[1] = ws[1].image()
	}
	if s.Populations, err = w.scenePopulations(cells, DefaultSceneInstances, info); err != nil {
		return nil, nil, err
	}
	if err := s.Validate(); err != nil {
		return nil, nil, fmt.Errorf("world: %s: %w", w.Dir, err)
	}
	return s, info, nil
}

// factor is the smallest whole factor bringing a grid within side texels a side.
func factor(grid [2]int, side int) int {
	return max(1, (max(grid[0], grid[1])+side-1)/side)
}

// scenePopulations is every cell's stored instances, population by population, at most maxInst
// in all (every k-th instance of each cell beyond it).
func (w *World) scenePopulations(cells []*terraindata.Container, maxInst int, info *SceneInfo) ([]viewport.Population, error) {
	if len(w.Populations) == 0 {
		return nil, nil
	}
	pools := make([]map[string][]float32, len(cells))
	for i, c := range cells {
		p, ok, err := landscape.StoredInstances(c)
		if err != nil {
			return nil, err
		}
		if !ok {
			return nil, fmt.Errorf("world: cell %d stores no instances (%s/): bake it again with strata world bake", i, landscape.InstancesDir)
		}
		pools[i] = p
		for _, m := range p {
			info.Instances += len(m) / scatter.MatrixFloats
		}
	}
	stride := max(1, (info.Instances+maxInst-1)/maxInst)
	m := cells[0].Manifest()
	var out []viewport.Population
	for k, mp := range m.Scatter {
		vp := viewport.Population{Name: mp.Name, Mesh: viewport.Mesh(mp.Mesh)}
		for i := range cells {
			src := pools[i][w.Populations[k].Name]
			for o := 0; o+scatter.MatrixFloats <= len(src); o += stride * scatter.MatrixFloats {
				vp.Matrices = append(vp.Matrices, src[o:o+scatter.MatrixFloats]...)
			}
		}
		vp.Count = len(vp.Matrices) / scatter.MatrixFloats
		info.Drawn += vp.Count
		if vp.Count > 0 {
			out = append(out, vp)
		}
	}
	return out, nil
}

// boxSum accumulates a world grid of n-component texels into a grid f times coarser.
type boxSum struct {
	w, h, f, n int
	sum        []float64
	count      []uint32
}

func newBoxSum(grid [2]int, f, n int) *boxSum {
	w, h := (grid[0]+f-1)/f, (grid[1]+f-1)/f
	return &boxSum{w: w, h: h, f: f, n: n, sum: make([]float64, w*h*n), count: make([]uint32, w*h)}
}

// addPayload streams a cell's payload, whose texels are block at ([i0, j0, i1, j1)) of the world
// grid, into the sums.
func (b *boxSum) addPayload(ref *terraindata.Ref, at [4]int) error {
	if ref == nil {
		return fmt.Errorf("world: a cell payload is missing")
	}
	st, err := ref.Stream()
	if err != nil {
		return err
	}
	defer st.Close()
	cw := at[2] - at[0]
	if st.Info.Width != cw || st.Info.Height != at[3]-at[1] {
		return fmt.Errorf("world: %s: %dx%d, the cell is %dx%d", st.File, st.Info.Width, st.Info.Height, cw, at[3]-at[1])
	}
	for {
		blk, err := st.Next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		for y := 0; y < blk.N; y++ {
			cj := (at[1] + blk.Y0 + y) / b.f
			for x := 0; x < cw; x++ {
				k := cj*b.w + (at[0]+x)/b.f
				t := y*cw + x
				for c := 0; c < b.n; c++ {
					if blk.Float != nil {
						b.sum[k*b.n+c] += float64(blk.Float[t*b.n+c])
					} else {
						b.sum[k*b.n+c] += float64(blk.Bytes[t*b.n+c])
					}
				}
				b.count[k]++
			}
		}
	}
}

// floats is the mean of each coarse texel (exactly the texel when f is 1).
func (b *boxSum) floats() []float32 {
	out := make([]float32, len(b.sum))
	for k, n := range b.count {
		for c := 0; c < b.n; c++ {
			out[k*b.n+c] = float32(b.sum[k*b.n+c] / float64(max(n, 1)))
		}
	}
	return out
}

// image is the mean of each coarse texel as RGBA bytes (exactly the texel when f is 1).
func (b *boxSum) image() *image.NRGBA {
	img := image.NewNRGBA(image.Rect(0, 0, b.w, b.h))
	for k, n := range b.count {
		for c := 0; c < 4; c++ {
			img.Pix[k*4+c] = uint8(math.Round(b.sum[k*4+c] / float64(max(n, 1))))
		}
	}
	return img
}
