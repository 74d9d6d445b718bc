package session

import (
	"bytes"
	"fmt"
	"image"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/fsnotify/fsnotify"

	"strata/field"
	"strata/landscape"
	"strata/stack"
)

// debounce is how long the watcher waits after the last event of a burst before reloading:
// editors and bakes write a file in several steps.
const debounce = 300 * time.Millisecond

// watcher follows the files a landscape came from — its container (stack.yaml, height, holes,
// channels) or the heightmap it was made from — and reloads what another program changed, as one
// undoable step, re-evaluating only the tiles whose data changed. Our own saves are not reloads.
type watcher struct {
	s  *Session
	fw *fsnotify.Watcher

	mu       sync.Mutex
	timer    *time.Timer
	saving   map[string]bool
	savedAt  map[string]time.Time
	baseline map[string]fileStamp // what the landscape was read from, by file
	closed   bool
	// judged, when set (tests), hears each burst fire has judged: "saving" (our save still under
	// way: looked at again later), "own save", or "done" (the sources compared, changed ones
	// reloaded) — so a test waits for the verdict instead of sleeping past the debounce.
	judged func(verdict string)
}

// fileStamp identifies a file's content cheaply: saves replace files, so size and time change.
type fileStamp struct {
	size int64
	mod  time.Time
}

// Watch starts following the landscape's files (and those of every landscape opened later).
func (s *Session) Watch() error {
	fw, err := fsnotify.NewWatcher()
	if err != nil {
		return fmt.Errorf("session: watch: %w", err)
	}
	w := &watcher{s: s, fw: fw, saving: map[string]bool{}, savedAt: map[string]time.Time{}}
	s.watch = w
	go w.loop()
	w.refresh()
	return nil
}

func (w *watcher) close() {
	w.mu.Lock()
	w.closed = true
	if w.timer != nil {
		w.timer.Stop()
	}
	w.mu.Unlock()
	w.fw.Close()
}

// ownSave brackets one of our own saves of path: events for it are ignored until a moment after.
func (w *watcher) ownSave(path string, on bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	path = filepath.Clean(path)
	w.saving[path] = on
	if !on {
		w.savedAt[path] = time.Now()
	}
}

// watched is what to follow: each source with the folders whose events concern it.
func (w *watcher) sources() []string {
	w.s.mu.Lock()
	defer w.s.mu.Unlock()
	return append([]string(nil), w.s.doc.sources...)
}

// refresh (re)adds the watches and records the files' stamps as the new baseline (after an open
// or a save, and after a container was swapped in, which replaces its folder).
func (w *watcher) refresh() {
	for _, p := range w.fw.WatchList() {
		w.fw.Remove(p)
	}
	base := map[string]fileStamp{}
	for _, src := range w.sources() {
		w.fw.Add(filepath.Dir(src))
		if fi, err := os.Stat(src); err == nil && fi.IsDir() {
			w.fw.Add(src)
			for _, f := range containerFiles(src) {
				if st, ok := stamp(f); ok {
					base[f] = st
				}
			}
		} else if st, ok := stamp(src); ok {
			base[src] = st
		}
	}
	w.mu.Lock()
	w.baseline = base
	w.mu.Unlock()
}

func stamp(p string) (fileStamp, bool) {
	fi, err := os.Stat(p)
	if err != nil {
		return fileStamp{}, false
	}
	return fileStamp{fi.Size(), fi.ModTime()}, true
}

// containerFiles lists the payload files of a container that an edit can come from.
func containerFiles(dir string) []string {
	out := []string{filepath.Join(dir, "terrain.yaml"), filepath.Join(dir, "stack.yaml")}
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		if e.IsDir() && strings.HasSuffix(e.Name(), ".texture") {
			for _, f := range []string{"data.exr", "data.png"} {
				out = append(out, filepath.Join(dir, e.Name(), f))
			}
		}
	}
	return out
}

func (w *watcher) loop() {
	for {
		select {
		case ev, ok := <-w.fw.Events:
			if !ok {
				return
			}
			if w.concerns(ev.Name) {
				w.schedule()
			}
		case err, ok := <-w.fw.Errors:
			if !ok {
				return
			}
			w.s.emit(Event{Kind: EventError, Err: fmt.Errorf("watching files: %w", err)})
		}
	}
}

