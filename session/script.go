package session

import (
	"context"
	"fmt"
	"path/filepath"

	"strata/gpu"
	"strata/procgen"
	"strata/progress"
)

// HasScript reports whether the open landscape was written by a procgen script it carries, so
// File → Run script again can regenerate it.
func (s *Session) HasScript() bool {
	s.fmu.RLock()
	defer s.fmu.RUnlock()
	return s.land != nil && s.land.Script != nil
}

// RunScript runs a procgen script (the Lua graph API, docs/procgen.md) with its containers
// written beside it, on the editor's device, and opens the last container it wrote.
func (s *Session) RunScript(ctx context.Context, script string, report progress.Func, warn func(string)) error {
	res, err := procgen.RunFile(ctx, script, procgen.Options{Out: filepath.Dir(script), Device: s.scriptDevice(),
		CPU: s.pipe.mode == CPU, Progress: report, Warn: warn})
	if err != nil {
		return err
	}
	if len(res.Written) == 0 {
		return fmt.Errorf("session: %s wrote no landscape (it has no terrain.write node)", filepath.Base(script))
	}
	return s.OpenContainer(ctx, res.Written[len(res.Written)-1])
}

// RerunScript regenerates the open landscape in place from the script it carries (guid kept)
// and opens the result.
func (s *Session) RerunScript(ctx context.Context, report progress.Func, warn func(string)) error {
	path := s.Path()
	if path == "" || !s.HasScript() {
		return fmt.Errorf("session: no script wrote this landscape")
	}
	if s.watch != nil {
		s.watch.ownSave(path, true)
		defer s.watch.ownSave(path, false)
	}
	if _, err := procgen.Rerun(ctx, path, procgen.Options{Device: s.scriptDevice(), CPU: s.pipe.mode == CPU,
		Progress: report, Warn: warn}); err != nil {
		return err
	}
	return s.OpenContainer(ctx, path)
}

// scriptDevice lends the session's device to a script run on the GPU evaluator.
func (s *Session) scriptDevice() *gpu.Device {
	if s.pipe.mode != GPU {
		return nil
	}
	return s.dev
}
