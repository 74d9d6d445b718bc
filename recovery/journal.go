package recovery

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"math"
	"time"
)

// The journal is a sequence of records, each framed as
//
//	magic "SRJ1" | payload length u32 LE | CRC-32C of the payload u32 LE | payload
//
// A record is valid only when its whole frame is there and its checksum matches; a reader stops
// at the first record that is not, so a kill during an append leaves the records before it — the
// previous copy — usable. Payload (little-endian):
//
//	u8 version (1) | i64 time (Unix ns) | u32 steps | u32 position | u8 flags
//	str label | [bytes stack.yaml]        when flags&flagStack
//	[u32 n, n × (str name, u8 fresh)]    when flags&flagChannels
//	u32 blocks, each: str target | u32 x, y, w, h | w·h × f32
//
// str and bytes are a u32 length and the bytes. flagFull says the record is the whole state
// relative to the base (the first record, and a compaction); the others are steps on top.
const (
	recMagic   = "SRJ1"
	recVersion = 1
	frameHead  = 12
	// maxRecord bounds one record (a compaction of an 8K field's height, every channel and the
	// holes stays far below it); a length above it is damage, not a record.
	maxRecord = 1 << 36
)

const (
	flagFull     = 1 << 0 // the whole state relative to the base
	flagStack    = 1 << 1 // the record carries the stack (stack.yaml bytes)
	flagNoStack  = 1 << 2 // the landscape has no stack (baked weights)
	flagChannels = 1 << 3 // the record carries the channel list
)

// Target names a grid blocks are written to: "" the height, Holes the holes (1 = no ground),
// else a channel name (channel names never contain ':').
const Holes = ":holes"

// BlockSize is the edge in height texels of the blocks the journal stores (the undo's blocks).
const BlockSize = 64

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// Channel is one field channel of the document and whether it starts from zeros rather than from
// the base's grid of that name (a mask made after the base, or removed and made again).
type Channel struct {
	Name  string
	Fresh bool
}

// Block is a rectangle of one grid, row by row.
type Block struct {
	Target     string
	X, Y, W, H int
	Data       []float32
}

// Record is one step of the document as the journal stores it.
type Record struct {
	Time time.Time
	// Steps counts the history steps since the landscape was opened (undo and redo count);
	// Position is where the history stood (the steps done, dropped ones included).
	Steps, Position int
	Label           string
	Full            bool
	// HasStack says Stack is the document's stack from this record on (NoStack: it has none).
	HasStack bool
	NoStack  bool
	Stack    []byte
	// HasChannels says Channels is the channel list from this record on.
	HasChannels bool
	Channels    []Channel
	Blocks      []Block
}

// encode frames r as one journal record.
func (r *Record) encode() ([]byte, error) {
	n := 1 + 8 + 4 + 4 + 1 + 4 + len(r.Label) + 4 + len(r.Stack) + 4
	for _, c := range r.Channels {
		n += 5 + len(c.Name)
	}
	for _, b := range r.Blocks {
		if b.W <= 0 || b.H <= 0 || len(b.Data) != b.W*b.H || b.X < 0 || b.Y < 0 {
			return nil, fmt.Errorf("recovery: block %q at %d,%d: %d values for %d×%d", b.Target, b.X, b.Y, len(b.Data), b.W, b.H)
		}
		n += 4 + len(b.Target) + 16 + 4*len(b.Data)
	}
	if r.Steps < 0 || r.Position < 0 || r.Steps > math.MaxUint32 || r.Position > math.MaxUint32 {
		return nil, fmt.Errorf("recovery: step counts %d, %d out of range", r.Steps, r.Position)
	}
	buf := make([]byte, frameHead, frameHead+n)
	buf = append(buf, recVersion)
	buf = binary.LittleEndian.AppendUint64(buf, uint64(r.Time.UnixNano()))
	buf = binary.LittleEndian.AppendUint32(buf, uint32(r.Steps))
	buf = binary.LittleEndian.AppendUint32(buf, uint32(r.Position))
	var flags byte
	if r.Full {
		flags |= flagFull
	}
	if r.HasStack {
		flags |= flagStack
		if r.NoStack {
			flags |= flagNoStack
		}
	}
	if r.HasChannels {
		flags |= flagChannels
	}
	buf = append(buf, flags)
	buf = appendStr(buf, r.Label)
	if r.HasStack {
		buf = appendStr(buf, string(r.Stack))
	}
	if r.HasChannels {
		buf = binary.LittleEndian.AppendUint32(buf, uint32(len(r.Channels)))
		for _, c := range r.Channels {
			buf = appendStr(buf, c.Name)
			if c.Fresh {
				buf = append(buf, 1)
			} else {
				buf = append(buf, 0)
			}
		}
	}
	buf = binary.LittleEndian.AppendUint32(buf, uint32(len(r.Blocks)))
	for _, b := range r.Blocks {
		buf = appendStr(buf, b.Target)
		for _, v := range []int{b.X, b.Y, b.W, b.H} {
			buf = binary.LittleEndian.AppendUint32(buf, uint32(v))
		}
		for _, v := range b.Data {
			buf = binary.LittleEndian.AppendUint32(buf, math.Float32bits(v))
		}
	}
	payload := buf[frameHead:]
	copy(buf, recMagic)
	binary.LittleEndian.PutUint32(buf[4:], uint32(len(payload)))
	binary.LittleEndian.PutUint32(buf[8:], crc32.Checksum(payload, castagnoli))
	return buf, nil
}

