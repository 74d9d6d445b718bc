package procgen

import (
	"bytes"
	"context"
	"math"
	"strings"
	"testing"

	"strata/field"
)

// terrain.mask bands flow (log10 m² of upslope area, as input: flow reads it): over a V valley a
// hard "flow ≥ 2.5" mask is 1 down the channel and 0 on the slopes away from it, and agrees texel
// for texel with the flow plane routed over the written height; a flow mask given a channel, or an edge written
// in m², is refused naming the param or the unit.
func TestMaskFlow(t *testing.T) {
	const n = 64 // 4 m texels over 256 m
	g := field.NewGrid(n, n)
	for j := range n {
		for i := range n {
			x, z := (float64(i)+0.5)*4-128, (float64(j)+0.5)*4-128
			g.Set(i, j, float32(200+0.5*math.Abs(x)+0.2*(z+128)))
		}
	}
	var png bytes.Buffer
	if err := field.EncodePNG16(&png, g, [2]float64{0, 1000}); err != nil {
		t.Fatal(err)
	}
	files := map[string][]byte{"h.png": png.Bytes()}
	head := `
local g = proc.graph()
local h = g:node("valley", "terrain.import"):param("file", "h.png"):param("range", {0, 1000}):param("size", {256, 256})
`
	r := mustRun(t, head+`
local m = g:node("wet", "terrain.mask"):input("raster", h):param("input", "flow"):param("min", 2.5)
g:node("write", "terrain.write"):input("raster", m):param("name", "valley"):param("layers", {"wet"}):param("channels", {"mask.wet"})
`, files, nil)
	l := openValid(t, r.res.Written[0])
	mask := l.Field.Channels["mask.wet"]
	if mask == nil || mask.W != n || mask.H != n {
		t.Fatalf("mask.wet: %+v", mask)
	}
	plane, err := field.Flow(context.Background(), l.Field.Height, l.Field.TexelSize())
	if err != nil {
		t.Fatal(err)
	}
	agree := 0
	for k, v := range mask.Data {
		if v != 0 && v != 1 {
			t.Fatalf("texel %d: a hard mask's value %v", k, v)
		}
		if (v == 1) == (plane.Data[k] >= 2.5) {
			agree++
		}
	}
	if agree != len(mask.Data) {
		t.Errorf("the mask agrees with the flow plane routed over the written height on %d of %d texels", agree, len(mask.Data))
	}
	for j := 2; j < n/2; j++ { // the channel's lower half: 10^2.5 m² gathered long before
		if mask.At(n/2, j) != 1 || mask.At(n/2-1, j) != 1 {
			t.Errorf("row %d: the channel's mask %v %v, want 1", j, mask.At(n/2-1, j), mask.At(n/2, j))
		}
		if mask.At(4, j) != 0 || mask.At(n-5, j) != 0 {
			t.Errorf("row %d: the slopes' mask %v %v far from the channel, want 0", j, mask.At(4, j), mask.At(n-5, j))
		}
	}

	for _, c := range []struct{ params, want string }{
		{`:param("input", "flow"):param("channel", "x")`, "reads no channel"},
		{`:param("input", "flow"):param("min", 100000)`, "m²"},
	} {
		r := runScript(t, head+`local m = g:node("wet", "terrain.mask"):input("raster", h)`+c.params+"\n"+
			`g:node("write", "terrain.write"):input("raster", m):param("name", "valley")`+"\n", files, nil)
		if r.err == nil || !strings.Contains(r.err.Error(), c.want) {
			t.Errorf("%s: %v, want an error saying %q", c.params, r.err, c.want)
		}
	}
}
