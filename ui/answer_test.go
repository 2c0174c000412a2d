package ui

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/colorprofile"
	"github.com/charmbracelet/x/exp/golden"
	"github.com/charmbracelet/x/exp/teatest/v2"

	"ragscope/retrieval"
	"ragscope/ui/answer"
	"ragscope/ui/common"
	"ragscope/ui/settings"
)

// fakeGen is a chat model that streams fixed pieces, reading "[Source N]"
// markers as an OpenAI-compatible provider does, and records its prompts.
type fakeGen struct {
	mu      sync.Mutex
	pieces  []string
	prompts []retrieval.Prompt
	// hold, when set, is awaited before every piece after the first.
	hold chan struct{}
	// cancelled is closed when a stream saw its context end.
	cancelled chan struct{}
}

func newFakeGen(pieces ...string) *fakeGen {
	return &fakeGen{pieces: pieces, cancelled: make(chan struct{})}
}

func (f *fakeGen) Stream(ctx context.Context, p retrieval.Prompt, emit func(retrieval.Delta)) error {
	f.mu.Lock()
	f.prompts = append(f.prompts, p)
	pieces, hold := f.pieces, f.hold
	f.mu.Unlock()
	mp := retrieval.NewMarkerParser()
	words := 0
	for i, piece := range pieces {
		if i > 0 && hold != nil {
			select {
			case <-hold:
			case <-ctx.Done():
				close(f.cancelled)
				return ctx.Err()
			}
		}
		words += len(strings.Fields(piece))
		emit(retrieval.Delta{Text: piece, Citations: mp.Feed(piece)})
	}
	emit(retrieval.Delta{Usage: &retrieval.Usage{InputTokens: 321, OutputTokens: words}, FinishReason: "stop"})
	return nil
}

func (f *fakeGen) Model() string    { return "fake-chat-1" }
func (f *fakeGen) Provider() string { return "fakeai" }

func (f *fakeGen) calls() []retrieval.Prompt {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]retrieval.Prompt(nil), f.prompts...)
}

// answerOpts are test options with g as the chat model.
func answerOpts(g retrieval.Generator) Options {
	opts, _ := testOptions(&fakeRetriever{})
	opts.Generator = g
	opts.ChatHint = "set CHAT_KEY_FOR_TESTS to enable answers"
	return opts
}

// sourceRank is the rank of [Source n] in m's result on show.
func sourceRank(t *testing.T, m Model, n int) int {
	t.Helper()
	p := retrieval.NewPrompt(m.answer.Res)
	if n > len(p.Sources) {
		t.Fatalf("no source %d in %d", n, len(p.Sources))
	}
	return p.Sources[n-1].Rank
}

func TestAnswerOnlyWhenAskedCitesRanksAndLinks(t *testing.T) {
	g := newFakeGen("Nodes exchange messages ", "over topics [Source 2]. ", "Services answer ", "requests [Source 1].")
	opts := answerOpts(g)
	opts.LinkStatus = func(_ context.Context, u string) (common.LinkStatus, error) {
		if strings.Contains(u, "services") {
			return common.LinkStatus{State: common.LinkAnchorMissing}, nil
		}
		return common.LinkStatus{State: common.LinkOK}, nil
	}
	m := sized(t, opts, 120, 40)
	m = ask(t, m, "How do nodes talk?")
	if n := len(g.calls()); n != 0 {
		t.Fatalf("%d chats before the user asked", n)
	}
	m = feed(t, m, keyRunes("a"))
	if m.Focus() != "answer" || len(g.calls()) != 1 {
		t.Fatalf("a: focus %s, %d chats", m.Focus(), len(g.calls()))
	}
	r1, r2 := sourceRank(t, m, 1), sourceRank(t, m, 2)
	v := screen(m)
	for _, want := range []string{
		"Nodes exchange messages over topics [" + strconv.Itoa(r2) + "].",
		"requests [" + strconv.Itoa(r1) + "].",
		"fakeai fake-chat-1 · 321 in + 12 out tokens",
		"Cited", "Not cited:",
		"✓ link ok", "✗ anchor missing",
	} {
		if !strings.Contains(v, want) {
			t.Errorf("the pane lacks %q:\n%s", want, v)
		}
	}
	if strings.Contains(v, "⚠") {
		t.Errorf("a warning for an answer citing known sources:\n%s", v)
	}
	// The answer is kept with its turn: a again outside the pane only shows it.
	m = feed(t, m, keyType(tea.KeyEsc), keyRunes("a"))
	if len(g.calls()) != 1 || !strings.Contains(screen(m), "Nodes exchange") {
		t.Fatalf("a on an answered turn asked again (%d chats)", len(g.calls()))
	}
	// In the pane, a asks again.
	feed(t, m, keyRunes("a"))
	if len(g.calls()) != 2 {
		t.Fatalf("a in the pane did not ask again (%d chats)", len(g.calls()))
	}
}

