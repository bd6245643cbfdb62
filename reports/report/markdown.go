package report

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/gepcheck/gepcheck/internal/markdown"
)

// Files names the artefacts Write puts in an implementation's directory
// (reports/<implementation>/<version>/), in the layout of Gateway API's
// conformance/reports directory: a README for every mode run, and per mode
// the ConformanceReport YAML named after channel, version and mode, JUnit,
// HTML, and the results they are made from.
func Files(r *Results) (readme, report, junit, html, results string) {
	return "README.md", fmt.Sprintf("%s-%s-%s-report.yaml", r.GatewayAPIChannel, r.Implementation.Version, r.Mode),
		"junit-" + r.Mode + ".xml", "report-" + r.Mode + ".html", "results-" + r.Mode + ".json"
}

// Markdown is the README of an implementation's version directory, for
// the results of each mode run there (offline, in a cluster): the table of
// reports, then per mode the results per feature, what failed, the random
// campaigns, and how to reproduce.
func Markdown(rs []*Results) []byte {
	var b bytes.Buffer
	if len(rs) == 0 {
		return nil
	}
	first := rs[0]
	fmt.Fprintf(&b, "# %s %s\n\n", markdown.Text(first.Implementation.Project), markdown.Text(first.Implementation.Version))
	fmt.Fprintf(&b, "Policy Attachment conformance of %s (gepcheck %s), written by gepcheck (docs/reports.md).\n\n", markdown.Text(first.Implementation.Project), markdown.Code("--impl "+first.Implementation.Name))
	fmt.Fprintf(&b, "%s\n\n", markdown.Text(first.Standing()))
	b.WriteString("| API channel | Implementation version | Mode | Report | Also |\n| --- | --- | --- | --- | --- |\n")
	for _, r := range rs {
		_, report, junit, html, results := Files(r)
		// Validate keeps the channel, version and mode to names.
		fmt.Fprintf(&b, "| %s | %s | %s | [%s](./%s) | [HTML](./%s), [JUnit](./%s), [results](./%s) |\n", markdown.Text(r.GatewayAPIChannel), markdown.Text(r.Implementation.Version), markdown.Text(r.Mode), markdown.Text(report), report, html, junit, results)
	}
	for _, r := range rs {
		markdownMode(&b, r)
	}
	return b.Bytes()
}

