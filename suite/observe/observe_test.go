package observe

import (
	"os"
	"testing"

	"github.com/gepcheck/gepcheck/suite/features"
)

// A case is skipped for an implementation that does not declare a
// feature it needs, and run otherwise: the policy kind, and the system CAs
// of a BackendTLSPolicy (Implementation-specific support, Gateway API v1
// BackendTLSPolicyValidation.WellKnownCACertificates).
func TestUnsupported(t *testing.T) {
	read := func(file string) Case {
		data, err := os.ReadFile("../../scenarios/gateway-api/" + file)
		if err != nil {
			t.Fatal(err)
		}
		return Case{Name: file, YAML: string(data)}
	}
	wellKnown, configMap := read("backendtlspolicy-well-known-cas.yaml"), read("backendtlspolicy-missing-ca.yaml")
	for _, tc := range []struct {
		fs   features.Set
		c    Case
		want string
	}{
		{features.Set{"BackendTLSPolicy"}, wellKnown, string(features.WellKnownCACertificates)},
		{features.Set{"BackendTLSPolicy", features.WellKnownCACertificates}, wellKnown, ""},
		{features.Set{"BackendTLSPolicy"}, configMap, ""},
		{features.Set{"SecurityPolicy"}, configMap, "BackendTLSPolicy"},
		{features.All, wellKnown, ""},
	} {
		if got := (Capabilities{Features: tc.fs}).Unsupported(tc.c); got != tc.want {
			t.Errorf("features %s, %s: Unsupported = %q, want %q", tc.fs, tc.c.Name, got, tc.want)
		}
	}
}
