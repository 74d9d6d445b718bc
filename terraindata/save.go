package terraindata

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"strata/internal/pool"
	"strata/internal/safeio"
	"strata/progress"
)

// Saving is atomic (SPEC "terrainData on disk"): the whole new container is written into a
// sibling folder, made durable, and swapped in with renames:
//
//  1. write .NAME.new, fsync every file and folder in it
//  2. rename NAME → .NAME.old          (skipped on a first save), fsync the parent
//  3. rename .NAME.new → NAME, fsync the parent
//  4. remove .NAME.old
//
// A crash leaves one of these states, which Recover (run by Save) resolves (Open only reads):
//
//	NAME present              → it is complete (old before 2, new after 3): drop .new and .old
//	NAME absent, .old present → crashed between 2 and 3: put .old back (the old landscape)
//	NAME absent, no .old      → a first save never finished: drop .new
//
// So a reader finds either the old or the new landscape, never a mixture. One writer per
// container at a time is assumed: two saves of one path at once corrupt each other (each one's
// Recover removes the other's folder in progress). Writers that may meet (a world's cell, baked by
// array tasks and saved by the editor) name a lock file (SaveOptions.Lock, LockPath): the save
// holds it from BeginSave until it commits or aborts, and they take turns.

func siblings(path string) (newDir, oldDir string) {
	dir, base := filepath.Split(filepath.Clean(path))
	return filepath.Join(dir, "."+base+".new"), filepath.Join(dir, "."+base+".old")
}

// LockPath is the lock file for the saves of the container at path (SaveOptions.Lock): .NAME.lock
// beside it, created by the first save that names it and never removed (safeio.Lock says why).
// A reader that must not meet such a save between its renames (a world's cells) takes it shared.
func LockPath(path string) string {
	dir, base := filepath.Split(filepath.Clean(path))
	return filepath.Join(dir, "."+base+".lock")
}

func exists(p string) (bool, error) {
	_, err := os.Lstat(p)
	if err == nil {
		return true, nil
	}
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	return false, fmt.Errorf("terraindata: %w", err)
}

// Recover resolves what an interrupted Save left at path (see the protocol above). It is cheap
// when there is nothing to do and safe to call at any time no Save of path is running.
func Recover(path string) error {
	newDir, oldDir := siblings(path)
	have, err := exists(path)
	if err != nil {
		return err
	}
	haveOld, err := exists(oldDir)
	if err != nil {
		return err
	}
	if !have && haveOld {
		if err := os.Rename(oldDir, path); err != nil {
			return fmt.Errorf("terraindata: recovering %s from %s: %w", path, oldDir, err)
		}
		if err := syncDir(filepath.Dir(path)); err != nil {
			return err
		}
		haveOld = false
	}
	for _, p := range []string{newDir, oldDir} {
		if ok, _ := exists(p); ok {
			if err := os.RemoveAll(p); err != nil {
				return fmt.Errorf("terraindata: removing leftover %s: %w", p, err)
			}
		}
	}
	return nil
}

// Save writes c as the container at path, atomically. write receives the temporary folder and
// writes every child into it (WriteHeight, WriteTextureRGBA8, PackAtlas, …), naming them on c
// through the setters; Save then stamps guids, writes terrain.yaml, validates the result and
// swaps it in. A container that fails validation is not swapped in: the old one stays.
//
// The landscape's guid is c's own when the caller set one (SetGUID: the editor saving a landscape
// it opened, under its name or another, keeps its identity), else the one already at path when
// there is one (re-baking keeps references resolved), else a new random one. Children get guids
// derived from the landscape's and their path.
func Save(path string, c *Container, write func(dir string) error) error {
	return SaveWith(path, c, write, SaveOptions{})
}

// StageValidate is the stage SaveOptions.Progress reports: the written container validated (1 of
// 3), made durable (2) and swapped in (3).
const StageValidate = "validate"

// SaveOptions add cancellation and progress to Save.
type SaveOptions struct {
	// Context cancels the save at any point before the swap (write should watch it too): the
	// temporary folder is removed and the old container stays as it was. Once the swap has begun
	// it runs to the end, a few renames.
	Context context.Context
	// Progress receives (StageValidate, done, 3) after write returns; nil = none.
	Progress progress.Func
	// Lock, when set, is a lock file (LockPath) held exclusive from BeginSave until the save
	// commits or aborts, so saves of one path that name it take turns, across processes.
	Lock string
}

