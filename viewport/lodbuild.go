package viewport

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"strata/internal/pool"
)

// Tree is a ground's level-of-detail tree built before its scene (TreeBuilder): Scene.Tree hands
// it to SetScene, which then draws with it instead of building its own. The renderer owns it from
// then on (a stroke updates it in place).
type Tree struct {
	t *lodTree
}

// GridSize is the height grid the tree was built over.
func (t *Tree) GridSize() (w, h int) { return t.t.w, t.t.h }

// TreeBuilder builds a ground's level-of-detail tree while its rows arrive (a heightmap being
// read, field.LoadHeightRows): on a goroutine of its own, each row of nodes is computed as soon
// as every height row under it is complete, the leaves' first and then their parents', so when
// the last row arrives only the nodes over the last band and the levels' last rows are left.
// The tree is the one SetScene would build over the same heights, bit for bit: the same nodes,
// computed by the same code, only sooner (docs/design.md "Progressive open").
type TreeBuilder struct {
	t   *lodTree
	row func(j int) []float32

	ctx    context.Context // cancelled by Stop: the pool stops handing out node rows
	cancel context.CancelFunc

	mu      sync.Mutex // guards the fields below
	wake    *sync.Cond
	avail   int // rows complete, as Rows was told
	seen    int // rows the builder has taken into account
	stopped bool

	next []int         // per level, the first node row not computed yet (the builder's own)
	done chan struct{} // closed when the builder's goroutine returns
	err  error         // why it returned without a tree (set before done is closed)
}

// NewTreeBuilder starts building the tree of a w×h grid whose row j, once Rows has reported it
// complete, is row(j) (w heights, not written again while the builder runs). Stop it, or wait
// for its tree (Tree), or its goroutine runs until the process ends.
func NewTreeBuilder(w, h int, row func(j int) []float32) (*TreeBuilder, error) {
	if w < 2 || h < 2 {
		return nil, fmt.Errorf("viewport: tree: height grid %dx%d must be at least 2x2", w, h)
	}
	b := &TreeBuilder{t: allocLODTree(w, h), done: make(chan struct{})}
	b.row = func(j int) []float32 { return row(min(j, h-1)) }
	b.next = make([]int, b.t.levels)
	b.wake = sync.NewCond(&b.mu)
	b.ctx, b.cancel = context.WithCancel(context.Background())
	go b.run()
	return b, nil
}

// Rows says rows 0 … done-1 are complete. It returns at once (the work is the builder's
// goroutine's): a decoder calls it between bands.
func (b *TreeBuilder) Rows(done int) {
	b.mu.Lock()
	if done > b.avail {
		b.avail = min(done, b.t.h)
		b.wake.Signal()
	}
	b.mu.Unlock()
}

// Stop abandons the build (the read failed, the open was cancelled) and waits for the builder's
// goroutine, which stops within a row of nodes. Safe twice, after Tree, and on nil.
func (b *TreeBuilder) Stop() {
	if b == nil {
		return
	}
	b.cancel()
	b.mu.Lock()
	b.stopped = true
	b.wake.Signal()
	b.mu.Unlock()
	<-b.done
}

var errTreeStopped = errors.New("viewport: tree: the build was stopped")

// Tree waits for the tree, once every row has been reported (Rows(h)), and returns it: the
// builder is done with it. Cancelling ctx stops the build.
func (b *TreeBuilder) Tree(ctx context.Context) (*Tree, error) {
	b.mu.Lock()
	avail := b.avail
	b.mu.Unlock()
	if avail < b.t.h {
		b.Stop()
		return nil, fmt.Errorf("viewport: tree: %d of the grid's %d rows arrived", avail, b.t.h)
	}
	select {
	case <-b.done:
	case <-ctx.Done():
		b.Stop()
		return nil, ctx.Err()
	}
	if b.err != nil {
		return nil, b.err
	}
	return &Tree{t: b.t}, nil
}

// run computes the rows of nodes the complete rows allow, level by level from the leaves up,
// whenever more rows are complete, until the root is done or the build is stopped.
func (b *TreeBuilder) run() {
	defer close(b.done)
	t := b.t
	for {
		b.mu.Lock()
		for b.seen == b.avail && !b.stopped {
			b.wake.Wait()
		}
		if b.stopped {
			b.mu.Unlock()
			b.err = errTreeStopped
			return
		}
		avail := b.avail
		b.seen = avail
		b.mu.Unlock()
		for l := t.levels - 1; l >= 0; l-- {
			// A node row reads no row past its children's last: once its rows are complete, its
			// children's are too, and were computed (by this pass, a level below, or before).
			from, to := b.next[l], b.next[l]
			for to < t.nodeRows(l) && t.rowsUnder(l, to) <= avail {
				to++
			}
			if to-from == 1 {
				// As the rows arrive: one row of nodes at a time, then wait for more. (No
				// runtime.Gosched between rows: a yielded goroutine goes to the global queue,
				// which an idle P serves before it steals, so the builder would keep the core the
				// decode's next stage is waiting to be stolen onto.)
				t.nodeRow(b.row, l, from)
			} else if to > from && pool.Each(b.ctx, to-from, 0, func(k int) { t.nodeRow(b.row, l, from+k) }, nil) != nil {
				b.err = errTreeStopped
				return
			}
			b.next[l] = to
		}
		if b.next[0] == t.nodeRows(0) {
			return
		}
	}
}
