package compare

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/gepcheck/gepcheck/suite/observe"
)

// Diff sees a changed effective setting and a changed condition, and
// prints each in the form findings files hold (scenarios/findings/).
func TestDiff(t *testing.T) {
	cond := func(status, reason string) []observe.Status {
		return []observe.Status{{Ref: "ColorPolicy/default/p1", Conditions: []observe.Condition{{Type: "Accepted", Status: status, Reason: reason}}}}
	}
	path := []string{"Gateway/default/g1", "Service/default/b1"}
	a := observe.Observation{Effective: []observe.Path{{Path: path, Spec: map[string]any{"color": "red"}}}, Policies: cond("True", "Accepted")}
	b := observe.Observation{Effective: []observe.Path{{Path: path, Spec: map[string]any{"color": "blue"}}}, Policies: cond("False", "Conflicted")}
	none := observe.Observation{Policies: []observe.Status{{Ref: "ColorPolicy/default/p1"}}}
	if d := Diff(a, a, observe.Capabilities{}); len(d) != 0 {
		t.Errorf("an observation differs from itself: %v", d)
	}
	for _, tc := range []struct {
		name      string
		want, got observe.Observation
		caps      observe.Capabilities
		lines     []string
	}{
		{"value and condition", a, b, observe.Capabilities{}, []string{
			`path Gateway/default/g1 > Service/default/b1: want {"color":"red"}, got {"color":"blue"}`,
			`policy ColorPolicy/default/p1 Accepted: want True/Accepted, got False/Conflicted`,
		}},
		// A status rule the implementation's own status breaks is a
		// difference, whatever its conditions say.
		{"status rule", a, func() observe.Observation {
			o := a
			o.Broken = []observe.RuleBreak{{Ref: "ColorPolicy/default/p1", Rule: "one-entry-per-ancestor", Got: "ancestor gw twice"}}
			return o
		}(), observe.Capabilities{}, []string{
			`status of ColorPolicy/default/p1 breaks one-entry-per-ancestor: ancestor gw twice`,
		}},
		{"missing", a, none, observe.Capabilities{}, []string{
			`path Gateway/default/g1 > Service/default/b1: want {"color":"red"}, got no effective policy`,
			`policy ColorPolicy/default/p1 Accepted: want True/Accepted, got no such condition`,
		}},
		// An empty effective spec is no effective setting: an
		// implementation in a cluster reports {} where its translator
		// offline reports no path, and both read the same.
		{"empty", a, observe.Observation{Effective: []observe.Path{{Path: path, Spec: map[string]any{}}}, Policies: cond("True", "Accepted")}, observe.Capabilities{}, []string{
			`path Gateway/default/g1 > Service/default/b1: want {"color":"red"}, got no effective policy`,
		}},
		// A policy the implementation has no place to report (no
		// ancestor of its own reaches its targets) is compared on
		// neither side.
		{"unreported", a, func() observe.Observation {
			o := a
			o.Policies = []observe.Status{{Ref: "ColorPolicy/default/p1", Conditions: []observe.Condition{{Type: "Accepted", Status: "False", Reason: "NoStatus"}}}}
			o.Unreported = []string{"ColorPolicy/default/p1"}
			return o
		}(), observe.Capabilities{}, nil},
		{"extra", none, b, observe.Capabilities{}, []string{
			`path Gateway/default/g1 > Service/default/b1: want no effective policy, got {"color":"blue"}`,
			`policy ColorPolicy/default/p1 Accepted: want no such condition, got False/Conflicted`,
		}},
		// Both ways: an Enforced or Programmed condition on a rejected
		// policy, which the reference does not write, differs (GEP-713
		// as merged: "Non-accepted policy objects are also not
		// Programmed and not Overridden"); a type no spec the reference
		// follows defines (Ready) is not compared.
		{"extra condition", rejected(), rejected(observe.Condition{Type: "Enforced", Status: "True", Reason: "Enforced"}, observe.Condition{Type: "Programmed", Status: "True", Reason: "Programmed"}, observe.Condition{Type: "Ready", Status: "True", Reason: "Ready"}), observe.Capabilities{}, []string{
			`policy ColorPolicy/default/p1 Enforced: want no such condition, got True/Enforced`,
			`policy ColorPolicy/default/p1 Programmed: want no such condition, got True/Programmed`,
		}},
		// A condition the texts do not settle (docs/semantics.md: a
		// policy that sets no value) is not judged; the Accepted beside
		// it is.
		{"undefined", observe.Observation{Policies: []observe.Status{{Ref: "ColorPolicy/default/p1", Conditions: []observe.Condition{
			{Type: "Accepted", Status: "True", Reason: "Accepted"},
			{Type: "Programmed", Status: "False", Reason: "Overridden", Undefined: "the policy sets no value"},
		}}}}, rejected(observe.Condition{Type: "Programmed", Status: "True", Reason: "Programmed"}), observe.Capabilities{}, []string{
			`policy ColorPolicy/default/p1 Accepted: want True/Accepted, got False/Invalid`,
		}},
		{"conditions not compared", a, b, observe.Capabilities{Conditions: []string{"Enforced"}}, []string{
			`path Gateway/default/g1 > Service/default/b1: want {"color":"red"}, got {"color":"blue"}`,
		}},
		// The reference's reason is shown, not compared.
		{"reason", observe.Observation{Policies: []observe.Status{{Ref: "ColorPolicy/default/p1", Conditions: []observe.Condition{{Type: "Accepted", Status: "False", Reason: "Conflicted", Message: "conflicts with\nColorPolicy/default/p0"}}}}},
			rejected(), observe.Capabilities{}, []string{
				`policy ColorPolicy/default/p1 Accepted: want False/Conflicted, got False/Invalid (reference: conflicts with ColorPolicy/default/p0)`,
			}},
		{"errors", observe.Observation{Error: "x"}, observe.Observation{Error: "y"}, observe.Capabilities{}, []string{
			`error: want "x", got "y"`,
		}},
	} {
		if got := Strings(Diff(tc.want, tc.got, tc.caps)); !slices.Equal(got, tc.lines) {
			t.Errorf("%s:\n got %q\nwant %q", tc.name, got, tc.lines)
		}
	}
}

