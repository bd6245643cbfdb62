package report_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"

	"github.com/gepcheck/gepcheck/impl/reference"
	"github.com/gepcheck/gepcheck/reports/report"
	"github.com/gepcheck/gepcheck/simulator"
	"github.com/gepcheck/gepcheck/suite/differential"
	"github.com/gepcheck/gepcheck/suite/observe"
)

// TestChromiumRendersReport renders the HTML report of the reference's
// catalogue run in headless Chromium (Debian's chromium; make ci installs
// it): every scenario's diagram is drawn, a box of non-zero size for each
// of its targets and policies (a targetRef to nothing is a box of its
// own), the page logs no error and throws nothing,
// and a screenshot is saved ($GEPCHECK_SCREENSHOT, else the test's
// temporary directory; docs/images/report.png is one).
func TestChromiumRendersReport(t *testing.T) {
	browser, err := exec.LookPath("chromium")
	if err != nil {
		t.Fatalf("chromium is not installed (make ci installs Debian's chromium package): %v", err)
	}
	obs := reference.Offline{}
	cases, err := observe.ScenarioCases([]string{"../../scenarios/gep-713/", "../../scenarios/gep-2649/"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	results, err := differential.Cases(context.Background(), obs, cases)
	if err != nil {
		t.Fatal(err)
	}
	r := report.NewResults(report.Implementation{Name: "reference", Organization: "gepcheck", Project: "gepcheck-reference",
		URL: "https://github.com/gepcheck/gepcheck", Version: "main", Contact: []string{"@gepcheck"}}, "offline", "", obs.Capabilities())
	r.Cases = report.OfflineCases(results, obs.Capabilities(), func(f string) string { return "gepcheck run --impl reference " + f })
	page, err := report.HTML(r)
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "report.html")
	if err := os.WriteFile(file, page, 0o644); err != nil {
		t.Fatal(err)
	}
	// The boxes each case's diagram must have: its targets and policies.
	want := map[string]int{}
	for i, c := range r.Cases {
		if c.Outcome == report.Skipped {
			continue
		}
		m, err := simulator.LoadFiles([]string{"-"}, strings.NewReader(c.Scenario), simulator.Options{Profiles: c.Profiles})
		if err != nil {
			t.Fatal(err)
		}
		n := len(m.Graph.Nodes)
		for _, k := range m.Kinds {
			n += len(k.Policies)
		}
		want[caseID(i)] = n
	}

	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(browser), chromedp.NoSandbox, chromedp.WindowSize(1300, 1800))
	actx, cancel := chromedp.NewExecAllocator(context.Background(), opts...)
	defer cancel()
	ctx, cancel := chromedp.NewContext(actx)
	defer cancel()
	ctx, cancel = context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()
	// The listener runs on chromedp's goroutine: problems is shared.
	var mu sync.Mutex
	var problems []string
	problem := func(s string) {
		mu.Lock()
		defer mu.Unlock()
		problems = append(problems, s)
	}
	if err := chromedp.Listen(ctx, func(ev any) {
		switch ev := ev.(type) {
		case *runtime.EventExceptionThrown:
			problem("exception: " + ev.ExceptionDetails.Text)
		case *runtime.EventConsoleAPICalled:
			if ev.Type == runtime.ConsoleAPICalledTypeError {
				problem("console error")
			}
		case *log.EventEntryAdded:
			if ev.Entry.Level == log.EntryLevelError {
				problem("log error: " + ev.Entry.Text)
			}
		}
	}); err != nil {
		t.Fatal(err)
	}
	if err := chromedp.Do(ctx, chromedp.Navigate("file://"+file), chromedp.WaitReady(`body`)); err != nil {
		t.Fatal(err)
	}
	drawn, err := chromedp.Run(ctx, chromedp.Evaluate[map[string]int](`Object.fromEntries([...document.querySelectorAll('section.case')].map(s =>
		[s.id, [...s.querySelectorAll('svg .node:not(.missing)')].filter(g => { const b = g.getBBox(); return b.width > 0 && b.height > 0 }).length]))`))
	if err != nil {
		t.Fatal(err)
	}
	// One screen of GEP-713's second example, as a reader sees it.
	shown := ""
	for i, c := range r.Cases {
		if strings.HasSuffix(c.File, "example-2-defaults-and-overrides.yaml") {
			shown = caseID(i)
		}
	}
	if shown == "" {
		t.Fatal("no case of GEP-713's second example")
	}
	if _, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`document.getElementById("`+shown+`").scrollIntoView(), true`)); err != nil {
		t.Fatal(err)
	}
	shot, err := chromedp.Run(ctx, chromedp.CaptureScreenshot())
	if err != nil {
		t.Fatal(err)
	}
	if len(want) < 20 {
		t.Fatalf("only %d cases to draw", len(want))
	}
	for id, n := range want {
		if drawn[id] != n {
			t.Errorf("%s: %d boxes drawn, want %d (its targets and policies)", id, drawn[id], n)
		}
	}
	mu.Lock()
	if len(problems) > 0 {
		t.Errorf("the page logged: %v", problems)
	}
	mu.Unlock()
	out := os.Getenv("GEPCHECK_SCREENSHOT")
	if out == "" {
		out = filepath.Join(t.TempDir(), "report.png")
	}
	if err := os.WriteFile(out, shot, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("%d cases drawn; screenshot %s (%d bytes)", len(want), out, len(shot))
}

func caseID(i int) string { return "case-" + strconv.Itoa(i) }
