package main

import (
	"errors"
	"io"

	"github.com/spf13/cobra"

	"github.com/gepcheck/gepcheck/internal/exitcode"
	"github.com/gepcheck/gepcheck/simulator/render"
	"github.com/gepcheck/gepcheck/suite/input"
	"github.com/gepcheck/gepcheck/suite/sidebyside"
)

func newExplain(stdin io.Reader, stdout io.Writer, exit func(code int)) *cobra.Command {
	var c input.Flags
	var b sidebyside.Flags
	var target, policy string
	cmd := &cobra.Command{
		Use:   "explain -f FILE|DIR|- (--target KIND/NS/NAME[#SECTION] | --target KIND/NAME -n NS | --policy KIND/NS/NAME | --policy KIND/NAME -n NS)",
		Short: "Explain what affects an object, or where a policy is in effect",
		Long: `explain answers GEP-713's discoverability questions.

  --target: which policies affect this object, through which paths, and which
            policy set each effective field.
  --policy: every path and target the policy is in effect on, how many, and
            what would change if it were deleted.

A reference is KIND/NAMESPACE/NAME, or KIND/NAME with -n NAMESPACE as kubectl
takes it (without -n: a cluster-scoped object, else namespace default); KIND
in any case, or its plural or short name (httproute, httproutes, gtw, svc).
-o name prints kubectl's kind/name of the policies affecting the target, or
of the policy's targets.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if (target == "") == (policy == "") {
				return exitcode.Input{Err: errors.New("pass exactly one of --target and --policy")}
			}
			if b.On() {
				return b.Explain(stdin, stdout, target, policy)
			}
			stop, err := c.Bounds.Watch(cmd.ErrOrStderr(), exit)
			if err != nil {
				return err
			}
			defer stop()
			m, sem, err := c.Load(stdin)
			if err != nil {
				return err
			}
			if target != "" {
				r, err := input.Target(target, c.Cluster.RefNamespace(), m)
				if err != nil {
					return err
				}
				out, err := c.Run(m, sem, true)
				if err != nil {
					return err
				}
				x, err := m.Explain(out, r)
				if err != nil {
					return exitcode.Input{Err: err}
				}
				return render.TargetAs(stdout, c.Output, "gepcheck explain --target "+target, c.TableOptions(), m, out, x)
			}
			r, err := input.Policy(policy, c.Cluster.RefNamespace(), m)
			if err != nil {
				return err
			}
			x, err := m.ExplainPolicy(sem, r)
			if err != nil {
				return exitcode.Input{Err: err}
			}
			return render.PolicyAs(stdout, c.Output, "gepcheck explain --policy "+policy, c.TableOptions(), m, sem, x)
		},
	}
	c.AddFlags(cmd)
	b.AddFlags(cmd, &c)
	c.Cluster.Refs = true // -n is a reference's namespace too
	cmd.Flags().StringVar(&target, "target", "", "object to explain, KIND/NAMESPACE/NAME or KIND/NAME (-n NAMESPACE), optionally #SECTION")
	cmd.Flags().StringVar(&policy, "policy", "", "policy to explain, KIND/NAMESPACE/NAME or KIND/NAME (-n NAMESPACE)")
	return cmd
}
