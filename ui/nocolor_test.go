package ui

import (
	"regexp"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/colorprofile"
	"github.com/charmbracelet/x/ansi"

	"ragscope/ui/common"
)

// Without colours (NO_COLOR) the focused pane is told by a heavy border
// and the Ask box shows a steady reverse-video cursor (issue #18, point 8).
func TestFocusShowsWithoutColour(t *testing.T) {
	opts, _ := testOptions(&fakeRetriever{})
	m := newModel(t.Context(), opts, common.DefaultStyles(true, colorprofile.Ascii))
	m = feed(t, m, tea.WindowSizeMsg{Width: 100, Height: 30})
	m = feed(t, m, runCmd(t, m.Init())...)
	m = feed(t, m, typeText("nodes")...)
	raw := m.View().Content
	lines := strings.Split(ansi.Strip(raw), "\n")
	if !strings.HasPrefix(lines[2], "┏") || !strings.HasPrefix(lines[5], "╭") {
		t.Fatalf("Ask box focused: want a heavy border on it only:\n%s\n%s", lines[2], lines[5])
	}
	if !regexp.MustCompile(`nodes(\x1b\[[0-9;]*m)*\x1b\[7[;m]`).MatchString(raw) {
		t.Fatalf("no reverse-video cursor after the text: %q", strings.Split(raw, "\n")[3])
	}
	if m.query.Input.Styles().Cursor.Blink {
		t.Fatal("the cursor blinks without colours")
	}
	m = feed(t, m, keyType(tea.KeyEnter))
	lines = strings.Split(screen(m), "\n")
	if !strings.HasPrefix(lines[2], "╭") || !strings.HasPrefix(lines[5], "┏") {
		t.Fatalf("results focused: want the heavy border on the results:\n%s\n%s", lines[2], lines[5])
	}
	// With colours the border keeps its shape; the colour tells focus.
	if st := common.DefaultStyles(true, colorprofile.TrueColor); st.FocusedPane.GetBorderStyle() != st.Pane.GetBorderStyle() {
		t.Fatal("colour terminals lost the rounded focused border")
	}
}
