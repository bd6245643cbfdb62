package suite

import (
	"flag"
	"fmt"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"pgregory.net/rapid"

	"github.com/gepcheck/gepcheck/simulator/engine"
)

// DefaultChecks is the number of random cases each property checks in
// `go test ./suite/` (rapid's own default). Override with -rapid.checks or
// RAPID_CHECKS.
const DefaultChecks = 100

// Options narrow what properties draw.
type Options struct {
	// Profile, when set, is the profile of properties that accept any
	// (a built-in name or "all-levels").
	Profile string
	// Semantics, when set, is the only path semantics drawn.
	Semantics engine.Semantics
	// ShrinkTime bounds the search for a minimal counterexample (30s when
	// zero).
	ShrinkTime time.Duration
}

func (o Options) shrinkTime() time.Duration {
	if o.ShrinkTime == 0 {
		return 30 * time.Second
	}
	return o.ShrinkTime
}

// Outcome is the result of checking one property.
type Outcome struct {
	Property string
	// Replay is the property's Replay flags.
	Replay string
	Mutant engine.Mutant
	Seed   uint64
	Checks int
	Passed bool
	// Log is what rapid reported (the failing case's messages on failure).
	Log string
	// Capture holds the last scenario checked: the shrunk counterexample
	// when the property failed.
	Capture *Capture
	Elapsed time.Duration
}

// recorder is a rapid.TB that records instead of failing a Go test, so that
// properties can run outside `go test` and mutants can be expected to fail.
type recorder struct {
	mu     sync.Mutex
	name   string
	log    strings.Builder
	failed bool
}

func (r *recorder) Helper()        {}
func (r *recorder) Name() string   { return r.name }
func (r *recorder) Log(a ...any)   { r.logf("%s", fmt.Sprintln(a...)) }
func (r *recorder) Skip(a ...any)  { r.Log(a...); panic(stop{}) }
func (r *recorder) SkipNow()       { panic(stop{}) }
func (r *recorder) Error(a ...any) { r.Log(a...); r.Fail() }
func (r *recorder) Fatal(a ...any) { r.Log(a...); r.FailNow() }
func (r *recorder) FailNow()       { r.Fail(); panic(stop{}) }
func (r *recorder) Fail()          { r.mu.Lock(); r.failed = true; r.mu.Unlock() }
func (r *recorder) Failed() bool   { r.mu.Lock(); defer r.mu.Unlock(); return r.failed }
func (r *recorder) Logf(format string, a ...any) {
	r.logf(format+"\n", a...)
}
func (r *recorder) Skipf(format string, a ...any) { r.Logf(format, a...); panic(stop{}) }
func (r *recorder) Errorf(format string, a ...any) {
	r.Logf(format, a...)
	r.Fail()
}
func (r *recorder) Fatalf(format string, a ...any) { r.Logf(format, a...); r.FailNow() }
func (r *recorder) logf(format string, a ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	fmt.Fprintf(&r.log, format, a...)
}

type stop struct{}

var rapidFlags sync.Mutex

// gcPercent is the GOGC of property runs: checks allocate many small,
// short-lived objects on a heap of a few megabytes, and collecting less
// often more than doubles throughput (docs/performance.md).
const gcPercent = 400

// Run checks property p on engine variant m with the given seed and number
// of checks, outside `go test`. Runs are serialized: rapid reads its seed and
// check count from process-wide flags.
func Run(p Property, m engine.Mutant, seed uint64, checks int, opts Options) Outcome {
	return RunAll([]Property{p}, m, seed, checks, opts, 1, nil)[0]
}

// RunAll checks properties on engine variant m, workers at a time (rapid
// reads its flags when a check starts, so they are set once for the whole
// batch). done, when not nil, is called as each property finishes.
func RunAll(ps []Property, m engine.Mutant, seed uint64, checks int, opts Options, workers int, done func(Outcome)) []Outcome {
	rapidFlags.Lock()
	defer rapidFlags.Unlock()
	initFlags()
	restore := setFlags(map[string]string{
		"rapid.seed":       strconv.FormatUint(seed, 10),
		"rapid.checks":     strconv.Itoa(checks),
		"rapid.nofailfile": "true",
		"rapid.shrinktime": opts.shrinkTime().String(),
	})
	defer restore()
	if workers < 1 {
		workers = 1
	}
	defer debug.SetGCPercent(debug.SetGCPercent(gcPercent))
	out := make([]Outcome, len(ps))
	next := make(chan int)
	var wg sync.WaitGroup
	var doneMu sync.Mutex
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				out[i] = check(ps[i], m, seed, checks, opts)
				if done != nil {
					doneMu.Lock()
					done(out[i])
					doneMu.Unlock()
				}
			}
		}()
	}
	for i := range ps {
		next <- i
	}
	close(next)
	wg.Wait()
	return out
}

func check(p Property, m engine.Mutant, seed uint64, checks int, opts Options) Outcome {
	rec := &recorder{name: p.Name}
	c := &Capture{opts: opts}
	start := time.Now()
	func() {
		defer func() {
			if r := recover(); r != nil {
				if _, ok := r.(stop); !ok {
					panic(r)
				}
			}
		}()
		rapid.Check(rec, func(t *rapid.T) { p.Check(t, m, c) })
	}()
	return Outcome{Property: p.Name, Replay: p.Replay, Mutant: m, Seed: seed, Checks: checks, Passed: !rec.Failed(),
		Log: rec.log.String(), Capture: c, Elapsed: time.Since(start)}
}

var initOnce sync.Once

// initFlags makes rapid usable outside `go test`: rapid asks
// testing.Short(), which needs the testing flags registered.
func initFlags() {
	initOnce.Do(func() {
		if flag.Lookup("test.short") == nil {
			testing.Init()
		}
		if !flag.Parsed() {
			_ = flag.CommandLine.Parse(nil) // no command line: cobra has it
		}
	})
}

func setFlags(values map[string]string) (restore func()) {
	old := map[string]string{}
	for k, v := range values {
		f := flag.Lookup(k)
		if f == nil {
			continue
		}
		old[k] = f.Value.String()
		_ = flag.Set(k, v)
	}
	return func() {
		for k, v := range old {
			_ = flag.Set(k, v)
		}
	}
}