// rejected is an observation of policy p1 rejected as Invalid, with more
// conditions.
func rejected(more ...observe.Condition) observe.Observation {
	cs := append([]observe.Condition{{Type: "Accepted", Status: "False", Reason: "Invalid"}}, more...)
	return observe.Observation{Policies: []observe.Status{{Ref: "ColorPolicy/default/p1", Conditions: cs}}}
}

// Numbers compare by value, as JSON does, whatever their Go type (a YAML
// decoder gives int64, a JSON decoder float64).
func TestDiffNumbers(t *testing.T) {
	p := []string{"Service/default/b1"}
	a := observe.Observation{Effective: []observe.Path{{Path: p, Spec: map[string]any{"retry": map[string]any{"numRetries": int64(2)}}}}}
	b := observe.Observation{Effective: []observe.Path{{Path: p, Spec: map[string]any{"retry": map[string]any{"numRetries": 2.0}}}}}
	if d := Diff(a, b, observe.Capabilities{}); len(d) != 0 {
		t.Errorf("2 and 2.0 differ: %v", Strings(d))
	}
}

// Kinds tells disagreements apart by what differs, down to the spec fields
// of effective settings, so that fuzz keeps one finding of each.
func TestKinds(t *testing.T) {
	path := []string{"Gateway/ns/gw", "Gateway/ns/gw#http"}
	other := []string{"Gateway/ns/gw", "Gateway/ns/gw#http-2"}
	obs := func(paths map[string]map[string]any, accepted string) observe.Observation {
		o := observe.Observation{Name: "ns"}
		for k, spec := range paths {
			p := path
			if k == "other" {
				p = other
			}
			o.Effective = append(o.Effective, observe.Path{Path: p, Spec: spec})
		}
		o.Policies = []observe.Status{{Ref: "BackendTrafficPolicy/ns/p", Conditions: []observe.Condition{{Type: "Accepted", Status: "True", Reason: accepted}}}}
		return o
	}
	retry1 := map[string]any{"retry": map[string]any{"numRetries": 1.0}}
	retry2 := map[string]any{"retry": map[string]any{"numRetries": 2.0}}
	both := map[string]any{"retry": map[string]any{"numRetries": 1.0}, "circuitBreaker": map[string]any{"maxConnections": 100.0}}
	conflicted := observe.Observation{Name: "ns", Effective: []observe.Path{{Path: path, Spec: retry1}},
		Policies: []observe.Status{{Ref: "BackendTrafficPolicy/ns/p", Conditions: []observe.Condition{{Type: "Accepted", Status: "False", Reason: "Conflicted"}}}}}
	for _, tc := range []struct {
		name      string
		want, got observe.Observation
		kinds     []string
	}{
		{"agree", obs(map[string]map[string]any{"this": retry1}, "Accepted"), obs(map[string]map[string]any{"this": retry1}, "Accepted"), nil},
		{"another value", obs(map[string]map[string]any{"this": retry1}, "Accepted"), obs(map[string]map[string]any{"this": retry2}, "Accepted"), []string{"effective-setting-retry"}},
		{"a field more", obs(map[string]map[string]any{"this": retry1}, "Accepted"), obs(map[string]map[string]any{"this": both}, "Accepted"), []string{"effective-setting-circuitBreaker"}},
		{"a path more", obs(map[string]map[string]any{"this": both}, "Accepted"), obs(map[string]map[string]any{"this": both, "other": both}, "Accepted"), []string{"extra-setting-circuitBreaker", "extra-setting-retry"}},
		{"a path less", obs(map[string]map[string]any{"this": both}, "Accepted"), obs(nil, "Accepted"), []string{"effective-setting-circuitBreaker", "effective-setting-retry"}},
		{"conflicted", obs(map[string]map[string]any{"this": retry1}, "Accepted"), conflicted, []string{"conflicted"}},
		{"two kinds", obs(map[string]map[string]any{"this": retry1}, "Accepted"), obs(map[string]map[string]any{"this": retry2, "other": retry2}, "Accepted"), []string{"effective-setting-retry", "extra-setting-retry"}},
	} {
		if got := Kinds(Diff(tc.want, tc.got, observe.Capabilities{})); !slices.Equal(got, tc.kinds) {
			t.Errorf("%s: Kinds = %q, want %q (diff %q)", tc.name, got, tc.kinds, Strings(Diff(tc.want, tc.got, observe.Capabilities{})))
		}
	}
}

