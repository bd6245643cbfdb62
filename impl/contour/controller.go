// Package contour is Contour (github.com/projectcontour/contour) as an
// implementation gepcheck judges, in a cluster only: it has no offline
// translator. `contour serve`, built from the Go module proxy at a pinned
// version, runs as a local process against the cluster as it runs in one
// (docs/contour-and-traefik.md). Contour v1.33 serves exactly one Gateway,
// named in its configuration file (gateway.gatewayRef), so gepcheck runs
// one Contour per Gateway of its GatewayClasses, as Contour's own Gateway
// provisioner does: a Provisioner watches the Gateways and starts and stops
// them. Nothing runs the Envoy proxies: gepcheck reads each Contour's xDS
// as a proxy would.
package contour

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	corev3 "github.com/envoyproxy/go-control-plane/envoy/config/core/v3"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"

	"github.com/gepcheck/gepcheck/cluster"
	"github.com/gepcheck/gepcheck/impl/internal/controller"
	"github.com/gepcheck/gepcheck/impl/internal/xds"
	"github.com/gepcheck/gepcheck/internal/gotool"
)

// Version is the Contour release gepcheck builds and runs.
const Version = "v1.33.8"

// Module is Contour's Go module.
const Module = "github.com/projectcontour/contour"

// ControllerName is the controllerName gepcheck gives a scenario's
// GatewayClasses; Contour in gatewayRef mode serves the Gateway it is told
// to whatever its class says, and writes this name into status.
const ControllerName = "projectcontour.io/gateway-controller"

// MaxGateways bounds the Contour processes one Provisioner runs at once
// (one per Gateway of the scenarios running in parallel).
const MaxGateways = 64

// Tool is contour, the binary, at version.
func Tool(version string) gotool.Tool {
	if version == "" {
		version = Version
	}
	return gotool.Tool{Name: "contour", Module: Module, Version: version, Package: Module + "/cmd/contour"}
}

// CRDs returns Contour's own CRDs at version (examples/contour of its
// module): its informers wait for them.
func CRDs(ctx context.Context, version string) ([]*unstructured.Unstructured, error) {
	if version == "" {
		version = Version
	}
	return controller.CRDs(ctx, Module, version, "examples/contour")
}

var (
	gatewayGVR      = schema.GroupVersionResource{Group: "gateway.networking.k8s.io", Version: "v1", Resource: "gateways"}
	gatewayClassGVR = schema.GroupVersionResource{Group: "gateway.networking.k8s.io", Version: "v1", Resource: "gatewayclasses"}
)

// Provisioner runs one `contour serve` per Gateway whose GatewayClass has
// ControllerName, and stops it when the Gateway goes.
type Provisioner struct {
	bin, dir, kubeconfig string
	dyn                  dynamic.Interface
	log                  func(string)

	mu       sync.Mutex
	contours map[string]*instance // "namespace/name" of the Gateway
	err      error                // why the last start failed
	stop     chan struct{}
	done     chan struct{}
}

// instance is one Contour serving one Gateway.
type instance struct {
	proc  *cluster.Process
	xds   *xds.Client
	ready bool
}

// Provision builds contour at version and starts watching c's Gateways;
// Stop ends it and every Contour it started.
func Provision(ctx context.Context, c *cluster.Cluster, version, dir string, log func(string)) (*Provisioner, error) {
	t := Tool(version)
	bin, err := t.Build(ctx, log)
	if err != nil {
		return nil, err
	}
	dyn, err := dynamic.NewForConfig(c.Config)
	if err != nil {
		return nil, err
	}
	if log == nil {
		log = func(string) {}
	}
	p := &Provisioner{bin: bin, dir: dir, kubeconfig: c.Kubeconfig, dyn: dyn, log: log,
		contours: map[string]*instance{}, stop: make(chan struct{}), done: make(chan struct{})}
	go p.loop()
	return p, nil
}

// loop reconciles the running Contours with the Gateways every poll.
func (p *Provisioner) loop() {
	defer close(p.done)
	tick := time.NewTicker(cluster.Timeouts.Poll)
	defer tick.Stop()
	for {
		p.reconcile()
		select {
		case <-p.stop:
			return
		case <-tick.C:
		}
	}
}

