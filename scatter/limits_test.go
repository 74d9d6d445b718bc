package scatter_test

import (
	"context"
	"math"
	"strings"
	"testing"

	"strata/scatter"
)

// TestHostilePoolCapacity is issue 12's crash: a manifest scatter count whose Capacity*16
// overflowed int made Pool.Matrices slice with a negative bound. Every reservation, however large
// or negative, is clamped and the pool returns exactly what it placed.
func TestHostilePoolCapacity(t *testing.T) {
	fx := newFixture(t, 200, 2, overflowStack())
	p := fx.params()
	want := len(fx.place(t, p, 64)) / 16
	for _, tc := range []struct {
		desc     string
		capacity int
	}{
		{"2^59: capacity*16 wraps to math.MinInt64", 1 << 59},
		{"2^60+1: capacity*16 wraps to 16", 1<<60 + 1},
		{"max int", math.MaxInt},
		{"negative", -5},
		{"min int", math.MinInt},
	} {
		t.Run(tc.desc, func(t *testing.T) {
			pool := scatter.NewPool(p, fx.geo.Field, fx.density, fx.f.Height, tc.capacity)
			if pool.Capacity < 0 || pool.Capacity > scatter.MaxInstances {
				t.Errorf("capacity %d kept as %d", tc.capacity, pool.Capacity)
			}
			if err := pool.Run(context.Background(), fx.tiles(64)); err != nil {
				t.Fatal(err)
			}
			if got := len(pool.Matrices()) / 16; got != want || pool.Total() != want {
				t.Errorf("got %d matrices (total %d), want %d", got, pool.Total(), want)
			}
		})
	}
}

// TestSpacingTooSmall is the "placement never ends" class: a spacing that needs more than
// MaxSites sites (here 1 mm over a 400 m field: 4·10¹¹ sites) or more than MaxSitesPerAxis along an
// axis is refused with the figures, before any site is evaluated.
func TestSpacingTooSmall(t *testing.T) {
	fx := newFixture(t, 200, 2, overflowStack())
	for _, s := range []float32{0.001, 1e-20} {
		p := fx.params()
		p.Spacing = s
		_, _, err := scatter.Place(context.Background(), p, &fx.geo.Field, fx.density, fx.f.Height, fx.tiles(64), 0)
		if err == nil || !strings.Contains(err.Error(), "sites") {
			t.Errorf("spacing %g: %v", s, err)
		}
	}
	// The largest grid allowed still runs (here about 400·400/0.35² ≈ 1.3 M sites).
	p := fx.params()
	p.Spacing = 0.35
	if _, _, err := scatter.SiteGrid(&fx.geo.Field, p.Spacing); err != nil {
		t.Errorf("a small spacing within the limits: %v", err)
	}
}
