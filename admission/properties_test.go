package admission_test

import (
	"flag"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"

	admissionv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"pgregory.net/rapid"

	"github.com/gepcheck/gepcheck/admission"
	"github.com/gepcheck/gepcheck/admission/gen"
)

// A property of the admission engine: what must hold of every chain and
// request the generators draw (gen.Configurations,
// gen.Requests), with the mutants that break it.
type property struct {
	name  string
	cite  string
	kills []admission.Mutant
	check func(t *rapid.T)
}

var res = gen.Resources()

func draw(t *rapid.T) (gen.WebhookConfigurations, admission.Request) {
	return gen.Configurations().Draw(t, "configurations"), gen.Requests(res).Draw(t, "request")
}

func called(p admission.Prediction) []string {
	var out []string
	for _, v := range p.Verdicts {
		if v.Called {
			out = append(out, v.Hook.ID())
		}
	}
	return out
}

var properties = []property{
	{
		name:  "order/input-order-independence",
		cite:  "configuration/mutating_webhook_manager.go: configurations sorted by name, \"to have a deterministic order\"; the proposal: \"we sort the intializers from different InitializerConfigurations by the name of the InitializerConfigurations\"",
		kills: []admission.Mutant{admission.MutantUnsorted},
		check: func(t *rapid.T) {
			c, req := draw(t)
			want := called(admission.Predict(admission.Chain(c.Mutating, c.Validating), req, res, nil))
			r := rand.New(rand.NewPCG(rapid.Uint64().Draw(t, "shuffle"), 1))
			m, v := slices.Clone(c.Mutating), slices.Clone(c.Validating)
			r.Shuffle(len(m), func(i, j int) { m[i], m[j] = m[j], m[i] })
			r.Shuffle(len(v), func(i, j int) { v[i], v[j] = v[j], v[i] })
			if got := called(admission.Predict(admission.Chain(m, v), req, res, nil)); !slices.Equal(got, want) {
				t.Fatalf("configurations reordered: hooks called %v, were %v", got, want)
			}
		},
	},
	{
		name:  "rules/subresources-named",
		cite:  "admissionregistration/v1 Rule.Resources: \"'*' means all resources, but not subresources\"; a subresource is matched only by a rule that names it (x/s, */s) or all of a resource's (x/*, */*)",
		kills: []admission.Mutant{admission.MutantStarSubresources},
		check: func(t *rapid.T) {
			c, req := draw(t)
			if req.Subresource == "" {
				return
			}
			for _, v := range admission.Predict(admission.Chain(c.Mutating, c.Validating), req, res, nil).Verdicts {
				if !v.Called {
					continue
				}
				named := slices.ContainsFunc(v.Hook.Rules, func(r admissionv1.RuleWithOperations) bool {
					return slices.ContainsFunc(r.Resources, func(x string) bool {
						_, sub, ok := strings.Cut(x, "/")
						return ok && (sub == "*" || sub == req.Subresource)
					})
				})
				if !named {
					t.Fatalf("%s is called on %s/%s, which no rule of it names", v.Hook.ID(), req.Resource.Resource, req.Subresource)
				}
			}
		},
	},
	{
		name:  "match/equivalent-superset",
		cite:  "admissionregistration/v1 MatchPolicy: Equivalent calls a hook on a request its rules name \"or\" on an equivalent one: every hook called under Exact is called under Equivalent",
		kills: []admission.Mutant{admission.MutantEquivalentOnly},
		check: func(t *rapid.T) {
			c, req := draw(t)
			as := func(p admissionv1.MatchPolicyType) []string {
				m := slices.Clone(c.Mutating)
				for i := range m {
					m[i].Webhooks = slices.Clone(m[i].Webhooks)
					for j := range m[i].Webhooks {
						m[i].Webhooks[j].MatchPolicy = &p
					}
				}
				return called(admission.Predict(admission.Chain(m, nil), req, res, nil))
			}
			exact, equivalent := as(admissionv1.Exact), as(admissionv1.Equivalent)
			for _, h := range exact {
				if !slices.Contains(equivalent, h) {
					t.Fatalf("%s is called under Exact but not under Equivalent", h)
				}
			}
		},
	},
	{
		name:  "match/equivalent-other-version",
		cite:  "admissionregistration/v1 MatchPolicy Equivalent: \"a request to apps/v1beta1 or extensions/v1beta1 would be converted to apps/v1 and sent to the webhook\" whose rules name apps/v1; here autoscaling/v2 horizontalpodautoscalers to a hook naming v1 only, and a CRD's v1 widgets to one naming v1beta1 only, each sent as its rule's version",
		kills: []admission.Mutant{admission.MutantNoEquivalent, admission.MutantRequestKind},
		check: func(t *rapid.T) {
			c, req := draw(t)
			other := map[string]string{"autoscaling/v2": "v1", "gepcheck.dev/v1": "v1beta1"}[req.Resource.GroupVersion().String()]
			if other == "" {
				return
			}
			for _, v := range admission.Predict(admission.Chain(c.Mutating, c.Validating), req, res, nil).Verdicts {
				exact := slices.ContainsFunc(v.Hook.Rules, func(r admissionv1.RuleWithOperations) bool {
					return admission.RuleMatches(r, req.Operation, req.Resource, req.Subresource, req.Namespace)
				})
				names := v.Hook.MatchPolicy == admissionv1.Equivalent && !exact && len(v.Checks) > 0 && v.Checks[0].Passed && len(v.Checks) > 1 && v.Checks[1].Passed &&
					slices.ContainsFunc(v.Hook.Rules, func(r admissionv1.RuleWithOperations) bool {
						return slices.Equal(r.APIVersions, []string{other}) && admission.RuleMatches(r, req.Operation, req.Resource.GroupResource().WithVersion(other), req.Subresource, req.Namespace)
					}) && len(v.Hook.MatchConditions) == 0
				if names && !v.Called {
					t.Fatalf("%s names %s, is Equivalent, and is not called on %s", v.Hook.ID(), other, admission.Describe(req))
				}
				if names && (v.Resource.Version != other || v.Kind.Version != other) {
					t.Fatalf("%s is sent %s as %s, not its rule's version %s", v.Hook.ID(), v.Resource, v.Kind, other)
				}
			}
		},
	},
	{
		name:  "failure/ignore-never-blocks",
		cite:  "admissionregistration/v1 FailurePolicy: \"Ignore means that an error calling the webhook is ignored and the API request is allowed to continue\"",
		kills: []admission.Mutant{admission.MutantIgnoreBlocks},
		check: func(t *rapid.T) {
			chain, req, behave := drawBehaving(t, func(h *admission.Hook) admission.Behaviour {
				if h.FailurePolicy != admissionv1.Ignore {
					return admission.Allow
				}
				return rapid.SampledFrom([]admission.Behaviour{admission.Down, admission.Slow, admission.Error}).Draw(t, "behaviour")
			})
			o := admission.Predict(chain, req, res, behave).Outcome
			for _, f := range o.Failures {
				if strings.Contains(f.Message, "failed calling webhook") {
					for id := range behave {
						if strings.Contains(f.Message, `"`+strings.Split(id, "/")[1]+`"`) {
							t.Fatalf("%s, failurePolicy Ignore, fails the request: %s", id, f.Message)
						}
					}
				}
			}
		},
	},
	{
		name:  "order/mutating-first",
		cite:  "kube-apiserver's admission plugin order (pkg/kubeapiserver/options/plugins.go): MutatingAdmissionWebhook before ValidatingAdmissionWebhook",
		kills: []admission.Mutant{admission.MutantValidatingFirst},
		check: func(t *rapid.T) {
			c, req := draw(t)
			seenValidating := false
			for _, v := range admission.Predict(admission.Chain(c.Mutating, c.Validating), req, res, nil).Verdicts {
				if v.Hook.Phase == admission.Validating {
					seenValidating = true
				} else if seenValidating {
					t.Fatalf("mutating hook %s after a validating one", v.Hook.ID())
				}
			}
		},
	},
	{
		name:  "reinvocation/after-a-later-change",
		cite:  "admissionregistration/v1 MutatingWebhook.ReinvocationPolicy: IfNeeded: \"the webhook will be called at least one additional time as part of the admission evaluation if the object being admitted is modified by other admission plugins after the initial webhook call\"",
		kills: []admission.Mutant{admission.MutantNeverReinvoke},
		check: func(t *rapid.T) {
			p := reinvocation(t)
			if !p.Outcome.Allowed {
				return
			}
			for _, v := range p.Verdicts {
				if v.Round == 0 && v.Called && v.Hook.Reinvocation == admissionv1.IfNeededReinvocationPolicy && changedAfter(p, v.Hook.ID()) &&
					!slices.ContainsFunc(p.Verdicts, func(w admission.Verdict) bool { return w.Round == 1 && w.Hook == v.Hook && w.Called }) {
					// (It still matches: what the generators' selectors
					// and conditions read, no patch takes away.)
					t.Fatalf("%s (IfNeeded) is not called again after a later hook changed the object", v.Hook.ID())
				}
			}
		},
	},
	{
		name:  "reinvocation/not-for-own-change",
		cite:  "admissionregistration/v1 MutatingWebhook.ReinvocationPolicy: IfNeeded: reinvoked \"if the object being admitted is modified by other admission plugins after the initial webhook call\": not by its own patch",
		kills: []admission.Mutant{admission.MutantOwnChange},
		check: func(t *rapid.T) {
			p := reinvocation(t)
			for _, id := range p.Outcome.Reinvoked {
				if !changedAfter(p, id) {
					t.Fatalf("%s is reinvoked, but no other hook changed the object after its first call", id)
				}
			}
		},
	},
	{
		name:  "reinvocation/never-a-first-call",
		cite:  "mutating/dispatcher.go: \"during reinvocation, a webhook will not be called for the first time\"",
		kills: []admission.Mutant{admission.MutantReinvokeAll},
		check: func(t *rapid.T) {
			p := reinvocation(t)
			for _, id := range p.Outcome.Reinvoked {
				if !slices.ContainsFunc(p.Verdicts, func(v admission.Verdict) bool { return v.Round == 0 && v.Called && v.Hook.ID() == id }) {
					t.Fatalf("%s is called in the reinvocation pass, not in the first", id)
				}
			}
		},
	},
	{
		name:  "selectors/no-metadata-no-match",
		cite:  "admissionregistration/v1 ObjectSelector: \"an object that cannot have labels (like a DeploymentRollback or a PodProxyOptions object) is not considered to match\" (predicates/object/matcher.go, matchObject); a CONNECT's object is its options (endpoints/handlers/rest.go)",
		kills: []admission.Mutant{admission.MutantOptionsLabels},
		check: func(t *rapid.T) {
			c, req := draw(t)
			if req.Operation != admissionv1.Connect {
				return
			}
			for _, v := range admission.Predict(admission.Chain(c.Mutating, c.Validating), req, res, nil).Verdicts {
				if sel := v.Hook.ObjectSelector; v.Called && len(sel.MatchLabels)+len(sel.MatchExpressions) > 0 {
					t.Fatalf("%s, objectSelector %s, is called on %s, whose object has no metadata", v.Hook.ID(), metav1.FormatLabelSelector(&sel), admission.Describe(req))
				}
			}
		},
	},
	{
		name:  "selectors/namespace-name-label",
		cite:  "core/v1 defaults.go SetDefaults_Namespace: every named Namespace is labelled kubernetes.io/metadata.name with its name, before admission; admissionregistration/v1 NamespaceSelector: \"If the object itself is a namespace, the matching is performed on object.metadata.labels\"",
		kills: []admission.Mutant{admission.MutantNoNameLabel},
		check: func(t *rapid.T) {
			c, req := draw(t)
			exists := metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: corev1.LabelMetadataName, Operator: metav1.LabelSelectorOpExists}}}
			for _, v := range admission.Predict(admission.Chain(c.Mutating, c.Validating), req, res, nil).Verdicts {
				i := slices.IndexFunc(v.Checks, func(c admission.Check) bool { return c.Name == "objectSelector" })
				if i < 0 || !reflect.DeepEqual(v.Hook.ObjectSelector, exists) {
					continue
				}
				// Objects other than Namespaces carry no such label here
				// (the generators label them app=web at most).
				if want := req.Resource.Resource == "namespaces"; v.Checks[i].Passed != want {
					t.Fatalf("%s: objectSelector %s on %s: passed %v, want %v (%s)", v.Hook.ID(), metav1.FormatLabelSelector(&exists), admission.Describe(req), v.Checks[i].Passed, want, v.Checks[i].Detail)
				}
			}
		},
	},
	{
		name:  "match/conditions-read-the-sent-kind",
		cite:  "generic/webhook.go ShouldCallHook: matchConditions read the object converted to the kind the hook is sent (VersionedAttribute(invocation.Kind); conversion.go ConvertToGVK sets that kind), which is request.kind (plugin/cel CreateAdmissionRequest): a condition that the object is of request.kind's version never is false",
		kills: []admission.Mutant{admission.MutantUnconvertedConditions},
		check: func(t *rapid.T) {
			c, req := draw(t)
			for _, v := range admission.Predict(admission.Chain(c.Mutating, c.Validating), req, res, nil).Verdicts {
				for _, ch := range v.Checks {
					if ch.Name == "matchConditions" && strings.Contains(ch.Detail, "condition "+gen.SentKindCondition+" is false") {
						t.Fatalf("%s on %s: %s", v.Hook.ID(), admission.Describe(req), ch.Detail)
					}
				}
			}
		},
	},
	{
		name:  "storage/scale-validated-anew",
		cite:  "kube-apiserver v1.36 registry (apps/deployment/storage toScaleUpdateValidation, scaleFromDeployment; its kin for replicasets, statefulsets, replicationcontrollers and custom resources): a scale subresource's validation is sent a Scale made anew from the updated object, name and namespace without annotations; what mutating hooks set on the Scale's metadata no validating hook sees",
		kills: []admission.Mutant{admission.MutantStorageKeepsMetadata},
		check: func(t *rapid.T) {
			chain, req, behave := drawBehaving(t, func(h *admission.Hook) admission.Behaviour {
				if h.Phase != admission.Mutating {
					return admission.Allow
				}
				return admission.Patch
			})
			if req.Subresource != "scale" {
				return
			}
			for _, v := range admission.Predict(chain, req, res, behave).Verdicts {
				patched := slices.ContainsFunc(v.Hook.MatchConditions, func(m admissionv1.MatchCondition) bool { return m.Name == gen.PatchedCondition })
				if v.Hook.Phase == admission.Validating && v.Called && patched {
					t.Fatalf("%s, whose matchCondition wants annotations, is called on %s: the Scale it is sent is made anew", v.Hook.ID(), admission.Describe(req))
				}
			}
		},
	},
	{
		name:  "failure/denial-is-400",
		cite:  "webhook/errors ToStatusErr: \"Make sure we don't return < 400 status codes along with a rejection\": a denial without a code (admission.Deny) is HTTP 400, \"admission webhook NAME denied the request\"",
		kills: []admission.Mutant{admission.MutantDenialForbidden},
		check: func(t *rapid.T) {
			chain, req, behave := drawBehaving(t, func(*admission.Hook) admission.Behaviour {
				if rapid.IntRange(0, 2).Draw(t, "denies") != 0 {
					return admission.Allow
				}
				return admission.Deny
			})
			for _, f := range admission.Predict(chain, req, res, behave).Outcome.Failures {
				if strings.Contains(f.Message, "denied the request") && f.Code != 400 {
					t.Fatalf("a denial is HTTP %d: %s", f.Code, f.Message)
				}
			}
		},
	},
}

