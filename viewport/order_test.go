package viewport

import (
	"math"
	"testing"

	"github.com/cogentcore/webgpu/wgpu"
)

// TestCullKeepsPicture: the frame as drawn now (chunks near first, the grid's quads in bands,
// back faces culled where terrain.cullSafe allows) equals the frame drawn as before (depth-first
// chunks, quads row by row, no culling) pixel for pixel, or nearly so, from the golden dunes view,
// from low views outside the field (no culling there) and from views over it (culling).
func TestCullKeepsPicture(t *testing.T) {
	d := testDevice(t)
	big := bigDunes(512)
	cullsSeen := false
	defer func() {
		if !cullsSeen {
			t.Error("no view culled back faces: the test tests nothing")
		}
	}()
	for _, c := range []struct {
		name  string
		s     *Scene
		pitch float64 // degrees; 0: the orbit camera's own
		dist  float64 // share of the orbit distance; 0: the orbit camera's own
	}{
		{"dunes-golden", dunesScene(128, 512), 30, 0},
		{"low", big, 12, 0},
		{"grazing", big, 4, 0.2},
		{"over-low", big, 12, 0.25},
		{"over-steep", big, 40, 0.3},
		{"over-grazing", big, 6, 0.3},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := newTestRenderer(t, 320, 180, c.s)
			cam := OrbitCamera(c.s.Placement, c.s.HeightRange, 320.0/180)
			if c.pitch > 0 {
				cam.Pitch = c.pitch * math.Pi / 180
			}
			if c.dist > 0 {
				cam.Distance *= c.dist
			}
			r.SetCamera(cam)
			now := render(t, r)

			culled := r.cull
			ib := r.terrain.gridIB
			r.terrain.gridIB = indexOrder(t, d, 0)
			defer func() { r.terrain.gridIB = ib }()
			st, err := r.prepare(depthFirst)
			if err != nil {
				t.Fatal(err)
			}
			if err := d.Submit("before", func(enc *wgpu.CommandEncoder) error { return r.encodeFrame(enc, &st, encodeOptions{noCull: true}) }); err != nil {
				t.Fatal(err)
			}
			before, err := d.ReadTexture(r.color)
			if err != nil {
				t.Fatal(err)
			}
			same, worst := 0, 0
			for i := 0; i < len(before); i += 4 {
				eq := true
				for k := 0; k < 3; k++ {
					dv := int(now.Pix[i+k]) - int(before[i+k])
					if dv < 0 {
						dv = -dv
					}
					worst = max(worst, dv)
					eq = eq && dv == 0
				}
				if eq {
					same++
				}
			}
			n := len(before) / 4
			cullsSeen = cullsSeen || culled
			t.Logf("culled %v, %d chunks; %d of %d pixels identical (%.3f%%), worst channel difference %d", culled, st.Chunks, same, n, 100*float64(same)/float64(n), worst)
			if float64(same) < 0.999*float64(n) {
				t.Errorf("only %d of %d pixels identical to the frame drawn as before", same, n)
			}
		})
	}
}
