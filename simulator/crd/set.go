package crd

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
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
	handles      map[[2]string]*Handle
	handlesErr   error
)

type registration struct {
	source string
	data   []byte
}

// Register adds a built-in CRD: the definition an implementation gepcheck
// ships serves its policy kinds with (impl/…), or one of Gateway
// API's, gzip-compressed or plain YAML, source naming it (e.g. the
// implementation and version). Call it from an init function.
func Register(source string, data []byte) {
	registeredMu.Lock()
	defer registeredMu.Unlock()
	registered = append(registered, registration{source, data})
	handles, handlesErr = nil, nil
}

// Handle is a built-in CRD, compiled the first time it is used: most
// runs store the policies of one kind or none, and compiling every
// built-in CRD (their schemas and CEL rules) would cost each process a
// third of a second.
type Handle struct {
	Group, Kind string
	source      string
	data        []byte
	once        sync.Once
	set         *Set
	err         error
}

// Set compiles the CRD (once) and returns its served versions.
func (h *Handle) Set() (*Set, error) {
	h.once.Do(func() {
		schemas, err := Parse(h.data, h.source)
		if err != nil {
			h.err = err
			return
		}
		h.set = &Set{}
		for _, s := range schemas {
			if s.Group != h.Group || s.Kind != h.Kind {
				h.err = fmt.Errorf("%s: defines %s %s, read as %s %s", h.source, s.Group, s.Kind, h.Group, h.Kind)
				return
			}
		}
		h.set.Add(schemas...)
		h.data = nil
	})
	return h.set, h.err
}

// Preferred is the schema of the storage version (Set.Preferred); it
// panics if the built-in CRD does not compile, which TestBuiltins rules
// out.
func (h *Handle) Preferred() *Schema {
	set, err := h.Set()
	if err != nil {
		panic(err)
	}
	return set.Preferred(h.Group, h.Kind)
}

// Builtin returns the built-in CRD of a group and kind, nil when there is
// none; nothing is compiled yet.
func Builtin(group, kind string) (*Handle, error) {
	registeredMu.Lock()
	defer registeredMu.Unlock()
	if handles == nil && handlesErr == nil {
		handles, handlesErr = index(registered)
	}
	return handles[[2]string{group, kind}], handlesErr
}

// index reads the group and kind of each registered CRD without compiling
// it: the first "  group:" line and the "    kind:" line under
// "  names:" of the YAML controller-gen writes; Handle.Set checks them.
func index(regs []registration) (map[[2]string]*Handle, error) {
	out := map[[2]string]*Handle{}
	for _, r := range regs {
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
		var group, kind string
		inNames := false
		for _, line := range strings.Split(string(data), "\n") {
			switch {
			case group == "" && strings.HasPrefix(line, "  group: "):
				group = strings.TrimSpace(strings.TrimPrefix(line, "  group: "))
			case line == "  names:":
				inNames = true
			case inNames && kind == "" && strings.HasPrefix(line, "    kind: "):
				kind = strings.TrimSpace(strings.TrimPrefix(line, "    kind: "))
			case inNames && strings.HasPrefix(line, "  ") && !strings.HasPrefix(line, "    "):
				inNames = false
			}
			if group != "" && kind != "" {
				break
			}
		}
		if group == "" || kind == "" {
			return nil, fmt.Errorf("%s: no spec.group or spec.names.kind line", r.source)
		}
		key := [2]string{group, kind}
		if out[key] != nil {
			return nil, fmt.Errorf("%s: a second built-in CRD of %s %s (the first from %s)", r.source, group, kind, out[key].source)
		}
		out[key] = &Handle{Group: group, Kind: kind, source: r.source, data: data}
	}
	return out, nil
}
