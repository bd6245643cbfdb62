package envoygateway

import (
	"bytes"
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/gepcheck/gepcheck/internal/gotool"

	"golang.org/x/mod/modfile"

	"github.com/gepcheck/gepcheck/internal/cache"
)

// Version is the pinned Envoy Gateway release whose translator
// gepcheck runs.
const Version = "v1.9.1"

// Builds of egctl gepcheck can run (docs/envoy-gateway.md, "Two builds of
// egctl").
const (
	// EgctlStock is `go install github.com/envoyproxy/gateway/cmd/egctl@VERSION`,
	// unmodified.
	EgctlStock = "stock"
	// EgctlFast is egctl built from the same module versions with two
	// changes to how documents are validated and defaulted before
	// translation: each CRD's validation strategy (its compiled CEL rules)
	// and its defaulting schema are built once per run instead of once per
	// document (egctlPatches). Translation is untouched, and the output is
	// checked byte for byte against the stock build (TestEgctlBuildsAgree).
	EgctlFast = "fast"
)

// EgctlBuilds lists the builds, default first.
var EgctlBuilds = []string{EgctlFast, EgctlStock}

// EgctlPath is where the build of egctl at version is cached.
func EgctlPath(version, build string) (string, error) {
	d, err := cache.Dir("egctl")
	if err != nil {
		return "", err
	}
	name := "egctl"
	if build == EgctlFast {
		name = "egctl-fast"
	}
	return filepath.Join(d, version, name), nil
}

// Egctl returns the path of egctl at version, building it into gepcheck's
// cache the first time. It never looks for egctl on PATH.
func Egctl(ctx context.Context, version, build string) (string, error) {
	if build != EgctlStock && build != EgctlFast {
		return "", fmt.Errorf("egctl build %q: one of %s", build, strings.Join(EgctlBuilds, ", "))
	}
	bin, err := EgctlPath(version, build)
	if err != nil {
		return "", err
	}
	if _, err := os.Stat(bin); err == nil {
		return bin, nil
	}
	if err := os.MkdirAll(filepath.Dir(bin), 0o755); err != nil {
		return "", err
	}
	if build == EgctlStock {
		cmd := gotool.Command(ctx, "", "install", "-tags", egctlTags, Module+"/cmd/egctl@"+version)
		cmd.Env = append(cmd.Env, "GOBIN="+filepath.Dir(bin))
		out, err := cmd.CombinedOutput()
		if err == nil {
			return bin, nil
		}
		// go install refuses a module whose go.mod has replace
		// directives (Envoy Gateway before v1.7), and checks the
		// checksum database for modules it does not list (older
		// pseudo-versions it may not have): the same source, unpatched,
		// built from a wrapper module that carries the directives and
		// Envoy Gateway's go.sum.
		if !strings.Contains(string(out), "replace directives") && !strings.Contains(string(out), "verifying module") {
			return "", fmt.Errorf("go install egctl@%s: %v\n%s", version, err, gotool.Tail(string(out), 1))
		}
		if err := buildEgctl(ctx, version, bin, nil); err != nil {
			return "", fmt.Errorf("egctl %s, unpatched, from a wrapper module with its replace directives: %w", version, err)
		}
		return bin, nil
	}
	if err := buildEgctl(ctx, version, bin, egctlPatches); err != nil {
		return "", fmt.Errorf("building the fast egctl %s: %w (--egctl-build stock runs the unmodified egctl)", version, err)
	}
	return bin, nil
}

// A patch replaces one exact piece of one file of a module, which must
// occur exactly once: a version whose source differs is refused, not
// patched by guess.
type patch struct {
	module, file string
	old, new     string
}

