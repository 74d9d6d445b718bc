package zinflate

import (
	"bytes"
	"compress/zlib"
	"errors"
	"math/rand/v2"
	"testing"
)

func deflate(t *testing.T, b []byte) []byte {
	t.Helper()
	var z bytes.Buffer
	w := zlib.NewWriter(&z)
	if _, err := w.Write(b); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return z.Bytes()
}

// TestZlib: the bytes compress/zlib wrote come back, the input taken is the stream's whole length
// whatever follows it, and a short, long or corrupt stream is refused by kind.
func TestZlib(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	want := make([]byte, 300_000)
	for i := range want {
		want[i] = byte(r.IntN(7) * (i % 5)) // compressible, not trivially
	}
	z := deflate(t, want)
	src := append(append([]byte(nil), z...), "trailing bytes"...)
	got := make([]byte, len(want))
	in, err := Zlib(got, src)
	if err != nil || in != len(z) || !bytes.Equal(got, want) {
		t.Fatalf("Zlib: in %d (stream %d), err %v, equal %v", in, len(z), err, bytes.Equal(got, want))
	}
	if _, err := Zlib(make([]byte, len(want)+1), z); !errors.Is(err, ErrShort) {
		t.Errorf("output one byte longer than the stream: %v, want ErrShort", err)
	}
	if _, err := Zlib(make([]byte, len(want)-1), z); !errors.Is(err, ErrLong) {
		t.Errorf("output one byte shorter than the stream: %v, want ErrLong", err)
	}
	bad := append([]byte(nil), z...)
	bad[len(bad)-1] ^= 1 // the Adler-32
	if _, err := Zlib(got, bad); !errors.Is(err, ErrBad) {
		t.Errorf("wrong checksum: %v, want ErrBad", err)
	}
	if _, err := Zlib(got, z[:len(z)/2]); err == nil {
		t.Error("half a stream was accepted")
	}
	if _, err := Zlib(got, nil); !errors.Is(err, ErrShort) {
		t.Errorf("no input: %v, want ErrShort", err)
	}
	empty := deflate(t, nil)
	if in, err := Zlib(nil, empty); err != nil || in != len(empty) {
		t.Errorf("empty stream into an empty output: in %d, err %v", in, err)
	}
}
