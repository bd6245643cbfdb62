package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/gepcheck/gepcheck/admission"
	admissioncheck "github.com/gepcheck/gepcheck/admission/check"
	"github.com/gepcheck/gepcheck/admission/simulate"
	"github.com/gepcheck/gepcheck/simulator/load"
	"github.com/gepcheck/gepcheck/simulator/ref"
	"github.com/gepcheck/gepcheck/suite/cluster"
)

// admissionFormats are admission simulate's outputs.
var admissionFormats = []string{formatTable, formatJSON, formatYAML}

func newAdmission(stdin io.Reader, stdout io.Writer, exit func(code int)) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "admission",
		Short: "Predict the admission webhooks a request goes through (dynamic admission control)",
		Long: `admission predicts, from MutatingWebhookConfigurations and
ValidatingWebhookConfigurations (admissionregistration.k8s.io/v1), which
webhooks kube-apiserver calls on a request, in what order, why each is called
or not, which are called again (reinvocationPolicy IfNeeded) when others
patch the object, and what becomes of the request when some are down, slow,
failing or denying (docs/admission.md).`,
	}
	var o admissionOpts
	simulate := &cobra.Command{
		Use:   "simulate -f FILE|DIR|- (--request 'OP GROUP/VERSION RESOURCE[/SUB] [KEY=VALUE]...' | --request-file FILE)",
		Short: "The chain of webhooks a request goes through, and its outcome",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			stop, err := o.bounds.watch(cmd.ErrOrStderr())
			if err != nil {
				return err
			}
			defer stop()
			r, err := o.run(stdin)
			if err != nil {
				return err
			}
			switch o.output {
			case formatJSON:
				enc := json.NewEncoder(stdout)
				enc.SetIndent("", "  ")
				return enc.Encode(r)
			case formatYAML:
				return writeData(stdout, formatYAML, r)
			}
			return r.Table(stdout)
		},
	}
	explain := &cobra.Command{
		Use:   "explain -f FILE|DIR|- --request ... HOOK",
		Short: "Every check the API server makes of one webhook on a request",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			stop, err := o.bounds.watch(cmd.ErrOrStderr())
			if err != nil {
				return err
			}
			defer stop()
			r, err := o.run(stdin)
			if err != nil {
				return err
			}
			if err := r.Explain(stdout, args[0]); err != nil {
				return inputError{err}
			}
			return nil
		},
	}
	for _, c := range []*cobra.Command{simulate, explain} {
		c.Flags().StringSliceVarP(&o.files, "file", "f", nil, "webhook configurations (and CustomResourceDefinitions, whose resources requests and rules may name): YAML files, directories, or - for standard input")
		c.Flags().StringVar(&o.request, "request", "", "the request: OPERATION GROUP/VERSION RESOURCE[/SUBRESOURCE] and KEY=VALUE for ns, name, user, groups, labels, oldlabels, nslabels, nsmissing, dryrun")
		c.Flags().StringVar(&o.requestFile, "request-file", "", "the request as an admission.k8s.io/v1 AdmissionReview (and the v1 Namespace of its namespace)")
		c.Flags().StringSliceVar(&o.down, "down", nil, "webhooks (configuration/name/n, or name) that refuse connections")
		c.Flags().StringSliceVar(&o.slow, "slow", nil, "webhooks that answer after their timeoutSeconds")
		c.Flags().StringSliceVar(&o.failing, "failing", nil, "webhooks that answer HTTP 500")
		c.Flags().StringSliceVar(&o.deny, "deny", nil, "webhooks that deny the request")
		c.Flags().StringSliceVar(&o.patch, "patch", nil, "mutating webhooks that patch the object (set an annotation of their own, once)")
		c.Flags().IntVar(&o.maxDocuments, "max-documents", 10_000, "most documents read (each a configuration)")
		c.Flags().Int64Var(&o.maxBytes, "max-bytes", 16<<20, "most bytes read from one file")
		c.Flags().IntVar(&o.maxDepth, "max-depth", load.DefaultMaxDepth, "most levels of nesting in one document")
		c.Flags().Int64Var(&o.maxCELCost, "max-request-cel-cost", admission.DefaultMaxCELCost, "most CEL cost the matchConditions of all the webhooks may spend on the request (kube-apiserver's limits are 1,000,000 an expression and 2,500,000 a webhook)")
		o.bounds.add(c.Flags(), exit)
		c.Flags().BoolVar(&o.fromCluster, "from-cluster", false, "read the webhook configurations, the resources served (discovery, CRDs included) and the request's namespace labels (unless nslabels= or nsmissing= gives them) from a cluster")
		o.cluster.add(c, false)
	}
	addOutputFlag(simulate, &o.output, admissionFormats...)
	cmd.AddCommand(simulate, explain)
	return cmd
}

