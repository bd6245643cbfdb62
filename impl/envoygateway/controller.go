// Package envoygateway is Envoy Gateway as an implementation gepcheck
// judges: offline, its translator (egctl x translate, built at a pinned
// version: Translator, Egctl); in a cluster, its controller (InCluster).
//
// The controller (envoy-gateway
// server, built from the Go module proxy at a pinned version) runs (envoy-gateway
// server, built from the Go module proxy at a pinned version) as a local
// process against a cluster, as it runs in one: Kubernetes provider,
// KUBECONFIG, certificates from `envoy-gateway certgen --local`. Envoy
// Gateway reads its xDS server's certificates from the fixed path /certs;
// a private mount namespace provides it (a tmpfs root that binds every
// top-level directory of the host, plus /certs), so the host is not
// changed. Nothing runs the Envoy proxies it deploys: there is no kubelet.
package envoygateway

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"

	"github.com/gepcheck/gepcheck/cluster"
	"github.com/gepcheck/gepcheck/impl/internal/controller"
	"github.com/gepcheck/gepcheck/internal/gotool"
	"github.com/gepcheck/gepcheck/internal/proc"
)

// ControllerName is Envoy Gateway's GatewayClass controllerName.
const ControllerName = "gateway.envoyproxy.io/gatewayclass-controller"

// Namespace is where Envoy Gateway puts its infrastructure.
const Namespace = "envoy-gateway-system"

// Options configure Start.
type Options struct {
	Version string
	// Dir holds the configuration, certificates and the log.
	Dir string
	Log func(string)
}

const config = `apiVersion: gateway.envoyproxy.io/v1alpha1
kind: EnvoyGateway
gateway:
  controllerName: ` + ControllerName + `
provider:
  type: Kubernetes
logging:
  level:
    default: info
`

// Process is a running envoy-gateway.
type Process struct {
	// Stop stops it and removes its infrastructure namespace.
	Stop func()
	// XDS reads what it serves to its proxies.
	XDS *XDS
}

// Start starts envoy-gateway against c.
func Start(ctx context.Context, c *cluster.Cluster, opts Options) (*Process, error) {
	t := ControllerTool(opts.Version)
	if opts.Version != "" {
		t.Version = opts.Version
	}
	bin, err := t.Build(ctx, opts.Log)
	if err != nil {
		return nil, err
	}
	logf := func(s string) {
		if opts.Log != nil {
			opts.Log(s)
		}
	}
	dir := opts.Dir
	home := filepath.Join(dir, "envoy-gateway-home")
	cg := exec.CommandContext(ctx, bin, "certgen", "--local", "--config-home", home)
	proc.Contain(cg, 5*time.Second)
	if out, err := cg.CombinedOutput(); err != nil {
		return nil, fmt.Errorf("envoy-gateway certgen: %v\n%s", err, out)
	}
	certs, err := findCerts(home, "envoy-gateway")
	if err != nil {
		return nil, err
	}
	proxyCerts, err := findCerts(home, "envoy")
	if err != nil {
		return nil, err
	}
	xds, err := NewXDS(proxyCerts)
	if err != nil {
		return nil, err
	}
	cfgPath := filepath.Join(dir, "envoy-gateway.yaml")
	if err := os.WriteFile(cfgPath, []byte(config), 0o644); err != nil {
		return nil, err
	}
	if err := ensureNamespace(ctx, c); err != nil {
		return nil, err
	}
	logPath := filepath.Join(dir, "envoy-gateway.log")
	// The private root's mount point lives in dir, removed with it.
	root := filepath.Join(dir, "root")
	if err := os.Mkdir(root, 0o755); err != nil {
		return nil, err
	}
	cmd := exec.Command("unshare", "-m", "--", "/bin/sh", "-c", mountScript(root, certs, bin, cfgPath))
	cmd.Env = append(os.Environ(), "KUBECONFIG="+c.Kubeconfig, "ENVOY_GATEWAY_NAMESPACE="+Namespace)
	proc, err := cluster.Start("envoy-gateway", cmd, logPath)
	if err != nil {
		return nil, err
	}
	logf(fmt.Sprintf("started envoy-gateway %s (pid %d) against %s, log %s", t.Version, proc.Pid(), c.Name, logPath))
	// Ready when its xDS server accepts connections; a process that
	// exits early is an error with the log's tail.
	deadline := time.Now().Add(cluster.Timeouts.Ready)
	for {
		time.Sleep(500 * time.Millisecond)
		if err := proc.Exited(); err != nil {
			return nil, fmt.Errorf("at start: %w", err)
		}
		if conn, err := net.DialTimeout("tcp", XDSAddress, time.Second); err == nil {
			conn.Close()
			break
		}
		if time.Now().After(deadline) {
			proc.Stop(0)
			log, _ := os.ReadFile(logPath)
			return nil, fmt.Errorf("envoy-gateway's xDS server did not listen on %s within %s:\n%s", XDSAddress, cluster.Timeouts.Ready, gotool.Tail(string(log), 15))
		}
	}
	return &Process{XDS: xds, Stop: func() {
		proc.Stop(15 * time.Second)
		dctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		_ = cluster.DeleteLabelled(dctx, c, cluster.LabelManagedBy+"="+cluster.ManagedBy+","+cluster.LabelScenario+"=envoy-gateway-system", false)
	}}, nil
}

