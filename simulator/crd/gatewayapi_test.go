package crd

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
)

// TestGatewayAPICRDs: the built-in Gateway API CRDs are the module's files
// byte for byte, from the channel their folder names
// (gatewayapi/README.md), and each compiles as the kind the README says.
func TestGatewayAPICRDs(t *testing.T) {
	want := map[string][2]string{
		"standard/gateway.networking.k8s.io_backendtlspolicies.yaml.gz":            {"gateway.networking.k8s.io", "BackendTLSPolicy"},
		"experimental/gateway.networking.x-k8s.io_xbackendtrafficpolicies.yaml.gz": {"gateway.networking.x-k8s.io", "XBackendTrafficPolicy"},
	}
	files := GatewayAPIFiles()
	if len(files) != len(want) {
		t.Fatalf("built-in Gateway API CRDs %v, want %d files", files, len(want))
	}
	for _, name := range files {
		gk, ok := want[name]
		if !ok {
			t.Errorf("unexpected built-in CRD %s", name)
			continue
		}
		h, err := Builtin(gk[0], gk[1])
		if err != nil || h == nil {
			t.Fatalf("%s: no built-in CRD of %s %s: %v", name, gk[0], gk[1], err)
		}
		set, err := h.Set()
		if err != nil {
			t.Fatal(err)
		}
		s := set.Preferred(gk[0], gk[1])
		channel, _, _ := strings.Cut(name, "/")
		if s == nil || !s.Storage || !strings.Contains(s.Source, "Gateway API "+GatewayAPIVersion+" ("+channel+" channel)") {
			t.Errorf("%s: preferred schema %+v", name, s)
		}
	}
	dir, err := gotool.ModuleDir(context.Background(), "sigs.k8s.io/gateway-api", GatewayAPIVersion)
	if err != nil {
		realtest.Missing(t, "Gateway API's module: %v", err)
		return
	}
	for _, name := range files {
		gz, err := GatewayAPIFile(name)
		if err != nil {
			t.Fatal(err)
		}
		zr, err := gzip.NewReader(bytes.NewReader(gz))
		if err != nil {
			t.Fatal(err)
		}
		got, err := io.ReadAll(zr)
		if err != nil {
			t.Fatal(err)
		}
		mod, err := os.ReadFile(filepath.Join(dir, "config", "crd", strings.TrimSuffix(name, ".gz")))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, mod) {
			t.Errorf("%s differs from the module's config/crd/%s", name, strings.TrimSuffix(name, ".gz"))
		}
	}
}

// TestKnows: the fields of BackendTLSPolicy's built-in CRD, as its
// Go types declare them (Gateway API v1, LocalPolicyTargetReferenceWithSectionName
// has no namespace: a target is in the policy's namespace).
func TestKnows(t *testing.T) {
	h, err := Builtin("gateway.networking.k8s.io", "BackendTLSPolicy")
	if err != nil || h == nil {
		t.Fatal(h, err)
	}
	s := h.Preferred()
	for _, c := range []struct {
		path []string
		want bool
	}{
		{[]string{"spec", "targetRefs", "name"}, true},
		{[]string{"spec", "targetRefs", "sectionName"}, true},
		{[]string{"spec", "targetRefs", "namespace"}, false},
		{[]string{"spec", "validation", "hostname"}, true},
		{[]string{"spec", "a"}, false},
	} {
		if got := s.Knows(c.path...); got != c.want {
			t.Errorf("Knows(%v) = %v, want %v", c.path, got, c.want)
		}
	}
}
