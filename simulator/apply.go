package simulator

import (
	"time"

	"github.com/gepcheck/gepcheck/simulator/load"
	"github.com/gepcheck/gepcheck/simulator/profile"
	"github.com/gepcheck/gepcheck/simulator/topology"
)

// Apply is the state base (objects as a cluster stores them) after
// changes are applied as `kubectl apply -f` applies them: an object of the
// same group, kind, namespace and name is replaced, keeping its stored
// metadata.creationTimestamp (the API server keeps it on update); any
// other is added, created after every object of base (newer than the
// newest creationTimestamp base holds, all of one apply at the same
// second: GEP-713's Conflict resolution rule 2 finds them tied, and rule
// 3 orders them by name). A namespaced object of changes that names no
// namespace goes to namespace (-n, else the kubeconfig context's; "default"
// when empty). A creationTimestamp
// an applied object writes is not kept: the API server sets it. Nothing
// is deleted (`kubectl apply` without --prune).
func Apply(base, changes []*load.Doc, namespace string) []*load.Doc {
	if namespace == "" {
		namespace = "default"
	}
	out := make([]*load.Doc, len(base))
	copy(out, base)
	at := map[string]int{}
	newest := stepsEpoch.Add(-time.Second)
	for i, d := range base {
		at[objectKey(d)] = i
		if t, ok := writtenTime(d.Raw); ok && t.After(newest) {
			newest = t
		}
	}
	created := newest.Add(time.Second)
	for _, d := range changes {
		c := placed(d, namespace)
		raw := withoutTimestamp(c.Raw)
		if i, ok := at[objectKey(&c)]; ok {
			ts, _ := writtenTime(out[i].Raw)
			out[i] = stamped(c.WithRaw(raw), ts)
			continue
		}
		at[objectKey(&c)] = len(out)
		out = append(out, stamped(c.WithRaw(raw), created))
	}
	return out
}

// placed is a copy of d in the namespace it is stored in: namespace for a
// namespaced object that names none, none for a cluster-scoped one (whose
// metadata.namespace kubectl ignores).
func placed(d *load.Doc, namespace string) load.Doc {
	c := *d
	switch {
	case !namespaced(&c):
		c.Namespace = ""
	case c.Namespace == "":
		c.Namespace = namespace
	}
	return c
}

// Covered splits deletions into the documents covers says were read
// (group, kind and the namespace each is stored in, "" for a
// cluster-scoped one, placed as Delete places them) and the rest: kubectl
// delete -f deletes kinds a read of the cluster leaves out too, and
// their deletion changes nothing simulated (docs/diff.md, Deleting
// objects).
func Covered(deletions []*load.Doc, namespace string, covers func(group, kind, namespace string) bool) (read, unread []*load.Doc) {
	if namespace == "" {
		namespace = "default"
	}
	for _, d := range deletions {
		if c := placed(d, namespace); covers(c.Group, c.Kind, c.Namespace) {
			read = append(read, d)
		} else {
			unread = append(unread, d)
		}
	}
	return read, unread
}

// objectKey identifies a stored object: group, kind, namespace (default
// for a namespaced object that names none) and name.
func objectKey(d *load.Doc) string {
	ns := d.Namespace
	if ns == "" && namespaced(d) {
		ns = "default"
	}
	return d.Group + "/" + d.Kind + "/" + ns + "/" + d.Name
}

// Delete is the state base after the objects of deletions are deleted as
// `kubectl delete -f` deletes them: each by group, kind, namespace and
// name (a namespaced document that names no namespace is in namespace, as
// for Apply); the rest of each document is not read. A document naming
// no object of base is an error naming its file, document and line, as
// kubectl reports NotFound (docs/diff.md, Deleting objects). Deleting and
// then applying the same object (Apply) creates it anew, newer than every
// other, as in a cluster.
func Delete(base, deletions []*load.Doc, namespace string) ([]*load.Doc, error) {
	if namespace == "" {
		namespace = "default"
	}
	gone := map[string]bool{}
	var errs load.Errors
	for _, d := range deletions {
		c := placed(d, namespace)
		gone[objectKey(&c)] = true
	}
	out := make([]*load.Doc, 0, len(base))
	found := map[string]bool{}
	for _, d := range base {
		if k := objectKey(d); gone[k] {
			found[k] = true
			continue
		}
		out = append(out, d)
	}
	for _, d := range deletions {
		c := placed(d, namespace)
		if !found[objectKey(&c)] {
			errs = append(errs, &load.Error{Source: d.Source, Object: c.Object(), Msg: "to delete, but not in the state it is deleted from (kubectl delete: NotFound)"})
		}
	}
	if len(errs) > 0 {
		return nil, errs
	}
	return out, nil
}

// withoutTimestamp is raw without metadata.creationTimestamp (a copy when
// it has one).
func withoutTimestamp(raw map[string]any) map[string]any {
	meta, ok := raw["metadata"].(map[string]any)
	if !ok {
		return raw
	}
	if _, has := meta["creationTimestamp"]; !has {
		return raw
	}
	c := make(map[string]any, len(raw))
	for k, v := range raw {
		c[k] = v
	}
	m := make(map[string]any, len(meta))
	for k, v := range meta {
		if k != "creationTimestamp" {
			m[k] = v
		}
	}
	c["metadata"] = m
	return c
}

// ReadKinds are the kinds a reader of a cluster reads for opts: the policy
// kinds of the profiles opts.Profiles names (every built-in profile's when
// it names none), and the kinds their references may name (a
// BackendTLSPolicy's CA ConfigMaps, profile.Reference).
func ReadKinds(opts Options) (policies, referenced []profile.GroupKind, err error) {
	var ps []*profile.Profile
	if len(opts.Profiles) > 0 {
		b := &builder{m: &Model{Graph: &topology.Graph{}, sources: map[string]load.Source{}}, seen: map[string]load.Source{}}
		ps = b.profiles(opts, nil, nil)
		if len(b.errs) > 0 {
			return nil, nil, b.errs
		}
	} else {
		builtins, err := profile.Builtins()
		if err != nil {
			return nil, nil, err
		}
		for _, n := range profile.BuiltinNames() {
			ps = append(ps, builtins[n])
		}
	}
	seen := map[profile.GroupKind]bool{}
	for _, p := range ps {
		if gk := p.Spec.Policy; !seen[gk] {
			seen[gk] = true
			policies = append(policies, gk)
		}
	}
	for _, p := range ps {
		for _, r := range p.Spec.References {
			for _, gk := range r.Kinds {
				if !seen[gk] {
					seen[gk] = true
					referenced = append(referenced, gk)
				}
			}
		}
	}
	return policies, referenced, nil
}
