package simulator

import (
	"sync"

	"github.com/gepcheck/gepcheck/simulator/load"
)

// BuildPair builds the models of two states of the same objects (gepcheck
// diff; docs/diff.md), doing once what the two share: a document of after
// with the same group, kind, namespace, name and text as one of before is
// that document (load.SameText), decoded once for both, and the two models
// are built at the same time. Each model is what Build gives for its
// documents (TestBuildPairIsBuild); an error names the state's documents
// (a shared one, before's). The documents are BuildPair's: the raw form
// of one decoded into its Go type is let go, as simulate lets it go
// (docs/performance.md), and a namespaced one without a namespace gets
// "default".
func BuildPair(before, after []*load.Doc, opts Options) (*Model, *Model, error) {
	// The builder names the namespace of a namespaced document without
	// one; done here, before the two builds share the documents.
	for _, docs := range [][]*load.Doc{before, after} {
		for _, d := range docs {
			if d.Namespace == "" && namespaced(d) {
				d.Namespace = "default"
			}
		}
	}
	key := func(d *load.Doc) string { return d.Group + "/" + d.Kind + "/" + d.Namespace + "/" + d.Name }
	// Each document of before is shared at most once, with the first of
	// after's that matches it: a duplicate (an error, or a warning for a
	// kind gepcheck ignores) keeps its own file, document and line in
	// each state.
	old := make(map[string]*load.Doc, len(before))
	for _, d := range before {
		if _, dup := old[key(d)]; !dup {
			old[key(d)] = d
		}
	}
	shared := make([]*load.Doc, len(after))
	union := append([]*load.Doc(nil), before...)
	for i, d := range after {
		if o, ok := old[key(d)]; ok && (o == d || load.SameText(o, d) && sameTime(o, d)) {
			shared[i] = o
			delete(old, key(d))
			continue
		}
		shared[i] = d
		union = append(union, d)
	}
	pre := decodeAll(union, true)
	var models [2]*Model
	var errs [2]error
	var wg sync.WaitGroup
	for i, docs := range [][]*load.Doc{before, shared} {
		wg.Go(func() { models[i], errs[i] = buildWith(docs, opts, false, pre) })
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, nil, err
		}
	}
	return models[0], models[1], nil
}

// sameTime reports whether two documents have the same creationTimestamp
// in their raw form (States and Apply stamp one that the text lacks).
func sameTime(a, b *load.Doc) bool {
	ta, oka := writtenTime(a.Raw)
	tb, okb := writtenTime(b.Raw)
	return oka == okb && ta.Equal(tb)
}
