// Package requirements is gepcheck's requirements catalogue: every sentence
// of GEP-713, GEP-2649, the Kuadrant RFC on Defaults & Overrides and Gateway
// API's API reference of the kinds gepcheck runs against implementations
// (PolicyStatus, BackendTLSPolicy) that contains an upper-case RFC 2119 keyword (MUST, MUST NOT, SHOULD, SHOULD
// NOT; REQUIRED, SHALL and RECOMMENDED count as their RFC 2119 equivalents),
// one entry per sentence, each linked to the scenarios, properties and tests
// that cover it, or marked with the reason gepcheck cannot test it, or with
// the open issue that will cover it.
//
// The catalogue is data: one YAML file per spec (gep-713.yaml,
// gep-2649.yaml, kuadrant-rfc.yaml, gateway-api.yaml), embedded in the binary. An entry:
//
//   - id: GEP-713-021          # <PREFIX>-NNN, increasing in document order; never renumbered
//     level: MUST              # the strongest keyword of the sentence: MUST | MUST NOT | SHOULD | SHOULD NOT
//     section: "Conflict resolution rules"
//     quote: "Between two policies ..."   # exact text of the spec, whitespace runs joined into one space
//     coveredBy:               # any of, one key per item:
//   - scenario: scenarios/gep-713/conflict-resolution-rules.yaml   # relative to the repository root
//   - property: ordering/rules-1-3                                 # a property of package suite
//   - test: simulator/engine.TestSameLevelOrder                    # package directory + "." + Go test name
//     untestable: ""           # or why gepcheck cannot test it, specifically
//     pending: ""              # or which open issue will cover it (or the gap, when no issue does yet)
//
// Every entry has coveredBy, untestable or pending; coveredBy and pending
// together mean partly covered; untestable excludes both. An entry of a
// later text of a spec (gep-713-merged: GEP-713 as merged upstream) that
// says what an entry of the earlier one says names it instead (sameAs:
// GEP-713-021) and takes its coverage, whatever it is. Load checks the
// format; Check checks that what an entry cites exists.
package requirements

import (
	"bytes"
	"embed"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"sigs.k8s.io/yaml"
)

//go:embed *.yaml
var files embed.FS

// Specs lists the catalogued specs, in the order they are reported.
var Specs = []string{"gep-713", "gep-713-merged", "gep-2649", "kuadrant-rfc", "gateway-api"}

// SeedFiles names, per spec, the text of the spec the quotes come from: a
// file of the shared/seeds directory next to the repository.
var SeedFiles = map[string]string{
	"gep-713":      "gep-713-metaresources-and-policy-attachment.txt",
	"gep-2649":     "gep-2649-inherited-policy-attachment.txt",
	"kuadrant-rfc": "kuadrant-rfc-defaults-and-overrides.txt",
}

// ModuleFiles names, per spec whose text is in a Go module, the module
// and the files of it that hold the quotes, in the order the quotes
// follow: the doc comments of Go files (GoComments; a Go API's
// documentation) or the text of Markdown files (MarkdownText; a GEP as
// merged upstream). The module's version is the one go.mod requires.
var ModuleFiles = map[string]struct {
	Module string
	Files  []string
}{
	"gateway-api": {Module: "sigs.k8s.io/gateway-api", Files: []string{"apis/v1/policy_types.go", "apis/v1/backendtlspolicy_types.go"}},
	// GEP-713 as merged upstream (gateway-api PR 3609).
	"gep-713-merged": {Module: "sigs.k8s.io/gateway-api", Files: []string{"geps/gep-713/index.md"}},
}

// ModuleText is the text of a file of ModuleFiles, whitespace normalized:
// GoComments of a .go file, MarkdownText of a .md file.
func ModuleText(name string, src []byte) string {
	if strings.HasSuffix(name, ".md") {
		return MarkdownText(src)
	}
	return GoComments(src)
}

var (
	mdLink     = regexp.MustCompile(`\[([^\]]*)\]\([^)]*\)`)
	mdEmphasis = regexp.MustCompile(`(^|[\s(])[_*]{1,2}([^_*\s][^_*]*?)[_*]{1,2}`)
)

