package watchproxy_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"k8s.io/client-go/rest"

	"github.com/gepcheck/gepcheck/cluster"
	"github.com/gepcheck/gepcheck/cluster/watchproxy"
)

// slack is what a loaded 2-core machine may add to a delivery.
const slack = 500 * time.Millisecond

// fakeAPI is an API server's HTTP surface as the proxy sees it: watch
// streams the test feeds event by event, and plain requests recorded.
type fakeAPI struct {
	srv *httptest.Server

	mu      sync.Mutex
	streams map[string]chan string // path → names of the events to send
	sent    map[string]time.Time   // event name → when it was written
	headers map[string]http.Header // path → the last request's headers
}

func newFakeAPI(t *testing.T) *fakeAPI {
	f := &fakeAPI{streams: map[string]chan string{}, sent: map[string]time.Time{}, headers: map[string]http.Header{}}
	f.srv = httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(f.srv.Close)
	return f
}

func (f *fakeAPI) stream(path string) chan string {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.streams[path] == nil {
		f.streams[path] = make(chan string)
	}
	return f.streams[path]
}

func (f *fakeAPI) sentAt(name string) time.Time {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.sent[name]
}

func (f *fakeAPI) header(path string) http.Header {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.headers[path]
}

func (f *fakeAPI) serve(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	f.headers[r.URL.Path] = r.Header.Clone()
	f.mu.Unlock()
	switch {
	case r.URL.Query().Get("watch") == "true":
		f.watch(w, r)
	case r.URL.Path == "/big":
		_, _ = w.Write(bigBody())
	case r.URL.Path == "/follow":
		// A long request that is no watch: its first line must reach
		// the client while it goes on.
		_, _ = io.WriteString(w, "first\n")
		w.(http.Flusher).Flush()
		<-r.Context().Done()
	case r.URL.Query().Has("conflict"):
		w.WriteHeader(http.StatusConflict)
	default:
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, "{}")
	}
}

func (f *fakeAPI) watch(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusOK)
	w.(http.Flusher).Flush()
	events := f.stream(r.URL.Path)
	for {
		select {
		case name, ok := <-events:
			if !ok {
				return
			}
			f.mu.Lock()
			f.sent[name] = time.Now()
			f.mu.Unlock()
			fmt.Fprintf(w, `{"type":"ADDED","object":{"kind":"ConfigMap","metadata":{"name":%q}}}`+"\n", name)
			w.(http.Flusher).Flush()
		case <-r.Context().Done():
			return
		}
	}
}

func bigBody() []byte {
	return bytes.Repeat([]byte("0123456789abcdef"), 5<<20/16)
}

// start starts a proxy to f with the bearer token "tok".
func start(t *testing.T, f *fakeAPI) *watchproxy.Proxy {
	t.Helper()
	c := &cluster.Cluster{Name: "fake", Config: &rest.Config{Host: f.srv.URL, BearerToken: "tok"}}
	p, err := watchproxy.Start(c, func(s string) { t.Log(s) })
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = p.Close() })
	return p
}

// received is an event as the client got it.
type received struct {
	name string
	at   time.Time
}

// watch watches path through p and returns the events as they come.
func watch(t *testing.T, p *watchproxy.Proxy, path string) <-chan received {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, p.Cluster().Config.Host+path+"?watch=true", nil)
	req.Header.Set("Accept", "application/vnd.kubernetes.protobuf, application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	out := make(chan received, 1000)
	go func() {
		defer close(out)
		dec := json.NewDecoder(resp.Body)
		for {
			var ev struct {
				Object struct {
					Metadata struct{ Name string } `json:"metadata"`
				} `json:"object"`
			}
			if dec.Decode(&ev) != nil {
				return
			}
			out <- received{ev.Object.Metadata.Name, time.Now()}
		}
	}()
	return out
}

// collect takes n events from events, failing after timeout.
func collect[E any](t *testing.T, events <-chan E, n int, timeout time.Duration) []E {
	t.Helper()
	var got []E
	deadline := time.After(timeout)
	for len(got) < n {
		select {
		case ev, ok := <-events:
			if !ok {
				t.Fatalf("the stream ended after %d events of %d", len(got), n)
			}
			got = append(got, ev)
		case <-deadline:
			t.Fatalf("%d events of %d after %s", len(got), n, timeout)
		}
	}
	return got
}

func names(evs []received) []string {
	var out []string
	for _, ev := range evs {
		out = append(out, ev.name)
	}
	return out
}

