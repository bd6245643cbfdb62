package scenarios

import (
	"embed"
	"io/fs"
	"os"
	"path/filepath"
)

// catalogue is gepcheck's scenario files, in the binary and in every
// module that imports gepcheck (an implementation's own tests,
// suite/conformance).
//
//go:embed */*.yaml
var catalogue embed.FS

// WriteCatalogue writes the catalogue's directories (the specs' scenarios
// and each implementation's; findings are not part of it) under dir and
// returns their paths, sorted.
func WriteCatalogue(dir string) ([]string, error) {
	var dirs []string
	err := fs.WalkDir(catalogue, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || p == "." {
			return err
		}
		if d.IsDir() && p == "findings" {
			return fs.SkipDir
		}
		if d.IsDir() {
			dirs = append(dirs, filepath.Join(dir, p))
		}
		out := filepath.Join(dir, filepath.FromSlash(p))
		if d.IsDir() {
			return os.MkdirAll(out, 0o755)
		}
		data, err := catalogue.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(out, data, 0o644)
	})
	if err != nil {
		return nil, err
	}
	return dirs, nil
}
