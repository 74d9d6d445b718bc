// Package exr reads and writes the small part of OpenEXR 2 that Strata's float textures need:
// single-part scanline files whose channels are 32-bit FLOAT, stored uncompressed or ZIP
// compressed. Decoding is a little wider (HALF and UINT channels are converted to float32, and
// RLE and ZIPS blocks are accepted) so that heightmaps made by other tools can be imported.
//
// Tiled, multi-part and deep files are refused with an error that says so, rather than being
// half-read: a terrain payload must round-trip exactly.
//
// Orientation: row 0 of an Image is the first scanline of the data window, which Strata treats
// as the field's minimum Z.
package exr

import (
	"errors"
	"fmt"
	"sort"
)

// Compression is the per-block compression of a file. Only None and ZIP are written; Decode also
// understands RLE and ZIPS, which are cheap and common in files made by other tools.
type Compression uint8

// The OpenEXR compression codes (the numbers are the on-disk values).
const (
	None Compression = 0
	RLE  Compression = 1
	ZIPS Compression = 2 // zlib, one scanline per block
	ZIP  Compression = 3 // zlib, sixteen scanlines per block
	PIZ  Compression = 4
)

func (c Compression) String() string {
	names := []string{"none", "rle", "zips", "zip", "piz", "pxr24", "b44", "b44a", "dwaa", "dwab", "htj2k256", "htj2k32"}
	if int(c) < len(names) {
		return names[c]
	}
	return fmt.Sprintf("compression(%d)", uint8(c))
}

// linesPerBlock is how many scanlines one chunk holds for compression c.
func (c Compression) linesPerBlock() int {
	if c == ZIP {
		return 16
	}
	return 1
}

// maxRatio bounds how much one stored byte can expand when decoded, used to refuse sizes a
// file cannot back before allocating for them.
func (c Compression) maxRatio() int {
	switch c {
	case RLE:
		return 64 // two bytes encode a run of 128
	case ZIP, ZIPS:
		return 1100 // zlib cannot expand more than about 1032:1
	}
	return 1
}

// PixelType is the storage type of one channel.
type PixelType int32

// The OpenEXR pixel types.
const (
	Uint  PixelType = 0
	Half  PixelType = 1
	Float PixelType = 2
)

func (p PixelType) size() int {
	if p == Half {
		return 2
	}
	return 4
}

func (p PixelType) String() string {
	switch p {
	case Uint:
		return "uint"
	case Half:
		return "half"
	case Float:
		return "float"
	}
	return fmt.Sprintf("pixeltype(%d)", int32(p))
}

// Image is a whole decoded (or to-be-encoded) picture. Keeping one slice per channel matches how
// EXR stores scanlines and how terrain code consumes them (height is one channel, gradients two
// more), so no interleaving is done on either side.
type Image struct {
	Width, Height int
	// Channels names Data's planes. Decode orders them R, G, B, A first (those present), then
	// every other channel by name; Encode accepts any order and sorts them for the file.
	Channels []string
	// Data[c] holds channel c, row-major, Width*Height values; row 0 is the first scanline.
	Data [][]float32
}

// ErrUnsupported is wrapped by every error about a valid OpenEXR feature this package does not
// handle (tiles, parts, deep data, PIZ and the lossy codecs, subsampling), so callers can tell
// "another tool's file we cannot read" from "a broken file".
var ErrUnsupported = errors.New("exr: unsupported feature")

// ErrFormat is wrapped by every error about a malformed file.
var ErrFormat = errors.New("exr: invalid format")

func formatErr(format string, a ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{ErrFormat}, a...)...)
}

func unsupportedErr(format string, a ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{ErrUnsupported}, a...)...)
}

// canonicalOrder sorts channel names the way Strata reads them: R, G, B, A, then the rest by
// name. EXR itself stores channels sorted by name (A, B, G, R), which is never what a caller wants.
func canonicalOrder(names []string) []string {
	rank := func(s string) int {
		switch s {
		case "R":
			return 0
		case "G":
			return 1
		case "B":
			return 2
		case "A":
			return 3
		}
		return 4
	}
	out := append([]string(nil), names...)
	sort.SliceStable(out, func(i, j int) bool {
		ri, rj := rank(out[i]), rank(out[j])
		if ri != rj {
			return ri < rj
		}
		return out[i] < out[j]
	})
	return out
}
