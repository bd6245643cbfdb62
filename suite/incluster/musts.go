package incluster

import (
	"context"
	"embed"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/util/retry"

	"github.com/gepcheck/gepcheck/cluster"
	"github.com/gepcheck/gepcheck/suite/features"
	"github.com/gepcheck/gepcheck/suite/statusrules"
)

// The MUST statements of Gateway API's API reference that no scenario
// judges, because they need a state a scenario cannot express (another
// writer's conditions in the implementation's entries, written after it
// wrote) or a status the comparison does not read (ResolvedRefs): each a
// named check judged in a cluster by staging that state (docs/cluster.md,
// "MUST checks"; the objects are in musts/).
//
//go:embed musts/*.yaml
var mustFiles embed.FS

// A Must is one named check of Runner.Musts.
type Must struct {
	// Name is stable: docs and the requirements catalogue cite it.
	Name string
	// Requirements are the catalogue entries it judges
	// (suite/requirements/gateway-api.yaml).
	Requirements []string
	// Reading says how the statement is read, where it can be read more
	// than one way.
	Reading string
}

// Musts are the checks, in the order they are reported.
var Musts = []Must{
	{Name: "foreign-conditions-own-entry", Requirements: []string{"GATEWAY-API-006", "GATEWAY-API-007", "GATEWAY-API-008"},
		Reading: "conditions another writer put in the implementation's own ancestor entry (PolicyAncestorStatus.Conditions is per entry)"},
	{Name: "foreign-conditions-others-entry", Requirements: []string{"GATEWAY-API-006", "GATEWAY-API-007", "GATEWAY-API-008"},
		Reading: "conditions in the entry of another controllerName, as two controllers sharing a policy write them"},
	{Name: "ancestors-limit", Requirements: []string{"GATEWAY-API-016"}},
	{Name: "ancestors-full-signalled", Requirements: []string{"GATEWAY-API-017"},
		Reading: "a condition of the implementation's whose message names the policy, on each Gateway that has no entry or in its route's parent status"},
	{Name: "resolvedrefs-invalid-ca-ref", Requirements: []string{"GATEWAY-API-026"}},
	{Name: "resolvedrefs-invalid-kind", Requirements: []string{"GATEWAY-API-026"}},
	{Name: "well-known-cas-unrecognized", Requirements: []string{"GATEWAY-API-029"}},
	{Name: "well-known-cas-unsupported", Requirements: []string{"GATEWAY-API-029"}},
}

// MustResult is the outcome of one Must: Pass (the statement holds),
// Fail (it is broken, Detail says how), Skip (it does not apply, Detail
// says why), Error (the state could not be staged).
type MustResult struct {
	Must
	Outcome Outcome
	Detail  string
	// Duration of the check's plan: apply, wait, judge (checks of one
	// plan share it).
	Duration time.Duration
}