// MarkdownText is the text of a Markdown file as a reader sees it,
// whitespace normalized (Normalize): headings, list marks, emphasis and
// code spans without their marks, a link as its text, and of a fenced
// code block only its // comments (a GEP states its Go constants' meaning
// there).
func MarkdownText(src []byte) string {
	var b strings.Builder
	code := false
	for line := range strings.Lines(string(src)) {
		t := strings.TrimSpace(line)
		if strings.HasPrefix(t, "```") {
			code = !code
			b.WriteByte('\n')
			continue
		}
		if code {
			if c, ok := strings.CutPrefix(t, "//"); ok {
				b.WriteString(c)
			}
			b.WriteByte('\n')
			continue
		}
		t = strings.TrimLeft(t, "#")
		t = strings.TrimPrefix(strings.TrimSpace(t), "- ")
		t = mdLink.ReplaceAllString(t, "$1")
		t = strings.ReplaceAll(t, "`", "")
		t = mdEmphasis.ReplaceAllString(t, "$1$2")
		t = strings.ReplaceAll(t, "**", "")
		b.WriteString(t)
		b.WriteByte('\n')
	}
	return Normalize(b.String())
}

// GoComments is the text of the // comments of a Go source file, in
// order, whitespace normalized (Normalize): the text a Go API's reference
// documentation is made of, and its quotes are compared in.
func GoComments(src []byte) string {
	var b strings.Builder
	for line := range strings.Lines(string(src)) {
		if c, ok := strings.CutPrefix(strings.TrimSpace(line), "//"); ok {
			b.WriteString(c)
			b.WriteByte('\n')
		}
	}
	return Normalize(b.String())
}

// idPrefix is the id prefix of each spec.
var idPrefix = map[string]string{
	"gep-713":      "GEP-713",
	"gep-2649":     "GEP-2649",
	"kuadrant-rfc": "KUADRANT-RFC",
	"gateway-api":  "GATEWAY-API",
	// gep-713-merged's entries are GEP-713-M-NNN.
	"gep-713-merged": "GEP-713-M",
}

// Level is the RFC 2119 keyword of a requirement.
type Level string

// Levels, strongest first.
const (
	Must      Level = "MUST"
	MustNot   Level = "MUST NOT"
	Should    Level = "SHOULD"
	ShouldNot Level = "SHOULD NOT"
)

// Levels lists the levels in the order they are reported.
var Levels = []Level{Must, MustNot, Should, ShouldNot}

// Mandatory reports whether the level is MUST or MUST NOT.
func (l Level) Mandatory() bool { return l == Must || l == MustNot }

// Citation is one thing that checks a requirement; exactly one field is set.
type Citation struct {
	// Scenario is a scenario file, relative to the repository root.
	Scenario string `json:"scenario,omitempty"`
	// Property is the name of a property of package suite.
	Property string `json:"property,omitempty"`
	// Test is a package directory relative to the repository root, a dot
	// and the name of a Go test function, e.g. simulator/engine.TestSameLevelOrder.
	Test string `json:"test,omitempty"`
}

// String returns "kind: value".
func (c Citation) String() string {
	switch {
	case c.Scenario != "":
		return "scenario: " + c.Scenario
	case c.Property != "":
		return "property: " + c.Property
	default:
		return "test: " + c.Test
	}
}

// Requirement is one sentence of a spec with a keyword.
type Requirement struct {
	ID string `json:"id"`
	// Spec is the spec the requirement comes from (one of Specs); it is
	// set by Load from the file name, not written in the YAML.
	Spec       string     `json:"spec"`
	Level      Level      `json:"level"`
	Section    string     `json:"section"`
	Quote      string     `json:"quote"`
	CoveredBy  []Citation `json:"coveredBy,omitempty"`
	Untestable string     `json:"untestable,omitempty"`
	Pending    string     `json:"pending,omitempty"`
	// SameAs names the entry of an earlier text of the spec that says
	// what this one says: its coverage is that entry's (Load copies it).
	SameAs string `json:"sameAs,omitempty"`
}

// Status summarizes how a requirement is covered.
type Status string

// Statuses.
const (
	// Covered: coveredBy only.
	Covered Status = "covered"
	// Partial: coveredBy and pending (the rest is left to an issue).
	Partial Status = "partial"
	// Pending: pending only.
	Pending Status = "pending"
	// Untestable: untestable only.
	Untestable Status = "untestable"
	// Missing: nothing at all (Load refuses it; Check reports it for MUST
	// and MUST NOT).
	Missing Status = "missing"
)

// Status returns the status of r.
func (r Requirement) Status() Status {
	switch {
	case r.Untestable != "":
		return Untestable
	case len(r.CoveredBy) > 0 && r.Pending != "":
		return Partial
	case len(r.CoveredBy) > 0:
		return Covered
	case r.Pending != "":
		return Pending
	}
	return Missing
}

