package suite

import (
	"testing"

	"github.com/gepcheck/gepcheck/suite/requirements"
)

// Every property the requirements catalogue cites exists, and every MUST is
// covered or explained (checked against the real property registry).
func TestRequirementsCiteRealProperties(t *testing.T) {
	reqs, err := requirements.Load()
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, p := range Properties() {
		names = append(names, p.Name)
	}
	for _, problem := range requirements.Check(reqs, "..", names) {
		t.Error(problem)
	}
}
