package landscape

import (
	"context"

	"strata/field"
	"strata/terraindata"
)

// OpenOptions says what an open of a container (OpenWith) tells as it reads it; every field is
// optional.
type OpenOptions struct {
	// Progress hears the rows read so far of all the children the open streams (height, holes,
	// channels, controls, densities), done of total, as each block lands.
	Progress func(done, total int)
	// Rows hears how many of the height's first rows are complete (field.RowsFunc's contract: one
	// call at a time, done increasing, return at once): the editor builds its level-of-detail
	// tree from them while the rest of the container is read (docs/design.md "Progressive
	// open"). When the open fails, what was heard was never a landscape: the consumer drops it.
	Rows field.RowsFunc
	// Range, when not nil, receives the height's lowest and highest value, found as it is read
	// (the editor needs them for its first frame: no second pass over the grid).
	Range *field.Range
}

// reading is one open's OpenOptions with its count of rows read. Its methods are nil-safe (the
// exported readers of single children read without one). The children are streamed one after
// another and each stream calls back one block at a time, so nothing here needs a lock.
type reading struct {
	ctx         context.Context
	progress    func(done, total int)
	rows        field.RowsFunc
	rangeOut    *field.Range
	done, total int
}

// newReading counts the rows of the children an open of c streams (a child whose texture.yaml
// cannot be read counts none: its read reports it).
func newReading(ctx context.Context, c *terraindata.Container, m *terraindata.Manifest, o OpenOptions) *reading {
	r := &reading{ctx: ctx, progress: o.Progress, rows: o.Rows, rangeOut: o.Range}
	if r.progress == nil {
		return r
	}
	refs := []*terraindata.Ref{c.Height(), c.Holes()}
	for name := range m.Channels {
		refs = append(refs, c.Channel(name))
	}
	if cs := c.Controls(); len(cs) > 0 {
		refs = append(refs, cs[:min(len(cs), 2)]...)
	}
	for _, p := range m.Scatter {
		refs = append(refs, c.ScatterDensity(p.Name))
	}
	for _, ref := range refs {
		if ref == nil {
			continue
		}
		if info, err := ref.Info(); err == nil {
			r.total += info.Height
		}
	}
	return r
}

// err is the context's error (nil without a reading).
func (r *reading) err() error {
	if r == nil || r.ctx == nil {
		return nil
	}
	return r.ctx.Err()
}

// read counts n more rows read and tells Progress.
func (r *reading) read(n int) {
	if r == nil || r.progress == nil {
		return
	}
	r.done += n
	r.progress(min(r.done, r.total), r.total)
}
