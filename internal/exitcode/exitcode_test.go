package exitcode

import (
	"errors"
	"fmt"
	"testing"
)

// The first Coder in an error's chain decides its exit; nil is OK and an
// error no Coder decides is Internal (README.md, Exit codes).
func TestOf(t *testing.T) {
	down := errors.New("the cluster does not answer")
	for _, tc := range []struct {
		err  error
		want int
	}{
		{nil, OK},
		{down, Internal},
		{Failure{Msg: "2 scenario(s) failed"}, Failed},
		{Input{Err: down}, BadInput},
		{fmt.Errorf("--shard: %w", Input{Err: down}), BadInput},
		{fmt.Errorf("run: %w", Failure{Msg: "x"}), Failed},
		{errors.Join(down, Input{Err: down}), BadInput},
	} {
		if got := Of(tc.err); got != tc.want {
			t.Errorf("Of(%v) = %d, want %d", tc.err, got, tc.want)
		}
	}
	if (Input{Err: down}).Error() != down.Error() || !errors.Is(Input{Err: down}, down) {
		t.Error("Input does not read as, or unwrap to, its error")
	}
}
