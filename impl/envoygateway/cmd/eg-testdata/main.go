// Command eg-testdata writes Envoy Gateway's translator test inputs as
// Kubernetes manifests (package egtestdata; hack/eg-testdata.sh runs it):
//
//	eg-testdata OUTDIR FILE.in.yaml...
//
// Each FILE.in.yaml becomes OUTDIR/FILE.yaml. Exit 2 on bad input.
package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/gepcheck/gepcheck/impl/envoygateway/egtestdata"
)

func main() {
	if len(os.Args) < 3 {
		fmt.Fprintln(os.Stderr, "usage: eg-testdata OUTDIR FILE.in.yaml...")
		os.Exit(2)
	}
	out := os.Args[1]
	if err := os.MkdirAll(out, 0o755); err != nil {
		fmt.Fprintln(os.Stderr, "eg-testdata:", err)
		os.Exit(2)
	}
	for _, f := range os.Args[2:] {
		data, err := os.ReadFile(f)
		if err == nil {
			data, err = egtestdata.Manifests(filepath.Base(f), data)
		}
		if err == nil {
			err = os.WriteFile(filepath.Join(out, strings.TrimSuffix(filepath.Base(f), ".in.yaml")+".yaml"), data, 0o644)
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, "eg-testdata:", err)
			os.Exit(2)
		}
	}
}
