package render_test

import (
	"bytes"
	"fmt"
	"io"
	"testing"

	"github.com/gepcheck/gepcheck/generators"
	"github.com/gepcheck/gepcheck/simulator"
	"github.com/gepcheck/gepcheck/simulator/engine"
	"github.com/gepcheck/gepcheck/simulator/render"
)

// BenchmarkPipeline is the whole-pipeline benchmark of docs/performance.md:
// the workload of generators.Workload read as simulate reads it (load →
// topology → engine), rendered as simulate -o json renders it.
func BenchmarkPipeline(b *testing.B) {
	for _, routes := range []int{1000, 3000, 10000, 30000} {
		var in bytes.Buffer
		if err := generators.Workload(&in, routes, 1); err != nil {
			b.Fatal(err)
		}
		for _, sem := range []engine.Semantics{engine.StickyOverrides, engine.GEP713} {
			b.Run(fmt.Sprintf("routes=%d/%s", routes, sem), func(b *testing.B) {
				b.ReportAllocs()
				b.SetBytes(int64(in.Len()))
				for b.Loop() {
					m, err := simulator.LoadFiles([]string{"-"}, bytes.NewReader(in.Bytes()), simulator.Options{Profiles: []string{"color-inherited"}})
					if err != nil {
						b.Fatal(err)
					}
					if err := render.Data(io.Discard, "json", m.Run(sem, nil)); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
