package present

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"ragscope/retrieval"
)

const (
	nodes  = "https://physical-ai.example.org/textbook/docs/module-1-ros2/nodes-topics-services#topics"
	nodes1 = nodes + "-1"
)

func TestFitURL(t *testing.T) {
	tests := []struct {
		name  string
		url   string
		width int
		want  string
	}{
		{"fits", "https://a.org/docs/x#y", 40, "https://a.org/docs/x#y"},
		{"exact fit", "https://a.org/docs/x#y", 22, "https://a.org/docs/x#y"},
		{"keeps the longest tail at a slash", nodes1, 50, "…/module-1-ros2/nodes-topics-services#topics-1"},
		{"issue example", "https://book.example.org/docs/module-1/nodes#topics-1", 26, "…/module-1/nodes#topics-1"},
		{"last segment only", nodes1, 35, "…/nodes-topics-services#topics-1"},
		{"anchor when the segment does not fit", nodes1, 20, "…#topics-1"},
		{"end when the anchor does not fit", nodes1, 6, "…ics-1"},
		{"host is not a cut point", "https://averyveryverylonghost.example.org", 12, "…example.org"},
		{"one cell", nodes1, 1, "…"},
		{"zero", nodes1, 0, ""},
		{"missing", "", 40, NoURL},
		{"sanitised", "https://a.org/\x1b[31mred\x1b[0m#x", 40, "https://a.org/red#x"},
		{"wide runes counted in cells", "https://a.org/文書/ページ#節", 12, "…/ページ#節"},
	}
	for _, tt := range tests {
		got := FitURL(tt.url, tt.width)
		if got != tt.want {
			t.Errorf("%s: FitURL(%q, %d) = %q, want %q", tt.name, tt.url, tt.width, got, tt.want)
		}
		if w := ansi.StringWidth(got); w > tt.width && tt.width > 0 && tt.want != NoURL {
			t.Errorf("%s: %q is %d cells, more than %d", tt.name, got, w, tt.width)
		}
	}
}

// TestFitURLKeepsAnchorsApart: two citations that differ only in their
// anchor's "-1" stay different at every width that shows any of them.
func TestFitURLKeepsAnchorsApart(t *testing.T) {
	for w := 3; w <= len(nodes1)+2; w++ {
		a, b := FitURL(nodes, w), FitURL(nodes1, w)
		if a == b {
			t.Fatalf("width %d: both URLs show as %q", w, a)
		}
		if !strings.HasSuffix(b, "-1") {
			t.Fatalf("width %d: %q lost the anchor's end", w, b)
		}
	}
}

func TestWrapURL(t *testing.T) {
	for w := 1; w <= len(nodes1)+1; w++ {
		lines := WrapURL(nodes1, w)
		if got := strings.Join(lines, ""); got != nodes1 {
			t.Errorf("width %d: lines join to %q, want the whole URL", w, got)
		}
		for _, l := range lines {
			if ansi.StringWidth(l) > w {
				t.Errorf("width %d: line %q is wider", w, l)
			}
		}
	}
	if got := WrapURL(nodes1, 40); len(got) < 2 || !strings.HasSuffix(got[0], "/") {
		t.Errorf("WrapURL at 40 = %q, want breaks after a slash", got)
	}
	if got := WrapURL("", 40); len(got) != 1 || got[0] != NoURL {
		t.Errorf("WrapURL of nothing = %q", got)
	}
}

func TestAnchor(t *testing.T) {
	built := func(url, section, headingID string) *retrieval.Hit {
		return &retrieval.Hit{Chunk: retrieval.Chunk{Section: section, HeadingID: headingID}, Citation: retrieval.Citation{URL: url, Source: "built"}}
	}
	tests := []struct {
		name string
		hit  *retrieval.Hit
		want string
	}{
		{"slug of the heading", built("https://a.org/docs/x#topics", "Topics", ""), "#topics (from the heading text)"},
		{"explicit or duplicate id", built("https://a.org/docs/x#topics-1", "Topics", "topics-1"), "#topics-1 (the heading's id)"},
		{"intro", built("https://a.org/docs/x", "", ""), "none (page URL)"},
		{"section without a slug", built("https://a.org/docs/x", "🤖", ""), "none (page URL; no anchor for this section)"},
		{"payload", &retrieval.Hit{Citation: retrieval.Citation{URL: "https://a.org/x#y", Source: "payload"}}, "#y (in the payload's URL)"},
		{"no URL", &retrieval.Hit{}, ""},
	}
	for _, tt := range tests {
		if got := Anchor(tt.hit); got != tt.want {
			t.Errorf("%s: Anchor = %q, want %q", tt.name, got, tt.want)
		}
	}
}

func TestWrapURLWide(t *testing.T) {
	u := "https://a.org/文書/ページ#節-1"
	for w := 2; w <= 40; w++ {
		lines := WrapURL(u, w)
		if strings.Join(lines, "") != u {
			t.Fatalf("width %d: %q", w, lines)
		}
		for _, l := range lines {
			if ansi.StringWidth(l) > w {
				t.Fatalf("width %d: line %q is wider", w, l)
			}
		}
	}
}
