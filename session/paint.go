package session

import (
	"context"
	"fmt"
	"image"
	"math"
	"sort"
	"strings"
	"sync/atomic"
	"time"

	"strata/field"
	"strata/sculpt"
	"strata/stack"
)

// HolesTarget is the brush target that cuts ground out (paint) and restores it (erase).
const HolesTarget = "holes"

// Brush is how a stroke paints.
type Brush struct {
	// Target is a mask channel ("mask.snow") or HolesTarget.
	Target string
	// Radius in metres.
	Radius float64
	// Strength is how far one dab moves a mask toward 1 (paint) or 0 (erase), 0..1.
	Strength float64
	// Falloff is the soft part of the radius: 0 a hard disc, 1 soft from the centre out.
	Falloff float64
	// Erase removes instead of adding (a hole brush restores ground; a raise brush lowers).
	Erase bool
	// Sculpt, when set, makes the brush shape the height (Target is ignored): raise or lower,
	// smooth, flatten, set, terrace, noise, stamp (package sculpt writes each formula). Strength
	// is then the fraction of the way a dab moves a texel (raise: of RaiseRate·Radius metres;
	// noise and stamp: of their amount).
	Sculpt SculptMode
	// Height is the set brush's typed height in metres, and the flatten brush's level when
	// HasHeight (Shift+click picked it); otherwise flatten levels to the height under the press.
	Height    float64
	HasHeight bool
	// Step (metres, > 0) and Sharpness (0 no change … 1 hard steps) are the terrace brush's.
	Step, Sharpness float64
	// Amplitude and FeatureSize (metres) and Seed are the noise brush's.
	Amplitude, FeatureSize float64
	Seed                   uint32
	// Stamp is the stamp brush's image (sculpt.LoadStamp), laid once per stroke at its first
	// point, its larger side across the brush's diameter, turned by Angle degrees, StampHeight
	// metres where the image is 1.
	Stamp       *field.Grid
	Angle       float64
	StampHeight float64
}

// weight is the brush's coverage at distance d from its centre (0 outside the radius).
func (b *Brush) weight(d float64) float64 { return sculpt.Weight(d, b.Radius, b.Falloff) }

// undoBlock is the edge in height texels of the blocks a stroke's undo keeps: only blocks the
// stroke touched are stored, before and after.
const undoBlock = 64

// block is one undoBlock×undoBlock (or smaller, at the edge) piece of a channel or of the holes.
type block struct {
	rect          image.Rectangle
	before, after []float32
	// changed is the bounding box of the texels that differ between before and after: an undo
	// or a reload marks only the tiles it reaches.
	changed image.Rectangle
}

// newBlock records rect's content before and after an edit, with the changed bounds.
func newBlock(rect image.Rectangle, before, after []float32) block {
	b := block{rect: rect, before: before, after: after}
	w := rect.Dx()
	for k := range before {
		if before[k] != after[k] {
			p := image.Pt(rect.Min.X+k%w, rect.Min.Y+k/w)
			b.changed = b.changed.Union(image.Rectangle{Min: p, Max: p.Add(image.Pt(1, 1))})
		}
	}
	return b
}

// strokeOp is a finished stroke (or another edit of field data) as an undoable step.
type strokeOp struct {
	name   string
	target string
	rec    *strokeRec // filled by the worker when it reaches the end of the stroke
}

func (o *strokeOp) label() string { return o.name }
func (o *strokeOp) undo(s *Session) {
	s.pipe.queue(&restoreOp{rec: o.rec, after: false})
}
func (o *strokeOp) redo(s *Session) {
	s.pipe.queue(&restoreOp{rec: o.rec, after: true})
}
func (o *strokeOp) size() int { return 256 + int(o.rec.bytes.Load()) }

