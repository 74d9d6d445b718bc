package exr

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"io"
	"runtime"
	"sync"

	"strata/internal/ordered"
)

// Writer streams a FLOAT scanline file: rows go out a block at a time and the line offset table,
// whose values are only known once every block is written, is patched in by Close. This is what
// lets a bake write an 8192² rgba32f height payload (1 GiB) without holding it.
type Writer struct {
	w              io.WriteSeeker
	start, table   int64 // positions of the file start and the offset table
	width, height  int
	comp           Compression
	index          []int // file channel i is caller channel index[i]
	offsets        []uint64
	pos            int64 // current position relative to start
	block          [][]float32
	inBlock, done  int // rows buffered in block, rows written
	enc            blockEncoder
	closed, failed bool
}

// NewWriter writes the header and a placeholder offset table. channels are in the caller's order
// (for example R, G, B, A); WriteRows takes rows in that order, and the file stores them sorted
// by name as OpenEXR requires.
func NewWriter(w io.WriteSeeker, width, height int, channels []string, c Compression) (*Writer, error) {
	if width <= 0 || height <= 0 || width > 1<<24 || height > 1<<24 {
		return nil, fmt.Errorf("exr: image size %dx%d out of range", width, height)
	}
	if c != None && c != ZIP {
		return nil, fmt.Errorf("exr: writing compression %v: %w", c, ErrUnsupported)
	}
	if len(channels) == 0 {
		return nil, fmt.Errorf("exr: no channels to write")
	}
	seen := map[string]bool{}
	for _, n := range channels {
		if n == "" || len(n) > 31 || bytes.IndexByte([]byte(n), 0) >= 0 || seen[n] {
			return nil, fmt.Errorf("exr: channel name %q is empty, too long, or repeated", n)
		}
		seen[n] = true
	}
	start, err := w.Seek(0, io.SeekCurrent)
	if err != nil {
		return nil, fmt.Errorf("exr: seek: %w", err)
	}
	sorted, index := sortedNames(channels)
	hdr := headerBytes(width, height, sorted, c)
	chunks := (height + c.linesPerBlock() - 1) / c.linesPerBlock()
	wr := &Writer{w: w, start: start, table: int64(len(hdr)), width: width, height: height, comp: c,
		index: index, offsets: make([]uint64, chunks)}
	wr.block = make([][]float32, len(channels))
	for k := range wr.block {
		wr.block[k] = make([]float32, c.linesPerBlock()*width)
	}
	if _, err := w.Write(hdr); err != nil {
		return nil, fmt.Errorf("exr: writing header: %w", err)
	}
	if _, err := w.Write(make([]byte, 8*chunks)); err != nil {
		return nil, fmt.Errorf("exr: writing offset table: %w", err)
	}
	wr.pos = int64(len(hdr)) + int64(8*chunks)
	return wr, nil
}

// WriteRows appends whole rows: rows[c] holds n*width values of channel c (the order given to
// NewWriter), for any n ≥ 1, as long as the total does not pass the image height.
func (w *Writer) WriteRows(rows [][]float32) error {
	if w.closed || w.failed {
		return fmt.Errorf("exr: WriteRows after Close or a failed write")
	}
	if len(rows) != len(w.block) {
		return fmt.Errorf("exr: WriteRows got %d channels, want %d", len(rows), len(w.block))
	}
	n := len(rows[0]) / w.width
	for c, r := range rows {
		if len(r) != n*w.width || len(r)%w.width != 0 {
			return fmt.Errorf("exr: WriteRows channel %d has %d values, not %d whole rows of %d", c, len(r), n, w.width)
		}
	}
	if w.done+w.inBlock+n > w.height {
		return fmt.Errorf("exr: WriteRows past the image height %d", w.height)
	}
	lines := w.comp.linesPerBlock()
	for r := 0; r < n; r++ {
		for c := range rows {
			copy(w.block[c][w.inBlock*w.width:(w.inBlock+1)*w.width], rows[c][r*w.width:(r+1)*w.width])
		}
		w.inBlock++
		if w.inBlock == lines || w.done+w.inBlock == w.height {
			if err := w.flush(); err != nil {
				w.failed = true
				return err
			}
		}
	}
	return nil
}

// flush writes the buffered rows as one block.
func (w *Writer) flush() error {
	n := w.inBlock
	if err := w.emit(w.enc.encode(w.block, w.index, w.width, n, w.comp), n); err != nil {
		return err
	}
	w.inBlock = 0
	return nil
}

// emit writes an encoded block of n rows at the next scanline and records its offset.
func (w *Writer) emit(data []byte, n int) error {
	var pre [8]byte
	binary.LittleEndian.PutUint32(pre[0:], uint32(w.done))
	binary.LittleEndian.PutUint32(pre[4:], uint32(len(data)))
	w.offsets[w.done/w.comp.linesPerBlock()] = uint64(w.pos)
	if _, err := w.w.Write(pre[:]); err != nil {
		return fmt.Errorf("exr: writing block at scanline %d: %w", w.done, err)
	}
	if _, err := w.w.Write(data); err != nil {
		return fmt.Errorf("exr: writing block at scanline %d: %w", w.done, err)
	}
	w.pos += int64(8 + len(data))
	w.done += n
	return nil
}

// FillFunc fills rows [y0, y0+n) of a block: planes[c] receives n·width values of channel c (the
// order given to NewWriter). WriteBlocks calls it from several goroutines at once, for different
// blocks.
type FillFunc func(y0, n int, planes [][]float32) error