// concerns reports whether an event's path is one of the sources or inside one.
func (w *watcher) concerns(name string) bool {
	name = filepath.Clean(name)
	for _, src := range w.sources() {
		src = filepath.Clean(src)
		if name == src || strings.HasPrefix(name, src+string(filepath.Separator)) {
			return true
		}
		// A container is swapped in by renaming its sibling .NAME.new over it.
		if filepath.Dir(name) == filepath.Dir(src) && strings.HasPrefix(filepath.Base(name), "."+filepath.Base(src)+".") {
			return true
		}
	}
	return false
}

func (w *watcher) schedule() {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed {
		return
	}
	if w.timer == nil {
		w.timer = time.AfterFunc(debounce, w.fire)
	} else {
		w.timer.Reset(debounce)
	}
}

// fire reloads after a burst, unless it was our own save.
func (w *watcher) fire() {
	srcs := w.sources()
	w.mu.Lock()
	judged := w.judged
	for _, src := range srcs {
		src = filepath.Clean(src)
		if w.saving[src] {
			w.mu.Unlock()
			w.schedule() // still saving: look again once it is done
			if judged != nil {
				judged("saving")
			}
			return
		}
		if t, ok := w.savedAt[src]; ok && time.Since(t) < 2*debounce {
			delete(w.savedAt, src)
			w.mu.Unlock()
			w.refresh() // the save replaced the folder: watch the new one
			if judged != nil {
				judged("own save")
			}
			return
		}
	}
	base := w.baseline
	w.mu.Unlock()
	if judged != nil {
		defer judged("done")
	}
	for _, src := range srcs {
		changed := false
		if fi, err := os.Stat(src); err == nil && fi.IsDir() {
			for _, f := range containerFiles(src) {
				st, ok := stamp(f)
				if old, had := base[f]; ok != had || (ok && st != old) {
					changed = true
				}
			}
		} else {
			st, ok := stamp(src)
			old, had := base[src]
			changed = ok != had || (ok && st != old)
		}
		if !changed {
			continue
		}
		if err := w.s.reload(src); err != nil {
			w.s.emit(Event{Kind: EventError, Err: fmt.Errorf("%s changed on disk and could not be reloaded (keeping what you have): %w", src, err)})
			continue
		}
	}
	w.refresh()
}

// reload reads a changed source and applies what differs from the landscape as one undoable step.
func (s *Session) reload(src string) error {
	s.mu.Lock()
	imp := s.doc.heightImport
	cur := s.doc.stack
	s.mu.Unlock()
	var (
		newStack *stack.Stack
		height   *field.Grid
		chans    map[string]*field.Grid
		holes    []bool
		isCont   bool
	)
	if fi, err := os.Stat(src); err != nil {
		return err
	} else if fi.IsDir() {
		l, err := landscape.Open(src)
		if err != nil {
			return err
		}
		isCont = true
		if l.Stack != nil {
			absoluteTextures(l.Stack, src)
			if cur == nil || !stacksEqual(cur, l.Stack) {
				newStack = l.Stack
			}
		}
		height, chans, holes = l.Field.Height, l.Field.Channels, l.Holes
	} else {
		o := HeightmapOptions{}
		if imp != nil {
			o = *imp
		}
		f, err := landscape.LoadField(src, o.Import, o.Size)
		if err != nil {
			return err
		}
		height = f.Height
	}
	var recs []*strokeRec
	var added []*channelOp
	s.fmu.RLock()
	l := s.land
	if height.W != l.Field.Height.W || height.H != l.Field.Height.H {
		s.fmu.RUnlock()
		return fmt.Errorf("the height is now %d×%d, the landscape's %d×%d: open it again to take the new size", height.W, height.H, l.Field.Height.W, l.Field.Height.H)
	}
	if r := diffBlocks("", l.Field.Height.Data, height.Data, height.W, height.H); r != nil {
		recs = append(recs, r)
	}
	if isCont {
		for name, g := range chans {
			old := l.Field.Channels[name]
			if old == nil {
				added = append(added, &channelOp{name: name, grid: g})
				continue
			}
			if r := diffBlocks(name, old.Data, g.Data, g.W, g.H); r != nil {
				recs = append(recs, r)
			}
		}
		if r := diffBlocks(HolesTarget, boolsToFloats(l.Holes, len(height.Data)), boolsToFloats(holes, len(height.Data)), height.W, height.H); r != nil {
			recs = append(recs, r)
		}
	}
	s.fmu.RUnlock()
	if newStack == nil && len(recs) == 0 && len(added) == 0 {
		return nil
	}
	if newStack != nil {
		have := map[string]bool{}
		for _, c := range s.Channels() {
			have[c] = true
		}
		for _, a := range added {
			have[a.name] = true
		}
		if _, err := landscape.CheckStack(newStack, filepath.Join(src, "stack.yaml")); err != nil {
			return err
		}
		for _, u := range newStack.ChannelUses() { // flow is routed from the height, not stored
			if !have[u.Channel] {
				return fmt.Errorf("stack.yaml reads channel %q, which the landscape does not have", u.Channel)
			}
		}
	}
	op := &reloadOp{name: "Reload " + filepath.Base(src), recs: recs, added: added}
	s.mu.Lock()
	if s.doc.baked && newStack != nil {
		newStack = nil
	}
	if newStack != nil {
		op.stack = &stackOp{name: op.name, before: s.doc.stack, after: newStack}
	}
	s.hist.push(op)
	op.redo(s)
	s.changed()
	s.mu.Unlock()
	s.emit(Event{Kind: EventReloaded, Message: fmt.Sprintf("%s changed on disk: reloaded (Undo puts back what you had)", filepath.Base(src))})
	s.emit(Event{Kind: EventDocument})
	return nil
}