func appendStr(b []byte, s string) []byte {
	b = binary.LittleEndian.AppendUint32(b, uint32(len(s)))
	return append(b, s...)
}

// errTorn says the journal ends in a record that is not whole (a kill during an append).
var errTorn = errors.New("torn record")

// readRecord reads the next record of r: io.EOF at a clean end, errTorn (wrapped) where the rest
// is not a whole, valid record. headerOnly skips decoding the blocks and the stack.
func readRecord(r *bufio.Reader, headerOnly bool) (*Record, int64, error) {
	var head [frameHead]byte
	n, err := io.ReadFull(r, head[:])
	if err == io.EOF {
		return nil, 0, io.EOF
	}
	if err != nil {
		return nil, 0, fmt.Errorf("%w: %d bytes of a record's frame", errTorn, n)
	}
	if string(head[:4]) != recMagic {
		return nil, 0, fmt.Errorf("%w: no record marker", errTorn)
	}
	size := binary.LittleEndian.Uint32(head[4:])
	if int64(size) > maxRecord {
		return nil, 0, fmt.Errorf("%w: record length %d", errTorn, size)
	}
	payload := make([]byte, size)
	if n, err := io.ReadFull(r, payload); err != nil {
		return nil, 0, fmt.Errorf("%w: %d of the record's %d bytes", errTorn, n, size)
	}
	if crc32.Checksum(payload, castagnoli) != binary.LittleEndian.Uint32(head[8:]) {
		return nil, 0, fmt.Errorf("%w: checksum mismatch", errTorn)
	}
	rec, err := decodePayload(payload, headerOnly)
	if err != nil {
		return nil, 0, fmt.Errorf("%w: %v", errTorn, err)
	}
	return rec, int64(frameHead) + int64(size), nil
}

// decoder reads a payload; the first short read sticks in err.
type decoder struct {
	b   []byte
	err error
}

func (d *decoder) take(n int) []byte {
	if d.err != nil || n < 0 || n > len(d.b) {
		if d.err == nil {
			d.err = errors.New("payload too short")
		}
		return nil
	}
	out := d.b[:n]
	d.b = d.b[n:]
	return out
}

func (d *decoder) u8() byte {
	if b := d.take(1); b != nil {
		return b[0]
	}
	return 0
}

func (d *decoder) u32() uint32 {
	if b := d.take(4); b != nil {
		return binary.LittleEndian.Uint32(b)
	}
	return 0
}

func (d *decoder) str() string { return string(d.take(int(d.u32()))) }

func decodePayload(p []byte, headerOnly bool) (*Record, error) {
	d := &decoder{b: p}
	if v := d.u8(); v != recVersion && d.err == nil {
		return nil, fmt.Errorf("record version %d (this build reads %d)", v, recVersion)
	}
	r := &Record{}
	if b := d.take(8); b != nil {
		r.Time = time.Unix(0, int64(binary.LittleEndian.Uint64(b)))
	}
	r.Steps, r.Position = int(d.u32()), int(d.u32())
	flags := d.u8()
	r.Full = flags&flagFull != 0
	r.Label = d.str()
	if flags&flagStack != 0 {
		r.HasStack, r.NoStack = true, flags&flagNoStack != 0
		r.Stack = []byte(d.str())
	}
	if headerOnly {
		return r, d.err
	}
	if flags&flagChannels != 0 {
		r.HasChannels = true
		n := d.u32()
		for i := uint32(0); i < n && d.err == nil; i++ {
			r.Channels = append(r.Channels, Channel{Name: d.str(), Fresh: d.u8() != 0})
		}
	}
	nb := d.u32()
	for i := uint32(0); i < nb && d.err == nil; i++ {
		b := Block{Target: d.str()}
		b.X, b.Y, b.W, b.H = int(d.u32()), int(d.u32()), int(d.u32()), int(d.u32())
		if b.W <= 0 || b.H <= 0 || b.W > 1<<20 || b.H > 1<<20 || 4*b.W*b.H > len(d.b) {
			if d.err == nil {
				d.err = fmt.Errorf("block %q of %d×%d does not fit the record", b.Target, b.W, b.H)
			}
			break
		}
		raw := d.take(4 * b.W * b.H)
		b.Data = make([]float32, b.W*b.H)
		for k := range b.Data {
			b.Data[k] = math.Float32frombits(binary.LittleEndian.Uint32(raw[4*k:]))
		}
		r.Blocks = append(r.Blocks, b)
	}
	if d.err == nil && len(d.b) != 0 {
		d.err = fmt.Errorf("%d bytes after the record's blocks", len(d.b))
	}
	return r, d.err
}
