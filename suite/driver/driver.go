// Package driver runs scenarios through an implementation of policy
// attachment and reads back what it did, in gepcheck's own model (an
// Observation), so that implementations can be compared with the reference
// engine and with each other.
//
// Drivers: "reference" (gepcheck's engine), "exec" (any command speaking
// the protocol of docs/exec-protocol.md).
package driver

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"
)

// Case is one scenario to observe: the documents a user would apply.
type Case struct {
	// Name identifies the case in a batch.
	Name string `json:"name"`
	// YAML holds the objects (multi-document YAML), including, where
	// needed, PolicyProfile and ObjectFields documents.
	YAML string `json:"yaml"`
	// Profiles names the built-in profiles the case uses, if any.
	Profiles []string `json:"profiles,omitempty"`
}

// Observation is what an implementation did with one case.
type Observation struct {
	Name string `json:"name"`
	// Effective lists the effective settings per path, as realized.
	Effective []Path `json:"effective"`
	// Policies lists the conditions written on each policy.
	Policies []Status `json:"policies"`
	// Targets lists the conditions written on affected objects.
	Targets []Status `json:"targets,omitempty"`
	// Rejected lists objects the implementation refused, and why.
	Rejected []Rejection `json:"rejected,omitempty"`
	// Error, when set, says the implementation failed on this case; the
	// rest of the observation is then empty.
	Error string `json:"error,omitempty"`
}

// Path is the effective setting of one path.
type Path struct {
	// Path lists Kind/namespace/name[#section] elements, as gepcheck
	// prints them.
	Path []string `json:"path"`
	// Spec is the effective spec proper.
	Spec map[string]any `json:"spec"`
}

// Status lists the conditions of one object.
type Status struct {
	Ref        string      `json:"ref"`
	Conditions []Condition `json:"conditions"`
}

// Condition is a status condition; Message is informative.
type Condition struct {
	Type    string `json:"type"`
	Status  string `json:"status"`
	Reason  string `json:"reason"`
	Message string `json:"message,omitempty"`
}

// Rejection is an object the implementation refused.
type Rejection struct {
	Ref    string `json:"ref"`
	Reason string `json:"reason"`
}

// Driver runs cases through an implementation.
type Driver interface {
	// Name identifies the implementation.
	Name() string
	// Supports reports whether the implementation handles a feature
	// (a policy kind such as "ColorPolicy", or "sectionName"); cases that
	// need another are skipped, not failed.
	Supports(feature string) bool
	// Conditions lists the policy condition types the implementation
	// writes and gepcheck compares; nil: all of them.
	Conditions() []string
	// Observe runs a batch of independent cases and returns one
	// observation per case, in order. An error means the whole batch
	// failed (the implementation could not run at all).
	Observe(ctx context.Context, cases []Case) ([]Observation, error)
}

// Normalize sorts an observation so that two observations of the same
// behaviour compare equal.
func (o *Observation) Normalize() {
	sort.Slice(o.Effective, func(a, b int) bool {
		return strings.Join(o.Effective[a].Path, " ") < strings.Join(o.Effective[b].Path, " ")
	})
	for _, l := range [][]Status{o.Policies, o.Targets} {
		sort.Slice(l, func(a, b int) bool { return l[a].Ref < l[b].Ref })
		for _, s := range l {
			sort.Slice(s.Conditions, func(a, b int) bool { return s.Conditions[a].Type < s.Conditions[b].Type })
		}
	}
	sort.Slice(o.Rejected, func(a, b int) bool { return o.Rejected[a].Ref < o.Rejected[b].Ref })
}

// Diff describes how got differs from want: effective settings per path,
// and policy conditions by type, status and reason (messages are not
// compared). It returns nothing when they agree.
func Diff(want, got Observation) []string { return DiffConditions(want, got, nil) }

// DiffConditions is Diff comparing only the condition types listed (all
// when nil): an implementation may not write every condition gepcheck
// computes. Paths whose effective spec is empty count as having none.
func DiffConditions(want, got Observation, types []string) []string {
	var out []string
	if want.Error != "" || got.Error != "" {
		if want.Error != got.Error {
			out = append(out, fmt.Sprintf("error: want %q, got %q", want.Error, got.Error))
		}
		return out
	}
	index := func(ps []Path) map[string]string {
		m := map[string]string{}
		for _, p := range ps {
			if len(p.Spec) == 0 {
				continue
			}
			b, _ := json.Marshal(p.Spec)
			m[strings.Join(p.Path, " > ")] = string(b)
		}
		return m
	}
	w, g := index(want.Effective), index(got.Effective)
	for _, k := range slices.Sorted(maps.Keys(w)) {
		if g[k] != w[k] {
			out = append(out, fmt.Sprintf("path %s: want %s, got %s", k, w[k], orNone(g[k])))
		}
	}
	for _, k := range slices.Sorted(maps.Keys(g)) {
		if _, ok := w[k]; !ok {
			out = append(out, fmt.Sprintf("path %s: want no effective policy, got %s", k, g[k]))
		}
	}
	conds := func(ss []Status) map[string]string {
		m := map[string]string{}
		for _, s := range ss {
			for _, c := range s.Conditions {
				if types != nil && !slices.Contains(types, c.Type) {
					continue
				}
				m[s.Ref+" "+c.Type] = c.Status + "/" + c.Reason
			}
		}
		return m
	}
	compare := func(what string, want, got []Status) {
		wc, gc := conds(want), conds(got)
		for _, k := range slices.Sorted(maps.Keys(wc)) {
			if gv, ok := gc[k]; ok && gv != wc[k] {
				out = append(out, fmt.Sprintf("%s %s: want %s, got %s", what, k, wc[k], gv))
			} else if !ok {
				out = append(out, fmt.Sprintf("%s %s: want %s, got no such condition", what, k, wc[k]))
			}
		}
	}
	compare("policy", want.Policies, got.Policies)
	// Target conditions (GEP-713, "Target object status") are compared
	// when the implementation reports them.
	if got.Targets != nil {
		compare("target", want.Targets, got.Targets)
	}
	return out
}

func orNone(s string) string {
	if s == "" {
		return "no effective policy"
	}
	return s
}
