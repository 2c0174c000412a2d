package evalview

import (
	"context"
	"errors"
	"strconv"
	"strings"

	tea "charm.land/bubbletea/v2"

	"ragscope/present"
	"ragscope/retrieval"
	"ragscope/retrieval/assess/eval"
	"ragscope/ui/common"
)

// Func runs the golden set at path ("" is the default set) with the
// explorer's settings s, and reports each finished case to onCase, then
// progress to progress; both are never called concurrently. It returns
// the report, or the report so far and ctx's error when ctx ends first.
type Func func(ctx context.Context, path string, s Settings, progress func(done, total int), onCase func(eval.CaseResult)) (eval.Report, error)

// ProgressMsg reports how many cases of run Seq have finished.
type ProgressMsg struct {
	Seq   int
	Done  int
	Total int
}

// CaseMsg carries one finished case of run Seq.
type CaseMsg struct {
	Seq  int
	Case eval.CaseResult
}

// DoneMsg ends run Seq: the report, or an error (with the report so far
// when the run was cancelled).
type DoneMsg struct {
	Seq    int
	Report eval.Report
	Err    error
}

// stream carries a run's progress and cases to Update in order. The run
// closes events after putting its final message in done, so a reader sees
// every event before the end.
type stream struct {
	events chan tea.Msg
	done   chan DoneMsg
}

// streamBuffer lets a run get ahead of the screen without waiting on it.
const streamBuffer = 256

func newStream() *stream {
	return &stream{events: make(chan tea.Msg, streamBuffer), done: make(chan DoneMsg, 1)}
}

// runCmd runs the set at path under ctx, streaming its progress to s. It
// captures everything it needs and never touches a model. When ctx ends
// (cancelled, or replaced by a newer run) it stops sending, so an
// abandoned stream never blocks it.
func runCmd(ctx context.Context, run Func, seq int, path string, set Settings, s *stream) tea.Cmd {
	return func() tea.Msg {
		send := func(msg tea.Msg) {
			select {
			case s.events <- msg:
			case <-ctx.Done():
			}
		}
		rep, err := run(ctx, path, set,
			func(done, total int) { send(ProgressMsg{Seq: seq, Done: done, Total: total}) },
			func(c eval.CaseResult) { send(CaseMsg{Seq: seq, Case: c}) },
		)
		s.done <- DoneMsg{Seq: seq, Report: rep, Err: err}
		close(s.events)
		return nil
	}
}

// listenCmd waits for a run's next message; Update asks again after each
// one until the run is done.
func listenCmd(s *stream) tea.Cmd {
	return func() tea.Msg {
		if msg, ok := <-s.events; ok {
			return msg
		}
		return <-s.done
	}
}

// Runner is the lifecycle of golden-set runs: one at a time, each under
// its own context with the next sequence number; messages of an older run
// are dropped by whoever reads them (Current).
type Runner struct {
	fn      Func
	base    context.Context
	seq     int
	running bool
	cancel  context.CancelFunc
	stream  *stream
}

// NewRunner runs sets with fn (nil: no eval) under base.
func NewRunner(base context.Context, fn Func) Runner { return Runner{fn: fn, base: base} }

// SetFunc sets what runs the sets (the backend arrived).
func (r *Runner) SetFunc(fn Func) { r.fn = fn }

// Start cancels the run in flight and starts the set at path, searched
// with set: run does the work, listen brings its first message.
func (r *Runner) Start(path string, set Settings) (run, listen tea.Cmd) {
	r.Cancel()
	r.seq++
	ctx, cancel := context.WithCancel(r.base)
	r.cancel, r.running, r.stream = cancel, true, newStream()
	return runCmd(ctx, r.fn, r.seq, path, set, r.stream), listenCmd(r.stream)
}

// Cancel stops the run in flight; its last message says how far it got.
func (r *Runner) Cancel() {
	if r.cancel != nil {
		r.cancel()
	}
}

// Running reports whether a run is in flight.
func (r *Runner) Running() bool { return r.running }

// Current reports whether seq is the latest run's.
func (r *Runner) Current(seq int) bool { return seq == r.seq }

// Listen waits for the run's next message.
func (r *Runner) Listen() tea.Cmd { return listenCmd(r.stream) }

// Done ends the run after its last message.
func (r *Runner) Done() {
	r.running, r.stream = false, nil
	if r.cancel != nil {
		r.cancel()
		r.cancel = nil
	}
}

// End shows the end of run msg and returns its status line: kept cases
// and how far a cancelled run got, a failure's message, or the verdict.
func (p *Model) End(msg DoneMsg) (common.StatusKind, string) {
	switch {
	case errors.Is(msg.Err, context.Canceled):
		p.Finish(nil, "")
		return common.StatusInfo, "Eval cancelled after " + strconv.Itoa(len(p.Cases)) + " of " + strconv.Itoa(p.Total) + " cases."
	case msg.Err != nil:
		text := ErrorText(msg.Err)
		p.Finish(nil, text)
		return common.StatusErr, text
	}
	rep := msg.Report
	p.Finish(&rep, "")
	if rep.Passed {
		return PassedStatus(rep)
	}
	return common.StatusErr, "Eval failed: " + strings.Join(rep.Reasons, "; ")
}

// ErrorText is the message for a failed run: classified backend errors
// say what to do; others (a bad file) are shown as they are.
func ErrorText(err error) string {
	for _, class := range []error{retrieval.ErrConfig, retrieval.ErrAuth, retrieval.ErrNotFound, retrieval.ErrUnavailable, context.DeadlineExceeded} {
		if errors.Is(err, class) {
			return "Eval failed: " + common.ErrorText(err)
		}
	}
	return "Eval failed: " + err.Error()
}

// PassedStatus is the status line of a run that passed: unlabelled cases
// neither pass nor fail, so a set of them only did not "pass".
func PassedStatus(rep eval.Report) (common.StatusKind, string) {
	const open = " Enter on a case opens it as a query."
	n := len(rep.Cases)
	u := eval.UnlabelledRan(rep.Cases)
	switch {
	case n > 0 && u == n:
		return common.StatusInfo, "Eval ran " + present.Count(n, "unlabelled case", "unlabelled cases") + ": no labels, so nothing to pass or fail." + open
	case u > 0:
		return common.StatusOK, "Eval passed: " + present.Count(n-u, "labelled case", "labelled cases") + " (" + strconv.Itoa(u) + " unlabelled ran without a check)." + open
	}
	return common.StatusOK, "Eval passed: " + present.Count(n, "case", "cases") + "." + open
}
