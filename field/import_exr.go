package field

import (
	"context"
	"fmt"
	"io"

	"strata/exr"
)

// exrSource is an EXR read block by block (package exr's Reader.Blocks): the file is read in
// order, the blocks are decompressed and converted on every core, and only the picked channel's
// rows are copied into the grid.
type exrSource struct {
	rd       *exr.Reader
	w, h     int
	pick     int
	kindName string
	blockMem uint64 // what one worker holds for one block
}

// newEXRSource reads the header and the line offset table and checks them as the import always
// has: sides (CheckSize), a channel to read (pickEXRChannel), a size the file's bytes can hold.
func newEXRSource(r io.ReaderAt, size int64) (*exrSource, error) {
	rd, err := exr.NewReader(io.NewSectionReader(r, 0, size))
	if err != nil {
		return nil, fmt.Errorf("decoding EXR: %w", err)
	}
	hd := rd.Header()
	if err := CheckSize(hd.Width, hd.Height); err != nil {
		return nil, err
	}
	names := rd.Channels()
	pick, kind, err := pickEXRChannel(names)
	if err != nil {
		return nil, err
	}
	if err := checkBacked(hd.Width, hd.Height, 2*len(names), int(size), deflateRatio); err != nil {
		return nil, fmt.Errorf("EXR %w", err)
	}
	lines := 1
	if hd.Compression == exr.ZIP {
		lines = 16
	}
	line := 0
	for _, c := range hd.Channels {
		n := 4
		if c.Type == exr.Half {
			n = 2
		}
		line += n * hd.Width
	}
	// stored bytes, decompressed bytes and float32 rows of every channel
	mem := uint64(lines) * (2*uint64(line) + 4*uint64(hd.Width)*uint64(len(names)))
	return &exrSource{rd: rd, w: hd.Width, h: hd.Height, pick: pick, kindName: kind, blockMem: mem}, nil
}

func (s *exrSource) dims() (int, int) { return s.w, s.h }
func (s *exrSource) kind() string     { return s.kindName }
func (s *exrSource) rows() int        { return s.h }
func (s *exrSource) maxCode() int     { return 0 }

func (s *exrSource) memory() (uint64, string) {
	return uint64(workerCount(s.h)) * s.blockMem, fmt.Sprintf("decoding a %d×%d %s", s.w, s.h, s.kindName)
}

func (s *exrSource) decode(ctx context.Context, out *gridOut, p *progress) error {
	err := s.rd.Blocks(ctx, 0, func(y0, n int, rows [][]float32) error {
		dst := out.g.Data[y0*s.w : (y0+n)*s.w]
		copy(dst, rows[s.pick][:n*s.w])
		st := newStats()
		st.floats(dst, y0*s.w)
		out.add(st, n)
		out.rowsDone(y0, y0+n)
		p.add(n)
		return nil
	})
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return fmt.Errorf("decoding EXR: %w", err)
	}
	if got := out.cnt.Load(); got != int64(s.h) {
		return fmt.Errorf("EXR: %d of the %d rows found", got, s.h)
	}
	return nil
}
