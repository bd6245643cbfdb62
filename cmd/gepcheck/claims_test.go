package main

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spf13/pflag"

	"github.com/gepcheck/gepcheck/impl"
	"github.com/gepcheck/gepcheck/internal/exitcode"
	"github.com/gepcheck/gepcheck/reports/report"
	"github.com/gepcheck/gepcheck/simulator/engine"
)

// Every implementation gepcheck ships that runs in a cluster states the
// status vocabulary it claims (observe.Capabilities.Vocabulary; GEP-713
// as merged upstream, "Status reporting", or its draft), which its
// comparisons and reports follow, and run --status-vocabulary replaces it
// where the configuration writes either (impl.VocabularyClaimer).
func TestBuiltinsStateTheirVocabulary(t *testing.T) {
	for _, im := range impl.All() {
		cfg := im.Configure(pflag.NewFlagSet(im.Name(), pflag.ContinueOnError))
		ic, err := cfg.InCluster(context.Background())
		if errors.Is(err, impl.ErrUnsupported) {
			continue
		}
		if err != nil {
			t.Fatalf("%s: %v", im.Name(), err)
		}
		v := ic.Capabilities().Vocabulary
		if _, err := engine.ParseVocabulary(string(v)); err != nil {
			t.Errorf("%s claims no status vocabulary: %v", im.Name(), err)
		}
		if c, ok := cfg.(impl.VocabularyClaimer); ok {
			c.ClaimVocabulary(engine.VocabularyDraft)
			if ic, _ := cfg.InCluster(context.Background()); ic.Capabilities().Vocabulary != engine.VocabularyDraft {
				t.Errorf("%s, told to write the draft's vocabulary, claims %q", im.Name(), ic.Capabilities().Vocabulary)
			}
		}
	}
}

// run --status-vocabulary is the claim the comparison follows: the
// reference told to write the draft's vocabulary agrees with itself, the
// results and the replay lines say the claim, and a vocabulary that is
// neither is refused naming the flag (exit 2).
func TestRunStatusVocabulary(t *testing.T) {
	dir := t.TempDir()
	var stdout, stderr bytes.Buffer
	args := []string{"run", "--impl", "reference", "--status-vocabulary", "draft", "--report-dir", dir, "../../scenarios/gep-713/example-2-defaults-and-overrides.yaml"}
	if code := run(args, strings.NewReader(""), &stdout, &stderr); code != exitcode.OK {
		t.Fatalf("exit %d:\n%s%s", code, stdout.String(), stderr.String())
	}
	r, err := report.ReadResults(filepath.Join(dir, "reference", "main", "results-offline.json"))
	if err != nil {
		t.Fatal(err)
	}
	if r.StatusVocabulary != "draft" || len(r.Cases) != 1 || !strings.Contains(r.Cases[0].Replay, "--status-vocabulary draft") {
		t.Errorf("results: statusVocabulary %q, cases %d, replay %q", r.StatusVocabulary, len(r.Cases), r.Cases[0].Replay)
	}
	readme, err := os.ReadFile(filepath.Join(dir, "reference", "main", "README.md"))
	if err != nil || !strings.Contains(string(readme), "status vocabulary draft") {
		t.Errorf("README does not say the vocabulary claimed (%v):\n%s", err, readme)
	}
	for _, cmd := range [][]string{
		{"run", "--impl", "reference", "--status-vocabulary", "enforced", "../../scenarios/gep-713/example-1-direct.yaml"},
		{"fuzz", "--impl", "reference", "--profile", "color-direct", "--checks", "1", "--status-vocabulary", "enforced"},
		{"fuzz", "--checks", "1", "--status-vocabulary", "draft"},
	} {
		stdout.Reset()
		stderr.Reset()
		if code := run(cmd, strings.NewReader(""), &stdout, &stderr); code != exitcode.BadInput || !strings.Contains(stderr.String(), "--status-vocabulary") {
			t.Errorf("%v: exit %d, want %d naming --status-vocabulary:\n%s%s", cmd, code, exitcode.BadInput, stdout.String(), stderr.String())
		}
	}
}
