package retrieval

import (
	"ragscope/retrieval/docusaurus"
	"testing"
)

// The two URL examples of the original URL-building contract.
func TestBuildSeedExamples(t *testing.T) {
	b := URLBuilder{DocsBase: "/physical-ai-robotics-textbook/docs/", Style: docusaurus.SlugSimple}
	got := b.Build("module-1/1.1-introduction-to-physical-ai/physical-ai-foundations.md", "", "Embodiment", "")
	want := "/physical-ai-robotics-textbook/docs/module-1/1.1-introduction-to-physical-ai/physical-ai-foundations#embodiment"
	if got != want {
		t.Errorf("example 1:\n got %s\nwant %s", got, want)
	}
	got = b.Build("module-1/1.1-introduction-to-physical-ai/index.md", "", "", "")
	want = "/physical-ai-robotics-textbook/docs/module-1/1.1-introduction-to-physical-ai/"
	if got != want {
		t.Errorf("example 2:\n got %s\nwant %s", got, want)
	}
	// The same examples hold with the default github style.
	b.Style = docusaurus.SlugGitHub
	if got := b.Build("website/docs/module-1/1.1-introduction-to-physical-ai/physical-ai-foundations.md", "", "Embodiment", ""); got != "/physical-ai-robotics-textbook/docs/module-1/1.1-introduction-to-physical-ai/physical-ai-foundations#embodiment" {
		t.Errorf("website/docs prefix: %s", got)
	}
}

func TestDocRoute(t *testing.T) {
	tests := []struct{ path, slug, want string }{
		{"docs/module-1-ros2/01-what-is-ros2.md", "", "module-1-ros2/what-is-ros2"},
		{"website/docs/intro.mdx", "", "intro"},
		{"docs/module-1-ros2/index.md", "", "module-1-ros2/"},
		{"docs/module-1-ros2/README.md", "", "module-1-ros2/"},
		{"docs/guides/guides.md", "", "guides/"},
		{"docs/index.md", "", ""},
		{"docs/02-sim/03-gazebo.md", "/simulation/gazebo", "simulation/gazebo"},
		{"docs/02-sim/03-gazebo.md", "gazebo-basics", "sim/gazebo-basics"},
		{"docs/2021-01-31-release.md", "", "2021-01-31-release"},
		{"docs/1.1-intro/page.md", "", "1.1-intro/page"},
		{"book/docs/a/b.md", "", "a/b"},
		{`docs\win\path.md`, "", "win/path"},
	}
	for _, tt := range tests {
		if got := DocRoute(tt.path, tt.slug); got != tt.want {
			t.Errorf("DocRoute(%q, %q) = %q, want %q", tt.path, tt.slug, got, tt.want)
		}
	}
}

func TestCite(t *testing.T) {
	b := URLBuilder{DocsBase: "https://me.github.io/book/docs/", SiteURL: "https://me.github.io/book/"}
	tests := []struct {
		name   string
		c      Chunk
		url    string
		source string
	}{
		{"absolute payload wins", Chunk{URL: "https://other.org/x#y", DocPath: "docs/a.md"}, "https://other.org/x#y", "payload"},
		{"site-relative payload joined", Chunk{URL: "/book/docs/x#y"}, "https://me.github.io/book/docs/x#y", "payload"},
		{"built from doc path", Chunk{DocPath: "docs/m/01-a.md", Section: "1.1 Why Physical AI?"}, "https://me.github.io/book/docs/m/a#11-why-physical-ai", "built"},
		{"explicit heading id", Chunk{DocPath: "docs/m/a.md", Section: "Quality of Service", HeadingID: "qos"}, "https://me.github.io/book/docs/m/a#qos", "built"},
		{"page slug", Chunk{DocPath: "docs/m/a.md", PageSlug: "/gz", Section: "Intro"}, "https://me.github.io/book/docs/gz#intro", "built"},
		{"nothing", Chunk{Title: "t"}, "", "none"},
	}
	for _, tt := range tests {
		got := b.Cite(&tt.c)
		if got.URL != tt.url || got.Source != tt.source {
			t.Errorf("%s: Cite = %q (%s), want %q (%s)", tt.name, got.URL, got.Source, tt.url, tt.source)
		}
	}
	// Without a site URL a relative payload URL stays relative.
	if got := (URLBuilder{}).Cite(&Chunk{URL: "/book/docs/x"}); got.URL != "/book/docs/x" {
		t.Errorf("relative without site = %q", got.URL)
	}
	// The simple style changes anchors where the rules differ.
	s := URLBuilder{DocsBase: "/docs/", Style: docusaurus.SlugSimple}
	if got := s.Build("docs/a.md", "", "Sensors & Actuators", ""); got != "/docs/a#sensors-actuators" {
		t.Errorf("simple = %q", got)
	}
	if got := (URLBuilder{DocsBase: "/docs/"}).Build("docs/a.md", "", "Sensors & Actuators", ""); got != "/docs/a#sensors--actuators" {
		t.Errorf("github = %q", got)
	}
}

