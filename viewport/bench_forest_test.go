package viewport

import (
	"image"
	"image/color"
	"math"
	"math/rand/v2"
	"syscall"
	"testing"
	"time"

	"strata/field"
)

// forestScene is the editor's sample ground (field.SampleDunesSized(n) over its 4000 m, sand and
// rock by slope as dunesScene) with count trees spread over it at the sample's scales (1.2–2),
// their matrices in the scatter kernel's layout.
func forestScene(n, count int) *Scene {
	g := field.SampleDunesSized(n)
	size := field.DunesSize
	tx := size / float64(n)
	at := func(x, z float64) float64 {
		i := clampInt(int(math.Floor(x/tx+float64(n)/2)), 0, n-1)
		j := clampInt(int(math.Floor(z/tx+float64(n)/2)), 0, n-1)
		return float64(g.Height.Data[j*n+i])
	}
	s := heightScene(n, size, at)
	ctrl := image.NewRGBA(image.Rect(0, 0, n, n))
	for o := 0; o < 4*n*n; o += 4 {
		deg := math.Atan(math.Hypot(float64(s.Height.Data[o+1]), float64(s.Height.Data[o+2]))) * 180 / math.Pi
		rb := uint8(math.Round(math.Max(0, math.Min(1, (deg-20)/6)) * 255))
		ctrl.Pix[o], ctrl.Pix[o+1] = 255-rb, rb
	}
	s.Controls[0] = ctrl
	s.Layers = []Layer{
		{Name: "sand", Tint: color.RGBA{0xd8, 0xc0, 0x8a, 255}, Tiling: 12},
		{Name: "rock", Tint: color.RGBA{0x7a, 0x6e, 0x64, 255}, Tiling: 8},
	}
	rng := rand.New(rand.NewPCG(1, 2))
	m := make([]float32, 0, 16*count)
	mn := s.Placement.Min()
	for range count {
		x, z := mn[0]+size*rng.Float64(), mn[1]+size*rng.Float64()
		scale := 1.2 + 0.8*rng.Float64()
		sn, cs := math.Sincos(2 * math.Pi * rng.Float64())
		m = append(m,
			float32(cs*scale), 0, float32(-sn*scale), 0,
			0, float32(scale), 0, 0,
			float32(sn*scale), 0, float32(cs*scale), 0,
			float32(x), float32(at(x, z)), float32(z), 1)
	}
	s.Populations = []Population{{Name: "trees", Mesh: MeshTree, Matrices: m, Count: count}}
	return s
}

// processCPU is the process's CPU time so far, user and system, all threads (the software
// rasteriser's included): a frame's cost on a shared machine, where its wall time is the load's.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// solidGround is a HeightField that reports no hole (HoleReporter), as the editor's ground
// does for a landscape without a holes mask.
type solidGround struct{ *HeightField }

func (solidGround) HasHoles() bool { return false }

// BenchmarkForestDunes2000 is the frame of the editor's sample as a stroke draws it on a slow
// device: the 2000² dunes with 31 000 trees from the orbit camera, at the editor's 968×704
// viewport (full: the settled frame) and at the quarter resolution of a software device's draft
// (draft: SetDraft, every 8th tree, the draft meshes; draftfull: the same with the full meshes,
// as before draftInstanceMesh), each with and without the trees (noinst), readback included. The
// ground reports no hole, as the editor's does without a holes mask; holes: a ground that may
// have them (the instances test their coverage).
func BenchmarkForestDunes2000(b *testing.B) {
	s := forestScene(2000, 31000)
	for _, v := range []struct {
		name            string
		w, h            int
		draft, trees    bool
		fullMesh, holes bool
	}{
		{"full", 968, 704, false, true, false, false},
		{"full-holes", 968, 704, false, true, false, true},
		{"full-noinst", 968, 704, false, false, false, false},
		{"draft", 242, 176, true, true, false, false},
		{"draft-holes", 242, 176, true, true, false, true},
		{"draftfull", 242, 176, true, true, true, false},
		{"draft-noinst", 242, 176, true, false, false, false},
	} {
		b.Run(v.name, func(b *testing.B) {
			s.Ground = nil // each variant's renderer is its own, released when it ends
			if !v.holes {
				s.Ground = solidGround{&s.Height}
			}
			r := newTestRenderer(b, v.w, v.h, s)
			r.SetCamera(OrbitCamera(s.Placement, s.HeightRange, float64(v.w)/float64(v.h)))
			r.SetDraft(v.draft)
			if !v.trees {
				pops := r.inst.pops
				r.inst.pops = nil
				defer func() { r.inst.pops = pops }()
			}
			if v.fullMesh {
				drafts := r.inst.drafts
				r.inst.drafts = r.inst.meshes
				defer func() { r.inst.drafts = drafts }()
			}
			frame := func() error { r.Invalidate(); _, err := r.Frame(); return err }
			warm(b, time.Second/2, frame)
			cpu0 := processCPU()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if err := frame(); err != nil {
					b.Fatal(err)
				}
			}
			b.StopTimer()
			b.ReportMetric(float64((processCPU()-cpu0).Microseconds())/1000/float64(b.N), "cpu-ms")
			st := r.Stats()
			b.ReportMetric(float64(b.Elapsed().Microseconds())/1000/float64(b.N), "ms")
			b.ReportMetric(float64(st.Triangles), "triangles")
			b.ReportMetric(float64(st.Instances), "instances")
		})
	}
}
