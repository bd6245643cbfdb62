package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"sigs.k8s.io/yaml"

	"github.com/gepcheck/gepcheck/internal/signals"
	"github.com/gepcheck/gepcheck/internal/watchdog"
	"github.com/gepcheck/gepcheck/simulator/engine"
	"github.com/gepcheck/gepcheck/suite/cluster/providers"
)

// addVocabularyFlag adds --status-vocabulary (docs/semantics.md, Status
// vocabularies), as --semantics is added: the conditions a policy's status
// is written in.
func addVocabularyFlag(cmd *cobra.Command, into *string) {
	cmd.Flags().StringVar(into, "status-vocabulary", string(engine.VocabularyMerged), "policy status conditions: merged (GEP-713 as merged upstream: Accepted, Programmed) or draft (GEP-713's 2025 draft: Accepted, Enforced)")
}

// parseVocabularyFlag reads the value of --status-vocabulary.
func parseVocabularyFlag(s string) (engine.Vocabulary, error) {
	v, err := engine.ParseVocabulary(s)
	if err != nil {
		return "", inputError{fmt.Errorf("--status-vocabulary: %w", err)}
	}
	return v, nil
}

// addNoHeadersFlag adds --no-headers, kubectl's: tables without their
// section titles and column headers.
func addNoHeadersFlag(cmd *cobra.Command, into *bool) {
	cmd.Flags().BoolVar(into, "no-headers", false, "tables (-o table, -o wide) without section titles and column headers")
}

// clusterFlags select a cluster.
type clusterFlags struct {
	cluster, kubeconfig, context, kindName string
}

func (f *clusterFlags) add(cmd *cobra.Command, withProvider bool) {
	if withProvider {
		cmd.Flags().StringVar(&f.cluster, "cluster", "", "run in a cluster: local (a control plane gepcheck builds and starts), kind (sigs.k8s.io/kind, needs Docker), or kubeconfig (any existing cluster)")
		cmd.Flags().StringVar(&f.kindName, "kind-cluster", "gepcheck", "name of the kind cluster, for --cluster kind")
	}
	cmd.Flags().StringVar(&f.kubeconfig, "kubeconfig", "", "kubeconfig file (default: KUBECONFIG, ~/.kube/config)")
	cmd.Flags().StringVar(&f.context, "context", "", "kubeconfig context (default: the current one)")
}

func (f *clusterFlags) options(logf func(string)) providers.Options {
	return providers.Options{Kubeconfig: f.kubeconfig, Context: f.context, KindName: f.kindName, Log: logf}
}

// interrupted is err, or, when ctx (nil: none) was cancelled by a signal,
// the input error (exit 2) that says so (signals.Stopped).
func interrupted(ctx context.Context, err error) error {
	if s := signals.Stopped(ctx); s != nil {
		return inputError{s}
	}
	return err
}

// runBounds are the flags of the run's bounds (--max-memory, --timeout)
// of simulate, explain, check and admission (docs/limits.md), and how the
// watch ends the process (os.Exit but in tests: a value, not a global the
// watch's goroutine would read while a test replaces it).
type runBounds struct {
	maxMemory int64
	timeout   time.Duration
	exit      func(code int)
}

func (b *runBounds) add(fs *pflag.FlagSet, exit func(code int)) {
	b.exit = exit
	fs.Int64Var(&b.maxMemory, "max-memory", 4<<30, "most bytes of memory the run may hold")
	fs.DurationVar(&b.timeout, "timeout", 0, "most wall-clock time of the run (0: none)")
}

// watch checks the flags and watches the rest of the run within them
// (watchdog.Watch, exit 2); stop ends the watch.
func (b runBounds) watch(stderr io.Writer) (stop func(), err error) {
	if b.maxMemory < 1 || b.timeout < 0 {
		return nil, inputError{errors.New("--max-memory must be positive, --timeout not negative")}
	}
	return watchdog.Watch(stderr, b.maxMemory, b.timeout, func() { b.exit(exitBadInput) }), nil
}

// The output formats, one vocabulary across commands (docs/output.md):
// each command takes the ones that mean something for what it prints.
const (
	formatTable = "table" // for people, fitting 120 columns
	formatWide  = "wide"  // the table, every cell in full
	formatName  = "name"  // kubectl's kind/name, one a line (an ID for requirements)
	formatJSON  = "json"
	formatYAML  = "yaml"
	formatJUnit = "junit" // JUnit XML, for a check's passes and failures
)

// addOutputFlag adds -o/--output taking formats, the first the default,
// completed from them.
func addOutputFlag(cmd *cobra.Command, into *string, formats ...string) {
	cmd.Flags().StringVarP(into, "output", "o", formats[0], "output format: "+strings.Join(formats, ", "))
	_ = cmd.RegisterFlagCompletionFunc("output", cobra.FixedCompletions(formats, cobra.ShellCompDirectiveNoFileComp))
}

// checkOutput is the error for an --output value not among formats.
func checkOutput(v string, formats ...string) error {
	if slices.Contains(formats, v) {
		return nil
	}
	return inputError{fmt.Errorf("--output %q: one of %s", v, strings.Join(formats, ", "))}
}

// writeData writes v as JSON (indented two spaces, < and > as they are)
// or YAML.
func writeData(w io.Writer, format string, v any) error {
	if format == formatYAML {
		b, err := yaml.Marshal(v)
		if err != nil {
			return err
		}
		_, err = w.Write(b)
		return err
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}
