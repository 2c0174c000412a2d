package docusaurus

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// Expected ids from github-slugger's published fixtures and README and from
// Docusaurus's heading-id docs, not from this implementation.
func TestGitHubSlug(t *testing.T) {
	tests := []struct{ in, want string }{
		{"Hello World", "hello-world"},
		{"foo", "foo"},
		{"A & B", "a--b"},
		{"😄 emoji", "-emoji"},
		{"Привет non-latin 你好", "привет-non-latin-你好"},
		{"1.1 Intro", "11-intro"},
		{"Why ROS 2?", "why-ros-2"},
		{"URDF vs. SDF", "urdf-vs-sdf"},
		{"Step 2: Spawn the Robot", "step-2-spawn-the-robot"},
		{"snake_case stays", "snake_case-stays"},
		{"dash-es and — em dash", "dash-es-and--em-dash"},
		{"C++ & Rust", "c--rust"},
		{"$money (dollars)", "money-dollars"},
		{"  leading space", "--leading-space"},
		{"trailing?!", "trailing"},
		{"Über Café", "über-café"},
		{"²nd superscript", "nd-superscript"},
		{"ⓐ circled", "ⓐ-circled"},
	}
	for _, tt := range tests {
		if got := GitHubSlug(tt.in); got != tt.want {
			t.Errorf("GitHubSlug(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestSimpleSlug(t *testing.T) {
	tests := []struct{ in, want string }{
		{"Embodiment", "embodiment"},
		{"1.1 Intro", "1-1-intro"},
		{"A & B", "a-b"},
		{"  Why ROS 2?  ", "why-ros-2"},
		{"🚀 Quick Start", "quick-start"},
		{"---", ""},
	}
	for _, tt := range tests {
		if got := SimpleSlug(tt.in); got != tt.want {
			t.Errorf("SimpleSlug(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestSluggerDuplicates(t *testing.T) {
	s := NewSlugger(SlugGitHub)
	got := []string{s.Slug("Example"), s.Slug("Example"), s.Slug("Example"), s.Slug("example-1"), s.Slug("Other")}
	want := []string{"example", "example-1", "example-2", "example-1-1", "other"}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("slugs = %v, want %v", got, want)
		}
	}
}

func TestSplitHeadingID(t *testing.T) {
	tests := []struct{ in, text, id string }{
		{"Quality of Service {#qos}", "Quality of Service", "qos"},
		// Docusaurus 3.5.2 does not read the MDX comment form (real build).
		{"Reward Shaping {/* #reward-design */}", "Reward Shaping {/* #reward-design */}", ""},
		{"Plain heading", "Plain heading", ""},
		{"Set {x} braces", "Set {x} braces", ""},
	}
	for _, tt := range tests {
		text, id := SplitHeadingID(tt.in)
		if text != tt.text || id != tt.id {
			t.Errorf("SplitHeadingID(%q) = %q, %q; want %q, %q", tt.in, text, id, tt.text, tt.id)
		}
	}
}

func TestStripInlineMarkup(t *testing.T) {
	tests := []struct{ in, want string }{
		{"What is `rclpy`?", "What is rclpy?"},
		{"See [the docs](https://x.org) now", "See the docs now"},
		{"**Bold** and *em*", "Bold and em"},
		{"my_var_name stays", "my_var_name stays"},
		{"Tag <span>inline</span>", "Tag inline"},
	}
	for _, tt := range tests {
		if got := StripInlineMarkup(tt.in); got != tt.want {
			t.Errorf("StripInlineMarkup(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
	if got := GitHubSlug(StripInlineMarkup("What is `rclpy`?")); got != "what-is-rclpy" {
		t.Errorf("inline code slug = %q", got)
	}
}

func TestParseSlugStyle(t *testing.T) {
	if s, err := ParseSlugStyle(""); err != nil || s != SlugGitHub {
		t.Fatalf("default = %v, %v", s, err)
	}
	if s, err := ParseSlugStyle("Simple"); err != nil || s != SlugSimple {
		t.Fatalf("simple = %v, %v", s, err)
	}
	if _, err := ParseSlugStyle("kebab"); err == nil {
		t.Fatal("want error for unknown style")
	}
}

// TestGitHubSlugOracle checks GitHubSlug and Slugger against the output of
// the real github-slugger 2.0.0 (the library Docusaurus's heading ids come
// from), run by the oracle test in retrieval/docusaurus/oracle over inputs
// written for ragscope: JavaScript's toLowerCase (İ, final sigma), code
// points unassigned in the library's Unicode 13 tables, emoji, marks,
// separators and the duplicate counter.
func TestGitHubSlugOracle(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("testdata", "slugger.oracle.json"))
	if err != nil {
		t.Fatal(err)
	}
	var golden struct {
		Slugs, Sequence []struct{ In, Slug string }
	}
	if err := json.Unmarshal(b, &golden); err != nil {
		t.Fatal(err)
	}
	if len(golden.Slugs) < 80 {
		t.Fatalf("golden has %d slugs, want the full set", len(golden.Slugs))
	}
	for _, c := range golden.Slugs {
		if got := GitHubSlug(c.In); got != c.Slug {
			t.Errorf("GitHubSlug(%+q) = %+q, github-slugger gives %+q", c.In, got, c.Slug)
		}
	}
	s := NewSlugger(SlugGitHub)
	for i, c := range golden.Sequence {
		if got := s.Slug(c.In); got != c.Slug {
			t.Errorf("sequence[%d] Slug(%q) = %q, github-slugger gives %q", i, c.In, got, c.Slug)
		}
	}
}

// BenchmarkGitHubSlug: ASCII headings take the strings.ToLower path;
// others pay for JavaScript-compatible full case mapping.
func BenchmarkGitHubSlug(b *testing.B) {
	for _, tt := range []struct{ name, in string }{
		{"ascii", "Step 2: Spawn the Robot in Gazebo (ROS 2)"},
		{"greek", "ΟΔΟΣ ΚΑΙ ΣΟΦΙΑ στο İstanbul — Über Café"},
	} {
		b.Run(tt.name, func(b *testing.B) {
			for b.Loop() {
				GitHubSlug(tt.in)
			}
		})
	}
}
