// Package recovery keeps the editor's recovery copies: while a landscape is open, the session
// writes what it would need to rebuild the document after a crash — where the landscape came
// from (its base: a container, a heightmap, the sample, a new flat ground), then per history
// step the stack, the channel list and the 64² blocks of the height, channels and holes that
// changed — into a folder of its own under $XDG_STATE_HOME/strata/recovery (docs/design.md
// "Recovery"). Every write is atomic: the journal's records are length-framed and checksummed
// and appended with an fsync, a compaction replaces the journal by rename, so a kill at any
// moment leaves the previous copy readable. A lock file held by the live session tells it from a
// dead one. `strata recover` and the editor's Restore read the copies back into a landscape.
package recovery

import (
	"bufio"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"strata/field"
	"strata/internal/safeio"
)

// Files of a recovery copy's folder.
const (
	metaFile    = "meta.json"
	journalFile = "journal"
	lockFile    = "lock"
)

// Base kinds: where a landscape came from.
const (
	BaseContainer = "container" // a terrainData container (Path)
	BaseHeightmap = "heightmap" // a heightmap (Path, Import, Size) with the starter stack
	BaseSample    = "sample"    // the built-in dunes sample (Texels: its side, 0 the default)
	BaseFlat      = "flat"      // a flat ground (Size, FlatTexels, FlatHeight)
	BaseInline    = "inline"    // nothing to reload: the journal holds the whole field
)

// Base is the source a landscape was opened from, enough to open it again.
type Base struct {
	Kind string `json:"kind"`
	Path string `json:"path,omitempty"`
	// Import and Size are how a heightmap was read (Size nil: one metre per texel).
	Import *field.ImportOptions `json:"import,omitempty"`
	Size   *[2]float64          `json:"size,omitempty"`
	// Texels is the sample's side (0: field.DunesTexels).
	Texels int `json:"texels,omitempty"`
	// FlatSize, FlatTexels and FlatHeight are a flat ground's extent, grid and height.
	FlatSize   [2]float64 `json:"flatSize,omitempty"`
	FlatTexels [2]int     `json:"flatTexels,omitempty"`
	FlatHeight float64    `json:"flatHeight,omitempty"`
}

// Describe is the base in words ("sample dunes 256²", "container /x/valley.terrainData").
func (b Base) Describe() string {
	switch b.Kind {
	case BaseContainer, BaseHeightmap:
		return b.Kind + " " + b.Path
	case BaseSample:
		if b.Texels > 0 {
			return fmt.Sprintf("sample dunes %d²", b.Texels)
		}
		return "sample dunes"
	case BaseFlat:
		return fmt.Sprintf("new flat %gx%g m", b.FlatSize[0], b.FlatSize[1])
	case BaseInline:
		return "new (kept whole in the copy)"
	}
	return fmt.Sprintf("a base of unknown kind %q", b.Kind)
}

// Meta describes a recovery copy; it is written once, when the copy is made.
type Meta struct {
	Version int       `json:"version"`
	ID      string    `json:"id"`
	Name    string    `json:"name"` // the landscape's name, as the window title shows it
	Base    Base      `json:"base"`
	Created time.Time `json:"created"`
	PID     int       `json:"pid"`
	// The field's height grid and placement and the weights' resolution (0: the height grid),
	// checked against the base when the copy is read back.
	Width      int        `json:"width"`
	Height     int        `json:"height"`
	Extent     [2]float64 `json:"extent"`
	Origin     [2]float64 `json:"origin"`
	Resolution float64    `json:"resolution,omitempty"`
	// Channels are the base's channels (the journal's channel lists are relative to them).
	Channels []string `json:"channels,omitempty"`
}

// Root is the folder of the recovery copies: $XDG_STATE_HOME/strata/recovery, or
// ~/.local/state/strata/recovery when XDG_STATE_HOME is unset (or not absolute, as XDG says).
func Root() (string, error) {
	if d := os.Getenv("XDG_STATE_HOME"); filepath.IsAbs(d) {
		return filepath.Join(d, "strata", "recovery"), nil
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", fmt.Errorf("recovery: no folder for recovery copies: XDG_STATE_HOME is unset and %v", err)
	}
	return filepath.Join(home, ".local", "state", "strata", "recovery"), nil
}

// Writer is a live recovery copy: its folder, locked by this process, and its journal.
type Writer struct {
	dir  string
	lock *safeio.Lock
	j    *os.File
	size int64 // bytes of valid records in the journal
	// records counts the records since the last full one.
	records int
}

