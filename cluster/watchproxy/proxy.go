// Package watchproxy is a proxy on loopback between an implementation's
// controller and kube-apiserver (docs/faults.md, delay): the controller's
// kubeconfig points at it, it forwards every request with the cluster's
// credentials, holds the controller's watch events by a seeded schedule
// when asked (Delay), and counts the status writes the API server accepts
// through it (Writes), which the restart fault waits for.
package watchproxy

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"mime"
	"net"
	"net/http"
	"net/http/httputil"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"

	"github.com/gepcheck/gepcheck/cluster"
)

// Limits (docs/limits.md): at most MaxStreams watch streams are open
// through a proxy at once (one more is refused with 429, and the client
// retries); a stream holds at most MaxHeld events (one more releases
// what it holds at once); an event is at most MaxEventBytes of JSON (a
// larger one ends its stream, and the client watches again).
const (
	MaxStreams    = 512
	MaxHeld       = 4096
	MaxEventBytes = 16 << 20
)

// Proxy is a running proxy. Its methods are safe for concurrent use.
type Proxy struct {
	c          *cluster.Cluster
	logf       func(string)
	dir        string
	url        string
	kubeconfig string
	srv        *http.Server
	writes     atomic.Int64

	mu       sync.Mutex
	schedule *Schedule     // nil: events pass at once
	released chan struct{} // closed by Release
	streams  map[*stream]bool
}

var errTooManyStreams = fmt.Errorf("more than %d watch streams open through gepcheck's watch proxy (docs/limits.md)", MaxStreams)

// Start starts a proxy to c's API server on a free loopback port, and
// writes a kubeconfig for it (plain HTTP, no credentials: the proxy adds
// c's) in a new temporary directory, removed by Close. logf receives the
// proxy's errors (an upstream that does not answer, during an API
// server's restart); nil drops them.
func Start(c *cluster.Cluster, logf func(string)) (*Proxy, error) {
	if logf == nil {
		logf = func(string) {}
	}
	target, _, err := rest.DefaultServerUrlFor(c.Config)
	if err != nil {
		return nil, fmt.Errorf("watch proxy: %w", err)
	}
	transport, err := rest.TransportFor(c.Config)
	if err != nil {
		return nil, fmt.Errorf("watch proxy: %w", err)
	}
	dir, err := os.MkdirTemp("", "gepcheck-watchproxy-")
	if err != nil {
		return nil, err
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		os.RemoveAll(dir)
		return nil, fmt.Errorf("watch proxy: %w", err)
	}
	p := &Proxy{c: c, logf: logf, dir: dir, url: "http://" + ln.Addr().String(), kubeconfig: filepath.Join(dir, "kubeconfig"), streams: map[*stream]bool{}}
	if err := p.writeKubeconfig(); err != nil {
		ln.Close()
		os.RemoveAll(dir)
		return nil, err
	}
	errorLog := log.New(logWriter(logf), "watch proxy: ", 0)
	rp := &httputil.ReverseProxy{
		Rewrite: func(pr *httputil.ProxyRequest) {
			pr.SetURL(target)
			pr.Out.Header.Del("Authorization") // c's credentials, always
			if isWatch(pr.In) {
				pr.Out.Header.Set("Accept", jsonOnly(pr.In.Header.Get("Accept")))
				pr.Out.Header.Del("Accept-Encoding")
			}
		},
		Transport:      transport,
		FlushInterval:  -1,
		ModifyResponse: p.modify,
		ErrorHandler:   p.fail,
		// Its only log lines are copies cut short: a stream that ended
		// because kube-apiserver or the controller was killed, which the
		// faults do on purpose (docs/faults.md).
		ErrorLog: log.New(io.Discard, "", 0),
	}
	p.srv = &http.Server{Handler: rp, ErrorLog: errorLog, ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = p.srv.Serve(ln) }()
	return p, nil
}

// Cluster is a copy of the proxied cluster whose Kubeconfig and Config
// point at the proxy: what a run passes to an implementation's Start, so
// that its controller, whatever its plug-in, goes through the proxy. Its
// Stop and RestartAPIServer are the cluster's own.
func (p *Proxy) Cluster() *cluster.Cluster {
	c := *p.c
	c.Kubeconfig = p.kubeconfig
	c.Config = &rest.Config{Host: p.url, QPS: p.c.Config.QPS, Burst: p.c.Config.Burst, Timeout: p.c.Config.Timeout}
	return &c
}

// Writes is how many status writes the API server accepted through the
// proxy: PUT or PATCH of a status subresource answered 2xx, dry runs
// not counted.
func (p *Proxy) Writes() int64 { return p.writes.Load() }

// Delay holds, from now on, every watch event by s's draw for it: each
// stream on its own, keeping its order, the events that arrive while one
// is held queued behind it and released with it, so that each stream
// delivers in batches and the streams drift out of step with each other.
// A later Delay replaces the schedule for events not yet held.
func (p *Proxy) Delay(seed int64, max time.Duration) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.schedule = &Schedule{Seed: seed, Max: max}
	if p.released == nil {
		p.released = make(chan struct{})
	}
}

// Release releases every held event at once and stops delaying.
func (p *Proxy) Release() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.schedule = nil
	if p.released != nil {
		close(p.released)
		p.released = nil
	}
}

// hold is how long the event index of stream key is held, and the
// channel that releases it sooner.
func (p *Proxy) hold(key string, index int) (time.Duration, <-chan struct{}) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.schedule == nil {
		return 0, nil
	}
	return p.schedule.Delay(key, index), p.released
}

