// Command gepcheck simulates and checks Gateway API Policy Attachment
// (GEP-713).
package main

import (
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/gepcheck/gepcheck/internal/exitcode"

	"github.com/spf13/cobra"

	"github.com/gepcheck/gepcheck/impl"
	"github.com/gepcheck/gepcheck/internal/buildinfo"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

// run is runExit ending the process with os.Exit.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	return runExit(args, stdin, stdout, stderr, os.Exit)
}

// runExit runs gepcheck; exit ends the process where a limit or a
// signal stops a run that does not return (docs/limits.md).
func runExit(args []string, stdin io.Reader, stdout, stderr io.Writer, exit func(code int)) (code int) {
	defer func() {
		if r := recover(); r != nil {
			fmt.Fprintf(stderr, "gepcheck: internal error (a bug; please report it with the input): %v\n", r)
			code = 3
		}
	}()
	root := newRoot(stdin, stdout, stderr, exit)
	root.SetArgs(args)
	root.SetOut(stdout)
	root.SetErr(stderr)
	err := root.Execute()
	if err == nil {
		return exitcode.OK
	}
	fmt.Fprintln(stderr, "gepcheck: "+strings.ReplaceAll(err.Error(), "\n", "\ngepcheck: "))
	return exitCode(err)
}

// exitCode is the exit of a command that returned err (exitcode.Of).
// cobra gives no type to its own errors for a command line it cannot
// parse before any RunE (flags are marked by the FlagErrorFunc and Args by
// markArgs, in newRoot): those left are bad input. Flag values that
// packages check themselves are exitcode.Input where they are made.
func exitCode(err error) int {
	code := exitcode.Of(err)
	for _, cobraErr := range []string{"unknown command", "required flag", "if any flags in the group"} {
		if code == exitcode.Internal && strings.HasPrefix(err.Error(), cobraErr) {
			return exitcode.BadInput
		}
	}
	return code
}

// markArgs makes the argument checks of cmd and its subcommands report
// input errors.
func markArgs(cmd *cobra.Command) {
	if check := cmd.Args; check != nil {
		cmd.Args = func(c *cobra.Command, args []string) error {
			if err := check(c, args); err != nil {
				return exitcode.Input{Err: err}
			}
			return nil
		}
	}
	for _, sub := range cmd.Commands() {
		markArgs(sub)
	}
}

func newRoot(stdin io.Reader, stdout, stderr io.Writer, exit func(code int)) *cobra.Command {
	root := &cobra.Command{
		Use:   "gepcheck",
		Short: "Simulate and check Gateway API Policy Attachment (GEP-713)",
		Long: `gepcheck computes what Gateway API policies actually do: the effective policy of
every path of the hierarchy, every policy's status, and which policy set each
effective field. Input is the YAML you would kubectl apply.`,
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.AddCommand(newSimulate(stdin, stdout, exit), newExplain(stdin, stdout, exit), newCheck(stdout, exit), newProfiles(stdout),
		newFuzz(stdout), newRequirements(stdout), newFindings(stdout), newGen(stdout), newRun(stdout, stderr),
		newClean(stdout), newTools(stdout, stderr), newReport(stdout), newLocalCluster(stdout, stderr), newKind(stdout, stderr),
		newAdmission(stdin, stdout, exit), newVersion(stdout), newDiff(stdin, stdout, exit))
	// gepcheck --version prints what gepcheck version prints.
	root.Version = buildinfo.Read().String()
	root.SetVersionTemplate("{{.Version}}\n")
	// Commands of the implementations (impl.Commander): their own
	// top-level commands, and their controllers under gepcheck controller.
	var controllers []*cobra.Command
	for _, i := range impl.All() {
		if c, ok := i.(impl.Commander); ok {
			cmds := c.Commands(stdout, stderr)
			root.AddCommand(cmds[""]...)
			controllers = append(controllers, cmds["controller"]...)
		}
	}
	root.AddCommand(newController(controllers))
	registerCompletions(root, completions())
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return exitcode.Input{Err: err} })
	markArgs(root)
	return root
}
