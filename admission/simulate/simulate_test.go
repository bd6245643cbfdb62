package simulate

import (
	"errors"
	"slices"
	"testing"

	"github.com/gepcheck/gepcheck/internal/exitcode"
)

// A file's configuration replaces the cluster's of its name and comes
// after the cluster's others.
func TestReplaced(t *testing.T) {
	got := replaced([]string{"a", "b", "c"}, []string{"b", "d"}, func(s string) string { return s })
	if want := []string{"a", "c", "b", "d"}; !slices.Equal(got, want) {
		t.Errorf("replaced = %v, want %v", got, want)
	}
}

// A webhook given two behaviours is the user's mistake, named by both
// flags (--failing for admission.Error).
func TestBehavioursTwice(t *testing.T) {
	_, err := Options{Failing: []string{"h"}, Deny: []string{"h"}}.behaviours()
	var ie exitcode.Input
	if !errors.As(err, &ie) || err.Error() != "--deny h: the webhook is also given --failing" {
		t.Errorf("behaviours = %v, want an InputError naming --deny and --failing", err)
	}
	keys, err := Options{Down: []string{"a"}, Patch: []string{"b"}}.behaviours()
	if err != nil || len(keys) != 2 {
		t.Errorf("behaviours = %v, %v, want two webhooks", keys, err)
	}
}
