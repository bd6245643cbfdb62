package admission_test

import (
	"fmt"
	"testing"

	"github.com/gepcheck/gepcheck/admission"
	"github.com/gepcheck/gepcheck/admission/gen"
)

// BenchmarkPredict predicts requests through the configurations of a
// large cluster: 100 drawn sets of configurations (gen.Configurations
// examples, renamed), every hook's matchConditions compiled on the first
// prediction and kept, half the mutating hooks patching (reinvocation).
// docs/performance.md records it.
func BenchmarkPredict(b *testing.B) {
	var w gen.WebhookConfigurations
	for i := range 100 {
		c := gen.Configurations().Example(i)
		for _, m := range c.Mutating {
			m.Name = fmt.Sprintf("%03d-%s", i, m.Name)
			w.Mutating = append(w.Mutating, m)
		}
		for _, v := range c.Validating {
			v.Name = fmt.Sprintf("%03d-%s", i, v.Name)
			w.Validating = append(w.Validating, v)
		}
	}
	chain := admission.Chain(w.Mutating, w.Validating)
	behave := map[string]admission.Behaviour{}
	for i, h := range chain {
		if h.Phase == admission.Mutating && i%2 == 0 {
			behave[h.ID()] = admission.Patch
		}
	}
	var reqs []admission.Request
	for _, line := range []string{
		"CREATE v1 pods ns=team-a name=p user=alice labels=app=web nslabels=team=a",
		"UPDATE apps/v1 deployments/scale ns=team-b name=d user=system:admin",
		"DELETE v1 configmaps ns=team-a name=c user=alice oldlabels=app=web nslabels=team=a",
		"CREATE autoscaling/v2 horizontalpodautoscalers ns=team-b name=h user=alice",
	} {
		req, err := admission.ParseRequest(line, res)
		if err != nil {
			b.Fatal(err)
		}
		reqs = append(reqs, req)
	}
	for i := 0; b.Loop(); i++ {
		admission.Predict(chain, reqs[i%len(reqs)], res, behave)
	}
	b.ReportMetric(float64(len(chain)), "hooks")
}
