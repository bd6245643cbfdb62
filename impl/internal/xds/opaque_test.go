package xds

import (
	"strings"
	"testing"

	routev3 "github.com/envoyproxy/go-control-plane/envoy/config/route/v3"
	corsv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/http/cors/v3"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/types/known/anypb"
	"google.golang.org/protobuf/types/known/durationpb"
)

// Envoy Gateway's xDS carries extension types gepcheck does not link in;
// they become Empty, and what gepcheck reads (here a route's CORS policy
// and timeout) survives, also inside nested messages.
func TestOpaque(t *testing.T) {
	cors, _ := anypb.New(&corsv3.CorsPolicy{AllowOriginStringMatch: nil, AllowCredentials: nil})
	unknown := &anypb.Any{TypeUrl: "type.googleapis.com/envoy.extensions.filters.http.made_up.v3.Config", Value: []byte{0x0a, 0x01, 0x78}}
	rc := &routev3.RouteConfiguration{
		Name: "ns/gw/http",
		VirtualHosts: []*routev3.VirtualHost{{
			Name: "vh",
			Routes: []*routev3.Route{{
				Name:                 "r",
				Action:               &routev3.Route_Route{Route: &routev3.RouteAction{Timeout: durationpb.New(10e9)}},
				TypedPerFilterConfig: map[string]*anypb.Any{"envoy.filters.http.cors": cors, "made_up": unknown},
			}},
		}},
	}
	if _, err := protojson.Marshal(rc); err == nil {
		t.Fatal("protojson rendered an unknown Any: the test does not test anything")
	}
	opaque(rc.ProtoReflect())
	js, err := protojson.Marshal(rc)
	if err != nil {
		t.Fatal(err)
	}
	s := string(js)
	for _, want := range []string{`"timeout":"10s"`, `"envoy.filters.http.cors":{"@type":"type.googleapis.com/envoy.extensions.filters.http.cors.v3.CorsPolicy"`, `"made_up":{"@type":"type.googleapis.com/google.protobuf.Empty"`} {
		if !strings.Contains(strings.ReplaceAll(s, " ", ""), want) {
			t.Errorf("%s lacks %s", s, want)
		}
	}
}
