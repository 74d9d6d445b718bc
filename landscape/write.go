package landscape

import (
	"context"
	"fmt"
	"image"
	"path/filepath"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"strata/progress"
	"strata/terraindata"
)

// Stage names a save reports to its progress.Func, one bar each on the command line (the
// evaluation's stages, which come before them in a bake, are bake's).
const (
	StageEncode = "encode" // MiB of payload compressed into the container (weights, scatter)
	// StageEncodeHeight is the height payload (and holes): written while the stack is evaluated.
	StageEncodeHeight = "encode height"
	// StageValidateHeight is the height payload (and holes) read back and flushed to the disk as
	// soon as it is written (0/1, 1/1): the commit's validation then only reads the rest.
	StageValidateHeight = "validate height"
	// StageValidateControls is the control textures read back and flushed while the densities
	// encode (0/1, 1/1).
	StageValidateControls = "validate controls"
	StageValidate         = terraindata.StageValidate // the written container checked, made durable and swapped in
)

// Timer receives the wall time of each step of a save (encode per child, validate, sync + swap):
// *bake.Timings, whose breakdown `strata bench bake` prints.
type Timer interface {
	Add(phase string, d time.Duration)
}

// Write saves l as the terrainData container at path, atomically (terraindata.Save): the old
// container stays until the new one is complete and valid. Re-baking the same path keeps its guid.
func Write(path string, l *Landscape) error {
	return WriteContext(context.Background(), path, l, WriteOptions{})
}

// WriteOptions add progress and timing to WriteContext.
type WriteOptions struct {
	Progress progress.Func // StageEncodeHeight, StageEncode (MiB of payload), StageValidate; nil = none
	Timings  Timer         // encode per child, validate, sync + swap; nil = none
	// Lock is a lock file held for the whole save (terraindata.SaveOptions.Lock); "" = none.
	Lock string

	// What a world cell's save adds (package world; nothing else sets them):
	//
	// HeightEdge, when set, is the ground just beyond the field (the cell's neighbours): the
	// height payload's gradients at the field's edges are then the ones a bake of the whole world
	// writes there (terraindata.HeightEdge).
	HeightEdge *terraindata.HeightEdge
	// Instances stores the populations' placed instances (Population.Matrices) in the container,
	// under InstancesDir (WriteInstances), inside the same atomic save: a world cell's placement,
	// which its own density cannot reproduce (StoredInstances reads them back).
	Instances bool
}

// WriteContext is Write with cancellation and progress: the payloads are compressed on every core
// (reported as StageEncode, MiB of payload), then the container is validated, made durable and
// swapped in (StageValidate). A cancelled ctx before the swap leaves the old container exactly as
// it was (terraindata.SaveWith).
func WriteContext(ctx context.Context, path string, l *Landscape, o WriteOptions) error {
	if l.Weights == nil || l.Field == nil || (l.Stack == nil && l.Baked == nil) {
		return fmt.Errorf("bake: write %s: nothing evaluated", path)
	}
	if _, _, err := l.childNames(); err != nil {
		return fmt.Errorf("%w (not writing %s)", err, path)
	}
	pops := make([]int64, len(l.Scatter))
	for i, p := range l.Scatter {
		pops[i] = int64(p.Density.W) * int64(p.Density.H)
	}
	w, err := BeginWrite(ctx, path, l, o, l.Weights.W, l.Weights.H, pops)
	if err != nil {
		return err
	}
	if err := w.Ground(); err != nil {
		return w.Fail(err)
	}
	return w.finish()
}

// Writer is one save of a landscape in progress, in the steps bake.Rebake runs beside an
// evaluation: the ground (height, holes, placement) can be written as soon as the field is loaded
// — Rebake does it while the stack is evaluated — and the rest once the weights and the scatter
// are in. WriteContext runs the same steps one after the other.
type Writer struct {
	l         *Landscape
	c         *terraindata.Container
	s         *terraindata.Saving
	enc       *terraindata.Encoder // the controls, channels and densities (StageEncode)
	gnd       *terraindata.Encoder // the height and holes (StageEncodeHeight)
	tm        Timer
	report    progress.Func
	edge      *terraindata.HeightEdge // WriteOptions.HeightEdge
	instances bool                    // WriteOptions.Instances
}

