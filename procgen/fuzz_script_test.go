package procgen

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// FuzzScript feeds arbitrary bytes to the Lua front end as a script file — read, parsed,
// compiled, run, its graphs evaluated and written — under tight bounds: 50 ms of Lua, 64 MiB of
// it, rasters of at most 64², the Go reference. Whatever the text, the run ends with an *Error (a
// syntax error, a refusal, a stop) or valid containers: never a panic, never a hang. Its corpus,
// testdata/fuzz/FuzzScript, holds the issue 18 classes: quadratic built-ins, deep nesting,
// yields across Go, allocations of known size, long cycles and messages, bytes that are no Lua.
//
//	go test -run '^$' -fuzz '^FuzzScript$' -fuzztime 5m -parallel 1 ./procgen/
func FuzzScript(f *testing.F) {
	f.Add([]byte(src + "g:node(\"w\", \"terrain.write\"):input(\"raster\", s):param(\"name\", \"x\"):param(\"layers\", {\"m\"})\n"))
	f.Fuzz(func(t *testing.T, script []byte) {
		dir := t.TempDir()
		p := filepath.Join(dir, "s.lua")
		if err := os.WriteFile(p, script, 0o644); err != nil {
			t.Fatal(err)
		}
		opt := fuzzOptions(filepath.Join(dir, "out"))
		opt.maxMemory = 64 << 20
		type outcome struct {
			res Result
			err error
		}
		done := make(chan outcome, 1)
		go func() {
			res, err := RunFile(context.Background(), p, opt)
			done <- outcome{res, err}
		}()
		// Not a timing assertion: a run bounded by 50 ms that has not ended after minutes hangs.
		select {
		case o := <-done:
			checkFuzzRun(t, o.res, o.err)
		case <-time.After(3 * time.Minute):
			t.Fatalf("the run did not end: a hang on %q", clip(string(script), 200))
		}
	})
}
