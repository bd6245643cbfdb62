package envoygateway

import (
	"bytes"
	"cmp"
	"context"
	"fmt"
	"maps"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"

	"github.com/gepcheck/gepcheck/impl/internal/gatewayapi"
	"github.com/gepcheck/gepcheck/internal/gotool"
	"github.com/gepcheck/gepcheck/internal/jsonmap"
	"github.com/gepcheck/gepcheck/internal/proc"
	"github.com/gepcheck/gepcheck/simulator"
	"github.com/gepcheck/gepcheck/simulator/engine"
	"github.com/gepcheck/gepcheck/simulator/load"
	"github.com/gepcheck/gepcheck/suite/features"
	"github.com/gepcheck/gepcheck/suite/observe"
	"github.com/gepcheck/gepcheck/suite/statusrules"
)

// Translator observes cases with Envoy Gateway's own translator, offline:
// `egctl x translate --from gateway-api --to gateway-api,xds`. Cases are
// translated together in one egctl run, one namespace per case; a batch
// that fails is bisected to find the case that makes it fail.
//
// Observed settings, per route rule, read from the xDS route of each
// listener (docs/envoy-gateway.md): BackendTrafficPolicy
// timeout.http.requestTimeout (route timeout) and retry.numRetries (route
// retry policy). Conditions: Accepted and ResolvedRefs (BackendTLSPolicy),
// aggregated over status ancestors and, for BackendTLSPolicy, per ancestor
// Gateway (observe.Status.Ancestors).
type Translator struct {
	Egctl   string
	Timeout time.Duration
	// Parallelism is how many egctl processes run at once, each on a share
	// of the batch (2 when zero).
	Parallelism int
	// MaxOutput is the most bytes of egctl's stdout read per batch
	// (MaxEgctlOutput when zero; docs/limits.md).
	MaxOutput int64
}

// MaxEgctlOutput is the most bytes of stdout read from one egctl x
// translate (docs/limits.md, "Implementations"); its stderr is kept to
// its last 64 KiB.
const MaxEgctlOutput = 512 << 20

// Name implements observe.Observer.
func (*Translator) Name() string { return "envoy-gateway" }

// Features are what the translator is judged on: its three policy kinds,
// sections, and mergeType.
var Features = features.Set{"BackendTrafficPolicy", "ClientTrafficPolicy", "SecurityPolicy", "BackendTLSPolicy", features.SectionName, features.MergeType, features.WellKnownCACertificates}

// Capabilities implements observe.Observer: Envoy Gateway writes Accepted
// (and Merged, Overridden, of its own API), neither GEP-713's draft's
// Enforced nor merged GEP-713's Programmed (v1.9.1 writes Programmed on
// EnvoyPatchPolicy only, api/v1alpha1/envoypatchpolicy_types.go): only
// Accepted is compared, and its claim of merged GEP-713's status
// vocabulary is moot.
func (*Translator) Capabilities() observe.Capabilities {
	return observe.Capabilities{Features: Features, Conditions: []string{"Accepted", "ResolvedRefs"}, Vocabulary: engine.VocabularyMerged, StrategyNames: []string{"JSONMerge", "StrategicMerge"}, Readable: Readable, Observable: observable,
		// egctl's loader keeps only the names of an object's metadata.
		IgnoresCreationTimestamps: true,
		// Only policies on the same target and section conflict
		// (BackendTLSPolicyConflictResolution; docs/semantics.md).
		Profiles: map[string]string{"BackendTLSPolicy": "backendtlspolicy-gateway-api"}}
}

// Observe implements observe.Observer.
func (e *Translator) Observe(ctx context.Context, cases []observe.Case) ([]observe.Observation, error) {
	out := make([]observe.Observation, len(cases))
	n := e.Parallelism
	if n <= 0 {
		n = 2
	}
	n = min(n, len(cases))
	var wg sync.WaitGroup
	for w := 0; w < n; w++ {
		lo, hi := w*len(cases)/n, (w+1)*len(cases)/n
		wg.Add(1)
		go func() {
			defer wg.Done()
			e.batch(ctx, cases[lo:hi], out[lo:hi])
		}()
	}
	wg.Wait()
	return out, ctx.Err()
}

