package ui

import (
	"slices"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"ragscope/ui/answer"
)

func TestWrapPara(t *testing.T) {
	for _, tt := range []struct {
		in   string
		w    int
		want []string
	}{
		{"", 10, []string{""}},
		{"nodes talk over topics", 11, []string{"nodes talk", "over topics"}},
		{"nodes  talk", 5, []string{"nodes", "talk"}},
		{"  indented text", 20, []string{"  indented text"}},
		{"abcdefghijkl xy", 5, []string{"abcde", "fghij", "kl xy"}},
		{"a https://example.org/long", 8, []string{"a", "https://", "example.", "org/long"}},
		{"日本語のテキスト", 6, []string{"日本語", "のテキ", "スト"}},
		{"trailing  ", 20, []string{"trailing"}},
		{"ab cd ", 2, []string{"ab", "cd"}},
	} {
		got := answer.WrapPara(tt.in, tt.w)
		if !slices.Equal(got.Lines, tt.want) {
			t.Errorf("wrapPara(%q, %d) = %q, want %q", tt.in, tt.w, got.Lines, tt.want)
		}
		for i, l := range got.Lines {
			if !strings.HasPrefix(tt.in[got.Starts[i]:], l) {
				t.Errorf("wrapPara(%q): line %d %q does not start at %d", tt.in, i, l, got.Starts[i])
			}
			if ansi.StringWidth(strings.TrimRight(l, " ")) > tt.w {
				t.Errorf("wrapPara(%q): line %q wider than %d", tt.in, l, tt.w)
			}
		}
	}
}

// A paragraph streamed piece by piece and extended after each piece wraps
// exactly as the whole paragraph does.
func TestExtendMatchesAFullWrap(t *testing.T) {
	pieces := []string{"A", " node", " is the", " unit ", "of computation", " [1].", " Nodes", "talk", " over averyveryverylongwordthatmustbecut", " topics", " ", " and", " services."}
	for _, w := range []int{1, 5, 12, 30} {
		var para string
		var pw answer.Wrapped
		for _, p := range pieces {
			next := para + p
			pw = answer.Extend(para, pw, next, w)
			para = next
			if want := answer.WrapPara(para, w); !slices.Equal(pw.Lines, want.Lines) || !slices.Equal(pw.Starts, want.Starts) {
				t.Fatalf("width %d after %q: extend %q, full %q", w, para, pw.Lines, want.Lines)
			}
		}
	}
	// Text that does not continue the previous paragraph is wrapped anew.
	if got := answer.Extend("abc", answer.WrapPara("abc", 3), "xyz uvw", 3); !slices.Equal(got.Lines, []string{"xyz", "uvw"}) {
		t.Fatalf("extend of another text = %q", got.Lines)
	}
}
