package watchproxy

import (
	"testing"
	"time"
)

// TestScheduleReplays: a seed draws the same delay for a stream's event
// every time, in [0, Max]; another seed, another stream or another index
// draws differently, and the draws spread over the range.
func TestScheduleReplays(t *testing.T) {
	const max = time.Second
	streams := []string{"/api/v1/namespaces/a/configmaps", "/apis/gateway.networking.k8s.io/v1/gateways"}
	a, b, other := Schedule{Seed: 7, Max: max}, Schedule{Seed: 7, Max: max}, Schedule{Seed: 8, Max: max}
	var sameSeed, sameStream, sameIndex, low, high int
	for i := range 500 {
		d := a.Delay(streams[0], i)
		if d < 0 || d > max {
			t.Fatalf("event %d: delay %s outside [0, %s]", i, d, max)
		}
		if b.Delay(streams[0], i) != d {
			t.Fatalf("event %d: seed 7 drew %s, then %s", i, d, b.Delay(streams[0], i))
		}
		if other.Delay(streams[0], i) == d {
			sameSeed++
		}
		if a.Delay(streams[1], i) == d {
			sameStream++
		}
		if i > 0 && a.Delay(streams[0], i-1) == d {
			sameIndex++
		}
		if d < max/4 {
			low++
		}
		if d > 3*max/4 {
			high++
		}
	}
	if sameSeed > 5 || sameStream > 5 || sameIndex > 5 {
		t.Errorf("draws that did not change: with the seed %d, the stream %d, the index %d of 500", sameSeed, sameStream, sameIndex)
	}
	if low < 75 || high < 75 {
		t.Errorf("of 500 draws in [0, %s], %d below a quarter and %d above three quarters: not spread", max, low, high)
	}
	if d := (Schedule{Seed: 7}).Delay(streams[0], 0); d != 0 {
		t.Errorf("no Max: delay %s, want 0", d)
	}
}
