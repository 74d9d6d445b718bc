package bake

import (
	"context"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"strata/field"
	"strata/landscape"
	"strata/terraindata"
)

// BakeFigures is what `strata bench bake` reports: one whole bake of the sample, through Run (the
// code path of `strata bake`), with its wall time split by phase.
type BakeFigures struct {
	Size      int // weights texels per side
	Backend   string
	Wall      time.Duration
	Phases    []Phase
	PeakRSS   int64 // bytes, the process's high-water mark after the bake (0: not known here)
	DiskBytes int64 // the container on disk
	Instances int
	Out       string
	Notes     []string
}

// BenchBake bakes the built-in sample with an n×n weights grid (the sample's 4000 m at 4000/n m
// per texel; its height stays 2000²) into out, or into a temporary folder removed afterwards
// when out is "", exactly as `strata bake --sample dunes --resolution 4000/n` does.
func BenchBake(ctx context.Context, n int, cpu bool, out string) (*BakeFigures, error) {
	fig := &BakeFigures{Size: n, Out: out}
	if out == "" {
		dir, err := os.MkdirTemp("", "strata-bench-bake-")
		if err != nil {
			return nil, err
		}
		defer os.RemoveAll(dir)
		out = filepath.Join(dir, "bench.terrainData")
	}
	tm := &Timings{}
	t0 := time.Now()
	r, err := Run(ctx, Job{
		Sources:     landscape.Sources{Sample: "dunes"},
		Out:         out,
		EvalOptions: EvalOptions{Options: Options{Resolution: field.DunesSize / float64(n)}, CPU: cpu, Timings: tm},
	})
	if err != nil {
		return nil, err
	}
	fig.Wall = time.Since(t0)
	fig.Phases = tm.Phases()
	fig.Notes = tm.Notes()
	fig.PeakRSS = PeakRSS()
	fig.Backend = r.Backend
	if w := r.Landscape.Weights; w.W != n || w.H != n {
		return nil, fmt.Errorf("bake: bench: %dx%d weights for --size %d", w.W, w.H, n)
	}
	for _, p := range r.Landscape.Scatter {
		fig.Instances += p.Count
	}
	filepath.WalkDir(out, func(_ string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			if fi, err := d.Info(); err == nil {
				fig.DiskBytes += fi.Size()
			}
		}
		return nil
	})
	return fig, nil
}

// Print writes the figures as the bench command shows them.
func (f *BakeFigures) Print(w io.Writer) {
	fmt.Fprintf(w, "bake: the dunes sample at %d×%d weights (%.4g m texels), %s\n", f.Size, f.Size, field.DunesSize/float64(f.Size), f.Backend)
	var sum time.Duration
	for _, p := range f.Phases {
		fmt.Fprintf(w, "  %-28s %9.1f ms\n", p.Name, ms(p.D))
		sum += p.D
	}
	fmt.Fprintf(w, "  %-28s %9.1f ms   (the phases add to %.1f ms: the device opens while the sample loads,\n", "total, wall", ms(f.Wall), ms(sum))
	fmt.Fprintf(w, "  %-28s %12s the height is encoded and validated while the stack is evaluated)\n", "", "")
	if f.PeakRSS > 0 {
		fmt.Fprintf(w, "  %-28s %9.2f GiB  (%d kB)\n", "peak RSS", float64(f.PeakRSS)/(1<<30), f.PeakRSS/1024)
	}
	fmt.Fprintf(w, "  %-28s %9.1f MB on disk, %d instances\n", "container", float64(f.DiskBytes)/1e6, f.Instances)
	for _, n := range f.Notes {
		fmt.Fprintf(w, "  %s\n", n)
	}
	if f.Out != "" {
		fmt.Fprintf(w, "  kept at %s\n", f.Out)
	}
}

// CompareControls reads the control textures of two containers and returns the share of equal
// bytes and the largest difference over the controls they hold (control1 only when both have
// one): `strata bench bake --compare` holds a GPU bake to the Go reference's.
func CompareControls(a, b string) (equal float64, worst int, err error) {
	read := func(p string) (*landscape.Weights, int, error) {
		c, err := terraindata.Open(p)
		if err != nil {
			return nil, 0, err
		}
		w, err := landscape.ContainerWeights(c)
		if err == nil && w == nil {
			err = fmt.Errorf("bake: %s has no control textures", p)
		}
		return w, len(c.Controls()), err
	}
	wa, na, err := read(a)
	if err != nil {
		return 0, 0, err
	}
	wb, nb, err := read(b)
	if err != nil {
		return 0, 0, err
	}
	if wa.W != wb.W || wa.H != wb.H || na != nb {
		return 0, 0, fmt.Errorf("bake: %s has %d %dx%d controls, %s %d %dx%d", a, na, wa.W, wa.H, b, nb, wb.W, wb.H)
	}
	planes := [][2][]byte{{wa.Lo, wb.Lo}}
	if na > 1 {
		planes = append(planes, [2][]byte{wa.Hi, wb.Hi})
	}
	equal, worst = compareBytes(planes)
	return equal, worst, nil
}