// SaveWith is Save with cancellation and progress.
func SaveWith(path string, c *Container, write func(dir string) error, o SaveOptions) error {
	s, err := BeginSave(path, c, o)
	if err != nil {
		return err
	}
	if write != nil {
		if err := write(s.Dir()); err != nil {
			return s.Fail(err)
		}
	}
	return s.Commit()
}

// Saving is a save in progress (steps 1–4 of the protocol above, split at the write): BeginSave
// makes the temporary folder, the caller writes children into Dir — at its own pace, some of
// them while it is still computing the others (a bake writes the height while the GPU evaluates)
// — and Commit validates, makes durable and swaps in, or Abort drops it all. Until Commit swaps,
// the container at the path is untouched.
type Saving struct {
	path, newDir, oldDir string
	c                    *Container
	ctx                  context.Context
	report               progress.Func
	over                 bool
	lock                 *safeio.Lock // held until the save is over

	mu    sync.Mutex
	early map[string]earlyCheck // payloads Prevalidate found sound, by manifest field
}

// BeginSave resolves an interrupted save at path, settles the landscape's guid (as Save) and
// makes the temporary folder the children go into.
func BeginSave(path string, c *Container, o SaveOptions) (*Saving, error) {
	s := &Saving{path: path, c: c, ctx: o.Context, report: o.Progress}
	if s.ctx == nil {
		s.ctx = context.Background()
	}
	if s.report == nil {
		s.report = progress.Nop
	}
	if o.Lock != "" {
		// The save makes the container's folder (step 1); the lock beside it needs it first.
		if err := os.MkdirAll(filepath.Dir(o.Lock), 0o755); err != nil {
			return nil, fmt.Errorf("terraindata: saving %s: %w", path, err)
		}
		lk, err := safeio.LockExclusive(o.Lock)
		if err != nil {
			return nil, fmt.Errorf("terraindata: saving %s: %w", path, err)
		}
		s.lock = lk
	}
	fail := func(err error) (*Saving, error) {
		s.lock.Unlock()
		return nil, err
	}
	if err := Recover(path); err != nil {
		return fail(err)
	}
	guid, err := existingGUID(path)
	if err != nil {
		return fail(err)
	}
	if c.m.GUID != "" {
		guid = c.m.GUID
	}
	if guid == "" {
		guid = newGUID()
	}
	c.m.GUID = guid
	c.m.Version = Version
	s.newDir, s.oldDir = siblings(path)
	if err := os.MkdirAll(s.newDir, 0o755); err != nil {
		return fail(fmt.Errorf("terraindata: %w", err))
	}
	return s, nil
}

// Dir is the temporary folder the children are written into.
func (s *Saving) Dir() string { return s.newDir }

// Abort drops the temporary folder; the container at the path stays as it was. Safe after Commit
// (it does nothing) and twice.
func (s *Saving) Abort() {
	if s != nil && !s.over {
		s.over = true
		os.RemoveAll(s.newDir)
		s.lock.Unlock()
	}
}

// Fail drops the save after a failed write and returns the error as Save reports it (after a
// cancelled context: that the old container is unchanged).
func (s *Saving) Fail(err error) error {
	if s.ctx.Err() != nil {
		return s.cancelled()
	}
	s.Abort()
	return fmt.Errorf("terraindata: writing %s: %w", s.path, err)
}

// cancelled aborts when the context is done and says the old container is unchanged.
func (s *Saving) cancelled() error {
	if err := s.ctx.Err(); err != nil {
		s.Abort()
		return fmt.Errorf("terraindata: not saving %s (%w): the old container is unchanged", s.path, err)
	}
	return nil
}

// Prevalidate checks one child already written and named on the container (field is its
// manifest field: "height", "holes", "channels.NAME", "scatter[I].density", or "controls" for
// every control texture together, their weights summed over the layers named) the way Validate
// will — read back from the disk whole, every block decoded and checked — and flushes it to the
// disk, so that a caller can settle its large payloads while it is still computing the others (a
// bake checks the height while the stack is evaluated). Commit's validation then trusts that payload as long
// as its file is unchanged (the same file, size and modification time, and texture.yaml but for
// the guid; for the controls, the same layer count), and still makes every check across children
// (grid sizes, heightRange). A child that fails is an error naming the file and the field; the
// caller fails the save with it (Fail).
func (s *Saving) Prevalidate(field string) error { return s.PrevalidateLater(field)() }

