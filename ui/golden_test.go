package ui

import (
	"bytes"
	"fmt"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/colorprofile"
	"github.com/charmbracelet/x/exp/golden"
	"github.com/charmbracelet/x/exp/teatest/v2"

	"ragscope/retrieval"
	"ragscope/ui/common"
)

// TestGolden snapshots View() as plain text at fixed sizes, the program
// running with colours off (as under NO_COLOR); regenerate with:
// go test ./ui -run TestGolden -update
func TestGolden(t *testing.T) {
	enter := tea.KeyPressMsg{Code: tea.KeyEnter}
	esc := tea.KeyPressMsg{Code: tea.KeyEsc}
	tests := []struct {
		name  string
		w, h  int
		err   error
		eval  bool
		steps func(t *testing.T, tm *teatest.TestModel)
		wait  string
	}{
		// The stats arrive by a command of their own, after "Ready.".
		{name: "first_screen", w: 120, h: 40, wait: "42 points"},
		{name: "results", w: 120, h: 40, wait: "unit of computation", steps: func(t *testing.T, tm *teatest.TestModel) {
			tm.Type("How do nodes talk?")
			tm.Send(enter)
		}},
		{name: "detail", w: 100, h: 30, wait: "## Services", steps: func(t *testing.T, tm *teatest.TestModel) {
			tm.Type("How do nodes talk?")
			tm.Send(enter)
			waitFor(t, tm, "3 results")
			tm.Type("j")
			tm.Send(enter)
		}},
		{name: "context", w: 120, h: 40, wait: "Grounded context", steps: func(t *testing.T, tm *teatest.TestModel) {
			tm.Type("How do nodes talk?")
			tm.Send(enter)
			waitFor(t, tm, "3 results")
			tm.Type("c")
		}},
		{name: "left_out_and_settings", w: 120, h: 40, wait: "show hits left out", steps: func(t *testing.T, tm *teatest.TestModel) {
			tm.Type("How do nodes talk?")
			tm.Send(enter)
			waitFor(t, tm, "3 results")
			tm.Type("xs")
		}},
		{name: "selected_text", w: 120, h: 40, wait: "Grounded context (selected text)", steps: func(t *testing.T, tm *teatest.TestModel) {
			tm.Type("What does DDS do?")
			tm.Send(ctrl('t'))
			tm.Send(tea.PasteMsg{Content: "ROS 2 uses DDS as its middleware.\nNodes discover each other on the same domain ID.\n\nQoS profiles decide reliability."})
			tm.Send(tea.KeyPressMsg{Code: tea.KeyTab})
			tm.Type("docs/module-1-ros2/what-is-ros2.md")
			tm.Send(tea.KeyPressMsg{Code: tea.KeyTab})
			tm.Type("DDS")
			tm.Send(enter)
			waitFor(t, tm, "1 result")
			tm.Type("c")
		}},
		{name: "error", w: 120, h: 40, err: fmt.Errorf("%w: no Cohere API key: set COHERE_API_KEY (or CO_API_KEY) to embed questions", retrieval.ErrConfig), wait: "COHERE_API_KEY", steps: func(t *testing.T, tm *teatest.TestModel) {
			tm.Type("How do nodes talk?")
			tm.Send(enter)
		}},
		{name: "small_window", w: 50, h: 12, wait: "too small"},
		{name: "eval", w: 120, h: 40, eval: true, wait: "no relevant hit in the top 5", steps: func(t *testing.T, tm *teatest.TestModel) {
			tm.Send(esc)
			tm.Type("e")
			tm.Send(enter)
			waitFor(t, tm, "FAILED")
			tm.Type("jj")
		}},
		{name: "narrow", w: 70, h: 20, wait: "3 results", steps: func(t *testing.T, tm *teatest.TestModel) {
			tm.Type("How do nodes talk?")
			tm.Send(enter)
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := &fakeRetriever{err: tt.err}
			opts, _ := testOptions(f)
			if tt.eval {
				opts.Eval = (&fakeEval{rep: fakeReport()}).Run
				opts.EvalDefault = "demo golden set"
			}
			tm := teatest.NewTestModel(t, New(opts), teatest.WithInitialTermSize(tt.w, tt.h),
				teatest.WithProgramOptions(tea.WithColorProfile(colorprofile.Ascii)))
			if tt.steps != nil {
				tt.steps(t, tm)
			}
			waitFor(t, tm, tt.wait)
			// Let the last messages (renders, link states) land.
			time.Sleep(50 * time.Millisecond)
			if err := tm.Quit(); err != nil {
				t.Fatal(err)
			}
			fm := tm.FinalModel(t, teatest.WithFinalTimeout(3*time.Second)).(Model)
			if fm.st.Glamour != "notty" || common.HasColor(fm.st.Profile) {
				t.Fatalf("styles for profile %v, markdown %q: the program's colour profile did not reach the model", fm.st.Profile, fm.st.Glamour)
			}
			golden.RequireEqual(t, []byte(screen(fm)))
		})
	}
}

// waitFor waits until the program's new output shows s.
func waitFor(t testing.TB, tm *teatest.TestModel, s string) {
	t.Helper()
	teatest.WaitFor(t, tm.Output(), func(b []byte) bool {
		return bytes.Contains(b, []byte(s))
	}, teatest.WithDuration(5*time.Second), teatest.WithCheckInterval(10*time.Millisecond))
}
