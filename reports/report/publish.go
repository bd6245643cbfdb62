package report

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
)

// DirError is a results' directory under the reports' directory that
// cannot be named (Dir), e.g. for want of a version.
type DirError struct{ Err error }

func (e DirError) Error() string { return e.Err.Error() }
func (e DirError) Unwrap() error { return e.Err }

// KnownError is kept findings that do not read (MarkKnown).
type KnownError struct{ Err error }

func (e KnownError) Error() string { return e.Err.Error() }
func (e KnownError) Unwrap() error { return e.Err }

// Publish writes r's reports under dir and returns the directory they
// are in. A results file already there for the same implementation,
// version, mode and semantics is added to (Combine): a run of scenario
// files replaces its cases, a random campaign the campaign of its kind.
// The failures are matched with the kept findings in known (MarkKnown).
// A results file that is there but cannot be read is not written over.
func Publish(dir, known string, r *Results) (string, error) {
	rdir, err := Dir(dir, r)
	if err != nil {
		return "", DirError{err}
	}
	_, _, _, _, name := Files(r)
	prev, err := ReadResults(filepath.Join(rdir, name))
	switch {
	case err == nil:
		r = Combine(prev, r)
	case !errors.Is(err, fs.ErrNotExist):
		return "", err
	}
	if err := MarkKnown(r, known); err != nil {
		return "", KnownError{err}
	}
	return Write(dir, r)
}

// ReadAll reads results files (ReadResults), in the order given.
func ReadAll(files []string) ([]*Results, error) {
	var rs []*Results
	for _, f := range files {
		r, err := ReadResults(f)
		if err != nil {
			return nil, err
		}
		rs = append(rs, r)
	}
	return rs, nil
}

// ReadVersions reads the offline results of every version in an
// implementation's reports directory, DIR/<version>/results-offline.json,
// for Matrix.
func ReadVersions(dir string) ([]*Results, error) {
	files, err := filepath.Glob(filepath.Join(dir, "*", "results-offline.json"))
	if err != nil || len(files) == 0 {
		return nil, fmt.Errorf("%s: no <version>/results-offline.json", dir)
	}
	return ReadAll(files)
}
