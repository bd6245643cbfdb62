package providers

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os/exec"

	"github.com/gepcheck/gepcheck/cluster"
	"github.com/gepcheck/gepcheck/internal/exitcode"
)

// Clean is gepcheck clean: it deletes from the cluster --kubeconfig and
// --context name what gepcheck left there (cluster.Clean; with crds, the
// CRDs it installed too) and writes each object deleted and the count to
// w. A kubeconfig, or a credential plugin it names, that does not exist
// is bad input (as input.EnvironmentOr has it; connecting loads no YAML).
func (f *Flags) Clean(ctx context.Context, crds bool, w io.Writer) error {
	connect, _ := Lookup("kubeconfig")
	c, err := connect(ctx, f.Options(nil))
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) || errors.Is(err, exec.ErrNotFound) {
			return exitcode.Input{Err: err}
		}
		return err
	}
	deleted, err := cluster.Clean(ctx, c, crds)
	for _, d := range deleted {
		fmt.Fprintf(w, "deleted %s\n", d)
	}
	fmt.Fprintf(w, "%d object(s) deleted from %s\n", len(deleted), c.Name)
	return err
}
