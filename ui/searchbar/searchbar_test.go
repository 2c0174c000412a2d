package searchbar

import (
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/colorprofile"
	"github.com/charmbracelet/x/ansi"

	"ragscope/ui/common"
)

func press(code rune) tea.KeyPressMsg {
	return tea.KeyPressMsg{Code: code}
}

func typed(s string) tea.KeyPressMsg {
	return tea.KeyPressMsg{Code: []rune(s)[0], Text: s}
}

// Typing refines the search (in lower case),
// enter keeps it, then n/N move only while the searched pane has the
// keyboard, and esc clears it.
func TestBarAsks(t *testing.T) {
	k := common.DefaultKeyMap()
	s := New(common.DefaultStyles(true, colorprofile.Ascii))
	s.Start(true, 80)
	if !s.Typing() || !s.InDetail() || !s.Active() {
		t.Fatal("not typing in the detail")
	}
	if ask, _, _ := s.Update(typed("N"), k, true); ask != Refine || s.Query() != "n" {
		t.Fatalf("typing: %v %q", ask, s.Query())
	}
	if ask, _ := s.Edit(tea.PasteMsg{Content: "ODE"}); ask != Refine || s.Query() != "node" {
		t.Fatalf("paste: %v %q", ask, s.Query())
	}
	if ask, _, _ := s.Update(press(tea.KeyLeft), k, true); ask != Typed {
		t.Fatalf("a key that changes nothing: %v", ask)
	}
	if ask, _, _ := s.Update(press(tea.KeyEnter), k, true); ask != Keep || s.Typing() || s.Query() != "node" {
		t.Fatalf("enter: %v typing %v", ask, s.Typing())
	}
	if ask, _, _ := s.Update(typed("n"), k, false); ask != Pass {
		t.Fatalf("n with another pane focused: %v", ask)
	}
	if ask, _, _ := s.Update(typed("n"), k, true); ask != Next {
		t.Fatalf("n: %v", ask)
	}
	if ask, _, _ := s.Update(typed("N"), k, true); ask != Prev {
		t.Fatalf("N: %v", ask)
	}
	if ask, quiet, _ := s.Update(press(tea.KeyEscape), k, true); ask != Cleared || quiet || s.Active() {
		t.Fatalf("esc: %v quiet %v", ask, quiet)
	}
	// enter on an empty bar closes it without a word.
	s.Start(false, 80)
	if ask, quiet, _ := s.Update(press(tea.KeyEnter), k, true); ask != Cleared || !quiet || s.Active() {
		t.Fatalf("empty enter: %v quiet %v", ask, quiet)
	}
}

func TestStatus(t *testing.T) {
	s := New(common.DefaultStyles(true, colorprofile.Ascii))
	s.Start(false, 80)
	s.Edit(tea.PasteMsg{Content: "ros"})
	if text, ok := s.Status(1, 3, "result"); !ok || text != "“ros”: result 2 of 3 matching · n/N next/previous · esc clears" {
		t.Errorf("match: %q %v", text, ok)
	}
	if text, ok := s.Status(0, 0, "line"); ok || text != "No line matches “ros”. esc clears the search." {
		t.Errorf("none: %q %v", text, ok)
	}
	if v := s.View(80); !strings.HasPrefix(ansi.Strip(v), "/ros") {
		t.Errorf("view %q", v)
	}
}