// reinvocation draws a chain and a request where half the mutating hooks
// patch the object, and predicts it.
func reinvocation(t *rapid.T) admission.Prediction {
	chain, req, behave := drawBehaving(t, func(h *admission.Hook) admission.Behaviour {
		if h.Phase == admission.Mutating && rapid.Bool().Draw(t, "patches") {
			return admission.Patch
		}
		return admission.Allow
	})
	return admission.Predict(chain, req, res, behave)
}

// drawBehaving draws configurations and a request (draw), the chain of the
// configurations, and how each of its hooks answers, as answer says
// (keyed by hook ID; Allow is left out).
func drawBehaving(t *rapid.T, answer func(*admission.Hook) admission.Behaviour) ([]*admission.Hook, admission.Request, map[string]admission.Behaviour) {
	c, req := draw(t)
	chain := admission.Chain(c.Mutating, c.Validating)
	behave := map[string]admission.Behaviour{}
	for _, h := range chain {
		if b := answer(h); b != admission.Allow {
			behave[h.ID()] = b
		}
	}
	return chain, req, behave
}

// changedAfter says whether a hook other than id changed the object in the
// first pass after id's first call.
func changedAfter(p admission.Prediction, id string) bool {
	after := false
	for _, v := range p.Verdicts {
		if v.Round != 0 {
			break
		}
		if v.Hook.ID() == id && v.Called {
			after = true
		} else if after && v.Changed {
			return true
		}
	}
	return false
}