// Open reports whether gepcheck still owes the requirement something: it is
// pending, partial or missing.
func (r Requirement) Open() bool {
	s := r.Status()
	return s == Pending || s == Partial || s == Missing
}

// entry is the YAML form of a Requirement.
type entry struct {
	ID         string     `json:"id"`
	Level      Level      `json:"level"`
	Section    string     `json:"section"`
	Quote      string     `json:"quote"`
	CoveredBy  []Citation `json:"coveredBy"`
	Untestable string     `json:"untestable"`
	Pending    string     `json:"pending"`
	SameAs     string     `json:"sameAs"`
}

// Load reads the embedded catalogue, every spec in the order of Specs and
// every requirement in document order.
func Load() ([]Requirement, error) {
	var all []Requirement
	seen := map[string]bool{}
	for _, spec := range Specs {
		name := spec + ".yaml"
		data, err := files.ReadFile(name)
		if err != nil {
			return nil, err
		}
		reqs, err := Parse(spec, data)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		for _, r := range reqs {
			if seen[r.ID] {
				return nil, fmt.Errorf("%s: %s: duplicate id", name, r.ID)
			}
			seen[r.ID] = true
		}
		all = append(all, reqs...)
	}
	// An entry the same as another takes its coverage.
	byID := map[string]Requirement{}
	for _, r := range all {
		byID[r.ID] = r
	}
	for i, r := range all {
		if r.SameAs == "" {
			continue
		}
		to, ok := byID[r.SameAs]
		switch {
		case !ok:
			return nil, fmt.Errorf("%s: sameAs %s: no such entry", r.ID, r.SameAs)
		case to.SameAs != "" || to.Spec == r.Spec:
			return nil, fmt.Errorf("%s: sameAs %s: name an entry of another spec's text that is not itself sameAs another", r.ID, r.SameAs)
		case to.Level != r.Level:
			return nil, fmt.Errorf("%s: sameAs %s: level %s, that entry's is %s", r.ID, r.SameAs, r.Level, to.Level)
		}
		all[i].CoveredBy, all[i].Untestable, all[i].Pending = to.CoveredBy, to.Untestable, to.Pending
	}
	return all, nil
}

// Parse reads the catalogue of one spec (one of Specs) and checks its
// format: unknown fields, ids (<PREFIX>-NNN, unique, increasing), levels,
// quotes against their level, and coverage (each entry has coveredBy,
// untestable or pending; untestable excludes the others; each coveredBy item
// names exactly one scenario, property or test).
func Parse(spec string, data []byte) ([]Requirement, error) {
	prefix, ok := idPrefix[spec]
	if !ok {
		return nil, fmt.Errorf("unknown spec %q (one of %s)", spec, strings.Join(Specs, ", "))
	}
	var entries []entry
	if err := yaml.UnmarshalStrict(data, &entries); err != nil {
		return nil, err
	}
	var errs []error
	reqs := make([]Requirement, 0, len(entries))
	last := 0
	seen := map[string]bool{}
	for i, e := range entries {
		where := e.ID
		if where == "" {
			where = fmt.Sprintf("entry %d", i+1)
		}
		bad := func(format string, a ...any) {
			errs = append(errs, fmt.Errorf("%s: %s", where, fmt.Sprintf(format, a...)))
		}
		n, err := idNumber(prefix, e.ID)
		switch {
		case err != nil:
			bad("%v", err)
		case seen[e.ID]:
			bad("duplicate id")
		case n <= last:
			bad("ids must increase in document order (after %s-%03d)", prefix, last)
		}
		seen[e.ID] = true
		if n > last {
			last = n
		}
		checkText(e, bad)
		untestable, pending := checkCoverage(e, bad)
		reqs = append(reqs, Requirement{
			ID: e.ID, Spec: spec, Level: e.Level, Section: e.Section, Quote: e.Quote,
			CoveredBy: e.CoveredBy, Untestable: untestable, Pending: pending, SameAs: e.SameAs,
		})
	}
	if len(reqs) == 0 && len(errs) == 0 {
		errs = append(errs, errors.New("no requirements"))
	}
	return reqs, errors.Join(errs...)
}