// newID is a copy's folder name: its creation time (sorts by age), the pid and a random tail.
func newID(now time.Time) string {
	var r [3]byte
	rand.Read(r[:])
	return fmt.Sprintf("%s-%d-%s", now.UTC().Format("20060102T150405Z"), os.Getpid(), hex.EncodeToString(r[:]))
}

// Create makes a new recovery copy under root for m (ID, PID and Created are filled in) and
// locks it. The first record appended must be Full.
func Create(root string, m Meta) (*Writer, error) {
	if err := os.MkdirAll(root, 0o700); err != nil {
		return nil, fmt.Errorf("recovery: making %s: %w", root, err)
	}
	m.Version = 1
	if m.Created.IsZero() {
		m.Created = time.Now()
	}
	m.ID, m.PID = newID(m.Created), os.Getpid()
	dir := filepath.Join(root, m.ID)
	if err := os.Mkdir(dir, 0o700); err != nil {
		return nil, fmt.Errorf("recovery: making %s: %w", dir, err)
	}
	lk, held, err := safeio.TryLockExclusive(filepath.Join(dir, lockFile))
	if err != nil || held {
		os.RemoveAll(dir)
		if err == nil {
			err = errors.New("locked by another process")
		}
		return nil, fmt.Errorf("recovery: %s: %w", dir, err)
	}
	w := &Writer{dir: dir, lock: lk}
	if err := w.writePID(); err != nil {
		w.Remove()
		return nil, err
	}
	data, err := json.MarshalIndent(m, "", "  ")
	if err == nil {
		err = writeAtomic(filepath.Join(dir, metaFile), data)
	}
	if err != nil {
		w.Remove()
		return nil, fmt.Errorf("recovery: %s: %w", filepath.Join(dir, metaFile), err)
	}
	return w, nil
}

// writePID writes this process's id into the lock file (for people; the lock is what counts).
func (w *Writer) writePID() error {
	f := w.lock.File()
	if err := f.Truncate(0); err != nil {
		return fmt.Errorf("recovery: %s: %w", f.Name(), err)
	}
	if _, err := f.WriteAt([]byte(strconv.Itoa(os.Getpid())+"\n"), 0); err != nil {
		return fmt.Errorf("recovery: %s: %w", f.Name(), err)
	}
	return nil
}

// writeAtomic writes data to path by a temporary file renamed over it, flushed first.
func writeAtomic(path string, data []byte) error {
	f, err := safeio.Create(path)
	if err != nil {
		return err
	}
	defer f.Abort()
	if _, err := f.Write(data); err != nil {
		return err
	}
	return f.Commit()
}

// Dir is the copy's folder; ID its name.
func (w *Writer) Dir() string { return w.dir }

// ID is the copy's name (what `strata recover ID` takes).
func (w *Writer) ID() string { return filepath.Base(w.dir) }

// Size is the journal's length in bytes.
func (w *Writer) Size() int64 { return w.size }

// Records counts the records appended since the journal was last written whole.
func (w *Writer) Records() int { return w.records }

// Append makes r durable: a Full record replaces the journal (written beside it, flushed, renamed
// over it), any other is appended and flushed. On an error the journal is as it was before.
func (w *Writer) Append(r *Record) error {
	data, err := r.encode()
	if err != nil {
		return err
	}
	path := filepath.Join(w.dir, journalFile)
	if r.Full || w.j == nil {
		if !r.Full {
			return fmt.Errorf("recovery: %s: the first record must be a whole state", path)
		}
		if err := writeAtomic(path, data); err != nil {
			return fmt.Errorf("recovery: %w", err)
		}
		j, err := os.OpenFile(path, os.O_RDWR, 0)
		if err != nil {
			return fmt.Errorf("recovery: %w", err)
		}
		if w.j != nil {
			w.j.Close()
		}
		w.j, w.size, w.records = j, int64(len(data)), 1
		return nil
	}
	if _, err := w.j.WriteAt(data, w.size); err != nil {
		w.j.Truncate(w.size)
		return fmt.Errorf("recovery: appending to %s: %w", path, err)
	}
	if err := w.j.Sync(); err != nil {
		w.j.Truncate(w.size)
		return fmt.Errorf("recovery: flushing %s: %w", path, err)
	}
	w.size += int64(len(data))
	w.records++
	return nil
}

// Release closes the copy and unlocks it, leaving it on disk (a dead session's copy, as far as
// anyone else can tell).
func (w *Writer) Release() {
	if w == nil {
		return
	}
	if w.j != nil {
		w.j.Close()
		w.j = nil
	}
	w.lock.Unlock()
}