// Every property holds of the engine.
func TestProperties(t *testing.T) {
	for _, p := range properties {
		t.Run(p.name, func(t *testing.T) { rapid.Check(t, p.check) })
	}
}

// Every mutant is caught by the properties that claim it, and claimed by
// one: a property that cannot fail proves nothing.
func TestMutantsAreKilled(t *testing.T) {
	claimed := map[admission.Mutant]bool{}
	for _, p := range properties {
		for _, m := range p.kills {
			claimed[m] = true
			t.Run(p.name+"/"+string(m), func(t *testing.T) {
				defer admission.SetMutant(m)()
				if !fails(t, p.check) {
					t.Errorf("mutant %s survives %s", m, p.name)
				}
			})
		}
	}
	for _, m := range admission.Mutants {
		if !claimed[m] {
			t.Errorf("mutant %s is claimed by no property", m)
		}
	}
}

// fails says whether check fails on some of 1,000 cases drawn from a
// fixed seed (rapid reads both from its flags when a check starts).
func fails(t *testing.T, check func(*rapid.T)) bool {
	for name, v := range map[string]string{"rapid.checks": "1000", "rapid.seed": "20261125", "rapid.nofailfile": "true", "rapid.shrinktime": "1s"} {
		old := flag.Lookup(name).Value.String()
		if err := flag.Set(name, v); err != nil {
			t.Fatal(err)
		}
		defer func() { _ = flag.Set(name, old) }()
	}
	ft := &failTB{}
	func() {
		defer func() {
			if r := recover(); r != nil && r != errStop {
				panic(r)
			}
		}()
		rapid.Check(ft, check)
	}()
	return ft.failed
}

