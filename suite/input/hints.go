package input

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/gepcheck/gepcheck/simulator"
	"github.com/gepcheck/gepcheck/simulator/load"
	"github.com/gepcheck/gepcheck/simulator/ref"
)

// The documents that say which command an input is for: gepcheck's
// scenario files (scenarios/README.md) and the admission configurations
// `gepcheck admission` reads (docs/admission.md).
const (
	scenarioKind          = "Scenario"
	admissionScenarioKind = "AdmissionScenario"
	// admissionGroup is the API group of webhook configurations
	// (admission.Group; the admission wing stands apart, docs/architecture.md).
	admissionGroup = "admissionregistration.k8s.io"
)

var webhookKinds = []string{"MutatingWebhookConfiguration", "ValidatingWebhookConfiguration"}

// inputKinds reads the files of paths again (not standard input, which
// was read once), within limits, and returns the files holding a
// Scenario document and those holding admission documents; nil when they
// do not read.
func inputKinds(paths []string, limits load.Limits) (scenarioFiles, admissionFiles []string) {
	var files []string
	for _, p := range paths {
		if p != "-" {
			files = append(files, p)
		}
	}
	if len(files) == 0 {
		return nil, nil
	}
	docs, err := load.ReadLimited(files, nil, limits)
	if err != nil {
		return nil, nil
	}
	for _, d := range docs {
		f := d.Source.File
		switch {
		case d.Group == simulator.GepcheckGroup && d.Kind == scenarioKind:
			if !slices.Contains(scenarioFiles, f) {
				scenarioFiles = append(scenarioFiles, f)
			}
		case d.Group == simulator.GepcheckGroup && d.Kind == admissionScenarioKind, d.Group == admissionGroup && slices.Contains(webhookKinds, d.Kind):
			if !slices.Contains(admissionFiles, f) {
				admissionFiles = append(admissionFiles, f)
			}
		}
	}
	return scenarioFiles, admissionFiles
}

// scenariosHint is the error for simulate or explain given several
// scenario files (a folder of them): each is a case with its expected
// outcome, which gepcheck check runs; one set of objects is simulated.
// Empty when paths do not hold two.
func scenariosHint(paths []string, limits load.Limits) string {
	files, admissionFiles := inputKinds(paths, limits)
	n := len(files) + len(admissionFiles)
	if n < 2 {
		return ""
	}
	return fmt.Sprintf("%s: %d scenario files (each a Scenario or AdmissionScenario with the outcome it expects, e.g. %s): run them with `gepcheck check %s`; simulate and explain read one set of objects (-f one scenario file)",
		ref.Printable(strings.Join(paths, ", ")), n, ref.Printable(slices.Concat(files, admissionFiles)[0]), ref.Printable(strings.Join(paths, " ")))
}

// admissionHint is the error for simulate or explain given admission
// webhook configurations and no policy: `gepcheck admission simulate`
// predicts what becomes of a request. Empty when paths hold none.
func admissionHint(paths []string, limits load.Limits) string {
	_, files := inputKinds(paths, limits)
	if len(files) == 0 {
		return ""
	}
	return fmt.Sprintf("%s: admission webhook configurations and no policy: use `gepcheck admission simulate -f %s --request 'CREATE v1 configmaps ns=NS'` (docs/admission.md); simulate and explain compute policies",
		ref.Printable(strings.Join(files, ", ")), ref.Printable(files[0]))
}

// RunWarnings are the warnings of out its run added to the model's
// (policies partly accepted, fields storing changes: simulator.Model.Run);
// Source.Model wrote the model's own to standard error already.
func RunWarnings(m *simulator.Model, out *simulator.Output) []string {
	var added []string
	for _, w := range out.Warnings {
		if !slices.Contains(m.Warnings, w) {
			added = append(added, w)
		}
	}
	return added
}

// helmHint is the error for input that does not load because it is a
// Helm chart's templates (a chart folder, a file or folder in one): Helm
// renders them first (docs/input.md, Helm), and then: use, the command
// line that reads the rendered objects from standard input. Empty when no
// path is in a chart.
func helmHint(paths []string, use string) string {
	for _, p := range paths {
		chart := load.HelmChart(p)
		if chart == "" || !load.Templated(p) {
			continue
		}
		what := fmt.Sprintf("%s is in the Helm chart %s", ref.Printable(p), ref.Printable(chart))
		if filepath.Clean(p) == chart {
			what = ref.Printable(p) + " is a Helm chart"
		}
		return fmt.Sprintf("%s (it has a Chart.yaml): its templates are no Kubernetes objects until Helm renders them; run `helm template NAME %s | %s` (docs/input.md, Helm)",
			what, ref.Printable(chart), use)
	}
	return ""
}
