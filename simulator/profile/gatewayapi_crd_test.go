package profile

import "testing"

// TestGatewayAPIProfilesStoredByCRD: every built-in profile of Gateway
// API's own policy kinds gets the kind's built-in CRD (simulator/crd,
// Gateway API v1.6.3: BackendTLSPolicy standard channel,
// XBackendTrafficPolicy experimental channel) and no longer describes what
// the CRD says (no spec.stored; docs/profiles.md, What is stored).
func TestGatewayAPIProfilesStoredByCRD(t *testing.T) {
	builtins, err := Builtins()
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ name, channel string }{
		{"backendtlspolicy", "standard"},
		{"backendtlspolicy-gateway-api", "standard"},
		{"xbackendtrafficpolicy", "experimental"},
	} {
		p := builtins[c.name]
		if p == nil {
			t.Fatalf("no built-in profile %s", c.name)
		}
		if p.CRD == nil {
			t.Errorf("%s: no built-in CRD of %s", c.name, p.Spec.Policy.Kind)
			continue
		}
		s := p.CRD.Preferred()
		if s.Kind != p.Spec.Policy.Kind || s.Group != p.Spec.Policy.Group {
			t.Errorf("%s: CRD of %s %s", c.name, s.Group, s.Kind)
		}
		if want := "built in: Gateway API v1.6.3 (" + c.channel + " channel)"; s.Source != want {
			t.Errorf("%s: CRD from %q, want %q", c.name, s.Source, want)
		}
		if p.Spec.Stored != nil {
			t.Errorf("%s describes what its CRD stores (spec.stored)", c.name)
		}
	}
	// The CRD's defaults, as the profile's stored block described them
	// before (Gateway API v1.6.3, RetryConstraint.Budget and .MinRetryRate).
	in := builtins["xbackendtrafficpolicy"].Interpret(map[string]any{"retryConstraint": map[string]any{}})
	rc, _ := in.SpecProper["retryConstraint"].(map[string]any)
	budget, _ := rc["budget"].(map[string]any)
	if budget["percent"] != float64(20) || budget["interval"] != "10s" || rc["minRetryRate"] == nil {
		t.Errorf("retryConstraint stored as %v, want the CRD's defaults", rc)
	}
}