// TestDiffProjects: the reference's side is compared as the
// implementation can observe it: specs projected (Readable), paths it
// cannot show left out (Observable); the implementation's side as it is.
func TestDiffProjects(t *testing.T) {
	want := observe.Observation{Effective: []observe.Path{
		{Path: []string{"Gateway/ns/gw", "HTTPRoute/ns/r"}, Spec: map[string]any{"a": 1.0, "hidden": 2.0}},
		{Path: []string{"HTTPRoute/ns/orphan"}, Spec: map[string]any{"a": 1.0}},
	}}
	got := observe.Observation{Effective: []observe.Path{{Path: []string{"Gateway/ns/gw", "HTTPRoute/ns/r"}, Spec: map[string]any{"a": 1.0}}}}
	caps := observe.Capabilities{
		Readable:   func(s map[string]any) map[string]any { return map[string]any{"a": s["a"]} },
		Observable: func(p []string, _ *observe.Observation) bool { return strings.HasPrefix(p[0], "Gateway/") },
	}
	if d := Diff(want, got, caps); len(d) != 0 {
		t.Errorf("projected: %v", Strings(d))
	}
	if d := Diff(want, got, observe.Capabilities{}); len(d) != 2 {
		t.Errorf("unprojected: want 2 differences (the hidden field, the orphan path), got %v", Strings(d))
	}
}

