package envoygateway

import (
	"bytes"
	"compress/gzip"
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gepcheck/gepcheck/internal/gotool"
	"github.com/gepcheck/gepcheck/internal/realtest"
	"github.com/gepcheck/gepcheck/simulator/profile"
)

// TestEmbeddedCRDs: the built-in CRDs are Envoy Gateway v1.9.1's files
// byte for byte (crds/README.md), and every Envoy Gateway profile's kind
// has one (Profile.CRD), so that no profile describes what its CRD says.
func TestEmbeddedCRDs(t *testing.T) {
	dir, err := gotool.ModuleDir(context.Background(), Module, Version)
	if err != nil {
		realtest.Missing(t, "Envoy Gateway's module: %v", err)
		return
	}
	files, err := crds.ReadDir("crds")
	if err != nil || len(files) == 0 {
		t.Fatalf("no embedded CRDs: %v", err)
	}
	for _, f := range files {
		gz, _ := crds.ReadFile("crds/" + f.Name())
		zr, err := gzip.NewReader(bytes.NewReader(gz))
		if err != nil {
			t.Fatal(err)
		}
		got, err := io.ReadAll(zr)
		if err != nil {
			t.Fatal(err)
		}
		want, err := os.ReadFile(filepath.Join(dir, "charts", "gateway-helm", "charts", "crds", "crds", "generated", strings.TrimSuffix(f.Name(), ".gz")))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s differs from the module's file", f.Name())
		}
	}
	builtins, err := profile.Builtins()
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range []string{"envoy-gateway-backendtrafficpolicy", "envoy-gateway-clienttrafficpolicy", "envoy-gateway-securitypolicy"} {
		p := builtins[n]
		if p.CRD == nil || p.CRD.Preferred().Kind != p.Spec.Policy.Kind {
			t.Errorf("%s: no built-in CRD of its kind", n)
		}
		if p.Spec.Stored != nil {
			t.Errorf("%s describes what its CRD stores (spec.stored)", n)
		}
	}
}

// TestSecurityPolicyMergeType: SecurityPolicy's mergeType is a merge
// option (the CRD: "When set, this configuration will be merged into the
// closest parent SecurityPolicy"), never a field of the spec proper.
func TestSecurityPolicyMergeType(t *testing.T) {
	builtins, err := profile.Builtins()
	if err != nil {
		t.Fatal(err)
	}
	p := builtins["envoy-gateway-securitypolicy"]
	in := p.Interpret(map[string]any{"mergeType": "JSONMerge", "cors": map[string]any{"allowOrigins": []any{"https://a.example"}}})
	if _, ok := in.SpecProper["mergeType"]; ok {
		t.Errorf("mergeType is in the spec proper: %v", in.SpecProper)
	}
	if in.Strategy != profile.PatchDefaults {
		t.Errorf("strategy %v, want PatchDefaults", in.Strategy)
	}
}
