package check

import (
	"fmt"
	"slices"
)

// Coverage counts what random cases of the check exercised.
type Coverage struct {
	Cases int
	// Called: a hook was called; Ordered: two mutating hooks or more
	// (their order compared); Reinvoked: a mutating hook called again;
	// Refused: the request refused.
	Called, Ordered, Reinvoked, Refused int
}

// Add counts one more case, r its result, by what the API server did
// (Observed, Allowed).
func (c *Coverage) Add(r Result) {
	c.Cases++
	if len(r.Observed) > 1 {
		c.Called++
	}
	if slices.Index(r.Observed, "|") >= 2 {
		c.Ordered++
	}
	if !r.Allowed {
		c.Refused++
	}
	if m := r.Observed[:slices.Index(r.Observed, "|")]; len(slices.Compact(slices.Sorted(slices.Values(m)))) < len(m) {
		c.Reinvoked++
	}
}

// Floors are the least Coverage of 200 random cases (TestLocalAdmission's
// default): about two thirds of the 115 called, 38 ordered, 10 reinvoked
// and 45 refused measured on 2026-11-26 and 2026-11-27 (docs/admission.md). The cases are
// drawn from fixed seeds, so only hooks that are slow may move a count;
// below a floor the check compares too little to hold what it claims.
var Floors = Coverage{Cases: 200, Called: 75, Ordered: 25, Reinvoked: 6, Refused: 30}

// Below lists the counts of c under floors scaled to c's cases (each
// at least 1): empty when the check exercised enough, and a problem when
// it ran no case.
func (c Coverage) Below(floors Coverage) []string {
	if c.Cases == 0 {
		return []string{"no random case was checked"}
	}
	var out []string
	for _, k := range []struct {
		name       string
		got, floor int
	}{
		{"with a hook called", c.Called, floors.Called},
		{"with two mutating hooks called or more", c.Ordered, floors.Ordered},
		{"with a hook reinvoked", c.Reinvoked, floors.Reinvoked},
		{"refused", c.Refused, floors.Refused},
	} {
		want := max(1, k.floor*c.Cases/floors.Cases)
		if k.got < want {
			out = append(out, fmt.Sprintf("%d of %d cases %s, want at least %d", k.got, c.Cases, k.name, want))
		}
	}
	return out
}
