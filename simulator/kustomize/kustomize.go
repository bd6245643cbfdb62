// Package kustomize renders a kustomization directory (-k DIR) as
// `kubectl kustomize DIR` does: through sigs.k8s.io/kustomize/api's krusty,
// at the version kubectl v1.36 links, with kubectl's default options (load
// restricted to the kustomization's root, plug-ins and Helm charts off,
// kustomize's own resource order). The output is YAML for
// simulator/load (docs/input.md, Kustomize).
package kustomize

import (
	"errors"
	"fmt"
	"os"
	"strings"

	"sigs.k8s.io/kustomize/api/krusty"
	"sigs.k8s.io/kustomize/kyaml/filesys"

	"github.com/gepcheck/gepcheck/simulator/load"
)

// Version is the sigs.k8s.io/kustomize/api gepcheck links: the one
// kubectl v1.36.3 links (k8s.io/kubectl v0.36.3's go.mod).
const Version = "v0.21.1"

// Build renders the kustomization in dir, reading each file of at most
// maxBytes bytes (only regular files, as simulator/load reads: docs/limits.md)
// and refusing an output over maxBytes. Errors name dir.
func Build(dir string, maxBytes int64) ([]byte, error) {
	info, err := os.Stat(dir)
	switch {
	case err != nil && errors.Is(err, os.ErrNotExist):
		return nil, fmt.Errorf("-k %s: no such directory", dir)
	case err != nil:
		return nil, fmt.Errorf("-k %s: %v", dir, err)
	case !info.IsDir():
		return nil, fmt.Errorf("-k %s: not a directory: -k takes a directory holding a kustomization.yaml (a file is read with -f)", dir)
	}
	// kubectl kustomize: krusty.MakeDefaultOptions with the reorder
	// flag left unset, so that the kustomization's sortOptions (or
	// kustomize's legacy order) decides.
	opts := krusty.MakeDefaultOptions()
	opts.Reorder = krusty.ReorderOptionUnspecified
	k := krusty.MakeKustomizer(opts)
	fs := &limitedFS{FileSystem: filesys.MakeFsOnDisk(), max: maxBytes}
	m, err := k.Run(fs, dir)
	if err != nil {
		if fs.refused != nil {
			// kustomize takes a kustomization file it cannot read for
			// a missing one: the refusal is the cause.
			return nil, fmt.Errorf("-k %s: %w", dir, fs.refused)
		}
		return nil, fmt.Errorf("-k %s: kustomize: %s", dir, oneLine(err.Error()))
	}
	out, err := m.AsYaml()
	if err != nil {
		return nil, fmt.Errorf("-k %s: kustomize: %s", dir, oneLine(err.Error()))
	}
	if int64(len(out)) > maxBytes {
		return nil, fmt.Errorf("-k %s: kustomize's output is %d bytes, more than the limit of %d (--max-bytes raises it)", dir, len(out), maxBytes)
	}
	return out, nil
}

// oneLine joins the lines of a kustomize error.
func oneLine(s string) string {
	return strings.Join(strings.Fields(strings.ReplaceAll(s, "\n", " ")), " ")
}

// limitedFS is the disk as kustomize reads it, each file through
// load.ReadRegular: a device or a named pipe is refused, a file over max
// bytes is an error; refused keeps the first refusal.
type limitedFS struct {
	filesys.FileSystem
	max     int64
	refused error
}

func (f *limitedFS) ReadFile(path string) ([]byte, error) {
	data, err := load.ReadRegular(path, f.max)
	var (
		le *load.LimitError
		nr *load.NotRegularError
	)
	switch {
	case errors.As(err, &le):
		err = fmt.Errorf("%s: %s (--max-bytes raises it)", path, le.Msg)
	case errors.As(err, &nr):
		err = fmt.Errorf("%s: %w: gepcheck reads regular files", path, err)
	case err != nil:
		return nil, fmt.Errorf("%s: %w", path, err)
	default:
		return data, nil
	}
	if f.refused == nil {
		f.refused = err
	}
	return nil, err
}
