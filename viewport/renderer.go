// Package viewport is Strata's WebGPU renderer: it draws a landscape (terrain with chunked level
// of detail, layer blend, instanced vegetation, editor overlays) into offscreen targets and hands
// frames back as images, so the editor window, `strata render` and tests all share one path.
package viewport

import (
	"fmt"
	"image"
	"math"
	"sync"
	"time"

	"github.com/cogentcore/webgpu/wgpu"

	"strata/gpu"
)

// FrameStats describes the last frame actually rendered.
type FrameStats struct {
	GPUms     float64 // encode + submit + wait + readback, milliseconds
	SelectMs  float64 // CPU chunk selection and page residency, milliseconds
	Triangles int     // terrain and instance triangles submitted
	Chunks    int     // terrain chunks drawn
	Instances int     // instances drawn
	// MissingWeights counts the weights pages the frame samples that the shown generation lacks
	// (it drew a coarser level there): 0 is a frame drawn from exactly the levels it samples.
	MissingWeights int
}

// Renderer draws a Scene from a Camera with an Overlay into its own colour and depth targets. It
// renders only when something changed since the last frame (or a tile flash is fading); Frame
// otherwise returns the previous image. All methods are safe for concurrent use.
type Renderer struct {
	// MaxPixelError is the level-of-detail budget: the most, in pixels, a chunk's geometric error
	// may cover on screen before it is split (default 2).
	MaxPixelError float64
	// Now is the clock tile flashes fade by; nil means time.Now.
	Now func() time.Time

	// frameMu makes one Frame (and Resize, Release) at a time: a frame's read back runs without
	// mu, and the colour target must not change under it. Taken before mu.
	frameMu  sync.Mutex
	mu       sync.Mutex
	dev      *gpu.Device
	w, h     int
	color    *gpu.Texture
	depth    *texture
	frameBuf *gpu.Buffer
	terrain  *terrain
	inst     *instances

	scene   *Scene
	sampler heightSampler
	bounds  bounds
	cam     Camera
	overlay Overlay
	chunks  []chunkInst
	cull    bool // this frame may cull the terrain's back faces (terrain.cullSafe)
	flashes []float32

	draft bool // SetDraft: a coarser terrain and a thinned forest while the picture moves
	// pageBuf is the height page the renderer fills (reused); atlasTarget wraps the weights
	// atlas for the kernel (WeightsSlot).
	pageBuf     []float32
	atlasTarget *gpu.WeightsTarget
	// budget bounds the atlases' device memory (SetMemoryBudget; 0: none).
	budget    int64
	dirty     bool
	animating bool
	last      *image.RGBA
	stats     FrameStats
}

// New creates a renderer of w×h pixels on d. The device stays the caller's.
func New(d *gpu.Device, w, h int) (r *Renderer, err error) {
	if d == nil || d.Dev == nil {
		return nil, fmt.Errorf("viewport: new renderer: no device")
	}
	r = &Renderer{dev: d, MaxPixelError: 2, dirty: true}
	defer func() {
		if err != nil {
			r.Release()
			r = nil
		}
	}()
	if r.frameBuf, err = d.NewBuffer("viewport frame uniforms", frameUniformSize, wgpu.BufferUsageUniform); err != nil {
		return nil, fmt.Errorf("viewport: %w", err)
	}
	if r.terrain, err = newTerrain(d); err != nil {
		return nil, err
	}
	if r.inst, err = newInstances(d, r.frameBuf); err != nil {
		return nil, err
	}
	if err = r.resize(w, h); err != nil {
		return nil, err
	}
	return r, nil
}

// Release frees every GPU object the renderer owns (not the device, not borrowed pools). Safe on
// nil and twice.
func (r *Renderer) Release() {
	if r == nil {
		return
	}
	r.frameMu.Lock()
	defer r.frameMu.Unlock()
	r.mu.Lock()
	defer r.mu.Unlock()
	r.inst.Release()
	r.terrain.Release()
	r.color.Release()
	r.depth.Release()
	r.frameBuf.Release()
	r.inst, r.terrain, r.color, r.depth, r.frameBuf = nil, nil, nil, nil, nil
}

