package export_test

import (
	"context"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"strata/bake"
	"strata/export"
	"strata/exr"
	"strata/field"
	"strata/landscape"
	"strata/stack"
)

// mapsFixture bakes a small landscape for the maps: a 96² height grid over 192 m (2 m texels)
// centred at (1000, −500), a hill off the centre whose foot is exactly flat (aspect undefined),
// a channel the maps carry (erosion.deposit), a stored channel named flow (which flow.exr is not:
// it is computed from the height) and a mask they do not carry, a stack with a hard slope rule
// (layer "steep": slope ≥ 30°) and its own gradientStep, baked by the Go reference at 3 m per
// weights texel (64², so taps blend between height texels).
func mapsFixture(t *testing.T) (path string, l *landscape.Landscape) {
	t.Helper()
	s := stack.New()
	s.Layers = []stack.Layer{stack.NewLayer("ground"), stack.NewLayer("steep")}
	s.Layers[1].Rules = []stack.Rule{{Input: stack.InputSlope, Min: stack.F(30)}}
	return mapsFixtureStack(t, s)
}

// mapsFixtureStack is mapsFixture's landscape with stack s (its gradientStep set to 2.5 m).
func mapsFixtureStack(t *testing.T, s *stack.Stack) (path string, l *landscape.Landscape) {
	t.Helper()
	const n, size = 96, 192.0
	p := field.Placement{Size: [2]float64{size, size}, Origin: [2]float64{1000, -500}}
	grid := func(fn func(x, z float64) float64) *field.Grid {
		g := &field.Grid{W: n, H: n, Data: make([]float32, n*n)}
		mn := p.Min()
		for j := range n {
			for i := range n {
				x, z := mn[0]+(float64(i)+0.5)*size/n, mn[1]+(float64(j)+0.5)*size/n
				g.Data[j*n+i] = float32(fn(x, z))
			}
		}
		return g
	}
	// The hill's centre is 20 m east and 30 m north of the field's: a map read upside down or
	// mirrored does not match.
	cx, cz := 1020.0, -470.0
	hill := func(x, z float64) float64 {
		r2 := (x-cx)*(x-cx) + (z-cz)*(z-cz)
		return math.Max(0, 80*math.Exp(-r2/(2*30*30))-2)
	}
	f, err := field.New(p, grid(hill))
	if err != nil {
		t.Fatal(err)
	}
	for name, fn := range map[string]func(x, z float64) float64{
		"flow":            func(x, z float64) float64 { return 1e3 + (x-900)*(z+700) },
		"erosion.deposit": func(x, z float64) float64 { return math.Sin(x/7) * math.Cos(z/11) },
		"mask.snow":       func(x, z float64) float64 { return 0.5 },
	} {
		if err := f.AddChannel(name, grid(fn)); err != nil {
			t.Fatal(err)
		}
	}
	s.GradientStep = stack.F(2.5)
	path = filepath.Join(t.TempDir(), "hill.terrainData")
	if _, err := bake.Rebake(context.Background(), &landscape.Landscape{Field: f, Stack: s}, path,
		bake.RebakeOptions{EvalOptions: bake.EvalOptions{CPU: true, Options: bake.Options{Resolution: 3}}}); err != nil {
		t.Fatal(err)
	}
	if l, err = landscape.Open(path); err != nil {
		t.Fatal(err)
	}
	if l.Geometry.Field.WeightsW != 64 || l.Geometry.Stack.GradientStep != 2.5 {
		t.Fatalf("fixture: weights %dx%d, gradientStep %v", l.Geometry.Field.WeightsW, l.Geometry.Field.WeightsH, l.Geometry.Stack.GradientStep)
	}
	return path, l
}

func readMap(t *testing.T, file string) *exr.Image {
	t.Helper()
	fh, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer fh.Close()
	img, err := exr.Decode(fh)
	if err != nil {
		t.Fatalf("%s: %v", file, err)
	}
	if len(img.Channels) != 1 || img.Channels[0] != export.MapChannel {
		t.Fatalf("%s: channels %v, want [Y]", file, img.Channels)
	}
	return img
}

func same32(a, b float32) bool { return math.Float32bits(a) == math.Float32bits(b) }

