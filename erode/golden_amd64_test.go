//go:build amd64 && !amd64.v3

package erode

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"math"
	"testing"

	"strata/field"
)

// goldenCase is one erosion whose output bytes are pinned: the eroded height and the three
// channels, hashed.
type goldenCase struct {
	name  string
	g     *field.Grid
	texel [2]float64
	p     Params
	seed  uint32
	want  string // hex SHA-256 of gridBytes(Height, Flow, Deposit, WearMap)
}

// mountains is a w×h ground of steep ridges (slopes well beyond every preset's talus) on 1 m
// texels: every pass, the thermal steps and the settle do real work on it.
func mountains(w, h int) *field.Grid {
	g := field.NewGrid(w, h)
	for j := range h {
		for i := range w {
			x, z := float64(i), float64(j)
			v := 30*math.Sin(x*0.19)*math.Cos(z*0.23) + 12*math.Abs(math.Sin(x*0.07+z*0.11)) + 5*math.Cos(x*0.9+z*0.6)
			g.Set(i, j, float32(v))
		}
	}
	return g
}

// block is a gentle ramp with a tall block on it whose sides are far above any talus.
func block(w, h int) *field.Grid {
	g := field.NewGrid(w, h)
	for j := range h {
		for i := range w {
			v := 0.2 * float64(i)
			if j > h/2 && j < h/2+12 && i > w/4 && i < w/2 {
				v += 25
			}
			g.Set(i, j, float32(v))
		}
	}
	return g
}

func goldenCases(t *testing.T) []goldenCase {
	short := func(name string, it, settle int) Params {
		p := mustPreset(t, name)
		p.Iterations, p.SettleIterations = it, settle
		return p
	}
	return []goldenCase{
		{"default", hills(96, 80), [2]float64{1.5, 1}, short("default", 30, 20), 7,
			"b525291adbca5aa9ecb9a07d3619a3d36c7814a698403411906c84dea3cd2c66"},
		{"default, steep", mountains(72, 64), [2]float64{1, 1}, short("default", 25, 40), 3,
			"ac7976c70d04522cd0fd28f886fe302c289ff0ff1ea9903ae4fd0a0289826d0b"},
		{"light rain", hills(64, 48), [2]float64{2, 1}, short("light rain", 40, 0), 1,
			"27f61e057cca5010324c7a74176ad92507cea941975a0e3628845c1455c449e5"},
		{"old mountains", mountains(50, 70), [2]float64{1, 2}, short("old mountains", 30, 60), 5,
			"ea2293d8a23926d0c53674c07125b1672b3c0a53e0f471e67a4373364d5e8cfd"},
		{"desert wash", hills(80, 40), [2]float64{1, 1}, short("desert wash", 30, 30), 9,
			"0692af94820457236ad3fbfb7da8bd17f0d1f4603d6d0f9524f4e662327413c9"},
		{"tiny", hills(3, 2), [2]float64{1, 3}, short("old mountains", 12, 50), 2, "32d78e95eab13da5c4ba8eefcdb1e4ab2207875a0a59ffdf53c3e706261c1b93"},
		{"narrow", mountains(2, 9), [2]float64{1, 1}, short("default", 10, 30), 4, "98fad5a2037f9b8d140d76a7a6c5482c21792b1f21a39ca7043545bb7c2ad409"},
		// a long settle in which most rows go quiet early (the skip of quiet rows at work)
		{"block settle", block(60, 120), [2]float64{1, 1}, short("default", 8, 400), 6, "3e72118991168e3b9cca5596c385c9f838c5a558a90aad43d7c7250e33f86130"},
	}
}

// The Go reference's bytes are pinned: a hash of the height and the three channels of each case
// is what the code gave before the passes were made faster (2026-12-03, branch erode2c). A change
// of the arithmetic or its order shows here first; if one is meant, the GPU twin's tolerance
// tests (erode and gpu) and the determinism and conservation tests must pass before the hashes
// are renewed. amd64 below v3 only: Go fuses multiply-adds on other architectures and with
// GOAMD64=v3, which changes bits.
func TestGoldenBytes(t *testing.T) {
	for _, c := range goldenCases(t) {
		r, err := Run(context.Background(), c.g, c.texel, Options{Params: c.p, Seed: c.seed, Workers: 2})
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		sum := sha256.Sum256(gridBytes(r.Height, r.Flow, r.Deposit, r.WearMap))
		got := hex.EncodeToString(sum[:])
		if got != c.want {
			t.Errorf("%s: bytes hash %s, want %s (settle %d steps, settled %v)", c.name, got, c.want, r.SettleIterations, r.Settled)
		}
	}
}
