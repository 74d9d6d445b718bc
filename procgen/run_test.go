package procgen

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"strata/field"
	"strata/landscape"
	"strata/terraindata"
)

const dunesScript = "../testdata/dunes.lua"

// testdata/dunes.lua is the terrainData seed's example byte for byte: from "local g =
// proc.graph()" to the closing "})" of the layers, with its final newline. The seed is the
// repository's copy (testdata/README.md), so that the test runs in a clone on its own.
func TestDunesScriptIsTheSeedsExample(t *testing.T) {
	seed, err := os.ReadFile("testdata/seeds/terrainData.txt")
	if err != nil {
		t.Fatal(err)
	}
	start := bytes.Index(seed, []byte("local g = proc.graph()"))
	end := bytes.Index(seed[max(start, 0):], []byte("\n    })\n"))
	if start < 0 || end < 0 {
		t.Fatal("the seed's example is not where it was")
	}
	want := seed[start : start+end+len("\n    })\n")]
	got, err := os.ReadFile(dunesScript)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from the seed's example:\n%s\nwant:\n%s", dunesScript, got, want)
	}
}

// The seed's example, run as is: sand where the slope is under 18°, rock above, the two meeting
// 50/50 at 18° (128/127: the exact-255 quantization), read back from the written controls and the
// written height. Its textures are in testdata/textures, packed into the atlas.
func TestDunesSeedExample(t *testing.T) {
	out := t.TempDir()
	var warnings []string
	res, err := RunFile(context.Background(), dunesScript, Options{Out: out, CPU: true,
		Warn: func(m string) { warnings = append(warnings, m) }})
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(out, "dunes.terrainData")
	if len(res.Written) != 1 || res.Written[0] != path {
		t.Fatalf("wrote %v, want [%s]", res.Written, path)
	}
	if len(warnings) != 0 {
		t.Errorf("warnings %q", warnings)
	}
	l := openValid(t, path)
	if l.Script == nil || l.Script.Name != "dunes.lua" || l.Script.Write != "dunes" {
		t.Fatalf("container script = %+v", l.Script)
	}
	src, _ := os.ReadFile(dunesScript)
	if !bytes.Equal(l.Script.Source, src) {
		t.Error("the container's copy of the script differs from the script")
	}
	if l.Baked == nil || len(l.Baked.Layers) != 2 || l.Baked.Layers[0].Name != "sand" || l.Baked.Layers[1].Name != "rock" ||
		l.Baked.Layers[0].Tiling != 12 || l.Baked.Layers[1].Tiling != 8 || l.Baked.Atlas == nil || l.Baked.Atlas.Mask == "" {
		t.Fatalf("layer table %+v, atlas %+v", l.Baked.Layers, l.Baked.Atlas)
	}
	f := l.Field
	if f.Height.W != 2000 || f.Height.H != 2000 || f.Size != [2]float64{4000, 4000} {
		t.Fatalf("field %dx%d over %v, want 2000² over 4000 m", f.Height.W, f.Height.H, f.Size)
	}
	geo, err := f.Geometry(0)
	if err != nil {
		t.Fatal(err)
	}
	s := geo.Sampler(f.Height)
	sand, rock := l.Weights.Layer(0), l.Weights.Layer(1)
	var nSand, nRock, nEdge int
	for j := 0; j < f.Height.H; j++ {
		for i := 0; i < f.Height.W; i++ {
			x, z := geo.WeightPos(i, j)
			slope := s.Slope(x, z, 2)
			k := j*f.Height.W + i
			sb, rb := int(sand[k]), int(rock[k])
			if sb+rb != 255 {
				t.Fatalf("texel (%d,%d): sand %d + rock %d ≠ 255", i, j, sb, rb)
			}
			// smoothstep over 18 ± 4: sand = 1 − s, rock = s, normalized (they sum to one already).
			tt := min(max((float64(slope)-14)/8, 0), 1)
			want := 255 * (1 - tt*tt*(3-2*tt))
			switch {
			case slope < 14:
				nSand++
				if sb != 255 {
					t.Fatalf("texel (%d,%d) at %.2f°: sand %d, want 255", i, j, slope, sb)
				}
			case slope > 22:
				nRock++
				if rb != 255 {
					t.Fatalf("texel (%d,%d) at %.2f°: rock %d, want 255", i, j, slope, rb)
				}
			case float64(sb) < want-1 || float64(sb) > want+1:
				t.Fatalf("texel (%d,%d) at %.3f°: sand %d, want %.2f ± 1", i, j, slope, sb, want)
			}
			if slope > 17.98 && slope < 18.02 {
				nEdge++
				if sb != 128 && sb != 127 {
					t.Errorf("texel (%d,%d) at %.3f°: sand %d rock %d, want 128/127 (50/50)", i, j, slope, sb, rb)
				}
			}
		}
	}
	n := f.Height.W * f.Height.H
	t.Logf("sand-only %.1f%%, rock-only %.1f%%, %d texels within 0.02° of 18°", 100*float64(nSand)/float64(n), 100*float64(nRock)/float64(n), nEdge)
	if nRock < n/50 || nSand < n/2 || nEdge == 0 {
		t.Errorf("sand-only %d, rock-only %d, at 18° %d of %d texels: the dunes should show both", nSand, nRock, nEdge, n)
	}
}