// strokeRec is a stroke's record, written only by the worker: the blocks it touched with their
// content before the stroke, then (at the end) after.
type strokeRec struct {
	brush   Brush
	touched map[image.Point][]float32 // block index → before
	blocks  []block                   // set at the end, sorted
	// flat is the height a flatten stroke levels to (the texel under its first dab), set by the
	// worker at that dab.
	flat    float64
	hasFlat bool
	// onDevice: a dab of the stroke ran on the device (the sculpt kernel): its end brings the
	// device's copy back to the host's (resync).
	onDevice bool
	// bytes is what the record holds (its blocks before and after), kept by the worker as it
	// touches blocks and read by the history on the editing side: a stroke pushed before the
	// worker reached its dabs grows afterwards, and the history's bound follows it.
	bytes atomic.Int64
}

// countBlocks sets bytes from the finished blocks.
func (r *strokeRec) countBlocks() {
	n := 0
	for _, b := range r.blocks {
		n += 4 * (len(b.before) + len(b.after))
	}
	r.bytes.Store(int64(n))
}

// strokeState is an open stroke on the editing side. s.mu guards it.
type strokeState struct {
	rec       *strokeRec
	op        *strokeOp
	last      [2]float64
	hasLast   bool
	remainder float64
}

// BeginStroke starts a stroke with brush b; Stroke adds points and EndStroke makes the whole
// stroke one undoable step. A mask target must be a mask channel of the field (NewMask makes one).
func (s *Session) BeginStroke(b Brush) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.doc.loaded {
		return errNoLandscape
	}
	if s.pipe.stroke != nil || s.pipe.drag != nil {
		return fmt.Errorf("session: a stroke or a drag is already open")
	}
	if !(b.Radius > 0) || math.IsInf(b.Radius, 0) {
		return fmt.Errorf("session: brush radius %v must be a positive number of metres", b.Radius)
	}
	if b.Sculpt != SculptNone {
		d := b.sculptDab(0, 0, 0)
		d.Strength = math.Max(0, math.Min(1, d.Strength))
		switch err := d.Check(); {
		case err != nil:
			return fmt.Errorf("session: %s brush: %w", b.Sculpt, err)
		case s.doc.world != nil:
			return fmt.Errorf("session: this is a cell of a world: its ground is shared at the seams with its neighbours, so it is not sculpted cell by cell")
		case s.doc.baked:
			return fmt.Errorf("session: this landscape's weights are baked (no stack re-evaluates them on a sculpted ground): Layers → Edit as a stack first")
		}
		b.Target = ""
	} else if b.Target != HolesTarget {
		if !strings.HasPrefix(b.Target, field.MaskPrefix) {
			return fmt.Errorf("session: brushes paint masks (mask.<name>) or holes, not %q", b.Target)
		}
		found := false
		for _, c := range s.doc.channels {
			found = found || c == b.Target
		}
		if !found {
			return fmt.Errorf("session: the field has no channel %q; create the mask first", b.Target)
		}
	}
	b.Strength = math.Max(0, math.Min(1, b.Strength))
	rec := &strokeRec{brush: b, touched: map[image.Point][]float32{}}
	verb := "Paint " + b.Target
	switch {
	case b.Sculpt != SculptNone:
		verb = SculptLabel(b.Sculpt, b.Erase)
	case b.Target == HolesTarget && b.Erase:
		verb = "Restore ground"
	case b.Target == HolesTarget:
		verb = "Cut holes"
	case b.Erase:
		verb = "Erase " + b.Target
	}
	s.pipe.stroke = &strokeState{rec: rec, op: &strokeOp{name: verb, target: b.Target, rec: rec}}
	return nil
}

