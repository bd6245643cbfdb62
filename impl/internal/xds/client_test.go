package xds

import (
	"context"
	"net"
	"strings"
	"testing"
	"time"

	clusterv3 "github.com/envoyproxy/go-control-plane/envoy/config/cluster/v3"
	corev3 "github.com/envoyproxy/go-control-plane/envoy/config/core/v3"
	endpointv3 "github.com/envoyproxy/go-control-plane/envoy/config/endpoint/v3"
	listenerv3 "github.com/envoyproxy/go-control-plane/envoy/config/listener/v3"
	routev3 "github.com/envoyproxy/go-control-plane/envoy/config/route/v3"
	hcmv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/network/http_connection_manager/v3"
	tcpproxyv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/network/tcp_proxy/v3"
	discoveryv3 "github.com/envoyproxy/go-control-plane/envoy/service/discovery/v3"
	"google.golang.org/grpc"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/anypb"
)

// snapshotServer answers an ADS request with the resources it holds of the
// type asked for, and, like go-control-plane's snapshot cache that Envoy
// Gateway serves from, does not answer at all for a type it holds none of.
type snapshotServer struct {
	discoveryv3.UnimplementedAggregatedDiscoveryServiceServer
	resources map[string][]proto.Message
}

func (s *snapshotServer) StreamAggregatedResources(stream discoveryv3.AggregatedDiscoveryService_StreamAggregatedResourcesServer) error {
	for {
		req, err := stream.Recv()
		if err != nil {
			return nil
		}
		held := s.resources[req.GetTypeUrl()]
		if len(held) == 0 {
			continue // no answer, as the snapshot cache gives none
		}
		resp := &discoveryv3.DiscoveryResponse{TypeUrl: req.GetTypeUrl(), VersionInfo: "1"}
		for _, m := range held {
			a, err := anypb.New(m)
			if err != nil {
				return err
			}
			resp.Resources = append(resp.Resources, a)
		}
		if err := stream.Send(resp); err != nil {
			return err
		}
	}
}

func serve(t *testing.T, resources map[string][]proto.Message) string {
	t.Helper()
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := grpc.NewServer()
	discoveryv3.RegisterAggregatedDiscoveryServiceServer(srv, &snapshotServer{resources: resources})
	go func() { _ = srv.Serve(lis) }()
	t.Cleanup(srv.Stop)
	return lis.Addr().String()
}

func listenerWith(t *testing.T, name string, filter proto.Message) *listenerv3.Listener {
	t.Helper()
	a, err := anypb.New(filter)
	if err != nil {
		t.Fatal(err)
	}
	return &listenerv3.Listener{Name: name, FilterChains: []*listenerv3.FilterChain{{
		Filters: []*listenerv3.Filter{{Name: "f", ConfigType: &listenerv3.Filter_TypedConfig{TypedConfig: a}}}}}}
}

func routeConfig(name string, action *routev3.Route) *routev3.RouteConfiguration {
	return &routev3.RouteConfiguration{Name: name, VirtualHosts: []*routev3.VirtualHost{{Name: "vh", Domains: []string{"*"}, Routes: []*routev3.Route{action}}}}
}

func counts(cfg map[string]any) map[string]int {
	out := map[string]int{}
	for _, c := range cfg["configs"].([]any) {
		for k, v := range c.(map[string]any) {
			out[k] = len(v.([]any))
		}
	}
	return out
}

// Fetch asks for a type only when what was served names resources of it,
// as an Envoy proxy does: against a server that answers no request for a
// type it holds nothing of (Envoy Gateway's snapshot cache), a Gateway
// whose listener only proxies TCP (a TCPRoute or TLSRoute behind a
// terminating listener) or whose routes all answer directly (Envoy
// Gateway's 500 for a route whose BackendTLSPolicy is invalid) is read
// within the time, not waited on until it runs out.
func TestFetchAsksOnlyForWhatIsNamed(t *testing.T) {
	eds := &clusterv3.Cluster{Name: "c", ClusterDiscoveryType: &clusterv3.Cluster_Type{Type: clusterv3.Cluster_EDS},
		EdsClusterConfig: &clusterv3.Cluster_EdsClusterConfig{ServiceName: "c"}}
	cla := &endpointv3.ClusterLoadAssignment{ClusterName: "c"}
	hcm := &hcmv3.HttpConnectionManager{StatPrefix: "http", RouteSpecifier: &hcmv3.HttpConnectionManager_Rds{
		Rds: &hcmv3.Rds{RouteConfigName: "r"}}}
	forward := &routev3.Route{Match: &routev3.RouteMatch{PathSpecifier: &routev3.RouteMatch_Prefix{Prefix: "/"}},
		Action: &routev3.Route_Route{Route: &routev3.RouteAction{ClusterSpecifier: &routev3.RouteAction_Cluster{Cluster: "c"}}}}
	direct := &routev3.Route{Match: &routev3.RouteMatch{PathSpecifier: &routev3.RouteMatch_Prefix{Prefix: "/"}},
		Action: &routev3.Route_DirectResponse{DirectResponse: &routev3.DirectResponseAction{Status: 500}}}
	for _, tc := range []struct {
		name      string
		resources map[string][]proto.Message
		want      map[string]int
	}{
		{"tcp-proxy, no route configurations", map[string][]proto.Message{
			listenerType: {listenerWith(t, "tls", &tcpproxyv3.TcpProxy{StatPrefix: "tcp", ClusterSpecifier: &tcpproxyv3.TcpProxy_Cluster{Cluster: "c"}})},
			clusterType:  {eds},
			endpointType: {cla},
		}, map[string]int{"dynamicListeners": 1, "dynamicRouteConfigs": 0, "dynamicActiveClusters": 1, "dynamicEndpointConfigs": 1}},
		{"direct responses only, no clusters", map[string][]proto.Message{
			listenerType: {listenerWith(t, "http", hcm)},
			routeType:    {routeConfig("r", direct)},
		}, map[string]int{"dynamicListeners": 1, "dynamicRouteConfigs": 1, "dynamicActiveClusters": 0, "dynamicEndpointConfigs": 0}},
		{"a route forwarding", map[string][]proto.Message{
			listenerType: {listenerWith(t, "http", hcm)},
			routeType:    {routeConfig("r", forward)},
			clusterType:  {eds},
			endpointType: {cla},
		}, map[string]int{"dynamicListeners": 1, "dynamicRouteConfigs": 1, "dynamicActiveClusters": 1, "dynamicEndpointConfigs": 1}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := &Client{Address: serve(t, tc.resources), Node: &corev3.Node{Id: "test", Cluster: "ns/gw"}}
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
			defer cancel()
			cfg, err := c.Fetch(ctx)
			if err != nil {
				t.Fatalf("Fetch: %v", err)
			}
			got := counts(cfg)
			for k, n := range tc.want {
				if got[k] != n {
					t.Errorf("%s: %d, want %d (all: %v)", k, got[k], n, got)
				}
			}
		})
	}
}

// A server that serves nothing for the node is an error naming the
// request that got no answer.
func TestFetchNamesTheUnansweredRequest(t *testing.T) {
	c := &Client{Address: serve(t, nil), Node: &corev3.Node{Id: "test", Cluster: "ns/gw"}}
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	_, err := c.Fetch(ctx)
	if err == nil || !strings.Contains(err.Error(), "no answer to the request for listeners") {
		t.Fatalf("Fetch: %v, want no answer to the request for listeners", err)
	}
}