// Remove deletes the copy (a clean close, or a save with nothing after it).
func (w *Writer) Remove() error {
	if w == nil {
		return nil
	}
	if w.j != nil {
		w.j.Close()
		w.j = nil
	}
	err := os.RemoveAll(w.dir)
	w.lock.Unlock()
	if err != nil {
		return fmt.Errorf("recovery: removing %s: %w", w.dir, err)
	}
	return nil
}

// BlockKey names a block of the journal: its grid and its corner.
type BlockKey struct {
	Target string
	X, Y   int
}

// State is a recovery copy read back: its meta and the journal replayed.
type State struct {
	Meta Meta
	Dir  string
	// Records counts the journal's valid records; Torn says why the bytes after them were
	// dropped ("" when the journal ends cleanly).
	Records int
	Valid   int64
	Torn    string
	// Last is the newest record's header (time, steps, position, label).
	Last Record
	// HasStack says Stack (stack.yaml) or NoStack replaced the base's; Channels is the channel
	// list (nil before any record set it: the base's).
	HasStack bool
	NoStack  bool
	Stack    []byte
	Channels []Channel
	Blocks   map[BlockKey]Block
}

// Keys lists the blocks of the state, sorted (by target, then row, then column).
func (s *State) Keys() []BlockKey {
	keys := make([]BlockKey, 0, len(s.Blocks))
	for k := range s.Blocks {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(a, b int) bool {
		ka, kb := keys[a], keys[b]
		if ka.Target != kb.Target {
			return ka.Target < kb.Target
		}
		if ka.Y != kb.Y {
			return ka.Y < kb.Y
		}
		return ka.X < kb.X
	})
	return keys
}

// apply replays one record onto the state.
func (s *State) apply(r *Record) {
	if r.Full {
		s.Blocks = map[BlockKey]Block{}
		s.HasStack, s.NoStack, s.Stack = false, false, nil
		s.Channels = nil
	}
	if r.HasStack {
		s.HasStack, s.NoStack, s.Stack = true, r.NoStack, r.Stack
	}
	if r.HasChannels {
		old := map[string]bool{}
		for _, c := range s.channels() {
			old[c.Name] = true
		}
		keep := map[string]bool{"": true, Holes: true}
		for _, c := range r.Channels {
			keep[c.Name] = r.Full || (old[c.Name] && !c.Fresh)
		}
		for k := range s.Blocks {
			if !keep[k.Target] {
				delete(s.Blocks, k)
			}
		}
		s.Channels = append([]Channel(nil), r.Channels...)
	}
	for _, b := range r.Blocks {
		s.Blocks[BlockKey{b.Target, b.X, b.Y}] = b
	}
	s.Records++
	s.Last = Record{Time: r.Time, Steps: r.Steps, Position: r.Position, Label: r.Label}
}

// channels is the channel list in force: the journal's, else the base's.
func (s *State) channels() []Channel {
	if s.Channels != nil {
		return s.Channels
	}
	out := make([]Channel, len(s.Meta.Channels))
	for i, n := range s.Meta.Channels {
		out[i] = Channel{Name: n}
	}
	return out
}

// maxMeta bounds meta.json.
const maxMeta = 1 << 20

// readMeta reads a copy's meta.json.
func readMeta(dir string) (Meta, error) {
	var m Meta
	path := filepath.Join(dir, metaFile)
	data, err := safeio.ReadFile(path, maxMeta)
	if err != nil {
		return m, fmt.Errorf("recovery: %w", err)
	}
	if err := json.Unmarshal(data, &m); err != nil {
		return m, fmt.Errorf("recovery: %s: %v", path, err)
	}
	if m.Version != 1 {
		return m, fmt.Errorf("recovery: %s: version %d (this build reads 1)", path, m.Version)
	}
	return m, nil
}

// Read reads the recovery copy in dir: its meta and its journal replayed up to the last whole
// record. A journal with no whole record is an error.
func Read(dir string) (*State, error) { return read(dir, false) }

func read(dir string, headerOnly bool) (*State, error) {
	m, err := readMeta(dir)
	if err != nil {
		return nil, err
	}
	s := &State{Meta: m, Dir: dir, Blocks: map[BlockKey]Block{}}
	path := filepath.Join(dir, journalFile)
	f, _, err := safeio.Open(path)
	if err != nil {
		return nil, fmt.Errorf("recovery: %w", err)
	}
	defer f.Close()
	br := bufio.NewReaderSize(f, 1<<20)
	for {
		r, n, err := readRecord(br, headerOnly)
		if err == io.EOF {
			break
		}
		if err != nil {
			s.Torn = fmt.Sprintf("%s: the bytes after offset %d are not a whole record (%v): dropped", path, s.Valid, err)
			break
		}
		if s.Records == 0 && !r.Full {
			return nil, fmt.Errorf("recovery: %s: the first record is not a whole state", path)
		}
		if headerOnly {
			s.Records++
			s.Last = Record{Time: r.Time, Steps: r.Steps, Position: r.Position, Label: r.Label}
		} else {
			s.apply(r)
		}
		s.Valid += n
	}
	if s.Records == 0 {
		return nil, fmt.Errorf("recovery: %s holds no whole record", path)
	}
	return s, nil
}

