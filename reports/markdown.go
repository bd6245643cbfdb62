package reports

import (
	"bytes"
	"fmt"
	"slices"
	"strings"
)

// Files names the artefacts Write puts in an implementation's directory
// (reports/<implementation>/<version>/), in the layout of Gateway API's
// conformance/reports directory: a README, the ConformanceReport YAML
// named after channel, version and mode, JUnit, HTML, and the results
// they are made from.
func Files(r *Results) (readme, report, junit, html, results string) {
	return "README.md", fmt.Sprintf("%s-%s-%s-report.yaml", r.GatewayAPIChannel, r.Implementation.Version, r.Mode), "junit.xml", "report.html", "results.json"
}

// Markdown is the README of an implementation's report directory: what
// was run, the results per profile and feature, what failed, the random
// campaigns, and how to reproduce.
func Markdown(r *Results) []byte {
	var b bytes.Buffer
	_, report, junit, html, results := Files(r)
	p, f, s, e := r.Counts()
	fmt.Fprintf(&b, "# %s %s\n\n", r.Implementation.Project, r.Implementation.Version)
	fmt.Fprintf(&b, "Policy Attachment conformance of %s (gepcheck `--impl %s`), %s, under the %s reading of GEP-713 (docs/semantics.md).\n\n",
		r.Implementation.Project, r.Implementation.Name, modeText(r.Mode), r.Semantics)
	b.WriteString("| API channel | Implementation version | Mode | Report |\n| --- | --- | --- | --- |\n")
	fmt.Fprintf(&b, "| %s | %s | %s | [%s](./%s) |\n\n", r.GatewayAPIChannel, r.Implementation.Version, r.Mode, report, report)
	fmt.Fprintf(&b, "Also: [HTML report](./%s) (diagrams of every scenario), [JUnit](./%s), [results](./%s) (what `gepcheck report` reads).\n\n", html, junit, results)
	fmt.Fprintf(&b, "## Results\n\n%d scenario cases: %d passed, %d failed, %d skipped, %d errors", len(r.Cases), p, f, s, e)
	if len(r.Shards) > 0 {
		fmt.Fprintf(&b, " (merged from shards %s)", strings.Join(r.Shards, ", "))
	}
	b.WriteString(".\n\n| Feature | Profile | Passed | Failed | Skipped |\n| --- | --- | ---: | ---: | ---: |\n")
	for _, feat := range slices.Concat(CoreFeatures, ExtendedFeatures) {
		var fp, ff, fs int
		for _, c := range r.Cases {
			if !slices.Contains(c.Features, feat) {
				continue
			}
			switch c.Outcome {
			case Passed:
				fp++
			case Skipped:
				fs++
			default:
				ff++
			}
		}
		kind := "extended"
		if IsCore(feat) {
			kind = "core"
		}
		fmt.Fprintf(&b, "| %s | %s | %d | %d | %d |\n", feat, kind, fp, ff, fs)
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
			fmt.Fprintf(&b, "- `%s` (%s)", c.Name, strings.Join(c.Features, ", "))
			if c.Reason != "" {
				fmt.Fprintf(&b, ": %s", c.Reason)
			}
			b.WriteString("\n")
			for _, d := range c.Differences {
				fmt.Fprintf(&b, "  - %s\n", mdEscape(d))
			}
		}
	}
	for _, c := range r.Campaigns {
		fmt.Fprintf(&b, "\n## Random cases: %s\n\nProfile `%s`, seed %d, %d cases", c.Kind, c.Profile, c.Seed, c.Checks)
		if c.Steps > 0 {
			fmt.Fprintf(&b, " with up to %d changes over time each", c.Steps)
		}
		fmt.Fprintf(&b, ": %d disagree with the reference. One finding per kind of difference, shrunk:\n\n", c.Disagreed)
		for _, f := range c.Findings {
			fmt.Fprintf(&b, "- `%s` (case %d)\n", f.Kind, f.Case)
			for _, d := range f.Differences {
				fmt.Fprintf(&b, "  - %s\n", mdEscape(d))
			}
		}
		fmt.Fprintf(&b, "\nReplay: `%s`\n", c.Replay)
	}
	b.WriteString("\n## Reproduce\n\n```sh\ngit clone https://github.com/gepcheck/gepcheck && cd gepcheck && make build\n")
	seen := map[string]bool{}
	for _, c := range r.Cases {
		cmd := replayCommand(c.Replay)
		if !seen[cmd] {
			seen[cmd] = true
			fmt.Fprintf(&b, "%s\n", cmd)
		}
	}
	for _, c := range r.Campaigns {
		fmt.Fprintf(&b, "bin/%s\n", c.Replay)
	}
	b.WriteString("```\n")
	return b.Bytes()
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

// mdEscape keeps a difference on one Markdown line and its braces and
// pipes literal.
func mdEscape(s string) string {
	return "`" + strings.ReplaceAll(strings.ReplaceAll(s, "\n", " "), "`", "'") + "`"
}
