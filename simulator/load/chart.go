package load

import (
	"bytes"
	"io"
	"io/fs"
	"os"
	"path/filepath"
)

// A Helm chart's templates are not Kubernetes objects until Helm renders
// them (docs/input.md, Helm): HelmChart and Templated say whether a path
// that does not load is in a chart, and holds its templates.

// maxChartDepth bounds the walk from a -f path up to the root looking for
// a Helm chart's Chart.yaml (docs/limits.md: every loop over input is
// bounded); deeper folders are not looked at.
const maxChartDepth = 256

// HelmChart is the folder of the Helm chart that path is, or is in (the
// nearest folder, path itself or a parent of it, holding a Chart.yaml),
// as path names it (relative when path is); "" when there is none.
func HelmChart(path string) string {
	if path == "-" {
		return ""
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return ""
	}
	dir := abs
	if st, err := os.Stat(abs); err != nil || !st.IsDir() {
		dir = filepath.Dir(abs)
	}
	for range maxChartDepth {
		if st, err := os.Stat(filepath.Join(dir, "Chart.yaml")); err == nil && st.Mode().IsRegular() {
			if filepath.IsAbs(path) {
				return dir
			}
			if wd, err := os.Getwd(); err == nil {
				if rel, err := filepath.Rel(wd, dir); err == nil {
					return rel
				}
			}
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			break
		}
		dir = parent
	}
	return ""
}

// maxTemplateFiles and maxTemplateBytes bound the look for Helm's template
// actions under a -f path (docs/limits.md): files past them are not read.
const (
	maxTemplateFiles = 10000
	maxTemplateBytes = 1 << 20
)

// Templated says whether path (a file, or a file under a folder) holds a
// Helm template action ("{{"): only then is a load error the chart's
// templates', and not an error of rendered objects that sit in a chart's
// folder (a field, a flag), which is shown as it is.
func Templated(path string) bool {
	has := func(file string) bool {
		f, err := os.Open(file)
		if err != nil {
			return false
		}
		defer f.Close()
		b, _ := io.ReadAll(io.LimitReader(f, maxTemplateBytes))
		return bytes.Contains(b, []byte("{{"))
	}
	st, err := os.Stat(path)
	if err != nil {
		return false
	}
	if !st.IsDir() {
		return has(path)
	}
	found, n := false, 0
	filepath.WalkDir(path, func(p string, d fs.DirEntry, err error) error {
		if err != nil || found {
			return filepath.SkipAll
		}
		if n++; n > maxTemplateFiles {
			return filepath.SkipAll
		}
		if !d.IsDir() && d.Type().IsRegular() && has(p) {
			found = true
			return filepath.SkipAll
		}
		return nil
	})
	return found
}
