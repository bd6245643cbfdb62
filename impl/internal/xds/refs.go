package xds

import (
	"fmt"

	listenerv3 "github.com/envoyproxy/go-control-plane/envoy/config/listener/v3"
	routev3 "github.com/envoyproxy/go-control-plane/envoy/config/route/v3"
	hcmv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/network/http_connection_manager/v3"
	tcpproxyv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/network/tcp_proxy/v3"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/anypb"
)

// references says which further types the resources served so far name,
// the way an Envoy proxy follows them: a listener's HTTP connection
// manager names a route configuration (rds) or holds one inline; a route
// whose action is to forward (a RouteAction, not a direct response or a
// redirect) and a TCP proxy send to clusters.
type references struct {
	routes, clusters bool
}

// add reads one resource of type typ.
func (r *references) add(typ string, data []byte) error {
	switch typ {
	case listenerType:
		l := &listenerv3.Listener{}
		if err := proto.Unmarshal(data, l); err != nil {
			return fmt.Errorf("xDS listener: %w", err)
		}
		chains := l.GetFilterChains()
		if d := l.GetDefaultFilterChain(); d != nil {
			chains = append(chains[:len(chains):len(chains)], d)
		}
		for _, fc := range chains {
			for _, f := range fc.GetFilters() {
				if err := r.filter(f.GetTypedConfig()); err != nil {
					return err
				}
			}
		}
	case routeType:
		rc := &routev3.RouteConfiguration{}
		if err := proto.Unmarshal(data, rc); err != nil {
			return fmt.Errorf("xDS route configuration: %w", err)
		}
		r.routeConfig(rc)
	}
	return nil
}

// filter reads a listener's network filter.
func (r *references) filter(cfg *anypb.Any) error {
	if cfg == nil {
		return nil
	}
	switch {
	case cfg.MessageIs(&hcmv3.HttpConnectionManager{}):
		h := &hcmv3.HttpConnectionManager{}
		if err := cfg.UnmarshalTo(h); err != nil {
			return fmt.Errorf("xDS listener's HTTP connection manager: %w", err)
		}
		if h.GetRds() != nil {
			r.routes = true
		}
		r.routeConfig(h.GetRouteConfig())
	case cfg.MessageIs(&tcpproxyv3.TcpProxy{}):
		t := &tcpproxyv3.TcpProxy{}
		if err := cfg.UnmarshalTo(t); err != nil {
			return fmt.Errorf("xDS listener's TCP proxy: %w", err)
		}
		if t.GetCluster() != "" || len(t.GetWeightedClusters().GetClusters()) > 0 {
			r.clusters = true
		}
	}
	return nil
}

// routeConfig reads a route configuration (served, or inline in a
// listener; nil reads as none).
func (r *references) routeConfig(rc *routev3.RouteConfiguration) {
	for _, vh := range rc.GetVirtualHosts() {
		for _, rt := range vh.GetRoutes() {
			if rt.GetRoute() != nil {
				r.clusters = true
			}
		}
	}
}

// typeName is the resource type's message name, for errors.
func typeName(typeURL string) string {
	switch typeURL {
	case listenerType:
		return "listeners"
	case routeType:
		return "route configurations"
	case clusterType:
		return "clusters"
	case endpointType:
		return "endpoints"
	}
	return typeURL
}