// egctlPatches make egctl validate and default each document with objects
// built once per CRD, as kube-apiserver does, instead of once per
// document. Both are pure caches keyed by GroupVersionKind.
//
// kubectl-validate's Validator.Validate calls customresource.NewStrategy for
// every document, which compiles the CRD's CEL rules (cel.NewValidator);
// the API server builds that strategy once per CRD version. Envoy
// Gateway's Defaulter.ApplyDefault turns the CRD schema into a go-openapi
// schema through JSON for every document; it is the same schema each time.
var egctlPatches = []patch{
	{
		module: "sigs.k8s.io/kubectl-validate",
		file:   "pkg/validator/validator.go",
		old: `	validatorCache map[schema.GroupVersionKind]*validatorEntry
}`,
		new: `	validatorCache map[schema.GroupVersionKind]*validatorEntry
	strategies     map[schema.GroupVersionKind]rest.RESTCreateStrategy // gepcheck: one per kind
}`,
	},
	{
		module: "sigs.k8s.io/kubectl-validate",
		file:   "pkg/validator/validator.go",
		old: `	strat := customresource.NewStrategy(validators.ObjectTyper(gvk), isNamespaced, gvk, validators.SchemaValidator(), nil,
		ss,
		nil, nil, nil)
`,
		new: `	strat, ok := s.strategies[gvk]
	if !ok {
		strat = customresource.NewStrategy(validators.ObjectTyper(gvk), isNamespaced, gvk, validators.SchemaValidator(), nil,
			ss,
			nil, nil, nil)
		if s.strategies == nil {
			s.strategies = map[schema.GroupVersionKind]rest.RESTCreateStrategy{}
		}
		s.strategies[gvk] = strat
	}
`,
	},
	{
		module: "github.com/envoyproxy/gateway",
		file:   "internal/gatewayapi/resource/defaulter.go",
		old: `	schemaCache map[schema.GroupVersionKind]*kubespec.Schema
	cacheMu     sync.Mutex`,
		new: `	schemaCache map[schema.GroupVersionKind]*kubespec.Schema
	goSchemas   map[schema.GroupVersionKind]*gospec.Schema // gepcheck: one per kind
	cacheMu     sync.Mutex`,
	},
	{
		module: "github.com/envoyproxy/gateway",
		file:   "internal/gatewayapi/resource/defaulter.go",
		old: `	schema, err := d.parseSchema(gvk)
	if err != nil {
		return nil, fmt.Errorf("failed to retrieve validator: %w", err)
	}

	// convert kube-openapi spec to go-openapi spec via JSON format.
	schemaBytes, err := schema.MarshalJSON()
	if err != nil {
		return nil, fmt.Errorf("failed to marshal schema: %w", err)
	}
	var goSchema gospec.Schema
	err = goSchema.UnmarshalJSON(schemaBytes)
	if err != nil {
		return nil, fmt.Errorf("failed to unmarshal schema: %w", err)
	}

	v := validate.NewSchemaValidator(&goSchema, nil, "", strfmt.Default)
`,
		new: `	d.cacheMu.Lock()
	goSchema, ok := d.goSchemas[gvk]
	d.cacheMu.Unlock()
	if !ok {
		kubeSchema, err := d.parseSchema(gvk)
		if err != nil {
			return nil, fmt.Errorf("failed to retrieve validator: %w", err)
		}

		// convert kube-openapi spec to go-openapi spec via JSON format.
		schemaBytes, err := kubeSchema.MarshalJSON()
		if err != nil {
			return nil, fmt.Errorf("failed to marshal schema: %w", err)
		}
		goSchema = &gospec.Schema{}
		err = goSchema.UnmarshalJSON(schemaBytes)
		if err != nil {
			return nil, fmt.Errorf("failed to unmarshal schema: %w", err)
		}
		d.cacheMu.Lock()
		if d.goSchemas == nil {
			d.goSchemas = map[schema.GroupVersionKind]*gospec.Schema{}
		}
		d.goSchemas[gvk] = goSchema
		d.cacheMu.Unlock()
	}

	v := validate.NewSchemaValidator(goSchema, nil, "", strfmt.Default)
`,
	},
}

