package bake

// Level is level k of the weights' pyramid (field.Geometry.Level, docs/design.md "Levels"): the
// texels (i·2^k, j·2^k), which are exactly what the stack evaluated on the level's own grid
// gives. A container's stored controls give every level of the pyramid this way, without the
// stack.
func (w *Weights) Level(k int) *Weights {
	if k <= 0 {
		return w
	}
	d := 1 << k
	out := NewWeights((w.W+d-1)/d, (w.H+d-1)/d)
	for j := 0; j < out.H; j++ {
		for i := 0; i < out.W; i++ {
			o, s := 4*(j*out.W+i), 4*(j*d*w.W+i*d)
			copy(out.Lo[o:o+4], w.Lo[s:s+4])
			copy(out.Hi[o:o+4], w.Hi[s:s+4])
		}
	}
	return out
}
