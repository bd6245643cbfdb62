package load

import (
	"fmt"
	"io"
	"path/filepath"

	"github.com/gepcheck/gepcheck/simulator/ref"
)

// Input is what a command is given to read: Paths as Read reads them
// (files, directories, "-" for Stdin), then Rendered, manifests a tool
// rendered from the user's files (kustomize's output for -k DIR).
type Input struct {
	Paths    []string
	Stdin    io.Reader
	Rendered []Rendered
}

// Rendered is one tool's output, read as a file named Name: errors about
// its documents name Name, the document and its line in Data.
type Rendered struct {
	Name string // e.g. "overlays/prod (kustomize output)"
	Data []byte
}

// Warning is a part of the input that was not read, and why.
type Warning struct {
	Source Source
	Msg    string
}

// String renders w as "FILE: msg", escaped as errors are.
func (w Warning) String() string {
	return ref.Printable(w.Source.String() + ": " + w.Msg)
}

// KustomizationFileNames are the names kustomize reads a kustomization
// from (sigs.k8s.io/kustomize/api konfig.RecognizedKustomizationFileNames).
var KustomizationFileNames = []string{"kustomization.yaml", "kustomization.yml", "Kustomization"}

// kustomizeGroup is the API group of kustomize's own kinds (Kustomization,
// Component).
const kustomizeGroup = "kustomize.config.k8s.io"

// ReadInput reads in within lim, as ReadLimited reads paths, except that
// in a folder what holds no Kubernetes objects is skipped with a warning
// instead of stopping the run (docs/input.md, Folders):
//
//   - a kustomization (a file kustomize reads one from, or whose
//     documents are all of kustomize's kinds): kustomize's input, read
//     with -k DIR;
//   - a file whose documents are all mappings with neither apiVersion nor
//     kind: a Helm values file, a CI workflow.
//
// A file named on the command line is read as it is. Warnings are in the
// order of the files.
func ReadInput(in Input, lim Limits) ([]*Doc, []Warning, error) {
	return read(in, lim, true)
}

// read is ReadInput; without skip, every file is read as objects.
func read(in Input, lim Limits, skip bool) ([]*Doc, []Warning, error) {
	lim = lim.OrDefault()
	var (
		docs  []*Doc
		warns []Warning
		errs  Errors
	)
	add := func(file string, data []byte, inFolder bool) {
		if !inFolder || !skip {
			d, _ := parseFile(file, data, lim.MaxDepth, &errs)
			docs = append(docs, d...)
			return
		}
		if isKustomizationName(file) {
			warns = append(warns, Warning{Source: Source{File: file}, Msg: "skipped: a kustomization, kustomize's input (render it with -k " + filepath.Dir(file) + ")"})
			return
		}
		var ferrs Errors
		d, what := parseFile(file, data, lim.MaxDepth, &ferrs)
		switch what {
		case plainYAML:
			warns = append(warns, Warning{Source: Source{File: file}, Msg: "skipped: YAML without apiVersion and kind, no Kubernetes objects"})
			return
		case kustomization:
			warns = append(warns, Warning{Source: Source{File: file}, Msg: "skipped: a kustomization, kustomize's input (render it with -k " + filepath.Dir(file) + ")"})
			return
		}
		docs = append(docs, d...)
		for _, e := range ferrs {
			errs.Add(e)
		}
	}
	for _, p := range in.Paths {
		if p == "-" {
			if in.Stdin == nil {
				errs.Add(&Error{Source: Source{File: StdinName}, Msg: "no standard input"})
				continue
			}
			data, err := readAtMost(in.Stdin, lim.MaxBytes)
			if err != nil {
				errs.Add(&Error{Source: Source{File: StdinName}, Msg: err.Error()})
				continue
			}
			add(StdinName, data, false)
			continue
		}
		files, folder, err := expand(p)
		if err != nil {
			errs.Add(&Error{Source: Source{File: p}, Msg: err.Error()})
			continue
		}
		for _, f := range files {
			data, err := readFile(f, lim.MaxBytes)
			if err != nil {
				errs.Add(&Error{Source: Source{File: f}, Msg: err.Error()})
				continue
			}
			add(f, data, folder)
			if len(docs) > lim.MaxDocuments {
				break
			}
		}
		if len(docs) > lim.MaxDocuments {
			break
		}
	}
	for _, r := range in.Rendered {
		if len(docs) > lim.MaxDocuments {
			break
		}
		if int64(len(r.Data)) > lim.MaxBytes {
			errs.Add(&Error{Source: Source{File: r.Name}, Msg: fmt.Sprintf("is %d bytes, more than the limit of %d (--max-bytes raises it)", len(r.Data), lim.MaxBytes)})
			continue
		}
		add(r.Name, r.Data, false)
	}
	if len(docs) > lim.MaxDocuments {
		return nil, warns, &Error{Source: docs[lim.MaxDocuments].Source, Msg: fmt.Sprintf("more than %d documents in all (the limit; --max-documents raises it)", lim.MaxDocuments)}
	}
	return docs, warns, errs.Err()
}

// isKustomizationName reports whether kustomize would read a
// kustomization from the file at path.
func isKustomizationName(path string) bool {
	base := filepath.Base(path)
	for _, n := range KustomizationFileNames {
		if base == n {
			return true
		}
	}
	return false
}

// Strings renders warnings one a string.
func Strings(ws []Warning) []string {
	out := make([]string, 0, len(ws))
	for _, w := range ws {
		out = append(out, w.String())
	}
	return out
}
