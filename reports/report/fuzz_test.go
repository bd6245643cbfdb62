package report

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzReadResults: any bytes given as a results file are refused with an
// error or accepted as results that validate, whose report directory is
// under the folder named, and whose Markdown, JUnit and ConformanceReport
// are written without a panic (docs/fuzzing.md).
func FuzzReadResults(f *testing.F) {
	seeds, _ := filepath.Glob("../../cmd/gepcheck/testdata/corpus/report-*.json")
	for _, s := range seeds {
		data, err := os.ReadFile(s)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Add([]byte(`{}`))
	f.Add([]byte(`{"apiVersion":"gepcheck.dev/v1alpha1","kind":"RunResults"}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		r, err := ParseResults(data)
		if err != nil {
			return
		}
		if err := r.Validate(); err != nil {
			t.Fatalf("accepted, then Validate: %v", err)
		}
		dir, err := Dir("out", r)
		if err != nil {
			t.Fatalf("accepted, but no directory: %v", err)
		}
		if rel, err := filepath.Rel("out", dir); err != nil || strings.HasPrefix(rel, "..") || strings.Count(rel, string(filepath.Separator)) != 1 {
			t.Fatalf("directory %s is not two levels under out", dir)
		}
		Markdown([]*Results{r})
		Compare([]*Results{r}, nil)
		Matrix([]*Results{r})
		if _, err := JUnit(r); err != nil {
			t.Fatalf("JUnit: %v", err)
		}
		if _, err := MarshalConformanceReport(ConformanceReport(r)); err != nil && r.Check() == nil {
			t.Fatalf("ConformanceReport: %v", err)
		}
	})
}
