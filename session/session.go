// Package session is the editor without a display: the open landscape (field, stack, channels,
// holes, populations, path, guid), every edit as an undoable operation with the tiles it dirties,
// and one background pipeline that re-evaluates them on the GPU (or the Go reference, whichever
// is faster here) and keeps the field, the kernels and the viewport resident on one device. The
// Fyne front end (package ui) and `strata bench live` drive the same Session; nothing here
// imports Fyne.
//
// Threading: methods may be called from any goroutine (the UI calls them from its own). The
// document (stack, history, path) changes synchronously under one mutex; field data (painted
// channels, holes, reloaded sources) is written only by the pipeline's worker, which applies
// queued edits between passes, so an evaluation never reads a half-painted tile. Results come
// back through Subscribe as Events, from the worker goroutines.
package session

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"strata/field"
	"strata/gpu"
	"strata/internal/sysmem"
	"strata/landscape"
	"strata/stack"
	"strata/viewport"
)

// Options configure a Session.
type Options struct {
	// Device is the GPU the viewport draws on and the kernels run on; nil opens the best adapter
	// (on a machine without a GPU, Mesa's lavapipe). The session releases only a device it opened.
	Device *gpu.Device
	// Width, Height are the viewport's size in pixels (default 1280×720).
	Width, Height int
	// Evaluator forces the GPU kernels or the Go reference; Auto measures both at open.
	Evaluator Evaluator
	// TileSize is the dirty-tile edge in weights texels (default field.DefaultTileSize).
	TileSize int
	// HistoryBytes bounds the memory undo keeps (default 512 MiB); the oldest steps go first.
	HistoryBytes int
	// Now is the clock (tests); nil = time.Now.
	Now func() time.Time
	// PrepareSample builds the built-in sample's landscape in the background from New on, while
	// the caller opens its window: the editor starting on the sample finds it made when it
	// calls OpenSample (half a second of the 2-core machine's start).
	PrepareSample bool
	// GPUBudget bounds what the session keeps on the device — the field resident for the
	// kernels, the full-resolution weights the populations read, the viewport's atlases — in
	// bytes; 0 = STRATA_GPU_BUDGET, or 8 GiB.
	GPUBudget int64
	// Recovery is the folder of recovery copies (recovery.Root(): the editor's); "" keeps none.
	// While a landscape is open and modified, a copy of it there survives a crash (recovery.go).
	Recovery string
	// OnRecovery hears every write of the recovery copy (tests wait on it), from the session's
	// goroutine; it must not block.
	OnRecovery func(RecoveryInfo)
}

// Evaluator picks what evaluates the stack in the live loop.
type Evaluator int

const (
	Auto Evaluator = iota // the faster on this machine, measured on one tile at open
	GPU                   // the WGSL kernels; weights stay on the GPU and the viewport samples them
	CPU                   // the Go reference; weights are uploaded to the viewport tile by tile
)

func (e Evaluator) String() string {
	switch e {
	case GPU:
		return "GPU"
	case CPU:
		return "Go reference"
	}
	return "auto"
}