// Close stops the proxy: its listener, its connections and its streams,
// and removes its kubeconfig.
func (p *Proxy) Close() error {
	err := p.srv.Close()
	p.mu.Lock()
	var open []*stream
	for s := range p.streams {
		open = append(open, s)
	}
	p.mu.Unlock()
	for _, s := range open {
		s.stop()
	}
	if rerr := os.RemoveAll(p.dir); err == nil {
		err = rerr
	}
	return err
}

func (p *Proxy) writeKubeconfig() error {
	kc := clientcmdapi.NewConfig()
	kc.Clusters["gepcheck-watchproxy"] = &clientcmdapi.Cluster{Server: p.url}
	kc.AuthInfos["gepcheck-watchproxy"] = &clientcmdapi.AuthInfo{}
	kc.Contexts["gepcheck-watchproxy"] = &clientcmdapi.Context{Cluster: "gepcheck-watchproxy", AuthInfo: "gepcheck-watchproxy"}
	kc.CurrentContext = "gepcheck-watchproxy"
	return clientcmd.WriteToFile(*kc, p.kubeconfig)
}

// modify counts an accepted status write and puts a JSON watch stream
// through the schedule; every other response passes untouched.
func (p *Proxy) modify(resp *http.Response) error {
	r := resp.Request
	if resp.StatusCode/100 == 2 && isStatusWrite(r) {
		p.writes.Add(1)
	}
	if resp.StatusCode != http.StatusOK || !isWatch(r) {
		return nil
	}
	if mt, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type")); mt != "application/json" {
		p.logf(fmt.Sprintf("watch proxy: %s answered %q, not JSON: passed undelayed", r.URL.Path, mt))
		return nil
	}
	return p.wrap(resp, streamKey(r))
}

// fail answers a request the API server did not: 429 past MaxStreams,
// 502 otherwise.
func (p *Proxy) fail(w http.ResponseWriter, r *http.Request, err error) {
	if !cutShort(err) {
		p.logf(fmt.Sprintf("watch proxy: %s %s: %v", r.Method, r.URL.Path, err))
	}
	if errors.Is(err, errTooManyStreams) {
		w.Header().Set("Retry-After", "1")
		http.Error(w, err.Error(), http.StatusTooManyRequests)
		return
	}
	w.WriteHeader(http.StatusBadGateway)
}

// isWatch: a watch request, by its watch parameter or its path (the
// deprecated /watch/ prefix), as kube-apiserver's RequestInfoFactory
// tells one.
func isWatch(r *http.Request) bool {
	if w, err := strconv.ParseBool(r.URL.Query().Get("watch")); err == nil && w {
		return true
	}
	parts := apiParts(r.URL.Path)
	return len(parts) > 0 && parts[0] == "watch"
}

// isStatusWrite: PUT or PATCH of a status subresource, not a dry run.
// The parts after the group and version are RESOURCE NAME status or
// namespaces NS RESOURCE NAME status (RequestInfoFactory's shapes), so
// an object named "status" is not taken for the subresource.
func isStatusWrite(r *http.Request) bool {
	if r.Method != http.MethodPut && r.Method != http.MethodPatch || r.URL.Query().Has("dryRun") {
		return false
	}
	parts := apiParts(r.URL.Path)
	n := len(parts)
	return n > 0 && parts[n-1] == "status" && (n == 3 || n == 5 && parts[0] == "namespaces")
}

// apiParts are a resource path's segments after /api/VERSION or
// /apis/GROUP/VERSION; nil for other paths.
func apiParts(path string) []string {
	parts := strings.Split(strings.Trim(path, "/"), "/")
	switch {
	case len(parts) >= 2 && parts[0] == "api":
		return parts[2:]
	case len(parts) >= 3 && parts[0] == "apis":
		return parts[3:]
	}
	return nil
}

// streamKey names a watch stream for its schedule: its path and its
// label and field selectors, never its resourceVersion (which changes
// each time a client watches again).
func streamKey(r *http.Request) string {
	q := r.URL.Query()
	key := r.URL.Path
	for _, name := range []string{"labelSelector", "fieldSelector"} {
		if v := q.Get(name); v != "" {
			key += "&" + name + "=" + v
		}
	}
	return key
}

// jsonOnly keeps the JSON media types of an Accept header (a table
// watch's parameters with them) and drops protobuf and CBOR, so that the
// proxy can split the stream into events; client-go decodes a watch by
// the response's Content-Type.
func jsonOnly(accept string) string {
	var keep []string
	for _, part := range strings.Split(accept, ",") {
		if mt, _, err := mime.ParseMediaType(part); err == nil && mt == "application/json" {
			keep = append(keep, strings.TrimSpace(part))
		}
	}
	if len(keep) == 0 {
		return "application/json"
	}
	return strings.Join(keep, ",")
}

// logWriter turns the log lines of net/http into logf's.
type logWriter func(string)

func (w logWriter) Write(b []byte) (int, error) {
	w(strings.TrimRight(string(b), "\n"))
	return len(b), nil
}

// cutShort says whether err is a connection the other side closed: the
// client gone or kube-apiserver killed, as the restart and apiserver
// faults do (docs/faults.md); not worth a line of the run's log.
func cutShort(err error) bool {
	return errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EPIPE) || errors.Is(err, syscall.ECONNREFUSED) ||
		errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) || errors.Is(err, context.Canceled)
}
