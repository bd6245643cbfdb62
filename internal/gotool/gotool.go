// Package gotool is gepcheck's one use of the Go toolchain at run time:
// modules downloaded through the module proxy (ModuleDir), and pinned
// binaries built from them once into gepcheck's cache
// (~/.cache/gepcheck/tools/): the local control plane's etcd,
// kube-apiserver, kube-controller-manager and kubectl, and the tools
// implementations add. It never looks for a binary on PATH: the versions
// are part of the result.
package gotool

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/gepcheck/gepcheck/internal/cache"
	"github.com/gepcheck/gepcheck/internal/proc"
)

// Pinned versions (docs/cluster.md).
const (
	EtcdVersion       = "v3.6.5"
	KubernetesVersion = "v1.36.3"
)

// kubernetesStaging lists the staging modules of k8s.io/kubernetes
// v1.36.3 (its go.mod replaces each with ./staging/src/...); a module that
// requires k8s.io/kubernetes replaces each with the published v0.36.3.
var kubernetesStaging = []string{
	"api", "apiextensions-apiserver", "apimachinery", "apiserver", "cli-runtime", "client-go",
	"cloud-provider", "cluster-bootstrap", "code-generator", "component-base", "component-helpers",
	"controller-manager", "cri-api", "cri-client", "cri-streaming", "csi-translation-lib",
	"dynamic-resource-allocation", "endpointslice", "externaljwt", "kms", "kube-aggregator",
	"kube-controller-manager", "kube-proxy", "kube-scheduler", "kubectl", "kubelet", "metrics",
	"mount-utils", "pod-security-admission", "sample-apiserver", "sample-cli-plugin",
	"sample-controller", "streaming",
}

// A Tool is a binary built from one package of a pinned module.
type Tool struct {
	Name    string // binary name
	Module  string // module path
	Version string
	Package string // package path of the main package
}

var (
	Etcd          = Tool{"etcd", "go.etcd.io/etcd/server/v3", EtcdVersion, "go.etcd.io/etcd/server/v3"}
	KubeAPIServer = Tool{"kube-apiserver", "k8s.io/kubernetes", KubernetesVersion, "k8s.io/kubernetes/cmd/kube-apiserver"}
	Kubectl       = Tool{"kubectl", "k8s.io/kubernetes", KubernetesVersion, "k8s.io/kubernetes/cmd/kubectl"}
	// KubeControllerManager runs only the namespace and garbage-collector
	// controllers in a local control plane: deleting a namespace needs it.
	KubeControllerManager = Tool{"kube-controller-manager", "k8s.io/kubernetes", KubernetesVersion, "k8s.io/kubernetes/cmd/kube-controller-manager"}
)

// All lists the tools of the local control plane.
var All = []Tool{Etcd, KubeAPIServer, KubeControllerManager, Kubectl}

// Helm renders charts (helm template) for the tests that pipe a chart's
// output into gepcheck, as users do (docs/input.md, Helm).
var Helm = Tool{"helm", "helm.sh/helm/v4", HelmVersion, "helm.sh/helm/v4/cmd/helm"}

// HelmVersion is the pinned Helm (docs/input.md).
const HelmVersion = "v4.3.1"

// Inputs lists the tools that render users' input, built by gepcheck
// tools beside All.
var Inputs = []Tool{Helm}

// Dir is gepcheck's tool cache (internal/cache).
func Dir() (string, error) { return cache.Dir("tools") }

// Path is where the tool's binary is cached.
func (t Tool) Path() (string, error) {
	d, err := Dir()
	if err != nil {
		return "", err
	}
	return filepath.Join(d, t.Name+"@"+t.Version, t.Name), nil
}

var mu sync.Mutex // one go build at a time: they share the build cache and 2 cores