// Musts stages, for the implementation, the states of Musts and judges
// what it writes, each plan numbered from index on. The plan of the
// ancestor limit runs first and alone (the status writes the API server
// refuses are counted while it runs), then the others at once; each
// plan's objects are deleted once judged (unless Options.Keep).
func (r *Runner) Musts(ctx context.Context, index int) []MustResult {
	results := map[string]MustResult{}
	var mu sync.Mutex
	set := func(name string, o Outcome, detail string) {
		mu.Lock()
		defer mu.Unlock()
		for _, m := range Musts {
			if m.Name == name {
				results[name] = MustResult{Must: m, Outcome: o, Detail: detail}
			}
		}
	}
	setAll := func(names []string, o Outcome, detail string) {
		for _, n := range names {
			set(n, o, detail)
		}
	}
	checks := []struct {
		file  string
		names []string
		judge func(ctx context.Context, p *Plan, set func(string, Outcome, string))
	}{
		// First and alone: the status writes the API server refuses are
		// counted while it runs (judgeAncestorsLimit).
		{"ancestors-limit.yaml", []string{"ancestors-limit", "ancestors-full-signalled"}, nil},
		{"foreign-conditions.yaml", []string{"foreign-conditions-own-entry", "foreign-conditions-others-entry"}, r.judgeForeign},
		{"ca-refs.yaml", []string{"resolvedrefs-invalid-ca-ref", "resolvedrefs-invalid-kind", "well-known-cas-unrecognized", "well-known-cas-unsupported"}, r.judgeCARefs},
	}
	dir, err := os.MkdirTemp("", "gepcheck-musts-")
	if err != nil {
		for _, c := range checks {
			setAll(c.names, Error, err.Error())
		}
		return r.mustResults(results)
	}
	defer os.RemoveAll(dir)
	var wg sync.WaitGroup
	for i, c := range checks {
		data, err := mustFiles.ReadFile("musts/" + c.file)
		if err == nil {
			err = os.WriteFile(filepath.Join(dir, c.file), data, 0o644)
		}
		if err != nil {
			setAll(c.names, Error, err.Error())
			continue
		}
		t := TargetFor(r.Impl, r.Run, index+i)
		// The checks judge what an implementation without a feature does
		// with it (GATEWAY-API-029): nothing is skipped for a feature.
		if t.Features != nil {
			t.Features = append(slices.Clone(t.Features), features.WellKnownCACertificates)
		}
		p, err := NewPlan(filepath.Join(dir, c.file), t)
		switch {
		case err != nil:
			setAll(c.names, Error, err.Error())
			continue
		case p.Skip != "":
			setAll(c.names, Skip, p.Skip)
			continue
		case !r.Impl.Capabilities().Features.Has(features.PolicyKind("BackendTLSPolicy")):
			setAll(c.names, Skip, "the implementation does not serve BackendTLSPolicy")
			continue
		}
		check := func() {
			start := time.Now()
			defer func() {
				mu.Lock()
				defer mu.Unlock()
				for _, n := range c.names {
					if res, ok := results[n]; ok {
						res.Duration = time.Since(start)
						results[n] = res
					}
				}
			}()
			defer func() {
				if !r.Opts.Keep {
					dctx, cancel := context.WithTimeout(context.Background(), cluster.Timeouts.Cleanup)
					defer cancel()
					_ = r.Delete(dctx, p, index+i)
				}
			}()
			// Status writes the API server refuses as invalid are
			// counted from here (ancestors-limit).
			refusedBefore, refusedErr := r.RefusedWrites(ctx)
			if a := r.Apply(ctx, p, 0); a.Err != nil {
				setAll(c.names, Error, "apply: "+a.Err.Error())
				return
			}
			if c.judge == nil {
				r.judgeAncestorsLimit(ctx, p, set, refusedBefore, refusedErr)
				return
			}
			c.judge(ctx, p, set)
		}
		if c.judge == nil {
			check()
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			check()
		}()
	}
	wg.Wait()
	return r.mustResults(results)
}

func (r *Runner) mustResults(m map[string]MustResult) []MustResult {
	var out []MustResult
	for _, must := range Musts {
		res, ok := m[must.Name]
		if !ok {
			res = MustResult{Must: must, Outcome: Error, Detail: "not judged"}
		}
		out = append(out, res)
	}
	return out
}

// policyNamed is the plan's policy of that name, as applied.
func policyNamed(p *Plan, name string) *unstructured.Unstructured {
	for _, u := range p.PolicyObjects() {
		if u.GetName() == name {
			return u
		}
	}
	return nil
}

// ownCurrent: the policy has an entry of controller, and every condition
// of its entries other than the planted ones is for the policy's current
// generation.
func ownCurrent(u *unstructured.Unstructured, controller string) bool {
	ancestors, _, _ := unstructured.NestedSlice(u.Object, "status", "ancestors")
	n := 0
	for _, a := range ancestors {
		am, _ := a.(map[string]any)
		if am["controllerName"] != controller {
			continue
		}
		cs, _ := am["conditions"].([]any)
		for _, c := range cs {
			cm, _ := c.(map[string]any)
			if t := cm["type"]; t == statusrules.ForeignFirst || t == statusrules.ForeignLast {
				continue
			}
			if statusrules.Int(cm["observedGeneration"]) < u.GetGeneration() {
				return false
			}
			n++
		}
	}
	return n > 0
}

// settled polls read every half second until done says the state is
// complete and it has stayed the same for the settle time, or until
// limit; it returns the last state read and whether it settled.
func (r *Runner) settled(ctx context.Context, limit time.Duration, read func(context.Context) (any, error), done func(any) bool) (any, bool) {
	settle := r.Opts.Settle
	if settle == 0 {
		settle = cluster.Timeouts.Settle
	}
	deadline := time.Now().Add(limit)
	var last any
	var since time.Time
	for {
		cur, err := read(ctx)
		if err == nil {
			if !reflect.DeepEqual(cur, last) {
				last, since = cur, time.Now()
			}
			if done(cur) && time.Since(since) >= settle {
				return last, true
			}
		}
		if time.Now().After(deadline) || ctx.Err() != nil {
			return last, false
		}
		select {
		case <-time.After(500 * time.Millisecond):
		case <-ctx.Done():
		}
	}
}

