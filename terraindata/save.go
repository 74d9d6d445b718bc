package terraindata

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

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
// A crash leaves one of these states, which Recover (run by Open and Save) resolves:
//
//	NAME present              → it is complete (old before 2, new after 3): drop .new and .old
//	NAME absent, .old present → crashed between 2 and 3: put .old back (the old landscape)
//	NAME absent, no .old      → a first save never finished: drop .new
//
// So a reader finds either the old or the new landscape, never a mixture. One writer per
// container at a time is assumed; two concurrent saves of one path are not coordinated.

func siblings(path string) (newDir, oldDir string) {
	dir, base := filepath.Split(filepath.Clean(path))
	return filepath.Join(dir, "."+base+".new"), filepath.Join(dir, "."+base+".old")
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
}

// SaveWith is Save with cancellation and progress.
func SaveWith(path string, c *Container, write func(dir string) error, o SaveOptions) error {
	ctx := o.Context
	if ctx == nil {
		ctx = context.Background()
	}
	report := o.Progress
	if report == nil {
		report = progress.Nop
	}
	if err := Recover(path); err != nil {
		return err
	}
	guid, err := existingGUID(path)
	if err != nil {
		return err
	}
	if c.m.GUID != "" {
		guid = c.m.GUID
	}
	if guid == "" {
		guid = newGUID()
	}
	c.m.GUID = guid
	c.m.Version = Version
	newDir, oldDir := siblings(path)
	if err := os.MkdirAll(newDir, 0o755); err != nil {
		return fmt.Errorf("terraindata: %w", err)
	}
	fail := func(err error) error {
		os.RemoveAll(newDir)
		return err
	}
	cancelled := func() error {
		if err := ctx.Err(); err != nil {
			return fail(fmt.Errorf("terraindata: not saving %s (%w): the old container is unchanged", path, err))
		}
		return nil
	}
	if write != nil {
		if err := write(newDir); err != nil {
			if ctx.Err() != nil {
				return cancelled()
			}
			return fail(fmt.Errorf("terraindata: writing %s: %w", path, err))
		}
	}
	if err := cancelled(); err != nil {
		return err
	}
	report(StageValidate, 0, 3)
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
	if probs := Validate(newDir); len(probs) > 0 {
		return fail(fmt.Errorf("terraindata: not saving %s, the written container is invalid:\n%w", path, Problems(probs)))
	}
	report(StageValidate, 1, 3)
	if err := syncTree(newDir); err != nil {
		return fail(err)
	}
	report(StageValidate, 2, 3)
	if err := cancelled(); err != nil {
		return err
	}
	parent := filepath.Dir(filepath.Clean(path))
	had, err := exists(path)
	if err != nil {
		return fail(err)
	}
	if had {
		if err := os.Rename(path, oldDir); err != nil {
			return fail(fmt.Errorf("terraindata: moving %s aside: %w", path, err))
		}
		if err := syncDir(parent); err != nil {
			return err
		}
	}
	if err := os.Rename(newDir, path); err != nil {
		return fmt.Errorf("terraindata: swapping in %s: %w (Open or Recover restores the old one)", path, err)
	}
	if err := syncDir(parent); err != nil {
		return err
	}
	if had {
		if err := os.RemoveAll(oldDir); err != nil {
			return fmt.Errorf("terraindata: removing backup %s: %w", oldDir, err)
		}
	}
	c.path, c.readDir = path, path
	report(StageValidate, 3, 3)
	return nil
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
	b, err := os.ReadFile(filepath.Join(path, ManifestFile))
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

func syncTree(root string) error {
	return filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return fmt.Errorf("terraindata: %w", err)
		}
		if d.Type()&fs.ModeSymlink != 0 {
			return nil
		}
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
	})
}

func syncDir(dir string) error {
	f, err := os.Open(dir)
	if err != nil {
		return fmt.Errorf("terraindata: %w", err)
	}
	defer f.Close()
	if err := f.Sync(); err != nil {
		return fmt.Errorf("terraindata: fsync %s: %w", dir, err)
	}
	return nil
}
