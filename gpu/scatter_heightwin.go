package gpu

import (
	"image"
	"slices"

	"github.com/cogentcore/webgpu/wgpu"

	"strata/field"
)

// The place kernel's height windows: the texels of the height grid its bands read, held on the
// device between runs (placeState.wins) and brought up to date by an edit's rows.

// placeWin is one window of a height grid held in a buffer of its own.
type placeWin struct {
	buf  *Buffer
	of   *field.Grid
	w, h int
	win  image.Rectangle
}

func (w *placeWin) bytes() int64 { return int64(w.win.Dx()) * int64(w.win.Dy()) * 4 }

// holdWindows makes every band's height window resident and sets each band's win and buf to the
// window that serves it: a held window of the same grid that covers it when the job's height is
// unchanged, else a fresh upload (an unchanged promise about another grid is not trusted). Held
// windows past the resident budget are let go after the run (trimWindows).
func (k *ScatterKernel) holdWindows(job PlaceJob, bands []placeBand) error {
	s := &k.place
	h := job.Height
	if !job.HeightUnchanged {
		edited := job.HeightEdited.Intersect(image.Rect(0, 0, h.W, h.H))
		for _, w := range s.wins {
			if w.of != h {
				continue
			}
			if job.HeightEdited.Empty() || w.w != h.W || w.h != h.H {
				w.of = nil // its values may have changed in place
				continue
			}
			if err := k.writeWindowRows(w, h, edited); err != nil {
				w.of = nil
				return err
			}
		}
	}
	used := map[*placeWin]bool{}
	for bi := range bands {
		b := &bands[bi]
		var hit *placeWin
		for _, w := range s.wins {
			if w.of == h && w.w == h.W && w.h == h.H && b.win.In(w.win) {
				hit = w
				break
			}
		}
		if hit == nil {
			w, err := k.uploadWindow(h, b.win, used)
			if err != nil {
				return err
			}
			hit = w
		}
		used[hit] = true
		b.win, b.buf = hit.win, hit.buf
		// Most recently used last.
		s.wins = append(slices.DeleteFunc(s.wins, func(w *placeWin) bool { return w == hit }), hit)
	}
	return nil
}

// trimWindows lets go of held windows past the resident budget, least recently used first (after
// a run's submission: a released buffer lives on until the work reading it is done).
func (s *placeState) trimWindows() {
	var held int64
	for _, w := range s.wins {
		held += w.bytes()
	}
	for len(s.wins) > 0 && held > s.resident {
		held -= s.wins[0].bytes()
		s.wins[0].buf.Release()
		s.wins = s.wins[1:]
	}
}

// uploadWindow writes window win of the height grid h (its rows packed) into a buffer: a held
// one of another grid or rect that this job does not read, or a new one.
func (k *ScatterKernel) uploadWindow(h *field.Grid, win image.Rectangle, used map[*placeWin]bool) (*placeWin, error) {
	s := &k.place
	need := uint64(win.Dx() * win.Dy() * 4)
	var held int64
	for _, c := range s.wins {
		held += c.bytes()
	}
	// A stale buffer (a changed or other grid) first; a valid one of another rect only when a
	// new buffer would pass the resident budget.
	var w *placeWin
	for _, c := range s.wins {
		if !used[c] && (c.of == nil || c.of != h) && c.buf.Cap >= need {
			w = c
			break
		}
	}
	if w == nil && held+int64(need) > s.resident {
		for _, c := range s.wins {
			if !used[c] && c.buf.Cap >= need {
				w = c
				break
			}
		}
	}
	if w == nil {
		b, err := s.dev.NewBuffer("scatter place height window", uint64(max(win.Dx()*win.Dy()*4, 4)), wgpu.BufferUsageStorage)
		if err != nil {
			return nil, err
		}
		w = &placeWin{buf: b}
		s.wins = append(s.wins, w)
	}
	w.of = nil
	var vals []float32
	if win.Min.X == 0 && win.Dx() == h.W {
		vals = h.Data[win.Min.Y*h.W : win.Max.Y*h.W]
	} else {
		vals = make([]float32, 0, win.Dx()*win.Dy())
		for j := win.Min.Y; j < win.Max.Y; j++ {
			vals = append(vals, h.Data[j*h.W+win.Min.X:j*h.W+win.Max.X]...)
		}
	}
	if _, err := w.buf.Upload(k.scratch.floats(vals)); err != nil {
		return nil, err
	}
	w.of, w.w, w.h, w.win = h, h.W, h.H, win
	s.heightUploads++
	return w, nil
}

// writeWindowRows writes the texels r of the height grid h into the held window w, where they
// lie inside it: whole rows of the window in one write when r spans its width, else a write per
// row of r's part (one error scope for all of them).
func (k *ScatterKernel) writeWindowRows(w *placeWin, h *field.Grid, r image.Rectangle) error {
	r = r.Intersect(w.win)
	if r.Empty() {
		return nil
	}
	s := &k.place
	d := k.dev
	ww := w.win.Dx()
	if r.Min.X == w.win.Min.X && r.Max.X == w.win.Max.X && w.win.Min.X == 0 && ww == h.W {
		// The window's rows are the grid's: one contiguous write.
		off := uint64((r.Min.Y-w.win.Min.Y)*ww) * 4
		data := k.scratch.floats(h.Data[r.Min.Y*h.W : r.Max.Y*h.W])
		d.counts.writeBytes.Add(int64(len(data)))
		s.heightEdits++
		return d.Do("write "+w.buf.Label, func() error { return d.Queue.WriteBuffer(w.buf.Buf, off, data) })
	}
	var n int64
	err := d.Do("write "+w.buf.Label, func() error {
		for j := r.Min.Y; j < r.Max.Y; j++ {
			off := uint64((j-w.win.Min.Y)*ww+r.Min.X-w.win.Min.X) * 4
			data := k.scratch.floats(h.Data[j*h.W+r.Min.X : j*h.W+r.Max.X])
			n += int64(len(data))
			if err := d.Queue.WriteBuffer(w.buf.Buf, off, data); err != nil {
				return err
			}
		}
		return nil
	})
	d.counts.writeBytes.Add(n)
	s.heightEdits++
	return err
}
