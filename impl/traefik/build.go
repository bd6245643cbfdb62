package traefik

import (
	"context"
	"debug/buildinfo"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"runtime/debug"
	"slices"
	"strings"

	"golang.org/x/mod/modfile"

	"github.com/gepcheck/gepcheck/internal/gotool"
)

// Module is Traefik's Go module.
const Module = "github.com/traefik/traefik/v3"

// Version is the Traefik release gepcheck builds and runs.
const Version = "v3.7.13"

// lego is the ACME library Traefik v3.7.13 requires, copied with the DNS
// providers whose SDKs the module proxy here refuses cut out
// (docs/contour-and-traefik.md).
const (
	legoModule  = "github.com/go-acme/lego/v5"
	legoVersion = "v5.4.1"
)

// refusedProviders are lego's DNS providers whose SDK modules the module
// proxy here refuses (403); only ACME's dnsChallenge with one of them
// needs them, never the Gateway API provider.
var refusedProviders = []string{"alidns", "aliesa", "azion", "dnsimple", "edgedns", "edgeone", "huaweicloud",
	"oraclecloud", "regfish", "sakuracloud", "tencentcloud", "ucloud", "yandexcloud"}

// refusedModules are the requirements those providers bring.
var refusedModules = regexp.MustCompile(`^github\.com/(akamai/AkamaiOPEN-edgegrid-golang/v13|aziontech/azionapi-go-sdk|dnsimple/dnsimple-go/v9|go-acme/alidns-20150109/v5|go-acme/esa-20240910/v3|go-acme/tencentclouddnspod|go-acme/tencentedgdeone|huaweicloud/huaweicloud-sdk-go-v3|nrdcg/oci-go-sdk/common/v1065|nrdcg/oci-go-sdk/dns/v1065|regfish/regfish-dnsapi-go|sacloud/sacloud-sdk-go|ucloud/ucloud-sdk-go|yandex-cloud/go-sdk/services/dns)$`)

// httpAuth is the go-http-auth fork Traefik pins, at a pseudo-version the
// module proxy here serves (v3.6.12's pin): it only backs the basicAuth
// and digestAuth middlewares.
const (
	httpAuthModule  = "github.com/containous/go-http-auth"
	httpAuthVersion = "v0.4.1-0.20200324110947-a37a7636d23e"
)

// extModule is a nested module of Traefik's repository its go.mod
// replaces with a directory the module zip does not hold; its one file
// declares empty extension types.
const extModule = "github.com/traefik/traefik/dynamic/ext"

const extSource = `// Package ext stands in for Traefik's nested module of the same path
// (pkg/config/dynamic/ext), which its module zip does not hold; written by
// gepcheck (impl/traefik/build.go) after the upstream file.
package ext

// HTTP is a dynamic.HTTP extension.
type HTTP struct{}

// Router is a dynamic.Router extension.
type Router struct{}

// RouterIng is a RouterIng extension for ingress provider annotations.
type RouterIng struct{}

// ToRouter converts RouterIng to a Router.
func (r RouterIng) ToRouter() Router { return Router{} }
`

// Tool is traefik at version, built by Build.
func Tool(version string) gotool.Tool {
	if version == "" {
		version = Version
	}
	return gotool.Tool{Name: "traefik", Module: Module, Version: version, Package: Module + "/cmd/traefik"}
}

// ReaderPath is where Build puts gepcheck-traefik-config, beside traefik.
func ReaderPath(traefik string) string {
	return filepath.Join(filepath.Dir(traefik), "gepcheck-traefik-config")
}