// BeginWrite starts the save of l at path. W, H is the weights grid and pops the texels of each
// population's density: with the field, what the encode stage's total (MiB) is made of. The save
// then takes Ground (any time), Rest (once l's weights and scatter are in), and Commit, or Fail
// or Abort to leave the container at path as it was.
func BeginWrite(ctx context.Context, path string, l *Landscape, o WriteOptions, W, H int, pops []int64) (*Writer, error) {
	report := o.Progress
	if report == nil {
		report = progress.Nop
	}
	c := terraindata.New()
	c.SetGUID(l.GUID)
	// The steps after the payloads are timed from the save's own reports: validated, durable,
	// swapped in.
	t0 := time.Now()
	steps := func(stage string, k, n int) {
		report(stage, k, n)
		if stage == StageValidate {
			switch k {
			case 0:
				t0 = time.Now()
			case 1:
				t0 = since(o.Timings, "validate", t0)
			case 2:
				t0 = since(o.Timings, "fsync", t0)
			case 3:
				since(o.Timings, "swap in", t0)
			}
		}
	}
	s, err := terraindata.BeginSave(path, c, terraindata.SaveOptions{Context: ctx, Progress: steps, Lock: o.Lock})
	if err != nil {
		return nil, err
	}
	ground, rest := l.payloadBytes(W, H, pops)
	// Each encoder's stage starts (at 0) when its first payload does, so its bar times it alone.
	encoder := func(stage string, total int64) *terraindata.Encoder {
		var done atomic.Int64
		var once sync.Once
		return &terraindata.Encoder{Context: ctx, Progress: func(n int64) {
			once.Do(func() { report(stage, 0, mib(total)) })
			report(stage, mib(done.Add(n)), mib(total))
		}}
	}
	return &Writer{l: l, c: c, s: s, gnd: encoder(StageEncodeHeight, ground), enc: encoder(StageEncode, rest), tm: o.Timings, report: report,
		edge: o.HeightEdge, instances: o.Instances}, nil
}

// payloadBytes is the raw size of the payloads a save compresses (the progress totals): the
// ground — the height (and holes) — and the rest: the control textures of a W×H weights grid, the
// channels, the densities.
func (l *Landscape) payloadBytes(W, H int, pops []int64) (ground, rest int64) {
	f := l.Field
	hw, hh := int64(f.Height.W), int64(f.Height.H)
	ground = 16 * hw * hh // rgba32f height
	for _, h := range l.Holes {
		if h {
			ground += hh * (1 + 4*hw)
			break
		}
	}
	n := int64(H) * (1 + 4*int64(W)) * int64(l.controlCount())
	n += 4 * hw * hh * int64(len(f.Channels))
	for _, p := range pops {
		n += 4 * p
	}
	return ground, n
}

// controlCount is the number of control textures: layers 0–3, and 4–7 past four layers.
func (l *Landscape) controlCount() int {
	n := 0
	if l.Stack != nil {
		n = len(l.Stack.Layers)
	} else {
		n = len(l.Baked.Layers)
	}
	if n > 4 {
		return 2
	}
	return 1
}

// Ground writes the height payload, the holes (when there is one) and the placement: everything
// that depends on the field alone. The payloads are read back and flushed as they are written
// (Saving.Prevalidate).
func (w *Writer) Ground() error {
	l, c, enc, dir := w.l, w.c, w.gnd, w.s.Dir()
	f := l.Field
	ts := f.TexelSize()
	hg := &terraindata.HeightGrid{W: f.Height.W, H: f.Height.H, Heights: f.Height.Data, TexelX: ts[0], TexelZ: ts[1], Holes: l.Holes, Edge: w.edge}
	var rng [2]float64 // the ground's height range, found beside the encoding
	ranged := make(chan struct{})
	go func() {
		defer close(ranged)
		rng = hg.Range()
	}()
	defer func() { <-ranged }()
	t0 := time.Now()
	if _, err := enc.Height(filepath.Join(dir, "height.texture"), hg); err != nil {
		return err
	}
	t0 = since(w.tm, StageEncodeHeight, t0)
	if err := c.SetChild("height", "height.texture"); err != nil {
		return err
	}
	wrote, err := enc.Holes(filepath.Join(dir, "holes.texture"), hg)
	if err != nil {
		return err
	}
	if wrote {
		if err := c.SetChild("holes", "holes.texture"); err != nil {
			return err
		}
		since(w.tm, "encode holes", t0)
	}
	// Read the ground back and flush it now — behind the evaluation when bake.Run writes it —
	// rather than in the commit's validation, which then trusts it while it is unchanged.
	t0 = time.Now()
	w.report(StageValidateHeight, 0, 1)
	fields := []string{"height"}
	if wrote {
		fields = append(fields, "holes")
	}
	for _, f := range fields {
		if err := w.s.Prevalidate(f); err != nil {
			return err
		}
	}
	w.report(StageValidateHeight, 1, 1)
	since(w.tm, StageValidateHeight, t0)
	<-ranged
	c.SetPlacement(terraindata.Placement{Size: f.Placement.Size, Origin: f.Placement.Origin,
		HeightRange: [2]float64{short32(float32(rng[0])), short32(float32(rng[1]))}})
	return nil
}

// finish writes the rest (controls, stack and layers or the carried surface table, channels,
// densities) and commits the save; any failure aborts it, leaving the old container.
func (w *Writer) finish() error {
	if err := w.Rest(); err != nil {
		return w.Fail(err)
	}
	return w.Commit()
}

// Fail abandons the save after err (terraindata.Saving.Fail), leaving the container at its path
// as it was, and returns err.
func (w *Writer) Fail(err error) error { return w.s.Fail(err) }

