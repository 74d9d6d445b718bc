package procgen

import (
	"bytes"
	"context"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"math"
	"path/filepath"
	"testing"

	"strata/field"
	"strata/sculpt"
)

// sculptScript: a 64×48 raster of relief, the mask "hill" (a hard band: 0 or 1 exactly) where the
// ground is above 0 m, then %s (a terrain.sculpt, or nothing), written with the mask kept.
const sculptScript = `
local g = proc.graph()
local r = g:node("ground", "terrain.source"):param("size", {128, 96}):param("resolution", 2)
r = g:node("relief", "terrain.fbm"):input("raster", r):param("amplitude", 30):param("featureSize", 60)
r = g:node("hill", "terrain.mask"):input("raster", r):param("min", 0)
%s
g:node("out", "terrain.write"):input("raster", r):param("name", "shaped")
 :param("layers", {"hill"}):param("channels", {"mask.hill"})
return g
`

// stampPNG is a 16-bit grayscale 9×9 PNG: a cone, code 65535 at its centre.
func stampPNG(t *testing.T) ([]byte, *field.Grid) {
	t.Helper()
	img := image.NewGray16(image.Rect(0, 0, 9, 9))
	g := field.NewGrid(9, 9)
	for j := 0; j < 9; j++ {
		for i := 0; i < 9; i++ {
			c := uint16(65535 * math.Max(0, 1-math.Hypot(float64(i)-4, float64(j)-4)/4))
			img.SetGray16(i, j, color.Gray16{Y: c})
			g.Set(i, j, float32(float64(c)/65535))
		}
	}
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		t.Fatal(err)
	}
	return b.Bytes(), g
}

