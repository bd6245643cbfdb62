package topology

import (
	"slices"
	"strings"
)

// GatewayAPIVersion is the Gateway API release whose CRDs ServedVersions
// describes.
const GatewayAPIVersion = "v1.6.3"

// ExperimentalGroup is the group of Gateway API's experimental kinds
// (apisx/).
const ExperimentalGroup = "gateway.networking.x-k8s.io"

// Served is what Gateway API's CRDs of one kind serve: the versions of its
// standard channel, and those its experimental channel serves on top.
type Served struct {
	Group, Kind  string
	Standard     []string
	Experimental []string // served by the experimental channel only
}

// Versions are every served version, standard first.
func (s Served) Versions() []string {
	return append(slices.Clone(s.Standard), s.Experimental...)
}

// Serves reports whether either channel serves version.
func (s Served) Serves(version string) bool {
	return slices.Contains(s.Standard, version) || slices.Contains(s.Experimental, version)
}

// Describe names the served versions by channel, e.g. "v1 (standard),
// v1alpha2 (experimental)".
func (s Served) Describe() string {
	var parts []string
	for _, v := range s.Standard {
		parts = append(parts, v+" (standard)")
	}
	for _, v := range s.Experimental {
		parts = append(parts, v+" (experimental)")
	}
	return strings.Join(parts, ", ")
}

// ServedVersions are the versions Gateway API v1.6.3's CRDs serve
// (config/crd/standard and config/crd/experimental, the versions with
// served: true), by kind; TestServedVersions reads them from the CRDs in
// the module cache. A version both channels leave unserved is refused: an
// API server with v1.6.3's CRDs would not store the object.
var ServedVersions = []Served{
	{GatewayAPIGroup, "BackendTLSPolicy", []string{"v1"}, []string{"v1alpha3"}},
	{GatewayAPIGroup, KindGRPCRoute, []string{"v1"}, nil},
	{GatewayAPIGroup, KindGateway, []string{"v1", "v1beta1"}, nil},
	{GatewayAPIGroup, KindGatewayClass, []string{"v1", "v1beta1"}, nil},
	{GatewayAPIGroup, KindHTTPRoute, []string{"v1", "v1beta1"}, nil},
	{GatewayAPIGroup, KindListenerSet, []string{"v1"}, nil},
	{GatewayAPIGroup, "ReferenceGrant", []string{"v1", "v1beta1"}, nil},
	{GatewayAPIGroup, KindTCPRoute, []string{"v1"}, []string{"v1alpha2"}},
	{GatewayAPIGroup, KindTLSRoute, []string{"v1"}, []string{"v1alpha2", "v1alpha3"}},
	{GatewayAPIGroup, KindUDPRoute, []string{"v1"}, []string{"v1alpha2"}},
	{ExperimentalGroup, "XBackend", nil, []string{"v1alpha1"}},
	{ExperimentalGroup, "XBackendTrafficPolicy", nil, []string{"v1alpha1"}},
	{ExperimentalGroup, "XMesh", nil, []string{"v1alpha1"}},
}

// LookupServed returns what Gateway API serves of a kind of its groups.
func LookupServed(group, kind string) (Served, bool) {
	for _, s := range ServedVersions {
		if s.Group == group && s.Kind == kind {
			return s, true
		}
	}
	return Served{}, false
}