// Abort abandons the save (terraindata.Saving.Abort), leaving the container at its path as it was.
func (w *Writer) Abort() { w.s.Abort() }

// Commit validates, makes durable and swaps in what Ground and Rest wrote.
func (w *Writer) Commit() error {
	if err := w.s.Commit(); err != nil {
		return err
	}
	w.l.GUID = w.c.GUID()
	return nil
}

// Rest writes what the evaluation made and what goes with it: the channels and densities first,
// each read back (Saving.PrevalidateLater) in the background as soon as it is written, then the
// controls, the stack and layers (or the carried surface table), and the controls read back beside
// the rest; it returns when every read back is done. So the commit's validation has only the
// small children left, and each payload's reading back runs while the next one encodes rather
// than after the last (on the H200 a 16384² density's read back is half a second).
func (w *Writer) Rest() error {
	l, c, enc, dir, tm := w.l, w.c, w.enc, w.s.Dir(), w.tm
	var waits []func() error
	wait := func() error {
		t0 := time.Now()
		var first error
		for _, wt := range waits {
			if err := wt(); first == nil {
				first = err
			}
		}
		since(tm, StageValidateControls+" and densities, waited", t0)
		return first
	}
	if err := w.payloads(&waits); err != nil {
		wait()
		return err
	}
	t0 := time.Now()
	wt := l.Weights
	pix := [][]byte{wt.Lo, wt.Hi}[:l.controlCount()]
	for i, p := range pix {
		img := &image.NRGBA{Pix: p, Stride: wt.W * 4, Rect: image.Rect(0, 0, wt.W, wt.H)}
		name := fmt.Sprintf("control%d.texture", i)
		if _, err := enc.RGBA8(filepath.Join(dir, name), img, terraindata.Linear); err != nil {
			wait()
			return err
		}
		if err := c.SetChild(fmt.Sprintf("control%d", i), name); err != nil {
			wait()
			return err
		}
		t0 = since(tm, "encode "+name, t0)
	}

	if l.Stack == nil {
		if err := l.Baked.write(dir, c); err != nil {
			wait()
			return err
		}
	} else if err := l.writeStack(dir, c); err != nil {
		wait()
		return err
	}
	since(tm, "stack, layers, atlas", t0)

	// The controls' sums need the layers, named just now.
	w.report(StageValidateControls, 0, 1)
	waits = append(waits, w.s.PrevalidateLater("controls"))
	err := wait()
	w.report(StageValidateControls, 1, 1)
	return err
}

// payloads writes the channels, the densities (named on the container with their placement) and
// what the script needs, adding to waits the read back of each channel and density, started as
// soon as it is written.
func (w *Writer) payloads(waits *[]func() error) error {
	l, c, enc, dir, tm := w.l, w.c, w.enc, w.s.Dir(), w.tm
	f := l.Field
	t0 := time.Now()

	chans, popChildren, err := l.childNames()
	if err != nil {
		return err
	}
	names := make([]string, 0, len(f.Channels))
	for name := range f.Channels {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		g, child := f.Channels[name], chans[name]
		if _, err := enc.FloatPixels(filepath.Join(dir, child), terraindata.R32F, g.W, g.H, g.Data); err != nil {
			return err
		}
		if err := c.SetChild("channels."+name, child); err != nil {
			return err
		}
		*waits = append(*waits, w.s.PrevalidateLater("channels."+name))
		t0 = since(tm, "encode "+child, t0)
	}

	var pops []terraindata.Population
	for i, p := range l.Scatter {
		child := popChildren[i]
		if _, err := enc.FloatPixels(filepath.Join(dir, child), terraindata.R32F, p.Density.W, p.Density.H, p.Density.Data); err != nil {
			return err
		}
		pops = append(pops, terraindata.Population{Name: p.Name, Density: child, Spacing: short32(p.Spacing),
			Seed: p.Seed, Scale: p.Scale, Mesh: p.Mesh, Count: p.Count})
		// Named at once, so that its read back can start while the next payload encodes.
		c.SetScatter(pops)
		*waits = append(*waits, w.s.PrevalidateLater(fmt.Sprintf("scatter[%d].density", i)))
		t0 = since(tm, "encode "+child, t0)
	}
	c.SetScatter(pops)
	if w.instances && len(l.Scatter) > 0 {
		if _, err := WriteInstances(filepath.Join(dir, InstancesDir), l.Scatter); err != nil {
			return err
		}
	}
	return l.Script.write(dir, c)
}

// since adds the time since t0 to phase on tm (nil: nowhere) and returns now, for timing
// consecutive steps.
func since(tm Timer, phase string, t0 time.Time) time.Time {
	now := time.Now()
	if tm != nil {
		tm.Add(phase, now.Sub(t0))
	}
	return now
}

// mib is n bytes in MiB, rounded up: the encode stage's unit.
func mib(n int64) int { return int((n + 1<<20 - 1) >> 20) }