// terrain.sculpt applies package sculpt's operation to the raster's height with the mask as the
// weight, for every mode: the height written is sculpt.ApplyWeighted's bytes over the ground
// before it, texels outside the mask keep their height, and set, terrace and flatten land where
// their formulas say.
func TestSculptNode(t *testing.T) {
	stampFile, stampImg := stampPNG(t)
	files := map[string][]byte{"stamps/crater.png": stampFile}
	plain := mustRun(t, fmt.Sprintf(sculptScript, ""), nil, nil)
	before := openValid(t, filepath.Join(plain.dir, "out", "shaped.terrainData"))
	f0 := before.Field
	mask := f0.Channels["mask.hill"]
	if mask == nil {
		t.Fatal("the container keeps no mask.hill")
	}
	inside := 0
	for _, w := range mask.Data {
		if w != 0 && w != 1 {
			t.Fatalf("the hard band's mask holds %v", w)
		}
		if w == 1 {
			inside++
		}
	}
	if inside < 200 || inside > len(mask.Data)-200 {
		t.Fatalf("%d of %d texels in the mask: the test shows little", inside, len(mask.Data))
	}
	mean := 0.0
	{
		var sw, sh float64
		for k, w := range mask.Data {
			if w > 0 {
				sw, sh = sw+float64(w), sh+float64(w)*float64(f0.Height.Data[k])
			}
		}
		mean = sh / sw
	}
	cases := []struct {
		params string
		p      sculpt.Params
		x, z   float64 // the stamp's centre
		radius float64
		check  func(before, after float32) bool
	}{
		{`:param("mode", "raise"):param("amount", 3):param("strength", 0.5)`, sculpt.Params{Mode: sculpt.Raise, Strength: 0.5, Lift: 3}, 0, 0, 0,
			func(b, a float32) bool { return a == b+1.5 }},
		{`:param("mode", "lower"):param("amount", 2)`, sculpt.Params{Mode: sculpt.Raise, Strength: 1, Lift: 2, Invert: true}, 0, 0, 0,
			func(b, a float32) bool { return a == b-2 }},
		{`:param("mode", "smooth"):param("radius", 6)`, sculpt.Params{Mode: sculpt.Smooth, Strength: 1, HalfWidth: 3}, 0, 0, 0, nil},
		{`:param("mode", "flatten")`, sculpt.Params{Mode: sculpt.Flatten, Strength: 1, Height: mean}, 0, 0, 0,
			func(_, a float32) bool { return math.Abs(float64(a)-mean) < 0.01 }},
		{`:param("mode", "set"):param("height", 7.5)`, sculpt.Params{Mode: sculpt.Set, Strength: 1, Height: 7.5}, 0, 0, 0,
			func(_, a float32) bool { return a == 7.5 }},
		{`:param("mode", "terrace"):param("step", 4)`, sculpt.Params{Mode: sculpt.Terrace, Strength: 1, Step: 4, Sharpness: 1}, 0, 0, 0,
			func(b, a float32) bool { return float64(a) == 4*math.Floor(float64(b)/4) }},
		{`:param("mode", "noise"):param("amplitude", 5):param("featureSize", 20):param("seed", 9)`,
			sculpt.Params{Mode: sculpt.Noise, Strength: 1, Amplitude: 5, FeatureSize: 20, Seed: 9}, 0, 0, 0, nil},
		{`:param("mode", "stamp"):param("file", "stamps.crater"):param("at", {10, -6}):param("size", 40):param("angle", 30):param("stampHeight", 12)`,
			sculpt.Params{Mode: sculpt.Stamp, Strength: 1, Image: stampImg, Angle: 30, StampHeight: 12}, 10, -6, 20, nil},
	}
	for _, c := range cases {
		t.Run(c.p.Mode.String(), func(t *testing.T) {
			r := mustRun(t, fmt.Sprintf(sculptScript, `r = g:node("shape", "terrain.sculpt"):input("raster", r):param("mask", "hill")`+c.params), files, nil)
			got := openValid(t, filepath.Join(r.dir, "out", "shaped.terrainData")).Field.Height
			want := f0.Height.Clone()
			d := &sculpt.Dab{Params: c.p, X: c.x, Z: c.z, Radius: c.radius}
			if _, err := sculpt.ApplyWeighted(context.Background(), want, sculpt.PlaceOf(f0), d, mask); err != nil {
				t.Fatal(err)
			}
			moved := 0
			for k, v := range want.Data {
				if got.Data[k] != v {
					t.Fatalf("texel %d: the node wrote %v, sculpt.ApplyWeighted gives %v", k, got.Data[k], v)
				}
				b := f0.Height.Data[k]
				if mask.Data[k] == 0 && v != b {
					t.Fatalf("texel %d outside the mask changed", k)
				}
				if v != b {
					moved++
				}
				if mask.Data[k] == 1 && c.check != nil && !c.check(b, v) {
					t.Fatalf("texel %d in the mask went %v → %v", k, b, v)
				}
			}
			if moved < 30 {
				t.Fatalf("the node moved %d texels", moved)
			}
		})
	}
}

// A bad terrain.sculpt is refused naming the node and the param.
func TestSculptNodeErrors(t *testing.T) {
	for _, c := range []struct {
		params string
		want   []string
	}{
		{`:param("mode", "sculptify")`, []string{"shape", `param "mode"`, "sculptify"}},
		{`:param("strength", 1)`, []string{"shape", `param "mode"`, "required"}},
		{`:param("mode", "smooth"):param("step", 2)`, []string{"shape", `param "step"`, "smooth mode does not take it"}},
		{`:param("mode", "set")`, []string{"shape", `param "height"`, "required"}},
		{`:param("mode", "terrace"):param("step", 0)`, []string{"shape", `param "step"`}},
		{`:param("mode", "terrace"):param("step", 3):param("sharpness", 2)`, []string{"shape", `param "sharpness"`}},
		{`:param("mode", "raise"):param("mask", "cliff")`, []string{"shape", `param "mask"`, "cliff", "hill"}},
		{`:param("mode", "stamp"):param("file", "stamps.none")`, []string{"shape", `param "file"`, "not found"}},
		{`:param("mode", "smooth"):param("radius", 0.1)`, []string{"shape", `param "radius"`, "texels"}},
	} {
		r := runScript(t, fmt.Sprintf(sculptScript, `r = g:node("shape", "terrain.sculpt"):input("raster", r)`+c.params), nil, nil)
		if r.err == nil {
			t.Errorf("%s ran", c.params)
			continue
		}
		containsAll(t, "error", r.err.Error(), c.want...)
	}
}
