package watchproxy

import (
	"hash/fnv"
	"time"
)

// Schedule says how long the proxy holds each watch event (the delay
// fault, docs/faults.md): a delay in [0, Max] drawn from Seed, the
// stream's key (its resource path, and its label and field selectors)
// and the event's index in its stream. A draw depends on nothing else,
// so that streams opened in any order, and events arriving at any time,
// get the same delays for the same seed.
type Schedule struct {
	Seed int64
	Max  time.Duration
}

// Delay is how long event index (0 the first) of stream is held.
func (s Schedule) Delay(stream string, index int) time.Duration {
	if s.Max <= 0 {
		return 0
	}
	h := fnv.New64a()
	_, _ = h.Write([]byte(stream))
	x := mix(uint64(s.Seed) ^ mix(h.Sum64()^mix(uint64(index))))
	return time.Duration(x % (uint64(s.Max) + 1))
}

// mix is SplitMix64's finaliser (Steele, Lea and Flood, "Fast splittable
// pseudorandom number generators", OOPSLA 2014): fixed here, so that a
// seed's schedule never changes with the Go release.
func mix(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ x>>30) * 0xbf58476d1ce4e5b9
	x = (x ^ x>>27) * 0x94d049bb133111eb
	return x ^ x>>31
}
