package cluster

import (
	"bytes"
	"context"
	"fmt"
	"os"
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

	"github.com/gepcheck/gepcheck/internal/gotool"
)

// Module versions whose CRDs gepcheck installs.
const (
	GatewayAPIModule  = "sigs.k8s.io/gateway-api"
	GatewayAPIVersion = "v1.6.3"
)

var crdGVR = schema.GroupVersionResource{Group: "apiextensions.k8s.io", Version: "v1", Resource: "customresourcedefinitions"}

// GatewayAPICRDs returns the experimental-channel CRDs of the Gateway API
// release gepcheck is built with (config/crd/experimental of the module).
func GatewayAPICRDs(ctx context.Context) ([]*unstructured.Unstructured, error) {
	dir, err := gotool.ModuleDir(ctx, GatewayAPIModule, GatewayAPIVersion)
	if err != nil {
		return nil, err
	}
	return ReadCRDs(filepath.Join(dir, "config", "crd", "experimental"))
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

func OpenCRD(group, kind, scope, version string) *unstructured.Unstructured {
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
	deadline := time.Now().Add(Timeouts.Established)
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
