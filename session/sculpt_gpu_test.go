package session

import (
	"bytes"
	"image"
	"math"
	"slices"
	"testing"
)

// landed waits for the field's upload to the device and returns its upload counter; the worker
// is idle while passMu is held.
func landed(t *testing.T, h *harness) int64 {
	t.Helper()
	p := h.s.pipe
	p.passMu.Lock()
	defer p.passMu.Unlock()
	if err := p.landField(true); err != nil {
		t.Fatal(err)
	}
	if p.res.fb == nil {
		t.Fatal("the GPU evaluator holds no resident field")
	}
	return p.res.fb.Uploaded
}

// deviceAndHost applies the field edits still queued (as a save does) with the worker idle, then
// reads the whole height back from the resident bricks (every copy of a texel agreeing) and from
// the host, with the bytes uploaded to the bricks so far.
func deviceAndHost(t *testing.T, h *harness) (dev, host []float32, uploaded int64) {
	t.Helper()
	p := h.s.pipe
	p.passMu.Lock()
	defer p.passMu.Unlock()
	h.s.mu.Lock()
	ops, st := p.takeOps(), h.s.doc.stack
	h.s.mu.Unlock()
	p.applyFieldOps(ops, st)
	r := &p.res
	if r.fb == nil {
		t.Fatal("no resident field")
	}
	g := h.s.land.Field.Height
	d, err := r.fb.ReadHeight(image.Rect(0, 0, g.W, g.H))
	if err != nil {
		t.Fatal(err)
	}
	return d.Data, slices.Clone(g.Data), r.fb.Uploaded
}

