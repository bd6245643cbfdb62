package admission

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	admissionv1 "k8s.io/api/admissionregistration/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// costly is a condition that runs into the API server's per-expression
// cost limit (PerCallLimit): ten nested comprehensions of ten.
const costly = "[0,1,2,3,4,5,6,7,8,9].all(a, [0,1,2,3,4,5,6,7,8,9].all(b, [0,1,2,3,4,5,6,7,8,9].all(c, [0,1,2,3,4,5,6,7,8,9].all(d, [0,1,2,3,4,5,6,7,8,9].all(e, [0,1,2,3,4,5,6,7,8,9].all(f, [0,1,2,3,4,5,6,7,8,9].all(g, true)))))))"

// costlyChain is n validating hooks on CREATE pods, each with the costly
// condition, and a request they all match.
func costlyChain(n int, policy admissionv1.FailurePolicyType) ([]*Hook, Request) {
	all := admissionv1.AllScopes
	rule := admissionv1.RuleWithOperations{Operations: []admissionv1.OperationType{admissionv1.Create},
		Rule: admissionv1.Rule{APIGroups: []string{""}, APIVersions: []string{"v1"}, Resources: []string{"pods"}, Scope: &all}}
	var chain []*Hook
	for i := range n {
		chain = append(chain, &Hook{Phase: Validating, Name: "h.example.com", Rules: []admissionv1.RuleWithOperations{rule}, FailurePolicy: policy,
			MatchPolicy: admissionv1.Equivalent, id: "c/h.example.com/" + string(rune('a'+i%26)) + strings.Repeat("x", i/26),
			MatchConditions: []admissionv1.MatchCondition{{Name: "costly", Expression: costly}}})
	}
	obj := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "Pod", "metadata": map[string]any{"name": "x", "namespace": "a"}}}
	req := Request{Operation: admissionv1.Create, Resource: schema.GroupVersionResource{Version: "v1", Resource: "pods"}, Kind: schema.GroupVersionKind{Version: "v1", Kind: "Pod"},
		Namespace: "a", Name: "x", NamespaceLabels: map[string]string{}, Object: obj}
	return chain, req
}

// The matchConditions of all a request's hooks share one CEL budget: 100
// hooks each at the API server's per-expression limit stop the prediction
// after a few, with a *LimitError, where each alone is within the API
// server's per-webhook budget (it errs there, and is skipped under
// Ignore). Without the budget (red team, issue 28) the prediction took
// over a minute.
func TestPredictCELBudgetAcrossHooks(t *testing.T) {
	chain, req := costlyChain(100, admissionv1.Ignore)
	start := time.Now()
	_, err := PredictBounded(context.Background(), Bounds{MaxCELCost: DefaultMaxCELCost}, chain, req, nil, nil)
	var le *LimitError
	if !errors.As(err, &le) || !strings.Contains(le.Msg, "cost more than 10000000 in all") {
		t.Fatalf("PredictBounded: %v, want a *LimitError on the cost", err)
	}
	if d := time.Since(start); d > 30*time.Second {
		t.Errorf("stopped after %s", d)
	}
	// Within budget, a prediction is Predict's.
	chain, req = costlyChain(2, admissionv1.Ignore)
	p, err := PredictBounded(context.Background(), Bounds{MaxCELCost: DefaultMaxCELCost}, chain, req, nil, nil)
	if err != nil || !p.Outcome.Allowed || len(p.Outcome.Validating) != 0 {
		t.Errorf("two costly hooks: %+v, %v; want both skipped (their condition errs, Ignore), allowed", p.Outcome, err)
	}
}

// A prediction stops promptly when its context is done (SIGINT, SIGTERM),
// within a condition (CEL's interrupt) as between hooks.
func TestPredictStopsOnCancel(t *testing.T) {
	chain, req := costlyChain(100, admissionv1.Ignore)
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(200*time.Millisecond, cancel)
	start := time.Now()
	_, err := PredictBounded(ctx, Bounds{}, chain, req, nil, nil)
	var le *LimitError
	if !errors.As(err, &le) || !strings.Contains(le.Msg, "stopped") {
		t.Fatalf("PredictBounded: %v, want a *LimitError saying it was stopped", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("stopped %s after the cancel", d-200*time.Millisecond)
	}
}

// 200 patching hooks on a 12.8 MB object: each patch is applied to the
// object's metadata, not to the whole object written and read again
// (issue 28: over a minute; now under a second on a quiet machine).
func TestPatchLargeObject(t *testing.T) {
	if testing.Short() {
		t.Skip("a 12.8 MB object")
	}
	all := admissionv1.AllScopes
	rule := admissionv1.RuleWithOperations{Operations: []admissionv1.OperationType{admissionv1.Create},
		Rule: admissionv1.Rule{APIGroups: []string{""}, APIVersions: []string{"v1"}, Resources: []string{"configmaps"}, Scope: &all}}
	var chain []*Hook
	behave := map[string]Behaviour{}
	for i := range 200 {
		h := &Hook{Phase: Mutating, Name: "p.example.com", Rules: []admissionv1.RuleWithOperations{rule}, FailurePolicy: admissionv1.Fail,
			MatchPolicy: admissionv1.Equivalent, Reinvocation: admissionv1.IfNeededReinvocationPolicy, id: "m/p.example.com/" + strings.Repeat("x", i)}
		chain = append(chain, h)
		behave[h.id] = Patch
	}
	data := map[string]any{}
	for i := range 12800 {
		data["k"+strings.Repeat("0", 5)+string(rune('a'+i%26))+strings.Repeat("y", i/26)] = strings.Repeat("x", 1000)
	}
	obj := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "metadata": map[string]any{"name": "c", "namespace": "a"}, "data": data}}
	req := Request{Operation: admissionv1.Create, Resource: schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}, Kind: schema.GroupVersionKind{Version: "v1", Kind: "ConfigMap"},
		Namespace: "a", Name: "c", NamespaceLabels: map[string]string{}, Object: obj}
	start := time.Now()
	p := Predict(chain, req, nil, behave)
	if d := time.Since(start); d > 20*time.Second {
		t.Errorf("200 patches of a 12.8 MB object took %s", d)
	}
	if !p.Outcome.Allowed || len(p.Outcome.Mutating) != 399 || len(p.Outcome.Reinvoked) != 199 {
		t.Errorf("outcome: allowed %v, %d calls, %d reinvoked; want allowed, 399 calls (each hook twice but the last, which no later patch makes due), 199 reinvoked", p.Outcome.Allowed, len(p.Outcome.Mutating), len(p.Outcome.Reinvoked))
	}
}
