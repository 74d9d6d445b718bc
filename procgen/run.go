// Package procgen runs procgen scripts: Lua that builds graphs of terrain.* nodes with the
// terrainData seed's API — proc.graph(), g:node(name, type), node:input(slot, node),
// node:param(key, value) — and, once the script returns, evaluates every graph's terrain.write
// nodes and what they depend on, writing each as a terrainData container.
//
// Scripts run in a sandbox (no os, io, require, load*, dofile, debug), read files only below their
// own folder or the asset folders, write only below the output folder, and are stopped by a
// timeout or the caller's context. Masks, stacks and scatter evaluate on the GPU kernels when a
// device exists and on their Go twins otherwise (Options.CPU forces the twins); the two agree as
// the bake's do. docs/procgen.md is the reference: every node type and param, and two scripts.
package procgen

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"time"

	lua "github.com/yuin/gopher-lua"
	"github.com/yuin/gopher-lua/parse"

	"strata/gpu"
	"strata/landscape"
	"strata/progress"
	"strata/terraindata"
)

// DefaultTimeout is how long a script may run (building its graphs) before it is stopped.
const DefaultTimeout = 10 * time.Minute

// DefaultMaxMemory is how much a script's Lua may allocate before it is stopped.
const DefaultMaxMemory = 2 << 30

// ErrTimeout is wrapped by the error of a script stopped by its timeout.
var ErrTimeout = errors.New("the script ran past its timeout")

// ErrMemory is wrapped by the error of a script stopped for allocating too much.
var ErrMemory = errors.New("the script used too much memory")

// Options control a run.
type Options struct {
	// Out is the folder containers are written below ("" = the current folder); it is created
	// when missing. Rerun ignores it: it writes the container it was given.
	Out string
	// Assets are folders asset references resolve below, after the script's own folder.
	Assets []string
	// CPU evaluates with the Go reference instead of the GPU kernels.
	CPU bool
	// Device is a GPU device to borrow (the editor keeps one open): the run compiles its own
	// kernels and targets on it, so an evaluator the viewport shows is left alone, and frees them
	// when it ends. Nil opens a device when a node first needs one and closes it at the end.
	Device *gpu.Device
	// Timeout bounds the script's own run (building its graphs); 0 = DefaultTimeout. Evaluation
	// is not bounded by it: it reports progress and stops when ctx is cancelled.
	Timeout time.Duration
	// Progress receives each node's progress: stage "mask sand", "write bake", … ; nil = none.
	Progress progress.Func
	// Warn receives each warning as one line (an unresolved texture, a GPU fallback).
	Warn func(msg string)
	// Print receives what the script prints; nil discards it.
	Print func(line string)

	maxTexels int     // tests and fuzzing: the largest raster (0 = field.MaxTexels)
	maxSites  float64 // tests and fuzzing: a population's most candidate sites (0 = maxSites)
	maxMemory uint64  // 0 = DefaultMaxMemory
}

// Result is what a run wrote.
type Result struct {
	// Written lists the containers written, in write order. On an error it holds those written
	// before it: each is complete (containers are saved atomically).
	Written []string
	// Backend says which evaluators ran ("GPU …", "Go reference (--cpu)"), in words.
	Backend string
}

// RunFile runs the script at path: it builds the graphs, then evaluates and writes every
// terrain.write node. Errors are *Error (the node, the param, the script's file:line) for what the
// script got wrong; ErrTimeout, ErrMemory or the context's error when it was stopped.
func RunFile(ctx context.Context, path string, opt Options) (Result, error) {
	text, err := os.ReadFile(path)
	if err != nil {
		return Result{}, fmt.Errorf("procgen: %w", err)
	}
	roots := append([]string{filepath.Dir(path)}, opt.Assets...)
	return run(ctx, path, text, roots, opt, "", "")
}

// Rerun generates the container at path again from the script it carries (and the copies of the
// files that script read), in place: the container is replaced atomically and keeps its guid.
// It fails, changing nothing, for a container no script wrote.
func Rerun(ctx context.Context, path string, opt Options) (Result, error) {
	c, err := terraindata.Open(path)
	if err != nil {
		return Result{}, err
	}
	ms := c.Manifest().Script
	if ms == nil || ms.File == "" {
		return Result{}, fmt.Errorf("procgen: %s: no script wrote this container (its manifest has no script)", path)
	}
	// The copy is read as every child is: contained, a regular file, bounded.
	sc, err := landscape.OpenScript(c)
	if err != nil {
		return Result{}, fmt.Errorf("procgen: %w", err)
	}
	sp := filepath.Join(path, filepath.FromSlash(ms.File))
	roots := append([]string{filepath.Dir(sp)}, opt.Assets...)
	return run(ctx, sp, sc.Source, roots, opt, ms.Write, path)
}