func (e *Translator) batch(ctx context.Context, cases []observe.Case, out []observe.Observation) {
	if len(cases) == 0 {
		return
	}
	obs, err := e.translate(ctx, cases)
	if err == nil {
		copy(out, obs)
		return
	}
	if len(cases) == 1 {
		out[0] = observe.Observation{Name: cases[0].Name, Error: err.Error()}
		return
	}
	// Bisect: find the cases that make egctl fail.
	mid := len(cases) / 2
	e.batch(ctx, cases[:mid], out[:mid])
	e.batch(ctx, cases[mid:], out[mid:])
}

// translate runs egctl once over the cases.
func (e *Translator) translate(ctx context.Context, cases []observe.Case) ([]observe.Observation, error) {
	in, err := readInput(cases)
	if err != nil {
		return nil, err
	}
	caseOf := in.caseOf
	stdout, err := e.run(ctx, in.data)
	if err != nil {
		return nil, err
	}
	var doc map[string]any
	if err := yaml.Unmarshal(stdout, &doc); err != nil {
		return nil, fmt.Errorf("egctl printed something that is not YAML: %v", err)
	}
	obs := make([]observe.Observation, len(cases))
	for i, c := range cases {
		obs[i] = observe.Observation{Name: c.Name, Effective: []observe.Path{}, Policies: []observe.Status{}}
	}
	at := func(ns string) *observe.Observation {
		if i, ok := caseOf[ns]; ok {
			return &obs[i]
		}
		return nil
	}
	printed := make([][]*unstructured.Unstructured, len(obs)) // each case's policies, as egctl prints them
	for _, k := range [][2]string{{"backendTrafficPolicies", "BackendTrafficPolicy"}, {"clientTrafficPolicies", "ClientTrafficPolicy"}, {"securityPolicies", "SecurityPolicy"}, {"backendTLSPolicies", "BackendTLSPolicy"}} {
		key, kind := k[0], k[1]
		for _, p := range jsonmap.List(doc[key]) {
			if i, ok := caseOf[jsonmap.String(jsonmap.Map(jsonmap.Map(p)["metadata"])["namespace"])]; ok {
				obs[i].Policies = append(obs[i].Policies, PolicyStatus(kind, jsonmap.Map(p)))
				u := &unstructured.Unstructured{Object: jsonmap.Map(p)}
				u.SetKind(kind)
				printed[i] = append(printed[i], u)
			}
		}
	}
	// The status rules that do not need an object stored by an API server
	// (statusrules.Rule.Stored), on the status egctl prints.
	names := (&Translator{}).Capabilities().StrategyNames
	cs := gatewayapi.Index(in.objects, ControllerName)
	for i, ps := range printed {
		for _, d := range statusrules.Policies(ps, ControllerName, names, false, cs.Others, (&Translator{}).Capabilities().StatusVocabulary()) {
			obs[i].Broken = append(obs[i].Broken, observe.RuleBreak{Ref: d.Ref, Rule: d.Condition, Got: fmt.Sprint(d.Got)})
		}
	}
	ReadXDS(doc, in.ports, at)
	for _, r := range cs.Reached {
		if o := at(strings.Split(r, "/")[1]); o != nil {
			o.Reached = append(o.Reached, r)
		}
	}
	for i := range obs {
		gatewayapi.MarkUnreported(&obs[i], printed[i], ControllerName)
	}
	for i := range obs {
		obs[i].Normalize()
	}
	return obs, nil
}

// egctlInput is one YAML stream of the cases' objects (one GatewayClass of
// each name, gepcheck's own documents left out, a Namespace for each
// namespace the cases use and do not declare) and the case of each
// namespace. Envoy Gateway before v1.3 attaches no route to a listener
// (allowedRoutes from Same) whose namespace egctl was not given.
func egctlInput(cases []observe.Case) ([]byte, map[string]int, error) {
	in, err := readInput(cases)
	if err != nil {
		return nil, nil, err
	}
	return in.data, in.caseOf, nil
}

// input is what egctl is given, the case of each namespace, and the port
// names of each Service ("namespace/name" → port number → name): Envoy
// Gateway's xDS names a Service port by its number.
type input struct {
	data   []byte
	caseOf map[string]int
	ports  map[string]map[string]string
	// objects are the cases' objects as egctl is given them.
	objects []map[string]any
}

