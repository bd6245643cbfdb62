package main

import (
	"io"

	"github.com/spf13/cobra"

	admissionsim "github.com/gepcheck/gepcheck/admission/simulate"
	"github.com/gepcheck/gepcheck/cluster/providers"
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
	var f admissionsim.Flags
	var cl providers.Flags // the cluster --from-cluster reads
	simulate := &cobra.Command{
		Use:   "simulate -f FILE|DIR|- (--request 'OP GROUP/VERSION RESOURCE[/SUB] [KEY=VALUE]...' | --request-file FILE)",
		Short: "The chain of webhooks a request goes through, and its outcome",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return f.Simulate(stdin, stdout, cmd.ErrOrStderr(), exit, cl.RESTConfig)
		},
	}
	explain := &cobra.Command{
		Use:   "explain -f FILE|DIR|- --request ... HOOK",
		Short: "Every check the API server makes of one webhook on a request",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return f.Explain(stdin, stdout, cmd.ErrOrStderr(), exit, cl.RESTConfig, args[0])
		},
	}
	for _, c := range []*cobra.Command{simulate, explain} {
		f.AddFlags(c.Flags())
		cl.AddFlags(c.Flags(), false)
	}
	addOutputFlag(simulate, &f.Output, admissionsim.Formats...)
	cmd.AddCommand(simulate, explain)
	return cmd
}