// The seed's example somewhere its textures are not: each reference is a warning that says where
// it looked, its atlas cell keeps the neutral, and the container still validates.
func TestUnresolvedTextures(t *testing.T) {
	src, err := os.ReadFile(dunesScript)
	if err != nil {
		t.Fatal(err)
	}
	small := strings.Replace(string(src), "{ 4000, 4000 }):param(\"resolution\", 2)", "{ 400, 400 }):param(\"resolution\", 4)", 1)
	r := mustRun(t, small, nil, nil)
	if len(r.warnings) != 4 {
		t.Fatalf("warnings %q, want one per map (4)", r.warnings)
	}
	for _, w := range r.warnings {
		containsAll(t, "warning", w, "s.lua:14", `node "bake" (terrain.write)`, `param "layers"`, "looked for",
			filepath.Join(r.dir, "textures"), ".png", ".tga", ".exr", "keeps the neutral")
	}
	l := openValid(t, r.res.Written[0])
	if l.Baked.Atlas != nil || l.Baked.Layers[0].Albedo != "" {
		t.Errorf("atlas %+v, layers %+v: nothing resolved, nothing to pack", l.Baked.Atlas, l.Baked.Layers)
	}
}

// Rerun generates a container again from the script it carries, in place: same guid, same
// bytes, wherever the container was moved — textures and heightmaps come from its own copies.
func TestRerunInPlace(t *testing.T) {
	files := map[string][]byte{"textures/sand_albedo.png": pngBytes(t, 8, 8), "maps/h.png": heightPNG(t, 32, 24)}
	r := mustRun(t, `
local g = proc.graph()
local h = g:node("h", "terrain.import"):param("file", "maps/h.png"):param("size", {64, 48})
local m = g:node("hi", "terrain.mask"):input("raster", h):param("input", "height"):param("min", 400):param("feather", 50)
local lo = g:node("lo", "terrain.mask"):input("raster", m):param("input", "height"):param("max", 400):param("feather", 50)
g:node("w", "terrain.write"):input("raster", lo):param("name", "vale")
  :param("layers", {{name = "lo", albedo = "textures.sand_albedo"}, "hi"})
`, files, nil)
	path := r.res.Written[0]
	before := openValid(t, path)
	moved := filepath.Join(t.TempDir(), "renamed.terrainData")
	if err := os.Rename(path, moved); err != nil {
		t.Fatal(err)
	}
	if err := os.RemoveAll(r.dir); err != nil { // the script and its assets are gone
		t.Fatal(err)
	}
	res, err := Rerun(context.Background(), moved, Options{CPU: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Written) != 1 || res.Written[0] != moved {
		t.Fatalf("Rerun wrote %v, want [%s]", res.Written, moved)
	}
	after := openValid(t, moved)
	if after.GUID != before.GUID {
		t.Errorf("guid %s → %s: Rerun must keep it", before.GUID, after.GUID)
	}
	if !bytes.Equal(after.Weights.Lo, before.Weights.Lo) || after.Baked.Atlas == nil {
		t.Error("Rerun produced other weights, or lost the atlas")
	}
	if len(after.Script.Assets) != 2 {
		t.Errorf("assets carried: %v, want the heightmap and the albedo", after.Script.Assets)
	}
	if _, err := Rerun(context.Background(), t.TempDir(), Options{CPU: true}); err == nil {
		t.Error("Rerun of a folder that is no container: no error")
	}
}

// A run cancelled while it evaluates leaves no container, and an existing one untouched.
func TestCancelWritesNothing(t *testing.T) {
	script := `
local g = proc.graph()
local s = g:node("s", "terrain.source"):param("size", {256, 256})
local f = g:node("f", "terrain.fbm"):input("raster", s):param("amplitude", 5)
local m = g:node("m", "terrain.mask"):input("raster", f):param("input", "slope"):param("max", 10)
g:node("w", "terrain.write"):input("raster", m):param("name", "x"):param("layers", {"m"})
`
	r := mustRun(t, script, nil, nil)
	path := r.res.Written[0]
	guid := openValid(t, path).GUID
	ctx, cancel := context.WithCancel(context.Background())
	res, err := RunFile(ctx, filepath.Join(r.dir, "s.lua"), Options{Out: filepath.Join(r.dir, "out"), CPU: true,
		Progress: func(stage string, done, total int) {
			if strings.HasPrefix(stage, "mask") {
				cancel()
			}
		}})
	if !errors.Is(err, context.Canceled) || len(res.Written) != 0 {
		t.Fatalf("cancelled run: %v, wrote %v; want context.Canceled and nothing", err, res.Written)
	}
	if l := openValid(t, path); l.GUID != guid {
		t.Error("the container changed")
	}
	var names []string
	entries, _ := os.ReadDir(filepath.Join(r.dir, "out"))
	for _, e := range entries {
		names = append(names, e.Name())
	}
	// The container and its lock file (left by the first save, as every save under a lock leaves it).
	if got := strings.Join(names, " "); got != ".x.terrainData.lock x.terrainData" {
		t.Errorf("out holds %q after the cancel, want the one container and its lock", got)
	}
}

// Two runs of a script write identical containers (guid aside): random numbers are seeded.
func TestDeterministic(t *testing.T) {
	script := `
local g = proc.graph()
local s = g:node("s", "terrain.source"):param("size", {64, 64})
local f = g:node("f", "terrain.fbm"):input("raster", s):param("amplitude", math.random() * 10):param("seed", math.random(1, 1000))
local m = g:node("m", "terrain.mask"):input("raster", f):param("input", "noise"):param("min", 0.5):param("feather", 0.1)
print(math.random(6))
g:node("w", "terrain.write"):input("raster", m):param("name", "x"):param("layers", {"m"})
`
	a, b := mustRun(t, script, nil, nil), mustRun(t, script, nil, nil)
	la, lb := openValid(t, a.res.Written[0]), openValid(t, b.res.Written[0])
	if !bytes.Equal(la.Weights.Lo, lb.Weights.Lo) || !equalGrid(la.Field.Height, lb.Field.Height) {
		t.Error("two runs of one script differ")
	}
	if len(a.printed) != 1 || a.printed[0] != b.printed[0] {
		t.Errorf("printed %q and %q", a.printed, b.printed)
	}
}

func equalGrid(a, b *field.Grid) bool {
	if a.W != b.W || a.H != b.H {
		return false
	}
	for i := range a.Data {
		if a.Data[i] != b.Data[i] {
			return false
		}
	}
	return true
}

// A batch script writes several containers; names with folders stay below --out.
func TestBatch(t *testing.T) {
	r := mustRun(t, `
for i = 1, 3 do
  local g = proc.graph()
  local s = g:node("s", "terrain.source"):param("size", {32, 32}):param("origin", {32 * i, 0})
  local f = g:node("f", "terrain.fbm"):input("raster", s):param("seed", i)
  local m = g:node("m", "terrain.mask"):input("raster", f):param("input", "height"):param("min", 0)
  g:node("w", "terrain.write"):input("raster", m):param("name", "cells/c" .. i):param("layers", {"m"})
end
`, nil, nil)
	if len(r.res.Written) != 3 {
		t.Fatalf("wrote %v", r.res.Written)
	}
	for i, p := range r.res.Written {
		if want := filepath.Join(r.dir, "out", "cells", "c"+string(rune('1'+i))+".terrainData"); p != want {
			t.Errorf("wrote %s, want %s", p, want)
		}
		l := openValid(t, p)
		if l.Field.Origin[0] != float64(32*(i+1)) {
			t.Errorf("%s origin %v", p, l.Field.Origin)
		}
	}
	if ms := terraindata.Validate(r.res.Written[0]); len(ms) != 0 {
		t.Error(ms)
	}
}

// The script's timeout stops a runaway loop with a message naming the line.
func TestTimeout(t *testing.T) {
	start := time.Now()
	r := runScript(t, "local g = proc.graph()\nlocal n = 0\nwhile true do\n  n = n + 1\nend\n", nil, func(o *Options) { o.Timeout = 300 * time.Millisecond })
	if !errors.Is(r.err, ErrTimeout) {
		t.Fatalf("err = %v, want ErrTimeout", r.err)
	}
	containsAll(t, "error", r.err.Error(), "s.lua:", "stopped after 300ms", "--timeout")
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("took %v to stop", d)
	}
	// pcall cannot swallow the stop.
	r = runScript(t, "while true do pcall(function() while true do end end) end", nil, func(o *Options) { o.Timeout = 200 * time.Millisecond })
	if !errors.Is(r.err, ErrTimeout) {
		t.Fatalf("pcall loop: err = %v, want ErrTimeout", r.err)
	}
}

