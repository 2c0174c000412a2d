package cli

import (
	"fmt"
	"runtime/debug"
	"strings"

	"github.com/spf13/cobra"
)

// VersionInfo says which build is running: the version a release build
// was stamped with (see releaseVersion), else what the Go toolchain
// embeds: the module version (a tag when built with `go install
// ragscope@vX`), else the VCS revision and time of the checkout `go build`
// ran in, with a dirty flag for uncommitted changes.
type VersionInfo struct {
	Version   string `json:"version"`
	Revision  string `json:"revision,omitempty"`
	Time      string `json:"time,omitempty"`
	Modified  bool   `json:"modified,omitempty"`
	GoVersion string `json:"go"`
}

// The release build stamps these through the linker (GoReleaser's
// ldflags in .goreleaser.yaml: -X ragscope/cli.releaseVersion=v1.2.3 and
// the commit and its date). They stay empty in `go run`, `go build` and
// `go install` builds, whose version is the build information's. Package
// variables because the linker can set nothing else; nothing assigns them.
var (
	releaseVersion string
	releaseCommit  string
	releaseDate    string
)

// releaseStamp is what a release build was stamped with.
type releaseStamp struct{ Version, Commit, Date string }

// buildVersion reads the running binary's build information and stamp.
func buildVersion() VersionInfo {
	stamp := releaseStamp{Version: releaseVersion, Commit: releaseCommit, Date: releaseDate}
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return stamp.apply(VersionInfo{Version: "unknown", GoVersion: "unknown"})
	}
	return stamp.apply(versionFrom(bi))
}

// apply gives v the stamped version, and the stamped commit and date
// where the build information has none (a build with -buildvcs=false).
func (s releaseStamp) apply(v VersionInfo) VersionInfo {
	if s.Version == "" {
		return v
	}
	v.Version = s.Version
	if v.Revision == "" {
		v.Revision, v.Modified = s.Commit, false
	}
	if v.Time == "" {
		v.Time = s.Date
	}
	return v
}

// versionFrom extracts the version of a build.
func versionFrom(bi *debug.BuildInfo) VersionInfo {
	v := VersionInfo{Version: bi.Main.Version, GoVersion: bi.GoVersion}
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			v.Revision = s.Value
		case "vcs.time":
			v.Time = s.Value
		case "vcs.modified":
			v.Modified = s.Value == "true"
		}
	}
	if v.Version == "" {
		v.Version = "(devel)"
	}
	return v
}

// String is the one-line form `ragscope --version` prints, e.g.
// "ragscope (devel) rev 53ae730d1f2a 2026-11-22T19:10:00Z dirty, go1.26.8".
func (v VersionInfo) String() string {
	var b strings.Builder
	b.WriteString("ragscope ")
	b.WriteString(v.Version)
	if v.Revision != "" {
		rev := v.Revision
		if len(rev) > 12 {
			rev = rev[:12]
		}
		b.WriteString(" rev " + rev)
	}
	if v.Time != "" {
		b.WriteString(" " + v.Time)
	}
	if v.Modified {
		b.WriteString(" dirty")
	}
	b.WriteString(", " + v.GoVersion)
	return b.String()
}

func (a *App) newVersionCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print the version of this build (module version or VCS revision, Go version)",
		Args:  noArgs,
		// The version needs no configuration: a broken ragscope.toml or .env
		// must not hide it from a bug report.
		PersistentPreRunE: func(*cobra.Command, []string) error { return nil },
		RunE: func(cmd *cobra.Command, _ []string) error {
			_, err := fmt.Fprintln(cmd.OutOrStdout(), buildVersion())
			return err
		},
	}
}