// checkText checks an entry's level against its quote, its section and
// its quote's whitespace.
func checkText(e entry, bad func(format string, a ...any)) {
	if !validLevel(e.Level) {
		bad("level %q: one of MUST, MUST NOT, SHOULD, SHOULD NOT", e.Level)
	} else if msg := levelMatchesQuote(e.Level, e.Quote); msg != "" {
		bad("%s", msg)
	}
	if strings.TrimSpace(e.Section) == "" {
		bad("no section")
	}
	if strings.TrimSpace(e.Quote) == "" {
		bad("no quote")
	} else if e.Quote != Normalize(e.Quote) {
		bad("quote has leading, trailing or repeated whitespace")
	}
}

// checkCoverage checks how an entry is covered: coveredBy items that name
// one thing each, and one of coveredBy, untestable, pending or sameAs. It
// returns untestable and pending trimmed.
func checkCoverage(e entry, bad func(format string, a ...any)) (untestable, pending string) {
	for j, c := range e.CoveredBy {
		set := 0
		for _, v := range []string{c.Scenario, c.Property, c.Test} {
			if v != "" {
				set++
			}
		}
		if set != 1 {
			bad("coveredBy[%d]: name exactly one of scenario, property, test", j)
		}
	}
	untestable, pending = strings.TrimSpace(e.Untestable), strings.TrimSpace(e.Pending)
	switch {
	case e.SameAs != "" && (untestable != "" || pending != "" || len(e.CoveredBy) > 0):
		bad("sameAs takes the coverage of the entry it names: no coveredBy, untestable or pending")
	case e.SameAs != "":
	case untestable != "" && (len(e.CoveredBy) > 0 || pending != ""):
		bad("untestable excludes coveredBy and pending")
	case untestable == "" && pending == "" && len(e.CoveredBy) == 0:
		bad("needs coveredBy, untestable (why gepcheck cannot test it) or pending (which issue will cover it)")
	}
	return untestable, pending
}

func idNumber(prefix, id string) (int, error) {
	num, ok := strings.CutPrefix(id, prefix+"-")
	if !ok || len(num) != 3 {
		return 0, fmt.Errorf("id %q: want %s-NNN", id, prefix)
	}
	n, err := strconv.Atoi(num)
	if err != nil || n <= 0 {
		return 0, fmt.Errorf("id %q: want %s-NNN with NNN from 001", id, prefix)
	}
	return n, nil
}

func validLevel(l Level) bool {
	for _, v := range Levels {
		if l == v {
			return true
		}
	}
	return false
}

var (
	mustWord   = regexp.MustCompile(`\bMUST\b`)
	shouldWord = regexp.MustCompile(`\b(SHOULD|RECOMMENDED)\b`)
	shallWord  = regexp.MustCompile(`\b(SHALL|REQUIRED)\b`)
)

// levelMatchesQuote checks that the level is the strongest keyword of the
// quote (RFC 2119: SHALL and REQUIRED are MUST, RECOMMENDED is SHOULD).
func levelMatchesQuote(l Level, quote string) string {
	hasMust := mustWord.MatchString(quote) || shallWord.MatchString(quote)
	switch l {
	case MustNot:
		if !strings.Contains(quote, "MUST NOT") && !strings.Contains(quote, "SHALL NOT") {
			return "level MUST NOT, but the quote has no MUST NOT"
		}
	case Must:
		if !hasMust {
			return "level MUST, but the quote has no MUST (or SHALL, REQUIRED)"
		}
	case ShouldNot, Should:
		if hasMust {
			return fmt.Sprintf("level %s, but the quote has a MUST: the level is the strongest keyword", l)
		}
		if l == ShouldNot && !strings.Contains(quote, "SHOULD NOT") {
			return "level SHOULD NOT, but the quote has no SHOULD NOT"
		}
		if l == Should && !shouldWord.MatchString(quote) {
			return "level SHOULD, but the quote has no SHOULD (or RECOMMENDED)"
		}
	}
	return ""
}

// Normalize joins every run of whitespace into one space and trims the ends:
// the form quotes are written in, and the form a seed file is compared in.
func Normalize(s string) string { return strings.Join(strings.Fields(s), " ") }

// Counts tallies requirements by status.
type Counts struct {
	Total      int `json:"total"`
	Covered    int `json:"covered"`
	Partial    int `json:"partial"`
	Pending    int `json:"pending"`
	Untestable int `json:"untestable"`
	Missing    int `json:"missing"`
}

func (c *Counts) add(s Status) {
	c.Total++
	switch s {
	case Covered:
		c.Covered++
	case Partial:
		c.Partial++
	case Pending:
		c.Pending++
	case Untestable:
		c.Untestable++
	default:
		c.Missing++
	}
}

