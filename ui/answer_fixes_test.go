package ui

import (
	"context"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"ragscope/retrieval"
	"ragscope/ui/common"
)

// citedLines are the answer pane's lines under "Cited", as plain text.
func citedLines(m Model) []string {
	var out []string
	in := false
	for _, l := range m.answer.Lines {
		l = ansi.Strip(l)
		switch {
		case strings.TrimSpace(l) == "Cited":
			in = true
		case in && strings.TrimSpace(l) == "":
			return out
		case in:
			out = append(out, l)
		}
	}
	return out
}

// The Answer pane's "Cited" lines keep the URL's #anchor when the line is
// too narrow, as the results list does (issue 25, point 12).
func TestAnswerCitedKeepsAnchor(t *testing.T) {
	g := newFakeGen("Nodes exchange messages [Source 1]. ", "Services answer requests [Source 2].")
	opts := answerOpts(g)
	opts.LinkStatus = func(context.Context, string) (common.LinkStatus, error) {
		return common.LinkStatus{State: common.LinkOK}, nil
	}
	for _, w := range []int{80, 100, 120} {
		m := sized(t, opts, w, 30)
		m = ask(t, m, "How do nodes talk?")
		m = feed(t, m, keyRunes("a"))
		lines := citedLines(m)
		if len(lines) == 0 {
			t.Fatalf("%d: no Cited lines in %q", w, m.answer.Lines)
		}
		for _, l := range lines {
			if !strings.HasSuffix(strings.TrimRight(l, " "), "#overview") {
				t.Errorf("%d columns: the cited URL lost its anchor: %q", w, l)
			}
			if !strings.Contains(l, "✓ link ok") {
				t.Errorf("%d columns: the link state was cut: %q", w, l)
			}
		}
	}
}

// noUsageGen streams an answer from a server that reports no token use.
type noUsageGen struct{ fakeGen }

func (g *noUsageGen) Stream(_ context.Context, _ retrieval.Prompt, emit func(retrieval.Delta)) error {
	emit(retrieval.Delta{Text: "A node computes [Source 1]."})
	emit(retrieval.Delta{FinishReason: "stop"})
	return nil
}

// A server that reports no usage is not shown as "0 in + 0 out tokens"
// (issue 25, point 12).
func TestAnswerUsageNotReported(t *testing.T) {
	m := sized(t, answerOpts(&noUsageGen{}), 120, 40)
	m = ask(t, m, "How do nodes talk?")
	m = feed(t, m, keyRunes("a"))
	v := screen(m)
	if !strings.Contains(v, "fakeai fake-chat-1 · usage not reported") || strings.Contains(v, "0 in + 0 out") {
		t.Fatalf("usage line:\n%s", v)
	}
}