// Session is one open landscape and the machinery that shows it.
type Session struct {
	opts   Options
	dev    *gpu.Device
	ownDev bool
	// warm holds the live loop's pipelines, built in the background from New on (a real GPU).
	warm *gpu.Warmup
	view *viewport.Renderer
	now  func() time.Time

	// Lock order. A goroutine that holds more than one of the session's locks takes them in this
	// order (outer first) and never the other way round:
	//
	//	pipeline.passMu → renderLoop.gpuMu → (viewport.Renderer's own) → fmu → mu
	//	leaves, held alone or innermost, taking nothing: subMu, renderLoop.mu, watcher.mu,
	//	benchRun.errMu
	//
	// Where two are held at once (checked against the code):
	//   - loadAfter holds passMu, then takes gpuMu (SetScene, which reads the ground: fmu.R under
	//     the viewport's lock), releases it, then fmu (write), releases it, then mu.
	//   - StartStack and snapshot hold passMu and take fmu, then mu, one after the other.
	//   - the worker's pass holds passMu throughout; lockGPU (evaluateFull, evaluatePage) and
	//     placeGPU take gpuMu under it; applyFieldOps takes fmu (write) under it, then mu.
	//   - the render loop holds gpuMu while the viewport draws; the viewport's lock is then held
	//     and reading the ground takes fmu.R (ground.Lock).
	//   - mu and fmu are never held together: every function releases one before taking the
	//     other (Field, FitCamera, ProbeAt, reload, bindOverlayGrid). Nothing takes gpuMu or
	//     passMu while holding mu or fmu, except below.
	// One exception to the order: bindOverlayGrid holds fmu.R while it calls the viewport
	// (SetDensity takes the viewport's lock), the reverse of a frame's viewport → fmu.R. It cannot
	// deadlock because it runs in the worker's pass under passMu, and fmu's only writers are that
	// same worker and holders of passMu, so no writer can be waiting on fmu to block a frame's
	// RLock meanwhile. Code that adds a writer of fmu outside passMu must change it.
	//
	// subMu guards subs; emit holds it only to copy them, so subscribers run with no lock held.
	subMu sync.Mutex
	subs  []func(Event)

	// mu guards the document (doc, hist, viewSt, version, …) and the pipeline's fields marked
	// "Guarded by Session.mu". Held briefly; nothing else is taken under it.

	mu      sync.Mutex
	doc     document
	hist    history
	viewSt  viewState
	version uint64 // counts document and field changes; frames say which version they show
	// versionAt is when the document reached version (Frame.Made).
	versionAt time.Time
	closed    bool
	// sample is the landscape Options.PrepareSample is building; the first OpenSample takes it.
	sample chan *landscape.Landscape
	// ranges are the lowest and highest value of the height ("") and of each stored channel (a
	// mask's is 0…1 by definition and not kept): computed at open and by the worker after an
	// edit of those grids, so a panel never scans an 8K grid to set a slider.
	ranges map[string][2]float64
	// opens counts the landscapes opened (the channels' ranges computed in the background after
	// an open belong to it alone).
	opens uint64
	// openParts is what the last open's steps took (bench live and bench open print them), the
	// first pass's upload of the field included.
	openParts stepTimes

	// fmu guards the landscape's field data (height, channels, holes) for readers other than
	// the worker; the worker is its only writer and takes it for writing only while applying
	// (open and StartStack swap the landscape under it too, holding passMu). Taken after passMu
	// and gpuMu, never together with mu (the lock order above).
	fmu  sync.RWMutex
	land *landscape.Landscape

	pipe *pipeline
	rend *renderLoop
	// watch is the file watcher, nil until Watch.
	watch *watcher
	// rec keeps the recovery copy (nil when Options.Recovery is ""); recGens counts the
	// recovery bases the session has had (document.recGen).
	rec     *recoverer
	recGens uint64
}

// document is what the panels show: it changes synchronously under Session.mu.
type document struct {
	path     string // container path; "" until saved
	name     string // window title name
	stack    *stack.Stack
	channels []string // field channel names, sorted
	baked    bool     // a container with no stack: weights shown as baked
	modified bool
	// savedAt is where the history stood when the document was opened or last saved, when
	// savedOK: undoing or redoing back to it leaves the document unmodified.
	savedAt mark
	savedOK bool
	sources []string // imported files the landscape came from (watched)
	// heightImport is how the source heightmap was read (a reload reads it the same way).
	heightImport *HeightmapOptions
	loaded       bool
	// world is set for a world's cell (OpenWorldCell); worldWarned once its notice was given.
	world       *WorldCell
	worldWarned bool
	// recBase is where the landscape came from for its recovery copy, recGen which base that is
	// (a new open or a save that made the saved container the base counts up); steps counts
	// the history steps since the open (undo and redo count).
	recBase recoveryBase
	recGen  uint64
	steps   int
}

