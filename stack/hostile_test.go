package stack

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"strata/internal/safeio"
)

// TestHostileStacks is issue 12's classes 7 and 8 for stack.yaml: each file used to be accepted
// and either written back wrong (tiling 1e39 became float32 +Inf in the manifest, a second
// document was silently dropped) or grew the work without bound (500 000 rules). Each is refused
// by name now.
func TestHostileStacks(t *testing.T) {
	rules := func(n int) string {
		return "version: 1\nlayers:\n  - name: a\n  - name: b\n    rules:\n" + strings.Repeat("      - {input: slope}\n", n)
	}
	pops := func(n int) string {
		var b strings.Builder
		b.WriteString("version: 1\nlayers: [{name: a}]\npopulations:\n")
		for i := range n {
			fmt.Fprintf(&b, "  - {name: p%d}\n", i)
		}
		return b.String()
	}
	tests := []struct{ desc, yaml, want string }{
		{"tiling beyond float32", "version: 1\nlayers: [{name: a, tiling: 1e39}]\n", `layers[0] "a": tiling must be a finite float32 > 0 metres, got 1e+39`},
		{"featureSize beyond float32", "version: 1\nnoise: {featureSize: 1e39}\nlayers: [{name: a}]\n", "noise.featureSize: must be a finite number > 0, got 1e+39"},
		{"featureSize 0 in float32 (issue 18)", "version: 1\nnoise: {featureSize: 1e-300}\nlayers: [{name: a}]\n", "noise.featureSize: must be a finite number > 0, got 1e-300"},
		{"a rule's featureSize 0 in float32", "version: 1\nlayers: [{name: a}, {name: b, rules: [{input: noise, featureSize: 1e-300}]}]\n", "featureSize must be > 0 metres, got 1e-300"},
		{"gradientStep beyond float32", "version: 1\ngradientStep: 1e39\nlayers: [{name: a}]\n", "gradientStep: must be a finite number > 0 metres, got 1e+39"},
		{"scale beyond float32", "version: 1\nlayers: [{name: a}]\npopulations: [{name: p, scale: [1, 1e39]}]\n", `populations[0] "p": scale must be finite and > 0`},
		{"density 3e38", "version: 1\nlayers: [{name: a}]\npopulations: [{name: p, density: 3e38}]\n", `populations[0] "p": density must be 0 … 100 instances/m², got 3e+38`},
		{"NaN density", "version: 1\nlayers: [{name: a}]\npopulations: [{name: p, density: .nan}]\n", `populations[0] "p": density must be 0 … 100`},
		{"too many rules", rules(MaxRulesPerLayer + 1), `layers[1] "b": 33 rules, at most 32 per layer`},
		{"too many populations", pops(MaxPopulations + 1), "populations: 17 populations, at most 16"},
		{"layers: []", "version: 1\nlayers: []\n", "layers: no layers"},
	}
	for _, tc := range tests {
		t.Run(tc.desc, func(t *testing.T) {
			s, err := Parse([]byte(tc.yaml), "s.yaml")
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, p := range Errors(Validate(s)) {
				got = append(got, p.String())
				if strings.Contains(p.String(), tc.want) {
					return
				}
			}
			t.Errorf("want %q among %q", tc.want, got)
		})
	}
	// The limits themselves are accepted.
	for _, y := range []string{rules(MaxRulesPerLayer), pops(MaxPopulations)} {
		s, err := Parse([]byte(y), "s.yaml")
		if err != nil || len(Errors(Validate(s))) > 0 {
			t.Errorf("at the limit: %v %v", err, Validate(s))
		}
	}
}

// TestParseRefusesSecondDocument: a multi-document stack.yaml used only its first document.
func TestParseRefusesSecondDocument(t *testing.T) {
	_, err := Parse([]byte("version: 1\nlayers: [{name: a}]\n---\nversion: 1\nlayers: [{name: b}]\n"), "two.yaml")
	var pe *ParseError
	if !errors.As(err, &pe) || pe.Line != 3 || !strings.Contains(err.Error(), "two.yaml:3: a second YAML document") {
		t.Errorf("got %v", err)
	}
	if _, err := Parse([]byte("---\nversion: 1\nlayers: [{name: a}]\n...\n"), "one.yaml"); err != nil {
		t.Errorf("one document with markers: %v", err)
	}
}