// Lua cannot allocate without bound: string.rep is capped and a doubling loop is stopped.
func TestMemoryLimit(t *testing.T) {
	r := runScript(t, `local s = string.rep("x", 1e12)`, nil, nil)
	if r.err == nil || !strings.Contains(r.err.Error(), "string.rep") {
		t.Fatalf("string.rep: %v", r.err)
	}
	r = runScript(t, "local t = {}\nlocal s = 'xxxxxxxxxxxxxxxx'\nwhile true do s = s .. s; t[#t+1] = s end", nil,
		func(o *Options) { o.maxMemory = 64 << 20 })
	if !errors.Is(r.err, ErrMemory) {
		t.Fatalf("doubling loop: err = %v, want ErrMemory", r.err)
	}
}

// testdata/valley.lua, the richer script of docs/procgen.md, runs and validates: a real
// heightmap, masks over height, slope, curvature and noise, and a forest. Every surface shows,
// and the height masks sit where their heights are.
func TestValleyScript(t *testing.T) {
	out := t.TempDir()
	var warnings []string
	res, err := RunFile(context.Background(), "../testdata/valley.lua", Options{Out: out, CPU: true,
		Warn: func(m string) { warnings = append(warnings, m) }})
	if err != nil {
		t.Fatal(err)
	}
	if len(warnings) > 0 {
		t.Errorf("warnings: %q", warnings)
	}
	l := openValid(t, res.Written[0])
	if l.Field.Height.W != 480 || l.Field.Height.H != 364 {
		t.Fatalf("grid %dx%d, want 480x364", l.Field.Height.W, l.Field.Height.H)
	}
	lo, hi := l.Field.Height.MinMax()
	if lo > -1000 || hi < 1800 {
		t.Errorf("heights %v … %v: the sea floor and the peaks of the data are gone", lo, hi)
	}
	n := l.Weights.W * l.Weights.H
	for k, layer := range l.Baked.Layers {
		cover := 0
		for i, b := range l.Weights.Layer(k) {
			if b > 127 {
				cover++
				h := l.Field.Height.Data[i]
				switch layer.Name {
				case "seabed":
					if h > 0 {
						t.Fatalf("seabed at %v m", h)
					}
				case "snow":
					if h < 1300 {
						t.Fatalf("snow at %v m", h)
					}
				}
			}
		}
		t.Logf("%-6s covers %5.1f%% of texels (> 50%%)", layer.Name, 100*float64(cover)/float64(n))
		if cover < n/500 {
			t.Errorf("layer %s covers %d of %d texels", layer.Name, cover, n)
		}
	}
	if len(l.Scatter) != 1 || l.Scatter[0].Count < 1000 {
		t.Errorf("pines: %+v", l.Scatter)
	}
	if l.Field.Channels["mask.snow"] == nil {
		t.Error("the snow mask was not kept")
	}
}

