package impl

import (
	"context"
	"fmt"
	"io"
	"slices"

	"github.com/spf13/pflag"

	"github.com/gepcheck/gepcheck/internal/gotool"
)

// BuildTools is gepcheck tools: it builds (once, into gepcheck's cache)
// the pinned tools (gotool.All, gotool.Inputs) and the binaries of every
// implementation at its pinned version (Tooled), and writes each as
// "NAME VERSION PATH" to w once it is built.
func BuildTools(ctx context.Context, w io.Writer, logf func(string)) error {
	var tools []Tool
	for _, t := range slices.Concat(gotool.All, gotool.Inputs) {
		tools = append(tools, Tool{Name: t.Name, Version: t.Version, Build: t.Build})
	}
	// The implementations at their pinned versions: their flags' defaults.
	var f Flags
	f.AddFlags(pflag.NewFlagSet("tools", pflag.ContinueOnError))
	for _, cfg := range f.Configs() {
		if tooled, ok := cfg.(Tooled); ok {
			tools = append(tools, tooled.Tools()...)
		}
	}
	for _, t := range tools {
		p, err := t.Build(ctx, logf)
		if err != nil {
			return err
		}
		fmt.Fprintf(w, "%s %s %s\n", t.Name, t.Version, p)
	}
	return nil
}
