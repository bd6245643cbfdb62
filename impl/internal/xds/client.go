package xds

import (
	"context"
	"crypto/tls"
	"encoding/json"
	"fmt"
	"time"

	clusterv3 "github.com/envoyproxy/go-control-plane/envoy/config/cluster/v3"
	corev3 "github.com/envoyproxy/go-control-plane/envoy/config/core/v3"
	endpointv3 "github.com/envoyproxy/go-control-plane/envoy/config/endpoint/v3"
	listenerv3 "github.com/envoyproxy/go-control-plane/envoy/config/listener/v3"
	routev3 "github.com/envoyproxy/go-control-plane/envoy/config/route/v3"
	discoveryv3 "github.com/envoyproxy/go-control-plane/envoy/service/discovery/v3"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
)

const (
	clusterType  = "type.googleapis.com/envoy.config.cluster.v3.Cluster"
	listenerType = "type.googleapis.com/envoy.config.listener.v3.Listener"
	routeType    = "type.googleapis.com/envoy.config.route.v3.RouteConfiguration"
	endpointType = "type.googleapis.com/envoy.config.endpoint.v3.ClusterLoadAssignment"
)

// Timeout bounds one Fetch.
const Timeout = 5 * time.Second

// Client is an Envoy proxy's ADS stream to a control plane.
type Client struct {
	// Address of the xDS server, host:port.
	Address string
	// TLS is the proxy's client configuration; nil speaks plain text.
	TLS *tls.Config
	// Node is what the proxy says it is; control planes pick the
	// snapshot by it.
	Node *corev3.Node
}

// Fetch returns the listeners, route configurations, clusters and the
// endpoints of EDS clusters served to the node, shaped as Envoy's config
// dump (and egctl's): {"configs": [{"dynamicActiveClusters": …},
// {"dynamicListeners": …}, {"dynamicRouteConfigs": …},
// {"dynamicEndpointConfigs": …}]}.
//
// A type is asked for only when what was served before names resources of
// it, as an Envoy proxy needs them: route configurations when a listener's
// HTTP connection manager names one (rds), clusters when a route or a
// listener's TCP proxy sends to one, endpoints of EDS clusters by name.
// A control plane serving from go-control-plane's snapshot cache (Envoy
// Gateway) answers no request for a type its snapshot has no resource of:
// a Gateway whose only listener proxies TCP has no route configuration,
// one whose routes all answer directly (a 500 for an invalid
// BackendTLSPolicy) has no cluster, and asking for them would wait for
// ever.
func (c *Client) Fetch(ctx context.Context) (map[string]any, error) {
	ctx, cancel := context.WithTimeout(ctx, Timeout)
	defer cancel()
	creds := insecure.NewCredentials()
	if c.TLS != nil {
		creds = credentials.NewTLS(c.TLS)
	}
	conn, err := grpc.NewClient(c.Address, grpc.WithTransportCredentials(creds))
	if err != nil {
		return nil, err
	}
	defer conn.Close()
	stream, err := discoveryv3.NewAggregatedDiscoveryServiceClient(conn).StreamAggregatedResources(ctx)
	if err != nil {
		return nil, fmt.Errorf("xDS stream to %s: %w", c.Address, err)
	}
	var clusters, listeners, routes, endpoints []any
	var eds []string // service names of the EDS clusters
	var refs references
	for _, typ := range []string{listenerType, routeType, clusterType, endpointType} {
		if typ == routeType && !refs.routes || typ == clusterType && !refs.clusters || typ == endpointType && len(eds) == 0 {
			continue
		}
		req := &discoveryv3.DiscoveryRequest{Node: c.Node, TypeUrl: typ}
		if typ == endpointType {
			req.ResourceNames = eds
		}
		if err := stream.Send(req); err != nil {
			return nil, err
		}
		resp, err := stream.Recv()
		if err != nil {
			return nil, fmt.Errorf("xDS from %s, no answer to the request for %s: %w", c.Address, typeName(typ), err)
		}
		for _, r := range resp.GetResources() {
			if err := refs.add(typ, r.GetValue()); err != nil {
				return nil, err
			}
			switch typ {
			case clusterType:
				m, err := toMap(r.GetValue(), &clusterv3.Cluster{})
				if err != nil {
					return nil, err
				}
				clusters = append(clusters, map[string]any{"cluster": m})
				if m["type"] == "EDS" {
					eds = append(eds, edsName(m))
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

// edsName is the name an EDS cluster's endpoints are asked for by: its
// edsClusterConfig.serviceName, else its own name (Envoy's rule).
func edsName(cluster map[string]any) string {
	cfg, _ := cluster["edsClusterConfig"].(map[string]any)
	if s, _ := cfg["serviceName"].(string); s != "" {
		return s
	}
	name, _ := cluster["name"].(string)
	return name
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