func markdownMode(b *bytes.Buffer, r *Results) {
	p, f, s, e := r.Counts()
	fmt.Fprintf(b, "\n## %s\n\n", strings.ToUpper(modeText(r.Mode)[:1])+modeText(r.Mode)[1:])
	fmt.Fprintf(b, "%s\n\n%s\n\n", markdown.Text(r.Reading()), markdown.Text(r.Producer()))
	fmt.Fprintf(b, "Under the %s reading of GEP-713, status vocabulary %s (docs/semantics.md). %d scenario cases: %d passed, %d failed, %d skipped, %d errors", markdown.Text(r.Semantics), markdown.Text(r.StatusVocabularyRead()), len(r.Cases), p, f, s, e)
	if len(r.Shards) > 0 {
		fmt.Fprintf(b, " (merged from shards %s)", markdown.Text(strings.Join(r.Shards, ", ")))
	}
	b.WriteString(".\n\n| Feature | Profile | Passed | Failed | Skipped |\n| --- | --- | ---: | ---: | ---: |\n")
	for _, fc := range FeatureCounts(r) {
		fmt.Fprintf(b, "| %s | %s | %d | %d | %d |\n", markdown.Text(fc.Name), markdown.Text(fc.Profile), fc.Passed, fc.Failed, fc.Skipped)
	}
	var failed []CaseResult
	for _, c := range r.Cases {
		if c.Outcome == Failed || c.Outcome == Errored {
			failed = append(failed, c)
		}
	}
	if len(failed) > 0 {
		b.WriteString("\n### Failed\n\n")
		for _, c := range failed {
			fmt.Fprintf(b, "- %s (%s)", markdown.Code(c.Name), markdown.Text(strings.Join(c.Features, ", ")))
			if c.Reason != "" {
				fmt.Fprintf(b, ": %s", markdown.Text(c.Reason))
			}
			b.WriteString("\n")
			switch v := c.KnownVerdict(r.KnownFrom); {
			case v == Unmatched:
				fmt.Fprintf(b, "  - %s\n", markdown.Text(v))
			case v != "":
				knownLines(b, r.KnownFrom, c.Known)
			}
			for _, d := range c.Differences {
				fmt.Fprintf(b, "  - %s\n", markdown.Code(d))
			}
		}
	}
	for _, c := range r.Campaigns {
		fmt.Fprintf(b, "\n### Random cases: %s\n\nProfile %s, seed %d, %d cases", markdown.Text(c.Kind), markdown.Code(c.Profile), c.Seed, c.Checks)
		if c.Steps > 0 {
			fmt.Fprintf(b, " with up to %d changes over time each", c.Steps)
		}
		fmt.Fprintf(b, ": %d disagree with the reference. One finding per kind of difference, shrunk:\n\n", c.Disagreed)
		for _, f := range c.Findings {
			fmt.Fprintf(b, "- %s (case %d)\n", markdown.Code(f.Kind.String()), f.Case)
			knownLines(b, r.KnownFrom, f.Known)
			for _, d := range f.Differences {
				fmt.Fprintf(b, "  - %s\n", markdown.Code(d))
			}
		}
		fmt.Fprintf(b, "\nReplay: %s\n", markdown.Code(c.Replay))
	}
	// The gepcheck that ran, checked out where its commit is known and
	// its tree was clean (the line names the build: hack/lib.sh's
	// undated leaves it out of a comparison).
	clone := "git clone https://github.com/gepcheck/gepcheck && cd gepcheck && make build"
	if r.GepcheckCommit != "" {
		clone = "git clone https://github.com/gepcheck/gepcheck && cd gepcheck && git checkout " + r.GepcheckCommit + " && make build  # " + r.Gepcheck
	} else if r.Gepcheck != "" {
		clone += "  # run by " + r.Gepcheck + ", not a clean commit: the run may not be reproducible exactly"
	}
	lines := []string{clone}
	seen := map[string]bool{}
	for _, c := range r.Cases {
		cmd := replayCommand(c.Replay)
		if !seen[cmd] {
			seen[cmd] = true
			lines = append(lines, cmd)
		}
	}
	for _, c := range r.Campaigns {
		lines = append(lines, "bin/"+c.Replay)
	}
	b.WriteString("\n### Reproduce\n\n")
	b.WriteString(markdown.Fenced("sh", lines))
}

// knownLines says how a failure reads against the kept findings: a line
// per kept finding it shows (its file, triage and upstream links), or
// that it is a regression; nothing when the results were not matched.
func knownLines(b *bytes.Buffer, knownFrom string, known []Known) {
	if knownFrom == "" {
		return
	}
	if len(known) == 0 {
		fmt.Fprintf(b, "  - **regression**: no kept finding in %s shows these differences\n", markdown.Text(knownFrom))
		return
	}
	for _, k := range known {
		t := k.Verdict
		if k.Requirement != "" {
			t += " " + k.Requirement
		}
		links := "no upstream issue known"
		if len(k.Upstream) > 0 {
			var ls []string
			for _, u := range k.Upstream {
				ls = append(ls, markdown.Text(u))
			}
			links = strings.Join(ls, ", ")
		}
		fmt.Fprintf(b, "  - known: %s, %s, %s\n", markdown.Code(k.Finding), markdown.Text(t), links)
	}
}

// replayCommand is a case's replay for a whole run: the command with the
// directory of its file instead of the file.
func replayCommand(replay string) string {
	fields := strings.Fields(replay)
	if len(fields) == 0 {
		return ""
	}
	last := fields[len(fields)-1]
	if i := strings.LastIndex(last, "/"); i > 0 && strings.HasSuffix(last, ".yaml") {
		fields[len(fields)-1] = last[:i] + "/"
	}
	return "bin/" + strings.Join(fields, " ")
}

func modeText(mode string) string {
	if mode == "offline" {
		return "offline (its translator)"
	}
	return "in a cluster (" + strings.TrimPrefix(mode, "cluster-") + ")"
}
