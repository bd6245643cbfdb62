package crd

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"maps"
	"slices"
	"sync"
)

// Set holds compiled schemas by group, kind and version.
type Set struct {
	byGVK map[[3]string]*Schema
}

// Add adds schemas; one already held for the same group, version and
// kind is replaced (an input's CRD over a cluster's over a built-in).
func (s *Set) Add(schemas ...*Schema) {
	if s.byGVK == nil {
		s.byGVK = map[[3]string]*Schema{}
	}
	for _, x := range schemas {
		s.byGVK[[3]string{x.Group, x.Version, x.Kind}] = x
	}
}

// Lookup returns the schema of a group, version and kind, if any.
func (s *Set) Lookup(group, version, kind string) *Schema {
	if s == nil {
		return nil
	}
	return s.byGVK[[3]string{group, version, kind}]
}

// Preferred returns the schema of a group and kind for a spec read
// without its apiVersion: the storage version's, else the first served.
func (s *Set) Preferred(group, kind string) *Schema {
	if s == nil {
		return nil
	}
	var first *Schema
	for _, k := range slices.SortedFunc(maps.Keys(s.byGVK), func(a, b [3]string) int { return slices.Compare(a[:], b[:]) }) {
		x := s.byGVK[k]
		if x.Group != group || x.Kind != kind {
			continue
		}
		if x.Storage {
			return x
		}
		if first == nil {
			first = x
		}
	}
	return first
}

// Len is the number of schemas held.
func (s *Set) Len() int {
	if s == nil {
		return 0
	}
	return len(s.byGVK)
}

// Clone copies s, so that a run adds to its own set.
func (s *Set) Clone() *Set {
	out := &Set{}
	if s != nil {
		out.byGVK = maps.Clone(s.byGVK)
	}
	return out
}

// FromObjects compiles CustomResourceDefinition objects as read from a
// cluster (unstructured, e.g. a dynamic client's list items) into a set;
// source names the cluster in errors.
func FromObjects(objs []map[string]any, source string) (*Set, error) {
	out := &Set{}
	for i, o := range objs {
		schemas, err := FromUnstructured(o, fmt.Sprintf("%s: CustomResourceDefinition %d", source, i+1))
		if err != nil {
			return nil, err
		}
		out.Add(schemas...)
	}
	return out, nil
}

var (
	registeredMu sync.Mutex
	registered   []registration
	builtinOnce  sync.Once
	builtin      *Set
	builtinErr   error
)

type registration struct {
	source string
	data   []byte
}

// Register adds a built-in CRD: the definition an implementation gepcheck
// ships serves its policy kinds with (suite/impl/…), gzip-compressed or
// plain YAML, source naming it (e.g. the implementation and version). Call it
// from an init function.
func Register(source string, data []byte) {
	registeredMu.Lock()
	defer registeredMu.Unlock()
	registered = append(registered, registration{source, data})
	builtinOnce = sync.Once{}
}

// Builtins returns the registered CRDs, compiled once.
func Builtins() (*Set, error) {
	registeredMu.Lock()
	defer registeredMu.Unlock()
	builtinOnce.Do(func() {
		builtin, builtinErr = compileAll(registered)
	})
	return builtin, builtinErr
}

func compileAll(regs []registration) (*Set, error) {
	out := &Set{}
	for _, r := range slices.SortedFunc(slices.Values(regs), func(a, b registration) int {
		return cmpString(a.source, b.source)
	}) {
		data := r.data
		if bytes.HasPrefix(data, []byte{0x1f, 0x8b}) {
			zr, err := gzip.NewReader(bytes.NewReader(data))
			if err != nil {
				return nil, fmt.Errorf("%s: %w", r.source, err)
			}
			data, err = io.ReadAll(io.LimitReader(zr, 64<<20))
			if err != nil {
				return nil, fmt.Errorf("%s: %w", r.source, err)
			}
		}
		schemas, err := Parse(data, r.source)
		if err != nil {
			return nil, err
		}
		out.Add(schemas...)
	}
	return out, nil
}

func cmpString(a, b string) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}
