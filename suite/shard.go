package suite

import (
	"fmt"
	"strconv"
	"strings"
)

// MaxShards bounds N of --shard i/N.
const MaxShards = 1000

// Shard is one part of a run split N ways (--shard i/N, 1 ≤ i ≤ N):
// case k of the run, in its deterministic order (scenario files sorted by
// path, random cases by index), belongs to shard k mod N + 1. The shards
// of a run do not overlap and together are the whole run. The zero Shard
// is the whole run.
type Shard struct{ I, N int }

// ParseShard reads "i/N"; "" is the whole run.
func ParseShard(s string) (Shard, error) {
	if s == "" {
		return Shard{}, nil
	}
	a, b, ok := strings.Cut(s, "/")
	i, err1 := strconv.Atoi(a)
	n, err2 := strconv.Atoi(b)
	if !ok || err1 != nil || err2 != nil || n < 1 || n > MaxShards || i < 1 || i > n {
		return Shard{}, fmt.Errorf("--shard %q: want i/N with 1 ≤ i ≤ N ≤ %d", s, MaxShards)
	}
	return Shard{I: i, N: n}, nil
}

// Has says whether case k (0-based) is in the shard.
func (s Shard) Has(k int) bool { return s.N == 0 || k%s.N == s.I-1 }

// String is "i/N", or "" for the whole run.
func (s Shard) String() string {
	if s.N == 0 {
		return ""
	}
	return fmt.Sprintf("%d/%d", s.I, s.N)
}

// Indices lists the cases of [0, n) in the shard.
func (s Shard) Indices(n int) []int {
	var out []int
	for k := range n {
		if s.Has(k) {
			out = append(out, k)
		}
	}
	return out
}
