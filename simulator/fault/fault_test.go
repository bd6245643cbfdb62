package fault

import (
	"slices"
	"strings"
	"testing"
	"time"
)

func TestParseKinds(t *testing.T) {
	got, err := ParseKinds("restart, burst,restart")
	if err != nil || !slices.Equal(got, []Kind{Restart, Burst}) {
		t.Fatalf("ParseKinds = %v, %v", got, err)
	}
	if all, _ := ParseKinds("all"); !slices.Equal(all, Kinds) {
		t.Fatalf("all = %v", all)
	}
	if _, err := ParseKinds("restart,crash"); err == nil || !strings.Contains(err.Error(), `"crash" is not a kind of fault (restart, apiserver, burst, delay, ties, misop, or all)`) {
		t.Fatalf("bad kind: %v", err)
	}
}

func TestAtAndString(t *testing.T) {
	fs := []Fault{{Kind: Restart, State: 1, AfterWrites: 2}, {Kind: Delay, State: 0, Seed: 3}, {Kind: Misop, State: 1, Op: TargetRecreated}, {Kind: APIServer, State: 2}}
	var names []string
	for _, f := range At(fs, 1) {
		names = append(names, f.String())
	}
	if want := []string{"restart at state 1 after 2 status writes", "misop at state 1 (target-recreated)"}; !slices.Equal(names, want) {
		t.Fatalf("At(1) = %q, want %q", names, want)
	}
	if s := fs[1].String(); s != "delay at state 0 (seed 3, at most 500ms)" {
		t.Fatalf("delay: %q", s)
	}
	if s := fs[3].String(); s != "apiserver at state 2 mid-apply" {
		t.Fatalf("apiserver: %q", s)
	}
	if !Has(fs, Delay, 0) || Has(fs, Delay, 1) {
		t.Fatal("Has")
	}
	if d := (Fault{Kind: Delay, MaxDelay: "800ms"}).Delay(); d != 800*time.Millisecond {
		t.Fatalf("Delay = %s", d)
	}
}

// Flag writes what ParseKinds reads.
func TestFlagParsesBack(t *testing.T) {
	ks := []Kind{Delay, Restart, Misop}
	if s := Flag(ks); s != "delay,restart,misop" {
		t.Fatalf("Flag = %q", s)
	}
	if got, err := ParseKinds(Flag(ks)); err != nil || !slices.Equal(got, ks) {
		t.Fatalf("ParseKinds(Flag) = %v, %v", got, err)
	}
}
