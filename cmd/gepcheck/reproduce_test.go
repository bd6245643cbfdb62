package main

import (
	"strings"
	"testing"

	"github.com/spf13/pflag"

	"github.com/gepcheck/gepcheck/impl"
	"github.com/gepcheck/gepcheck/reports/report"
	"github.com/gepcheck/gepcheck/simulator/engine"
	"github.com/gepcheck/gepcheck/suite/observe"
	"github.com/gepcheck/gepcheck/suite/runner"
)

// TestReproduceNamesVersion: the Reproduce lines of a report of an
// implementation version that is not the one gepcheck pins carry that
// version, and the profile and semantics the run was given, so that they
// run what was reported (the published reports of Envoy Gateway v1.2.4 …
// v1.9.0 replayed v1.9.1: issue 30).
func TestReproduceNamesVersion(t *testing.T) {
	for _, tc := range []struct {
		impl string
		args []string
		want string
	}{
		{"envoy-gateway", []string{"--envoy-gateway-version", "v1.2.4"}, "--envoy-gateway-version v1.2.4"},
		{"envoy-gateway", []string{"--envoy-gateway-version", "v1.8.0", "--egctl-build", "stock"}, "--envoy-gateway-version v1.8.0 --egctl-build stock"},
		{"contour", []string{"--contour-version", "v1.30.0"}, "--contour-version v1.30.0"},
		{"traefik", []string{"--traefik-version", "v3.6.0"}, "--traefik-version v3.6.0"},
	} {
		t.Run(tc.impl+" "+strings.Join(tc.args, " "), func(t *testing.T) {
			var f impl.Flags
			fs := pflag.NewFlagSet("run", pflag.ContinueOnError)
			f.AddFlags(fs)
			if err := fs.Parse(append([]string{"--impl", tc.impl}, tc.args...)); err != nil {
				t.Fatal(err)
			}
			im, cfg, err := f.Selected()
			if err != nil {
				t.Fatal(err)
			}
			var rep report.Flags
			res := rep.Results(im, cfg, "offline", engine.GEP713, observe.Capabilities{})
			file := "scenarios/gateway-api/backendtlspolicy-conflict-by-name.yaml"
			res.Cases = []report.CaseResult{{Name: file, File: file, Outcome: report.Failed, Features: []string{"PolicyTargetRefs"},
				Replay: runner.Replay{Impl: im.Name(), Config: cfg, Profiles: []string{"backendtlspolicy-gateway-api"}, Semantics: engine.Semantics(res.Semantics), Vocabulary: engine.Vocabulary(res.StatusVocabulary)}.File(file)}}
			md := string(report.Markdown([]*report.Results{res}))
			_, repro, ok := strings.Cut(md, "### Reproduce")
			if !ok {
				t.Fatalf("no Reproduce section in:\n%s", md)
			}
			want := "bin/gepcheck run --impl " + tc.impl + " " + tc.want + " --profile backendtlspolicy-gateway-api --semantics gep-713 --status-vocabulary merged scenarios/gateway-api/"
			if !strings.Contains(repro, want+"\n") {
				t.Errorf("Reproduce lacks %q:\n%s", want, repro)
			}
		})
	}
}
