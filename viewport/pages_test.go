package viewport

import (
	"image"
	"image/color"
	"math"
	"testing"

	"strata/noise"
)

// patternScene is a gently rolling field of n×n height texels whose weights grid (wn×wn) is a
// pattern that differs from texel to texel (a hash per texel between two layers), so every level
// of its pyramid looks different from the next: a frame that samples a level other than the one
// its pixels ask for shows it.
func patternScene(n, wn int, size float64) (*Scene, [2]*image.RGBA) {
	s := heightScene(n, size, func(x, z float64) float64 {
		return 20 * float64(noise.FBM(float32(x), float32(z), float32(size/4), 2, 3))
	})
	s.Layers = []Layer{{Name: "a", Tint: color.RGBA{200, 180, 120, 255}}, {Name: "b", Tint: color.RGBA{40, 110, 50, 255}}}
	var ctrl [2]*image.RGBA
	ctrl[0] = image.NewRGBA(image.Rect(0, 0, wn, wn))
	ctrl[1] = image.NewRGBA(image.Rect(0, 0, wn, wn))
	for j := 0; j < wn; j++ {
		for i := 0; i < wn; i++ {
			b := uint8(noise.PCG(uint32(j*wn+i)) >> 24)
			o := 4 * (j*wn + i)
			ctrl[0].Pix[o], ctrl[0].Pix[o+1] = 255-b, b
		}
	}
	s.Controls = [2]image.Image{ctrl[0], ctrl[1]}
	return s, ctrl
}

// The pages WeightsNeed names for a camera are exactly what its frame samples: a frame drawn when
// only they are written (by an evaluator, generation 1) is the frame drawn from the stored
// controls, where every page is at hand, and reports none missing; with one needed page left
// out, it reports it missing and differs. Orbit far and near, a low grazing view and the map;
// a weights grid finer than the height grid.
func TestWeightsNeedIsWhatFramesSample(t *testing.T) {
	const w, h = 160, 100
	full, ctrl := patternScene(256, 1024, 2048)
	ref := newTestRenderer(t, w, h, full)
	cams := map[string]Camera{
		"orbit": OrbitCamera(full.Placement, full.HeightRange, float64(w)/h),
		"map":   MapCamera(full.Placement, full.HeightRange, float64(w)/h),
	}
	near := cams["orbit"]
	near.Distance /= 6
	cams["near"] = near
	low := near
	low.Pitch = 8 * math.Pi / 180
	cams["low"] = low
	for name, cam := range cams {
		t.Run(name, func(t *testing.T) {
			ref.SetCamera(cam)
			want := render(t, ref)
			dyn, _ := patternScene(256, 1024, 2048)
			dyn.Controls = [2]image.Image{}
			dyn.WeightsGrid = [2]int{1024, 1024}
			r := newTestRenderer(t, w, h, dyn)
			r.SetCamera(cam)
			need := r.WeightsNeed(w, h)
			levels := map[int]int{}
			for _, key := range need {
				levels[key.Level]++
			}
			if len(levels) < 2 && (name == "near" || name == "low") {
				t.Errorf("a view close to the ground samples levels %v: the test shows nothing", levels)
			}
			t.Logf("%d pages: by level %v", len(need), levels)
			put := func(skip int) {
				for k, key := range need {
					if k == skip {
						continue
					}
					x0, z0, x1, z1 := r.PageRect(key)
					var lo, hi []byte
					for j := z0; j < z1; j++ {
						for i := x0; i < x1; i++ {
							o := ctrl[0].PixOffset(min(i<<key.Level, 1023), min(j<<key.Level, 1023))
							lo = append(lo, ctrl[0].Pix[o:o+4]...)
							hi = append(hi, ctrl[1].Pix[o:o+4]...)
						}
					}
					if err := r.PutWeights(key, 1, lo, hi); err != nil {
						t.Fatal(err)
					}
				}
				r.ShowWeights(1)
			}
			put(-1)
			got := render(t, r)
			if m := r.Stats().MissingWeights; m != 0 {
				t.Errorf("%d pages missing after writing all %d needed", m, len(need))
			}
			if d := diffPixels(got, want); d != 0 {
				t.Errorf("the frame from the needed pages differs from the stored controls' in %d pixels (levels %v)", d, levels)
			}
			// Leave out the finest needed page nearest the eye: it is missed.
			skip := len(need) - 1
			r2 := newTestRenderer(t, w, h, dyn)
			r2.SetCamera(cam)
			r = r2
			put(skip)
			got = render(t, r)
			if m := r.Stats().MissingWeights; m != 1 {
				t.Errorf("one needed page left out: %d reported missing", m)
			}
		})
	}
}

// diffPixels counts the pixels of a and b that differ at all.
func diffPixels(a, b *image.RGBA) int {
	n := 0
	for k := 0; k < len(a.Pix); k += 4 {
		if a.Pix[k] != b.Pix[k] || a.Pix[k+1] != b.Pix[k+1] || a.Pix[k+2] != b.Pix[k+2] {
			n++
		}
	}
	return n
}

// A frame that reads more height pages than the atlas holds grows it first: the picture is the
// one a roomy atlas draws, with no chunk left out.
func TestHeightAtlasGrows(t *testing.T) {
	s, _ := patternScene(1024, 256, 2048)
	cam := OrbitCamera(s.Placement, s.HeightRange, 1.6)
	cam.Distance /= 4
	roomy := newTestRenderer(t, 320, 200, s)
	roomy.SetCamera(cam)
	want := render(t, roomy)
	defer func(n int) { heightSlots = n }(heightSlots)
	heightSlots = 4
	s2, _ := patternScene(1024, 256, 2048)
	r := newTestRenderer(t, 320, 200, s2)
	r.SetCamera(cam)
	got := render(t, r)
	if c := r.terrain.hvt.capacity(); c <= 4 {
		t.Errorf("the height atlas kept %d slots", c)
	}
	if r.Stats().Chunks != roomy.Stats().Chunks {
		t.Errorf("%d chunks drawn, %d with a roomy atlas", r.Stats().Chunks, roomy.Stats().Chunks)
	}
	if d := diffPixels(got, want); d != 0 {
		t.Errorf("%d pixels differ from the frame of a roomy atlas", d)
	}
}
