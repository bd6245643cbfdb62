package cluster

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/rest"

	"github.com/gepcheck/gepcheck/simulator/load"
)

// fakeAPI is an API server that serves Services (paged, pageSize at a
// time, from services) and CustomResourceDefinitions, enough of
// discovery for ReadState, and records every request's method.
type fakeAPI struct {
	services []string // names, namespace team-a
	endless  bool     // a continue token on every page, even empty ones
	crdSpec  string   // the spec.versions[0].name padding of the one CRD
	broken   bool     // gateway.networking.k8s.io is listed, its discovery fails
	mu       sync.Mutex
	methods  []string
}

func (f *fakeAPI) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	f.methods = append(f.methods, r.Method)
	f.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	send := func(v any) { _ = json.NewEncoder(w).Encode(v) }
	switch r.URL.Path {
	case "/api":
		send(map[string]any{"kind": "APIVersions", "versions": []string{"v1"}})
	case "/apis":
		groups := []any{
			map[string]any{"name": "apiextensions.k8s.io", "versions": []any{map[string]any{"groupVersion": "apiextensions.k8s.io/v1", "version": "v1"}}, "preferredVersion": map[string]any{"groupVersion": "apiextensions.k8s.io/v1", "version": "v1"}},
		}
		if f.broken {
			groups = append(groups, map[string]any{"name": "gateway.networking.k8s.io", "versions": []any{map[string]any{"groupVersion": "gateway.networking.k8s.io/v1", "version": "v1"}}, "preferredVersion": map[string]any{"groupVersion": "gateway.networking.k8s.io/v1", "version": "v1"}})
		}
		send(map[string]any{"kind": "APIGroupList", "apiVersion": "v1", "groups": groups})
	case "/apis/gateway.networking.k8s.io/v1":
		http.Error(w, "unavailable", http.StatusServiceUnavailable)
	case "/api/v1":
		send(map[string]any{"kind": "APIResourceList", "groupVersion": "v1", "resources": []any{
			map[string]any{"name": "services", "namespaced": true, "kind": "Service", "verbs": []string{"get", "list"}},
		}})
	case "/apis/apiextensions.k8s.io/v1":
		send(map[string]any{"kind": "APIResourceList", "groupVersion": "apiextensions.k8s.io/v1", "resources": []any{
			map[string]any{"name": "customresourcedefinitions", "namespaced": false, "kind": "CustomResourceDefinition", "verbs": []string{"get", "list"}},
		}})
	case "/api/v1/namespaces/team-a/services":
		limit, _ := strconv.Atoi(r.URL.Query().Get("limit"))
		from, _ := strconv.Atoi(r.URL.Query().Get("continue"))
		var items []any
		for i := from; i < len(f.services) && i < from+limit; i++ {
			items = append(items, map[string]any{"apiVersion": "v1", "kind": "Service", "metadata": map[string]any{"name": f.services[i], "namespace": "team-a", "uid": "u"}, "spec": map[string]any{"ports": []any{map[string]any{"port": 80}}}, "status": map[string]any{}})
		}
		cont := ""
		if f.endless {
			cont = strconv.Itoa(from)
		} else if from+limit < len(f.services) {
			cont = strconv.Itoa(from + limit)
		}
		send(map[string]any{"apiVersion": "v1", "kind": "ServiceList", "metadata": map[string]any{"continue": cont}, "items": items})
	case "/apis/apiextensions.k8s.io/v1/customresourcedefinitions":
		send(map[string]any{"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinitionList", "metadata": map[string]any{}, "items": []any{
			map[string]any{"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition", "metadata": map[string]any{"name": "services.core"},
				"spec": map[string]any{"group": "", "names": map[string]any{"kind": "Service", "plural": "services"}, "scope": "Namespaced",
					"versions": []any{map[string]any{"name": "v1" + f.crdSpec, "served": true, "storage": true}}}},
		}})
	default:
		http.NotFound(w, r)
	}
}

func readFake(t *testing.T, f *fakeAPI, lim load.Limits, groups ...string) (*State, error) {
	t.Helper()
	srv := httptest.NewServer(f)
	t.Cleanup(srv.Close)
	c := &Cluster{Name: "fake", Config: &rest.Config{Host: srv.URL}}
	return ReadState(context.Background(), c, ReadOptions{Namespace: "team-a", Groups: groups, Kinds: []schema.GroupKind{{Kind: "Service"}}, Limits: lim, PageSize: 2})
}

