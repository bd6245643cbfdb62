package admission

import (
	"strings"
	"testing"

	admissionv1 "k8s.io/api/admissionregistration/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// matchConditions as the API server evaluates them: all true calls the
// hook; a false skips it even beside an error; an error alone fails the
// request under Fail (403) and skips the hook under Ignore.
func TestMatchConditions(t *testing.T) {
	pod := func(name string) *unstructured.Unstructured {
		u := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "Pod", "metadata": map[string]any{"name": name, "namespace": "team-a"}}}
		return u
	}
	all := admissionv1.AllScopes
	rule := admissionv1.RuleWithOperations{Operations: []admissionv1.OperationType{admissionv1.Create},
		Rule: admissionv1.Rule{APIGroups: []string{""}, APIVersions: []string{"v1"}, Resources: []string{"pods"}, Scope: &all}}
	hook := func(policy admissionv1.FailurePolicyType, exprs ...string) *Hook {
		h := &Hook{Phase: Validating, Name: "h.example.com", Rules: []admissionv1.RuleWithOperations{rule}, FailurePolicy: policy, MatchPolicy: admissionv1.Equivalent, id: "c/h.example.com/0"}
		for i, e := range exprs {
			h.MatchConditions = append(h.MatchConditions, admissionv1.MatchCondition{Name: string(rune('a' + i)), Expression: e})
		}
		return h
	}
	req := Request{Operation: admissionv1.Create, Resource: schema.GroupVersionResource{Version: "v1", Resource: "pods"}, Kind: schema.GroupVersionKind{Version: "v1", Kind: "Pod"},
		Namespace: "team-a", Name: "x", NamespaceLabels: map[string]string{}, Object: pod("x"), UserInfo: UserInfo{Username: "alice", Groups: []string{"dev"}}}
	const errs = "object.spec.nothing == 1" // no such key: an evaluation error
	for _, tc := range []struct {
		name   string
		hook   *Hook
		called bool
		fails  string
	}{
		{"true", hook(admissionv1.Fail, "object.metadata.name == 'x'", "request.userInfo.username == 'alice'"), true, ""},
		{"false", hook(admissionv1.Fail, "object.metadata.name == 'y'"), false, ""},
		{"false beside an error", hook(admissionv1.Fail, errs, "object.metadata.name == 'y'"), false, ""},
		{"an error, Fail", hook(admissionv1.Fail, errs, "true"), false, "is forbidden"},
		{"an error, Ignore", hook(admissionv1.Ignore, errs), false, ""},
		{"old object null on CREATE", hook(admissionv1.Fail, "oldObject == null"), true, ""},
	} {
		v := Match(tc.hook, req, nil)
		switch {
		case v.Called != tc.called:
			t.Errorf("%s: called %v, want %v (%+v)", tc.name, v.Called, tc.called, v.Checks)
		case tc.fails == "" && v.Error != nil, tc.fails != "" && (v.Error == nil || !strings.Contains(v.Error.Message, tc.fails) || v.Error.Code != 403):
			t.Errorf("%s: error %+v, want one saying %q", tc.name, v.Error, tc.fails)
		}
	}
}
