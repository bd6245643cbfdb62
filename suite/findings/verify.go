package findings

import (
	"bytes"
	"fmt"
	"os"

	"sigs.k8s.io/yaml"

	"github.com/gepcheck/gepcheck/simulator/load"
	"github.com/gepcheck/gepcheck/suite/compare"
)

// Verify compares the differences the kept finding file records with
// those a run shows on it now (compare.Reproduce): it returns how many
// differences it compared and nil, or a *suite.ReproduceError saying
// what changed, or an error when file is not a finding of an
// implementation.
func Verify(file string, now []compare.Difference) (int, error) {
	f, _, err := readImplementation(file)
	if err != nil {
		return 0, err
	}
	if len(f.Spec.Differences) == 0 {
		return 0, fmt.Errorf("%s: the finding records no differences", file)
	}
	return len(f.Spec.Differences), compare.Reproduce(f.Spec.Differences, now)
}

// Update records now as the differences of the kept finding file,
// rewriting its
// Finding document only: the comment lines above it and the scenario
// after it stay byte for byte. It reports whether the file changed.
func Update(file string, now []compare.Difference) (bool, error) {
	if len(now) == 0 {
		return false, fmt.Errorf("%s: the run shows no difference on it: remove the finding rather than record none", file)
	}
	f, parts, err := readImplementation(file)
	if err != nil {
		return false, err
	}
	f.Spec.Differences = now
	head, err := yaml.Marshal(f)
	if err != nil {
		return false, err
	}
	out := append(append(append([]byte{}, parts.comments...), head...), parts.rest...)
	if bytes.Equal(out, parts.whole) {
		return false, nil
	}
	if err := os.WriteFile(file, out, 0o644); err != nil {
		return false, &WriteError{err}
	}
	return true, nil
}

// WriteError is a findings file Update could not write.
type WriteError struct{ Err error }

func (e *WriteError) Error() string { return e.Err.Error() }
func (e *WriteError) Unwrap() error { return e.Err }

// split is a findings file as report.WriteFinding writes it: comment
// lines, the Finding document, then "---" and the scenario.
type split struct {
	whole, comments, doc, rest []byte
}

// readImplementation reads file's Finding document of an implementation,
// strictly, and splits the file around it.
func readImplementation(file string) (Implementation, split, error) {
	var f Implementation
	e, err := Read(file)
	if err != nil {
		return f, split{}, err
	}
	if e.Implementation == "" {
		return f, split{}, fmt.Errorf("%s: a finding of a property, not of an implementation: gepcheck check verifies it", file)
	}
	data, err := load.ReadNamed(file, load.DefaultLimits.MaxBytes)
	if err != nil {
		return f, split{}, err
	}
	if bytes.Contains(data, []byte("\r\n")) {
		return f, split{}, fmt.Errorf("%s: CRLF line ends: gepcheck writes findings with LF line ends", file)
	}
	s := split{whole: data}
	for bytes.HasPrefix(data[len(s.comments):], []byte("#")) {
		end := bytes.IndexByte(data[len(s.comments):], '\n')
		if end < 0 {
			break
		}
		s.comments = data[:len(s.comments)+end+1]
	}
	body := data[len(s.comments):]
	cut := bytes.Index(body, []byte("\n---\n"))
	if cut < 0 {
		return f, split{}, fmt.Errorf("%s: not as gepcheck writes a finding: comment lines, the Finding document, then --- and the scenario", file)
	}
	s.doc, s.rest = body[:cut+1], body[cut+1:]
	if err := yaml.UnmarshalStrict(s.doc, &f); err != nil {
		return f, split{}, fmt.Errorf("%s: not as gepcheck writes a finding: its first document is not the Finding: %v", file, err)
	}
	if f.Kind != "Finding" {
		return f, split{}, fmt.Errorf("%s: not as gepcheck writes a finding: its first document is a %s, not the Finding", file, f.Kind)
	}
	// Update writes the Finding document anew: a comment line in it
	// would be lost.
	for i, line := range bytes.Split(s.doc, []byte("\n")) {
		if bytes.HasPrefix(bytes.TrimSpace(line), []byte("#")) {
			return f, split{}, fmt.Errorf("%s: line %d: a comment in the Finding document, which gepcheck findings update would lose: move it to the comment lines above", file, bytes.Count(s.comments, []byte("\n"))+i+1)
		}
	}
	return f, s, nil
}