// Size returns the target size in pixels.
func (r *Renderer) Size() (w, h int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.w, r.h
}

// Resize recreates the targets when the size changes.
func (r *Renderer) Resize(w, h int) error {
	r.frameMu.Lock()
	defer r.frameMu.Unlock()
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.resize(w, h)
}

func (r *Renderer) resize(w, h int) error {
	if w < 1 || h < 1 {
		return fmt.Errorf("viewport: resize: %dx%d is empty", w, h)
	}
	if lim := int(r.dev.Limits.MaxTextureDimension2D); lim > 0 && (w > lim || h > lim) {
		return fmt.Errorf("viewport: resize: %dx%d exceeds the device's %d pixels", w, h, lim)
	}
	if r.color != nil && w == r.w && h == r.h {
		return nil
	}
	r.color.Release()
	r.depth.Release()
	r.color, r.depth = nil, nil
	var err error
	r.color, err = r.dev.NewTexture("viewport colour", uint32(w), uint32(h), colorFormat, wgpu.TextureUsageRenderAttachment)
	if err != nil {
		return fmt.Errorf("viewport: %w", err)
	}
	r.depth, err = newTexture(r.dev, "viewport depth", uint32(w), uint32(h), 1, depthFormat, wgpu.TextureUsageRenderAttachment)
	if err != nil {
		return err
	}
	r.w, r.h = w, h
	r.dirty = true
	return nil
}

// SetScene uploads a scene (height, controls, atlas, layer table, populations) and builds its
// level-of-detail tree. The renderer owns s from then on (it picks from it, and UpdateHeight,
// UpdateControls and SetLayers write into it): the caller changes the scene only through them.
func (r *Renderer) SetScene(s *Scene) error {
	if err := s.Validate(); err != nil {
		return err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.scene = nil
	r.atlasTarget = nil
	r.dirty = true
	slots := [2]int{r.slotsWithin(heightSlots, heightBudgetShare, slotBytes(16)), r.slotsWithin(weightSlots, weightsBudgetShare, slotBytes(8))}
	if err := r.terrain.setScene(r.dev, s, r.frameBuf, slots); err != nil {
		return err
	}
	if err := r.inst.bindFrame(r.dev, r.frameBuf, r.terrain.hvt); err != nil {
		return err
	}
	if err := r.inst.setScene(r.dev, s); err != nil {
		return err
	}
	r.scene = s
	r.sampler = newHeightSampler(s)
	r.setBounds()
	return nil
}

// setBounds makes the scene's box from its height range and the ground's (the LOD tree's root):
// the same ground gives the same box, and so the same near and far planes. r.mu is held.
func (r *Renderer) setBounds() {
	s := r.scene
	lo, hi := s.heightBounds(r.terrain.tree)
	if t := r.terrain.tree; t != nil && t.minH[0][0] <= t.maxH[0][0] {
		lo, hi = math.Min(lo, float64(t.minH[0][0])), math.Max(hi, float64(t.maxH[0][0]))
	}
	mn := s.Placement.Min()
	r.bounds = bounds{min: vec3{mn[0], lo - 1, mn[1]}, max: vec3{mn[0] + s.Placement.Size[0], hi + 10, mn[1] + s.Placement.Size[1]}}
}

// SetCamera replaces the camera; the next Frame renders.
func (r *Renderer) SetCamera(c Camera) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if c != r.cam {
		r.cam = c
		r.dirty = true
	}
}

// Camera returns the current camera.
func (r *Renderer) Camera() Camera {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.cam
}

