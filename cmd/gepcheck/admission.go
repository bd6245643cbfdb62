package main

import (
	"io"

	"github.com/gepcheck/gepcheck/internal/exitcode"
	"github.com/gepcheck/gepcheck/internal/watchdog"

	"github.com/spf13/cobra"
	"k8s.io/client-go/rest"

	"github.com/gepcheck/gepcheck/admission"
	admissionsim "github.com/gepcheck/gepcheck/admission/simulate"
	"github.com/gepcheck/gepcheck/simulator/load"
	"github.com/gepcheck/gepcheck/suite/cluster"
	"github.com/gepcheck/gepcheck/suite/cluster/providers"
)

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
			stop, err := o.bounds.Watch(cmd.ErrOrStderr(), exit)
			if err != nil {
				return err
			}
			defer stop()
			r, err := o.run(stdin)
			if err != nil {
				return err
			}
			return admissionsim.Write(stdout, o.output, r)
		},
	}
	explain := &cobra.Command{
		Use:   "explain -f FILE|DIR|- --request ... HOOK",
		Short: "Every check the API server makes of one webhook on a request",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			stop, err := o.bounds.Watch(cmd.ErrOrStderr(), exit)
			if err != nil {
				return err
			}
			defer stop()
			r, err := o.run(stdin)
			if err != nil {
				return err
			}
			if err := r.Explain(stdout, args[0]); err != nil {
				return exitcode.Input{Err: err}
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
		o.bounds.AddFlags(c.Flags())
		c.Flags().BoolVar(&o.fromCluster, "from-cluster", false, "read the webhook configurations, the resources served (discovery, CRDs included) and the request's namespace labels (unless nslabels= or nsmissing= gives them) from a cluster")
		o.cluster.AddFlags(c.Flags(), false)
	}
	addOutputFlag(simulate, &o.output, admissionsim.Formats...)
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
	bounds                           watchdog.Flags
	fromCluster                      bool
	cluster                          providers.Flags
}

// run is admissionsim.Run of the flags, the cluster read from --kubeconfig
// and --context.
func (o *admissionOpts) run(stdin io.Reader) (admission.Report, error) {
	return admissionsim.Run(o.options(), o.output, stdin, func() (*rest.Config, string, error) {
		cl, err := cluster.FromKubeconfig(o.cluster.Kubeconfig, o.cluster.Context)
		if err != nil {
			return nil, "", err
		}
		return cl.Config, cl.Name, nil
	})
}

func (o *admissionOpts) options() admissionsim.Options {
	return admissionsim.Options{
		Files: o.files, Request: o.request, RequestFile: o.requestFile,
		Down: o.down, Slow: o.slow, Failing: o.failing, Deny: o.deny, Patch: o.patch,
		Limits:     load.Limits{MaxDocuments: o.maxDocuments, MaxBytes: o.maxBytes, MaxDepth: o.maxDepth},
		MaxCELCost: o.maxCELCost, FromCluster: o.fromCluster,
	}
}
