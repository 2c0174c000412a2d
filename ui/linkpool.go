package ui

import (
	"context"
	"errors"
	"time"

	tea "charm.land/bubbletea/v2"

	"ragscope/retrieval"
	"ragscope/ui/common"
)

// linkWorkers bounds concurrent link checks.
const linkWorkers = 4

// linkStatusMsg is a link check's answer.
type linkStatusMsg struct {
	// Batch is the result the check was started for; answers for an
	// older result are dropped.
	Batch  int
	URL    string
	Status common.LinkStatus
	Err    error
}

// linkPool checks the citation URLs of the result on show, at most
// linkWorkers at a time, and keeps what it learnt. Its states map is
// shared with the panes that draw link states (they only read it).
type linkPool struct {
	check   func(ctx context.Context, url string) (common.LinkStatus, error)
	base    context.Context
	timeout time.Duration

	states map[string]common.LinkStatus
	queue  []string
	active int
	batch  int
	ctx    context.Context
	cancel context.CancelFunc
}

func newLinkPool(base context.Context, timeout time.Duration, check func(context.Context, string) (common.LinkStatus, error)) *linkPool {
	return &linkPool{check: check, base: base, timeout: timeout, states: map[string]common.LinkStatus{}}
}

// Check abandons the previous result's pending checks and queues res's
// citation URLs that are not known yet.
func (p *linkPool) Check(res retrieval.Result) tea.Cmd {
	if p.check == nil {
		return nil
	}
	p.Stop()
	for u, st := range p.states {
		if st.State == "" {
			delete(p.states, u)
		}
	}
	p.queue, p.active = nil, 0
	p.batch++
	p.ctx, p.cancel = context.WithCancel(p.base)
	add := func(u string) {
		if u == "" {
			return
		}
		if _, ok := p.states[u]; ok {
			return
		}
		p.states[u] = common.LinkStatus{}
		p.queue = append(p.queue, u)
	}
	for _, h := range res.Hits {
		add(h.Citation.URL)
	}
	for _, d := range res.Dropped {
		add(d.Citation.URL)
	}
	var cmds []tea.Cmd
	for p.active < linkWorkers && len(p.queue) > 0 {
		cmds = append(cmds, p.next())
	}
	return tea.Batch(cmds...)
}

func (p *linkPool) next() tea.Cmd {
	u := p.queue[0]
	p.queue = p.queue[1:]
	p.active++
	return linkStatusCmd(p.ctx, p.batch, p.timeout, p.check, u)
}

// Update records an answer and starts the next check; url is the link
// whose state changed ("" when none did).
func (p *linkPool) Update(msg linkStatusMsg) (url string, cmd tea.Cmd) {
	if msg.Batch != p.batch {
		return "", nil
	}
	p.active = max(p.active-1, 0)
	if _, pending := p.states[msg.URL]; pending {
		switch {
		case msg.Err != nil && errors.Is(msg.Err, context.Canceled):
			delete(p.states, msg.URL)
		case msg.Err != nil:
			p.states[msg.URL] = common.LinkStatus{State: common.LinkUnknown, Detail: msg.Err.Error()}
		default:
			st := msg.Status
			if st.State == "" {
				st.State = common.LinkUnknown
			}
			p.states[msg.URL] = st
		}
		url = msg.URL
	}
	if len(p.queue) > 0 && p.ctx != nil {
		cmd = p.next()
	}
	return url, cmd
}

// Stop cancels the checks in flight.
func (p *linkPool) Stop() {
	if p.cancel != nil {
		p.cancel()
		p.cancel = nil
	}
}

// linkStatusCmd checks one URL under its own timeout.
func linkStatusCmd(ctx context.Context, batch int, timeout time.Duration, check func(context.Context, string) (common.LinkStatus, error), url string) tea.Cmd {
	return func() tea.Msg {
		ctx, cancel := common.WithTimeout(ctx, timeout)
		defer cancel()
		st, err := check(ctx, url)
		return linkStatusMsg{Batch: batch, URL: url, Status: st, Err: err}
	}
}
