package main

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"image"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// TestEditorWindow is the real-window test: it starts `strata` under Xvfb, waits for its first
// frame, adds a layer with the keyboard through xdotool (Ctrl+Shift+N: a layer with no rules
// covers everything in its own tint) and checks in screenshots (ImageMagick import) that the
// picture changed where the ground is and not in the sky around it.
func TestEditorWindow(t *testing.T) {
	if testing.Short() {
		t.Skip("starts the editor in a real window under Xvfb and drives it with xdotool, tens of seconds (the full suite runs it: make test)")
	}
	dir, display, x := windowSetup(t)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	// The test binary as strata (TestMain), with no arguments: the editor on the sample.
	// STRATA_TRACE=frames: the editor says when a version's final frame is up, so the test waits
	// for that and not for a picture that merely held still for a while (a draft can, on a
	// slow machine).
	cmd := strataProcess(ctx, []string{"DISPLAY=" + display, "HOME=" + dir, "LANGUAGE=en", "XDG_CONFIG_HOME=" + filepath.Join(dir, "config"), "STRATA_TRACE=frames"})
	cmd.Dir = dir
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		cmd.Process.Kill()
		cmd.Wait()
	}()
	first := make(chan string, 1)
	settled := make(chan uint64, 64)
	var logMu sync.Mutex
	var log bytes.Buffer
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			line := sc.Text()
			logMu.Lock()
			log.WriteString(line + "\n")
			logMu.Unlock()
			if strings.Contains(line, "first frame after") {
				first <- line
			}
			var v uint64
			if _, err := fmt.Sscanf(line, "strata: settled version %d,", &v); err == nil {
				t.Log(line)
				settled <- v
			}
		}
	}()
	stderrText := func() string {
		logMu.Lock()
		defer logMu.Unlock()
		return log.String()
	}
	// shown is the newest version whose settled frame the editor announced; await waits until
	// the settled frame of version v or a later one is announced, then for the screen to hold it.
	var shown uint64
	await := func(v uint64, what string) image.Image {
		t.Helper()
		timeout := time.After(90 * time.Second)
		for shown < v {
			select {
			case got := <-settled:
				shown = max(shown, got)
			case <-timeout:
				t.Fatalf("no settled frame of version %d (%s) within 90 s; stderr:\n%s", v, what, stderrText())
			}
		}
		return stableShot(t, display, dir)
	}
	select {
	case line := <-first:
		t.Log(line)
	case <-time.After(2 * time.Minute):
		t.Fatalf("no first frame within 2 minutes; stderr:\n%s", stderrText())
	}
	win := strings.Fields(x("search", "--sync", "--name", "Strata — dunes"))[0]
	x("windowfocus", "--sync", win)
	// The pointer off the window (the screen is larger than it): no hover ring, no tooltip, and
	// no interactive redraw at reduced resolution; the keys go to the focused window.
	var gx, gy, gw, gh int
	geo := x("getwindowgeometry", "--shell", win)
	for _, f := range strings.Fields(geo) {
		fmt.Sscanf(f, "X=%d", &gx)
		fmt.Sscanf(f, "Y=%d", &gy)
		fmt.Sscanf(f, "WIDTH=%d", &gw)
		fmt.Sscanf(f, "HEIGHT=%d", &gh)
	}
	if gx+gw > 1590 && gy+gh > 990 {
		t.Fatalf("the window (%s) covers the whole screen: no place for the pointer off it", geo)
	}
	x("mousemove", "1595", "995")
	// Version 1 is the opened sample; every key below makes exactly one new version.
	before := await(1, "the opened sample")
	x("key", "ctrl+shift+n")
	after := await(shown+1, "ctrl+shift+n")

	// The ground: pixels of the viewport's area (the left 55% of the window, between its
	// toolbars and status bar) that are not the sky's colour in the first shot.
	b := before.Bounds()
	sky := before.At(b.Min.X+20, b.Min.Y+b.Dy()*20/100)
	ground, groundChanged, skyPix, skyChanged := 0, 0, 0, 0
	for y := b.Dy() * 20 / 100; y < b.Dy()*65/100; y += 2 {
		for xx := 20; xx < b.Dx()*50/100; xx += 2 {
			c0, c1 := before.At(xx, y), after.At(xx, y)
			changed := !near(c0, c1, 24)
			if near(c0, sky, 6) {
				skyPix++
				if changed {
					skyChanged++
				}
			} else {
				ground++
				if changed {
					groundChanged++
				}
			}
		}
	}
	t.Logf("ground %d pixels, %d changed; sky %d, %d changed", ground, groundChanged, skyPix, skyChanged)
	if ground < 1000 || skyPix < 1000 {
		t.Fatalf("the first screenshot shows no landscape in the viewport (ground %d, sky %d pixels)", ground, skyPix)
	}
	if groundChanged < ground*6/10 {
		t.Errorf("adding a covering layer changed %d of %d ground pixels", groundChanged, ground)
	}
	if skyChanged > skyPix/50 {
		t.Errorf("the sky changed in %d of %d pixels", skyChanged, skyPix)
	}

	// Undo and redo from the keyboard, as an artist does: Ctrl+Z brings the first picture back,
	// Ctrl+Y and Ctrl+Shift+Z the covering layer.
	for _, step := range []struct {
		key  string
		want image.Image
	}{{"ctrl+z", before}, {"ctrl+y", after}, {"ctrl+z", before}, {"ctrl+shift+z", after}} {
		x("key", step.key)
		got := await(shown+1, step.key)
		if n := differing(step.want, got); n > 200 {
			t.Errorf("after %s the viewport differs from the expected picture in %d pixels", step.key, n)
		}
	}
}