func readInput(cases []observe.Case) (*input, error) {
	b := &inputBuilder{cases: cases, ports: map[string]map[string]string{}, classes: map[string]bool{},
		ownClassCase: -1, declared: map[string]bool{}, caseOf: map[string]int{}}
	for i, c := range cases {
		docs, err := load.Read([]string{"-"}, strings.NewReader(c.YAML))
		if err != nil {
			return nil, fmt.Errorf("case %s does not load: %v", c.Name, err)
		}
		// A case that names Envoy Gateway's controller in a class (a
		// cluster read as it is) leaves the classes of other controllers
		// to them; otherwise every class is Envoy Gateway's.
		named := slices.ContainsFunc(docs, func(d *load.Doc) bool {
			return d.Kind == "GatewayClass" && jsonmap.Map(d.Raw["spec"])["controllerName"] == ControllerName
		})
		for _, d := range docs {
			if err := b.add(i, d, named); err != nil {
				return nil, err
			}
		}
	}
	for _, ns := range slices.Sorted(maps.Keys(b.caseOf)) {
		if !b.declared[ns] {
			fmt.Fprintf(&b.in, "---\napiVersion: v1\nkind: Namespace\nmetadata:\n  name: %s\n", ns)
		}
	}
	return &input{data: b.in.Bytes(), caseOf: b.caseOf, ports: b.ports, objects: b.objects}, nil
}

// inputBuilder is readInput's state while it reads the cases' documents.
type inputBuilder struct {
	cases   []observe.Case
	in      bytes.Buffer
	ports   map[string]map[string]string
	objects []map[string]any
	classes map[string]bool
	// The case of the first class given: egctl translates the Gateways
	// of one GatewayClass, so a batch holds the cases of one (Observe
	// bisects a batch that holds more).
	ownClass     string
	ownClassCase int
	declared     map[string]bool // Namespace objects in the cases
	caseOf       map[string]int  // namespace → case
}

// add adds document d of case i; named says whether the case names Envoy
// Gateway's controller in a class.
func (b *inputBuilder) add(i int, d *load.Doc, named bool) error {
	switch {
	case d.Group == "gepcheck.dev":
		return nil // gepcheck's own documents
	case d.Kind == "GatewayClass":
		if b.classes[d.Name] {
			return nil
		}
		b.classes[d.Name] = true
	case d.Kind == "Namespace" && d.Group == "":
		b.declared[d.Name] = true
	}
	raw := d.Raw
	ns := d.Namespace
	if ns == "" && d.Kind != "GatewayClass" && d.Kind != "Namespace" {
		// A namespaced object written without a namespace is in
		// default, as kubectl applies it; egctl is told so, and
		// the case is found by it.
		ns = "default"
		raw = withNamespace(raw, ns)
	}
	if ns != "" {
		if j, ok := b.caseOf[ns]; ok && j != i {
			return fmt.Errorf("cases %s and %s share namespace %s: batched cases need a namespace each", b.cases[j].Name, b.cases[i].Name, ns)
		}
		b.caseOf[ns] = i
	}
	raw, given, err := b.asGiven(i, d, raw, named)
	if err != nil {
		return err
	}
	b.objects = append(b.objects, raw)
	if !given {
		return nil
	}
	if d.Kind == "Service" && d.Group == "" {
		b.ports[ns+"/"+d.Name] = gatewayapi.PortNames(raw)
	}
	out, err := yaml.Marshal(raw)
	if err != nil {
		return err
	}
	b.in.WriteString("---\n")
	b.in.Write(out)
	return nil
}