// Stroke adds a point (world X, Z) to the open stroke: dabs are laid every quarter radius along
// the path from the previous point, so a fast mouse leaves no gaps.
func (s *Session) Stroke(x, z float64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	st := s.pipe.stroke
	if st == nil || math.IsNaN(x) || math.IsNaN(z) {
		return
	}
	step := st.rec.brush.Radius / 4
	if st.rec.brush.Sculpt == SculptStamp && st.hasLast {
		return // one stamp per stroke, at its first point
	}
	if !st.hasLast {
		st.last, st.hasLast = [2]float64{x, z}, true
		s.pipe.fieldOps = append(s.pipe.fieldOps, &dabOp{rec: st.rec, x: x, z: z})
	} else {
		dx, dz := x-st.last[0], z-st.last[1]
		d := math.Hypot(dx, dz)
		for t := step - st.remainder; t <= d; t += step {
			s.pipe.fieldOps = append(s.pipe.fieldOps, &dabOp{rec: st.rec, x: st.last[0] + dx*t/d, z: st.last[1] + dz*t/d})
			st.remainder = d - t
		}
		if d < step-st.remainder {
			st.remainder += d
		}
		st.last = [2]float64{x, z}
	}
	s.bumpVersion()
	s.pipe.kick()
}

// EndStroke closes the stroke as one undoable step (nothing is recorded when it painted nothing).
func (s *Session) EndStroke() {
	s.mu.Lock()
	st := s.pipe.stroke
	if st == nil {
		s.mu.Unlock()
		return
	}
	s.pipe.stroke = nil
	if st.hasLast {
		s.pipe.fieldOps = append(s.pipe.fieldOps, &endStrokeOp{rec: st.rec})
		s.hist.push(st.op)
		s.changed()
		// The spacing held during the stroke: it follows the maximum now (pipeline.respace).
		s.pipe.respace = true
		s.pipe.kick()
	}
	s.mu.Unlock()
	s.rend.calm()
	s.emit(Event{Kind: EventDocument, Message: st.op.name})
}

// fieldOp is a change of field data, queued by the editing side and applied by the worker
// between passes (the only writer of the field).
type fieldOp interface {
	apply(p *pipeline) (changed fieldChange, err error)
}

// fieldChange says what an applied op touched, in height texels.
type fieldChange struct {
	target string // channel name, HolesTarget, or "" for the height
	rect   image.Rectangle
	// resident: the change is on the resident field's device copy already (the sculpt kernel), no
	// row is uploaded for it.
	resident bool
}

func (p *pipeline) queue(op fieldOp) {
	p.fieldOps = append(p.fieldOps, op)
	p.kick()
}

// dabOp is one brush dab.
type dabOp struct {
	rec  *strokeRec
	x, z float64
}

func (o *dabOp) apply(p *pipeline) (fieldChange, error) {
	l := p.s.land
	b := &o.rec.brush
	f := l.Field
	mn, ts := f.Placement.Min(), f.TexelSize()
	disc := sculpt.Dab{X: o.x, Z: o.z, Radius: b.Radius} // the disc's bounds, a mask's as a sculpt's
	rect := disc.Rect(f.Height.W, f.Height.H, sculpt.Place{Min: mn, Texel: ts})
	if rect.Empty() {
		return fieldChange{}, nil
	}
	if b.Sculpt != SculptNone {
		return o.sculpt(p, rect)
	}
	vals, set := p.targetAccess(b.Target)
	if vals == nil {
		return fieldChange{}, fmt.Errorf("session: paint: the field has no %q", b.Target)
	}
	o.rec.remember(rect, f.Height.W, f.Height.H, vals)
	for j := rect.Min.Y; j < rect.Max.Y; j++ {
		z := mn[1] + (float64(j)+0.5)*ts[1]
		for i := rect.Min.X; i < rect.Max.X; i++ {
			x := mn[0] + (float64(i)+0.5)*ts[0]
			w := b.weight(math.Hypot(x-o.x, z-o.z))
			if w <= 0 {
				continue
			}
			k := j*f.Height.W + i
			v := vals(k)
			if b.Target == HolesTarget {
				if w >= 0.5 {
					if b.Erase {
						v = 0
					} else {
						v = 1
					}
				}
			} else {
				a := float32(b.Strength * w)
				if b.Erase {
					v -= v * a
				} else {
					v += (1 - v) * a
				}
				v = min(max(v, 0), 1)
			}
			set(k, v)
		}
	}
	return fieldChange{target: b.Target, rect: rect}, nil
}

