package reference

import (
	"io"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"

	kindconfig "github.com/gepcheck/gepcheck/kind-config"
	"github.com/gepcheck/gepcheck/simulator/engine"
)

// The Deployment of kind-config/gepcheck-reference.yaml starts
// gepcheck controller reference with flags it has, and states the status
// vocabulary it writes (docs/cluster.md, Deployment): a run against it
// with --start-controller=false claims the same.
func TestManifestStatesTheVocabulary(t *testing.T) {
	var args []string
	for _, doc := range strings.Split(string(kindconfig.Reference), "\n---\n") {
		var d struct {
			Kind string `json:"kind"`
			Spec struct {
				Template struct {
					Spec struct {
						Containers []struct {
							Args []string `json:"args"`
						} `json:"containers"`
					} `json:"spec"`
				} `json:"template"`
			} `json:"spec"`
		}
		if err := yaml.Unmarshal([]byte(doc), &d); err != nil {
			t.Fatal(err)
		}
		if d.Kind == "Deployment" {
			args = d.Spec.Template.Spec.Containers[0].Args
		}
	}
	if len(args) < 2 || args[0] != "controller" || args[1] != "reference" {
		t.Fatalf("the Deployment's args %q do not start gepcheck controller reference", args)
	}
	cmd := plugin{}.Commands(io.Discard, io.Discard)["controller"][0]
	if err := cmd.ParseFlags(args[2:]); err != nil {
		t.Fatalf("args %q: %v", args, err)
	}
	f := cmd.Flags().Lookup("status-vocabulary")
	if f == nil || !f.Changed {
		t.Fatalf("args %q do not state --status-vocabulary", args)
	}
	if _, err := engine.ParseVocabulary(f.Value.String()); err != nil {
		t.Errorf("args %q: %v", args, err)
	}
}
