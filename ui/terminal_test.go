package ui

import (
	"errors"
	"fmt"
	"image/color"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/colorprofile"

	"ragscope/retrieval"
	"ragscope/ui/common"
)

// msgTypes names the messages msgs holds (Bubble Tea's own requests are
// unexported types).
func msgTypes(msgs []tea.Msg) string {
	var names []string
	for _, m := range msgs {
		names = append(names, fmt.Sprintf("%T", m))
	}
	return strings.Join(names, ",")
}

// A copy goes to the terminal by OSC 52 through Bubble Tea (never written
// behind the renderer), and to the system clipboard; without one the
// status does not claim a copy it cannot know of.
func TestCopyGoesThroughBubbleTea(t *testing.T) {
	opts, _ := testOptions(&fakeRetriever{})
	opts.Clipboard = func(string) error { return errors.New("no xclip") }
	m := sized(t, opts, 120, 40)
	m = ask(t, m, "nodes")
	next, cmd := m.Update(keyRunes("y"))
	m = next.(Model)
	var msgs []tea.Msg
	for _, msg := range runCmd(t, cmd) {
		next, cmd := m.Update(msg)
		m = next.(Model)
		msgs = append(msgs, runCmd(t, cmd)...)
	}
	var osc string
	for _, msg := range msgs {
		if fmt.Sprintf("%T", msg) == "tea.setClipboardMsg" {
			osc = fmt.Sprint(msg)
		}
	}
	if osc != "https://book.example.org/docs/module-1-ros2/nodes-and-topics#overview" {
		t.Fatalf("OSC 52 copy %q; messages %s", osc, msgTypes(msgs))
	}
	if m.statusKind == statusOK || strings.Contains(m.status, "Copied") || !strings.Contains(m.status, "OSC 52") {
		t.Fatalf("status %q", m.status)
	}
}

// Colours follow what Bubble Tea reports: no background query without
// colours (NO_COLOR), the profile and the background restyle the screen,
// and the detail renders again in the new markdown theme.
func TestColoursFollowTheTerminal(t *testing.T) {
	opts, _ := testOptions(&fakeRetriever{})
	m := newModel(t.Context(), opts, common.DefaultStyles(true, colorprofile.Ascii))
	if got := msgTypes(runCmd(t, m.Init())); strings.Contains(got, "backgroundColorMsg") {
		t.Fatalf("asked for the background without colours: %s", got)
	}
	m = feed(t, m, tea.WindowSizeMsg{Width: 120, Height: 40})
	m = ask(t, m, "nodes")
	if m.st.Glamour != "notty" {
		t.Fatalf("markdown %q without colours", m.st.Glamour)
	}
	m = feed(t, m, tea.ColorProfileMsg{Profile: colorprofile.TrueColor})
	if m.st.Glamour != "dark" || !common.HasColor(m.st.Profile) {
		t.Fatalf("after a colour profile: %q %v", m.st.Glamour, m.st.Profile)
	}
	if got := msgTypes(runCmd(t, m.Init())); !strings.Contains(got, "tea.backgroundColorMsg") {
		t.Fatalf("no background query with colours: %s", got)
	}
	next, cmd := m.Update(tea.BackgroundColorMsg{Color: color.White})
	m = next.(Model)
	if m.st.Dark || m.st.Glamour != "light" {
		t.Fatalf("a white background left dark styles (%q)", m.st.Glamour)
	}
	if cmd == nil || m.detail.Key().Style != "light" {
		t.Fatal("the detail was not rendered again in the light theme")
	}
	m = feed(t, m, runCmd(t, cmd)...)
	if _, ok := m.detail.Cache[m.detail.Key()]; !ok {
		t.Fatal("no light render cached")
	}
}

// Bringing back a turn restores its question, mode and settings: a
// settings change then re-runs that question, not the latest one (issue
// #18, point 2).
func TestShowTurnRestoresItsQuestion(t *testing.T) {
	f := &fakeRetriever{}
	opts, _ := testOptions(f)
	m := sized(t, opts, 120, 40)
	m = ask(t, m, "nodes")
	m = feed(t, m, keyRunes("i"))
	m = feed(t, m, ctrl('u'))
	m = ask(t, m, "services")
	m = feed(t, m, keyRunes("t"), keyType(tea.KeyEnter))
	if m.turns.At != 0 {
		t.Fatalf("turn #1 not shown (current %d)", m.turns.At)
	}
	if got := m.query.Value(); got != "nodes" {
		t.Fatalf("Ask box holds %q, want turn #1's question", got)
	}
	m = feed(t, m, keyRunes("s"), keyRunes("l"))
	m = feed(t, m, rerunMsg{Seq: m.rerunSeq})
	if q := f.last(); q.Question != "nodes" || q.Mode != retrieval.ModeNormal {
		t.Fatalf("re-ran %q", q.Question)
	}
}

// Options.Settle runs once, off the UI goroutine, after start: Init
// schedules it and nothing the model draws waits for it.
func TestSettleRunsOnceAfterStart(t *testing.T) {
	opts, _ := testOptions(&fakeRetriever{})
	settled := make(chan struct{}, 2)
	opts.Settle = func() { settled <- struct{}{} }
	m := New(opts)
	var run func(cmd tea.Cmd)
	run = func(cmd tea.Cmd) {
		if cmd == nil {
			return
		}
		go func() {
			if batch, ok := cmd().(tea.BatchMsg); ok {
				for _, c := range batch {
					run(c)
				}
			}
		}()
	}
	run(m.Init())
	select {
	case <-settled:
	case <-time.After(5 * time.Second):
		t.Fatal("Settle did not run")
	}
	select {
	case <-settled:
		t.Fatal("Settle ran twice")
	case <-time.After(2 * settleAfter):
	}
	if settleCmd(nil) != nil {
		t.Fatal("a nil Settle scheduled a command")
	}
}

// WarmUp runs beside the first frame (the CLI starts it while the backend
// opens): it must be safe alongside drawing (run with -race).
func TestWarmUpBesideDrawing(t *testing.T) {
	opts, _ := testOptions(&fakeRetriever{})
	done := make(chan struct{})
	go func() { WarmUp(); close(done) }()
	m := sized(t, opts, 120, 40)
	<-done
	WarmUp()
	if !strings.Contains(screen(m), "Ask ›") {
		t.Fatalf("no prompt:\n%s", screen(m))
	}
}
