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
	"github.com/yuin/gopher-lua/ast"
	"github.com/yuin/gopher-lua/parse"

	"strata/gpu"
	"strata/internal/safeio"
	"strata/landscape"
	"strata/progress"
	"strata/terraindata"
)

// MaxScriptBytes bounds a script file: a script is code that builds graphs (data belongs in its
// assets), and its syntax tree is held whole while it is parsed and compiled.
const MaxScriptBytes = 4 << 20

// DefaultTimeout is how long a script may run (building its graphs) before it is stopped.
const DefaultTimeout = 10 * time.Minute

// DefaultMaxMemory is how much a script's Lua may allocate before it is stopped; a lower
// STRATA_MEMORY_LIMIT lowers it to that limit (luaMemory).
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
	text, err := readScript(path)
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

// readScript reads a script file as every other input is read (internal/safeio): a regular file
// after links — a FIFO or a device is refused by name before any read — of at most
// MaxScriptBytes.
func readScript(path string) ([]byte, error) {
	text, err := safeio.ReadFile(path, MaxScriptBytes)
	var le *safeio.LimitError
	if errors.As(err, &le) {
		return nil, fmt.Errorf("%s: the script is %d bytes or more, more than the %d MiB a script may be (keep data in asset files): %w", path, le.Size, MaxScriptBytes>>20, safeio.ErrTooLarge)
	}
	return text, err
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

// exec runs the script to its end in a fresh sandbox, collecting its graphs into b. Parsing and
// compiling run under the same bounds as the script: its timeout, the caller's context and the
// memory watchdog.
func (b *builder) exec(ctx context.Context, file string, text []byte, opt *Options) error {
	timeout := opt.Timeout
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	limit := luaMemory(opt.maxMemory)
	lctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	tctx, stop := context.WithTimeoutCause(lctx, timeout, fmt.Errorf("stopped after %v (raise --timeout if it needs longer): %w", timeout, ErrTimeout))
	defer stop()
	if execHook != nil {
		execHook(cancel)
	}
	guard := newMemGuard(cancel, limit)
	defer guard.stop()
	if guardHook != nil {
		guardHook(guard)
	}
	stopped := func(err error, pos Pos) error {
		if at := scriptError(guard.stoppedAt + " "); guard.stoppedAt != "" && at.Pos.Line > 0 {
			pos = at.Pos // where a built-in saw the stop, before a pcall caught it
		}
		if ctx.Err() != nil { // the caller's cancel (Ctrl+C), not ours
			return fmt.Errorf("procgen: %s: the script was stopped at %s: %w", file, pos, context.Cause(ctx))
		}
		return &Error{Pos: pos, Err: context.Cause(tctx)}
	}
	proto, err := compileScript(tctx, file, text)
	if err != nil {
		var ps *parseStopped
		if errors.As(err, &ps) {
			return stopped(err, Pos{File: file, Line: ps.line})
		}
		return err
	}
	L := newState(opt.Print, guard)
	defer L.Close()
	if err := bindConcat(proto, L.NewFunction(func(L *lua.LState) int { return concat(L, guard) })); err != nil {
		return &Error{Pos: Pos{File: file}, Err: fmt.Errorf("cannot compile: %w", err)}
	}
	b.install(L)
	L.SetContext(tctx)
	L.Push(L.NewFunctionFromProto(proto))
	err = L.PCall(0, 0, nil)
	guard.stop()
	if err == nil {
		return nil
	}
	if context.Cause(tctx) != nil {
		e := b.luaError(err)
		pos := Pos{File: file}
		var se *Error
		if errors.As(e, &se) {
			pos = se.Pos
		}
		return stopped(err, pos)
	}
	return b.luaError(err)
}

// luaMemory is what a script's Lua may allocate: max (0: DefaultMaxMemory), and never more than
// STRATA_MEMORY_LIMIT (a limit of 512 MiB let `s = s .. s` reach 4 GiB under the 2 GiB default).
func luaMemory(max uint64) uint64 {
	if max == 0 {
		max = DefaultMaxMemory
	}
	if lim, _ := memoryLimit(); lim > 0 {
		max = min(max, lim)
	}
	return max
}

// execHook, when set (tests), receives the cancel of each script's context as it starts: what the
// memory watchdog calls, so a test can stop a script as the watchdog would, on an event.
var execHook func(cancel context.CancelCauseFunc)

// guardHook, when set (tests), receives each script's memory guard as it starts, so a test can
// read the peak the watchdog accounted.
var guardHook func(g *memGuard)

// maxSyntaxDepth bounds how deeply a script's expressions and blocks nest (Lua 5.1's own parser
// stops at 200 levels, LUAI_MAXCCALLS): gopher-lua's compiler recurses once per level, and
// 100 000 nested calls or ifs took seconds and gigabytes to compile, a million the Go stack.
const maxSyntaxDepth = 200

// parseStopped is how a parse stopped by the context leaves the parser (which recovers panics
// into errors): the reader panics with it.
type parseStopped struct {
	cause error
	line  int
}

func (p *parseStopped) Error() string { return p.cause.Error() }
func (p *parseStopped) Unwrap() error { return p.cause }

// ctxReader hands the parser the script in small reads and stops it, by panicking with
// parseStopped, once ctx is done: the parser has no context of its own.
type ctxReader struct {
	ctx  context.Context
	r    *bytes.Reader
	text []byte
}

func (c *ctxReader) Read(p []byte) (int, error) {
	if c.ctx.Err() != nil {
		read := len(c.text) - c.r.Len()
		panic(&parseStopped{cause: context.Cause(c.ctx), line: 1 + bytes.Count(c.text[:read], []byte("\n"))})
	}
	if len(p) > 4096 {
		p = p[:4096]
	}
	return c.r.Read(p)
}

// compileScript parses and compiles text under ctx: a syntax error, a script nested deeper than
// maxSyntaxDepth or one the compiler refuses is an *Error at its line; a stop is *parseStopped.
func compileScript(ctx context.Context, file string, text []byte) (*lua.FunctionProto, error) {
	text = luaText(text)
	chunk, err := parse.Parse(&ctxReader{ctx: ctx, r: bytes.NewReader(text), text: text}, file)
	if err != nil {
		var ps *parseStopped
		var pe *parse.Error
		switch {
		case errors.As(err, &ps):
			return nil, ps
		case errors.As(err, &pe):
			return nil, &Error{Pos: Pos{File: file, Line: pe.Pos.Line}, Err: fmt.Errorf("syntax error near %q: %s", clip(pe.Token, 40), pe.Message)}
		}
		return nil, &Error{Pos: Pos{File: file}, Err: err}
	}
	if chunk == nil && len(bytes.TrimSpace(text)) > 0 {
		return nil, &Error{Pos: Pos{File: file}, Err: errors.New("the parser failed on this script")}
	}
	if line := tooDeep(reflect.ValueOf(chunk), 0); line != 0 {
		return nil, &Error{Pos: Pos{File: file, Line: line}, Err: fmt.Errorf("the script nests more than %d levels of expressions and blocks here (use local variables or functions)", maxSyntaxDepth)}
	}
	if err := ctx.Err(); err != nil {
		return nil, &parseStopped{cause: context.Cause(ctx)}
	}
	fixMethodLines(reflect.ValueOf(chunk))
	rewriteConcat(reflect.ValueOf(chunk))
	proto, err := compile(chunk, file)
	if err != nil {
		var ce *lua.CompileError
		if errors.As(err, &ce) {
			return nil, &Error{Pos: Pos{File: file, Line: ce.Line}, Err: fmt.Errorf("cannot compile: %s", ce.Message)}
		}
		return nil, scriptError(err.Error())
	}
	return proto, nil
}

// compile is lua.Compile with its panics (it has a few on trees the parser accepts) as errors.
func compile(chunk []ast.Stmt, file string) (proto *lua.FunctionProto, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = &Error{Pos: Pos{File: file}, Err: fmt.Errorf("cannot compile: %v", r)}
		}
	}()
	return lua.Compile(chunk, file)
}

// tooDeep walks a syntax tree and returns the line of the first node nested more than
// maxSyntaxDepth expressions or statements deep, 0 when none is. It stops descending there, so its
// own recursion is bounded too.
func tooDeep(v reflect.Value, depth int) int {
	switch v.Kind() {
	case reflect.Interface, reflect.Pointer:
		if v.IsNil() {
			return 0
		}
		if n, ok := v.Interface().(interface{ Line() int }); ok && v.Kind() == reflect.Pointer {
			if depth++; depth > maxSyntaxDepth {
				return max(n.Line(), 1)
			}
		}
		return tooDeep(v.Elem(), depth)
	case reflect.Struct:
		for i := 0; i < v.NumField(); i++ {
			if l := tooDeep(v.Field(i), depth); l != 0 {
				return l
			}
		}
	case reflect.Slice:
		for i := 0; i < v.Len(); i++ {
			if l := tooDeep(v.Index(i), depth); l != 0 {
				return l
			}
		}
	}
	return 0
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
