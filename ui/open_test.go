package ui

import (
	"context"
	"errors"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"

	"ragscope/retrieval"
	"ragscope/retrieval/assess/eval"
	"ragscope/ui/evalview"
)

// deferredOptions are options whose backend opens only once release is
// closed, then answers with full (or failing).
func deferredOptions(full Options, fail error, release <-chan struct{}) Options {
	return Options{
		Defaults: full.Defaults,
		Open: func(ctx context.Context) (Options, error) {
			select {
			case <-release:
			case <-ctx.Done():
				return Options{}, ctx.Err()
			}
			if fail != nil {
				return Options{}, fail
			}
			return full, nil
		},
	}
}

// openNow runs the model's open command (the backend answers) and feeds
// its reply.
func openNow(t *testing.T, m Model) Model {
	t.Helper()
	if !m.open.pending {
		t.Fatal("the backend is not opening")
	}
	return feed(t, m, runCmd(t, m.openOrSettleCmd())...)
}

// With Options.Open the first frame is drawn before the backend is open,
// with a loading line; a question asked meanwhile waits and then runs
// against the opened backend, whose header, stats and eval take over.
func TestOpenAfterFirstFrame(t *testing.T) {
	f := &fakeRetriever{}
	full, _ := testOptions(f)
	full.Eval = func(context.Context, string, evalview.Settings, func(int, int), func(eval.CaseResult)) (eval.Report, error) {
		return eval.Report{}, nil
	}
	full.EvalDefault = "fake golden set"
	release := make(chan struct{})
	m := sized(t, deferredOptions(full, nil, release), 120, 40)

	v := screen(m)
	if !strings.Contains(v, "ragscope opening the backend…") || !strings.Contains(v, openingStatus) || !strings.Contains(v, "Ask ›") {
		t.Fatalf("first frame while opening:\n%s", v)
	}
	if !m.keys.EvalOff {
		t.Fatal("eval enabled before the backend is open")
	}
	m = ask(t, m, "How do nodes talk?")
	if !m.Running() || len(f.queries) != 0 {
		t.Fatalf("the question did not wait for the backend: running %v, queries %d", m.Running(), len(f.queries))
	}

	close(release)
	m = openNow(t, m)
	if len(f.queries) != 1 || f.last().Question != "How do nodes talk?" || f.last().TopK != 5 {
		t.Fatalf("queries after the open: %+v", f.queries)
	}
	if m.Running() || !strings.Contains(m.Status(), "3 results") {
		t.Fatalf("the held question did not finish: running %v, status %q", m.Running(), m.Status())
	}
	v = screen(m)
	if !strings.Contains(v, "ragscope demo · collection fake-book · fake-embed-v1 · 42 points") {
		t.Fatalf("header after the open and stats:\n%s", v)
	}
	if m.keys.EvalOff || m.eval.DefaultName != "fake golden set" || !strings.Contains(m.eval.Input.Placeholder, "fake golden set") {
		t.Fatalf("eval after the open: off %v, default %q, placeholder %q", m.keys.EvalOff, m.eval.DefaultName, m.eval.Input.Placeholder)
	}
}

// Without a question waiting, the open leaves the ready line (or the
// backend's note) and runs nothing.
func TestOpenShowsReadyOrNote(t *testing.T) {
	for _, note := range []string{"", "Search unavailable: set COHERE_API_KEY."} {
		f := &fakeRetriever{}
		full, _ := testOptions(f)
		full.Note = note
		release := make(chan struct{})
		close(release)
		m := sized(t, deferredOptions(full, nil, release), 120, 40)
		if m.open.pending {
			// sized ran Init, whose open answered at once.
			t.Fatal("the open's reply was not taken")
		}
		want := note
		if want == "" {
			want = readyStatus
		}
		if m.Status() != want || len(f.queries) != 0 {
			t.Fatalf("status %q (want %q), queries %d", m.Status(), want, len(f.queries))
		}
	}
}

// Of two questions asked while opening, only the latest runs.
func TestOpenRunsOnlyTheLatestHeldQuestion(t *testing.T) {
	f := &fakeRetriever{}
	full, _ := testOptions(f)
	release := make(chan struct{})
	m := sized(t, deferredOptions(full, nil, release), 120, 40)
	m = ask(t, m, "first")
	m = feed(t, m, keyRunes("i"), ctrl('u'))
	m = ask(t, m, "second")
	close(release)
	openNow(t, m)
	if len(f.queries) != 1 || f.last().Question != "second" {
		t.Fatalf("queries = %+v", f.queries)
	}
}

// A failed open quits the explorer and keeps the error for Run, which
// returns it once the terminal is restored (its exit code intact).
func TestOpenFailureQuits(t *testing.T) {
	fail := errors.Join(retrieval.ErrUnavailable, errors.New("qdrant at localhost:6334 refused the connection"))
	release := make(chan struct{})
	full, _ := testOptions(&fakeRetriever{})
	m := sized(t, deferredOptions(full, fail, release), 120, 40)
	close(release)
	next, cmd := m.Update(runCmd(t, m.openOrSettleCmd())[0])
	m = next.(Model)
	if msgs := runCmd(t, cmd); len(msgs) != 1 {
		t.Fatalf("no quit after a failed open: %v", msgs)
	} else if _, ok := msgs[0].(tea.QuitMsg); !ok {
		t.Fatalf("after a failed open: %T", msgs[0])
	}
	if !errors.Is(m.open.err, retrieval.ErrUnavailable) {
		t.Fatalf("kept error = %v", m.open.err)
	}
}

// Rerank models and the chat model are opened with the backend: after a
// deferred open, r reranks and a answers, as with options given at start.
func TestOpenBringsRerankAndChat(t *testing.T) {
	full, rs := newRerankOptions(t, orderReranker{name: "order-rr", order: everyMove})
	g := newFakeGen("Topics carry messages [Source 1].")
	full.Generator, full.ChatHint = g, "set CHAT_KEY_FOR_TESTS"
	release := make(chan struct{})
	m := sized(t, deferredOptions(full, nil, release), 120, 40)
	if !m.keys.RerankOff {
		t.Fatal("rerank offered before the backend is open")
	}
	close(release)
	m = openNow(t, m)
	m = ask(t, m, "nodes")
	m = feed(t, m, keyRunes("r"))
	if turns := m.Turns(); len(turns) != 2 || m.results.Res.Rerank == nil {
		t.Fatalf("r after a deferred open: turns %q, reranked %v", turns, m.results.Res.Rerank != nil)
	}
	if got := rs.models(); len(got) != 1 || got[0] != "order-rr" {
		t.Fatalf("rerank retriever opened for %q", got)
	}
	m = feed(t, m, keyRunes("a"))
	if len(g.calls()) != 1 || !strings.Contains(screen(m), "fake-chat-1") {
		t.Fatalf("a after a deferred open: %d chats\n%s", len(g.calls()), screen(m))
	}
}
