package topology

import (
	"maps"
	"testing"
)

// A Gateway is another controller's when its declared GatewayClass names
// another controllerName; one of an undeclared class is not.
func TestOtherGateways(t *testing.T) {
	class := func(name, ctl string) map[string]any {
		return map[string]any{"kind": "GatewayClass", "metadata": map[string]any{"name": name}, "spec": map[string]any{"controllerName": ctl}}
	}
	gateway := func(name, class string) map[string]any {
		return map[string]any{"kind": "Gateway", "metadata": map[string]any{"namespace": "ns", "name": name}, "spec": map[string]any{"gatewayClassName": class}}
	}
	objects := []map[string]any{
		class("mine", "example.com/mine"), class("theirs", "example.net/theirs"),
		gateway("a", "mine"), gateway("b", "theirs"), gateway("c", "undeclared"),
	}
	got := OtherGateways(objects, "example.com/mine")
	if want := map[string]string{"ns/b": "example.net/theirs"}; !maps.Equal(got, want) {
		t.Errorf("OtherGateways = %v, want %v", got, want)
	}
	if got := OtherGateways(objects[:1], "example.com/mine"); got != nil {
		t.Errorf("OtherGateways without another class = %v, want nil", got)
	}
}
