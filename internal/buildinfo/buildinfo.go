// Package buildinfo says which gepcheck is running: its module version,
// the VCS commit it was built from and the Go version, as the Go
// toolchain stamps them into the binary (runtime/debug.ReadBuildInfo).
// Every report gepcheck writes records it (docs/reports.md).
package buildinfo

import (
	"runtime"
	"runtime/debug"
	"strings"
)

// Info is one build of gepcheck.
type Info struct {
	// Version is the module version (a tag such as v0.3.0, or a pseudo
	// version), "devel" for a build from a work tree (the toolchain's
	// "(devel)").
	Version string `json:"version"`
	// Commit is the VCS revision the binary was built from, empty when
	// the toolchain stamped none (go test, go run, -buildvcs=false);
	// Modified says the work tree had uncommitted changes.
	Commit   string `json:"commit,omitempty"`
	Modified bool   `json:"modified,omitempty"`
	// Go is the Go version that built it.
	Go string `json:"go"`
}

// commit and modified are set by the linker where the toolchain stamps no
// VCS information (make build passes -X with git's answer: the toolchain
// does not stamp a build in a git worktree, nor under -buildvcs=false).
var commit, modified string

// Read reads the running binary's build information: the toolchain's
// stamp, else what make build linked in.
func Read() Info {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		bi = &debug.BuildInfo{}
	}
	i := FromBuildInfo(bi)
	if i.Commit == "" && commit != "" {
		i.Commit, i.Modified = commit, modified == "true"
	}
	return i
}

// FromBuildInfo reads bi.
func FromBuildInfo(bi *debug.BuildInfo) Info {
	i := Info{Version: bi.Main.Version, Go: bi.GoVersion}
	if i.Version == "" || i.Version == "(devel)" {
		i.Version = "devel"
	}
	if i.Go == "" {
		i.Go = runtime.Version()
	}
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			i.Commit = s.Value
		case "vcs.modified":
			i.Modified = s.Value == "true"
		}
	}
	return i
}

// ShortCommit is the commit's first 12 hex digits, "+dirty" when the
// work tree was modified, "unknown" when none was stamped.
func (i Info) ShortCommit() string {
	c := i.Commit
	if c == "" {
		return "unknown"
	}
	if len(c) > 12 {
		c = c[:12]
	}
	if i.Modified {
		c += "+dirty"
	}
	return c
}

// String is the one line every report carries:
// "gepcheck VERSION, commit COMMIT, GOVERSION" (hack/lib.sh's undated
// drops the lines that carry it when it compares two reports).
func (i Info) String() string {
	v := i.Version
	if v == "" {
		v = "devel"
	}
	return "gepcheck " + strings.ReplaceAll(v, " ", "_") + ", commit " + i.ShortCommit() + ", " + i.Go
}