// SetOverlay replaces the overlay; the next Frame renders.
func (r *Renderer) SetOverlay(o Overlay) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.overlay = o
	r.overlay.Flashes = append([]TileFlash(nil), o.Flashes...)
	r.dirty = true
}

// Draft quality, for a device too slow to draw the full picture while the camera or a rule moves
// (a software rasteriser): the terrain's error budget is draftPixelError times larger and one
// instance in draftInstanceStride is drawn — the forest keeps its extent and pattern, thinned.
const (
	draftPixelError     = 4
	draftInstanceStride = 8
)

// SetDraft switches draft quality on or off; the next Frame renders when it changes.
func (r *Renderer) SetDraft(on bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.draft != on {
		r.draft, r.dirty = on, true
	}
}

func (r *Renderer) instanceStride() uint32 {
	if r.draft {
		return draftInstanceStride
	}
	return 1
}

// Invalidate forces the next Frame to render (e.g. after the caller rewrote a borrowed pool).
func (r *Renderer) Invalidate() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.dirty = true
}

// Animating reports whether a tile flash is still fading, so the caller should keep asking
// for frames.
func (r *Renderer) Animating() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.animating
}

// Stats returns the figures of the last frame actually rendered.
func (r *Renderer) Stats() FrameStats {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.stats
}

// Pick returns the ground under image point (px, py) (pixels from the top-left corner; a
// pixel's centre is at +0.5) for the current camera, and false when the ray misses the field
// or passes through a hole.
func (r *Renderer) Pick(px, py float64) (Hit, bool) { return r.pick(px, py, true) }

// PickGround is Pick with the holes filled: the ground's surface under the point whether or not
// it is cut there, for a brush (restoring cut ground is painted over the hole).
func (r *Renderer) PickGround(px, py float64) (Hit, bool) { return r.pick(px, py, false) }

func (r *Renderer) pick(px, py float64, throughHoles bool) (Hit, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.scene == nil {
		return Hit{}, false
	}
	f := r.cam.frame(r.w, r.h, r.bounds)
	src := r.scene.ground()
	src.Lock()
	defer src.Unlock()
	return pick(&f, r.sampler, r.scene.Placement.Size, r.bounds.min[1], r.bounds.max[1], px, py, throughHoles)
}

// Frame returns the current image, rendering it first when the scene, camera, overlay or size
// changed, or a tile flash is fading. The returned image is not written again by the renderer.
//
// The renderer's lock is held while the frame is prepared and submitted, not while the device
// draws it and it is read back: an evaluator writes pages meanwhile (on a software device a
// frame of a large field takes a second, and a slider's draft must not wait for it).
func (r *Renderer) Frame() (*image.RGBA, error) {
	r.frameMu.Lock()
	defer r.frameMu.Unlock()
	r.mu.Lock()
	if !r.dirty && !r.animating && r.last != nil {
		defer r.mu.Unlock()
		return r.last, nil
	}
	r.dirty = false // a change while this frame is drawn asks for the next
	stats, err := r.submitFrame()
	r.mu.Unlock()
	if err != nil {
		r.setDirty()
		return nil, err
	}
	pix, err := r.dev.ReadTexture(r.color)
	if err != nil {
		r.setDirty()
		return nil, fmt.Errorf("viewport: frame: %w", err)
	}
	stats.GPUms = msSince(stats.start)
	// Every pipeline writes alpha 1 and the clear is opaque, so the bytes are already opaque.
	img := &image.RGBA{Pix: pix, Stride: 4 * r.w, Rect: image.Rect(0, 0, r.w, r.h)}
	r.mu.Lock()
	r.last, r.stats = img, stats.FrameStats
	r.mu.Unlock()
	return img, nil
}

func (r *Renderer) setDirty() {
	r.mu.Lock()
	r.dirty = true
	r.mu.Unlock()
}

func (r *Renderer) now() time.Time {
	if r.Now != nil {
		return r.Now()
	}
	return time.Now()
}