// TestMapsMatchReference: every texel of every map equals, bit for bit, what field.Sampler (the
// definition of docs/design.md "Field geometry") gives at the weights texel's centre with the
// stack's gradientStep; each EXR decodes with the exr reader to the weights grid's size; the
// aspect map holds compass directions and -1 on the flat foot.
func TestMapsMatchReference(t *testing.T) {
	path, l := mapsFixture(t)
	dir := filepath.Join(t.TempDir(), "maps")
	var out strings.Builder
	if err := export.Run(path, export.Options{Maps: dir}, &out); err != nil {
		t.Fatal(err)
	}
	geo := &l.Geometry.Field
	g := l.Geometry.Stack.GradientStep
	hs := geo.Sampler(l.Field.Height)
	want := map[string]func(px, pz float32) float32{
		"slope":     func(px, pz float32) float32 { return hs.Slope(px, pz, g) },
		"aspect":    func(px, pz float32) float32 { return hs.Aspect(px, pz, g) },
		"curvature": func(px, pz float32) float32 { return hs.Curvature(px, pz, g) },
	}
	for _, ch := range []string{"erosion.deposit"} {
		cs := geo.Sampler(l.Field.Channels[ch])
		want[ch] = func(px, pz float32) float32 { return cs.Bilinear(px, pz) }
	}
	// flow.exr: the plane field.Flow routes over the height (not the stored channel named flow),
	// read as a flow rule reads it.
	plane, err := field.Flow(context.Background(), l.Field.Height, l.Field.TexelSize())
	if err != nil {
		t.Fatal(err)
	}
	fs := geo.Sampler(plane)
	want["flow"] = func(px, pz float32) float32 { return fs.Bilinear(px, pz) }
	if _, err := os.Stat(filepath.Join(dir, "mask.snow.exr")); err == nil {
		t.Error("a mask channel was exported as a map")
	}
	var flat, faces [4]int
	for name, fn := range want {
		img := readMap(t, filepath.Join(dir, name+".exr"))
		if img.Width != geo.WeightsW || img.Height != geo.WeightsH {
			t.Fatalf("%s: %dx%d, want the weights grid %dx%d", name, img.Width, img.Height, geo.WeightsW, geo.WeightsH)
		}
		bad := 0
		for j := range img.Height {
			for i := range img.Width {
				px, pz := geo.WeightPos(i, j)
				got, w := img.Data[0][j*img.Width+i], fn(px, pz)
				if !same32(got, w) && bad < 5 {
					bad++
					t.Errorf("%s texel (%d,%d): %v, want %v", name, i, j, got, w)
				}
				if name == "aspect" {
					switch {
					case got == field.AspectFlat:
						flat[0]++
					case got < 0 || got > 360:
						t.Fatalf("aspect texel (%d,%d) = %v: outside [0, 360] and not flat", i, j, got)
					default:
						faces[int(math.Mod(float64(got)+45, 360)/90)]++
					}
				}
			}
		}
	}
	if flat[0] == 0 || faces[0] == 0 || faces[1] == 0 || faces[2] == 0 || faces[3] == 0 {
		t.Errorf("aspect: %d flat texels, %v facing N/E/S/W: the fixture should show all", flat[0], faces)
	}
	if !strings.Contains(out.String(), "index.yaml (5 maps)") || !strings.Contains(out.String(), "flow.exr (64x64 float, log10(m²))") {
		t.Errorf("output: %s", out.String())
	}
}

// TestSlopeMapAgreesWithSlopeRule: the rule `slope ≥ 30°` (hard edge) in the container's weights
// covers exactly the texels whose exported slope is ≥ 30.
func TestSlopeMapAgreesWithSlopeRule(t *testing.T) {
	path, l := mapsFixture(t)
	dir := filepath.Join(t.TempDir(), "maps")
	if err := export.Run(path, export.Options{Maps: dir}, &strings.Builder{}); err != nil {
		t.Fatal(err)
	}
	img := readMap(t, filepath.Join(dir, "slope.exr"))
	steep, gentle := 0, 0
	for k, s := range img.Data[0] {
		b := l.Weights.Lo[4*k+1] // layer 1, "steep"
		if (s >= 30) != (b == 255) || (b != 0 && b != 255) {
			t.Fatalf("texel (%d,%d): slope map %v°, layer steep %d/255: the map and the rule disagree", k%img.Width, k/img.Width, s, b)
		}
		if b == 255 {
			steep++
		} else {
			gentle++
		}
	}
	if steep < 50 || gentle < 50 {
		t.Errorf("%d steep and %d gentle texels: the fixture should have both", steep, gentle)
	}
}

