// Package locale sets LANGUAGE=en when the process runs under the C (or POSIX) locale and
// LANGUAGE is unset — Debian's default in containers and CI. Fyne's lang package reads the locale
// while it initialises, before main runs, and cannot parse "C": every strata command, headless
// ones included, then logged "Fyne error: Error parsing user locale C" on stderr.
//
// It is a module of its own (required and replaced in ../../go.mod) only for its import path:
// Go initialises packages in import-path order once their imports are, and "early.local/locale"
// sorts before "fyne.io/...", so this init runs first. main imports it for that side effect.
// TestNoLocaleNoise checks it.
package locale

import (
	"os"
	"strings"
)

func init() {
	if os.Getenv("LANGUAGE") != "" {
		return
	}
	// The variable that decides the locale, in POSIX order of precedence.
	for _, k := range []string{"LC_ALL", "LC_MESSAGES", "LANG"} {
		if v := os.Getenv(k); v != "" {
			if v == "C" || v == "POSIX" || strings.HasPrefix(v, "C.") {
				os.Setenv("LANGUAGE", "en")
			}
			return
		}
	}
}