func TestAnswerWarnings(t *testing.T) {
	for _, tt := range []struct {
		name   string
		pieces []string
		want   string
	}{
		{"cites nothing", []string{"Nodes talk over topics."}, "⚠ the answer cites no source"},
		{"unknown source", []string{"Nodes talk over topics [Source 9]."}, "⚠ the answer cites [Source 9], which the context does not have"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			m := sized(t, answerOpts(newFakeGen(tt.pieces...)), 120, 40)
			m = ask(t, m, "How do nodes talk?")
			m = feed(t, m, keyRunes("a"))
			if v := screen(m); !strings.Contains(v, tt.want) {
				t.Fatalf("no warning %q:\n%s", tt.want, v)
			}
		})
	}
}

func TestAnswerInsufficientContextSendsNothing(t *testing.T) {
	g := newFakeGen("Bake it at 220 degrees.")
	opts := answerOpts(g)
	opts.Defaults.Threshold = 0.99
	m := sized(t, opts, 120, 40)
	m = ask(t, m, "What temperature for bread?")
	m = feed(t, m, keyRunes("a"))
	v := screen(m)
	if len(g.calls()) != 0 {
		t.Fatal("a chat was sent for an insufficient context")
	}
	if !strings.Contains(v, "Not generated: nothing relevant was retrieved") || !strings.Contains(v, "not sent: the context was insufficient") ||
		!strings.Contains(v, "The textbook does not cover this question") {
		t.Fatalf("the refusal is not shown:\n%s", v)
	}
}

func TestAnswerFromTheSelectionOnly(t *testing.T) {
	g := newFakeGen("DDS is the middleware.")
	m := sized(t, answerOpts(g), 120, 40)
	m = feed(t, m, typeText("What does DDS do?")...)
	m = feed(t, m, ctrl('t'), tea.PasteMsg{Content: "ROS 2 uses DDS as its middleware."}, ctrl('r'))
	m = feed(t, m, keyRunes("a"))
	calls := g.calls()
	if len(calls) != 1 {
		t.Fatalf("%d chats", len(calls))
	}
	p := calls[0]
	if p.Mode != retrieval.ModeSelectedText || p.Instruction != retrieval.InstructionSelectedText || p.Context != "ROS 2 uses DDS as its middleware." {
		t.Fatalf("prompt %+v", p)
	}
	v := screen(m)
	if !strings.Contains(v, "from the selection only") || !strings.Contains(v, "DDS is the middleware.") {
		t.Fatalf("screen:\n%s", v)
	}
	if strings.Contains(v, "cites no source") {
		t.Errorf("a selected-text answer is warned for citing nothing:\n%s", v)
	}
}

// streaming asks with a generator that holds after its first piece; it
// returns the model showing the first piece and the generation number.
func streaming(t *testing.T, g *fakeGen) (Model, int) {
	t.Helper()
	g.hold = make(chan struct{})
	t.Cleanup(func() { close(g.hold) })
	m := sized(t, answerOpts(g), 120, 40)
	m = ask(t, m, "How do nodes talk?")
	m = feed(t, m, keyRunes("a"))
	if !m.answer.Streaming() || !strings.Contains(screen(m), "FIRST") || !strings.Contains(screen(m), "streaming") {
		t.Fatalf("not streaming the first piece:\n%s", screen(m))
	}
	return m, m.answer.Seq
}

func waitCancelled(t *testing.T, g *fakeGen) {
	t.Helper()
	select {
	case <-g.cancelled:
	case <-time.After(5 * time.Second):
		t.Fatal("the generation's context was not cancelled")
	}
}

func TestAnswerCancelledByANewQuestion(t *testing.T) {
	g := newFakeGen("FIRST piece. ", "LATE piece.")
	m, gen := streaming(t, g)
	m = feed(t, m, keyRunes("i"))
	m = ask(t, m, " and services?")
	waitCancelled(t, g)
	if m.answer.Streaming() {
		t.Fatal("still streaming after a new question")
	}
	// The old stream's late piece and its end are dropped.
	m = feed(t, m, answer.DeltaMsg{Gen: gen, Delta: retrieval.Delta{Text: "LATE piece."}}, answer.DoneMsg{Gen: gen, Answer: retrieval.Answer{Text: "LATE"}})
	m = feed(t, m, keyRunes("t"))
	if v := screen(m); strings.Contains(v, "LATE") || !strings.Contains(v, "answer #1: cancelled") || !strings.Contains(v, "answer #2: not asked") {
		t.Fatalf("turns after a cancelled answer:\n%s", v)
	}
}

