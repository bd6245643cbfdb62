package sidebyside

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/gepcheck/gepcheck/simulator/engine"
	"github.com/gepcheck/gepcheck/simulator/render"
)

// A reading other than the implementation's claim is the reference's and
// is named as overridden; the claim itself is no override.
func TestRunClaiming(t *testing.T) {
	c := example2(t)
	claimed := fake{}.Capabilities()
	res, err := RunClaiming(context.Background(), fake{"red"}, Claims{Semantics: engine.GEP713, Vocabulary: claimed.StatusVocabulary()}, c, nil)
	if err != nil {
		t.Fatal(err)
	}
	if res.Reading.Semantics != engine.GEP713 || len(res.Overridden) != 1 || res.Overridden[0].Flag != "--semantics" {
		t.Errorf("reading %s, overridden %+v: want gep-713, named as --semantics's", res.Reading.Semantics, res.Overridden)
	}
	res, err = RunClaiming(context.Background(), fake{"red"}, Claims{Semantics: claimed.Claim(), Vocabulary: claimed.StatusVocabulary()}, c, nil)
	if err != nil || len(res.Overridden) != 0 {
		t.Fatalf("the claim: overridden %+v (%v), want none", res.Overridden, err)
	}
	var out bytes.Buffer
	if err := res.Write(&out, "yaml", render.TableOptions{}); err != nil || !strings.Contains(out.String(), "implementation: fake") {
		t.Errorf("Write yaml (%v):\n%s", err, out.String())
	}
}
