package world

import (
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"
)

// What the job files may hold. Every value Strata writes into bake-job.yaml or bake.sbatch — the
// world's folder, the paths below it, --image, --claim, --mount, --volume-root, the strata binary —
// is checked here before a byte is written: a newline in any of them would end a YAML scalar or a
// shell line and let the rest of the value be read as more of the file (a second YAML document
// with a privileged Pod, a command of its own in the Slurm script). Values are then quoted where
// they are written (YAML double quotes, shell single quotes, sbatch double quotes), so a space or
// a quote in a path is data; checking first is what makes the quoting sufficient.

// CheckJobText refuses a value bound for a job file that holds a control character (C0, DEL, C1),
// a Unicode line or paragraph separator, or bytes that are not UTF-8. what names the value for
// the message ("--mount", "the world folder").
func CheckJobText(what, v string) error {
	if !utf8.ValidString(v) {
		return fmt.Errorf("world: %s %s: not UTF-8: values written into %s and %s must be text", what, quoteShort(v), K8sFile, SlurmFile)
	}
	for i, r := range v {
		if r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) || r == '\u2028' || r == '\u2029' {
			return fmt.Errorf("world: %s %s: a control character (U+%04X) at byte %d: values written into %s and %s may not hold control characters or line breaks",
				what, quoteShort(v), r, i, K8sFile, SlurmFile)
		}
	}
	return nil
}

// quoteShort quotes v on one line, cut to its first 80 bytes.
func quoteShort(v string) string {
	if len(v) > 80 {
		cut := 80
		for cut > 0 && !utf8.RuneStart(v[cut]) {
			cut--
		}
		return fmt.Sprintf("%q…", v[:cut])
	}
	return fmt.Sprintf("%q", v)
}

// dns1123 is a Kubernetes object name (RFC 1123 subdomain): what a claimName must be.
var dns1123 = regexp.MustCompile(`^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$`)

// CheckEmit checks what the emitters of the named kinds ("k8s", "slurm") would write for a world
// at dir with options o, before the plan runs (the emitters check again): every value free of
// control characters, the image a reference without white space, the claim a Kubernetes name, the
// mount an absolute path, and for Slurm a world path its --output pattern can name.
func CheckEmit(dir string, o EmitOptions, kinds ...string) error {
	o.defaults()
	abs, err := filepath.Abs(dir)
	if err != nil {
		return fmt.Errorf("world: %s: %w", dir, err)
	}
	if err := CheckJobText("the world folder", abs); err != nil {
		return err
	}
	for _, k := range kinds {
		switch k {
		case "k8s":
			if err := o.checkK8s(); err != nil {
				return err
			}
		case "slurm":
			if err := checkSlurmDir(abs); err != nil {
				return err
			}
			if o.Strata != "" {
				if err := CheckJobText("--strata", o.Strata); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// checkK8s checks the Kubernetes options (after defaults).
func (o *EmitOptions) checkK8s() error {
	for _, v := range [][2]string{{"--image", o.Image}, {"--claim", o.Claim}, {"--mount", o.Mount}, {"--volume-root", o.VolumeRoot}} {
		if err := CheckJobText(v[0], v[1]); err != nil {
			return err
		}
	}
	if strings.IndexFunc(o.Image, unicode.IsSpace) >= 0 || strings.HasPrefix(o.Image, "-") {
		return fmt.Errorf("world: --image %s: an image reference has no white space and does not start with '-'", quoteShort(o.Image))
	}
	if len(o.Claim) > 253 || !dns1123.MatchString(o.Claim) {
		return fmt.Errorf("world: --claim %s: a PersistentVolumeClaim name is lower-case letters, digits, '-' and '.' (at most 253)", quoteShort(o.Claim))
	}
	if !strings.HasPrefix(o.Mount, "/") || strings.Contains(o.Mount, `\`) {
		return fmt.Errorf("world: --mount %s: want an absolute path inside the pod, with '/'", quoteShort(o.Mount))
	}
	return nil
}

// checkSlurmDir refuses a world folder (absolute) that Slurm's --output pattern cannot name:
// '%' starts a replacement, and a backslash turns every replacement off (the tasks' logs would
// all be one file named …%A_%a.log).
func checkSlurmDir(abs string) error {
	if err := CheckJobText("the world folder", abs); err != nil {
		return err
	}
	if i := strings.IndexAny(abs, "%\\"); i >= 0 {
		return fmt.Errorf("world: %s: Slurm's --output cannot name a path holding %q: move the world", abs, abs[i])
	}
	return nil
}

// ShellQuote quotes s for a POSIX shell when it holds anything but safe characters, so a command
// printed for the user runs as printed when pasted.
func ShellQuote(s string) string { return shellQuote(s) }

// ShellArg is a path as a shell argument of a strata command: quoted, and a relative path that
// starts with '-' written ./-x, so the command does not read it as a flag.
func ShellArg(p string) string {
	if strings.HasPrefix(p, "-") {
		p = "./" + p
	}
	return shellQuote(p)
}
