package procgen

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"

	"strata/erode"
)

const erodeScript = `
local g = proc.graph()
local r = g:node("ground", "terrain.source"):param("size", {384, 320}):param("resolution", 4)
r = g:node("relief", "terrain.fbm"):input("raster", r):param("amplitude", 60):param("featureSize", 150)
%s
r = g:node("scree", "terrain.mask"):input("raster", r):%s:param("min", 0.2)
g:node("out", "terrain.write"):input("raster", r):param("name", "worn")
 :param("layers", {"scree"}):param("channels", {%s})
return g
`

// erodeScriptWith is erodeScript with node after the relief, the scree mask's input and the
// channels the write keeps.
func erodeScriptWith(node, maskInput, keep string) string {
	return fmt.Sprintf(erodeScript, node, maskInput, keep)
}

const readDeposit = `param("input", "channel"):param("channel", "erosion.deposit")`

// terrain.erode erodes the raster exactly as erode.Run does the same ground (the height
// written is those bytes), adds the three channels, which a mask reads and the write keeps; a
// bad preset is refused naming the node and the param.
func TestErodeNode(t *testing.T) {
	plain := mustRun(t, erodeScriptWith("", `param("input", "height")`, ""), nil, nil)
	before := openValid(t, filepath.Join(plain.dir, "out", "worn.terrainData"))
	r := mustRun(t, erodeScriptWith(`r = g:node("weather", "terrain.erode"):input("raster", r):param("preset", "old mountains"):param("iterations", 25):param("seed", 4)`,
		readDeposit, `"erosion.deposit", "erosion.wear", "erosion.flow"`), nil, nil)
	l := openValid(t, filepath.Join(r.dir, "out", "worn.terrainData"))
	p, _ := erode.Preset("old mountains")
	p.Iterations = 25
	want, err := erode.Run(context.Background(), before.Field.Height, before.Field.TexelSize(), erode.Options{Params: p, Seed: 4})
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range want.Height.Data {
		if l.Field.Height.Data[k] != v {
			t.Fatalf("texel %d: the node wrote %v, erode.Run gives %v", k, l.Field.Height.Data[k], v)
		}
	}
	for name, g := range map[string][]float32{erode.ChannelDeposit: want.Deposit.Data, erode.ChannelWear: want.WearMap.Data, erode.ChannelFlow: want.Flow.Data} {
		c := l.Field.Channels[name]
		if c == nil {
			t.Fatalf("the container keeps no %s", name)
		}
		for k, v := range g {
			if c.Data[k] != v {
				t.Fatalf("%s texel %d: %v, erode.Run gives %v", name, k, c.Data[k], v)
			}
		}
	}
	if want.MaxDeposit < 0.2 {
		t.Errorf("the test ground took at most %v m of deposit: the mask has nothing to band", want.MaxDeposit)
	}

	bad := runScript(t, erodeScriptWith(`r = g:node("weather", "terrain.erode"):input("raster", r):param("preset", "monsoon")`, readDeposit, ""), nil, nil)
	if bad.err == nil {
		t.Fatal("preset monsoon ran")
	}
	containsAll(t, "error", bad.err.Error(), "weather", "preset", "monsoon")
}
