package main

import (
	"bufio"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// Issue 18 through the command line: every hostile script is refused with exit 1 and a message
// naming the file and line (procgen/hostile_test.go has the cases of each class).
func TestRunHostileScripts(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	fifo := filepath.Join(dir, "fifo.lua")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	chain := "local g = proc.graph()\nlocal r = g:node('s', 'terrain.source'):param('size', {512, 512})\nlocal names = {}\n" +
		"for i = 1, 24 do r = g:node('m' .. i, 'terrain.mask'):input('raster', r):param('max', i) names[i] = 'm' .. i end\n" +
		"g:node('w', 'terrain.write'):input('raster', r):param('name', 'x'):param('layers', {unpack(names, 17, 24)})\n"
	for _, c := range []struct {
		name   string
		script string
		args   []string
		env    string
		want   []string
	}{
		{"fifo", fifo, nil, "", []string{fifo, "FIFO"}},
		{"nesting", write("nest.lua", "local x = "+strings.Repeat("{", 100000)+strings.Repeat("}", 100000)), nil, "",
			[]string{"nest.lua:1: ", "nests more than 200 levels"}},
		{"yield in a metamethod", write("yield.lua", "local co = coroutine.wrap(function()\nlocal t = setmetatable({}, {__index = function() coroutine.yield(1) end})\nreturn t.x end)\nco() co()\n"),
			nil, "", []string{"yield.lua:2: coroutine.yield: cannot yield across"}},
		{"gsub under a timeout", write("gsub.lua", "local s = string.rep('a', 200000)\nwhile true do\nlocal r = s:gsub('a', 'bb')\nend\n"),
			[]string{"--timeout", "300ms"}, "", []string{"gsub.lua:", "stopped after 300ms"}},
		{"concat of references", write("concat.lua", "local big = string.rep('x', 1024 * 1024)\nlocal t = {} for i = 1, 200 do t[i] = big end\nlocal s = table.concat(t)\n"),
			nil, "", []string{"concat.lua:3: table.concat", "64 MiB"}},
		{"doubling a string past STRATA_MEMORY_LIMIT", write("double.lua", "local s = 'xxxxxxxxxxxxxxxx'\nwhile true do\n  s = s .. s\nend\n"), nil, "64MiB",
			[]string{"double.lua:3: the .. operator needs", "past the script's 64 MiB of memory"}},
		{"graph past STRATA_MEMORY_LIMIT", write("chain.lua", chain), nil, "8MiB",
			[]string{"chain.lua:4: ", "terrain.mask", "STRATA_MEMORY_LIMIT=8MiB"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			if c.env != "" {
				t.Setenv("STRATA_MEMORY_LIMIT", c.env)
			}
			args := append([]string{"run", c.script, "--cpu", "--out", filepath.Join(dir, "out")}, c.args...)
			code, _, stderr := runCmd(args...)
			if code != exitFail {
				t.Fatalf("exit %d, want 1: %s", code, stderr)
			}
			for _, w := range c.want {
				if !strings.Contains(stderr, w) {
					t.Errorf("stderr %q does not say %q", stderr, w)
				}
			}
		})
	}
}

// TestRunCtrlC: a strata run process inside a long string.gsub loop gets SIGINT once the script
// says it has started; it exits 1, interrupted, naming the line it was stopped at.
func TestRunCtrlC(t *testing.T) {
	dir := t.TempDir()
	script := filepath.Join(dir, "s.lua")
	os.WriteFile(script, []byte("local s = string.rep('a', 200000)\nprint('started')\nwhile true do\nlocal r = s:gsub('a', 'bb')\nend\n"), 0o644)
	cmd := strataProcess(context.Background(), nil, "run", script, "--cpu", "--out", dir)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(stdout)
	for sc.Scan() {
		if sc.Text() == "started" {
			if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
				t.Fatal(err)
			}
			break
		}
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err = <-done:
	case <-time.After(2 * time.Minute): // not a timing assertion: a run that ignores Ctrl+C
		cmd.Process.Kill()
		t.Fatalf("the interrupted run did not stop:\n%s", stderr.String())
	}
	ee, ok := err.(*exec.ExitError)
	if !ok || ee.ExitCode() != exitFail || !strings.Contains(stderr.String(), "interrupted") || !strings.Contains(stderr.String(), "s.lua:") {
		t.Fatalf("exit %v, want 1, \"interrupted\" and the line:\n%s", err, stderr.String())
	}
}