// New opens the device (unless given) and the viewport; the session has no landscape until one
// of the Open/New methods runs.
func New(ctx context.Context, o Options) (*Session, error) {
	if o.Width <= 0 || o.Height <= 0 {
		o.Width, o.Height = 1280, 720
	}
	if o.TileSize <= 0 {
		o.TileSize = field.DefaultTileSize
	}
	if o.HistoryBytes <= 0 {
		o.HistoryBytes = 512 << 20
	}
	if o.GPUBudget <= 0 {
		if _, err := sysmem.GPUBudget(); err != nil { // before a device is opened for nothing
			return nil, fmt.Errorf("session: %w", err)
		}
	}
	s := &Session{opts: o, dev: o.Device, now: o.Now}
	if o.PrepareSample {
		ch := make(chan *landscape.Landscape, 1)
		go func() { ch <- sampleLandscape() }()
		s.sample = ch
	}
	if s.now == nil {
		s.now = time.Now
	}
	if s.dev == nil {
		d, err := gpu.Open(ctx, gpu.Options{Label: "strata editor"})
		if err != nil {
			return nil, fmt.Errorf("session: %w", err)
		}
		s.dev, s.ownDev = d, true
	}
	if o.GPUBudget <= 0 {
		// On a CPU adapter the device's memory is the process's: it follows STRATA_MEMORY_LIMIT.
		budget := sysmem.GPUBudget
		if s.dev.Info.HostMemory() {
			budget = sysmem.HostGPUBudget
		}
		b, err := budget()
		if err != nil {
			s.Close()
			return nil, fmt.Errorf("session: %w", err)
		}
		o.GPUBudget = int64(b)
		s.opts.GPUBudget = o.GPUBudget
	}
	if !s.dev.Info.HostMemory() && o.Evaluator != CPU {
		// The kernels' pipelines build while the first file is read (gpu.Device.Prewarm).
		s.warm = s.dev.Prewarm()
	}
	v, err := viewport.New(s.dev, o.Width, o.Height)
	if err != nil {
		s.Close()
		return nil, err
	}
	// The viewport's atlases take a share of the budget; the rest is the kernels' (newEvaluators).
	v.SetMemoryBudget(o.GPUBudget)
	s.view = v
	s.hist.limit = o.HistoryBytes
	s.rend = newRenderLoop(s)
	s.pipe = newPipeline(s)
	if o.Recovery != "" {
		s.rec = newRecoverer(s, o.Recovery)
	}
	return s, nil
}

// Close stops the workers and frees the GPU. Safe to call twice.
func (s *Session) Close() {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return
	}
	s.closed = true
	s.mu.Unlock()
	// A clean close: the recovery copy goes (before the pipeline stops: its write takes passMu).
	s.rec.stop()
	if s.watch != nil {
		s.watch.close()
	}
	if s.pipe != nil {
		s.pipe.stop()
	}
	if s.rend != nil {
		s.rend.stop()
	}
	if s.pipe != nil {
		s.pipe.release()
	}
	s.warm.Release()
	s.view.Release()
	if s.ownDev {
		s.dev.Release()
	}
}

// Adapter names the GPU in words.
func (s *Session) Adapter() string { return s.dev.Info.String() }

// Subscribe registers f for every Event. f is called from the session's goroutines and must not
// block (a UI hands the event to its own thread).
func (s *Session) Subscribe(f func(Event)) {
	s.subMu.Lock()
	s.subs = append(s.subs, f)
	s.subMu.Unlock()
}

func (s *Session) emit(e Event) {
	s.subMu.Lock()
	subs := slices.Clone(s.subs)
	s.subMu.Unlock()
	for _, f := range subs {
		f(e)
	}
}

// bumpVersion counts a change to the document or the field. s.mu is held.
func (s *Session) bumpVersion() {
	s.version++
	s.versionAt = s.now()
}

// Version counts every change to the document or the field; a Frame says which version it shows.
func (s *Session) Version() uint64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.version
}

// Stack is the current stack. It is a value: never change it; edit a Clone and hand it to Apply
// or Drag.
func (s *Session) Stack() *stack.Stack {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.doc.stack
}

// Path is the container the landscape was opened from or saved to ("" for a new one).
func (s *Session) Path() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.doc.path
}

// Name is the landscape's name for the window title.
func (s *Session) Name() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.doc.name
}

// Modified reports unsaved changes.
func (s *Session) Modified() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.doc.modified
}

// Baked reports a landscape opened from a container with no stack: its weights are shown as
// baked and cannot be re-evaluated (ConvertToStack starts a stack).
func (s *Session) Baked() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.doc.baked
}

// Loaded reports whether a landscape is open.
func (s *Session) Loaded() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.doc.loaded
}

// Channels lists the field's channels (mask.<name> and stored ones), sorted.
func (s *Session) Channels() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.doc.channels...)
}

// FieldInfo describes the ground for the panels: extent, grids, and the ranges sliders span.
type FieldInfo struct {
	Size, Origin       [2]float64
	HeightW, HeightH   int
	WeightsW, WeightsH int
	Texel              [2]float64 // metres per height texel
	HeightRange        [2]float64 // lowest and highest ground, metres
	// ChannelRange is each channel's lowest and highest stored value.
	ChannelRange map[string][2]float64
}

