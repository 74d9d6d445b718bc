package exr

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"sort"
)

const (
	magic = 20000630

	flagTiled     = 0x200
	flagLongNames = 0x400
	flagDeep      = 0x800
	flagMultipart = 0x1000
)

// Header is what DecodeConfig learns from a file without reading pixels: enough for a caller (or
// a validator) to check sizes and formats of a large payload cheaply.
type Header struct {
	Width, Height int
	// MinX, MinY are the data window's origin; rows are numbered from MinY in the file, from 0 in
	// an Image.
	MinX, MinY  int
	Channels    []ChannelInfo // in file order: sorted by name
	Compression Compression
	LineOrder   uint8 // 0 increasing Y, 1 decreasing Y, 2 random
}

// ChannelInfo is one entry of the file's channel list.
type ChannelInfo struct {
	Name string
	Type PixelType
}

// bytesPerLine is the uncompressed size of one scanline over all channels.
func (h *Header) bytesPerLine() int {
	n := 0
	for _, c := range h.Channels {
		n += c.Type.size() * h.Width
	}
	return n
}

func (h *Header) chunkCount() int {
	l := h.Compression.linesPerBlock()
	return (h.Height + l - 1) / l
}

// countingReader counts bytes so the decoder knows the offset of the line offset table.
type countingReader struct {
	r *bufio.Reader
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

func (c *countingReader) ReadByte() (byte, error) {
	b, err := c.r.ReadByte()
	if err == nil {
		c.n++
	}
	return b, err
}

func readFull(r io.Reader, p []byte, what string) error {
	if _, err := io.ReadFull(r, p); err != nil {
		if err == io.EOF || err == io.ErrUnexpectedEOF {
			return formatErr("truncated file reading %s", what)
		}
		return fmt.Errorf("exr: reading %s: %w", what, err)
	}
	return nil
}

// readString reads a NUL-terminated name of at most max bytes.
func readString(r *countingReader, max int, what string) (string, error) {
	var b []byte
	for {
		c, err := r.ReadByte()
		if err != nil {
			return "", formatErr("truncated file reading %s", what)
		}
		if c == 0 {
			return string(b), nil
		}
		if len(b) >= max {
			return "", formatErr("%s longer than %d bytes", what, max)
		}
		b = append(b, c)
	}
}

// readHeader parses the magic number, version field and header attributes.
func readHeader(r *countingReader) (*Header, error) {
	var pre [8]byte
	if err := readFull(r, pre[:], "magic number"); err != nil {
		return nil, err
	}
	if binary.LittleEndian.Uint32(pre[0:]) != magic {
		return nil, formatErr("not an OpenEXR file (bad magic number)")
	}
	ver := binary.LittleEndian.Uint32(pre[4:])
	if ver&0xff != 2 {
		return nil, unsupportedErr("file format version %d (only 2 is read)", ver&0xff)
	}
	switch {
	case ver&flagMultipart != 0:
		return nil, unsupportedErr("multi-part file (only single-part scanline files are read)")
	case ver&flagDeep != 0:
		return nil, unsupportedErr("deep data (only flat scanline images are read)")
	case ver&flagTiled != 0:
		return nil, unsupportedErr("tiled file (only scanline files are read; re-save it as scanlines)")
	}
	maxName := 31
	if ver&flagLongNames != 0 {
		maxName = 255
	}
	h := &Header{}
	var seen = map[string]bool{}
	for {
		name, err := readString(r, maxName, "attribute name")
		if err != nil {
			return nil, err
		}
		if name == "" {
			break
		}
		typ, err := readString(r, maxName, "attribute type of "+name)
		if err != nil {
			return nil, err
		}
		var sz [4]byte
		if err := readFull(r, sz[:], "attribute size of "+name); err != nil {
			return nil, err
		}
		size := int32(binary.LittleEndian.Uint32(sz[:]))
		if size < 0 {
			return nil, formatErr("attribute %s has negative size %d", name, size)
		}
		known := map[string]string{"channels": "chlist", "compression": "compression", "dataWindow": "box2i", "lineOrder": "lineOrder", "type": "string"}
		want, isKnown := known[name]
		if !isKnown {
			if _, err := io.CopyN(io.Discard, r, int64(size)); err != nil {
				return nil, formatErr("truncated file in attribute %s", name)
			}
			continue
		}
		if typ != want {
			return nil, formatErr("attribute %s has type %q, want %q", name, typ, want)
		}
		if size > 1<<20 {
			return nil, formatErr("attribute %s is %d bytes", name, size)
		}
		buf := make([]byte, size)
		if err := readFull(r, buf, "attribute "+name); err != nil {
			return nil, err
		}
		seen[name] = true
		switch name {
		case "channels":
			if h.Channels, err = parseChlist(buf); err != nil {
				return nil, err
			}
		case "compression":
			if len(buf) != 1 {
				return nil, formatErr("compression attribute is %d bytes, want 1", len(buf))
			}
			h.Compression = Compression(buf[0])
		case "lineOrder":
			if len(buf) != 1 || buf[0] > 2 {
				return nil, formatErr("bad lineOrder attribute")
			}
			h.LineOrder = buf[0]
		case "dataWindow":
			if len(buf) != 16 {
				return nil, formatErr("dataWindow attribute is %d bytes, want 16", len(buf))
			}
			x0 := int64(int32(binary.LittleEndian.Uint32(buf[0:])))
			y0 := int64(int32(binary.LittleEndian.Uint32(buf[4:])))
			x1 := int64(int32(binary.LittleEndian.Uint32(buf[8:])))
			y1 := int64(int32(binary.LittleEndian.Uint32(buf[12:])))
			if x1 < x0 || y1 < y0 || x1-x0+1 > 1<<24 || y1-y0+1 > 1<<24 {
				return nil, formatErr("bad dataWindow (%d,%d)-(%d,%d)", x0, y0, x1, y1)
			}
			h.MinX, h.MinY = int(x0), int(y0)
			h.Width, h.Height = int(x1-x0+1), int(y1-y0+1)
		case "type":
			if s := string(buf); s != "scanlineimage\x00" && s != "scanlineimage" {
				return nil, unsupportedErr("part type %q (only scanlineimage is read)", s)
			}
		}
	}
	for _, a := range []string{"channels", "compression", "dataWindow"} {
		if !seen[a] {
			return nil, formatErr("header has no %s attribute", a)
		}
	}
	switch h.Compression {
	case None, RLE, ZIPS, ZIP:
	default:
		return nil, unsupportedErr("compression %v (none, rle, zips and zip are read)", h.Compression)
	}
	if len(h.Channels) == 0 {
		return nil, formatErr("channel list is empty")
	}
	if int64(h.bytesPerLine())*int64(h.Compression.linesPerBlock()) > math.MaxInt32 {
		return nil, formatErr("%d channels of width %d make a block too large", len(h.Channels), h.Width)
	}
	return h, nil
}

func parseChlist(b []byte) ([]ChannelInfo, error) {
	var out []ChannelInfo
	for {
		i := 0
		for i < len(b) && b[i] != 0 {
			i++
		}
		if i == len(b) {
			return nil, formatErr("channel list is not terminated")
		}
		if i == 0 {
			break
		}
		name := string(b[:i])
		b = b[i+1:]
		if len(b) < 16 {
			return nil, formatErr("channel %q: truncated channel list", name)
		}
		pt := PixelType(int32(binary.LittleEndian.Uint32(b[0:])))
		xs := int32(binary.LittleEndian.Uint32(b[8:]))
		ys := int32(binary.LittleEndian.Uint32(b[12:]))
		b = b[16:]
		if pt < Uint || pt > Float {
			return nil, formatErr("channel %q has unknown pixel type %d", name, int32(pt))
		}
		if xs != 1 || ys != 1 {
			return nil, unsupportedErr("channel %q is subsampled (%d,%d)", name, xs, ys)
		}
		if len(out) > 0 && out[len(out)-1].Name >= name {
			return nil, formatErr("channel list is not sorted by name at %q", name)
		}
		if len(out) >= 1024 {
			return nil, formatErr("more than 1024 channels")
		}
		out = append(out, ChannelInfo{Name: name, Type: pt})
	}
	return out, nil
}

// DecodeConfig reads only the header, so a validator can compare a payload's size and channels
// with its texture.yaml without decoding gigabytes of pixels.
func DecodeConfig(r io.Reader) (Header, error) {
	h, err := readHeader(&countingReader{r: bufio.NewReader(r)})
	if err != nil {
		return Header{}, err
	}
	return *h, nil
}

// headerBytes builds the header of a file Strata writes: FLOAT channels in name order and the
// attributes every OpenEXR reader requires, themselves sorted by name as OpenEXR writes them.
func headerBytes(width, height int, sorted []string, c Compression) []byte {
	var b []byte
	u32 := func(v uint32) { b = binary.LittleEndian.AppendUint32(b, v) }
	attr := func(name, typ string, size int) {
		b = append(b, name...)
		b = append(b, 0)
		b = append(b, typ...)
		b = append(b, 0)
		u32(uint32(size))
	}
	u32(magic)
	u32(2)
	chSize := 1
	for _, n := range sorted {
		chSize += len(n) + 1 + 16
	}
	attr("channels", "chlist", chSize)
	for _, n := range sorted {
		b = append(b, n...)
		b = append(b, 0)
		u32(uint32(Float))
		b = append(b, 0, 0, 0, 0) // pLinear, reserved
		u32(1)
		u32(1)
	}
	b = append(b, 0)
	attr("compression", "compression", 1)
	b = append(b, byte(c))
	box := func(name string) {
		attr(name, "box2i", 16)
		u32(0)
		u32(0)
		u32(uint32(width - 1))
		u32(uint32(height - 1))
	}
	box("dataWindow")
	box("displayWindow")
	attr("lineOrder", "lineOrder", 1)
	b = append(b, 0)
	attr("pixelAspectRatio", "float", 4)
	u32(math.Float32bits(1))
	attr("screenWindowCenter", "v2f", 8)
	u32(0)
	u32(0)
	attr("screenWindowWidth", "float", 4)
	u32(math.Float32bits(1))
	b = append(b, 0)
	return b
}

// sortedNames returns the file order of names and, for each file position, the caller's index.
func sortedNames(names []string) (sorted []string, index []int) {
	index = make([]int, len(names))
	for i := range index {
		index[i] = i
	}
	sort.SliceStable(index, func(a, b int) bool { return names[index[a]] < names[index[b]] })
	sorted = make([]string, len(names))
	for i, k := range index {
		sorted[i] = names[k]
	}
	return sorted, index
}
