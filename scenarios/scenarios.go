// Package scenarios holds scenario files: real objects plus the outcome a
// spec states, with a citation (scenarios/README.md). Check runs one
// through the reference engine; Files finds them.
package scenarios

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/gepcheck/gepcheck/admission"
	"github.com/gepcheck/gepcheck/admission/scenario"
	"github.com/gepcheck/gepcheck/simulator"
	"github.com/gepcheck/gepcheck/simulator/load"
	"github.com/gepcheck/gepcheck/suite"
)

// Check runs one scenario file under each of its semantics, at each of its
// steps, and lists how the outcome differs from the one it expects. A finding about an
// implementation is not checked here (gepcheck findings verify does); a
// finding about the two semantics holds while they still disagree on it
// exactly as it records (suite.ReproduceFinding).
func Check(file string) ([]string, error) {
	return CheckBounded(context.Background(), file, simulator.Options{}, admission.Bounds{})
}

// CheckBounded is Check with file read within opts.Limits, a policy
// scenario run within opts.CEL (its other fields are not read), and the
// prediction of every case of an admission scenario bounded by b and ctx
// (admission.PredictBounded): an error, a *admission.LimitError, when one
// is stopped.
func CheckBounded(ctx context.Context, file string, opts simulator.Options, b admission.Bounds) ([]string, error) {
	docs, err := load.ReadLimited([]string{file}, nil, opts.Limits)
	if err != nil {
		return nil, err
	}
	if slices.ContainsFunc(docs, admission.IsScenario) {
		return checkAdmission(ctx, b, docs)
	}
	fv, err := simulator.FieldValidationOf(docs)
	if err != nil {
		return nil, err
	}
	states, models, err := simulator.StateModels(docs, simulator.Options{Limits: opts.Limits, CEL: opts.CEL, FieldValidation: fv})
	if err != nil {
		// Say first that the file is not a scenario: its other errors
		// could name flags of simulate that check has not.
		if !slices.ContainsFunc(docs, isScenario) {
			return nil, notScenario(file)
		}
		return nil, err
	}
	m := models[0]
	if m.FindingImplementation != "" {
		return nil, nil
	}
	if m.Scenario == nil && m.Finding != "" {
		// A finding of a property holds while the two semantics still
		// disagree exactly as it records.
		d := docs[slices.IndexFunc(docs, func(d *load.Doc) bool { return d.Group == simulator.GepcheckGroup && d.Kind == "Finding" })]
		var changed *suite.ReproduceError
		if err := suite.ReproduceFinding(d, m); errors.As(err, &changed) {
			return []string{"finding " + m.Finding + ": " + err.Error()}, nil
		} else if err != nil {
			return nil, err
		}
		return nil, nil
	}
	if m.Scenario == nil {
		return nil, notScenario(file)
	}
	sems, err := m.Scenario.SemanticsList()
	if err != nil {
		return nil, err
	}
	// The expectations are written in the scenario's status vocabulary:
	// the engine is asked for that one.
	vocab, err := m.Scenario.Vocabulary()
	if err != nil {
		return nil, err
	}
	for _, sm := range models {
		sm.Vocabulary = vocab
	}
	var diffs []string
	for _, sem := range sems {
		for i, st := range states {
			at := st.Label(len(states) - 1)
			if at != "" {
				at += ": "
			}
			for _, d := range st.Expect.Check(models[i].Run(sem, nil)) {
				diffs = append(diffs, fmt.Sprintf("[%s] %s%s", sem, at, d))
			}
		}
	}
	return diffs, nil
}

// checkAdmission checks an admission scenario (scenarios/README.md,
// Admission scenarios): every case's prediction against its expectation.
func checkAdmission(ctx context.Context, b admission.Bounds, docs []*load.Doc) ([]string, error) {
	s, err := scenario.Read(docs, admission.Builtin())
	if err != nil {
		return nil, err
	}
	chain := admission.Chain(s.Mutating, s.Validating)
	var diffs []string
	for _, c := range s.Cases {
		p, err := admission.PredictBounded(ctx, b, chain, c.Request, s.Resources, c.Behave)
		if err != nil {
			return nil, fmt.Errorf("case %s: %w", c.Name, err)
		}
		for _, d := range c.Check(p) {
			diffs = append(diffs, fmt.Sprintf("case %s: %s", c.Name, d))
		}
	}
	return diffs, nil
}

func isScenario(d *load.Doc) bool {
	return d.Group == simulator.GepcheckGroup && (d.Kind == "Scenario" || d.Kind == "Finding")
}

func notScenario(file string) error {
	return fmt.Errorf("%s: not a scenario: no Scenario document (apiVersion gepcheck.dev/v1alpha1, kind Scenario, or AdmissionScenario for admission webhooks; scenarios/README.md); gepcheck simulate -f %s reads any file", file, file)
}

// Loaded is a scenario file as a run reads it, once (issue 32): its
// documents, or the error reading them gave, which is the policy
// loader's to report.
type Loaded struct {
	File string
	Docs []*load.Doc
	Err  error
	// Random says the file is a random case a run drew and wrote
	// (generators.Print), Seed its seed: gepcheck gen --seed Seed prints
	// it again.
	Random bool
	Seed   int64
}

// LoadPolicy reads the policy scenario files of args (Files), each once:
// an admission scenario is not one (it is checked by Check and the
// admission check, never run through a policy implementation). A file
// named in args that is an admission scenario is an error.
func LoadPolicy(args []string) ([]Loaded, error) {
	all, err := Files(args)
	if err != nil {
		return nil, err
	}
	var out []Loaded
	for _, f := range all {
		docs, err := load.Read([]string{f}, nil)
		if err != nil || !slices.ContainsFunc(docs, admission.IsScenario) {
			out = append(out, Loaded{File: f, Docs: docs, Err: err})
			continue
		}
		if slices.Contains(args, f) {
			return nil, fmt.Errorf("%s is an admission scenario: gepcheck check %s, or gepcheck admission simulate -f %s (docs/admission.md)", f, f, f)
		}
	}
	return out, nil
}

// Files lists the YAML files of args (files, and directories walked),
// sorted.
func Files(args []string) ([]string, error) {
	var out []string
	for _, a := range args {
		st, err := os.Stat(a)
		if err != nil {
			return nil, err
		}
		if !st.IsDir() {
			out = append(out, a)
			continue
		}
		err = filepath.WalkDir(a, func(p string, d os.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if !d.IsDir() && (strings.HasSuffix(p, ".yaml") || strings.HasSuffix(p, ".yml")) {
				out = append(out, p)
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	sort.Strings(out)
	return out, nil
}
