package main

import (
	"strings"

	"github.com/spf13/cobra"

	"github.com/gepcheck/gepcheck/impl"
	"github.com/gepcheck/gepcheck/simulator/engine"
	"github.com/gepcheck/gepcheck/simulator/profile"
	"github.com/gepcheck/gepcheck/suite/input"
	"github.com/gepcheck/gepcheck/suite/requirements"
)

// completions are the values gepcheck completes (gepcheck completion
// bash|zsh|fish|powershell), by flag name, for every command that has
// the flag: the built-in profiles (and files), the implementations, the
// readings, the specs. -o is completed where it is added (addOutputFlag,
// input.Flags); --target and --policy from the -f files given.
func completions() map[string]cobra.CompletionFunc {
	fixed := func(values ...string) cobra.CompletionFunc {
		return cobra.FixedCompletions(values, cobra.ShellCompDirectiveNoFileComp)
	}
	return map[string]cobra.CompletionFunc{
		// A built-in name, or a PolicyProfile file.
		"profile":           cobra.FixedCompletions(profile.BuiltinNames(), cobra.ShellCompDirectiveDefault),
		"impl":              fixed(impl.Names()...),
		"semantics":         fixed(string(engine.StickyOverrides), string(engine.GEP713)),
		"status-vocabulary": fixed(string(engine.VocabularyMerged), string(engine.VocabularyDraft)),
		"ancestor-entries":  fixed("gateway", "listener"),
		"field-validation":  fixed("strict", "warn", "ignore"),
		"spec":              fixed(requirements.Specs...),
		"target":            completeRefs(false),
		"policy":            completeRefs(true),
	}
}

// registerCompletions registers completions on cmd and every command
// under it that has the flag, and no completion of its own for it.
func registerCompletions(cmd *cobra.Command, funcs map[string]cobra.CompletionFunc) {
	for name, f := range funcs {
		if cmd.Flags().Lookup(name) == nil {
			continue
		}
		if _, ok := cmd.GetFlagCompletionFunc(name); ok {
			continue
		}
		_ = cmd.RegisterFlagCompletionFunc(name, f)
	}
	for _, sub := range cmd.Commands() {
		registerCompletions(sub, funcs)
	}
}

// completeRefs completes --target (objects of the hierarchy) or --policy
// (policies) from the files -f names, read with the command's --profile
// flags, as KIND/NAMESPACE/NAME (input.Refs).
func completeRefs(policies bool) cobra.CompletionFunc {
	return func(cmd *cobra.Command, _ []string, prefix string) ([]string, cobra.ShellCompDirective) {
		files, _ := cmd.Flags().GetStringArray("filename")
		profiles, _ := cmd.Flags().GetStringArray("profile")
		return input.Refs(files, profiles, policies, prefix), cobra.ShellCompDirectiveNoFileComp
	}
}

// completeRequirementIDs completes the IDs of gepcheck requirements.
func completeRequirementIDs(_ *cobra.Command, args []string, prefix string) ([]string, cobra.ShellCompDirective) {
	all, err := requirements.Load()
	if err != nil {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	var out []string
	for _, r := range all {
		if strings.HasPrefix(r.ID, strings.ToUpper(prefix)) {
			out = append(out, r.ID)
		}
	}
	return out, cobra.ShellCompDirectiveNoFileComp
}
