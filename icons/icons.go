// Package icons holds the editor's own icons (SVG, embedded), for the tools Fyne's theme has no
// icon for. Each is a single-colour shape that Fyne recolours to the theme's foreground.
package icons

import (
	"embed"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/theme"
)

//go:embed *.svg
var files embed.FS

func load(name string) fyne.Resource {
	b, err := files.ReadFile(name + ".svg")
	if err != nil {
		// A build-time mistake that TestIconsLoad catches: show something rather than crash.
		b = []byte(`<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 24 24"><path fill="#000000" d="M4 4h16v16H4z"/></svg>`)
	}
	return fyne.NewStaticResource(name+".svg", b)
}

func themed(name string) fyne.Resource { return theme.NewThemedResource(load(name)) }

// The icons, themed (they follow the light or dark foreground).
var (
	Brush   = themed("brush")
	Eraser  = themed("eraser")
	Hole    = themed("hole")
	Ground  = themed("ground")
	Orbit   = themed("orbit")
	Map     = themed("map")
	Layers  = themed("layers")
	Tree    = themed("tree")
	Mask    = themed("mask")
	Rule    = themed("rule")
	Tiles   = themed("tiles")
	Frame   = themed("frame")
	Grip    = themed("grip")
	Overlay = themed("overlay")
	// The sculpt brushes.
	Raise   = themed("raise")
	Smooth  = themed("smooth")
	Flatten = themed("flatten")
	// SetHeight, Terrace, Noise, Stamp: the set-height, terrace, noise and stamp brushes.
	SetHeight = themed("setheight")
	Terrace   = themed("terrace")
	Noise     = themed("noise")
	Stamp     = themed("stamp")
	// App is the application icon, in colour.
	App = load("strata")
)