func TestAnswerCancelledByLeavingThePane(t *testing.T) {
	g := newFakeGen("FIRST piece. ", "LATE piece.")
	m, gen := streaming(t, g)
	m = feed(t, m, keyRunes("c"))
	waitCancelled(t, g)
	m = feed(t, m, answer.DeltaMsg{Gen: gen, Delta: retrieval.Delta{Text: "LATE piece."}})
	if st := m.turns.Turns[0].Answer; st == nil || st.Phase != common.AnswerCancelled || strings.Contains(st.Final.Text, "LATE") || !strings.Contains(st.Final.Text, "FIRST") {
		t.Fatalf("answer state %+v", st)
	}
}

func TestAnswerEscToResultsKeepsStreaming(t *testing.T) {
	g := newFakeGen("FIRST piece. ", "SECOND piece.")
	m, _ := streaming(t, g)
	m = feed(t, m, keyType(tea.KeyEsc))
	if !m.answer.Streaming() {
		t.Fatal("going back to the results (the answer still on show) cancelled it")
	}
}

func TestAnswerTurnCompareShowsBothAnswers(t *testing.T) {
	g := newFakeGen("Topics carry messages [Source 1].")
	m := sized(t, answerOpts(g), 120, 40)
	m = ask(t, m, "How do nodes talk?")
	m = feed(t, m, keyRunes("a"))
	m = feed(t, m, keyRunes("i"))
	m = ask(t, m, " really?")
	m = feed(t, m, keyRunes("a"))
	m = feed(t, m, keyRunes("t"))
	v := screen(m)
	for _, n := range []string{"#2", "#1"} {
		if !strings.Contains(v, "answer "+n+": cites [") {
			t.Errorf("turn compare lacks the answer of %s:\n%s", n, v)
		}
	}
	// Showing the older turn shows its answer.
	m = feed(t, m, keyType(tea.KeyEnter))
	m = feed(t, m, keyType(tea.KeyEsc), keyRunes("a"))
	if v := screen(m); !strings.Contains(v, "turn #1") || !strings.Contains(v, "Topics carry messages") || len(g.calls()) != 2 {
		t.Fatalf("turn #1's answer (%d chats):\n%s", len(g.calls()), v)
	}
}

func TestAnswerWithoutChatModelSaysWhatEnablesOne(t *testing.T) {
	m := sized(t, answerOpts(nil), 120, 40)
	m = ask(t, m, "How do nodes talk?")
	m = feed(t, m, keyRunes("a"))
	v := screen(m)
	if !strings.Contains(v, "No chat model configured") || !strings.Contains(v, "CHAT_KEY_FOR_TESTS") {
		t.Fatalf("screen:\n%s", v)
	}
}

func TestAnswerAfterEveryRetrievalSetting(t *testing.T) {
	g := newFakeGen("Topics [Source 1].")
	m := sized(t, answerOpts(g), 120, 40)
	m = ask(t, m, "How do nodes talk?")
	if len(g.calls()) != 0 {
		t.Fatal("answered with the setting off")
	}
	m = feed(t, m, keyRunes("s"))
	m = toRow(t, m, settings.RowAutoAnswer)
	m = feed(t, m, keyType(tea.KeySpace))
	if !m.answer.Auto || !strings.Contains(screen(m), "[x] answer after every retrieval") {
		t.Fatalf("the setting did not turn on:\n%s", screen(m))
	}
	// A settings change re-runs the question: it is answered, and the
	// settings keep the keyboard.
	m = toRow(t, m, settings.RowTopK)
	m = feed(t, m, keyRunes("l"))
	m = feed(t, m, rerunMsg{Seq: m.rerunSeq})
	if len(g.calls()) != 1 || m.Focus() != "settings" || m.params.TopK != 6 {
		t.Fatalf("after a settings change: %d chats, focus %s, top_k %d", len(g.calls()), m.Focus(), m.params.TopK)
	}
	m = feed(t, m, keyRunes("i"))
	m = ask(t, m, " again")
	if len(g.calls()) != 2 || !strings.Contains(screen(m), "Topics [1].") {
		t.Fatalf("no answer after the retrieval (%d chats):\n%s", len(g.calls()), screen(m))
	}
}