// asGiven is raw (document d of case i) as egctl is given it, and false
// for a document it is not given.
func (b *inputBuilder) asGiven(i int, d *load.Doc, raw map[string]any, named bool) (map[string]any, bool, error) {
	// As the cluster runner does, every GatewayClass is Envoy
	// Gateway's; a Service gets an address when it has none
	// (egctl sends traffic to a Service's clusterIP, and refuses
	// an endpoint without an address).
	switch {
	case d.Kind == "GatewayClass" && (jsonmap.Map(jsonmap.Map(raw["metadata"])["annotations"])[simulator.AnnotationOtherImplementation] != nil ||
		named && jsonmap.Map(raw["spec"])["controllerName"] != ControllerName):
		// Another implementation's class: egctl translates the
		// Gateways of one class (the last given), not these.
		return raw, false, nil
	case d.Kind == "GatewayClass":
		if b.ownClass != "" && b.ownClass != d.Name && b.ownClassCase != i {
			return nil, false, fmt.Errorf("cases %s and %s name GatewayClasses %s and %s: egctl translates the Gateways of one class, so batched cases share theirs", b.cases[b.ownClassCase].Name, b.cases[i].Name, b.ownClass, d.Name)
		}
		if b.ownClass == "" {
			b.ownClass, b.ownClassCase = d.Name, i
		}
		return withSpecField(raw, "controllerName", ControllerName), true, nil
	case d.Kind == "Service" && d.Group == "" && jsonmap.Map(raw["spec"])["clusterIP"] == nil:
		return withSpecField(raw, "clusterIP", "10.96.0.1"), true, nil
	}
	return raw, true, nil
}

