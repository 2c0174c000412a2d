package cli

import (
	"runtime/debug"
	"testing"
)

// A release build names the version it was stamped with (the linker
// flags of .goreleaser.yaml), whatever the toolchain embedded; a build
// that was not stamped keeps the build information's version, so
// `go install ragscope@vX` still says vX.
func TestReleaseStampNamesTheVersion(t *testing.T) {
	devel := versionFrom(&debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "(devel)"}})
	stamp := releaseStamp{Version: "v1.4.0", Commit: "0123456789abcdef0123", Date: "2026-11-26T05:00:00Z"}
	if got, want := stamp.apply(devel).String(), "ragscope v1.4.0 rev 0123456789ab 2026-11-26T05:00:00Z, go1.26.8"; got != want {
		t.Errorf("stamped devel build: %q, want %q", got, want)
	}
	vcs := versionFrom(&debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "v1.4.0"}, Settings: []debug.BuildSetting{
		{Key: "vcs.revision", Value: "fedcba9876543210"}, {Key: "vcs.time", Value: "2026-11-25T00:00:00Z"},
	}})
	if got, want := stamp.apply(vcs).String(), "ragscope v1.4.0 rev fedcba987654 2026-11-25T00:00:00Z, go1.26.8"; got != want {
		t.Errorf("stamped build with VCS information: %q, want %q", got, want)
	}
	installed := versionFrom(&debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "v1.3.2"}})
	if got := (releaseStamp{}).apply(installed).String(); got != "ragscope v1.3.2, go1.26.8" {
		t.Errorf("go install build: %q", got)
	}
}
