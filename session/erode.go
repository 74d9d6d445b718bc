package session

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"strata/bake"
	"strata/erode"
	"strata/field"
	"strata/gpu"
	"strata/progress"
)

// ErodeOptions are an erosion's choices (the editor's Field → Erode… dialog).
type ErodeOptions struct {
	// Preset names the erode preset ("" is erode.DefaultPreset).
	Preset string
	// Params, when set, are the erosion's parameters instead of the preset's (the dialog's
	// Advanced section); Iterations still replaces their Iterations when not negative. The step
	// is named ErodeLabel(Preset) when they equal the preset's but for Iterations, else
	// "Erode (custom)".
	Params *erode.Params
	// Iterations replaces the preset's (or Params') hydraulic iterations (0 …
	// erode.MaxIterations); negative keeps them.
	Iterations int
	// Seed varies the rain; the same seed gives the same bytes.
	Seed uint32
	// Mask limits the erosion to a painted mask (mask.<name>, the prefix optional; "" none):
	// the new height is old + (eroded − old)·mask, so the ground outside the mask (0) is
	// unchanged; erosion.flow is multiplied by the mask and erosion.deposit and erosion.wear are
	// the blended height's rise and fall (deposit − wear is the height's change, as unmasked).
	Mask string
}

// ErodeLabel is the history step's name for an erosion with preset ("" the default).
func ErodeLabel(preset string) string {
	if preset == "" {
		preset = erode.DefaultPreset
	}
	return "Erode (" + preset + ")"
}

// CustomErodeLabel is the history step's name for an erosion whose parameters are not a
// preset's (ErodeOptions.Params changed beyond Iterations).
const CustomErodeLabel = "Erode (custom)"

// Resolve returns the parameters the erosion runs with (validated: an invalid one is
// erode.Params.Validate's error, naming it) and its step's name: ErodeLabel(Preset), or
// CustomErodeLabel when Params differ from the preset's in anything but Iterations.
func (o ErodeOptions) Resolve() (erode.Params, string, error) {
	preset := o.Preset
	if preset == "" {
		preset = erode.DefaultPreset
	}
	params, err := erode.Preset(preset)
	if err != nil {
		return erode.Params{}, "", err
	}
	label := ErodeLabel(preset)
	if o.Params != nil {
		mine, theirs := *o.Params, params
		mine.Iterations, theirs.Iterations = 0, 0
		if mine != theirs {
			label = CustomErodeLabel
		}
		params = *o.Params
	}
	if o.Iterations >= 0 {
		params.Iterations = o.Iterations
	}
	if err := params.Validate(); err != nil {
		return erode.Params{}, "", err
	}
	return params, label, nil
}

