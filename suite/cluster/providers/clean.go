package providers

import (
	"context"
	"fmt"
	"io"

	"github.com/gepcheck/gepcheck/suite/cluster"
	"github.com/gepcheck/gepcheck/suite/input"
)

// Clean is gepcheck clean: it deletes from the cluster --kubeconfig and
// --context name what gepcheck left there (cluster.Clean; with crds, the
// CRDs it installed too) and writes each object deleted and the count to
// w. A kubeconfig that cannot be read is bad input (input.EnvironmentOr).
func (f *Flags) Clean(ctx context.Context, crds bool, w io.Writer) error {
	connect, _ := Lookup("kubeconfig")
	c, err := connect(ctx, f.Options(nil))
	if err != nil {
		return input.EnvironmentOr(err)
	}
	deleted, err := cluster.Clean(ctx, c, crds)
	for _, d := range deleted {
		fmt.Fprintf(w, "deleted %s\n", d)
	}
	fmt.Fprintf(w, "%d object(s) deleted from %s\n", len(deleted), c.Name)
	return err
}
