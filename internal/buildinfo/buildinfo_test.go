package buildinfo

import (
	"runtime/debug"
	"testing"
)

func TestFromBuildInfo(t *testing.T) {
	for _, tc := range []struct {
		name string
		bi   debug.BuildInfo
		want string
	}{
		{"a tagged module, clean tree", debug.BuildInfo{GoVersion: "go1.26.0", Main: debug.Module{Version: "v0.3.0"},
			Settings: []debug.BuildSetting{{Key: "vcs.revision", Value: "0123456789abcdef0123"}, {Key: "vcs.modified", Value: "false"}}},
			"gepcheck v0.3.0, commit 0123456789ab, go1.26.0"},
		{"a work tree with changes", debug.BuildInfo{GoVersion: "go1.26.0", Main: debug.Module{Version: "(devel)"},
			Settings: []debug.BuildSetting{{Key: "vcs.revision", Value: "fedcba9876543210"}, {Key: "vcs.modified", Value: "true"}}},
			"gepcheck devel, commit fedcba987654+dirty, go1.26.0"},
		{"no VCS stamp (go test, -buildvcs=false)", debug.BuildInfo{GoVersion: "go1.26.0"},
			"gepcheck devel, commit unknown, go1.26.0"},
	} {
		if got := FromBuildInfo(&tc.bi).String(); got != tc.want {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
	}
}

func TestRead(t *testing.T) {
	i := Read()
	if i.Version == "" || i.Go == "" {
		t.Errorf("Read() = %+v: no version or Go version", i)
	}
}

// TestReadLinked: where the toolchain stamped no commit (go test does
// not), the one make build links in is read.
func TestReadLinked(t *testing.T) {
	if bi, ok := debug.ReadBuildInfo(); ok && FromBuildInfo(bi).Commit != "" {
		t.Skip("the test binary has a VCS stamp")
	}
	defer func(c, m string) { commit, modified = c, m }(commit, modified)
	commit, modified = "00112233445566778899", "true"
	if got := Read().ShortCommit(); got != "001122334455+dirty" {
		t.Errorf("linked commit read as %q", got)
	}
	commit, modified = "", ""
	if got := Read().ShortCommit(); got != "unknown" {
		t.Errorf("no commit read as %q", got)
	}
}
