package icons

import (
	"strings"
	"testing"

	"fyne.io/fyne/v2/test"
)

// Every icon is embedded and is an SVG document.
func TestIconsLoad(t *testing.T) {
	test.NewTempApp(t)
	for _, n := range []string{"brush", "eraser", "hole", "ground", "orbit", "map", "layers", "tree", "mask", "rule", "tiles", "frame", "grip", "overlay", "raise", "smooth", "flatten", "setheight", "terrace", "noise", "stamp", "strata"} {
		if _, err := files.ReadFile(n + ".svg"); err != nil {
			t.Errorf("%s.svg is not embedded: %v", n, err)
		}
	}
	for _, r := range []interface{ Content() []byte }{Brush, Eraser, Hole, Ground, Orbit, Map, Layers, Tree, Mask, Rule, Tiles, Frame, Grip, Overlay, Raise, Smooth, Flatten, SetHeight, Terrace, Noise, Stamp, App} {
		if c := string(r.Content()); !strings.Contains(c, "<svg") || !strings.Contains(c, "<path") {
			t.Errorf("an icon is not an SVG with a path: %.60s", c)
		}
	}
}
