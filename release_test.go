package main

import (
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
)

// releaseConfig is the part of .goreleaser.yaml the release depends on.
type releaseConfig struct {
	Version int `yaml:"version"`
	Builds  []struct {
		ID      string   `yaml:"id"`
		Binary  string   `yaml:"binary"`
		Env     []string `yaml:"env"`
		GOOS    []string `yaml:"goos"`
		GOARCH  []string `yaml:"goarch"`
		Ignore  []any    `yaml:"ignore"`
		LDFlags []string `yaml:"ldflags"`
	} `yaml:"builds"`
	Archives []struct {
		Formats         []string `yaml:"formats"`
		FormatOverrides []struct {
			GOOS    string   `yaml:"goos"`
			Formats []string `yaml:"formats"`
		} `yaml:"format_overrides"`
	} `yaml:"archives"`
	Checksum struct {
		NameTemplate string `yaml:"name_template"`
	} `yaml:"checksum"`
	HomebrewCasks []struct {
		Name       string   `yaml:"name"`
		Binaries   []string `yaml:"binaries"`
		Repository struct {
			Name string `yaml:"name"`
		} `yaml:"repository"`
	} `yaml:"homebrew_casks"`
	Brews any `yaml:"brews"`
}

// The release configuration builds what the README's install section
// promises, stamps the version where cli/version.go reads it, and pins
// one GoReleaser version everywhere. `goreleaser check` and a snapshot
// build (.ci/run) check the rest; this check needs neither GoReleaser nor
// the network.
func TestReleaseConfig(t *testing.T) {
	b, err := os.ReadFile(".goreleaser.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var c releaseConfig
	dec := yaml.NewDecoder(strings.NewReader(string(b)))
	if err := dec.Decode(&c); err != nil {
		t.Fatalf(".goreleaser.yaml: %v", err)
	}
	if c.Version != 2 {
		t.Errorf("version %d, want 2 (GoReleaser v2)", c.Version)
	}
	if len(c.Builds) != 1 {
		t.Fatalf("%d builds, want 1", len(c.Builds))
	}
	bd := c.Builds[0]
	if bd.Binary != "ragscope" || !slices.Contains(bd.Env, "CGO_ENABLED=0") || len(bd.Ignore) != 0 {
		t.Errorf("build: binary %q env %q ignore %v", bd.Binary, bd.Env, bd.Ignore)
	}
	if want := []string{"linux", "darwin", "windows"}; !slices.Equal(bd.GOOS, want) {
		t.Errorf("goos %q, want %q", bd.GOOS, want)
	}
	if want := []string{"amd64", "arm64"}; !slices.Equal(bd.GOARCH, want) {
		t.Errorf("goarch %q, want %q", bd.GOARCH, want)
	}
	ld := strings.Join(bd.LDFlags, " ")
	version, err := os.ReadFile("cli/version.go")
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"releaseVersion", "releaseCommit", "releaseDate"} {
		if !strings.Contains(ld, "-X ragscope/cli."+name+"=") {
			t.Errorf("ldflags %q do not stamp cli.%s", ld, name)
		}
		if !regexp.MustCompile(`(?m)^\t` + name + `\s+string$`).Match(version) {
			t.Errorf("cli/version.go declares no string variable %s for the linker to stamp", name)
		}
	}
	if len(c.Archives) != 1 || !slices.Equal(c.Archives[0].Formats, []string{"tar.gz"}) ||
		len(c.Archives[0].FormatOverrides) != 1 || c.Archives[0].FormatOverrides[0].GOOS != "windows" ||
		!slices.Equal(c.Archives[0].FormatOverrides[0].Formats, []string{"zip"}) {
		t.Errorf("archives %+v: want tar.gz, zip on windows", c.Archives)
	}
	if c.Checksum.NameTemplate != "checksums.txt" {
		t.Errorf("checksums file %q, the README names checksums.txt", c.Checksum.NameTemplate)
	}
	if c.Brews != nil {
		t.Error("brews is deprecated in GoReleaser v2 (goreleaser check fails): use homebrew_casks")
	}
	if len(c.HomebrewCasks) != 1 || c.HomebrewCasks[0].Name != "ragscope" || c.HomebrewCasks[0].Repository.Name != "homebrew-tap" ||
		!slices.Equal(c.HomebrewCasks[0].Binaries, []string{"ragscope"}) {
		t.Errorf("homebrew_casks %+v: the README's `brew install OWNER/tap/ragscope` needs the cask ragscope in homebrew-tap", c.HomebrewCasks)
	}

	pin := regexp.MustCompile(`GORELEASER_VERSION[=:] *(v[0-9.]+)`)
	var pins []string
	for _, f := range []string{".ci/run", ".github/workflows/release.yml"} {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		m := pin.FindSubmatch(b)
		if m == nil {
			t.Fatalf("%s pins no GORELEASER_VERSION", f)
		}
		pins = append(pins, string(m[1]))
	}
	if pins[0] != pins[1] {
		t.Errorf("GoReleaser %s in .ci/run, %s in the release workflow: pin one version", pins[0], pins[1])
	}
}

// The release workflow is valid YAML, runs on a version tag, and
// publishes with GoReleaser at the pinned version after the checks.
func TestReleaseWorkflow(t *testing.T) {
	b, err := os.ReadFile(".github/workflows/release.yml")
	if err != nil {
		t.Fatal(err)
	}
	var w struct {
		On struct {
			Push struct {
				Tags []string `yaml:"tags"`
			} `yaml:"push"`
		} `yaml:"on"`
		Permissions map[string]string `yaml:"permissions"`
		Jobs        map[string]struct {
			Needs []string `yaml:"needs"`
			Steps []struct {
				Uses string            `yaml:"uses"`
				Run  string            `yaml:"run"`
				With map[string]string `yaml:"with"`
			} `yaml:"steps"`
		} `yaml:"jobs"`
	}
	if err := yaml.Unmarshal(b, &w); err != nil {
		t.Fatalf("release.yml: %v", err)
	}
	if !slices.Equal(w.On.Push.Tags, []string{"v*"}) || w.Permissions["contents"] != "write" {
		t.Errorf("on.push.tags %q, permissions %v: want a run on v* tags that may write releases", w.On.Push.Tags, w.Permissions)
	}
	rel, ok := w.Jobs["release"]
	if !ok || !slices.Contains(rel.Needs, "ci") {
		t.Fatalf("no release job after the ci job: %+v", w.Jobs)
	}
	var gr bool
	for _, s := range rel.Steps {
		if strings.HasPrefix(s.Uses, "goreleaser/goreleaser-action@") {
			gr = s.With["version"] == "${{ env.GORELEASER_VERSION }}" && strings.HasPrefix(s.With["args"], "release")
		}
	}
	if !gr {
		t.Error("the release job does not run `goreleaser release` at GORELEASER_VERSION")
	}
	var ci bool
	for _, s := range w.Jobs["ci"].Steps {
		ci = ci || strings.TrimSpace(s.Run) == ".ci/run"
	}
	if !ci {
		t.Error("the ci job does not run .ci/run")
	}
}