// targetAccess reads and writes texel k of a brush target as a float (holes: 1 = hole).
func (p *pipeline) targetAccess(target string) (get func(int) float32, set func(int, float32)) {
	l := p.s.land
	if target == HolesTarget {
		if l.Holes == nil {
			if err := l.MakeHoles(); err != nil { // on disk with the other planes when they are
				l.Holes = make([]bool, l.Field.Height.W*l.Field.Height.H)
			}
		}
		return func(k int) float32 {
				if l.Holes[k] {
					return 1
				}
				return 0
			}, func(k int, v float32) {
				l.Holes[k] = v >= 0.5
			}
	}
	g := l.Field.Channels[target]
	if target == "" {
		g = l.Field.Height
	}
	if g == nil {
		return nil, nil
	}
	return func(k int) float32 { return g.Data[k] }, func(k int, v float32) { g.Data[k] = v }
}

// remember stores the blocks of rect not yet touched by this stroke, as they are before it.
func (r *strokeRec) remember(rect image.Rectangle, w, h int, get func(int) float32) {
	for bj := rect.Min.Y / undoBlock; bj <= (rect.Max.Y-1)/undoBlock; bj++ {
		for bi := rect.Min.X / undoBlock; bi <= (rect.Max.X-1)/undoBlock; bi++ {
			key := image.Pt(bi, bj)
			if _, ok := r.touched[key]; ok {
				continue
			}
			br := blockRect(key, w, h)
			r.touched[key] = readBlock(br, w, get)
			r.bytes.Add(int64(8 * br.Dx() * br.Dy())) // before, and after to come
		}
	}
}

func blockRect(key image.Point, w, h int) image.Rectangle {
	return image.Rect(key.X*undoBlock, key.Y*undoBlock, (key.X+1)*undoBlock, (key.Y+1)*undoBlock).Intersect(image.Rect(0, 0, w, h))
}

func readBlock(r image.Rectangle, w int, get func(int) float32) []float32 {
	out := make([]float32, 0, r.Dx()*r.Dy())
	for j := r.Min.Y; j < r.Max.Y; j++ {
		for i := r.Min.X; i < r.Max.X; i++ {
			out = append(out, get(j*w+i))
		}
	}
	return out
}

// endStrokeOp records the touched blocks' content after the stroke.
type endStrokeOp struct{ rec *strokeRec }

func (o *endStrokeOp) apply(p *pipeline) (fieldChange, error) {
	l := p.s.land
	get, _ := p.targetAccess(o.rec.brush.Target)
	if get == nil {
		return fieldChange{}, nil
	}
	w, h := l.Field.Height.W, l.Field.Height.H
	keys := make([]image.Point, 0, len(o.rec.touched))
	for k := range o.rec.touched {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(a, b int) bool {
		if keys[a].Y != keys[b].Y {
			return keys[a].Y < keys[b].Y
		}
		return keys[a].X < keys[b].X
	})
	for _, k := range keys {
		r := blockRect(k, w, h)
		o.rec.blocks = append(o.rec.blocks, newBlock(r, o.rec.touched[k], readBlock(r, w, get)))
	}
	o.rec.touched = nil
	o.rec.countBlocks()
	o.rec.resync(p)
	return fieldChange{}, nil
}

// restoreOp writes a stroke's blocks back as they were before (undo) or after (redo) it.
type restoreOp struct {
	rec   *strokeRec
	after bool
}

