package eval

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"

	"ragscope/retrieval"
)

// scriptGen answers each question with a fixed text, its [Source N]
// markers parsed as the OpenAI provider does; it counts calls and the
// most in flight.
type scriptGen struct {
	answers          map[string]string
	calls, in, peak  atomic.Int32
	failFor          string
	sawSelectionOnly atomic.Bool
}

func (g *scriptGen) Stream(ctx context.Context, p retrieval.Prompt, emit func(retrieval.Delta)) error {
	g.calls.Add(1)
	n := g.in.Add(1)
	defer g.in.Add(-1)
	for {
		peak := g.peak.Load()
		if n <= peak || g.peak.CompareAndSwap(peak, n) {
			break
		}
	}
	if p.Question == g.failFor {
		return errors.New("model unavailable")
	}
	if p.Instruction == retrieval.InstructionSelectedText && len(p.Sources) == 1 {
		g.sawSelectionOnly.Store(true)
	}
	text := g.answers[p.Question]
	mp := retrieval.NewMarkerParser()
	for _, w := range strings.SplitAfter(text, " ") {
		emit(retrieval.Delta{Text: w, Citations: mp.Feed(w)})
	}
	return nil
}
func (g *scriptGen) Model() string    { return "script" }
func (g *scriptGen) Provider() string { return "test" }

func TestRunWithAnswers(t *testing.T) {
	set, err := Parse([]byte(`cases:
  - id: cites-relevant
    question: q1
    expect: {doc_paths: [`+qosDoc+`], answer_keywords: [QoS]}
  - id: cites-irrelevant
    question: q2
    expect: {doc_paths: [`+qosDoc+`]}
  - id: made-up-source
    question: q3
    expect: {keywords: [node]}
  - id: off-topic-selection
    mode: selected_text_only
    question: What is the capital of France?
    selected_text: ROS 2 nodes talk over topics.
    expect: {refuse: true}
  - id: declines
    mode: selected_text_only
    question: What about Paris?
    selected_text: ROS 2 nodes talk over topics.
    expected_refuse: true
  - id: nothing-retrieved
    question: q4
    expect: {no_answer: true, refuse: true}
`), "answers.yaml")
	if err != nil {
		t.Fatal(err)
	}
	w := newWorld()
	w.add("q1", chunk("a", qosDoc, "QoS", "QoS profiles set reliability.", 0.9), chunk("b", nodeDoc, "Nodes", "A node is a process.", 0.5))
	w.add("q2", chunk("c", nodeDoc, "Nodes", "A node is a process.", 0.9), chunk("d", qosDoc, "QoS", "QoS profiles.", 0.5))
	w.add("q3", chunk("e", nodeDoc, "Nodes", "A node is a process.", 0.9))
	g := &scriptGen{answers: map[string]string{
		"q1":                             "QoS sets reliability [Source 1].",
		"q2":                             "A node is a process [Source 1].",
		"q3":                             "A node is a process [Source 4].",
		"What is the capital of France?": "Paris is the capital of France.",
		"What about Paris?":              "The selected text does not mention Paris.",
	}}
	rep := run(t, w, set, Options{Generator: g, AnswerConcurrency: 2})
	want := map[string]struct {
		status Status
		check  string
	}{
		"cites-relevant":      {StatusPass, "pass"},
		"cites-irrelevant":    {StatusPass, "pass"},
		"made-up-source":      {StatusFail, "fail: the answer cites [Source 4], which was not retrieved"},
		"off-topic-selection": {StatusFail, "fail: expected a refusal, but the model answered"},
		"declines":            {StatusPass, "pass"},
		"nothing-retrieved":   {StatusPass, "pass"},
	}
	for _, c := range rep.Cases {
		if w := want[c.ID]; c.Status != w.status || c.AnswerCheck != w.check || c.Answer == nil {
			t.Errorf("%s: %s %q %+v, want %s %q", c.ID, c.Status, c.AnswerCheck, c.Answer, w.status, w.check)
		}
	}
	byID := map[string]CaseResult{}
	for _, c := range rep.Cases {
		byID[c.ID] = c
	}
	if a := byID["nothing-retrieved"].Answer; !a.Refused || !a.Declined {
		t.Errorf("nothing retrieved: %+v", a)
	}
	if a := byID["cites-relevant"].Answer; a.CitesRelevant == nil || !*a.CitesRelevant {
		t.Errorf("cites-relevant: %+v", a)
	}
	if a := byID["cites-irrelevant"].Answer; a.CitesRelevant == nil || *a.CitesRelevant {
		t.Errorf("cites-irrelevant: %+v", a)
	}
	s := rep.Summary
	if s.Answers != 6 || s.AnswerChecksFailed != 2 || s.AnswerChecksNotRun != 0 || s.CitationCoverage == nil || *s.CitationCoverage != 0.5 {
		t.Errorf("summary answers %d failed %d not run %d coverage %v", s.Answers, s.AnswerChecksFailed, s.AnswerChecksNotRun, s.CitationCoverage)
	}
	if rep.Passed || g.calls.Load() != 5 || g.peak.Load() > 2 || !g.sawSelectionOnly.Load() {
		t.Errorf("passed %v, %d calls (the refusal sends none), peak %d", rep.Passed, g.calls.Load(), g.peak.Load())
	}
	// Without a generator the same checks are reported as not run.
	rep = run(t, w, set, Options{})
	if rep.Summary.AnswerChecksNotRun != 4 || rep.Summary.Answers != 0 || rep.Cases[0].Answer != nil {
		t.Errorf("no generator: %+v", rep.Summary)
	}
}

func TestRunAnswerErrorIsCaseError(t *testing.T) {
	set, err := Parse([]byte("cases:\n  - id: a\n    question: q1\n    expect: {doc_paths: ["+qosDoc+"]}\n"), "e.yaml")
	if err != nil {
		t.Fatal(err)
	}
	w := newWorld()
	w.add("q1", chunk("a", qosDoc, "QoS", "QoS.", 0.9))
	rep := run(t, w, set, Options{Generator: &scriptGen{failFor: "q1"}})
	c := rep.Cases[0]
	if c.Status != StatusError || c.AnswerCheck != "error" || !strings.Contains(c.Answer.Error, "model unavailable") || rep.Passed {
		t.Errorf("%+v", c)
	}
}

// downGen fails every answer as an unreachable chat model does.
type downGen struct{}

func (downGen) Stream(context.Context, retrieval.Prompt, func(retrieval.Delta)) error {
	return fmt.Errorf("%w: cannot reach the chat server", retrieval.ErrUnavailable)
}
func (downGen) Model() string    { return "down" }
func (downGen) Provider() string { return "test" }

func TestRunAnswerOutage(t *testing.T) {
	set, err := Parse([]byte("cases:\n  - id: a\n    question: q1\n    expect: {doc_paths: ["+qosDoc+"]}\n  - id: b\n    question: q2\n    expect: {no_answer: true}\n"), "o.yaml")
	if err != nil {
		t.Fatal(err)
	}
	w := newWorld()
	w.add("q1", chunk("a", qosDoc, "QoS", "QoS.", 0.9))
	rep, err := Run(context.Background(), w.pipeline(), set, Options{Generator: downGen{}})
	var out *OutageError
	if !errors.As(err, &out) || out.Cases != 1 || !errors.Is(err, retrieval.ErrUnavailable) || rep.Cases[1].Status != StatusPass {
		t.Errorf("%v %+v", err, rep.Cases)
	}
}
