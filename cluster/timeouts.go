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
	// StatusRead bounds the read that says which policies lack status
	// after a step timed out.
	StatusRead time.Duration
	// Cleanup bounds deleting a run's objects; Gone bounds waiting for
	// deleted namespaces to go.
	Cleanup, Gone time.Duration
	// Established bounds waiting for installed CRDs to be served.
	Established time.Duration
	// Ready bounds waiting for a process gepcheck starts (a control
	// plane, a controller) to serve.
	Ready time.Duration
	// ControllerStop is the grace a controller gets on SIGTERM.
	ControllerStop time.Duration
}

// Timeouts are gepcheck's defaults.
var Timeouts = TimeoutConfig{
	Reachable:      10 * time.Second,
	Step:           30 * time.Second,
	Settle:         3 * time.Second,
	Poll:           500 * time.Millisecond,
	StatusRead:     5 * time.Second,
	Cleanup:        3 * time.Minute,
	Gone:           2 * time.Minute,
	Established:    60 * time.Second,
	Ready:          90 * time.Second,
	ControllerStop: 10 * time.Second,
}