// judgeForeign: once the implementation has written its entry of policy
// shared, plant statusrules.ForeignFirst and ForeignLast in it and in the
// entry of the other implementation (the runner's), change the policy's
// spec, and judge them once the implementation has written status for the
// new generation (statusrules.ForeignKept).
func (r *Runner) judgeForeign(ctx context.Context, p *Plan, set func(string, Outcome, string)) {
	ctl := r.Impl.ControllerName()
	pol := policyNamed(p, "shared")
	read := func(ctx context.Context) (any, error) { return r.Kube.Get(ctx, pol) }
	current := func(v any) bool { return ownCurrent(v.(*unstructured.Unstructured), ctl) }
	fail := func(o Outcome, msg string) {
		set("foreign-conditions-own-entry", o, msg)
		set("foreign-conditions-others-entry", o, msg)
	}
	if _, ok := r.settled(ctx, r.timeout(), read, current); !ok {
		fail(Error, fmt.Sprintf("no entry of the implementation's on policy shared within %s: nothing to plant in", r.timeout()))
		return
	}
	res, err := r.Kube.Resource(pol.GroupVersionKind(), pol.GetNamespace())
	if err != nil {
		fail(Error, err.Error())
		return
	}
	var planted []any
	err = retry.RetryOnConflict(retry.DefaultRetry, func() error {
		got, err := res.Get(ctx, pol.GetName(), metav1.GetOptions{})
		if err != nil {
			return err
		}
		ancestors, _, _ := unstructured.NestedSlice(got.Object, "status", "ancestors")
		// The other implementation's entry is written again with the
		// foreign conditions: an implementation that removed it
		// (others-entries-kept) would leave nothing to plant in.
		ancestors = withOthers(p, ancestors, got.GetGeneration())
		now := time.Now().UTC().Format(time.RFC3339)
		ancestors = statusrules.PlantForeign(ancestors, ctl, true, got.GetGeneration(), now)
		ancestors = statusrules.PlantForeign(ancestors, ctl, false, got.GetGeneration(), now)
		if err := unstructured.SetNestedSlice(got.Object, ancestors, "status", "ancestors"); err != nil {
			return err
		}
		written, err := res.UpdateStatus(ctx, got, metav1.UpdateOptions{FieldManager: cluster.ManagedBy})
		if err == nil {
			planted, _, _ = unstructured.NestedSlice(written.Object, "status", "ancestors")
		}
		return err
	})
	if err != nil {
		fail(Error, "planting the foreign conditions: "+err.Error())
		return
	}
	// A new generation: the implementation must write again.
	next := pol.DeepCopy()
	if err := unstructured.SetNestedField(next.Object, "shared-2.example.com", "spec", "validation", "hostname"); err != nil {
		fail(Error, err.Error())
		return
	}
	if _, err := r.apply(ctx, next); err != nil {
		fail(Error, "changing the policy's spec: "+err.Error())
		return
	}
	last, ok := r.settled(ctx, r.timeout(), read, current)
	if !ok {
		fail(Error, fmt.Sprintf("no status of the implementation's for the policy's new generation within %s: nothing to judge", r.timeout()))
		return
	}
	got, _, _ := unstructured.NestedSlice(last.(*unstructured.Unstructured).Object, "status", "ancestors")
	for _, own := range []bool{true, false} {
		name := "foreign-conditions-own-entry"
		if !own {
			name = "foreign-conditions-others-entry"
		}
		if msg := statusrules.ForeignKept(planted, got, ctl, own); msg != "" {
			set(name, Fail, p.Unmap(msg))
		} else {
			set(name, Pass, "kept, in order, after the implementation wrote status for the new generation")
		}
	}
}

// ancestorsComplete: policy has controller ctl's status for its
// generation, and its list of ancestors is full, or has an entry for each
// of the gateways, or names no Gateway.
func ancestorsComplete(policy *unstructured.Unstructured, ctl string, gateways int) bool {
	if !ownCurrent(policy, ctl) {
		return false
	}
	as, _, _ := unstructured.NestedSlice(policy.Object, "status", "ancestors")
	gwEntries := 0
	for _, a := range as {
		if m, _ := a.(map[string]any); m["controllerName"] == ctl && statusrules.AncestorGateway(m, policy.GetNamespace()) != "" {
			gwEntries++
		}
	}
	return len(as) >= statusrules.MaxAncestors || gwEntries == 0 || gwEntries == gateways
}

