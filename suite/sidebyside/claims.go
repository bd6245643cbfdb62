package sidebyside

import (
	"context"
	"io"

	"github.com/gepcheck/gepcheck/simulator"
	"github.com/gepcheck/gepcheck/simulator/engine"
	"github.com/gepcheck/gepcheck/simulator/render"
	"github.com/gepcheck/gepcheck/suite/observe"
)

// Claims are the reading the reference takes for an implementation
// (simulate --impl): its claim, or what --semantics, --status-vocabulary
// and --ancestor-entries give in its place.
type Claims struct {
	Semantics  engine.Semantics
	Vocabulary engine.Vocabulary
	Ancestors  *simulator.AncestorEntries // nil: the implementation's claim
}

// RunClaiming is Run with d claiming cl (observe.Claiming,
// ClaimingVocabulary, ClaimingAncestors), the result naming each setting
// that differs from d's own claim (Overrides).
func RunClaiming(ctx context.Context, d observe.Observer, cl Claims, c observe.Case, known *Known) (*Result, error) {
	claimed := d.Capabilities()
	d = observe.ClaimingVocabulary(observe.Claiming(d, cl.Semantics), cl.Vocabulary)
	if cl.Ancestors != nil {
		d = observe.ClaimingAncestors(d, *cl.Ancestors)
	}
	res, err := Run(ctx, d, c, known)
	if err != nil {
		return nil, err
	}
	res.Overridden = Overrides(claimed, cl.Semantics, cl.Vocabulary, cl.Ancestors)
	return res, nil
}

// Write prints r as format: json (JSON), yaml, or a table (table, wide;
// docs/output.md, The implementation's answer).
func (r *Result) Write(w io.Writer, format string, opts render.TableOptions) error {
	switch format {
	case "json":
		return r.JSON(w)
	case "yaml":
		return render.Data(w, "yaml", r)
	}
	return r.Table(w, opts)
}