// The editor saving a script's landscape again (landscape.Open → landscape.Write, the Baked path) keeps
// its script and assets, so it can still be run again; validation names a missing copy.
func TestResaveKeepsScript(t *testing.T) {
	r := mustRun(t, `
local g = proc.graph()
local s = g:node("s", "terrain.source"):param("size", {40, 40})
local m = g:node("m", "terrain.mask"):input("raster", s)
g:node("w", "terrain.write"):input("raster", m):param("name", "x"):param("layers", {{name = "m", albedo = "textures.a"}})
`, map[string][]byte{"textures/a.png": pngBytes(t, 4, 4)}, nil)
	l := openValid(t, r.res.Written[0])
	saved := filepath.Join(t.TempDir(), "saved.terrainData")
	if err := landscape.Write(saved, l); err != nil {
		t.Fatal(err)
	}
	again := openValid(t, saved)
	if again.Script == nil || string(again.Script.Source) != string(l.Script.Source) || len(again.Script.Assets) != 1 {
		t.Fatalf("re-saved script %+v", again.Script)
	}
	if _, err := Rerun(context.Background(), saved, Options{CPU: true}); err != nil {
		t.Fatalf("Rerun of the re-saved container: %v", err)
	}
	if err := os.Remove(filepath.Join(saved, "script", "textures", "a.png")); err != nil {
		t.Fatal(err)
	}
	probs := terraindata.Validate(saved)
	if len(probs) != 1 || probs[0].Field != "script.assets[0]" {
		t.Errorf("validation of a container missing its script's asset: %v", probs)
	}
}

// Running a script again into the same folder re-bakes its containers in place: same guid.
func TestRewriteKeepsGUID(t *testing.T) {
	r := mustRun(t, src+"local m = g:node(\"m\", \"terrain.mask\"):input(\"raster\", s)\n"+
		"g:node(\"w\", \"terrain.write\"):input(\"raster\", m):param(\"name\", \"x\"):param(\"layers\", {\"m\"})\n", nil, nil)
	guid := openValid(t, r.res.Written[0]).GUID
	res, err := RunFile(context.Background(), filepath.Join(r.dir, "s.lua"), Options{Out: filepath.Join(r.dir, "out"), CPU: true})
	if err != nil {
		t.Fatal(err)
	}
	if again := openValid(t, res.Written[0]).GUID; again != guid {
		t.Errorf("guid %s → %s", guid, again)
	}
}
