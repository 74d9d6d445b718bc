package session

import (
	"bytes"
	"context"
	"slices"
	"sync"
	"testing"

	"strata/field"
	"strata/scatter"
)

// Opening a landscape places its populations on the tiles nearest the camera before the rest of
// the field is evaluated (early.go), and what it places there is the bake's: every early
// placement's spacing is the bake's and its instances are, matrix for matrix, those a fresh
// placement of the bake's density gives those tiles; the settled placement is the bake's whole.
func TestEarlyPlacementIsTheBakes(t *testing.T) {
	for _, ev := range []Evaluator{CPU, GPU} {
		t.Run(ev.String(), func(t *testing.T) { testEarlyPlacement(t, ev) })
	}
}

// (On the GPU evaluator nothing is placed early: the whole field settles first. Its subtest
// checks that.)

// sortedMatrices is m's matrices in the order of their bytes (a GPU pool's slots follow its
// threads).
func sortedMatrices(m []float32) []byte {
	var rows [][]byte
	for i := 0; i+scatter.MatrixFloats <= len(m); i += scatter.MatrixFloats {
		rows = append(rows, f32bytes(m[i:i+scatter.MatrixFloats]))
	}
	slices.SortFunc(rows, bytes.Compare)
	return bytes.Join(rows, nil)
}

func testEarlyPlacement(t *testing.T, ev Evaluator) {
	const tile, n = 32, 256
	h := newHarness(t, Options{Evaluator: ev, TileSize: tile})
	p := h.s.pipe
	p.testFullBatch = 6 // 64 tiles: eleven batches
	type early struct {
		tiles   [][]int // per population: the tiles its pool holds (nil: not placed early)
		mats    [][]float32
		spacing []float32
		done    int
	}
	var mu sync.Mutex
	var got []early
	p.testHookEarly = func(done []field.Tile) { // the worker, passMu held
		var e early
		e.done = len(done)
		for _, ps := range p.pops {
			if !ps.early {
				e.tiles, e.mats, e.spacing = append(e.tiles, nil), append(e.mats, nil), append(e.spacing, 0)
				continue
			}
			var m []float32
			if ps.kernel != nil {
				var err error
				if m, err = ps.kernel.ReadMatrices(); err != nil {
					t.Error(err)
				}
			} else {
				m = ps.pool.Matrices()
			}
			var idx []int
			for k := range ps.earlyDone {
				idx = append(idx, k)
			}
			slices.Sort(idx)
			e.tiles = append(e.tiles, idx)
			e.mats = append(e.mats, m)
			e.spacing = append(e.spacing, ps.params.Spacing)
		}
		mu.Lock()
		got = append(got, e)
		mu.Unlock()
	}
	if err := h.s.OpenSampleSized(context.Background(), n, nil); err != nil {
		t.Fatal(err)
	}
	h.waitFrame(h.s.Version())
	var settled sculptState
	if ev == CPU {
		settled = settledState(t, h)
	}

	st := h.s.Stack()
	f := fieldNow(t, h)
	l := freshPlacement(t, st, f, tile)
	all := l.Geometry.Tiles(tile)
	mu.Lock()
	defer mu.Unlock()
	placedEarly := 0
	for k, e := range got {
		for i, idx := range e.tiles {
			if idx == nil {
				continue
			}
			placedEarly++
			if len(idx) >= len(all) {
				t.Errorf("early placement %d, population %d: all %d tiles, not a part", k, i, len(idx))
			}
			ref := l.Scatter[i]
			if e.spacing[i] != ref.Spacing {
				t.Fatalf("early placement %d, population %q: spacing %v, the bake's %v", k, ref.Name, e.spacing[i], ref.Spacing)
			}
			var tiles []field.Tile
			for _, ti := range idx {
				tiles = append(tiles, all[ti])
			}
			pool := scatter.NewPool(scatter.Params{Seed: st.Populations[i].Seed, Scale: [2]float32{float32(st.Populations[i].Scale[0]), float32(st.Populations[i].Scale[1])}, Spacing: ref.Spacing},
				l.Geometry.Field, ref.Density, f.Height, 0)
			if err := pool.PlaceTiles(context.Background(), tiles); err != nil {
				t.Fatal(err)
			}
			want := pool.Matrices()
			if len(want) == 0 {
				t.Errorf("early placement %d, population %q: the bake has no instance on its %d tiles", k, ref.Name, len(tiles))
			}
			if !bytes.Equal(sortedMatrices(e.mats[i]), sortedMatrices(want)) {
				t.Errorf("early placement %d, population %q, %d tiles of %d evaluated: %d floats, the bake's %d (or they differ)",
					k, ref.Name, len(idx), e.done, len(e.mats[i]), len(want))
			}
		}
	}
	if ev == GPU {
		if len(got) != 0 {
			t.Fatalf("the GPU evaluator placed early %d times", len(got))
		}
		return
	}
	if placedEarly == 0 {
		t.Fatalf("no population was placed before the last batch (%d early calls)", len(got))
	}
	// Settled: every tile placed, the bake's instances (the Go evaluator's pools; the GPU's
	// settled frame is TestSettledFrameIsTheBakesFrame's).
	for i, ref := range l.Scatter {
		if ev != CPU {
			break
		}
		pool := scatter.NewPool(scatter.Params{Seed: st.Populations[i].Seed, Scale: [2]float32{float32(st.Populations[i].Scale[0]), float32(st.Populations[i].Scale[1])}, Spacing: ref.Spacing},
			l.Geometry.Field, ref.Density, f.Height, 0)
		if err := pool.PlaceTiles(context.Background(), all); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(f32bytes(settled.inst[i]), f32bytes(pool.Matrices())) {
			t.Errorf("settled, population %q: %d floats, the bake's %d (or they differ)", ref.Name, len(settled.inst[i]), len(pool.Matrices()))
		}
	}
	t.Logf("%d early placements; first: %d tiles evaluated", len(got), got[0].done)
}
