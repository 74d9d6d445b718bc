package field

import (
	"context"
	"encoding/binary"
	"fmt"
	"io"
	"unsafe"
)

// rawSource is a headerless little-endian file (.r16, .f32, .raw: rawLayout) read in bands of
// rows on every core: each band is one ReadAt at its offset, float32 straight into the grid's
// own memory on a little-endian machine, 16-bit codes through a band buffer per worker.
type rawSource struct {
	r         io.ReaderAt
	w, h, bps int
	bandRows  int
	nativeLE  bool
}

// rawBandBytes is about what one band of a raw file (or float TIFF) holds: large enough that a
// read is cheap per byte, small enough that the workers' buffers stay a few MiB. A variable so
// tests can cut small files into many bands.
var rawBandBytes = 1 << 20

// isLittleEndian reports the machine's byte order.
var isLittleEndian = binary.NativeEndian.Uint16([]byte{1, 0}) == 1

func newRawSource(r io.ReaderAt, n int64, size [2]int, ext string) (*rawSource, error) {
	w, h, bps, err := rawLayout(ext, n, size, CheckSize)
	if err != nil {
		return nil, err
	}
	return &rawSource{r: r, w: w, h: h, bps: bps, bandRows: max(1, min(h, rawBandBytes/(w*bps))), nativeLE: isLittleEndian}, nil
}

func (s *rawSource) dims() (int, int) { return s.w, s.h }
func (s *rawSource) kind() string     { return rawKind(s.bps) }
func (s *rawSource) rows() int        { return s.h }
func (s *rawSource) maxCode() int {
	if s.bps == 2 {
		return 65535
	}
	return 0
}

func (s *rawSource) bands() int { return (s.h + s.bandRows - 1) / s.bandRows }

func (s *rawSource) memory() (uint64, string) {
	return uint64(workerCount(s.bands())) * uint64(s.bandRows*s.w*s.bps), fmt.Sprintf("reading %d×%d samples", s.w, s.h)
}

func (s *rawSource) decode(ctx context.Context, out *gridOut, p *progress) error {
	rowBytes := s.w * s.bps
	bufs := make([][]byte, workerCount(s.bands()))
	return eachTask(ctx, s.bands(), func(worker, k int) error {
		j0 := k * s.bandRows
		j1 := min(s.h, j0+s.bandRows)
		dst := out.g.Data[j0*s.w : j1*s.w]
		off := int64(j0) * int64(rowBytes)
		st := newStats()
		if s.bps == 4 && s.nativeLE {
			view := unsafe.Slice((*byte)(unsafe.Pointer(&dst[0])), 4*len(dst))
			if _, err := s.r.ReadAt(view, off); err != nil {
				return fmt.Errorf("reading %s: %w", s.kind(), eofUnexpected(err))
			}
			st.floats(dst, j0*s.w)
		} else {
			if bufs[worker] == nil {
				bufs[worker] = make([]byte, s.bandRows*rowBytes)
			}
			b := bufs[worker][:(j1-j0)*rowBytes]
			if _, err := s.r.ReadAt(b, off); err != nil {
				return fmt.Errorf("reading %s: %w", s.kind(), eofUnexpected(err))
			}
			if s.bps == 2 {
				st.codes16(dst, b, false, false, out.lut)
			} else {
				st.floats32(dst, b, binary.LittleEndian, j0*s.w)
			}
		}
		out.add(st, j1-j0)
		out.rowsDone(j0, j1)
		p.add(j1 - j0)
		return nil
	})
}

// eofUnexpected says io.ErrUnexpectedEOF for a read that ended early with io.EOF (a file that
// shrank while it was read): the bytes were promised by the file's size.
func eofUnexpected(err error) error {
	if err == io.EOF {
		return io.ErrUnexpectedEOF
	}
	return err
}