// Docusaurus matches index docs on the raw file name, case-insensitively,
// and strips a number prefix only when a name follows it.
func TestDocRouteIndexAndPrefixEdgeCases(t *testing.T) {
	tests := []struct{ path, want string }{
		{"docs/guides/Guides.md", "guides/"},
		{"docs/01-guides/01-guides.md", "guides/"},
		{"docs/01-guides/guides.md", "guides/guides"},
		{"docs/m/01-index.md", "m/index"},
		{"docs/m/01-.md", "m/01-"},
	}
	for _, tt := range tests {
		if got := DocRoute(tt.path, ""); got != tt.want {
			t.Errorf("DocRoute(%q) = %q, want %q", tt.path, got, tt.want)
		}
	}
}

// A section that still carries its explicit id cites that id.
func TestBuildSectionWithExplicitID(t *testing.T) {
	b := URLBuilder{DocsBase: "/docs/"}
	if got := b.Build("docs/a.md", "", "Quality of Service {#qos}", ""); got != "/docs/a#qos" {
		t.Errorf("Build = %s, want /docs/a#qos", got)
	}
	// Docusaurus 3.5.2 slugs an MDX comment's text with the title (real
	// build of the oracle's book fixture: "After {/* #x */}" is after--x-).
	if got := b.Build("docs/a.md", "", "Quality of Service {/* #qos */}", ""); got != "/docs/a#quality-of-service--qos-" {
		t.Errorf("Build(MDX comment) = %s, want /docs/a#quality-of-service--qos-", got)
	}
}

func TestBuildTrailingSlash(t *testing.T) {
	tests := []struct{ setting, doc, want string }{
		{"", "docs/m/index.md", "https://x.org/docs/m/"},
		{"", "docs/m/a.md", "https://x.org/docs/m/a"},
		{"false", "docs/m/index.md", "https://x.org/docs/m"},
		{"false", "docs/m/a.md", "https://x.org/docs/m/a"},
		{"true", "docs/m/a.md", "https://x.org/docs/m/a/"},
		{"true", "docs/m/index.md", "https://x.org/docs/m/"},
	}
	for _, tt := range tests {
		b := URLBuilder{DocsBase: "https://x.org/docs/", TrailingSlash: tt.setting}
		if got := b.Build(tt.doc, "", "", ""); got != tt.want {
			t.Errorf("trailingSlash %q, %s: %s, want %s", tt.setting, tt.doc, got, tt.want)
		}
	}
	b := URLBuilder{DocsBase: "https://x.org/docs/", TrailingSlash: "false"}
	if got := b.Build("docs/m/index.md", "", "Intro", ""); got != "https://x.org/docs/m#intro" {
		t.Errorf("anchor after trimmed slash: %s", got)
	}
}
