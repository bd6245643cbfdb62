package simulator

import (
	"errors"

	"github.com/spf13/pflag"

	"github.com/gepcheck/gepcheck/simulator/engine"
	"github.com/gepcheck/gepcheck/simulator/load"
)

// AddLimitFlags defines the flags of the limits of docs/limits.md on fs,
// with their defaults, filling o.Limits and o.CEL: simulate, explain and
// gepcheck-reference take the same ones.
func AddLimitFlags(fs *pflag.FlagSet, o *Options) {
	fs.Int64Var(&o.Limits.MaxBytes, "max-bytes", load.DefaultLimits.MaxBytes, "most bytes read from one file or from standard input")
	fs.IntVar(&o.Limits.MaxDocuments, "max-documents", load.DefaultLimits.MaxDocuments, "most documents read in all")
	fs.Int64Var(&o.Limits.MaxPaths, "max-paths", load.DefaultLimits.MaxPaths, "most path prefixes of the hierarchy, counted before any path is walked")
	fs.IntVar(&o.Limits.MaxDepth, "max-depth", load.DefaultLimits.MaxDepth, "most levels of nesting in one document")
	fs.Uint64Var(&o.CEL.MaxCost, "max-cel-cost", engine.DefaultCELMaxCost, "most cost of one CEL condition, estimated when compiled and counted when run (docs/limits.md)")
	fs.DurationVar(&o.CEL.Timeout, "cel-timeout", engine.DefaultCELTimeout, "most wall-clock time of one CEL evaluation")
}

// CheckLimits refuses limits set below their least meaningful value.
func (o Options) CheckLimits() error {
	l := o.Limits
	if l.MaxBytes < 1 || l.MaxDocuments < 1 || l.MaxPaths < 1 || l.MaxDepth < 1 || o.CEL.MaxCost < 1 || o.CEL.Timeout <= 0 {
		return errors.New("--max-bytes, --max-documents, --max-paths, --max-depth, --max-cel-cost and --cel-timeout must be positive")
	}
	return nil
}