// findCerts returns the directory certgen wrote a certificate to
// (…/<who>/tls.crt: envoy-gateway for the xDS server, envoy for proxies).
func findCerts(home, who string) (string, error) {
	var found string
	_ = filepath.WalkDir(home, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && d.Name() == "tls.crt" && filepath.Base(filepath.Dir(p)) == who {
			found = filepath.Dir(p)
		}
		return nil
	})
	if found == "" {
		return "", fmt.Errorf("envoy-gateway certgen wrote no %s/tls.crt under %s", who, home)
	}
	return found, nil
}

// mountScript runs envoy-gateway in a private mount namespace whose root
// is a tmpfs binding the host's top-level directories, plus /certs.
func mountScript(root, certs, bin, cfg string) string {
	return fmt.Sprintf(`set -e
mount --make-rprivate /
root=%q
mount -t tmpfs gepcheck-root "$root"
for d in /*; do
  name=${d#/}
  if [ -L "$d" ]; then cp -P "$d" "$root/$name"
  elif [ -d "$d" ]; then mkdir "$root/$name"; mount --rbind "$d" "$root/$name"
  fi
done
mkdir "$root/certs"
mount --bind %q "$root/certs"
exec chroot "$root" %q server --config-path %q
`, root, certs, bin, cfg)
}

var namespaceGVR = schema.GroupVersionResource{Version: "v1", Resource: "namespaces"}

// ensureNamespace creates Envoy Gateway's namespace, labelled as
// gepcheck's, unless it exists.
func ensureNamespace(ctx context.Context, c *cluster.Cluster) error {
	dyn, err := dynamic.NewForConfig(c.Config)
	if err != nil {
		return err
	}
	if _, err := dyn.Resource(namespaceGVR).Get(ctx, Namespace, metav1.GetOptions{}); err == nil {
		return nil
	}
	ns := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "Namespace", "metadata": map[string]any{
		"name":   Namespace,
		"labels": map[string]any{cluster.LabelManagedBy: cluster.ManagedBy, cluster.LabelScenario: "envoy-gateway-system"},
	}}}
	_, err = dyn.Resource(namespaceGVR).Create(ctx, ns, metav1.CreateOptions{})
	return err
}

// Module is Envoy Gateway's Go module.
const Module = "github.com/envoyproxy/gateway"

// ControllerTool is envoy-gateway, the controller, at version.
func ControllerTool(version string) gotool.Tool {
	if version == "" {
		version = Version
	}
	return gotool.Tool{Name: "envoy-gateway", Module: Module, Version: version, Package: Module + "/cmd/envoy-gateway"}
}

// CRDs returns Envoy Gateway's own CRDs at version
// (charts/gateway-helm/charts/crds/crds/generated of its module).
func CRDs(ctx context.Context, version string) ([]*unstructured.Unstructured, error) {
	if version == "" {
		version = Version
	}
	return controller.CRDs(ctx, Module, version, "charts/gateway-helm/charts/crds/crds/generated")
}