// PrevalidateLater is Prevalidate in the background: it takes the manifest as it stands now and
// returns at once; wait returns the result. Meanwhile the caller may go on writing and naming other
// children (a bake encodes the densities while its controls are read back).
func (s *Saving) PrevalidateLater(field string) (wait func() error) {
	m := s.c.Manifest()
	done := make(chan error, 1)
	go func() { done <- s.prevalidate(field, m) }()
	return func() error { return <-done }
}

func (s *Saving) prevalidate(field string, m Manifest) error {
	if field == "controls" {
		return s.prevalidateControls(m)
	}
	var ch *child
	for _, c := range children(&m) {
		if c.field == field {
			ch = &c
			break
		}
	}
	switch {
	case ch == nil:
		return fmt.Errorf("terraindata: prevalidate %s: the container names no child %q yet", s.newDir, field)
	case ch.format == "" || strings.HasPrefix(field, "controls["):
		return fmt.Errorf("terraindata: prevalidate %s: %s is not checked alone (the controls are checked together: \"controls\")", s.newDir, field)
	}
	if err := checkRel(ch.rel); err != nil {
		return fmt.Errorf("terraindata: %s: %s: child path %w", s.newDir, field, err)
	}
	v := &validator{root: s.newDir}
	c := &Container{path: s.newDir, readDir: s.newDir, m: m}
	e := v.texture(c.ref(ch.role, ch.field, ch.rel), ch.format)
	if e == nil {
		return Problems(v.probs)
	}
	return s.trust(map[string]earlyCheck{field: *e})
}

// prevalidateControls is Prevalidate("controls"): every control texture named, read together,
// their weights summed over the layers named.
func (s *Saving) prevalidateControls(m Manifest) error {
	if len(m.Controls) == 0 || len(m.Layers) == 0 {
		return fmt.Errorf("terraindata: prevalidate %s: the container names no controls or no layers yet", s.newDir)
	}
	for i, rel := range m.Controls {
		if err := checkRel(rel); err != nil {
			return fmt.Errorf("terraindata: %s: controls[%d]: child path %w", s.newDir, i, err)
		}
	}
	v := &validator{root: s.newDir, record: map[string]earlyCheck{}, segmented: true}
	c := &Container{path: s.newDir, readDir: s.newDir, m: m}
	v.controls(c, map[string]TextureInfo{})
	if len(v.probs) > 0 {
		return Problems(v.probs)
	}
	return s.trust(v.record)
}

