package main

import (
	"os"
	"os/exec"
	"strings"
	"testing"
)

// Under the C locale (Debian's default in containers and CI) a command prints nothing of Fyne's
// locale lookup: internal/earlyenv sets LANGUAGE before Fyne's lang package reads the locale, at
// its package initialisation, before main runs.
func TestNoLocaleNoise(t *testing.T) {
	var env []string
	for _, e := range os.Environ() {
		if !strings.HasPrefix(e, "LANGUAGE=") && !strings.HasPrefix(e, "LC_") && !strings.HasPrefix(e, "LANG=") {
			env = append(env, e)
		}
	}
	cmd := exec.Command(os.Args[0], "--help")
	cmd.Env = append(env, asStrata+"=1", "LANG=C.UTF-8")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("strata --help: %v\n%s", err, out)
	}
	if strings.Contains(string(out), "locale") {
		t.Errorf("strata --help under LANG=C.UTF-8 printed:\n%s", out)
	}
}
