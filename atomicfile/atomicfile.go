// Package atomicfile writes the files a user names on the command line
// (--output, --report): a reader sees the old file or the new one, never
// half of one, and what the name points at is respected. A regular file
// (or a new one) is written beside itself and renamed into place; a
// symbolic link keeps being a link, its target replaced; a device, FIFO or
// socket (/dev/stdout, /dev/null, a named pipe) is written in place, since
// renaming a regular file over it would destroy it.
package atomicfile

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
)

// Write writes path with write. Errors name path as given, never the
// temporary file beside it.
func Write(path string, write func(io.Writer) error) error {
	target, fi, err := Resolve(path)
	if err != nil {
		return err
	}
	if fi != nil && !fi.Mode().IsRegular() {
		return writeInPlace(path, target, write)
	}
	tmp, err := os.CreateTemp(filepath.Dir(target), "."+filepath.Base(target)+".*")
	if err != nil {
		return fmt.Errorf("create %s: %w", path, cause(err))
	}
	defer os.Remove(tmp.Name()) // a no-op once renamed
	bw := bufio.NewWriterSize(tmp, 1<<16)
	if err := write(bw); err != nil {
		tmp.Close()
		return renamed(err, tmp.Name(), path)
	}
	perm := fs.FileMode(0o644)
	if fi != nil {
		perm = fi.Mode().Perm() // a replaced file keeps its permissions
	}
	// Synced before the rename, so that a crash leaves the old file or
	// the whole new one.
	if err := errors.Join(bw.Flush(), tmp.Chmod(perm), tmp.Sync()); err != nil {
		tmp.Close()
		return fmt.Errorf("write %s: %w", path, cause(err))
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("write %s: %w", path, cause(err))
	}
	if err := os.Rename(tmp.Name(), target); err != nil {
		return fmt.Errorf("write %s: %w", path, cause(err))
	}
	return nil
}

// Resolve returns the file that writing path replaces, symbolic links
// followed, and its FileInfo (nil when it does not exist yet). A
// directory is an error: no file can replace it.
func Resolve(path string) (string, fs.FileInfo, error) {
	fi, err := os.Stat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		if _, lerr := os.Lstat(path); lerr == nil {
			// A dangling link: the file it names is created.
			target, err := os.Readlink(path)
			if err != nil {
				return "", nil, fmt.Errorf("%s: %w", path, cause(err))
			}
			if !filepath.IsAbs(target) {
				target = filepath.Join(filepath.Dir(path), target)
			}
			return target, nil, nil
		}
		return path, nil, nil
	case err != nil:
		return "", nil, fmt.Errorf("%s: %w", path, cause(err))
	case fi.IsDir():
		return "", nil, fmt.Errorf("%s is a directory: name a file in it", path)
	}
	target, err := filepath.EvalSymlinks(path)
	if err != nil {
		return "", nil, fmt.Errorf("%s: %w", path, cause(err))
	}
	return target, fi, nil
}

// writeInPlace writes a device, FIFO or socket through itself.
func writeInPlace(path, target string, write func(io.Writer) error) error {
	f, err := os.OpenFile(target, os.O_WRONLY, 0)
	if err != nil {
		return fmt.Errorf("open %s: %w", path, cause(err))
	}
	bw := bufio.NewWriterSize(f, 1<<16)
	if err := write(bw); err != nil {
		f.Close()
		return err
	}
	if err := errors.Join(bw.Flush(), f.Close()); err != nil {
		return fmt.Errorf("write %s: %w", path, cause(err))
	}
	return nil
}

// renamed returns err with the temporary file's name in it replaced by
// path, the name the user gave.
func renamed(err error, tmp, path string) error {
	var pe *fs.PathError
	if errors.As(err, &pe) && pe.Path == tmp {
		return fmt.Errorf("write %s: %w", path, pe.Err)
	}
	return err
}

// cause strips the *fs.PathError or *os.LinkError around err, whose path
// would be the temporary file's, leaving the reason (no such file or
// directory, permission denied, no space left on device).
func cause(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	var le *os.LinkError
	if errors.As(err, &le) {
		return le.Err
	}
	return err
}