// Build builds traefik at version into gepcheck's cache the first time,
// and gepcheck-traefik-config (reader.go) beside it,
// in a wrapper module that repeats Traefik's requires, replaces and
// excludes, with three changes the module proxy here makes necessary
// (docs/contour-and-traefik.md): the nested ext module written, lego
// without the DNS providers whose SDKs are refused, go-http-auth at a
// served pseudo-version.
func Build(ctx context.Context, version string, log func(string)) (string, error) {
	t := Tool(version)
	bin, err := t.Path()
	if err != nil {
		return "", err
	}
	if _, err := os.Stat(ReaderPath(bin)); err == nil {
		// Cached: still the recipe's build (gepcheck tools, make ci).
		return bin, Check(bin, t.Version)
	}
	if log != nil {
		log(fmt.Sprintf("building traefik %s from the Go module proxy (once; about 13 minutes cold on 2 cores)", t.Version))
	}
	src := filepath.Join(filepath.Dir(bin), "src")
	if err := os.RemoveAll(src); err != nil {
		return "", err
	}
	if err := prepare(ctx, t.Version, src); err != nil {
		return "", err
	}
	if out, err := gotool.Command(ctx, src, "mod", "tidy").CombinedOutput(); err != nil {
		return "", fmt.Errorf("traefik %s wrapper: go mod tidy: %v\n%s", t.Version, err, gotool.Tail(string(out), 20))
	}
	ld := "-X " + Module + "/pkg/version.Version=" + t.Version
	out := filepath.Join(src, "bin")
	if o, err := gotool.Command(ctx, src, "build", "-ldflags", ld, "-o", out+string(filepath.Separator), t.Package, "./reader").CombinedOutput(); err != nil {
		return "", fmt.Errorf("go build %s@%s: %v\n%s", t.Package, t.Version, err, gotool.Tail(string(o), 20))
	}
	if err := os.Rename(filepath.Join(out, "reader"), ReaderPath(bin)); err != nil {
		return "", err
	}
	if err := os.Rename(filepath.Join(out, "traefik"), bin); err != nil {
		return "", err
	}
	return bin, Check(bin, t.Version)
}

// Check says whether bin is traefik at version as Build makes it, from
// the build information Go writes into it: Traefik's command and module
// at version, the version in its ldflags, lego from the copy without the
// refused providers and go-http-auth at the served pseudo-version, and
// the configuration reader beside it.
func Check(bin, version string) error {
	info, err := buildinfo.ReadFile(bin)
	if err != nil {
		return fmt.Errorf("traefik %s: %w", version, err)
	}
	var problems []string
	if info.Path != Module+"/cmd/traefik" || info.Main.Path != Module || info.Main.Version != version {
		problems = append(problems, fmt.Sprintf("it is %s of %s %s, not %s/cmd/traefik of %s", info.Path, info.Main.Path, info.Main.Version, Module, version))
	}
	replaced := map[string]string{}
	for _, d := range info.Deps {
		if d.Replace != nil {
			replaced[d.Path] = d.Replace.Path + " " + d.Replace.Version
		}
	}
	for path, want := range map[string]string{legoModule: "./lego (devel)", extModule: "./ext (devel)"} {
		if replaced[path] != want {
			problems = append(problems, fmt.Sprintf("%s replaced by %q, want %q", path, replaced[path], want))
		}
	}
	if !strings.HasSuffix(replaced["github.com/abbot/go-http-auth"], httpAuthVersion) {
		problems = append(problems, fmt.Sprintf("go-http-auth replaced by %q, want %s %s", replaced["github.com/abbot/go-http-auth"], httpAuthModule, httpAuthVersion))
	}
	if ld := "-X " + Module + "/pkg/version.Version=" + version; !slices.ContainsFunc(info.Settings, func(s debug.BuildSetting) bool {
		return s.Key == "-ldflags" && s.Value == ld
	}) {
		problems = append(problems, "its -ldflags do not set "+ld)
	}
	if _, err := os.Stat(ReaderPath(bin)); err != nil {
		problems = append(problems, "no configuration reader beside it: "+err.Error())
	}
	if len(problems) > 0 {
		return fmt.Errorf("%s is not traefik %s as gepcheck builds it (impl/traefik/build.go; remove it and run gepcheck tools): %s", bin, version, strings.Join(problems, "; "))
	}
	return nil
}

