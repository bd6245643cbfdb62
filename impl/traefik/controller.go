package traefik

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"time"

	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/gepcheck/gepcheck/cluster"
)

// ControllerName is Traefik's GatewayClass controllerName.
const ControllerName = "traefik.io/gateway-controller"

// EntryPoints are Traefik's entry points, by name: a Gateway listener is
// served by the entry point of its port, so there is one for each listener
// port gepcheck's BackendTLSPolicy scenarios use (80), on loopback.
var EntryPoints = map[string]string{"ep80": "127.0.0.1:80"}

// Process is a running Traefik and its configuration reader.
type Process struct {
	// Stop stops both and removes the reader's RBAC objects.
	Stop func()
	// ConfigURL serves Traefik's provider's dynamic configuration.
	ConfigURL string
}

// Start builds traefik at version and runs it against c with its
// Kubernetes Gateway provider (KUBECONFIG; docs/contour-and-traefik.md),
// and gepcheck-traefik-config beside it as ReaderUser, who may read only.
func Start(ctx context.Context, c *cluster.Cluster, version, dir string, log func(string)) (*Process, error) {
	bin, err := Build(ctx, version, log)
	if err != nil {
		return nil, err
	}
	for name, addr := range EntryPoints {
		l, err := net.Listen("tcp", addr)
		if err != nil {
			return nil, fmt.Errorf("traefik's entry point %s needs %s: %w", name, addr, err)
		}
		l.Close()
	}
	kc, err := readerKubeconfig(c.Kubeconfig, filepath.Join(dir, "traefik-reader.kubeconfig"))
	if err != nil {
		return nil, err
	}
	cs, err := kubernetes.NewForConfig(c.Config)
	if err != nil {
		return nil, err
	}
	if err := grantReader(ctx, cs); err != nil {
		return nil, err
	}
	unGrant := func() {
		dctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		_ = cs.RbacV1().ClusterRoleBindings().Delete(dctx, ReaderUser, metav1.DeleteOptions{})
		_ = cs.RbacV1().ClusterRoles().Delete(dctx, ReaderUser, metav1.DeleteOptions{})
	}
	args := []string{"--global.checkNewVersion=false", "--global.sendAnonymousUsage=false", "--log.level=INFO",
		"--providers.kubernetesgateway=true", "--providers.kubernetesgateway.experimentalChannel=true",
		"--providers.kubernetesgateway.statusAddress.ip=127.0.0.1", "--api.dashboard=false"}
	var readerArgs []string
	for name, addr := range EntryPoints {
		args = append(args, "--entryPoints."+name+".address="+addr)
		readerArgs = append(readerArgs, "-entrypoint", name+"="+addr)
	}
	cmd := exec.Command(bin, args...)
	cmd.Env = append(os.Environ(), "KUBECONFIG="+c.Kubeconfig)
	proc, err := cluster.Start("traefik", cmd, filepath.Join(dir, "traefik.log"))
	if err != nil {
		unGrant()
		return nil, err
	}
	ports, err := cluster.FreePorts(1)
	if err != nil {
		proc.Stop(0)
		unGrant()
		return nil, err
	}
	listen := "127.0.0.1:" + strconv.Itoa(ports[0])
	rcmd := exec.Command(ReaderPath(bin), append(readerArgs, "-listen", listen)...)
	rcmd.Env = append(os.Environ(), "KUBECONFIG="+kc)
	reader, err := cluster.Start("gepcheck-traefik-config", rcmd, filepath.Join(dir, "traefik-reader.log"))
	if err != nil {
		proc.Stop(0)
		unGrant()
		return nil, err
	}
	stop := func() {
		reader.Stop(cluster.Timeouts.ControllerStop)
		proc.Stop(cluster.Timeouts.ControllerStop)
		unGrant()
	}
	log(fmt.Sprintf("started traefik %s (pid %d) and its configuration reader (pid %d, %s) against %s, logs in %s", version, proc.Pid(), reader.Pid(), listen, c.Name, dir))
	url := "http://" + listen + "/"
	deadline := time.Now().Add(cluster.Timeouts.Ready)
	for {
		time.Sleep(500 * time.Millisecond)
		for _, p := range []*cluster.Process{proc, reader} {
			if err := p.Exited(); err != nil {
				stop()
				return nil, fmt.Errorf("at start: %w", err)
			}
		}
		if _, err := fetchConfig(ctx, url); err == nil {
			break
		}
		if time.Now().After(deadline) {
			stop()
			return nil, fmt.Errorf("traefik's configuration reader did not serve on %s within %s", listen, cluster.Timeouts.Ready)
		}
	}
	return &Process{Stop: stop, ConfigURL: url}, nil
}

// fetchConfig reads the dynamic configuration the reader serves.
func fetchConfig(ctx context.Context, url string) (map[string]any, error) {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	// A configuration holds the routes of every scenario running; 64 MiB
	// bounds it.
	data, err := io.ReadAll(io.LimitReader(resp.Body, 64<<20))
	if err != nil {
		return nil, err
	}
	var cfg map[string]any
	if err := json.Unmarshal(data, &cfg); err != nil {
		return nil, fmt.Errorf("traefik configuration: %w", err)
	}
	return cfg, nil
}

// readerKubeconfig writes a copy of kubeconfig whose users impersonate
// ReaderUser.
func readerKubeconfig(kubeconfig, out string) (string, error) {
	cfg, err := clientcmd.LoadFromFile(kubeconfig)
	if err != nil {
		return "", err
	}
	for _, u := range cfg.AuthInfos {
		u.Impersonate = ReaderUser
	}
	return out, clientcmd.WriteToFile(*cfg, out)
}

// grantReader lets ReaderUser get, list and watch everything: the
// provider reads what Traefik reads, and its status writes are refused.
func grantReader(ctx context.Context, cs kubernetes.Interface) error {
	labels := map[string]string{cluster.LabelManagedBy: cluster.ManagedBy}
	role := &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: ReaderUser, Labels: labels},
		Rules: []rbacv1.PolicyRule{{APIGroups: []string{"*"}, Resources: []string{"*"}, Verbs: []string{"get", "list", "watch"}}}}
	binding := &rbacv1.ClusterRoleBinding{ObjectMeta: metav1.ObjectMeta{Name: ReaderUser, Labels: labels},
		RoleRef:  rbacv1.RoleRef{APIGroup: "rbac.authorization.k8s.io", Kind: "ClusterRole", Name: ReaderUser},
		Subjects: []rbacv1.Subject{{APIGroup: "rbac.authorization.k8s.io", Kind: "User", Name: ReaderUser}}}
	if _, err := cs.RbacV1().ClusterRoles().Create(ctx, role, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		return err
	}
	if _, err := cs.RbacV1().ClusterRoleBindings().Create(ctx, binding, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		return err
	}
	return nil
}
