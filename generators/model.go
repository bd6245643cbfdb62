// Package generators draws random, shrinkable scenarios for property tests
// (pgregory.net/rapid): Gateway API shaped topologies and generic DAGs,
// policies at every level, and JSON specs.
//
// A generated Scenario is plain data. It renders to the YAML a user would
// apply (YAML) and converts straight to a simulator.Model (Model) without
// going through YAML, which is what keeps property checks fast. Every
// generator is built from rapid draws only, so rapid shrinks what it draws.
package generators

import "time"

// Scenario is one random input: objects, policies and the profile that reads
// them.
type Scenario struct {
	// Profile is a built-in profile name ("color-direct", "color-inherited",
	// "backendtlspolicy"), or empty when ProfileYAML is set.
	Profile string
	// ProfileYAML is an inline PolicyProfile document (generic topologies,
	// random profiles).
	ProfileYAML string

	// Namespaces lists every namespace an object or policy lives in; YAML
	// renders a Namespace object for each.
	Namespaces     []string
	GatewayClasses []string
	Gateways       []Gateway
	// ListenerSets add listeners to Gateways that allow them (GEP-1713).
	ListenerSets []ListenerSet
	Routes       []Route
	Services     []Service
	Grants       []Grant
	// ConfigMaps are fixtures policies refer to (a BackendTLSPolicy's CA
	// certificates); shrinking keeps them.
	ConfigMaps []ConfigMap
	// Generic, when set, replaces the Gateway API objects with a DAG of
	// abstract kinds.
	Generic *Generic

	// OwnFields are ObjectFields documents: values objects hold themselves
	// in the fields of a GEP-2649 field-level kind.
	OwnFields []OwnFields

	Policies []Policy

	// OtherClasses are GatewayClasses another implementation serves
	// (simulator.AnnotationOtherImplementation; controllerName
	// OtherControllerName), rendered when a Gateway uses one.
	OtherClasses []string

	// ControllerName of every GatewayClass (a generated one when empty).
	ControllerName string
	// ServiceClusterIPs gives each Service a clusterIP, for an
	// implementation that routes to it when no EndpointSlice exists.
	ServiceClusterIPs bool
}

// OwnFields gives the fields an object sets itself.
type OwnFields struct {
	Group, Kind, Namespace, Name string
	Fields                       map[string]any
}

// Gateway is a Gateway with named listeners. AllowListeners is its
// allowedListeners.namespaces.from (Same or All; empty: none allowed, the
// default).
type Gateway struct {
	Namespace, Name, Class string
	Listeners              []Listener
	AllowListeners         string
}

// Listener is one named listener. AllNamespaces sets allowedRoutes.from All.
// Protocol is HTTP when empty (TCP, TLS or UDP otherwise; a TLS listener
// passes TLS through).
type Listener struct {
	Name          string
	Port          int
	AllNamespaces bool
	Protocol      string
}

// ListenerSet is a ListenerSet of the Gateway Parent (GEP-1713).
type ListenerSet struct {
	Namespace, Name string
	Parent          ParentRef // a Gateway; Section unused
	Listeners       []Listener
}

// Route is an HTTPRoute (or a GRPCRoute when GRPC is set), or a route of
// Kind (TLSRoute, TCPRoute, UDPRoute) when Kind is set. Labels are its
// metadata.labels, for label-selector targets.
type Route struct {
	Namespace, Name string
	GRPC            bool
	Kind            string
	Labels          map[string]string
	Parents         []ParentRef
	Rules           []Rule
}

// ParentRef attaches a route to a Gateway or one of its listeners, or to a
// ListenerSet or one of its listeners when ListenerSet is set.
type ParentRef struct {
	Namespace, Name, Section string
	ListenerSet              bool
}

// Rule is a route rule; Name may be empty (positional name rules[i]).
type Rule struct {
	Name     string
	Backends []BackendRef
	// PathPrefix, when set, is the rule's one match; rules without one
	// all match every request, and an implementation sends traffic to
	// the first only (Gateway API, HTTPRouteRule: ties go to the first
	// rule).
	PathPrefix string
}

// BackendRef names a Service and its port (the generators' default port
// when zero).
type BackendRef struct {
	Namespace, Name string
	Port            int
}

// Service is a backend; Ports lists named ports (sections).
type Service struct {
	Namespace, Name string
	Ports           []string
	// PortNumbers, when set, numbers Ports (else the generators' own
	// numbers).
	PortNumbers []int
}

// ConfigMap is a ConfigMap with its data.
type ConfigMap struct {
	Namespace, Name string
	Data            map[string]string
}

// Grant is a ReferenceGrant in Namespace allowing FromKind (group FromGroup)
// in FromNamespace to refer to ToKind (group ToGroup) objects: the one named
// ToName, or all of them when ToName is empty.
type Grant struct {
	Namespace, Name                    string
	FromGroup, FromKind, FromNamespace string
	ToGroup, ToKind, ToName            string
}

// Generic is a DAG of abstract kinds (GEP-713's A > B > C).
type Generic struct {
	Group string
	Kinds []string // least specific first
	Nodes []GenericNode
	Edges [][2]int // indexes into Nodes, parent then child
}

// GenericNode is a node of a generic DAG.
type GenericNode struct {
	Kind, Name string
}

// Policy is a policy object.
type Policy struct {
	Group, Kind     string
	Namespace, Name string
	// Created is nil when the policy has no creationTimestamp.
	Created *time.Time
	Targets []Target
	// Selectors are label-selector targets (spec.targetSelectors of a
	// profile with TargetSelectors): every route of the kind in the
	// policy's namespace with all of MatchLabels.
	Selectors []Selector
	// Spec is the spec without targetRefs: spec proper plus any
	// defaults/overrides stanza and strategy field. It holds decoded JSON
	// values (map[string]any, []any, string, float64, bool, nil), as the
	// loader would read them, and never has a targetRefs key.
	Spec map[string]any
}

// Selector is a label-selector target of the routes of Kind.
type Selector struct {
	Kind        string
	MatchLabels map[string]string
}

// Target is a targetRef. Namespace is empty unless the targetRef sets it.
type Target struct {
	Group, Kind, Namespace, Name, Section string
}
