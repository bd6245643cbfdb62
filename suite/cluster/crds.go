package cluster

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"sigs.k8s.io/yaml"

	"github.com/gepcheck/gepcheck/simulator/profile"
)

// Module versions whose CRDs gepcheck installs.
const (
	GatewayAPIModule   = "sigs.k8s.io/gateway-api"
	GatewayAPIVersion  = "v1.6.3"
	EnvoyGatewayModule = "github.com/envoyproxy/gateway"
)

var crdGVR = schema.GroupVersionResource{Group: "apiextensions.k8s.io", Version: "v1", Resource: "customresourcedefinitions"}

// ModuleDir returns the directory of a module version in the Go module
// cache, downloading it through the module proxy the first time.
func ModuleDir(ctx context.Context, module, version string) (string, error) {
	cmd := exec.CommandContext(ctx, "go", "mod", "download", "-json", module+"@"+version)
	cmd.Dir = os.TempDir()
	cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod", "GOWORK=off")
	out, err := cmd.Output()
	var info struct{ Dir, Error string }
	_ = json.Unmarshal(out, &info)
	if err != nil || info.Dir == "" {
		return "", fmt.Errorf("go mod download %s@%s: %v %s", module, version, err, info.Error)
	}
	return info.Dir, nil
}

// GatewayAPICRDs returns the experimental-channel CRDs of the Gateway API
// release gepcheck is built with (config/crd/experimental of the module).
func GatewayAPICRDs(ctx context.Context) ([]*unstructured.Unstructured, error) {
	dir, err := ModuleDir(ctx, GatewayAPIModule, GatewayAPIVersion)
	if err != nil {
		return nil, err
	}
	return ReadCRDs(filepath.Join(dir, "config", "crd", "experimental"))
}

// EnvoyGatewayCRDs returns Envoy Gateway's own CRDs at version
// (charts/gateway-helm/charts/crds/crds/generated of its module).
func EnvoyGatewayCRDs(ctx context.Context, version string) ([]*unstructured.Unstructured, error) {
	dir, err := ModuleDir(ctx, EnvoyGatewayModule, version)
	if err != nil {
		return nil, err
	}
	return ReadCRDs(filepath.Join(dir, "charts", "gateway-helm", "charts", "crds", "crds", "generated"))
}

// ReadCRDs reads the CustomResourceDefinitions of the YAML files in dir.
func ReadCRDs(dir string) ([]*unstructured.Unstructured, error) {
	files, err := filepath.Glob(filepath.Join(dir, "*.yaml"))
	if err != nil {
		return nil, err
	}
	sort.Strings(files)
	var out []*unstructured.Unstructured
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			return nil, err
		}
		for i, doc := range bytes.Split(data, []byte("\n---")) {
			var m map[string]any
			if err := yaml.Unmarshal(doc, &m); err != nil {
				return nil, fmt.Errorf("%s: document %d: %v", f, i+1, err)
			}
			if m["kind"] != "CustomResourceDefinition" {
				continue
			}
			out = append(out, &unstructured.Unstructured{Object: m})
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no CustomResourceDefinition in %s", dir)
	}
	return out, nil
}

// ReferenceCRDs are the CRDs gepcheck-reference serves: one for each
// built-in profile's policy kind that neither Gateway API nor Envoy
// Gateway defines (ColorPolicy, the GEP-2649 example kinds, Kuadrant's
// kinds), a namespaced kind whose spec and status hold anything; and
// gepcheck's own kinds, EffectivePolicy (the controller's read-only view
// of effective policies, one per affected object) and ObjectFields (the
// values objects hold themselves in fields that GEP-2649 policies default
// or override).
func ReferenceCRDs() ([]*unstructured.Unstructured, error) {
	bs, err := profile.Builtins()
	if err != nil {
		return nil, err
	}
	seen := map[string]bool{}
	var out []*unstructured.Unstructured
	for _, n := range profile.BuiltinNames() {
		g, k := bs[n].Spec.Policy.Group, bs[n].Spec.Policy.Kind
		if g == "gateway.networking.k8s.io" || g == "gateway.envoyproxy.io" || seen[g+"/"+k] {
			continue
		}
		seen[g+"/"+k] = true
		out = append(out, openCRD(g, k, "Namespaced", "v1"))
	}
	return append(out,
		openCRD("gepcheck.dev", "EffectivePolicy", "Namespaced", "v1alpha1"),
		openCRD("gepcheck.dev", "ObjectFields", "Cluster", "v1alpha1"),
	), nil
}