// Field returns the ground's description. The ranges are kept as the field changes (ranges.go):
// a panel asking for them reads no grid.
func (s *Session) Field() FieldInfo {
	s.fmu.RLock()
	l := s.land
	if l == nil {
		s.fmu.RUnlock()
		return FieldInfo{}
	}
	f := l.Field
	fi := FieldInfo{Size: f.Size, Origin: f.Origin, HeightW: f.Height.W, HeightH: f.Height.H,
		WeightsW: l.Geometry.Field.WeightsW, WeightsH: l.Geometry.Field.WeightsH,
		Texel: f.TexelSize(), ChannelRange: map[string][2]float64{}}
	s.fmu.RUnlock()
	s.mu.Lock()
	defer s.mu.Unlock()
	fi.HeightRange = s.ranges[""]
	for name, r := range s.ranges {
		if name != "" {
			fi.ChannelRange[name] = r
		}
	}
	return fi
}

// stepTimes times the steps of a piece of work, one after the other.
type stepTimes struct {
	last  time.Time
	Steps []StepTime
}

// StepTime is one step's name and duration.
type StepTime struct {
	Name string
	Took time.Duration
}

// add records the step that ends now (it began where the last one ended, or at the first add).
func (t *stepTimes) add(name string) {
	now := time.Now()
	if t.last.IsZero() {
		t.last = now
	}
	t.Steps = append(t.Steps, StepTime{name, now.Sub(t.last)})
	t.last = now
}

// OpenSteps is what the last open's steps took.
func (s *Session) OpenSteps() []StepTime {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]StepTime(nil), s.openParts.Steps...)
}

// errNoLandscape refuses edits before anything is open.
var errNoLandscape = errors.New("session: no landscape is open")

// nameOf is a landscape's display name: the container's base name without .terrainData.
func nameOf(path string) string {
	b := filepath.Base(path)
	return strings.TrimSuffix(b, filepath.Ext(b))
}

// ViewSize returns the viewport's full size in pixels.
func (s *Session) ViewSize() (w, h int) { return s.rend.size() }

// SetViewSize resizes the viewport (the widget's size in pixels).
func (s *Session) SetViewSize(w, h int) { s.rend.setSize(w, h) }

// Camera returns the viewport camera.
func (s *Session) Camera() viewport.Camera { return s.view.Camera() }

// SetCamera moves the viewport camera; interactive says the user is dragging it, so frames may
// be drawn at a reduced resolution until it stops.
func (s *Session) SetCamera(c viewport.Camera, interactive bool) {
	s.view.SetCamera(c)
	if interactive {
		s.rend.request(true)
	} else {
		s.rend.calm()
	}
}

// FitCamera frames the whole field (orbit or map).
func (s *Session) FitCamera(mapView bool) {
	s.fmu.RLock()
	l := s.land
	var p viewport.Placement
	var hr [2]float64
	if l != nil {
		p = viewport.Placement{Size: l.Field.Size, Origin: l.Field.Origin}
	}
	s.fmu.RUnlock()
	s.mu.Lock()
	hr = s.ranges[""]
	s.mu.Unlock()
	if l == nil {
		return
	}
	w, h := s.rend.size()
	aspect := float64(w) / float64(max(h, 1))
	c := viewport.OrbitCamera(p, hr, aspect)
	if mapView {
		c = viewport.MapCamera(p, hr, aspect)
	}
	s.SetCamera(c, false)
}

// Pick returns the ground under a point of the viewport given as fractions of its width and
// height (0,0 top-left), whatever resolution frames are drawn at.
func (s *Session) Pick(u, v float64) (viewport.Hit, bool) {
	w, h := s.view.Size()
	return s.view.Pick(u*float64(w), v*float64(h))
}

// PickGround is Pick with the holes filled (viewport.Renderer.PickGround): where a brush paints,
// over cut ground too.
func (s *Session) PickGround(u, v float64) (viewport.Hit, bool) {
	w, h := s.view.Size()
	return s.view.PickGround(u*float64(w), v*float64(h))
}

// RequestFrame asks for a new frame (the UI calls it after a resize or when it lost one).
func (s *Session) RequestFrame() { s.rend.request(false) }
