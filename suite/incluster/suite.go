package incluster

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/ginkgo/v2/types"
	"github.com/onsi/gomega"

	"github.com/gepcheck/gepcheck/internal/exitcode"
	"github.com/gepcheck/gepcheck/suite/compare"
)

// Suite runs plans as a Ginkgo suite: one spec per scenario, labelled by
// spec and feature (--label-filter), with a per-step timeout, JUnit
// output, and cleanup that also runs when the run is interrupted.
type Suite struct {
	Runner *Runner
	Plans  []*Plan
	// Parallel scenarios are applied ahead of the one being verified.
	Parallel    int
	LabelFilter string
	JUnitReport string
	Verbose     bool
	// Cleanup runs after the suite, also on SIGINT/SIGTERM.
	Cleanup func()

	mu      sync.Mutex
	Results []Result
	// Interrupted says the run was ended by SIGINT or SIGTERM: what
	// follows it (shrinking) is not started.
	Interrupted bool
}

type failer struct{ failed bool }

func (f *failer) Fail() { f.failed = true }

// Run runs the suite in this process; it may be called once per process
// (a Ginkgo restriction). It reports whether every spec passed or was
// skipped.
func (s *Suite) Run(description string) (bool, error) {
	suiteCfg, reporterCfg := ginkgo.GinkgoConfiguration()
	suiteCfg.LabelFilter = s.LabelFilter
	suiteCfg.Timeout = 24 * time.Hour
	reporterCfg.JUnitReport = s.JUnitReport
	reporterCfg.Verbose = s.Verbose
	reporterCfg.NoColor = true
	var want func(int) bool
	if s.LabelFilter != "" {
		filter, err := types.ParseLabelFilter(s.LabelFilter)
		if err != nil {
			return false, exitcode.Input{Err: fmt.Errorf("--label-filter: %w", err)}
		}
		want = func(i int) bool { return filter(s.Plans[i].Labels) }
	}
	pl := &Pipeline{Runner: s.Runner, Plans: s.Plans, Parallel: s.Parallel, Want: want}
	applyCtx, cancelApply := context.WithCancel(context.Background())
	gomega.RegisterFailHandler(ginkgo.Fail)
	ginkgo.Describe(description, func() {
		for i, p := range s.Plans {
			ginkgo.It(p.Name+" ("+p.File+")", ginkgo.Label(p.Labels...), func(ctx ginkgo.SpecContext) {
				start := time.Now()
				a := pl.Applied(applyCtx, i)
				if !s.Runner.Opts.Keep {
					ginkgo.DeferCleanup(func(ctx ginkgo.SpecContext) {
						if err := s.Runner.Delete(ctx, p, i); err != nil {
							ginkgo.GinkgoWriter.Println(err)
						}
					}, ginkgo.NodeTimeout(time.Minute))
				}
				res := s.Runner.Verify(ctx, a)
				res.Duration = time.Since(start)
				s.mu.Lock()
				s.Results = append(s.Results, res)
				s.mu.Unlock()
				for _, n := range res.Notes {
					ginkgo.GinkgoWriter.Println("note:", n)
				}
				switch res.Outcome {
				case Skip:
					ginkgo.Skip(res.Reason)
				case Error:
					ginkgo.Fail(at(res) + "error: " + strings.Join(append([]string{res.Reason}, compare.Strings(res.Diff)...), "\n  "))
				case Fail:
					ginkgo.Fail(at(res) + s.Runner.Impl.Name() + " disagrees with the reference engine (expectation computed from the stored objects):\n  " + strings.Join(compare.Strings(res.Diff), "\n  "))
				}
			}, ginkgo.NodeTimeout(3*s.Runner.timeout()+time.Minute))
		}
	})
	ginkgo.AfterSuite(func() {
		cancelApply()
		if s.Cleanup != nil {
			s.Cleanup()
		}
	})
	// Ginkgo handles the signal; this channel only notes that it came.
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
	defer signal.Stop(sig)
	f := &failer{}
	ok := ginkgo.RunSpecs(f, description, suiteCfg, reporterCfg)
	cancelApply()
	select {
	case <-sig:
		s.Interrupted = true
	default:
	}
	return ok && !f.failed, nil
}

// at names the step of a result, if any: "step 2 (name): ".
func at(r Result) string {
	if r.Label() == "" {
		return ""
	}
	return r.Label() + ": "
}