// Row is the tally of one spec and level.
type Row struct {
	Spec  string `json:"spec"`
	Level Level  `json:"level"`
	Counts
}

// Summary tallies a list of requirements per spec and level.
type Summary struct {
	// Rows holds one row per spec and level that has requirements, specs in
	// the order of Specs (then any other, sorted) and levels in the order of
	// Levels.
	Rows  []Row  `json:"rows"`
	Total Counts `json:"total"`
}

// Coverage tallies reqs per spec and level.
func Coverage(reqs []Requirement) Summary {
	type key struct {
		spec  string
		level Level
	}
	counts := map[key]*Counts{}
	var s Summary
	for _, r := range reqs {
		k := key{r.Spec, r.Level}
		if counts[k] == nil {
			counts[k] = &Counts{}
		}
		counts[k].add(r.Status())
		s.Total.add(r.Status())
	}
	rank := func(spec string) int {
		for i, v := range Specs {
			if v == spec {
				return i
			}
		}
		return len(Specs)
	}
	levelRank := func(l Level) int {
		for i, v := range Levels {
			if v == l {
				return i
			}
		}
		return len(Levels)
	}
	for k, c := range counts {
		s.Rows = append(s.Rows, Row{Spec: k.spec, Level: k.level, Counts: *c})
	}
	sort.Slice(s.Rows, func(a, b int) bool {
		x, y := s.Rows[a], s.Rows[b]
		if rank(x.Spec) != rank(y.Spec) {
			return rank(x.Spec) < rank(y.Spec)
		}
		if x.Spec != y.Spec {
			return x.Spec < y.Spec
		}
		if levelRank(x.Level) != levelRank(y.Level) {
			return levelRank(x.Level) < levelRank(y.Level)
		}
		return x.Level < y.Level
	})
	return s
}

// Check returns the problems of a catalogue, one line each:
//   - a MUST or MUST NOT with neither coveredBy, untestable nor pending;
//   - a cited scenario that is not a file under repoRoot;
//   - a cited test DIR.Name for which no *_test.go file of repoRoot/DIR
//     declares `func Name(`;
//   - a cited property that is not in properties.
func Check(reqs []Requirement, repoRoot string, properties []string) []string {
	var problems []string
	known := map[string]bool{}
	for _, p := range properties {
		known[p] = true
	}
	sources := map[string][]byte{} // test directory -> its *_test.go files, concatenated
	testSources := func(dir string) ([]byte, error) {
		if b, ok := sources[dir]; ok {
			return b, nil
		}
		names, err := filepath.Glob(filepath.Join(repoRoot, filepath.FromSlash(dir), "*_test.go"))
		if err != nil {
			return nil, err
		}
		var all []byte
		for _, n := range names {
			b, err := os.ReadFile(n)
			if err != nil {
				return nil, err
			}
			all = append(append(all, b...), '\n')
		}
		sources[dir] = all
		return all, nil
	}
	for _, r := range reqs {
		if r.Level.Mandatory() && r.Status() == Missing {
			problems = append(problems, fmt.Sprintf("%s: %s without coveredBy, untestable or pending", r.ID, r.Level))
		}
		for _, c := range r.CoveredBy {
			switch {
			case c.Scenario != "":
				st, err := os.Stat(filepath.Join(repoRoot, filepath.FromSlash(c.Scenario)))
				if err != nil || st.IsDir() {
					problems = append(problems, fmt.Sprintf("%s: scenario %s: no such file", r.ID, c.Scenario))
				}
			case c.Property != "":
				if !known[c.Property] {
					problems = append(problems, fmt.Sprintf("%s: property %s: no such property", r.ID, c.Property))
				}
			case c.Test != "":
				dot := strings.LastIndex(c.Test, ".")
				if dot <= 0 || dot == len(c.Test)-1 {
					problems = append(problems, fmt.Sprintf("%s: test %s: want DIR.TestName", r.ID, c.Test))
					continue
				}
				dir, name := c.Test[:dot], c.Test[dot+1:]
				src, err := testSources(dir)
				if err != nil {
					problems = append(problems, fmt.Sprintf("%s: test %s: %v", r.ID, c.Test, err))
					continue
				}
				if !bytes.Contains(src, []byte("func "+name+"(")) {
					problems = append(problems, fmt.Sprintf("%s: test %s: no func %s( in %s/*_test.go", r.ID, c.Test, name, dir))
				}
			default:
				problems = append(problems, fmt.Sprintf("%s: empty coveredBy item", r.ID))
			}
		}
	}
	return problems
}
