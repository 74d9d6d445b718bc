package bake

import (
	"bytes"
	"context"
	"errors"
	"math/rand"
	"sync"
	"testing"

	"strata/field"
	"strata/stack"
)

func mustRef(t testing.TB, s *stack.Stack, f *field.Field, opt Options) *Weights {
	t.Helper()
	w, err := Reference(context.Background(), s, f, opt)
	if err != nil {
		t.Fatal(err)
	}
	return w
}

func checkSum255(t *testing.T, w *Weights) {
	t.Helper()
	for j := 0; j < w.H; j++ {
		for i := 0; i < w.W; i++ {
			sum := 0
			for _, b := range w.Texel(i, j) {
				sum += int(b)
			}
			if sum != 255 {
				t.Fatalf("texel (%d,%d) bytes sum to %d, want 255: %v", i, j, sum, w.Texel(i, j))
			}
		}
	}
}

// Tilings 32, 256 and one tile for the whole field must give byte-identical weights (SPEC "Tiles
// and seams"): every read is placed from the field minimum, never from a tile's origin.
func TestTilingsByteIdentical(t *testing.T) {
	tests := []struct {
		name string
		s    *stack.Stack
		f    *field.Field
		res  float64
	}{
		{"dunes sample stack", stack.SampleDunes(), field.SampleDunesSized(300), 0},
		{"stress stack", stack.StressStack(), StressField(300), 0},
		{"stress stack, finer weights grid", stack.StressStack(), StressField(200), 13.0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			whole := mustRef(t, tc.s, tc.f, Options{TileSize: 1 << 20, Resolution: tc.res})
			checkSum255(t, whole)
			for _, ts := range []int{32, 256, 77} {
				got := mustRef(t, tc.s, tc.f, Options{TileSize: ts, Resolution: tc.res})
				if !bytes.Equal(got.Lo, whole.Lo) || !bytes.Equal(got.Hi, whole.Hi) {
					t.Errorf("tile size %d differs from the whole-field evaluation", ts)
				}
			}
		})
	}
}

// The stress stack must actually exercise its layers on the stress field: a benchmark over a
// stack whose rules are all 0 or all 1 would measure nothing.
func TestStressStackCoversEveryLayer(t *testing.T) {
	w := mustRef(t, stack.StressStack(), StressField(256), Options{})
	for k := 0; k < 8; k++ {
		n := 0
		for _, b := range w.Layer(k) {
			if b > 0 {
				n++
			}
		}
		if n == 0 {
			t.Errorf("layer %d (%s) never shows on the stress field", k, stack.StressStack().Layers[k].Name)
		}
	}
}

// Re-evaluating one tile in place leaves the others untouched and reproduces the whole-field bytes.
func TestReferenceTilesInPlace(t *testing.T) {
	s, f := stack.StressStack(), StressField(128)
	g, err := NewGeometry(s, f, 0)
	if err != nil {
		t.Fatal(err)
	}
	want := mustRef(t, s, f, Options{})
	tiles := g.Tiles(32)
	w := NewWeights(want.W, want.H)
	copy(w.Lo, want.Lo)
	copy(w.Hi, want.Hi)
	tile := tiles[5]
	for j := tile.J0; j < tile.J0+tile.H; j++ {
		for i := tile.I0; i < tile.I0+tile.W; i++ {
			o := (j*w.W + i) * 4
			copy(w.Lo[o:o+4], []byte{1, 2, 3, 4})
		}
	}
	if err := ReferenceTiles(context.Background(), s, f, &g, w, tiles[5:6], Options{TileSize: 32}); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(w.Lo, want.Lo) || !bytes.Equal(w.Hi, want.Hi) {
		t.Error("re-evaluating tile 5 did not reproduce the whole-field weights")
	}
}

// Random stacks over random heights: the bytes always sum to 255.
func TestRandomStacksSum255(t *testing.T) {
	rng := rand.New(rand.NewSource(3))
	f := StressField(64)
	inputs := []stack.Input{stack.InputHeight, stack.InputSlope, stack.InputCurvature, stack.InputNoise}
	for trial := 0; trial < 30; trial++ {
		s := stack.New()
		nl := 1 + rng.Intn(8)
		for l := 0; l < nl; l++ {
			ly := stack.NewLayer(string(rune('a' + l)))
			ly.Strength = rng.Float64()
			if l > 0 {
				for r := rng.Intn(3); r > 0; r-- {
					ru := stack.Rule{Input: inputs[rng.Intn(len(inputs))], Softness: rng.Float64() * 3, Jitter: rng.Float64(), Invert: rng.Intn(2) == 0}
					lo := rng.Float64()*20 - 5
					ru.Min = stack.F(lo)
					if rng.Intn(2) == 0 {
						ru.Max = stack.F(lo + rng.Float64()*10)
					}
					ly.Rules = append(ly.Rules, ru)
				}
			}
			s.Layers = append(s.Layers, ly)
		}
		checkSum255(t, mustRef(t, s, f, Options{TileSize: 16 + rng.Intn(50)}))
	}
}

func TestReferenceCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := Reference(ctx, stack.StressStack(), StressField(64), Options{TileSize: 16})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
}

func TestReferenceMissingChannel(t *testing.T) {
	_, err := Reference(context.Background(), stack.StressStack(), field.SampleDunesSized(32), Options{})
	if err == nil || !bytes.Contains([]byte(err.Error()), []byte("mask.snow")) {
		t.Fatalf("err = %v, want one naming the missing channel", err)
	}
}

func TestReferenceProgress(t *testing.T) {
	var mu sync.Mutex // progress.Func is called from the workers
	var last, total int
	_, err := Reference(context.Background(), stack.SampleDunes(), field.SampleDunesSized(100), Options{
		TileSize: 32, Progress: func(stage string, done, tot int) {
			mu.Lock()
			defer mu.Unlock()
			if stage == StageEvaluate {
				last, total = max(last, done), tot
			}
		}})
	if err != nil {
		t.Fatal(err)
	}
	if total != 16 || last != 16 {
		t.Errorf("progress reached %d/%d, want 16/16", last, total)
	}
}