// trust flushes the payloads checks read back sound and records them for Commit (by field).
func (s *Saving) trust(checks map[string]earlyCheck) error {
	for _, e := range checks {
		if err := syncFile(e.payload); err != nil {
			return err
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.early == nil {
		s.early = map[string]earlyCheck{}
	}
	maps.Copy(s.early, checks)
	return nil
}

// Commit stamps guids, writes terrain.yaml, validates the result (an invalid one is dropped, the
// old stays), makes it durable and swaps it in, reporting StageValidate 0…3.
func (s *Saving) Commit() error {
	if s.over {
		return fmt.Errorf("terraindata: saving %s: already committed or aborted", s.path)
	}
	path, newDir, oldDir, c := s.path, s.newDir, s.oldDir, s.c
	fail := func(err error) error {
		s.Abort()
		return err
	}
	if err := s.cancelled(); err != nil {
		return err
	}
	s.report(StageValidate, 0, 3)
	if err := stampGUIDs(newDir, &c.m); err != nil {
		return fail(err)
	}
	b, err := c.m.Encode()
	if err != nil {
		return fail(err)
	}
	if err := os.WriteFile(filepath.Join(newDir, ManifestFile), b, 0o644); err != nil {
		return fail(fmt.Errorf("terraindata: %w", err))
	}
	s.mu.Lock()
	early := s.early
	s.mu.Unlock()
	if probs := validate(newDir, early); len(probs) > 0 {
		return fail(fmt.Errorf("terraindata: not saving %s, the written container is invalid:\n%w", path, Problems(probs)))
	}
	s.report(StageValidate, 1, 3)
	if err := syncTree(newDir); err != nil {
		return fail(err)
	}
	s.report(StageValidate, 2, 3)
	if err := s.cancelled(); err != nil {
		return err
	}
	crashPoint("new written")
	s.over = true // from here the swap runs to the end
	defer s.lock.Unlock()
	parent := filepath.Dir(filepath.Clean(path))
	had, err := exists(path)
	if err != nil {
		os.RemoveAll(newDir)
		return err
	}
	if had {
		if err := os.Rename(path, oldDir); err != nil {
			os.RemoveAll(newDir)
			return fmt.Errorf("terraindata: moving %s aside: %w", path, err)
		}
		if err := syncDir(parent); err != nil {
			return err
		}
		crashPoint("old aside")
	}
	if err := os.Rename(newDir, path); err != nil {
		return fmt.Errorf("terraindata: swapping in %s: %w (the next Save or Recover restores the old one; Open reads it meanwhile)", path, err)
	}
	if err := syncDir(parent); err != nil {
		return err
	}
	if had {
		crashPoint("new in place")
		if err := os.RemoveAll(oldDir); err != nil {
			return fmt.Errorf("terraindata: removing backup %s: %w", oldDir, err)
		}
	}
	c.path, c.readDir = path, path
	s.report(StageValidate, 3, 3)
	return nil
}

// onCrashPoint, when set (TestKillDuringSave's writing process), hears each point of Commit's swap
// where a crash leaves a different state on disk: "new written" (the new folder complete and
// flushed, the live one untouched), "old aside" (the live one renamed to the backup) and "new in
// place" (the new one renamed in, the backup still there). The test's process stops there to be
// killed, so every state is exercised on purpose rather than by a lucky kill.
var onCrashPoint func(point string)

func crashPoint(point string) {
	if onCrashPoint != nil {
		onCrashPoint(point)
	}
}

// existingGUID returns the guid of the landscape at path, "" when there is none. It refuses a
// path that holds something other than a container, so a mistyped --out cannot replace a folder
// of someone's files.
func existingGUID(path string) (string, error) {
	fi, err := os.Stat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("terraindata: %w", err)
	}
	if !fi.IsDir() {
		return "", fmt.Errorf("terraindata: %s exists and is not a terrainData folder; not replacing it", path)
	}
	b, err := readManifestFile(path) // regular, bounded, inside: a FIFO there cannot hang a save
	if errors.Is(err, fs.ErrNotExist) {
		if ents, _ := os.ReadDir(path); len(ents) > 0 {
			return "", fmt.Errorf("terraindata: %s has no %s; not replacing a folder that is not a terrainData container", path, ManifestFile)
		}
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("terraindata: %w", err)
	}
	m, err := DecodeManifest(b)
	if err != nil {
		return "", nil // an unreadable old manifest gives the landscape a fresh identity
	}
	return m.GUID, nil
}

// stampGUIDs gives every .texture child the guid derived from the landscape's.
func stampGUIDs(dir string, m *Manifest) error {
	for _, ch := range children(m) {
		if !strings.HasSuffix(ch.rel, ".texture") {
			continue
		}
		d := filepath.Join(dir, filepath.FromSlash(ch.rel))
		info, err := ReadTextureInfo(d)
		if err != nil {
			continue // Validate reports it with the field that names it
		}
		info.GUID = childGUID(m.GUID, ch.rel)
		if err := writeInfo(d, info); err != nil {
			return err
		}
	}
	return nil
}

// syncTree flushes every file and folder under root to the disk, several at a time (each fsync
// waits on the device; a container's payloads flush side by side).
func syncTree(root string) error {
	var paths []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return fmt.Errorf("terraindata: %w", err)
		}
		if d.Type()&fs.ModeSymlink == 0 {
			paths = append(paths, p)
		}
		return nil
	})
	if err != nil {
		return err
	}
	errs := make([]error, len(paths))
	pool.Each(context.Background(), len(paths), 8, func(k int) { errs[k] = syncFile(paths[k]) }, nil)
	return errors.Join(errs...)
}

// syncFile flushes one file or folder to the disk.
func syncFile(p string) error {
	f, err := os.Open(p)
	if err != nil {
		return fmt.Errorf("terraindata: %w", err)
	}
	err = f.Sync()
	f.Close()
	if err != nil {
		return fmt.Errorf("terraindata: fsync %s: %w", p, err)
	}
	return nil
}

func syncDir(dir string) error { return syncFile(dir) }
