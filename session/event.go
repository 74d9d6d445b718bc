package session

import (
	"image"
	"time"

	"strata/viewport"
)

// EventKind says what an Event carries.
type EventKind int

const (
	// EventDocument: the stack, channels, name, path, history or modified flag changed; panels
	// read the session again.
	EventDocument EventKind = iota
	// EventStatus: an evaluation started, finished or was refined (Event.Status).
	EventStatus
	// EventFrame: a new viewport frame (Event.Frame).
	EventFrame
	// EventError: something went wrong that the artist must hear of but that changes nothing
	// (a watched file is corrupt, an evaluation failed); the last good state stays.
	EventError
	// EventReloaded: a watched file changed on disk and was reloaded as an undoable step.
	EventReloaded
	// EventNotice: something the artist should know that is not an error (Event.Message): the
	// first edit of a world's cell says which cells need a re-bake.
	EventNotice
)

// Event is one notification from the session.
type Event struct {
	Kind    EventKind
	Frame   *Frame
	Status  Status
	Err     error
	Message string
}

// Frame is one viewport image and what it shows.
type Frame struct {
	Image *image.RGBA
	// Version is the document version whose weights the frame shows; Draft says they are the
	// coarse preview of a drag, not yet refined.
	Version uint64
	Draft   bool
	// Made is when the document reached Version, for a frame of the newest version (zero when a
	// newer one exists): At − Made is the edit's time to this frame.
	Made time.Time
	// Refining says more evaluation of this state is under way (the status bar says so).
	Refining bool
	// Scale is the fraction of the viewport's size the image was drawn at (below 1 while the
	// camera or a slider moves on a slow device).
	Scale float64
	Stats viewport.FrameStats
	At    time.Time
}

// Status is what the status bar shows about evaluation.
type Status struct {
	Adapter   string
	Evaluator string // "GPU" or "Go reference", as chosen at open
	// Last is the last evaluation pass.
	Last Pass
	// Refining is true while the picture shows a draft or old weights for part of the field.
	Refining bool
	// Instances counts each population's placed instances.
	Instances []PopulationCount
	// Shown is the version the viewport's weights reflect.
	Shown uint64
	// Reading says a heightmap is being read for an open ("reading h.png… 45%"), "" otherwise.
	Reading string
}

// Pass describes one evaluation pass.
type Pass struct {
	Duration time.Duration
	// Pages counts the pages of the weights pyramid the pass wrote for the view; Tiles the
	// full-resolution tiles it evaluated for the populations.
	Pages int
	Tiles int
	// Draft says the view still lacks pages it samples (it shows coarser levels there).
	Draft   bool
	Scatter time.Duration
}

// PopulationCount is one population's instance count.
type PopulationCount struct {
	Name  string
	Count int
}

// passParts is where the worker's time went, summed over the passes since the landscape opened:
// the field edits applied, the resident field brought up to date, the view's pages, the
// full-resolution tiles, and the populations' density and placement (the device's waits inside
// each). `strata bench sculpt` subtracts two to say what one dab cost, part by part.
type passParts struct {
	passes int
	// fieldWait is the part of apply spent waiting for the field's write lock (its readers: the
	// viewport's height pages, a recovery write); dabDevice the sculpt dabs' submissions to the
	// device (gpu.SculptKernel.Apply), dabHost their host twin and undo blocks, marks what
	// follows the edits (the height's range, the stale pages and tiles, the viewport's height).
	apply, fieldWait, dabDevice, dabHost, marks, sync, view, full, density, place time.Duration
}

func (a passParts) sub(b passParts) passParts {
	return passParts{passes: a.passes - b.passes, apply: a.apply - b.apply, fieldWait: a.fieldWait - b.fieldWait,
		dabDevice: a.dabDevice - b.dabDevice, dabHost: a.dabHost - b.dabHost, marks: a.marks - b.marks,
		sync: a.sync - b.sync, view: a.view - b.view, full: a.full - b.full, density: a.density - b.density, place: a.place - b.place}
}

func (a passParts) add(b passParts) passParts {
	return passParts{passes: a.passes + b.passes, apply: a.apply + b.apply, fieldWait: a.fieldWait + b.fieldWait,
		dabDevice: a.dabDevice + b.dabDevice, dabHost: a.dabHost + b.dabHost, marks: a.marks + b.marks,
		sync: a.sync + b.sync, view: a.view + b.view, full: a.full + b.full, density: a.density + b.density, place: a.place + b.place}
}

// passParts returns the worker's parts so far.
func (s *Session) passParts() passParts {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.pipe.parts
}
