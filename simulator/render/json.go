package render

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"runtime"
	"sync"

	"github.com/gepcheck/gepcheck/simulator"
)

// outputJSON writes out exactly as json.Encoder with SetIndent("", "  ")
// writes it, but element by element, the elements of each list marshalled
// on every CPU in batches: re-indenting one buffer of the whole output was
// a tenth of simulate's time at 10,000 routes (docs/performance.md).
// TestOutputJSON checks the bytes are the Encoder's.
func outputJSON(w io.Writer, out *simulator.Output) error {
	bw := bufio.NewWriterSize(w, 1<<16)
	// The reading that produced the answer, first, small and in the
	// order of Output's fields.
	for i, h := range []struct {
		name string
		v    any
	}{{"semantics", out.Semantics}, {"statusVocabulary", out.StatusVocabulary}, {"profiles", out.Profiles}} {
		b, err := json.MarshalIndent(h.v, "  ", "  ")
		if err != nil {
			return err
		}
		if i == 0 {
			bw.WriteString("{\n")
		} else {
			bw.WriteString(",\n")
		}
		bw.WriteString("  \"" + h.name + "\": ")
		bw.Write(b)
	}
	lists := []struct {
		name  string
		n     int
		elem  func(int) any
		empty bool // omitted when empty (omitempty)
	}{
		{"effectivePolicies", len(out.EffectivePolicies), func(i int) any { return &out.EffectivePolicies[i] }, false},
		{"policies", len(out.Policies), func(i int) any { return &out.Policies[i] }, false},
		{"targets", len(out.Targets), func(i int) any { return &out.Targets[i] }, false},
		{"warnings", len(out.Warnings), func(i int) any { return out.Warnings[i] }, true},
	}
	for _, l := range lists {
		if l.empty && l.n == 0 {
			continue
		}
		bw.WriteString(",\n  \"" + l.name + "\": ")
		if l.n == 0 {
			// The lists are never nil (Model.Run); an empty one is [].
			bw.WriteString("[]")
			continue
		}
		bw.WriteString("[\n    ")
		if err := writeElements(bw, l.n, l.elem); err != nil {
			return err
		}
		bw.WriteString("\n  ]")
	}
	bw.WriteString("\n}\n")
	return bw.Flush()
}

// writeElements writes n elements separated by ",\n    ", each indented as
// an element of a list of a top-level object.
func writeElements(w *bufio.Writer, n int, elem func(int) any) error {
	const batch = 512
	bufs := make([][]byte, batch)
	errs := make([]error, batch)
	for start := 0; start < n; start += batch {
		end := min(start+batch, n)
		var wg sync.WaitGroup
		workers := min(runtime.GOMAXPROCS(0), end-start)
		for k := range workers {
			wg.Go(func() {
				for i := start + k; i < end; i += workers {
					var b bytes.Buffer
					if err := json.NewEncoder(&b).Encode(elem(i)); err != nil {
						errs[i-start] = err
						continue
					}
					var ind bytes.Buffer
					errs[i-start] = json.Indent(&ind, bytes.TrimSuffix(b.Bytes(), []byte("\n")), "    ", "  ")
					bufs[i-start] = ind.Bytes()
				}
			})
		}
		wg.Wait()
		for i := start; i < end; i++ {
			if errs[i-start] != nil {
				return errs[i-start]
			}
			if i > 0 {
				w.WriteString(",\n    ")
			}
			w.Write(bufs[i-start])
		}
	}
	return nil
}