// WriteBlocks writes every row of the image: each block's rows come from fill and are laid out
// and compressed on workers goroutines at once (≤ 0: every core) — ZIP blocks are independent, so
// this is the whole file's compression in parallel — and written in order. progress (may be nil)
// receives the rows of each block as it is written; ctx stops it between blocks. It must be the
// only write before Close.
func (w *Writer) WriteBlocks(ctx context.Context, workers int, fill FillFunc, progress func(rows int)) error {
	if w.closed || w.failed || w.done != 0 || w.inBlock != 0 {
		return fmt.Errorf("exr: WriteBlocks after other writes")
	}
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	lines := w.comp.linesPerBlock()
	blocks := (w.height + lines - 1) / lines
	type scratch struct {
		planes [][]float32
		enc    blockEncoder
	}
	scr := make([]scratch, min(workers, blocks))
	var free sync.Pool // *[]byte: written blocks' buffers, for the next ones
	err := ordered.Run(ctx, blocks, workers, func(k, b int) (*[]byte, error) {
		sc := &scr[k]
		y0 := b * lines
		n := min(lines, w.height-y0)
		if sc.planes == nil {
			sc.planes = make([][]float32, len(w.block))
			for c := range sc.planes {
				sc.planes[c] = make([]float32, lines*w.width)
			}
		}
		cut := make([][]float32, len(sc.planes))
		for c := range cut {
			cut[c] = sc.planes[c][:n*w.width]
		}
		if err := fill(y0, n, cut); err != nil {
			return nil, fmt.Errorf("rows %d–%d: %w", y0, y0+n-1, err)
		}
		// The encoder's buffers are reused for the next block before this one is written: copy
		// it into a buffer the writer hands back once written, so blocks leave no garbage.
		data := sc.enc.encode(cut, w.index, w.width, n, w.comp)
		out, _ := free.Get().(*[]byte)
		if out == nil {
			out = new([]byte)
		}
		*out = append((*out)[:0], data...)
		return out, nil
	}, func(b int, data *[]byte) error {
		defer free.Put(data)
		n := min(lines, w.height-b*lines)
		if err := w.emit(*data, n); err != nil {
			return err
		}
		if progress != nil {
			progress(n)
		}
		return nil
	})
	if err != nil {
		w.failed = true
	}
	return err
}

// Close checks that every row was written, patches the offset table and leaves the underlying
// writer positioned at the end of the file. It does not close w.
func (w *Writer) Close() error {
	if w.closed {
		return nil
	}
	w.closed = true
	if w.failed {
		return fmt.Errorf("exr: Close after a failed write")
	}
	if w.done != w.height {
		return fmt.Errorf("exr: Close after %d of %d rows", w.done, w.height)
	}
	tbl := make([]byte, 8*len(w.offsets))
	for i, o := range w.offsets {
		binary.LittleEndian.PutUint64(tbl[8*i:], o)
	}
	if _, err := w.w.Seek(w.start+w.table, io.SeekStart); err != nil {
		return fmt.Errorf("exr: seek to offset table: %w", err)
	}
	if _, err := w.w.Write(tbl); err != nil {
		return fmt.Errorf("exr: writing offset table: %w", err)
	}
	if _, err := w.w.Seek(w.start+w.pos, io.SeekStart); err != nil {
		return fmt.Errorf("exr: seek to end: %w", err)
	}
	return nil
}

// Encode writes a whole image, its blocks compressed on every core (WriteBlocks). Writers that
// cannot seek get the file assembled in memory first.
func Encode(w io.Writer, img *Image, c Compression) error {
	if img == nil {
		return fmt.Errorf("exr: Encode of a nil image")
	}
	if len(img.Data) != len(img.Channels) {
		return fmt.Errorf("exr: image has %d channel names but %d planes", len(img.Channels), len(img.Data))
	}
	for k, d := range img.Data {
		if len(d) != img.Width*img.Height {
			return fmt.Errorf("exr: channel %q has %d values, want %dx%d", img.Channels[k], len(d), img.Width, img.Height)
		}
	}
	ws, ok := w.(io.WriteSeeker)
	var mem *memFile
	if !ok {
		mem = &memFile{}
		ws = mem
	}
	ew, err := NewWriter(ws, img.Width, img.Height, img.Channels, c)
	if err != nil {
		return err
	}
	err = ew.WriteBlocks(context.Background(), 0, func(y0, n int, planes [][]float32) error {
		for c, p := range planes {
			copy(p, img.Data[c][y0*img.Width:(y0+n)*img.Width])
		}
		return nil
	}, nil)
	if err != nil {
		return err
	}
	if err := ew.Close(); err != nil {
		return err
	}
	if mem != nil {
		if _, err := w.Write(mem.b); err != nil {
			return fmt.Errorf("exr: writing: %w", err)
		}
	}
	return nil
}

// memFile is a minimal in-memory io.WriteSeeker.
type memFile struct {
	b   []byte
	off int64
}

func (m *memFile) Write(p []byte) (int, error) {
	end := m.off + int64(len(p))
	if end > int64(len(m.b)) {
		m.b = append(m.b, make([]byte, end-int64(len(m.b)))...)
	}
	copy(m.b[m.off:], p)
	m.off = end
	return len(p), nil
}

func (m *memFile) Seek(off int64, whence int) (int64, error) {
	switch whence {
	case io.SeekCurrent:
		off += m.off
	case io.SeekEnd:
		off += int64(len(m.b))
	}
	if off < 0 {
		return 0, fmt.Errorf("exr: negative seek")
	}
	m.off = off
	return off, nil
}
