package session

import (
	"context"
	"image"
	"math"
	"strings"

	"strata/field"
	"strata/internal/pool"
	"strata/stack"
)

// gridRange is g's lowest and highest value, on every core.
func gridRange(g *field.Grid) [2]float64 {
	var b bandRanges
	return b.update(g, image.Rectangle{})
}

// rangeBlock is the side of the square blocks of texels bandRanges keeps a range of.
const rangeBlock = 64

// bandRanges keeps a grid's lowest and highest value per block of rangeBlock² texels, so an edit
// of a rectangle reads only the blocks it reached again (a sculpt dab on a 2000² field read the
// whole grid at every dab: 12 ms of CPU of the ~200 a dab costs, docs/PERFORMANCE.md "Sculpt";
// bands of 256 whole rows still read 1–2 M texels of a 4096² field a dab, 5.7 ms on the H200's
// host, docs/PERFORMANCE.md "dab16"); the range is then the blocks' (4096 of them at 4096²).
type bandRanges struct {
	g      *field.Grid
	n      int // len(g.Data) the blocks were computed for
	bx, by int // blocks across and down
	lo, hi []float32
}

// update returns g's range after the values in rect changed (empty: every block is read again,
// as it is for a grid it does not hold).
func (b *bandRanges) update(g *field.Grid, rect image.Rectangle) [2]float64 {
	if g == nil || len(g.Data) == 0 || g.W <= 0 || g.H <= 0 {
		*b = bandRanges{}
		return [2]float64{}
	}
	bx, by := (g.W+rangeBlock-1)/rangeBlock, (g.H+rangeBlock-1)/rangeBlock
	blocks := image.Rect(0, 0, bx, by)
	if b.g != g || b.n != len(g.Data) || b.bx != bx || b.by != by || rect.Empty() {
		b.g, b.n, b.bx, b.by = g, len(g.Data), bx, by
		b.lo, b.hi = make([]float32, bx*by), make([]float32, bx*by)
	} else {
		r := rect.Intersect(image.Rect(0, 0, g.W, g.H))
		if r.Empty() {
			blocks = image.Rectangle{}
		} else {
			blocks = image.Rect(r.Min.X/rangeBlock, r.Min.Y/rangeBlock, (r.Max.X-1)/rangeBlock+1, (r.Max.Y-1)/rangeBlock+1)
		}
	}
	// A row of blocks a task: the whole grid's on every core, a dab's few inline.
	rowOf := func(j int) {
		for i := blocks.Min.X; i < blocks.Max.X; i++ {
			x0, x1 := i*rangeBlock, min((i+1)*rangeBlock, g.W)
			lo, hi := g.Data[j*rangeBlock*g.W+x0], g.Data[j*rangeBlock*g.W+x0]
			for y := j * rangeBlock; y < min((j+1)*rangeBlock, g.H); y++ {
				for _, v := range g.Data[y*g.W+x0 : y*g.W+x1] {
					lo, hi = min(lo, v), max(hi, v)
				}
			}
			b.lo[j*bx+i], b.hi[j*bx+i] = lo, hi
		}
	}
	if n := blocks.Dx() * blocks.Dy(); n > 64 {
		pool.Each(context.Background(), blocks.Dy(), 0, func(k int) { rowOf(blocks.Min.Y + k) }, nil)
	} else {
		for j := blocks.Min.Y; j < blocks.Max.Y; j++ {
			rowOf(j)
		}
	}
	lo, hi := b.lo[0], b.hi[0]
	for k := range b.lo {
		lo, hi = min(lo, b.lo[k]), max(hi, b.hi[k])
	}
	return [2]float64{float64(lo), float64(hi)}
}

// keptRange reports whether the session keeps channel name's range (not a mask's: 0…1).
func keptRange(name string) bool { return !strings.HasPrefix(name, field.MaskPrefix) }

