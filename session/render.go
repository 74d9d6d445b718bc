package session

import (
	"image"
	"math"
	"sync"
	"time"
)

// frameBudget is how long an interactive frame may take; slower devices draw interactive frames
// at a reduced resolution (the picture sharpens once the camera or slider rests).
const frameBudget = 45 * time.Millisecond

// firstFrameWait is how long an evaluation may be expected to take for the window's first frame
// to wait for it rather than show the ground without its weights first.
const firstFrameWait = time.Second

// settle is how long after the last interactive change the full-resolution frame is drawn.
const settle = 250 * time.Millisecond

// renderLoop draws frames on its own goroutine whenever something asked for one, newest state
// first: requests arriving while a frame is drawn collapse into one more frame.
type renderLoop struct {
	s *Session
	// gpuMu orders the worker's GPU passes against frames, so a frame never samples a target
	// between two tiles of one pass. Taken under passMu, before fmu (Session's lock order).
	gpuMu sync.Mutex

	mu          sync.Mutex // guards the fields below; a leaf
	cond        *sync.Cond
	want        bool
	interactive time.Time // last interactive request
	w, h        int       // full size
	scale       float64   // current render scale
	fullMs      float64   // smoothed cost of a full-resolution frame
	draftMs     float64   // smoothed cost of a reduced-resolution frame (dabframe.go)
	stopped     bool
	done        chan struct{}
	timer       *time.Timer
}

func newRenderLoop(s *Session) *renderLoop {
	r := &renderLoop{s: s, w: s.opts.Width, h: s.opts.Height, scale: 1, done: make(chan struct{})}
	r.cond = sync.NewCond(&r.mu)
	go r.run()
	return r
}

func (r *renderLoop) size() (int, int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.w, r.h
}

func (r *renderLoop) setSize(w, h int) {
	if w < 1 || h < 1 {
		return
	}
	r.mu.Lock()
	changed := w != r.w || h != r.h
	r.w, r.h = w, h
	r.mu.Unlock()
	if changed {
		r.request(false)
	}
}

// request asks for a frame; interactive marks it part of a continuous change.
func (r *renderLoop) request(interactive bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.want = true
	if interactive {
		r.interactive = r.s.now()
		if r.timer == nil {
			r.timer = time.AfterFunc(settle, r.settled)
		} else {
			r.timer.Reset(settle)
		}
	}
	r.cond.Signal()
}

// fast reports that full-resolution frames cost less than the interactive budget here (a real
// GPU), so intermediate pictures are worth drawing.
func (r *renderLoop) fast() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.fullMs > 0 && r.fullMs <= float64(frameBudget.Milliseconds())
}

// calm ends interactive mode at once (a drag was released): the next frame is full resolution.
func (r *renderLoop) calm() {
	r.mu.Lock()
	r.interactive = time.Time{}
	r.want = true
	r.cond.Signal()
	r.mu.Unlock()
}

// settled draws the full-resolution frame after an interactive change came to rest.
func (r *renderLoop) settled() {
	r.mu.Lock()
	if r.scale < 1 {
		r.want = true
		r.cond.Signal()
	}
	r.mu.Unlock()
}

func (r *renderLoop) stop() {
	r.mu.Lock()
	r.stopped = true
	if r.timer != nil {
		r.timer.Stop()
	}
	r.cond.Signal()
	r.mu.Unlock()
	<-r.done
}

func (r *renderLoop) run() {
	defer close(r.done)
	var last *image.RGBA
	var lastVersion uint64
	var lastDraft, lastRefining bool
	for {
		r.mu.Lock()
		for !r.want && !r.stopped {
			r.cond.Wait()
		}
		if r.stopped {
			r.mu.Unlock()
			return
		}
		r.want = false
		since, fullMs, fw, fh := r.s.now().Sub(r.interactive), r.fullMs, r.w, r.h
		r.mu.Unlock()
		// An open stroke is interactive however long its dabs take to evaluate: a full-resolution
		// frame on a slow device (a software one) would otherwise start whenever a dab's pass
		// outlasts settle, and hold the next dab's picture back by as long as it takes; the
		// stroke's release draws the full frame (EndStroke calms the loop).
		interactive := since < settle || r.s.stroking()
		scale := 1.0
		if interactive && fullMs > float64(frameBudget.Milliseconds()) {
			scale = math.Max(0.25, math.Min(1, math.Sqrt(float64(frameBudget.Milliseconds())/fullMs)))
			scale = math.Round(scale*8) / 8
		}
		w, h := max(1, int(math.Round(float64(fw)*scale))), max(1, int(math.Round(float64(fh)*scale)))
		r.mu.Lock()
		r.scale = scale
		r.mu.Unlock()

		if !r.s.Loaded() {
			continue
		}
		if scale == 1 && !interactive && r.s.pipe.refiningSoon() && (last != nil || r.s.pipe.passDueWithin(firstFrameWait)) {
			// The pass's own frame request follows (a moving camera is still drawn). The
			// window's first frame waits for it too when it is due soon: the ground without its
			// weights would take the cores the pass needs and be replaced a moment later.
			continue
		}
		if interactive && r.s.pipe.dabDue() {
			continue // the dab's pass asks for the frame that shows it
		}
		r.gpuMu.Lock()
		// A reduced frame is also a lighter one: coarser terrain, a thinned forest.
		r.s.view.SetDraft(scale < 1)
		if vw, vh := r.s.view.Size(); vw != w || vh != h {
			if err := r.s.view.Resize(w, h); err != nil {
				r.gpuMu.Unlock()
				r.s.emit(Event{Kind: EventError, Err: err})
				continue
			}
		}
		// What the frame shows is what was published when it began: a pass that publishes while
		// it is drawn (the Go evaluator's, on other cores) may or may not be in it, so the frame
		// claims only the state before (its own request brings the frame that shows it).
		version, _, refining, made := r.s.pipe.shownFrame(0)
		img, err := r.s.view.Frame()
		stats := r.s.view.Stats()
		animating := r.s.view.Animating()
		r.gpuMu.Unlock()
		if err != nil {
			r.s.emit(Event{Kind: EventError, Err: err})
			continue
		}
		_, draft, _, _ := r.s.pipe.shownFrame(stats.MissingWeights)
		refining = refining || draft
		if stats.MissingWeights > 0 && scale == 1 && img != last {
			// The camera sees pages not evaluated yet. (A reduced frame samples coarser levels
			// than the view the pipeline evaluates for; what it lacks there it draws coarser. A
			// frame drawn again unchanged lacks what the last pass could not fit.)
			r.s.pipe.kick()
		}
		if scale == 1 && img != last {
			r.mu.Lock()
			if r.fullMs == 0 {
				r.fullMs = stats.GPUms
			} else {
				r.fullMs = 0.6*r.fullMs + 0.4*stats.GPUms
			}
			r.mu.Unlock()
		} else if img != last {
			r.mu.Lock()
			r.noteDraft(stats.GPUms)
			r.mu.Unlock()
		}
		if img == last && version == lastVersion && draft == lastDraft && refining == lastRefining {
			continue // nothing new to show
		}
		last, lastVersion, lastDraft, lastRefining = img, version, draft, refining
		r.s.emit(Event{Kind: EventFrame, Frame: &Frame{Image: img, Version: version, Draft: draft, Made: made, Refining: refining, Scale: scale, Stats: stats, At: r.s.now()}})
		if animating {
			time.AfterFunc(33*time.Millisecond, func() { r.request(false) })
		}
	}
}

// stroking reports an open stroke.
func (s *Session) stroking() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.pipe != nil && s.pipe.stroke != nil
}
