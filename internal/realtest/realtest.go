// Package realtest decides what a test of a real component (a local control
// plane's etcd and kube-apiserver, an implementation's translator or
// controller) does when the component is not built: make test skips it,
// make ci fails it. The ci target builds every component first and sets
// GEPCHECK_REQUIRE_REAL=1 on the go test commands that run these tests, so
// a component it failed to build, or a test that looks in the wrong place,
// fails the run instead of passing as skipped (docs/architecture.md, tests).
package realtest

import (
	"os"
	"testing"
)

// Env is the environment variable that makes a missing component a failure.
const Env = "GEPCHECK_REQUIRE_REAL"

// Required reports whether a missing component fails the test: Env is set
// to anything but "" or "0".
func Required() bool {
	v := os.Getenv(Env)
	return v != "" && v != "0"
}

// Missing ends t for a component that is not there: it fails t when
// Required, else skips it. format and args say what is missing and how to
// build it.
func Missing(t testing.TB, format string, args ...any) {
	t.Helper()
	if Required() {
		t.Fatalf(format+" (%s is set: make ci builds it first, so its absence is a failure)", append(args, Env)...)
		return
	}
	t.Skipf(format, args...)
}
