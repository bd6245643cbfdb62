package differential

import (
	"fmt"
	"strings"

	"github.com/gepcheck/gepcheck/generators"
	"github.com/gepcheck/gepcheck/suite/observe"
)

// Fuzzer is implemented by an implementation's configuration when its
// offline observer is fast enough for batched differential fuzzing (Fuzz): the
// policy kinds to fuzz and the profile each is judged with.
type Fuzzer interface {
	// FuzzKinds lists policy kind and profile, the default first.
	FuzzKinds() []FuzzKind
	// Describe names what runs, for the run's first lines.
	Describe() string
	// ReplayFlags are the implementation's flags a replay needs (those
	// not at their default).
	ReplayFlags() []string
	// ProfileSource says whose description of the policy kinds the
	// profiles follow, for findings files.
	ProfileSource() string
}

// FuzzKind is a policy kind to fuzz and the built-in profile that says
// how the implementation documents it.
type FuzzKind struct {
	Kind, Profile string
	// Combinations are the field, level and merge option combinations
	// the implementation accepts and its driver reads
	// (DeclaredCombinations): fuzz --coverage reports how often each was
	// drawn and fails when one never is.
	Combinations []string
}

// FuzzRun is the batched differential run of policy kind kind ("" for
// the first the implementation names) against d, from seed: case i is
// drawn with seed+i in namespace case-i, a scenario of the kind's
// generator followed, when steps > 0, by up to steps changes
// (generators.Cases); its findings carry the command that replays the
// run.
func FuzzRun(impl string, fz Fuzzer, d observe.Observer, kind string, seed uint64, checks, steps int) (Run, error) {
	k, err := fuzzKind(fz, kind)
	if err != nil {
		return Run{}, err
	}
	gen := func(i int) generators.Case {
		g, _ := generators.For(k.Profile, fmt.Sprintf("case-%d", i), 4)
		if steps > 0 {
			return generators.Cases(g, steps).Example(int(seed) + i)
		}
		return generators.Case{Scenario: g.Example(int(seed) + i)}
	}
	return Run{
		Observer: d, Profile: k.Profile, Generate: gen, Checks: checks, Steps: steps,
		Replay: replay(impl, fz, d, k, seed, checks, steps), ProfileSource: fz.ProfileSource(),
		Declared: k.Combinations,
	}, nil
}

// fuzzKind is the kind to fuzz ("": the first fz names), with a
// generator for its profile.
func fuzzKind(fz Fuzzer, kind string) (FuzzKind, error) {
	kinds := fz.FuzzKinds()
	if kind == "" {
		kind = kinds[0].Kind
	}
	var k FuzzKind
	var names []string
	for _, c := range kinds {
		names = append(names, c.Kind)
		if c.Kind == kind {
			k = c
		}
	}
	if k.Kind == "" {
		return k, fmt.Errorf("--kind %s: one of %s", kind, strings.Join(names, ", "))
	}
	if _, ok := generators.For(k.Profile, "", 0); !ok {
		return k, fmt.Errorf("no generator draws scenarios for profile %s", k.Profile)
	}
	return k, nil
}

// replay is the command that repeats a run.
func replay(impl string, fz Fuzzer, d observe.Observer, k FuzzKind, seed uint64, checks, steps int) string {
	cmd := []string{"gepcheck", "fuzz", "--impl", impl, "--kind", k.Kind, "--seed", fmt.Sprint(seed), "--checks", fmt.Sprint(checks)}
	if steps > 0 {
		cmd = append(cmd, "--steps", fmt.Sprint(steps))
	}
	cmd = append(cmd, fz.ReplayFlags()...)
	if sem := d.Capabilities().Semantics; sem != "" {
		cmd = append(cmd, "--semantics", string(sem)) // the claim the run compared under
	}
	if v := d.Capabilities().Vocabulary; v != "" {
		cmd = append(cmd, "--status-vocabulary", string(v))
	}
	return strings.Join(cmd, " ")
}