// TestLoadRefusesDevices: a FIFO, /dev/zero or a symlink to it as --stack is refused at once, and
// a stack file larger than MaxFileBytes is refused unread.
func TestLoadRefusesDevices(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "s.yaml")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "z.yaml")
	os.Symlink("/dev/zero", link)
	big := filepath.Join(dir, "big.yaml")
	os.WriteFile(big, []byte("#"+strings.Repeat("x", MaxFileBytes)), 0o644)
	for _, tc := range []struct {
		path string
		want error
	}{{fifo, safeio.ErrNotRegular}, {"/dev/zero", safeio.ErrNotRegular}, {link, safeio.ErrNotRegular}, {big, safeio.ErrTooLarge}} {
		done := make(chan error, 1)
		go func() { _, err := Load(tc.path); done <- err }()
		select {
		case err := <-done:
			if !errors.Is(err, tc.want) || !strings.Contains(err.Error(), tc.path) {
				t.Errorf("%s: %v", tc.path, err)
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("%s: hung", tc.path)
		}
	}
}

// TestChannelUses names every rule that reads a channel, as Validate names rules.
func TestChannelUses(t *testing.T) {
	s, err := Parse([]byte("version: 1\nlayers:\n  - name: a\n  - name: snow\n    rules:\n      - {input: slope}\n      - {input: mask, channel: snow}\npopulations:\n  - name: p\n    rules: [{input: channel, channel: wet}]\n"), "s.yaml")
	if err != nil {
		t.Fatal(err)
	}
	got := fmt.Sprint(s.ChannelUses())
	want := `[{layers[1] "snow" rules[1] mask.snow} {populations[0] "p" rules[0] wet}]`
	if got != want {
		t.Errorf("got %s, want %s", got, want)
	}
}

// TestParseErrorsQuoteShort is issue 18's "errors quote at most a short excerpt of a file that
// does not parse": a stack.yaml path pointed at a private key, or a value of 100 000 bytes, is
// quoted by its first bytes on one line, never whole.
func TestParseErrorsQuoteShort(t *testing.T) {
	secret := strings.Repeat("c2VjcmV0", 100)
	for _, tc := range []struct{ desc, yaml, want string }{
		{"a private key", "-----BEGIN OPENSSH PRIVATE KEY-----\n" + secret + "\n-----END OPENSSH PRIVATE KEY-----\n", `want a mapping, got "-----BEGIN OPENSSH PRIVATE KEY----- c2Vj"… (870 bytes)`},
		{"a long number", "version: 1\nlayers: [{name: a, tiling: " + strings.Repeat("9z", 50000) + "}]\n", `want a number, got "9z9z9z9z9z9z9z9z9z9z9z9z9z9z9z9z9z9z9z9z"… (100000 bytes)`},
		{"a long unknown key", "version: 1\n" + strings.Repeat("k", 1000) + ": 1\nlayers: [{name: a}]\n", `unknown key "kkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkk"… (1000 bytes)`},
		{"a long colour", "version: 1\nlayers: [{name: a, tint: \"#" + secret + "\"}]\n", `is not a #rrggbb colour`},
		{"a long boolean", "version: 1\nlayers: [{name: a, rules: [{input: height, invert: " + secret + "}]}]\n", "want true or false"},
	} {
		t.Run(tc.desc, func(t *testing.T) {
			_, err := Parse([]byte(tc.yaml), "s.yaml")
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("got %v, want %q", err, tc.want)
			}
			if len(err.Error()) > 200 || strings.Contains(err.Error(), "\n") || strings.Contains(err.Error(), secret[:48]) {
				t.Errorf("%d bytes, or more than an excerpt: %v", len(err.Error()), err)
			}
		})
	}
}