// run runs script text (named file for messages). With only set, it evaluates just the
// terrain.write of that name, writing it to dest.
func run(ctx context.Context, file string, text []byte, roots []string, opt Options, only, dest string) (Result, error) {
	b := &builder{maxNodes: maxNodes}
	if err := b.exec(ctx, file, text, &opt); err != nil {
		return Result{}, err
	}
	var writes []*node
	names := map[string]*node{}
	for _, g := range b.graphs {
		for _, n := range g.nodes {
			if n.typ.check != nil {
				if err := n.typ.check(n); err != nil {
					return Result{}, err
				}
			}
			if !n.typ.writes {
				continue
			}
			name := n.str("name", "")
			// Two names that resolve to one container ("x" and "x.terrainData", "a/./x") would
			// write it twice, the second silently replacing the first.
			key := outputKey(name)
			if first := names[key]; first != nil {
				same := ""
				if fn := first.str("name", ""); fn != name {
					same = fmt.Sprintf(" (%q: both write %s)", fn, key)
				}
				return Result{}, n.paramErr("name", "node %s at %s writes %q too%s", first.label(), first.pos, name, same)
			}
			names[key] = n
			if only == "" || name == only {
				writes = append(writes, n)
			}
		}
	}
	if only != "" && len(writes) == 0 {
		return Result{}, fmt.Errorf("procgen: %s: the script has no terrain.write named %q any more", file, only)
	}
	if len(writes) == 0 {
		if opt.Warn != nil {
			opt.Warn(fmt.Sprintf("%s: the script built %d graph(s) with no terrain.write node: nothing was written", file, len(b.graphs)))
		}
		return Result{}, nil
	}
	if dest == "" {
		out := opt.Out
		if out == "" {
			out = "."
		}
		if err := os.MkdirAll(out, 0o755); err != nil {
			return Result{}, fmt.Errorf("procgen: --out: %w", err)
		}
		// Distinct names may still meet on disk through a link below --out.
		real := map[string]*node{}
		for _, n := range writes {
			p, err := outputPath(opt.Out, n.str("name", ""))
			if err != nil {
				continue // refused with its node when written
			}
			if d, err := filepath.EvalSymlinks(filepath.Dir(p)); err == nil {
				p = filepath.Join(d, filepath.Base(p))
			}
			if first := real[p]; first != nil {
				return Result{}, n.paramErr("name", "%q and %q (node %s at %s) both write %s", n.str("name", ""), first.str("name", ""), first.label(), first.pos, p)
			}
			real[p] = n
		}
	}
	e := &evaluator{ctx: ctx, opt: &opt, res: newResolver(roots), dest: dest,
		src: source{name: filepath.Base(file), text: text}}
	if err := e.newEvaluator(); err != nil {
		return Result{}, err
	}
	defer e.release()
	err := e.run(writes)
	return Result{Written: e.written, Backend: strings.Join(e.backend, ", ")}, err
}

// exec runs the script to its end in a fresh sandbox, collecting its graphs into b.
func (b *builder) exec(ctx context.Context, file string, text []byte, opt *Options) error {
	chunk, err := parse.Parse(bytes.NewReader(luaText(text)), file)
	if err != nil {
		var pe *parse.Error
		if errors.As(err, &pe) {
			return &Error{Pos: Pos{File: file, Line: pe.Pos.Line}, Err: fmt.Errorf("syntax error near %q: %s", pe.Token, pe.Message)}
		}
		return &Error{Pos: Pos{File: file}, Err: err}
	}
	fixMethodLines(reflect.ValueOf(chunk))
	proto, err := lua.Compile(chunk, file)
	if err != nil {
		return scriptError(err.Error())
	}
	timeout := opt.Timeout
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	limit := opt.maxMemory
	if limit == 0 {
		limit = DefaultMaxMemory
	}
	lctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	tctx, stop := context.WithTimeoutCause(lctx, timeout, fmt.Errorf("stopped after %v (raise --timeout if it needs longer): %w", timeout, ErrTimeout))
	defer stop()
	L := newState(opt.Print)
	defer L.Close()
	b.install(L)
	L.SetContext(tctx)
	unwatch := watchMemory(cancel, limit)
	L.Push(L.NewFunctionFromProto(proto))
	err = L.PCall(0, 0, nil)
	unwatch()
	if err == nil {
		return nil
	}
	if cause := context.Cause(tctx); cause != nil {
		e := b.luaError(err)
		pos := Pos{File: file}
		var se *Error
		if errors.As(e, &se) {
			pos = se.Pos
		}
		if ctx.Err() != nil { // the caller's cancel (Ctrl+C), not ours
			return fmt.Errorf("procgen: %s: the script was stopped at %s: %w", file, pos, context.Cause(ctx))
		}
		return &Error{Pos: pos, Err: cause}
	}
	return b.luaError(err)
}

// luaText is the script as the parser should see it: a UTF-8 byte order mark dropped and a first
// line starting with # (a shebang) blanked, as the standalone lua does, keeping line numbers.
func luaText(text []byte) []byte {
	text = bytes.TrimPrefix(text, []byte("\xef\xbb\xbf"))
	if len(text) > 0 && text[0] == '#' {
		end := bytes.IndexByte(text, '\n')
		if end < 0 {
			return nil
		}
		return text[end:]
	}
	return text
}
