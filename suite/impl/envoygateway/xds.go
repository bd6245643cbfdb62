package envoygateway

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"time"

	clusterv3 "github.com/envoyproxy/go-control-plane/envoy/config/cluster/v3"
	corev3 "github.com/envoyproxy/go-control-plane/envoy/config/core/v3"
	endpointv3 "github.com/envoyproxy/go-control-plane/envoy/config/endpoint/v3"
	listenerv3 "github.com/envoyproxy/go-control-plane/envoy/config/listener/v3"
	routev3 "github.com/envoyproxy/go-control-plane/envoy/config/route/v3"
	discoveryv3 "github.com/envoyproxy/go-control-plane/envoy/service/discovery/v3"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
)

// XDSAddress is where Envoy Gateway's xDS server listens.
const XDSAddress = "127.0.0.1:18000"

const (
	clusterType  = "type.googleapis.com/envoy.config.cluster.v3.Cluster"
	listenerType = "type.googleapis.com/envoy.config.listener.v3.Listener"
	routeType    = "type.googleapis.com/envoy.config.route.v3.RouteConfiguration"
	endpointType = "type.googleapis.com/envoy.config.endpoint.v3.ClusterLoadAssignment"
)

// XDS reads the configuration Envoy Gateway serves to the Envoy proxy of a
// Gateway, as that proxy would: an ADS stream over mTLS with the proxy's
// certificate from certgen, node cluster "namespace/gateway" (the infra IR
// key Envoy Gateway selects a snapshot by).
type XDS struct {
	Address string
	TLS     *tls.Config
}

// NewXDS reads the proxy's certificate from certgen's envoy directory.
func NewXDS(envoyCerts string) (*XDS, error) {
	cert, err := tls.LoadX509KeyPair(filepath.Join(envoyCerts, "tls.crt"), filepath.Join(envoyCerts, "tls.key"))
	if err != nil {
		return nil, err
	}
	ca, err := os.ReadFile(filepath.Join(envoyCerts, "ca.crt"))
	if err != nil {
		return nil, err
	}
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(ca)
	return &XDS{Address: XDSAddress, TLS: &tls.Config{Certificates: []tls.Certificate{cert}, RootCAs: pool, ServerName: "envoy-gateway", MinVersion: tls.VersionTLS12}}, nil
}

// Fetch returns the clusters, listeners, route configurations and the
// endpoints of EDS clusters served for the Gateway namespace/name, shaped
// as egctl's config dump (the offline driver reads both alike):
// {"configs": [{"dynamicActiveClusters": …}, {"dynamicListeners": …},
// {"dynamicRouteConfigs": …}, {"dynamicEndpointConfigs": …}]}. It fails
// when nothing is served yet.
func (x *XDS) Fetch(ctx context.Context, namespace, name string) (map[string]any, error) {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	conn, err := grpc.NewClient(x.Address, grpc.WithTransportCredentials(credentials.NewTLS(x.TLS)))
	if err != nil {
		return nil, err
	}
	defer conn.Close()
	stream, err := discoveryv3.NewAggregatedDiscoveryServiceClient(conn).StreamAggregatedResources(ctx)
	if err != nil {
		return nil, fmt.Errorf("xDS stream to %s: %w", x.Address, err)
	}
	node := &corev3.Node{Id: "gepcheck/" + namespace + "/" + name, Cluster: namespace + "/" + name}
	var clusters, listeners, routes, endpoints []any
	var eds []string // names of the EDS clusters
	for _, typ := range []string{listenerType, routeType, clusterType, endpointType} {
		// Clusters only where a route sends to one: Envoy Gateway
		// answers no CDS request for a Gateway without routes; endpoints
		// only of EDS clusters, by name.
		if typ == clusterType && !hasRoutes(routes) || typ == endpointType && len(eds) == 0 {
			break
		}
		req := &discoveryv3.DiscoveryRequest{Node: node, TypeUrl: typ}
		if typ == endpointType {
			req.ResourceNames = eds
		}
		if err := stream.Send(req); err != nil {
			return nil, err
		}
		resp, err := stream.Recv()
		if err != nil {
			return nil, fmt.Errorf("xDS for Gateway %s/%s: %w", namespace, name, err)
		}
		for _, r := range resp.GetResources() {
			switch typ {
			case clusterType:
				m, err := toMap(r.GetValue(), &clusterv3.Cluster{})
				if err != nil {
					return nil, err
				}
				clusters = append(clusters, map[string]any{"cluster": m})
				if m["type"] == "EDS" {
					name, _ := m["name"].(string)
					eds = append(eds, name)
				}
			case endpointType:
				m, err := toMap(r.GetValue(), &endpointv3.ClusterLoadAssignment{})
				if err != nil {
					return nil, err
				}
				endpoints = append(endpoints, map[string]any{"endpointConfig": m})
			case listenerType:
				m, err := toMap(r.GetValue(), &listenerv3.Listener{})
				if err != nil {
					return nil, err
				}
				listeners = append(listeners, map[string]any{"activeState": map[string]any{"listener": m}})
			case routeType:
				m, err := toMap(r.GetValue(), &routev3.RouteConfiguration{})
				if err != nil {
					return nil, err
				}
				routes = append(routes, map[string]any{"routeConfig": m})
			}
		}
	}
	_ = stream.CloseSend()
	return map[string]any{"configs": []any{
		map[string]any{"dynamicActiveClusters": clusters},
		map[string]any{"dynamicListeners": listeners},
		map[string]any{"dynamicRouteConfigs": routes},
		map[string]any{"dynamicEndpointConfigs": endpoints},
	}}, nil
}

// hasRoutes says whether any route configuration has a route.
func hasRoutes(routes []any) bool {
	for _, rc := range routes {
		cfg, _ := rc.(map[string]any)["routeConfig"].(map[string]any)
		vhs, _ := cfg["virtualHosts"].([]any)
		for _, vh := range vhs {
			if rs, _ := vh.(map[string]any)["routes"].([]any); len(rs) > 0 {
				return true
			}
		}
	}
	return false
}

func toMap(data []byte, m proto.Message) (map[string]any, error) {
	if err := proto.Unmarshal(data, m); err != nil {
		return nil, err
	}
	opaque(m.ProtoReflect())
	js, err := protojson.Marshal(m)
	if err != nil {
		return nil, fmt.Errorf("xDS resource %T: %w", m, err)
	}
	var out map[string]any
	err = json.Unmarshal(js, &out)
	return out, err
}