// run runs egctl x translate once on in and returns what it printed.
func (e *Translator) run(ctx context.Context, in []byte) ([]byte, error) {
	timeout := e.Timeout
	if timeout == 0 {
		timeout = 2 * time.Minute
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	limit := cmp.Or(e.MaxOutput, MaxEgctlOutput)
	cmd := exec.CommandContext(ctx, e.Egctl, "x", "translate", "--from", "gateway-api", "--to", "gateway-api,xds", "-f", "-")
	proc.Contain(cmd, time.Second)
	cmd.Stdin = bytes.NewReader(in)
	stdout := &proc.Head{What: "egctl's stdout", Limit: limit, OnCut: cancel}
	stderr := &proc.Tail{Limit: 64 << 10}
	cmd.Stdout, cmd.Stderr = stdout, stderr
	err := cmd.Run()
	_ = proc.KillGroup(cmd)
	switch {
	case stdout.Cut():
		return nil, fmt.Errorf("egctl printed more than the limit of %d bytes", limit)
	case ctx.Err() == context.DeadlineExceeded:
		return nil, fmt.Errorf("egctl timed out after %s", timeout)
	case err != nil:
		return nil, fmt.Errorf("egctl failed: %v: %s", err, gotool.Tail(stderr.String(), 1))
	}
	return stdout.Bytes(), nil
}

// PolicyStatus reads the conditions of one Envoy Gateway
// policy object: Accepted, and every other condition type Envoy Gateway
// writes (Merged, Overridden, …), aggregated over its status ancestors:
// True wins; a policy without status has Accepted False, NoStatus.
func PolicyStatus(kind string, p map[string]any) observe.Status {
	return gatewayapi.PolicyStatus(kind, p, "")
}

// ReadXDS reads the effective settings from xDS shaped as
// egctl's output ({"xds": {"namespace/gateway": {"configs": […]}}}),
// into the observation at returns for a namespace (nil: not observed).
// The cluster runner reads Envoy Gateway's xDS server into this shape.
func ReadXDS(doc map[string]any, ports map[string]map[string]string, at func(namespace string) *observe.Observation) {
	readRoutes(doc, at)
	readListeners(doc, at)
	readBackendTLS(doc, ports, at)
}

// Fields are the spec fields ReadXDS reads back
// (docs/envoy-gateway.md, the tables); nothing else of a policy is observed.
var Fields = [][]string{
	{"timeout", "http", "requestTimeout"},
	{"retry", "numRetries"},
	{"retry", "retryOn", "httpStatusCodes"},
	{"circuitBreaker", "maxConnections"},
	{"connection", "connectionLimit", "value"},
	{"cors", "allowOrigins"},
	// BackendTLSPolicy (readBackendTLS); caCertificateRefs are not read
	// back: the CA's SDS secret is named after the policy.
	{"validation", "hostname"},
	{"validation", "wellKnownCACertificates"},
	{"validation", "subjectAltNames"},
}

// observable says which reference paths an observation of Envoy Gateway
// can show: its configuration is read per Gateway proxy (ReadXDS), so a
// path through a Gateway; and a Service port's backend TLS settings are on
// the clusters of the routes that send to it, so a Service port got
// reached.
func observable(path []string, got *observe.Observation) bool {
	if len(path) == 0 {
		return false
	}
	if strings.HasPrefix(path[0], "Service/") {
		return slices.Contains(got.Reached, path[len(path)-1])
	}
	return strings.HasPrefix(path[0], "Gateway/")
}

// Readable is the part of an effective spec that
// Fields covers: what an observation can be compared on. An API
// server fills in CRD defaults (circuitBreaker.maxPendingRequests, …) that
// are not read back. A retry.retryOn without httpStatusCodes reads as an
// empty list: Envoy Gateway's xDS shows both as no retriable status codes.
func Readable(spec map[string]any) map[string]any {
	out := map[string]any{}
	if on, ok := jsonmap.Map(jsonmap.Map(spec)["retry"])["retryOn"].(map[string]any); ok && on["httpStatusCodes"] == nil {
		spec = withPath(spec, []string{"retry", "retryOn", "httpStatusCodes"}, []any{})
	}
	for _, f := range Fields {
		v, ok := any(spec), true
		for _, k := range f {
			if v, ok = jsonmap.Map(v)[k]; !ok {
				break
			}
		}
		if !ok {
			continue
		}
		m := out
		for _, k := range f[:len(f)-1] {
			if _, ok := m[k].(map[string]any); !ok {
				m[k] = map[string]any{}
			}
			m = m[k].(map[string]any)
		}
		m[f[len(f)-1]] = v
	}
	// A BackendTLSPolicy whose only subjectAltName is its hostname reads
	// back as one with none: Envoy Gateway matches the hostname then, in
	// the same SAN matcher (backendTLSSpec). Gateway API v1,
	// BackendTLSPolicyValidation.Hostname: "If SubjectAltNames are not
	// specified, Hostname MUST be used for authentication".
	if v, ok := out["validation"].(map[string]any); ok {
		sans := jsonmap.List(v["subjectAltNames"])
		if len(sans) == 1 && jsonmap.String(jsonmap.Map(sans[0])["type"]) == "Hostname" && jsonmap.Map(sans[0])["hostname"] == v["hostname"] {
			v = maps.Clone(v)
			delete(v, "subjectAltNames")
			out["validation"] = v
		}
	}
	return out
}

// readRoutes reads, from each listener's xDS routes, the settings of each
// rule of an HTTPRoute or a GRPCRoute.
//
// Envoy Gateway before v1.3 names no rule in a route's metadata; its route
// names do ("httproute/NAMESPACE/NAME/rule/INDEX/match/…"), and the rule's
// name is then read from the route egctl prints (none in a cluster).
func readRoutes(doc map[string]any, at func(string) *observe.Observation) {
	xds := jsonmap.Map(doc["xds"])
	rules := routeRules(doc)
	for _, proxy := range slices.Sorted(maps.Keys(xds)) {
		configs := jsonmap.List(jsonmap.Map(xds[proxy])["configs"])
		clusters := clustersByName(configs)
		for _, cfg := range configs {
			for _, rc := range jsonmap.List(jsonmap.Map(cfg)["dynamicRouteConfigs"]) {
				route := jsonmap.Map(jsonmap.Map(rc)["routeConfig"])
				// Route configurations are named namespace/gateway/listener.
				parts := strings.Split(jsonmap.String(route["name"]), "/")
				if len(parts) != 3 {
					continue
				}
				ns, gw, listener := parts[0], parts[1], parts[2]
				o := at(ns)
				if o == nil {
					continue
				}
				for _, vh := range jsonmap.List(route["virtualHosts"]) {
					for _, r := range jsonmap.List(jsonmap.Map(vh)["routes"]) {
						rm := jsonmap.Map(r)
						res := routeResource(rm)
						if res == nil {
							continue
						}
						obj := jsonmap.String(res["kind"]) + "/" + jsonmap.String(res["namespace"]) + "/" + jsonmap.String(res["name"])
						path := []string{"Gateway/" + ns + "/" + gw, "Gateway/" + ns + "/" + gw + "#" + listener, obj, obj + "#" + rules.section(res, rm)}
						o.Effective = append(o.Effective, observe.Path{Path: path, Spec: routeSpec(rm, clusters)})
					}
				}
			}
		}
	}
}

// ruleLists holds each route's rules egctl prints, by
// "httproute/namespace/name" (or grpcroute).
type ruleLists map[string][]any

func routeRules(doc map[string]any) ruleLists {
	out := ruleLists{}
	for _, kind := range [][2]string{{"httpRoutes", "httproute"}, {"grpcRoutes", "grpcroute"}} {
		for _, r := range jsonmap.List(doc[kind[0]]) {
			m := jsonmap.Map(jsonmap.Map(r)["metadata"])
			out[kind[1]+"/"+jsonmap.String(m["namespace"])+"/"+jsonmap.String(m["name"])] = jsonmap.List(jsonmap.Map(jsonmap.Map(r)["spec"])["rules"])
		}
	}
	return out
}

// section is the rule of the xDS route (resource res of its metadata) as
// gepcheck's paths name it: the metadata's sectionName, or the rule
// named by the route's name.
func (rules ruleLists) section(res, route map[string]any) string {
	if s := jsonmap.String(res["sectionName"]); s != "" {
		return s
	}
	parts := strings.Split(jsonmap.String(route["name"]), "/")
	if len(parts) < 5 || parts[0] != "httproute" && parts[0] != "grpcroute" || parts[3] != "rule" {
		return ""
	}
	var i int
	if _, err := fmt.Sscan(parts[4], &i); err != nil {
		return ""
	}
	rs := rules[parts[0]+"/"+parts[1]+"/"+parts[2]]
	if i < 0 || i >= len(rs) {
		return ""
	}
	if name := jsonmap.String(jsonmap.Map(rs[i])["name"]); name != "" {
		return name
	}
	// An unnamed rule is the section rules[INDEX], as gepcheck's
	// paths name it (docs/profiles.md, The hierarchy of targets).
	return fmt.Sprintf("rules[%d]", i)
}

// clustersByName indexes a proxy's clusters: cluster settings of a route
// rule are on the cluster its route sends to.
func clustersByName(configs []any) map[string]map[string]any {
	clusters := map[string]map[string]any{}
	for _, cfg := range configs {
		for _, c := range jsonmap.List(jsonmap.Map(cfg)["dynamicActiveClusters"]) {
			cl := jsonmap.Map(jsonmap.Map(c)["cluster"])
			clusters[jsonmap.String(cl["name"])] = cl
		}
	}
	return clusters
}

// routeResource is the HTTPRoute or GRPCRoute an xDS route's
// envoy-gateway metadata names (the last one), or nil.
func routeResource(route map[string]any) map[string]any {
	var res map[string]any
	for _, x := range jsonmap.List(jsonmap.Map(jsonmap.Map(jsonmap.Map(route["metadata"])["filterMetadata"])["envoy-gateway"])["resources"]) {
		if k := jsonmap.String(jsonmap.Map(x)["kind"]); k == "HTTPRoute" || k == "GRPCRoute" {
			res = jsonmap.Map(x)
		}
	}
	return res
}

// routeSpec reads the policy settings of one xDS route back into a
// policy's spec.
func routeSpec(route map[string]any, clusters map[string]map[string]any) map[string]any {
	spec := map[string]any{}
	action := jsonmap.Map(route["route"])
	if t, ok := action["timeout"].(string); ok {
		spec["timeout"] = map[string]any{"http": map[string]any{"requestTimeout": t}}
	}
	if rp, ok := action["retryPolicy"].(map[string]any); ok {
		spec["retry"] = retrySpec(rp)
	}
	// circuitBreaker.maxConnections: the first threshold of the route's
	// cluster (Envoy Gateway sets none by default).
	if th := jsonmap.List(jsonmap.Map(clusters[jsonmap.String(action["cluster"])]["circuitBreakers"])["thresholds"]); len(th) > 0 {
		if n, ok := jsonmap.Map(th[0])["maxConnections"]; ok {
			spec["circuitBreaker"] = map[string]any{"maxConnections": n}
		}
	}
	// SecurityPolicy cors.allowOrigins: the route's CORS filter
	// configuration.
	if cors := jsonmap.Map(jsonmap.Map(route["typedPerFilterConfig"])["envoy.filters.http.cors"]); cors != nil {
		var origins []any
		for _, m := range jsonmap.List(cors["allowOriginStringMatch"]) {
			if e, ok := jsonmap.Map(m)["exact"]; ok {
				origins = append(origins, e)
			}
		}
		if len(origins) > 0 {
			spec["cors"] = map[string]any{"allowOrigins": origins}
		}
	}
	return spec
}

// retrySpec reads a route's retryPolicy back into BackendTrafficPolicy's
// retry.
func retrySpec(rp map[string]any) map[string]any {
	retry := map[string]any{}
	if n, ok := rp["numRetries"]; ok {
		retry["numRetries"] = n
	}
	// retry.retryOn.httpStatusCodes: Envoy Gateway writes [503] when
	// retry.retryOn is unset, and the list it was given (none for an empty
	// one) when set. gepcheck never draws 503.
	codes := jsonmap.List(rp["retriableStatusCodes"])
	if !slices.Equal(codes, []any{float64(503)}) {
		if codes == nil {
			codes = []any{}
		}
		retry["retryOn"] = map[string]any{"httpStatusCodes": codes}
	}
	return retry
}

// readListeners reads ClientTrafficPolicy settings from each listener: the
// connection_limit filter's maxConnections (absent unless a policy sets
// connection.connectionLimit).
func readListeners(doc map[string]any, at func(string) *observe.Observation) {
	xds := jsonmap.Map(doc["xds"])
	for _, proxy := range slices.Sorted(maps.Keys(xds)) {
		for _, cfg := range jsonmap.List(jsonmap.Map(xds[proxy])["configs"]) {
			for _, dl := range jsonmap.List(jsonmap.Map(cfg)["dynamicListeners"]) {
				l := jsonmap.Map(jsonmap.Map(jsonmap.Map(dl)["activeState"])["listener"])
				parts := strings.Split(jsonmap.String(l["name"]), "/")
				if len(parts) != 3 {
					continue
				}
				o := at(parts[0])
				if o == nil {
					continue
				}
				chains := append([]any{l["defaultFilterChain"]}, jsonmap.List(l["filterChains"])...)
				for _, ch := range chains {
					for _, f := range jsonmap.List(jsonmap.Map(ch)["filters"]) {
						if jsonmap.String(jsonmap.Map(f)["name"]) != "envoy.filters.network.connection_limit" {
							continue
						}
						var n float64
						fmt.Sscan(fmt.Sprint(jsonmap.Map(jsonmap.Map(f)["typedConfig"])["maxConnections"]), &n)
						o.Effective = append(o.Effective, observe.Path{
							Path: []string{"Gateway/" + parts[0] + "/" + parts[1], "Gateway/" + parts[0] + "/" + parts[1] + "#" + parts[2]},
							Spec: map[string]any{"connection": map[string]any{"connectionLimit": map[string]any{"value": n}}},
						})
					}
				}
			}
		}
	}
}

// withPath returns a copy of m, copied along path, with path set to v.
func withPath(m map[string]any, path []string, v any) map[string]any {
	out := maps.Clone(m)
	if out == nil {
		out = map[string]any{}
	}
	if len(path) == 1 {
		out[path[0]] = v
		return out
	}
	out[path[0]] = withPath(jsonmap.Map(m[path[0]]), path[1:], v)
	return out
}

// withSpecField is raw with spec.field set to v (a copy of raw and spec).
func withSpecField(raw map[string]any, field string, v any) map[string]any {
	out := maps.Clone(raw)
	spec := maps.Clone(jsonmap.Map(raw["spec"]))
	if spec == nil {
		spec = map[string]any{}
	}
	spec[field] = v
	out["spec"] = spec
	return out
}

// withNamespace is raw with metadata.namespace ns (a copy).
func withNamespace(raw map[string]any, ns string) map[string]any {
	out := make(map[string]any, len(raw))
	for k, v := range raw {
		out[k] = v
	}
	md := map[string]any{}
	if m, ok := raw["metadata"].(map[string]any); ok {
		for k, v := range m {
			md[k] = v
		}
	}
	md["namespace"] = ns
	out["metadata"] = md
	return out
}
