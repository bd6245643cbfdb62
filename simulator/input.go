package simulator

import (
	"io"

	"github.com/gepcheck/gepcheck/simulator/kustomize"
	"github.com/gepcheck/gepcheck/simulator/load"
)

// Input is the input of a command as users have it (docs/input.md): -f
// files, folders and - (standard input), and -k kustomization folders.
type Input struct {
	Files          []string // -f: files, folders, "-" for Stdin
	Kustomizations []string // -k: folders rendered as kubectl kustomize renders them
	Stdin          io.Reader
}

// ReadInput reads in within lim: each kustomization rendered
// (simulator/kustomize), its output read as a file named after the folder,
// and the files through load.ReadInput, which skips, with a warning, what
// a folder holds that is no Kubernetes object. It returns the documents,
// the warnings as printed, and every error. Commands that read two states
// (diff) read each with it.
func ReadInput(in Input, lim load.Limits) ([]*load.Doc, []string, error) {
	lim = lim.OrDefault()
	var (
		rendered []load.Rendered
		errs     load.Errors
	)
	for _, dir := range in.Kustomizations {
		out, err := kustomize.Build(dir, lim.MaxBytes)
		if err != nil {
			errs.Add(&load.Error{Msg: err.Error()}) // names -k dir
			continue
		}
		rendered = append(rendered, load.Rendered{Name: KustomizeName(dir), Data: out})
	}
	if len(errs) > 0 {
		return nil, nil, errs
	}
	docs, warns, err := load.ReadInput(load.Input{Paths: in.Files, Stdin: in.Stdin, Rendered: rendered}, lim)
	return docs, load.Strings(warns), err
}

// KustomizeName is the file name errors give the output of -k dir: the
// document numbers and lines they name are those of `kubectl kustomize
// dir`'s output.
func KustomizeName(dir string) string {
	return "kubectl kustomize " + dir
}

// LoadError is an error of LoadInput when reading also skipped files: the
// warnings may explain it (a folder's kustomization skipped, its base
// and overlay's objects read as duplicates), so they go with it.
type LoadError struct {
	Err      error
	Warnings []string
}

func (e *LoadError) Error() string { return e.Err.Error() }
func (e *LoadError) Unwrap() error { return e.Err }