// Plural is the resource name gepcheck gives a kind it defines.
func Plural(kind string) string {
	k := strings.ToLower(kind)
	switch {
	case strings.HasSuffix(k, "y"):
		return k[:len(k)-1] + "ies"
	case strings.HasSuffix(k, "s"):
		return k
	}
	return k + "s"
}

func openCRD(group, kind, scope, version string) *unstructured.Unstructured {
	plural := Plural(kind)
	open := map[string]any{"type": "object", "x-kubernetes-preserve-unknown-fields": true}
	// Every version a scenario may write is served; objects are stored
	// as the first (no conversion: the schema is open).
	var versions []any
	for i, v := range []string{version, "v1", "v1beta1", "v1alpha2", "v1alpha1"} {
		if i > 0 && v == version {
			continue
		}
		versions = append(versions, map[string]any{
			"name": v, "served": true, "storage": i == 0,
			"subresources": map[string]any{"status": map[string]any{}},
			"schema": map[string]any{"openAPIV3Schema": map[string]any{
				"type":       "object",
				"properties": map[string]any{"spec": open, "status": open},
			}},
		})
	}
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "apiextensions.k8s.io/v1",
		"kind":       "CustomResourceDefinition",
		"metadata":   map[string]any{"name": plural + "." + group},
		"spec": map[string]any{
			"group":    group,
			"scope":    scope,
			"names":    map[string]any{"kind": kind, "listKind": kind + "List", "plural": plural, "singular": strings.ToLower(kind)},
			"versions": versions,
		},
	}}
}

// InstallCRDs creates the CRDs the cluster lacks, labelled as gepcheck's,
// and waits until every one of them is established. A CRD that exists is
// left as it is, whoever installed it.
func (c *Cluster) InstallCRDs(ctx context.Context, crds []*unstructured.Unstructured) error {
	dc, err := dynamic.NewForConfig(c.Config)
	if err != nil {
		return err
	}
	api := dc.Resource(crdGVR)
	for _, crd := range crds {
		_, err := api.Get(ctx, crd.GetName(), metav1.GetOptions{})
		if err == nil {
			continue
		}
		if !apierrors.IsNotFound(err) {
			return fmt.Errorf("CRD %s: %w", crd.GetName(), err)
		}
		crd = crd.DeepCopy()
		labels := crd.GetLabels()
		if labels == nil {
			labels = map[string]string{}
		}
		labels[LabelManagedBy] = ManagedBy
		crd.SetLabels(labels)
		if _, err := api.Create(ctx, crd, metav1.CreateOptions{FieldManager: ManagedBy}); err != nil && !apierrors.IsAlreadyExists(err) {
			return fmt.Errorf("create CRD %s: %w", crd.GetName(), err)
		}
	}
	deadline := time.Now().Add(60 * time.Second)
	for _, crd := range crds {
		for {
			got, err := api.Get(ctx, crd.GetName(), metav1.GetOptions{})
			if err == nil && established(got) {
				break
			}
			if time.Now().After(deadline) {
				return fmt.Errorf("CRD %s not established after 60s: %v", crd.GetName(), err)
			}
			time.Sleep(100 * time.Millisecond)
		}
	}
	return nil
}

func established(crd *unstructured.Unstructured) bool {
	conds, _, _ := unstructured.NestedSlice(crd.Object, "status", "conditions")
	for _, c := range conds {
		m, _ := c.(map[string]any)
		if m["type"] == "Established" && m["status"] == "True" {
			return true
		}
	}
	return false
}