// TestDelayKeepsStreamOrder: 200 events sent at random short intervals
// through a delaying proxy all arrive, in the order sent, each no later
// than the longest hold allows, and some held.
func TestDelayKeepsStreamOrder(t *testing.T) {
	f := newFakeAPI(t)
	p := start(t, f)
	const path, hold = "/api/v1/namespaces/a/configmaps", 30 * time.Millisecond
	send := f.stream(path)
	events := watch(t, p, path)
	p.Delay(1, hold)
	var want []string
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range 200 {
		name := fmt.Sprintf("e%03d", i)
		send <- name
		want = append(want, name)
		time.Sleep(time.Duration(rng.IntN(3000)) * time.Microsecond)
	}
	got := collect(t, events, len(want), 30*time.Second)
	if !slices.Equal(names(got), want) {
		t.Fatalf("events reordered within their stream:\n got %v\nwant %v", names(got), want)
	}
	var longest time.Duration
	for _, ev := range got {
		lag := ev.at.Sub(f.sentAt(ev.name))
		longest = max(longest, lag)
		if lag > hold+slack {
			t.Errorf("%s arrived %s after it was sent; a hold is at most %s", ev.name, lag, hold)
		}
	}
	if longest < 10*time.Millisecond {
		t.Errorf("no event was held 10ms (the longest lag %s): not delayed", longest)
	}
}

// TestDelayBatches: events sent while the first is held wait behind it
// and arrive with it (the first held at least 300ms for this seed and
// stream).
func TestDelayBatches(t *testing.T) {
	f := newFakeAPI(t)
	p := start(t, f)
	const path = "/api/v1/namespaces/b/configmaps"
	send := f.stream(path)
	events := watch(t, p, path)
	p.Delay(4, 2*time.Second)
	var want []string
	for i := range 10 {
		name := fmt.Sprintf("e%d", i)
		send <- name
		want = append(want, name)
		time.Sleep(10 * time.Millisecond)
	}
	got := collect(t, events, len(want), 10*time.Second)
	if !slices.Equal(names(got), want) {
		t.Fatalf("got %v, want %v", names(got), want)
	}
	if lag := got[0].at.Sub(f.sentAt("e0")); lag < 300*time.Millisecond {
		t.Fatalf("e0 held %s; seed 4 holds it longer than 300ms", lag)
	}
	if spread := got[9].at.Sub(got[0].at); spread > 50*time.Millisecond {
		t.Errorf("e0 and e9, sent 90ms apart while e0 was held, arrived %s apart: not one batch", spread)
	}
	if got[9].at.Before(f.sentAt("e9")) {
		t.Errorf("e9 arrived before it was sent")
	}
}

// TestReleaseReleasesAll: with a schedule of up to an hour, nothing
// arrives; Release delivers every held event at once, in order, and
// stops delaying.
func TestReleaseReleasesAll(t *testing.T) {
	f := newFakeAPI(t)
	p := start(t, f)
	const path = "/api/v1/namespaces/c/configmaps"
	send := f.stream(path)
	events := watch(t, p, path)
	p.Delay(3, time.Hour)
	for i := range 5 {
		send <- fmt.Sprintf("e%d", i)
	}
	select {
	case ev := <-events:
		t.Fatalf("%s arrived at once under a schedule of up to an hour", ev.name)
	case <-time.After(300 * time.Millisecond):
	}
	p.Release()
	got := collect(t, events, 5, 2*time.Second)
	if want := []string{"e0", "e1", "e2", "e3", "e4"}; !slices.Equal(names(got), want) {
		t.Errorf("released %v, want %v", names(got), want)
	}
	send <- "after"
	got = collect(t, events, 1, 2*time.Second)
	if lag := got[0].at.Sub(f.sentAt("after")); lag > slack {
		t.Errorf("an event after Release was held %s", lag)
	}
}

// TestStreamsDriftApart: two streams, an event sent on A and 5ms later
// one on B, round after round: each stream holds on its own, so some
// rounds deliver B first and some A first.
func TestStreamsDriftApart(t *testing.T) {
	f := newFakeAPI(t)
	p := start(t, f)
	const a, b, max = "/api/v1/namespaces/d/configmaps", "/api/v1/namespaces/d/secrets", 300 * time.Millisecond
	sendA, sendB := f.stream(a), f.stream(b)
	evA, evB := watch(t, p, a), watch(t, p, b)
	p.Delay(5, max)
	bFirst := 0
	const rounds = 8
	for i := range rounds {
		sendA <- fmt.Sprintf("a%d", i)
		time.Sleep(5 * time.Millisecond)
		sendB <- fmt.Sprintf("b%d", i)
		ga, gb := collect(t, evA, 1, max+slack)[0], collect(t, evB, 1, max+slack)[0]
		if gb.at.Before(ga.at) {
			bFirst++
		}
	}
	if bFirst == 0 || bFirst == rounds {
		t.Errorf("B's event arrived first in %d rounds of %d: the streams did not drift apart", bFirst, rounds)
	}
}