// Entry is one recovery copy as List finds it.
type Entry struct {
	ID  string
	Dir string
	// Live says the session that writes it is still running (its lock is held).
	Live bool
	Meta Meta
	// Last is the newest step's time, Steps the history steps it counts, Label the step's name.
	Last  time.Time
	Steps int
	Label string
	// Err says why the copy cannot be read (it is listed, and left alone).
	Err error
}

// List finds the recovery copies under root, newest step first. Copies made and killed before
// their first step holds no record are left out (there is nothing to recover).
func List(root string) ([]Entry, error) {
	ents, err := os.ReadDir(root)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("recovery: %w", err)
	}
	var out []Entry
	for _, de := range ents {
		if !de.IsDir() || strings.HasPrefix(de.Name(), ".") {
			continue
		}
		dir := filepath.Join(root, de.Name())
		e := Entry{ID: de.Name(), Dir: dir, Live: Live(dir)}
		s, err := read(dir, true)
		if err != nil {
			if _, jerr := os.Stat(filepath.Join(dir, journalFile)); errors.Is(jerr, os.ErrNotExist) {
				continue
			}
			e.Err = err
		} else {
			e.Meta, e.Last, e.Steps, e.Label = s.Meta, s.Last.Time, s.Last.Steps, s.Last.Label
		}
		out = append(out, e)
	}
	sort.SliceStable(out, func(a, b int) bool { return out[a].Last.After(out[b].Last) })
	return out, nil
}

// Live reports whether a session holds the copy in dir (its lock is taken).
func Live(dir string) bool {
	lk, held, err := safeio.TryLockExclusive(filepath.Join(dir, lockFile))
	if err != nil {
		return false
	}
	lk.Unlock()
	return held
}

// Adopt takes over the dead copy id under root (Restore: the restored session goes on writing
// it): it is locked, and its state read. A live copy is refused.
func Adopt(root, id string) (*Writer, *State, error) {
	dir, err := copyDir(root, id)
	if err != nil {
		return nil, nil, err
	}
	lk, held, err := safeio.TryLockExclusive(filepath.Join(dir, lockFile))
	if err != nil {
		return nil, nil, fmt.Errorf("recovery: %w", err)
	}
	if held {
		return nil, nil, fmt.Errorf("recovery: %s is in use by a running editor", dir)
	}
	s, err := Read(dir)
	if err != nil {
		lk.Unlock()
		return nil, nil, err
	}
	w := &Writer{dir: dir, lock: lk, size: s.Valid, records: s.Records}
	if err := w.writePID(); err != nil {
		lk.Unlock()
		return nil, nil, err
	}
	path := filepath.Join(dir, journalFile)
	j, err := os.OpenFile(path, os.O_RDWR, 0)
	if err == nil {
		err = j.Truncate(s.Valid) // a torn tail goes: the next append follows the last whole record
	}
	if err != nil {
		if j != nil {
			j.Close()
		}
		lk.Unlock()
		return nil, nil, fmt.Errorf("recovery: %s: %w", path, err)
	}
	w.j = j
	return w, s, nil
}

// Discard removes the dead copy id under root (a live one is refused).
func Discard(root, id string) error {
	dir, err := copyDir(root, id)
	if err != nil {
		return err
	}
	lk, held, err := safeio.TryLockExclusive(filepath.Join(dir, lockFile))
	if err != nil {
		return fmt.Errorf("recovery: %w", err)
	}
	if held {
		return fmt.Errorf("recovery: %s is in use by a running editor", dir)
	}
	defer lk.Unlock()
	if err := os.RemoveAll(dir); err != nil {
		return fmt.Errorf("recovery: removing %s: %w", dir, err)
	}
	return nil
}

// copyDir is the folder of copy id under root; an id that is not a plain name is refused.
func copyDir(root, id string) (string, error) {
	if id == "" || id != filepath.Base(id) || strings.HasPrefix(id, ".") {
		return "", fmt.Errorf("recovery: %q is not the id of a recovery copy (strata recover --list shows them)", id)
	}
	dir := filepath.Join(root, id)
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		return "", fmt.Errorf("recovery: no recovery copy %q in %s (strata recover --list shows them)", id, root)
	}
	return dir, nil
}
