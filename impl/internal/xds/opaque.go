// Package xds reads an Envoy control plane's configuration as an Envoy
// proxy would (an ADS stream), for the implementations whose data plane is
// Envoy (Envoy Gateway, Contour).
package xds

import (
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"
	"google.golang.org/protobuf/types/known/anypb"
	"google.golang.org/protobuf/types/known/emptypb"

	// The extension types gepcheck reads (docs/envoy-gateway.md,
	// docs/contour-and-traefik.md): the CORS policy of a route, the
	// connection limit of a listener, the upstream TLS context of a
	// cluster (BackendTLSPolicy).
	_ "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/http/cors/v3"
	_ "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/network/connection_limit/v3"
	_ "github.com/envoyproxy/go-control-plane/envoy/extensions/transport_sockets/tls/v3"
)

// emptyAny stands in for an embedded message of a type gepcheck does not
// link in; protojson cannot render those, and gepcheck does not read them.
var emptyAny, _ = anypb.New(&emptypb.Empty{})

// opaque replaces, in m and every message it embeds, each Any of a type
// not linked in by an Any of google.protobuf.Empty, so that protojson
// can render the rest. Any of a known type is unpacked, treated alike
// and packed again.
func opaque(m protoreflect.Message) {
	m.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
		switch {
		case fd.IsList() && fd.Message() != nil:
			l := v.List()
			for i := 0; i < l.Len(); i++ {
				if nv, ok := visit(l.Get(i).Message()); ok {
					l.Set(i, nv)
				}
			}
		case fd.IsMap() && fd.MapValue().Message() != nil:
			mp := v.Map()
			mp.Range(func(k protoreflect.MapKey, mv protoreflect.Value) bool {
				if nv, ok := visit(mv.Message()); ok {
					mp.Set(k, nv)
				}
				return true
			})
		case fd.Message() != nil && !fd.IsList() && !fd.IsMap():
			if nv, ok := visit(v.Message()); ok {
				m.Set(fd, nv)
			}
		}
		return true
	})
}

// visit treats one embedded message; ok says it must be replaced by nv.
func visit(m protoreflect.Message) (nv protoreflect.Value, ok bool) {
	a, isAny := m.Interface().(*anypb.Any)
	if !isAny {
		opaque(m)
		return protoreflect.Value{}, false
	}
	inner, err := a.UnmarshalNew()
	if err != nil {
		if _, notLinked := protoregistry.GlobalTypes.FindMessageByURL(a.GetTypeUrl()); notLinked != nil {
			return protoreflect.ValueOfMessage(proto.Clone(emptyAny).ProtoReflect()), true
		}
		return protoreflect.Value{}, false
	}
	opaque(inner.ProtoReflect())
	packed, err := anypb.New(inner)
	if err != nil {
		return protoreflect.Value{}, false
	}
	return protoreflect.ValueOfMessage(packed.ProtoReflect()), true
}