// prepare writes the wrapper module into src.
func prepare(ctx context.Context, version, src string) error {
	tdir, err := gotool.ModuleDir(ctx, Module, version)
	if err != nil {
		return err
	}
	data, err := os.ReadFile(filepath.Join(tdir, "go.mod"))
	if err != nil {
		return err
	}
	// modfile.Parse, not ParseLax: ParseLax drops replace directives.
	mf, err := modfile.Parse("go.mod", data, nil)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Join(src, "ext"), 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(src, "ext", "go.mod"), []byte("module "+extModule+"\n\ngo 1.24.0\n"), 0o644); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(src, "ext", "ext.go"), []byte(extSource), 0o644); err != nil {
		return err
	}
	if err := copyLego(ctx, filepath.Join(src, "lego")); err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Join(src, "reader"), 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(src, "reader", "main.go"), []byte(readerSource), 0o644); err != nil {
		return err
	}
	var b strings.Builder
	fmt.Fprintf(&b, "// Generated by gepcheck: builds %s %s (impl/traefik/build.go).\nmodule gepcheck.dev/tools/traefik\n\ngo 1.26.0\n\nrequire %s %s\n\nrequire (\n", Module, version, Module, version)
	for _, r := range mf.Require {
		if !refusedModules.MatchString(r.Mod.Path) && r.Mod.Path != legoModule {
			fmt.Fprintf(&b, "\t%s %s\n", r.Mod.Path, r.Mod.Version)
		}
	}
	fmt.Fprintf(&b, "\t%s %s\n)\n\nreplace (\n", legoModule, legoVersion)
	for _, r := range mf.Replace {
		switch {
		case r.Old.Path == extModule:
			fmt.Fprintf(&b, "\t%s => ./ext\n", extModule)
		case r.New.Path == httpAuthModule:
			fmt.Fprintf(&b, "\t%s => %s %s\n", r.Old.Path, httpAuthModule, httpAuthVersion)
		case r.New.Version != "":
			fmt.Fprintf(&b, "\t%s => %s %s\n", r.Old.Path, r.New.Path, r.New.Version)
		}
	}
	fmt.Fprintf(&b, "\t%s => ./lego\n)\n", legoModule)
	for _, e := range mf.Exclude {
		fmt.Fprintf(&b, "\nexclude %s %s\n", e.Mod.Path, e.Mod.Version)
	}
	if err := os.WriteFile(filepath.Join(src, "go.mod"), []byte(b.String()), 0o644); err != nil {
		return err
	}
	sum, err := os.ReadFile(filepath.Join(tdir, "go.sum"))
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(src, "go.sum"), sum, 0o644)
}

// copyLego copies lego into dir without the refused DNS providers: their
// imports leave the provider factory, whose cases for them return an
// error, and their requirements leave lego's go.mod.
func copyLego(ctx context.Context, dir string) error {
	ldir, err := gotool.ModuleDir(ctx, legoModule, legoVersion)
	if err != nil {
		return err
	}
	if err := os.CopyFS(dir, os.DirFS(ldir)); err != nil {
		return err
	}
	if err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil {
			err = os.Chmod(p, map[bool]os.FileMode{true: 0o755, false: 0o644}[d.IsDir()])
		}
		return err
	}); err != nil {
		return err
	}
	f := filepath.Join(dir, "providers", "dns", "zz_gen_dns_providers.go")
	code, err := os.ReadFile(f)
	if err != nil {
		return err
	}
	s := string(code)
	for _, p := range refusedProviders {
		imp := "\t\"" + legoModule + "/providers/dns/" + p + "\"\n"
		call := "return " + p + ".NewDNSProvider()"
		if !strings.Contains(s, imp) || !strings.Contains(s, call) {
			return fmt.Errorf("lego %s: provider %s is not where gepcheck cuts it out (%s)", legoVersion, p, f)
		}
		s = strings.Replace(s, imp, "", 1)
		s = strings.ReplaceAll(s, call, fmt.Sprintf("return nil, fmt.Errorf(%q)", "DNS provider "+p+" not compiled in (gepcheck's build)"))
	}
	if err := os.WriteFile(f, []byte(s), 0o644); err != nil {
		return err
	}
	_ = os.Remove(filepath.Join(dir, "providers", "dns", "dns_providers_test.go"))
	gomod := filepath.Join(dir, "go.mod")
	lm, err := os.ReadFile(gomod)
	if err != nil {
		return err
	}
	var kept []string
	for _, line := range strings.Split(string(lm), "\n") {
		if fs := strings.Fields(line); len(fs) >= 2 && refusedModules.MatchString(fs[0]) {
			continue
		}
		kept = append(kept, line)
	}
	return os.WriteFile(gomod, []byte(strings.Join(kept, "\n")), 0o644)
}