func (o *restoreOp) apply(p *pipeline) (fieldChange, error) {
	_, set := p.targetAccess(o.rec.brush.Target)
	if set == nil {
		return fieldChange{}, fmt.Errorf("session: undo: the field no longer has %q", o.rec.brush.Target)
	}
	w := p.s.land.Field.Height.W
	var all image.Rectangle
	for _, b := range o.rec.blocks {
		src := b.before
		if o.after {
			src = b.after
		}
		k := 0
		for j := b.rect.Min.Y; j < b.rect.Max.Y; j++ {
			for i := b.rect.Min.X; i < b.rect.Max.X; i++ {
				set(j*w+i, src[k])
				k++
			}
		}
		all = all.Union(b.changed)
	}
	return fieldChange{target: o.rec.brush.Target, rect: all}, nil
}

// applyFieldOps applies queued field edits (the worker, with the write lock held only while a
// batch is written) and marks what they dirtied. It reports whether any field data changed.
func (p *pipeline) applyFieldOps(ops []fieldOp, st *stack.Stack) bool {
	if len(ops) == 0 {
		return false
	}
	s := p.s
	var changes []fieldChange
	t0 := time.Now()
	s.fmu.Lock()
	p.addParts(passParts{fieldWait: time.Since(t0)})
	for _, op := range ops {
		c, err := op.apply(p)
		if err != nil {
			go s.emit(Event{Kind: EventError, Err: err})
			continue
		}
		if !c.rect.Empty() {
			changes = append(changes, c)
			if c.target != HolesTarget && !c.resident {
				// The resident field's rows to upload, marked before the next op (a dab on the
				// device reads the device's copy: sculptOnDevice); a channel's edit uploads every
				// plane of its rows, the height's alone only the height plane.
				p.res.edited = p.res.edited.Union(c.rect)
				p.res.editedChans = p.res.editedChans || c.target != ""
			}
		}
		s.rec.marked(op, c, s.land.Field.Height.W, s.land.Field.Height.H)
	}
	s.fmu.Unlock()
	tMarks := time.Now()
	defer func() { p.addParts(passParts{marks: time.Since(tMarks)}) }()
	resynced := p.markResynced() // a sculpt stroke's end on the device (sculpt.go)
	ranged := map[string]image.Rectangle{}
	for _, c := range changes {
		if c.target != HolesTarget {
			ranged[c.target] = ranged[c.target].Union(c.rect)
		}
	}
	for target, rect := range ranged {
		s.rangeChanged(target, rect)
	}
	reads := map[string]bool{}
	if st != nil {
		for _, c := range st.Channels() {
			reads[c] = true
		}
	}
	f := s.land.Field
	mn, ts := f.Placement.Min(), f.TexelSize()
	var holes image.Rectangle
	any := false
	for _, c := range changes {
		switch {
		case c.target == HolesTarget:
			holes = holes.Union(c.rect)
		case c.target == "":
			// The gradient of the texels next to the change moves too.
			holes = holes.Union(c.rect.Inset(-1).Intersect(image.Rect(0, 0, f.Height.W, f.Height.H)))
		}
		switch {
		case c.target == HolesTarget:
		case c.target == "" || reads[c.target]:
			x0, z0 := mn[0]+float64(c.rect.Min.X)*ts[0], mn[1]+float64(c.rect.Min.Y)*ts[1]
			x1, z1 := mn[0]+float64(c.rect.Max.X)*ts[0], mn[1]+float64(c.rect.Max.Y)*ts[1]
			if c.target == "" {
				p.heightVer++
				p.resetSlopes(x0, z0, x1, z1)
				for _, ps := range p.pops {
					ps.heightEdited = ps.heightEdited.Union(c.rect)
				}
			}
			if p.dirty != nil {
				p.dirty.MarkRect(x0, z0, x1, z1)
			}
			p.staleRect(x0, z0, x1, z1)
			p.forgetTiles(x0, z0, x1, z1)
			any = true
		}
		s.mu.Lock()
		s.bumpVersion()
		p.opBumps++
		s.mu.Unlock()
	}
	var moved image.Rectangle // height texels whose height changed
	for _, c := range changes {
		if c.target == "" {
			moved = moved.Union(c.rect)
		}
	}
	if !moved.Empty() && p.reflow(st, moved) {
		any = true
		s.mu.Lock()
		s.bumpVersion()
		p.opBumps++
		s.mu.Unlock()
	}
	if !holes.Empty() {
		p.showHeight(holes)
	}
	return any || resynced
}

