package runner

import (
	"slices"
	"strings"

	"github.com/gepcheck/gepcheck/impl"
	"github.com/gepcheck/gepcheck/internal/shell"
	"github.com/gepcheck/gepcheck/simulator/engine"
)

// Replay is what a replay command of a run repeats: every flag that
// selects what was run (docs/reports.md, Reproduce).
type Replay struct {
	// Mode is the flags of the mode (--cluster NAME; none offline).
	Mode []string
	Impl string
	// Config is the implementation's configuration, whose flags a replay
	// needs (ImplFlags).
	Config impl.Config
	// Profiles are the --profile flags given.
	Profiles []string
	// Semantics and Vocabulary are the claims compared under, when told.
	Semantics  engine.Semantics
	Vocabulary engine.Vocabulary
}

// ImplFlags are the implementation's flags a replay needs: those of a
// differential.Fuzzer, or of any configuration that names them (exec's
// --exec-command), with its version: a replay must not run another
// version gepcheck pins when it is read.
func ImplFlags(cfg impl.Config) []string {
	if r, ok := cfg.(interface{ ReplayFlags() []string }); ok {
		return r.ReplayFlags()
	}
	return nil
}

// File is the command that runs file again as the run did.
func (r Replay) File(file string) string {
	cmd := slices.Concat([]string{"gepcheck", "run"}, r.Mode, []string{"--impl", r.Impl}, ImplFlags(r.Config))
	for _, p := range r.Profiles {
		cmd = append(cmd, "--profile", shell.Quote(p))
	}
	cmd = append(cmd, SemanticsFlag(r.Semantics)...)
	cmd = append(cmd, vocabularyFlag(r.Vocabulary)...)
	return strings.Join(append(cmd, shell.Quote(file)), " ")
}

// SemanticsFlag is --semantics for a replay, when the run was told one.
func SemanticsFlag(sem engine.Semantics) []string {
	if sem == "" {
		return nil
	}
	return []string{"--semantics", string(sem)}
}

// vocabularyFlag is --status-vocabulary for a replay, when the run was
// told one.
func vocabularyFlag(v engine.Vocabulary) []string {
	if v == "" {
		return nil
	}
	return []string{"--status-vocabulary", string(v)}
}