func near(a, b interface{ RGBA() (r, g, b, a uint32) }, tol int) bool {
	r0, g0, b0, _ := a.RGBA()
	r1, g1, b1, _ := b.RGBA()
	d := func(p, q uint32) int {
		v := int(p>>8) - int(q>>8)
		if v < 0 {
			v = -v
		}
		return v
	}
	return d(r0, r1) <= tol && d(g0, g1) <= tol && d(b0, b1) <= tol
}

// startXvfb starts a virtual display and returns its name. Xvfb picks the first free display
// number itself and writes it to the pipe -displayfd names (counting socket files misses a
// display whose socket was removed and runs out when killed servers leave theirs behind); the
// server is stopped with SIGTERM so that it removes its socket and lock file.
func startXvfb(t *testing.T) string {
	t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	cmd := exec.Command("Xvfb", "-displayfd", "3", "-screen", "0", "1600x1000x24", "-nolisten", "tcp")
	cmd.ExtraFiles = []*os.File{w}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	w.Close()
	t.Cleanup(func() {
		cmd.Process.Signal(syscall.SIGTERM)
		done := make(chan struct{})
		go func() { cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			cmd.Process.Kill()
			<-done
		}
	})
	line := make(chan string, 1)
	go func() {
		s, _ := bufio.NewReader(r).ReadString('\n')
		line <- strings.TrimSpace(s)
	}()
	select {
	case n := <-line:
		if n == "" {
			t.Fatalf("Xvfb did not start: %s", stderr.String())
		}
		return ":" + n
	case <-time.After(30 * time.Second):
		t.Fatalf("Xvfb named no display within 30 s: %s", stderr.String())
	}
	return ""
}

var shots int

// shot takes a screenshot of the whole display.
func shot(t *testing.T, display, dir string) image.Image {
	t.Helper()
	shots++
	p := filepath.Join(dir, fmt.Sprintf("shot%d.png", shots))
	c := exec.Command("import", "-window", "root", p)
	c.Env = append(os.Environ(), "DISPLAY="+display)
	if out, err := c.CombinedOutput(); err != nil {
		t.Fatalf("import: %v\n%s", err, out)
	}
	f, err := os.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatal(err)
	}
	return img
}

// stableShot waits until two screenshots a second apart are the same (the refined frame is up).
func stableShot(t *testing.T, display, dir string) image.Image {
	t.Helper()
	prev := shot(t, display, dir)
	for k := 0; k < 90; k++ {
		time.Sleep(time.Second)
		cur := shot(t, display, dir)
		if differing(prev, cur) == 0 {
			return cur
		}
		prev = cur
	}
	t.Fatal("the window never settled within 90 s")
	return nil
}

// differing counts pixels of the viewport region that differ (the status bar's text may
// change while nothing else does, so only the upper-left area is compared).
func differing(a, b image.Image) int {
	n := 0
	r := a.Bounds()
	for y := r.Dy() * 15 / 100; y < r.Dy()*70/100; y += 3 {
		for x := 0; x < r.Dx()*50/100; x += 3 {
			if !near(a.At(x, y), b.At(x, y), 2) {
				n++
			}
		}
	}
	return n
}

// windowSetup is what every real-window test starts with: the tools checked (scripts/setup.sh
// installs them), a temporary home, a virtual display, and x, which runs xdotool on it and
// returns its trimmed output (failing the test on an error).
func windowSetup(t *testing.T) (dir, display string, x func(args ...string) string) {
	t.Helper()
	for _, tool := range []string{"Xvfb", "xdotool", "import"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Fatalf("%s is not installed (scripts/setup.sh installs it): %v", tool, err)
		}
	}
	dir = t.TempDir()
	display = startXvfb(t)
	x = func(args ...string) string {
		t.Helper()
		c := exec.Command("xdotool", args...)
		c.Env = append(os.Environ(), "DISPLAY="+display)
		out, err := c.CombinedOutput()
		if err != nil {
			t.Fatalf("xdotool %v: %v\n%s", args, err, out)
		}
		return strings.TrimSpace(string(out))
	}
	return dir, display, x
}