// TestFlowMapAgreesWithFlowRule: the rule `flow ≥ 1.5` (log10 m², hard edge) in the container's
// weights covers exactly the texels whose exported flow is ≥ 1.5 — the map is the plane the rule
// reads, texel for texel, on a weights grid whose taps blend between height texels.
func TestFlowMapAgreesWithFlowRule(t *testing.T) {
	const edge = 1.5
	s := stack.New()
	s.Layers = []stack.Layer{stack.NewLayer("ground"), stack.NewLayer("wet")}
	s.Layers[1].Rules = []stack.Rule{{Input: stack.InputFlow, Min: stack.F(edge)}}
	path, l := mapsFixtureStack(t, s)
	dir := filepath.Join(t.TempDir(), "maps")
	if err := export.Run(path, export.Options{Maps: dir}, &strings.Builder{}); err != nil {
		t.Fatal(err)
	}
	img := readMap(t, filepath.Join(dir, "flow.exr"))
	wet, dry := 0, 0
	lo, hi := float32(math.Inf(1)), float32(math.Inf(-1))
	for k, v := range img.Data[0] {
		lo, hi = min(lo, v), max(hi, v)
		b := l.Weights.Lo[4*k+1] // layer 1, "wet"
		if (v >= edge) != (b == 255) || (b != 0 && b != 255) {
			t.Fatalf("texel (%d,%d): flow map %v, layer wet %d/255: the map and the rule disagree", k%img.Width, k/img.Width, v, b)
		}
		if b == 255 {
			wet++
		} else {
			dry++
		}
	}
	t.Logf("flow map %v … %v log10 m²; %d wet, %d dry", lo, hi, wet, dry)
	if wet < 50 || dry < 50 {
		t.Errorf("%d wet and %d dry texels: the fixture should have both", wet, dry)
	}
	// No texel gathers less than its own height texel (2 m × 2 m) nor more than the field.
	if lo < float32(math.Log10(4))-1e-6 || hi > float32(math.Log10(192*192)) {
		t.Errorf("flow map spans %v … %v: outside log10 of a texel's area … the field's", lo, hi)
	}
}

