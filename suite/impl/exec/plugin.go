package exec

import (
	"context"
	"fmt"
	osexec "os/exec"
	"time"

	"github.com/google/shlex"
	"github.com/spf13/pflag"

	"github.com/gepcheck/gepcheck/suite/features"
	"github.com/gepcheck/gepcheck/suite/impl"
	"github.com/gepcheck/gepcheck/suite/incluster"
	"github.com/gepcheck/gepcheck/suite/observe"
)

func init() { impl.Register(plugin{}) }

type plugin struct{}

func (plugin) Name() string { return "exec" }

func (plugin) Doc() string { return "any command speaking docs/exec-protocol.md, with --exec-command" }

func (plugin) Configure(fs *pflag.FlagSet) impl.Config {
	c := &config{}
	fs.StringVar(&c.command, "exec-command", "", "command speaking docs/exec-protocol.md, for --impl exec")
	fs.DurationVar(&c.timeout, "timeout", 10*time.Second, "time limit per case")
	fs.StringSliceVar(&c.features, "exec-features", nil, "features the command supports, for --impl exec: policy kinds (ColorPolicy, …) and ObjectFields; cases needing another are skipped (default: all)")
	return c
}

type config struct {
	command  string
	timeout  time.Duration
	features []string
}

func (c *config) Offline(context.Context) (observe.Observer, error) {
	args, err := shlex.Split(c.command)
	if err != nil || len(args) == 0 {
		return nil, fmt.Errorf("--impl exec needs --exec-command: %v", err)
	}
	if _, err := osexec.LookPath(args[0]); err != nil {
		return nil, fmt.Errorf("--exec-command: %w", err)
	}
	var fs features.Set
	for _, f := range c.features {
		fs = append(fs, features.Name(f))
	}
	return &Exec{Command: args, Timeout: c.timeout, Parallelism: 2, Features: fs}, nil
}

func (c *config) InCluster(context.Context) (incluster.Implementation, error) {
	return nil, impl.ErrUnsupported
}