func (p *Provisioner) reconcile() {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	classes, err := p.dyn.Resource(gatewayClassGVR).List(ctx, metav1.ListOptions{})
	if err != nil {
		return
	}
	ours := map[string]bool{}
	for _, gc := range classes.Items {
		if name, _, _ := unstructured.NestedString(gc.Object, "spec", "controllerName"); name == ControllerName {
			ours[gc.GetName()] = true
		}
	}
	gws, err := p.dyn.Resource(gatewayGVR).List(ctx, metav1.ListOptions{})
	if err != nil {
		return
	}
	want := map[string]bool{}
	for _, gw := range gws.Items {
		if class, _, _ := unstructured.NestedString(gw.Object, "spec", "gatewayClassName"); ours[class] && gw.GetDeletionTimestamp() == nil {
			want[gw.GetNamespace()+"/"+gw.GetName()] = true
		}
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	for key, in := range p.contours {
		if !want[key] {
			go in.proc.Stop(cluster.Timeouts.ControllerStop)
			delete(p.contours, key)
		}
	}
	for key := range want {
		in, ok := p.contours[key]
		if !ok {
			if len(p.contours) >= MaxGateways {
				p.err = fmt.Errorf("more than %d Gateways of class controller %s at once", MaxGateways, ControllerName)
				continue
			}
			if in, err = p.start(key); err != nil {
				p.err = err
				p.log(err.Error())
				continue
			}
			p.contours[key] = in
		}
		if !in.ready {
			if conn, err := net.DialTimeout("tcp", in.xds.Address, 200*time.Millisecond); err == nil {
				conn.Close()
				in.ready = true
			}
		}
	}
}

// start runs a Contour for the Gateway namespace/name.
func (p *Provisioner) start(key string) (*instance, error) {
	ns, name, _ := strings.Cut(key, "/")
	ports, err := cluster.FreePorts(3)
	if err != nil {
		return nil, err
	}
	base := filepath.Join(p.dir, "contour-"+ns+"-"+name)
	cfg := base + ".yaml"
	if err := os.WriteFile(cfg, []byte(fmt.Sprintf("gateway:\n  gatewayRef:\n    namespace: %s\n    name: %s\n", ns, name)), 0o644); err != nil {
		return nil, err
	}
	xdsPort, httpPort, debugPort := strconv.Itoa(ports[0]), strconv.Itoa(ports[1]), strconv.Itoa(ports[2])
	cmd := exec.Command(p.bin, "serve", "--kubeconfig="+p.kubeconfig, "--config-path="+cfg,
		"--disable-leader-election", "--insecure",
		"--xds-address=127.0.0.1", "--xds-port="+xdsPort,
		"--http-address=127.0.0.1", "--http-port="+httpPort,
		"--health-address=127.0.0.1", "--health-port="+httpPort,
		"--debug-http-address=127.0.0.1", "--debug-http-port="+debugPort)
	proc, err := cluster.Start("contour "+key, cmd, base+".log")
	if err != nil {
		return nil, err
	}
	p.log(fmt.Sprintf("started contour (pid %d) for Gateway %s, xDS on 127.0.0.1:%s, log %s", proc.Pid(), key, xdsPort, base+".log"))
	// Contour hashes every node to one snapshot; the node says what
	// Contour's own Envoy DaemonSet says.
	return &instance{proc: proc, xds: &xds.Client{Address: "127.0.0.1:" + xdsPort,
		Node: &corev3.Node{Id: "gepcheck", Cluster: "contour"}}}, nil
}

// XDS returns the xDS client of the Contour serving the Gateway
// namespace/name once it serves, waiting at most wait.
func (p *Provisioner) XDS(ctx context.Context, namespace, name string, wait time.Duration) (*xds.Client, error) {
	deadline := time.Now().Add(wait)
	for {
		p.mu.Lock()
		in, ok := p.contours[namespace+"/"+name]
		startErr := p.err
		p.mu.Unlock()
		if ok {
			if err := in.proc.Exited(); err != nil {
				return nil, err
			}
			if in.ready {
				return in.xds, nil
			}
		}
		if time.Now().After(deadline) {
			if startErr != nil {
				return nil, fmt.Errorf("no Contour serves Gateway %s/%s: %w", namespace, name, startErr)
			}
			return nil, fmt.Errorf("no Contour served Gateway %s/%s within %s", namespace, name, wait)
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// Stop stops the Provisioner and every Contour it runs.
func (p *Provisioner) Stop() {
	close(p.stop)
	<-p.done
	p.mu.Lock()
	defer p.mu.Unlock()
	var wg sync.WaitGroup
	for key, in := range p.contours {
		wg.Add(1)
		go func() {
			defer wg.Done()
			in.proc.Stop(cluster.Timeouts.ControllerStop)
		}()
		delete(p.contours, key)
	}
	wg.Wait()
}
