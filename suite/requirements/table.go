package requirements

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"unicode/utf8"

	"github.com/gepcheck/gepcheck/simulator/render"
)

// Pick is what gepcheck requirements shows of all: the requirements of ids
// (in their order; all when none is given), of spec (any when ""), and of
// those, shown, the open ones alone when uncovered. inSpec is what the
// summary counts. An id not in the catalogue is an error naming them all.
func Pick(all []Requirement, ids []string, spec string, uncovered bool) (inSpec, shown []Requirement, err error) {
	if len(ids) > 0 {
		byID := map[string]Requirement{}
		for _, r := range all {
			byID[r.ID] = r
		}
		var picked []Requirement
		var unknown []string
		for _, id := range ids {
			r, ok := byID[strings.ToUpper(id)]
			if !ok {
				unknown = append(unknown, id)
				continue
			}
			picked = append(picked, r)
		}
		if len(unknown) > 0 {
			return nil, nil, fmt.Errorf("no requirement %s in the catalogue (gepcheck requirements -o name lists the IDs)", strings.Join(unknown, ", "))
		}
		all = picked
	}
	for _, r := range all {
		if spec != "" && r.Spec != spec {
			continue
		}
		inSpec = append(inSpec, r)
		if !uncovered || r.Open() {
			shown = append(shown, r)
		}
	}
	return inSpec, shown, nil
}

// WriteTable prints the summary, then one line per requirement, its quote
// cut to fit 120 columns unless opts.Wide; opts.NoHeaders: the
// requirements' lines alone.
func WriteTable(w io.Writer, sum Summary, reqs []Requirement, opts render.TableOptions) error {
	if !opts.NoHeaders {
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "SPEC\tLEVEL\tTOTAL\tCOVERED\tPARTIAL\tPENDING\tUNTESTABLE")
		row := func(spec, level string, c Counts) {
			fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%d\t%d\t%d", spec, level, c.Total, c.Covered, c.Partial, c.Pending, c.Untestable)
			if c.Missing > 0 {
				fmt.Fprintf(tw, "\t(%d with nothing)", c.Missing)
			}
			fmt.Fprintln(tw)
		}
		for _, r := range sum.Rows {
			row(r.Spec, string(r.Level), r.Counts)
		}
		row("all", "", sum.Total)
		if err := tw.Flush(); err != nil {
			return err
		}
		fmt.Fprintln(w)
	}
	t := render.Table{Header: []string{"ID", "LEVEL", "STATUS", "QUOTE"}}
	// One line each: the quote cut where the row reaches 120 columns
	// (the three columns before it, two spaces after each, an ellipsis).
	id, level, status := len("ID"), len("LEVEL"), len("STATUS")
	for _, r := range reqs {
		id, level, status = max(id, len(r.ID)), max(level, len(r.Level)), max(status, len(r.Status()))
	}
	room := max(render.Width-id-level-status-6-1, 20)
	for _, r := range reqs {
		quote := r.Quote
		if !opts.Wide {
			quote = truncate(quote, room)
		}
		t.Rows = append(t.Rows, []string{r.ID, string(r.Level), string(r.Status()), quote})
	}
	return t.Write(w, opts)
}

// truncate keeps the first n runes of s, marking a cut with an ellipsis.
func truncate(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	return string([]rune(s)[:n]) + "…"
}
