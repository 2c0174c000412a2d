package linkcheck

import (
	"context"
	"errors"
	"time"

	tea "charm.land/bubbletea/v2"

	"ragscope/retrieval"
	"ragscope/ui/common"
)

// Workers bounds concurrent link checks.
const Workers = 4

// Msg is a link check's answer.
type Msg struct {
	// Batch is the result the check was started for; answers for an
	// older result are dropped.
	Batch  int
	URL    string
	Status common.LinkStatus
	Err    error
}

// Pool checks the citation URLs of the result on show, at most
// Workers at a time, and keeps what it learnt. Its states map is
// shared with the panes that draw link states (they only read it).
type Pool struct {
	Checker func(ctx context.Context, url string) (common.LinkStatus, error)
	base    context.Context
	timeout time.Duration

	States map[string]common.LinkStatus
	Queue  []string
	active int
	batch  int
	ctx    context.Context
	cancel context.CancelFunc
}

// New is a pool checking with check under base, each check within
// timeout (0: none); nil check checks nothing.
func New(base context.Context, timeout time.Duration, check func(context.Context, string) (common.LinkStatus, error)) *Pool {
	return &Pool{Checker: check, base: base, timeout: timeout, States: map[string]common.LinkStatus{}}
}

// Check abandons the previous result's pending checks and queues res's
// citation URLs that are not known yet.
func (p *Pool) Check(res retrieval.Result) tea.Cmd {
	if p.Checker == nil {
		return nil
	}
	p.Stop()
	for u, st := range p.States {
		if st.State == "" {
			delete(p.States, u)
		}
	}
	p.Queue, p.active = nil, 0
	p.batch++
	p.ctx, p.cancel = context.WithCancel(p.base)
	add := func(u string) {
		if u == "" {
			return
		}
		if _, ok := p.States[u]; ok {
			return
		}
		p.States[u] = common.LinkStatus{}
		p.Queue = append(p.Queue, u)
	}
	for _, h := range res.Hits {
		add(h.Citation.URL)
	}
	for _, d := range res.Dropped {
		add(d.Citation.URL)
	}
	var cmds []tea.Cmd
	for p.active < Workers && len(p.Queue) > 0 {
		cmds = append(cmds, p.next())
	}
	return tea.Batch(cmds...)
}

func (p *Pool) next() tea.Cmd {
	u := p.Queue[0]
	p.Queue = p.Queue[1:]
	p.active++
	return statusCmd(p.ctx, p.batch, p.timeout, p.Checker, u)
}

// Update records an answer and starts the next check; url is the link
// whose state changed ("" when none did).
func (p *Pool) Update(msg Msg) (url string, cmd tea.Cmd) {
	if msg.Batch != p.batch {
		return "", nil
	}
	p.active = max(p.active-1, 0)
	if _, pending := p.States[msg.URL]; pending {
		switch {
		case msg.Err != nil && errors.Is(msg.Err, context.Canceled):
			delete(p.States, msg.URL)
		case msg.Err != nil:
			p.States[msg.URL] = common.LinkStatus{State: common.LinkUnknown, Detail: msg.Err.Error()}
		default:
			st := msg.Status
			if st.State == "" {
				st.State = common.LinkUnknown
			}
			p.States[msg.URL] = st
		}
		url = msg.URL
	}
	if len(p.Queue) > 0 && p.ctx != nil {
		cmd = p.next()
	}
	return url, cmd
}

// Stop cancels the checks in flight.
func (p *Pool) Stop() {
	if p.cancel != nil {
		p.cancel()
		p.cancel = nil
	}
}

// statusCmd checks one URL under its own timeout.
func statusCmd(ctx context.Context, batch int, timeout time.Duration, check func(context.Context, string) (common.LinkStatus, error), url string) tea.Cmd {
	return func() tea.Msg {
		ctx, cancel := common.WithTimeout(ctx, timeout)
		defer cancel()
		st, err := check(ctx, url)
		return Msg{Batch: batch, URL: url, Status: st, Err: err}
	}
}
