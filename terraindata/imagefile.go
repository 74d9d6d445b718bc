package terraindata

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"image"
	"image/color"
	"io"
	"math"
	"path/filepath"
	"slices"
	"strings"

	"strata/exr"
	"strata/internal/safeio"
)

// A layer's maps may be PNG, JPEG, TGA (the format many texture packs ship) or OpenEXR. PNG and
// JPEG go through the standard decoders; TGA and EXR are read here, by extension, since neither
// has a signature image.Decode could sniff reliably.

// maxImageSide bounds a decoded map: an atlas cell is at most 4096 texels wide, so a larger
// source is almost always a corrupt header.
const maxImageSide = 1 << 15

// DecodeImageFile reads a layer map. colorSpace is the sheet's (SRGB for albedo): an EXR holds
// linear light, so for an sRGB sheet its values are encoded to sRGB; other formats are taken as
// they are stored.
func DecodeImageFile(path, colorSpace string) (image.Image, error) {
	b, err := safeio.ReadFile(path, MaxSourceBytes)
	if err != nil {
		return nil, err
	}
	var img image.Image
	switch strings.ToLower(filepath.Ext(path)) {
	case ".tga":
		img, err = decodeTGA(b)
	case ".exr":
		img, err = decodeEXRImage(b, colorSpace == SRGB)
	default:
		img, _, err = image.Decode(bytes.NewReader(b))
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return img, nil
}

// imageFileSize reads the size of a TGA or EXR layer map (ext) of fileSize bytes from its header
// alone, with every check decoding it makes before its pixels: a format and size
// DecodeImageFile reads, and (TGA) a file long enough to hold the pixels.
func imageFileSize(r io.Reader, fileSize int64, ext string) (w, h int, err error) {
	if ext == ".exr" {
		rd, err := exr.NewReader(r)
		if err != nil {
			return 0, 0, err
		}
		hd := rd.Header()
		if err := checkEXRImage(hd.Width, hd.Height, rd.Channels()); err != nil {
			return 0, 0, err
		}
		return hd.Width, hd.Height, nil
	}
	var b [18]byte
	if _, err := io.ReadFull(r, b[:]); err == io.EOF || err == io.ErrUnexpectedEOF {
		return 0, 0, errors.New("tga: truncated header")
	} else if err != nil {
		return 0, 0, err
	}
	t, err := parseTGAHeader(b[:])
	if err != nil {
		return 0, 0, err
	}
	if err := t.checkLen(fileSize); err != nil {
		return 0, 0, err
	}
	return t.w, t.h, nil
}

// tgaHeader is what a TGA's 18-byte header declares.
type tgaHeader struct {
	w, h, px     int  // px: bytes a pixel
	rle, topDown bool // run-length encoded; row 0 is the top one
	skip         int  // bytes of image ID and colour map between the header and the pixels
}

// parseTGAHeader reads the header at the start of b, refusing what decodeTGA does not read:
// colour-mapped images, types other than true colour and grayscale, other depths, sizes beyond
// maxImageSide.
func parseTGAHeader(b []byte) (tgaHeader, error) {
	if len(b) < 18 {
		return tgaHeader{}, errors.New("tga: truncated header")
	}
	idLen, cmapType, kind := int(b[0]), b[1], b[2]
	cmapLen, cmapBits := int(binary.LittleEndian.Uint16(b[5:])), int(b[7])
	w, h := int(binary.LittleEndian.Uint16(b[12:])), int(binary.LittleEndian.Uint16(b[14:]))
	bpp, desc := int(b[16]), b[17]
	if cmapType != 0 {
		return tgaHeader{}, errors.New("tga: colour-mapped images are not supported (save as true colour)")
	}
	gray := kind == 3 || kind == 11
	switch {
	case kind != 2 && kind != 3 && kind != 10 && kind != 11:
		return tgaHeader{}, fmt.Errorf("tga: image type %d is not supported (true colour or grayscale)", kind)
	case gray && bpp != 8, !gray && bpp != 24 && bpp != 32:
		return tgaHeader{}, fmt.Errorf("tga: %d bits per pixel for image type %d is not supported", bpp, kind)
	case w == 0 || h == 0 || w > maxImageSide || h > maxImageSide:
		return tgaHeader{}, fmt.Errorf("tga: size %dx%d", w, h)
	}
	return tgaHeader{w: w, h: h, px: bpp / 8, rle: kind == 10 || kind == 11, topDown: desc&0x20 != 0,
		skip: idLen + cmapLen*((cmapBits+7)/8)}, nil
}

// checkLen refuses a file of n bytes too short for what the header declares: the image ID and
// colour map, then the pixels (run-length data at its densest: 1+px bytes per 128 pixels).
func (t tgaHeader) checkLen(n int64) error {
	data := n - 18 - int64(t.skip)
	texels := int64(t.w) * int64(t.h)
	switch {
	case data < 0:
		return errors.New("tga: truncated header")
	case t.rle && data < 2*((texels+127)/128):
		return errors.New("tga: truncated run-length data")
	case !t.rle && data < texels*int64(t.px):
		return errors.New("tga: truncated pixel data")
	}
	return nil
}

// decodeTGA reads a Truevision TGA: true-colour (24/32-bit) or grayscale (8-bit), uncompressed
// or run-length encoded, either vertical origin.
func decodeTGA(b []byte) (image.Image, error) {
	t, err := parseTGAHeader(b)
	if err != nil {
		return nil, err
	}
	if err := t.checkLen(int64(len(b))); err != nil {
		return nil, err
	}
	w, h, px := t.w, t.h, t.px
	data := b[18+t.skip:]
	n := w * h
	raw := data
	if t.rle {
		raw = make([]byte, 0, n*px)
		for len(raw) < n*px {
			if len(data) < 1 {
				return nil, errors.New("tga: truncated run-length data")
			}
			c := int(data[0])&0x7f + 1
			if data[0]&0x80 != 0 {
				if len(data) < 1+px {
					return nil, errors.New("tga: truncated run-length data")
				}
				for range c {
					raw = append(raw, data[1:1+px]...)
				}
				data = data[1+px:]
			} else {
				if len(data) < 1+c*px {
					return nil, errors.New("tga: truncated run-length data")
				}
				raw = append(raw, data[1:1+c*px]...)
				data = data[1+c*px:]
			}
		}
		raw = raw[:n*px]
	}
	img := image.NewNRGBA(image.Rect(0, 0, w, h))
	for y := 0; y < h; y++ {
		row := y
		if !t.topDown {
			row = h - 1 - y
		}
		for x := 0; x < w; x++ {
			s := raw[(y*w+x)*px:]
			var c color.NRGBA
			switch px {
			case 1:
				c = color.NRGBA{s[0], s[0], s[0], 255}
			case 3:
				c = color.NRGBA{s[2], s[1], s[0], 255}
			default:
				c = color.NRGBA{s[2], s[1], s[0], s[3]}
			}
			img.SetNRGBA(x, row, c)
		}
	}
	return img, nil
}

// decodeEXRImage reads an EXR's R, G, B (or Y) and A into 8-bit, sRGB-encoding colour when asked.
func decodeEXRImage(b []byte, srgb bool) (image.Image, error) {
	e, err := exr.Decode(bytes.NewReader(b))
	if err != nil {
		return nil, err
	}
	if err := checkEXRImage(e.Width, e.Height, e.Channels); err != nil {
		return nil, err
	}
	plane := func(names ...string) []float32 {
		for _, n := range names {
			for i, c := range e.Channels {
				if c == n {
					return e.Data[i]
				}
			}
		}
		return nil
	}
	r, g, bl, a := plane("R", "Y"), plane("G", "Y"), plane("B", "Y"), plane("A") // R, G, B or Y: checked
	conv := func(v float32, colour bool) uint8 {
		f := float64(v)
		if !(f > 0) {
			return 0
		}
		f = min(f, 1)
		if colour && srgb {
			if f <= 0.0031308 {
				f *= 12.92
			} else {
				f = 1.055*math.Pow(f, 1/2.4) - 0.055
			}
		}
		return uint8(math.Round(f * 255))
	}
	img := image.NewNRGBA(image.Rect(0, 0, e.Width, e.Height))
	for i := 0; i < e.Width*e.Height; i++ {
		alpha := uint8(255)
		if a != nil {
			alpha = conv(a[i], false)
		}
		img.Pix[4*i], img.Pix[4*i+1], img.Pix[4*i+2], img.Pix[4*i+3] = conv(r[i], true), conv(g[i], true), conv(bl[i], true), alpha
	}
	return img, nil
}

// checkEXRImage refuses an EXR decodeEXRImage cannot make a map of: more than maxImageSide a
// side, or neither R, G and B nor Y among its channels (names).
func checkEXRImage(w, h int, names []string) error {
	if w > maxImageSide || h > maxImageSide {
		return fmt.Errorf("exr: size %dx%d", w, h)
	}
	if !slices.Contains(names, "Y") && !(slices.Contains(names, "R") && slices.Contains(names, "G") && slices.Contains(names, "B")) {
		return fmt.Errorf("exr: channels %v: want R, G, B or Y", names)
	}
	return nil
}
