package simulate

import (
	"io"

	"github.com/spf13/pflag"

	"github.com/gepcheck/gepcheck/admission"
	"github.com/gepcheck/gepcheck/internal/exitcode"
	"github.com/gepcheck/gepcheck/internal/watchdog"
	"github.com/gepcheck/gepcheck/simulator/load"
)

// Flags are the command-line flags of admission simulate and explain
// (docs/admission.md): the Options, -o and the run's bounds
// (docs/limits.md). The cluster --from-cluster reads is the command's
// (Connect).
type Flags struct {
	Options
	Output string // -o, of Formats (the command adds it)
	Bounds watchdog.Flags
}

// AddFlags adds the flags of Options and the bounds to fs.
func (f *Flags) AddFlags(fs *pflag.FlagSet) {
	fs.StringSliceVarP(&f.Files, "file", "f", nil, "webhook configurations (and CustomResourceDefinitions, whose resources requests and rules may name): YAML files, directories, or - for standard input")
	fs.StringVar(&f.Request, "request", "", "the request: OPERATION GROUP/VERSION RESOURCE[/SUBRESOURCE] and KEY=VALUE for ns, name, user, groups, labels, oldlabels, nslabels, nsmissing, dryrun")
	fs.StringVar(&f.RequestFile, "request-file", "", "the request as an admission.k8s.io/v1 AdmissionReview (and the v1 Namespace of its namespace)")
	fs.StringSliceVar(&f.Down, "down", nil, "webhooks (configuration/name/n, or name) that refuse connections")
	fs.StringSliceVar(&f.Slow, "slow", nil, "webhooks that answer after their timeoutSeconds")
	fs.StringSliceVar(&f.Failing, "failing", nil, "webhooks that answer HTTP 500")
	fs.StringSliceVar(&f.Deny, "deny", nil, "webhooks that deny the request")
	fs.StringSliceVar(&f.Patch, "patch", nil, "mutating webhooks that patch the object (set an annotation of their own, once)")
	fs.IntVar(&f.Limits.MaxDocuments, "max-documents", 10_000, "most documents read (each a configuration)")
	fs.Int64Var(&f.Limits.MaxBytes, "max-bytes", 16<<20, "most bytes read from one file")
	fs.IntVar(&f.Limits.MaxDepth, "max-depth", load.DefaultMaxDepth, "most levels of nesting in one document")
	fs.Int64Var(&f.MaxCELCost, "max-request-cel-cost", admission.DefaultMaxCELCost, "most CEL cost the matchConditions of all the webhooks may spend on the request (kube-apiserver's limits are 1,000,000 an expression and 2,500,000 a webhook)")
	f.Bounds.AddFlags(fs)
	fs.BoolVar(&f.FromCluster, "from-cluster", false, "read the webhook configurations, the resources served (discovery, CRDs included) and the request's namespace labels (unless nslabels= or nsmissing= gives them) from a cluster")
}

// Simulate is admission simulate: the prediction of Run, within the
// bounds, written to stdout as f.Output.
func (f *Flags) Simulate(stdin io.Reader, stdout, stderr io.Writer, exit func(code int), connect Connect) error {
	return f.watched(stdin, stderr, exit, connect, func(r admission.Report) error {
		return Write(stdout, f.Output, r)
	})
}

// Explain is admission explain: every check of the webhook hook on the
// request, within the bounds; a hook the configurations lack is bad
// input.
func (f *Flags) Explain(stdin io.Reader, stdout, stderr io.Writer, exit func(code int), connect Connect, hook string) error {
	return f.watched(stdin, stderr, exit, connect, func(r admission.Report) error {
		if err := r.Explain(stdout, hook); err != nil {
			return exitcode.Input{Err: err}
		}
		return nil
	})
}

// watched runs the prediction and then print within the bounds: past
// one, exit ends the process (watchdog.Flags.Watch).
func (f *Flags) watched(stdin io.Reader, stderr io.Writer, exit func(code int), connect Connect, print func(admission.Report) error) error {
	stop, err := f.Bounds.Watch(stderr, exit)
	if err != nil {
		return err
	}
	defer stop()
	r, err := Run(f.Options, f.Output, stdin, connect)
	if err != nil {
		return err
	}
	return print(r)
}