// buildEgctl builds egctl at version in a wrapper module (in the
// cache) that repeats Envoy Gateway's replace directives and replaces the
// modules patches change with patched copies (none: the source as
// published); every other module is the version Envoy Gateway's go.mod
// selects.
func buildEgctl(ctx context.Context, version, bin string, patches []patch) error {
	src := filepath.Join(filepath.Dir(bin), "fast-src")
	if err := os.RemoveAll(src); err != nil {
		return err
	}
	if err := os.MkdirAll(src, 0o755); err != nil {
		return err
	}
	gw, err := gotool.ModuleDir(ctx, Module, version)
	if err != nil {
		return err
	}
	data, err := os.ReadFile(filepath.Join(gw, "go.mod"))
	if err != nil {
		return err
	}
	// modfile.Parse, not ParseLax: ParseLax drops replace directives.
	mf, err := modfile.Parse("go.mod", data, nil)
	if err != nil {
		return err
	}
	versions := map[string]string{"github.com/envoyproxy/gateway": version}
	for _, r := range mf.Require {
		versions[r.Mod.Path] = r.Mod.Version
	}
	var gomod strings.Builder
	fmt.Fprintf(&gomod, "// Generated by gepcheck: egctl %s with %d patches (impl/envoygateway/egctl.go).\nmodule gepcheck.dev/egctl-fast\n\ngo 1.26\n\nrequire github.com/envoyproxy/gateway %s\n\nreplace (\n", version, len(patches), version)
	// Envoy Gateway's own replace directives to module versions hold in
	// a module that requires it only when the wrapper repeats them.
	for _, r := range mf.Replace {
		if r.New.Version != "" {
			// Every version of the module: the wrapper may select
			// another than Envoy Gateway's build did.
			fmt.Fprintf(&gomod, "\t%s => %s %s\n", r.Old.Path, r.New.Path, r.New.Version)
		}
	}
	// The modules patches change, copied to be patched; the others,
	// Envoy Gateway's included when unpatched, come from the module
	// cache as published.
	dirs := map[string]string{}
	for _, p := range patches {
		if _, ok := dirs[p.module]; ok {
			continue
		}
		if p.module == Module {
			dirs[p.module] = gw
			continue
		}
		v, ok := versions[p.module]
		if !ok {
			return fmt.Errorf("envoy gateway %s does not require %s", version, p.module)
		}
		m, err := gotool.ModuleDir(ctx, p.module, v)
		if err != nil {
			return err
		}
		dirs[p.module] = m
	}
	for mod, dir := range dirs {
		local := filepath.Join(src, "mod", strings.ReplaceAll(mod, "/", "_"))
		if err := copyModule(dir, local); err != nil {
			return err
		}
		fmt.Fprintf(&gomod, "\t%s => ./mod/%s\n", mod, filepath.Base(local))
	}
	gomod.WriteString(")\n")
	for _, p := range patches {
		file := filepath.Join(src, "mod", strings.ReplaceAll(p.module, "/", "_"), p.file)
		b, err := os.ReadFile(file)
		if err != nil {
			return err
		}
		if n := bytes.Count(b, []byte(p.old)); n != 1 {
			return fmt.Errorf("%s@%s %s: the code to patch occurs %d times, want 1", p.module, versions[p.module], p.file, n)
		}
		if err := os.WriteFile(file, bytes.Replace(b, []byte(p.old), []byte(p.new), 1), 0o644); err != nil {
			return err
		}
	}
	if err := os.WriteFile(filepath.Join(src, "go.mod"), []byte(gomod.String()), 0o644); err != nil {
		return err
	}
	// Envoy Gateway's go.sum: its modules are checked against the
	// checksums it was released with, not looked up again.
	if sum, err := os.ReadFile(filepath.Join(gw, "go.sum")); err == nil {
		if err := os.WriteFile(filepath.Join(src, "go.sum"), sum, 0o644); err != nil {
			return err
		}
	}
	tmp := bin + ".tmp"
	cmd := gotool.Command(ctx, src, "build", "-tags", egctlTags, "-o", tmp, Module+"/cmd/egctl")
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("go build: %v\n%s", err, gotool.Tail(string(out), 1))
	}
	if err := os.Rename(tmp, bin); err != nil {
		return err
	}
	return os.RemoveAll(src)
}

// egctlTags leave out what egctl never runs and cannot build here:
// containers/storage's btrfs driver needs the btrfs C headers (Envoy
// Gateway v1.8 links it), and GPGME needs a C library.
const egctlTags = "exclude_graphdriver_btrfs,containers_image_openpgp"

// copyModule copies a module tree out of the (read-only) module cache,
// without its testdata, writable.
func copyModule(from, to string) error {
	return filepath.WalkDir(from, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(from, p)
		dst := filepath.Join(to, rel)
		if d.IsDir() {
			if d.Name() == "testdata" {
				return filepath.SkipDir
			}
			return os.MkdirAll(dst, 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(dst, b, 0o644)
	})
}
