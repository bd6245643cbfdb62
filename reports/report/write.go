package report

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/gepcheck/gepcheck/internal/outpath"
)

// Write writes r's reports into dir/<implementation>/<version>/ (Files):
// the ConformanceReport YAML (checked by decoding it strictly with the
// upstream types), JUnit, the README and the HTML page, and the results
// they are made from. It returns the directory. Every name in the paths
// is checked first (Validate, Dir): nothing is written outside dir.
func Write(dir string, r *Results) (string, error) {
	r.Sort()
	if err := r.Validate(); err != nil {
		return "", err
	}
	if err := r.Check(); err != nil {
		return "", err
	}
	out, err := Dir(dir, r)
	if err != nil {
		return "", err
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return "", err
	}
	readme, report, junit, page, results := Files(r)
	rep, err := MarshalConformanceReport(ConformanceReport(r))
	if err != nil {
		return "", err
	}
	j, err := JUnit(r)
	if err != nil {
		return "", err
	}
	h, err := HTML(r)
	if err != nil {
		return "", err
	}
	for name, data := range map[string][]byte{report: rep, junit: j, page: h} {
		if err := os.WriteFile(filepath.Join(out, name), data, 0o644); err != nil {
			return "", err
		}
	}
	if err := WriteResults(filepath.Join(out, results), r); err != nil {
		return "", err
	}
	// The README covers every mode run in the directory.
	files, err := filepath.Glob(filepath.Join(out, "results-*.json"))
	if err != nil {
		return "", err
	}
	var all []*Results
	for _, f := range files {
		rr, err := ReadResults(f)
		if err != nil {
			return "", err
		}
		all = append(all, rr)
	}
	slices.SortFunc(all, func(a, b *Results) int { return strings.Compare(a.Mode, b.Mode) })
	return out, os.WriteFile(filepath.Join(out, readme), Markdown(all), 0o644)
}

// Dir is the directory of r's reports under dir:
// dir/<implementation>/<version>, each a name outpath.Elem accepts.
func Dir(dir string, r *Results) (string, error) {
	return outpath.Join(dir, outpath.Named{Field: "implementation.name", Value: r.Implementation.Name},
		outpath.Named{Field: "implementation.version", Value: r.Implementation.Version})
}

// MissingError lists what a report needs that the results lack (Check).
type MissingError struct{ Fields []string }

func (e *MissingError) Error() string {
	return fmt.Sprintf("the implementation's %s are not known", strings.Join(e.Fields, ", "))
}

// Check says what a report needs that r lacks: the implementation's
// name, version and who it is (a ConformanceReport requires organization,
// project, URL and contact), as a *MissingError.
func (r *Results) Check() error {
	i := r.Implementation
	var missing []string
	for _, f := range []struct{ name, v string }{{"name", i.Name}, {"organization", i.Organization}, {"project", i.Project}, {"url", i.URL}, {"version", i.Version}} {
		if f.v == "" {
			missing = append(missing, f.name)
		}
	}
	if len(i.Contact) == 0 {
		missing = append(missing, "contact")
	}
	if len(missing) > 0 {
		return &MissingError{Fields: missing}
	}
	return nil
}