func TestHostileAnswerNeverReachesTheScreen(t *testing.T) {
	g := newFakeGen("Nodes "+evil, " talk"+evil[:3], evil[3:]+" [Source 1].")
	m := sized(t, answerOpts(g), 120, 40)
	m = ask(t, m, "How do nodes talk?")
	m = feed(t, m, keyRunes("a"))
	v := sgr.ReplaceAllString(m.View().Content, "")
	if strings.ContainsAny(v, "\x1b\x07\u009b\u202e") || !strings.Contains(v, "Nodes") {
		t.Fatalf("a control sequence of the answer reached the screen:\n%q", v)
	}
	m = feed(t, m, keyRunes("t"))
	if v := sgr.ReplaceAllString(m.View().Content, ""); strings.ContainsAny(v, "\x1b\x07\u009b\u202e") {
		t.Fatalf("a control sequence of the answer reached the turns:\n%q", v)
	}
}

// TestAnswerGolden snapshots the Answer pane after a streamed answer;
// regenerate with: go test ./ui -run TestAnswerGolden -update
func TestAnswerGolden(t *testing.T) {
	g := newFakeGen("A node is the unit of computation [Source 1]. ", "Nodes exchange messages over topics, ", "and services answer requests [Source 2].")
	opts := answerOpts(g)
	opts.LinkStatus = func(_ context.Context, u string) (common.LinkStatus, error) {
		if strings.Contains(u, "services") {
			return common.LinkStatus{State: common.LinkAnchorMissing}, nil
		}
		return common.LinkStatus{State: common.LinkOK}, nil
	}
	tm := teatest.NewTestModel(t, New(opts), teatest.WithInitialTermSize(120, 40),
		teatest.WithProgramOptions(tea.WithColorProfile(colorprofile.Ascii)))
	tm.Type("How do nodes talk?")
	tm.Send(tea.KeyPressMsg{Code: tea.KeyEnter})
	waitFor(t, tm, "3 results")
	tm.Type("a")
	// The renderer writes only the cells that changed, so the last letter
	// of "tokens" may be skipped when the frame before had it there.
	waitFor(t, tm, "out token")
	time.Sleep(50 * time.Millisecond)
	if err := tm.Quit(); err != nil {
		t.Fatal(err)
	}
	fm := tm.FinalModel(t, teatest.WithFinalTimeout(3*time.Second)).(Model)
	golden.RequireEqual(t, []byte(screen(fm)))
}

// failGen streams one piece, then fails as a chat model that refused the
// key would.
type failGen struct{ fakeGen }

func (f *failGen) Stream(_ context.Context, _ retrieval.Prompt, emit func(retrieval.Delta)) error {
	emit(retrieval.Delta{Text: "Nodes talk"})
	return fmt.Errorf("%w: chat: 401 invalid api key", retrieval.ErrAuth)
}

func TestAnswerFailureKeepsWhatArrived(t *testing.T) {
	m := sized(t, answerOpts(&failGen{}), 120, 40)
	m = ask(t, m, "How do nodes talk?")
	m = feed(t, m, keyRunes("a"))
	v := screen(m)
	if m.answer.Streaming() || !strings.Contains(v, "Nodes talk") || !strings.Contains(v, "✗") || !strings.Contains(v, "401 invalid api key") {
		t.Fatalf("a failed answer:\n%s", v)
	}
	if strings.Contains(v, "⚠") {
		t.Errorf("warnings for a failed answer:\n%s", v)
	}
}

func TestAnswerCancelledByOpeningTheEvalView(t *testing.T) {
	g := newFakeGen("FIRST piece. ", "LATE piece.")
	g.hold = make(chan struct{})
	t.Cleanup(func() { close(g.hold) })
	opts := answerOpts(g)
	opts.Eval = (&fakeEval{rep: fakeReport()}).Run
	m := sized(t, opts, 120, 40)
	m = ask(t, m, "How do nodes talk?")
	m = feed(t, m, keyRunes("a"))
	if !m.answer.Streaming() {
		t.Fatal("not streaming")
	}
	m = feed(t, m, keyRunes("e"))
	waitCancelled(t, g)
	if m.answer.Streaming() || !m.inEval() {
		t.Fatalf("eval view: streaming %v, focus %s", m.answer.Streaming(), m.Focus())
	}
}