// judgeAncestorsLimit: once the implementation has decided on every
// Gateway and route, and the policy's status has held still (or the step
// timeout passed), judge statusrules.AncestorsFull.
//
// A write of a 17th entry is refused by the API server and leaves nothing
// stored: the status writes of BackendTLSPolicy it refused as invalid
// since refusedBefore (kube-apiserver's apiserver_request_total, code
// 422) show it. Where /metrics cannot be read (refusedErr), only the
// stored status is judged, and the result says so.
func (r *Runner) judgeAncestorsLimit(ctx context.Context, p *Plan, set func(string, Outcome, string), refusedBefore float64, refusedErr error) {
	ctl := r.Impl.ControllerName()
	pol := policyNamed(p, "tls-limit-policy")
	var gws, routes []*unstructured.Unstructured
	for _, u := range p.Objects {
		switch u.GetKind() {
		case "Gateway":
			gws = append(gws, u)
		case "HTTPRoute":
			routes = append(routes, u)
		}
	}
	type state struct{ policy, gateways, routes []*unstructured.Unstructured }
	read := func(ctx context.Context) (any, error) {
		var s state
		for _, group := range []struct {
			in  []*unstructured.Unstructured
			out *[]*unstructured.Unstructured
		}{{[]*unstructured.Unstructured{pol}, &s.policy}, {gws, &s.gateways}, {routes, &s.routes}} {
			for _, u := range group.in {
				got, err := r.Kube.Get(ctx, u)
				if err != nil {
					return nil, err
				}
				*group.out = append(*group.out, got)
			}
		}
		return s, nil
	}
	// Complete: the policy has the implementation's status for its
	// generation and the list is full, or every Gateway has an entry, or
	// the implementation's entries name no Gateway (it places the status
	// on the Service). Otherwise the step timeout ends the wait: an
	// implementation that runs a process per Gateway (Contour) fills the
	// list one entry at a time, and may never fill it (Contour v1.33.8
	// does not retry a status write that conflicts with another's).
	done := func(v any) bool { return ancestorsComplete(v.(state).policy[0], ctl, len(gws)) }
	v, _ := r.settled(ctx, r.timeout(), read, done)
	if v == nil {
		set("ancestors-limit", Error, "could not read the objects")
		set("ancestors-full-signalled", Error, "could not read the objects")
		return
	}
	s := v.(state)
	limit, signal, na := statusrules.AncestorsFull(s.policy[0], s.gateways, s.routes, ctl)
	n := 0
	as, _, _ := unstructured.NestedSlice(s.policy[0].Object, "status", "ancestors")
	for _, a := range as {
		if m, _ := a.(map[string]any); m["controllerName"] == ctl {
			n++
		}
	}
	refused, err := r.RefusedWrites(ctx)
	if err == nil {
		err = refusedErr
	}
	switch {
	case limit != "":
		set("ancestors-limit", Fail, p.Unmap(limit))
	case err == nil && refused > refusedBefore:
		set("ancestors-limit", Fail, fmt.Sprintf("%d entries of the implementation's for 17 Gateways, and %v status writes of BackendTLSPolicy refused by the API server as invalid (a 17th entry: MaxItems=16)", n, refused-refusedBefore))
	case err != nil:
		set("ancestors-limit", Pass, fmt.Sprintf("%d entries of the implementation's for 17 Gateways (writes the API server refused not counted: %v)", n, err))
	default:
		set("ancestors-limit", Pass, fmt.Sprintf("%d entries of the implementation's for 17 Gateways, no status write refused", n))
	}
	switch {
	case na != "":
		set("ancestors-full-signalled", Skip, p.Unmap(na))
	case signal != "":
		set("ancestors-full-signalled", Fail, p.Unmap(signal))
	default:
		set("ancestors-full-signalled", Pass, "every Gateway without an entry has a condition naming the policy")
	}
}

