package realtest

import (
	"fmt"
	"strings"
	"testing"
)

// recorder is a testing.TB that records how Missing ends it.
type recorder struct {
	testing.TB
	how, msg string
}

func (r *recorder) Helper() {}
func (r *recorder) Fatalf(f string, a ...any) {
	r.how, r.msg = "fail", fmt.Sprintf(f, a...)
}
func (r *recorder) Skipf(f string, a ...any) {
	r.how, r.msg = "skip", fmt.Sprintf(f, a...)
}

func TestMissing(t *testing.T) {
	for _, tc := range []struct{ env, want string }{
		{"", "skip"},
		{"0", "skip"},
		{"1", "fail"},
		{"yes", "fail"},
	} {
		t.Setenv(Env, tc.env)
		r := &recorder{}
		Missing(r, "%s is not built (make tools)", "etcd")
		if r.how != tc.want || !strings.HasPrefix(r.msg, "etcd is not built (make tools)") {
			t.Errorf("%s=%q: %s %q, want %s", Env, tc.env, r.how, r.msg, tc.want)
		}
		if tc.want == "fail" && !strings.Contains(r.msg, Env+" is set") {
			t.Errorf("%s=%q: the failure %q does not name %s", Env, tc.env, r.msg, Env)
		}
	}
}