var errStop = new(int)

// failTB records whether a check failed, and nothing else.
type failTB struct{ failed bool }

func (*failTB) Helper()                 {}
func (*failTB) Name() string            { return "mutant" }
func (*failTB) Log(...any)              {}
func (*failTB) Logf(string, ...any)     {}
func (*failTB) Skip(...any)             { panic(errStop) }
func (*failTB) Skipf(string, ...any)    { panic(errStop) }
func (*failTB) SkipNow()                { panic(errStop) }
func (f *failTB) Error(...any)          { f.failed = true }
func (f *failTB) Errorf(string, ...any) { f.failed = true }
func (f *failTB) Fatal(...any)          { f.FailNow() }
func (f *failTB) Fatalf(string, ...any) { f.FailNow() }
func (f *failTB) FailNow()              { f.failed = true; panic(errStop) }
func (f *failTB) Fail()                 { f.failed = true }
func (f *failTB) Failed() bool          { return f.failed }

// Describe writes a request as ParseRequest reads it, losing nothing a
// prediction reads: scenario files and findings carry requests as lines.
func TestDescribeRoundTrip(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		c, req := draw(t)
		line := admission.Describe(req)
		back, err := admission.ParseRequest(line, res)
		if err != nil {
			t.Fatalf("%q: %v", line, err)
		}
		if again := admission.Describe(back); again != line {
			t.Fatalf("%q read back is %q", line, again)
		}
		chain := admission.Chain(c.Mutating, c.Validating)
		a, b := admission.Predict(chain, req, res, nil), admission.Predict(chain, back, res, nil)
		if !slices.Equal(a.Outcome.Mutating, b.Outcome.Mutating) || !slices.Equal(a.Outcome.Validating, b.Outcome.Validating) || a.Outcome.Allowed != b.Outcome.Allowed {
			t.Fatalf("%q read back predicts %+v, not %+v", line, b.Outcome, a.Outcome)
		}
	})
}
