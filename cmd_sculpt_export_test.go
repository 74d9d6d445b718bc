package main

import (
	"context"
	"encoding/binary"
	"image"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"testing"

	"strata/gpu"
	"strata/session"
	"strata/terraindata"
)

// A landscape sculpted above the height range it opened with is saved with the grown range, and
// `strata export --heightmap` maps that range onto the r16 and PNG16 codes: the summit the raise
// made is 65535, every texel round((h − lo)/(hi − lo)·65535) of the saved range.
func TestExportSculptedRange(t *testing.T) {
	ctx := context.Background()
	dev, err := gpu.Open(ctx, gpu.Options{Label: "TestExportSculptedRange"})
	if err != nil {
		t.Fatal(err)
	}
	defer dev.Release()
	s, err := session.New(ctx, session.Options{Device: dev, Width: 64, Height: 48, Evaluator: session.CPU})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if err := s.OpenSampleSized(ctx, 64, nil); err != nil {
		t.Fatal(err)
	}
	opened := s.Field().HeightRange
	// A raise at the middle, dab over dab: about 2 m a dab with a 100 m brush at full strength.
	if err := s.BeginStroke(session.Brush{Sculpt: session.SculptRaise, Radius: 100, Strength: 1, Falloff: 0.5}); err != nil {
		t.Fatal(err)
	}
	for k := 0; k < 40; k++ {
		s.Stroke(float64(k%2)*25, 0)
	}
	s.EndStroke()
	dir := t.TempDir()
	path := filepath.Join(dir, "raised.terrainData")
	if err := s.SaveAs(ctx, path, nil); err != nil { // applies the stroke's queued dabs first
		t.Fatal(err)
	}
	c, err := terraindata.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	rng := c.Placement().HeightRange
	if !(rng[1] > opened[1]+10) {
		t.Fatalf("the saved range %v did not grow above the opened range %v by the raise", rng, opened)
	}
	tex, err := terraindata.ReadTexture(filepath.Join(path, "height.texture"))
	if err != nil {
		t.Fatal(err)
	}
	n := tex.Width * tex.Height
	want := func(k int) uint16 {
		v := math.Round((float64(tex.Float[4*k]) - rng[0]) / (rng[1] - rng[0]) * 65535)
		return uint16(math.Max(0, math.Min(65535, v)))
	}
	r16, p16 := filepath.Join(dir, "h.r16"), filepath.Join(dir, "h.png")
	for _, out := range []string{r16, p16} {
		if code, _, errs := runCmd("export", path, "--heightmap", out); code != exitOK {
			t.Fatalf("export --heightmap %s: exit %d: %s", filepath.Base(out), code, errs)
		}
	}
	raw, err := os.ReadFile(r16)
	if err != nil || len(raw) != 2*n {
		t.Fatalf("h.r16: %d bytes (%v), want %d", len(raw), err, 2*n)
	}
	f, err := os.Open(p16)
	if err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(f)
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	g16, ok := img.(*image.Gray16)
	if !ok {
		t.Fatalf("h.png decodes as %T, want 16-bit grayscale", img)
	}
	top := 0
	for k := 0; k < n; k++ {
		code := binary.LittleEndian.Uint16(raw[2*k:])
		if code != want(k) {
			t.Fatalf("r16 texel %d: code %d, want %d (height %v over %v)", k, code, want(k), tex.Float[4*k], rng)
		}
		if pc := g16.Gray16At(k%tex.Width, k/tex.Width).Y; pc != code {
			t.Fatalf("PNG16 texel %d: code %d, the r16's %d", k, pc, code)
		}
		if code == 65535 {
			top++
		}
	}
	if top == 0 {
		t.Error("no texel has the top code: the summit is not the range's top")
	}
}
