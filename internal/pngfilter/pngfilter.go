// Package pngfilter reverses PNG scanline filters (filter method 0): the one unfilter of the
// streaming PNG readers in field (heightmap import) and terraindata (container payloads).
package pngfilter

import (
	"encoding/binary"
	"fmt"
)

// Row reverses a scanline's filter in place: ft is the filter type byte, prev the previous row
// of the pass, unfiltered (zeros for its first row), bpp the bytes per pixel (at least 1).
func Row(ft byte, cur, prev []byte, bpp int) error {
	switch ft {
	case 0:
	case 1:
		for i := bpp; i < len(cur); i++ {
			cur[i] += cur[i-bpp]
		}
	case 2:
		// Up, eight bytes at a time: each byte's sum mod 256 without carries between them.
		n := len(cur) &^ 7
		for i := 0; i < n; i += 8 {
			a, b := binary.LittleEndian.Uint64(cur[i:]), binary.LittleEndian.Uint64(prev[i:])
			binary.LittleEndian.PutUint64(cur[i:], (a&lo7)+(b&lo7)^(a^b)&hi1)
		}
		for i := n; i < len(cur); i++ {
			cur[i] += prev[i]
		}
	case 3:
		for i := 0; i < bpp; i++ {
			cur[i] += prev[i] / 2
		}
		for i := bpp; i < len(cur); i++ {
			cur[i] += byte((int(cur[i-bpp]) + int(prev[i])) / 2)
		}
	case 4:
		if bpp == 2 {
			unpaeth2(cur, prev)
		} else {
			unpaeth(cur, prev, bpp)
		}
	default:
		return fmt.Errorf("unknown filter type %d", ft)
	}
	return nil
}

// lo7 and hi1 split each byte of a word into its low seven bits and its top bit.
const (
	lo7 = 0x7f7f7f7f7f7f7f7f
	hi1 = 0x8080808080808080
)

// unpaeth reverses the Paeth filter, one byte lane of the pixel at a time (image/png's
// filterPaeth: the predictor's comparisons without the spec's extra arithmetic, branch-free
// absolute values).
func unpaeth(cur, prev []byte, bpp int) {
	prev = prev[:len(cur)]
	for lane := 0; lane < bpp; lane++ {
		var a, c int
		for j := lane; j < len(cur); j += bpp {
			b := int(prev[j])
			pa, pb := b-c, a-c
			pc := iabs(pa + pb)
			pa, pb = iabs(pa), iabs(pb)
			if pa <= pb && pa <= pc {
				// a
			} else if pb <= pc {
				a = b
			} else {
				a = c
			}
			a = (a + int(cur[j])) & 0xff
			cur[j] = byte(a)
			c = b
		}
	}
}

func iabs(x int) int {
	m := x >> 63
	return (x ^ m) - m
}

// unpaeth2 is unpaeth for two bytes a pixel (16-bit gray, the common heightmap), both lanes in
// one loop so their dependency chains overlap, the predictor's choice made with conditional moves.
func unpaeth2(cur, prev []byte) {
	n := len(cur) &^ 1
	cur, prev = cur[:n], prev[:n]
	var a0, c0, a1, c1 int32
	for j := 0; j+1 < len(cur); j += 2 {
		b0, b1 := int32(prev[j]), int32(prev[j+1])
		pa0, pb0 := b0-c0, a0-c0
		pa1, pb1 := b1-c1, a1-c1
		pc0, pc1 := abs32(pa0+pb0), abs32(pa1+pb1)
		pa0, pb0, pa1, pb1 = abs32(pa0), abs32(pb0), abs32(pa1), abs32(pb1)
		p0, p1 := c0, c1
		if pb0 <= pc0 {
			p0 = b0
		}
		if pb1 <= pc1 {
			p1 = b1
		}
		if pa0 <= min(pb0, pc0) {
			p0 = a0
		}
		if pa1 <= min(pb1, pc1) {
			p1 = a1
		}
		a0, a1 = (p0+int32(cur[j]))&0xff, (p1+int32(cur[j+1]))&0xff
		cur[j], cur[j+1] = byte(a0), byte(a1)
		c0, c1 = b0, b1
	}
}

func abs32(x int32) int32 {
	m := x >> 31
	return (x ^ m) - m
}