// reflow routes the flow again after the height changed inside rect (height texels), when the
// stack reads flow, and marks what reads the texels whose flow changed — downstream of the edit,
// anywhere on the field — as a channel edit marks its rectangle (field.RecomputeFlow routes the
// whole field: flow is global, the recompute is conservative). It reports whether anything was
// marked. A stack that does not read flow only forgets the plane: the first flow rule routes it.
func (p *pipeline) reflow(st *stack.Stack, rect image.Rectangle) bool {
	f := p.s.land.Field
	if st == nil || !st.ReadsFlow() {
		f.InvalidateFlow()
		return false
	}
	changed, err := f.RecomputeFlow(context.Background(), rect)
	if err != nil {
		f.InvalidateFlow()
		go p.s.emit(Event{Kind: EventError, Err: err})
		return false
	}
	if changed.Empty() {
		return false
	}
	p.flowChanged = p.flowChanged.Union(changed)
	p.markReaders(changed)
	return true
}

// markReaders marks what reads the height texels of rect to be evaluated again: the
// full-resolution tiles, the view's pages (stale) and the cached GPU tile blocks.
func (p *pipeline) markReaders(rect image.Rectangle) {
	f := p.s.land.Field
	mn, ts := f.Placement.Min(), f.TexelSize()
	x0, z0 := mn[0]+float64(rect.Min.X)*ts[0], mn[1]+float64(rect.Min.Y)*ts[1]
	x1, z1 := mn[0]+float64(rect.Max.X)*ts[0], mn[1]+float64(rect.Max.Y)*ts[1]
	if p.dirty != nil {
		p.dirty.MarkRect(x0, z0, x1, z1)
	}
	p.staleRect(x0, z0, x1, z1)
	p.forgetTiles(x0, z0, x1, z1)
}

// forgetTiles drops cached GPU tile blocks that read the world rectangle.
func (p *pipeline) forgetTiles(x0, z0, x1, z1 float64) {
	if p.wtiles == nil || p.wtiles.tiles == nil {
		return
	}
	d := field.NewDirtySet(p.geo.Field, p.s.opts.TileSize, p.geo.Stack.GradientStep)
	d.MarkRect(x0, z0, x1, z1)
	p.wtiles.forget(d.Drain())
}

// resetSlopes forgets the Go evaluator's kept slopes of the weights texels whose taps read the
// world rectangle: the height's values changed there. (Forgetting them all made every sculpt
// dab on a 2000² field compute the whole field's slopes again.)
func (p *pipeline) resetSlopes(x0, z0, x1, z1 float64) {
	ce, ok := p.full.(*cpuEval)
	if !ok {
		return
	}
	if p.dirty == nil {
		ce.slopes.Reset()
		return
	}
	if r, ok := p.dirty.TexelRect(x0, z0, x1, z1); ok {
		ce.slopes.ResetRect(r)
	}
}

// staleRect marks the view's pages whose texels read the world rectangle (a field edit's, taps
// included) as stale: written again when the view samples them, dropped otherwise.
func (p *pipeline) staleRect(x0, z0, x1, z1 float64) {
	if p.dirty == nil {
		return
	}
	r, ok := p.dirty.TexelRect(x0, z0, x1, z1)
	if !ok {
		return
	}
	for _, key := range p.s.view.PagesOver(r.Min.X, r.Min.Y, r.Max.X, r.Max.Y) {
		p.stale[key] = true
	}
}
