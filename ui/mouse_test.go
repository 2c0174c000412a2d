package ui

import (
	"strconv"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"

	"ragscope/ui/common"
)

// rowY is the screen row of the first line of result i (no scrolling).
func rowY(t *testing.T, m Model, i int) int {
	t.Helper()
	title := m.results.Items[i].Hit.Chunk.Title
	for y, l := range strings.Split(screen(m), "\n") {
		if strings.Contains(l, title+" - Overview") && strings.Contains(l, " "+common.LeftPad(strconv.Itoa(i+1), 2)+" ") {
			return y
		}
	}
	t.Fatalf("result %d not on screen:\n%s", i, screen(m))
	return -1
}

// The view asks for mouse reports; a click on a result selects it and
// shows it in the detail, a click on a pane focuses it, the wheel scrolls
// what is under the pointer (issue #18, point 8).
func TestMouseClickAndWheel(t *testing.T) {
	opts, _ := testOptions(&fakeRetriever{})
	m := sized(t, opts, 120, 40)
	if m.View().MouseMode != tea.MouseModeCellMotion {
		t.Fatal("the view does not ask for mouse reports")
	}
	m = ask(t, m, "nodes")
	y := rowY(t, m, 2)
	m = feed(t, m, keyRunes("i")) // the Ask box has the keyboard
	m = feed(t, m, tea.MouseClickMsg{X: 10, Y: y + 1, Button: tea.MouseLeft})
	if m.Focus() != "results" || m.results.Cursor != 2 || m.detail.Item.Hit.Chunk.ID != m.results.Items[2].Hit.Chunk.ID {
		t.Fatalf("click on row 3: focus %s cursor %d detail %s", m.Focus(), m.results.Cursor, m.detail.Item.Hit.Chunk.ID)
	}
	m = feed(t, m, tea.MouseWheelMsg{X: 10, Y: y, Button: tea.MouseWheelUp})
	if m.results.Cursor != 1 || m.detail.Item.Hit.Chunk.ID != m.results.Items[1].Hit.Chunk.ID {
		t.Fatalf("wheel up over the results: cursor %d", m.results.Cursor)
	}
	// The wheel over the detail scrolls it without taking the keyboard.
	m.detail.Viewport.SetHeight(3)
	before := m.detail.Viewport.YOffset()
	m = feed(t, m, tea.MouseWheelMsg{X: 100, Y: y, Button: tea.MouseWheelDown})
	if m.detail.Viewport.YOffset() != before+wheelLines || m.Focus() != "results" || m.results.Cursor != 1 {
		t.Fatalf("wheel over the detail: offset %d→%d focus %s", before, m.detail.Viewport.YOffset(), m.Focus())
	}
	m = feed(t, m, tea.MouseClickMsg{X: 100, Y: y, Button: tea.MouseLeft})
	if m.Focus() != "detail" {
		t.Fatalf("click on the detail: focus %s", m.Focus())
	}
	m = feed(t, m, tea.MouseClickMsg{X: 10, Y: 3, Button: tea.MouseLeft})
	if m.Focus() != "query" {
		t.Fatalf("click on the Ask box: focus %s", m.Focus())
	}
	// Outside the body nothing happens.
	m = feed(t, m, tea.MouseClickMsg{X: 10, Y: 39, Button: tea.MouseLeft}, tea.MouseWheelMsg{X: 10, Y: 0, Button: tea.MouseWheelDown})
	if m.Focus() != "query" || m.results.Cursor != 1 {
		t.Fatalf("a click outside moved things: focus %s cursor %d", m.Focus(), m.results.Cursor)
	}
}