// On the GPU evaluator a dab runs the sculpt kernel on the resident field: during a stroke
// nothing is uploaded to the bricks and the device's height is the host's within the twins'
// tolerance (docs/design.md "GPU sculpt twin"); at the stroke's end the host's rows bring the two
// back to equal bytes; the host's heights are those the Go evaluator's session makes, stroke
// after stroke, undo and redo included, and the device follows undo and redo exactly.
func TestSculptOnDeviceMatchesHost(t *testing.T) {
	const tile = 32
	g, _ := openSample(t, Options{Evaluator: GPU, TileSize: tile}, 128, nil, true)
	c, _ := openSample(t, Options{Evaluator: CPU, TileSize: tile}, 128, nil, true)
	f0 := fieldNow(t, g)
	landed(t, g)
	strokes := sculptStrokes(f0)
	ts := f0.TexelSize()[0]
	at := func(i, j int) [2]float64 { x, z := texelCentre(f0, i, j); return [2]float64{x, z} }
	strokes = append(strokes,
		struct {
			b   Brush
			pts [][2]float64
		}{Brush{Sculpt: SculptTerrace, Step: 2.5, Sharpness: 0.6, Radius: 9 * ts, Strength: 0.9, Falloff: 0.3}, [][2]float64{at(70, 70), at(78, 74), at(86, 70)}},
		struct {
			b   Brush
			pts [][2]float64
		}{Brush{Sculpt: SculptNoise, Amplitude: 2, FeatureSize: 6 * ts, Seed: 5, Radius: 8 * ts, Strength: 1, Falloff: 0.5}, [][2]float64{at(20, 100), at(30, 104)}},
		struct {
			b   Brush
			pts [][2]float64
		}{Brush{Sculpt: SculptStamp, Stamp: testStamp(), Angle: 30, StampHeight: 5, Radius: 12 * ts, Strength: 1, Falloff: 0.2}, [][2]float64{at(100, 100), at(110, 100)}},
	)
	var after [][]byte
	for n, s := range strokes {
		_, _, up0 := deviceAndHost(t, g)
		if err := g.s.BeginStroke(s.b); err != nil {
			t.Fatal(err)
		}
		for _, p := range s.pts {
			g.s.Stroke(p[0], p[1])
		}
		// Mid-stroke: the dabs are on the device, and no row went up for them.
		dev, host, up := deviceAndHost(t, g)
		if g.s.pipe.res.sculpt == nil {
			t.Fatal("no sculpt kernel: the dabs did not run on the device")
		}
		if up != up0 {
			t.Errorf("stroke %d (%v): %d bytes uploaded to the bricks during the stroke", n, s.b.Sculpt, up-up0)
		}
		moved, worst := 0, 0.0
		for k := range host {
			e := math.Abs(float64(dev[k] - host[k]))
			if tol := 16*ulp(host[k]) + 1e-4*sculptReach(s.b); e > tol {
				t.Fatalf("stroke %d (%v) mid-stroke: texel %d is %v on the device, %v on the host (tolerance %g)", n, s.b.Sculpt, k, dev[k], host[k], tol)
			}
			worst = math.Max(worst, e)
			if host[k] != f0.Height.Data[k] {
				moved++
			}
		}
		if moved == 0 {
			t.Fatalf("stroke %d moved nothing", n)
		}
		g.s.EndStroke()
		sculptAt(t, c, s.b, s.pts...)
		dev, host, _ = deviceAndHost(t, g)
		if !bytes.Equal(f32bytes(dev), f32bytes(host)) {
			t.Fatalf("stroke %d (%v): after the stroke the device's height is not the host's", n, s.b.Sculpt)
		}
		if !bytes.Equal(f32bytes(host), f32bytes(fieldNow(t, c).Height.Data)) {
			t.Fatalf("stroke %d (%v): the GPU session's heights are not the Go session's", n, s.b.Sculpt)
		}
		t.Logf("stroke %d (%v): worst mid-stroke difference %.3g m", n, s.b.Sculpt, worst)
		after = append(after, bytes.Clone(f32bytes(host)))
	}
	for k := len(strokes) - 1; k >= 0; k-- {
		if !g.s.Undo() {
			t.Fatalf("nothing to undo at stroke %d", k)
		}
		want := f32bytes(f0.Height.Data)
		if k > 0 {
			want = after[k-1]
		}
		g.waitFrame(g.s.Version()) // a pass brings the undone rows up
		dev, hostH, _ := deviceAndHost(t, g)
		if host := f32bytes(hostH); !bytes.Equal(host, want) || !bytes.Equal(f32bytes(dev), want) {
			t.Fatalf("undo of stroke %d: host equal %v, device equal %v", k, bytes.Equal(host, want), bytes.Equal(f32bytes(dev), want))
		}
	}
	for k := range strokes {
		if !g.s.Redo() {
			t.Fatalf("nothing to redo at stroke %d", k)
		}
		g.waitFrame(g.s.Version()) // a pass brings the undone rows up
		dev, hostH, _ := deviceAndHost(t, g)
		if host := f32bytes(hostH); !bytes.Equal(host, after[k]) || !bytes.Equal(f32bytes(dev), after[k]) {
			t.Fatalf("redo of stroke %d: host equal %v, device equal %v", k, bytes.Equal(host, after[k]), bytes.Equal(f32bytes(dev), after[k]))
		}
	}
}

func ulp(v float32) float64 {
	a := float32(math.Abs(float64(v)))
	return float64(math.Nextafter32(a, float32(math.Inf(1))) - a)
}

// sculptReach is the most one dab of b moves a texel, for the tolerance (flatten, set and smooth:
// the sample's relief, 40 m, bounds it).
func sculptReach(b Brush) float64 {
	switch b.Sculpt {
	case SculptRaise:
		return RaiseRate * b.Radius * b.Strength
	case SculptTerrace:
		return b.Step * b.Strength
	case SculptNoise:
		return math.Abs(b.Amplitude) * b.Strength
	case SculptStamp:
		return math.Abs(b.StampHeight) * b.Strength
	}
	return 40 * b.Strength
}

// onEvaluators runs a sculpt test on the Go evaluator and on the GPU's (where the dabs run the
// sculpt kernel on the resident field once it has landed).
func onEvaluators(t *testing.T, test func(t *testing.T, ev Evaluator)) {
	for _, ev := range []Evaluator{CPU, GPU} {
		name := map[Evaluator]string{CPU: "go", GPU: "gpu"}[ev]
		t.Run(name, func(t *testing.T) { test(t, ev) })
	}
}

// landIfGPU waits for the field to land on the device on the GPU evaluator, so that the dabs
// after it run the sculpt kernel.
func landIfGPU(t *testing.T, h *harness, ev Evaluator) {
	if ev == GPU {
		landed(t, h)
	}
}