// An implementation that writes the other status vocabulary than the one
// the reference writes for its claim is judged wrong on every policy
// condition of the vocabulary (GEP-713 as merged upstream, "Status
// reporting", Status conditions: Accepted and Programmed; the draft's
// Policy status: Accepted and Enforced), both ways; one that writes only
// Accepted (Capabilities.Conditions) is not judged on the second
// condition at all.
func TestDiffVocabularies(t *testing.T) {
	const p = "ColorPolicy/default/p1"
	obs := func(second, status, reason string) observe.Observation {
		return observe.Observation{Policies: []observe.Status{{Ref: p, Conditions: []observe.Condition{
			{Type: "Accepted", Status: "True", Reason: "Accepted"}, {Type: second, Status: status, Reason: reason}}}}}
	}
	merged, draft := obs("Programmed", "True", "Programmed"), obs("Enforced", "True", "Enforced")
	mergedOverridden, draftOverridden := obs("Programmed", "False", "Overridden"), obs("Enforced", "False", "Overridden")
	for _, tc := range []struct {
		name      string
		want, got observe.Observation
		caps      observe.Capabilities
		lines     []string
	}{
		{"claims merged, writes the draft's", merged, draft, observe.Capabilities{Vocabulary: "merged"}, []string{
			`policy ColorPolicy/default/p1 Enforced: want no such condition, got True/Enforced`,
			`policy ColorPolicy/default/p1 Programmed: want True/Programmed, got no such condition`,
		}},
		{"claims the draft, writes merged's", draftOverridden, mergedOverridden, observe.Capabilities{Vocabulary: "draft"}, []string{
			`policy ColorPolicy/default/p1 Enforced: want False/Overridden, got no such condition`,
			`policy ColorPolicy/default/p1 Programmed: want no such condition, got False/Overridden`,
		}},
		{"same vocabulary, another reason", merged, mergedOverridden, observe.Capabilities{}, []string{
			`policy ColorPolicy/default/p1 Programmed: want True/Programmed, got False/Overridden`,
		}},
		// Envoy Gateway, Contour and Traefik write only Accepted: their
		// claim is moot, and the second condition is not judged.
		{"writes only Accepted", merged, obs("Accepted", "True", "Accepted"), observe.Capabilities{Vocabulary: "merged", Conditions: []string{"Accepted"}}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := Strings(Diff(tc.want, tc.got, tc.caps)); !slices.Equal(got, tc.lines) {
				t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(tc.lines, "\n"))
			}
		})
	}
}

// TestDiffAncestors: where both sides report a policy's status per
// ancestor Gateway (Gateway API v1, PolicyStatus.Ancestors), each ancestor
// the implementation writes is compared with the reference's entry for it
// (none when the reference has none there); an ancestor only the
// reference has is not; a side without per-ancestor status compares
// nothing per ancestor.
func TestDiffAncestors(t *testing.T) {
	acc := func(status, reason string) []observe.Condition {
		return []observe.Condition{{Type: "Accepted", Status: status, Reason: reason}}
	}
	pol := func(anc ...observe.Status) observe.Observation {
		return observe.Observation{Policies: []observe.Status{{Ref: "BackendTLSPolicy/ns/p", Conditions: acc("True", "Accepted"), Ancestors: anc}}}
	}
	want := pol(
		observe.Status{Ref: "Gateway/ns/a", Conditions: acc("True", "Accepted")},
		observe.Status{Ref: "Gateway/ns/b", Conditions: acc("False", "Conflicted")},
		observe.Status{Ref: "Gateway/ns/c", Conditions: acc("True", "Accepted")},
	)
	got := pol(
		observe.Status{Ref: "Gateway/ns/a", Conditions: acc("True", "Accepted")},
		observe.Status{Ref: "Gateway/ns/b", Conditions: acc("True", "Accepted")},
		observe.Status{Ref: "Gateway/ns/d", Conditions: acc("False", "Conflicted")},
	)
	var keys []string
	for _, d := range Diff(want, got, observe.Capabilities{Conditions: []string{"Accepted"}}) {
		keys = append(keys, fmt.Sprintf("%s %s %v → %v", d.Ref, d.Condition, d.Want, d.Got))
	}
	wantKeys := []string{
		"BackendTLSPolicy/ns/p@Gateway/ns/b Accepted False/Conflicted → True/Accepted",
		"BackendTLSPolicy/ns/p@Gateway/ns/d Accepted  → False/Conflicted",
	}
	if !slices.Equal(keys, wantKeys) {
		t.Errorf("differences\n%q\nwant\n%q", keys, wantKeys)
	}
	got.Policies[0].Ancestors = nil
	if ds := Diff(want, got, observe.Capabilities{}); len(ds) != 0 {
		t.Errorf("got without per-ancestor status: %v", ds)
	}
}

