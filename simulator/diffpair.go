package simulator

import (
	"errors"
	"io"
	"slices"
	"sync"

	"github.com/gepcheck/gepcheck/simulator/engine"
	"github.com/gepcheck/gepcheck/simulator/load"
)

// ReadPair reads the two states gepcheck diff compares, OLD and NEW, at
// the same time (docs/performance.md, gepcheck diff): their documents,
// the warnings of both (OLD's first), and each one's error.
func ReadPair(old, new string, stdin io.Reader, lim load.Limits) (docs [2][]*load.Doc, warnings []string, errs [2]error) {
	var warns [2][]string
	var wg sync.WaitGroup
	for i, p := range []string{old, new} {
		wg.Go(func() {
			docs[i], warns[i], errs[i] = ReadInput(Input{Files: []string{p}, Stdin: stdin}, lim)
		})
	}
	wg.Wait()
	return docs, append(warns[0], warns[1]...), errs
}

// SimulatePair builds two states (BuildPair) and simulates each as
// simulate does, within its limits, at the same time. warnings are the
// two models' (kinds ignored, duplicates ignored, selectors that select
// nothing: docs/input.md, Warnings), each once: before's, then those only
// after has; they are there when the simulation fails, not when the
// building does. A state may have no policy (a change deletes the last
// one; the state before the first).
func SimulatePair(a, b []*load.Doc, opts Options, sem engine.Semantics) (before, after *Output, warnings []string, err error) {
	ma, mb, err := BuildPair(a, b, opts)
	if err != nil {
		return nil, nil, nil, err
	}
	warned := map[string]bool{}
	for _, w := range append(slices.Clone(ma.Warnings), mb.Warnings...) {
		if !warned[w] {
			warned[w] = true
			warnings = append(warnings, w)
		}
	}
	var outs [2]*Output
	var errs [2]error
	var wg sync.WaitGroup
	for i, m := range []*Model{ma, mb} {
		wg.Go(func() {
			outs[i] = m.Run(sem, nil)
			if errs[i] = m.Limits(outs[i]); errs[i] != nil {
				outs[i] = nil
			}
		})
	}
	wg.Wait()
	if err := errors.Join(errs[0], errs[1]); err != nil {
		return nil, nil, warnings, err
	}
	return outs[0], outs[1], warnings, nil
}
