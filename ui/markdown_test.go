package ui

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"ragscope/ui/common"
)

const mdSample = "## Services and actions\n\n" +
	"A **node** is the unit of *computation*. Run `ros2 run demo talker`; see [the docs](https://docs.ros.org/en/humble/) or <https://example.org>.\n\n" +
	"- first item with some longer text that wraps around the line width limit for sure\n" +
	"- second\n" +
	"  1. nested one\n" +
	"  2. nested two\n\n" +
	"```bash\nros2 run demo_nodes_cpp talker --ros-args -p a:=1\n```\n\n" +
	"> A quote.\n\n" +
	"| a | b |\n|---|---|\n| 1 | 2 |\n\n" +
	"---\n\n" +
	"# Title one\n"

// Without colours (notty: NO_COLOR or an Ascii profile) the text keeps
// what glamour's notty style keeps: heading marks, emphasis marks, bullets
// and numbers, code blocks indented, quotes marked, links followed by
// their URL, tables as written, a two-cell margin.
func TestRenderMarkdownNoTTY(t *testing.T) {
	raw := common.RenderMarkdown(mdSample, 60, "notty")
	if strings.Contains(raw, "\x1b[") {
		t.Fatalf("styles drawn without colours: %q", raw)
	}
	got := ansi.Strip(raw) // hyperlinks: TestRenderMarkdownHyperlinks
	want := strings.Join([]string{
		"  ## Services and actions",
		"",
		"  A **node** is the unit of *computation*. Run ros2 run",
		"  demo talker; see the docs",
		"  https://docs.ros.org/en/humble/ or",
		"  https://example.org.",
		"",
		"  • first item with some longer text that wraps around",
		"    the line width limit for sure",
		"  • second",
		"      1. nested one",
		"      2. nested two",
		"",
		"    ros2 run demo_nodes_cpp talker --ros-args -p a:=1",
		"",
		"  | A quote.",
		"",
		"  | a | b |",
		"  |---|---|",
		"  | 1 | 2 |",
		"",
		"  --------",
		"",
		"  # Title one",
	}, "\n")
	if got != want {
		t.Fatalf("notty render:\n%s\nwant:\n%s", got, want)
	}
}

// The colour themes draw glamour's colours: headings bold 39 (dark) or
// 27 (light), link text bold, URLs underlined, code spans on a grey
// background, h1 on a violet block; no markdown marks around emphasis.
func TestRenderMarkdownThemes(t *testing.T) {
	for _, tc := range []struct {
		style string
		want  []string
	}{
		{"dark", []string{"\x1b[1;38;5;39m## ", "\x1b[1;38;5;252mnode", "\x1b[3;38;5;252mcomputation", "\x1b[38;5;30;4mhttps://docs.ros.org/en/humble/", "48;5;236m", "\x1b[38;5;244mros2 run", "48;5;63m Title one "}},
		{"light", []string{"\x1b[1;38;5;27m## ", "\x1b[1;38;5;234mnode", "\x1b[38;5;36;4mhttps://example.org", "48;5;254m", "\x1b[38;5;242mros2 run", "│ "}},
	} {
		got := common.RenderMarkdown(mdSample, 60, tc.style)
		for _, w := range tc.want {
			if !strings.Contains(got, w) {
				t.Errorf("%s: %q missing from\n%q", tc.style, w, got)
			}
		}
		if plain := ansi.Strip(got); strings.Contains(plain, "**node**") || strings.Contains(plain, "*computation*") {
			t.Errorf("%s: emphasis marks left in a colour theme:\n%s", tc.style, plain)
		}
	}
}

// Prose wraps to the width (less the pane's two cells, as glamour's word
// wrap did); only code blocks and tables, which are not reflowed, may run
// past it.
func TestRenderMarkdownWraps(t *testing.T) {
	for _, style := range []string{"notty", "dark"} {
		for _, w := range []int{24, 30, 61} {
			for _, l := range strings.Split(common.RenderMarkdown(mdSample, w, style), "\n") {
				if strings.Contains(l, "ros2 run demo_nodes_cpp") || strings.HasPrefix(ansi.Strip(l), "  |") {
					continue
				}
				if ansi.StringWidth(l) > w-2 {
					t.Errorf("%s at %d: %q is %d cells wide", style, w, ansi.Strip(l), ansi.StringWidth(l))
				}
			}
		}
	}
}

// Text above plainLimit is wrapped as it is, not parsed.
func TestRenderMarkdownLargeIsPlain(t *testing.T) {
	big := "## Heading **bold**\n\n" + strings.Repeat("word ", common.PlainLimit/5+10)
	got := common.RenderMarkdown(big, 40, "dark")
	if !strings.HasPrefix(got, "## Heading **bold**") || strings.Contains(got, "\x1b[") {
		t.Fatalf("large text was rendered as markdown: %q", got[:80])
	}
}

func BenchmarkRenderMarkdown(b *testing.B) {
	for b.Loop() {
		_ = common.RenderMarkdown(mdSample, 80, "dark")
	}
}

// Absolute http(s) links are terminal hyperlinks (OSC 8); relative and
// other schemes are not; hyperlinks take no width.
func TestRenderMarkdownHyperlinks(t *testing.T) {
	src := "See [the ROS docs](https://docs.ros.org/en/humble/), [next page](../next.md), [mail](mailto:a@b.c) and <https://example.org>."
	for _, style := range []string{"notty", "dark"} {
		got := common.RenderMarkdown(src, 200, style)
		open := ansi.SetHyperlink("https://docs.ros.org/en/humble/")
		if n := strings.Count(got, open); n != 2 { // the text, the URL
			t.Errorf("%s: %d hyperlinked runs to the docs, want 2:\n%q", style, n, got)
		}
		if strings.Count(got, ansi.SetHyperlink("https://example.org")) != 1 {
			t.Errorf("%s: the autolink is not a hyperlink:\n%q", style, got)
		}
		if strings.Contains(got, "../next.md\x07") || strings.Contains(got, "mailto:a@b.c\x07") {
			t.Errorf("%s: a relative or mailto link became a hyperlink:\n%q", style, got)
		}
		if strings.Count(got, "\x1b]8;") != 2*3 {
			t.Errorf("%s: hyperlinks not all closed: %q", style, got)
		}
		if plain := ansi.Strip(got); ansi.StringWidth(got) != ansi.StringWidth(plain) {
			t.Errorf("%s: hyperlinks changed the width", style)
		}
	}
}

// A word longer than the width (a URL) is cut, and every line closes the
// style and link it opened: none runs on into the pane's border.
func TestRenderMarkdownLongLinkLinesAreClosed(t *testing.T) {
	got := common.RenderMarkdown("Read [docs](https://docs.ros.org/en/humble/Tutorials/Beginner-CLI-Tools.html) before.", 30, "dark")
	lines := strings.Split(got, "\n")
	if len(lines) < 3 {
		t.Fatalf("the URL was not cut: %q", got)
	}
	for _, l := range lines {
		if strings.Count(l, "\x1b]8;;https") != strings.Count(l, "\x1b]8;;\a") {
			t.Errorf("a hyperlink left open at the end of %q", l)
		}
		if i := strings.LastIndex(l, "\x1b["); i >= 0 && !strings.HasPrefix(l[i:], "\x1b[m") {
			t.Errorf("a style left open at the end of %q", l)
		}
	}
}
