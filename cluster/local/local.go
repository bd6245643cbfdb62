// Package local starts a real Kubernetes control plane on this machine, for
// tests where no container runtime is available: etcd and kube-apiserver
// built from pinned Go modules (package tools), on free loopback ports,
// with a bearer token, RBAC and service-account keys. There is no kubelet,
// no scheduler and no controller-manager: nothing runs pods, and gepcheck
// never needs it to. Its kube-apiserver can be restarted on the same etcd
// (Cluster.RestartAPIServer, the apiserver fault of docs/faults.md).
package local

import (
	"context"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/hex"
	"encoding/pem"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"time"

	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"

	"github.com/gepcheck/gepcheck/cluster"
	"github.com/gepcheck/gepcheck/internal/gotool"
)

// Options configure Start.
type Options struct {
	// Dir holds the control plane's data, certificates and logs; a new
	// temporary directory when empty. It is removed by Stop unless Keep.
	Dir  string
	Keep bool
	// Log receives progress lines.
	Log func(string)
}

// Start builds (once) and starts etcd and kube-apiserver and returns the
// cluster, ready. Stop it with Cluster.Stop; it kills both processes and
// removes their data.
func Start(ctx context.Context, opts Options) (*cluster.Cluster, error) {
	logf := func(format string, a ...any) {
		if opts.Log != nil {
			opts.Log(fmt.Sprintf(format, a...))
		}
	}
	etcdBin, err := gotool.Etcd.Build(ctx, opts.Log)
	if err != nil {
		return nil, err
	}
	apiBin, err := gotool.KubeAPIServer.Build(ctx, opts.Log)
	if err != nil {
		return nil, err
	}
	kcmBin, err := gotool.KubeControllerManager.Build(ctx, opts.Log)
	if err != nil {
		return nil, err
	}
	dir := opts.Dir
	if dir == "" {
		if dir, err = os.MkdirTemp("", "gepcheck-local-"); err != nil {
			return nil, err
		}
	}
	cp := &controlPlane{dir: dir, keep: opts.Keep}
	ok := false
	defer func() {
		if !ok {
			cp.stop()
		}
	}()

	ports, err := cluster.FreePorts(4)
	if err != nil {
		return nil, err
	}
	client, peer, secure, kcmPort := ports[0], ports[1], ports[2], ports[3]
	etcdURL := "http://127.0.0.1:" + strconv.Itoa(client)
	peerURL := "http://127.0.0.1:" + strconv.Itoa(peer)
	if err := cp.run("etcd", etcdBin,
		"--name", "gepcheck",
		"--data-dir", filepath.Join(dir, "etcd"),
		"--listen-client-urls", etcdURL, "--advertise-client-urls", etcdURL,
		"--listen-peer-urls", peerURL, "--initial-advertise-peer-urls", peerURL,
		"--initial-cluster", "gepcheck="+peerURL,
		"--unsafe-no-fsync", "--log-level", "warn",
	); err != nil {
		return nil, err
	}

	// Credentials: a bearer token in system:masters, and the service
	// account signing key the API server requires.
	token := randomHex(16)
	if err := os.WriteFile(filepath.Join(dir, "tokens.csv"), []byte(token+",gepcheck-admin,gepcheck-admin,system:masters\n"), 0o600); err != nil {
		return nil, err
	}
	if err := writeServiceAccountKey(filepath.Join(dir, "sa.key"), filepath.Join(dir, "sa.pub")); err != nil {
		return nil, err
	}
	certDir := filepath.Join(dir, "certs")
	cp.apiBin, cp.apiArgs = apiBin, []string{
		"--etcd-servers", etcdURL,
		"--bind-address", "127.0.0.1", "--advertise-address", "127.0.0.1",
		"--secure-port", strconv.Itoa(secure),
		"--cert-dir", certDir,
		"--token-auth-file", filepath.Join(dir, "tokens.csv"),
		"--authorization-mode", "RBAC",
		"--service-account-issuer", "https://kubernetes.default.svc",
		"--service-account-key-file", filepath.Join(dir, "sa.pub"),
		"--service-account-signing-key-file", filepath.Join(dir, "sa.key"),
		"--service-cluster-ip-range", "10.96.0.0/16",
		"--disable-admission-plugins", "ServiceAccount",
		"--enable-priority-and-fairness=false",
		"--v", "0",
	}
	if err := cp.run("kube-apiserver", apiBin, cp.apiArgs...); err != nil {
		return nil, err
	}
	cp.api = len(cp.procs) - 1

	host := "https://127.0.0.1:" + strconv.Itoa(secure)
	// No client-side rate limit: the control plane is gepcheck's own.
	cfg := &rest.Config{Host: host, BearerToken: token, QPS: -1}
	c := &cluster.Cluster{Name: "local", Config: cfg, Stop: cp.stop}
	c.RestartAPIServer = func(ctx context.Context) error { return cp.restartAPIServer(ctx, c) }
	if err := cp.ready(ctx, c, certDir); err != nil {
		return nil, err
	}
	c.Kubeconfig = filepath.Join(dir, "kubeconfig")
	if err := writeKubeconfig(c.Kubeconfig, cfg); err != nil {
		return nil, err
	}
	// Namespace deletion and ownerReferences need their controllers.
	if err := cp.run("kube-controller-manager", kcmBin,
		"--kubeconfig", c.Kubeconfig,
		"--controllers", "namespace-controller,garbage-collector-controller",
		"--leader-elect=false", "--use-service-account-credentials=false",
		"--bind-address", "127.0.0.1", "--secure-port", strconv.Itoa(kcmPort),
		"--v", "0",
	); err != nil {
		return nil, err
	}
	logf("local control plane ready: %s (etcd %s, kube-apiserver and kube-controller-manager %s; KUBECONFIG=%s)", host, gotool.EtcdVersion, gotool.KubernetesVersion, c.Kubeconfig)
	ok = true
	return c, nil
}

