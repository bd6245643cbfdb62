package simulate

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"slices"
	"strings"
	"syscall"

	"k8s.io/client-go/rest"
	"sigs.k8s.io/yaml"

	"github.com/gepcheck/gepcheck/admission"
	admissioncheck "github.com/gepcheck/gepcheck/admission/check"
	"github.com/gepcheck/gepcheck/internal/exitcode"
	"github.com/gepcheck/gepcheck/simulator/ref"
)

// Formats are admission simulate's outputs (-o), the first the default.
var Formats = []string{"table", "json", "yaml"}

// Connect is the cluster --from-cluster reads: its client configuration
// and its name, for errors.
type Connect func() (cfg *rest.Config, name string, err error)

// Run is what admission simulate and explain do between their flags and
// their report: o (and output, "" for explain) checked, the files read,
// the cluster's configurations read through connect (with
// o.FromCluster), the prediction. Errors of the input are InputErrors,
// their text escaped (ref.Printable: it is printed to a terminal); a
// signal stops the run once the input is read.
func Run(o Options, output string, stdin io.Reader, connect Connect) (r admission.Report, err error) {
	defer func() {
		var se exitcode.Input
		if errors.As(err, &se) {
			err = exitcode.Input{Err: printableError{se.Err}}
		}
	}()
	if err := o.check(output); err != nil {
		return admission.Report{}, err
	}
	in, err := Read(o, stdin)
	if err != nil {
		return admission.Report{}, err
	}
	// Read, the input is no longer waited on: from here, a signal ends
	// the run's work (the cluster's answers, the prediction between hooks
	// and, within a condition, by CEL's interrupt), exit 2.
	ctx, cancel := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer cancel()
	var live *admissioncheck.Live
	if o.FromCluster {
		cfg, name, err := connect()
		if err != nil {
			return admission.Report{}, err
		}
		if live, err = admissioncheck.ReadLive(ctx, cfg, o.Limits.MaxDocuments); err != nil {
			return admission.Report{}, fmt.Errorf("%s: %w", name, err)
		}
	}
	return in.Predict(ctx, live)
}

// check checks the flags before anything is read.
func (o Options) check(output string) error {
	if len(o.Files) == 0 && !o.FromCluster {
		return exitcode.Input{Err: errors.New("no webhook configurations: pass -f FILE, -f DIR or -f -, or --from-cluster")}
	}
	if (o.Request == "") == (o.RequestFile == "") {
		return exitcode.Input{Err: errors.New("pass exactly one of --request and --request-file")}
	}
	if output != "" && !slices.Contains(Formats, output) {
		return exitcode.Input{Err: fmt.Errorf("--output %q: one of %s", output, strings.Join(Formats, ", "))}
	}
	if o.Limits.MaxDocuments < 1 || o.Limits.MaxBytes < 1 || o.Limits.MaxDepth < 1 || o.MaxCELCost < 1 {
		return exitcode.Input{Err: errors.New("--max-documents, --max-bytes, --max-depth and --max-request-cel-cost must be positive")}
	}
	return nil
}

// Write prints r as format, one of Formats.
func Write(w io.Writer, format string, r admission.Report) error {
	switch format {
	case "json":
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(r)
	case "yaml":
		b, err := yaml.Marshal(r)
		if err != nil {
			return err
		}
		_, err = w.Write(b)
		return err
	}
	return r.Table(w)
}

// printableError is err with each line of its message escaped
// (ref.Printable, idempotent: a load.Error's message, escaped already, is
// unchanged): an Errors is one error a line.
type printableError struct{ err error }

func (e printableError) Error() string {
	lines := strings.Split(e.err.Error(), "\n")
	for i, l := range lines {
		lines[i] = ref.Printable(l)
	}
	return strings.Join(lines, "\n")
}
func (e printableError) Unwrap() error { return e.err }