// TestStoredValues: an implementation whose value of a field is what the
// reference gives for the policies as written (the 5 inherited) and not
// what it gives as the API server stores them (a CRD default:
// retry.numRetries 2) is a stored-values difference, recording the answer
// as written; a field storing does not change, or a value that is neither,
// stays effective-setting (docs/profiles.md, What is stored).
func TestStoredValues(t *testing.T) {
	path := []string{"Gateway/ns/gw", "Gateway/ns/gw#http", "HTTPRoute/ns/r", "HTTPRoute/ns/r#rule-1"}
	stored := map[string]any{"retry": map[string]any{"numRetries": 2.0}, "timeout": "5s"}
	written := map[string]any{"retry": map[string]any{"numRetries": 5.0}, "timeout": "5s"}
	want := observe.Observation{Name: "ns", Effective: []observe.Path{{Path: path, Spec: stored}}, Policies: []observe.Status{}, Written: []observe.Path{{Path: path, Spec: written}}}
	for _, tc := range []struct {
		name  string
		got   map[string]any
		kinds []string
		// storedFields and asWritten are the difference's record.
		storedFields []string
		asWritten    any
	}{
		{"as written", written, []string{"stored-values-retry"}, []string{"retry"}, written},
		{"as written, another timeout", map[string]any{"retry": map[string]any{"numRetries": 5.0}, "timeout": "1s"}, []string{"effective-setting-timeout", "stored-values-retry"}, []string{"retry"}, written},
		{"neither as stored nor as written", map[string]any{"retry": map[string]any{"numRetries": 7.0}, "timeout": "5s"}, []string{"effective-setting-retry"}, nil, nil},
		{"no retry at all", map[string]any{"timeout": "5s"}, []string{"effective-setting-retry"}, nil, nil},
		{"storing changes nothing there", map[string]any{"retry": map[string]any{"numRetries": 2.0}, "timeout": "1s"}, []string{"effective-setting-timeout"}, nil, nil},
		{"as stored", stored, nil, nil, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := observe.Observation{Name: "ns", Effective: []observe.Path{{Path: path, Spec: tc.got}}, Policies: []observe.Status{}}
			ds := Diff(want, got, observe.Capabilities{})
			if k := Kinds(ds); !slices.Equal(k, tc.kinds) {
				t.Errorf("kinds %v, want %v (%s)", k, tc.kinds, Strings(ds))
			}
			if len(ds) == 0 {
				return
			}
			if !slices.Equal(ds[0].StoredFields, tc.storedFields) || !jsonEqual(ds[0].Written, tc.asWritten) {
				t.Errorf("stored fields %v, as written %v; want %v, %v", ds[0].StoredFields, ds[0].Written, tc.storedFields, tc.asWritten)
			}
		})
	}
	// Storing changed retry.numRetries, the implementation differs in
	// retry.retryOn only: not a stored-values difference (Envoy Gateway,
	// fuzz --seed 1, case 3).
	onRetryOn := observe.Observation{Name: "ns", Policies: []observe.Status{},
		Effective: []observe.Path{{Path: path, Spec: map[string]any{"retry": map[string]any{"numRetries": 2.0, "retryOn": map[string]any{"httpStatusCodes": []any{}}}}}},
		Written:   []observe.Path{{Path: path, Spec: map[string]any{"retry": map[string]any{"retryOn": map[string]any{"httpStatusCodes": []any{}}}}}}}
	got := observe.Observation{Name: "ns", Effective: []observe.Path{{Path: path, Spec: map[string]any{"retry": map[string]any{"numRetries": 2.0}}}}, Policies: []observe.Status{}}
	if k := Kinds(Diff(onRetryOn, got, observe.Capabilities{})); !slices.Equal(k, []string{"effective-setting-retry"}) {
		t.Errorf("a difference beside the stored change: kinds %v", k)
	}
	// A field storing set where as written there is none at all.
	none := observe.Observation{Name: "ns", Policies: []observe.Status{}, Effective: []observe.Path{{Path: path, Spec: map[string]any{"retry": map[string]any{"numRetries": 2.0}}}},
		Written: []observe.Path{{Path: path, Spec: map[string]any{"retry": map[string]any{}}}}}
	got = observe.Observation{Name: "ns", Effective: []observe.Path{{Path: path, Spec: map[string]any{"retry": map[string]any{}}}}, Policies: []observe.Status{}}
	if k := Kinds(Diff(none, got, observe.Capabilities{})); !slices.Equal(k, []string{"stored-values-retry"}) {
		t.Errorf("an empty retry as written: kinds %v", k)
	}
	// Without the reference's answer as written, nothing is stored-values.
	plain := want
	plain.Written = nil
	got = observe.Observation{Name: "ns", Effective: []observe.Path{{Path: path, Spec: written}}, Policies: []observe.Status{}}
	if k := Kinds(Diff(plain, got, observe.Capabilities{})); !slices.Equal(k, []string{"effective-setting-retry"}) {
		t.Errorf("without Written: kinds %v", k)
	}
}