// Erode weathers the landscape's ground with package erode — on the GPU's erosion kernels
// when the live pipeline evaluates on the GPU (bake.GPU.Erode), else erode.Run — (in the background of the caller:
// it blocks until done) and makes the result one undoable step, named as o.Resolve names it: the
// height's changed 64² blocks and the channels erosion.flow, erosion.deposit and erosion.wear
// (added, or their changed blocks replaced), applied by the worker as a reload is — the tiles
// they reach re-evaluate, the flow is routed again and the populations re-placed. Undo puts
// back the height and channels exactly, redo the eroded ones. A cancelled ctx (or an error)
// changes nothing; so does an edit of the landscape made while it eroded (the erosion is then
// refused, naming why). A world's cell and a baked landscape (no stack) are refused, as
// `strata erode` refuses them.
func (s *Session) Erode(ctx context.Context, o ErodeOptions, report progress.Func) error {
	if report == nil {
		report = progress.Nop
	}
	params, label, err := o.Resolve()
	if err != nil {
		return err
	}

	// The ground as the artist sees it: the queued field edits applied first, as Save does.
	p := s.pipe
	p.passMu.Lock()
	s.mu.Lock()
	switch {
	case !s.doc.loaded:
		s.mu.Unlock()
		p.passMu.Unlock()
		return errNoLandscape
	case s.doc.world != nil:
		s.mu.Unlock()
		p.passMu.Unlock()
		return errors.New("session: erode: this is a cell of a world: erosion is global (water and sediment cross a cell's edge), so a world's cells are not eroded one by one")
	case s.doc.baked:
		s.mu.Unlock()
		p.passMu.Unlock()
		return errors.New("session: erode: this landscape's weights are baked (it has no stack to evaluate on the eroded ground): Layers → Edit as a stack first")
	case p.gestureActive():
		s.mu.Unlock()
		p.passMu.Unlock()
		return errors.New("session: erode: finish the stroke or drag first")
	}
	ops, st := p.takeOps(), s.doc.stack
	// The erosion runs on the pipeline's twin: the GPU's erosion kernels when the live pipeline
	// evaluates on the GPU, else the Go reference.
	var eg *bake.GPU
	if p.mode == GPU && p.gpu != nil {
		eg = p.gpu.g
	}
	s.mu.Unlock()
	p.applyFieldOps(ops, st)
	s.mu.Lock()
	steps := s.doc.steps
	s.mu.Unlock()
	s.fmu.RLock()
	land := s.land
	// The height before, for the undo's blocks and the mask's blend: a whole-field copy, on disk
	// with the height, released when the erosion's step is made (or refused).
	old, cerr := land.Field.Height.ClonePlane()
	if cerr != nil {
		s.fmu.RUnlock()
		p.passMu.Unlock()
		return fmt.Errorf("session: erode: %w", cerr)
	}
	defer old.Release()
	texel := land.Field.TexelSize()
	var mask []float32
	maskName := ""
	if m := strings.TrimSpace(o.Mask); m != "" {
		maskName = field.MaskPrefix + strings.TrimPrefix(m, field.MaskPrefix)
		g := land.Field.Channels[maskName]
		if g == nil {
			s.fmu.RUnlock()
			p.passMu.Unlock()
			return fmt.Errorf("session: erode: the landscape has no mask %q", strings.TrimPrefix(maskName, field.MaskPrefix))
		}
		mg, cerr := g.ClonePlane()
		if cerr != nil {
			s.fmu.RUnlock()
			p.passMu.Unlock()
			return fmt.Errorf("session: erode: %w", cerr)
		}
		defer mg.Release()
		mask = mg.Data
	}
	s.fmu.RUnlock()
	p.passMu.Unlock()

	// The erosion itself, holding no lock: the live loop goes on.
	eo := erode.Options{Params: params, Seed: o.Seed, Progress: report}
	var r *erode.Result
	if eg != nil {
		r, err = eg.Erode(ctx, old, texel, eo)
		if errors.Is(err, gpu.ErrTooLarge) {
			s.emit(Event{Kind: EventNotice, Message: "Erode: " + bake.FallbackWarning(err)})
			r, err = erode.Run(ctx, old, texel, eo)
		}
	} else {
		r, err = erode.Run(ctx, old, texel, eo)
	}
	if err != nil {
		return err
	}
	if mask != nil {
		limitToMask(old.Data, r, mask)
	}
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("erode: %w", err)
	}

	// One step: the height's and the channels' changed blocks, the channels that are new added.
	s.fmu.RLock()
	if s.land != land {
		s.fmu.RUnlock()
		return errors.New("session: erode: another landscape was opened while eroding; nothing was changed")
	}
	var recs []*strokeRec
	var added []*channelOp
	if rec := diffBlocks("", old.Data, r.Height.Data, old.W, old.H); rec != nil {
		recs = append(recs, rec)
	}
	for _, c := range []struct {
		name string
		g    *field.Grid
	}{{erode.ChannelFlow, r.Flow}, {erode.ChannelDeposit, r.Deposit}, {erode.ChannelWear, r.WearMap}} {
		cur := land.Field.Channels[c.name]
		if cur == nil {
			added = append(added, &channelOp{name: c.name, grid: c.g})
			continue
		}
		if rec := diffBlocks(c.name, cur.Data, c.g.Data, c.g.W, c.g.H); rec != nil {
			recs = append(recs, rec)
		}
	}
	s.mu.Lock()
	if s.doc.steps != steps {
		s.mu.Unlock()
		s.fmu.RUnlock()
		return errors.New("session: erode: the landscape was edited while it eroded; nothing was changed (erode again)")
	}
	if len(recs) == 0 && len(added) == 0 {
		s.mu.Unlock()
		s.fmu.RUnlock()
		return nil // nothing moved and the channels hold these values already
	}
	op := &reloadOp{name: label, recs: recs, added: added}
	s.hist.push(op)
	op.redo(s)
	s.changed()
	s.mu.Unlock()
	s.fmu.RUnlock()
	s.emit(Event{Kind: EventDocument, Message: op.label()})
	return nil
}

// limitToMask blends the erosion r of the height old by mask (0..1): new = old + (eroded −
// old)·mask, texel by texel, so a texel where the mask is 0 keeps its bytes and one where it
// is 1 takes the eroded height's; erosion.flow is scaled by the mask and erosion.deposit and
// erosion.wear are recomputed as the blended height's rise and fall.
func limitToMask(old []float32, r *erode.Result, mask []float32) {
	for k, m := range mask {
		h := r.Height.Data[k]
		switch {
		case m <= 0:
			h = old[k]
		case m < 1:
			h = float32(float64(old[k]) + (float64(h)-float64(old[k]))*float64(m))
		}
		r.Height.Data[k] = h
		r.Flow.Data[k] *= min(max(m, 0), 1)
		r.Deposit.Data[k], r.WearMap.Data[k] = 0, 0
		if d := h - old[k]; d > 0 {
			r.Deposit.Data[k] = d
		} else if d < 0 {
			r.WearMap.Data[k] = -d
		}
	}
}
