package cluster

import "time"

// TimeoutConfig gathers the time limits of cluster runs in one place, as
// Gateway API's conformance suite does (conformance/utils/config).
type TimeoutConfig struct {
	// Reachable bounds the first request to a cluster.
	Reachable time.Duration
	// Step bounds each step of a scenario: applying it, and waiting for
	// the implementation's status (--step-timeout).
	Step time.Duration
	// Settle is how long a disagreement must hold still, with status
	// current, before it is final.
	Settle time.Duration
	// Poll is the interval between observations.
	Poll time.Duration
	// Cleanup bounds deleting a run's objects.
	Cleanup time.Duration
	// ControllerStop is the grace a controller gets on SIGTERM.
	ControllerStop time.Duration
}

// Timeouts are gepcheck's defaults.
var Timeouts = TimeoutConfig{
	Reachable:      10 * time.Second,
	Step:           30 * time.Second,
	Settle:         3 * time.Second,
	Poll:           500 * time.Millisecond,
	Cleanup:        3 * time.Minute,
	ControllerStop: 10 * time.Second,
}
