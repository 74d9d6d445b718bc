package bake

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"strata/gpu"
)

// GPUStart is a GPU opening in the background: the device, the weights kernel and the scatter
// kernel. Opening a device and compiling its kernels takes a few hundred milliseconds; a bake
// starts it before loading its sources, which take as long, so the device start costs no wall
// time (the Go reference opens nothing, and a GPU bake that paid for it lost to it at small sizes).
type GPUStart struct {
	done     chan struct{}
	g        *GPU
	err      error
	took     time.Duration
	parts    string // what took the time: "device 120 ms, weights kernel 40 ms, …"
	mu       sync.Mutex
	consumed bool
}

// StartGPU begins opening the GPU. Hand it to Evaluate through EvalOptions.Start, or Release it.
func StartGPU(ctx context.Context) *GPUStart {
	s := &GPUStart{done: make(chan struct{})}
	go func() {
		defer close(s.done)
		t0 := time.Now()
		defer func() { s.took = time.Since(t0) }()
		d, err := gpu.Open(ctx, gpu.Options{Label: "strata bake"})
		tOpen := time.Since(t0)
		if err != nil {
			s.err = fmt.Errorf("bake: %w", err)
			return
		}
		// The scatter kernel is compiled beside the weights kernel rather than at the first
		// population, and one small read back runs the device's first submission and mapping
		// here, while the sources load, not in the bake's evaluation.
		var sk *gpu.ScatterKernel
		var tScatter, tFirst time.Duration
		var wg sync.WaitGroup
		wg.Add(2)
		go func() {
			defer wg.Done()
			t := time.Now()
			if k, err := d.NewScatterKernel(); err == nil {
				sk = k
			}
			tScatter = time.Since(t)
		}()
		go func() {
			defer wg.Done()
			t := time.Now()
			if wt, err := d.NewWeightsTarget(1, 1); err == nil {
				wt.ReadWeights()
				wt.Release()
			}
			tFirst = time.Since(t)
		}()
		t := time.Now()
		g, err := NewGPU(d)
		tWeights := time.Since(t)
		wg.Wait()
		s.parts = fmt.Sprintf("device %.1f ms, then side by side: weights kernel %.1f ms, scatter kernel %.1f ms, first read back %.1f ms",
			ms(tOpen), ms(tWeights), ms(tScatter), ms(tFirst))
		if err != nil {
			sk.Release()
			d.Release()
			s.err = err
			return
		}
		g.ownDev, g.scatter = true, sk
		s.g = g
	}()
	return s
}

// wait returns the opened GPU (or why not) and hands its ownership to the caller.
func (s *GPUStart) wait() (*GPU, error) {
	<-s.done
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.consumed {
		return nil, errors.New("bake: this GPU start was already used")
	}
	s.consumed = true
	return s.g, s.err
}

// Release frees the GPU unless Evaluate took it. Safe on nil and twice; it waits for the open.
func (s *GPUStart) Release() {
	if s == nil {
		return
	}
	<-s.done
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.consumed {
		s.consumed = true
		s.g.Release()
	}
}