// reloadOp is one reload: a new stack, changed blocks of the height, channels and holes, and
// channels that appeared. An erosion (Session.Erode) is one too, with no stack.
type reloadOp struct {
	name  string
	stack *stackOp
	recs  []*strokeRec
	added []*channelOp
}

func (o *reloadOp) label() string { return o.name }
func (o *reloadOp) undo(s *Session) {
	if o.stack != nil {
		o.stack.undo(s)
	}
	for _, r := range o.recs {
		s.pipe.queue(&restoreOp{rec: r, after: false})
	}
	for _, a := range o.added {
		a.undo(s)
	}
}
func (o *reloadOp) redo(s *Session) {
	for _, a := range o.added {
		a.redo(s)
	}
	for _, r := range o.recs {
		s.pipe.queue(&restoreOp{rec: r, after: true})
	}
	if o.stack != nil {
		o.stack.redo(s)
	}
}
func (o *reloadOp) size() int {
	n := 4096
	for _, r := range o.recs {
		for _, b := range r.blocks {
			n += 4 * (len(b.before) + len(b.after))
		}
	}
	for _, a := range o.added {
		n += a.size()
	}
	return n
}

// diffBlocks returns a record of the undo blocks where a and b differ (nil when none do).
func diffBlocks(target string, a, b []float32, w, h int) *strokeRec {
	rec := &strokeRec{brush: Brush{Target: target}}
	for bj := 0; bj*undoBlock < h; bj++ {
		for bi := 0; bi*undoBlock < w; bi++ {
			r := blockRect(image.Pt(bi, bj), w, h)
			same := true
			for j := r.Min.Y; j < r.Max.Y && same; j++ {
				same = floatsEqual(a[j*w+r.Min.X:j*w+r.Max.X], b[j*w+r.Min.X:j*w+r.Max.X])
			}
			if same {
				continue
			}
			get := func(src []float32) func(int) float32 { return func(k int) float32 { return src[k] } }
			rec.blocks = append(rec.blocks, newBlock(r, readBlock(r, w, get(a)), readBlock(r, w, get(b))))
		}
	}
	if len(rec.blocks) == 0 {
		return nil
	}
	rec.countBlocks()
	return rec
}

func floatsEqual(a, b []float32) bool {
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func boolsToFloats(b []bool, n int) []float32 {
	out := make([]float32, n)
	for i := range b {
		if b[i] {
			out[i] = 1
		}
	}
	return out
}

func stacksEqual(a, b *stack.Stack) bool {
	x, err1 := stack.Marshal(a)
	y, err2 := stack.Marshal(b)
	return err1 == nil && err2 == nil && bytes.Equal(x, y)
}
