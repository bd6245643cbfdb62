package main

import (
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/gepcheck/gepcheck/internal/realtest"
	"github.com/gepcheck/gepcheck/simulator"
	"github.com/gepcheck/gepcheck/simulator/load"
	"github.com/gepcheck/gepcheck/simulator/topology"
)

// upstreamTrees are the manifests of Gateway API v1.6.3 (its examples and
// its conformance tests) and of Envoy Gateway v1.9.1 (its Kubernetes
// examples), as the Go module cache holds them: what a new user would try
// first (issue 30, Done when).
var upstreamTrees = []struct{ module, version, dir string }{
	{"sigs.k8s.io/gateway-api", "v1.6.3", "examples"},
	{"sigs.k8s.io/gateway-api/conformance", "v1.6.3", "tests"},
	{"github.com/envoyproxy/gateway", "v1.9.1", "examples/kubernetes"},
}

// modCacheDir returns the directory of a module version in the module
// cache, or "" when it is not downloaded. It downloads nothing.
func modCacheDir(t *testing.T, module, version string) string {
	t.Helper()
	out, err := exec.Command("go", "env", "GOMODCACHE").Output()
	if err != nil {
		t.Fatalf("go env GOMODCACHE: %v", err)
	}
	dir := filepath.Join(strings.TrimSpace(string(out)), filepath.FromSlash(module)+"@"+version)
	if _, err := os.Stat(dir); err != nil {
		return ""
	}
	return dir
}

// TestUpstreamManifests loads every YAML file of upstreamTrees, one file at
// a time as a user would run `gepcheck simulate FILE`: no file may be
// refused (exit 2) for an object a Gateway API v1.6.3 API server with Envoy
// Gateway v1.9.1's CRDs stores, and no kind Gateway API v1.6.3 serves may be
// ignored as "neither a Gateway API object nor a policy kind". It fails
// when it loads nothing, so that a wrong directory cannot pass.
func TestUpstreamManifests(t *testing.T) {
	var files []string
	for _, tr := range upstreamTrees {
		dir := modCacheDir(t, tr.module, tr.version)
		if dir == "" {
			realtest.Missing(t, "%s@%s is not in the module cache (go mod download %s@%s)", tr.module, tr.version, tr.module, tr.version)
			return
		}
		err := filepath.WalkDir(filepath.Join(dir, filepath.FromSlash(tr.dir)), func(p string, d fs.DirEntry, err error) error {
			if err == nil && !d.IsDir() && (strings.HasSuffix(p, ".yaml") || strings.HasSuffix(p, ".yml")) {
				files = append(files, p)
			}
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	sort.Strings(files)
	var objects, policies, warnings, ignored int
	// Objects of the levels GEP-1713 and Gateway API v1.6 added, read into
	// the hierarchy: each kind is in the upstream manifests, so none may
	// come out zero.
	levels := map[string]int{topology.KindListenerSet: 0, topology.KindGRPCRoute: 0, topology.KindTLSRoute: 0, topology.KindTCPRoute: 0, topology.KindUDPRoute: 0}
	for _, f := range files {
		docs, err := load.ReadLimited([]string{f}, nil, load.Limits{})
		if err == nil {
			objects += len(docs)
		}
		m, err := simulator.LoadFiles([]string{f}, nil, simulator.Options{})
		if err != nil {
			var errs load.Errors
			if errors.As(err, &errs) {
				for _, e := range errs {
					t.Errorf("%v", e)
				}
			} else {
				t.Errorf("%s: %v", f, err)
			}
			continue
		}
		for _, k := range m.Kinds {
			policies += len(k.Policies)
		}
		for _, n := range m.Graph.Nodes {
			if _, ok := levels[n.Ref.Kind]; ok && n.Ref.Section == "" {
				levels[n.Ref.Kind]++
			}
		}
		warnings += len(m.Warnings)
		for _, w := range m.Warnings {
			if !strings.Contains(w, " ignored: ") {
				continue
			}
			ignored++
			for _, s := range topology.ServedVersions {
				if strings.Contains(w, "kind "+s.Kind+" ignored") && (strings.Contains(w, "neither a Gateway API object") || hierarchyKind(s.Kind)) {
					t.Errorf("a kind Gateway API %s serves is ignored: %s", topology.GatewayAPIVersion, w)
				}
			}
		}
	}
	t.Logf("%d files, %d objects, %d policies, %d warnings (%d ignored kinds); in the hierarchy: %v", len(files), objects, policies, warnings, ignored, levels)
	if len(files) == 0 || objects == 0 {
		t.Fatalf("loaded %d files and %d objects: the module cache holds none of %v", len(files), objects, upstreamTrees)
	}
	for k, n := range levels {
		if n == 0 {
			t.Errorf("no %s of the upstream manifests is in the hierarchy", k)
		}
	}
}

// hierarchyKind reports whether kind is one of the hierarchy of targets
// (GEP-713, Hierarchy of target kinds; GEP-1713).
func hierarchyKind(kind string) bool {
	switch kind {
	case topology.KindGateway, topology.KindGatewayClass, topology.KindListenerSet, topology.KindHTTPRoute,
		topology.KindGRPCRoute, topology.KindTLSRoute, topology.KindTCPRoute, topology.KindUDPRoute, "ReferenceGrant":
		return true
	}
	return false
}