// judgeCARefs: once the implementation's status of the four policies is
// for their generation and has held still (or the step timeout passed),
// judge each policy's entries (statusrules.OwnCondition).
func (r *Runner) judgeCARefs(ctx context.Context, p *Plan, set func(string, Outcome, string)) {
	ctl := r.Impl.ControllerName()
	// The route's status is read beside the policies': once the
	// implementation has decided on the route or written the status of
	// one of the policies, a policy status that has not come within the
	// settle time is not coming.
	read := func(ctx context.Context) (any, error) {
		out := map[string]*unstructured.Unstructured{}
		for _, u := range slices.Concat(p.PolicyObjects(), p.Objects) {
			if u.GetKind() != "HTTPRoute" && !slices.Contains(p.PolicyObjects(), u) {
				continue
			}
			got, err := r.Kube.Get(ctx, u)
			if err != nil {
				return nil, err
			}
			out[u.GetKind()+"/"+u.GetName()] = got
		}
		return out, nil
	}
	done := func(v any) bool {
		all, some, routeDecided := true, false, false
		for key, u := range v.(map[string]*unstructured.Unstructured) {
			switch {
			case strings.HasPrefix(key, "HTTPRoute/"):
				ps, _, _ := unstructured.NestedSlice(u.Object, "status", "parents")
				routeDecided = slices.ContainsFunc(ps, func(x any) bool { m, _ := x.(map[string]any); return m["controllerName"] == ctl })
			case ownCurrent(u, ctl):
				some = true
			default:
				all = false
			}
		}
		return all || some || routeDecided
	}
	v, _ := r.settled(ctx, r.timeout(), read, done)
	stored, _ := v.(map[string]*unstructured.Unstructured)
	judge := func(name, policy, typ, status, reason string, mention ...string) {
		u := stored["BackendTLSPolicy/"+policy]
		if u == nil {
			set(name, Error, "could not read policy "+policy)
			return
		}
		msg, note := statusrules.OwnCondition(u, ctl, typ, status, reason, mention...)
		if msg != "" {
			set(name, Fail, "policy "+policy+": "+p.Unmap(msg))
			return
		}
		detail := fmt.Sprintf("policy %s: %s=%s/%s with a message", policy, typ, status, reason)
		if note != "" {
			detail += "; note: " + p.Unmap(note)
		}
		set(name, Pass, detail)
	}
	judge("resolvedrefs-invalid-ca-ref", "missing", "ResolvedRefs", "False", "InvalidCACertificateRef", "gepcheck-absent-ca")
	judge("resolvedrefs-invalid-kind", "kind", "ResolvedRefs", "False", "InvalidKind", "UnknownCABundle")
	judge("well-known-cas-unrecognized", "unrecognized", "Accepted", "False", "Invalid")
	if r.Impl.Capabilities().Features.Has(features.WellKnownCACertificates) {
		set("well-known-cas-unsupported", Skip, "the implementation declares "+string(features.WellKnownCACertificates)+" (scenarios/gateway-api/backendtlspolicy-well-known-cas.yaml judges System)")
	} else {
		judge("well-known-cas-unsupported", "system", "Accepted", "False", "Invalid")
	}
}

// MustsLine is one line per check: "must NAME (IDS): outcome: detail".
func MustsLine(m MustResult) string {
	line := fmt.Sprintf("must %s (%s): %s", m.Name, strings.Join(m.Requirements, ", "), m.Outcome)
	if m.Duration > 0 {
		line += fmt.Sprintf(" (%s)", m.Duration.Round(100*time.Millisecond))
	}
	if m.Detail != "" {
		line += ": " + m.Detail
	}
	return line
}

// MustsBroken names the checks that failed or could not be judged.
func (s *Summary) MustsBroken() []string {
	var out []string
	for _, m := range s.Musts {
		if m.Outcome == Fail || m.Outcome == Error {
			out = append(out, m.Name)
		}
	}
	return out
}

// MustsSummary is "musts for IMPL on CLUSTER: N met, N broken, N errors,
// N not applicable".
func MustsSummary(s *Summary) string {
	n := map[Outcome]int{}
	for _, m := range s.Musts {
		n[m.Outcome]++
	}
	return fmt.Sprintf("musts for %s on %s: %d met, %d broken, %d errors, %d not applicable", s.Impl, s.Cluster, n[Pass], n[Fail], n[Error], n[Skip])
}

// RefusedWrites reads kube-apiserver's /metrics: the status writes of
// BackendTLSPolicy it refused as invalid (statusrules.RefusedStatusWrites).
func (r *Runner) RefusedWrites(ctx context.Context) (float64, error) {
	dc, err := discovery.NewDiscoveryClientForConfig(r.Kube.Cluster.Config)
	if err != nil {
		return 0, err
	}
	ctx, cancel := context.WithTimeout(ctx, cluster.Timeouts.StatusRead)
	defer cancel()
	data, err := dc.RESTClient().Get().AbsPath("/metrics").DoRaw(ctx)
	if err != nil {
		return 0, fmt.Errorf("kube-apiserver's /metrics: %w", err)
	}
	return statusrules.RefusedStatusWrites(data, "backendtlspolicies"), nil
}