// channelRanges computes the ranges a session keeps of field f's stored channels, in the
// background after the open numbered open (the height's is computed first: the scene and the
// camera need it), into the session's ranges — unless another open came since, or an edit's
// range has landed there first (rangeChanged).
func (s *Session) channelRanges(f *field.Field, open uint64) {
	set := false
	defer func() {
		if set {
			s.emit(Event{Kind: EventDocument}) // the panels' channel sliders take their ranges
		}
	}()
	// The worker may add a channel (a new mask) meanwhile: the map is read under fmu. Stored
	// channels' values are never painted, so their grids are read without it.
	s.fmu.RLock()
	grids := map[string]*field.Grid{}
	for name, g := range f.Channels {
		if keptRange(name) {
			grids[name] = g
		}
	}
	s.fmu.RUnlock()
	for name, g := range grids {
		r := gridRange(g)
		s.mu.Lock()
		if s.opens != open {
			s.mu.Unlock()
			return
		}
		if _, ok := s.ranges[name]; !ok {
			s.ranges[name] = r
			set = true
		}
		s.mu.Unlock()
	}
}

// rangeChanged recomputes the range of a grid an edit wrote inside rect (the worker, which alone
// writes the field: no lock needed to read it) — the height ("": only the bands of rows rect
// reaches are read again, pipeline.heightBands) or a stored channel.
func (s *Session) rangeChanged(target string, rect image.Rectangle) {
	if target != "" && !keptRange(target) {
		return
	}
	var g *field.Grid
	if target == "" {
		g = s.land.Field.Height
	} else {
		g = s.land.Field.Channels[target]
	}
	var r [2]float64
	switch {
	case g != nil && target == "":
		r = s.pipe.heightBands.update(g, rect)
	case g != nil:
		r = gridRange(g)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if g == nil {
		delete(s.ranges, target)
	} else {
		s.ranges[target] = r
	}
}

// InputRange is the span a rule's slider covers for an input, in that input's unit, with the
// unit's symbol: the field's height range (with a margin), 0–90° of slope, 0–360° of aspect, the curvature the
// field reaches, 0–1 for masks, noise and layer weights, and a channel's stored range.
type InputRange struct {
	Lo, Hi float64
	Unit   string
}

// RangeFor returns the slider range for a rule reading input (channel: the field channel name).
func (s *Session) RangeFor(in stack.Input, channel string) InputRange {
	fi := s.Field()
	switch in {
	case stack.InputHeight:
		lo, hi := fi.HeightRange[0], fi.HeightRange[1]
		m := math.Max(1, 0.05*(hi-lo))
		return InputRange{math.Floor(lo - m), math.Ceil(hi + m), "m"}
	case stack.InputSlope:
		return InputRange{0, 90, "°"}
	case stack.InputAspect:
		return InputRange{0, stack.AspectFull, "°"}
	case stack.InputCurvature:
		// A gully or ridge a few texels across: ±4·(height range)/(field size)².
		t := fi.Texel[0]
		if !(t > 0) {
			t = 1
		}
		c := math.Max(0.001, 4*(fi.HeightRange[1]-fi.HeightRange[0])/math.Max(1, (32*t)*(32*t)))
		return InputRange{-c, c, "1/m"}
	case stack.InputFlow:
		// log10(m²): from one texel's area (the least a texel gathers) to the whole field's.
		lo := math.Floor(math.Log10(math.Max(fi.Texel[0]*fi.Texel[1], 1e-20)))
		hi := math.Ceil(math.Log10(math.Max(fi.Size[0]*fi.Size[1], 1e-20)))
		if !(hi > lo) {
			hi = lo + 1
		}
		return InputRange{lo, hi, "log10 m²"}
	case stack.InputMask, stack.InputNoise, stack.InputLayer:
		return InputRange{0, 1, "0..1"}
	case stack.InputChannel:
		if !keptRange(channel) {
			return InputRange{0, 1, "stored unit"}
		}
		r, ok := fi.ChannelRange[channel]
		if !ok || !(r[1] > r[0]) {
			return InputRange{0, 1, "stored unit"}
		}
		m := 0.05 * (r[1] - r[0])
		return InputRange{r[0] - m, r[1] + m, "stored unit"}
	}
	return InputRange{0, 1, ""}
}
