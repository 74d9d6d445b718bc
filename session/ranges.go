package session

import (
	"math"

	"strata/stack"
)

// InputRange is the span a rule's slider covers for an input, in that input's unit, with the
// unit's symbol: the field's height range (with a margin), 0–90° of slope, the curvature the
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
	case stack.InputCurvature:
		// A gully or ridge a few texels across: ±4·(height range)/(field size)².
		t := fi.Texel[0]
		if !(t > 0) {
			t = 1
		}
		c := math.Max(0.001, 4*(fi.HeightRange[1]-fi.HeightRange[0])/math.Max(1, (32*t)*(32*t)))
		return InputRange{-c, c, "1/m"}
	case stack.InputMask, stack.InputNoise, stack.InputLayer:
		return InputRange{0, 1, "0..1"}
	case stack.InputChannel:
		r, ok := fi.ChannelRange[channel]
		if !ok || !(r[1] > r[0]) {
			return InputRange{0, 1, "stored unit"}
		}
		m := 0.05 * (r[1] - r[0])
		return InputRange{r[0] - m, r[1] + m, "stored unit"}
	}
	return InputRange{0, 1, ""}
}