type admissionOpts struct {
	files                            []string
	request, requestFile             string
	down, slow, failing, deny, patch []string
	output                           string
	maxDocuments, maxDepth           int
	maxBytes, maxCELCost             int64
	bounds                           runBounds
	fromCluster                      bool
	cluster                          clusterFlags
}

func (o *admissionOpts) run(stdin io.Reader) (r admission.Report, err error) {
	defer func() {
		// Text from the input and the flags, printed to a terminal:
		// escaped (ref.Printable is idempotent, so a load.Error's
		// message, escaped already, is unchanged).
		var ie inputError
		var se simulate.InputError
		if errors.As(err, &ie) {
			err = inputError{printableError{ie.err}}
		} else if errors.As(err, &se) {
			err = inputError{printableError{se.Err}}
		}
	}()
	if err := o.check(); err != nil {
		return admission.Report{}, err
	}
	in, err := simulate.Read(o.options(), stdin)
	if err != nil {
		return admission.Report{}, err
	}
	// Read, the input is no longer waited on: from here, a signal ends
	// the run's work (the cluster's answers, the prediction between hooks
	// and, within a condition, by CEL's interrupt), exit 2.
	ctx, cancel := signalContext()
	defer cancel()
	var live *admissioncheck.Live
	if o.fromCluster {
		cl, err := cluster.FromKubeconfig(o.cluster.kubeconfig, o.cluster.context)
		if err != nil {
			return admission.Report{}, err
		}
		if live, err = admissioncheck.ReadLive(ctx, cl.Config, o.maxDocuments); err != nil {
			return admission.Report{}, fmt.Errorf("%s: %w", cl.Name, err)
		}
	}
	return in.Predict(ctx, live)
}

// check checks the flags before anything is read.
func (o *admissionOpts) check() error {
	if len(o.files) == 0 && !o.fromCluster {
		return inputError{errors.New("no webhook configurations: pass -f FILE, -f DIR or -f -, or --from-cluster")}
	}
	if (o.request == "") == (o.requestFile == "") {
		return inputError{errors.New("pass exactly one of --request and --request-file")}
	}
	if o.output != "" {
		if err := checkOutput(o.output, admissionFormats...); err != nil {
			return err
		}
	}
	if o.maxDocuments < 1 || o.maxBytes < 1 || o.maxDepth < 1 || o.maxCELCost < 1 {
		return inputError{errors.New("--max-documents, --max-bytes, --max-depth and --max-request-cel-cost must be positive")}
	}
	return nil
}

func (o *admissionOpts) options() simulate.Options {
	return simulate.Options{
		Files: o.files, Request: o.request, RequestFile: o.requestFile,
		Down: o.down, Slow: o.slow, Failing: o.failing, Deny: o.deny, Patch: o.patch,
		Limits:     load.Limits{MaxDocuments: o.maxDocuments, MaxBytes: o.maxBytes, MaxDepth: o.maxDepth},
		MaxCELCost: o.maxCELCost, FromCluster: o.fromCluster,
	}
}

// printableError is err with each line of its message escaped
// (ref.Printable): an Errors is one error a line.
type printableError struct{ err error }

func (e printableError) Error() string {
	lines := strings.Split(e.err.Error(), "\n")
	for i, l := range lines {
		lines[i] = ref.Printable(l)
	}
	return strings.Join(lines, "\n")
}
func (e printableError) Unwrap() error { return e.err }
