// Package simulate is what gepcheck admission simulate and explain do
// between their flags and their report (docs/admission.md): read the
// webhook configurations, CRDs and request within limits, put a cluster's
// configurations and resources in with the files', and predict within the
// CEL budget.
package simulate

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strings"

	admissionv1 "k8s.io/api/admissionregistration/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"

	"github.com/gepcheck/gepcheck/admission"
	admissioncheck "github.com/gepcheck/gepcheck/admission/check"
	"github.com/gepcheck/gepcheck/internal/exitcode"
	"github.com/gepcheck/gepcheck/simulator/load"
)

// Options are the inputs of a prediction, as the flags give them.
type Options struct {
	Files       []string // -f: files, directories, or - for standard input
	Request     string   // --request, or
	RequestFile string   // --request-file
	// The webhooks that behave otherwise than answering at once with
	// allowed (--down, --slow, --failing, --deny, --patch).
	Down, Slow, Failing, Deny, Patch []string
	Limits                           load.Limits
	MaxCELCost                       int64
	FromCluster                      bool // the cluster's configurations are read (Predict's live)
}

// Input is what was read from the files, before the prediction.
type Input struct {
	opts        Options
	mutating    []admissionv1.MutatingWebhookConfiguration
	validating  []admissionv1.ValidatingWebhookConfiguration
	crds        []apiextensionsv1.CustomResourceDefinition
	requestDocs []*load.Doc
}

// Read reads the files (and the request file) within o.Limits, stdin for
// "-"; every error is an InputError.
func Read(o Options, stdin io.Reader) (Input, error) {
	in := Input{opts: o}
	docs, err := load.ReadLimited(o.Files, stdin, o.Limits)
	if err != nil {
		return in, exitcode.Input{Err: err}
	}
	if o.RequestFile != "" {
		if in.requestDocs, err = load.ReadLimited([]string{o.RequestFile}, stdin, o.Limits); err != nil {
			return in, exitcode.Input{Err: err}
		}
	}
	if in.mutating, in.validating, err = admission.Configurations(docs); err != nil {
		return in, exitcode.Input{Err: err}
	}
	if in.crds, err = admission.CRDs(docs); err != nil {
		return in, exitcode.Input{Err: err}
	}
	return in, nil
}

// Predict predicts the request's way through the webhooks of the files
// and, with live (o.FromCluster), the cluster's. Errors of the input are
// InputErrors; those of reading the cluster are not.
func (in Input) Predict(ctx context.Context, live *admissioncheck.Live) (admission.Report, error) {
	o := in.opts
	mutating, validating, res := in.mutating, in.validating, admission.Builtin()
	if live != nil {
		// The cluster's configurations, before those of the files, which
		// replace the cluster's of the same name (what if this one were
		// changed?); its resources in place of the built-in snapshot.
		mutating = replaced(live.Mutating, mutating, func(c admissionv1.MutatingWebhookConfiguration) string { return c.Name })
		validating = replaced(live.Validating, validating, func(c admissionv1.ValidatingWebhookConfiguration) string { return c.Name })
		res = live.Resources
	}
	// Files without a configuration are a mistake; a cluster without
	// one is an answer: the request meets no webhook.
	if len(mutating)+len(validating) == 0 && !o.FromCluster {
		return admission.Report{}, exitcode.Input{Err: fmt.Errorf("no webhook configurations in %s (admissionregistration.k8s.io/v1 MutatingWebhookConfiguration or ValidatingWebhookConfiguration): nothing to predict", strings.Join(o.Files, ", "))}
	}
	res = res.WithCRDs(in.crds)
	req, err := in.request(ctx, res, live)
	if err != nil {
		return admission.Report{}, err
	}
	chain := admission.Chain(mutating, validating)
	keys, err := o.behaviours()
	if err != nil {
		return admission.Report{}, err
	}
	behave, key, err := admission.ResolveBehaviours(chain, keys)
	if err != nil {
		return admission.Report{}, exitcode.Input{Err: fmt.Errorf("--%s %s: %w", flagOf(keys[key]), key, err)}
	}
	p, err := admission.PredictBounded(ctx, admission.Bounds{MaxCELCost: o.MaxCELCost}, chain, req, res, behave)
	if err != nil {
		return admission.Report{}, exitcode.Input{Err: PredictionError(ctx, err)}
	}
	return admission.NewReport(req, p), nil
}

// request is the request of --request (with its namespace's labels from
// live) or of --request-file.
func (in Input) request(ctx context.Context, res *admission.Snapshot, live *admissioncheck.Live) (admission.Request, error) {
	o := in.opts
	if o.Request == "" {
		req, err := admission.RequestFile(o.RequestFile, in.requestDocs, res)
		if err != nil {
			return req, exitcode.Input{Err: fmt.Errorf("--request-file: %w", err)}
		}
		return req, nil
	}
	req, err := admission.ParseRequest(o.Request, res)
	if err != nil {
		return req, exitcode.Input{Err: fmt.Errorf("--request: %w", err)}
	}
	if live != nil {
		return live.WithNamespace(ctx, req, o.Request)
	}
	return req, nil
}

// behaviours maps each webhook named by a behaviour's flag to it; a
// webhook named by two is an error.
func (o Options) behaviours() (map[string]admission.Behaviour, error) {
	keys := map[string]admission.Behaviour{}
	for _, f := range []struct {
		b     admission.Behaviour
		names []string
	}{{admission.Down, o.Down}, {admission.Slow, o.Slow}, {admission.Error, o.Failing}, {admission.Deny, o.Deny}, {admission.Patch, o.Patch}} {
		for _, n := range f.names {
			if b, twice := keys[n]; twice {
				return nil, exitcode.Input{Err: fmt.Errorf("--%s %s: the webhook is also given --%s", flagOf(f.b), n, flagOf(b))}
			}
			keys[n] = f.b
		}
	}
	return keys, nil
}

// replaced is the configurations of cluster but those of file's names,
// then file's.
func replaced[C any](cluster, file []C, name func(C) string) []C {
	out := slices.DeleteFunc(slices.Clone(cluster), func(c C) bool {
		return slices.ContainsFunc(file, func(f C) bool { return name(f) == name(c) })
	})
	return append(out, file...)
}

// PredictionError says what stopped a prediction, and the flag that
// raises the limit.
func PredictionError(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return err
	}
	return fmt.Errorf("%w (--max-request-cel-cost raises it; docs/limits.md)", err)
}

func flagOf(b admission.Behaviour) string {
	if b == admission.Error {
		return "failing"
	}
	return string(b)
}
