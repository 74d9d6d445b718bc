package main

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"image/png"
	"io"
	"strconv"
	"strings"

	"strata/gpu"
	"strata/internal/safeio"
	"strata/landscape"
	"strata/session"
	"strata/terraindata"
	"strata/viewport"
	"strata/world"
)

func init() {
	register(command{
		name:    "render",
		summary: "render a viewport frame of a landscape to a PNG, headless",
		usage: `usage: strata render PATH.terrainData --out F.png [--size 1280x720] [--view orbit|top]
       strata render NAME.world --out F.png [--size 1280x720] [--view orbit|top]

  A world (strata world plan) is drawn whole from its baked cells, as one landscape: heights,
  controls and every cell's instances put together (box-filtered down when the world is larger
  than 4096 texels a side or the GPU's textures), so its seams are the seams of one bake.

  --out F.png     where the frame is written (required; written whole or not at all, never
                  inside the container)
  --size WxH      image size in pixels (default 1280x720; sides 1..8192, the texture size every
                  WebGPU device supports)
  --view orbit    perspective from the south-east at about 35° framing the whole field (default)
  --view top      top-down map covering the field (image row 0 toward minimum Z)`,
		run: runRender,
	})
}

func runRender(args []string, stdout, stderr io.Writer) int {
	c := commands["render"]
	fs := flag.NewFlagSet("render", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	out := fs.String("out", "", "")
	size := fs.String("size", "1280x720", "")
	view := fs.String("view", "orbit", "")
	path, err := parseWithPath(fs, args, "PATH.terrainData")
	if err != nil {
		return usageError(c, stderr, "%v", err)
	}
	if *out == "" {
		return usageError(c, stderr, "missing --out F.png")
	}
	w, h, err := parseSize(*size)
	if err != nil {
		return usageError(c, stderr, "--size: %v", err)
	}
	if *view != "orbit" && *view != "top" {
		return usageError(c, stderr, "--view %q: want orbit or top", *view)
	}
	render := renderContainer
	if world.IsWorld(path) {
		render = renderWorld
	}
	if err := render(path, *out, w, h, *view, stdout); err != nil {
		fmt.Fprintf(stderr, "strata render: %v\n", err)
		return exitFail
	}
	return exitOK
}

// maxRenderSide is the largest --size side: WebGPU's guaranteed maxTextureDimension2D (8192), so
// a frame renders on every device, and an 8192² frame's readback is 256 MiB (docs/limits.md).
const maxRenderSide = 8192

func parseSize(s string) (int, int, error) {
	a, b, ok := strings.Cut(strings.ToLower(s), "x")
	if !ok {
		return 0, 0, fmt.Errorf("%q is not WxH", s)
	}
	w, err1 := strconv.Atoi(a)
	h, err2 := strconv.Atoi(b)
	if err1 != nil || err2 != nil || w < 1 || h < 1 || w > maxRenderSide || h > maxRenderSide {
		return 0, 0, fmt.Errorf("%q is not WxH with sides 1..%d", s, maxRenderSide)
	}
	return w, h, nil
}

func renderContainer(path, out string, w, h int, view string, stdout io.Writer) error {
	c, err := terraindata.Open(path)
	if err != nil {
		return err
	}
	if err := safeio.RefuseInside(path, out, "--out"); err != nil {
		return err
	}
	if probs := landscape.CheckContainer(c); len(probs) > 0 {
		return fmt.Errorf("%s cannot be rendered:\n%w", path, probs)
	}
	dev, err := gpu.Open(context.Background(), gpu.Options{Label: "strata render"})
	if err != nil {
		return err
	}
	defer dev.Release()
	// The forest is placed again on the GPU from the container's density children and drawn
	// straight from the pool buffers, with no CPU round trip.
	scene, release, err := session.BakedScene(context.Background(), c, dev)
	if err != nil {
		return err
	}
	defer release()
	return renderScene(dev, scene, out, w, h, view, stdout)
}

// renderScene draws scene with the orbit or map camera framing it and writes the frame to out (a
// PNG, atomically), printing one line of figures.
func renderScene(dev *gpu.Device, scene *viewport.Scene, out string, w, h int, view string, stdout io.Writer) error {
	r, err := viewport.New(dev, w, h)
	if err != nil {
		return err
	}
	defer r.Release()
	if err := r.SetScene(scene); err != nil {
		return err
	}
	cam := viewport.OrbitCamera(scene.Placement, scene.HeightRange, float64(w)/float64(h))
	if view == "top" {
		cam = viewport.MapCamera(scene.Placement, scene.HeightRange, float64(w)/float64(h))
	}
	r.SetCamera(cam)
	img, err := r.Frame()
	if err != nil {
		return err
	}
	f, err := safeio.Create(out)
	if err != nil {
		return fmt.Errorf("render: %w", err)
	}
	defer f.Abort()
	bw := bufio.NewWriter(f)
	if err := png.Encode(bw, img); err != nil {
		return fmt.Errorf("render: %s: %w", out, err)
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("render: %s: %w", out, err)
	}
	if err := f.Commit(); err != nil {
		return fmt.Errorf("render: %w", err)
	}
	st := r.Stats()
	fmt.Fprintf(stdout, "%s: %dx%d %s view, %d chunks, %d triangles, %.1f ms (%s)\n",
		out, w, h, view, st.Chunks, st.Triangles, st.GPUms, dev.Info.Name)
	return nil
}

// renderWorld draws a whole world from its cells (world.Scene) in one frame.
func renderWorld(path, out string, w, h int, view string, stdout io.Writer) error {
	wd, err := world.Open(path)
	if err != nil {
		return err
	}
	if err := safeio.RefuseInside(wd.Dir, out, "--out"); err != nil {
		return err
	}
	ctx := context.Background()
	dev, err := gpu.Open(ctx, gpu.Options{Label: "strata render"})
	if err != nil {
		return err
	}
	defer dev.Release()
	side := world.DefaultSceneSide
	if lim := int(dev.Limits.MaxTextureDimension2D); lim > 0 {
		side = min(side, lim)
	}
	scene, info, err := wd.Scene(ctx, world.SceneOptions{MaxSide: side})
	if err != nil {
		return err
	}
	if info.Factor > 1 || info.WeightsFactor > 1 {
		fmt.Fprintf(stdout, "%s: %dx%d height texels drawn at 1/%d, weights at 1/%d\n", path, wd.HeightGrid[0], wd.HeightGrid[1], info.Factor, info.WeightsFactor)
	}
	if info.Drawn < info.Instances {
		fmt.Fprintf(stdout, "%s: drawing %d of %d instances\n", path, info.Drawn, info.Instances)
	}
	return renderScene(dev, scene, out, w, h, view, stdout)
}
