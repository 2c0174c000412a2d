package present

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
)

func TestMiddle(t *testing.T) {
	a := "docs/module-1-ros2/05-urdf-humanoids-and-their-kinematic-chains.md#joint-types"
	b := "docs/module-1-ros2/05-urdf-humanoids-and-their-kinematic-chains.md#link-frames"
	for _, w := range []int{24, 30, 40, 60} {
		ma, mb := Middle(a, w), Middle(b, w)
		if ansi.StringWidth(ma) != w || ansi.StringWidth(mb) != w {
			t.Errorf("width %d: %q (%d), %q (%d)", w, ma, ansi.StringWidth(ma), mb, ansi.StringWidth(mb))
		}
		if ma == mb {
			t.Errorf("width %d: two sections of one page look the same: %q", w, ma)
		}
		if !strings.HasSuffix(ma, "#joint-types") || !strings.Contains(ma, "…") || !strings.HasPrefix(ma, "docs/"[:min(5, w/4)]) {
			t.Errorf("width %d: %q does not keep the start and the anchor", w, ma)
		}
	}
	// With room, the page's file name is kept beside the anchor.
	if got := Middle(a, 60); !strings.Contains(got, "chains.md#joint-types") {
		t.Errorf("60: %q", got)
	}
	for _, c := range []struct {
		s    string
		w    int
		want string
	}{
		{"short", 10, "short"},
		{"exactly10!", 10, "exactly10!"},
		{"abcdefghijkl", 1, "…"},
		{"abcdefghijkl", 0, ""},
		{"abcdefghijkl", 7, "ab…ijkl"},
		{"docs/a/very/long/path.md#an-anchor-longer-than-the-room", 12, "…an-the-room"},
		{"文档/第一章/节点与话题.md", 11, "文…话题.md"},
	} {
		if got := Middle(c.s, c.w); got != c.want || ansi.StringWidth(got) > max(c.w, 0) {
			t.Errorf("Middle(%q, %d) = %q, want %q", c.s, c.w, got, c.want)
		}
	}
}
