package evalview

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"ragscope/retrieval"
	"ragscope/retrieval/assess/eval"
	"ragscope/ui/common"
)

// A run that passed counts only its labelled cases as passed.
func TestPassedStatusCountsLabelledCases(t *testing.T) {
	cases := []eval.CaseResult{
		{ID: "a", Kind: eval.KindRanking, Status: eval.StatusPass},
		{ID: "u", Kind: eval.KindUnlabelled, Status: eval.StatusPass},
		{ID: "v", Kind: eval.KindUnlabelled, Status: eval.StatusPass},
	}
	for _, tt := range []struct {
		cases []eval.CaseResult
		kind  common.StatusKind
		want  string
	}{
		{cases, common.StatusOK, "Eval passed: 1 labelled case (2 unlabelled ran without a check)."},
		{cases[1:], common.StatusInfo, "Eval ran 2 unlabelled cases: no labels, so nothing to pass or fail."},
		{cases[:1], common.StatusOK, "Eval passed: 1 case."},
	} {
		kind, text := PassedStatus(eval.Report{Cases: tt.cases, Passed: true})
		if kind != tt.kind || !strings.HasPrefix(text, tt.want) {
			t.Errorf("got %v %q, want %v %q", kind, text, tt.kind, tt.want)
		}
	}
}

// A classified backend error says what to do; another is shown as it is.
func TestErrorText(t *testing.T) {
	if got := ErrorText(errors.New("open set.yaml: no such file")); got != "Eval failed: open set.yaml: no such file" {
		t.Errorf("plain error: %q", got)
	}
	classified := fmt.Errorf("search: %w", retrieval.ErrAuth)
	if got, want := ErrorText(classified), "Eval failed: "+common.ErrorText(classified); got != want {
		t.Errorf("classified error: %q, want %q", got, want)
	}
}

// next reads one message of listen, failing after a while.
func next(t *testing.T, listen tea.Cmd) tea.Msg {
	t.Helper()
	ch := make(chan tea.Msg, 1)
	go func() { ch <- listen() }()
	select {
	case msg := <-ch:
		return msg
	case <-time.After(3 * time.Second):
		t.Fatal("no run message")
	}
	return nil
}

// A run's progress and cases arrive in order, before its end; a second
// Start cancels the first, whose end carries its own sequence number.
func TestRunnerStreamsInOrderAndCancels(t *testing.T) {
	release := make(chan struct{})
	fn := func(ctx context.Context, path string, s Settings, progress func(int, int), onCase func(eval.CaseResult)) (eval.Report, error) {
		onCase(eval.CaseResult{ID: path + "-1"})
		progress(1, 2)
		select {
		case <-release:
			return eval.Report{Passed: true}, nil
		case <-ctx.Done():
			return eval.Report{}, ctx.Err()
		}
	}
	r := NewRunner(context.Background(), fn)
	run, listen := r.Start("a", Settings{})
	go run()
	if msg, ok := next(t, listen).(CaseMsg); !ok || msg.Seq != 1 || msg.Case.ID != "a-1" {
		t.Fatalf("first message: %#v", msg)
	}
	if msg, ok := next(t, listen).(ProgressMsg); !ok || msg.Done != 1 || msg.Total != 2 {
		t.Fatalf("second message: %#v", msg)
	}
	if !r.Running() || !r.Current(1) {
		t.Fatalf("running %v, current(1) %v", r.Running(), r.Current(1))
	}
	run2, listen2 := r.Start("b", Settings{})
	if done, ok := next(t, listen).(DoneMsg); !ok || done.Seq != 1 || !errors.Is(done.Err, context.Canceled) {
		t.Fatalf("the first run's end: %#v", done)
	}
	if r.Current(1) || !r.Current(2) {
		t.Fatal("the second run is not the current one")
	}
	go run2()
	next(t, listen2)
	next(t, listen2)
	close(release)
	if done, ok := next(t, r.Listen()).(DoneMsg); !ok || done.Seq != 2 || done.Err != nil || !done.Report.Passed {
		t.Fatalf("the second run's end: %#v", done)
	}
	r.Done()
	if r.Running() {
		t.Fatal("still running after Done")
	}
}
