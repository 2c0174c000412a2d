package retrieval

import (
	"strings"
	"testing"
)

// TestCiteSlugsTheShownHeading: a payload heading holding terminal escape
// sequences is shown sanitised, and its anchor is built from that same
// sanitised text.
func TestCiteSlugsTheShownHeading(t *testing.T) {
	b := URLBuilder{DocsBase: "https://me.github.io/book/docs/"}
	for _, tc := range []struct{ section, anchor string }{
		{"Evil \x1b[5mblink\x1b[0m", "#evil-blink"},
		{"\x1b]0;title\x07Setup", "#setup"},
		{"Two\u202e words", "#two-words"},
	} {
		c := Chunk{DocPath: "docs/intro.md", Section: tc.section}
		got := b.Cite(&c).URL
		if !strings.HasSuffix(got, tc.anchor) {
			t.Errorf("Cite(%q).URL = %q, want the anchor %s", tc.section, got, tc.anchor)
		}
	}
}
