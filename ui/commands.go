package ui

import (
	"context"
	"fmt"
	"time"

	tea "charm.land/bubbletea/v2"

	"ragscope/retrieval"
	"ragscope/ui/common"
	"ragscope/ui/history"
)

// resultMsg is the reply of one retrieval; Seq says which.
type resultMsg struct {
	Seq    int
	Query  retrieval.Query
	Result retrieval.Result
	Err    error
}

// statsMsg carries the collection's stats.
type statsMsg struct {
	Stats retrieval.Stats
	Err   error
}

// historyLoadedMsg carries the questions of past sessions.
type historyLoadedMsg struct {
	Entries []string
	Err     error
}

// historySavedMsg reports a failed history write (nil Err is ignored).
type historySavedMsg struct{ Err error }

// openedMsg reports a URL opened in the browser.
type openedMsg struct {
	URL string
	Err error
}

// rerunMsg fires after settings stopped changing for a moment; only the
// latest Seq re-runs the query.
type rerunMsg struct{ Seq int }

// retrieveCmd runs q under ctx. It captures everything it needs: it never
// reads or writes the model from its goroutine.
func retrieveCmd(ctx context.Context, r Retriever, seq int, q retrieval.Query) tea.Cmd {
	return func() tea.Msg {
		res, err := r.Retrieve(ctx, q)
		return resultMsg{Seq: seq, Query: q, Result: res, Err: err}
	}
}

// settleAfter is how long after start Options.Settle runs: after the
// first frame (Bubble Tea writes it on one of its first 60 Hz ticks) and
// before most people's first key.
const settleAfter = 250 * time.Millisecond

// settleCmd runs fn once, settleAfter from now, off the UI goroutine.
func settleCmd(fn func()) tea.Cmd {
	if fn == nil {
		return nil
	}
	return tea.Tick(settleAfter, func(time.Time) tea.Msg {
		fn()
		return nil
	})
}

// statsCmd reads the collection's stats.
func statsCmd(ctx context.Context, timeout time.Duration, stats func(context.Context) (retrieval.Stats, error)) tea.Cmd {
	if stats == nil {
		return nil
	}
	return func() tea.Msg {
		ctx, cancel := common.WithTimeout(ctx, timeout)
		defer cancel()
		st, err := stats(ctx)
		if err != nil {
			err = fmt.Errorf("read collection stats: %w", err)
		}
		return statsMsg{Stats: st, Err: err}
	}
}

// loadHistoryCmd reads past questions.
func loadHistoryCmd(path string, max int) tea.Cmd {
	if path == "" {
		return nil
	}
	return func() tea.Msg {
		entries, err := history.Load(path, max)
		return historyLoadedMsg{Entries: entries, Err: err}
	}
}

// appendHistoryCmd stores a question.
func appendHistoryCmd(path, q string) tea.Cmd {
	if path == "" {
		return nil
	}
	return func() tea.Msg { return historySavedMsg{Err: history.Append(path, q)} }
}

// openURLCmd opens url in the browser.
func openURLCmd(open func(string) error, url string) tea.Cmd {
	return func() tea.Msg { return openedMsg{URL: url, Err: open(url)} }
}

// rerunCmd waits d and asks for a re-run with seq (a debounce: holding an
// arrow key in the settings runs one query, not twenty).
func rerunCmd(d time.Duration, seq int) tea.Cmd {
	return tea.Tick(d, func(time.Time) tea.Msg { return rerunMsg{Seq: seq} })
}