type controlPlane struct {
	dir  string
	keep bool
	// apiBin and apiArgs start kube-apiserver, first and on restarts.
	apiBin  string
	apiArgs []string

	mu       sync.Mutex
	procs    []*cluster.Process
	api      int // kube-apiserver's index in procs
	restarts int
}

func (cp *controlPlane) run(name, bin string, args ...string) error {
	p, err := cluster.Start(name, exec.Command(bin, args...), filepath.Join(cp.dir, name+".log"))
	if err != nil {
		return err
	}
	cp.mu.Lock()
	cp.procs = append(cp.procs, p)
	cp.mu.Unlock()
	return nil
}

// exited reports a process that ended before it was stopped.
func (cp *controlPlane) exited() error {
	cp.mu.Lock()
	defer cp.mu.Unlock()
	for _, p := range cp.procs {
		if err := p.Exited(); err != nil {
			return fmt.Errorf("local control plane: %w", err)
		}
	}
	return nil
}

// stop terminates the processes, newest first, and removes the data.
func (cp *controlPlane) stop() error {
	cp.mu.Lock()
	defer cp.mu.Unlock()
	for i := len(cp.procs) - 1; i >= 0; i-- {
		cp.procs[i].Stop(cluster.Timeouts.ControllerStop)
	}
	cp.procs = nil
	if cp.keep {
		return nil
	}
	return os.RemoveAll(cp.dir)
}

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

func writeServiceAccountKey(keyPath, pubPath string) error {
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		return err
	}
	der, err := x509.MarshalPKIXPublicKey(&key.PublicKey)
	if err != nil {
		return err
	}
	if err := os.WriteFile(keyPath, pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(key)}), 0o600); err != nil {
		return err
	}
	return os.WriteFile(pubPath, pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: der}), 0o644)
}

func writeKubeconfig(path string, cfg *rest.Config) error {
	kc := clientcmdapi.NewConfig()
	kc.Clusters["gepcheck-local"] = &clientcmdapi.Cluster{Server: cfg.Host, CertificateAuthorityData: cfg.CAData}
	kc.AuthInfos["gepcheck-admin"] = &clientcmdapi.AuthInfo{Token: cfg.BearerToken}
	kc.Contexts["gepcheck-local"] = &clientcmdapi.Context{Cluster: "gepcheck-local", AuthInfo: "gepcheck-admin"}
	kc.CurrentContext = "gepcheck-local"
	return clientcmd.WriteToFile(*kc, path)
}

// ready waits up to cluster.Timeouts.Ready for kube-apiserver to write its
// self-signed serving certificate (on start) and answer with it.
func (cp *controlPlane) ready(ctx context.Context, c *cluster.Cluster, certDir string) error {
	return cp.serving(ctx, func() bool {
		ca, err := os.ReadFile(filepath.Join(certDir, "apiserver.crt"))
		if err != nil {
			return false
		}
		c.Config.TLSClientConfig.CAData = ca
		return c.Reachable(ctx, 2*time.Second) == nil
	})
}

// restartAPIServer is the apiserver fault (docs/faults.md): it kills
// kube-apiserver with SIGKILL, a crash as Sieve's restarts are (it keeps
// nothing outside etcd, and SIGTERM's graceful shutdown would wait for
// the controllers' requests in flight), and starts it again with the same
// arguments: the same port, etcd and certificates (its --cert-dir keeps
// the self-signed pair it wrote on its first start, which c trusts). It
// returns once /readyz answers, within cluster.Timeouts.Ready. The new
// process takes the old one's place, so that stop stops it.
func (cp *controlPlane) restartAPIServer(ctx context.Context, c *cluster.Cluster) error {
	cp.mu.Lock()
	if cp.procs == nil {
		cp.mu.Unlock()
		return fmt.Errorf("local control plane: stopped, kube-apiserver not restarted")
	}
	cp.procs[cp.api].Kill()
	cp.restarts++
	log := filepath.Join(cp.dir, fmt.Sprintf("kube-apiserver.restart-%d.log", cp.restarts))
	p, err := cluster.Start("kube-apiserver", exec.Command(cp.apiBin, cp.apiArgs...), log)
	if err == nil {
		cp.procs[cp.api] = p
	}
	cp.mu.Unlock()
	if err != nil {
		return fmt.Errorf("local control plane: restart: %w", err)
	}
	return cp.serving(ctx, func() bool { return c.Reachable(ctx, 2*time.Second) == nil })
}

// serving polls up until kube-apiserver answers, up to
// cluster.Timeouts.Ready, failing at once when a process of the control
// plane ended.
func (cp *controlPlane) serving(ctx context.Context, up func() bool) error {
	deadline := time.Now().Add(cluster.Timeouts.Ready)
	for {
		if err := cp.exited(); err != nil {
			return err
		}
		if up() {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("local control plane: kube-apiserver not ready after %s (logs in %s)", cluster.Timeouts.Ready, cp.dir)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(200 * time.Millisecond):
		}
	}
}
