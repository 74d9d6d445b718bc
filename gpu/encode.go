package gpu

import (
	"encoding/binary"
	"math"
	"unsafe"
)

// littleEndian is true on every host wgpu-native ships for; the byte views below rely on it and
// fall back to encoding otherwise.
var littleEndian = binary.NativeEndian.Uint16([]byte{1, 0}) == 1

// scratch turns uint32 and float32 slices into the little-endian bytes Queue.WriteBuffer takes,
// re-using one growing buffer so a kernel allocates nothing per tile once warm. Queue.WriteBuffer
// copies the bytes before it returns, so the buffer (or a view of the caller's floats) may be
// reused at once.
type scratch struct{ buf []byte }

// grow returns the buffer resized to n bytes (contents unspecified).
func (s *scratch) grow(n int) []byte {
	if cap(s.buf) < n {
		s.buf = make([]byte, n)
	}
	return s.buf[:n]
}

// words encodes p little-endian.
func (s *scratch) words(p []uint32) []byte {
	b := s.grow(len(p) * 4)
	for i, v := range p {
		binary.LittleEndian.PutUint32(b[i*4:], v)
	}
	return b
}

// floats is a view of f's own bytes on a little-endian host — a 4096² height grid (64 MiB) costs
// no per-value conversion on every upload — and an encoded copy elsewhere.
func (s *scratch) floats(f []float32) []byte {
	if len(f) == 0 {
		return nil
	}
	if littleEndian {
		return unsafe.Slice((*byte)(unsafe.Pointer(&f[0])), len(f)*4)
	}
	b := s.grow(len(f) * 4)
	for i, v := range f {
		binary.LittleEndian.PutUint32(b[i*4:], math.Float32bits(v))
	}
	return b
}