// Build returns the path of the tool, building it the first time. The
// build runs in a wrapper module in the cache that requires the pinned
// module (and, for Kubernetes, pins its staging modules).
func (t Tool) Build(ctx context.Context, log func(string)) (string, error) {
	bin, err := t.Path()
	if err != nil {
		return "", err
	}
	if _, err := os.Stat(bin); err == nil {
		return bin, nil
	}
	mu.Lock()
	defer mu.Unlock()
	if _, err := os.Stat(bin); err == nil {
		return bin, nil
	}
	d, _ := Dir()
	mod := filepath.Join(d, "src", strings.ReplaceAll(t.Module, "/", "_")+"@"+t.Version)
	if err := os.MkdirAll(mod, 0o755); err != nil {
		return "", err
	}
	if err := os.WriteFile(filepath.Join(mod, "go.mod"), []byte(wrapperGoMod(t)), 0o644); err != nil {
		return "", err
	}
	// Tools of one module are built by one go build: they share most
	// packages, and one invocation keeps both cores busy.
	batch := batchOf(t)
	var names, pkgs []string
	for _, o := range batch {
		names = append(names, o.Name)
		pkgs = append(pkgs, o.Package)
	}
	if log != nil {
		log(fmt.Sprintf("building %s %s from the Go module proxy (once; cached in %s)", strings.Join(names, ", "), t.Version, d))
	}
	out := filepath.Join(mod, "bin")
	if err := os.MkdirAll(out, 0o755); err != nil {
		return "", err
	}
	// Built with the default cgo setting, as go install builds, so that
	// every build shares the build cache.
	cmd := Command(ctx, mod, append([]string{"build", "-o", out + string(filepath.Separator)}, pkgs...)...)
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("go build %s@%s: %v\n%s", strings.Join(pkgs, " "), t.Version, err, Tail(string(out), 20))
	}
	for _, o := range batch {
		p, _ := o.Path()
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return "", err
		}
		if err := os.Rename(filepath.Join(out, exeName(o.Package)), p); err != nil {
			return "", err
		}
	}
	return bin, nil
}

// batchOf is t and the tools of All from t's module and version that are
// not built yet. t itself need not be in All (an implementation's
// controller is not).
func batchOf(t Tool) []Tool {
	batch := []Tool{t}
	for _, o := range All {
		if o != t && o.Module == t.Module && o.Version == t.Version {
			if p, _ := o.Path(); !exists(p) {
				batch = append(batch, o)
			}
		}
	}
	return batch
}

// exeName is the name go build gives the executable of pkg: its last
// element, or the one before a major version suffix (/v3).
func exeName(pkg string) string {
	parts := strings.Split(pkg, "/")
	last := parts[len(parts)-1]
	if len(parts) > 1 && len(last) > 1 && last[0] == 'v' && strings.Trim(last[1:], "0123456789") == "" {
		return parts[len(parts)-2]
	}
	return last
}

func exists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

func wrapperGoMod(t Tool) string {
	var b strings.Builder
	fmt.Fprintf(&b, "// Generated by gepcheck: builds %s %s.\nmodule gepcheck.dev/tools/%s\n\ngo 1.26\n\nrequire %s %s\n", t.Module, t.Version, t.Name, t.Module, t.Version)
	if t.Module == "k8s.io/kubernetes" {
		staging := "v0" + strings.TrimPrefix(t.Version, "v1")
		b.WriteString("\nreplace (\n")
		for _, m := range kubernetesStaging {
			fmt.Fprintf(&b, "\tk8s.io/%s => k8s.io/%s %s\n", m, m, staging)
		}
		b.WriteString(")\n")
	}
	return b.String()
}

// Tail is the last n lines of s (of a log, for an error message).
func Tail(s string, n int) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// Command is the go command with args, run in dir (outside any module
// when empty) with modules resolved from go.mod files alone (GOFLAGS=-mod=mod)
// and no workspace.
func Command(ctx context.Context, dir string, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, "go", args...)
	proc.Contain(cmd, 5*time.Second) // the compilers it starts end with it
	cmd.Dir = dir
	if dir == "" {
		cmd.Dir = os.TempDir()
	}
	cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod", "GOWORK=off")
	return cmd
}

// ModuleDir returns the directory of a module version in the Go module
// cache, downloading it through the module proxy the first time.
func ModuleDir(ctx context.Context, module, version string) (string, error) {
	out, err := Command(ctx, "", "mod", "download", "-json", module+"@"+version).Output()
	var info struct{ Dir, Error string }
	_ = json.Unmarshal(out, &info)
	if err != nil || info.Dir == "" || info.Error != "" {
		return "", fmt.Errorf("go mod download %s@%s: %v %s", module, version, err, info.Error)
	}
	return info.Dir, nil
}