// TestWatchAsksForJSON: a watch goes upstream asking for JSON only (the
// proxy splits its frames), a table watch keeps its parameters, other
// requests keep their Accept; every request carries the cluster's
// credentials, not the client's.
func TestWatchAsksForJSON(t *testing.T) {
	f := newFakeAPI(t)
	p := start(t, f)
	host := p.Cluster().Config.Host
	for _, tc := range []struct{ path, query, accept, want string }{
		{"/api/v1/namespaces/e/configmaps", "?watch=true", "application/vnd.kubernetes.protobuf, application/json", "application/json"},
		{"/api/v1/namespaces/e/secrets", "?watch=1", "application/cbor", "application/json"},
		{"/api/v1/namespaces/e/services", "?watch=true", "application/json;as=Table;v=v1;g=meta.k8s.io, application/json", "application/json;as=Table;v=v1;g=meta.k8s.io,application/json"},
		{"/api/v1/namespaces/e/pods", "", "application/vnd.kubernetes.protobuf, application/json", "application/vnd.kubernetes.protobuf, application/json"},
	} {
		close(f.stream(tc.path))
		req, _ := http.NewRequest(http.MethodGet, host+tc.path+tc.query, nil)
		req.Header.Set("Accept", tc.accept)
		req.Header.Set("Authorization", "Bearer client")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		h := f.header(tc.path)
		if got := h.Get("Accept"); got != tc.want {
			t.Errorf("%s%s: upstream got Accept %q, want %q", tc.path, tc.query, got, tc.want)
		}
		if got := h.Get("Authorization"); got != "Bearer tok" {
			t.Errorf("%s%s: upstream got Authorization %q, want the cluster's", tc.path, tc.query, got)
		}
	}
}

// TestPassesThrough: a large body arrives whole, and a long request that
// is no watch streams.
func TestPassesThrough(t *testing.T) {
	f := newFakeAPI(t)
	p := start(t, f)
	p.Delay(1, time.Hour)
	host := p.Cluster().Config.Host
	resp, err := http.Get(host + "/big")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if !bytes.Equal(body, bigBody()) {
		t.Errorf("a %d-byte body arrived as %d bytes, or changed", len(bigBody()), len(body))
	}
	resp, err = http.Get(host + "/follow")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	line := make(chan string, 1)
	go func() {
		b := make([]byte, 6)
		_, _ = io.ReadFull(resp.Body, b)
		line <- string(b)
	}()
	select {
	case l := <-line:
		if l != "first\n" {
			t.Errorf("a long request's first line is %q", l)
		}
	case <-time.After(5 * time.Second):
		t.Error("a long request's first line did not come while it went on")
	}
}

// TestWritesCounted: only status writes the API server accepted count.
func TestWritesCounted(t *testing.T) {
	f := newFakeAPI(t)
	p := start(t, f)
	host := p.Cluster().Config.Host
	for _, tc := range []struct {
		method, path string
		counts       bool
	}{
		{http.MethodPut, "/apis/gateway.networking.k8s.io/v1/namespaces/n/gateways/g/status", true},
		{http.MethodPatch, "/apis/gateway.networking.k8s.io/v1/gatewayclasses/gc/status", true},
		{http.MethodPatch, "/api/v1/namespaces/n/services/s/status", true},
		{http.MethodPut, "/api/v1/namespaces/n/status", true}, // a Namespace's status
		{http.MethodPut, "/api/v1/namespaces/status", false},  // the Namespace named status
		{http.MethodPut, "/apis/gateway.networking.k8s.io/v1/namespaces/n/gateways/status", false},
		{http.MethodPut, "/apis/gateway.networking.k8s.io/v1/namespaces/n/gateways/g", false},
		{http.MethodGet, "/apis/gateway.networking.k8s.io/v1/namespaces/n/gateways/g/status", false},
		{http.MethodPut, "/apis/gateway.networking.k8s.io/v1/namespaces/n/gateways/g/status?conflict=1", false},
		{http.MethodPut, "/apis/gateway.networking.k8s.io/v1/namespaces/n/gateways/g/status?dryRun=All", false},
		{http.MethodPut, "/healthz/status", false},
	} {
		before := p.Writes()
		req, _ := http.NewRequest(tc.method, host+tc.path, strings.NewReader("{}"))
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if counted := p.Writes() == before+1; counted != tc.counts {
			t.Errorf("%s %s: counted %v, want %v", tc.method, tc.path, counted, tc.counts)
		}
	}
}

// TestEndAfterHeld: a stream the API server ends while events are held
// delivers them, in order, before it ends.
func TestEndAfterHeld(t *testing.T) {
	f := newFakeAPI(t)
	p := start(t, f)
	const path = "/api/v1/namespaces/f/configmaps"
	send := f.stream(path)
	events := watch(t, p, path)
	p.Delay(3, time.Hour)
	send <- "e0"
	send <- "e1"
	close(send)
	time.Sleep(200 * time.Millisecond)
	p.Release()
	if got := collect(t, events, 2, 2*time.Second); !slices.Equal(names(got), []string{"e0", "e1"}) {
		t.Errorf("got %v before the end", names(got))
	}
	select {
	case ev, ok := <-events:
		if ok {
			t.Errorf("%s after the end", ev.name)
		}
	case <-time.After(2 * time.Second):
		t.Error("the stream did not end after its held events")
	}
}