// ReadState reads every page of a list (Limit, then Continue), sorted by
// name whatever order the server answers in, without status and server
// metadata, and only with GET requests (docs/cluster.md, Reading a
// cluster).
func TestReadStatePages(t *testing.T) {
	f := &fakeAPI{services: []string{"s3", "s1", "s5", "s2", "s4"}}
	st, err := readFake(t, f, load.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, d := range st.Docs {
		names = append(names, d.Name)
		if _, ok := d.Raw["status"]; ok {
			t.Errorf("%s: status kept", d.Name)
		}
		if _, ok := d.Raw["metadata"].(map[string]any)["uid"]; ok {
			t.Errorf("%s: uid kept", d.Name)
		}
	}
	if got := strings.Join(names, " "); got != "s1 s2 s3 s4 s5" {
		t.Errorf("read %q, want the five Services of three pages, sorted", got)
	}
	if len(st.CRDs) != 1 {
		t.Errorf("%d CRDs, want the one of the kind read", len(st.CRDs))
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, m := range f.methods {
		if m != http.MethodGet {
			t.Errorf("a %s request", m)
		}
	}
}

// The limits of files bound the reading (docs/limits.md): a server that
// keeps answering with a continue token ends it, more objects than
// --max-documents and a CRD larger than --max-bytes are errors naming the
// limit and, for an object, cluster:CONTEXT/KIND/NAMESPACE/NAME.
func TestReadStateBounded(t *testing.T) {
	_, err := readFake(t, &fakeAPI{services: []string{"s1"}, endless: true}, load.Limits{MaxDocuments: 10})
	if err == nil || !strings.Contains(err.Error(), "pages") {
		t.Errorf("an endless continue token: %v, want the pages bound", err)
	}
	_, err = readFake(t, &fakeAPI{services: []string{"s1", "s2", "s3"}}, load.Limits{MaxDocuments: 2})
	var le *load.Error
	if !errors.As(err, &le) || le.Source.File != "cluster:fake/Service/team-a/s3" || !strings.Contains(le.Msg, "more than 2 objects") {
		t.Errorf("three Services, at most two: %v", err)
	}
	_, err = readFake(t, &fakeAPI{services: []string{"s1"}, crdSpec: strings.Repeat("x", 4096)}, load.Limits{MaxBytes: 2048})
	if !errors.As(err, &le) || le.Source.File != "cluster:fake/CustomResourceDefinition/services.core" || !strings.Contains(le.Msg, fmt.Sprintf("more than %d bytes", 2048)) {
		t.Errorf("a CRD of over 4 KiB, at most 2 KiB: %v", err)
	}
}

// A group whose discovery fails is an error when its kinds are to be read
// (reading on would simulate a state without its objects), and is left
// out otherwise (an aggregated API that is down, such as metrics).
func TestReadStateDiscoveryFailed(t *testing.T) {
	_, err := readFake(t, &fakeAPI{services: []string{"s1"}, broken: true}, load.Limits{}, "gateway.networking.k8s.io")
	if err == nil || !strings.Contains(err.Error(), "discovery failed, so the objects of a group gepcheck reads cannot be read: gateway.networking.k8s.io/v1: ") {
		t.Errorf("Gateway API's discovery failed: %v, want an error naming it", err)
	}
	st, err := readFake(t, &fakeAPI{services: []string{"s1"}, broken: true}, load.Limits{})
	if err != nil || len(st.Docs) != 1 {
		t.Errorf("a group not read failed: %v, want the one Service read", err)
	}
}

// Covers: what a read took in (Gateway API's group whole, the kinds
// listed, in the namespace read; cluster-scoped objects whatever the
// namespace), and nothing else (docs/cluster.md, Reading a cluster).
func TestReadOptionsCovers(t *testing.T) {
	o := ReadOptions{Namespace: "shop", Groups: []string{"gateway.networking.k8s.io"}, Kinds: []schema.GroupKind{{Kind: "Service"}}}
	for _, tc := range []struct {
		group, kind, ns string
		want            bool
	}{
		{"gateway.networking.k8s.io", "HTTPRoute", "shop", true},
		{"gateway.networking.k8s.io", "GatewayClass", "", true},
		{"", "Service", "shop", true},
		{"", "Service", "other", false},
		{"apps", "Deployment", "shop", false},
		{"", "Secret", "shop", false},
	} {
		if got := o.Covers(tc.group, tc.kind, tc.ns); got != tc.want {
			t.Errorf("Covers(%q, %q, %q) = %v, want %v", tc.group, tc.kind, tc.ns, got, tc.want)
		}
	}
	o.Namespace = "" // -A
	if !o.Covers("", "Service", "other") {
		t.Error("-A: a Service of another namespace not covered")
	}
}