// TestMapsIndexRoundTrip: index.yaml names each map's file, quantity, unit, size and the
// container's placement (origin, size, minimum corner, texel, texel centres, row 0 at minimum
// Z) and the flat value; it reads back strictly and writes the same again.
func TestMapsIndexRoundTrip(t *testing.T) {
	path, l := mapsFixture(t)
	dir := filepath.Join(t.TempDir(), "maps")
	if err := export.Run(path, export.Options{Maps: dir}, &strings.Builder{}); err != nil {
		t.Fatal(err)
	}
	ip := filepath.Join(dir, export.MapsIndexFile)
	idx, err := export.ReadMapsIndex(ip)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, m := range idx.Maps {
		names = append(names, m.Name)
	}
	if w := []string{"slope", "aspect", "curvature", "flow", "erosion.deposit"}; !reflect.DeepEqual(names, w) {
		t.Fatalf("maps %v, want %v", names, w)
	}
	if idx.GradientStep != 2.5 || idx.Source != path {
		t.Errorf("gradientStep %v source %q", idx.GradientStep, idx.Source)
	}
	units := map[string]string{"slope": "degrees", "aspect": "degrees", "curvature": "1/m", "flow": "log10(m²)"}
	for _, m := range idx.Maps {
		if m.File != m.Name+".exr" || m.Channel != "Y" || m.Width != 64 || m.Height != 64 || m.Quantity == "" {
			t.Errorf("%s: %+v", m.Name, m)
		}
		if u, ok := units[m.Name]; ok && m.Unit != u {
			t.Errorf("%s: unit %q, want %q", m.Name, m.Unit, u)
		}
		pl := m.Placement
		if pl.Origin != [2]float64{1000, -500} || pl.Size != [2]float64{192, 192} || pl.Min != [2]float64{904, -596} ||
			pl.Texel != [2]float64{3, 3} || pl.Row0 != "minimum Z" || !strings.HasPrefix(pl.Samples, "texel centres") {
			t.Errorf("%s: placement %+v", m.Name, pl)
		}
		if (m.Name == "aspect") != (m.Flat != nil) || (m.Flat != nil && *m.Flat != -1) {
			t.Errorf("%s: flat %v", m.Name, m.Flat)
		}
	}
	// The placement names where a texel lies: texel (i, j)'s centre is WeightPos(i, j).
	px, pz := l.Geometry.Field.WeightPos(5, 7)
	pl := idx.Maps[0].Placement
	if x, z := pl.Min[0]+(5+0.5)*pl.Texel[0], pl.Min[1]+(7+0.5)*pl.Texel[1]; float32(x) != px || float32(z) != pz {
		t.Errorf("index places texel (5,7) at (%v,%v), the reference at (%v,%v)", x, z, px, pz)
	}
	again := filepath.Join(t.TempDir(), "index.yaml")
	if err := export.WriteMapsIndex(again, idx); err != nil {
		t.Fatal(err)
	}
	a, _ := os.ReadFile(ip)
	b, _ := os.ReadFile(again)
	if string(a) != string(b) {
		t.Errorf("index.yaml written again differs:\n%s\n---\n%s", a, b)
	}
	if err := os.WriteFile(again, append(b, "extra: 1\n"...), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := export.ReadMapsIndex(again); err == nil || !strings.Contains(err.Error(), again) {
		t.Errorf("an unknown key: %v", err)
	}
}

// TestMapsDirErrors: a DIR that is a file, a DIR that cannot be created, and a non-empty DIR
// without --force are refused naming the path, before anything is written; with Force the maps
// replace what is there and an old index.yaml; a cancelled export writes no index.yaml.
func TestMapsDirErrors(t *testing.T) {
	path, _ := mapsFixture(t)
	tmp := t.TempDir()
	file := filepath.Join(tmp, "a-file")
	if err := os.WriteFile(file, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ dir, why string }{
		{file, "not a folder"},
		{filepath.Join(file, "maps"), "not a directory"},
	} {
		err := export.Run(path, export.Options{Maps: c.dir}, &strings.Builder{})
		if err == nil || !strings.Contains(err.Error(), c.dir) || !strings.Contains(err.Error(), c.why) {
			t.Errorf("maps %s: %v, want an error naming it (%s)", c.dir, err, c.why)
		}
	}
	full := filepath.Join(tmp, "full")
	if err := os.MkdirAll(full, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(full, export.MapsIndexFile), []byte("old: index\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	err := export.Run(path, export.Options{Maps: full}, &strings.Builder{})
	if err == nil || !strings.Contains(err.Error(), full) || !strings.Contains(err.Error(), "--force") {
		t.Errorf("non-empty: %v", err)
	}
	if _, err := os.Stat(filepath.Join(full, "slope.exr")); err == nil {
		t.Error("a refused export wrote slope.exr")
	}
	// Cancelled: the old index is gone and no new one written (an index means a complete set).
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := export.RunContext(ctx, path, export.Options{Maps: full, Force: true}, &strings.Builder{}); err == nil || !strings.Contains(err.Error(), "interrupted") {
		t.Errorf("cancelled: %v", err)
	}
	if _, err := os.Stat(filepath.Join(full, export.MapsIndexFile)); err == nil {
		t.Error("a cancelled export left an index.yaml")
	}
	if err := export.Run(path, export.Options{Maps: full, Force: true}, &strings.Builder{}); err != nil {
		t.Fatal(err)
	}
	if _, err := export.ReadMapsIndex(filepath.Join(full, export.MapsIndexFile)); err != nil {
		t.Errorf("--force: %v", err)
	}
	// --maps and --instances in one folder would write one index.yaml twice.
	err = export.Run(path, export.Options{Maps: full, Instances: full, Force: true}, &strings.Builder{})
	if err == nil || !strings.Contains(err.Error(), "index.yaml") {
		t.Errorf("maps and instances in one folder: %v", err)
	}
}
