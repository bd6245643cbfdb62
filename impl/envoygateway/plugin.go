package envoygateway

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/gepcheck/gepcheck/impl"
	"github.com/gepcheck/gepcheck/internal/exitcode"
	"github.com/gepcheck/gepcheck/suite/differential"
	"github.com/gepcheck/gepcheck/suite/incluster"
	"github.com/gepcheck/gepcheck/suite/observe"
)

func init() { impl.Register(plugin{}) }

// plugin is Envoy Gateway's own, not impl/internal/controller's Plugin
// (which its InCluster uses: Expectation, Policies, CRDs): Plugin is an
// implementation with no offline form and one flag, --NAME-version,
// "PROJECT version to build and run". Envoy Gateway has an offline form
// (egctl x translate), a second flag (--egctl-build) that Offline,
// Describe and ReplayFlags read, and its version flag's help says what it
// builds ("whose egctl to build and run"), which users see in --help.
type plugin struct{}

func (plugin) Name() string { return "envoy-gateway" }

func (plugin) Doc() string {
	return "egctl x translate offline, built and cached by gepcheck; its controller in a cluster"
}

func (plugin) Configure(fs *pflag.FlagSet) impl.Config {
	c := &plugConfig{}
	fs.StringVar(&c.version, "envoy-gateway-version", Version, "Envoy Gateway version whose egctl to build and run")
	fs.StringVar(&c.build, "egctl-build", EgctlFast, "which build of egctl: fast (validation compiled once per CRD; output checked identical to stock) or stock (go install, unmodified); see gepcheck egctl --help")
	return c
}

type plugConfig struct{ version, build string }

func (c *plugConfig) Offline(ctx context.Context) (observe.Observer, error) {
	if c.build != EgctlFast && c.build != EgctlStock {
		return nil, exitcode.Input{Err: fmt.Errorf("--egctl-build %q: one of fast, stock", c.build)}
	}
	bin, err := Egctl(ctx, c.version, c.build)
	if err != nil {
		return nil, err
	}
	return &Translator{Egctl: bin}, nil
}

func (c *plugConfig) InCluster(context.Context) (incluster.Implementation, error) {
	return &InCluster{Version: c.version}, nil
}

// FuzzKinds implements differential.Fuzzer: each policy kind with the profile of
// Envoy Gateway's documentation.
func (c *plugConfig) FuzzKinds() []differential.FuzzKind {
	var btp []string
	for _, f := range BTPFields {
		btp = append(btp, strings.Join(f.Path, "."))
	}
	btpLevels := map[string][]string{
		"Gateway": {"none"}, "Gateway listener": {"none"},
		"HTTPRoute": {"none", "JSONMerge", "StrategicMerge"}, "HTTPRoute rule": {"none", "JSONMerge", "StrategicMerge"},
	}
	ctpLevels := map[string][]string{"Gateway": {"none"}, "Gateway listener": {"none"}}
	spLevels := map[string][]string{"Gateway": {"none"}, "HTTPRoute": {"none"}, "HTTPRoute rule": {"none"}}
	// Every generator draws several targetRefs, missing ones and every
	// order of creationTimestamps and names.
	shared := []string{"targetRefs: several", "targetRefs: missing Gateway", "targetRefs: missing beside existing",
		"creationTimestamp: equal", "creationTimestamp: older has the earlier name", "creationTimestamp: older has the later name"}
	return []differential.FuzzKind{
		// mergeType is honoured on route-level policies, with both
		// values the CRD offers; nulls, empty objects and lists at
		// every level with every option.
		{Kind: "BackendTrafficPolicy", Profile: "envoy-gateway-backendtrafficpolicy",
			Combinations: slices.Concat(differential.DeclaredCombinations(append(btp, "value null", "value {}", "value []", "value list"), btpLevels),
				shared, []string{"targetRefs: missing HTTPRoute"})},
		{Kind: "ClientTrafficPolicy", Profile: "envoy-gateway-clienttrafficpolicy",
			Combinations: slices.Concat(differential.DeclaredCombinations([]string{"connection.connectionLimit.value", "value null", "value {}"}, ctpLevels), shared)},
		{Kind: "SecurityPolicy", Profile: "envoy-gateway-securitypolicy",
			Combinations: slices.Concat(differential.DeclaredCombinations([]string{"cors.allowOrigins", "value null", "value {}", "value list"}, spLevels),
				shared, []string{"targetRefs: missing HTTPRoute"})},
		// Gateway API's own kind, judged by its API reference's reading
		// (docs/semantics.md, Which None policies conflict).
		{Kind: "BackendTLSPolicy", Profile: "backendtlspolicy-gateway-api"},
	}
}

// Who implements impl.Reporter.
func (c *plugConfig) Who() impl.Who {
	return impl.Who{Organization: "envoyproxy", Project: "envoy-gateway", URL: "https://github.com/envoyproxy/gateway", Version: c.version,
		Contact: []string{"https://github.com/envoyproxy/gateway/issues/new/choose"}}
}

// Describe implements differential.Fuzzer.
func (c *plugConfig) Describe() string {
	return fmt.Sprintf("envoy-gateway %s (egctl x translate, %s build)", c.version, c.build)
}

// ReplayFlags implements differential.Fuzzer: the version, always (a
// replay must run the version reported, whatever gepcheck pins when it
// is read), and the egctl build when it is not the default.
func (c *plugConfig) ReplayFlags() []string {
	out := []string{"--envoy-gateway-version", c.version}
	if c.build != EgctlFast {
		out = append(out, "--egctl-build", c.build)
	}
	return out
}

// ProfileSource implements differential.Fuzzer.
func (c *plugConfig) ProfileSource() string {
	return "the profile Envoy Gateway's documentation describes"
}

// Tools implements impl.Tooled: the controller.
func (c *plugConfig) Tools() []impl.Tool {
	t := ControllerTool(c.version)
	return []impl.Tool{{Name: t.Name, Version: t.Version, Build: t.Build}}
}

// Commands implements impl.Commander: gepcheck egctl.
func (plugin) Commands(stdout, _ io.Writer) map[string][]*cobra.Command {
	var version, build string
	cmd := &cobra.Command{
		Use:   "egctl [--envoy-gateway-version V] [--egctl-build fast|stock]",
		Short: "Build Envoy Gateway's egctl into gepcheck's cache (once) and print its path",
		Long: `egctl builds Envoy Gateway's egctl into gepcheck's cache the first time and
prints its path. Two builds (docs/envoy-gateway.md):

  stock  go install github.com/envoyproxy/gateway/cmd/egctl@VERSION, unmodified
  fast   the same module versions, with each CRD's validation (its compiled
         CEL rules) and defaulting schema built once per run instead of once
         per document; translation untouched; make ci checks that it prints
         the same bytes as stock`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if build != EgctlFast && build != EgctlStock {
				return exitcode.Input{Err: fmt.Errorf("--egctl-build %q: one of fast, stock", build)}
			}
			bin, err := Egctl(context.Background(), version, build)
			if err != nil {
				return err
			}
			fmt.Fprintln(stdout, bin)
			return nil
		},
	}
	cmd.Flags().StringVar(&version, "envoy-gateway-version", Version, "Envoy Gateway version")
	cmd.Flags().StringVar(&build, "egctl-build", EgctlFast, "which build of egctl: fast or stock")
	return map[string][]*cobra.Command{"": {cmd}}
}
