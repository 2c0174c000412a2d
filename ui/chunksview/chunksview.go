package chunksview

import (
	"context"
	"errors"
	"strings"
	"sync/atomic"
	"time"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/viewport"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"ragscope/present"
	"ragscope/retrieval/assess/chunkaudit"
	"ragscope/termsafe"
	"ragscope/ui/common"
)

// AuditFunc audits every chunk of the collection (chunkaudit) for the
// Chunks view; progress hears the chunks read so far and the total (0
// when unknown). It must return ctx's error when ctx ends.
type AuditFunc func(ctx context.Context, progress func(read, total int)) (*chunkaudit.Report, error)

// chunksListMax bounds each list the Chunks view shows; the rest is one
// line pointing at the CLI's JSON.
const listMax = 200

// chunksTick is how often the view redraws its progress while auditing.
const tick = 150 * time.Millisecond

// Msg carries the audit's report (or error) to the Chunks view.
type Msg struct {
	Seq    int
	Report *chunkaudit.Report
	Err    error
}

// TickMsg redraws the audit's progress.
type TickMsg struct{ Seq int }

// Model shows the chunk audit; the report is kept for the session.
type Model struct {
	common.Base
	Vp viewport.Model

	// request is the audit in flight.
	common.Request
	// read and total are the audit's progress, written by its goroutine.
	read, total *atomic.Int64

	report *chunkaudit.Report
	err    error
	// text is the report as the CLI words it, summary first, sanitised.
	Text string
}

// New is the pane with the explorer's keys and styles.
func New(keys *common.KeyMap, st *common.Styles) Model {
	return Model{Base: common.Base{Keys: keys, Styles: st}, Vp: viewport.New(), read: new(atomic.Int64), total: new(atomic.Int64)}
}

// Start begins an audit unless one runs or its report is kept; it
// returns the command that runs it (nil when nothing starts).
func (p *Model) Start(base context.Context, audit AuditFunc) tea.Cmd {
	if p.Loading || p.report != nil {
		return nil
	}
	seq := p.Next()
	p.err = nil
	p.read.Store(0)
	p.total.Store(0)
	ctx, cancel := context.WithCancel(base)
	p.Cancel = cancel
	read, total := p.read, p.total
	run := func() tea.Msg {
		defer cancel()
		rep, err := audit(ctx, func(r, t int) {
			read.Store(int64(r))
			total.Store(int64(t))
		})
		if err == nil && rep == nil {
			err = errors.New("the audit returned no report")
		}
		return Msg{Seq: seq, Report: rep, Err: err}
	}
	return tea.Batch(run, p.Tick())
}

// Tick is the next progress redraw of the running audit.
func (p *Model) Tick() tea.Cmd {
	seq := p.Seq
	return tea.Tick(tick, func(time.Time) tea.Msg { return TickMsg{Seq: seq} })
}

// Stop cancels the audit in flight; the next Start begins again.
func (p *Model) Stop() {
	p.Abort()
	p.Loading = false
}

// SetReport shows the reply to the audit seq; stale replies are dropped.
func (p *Model) SetReport(msg Msg) bool {
	if !p.Settle(msg.Seq) {
		return false
	}
	if msg.Err != nil {
		p.err = msg.Err
		return true
	}
	p.report = msg.Report
	var b strings.Builder
	present.WriteChunkSummary(&b, msg.Report)
	b.WriteString("\n")
	present.WriteChunkSizes(&b, msg.Report)
	present.WriteChunkLists(&b, msg.Report, listMax, "'ragscope chunks --json' for all")
	p.Text = termsafe.Text(strings.TrimRight(b.String(), "\n"))
	p.refresh()
	p.Vp.GotoTop()
	return true
}

// progress says how far the audit is.
func (p *Model) progress() string {
	read, total := int(p.read.Load()), int(p.total.Load())
	if total > 0 {
		return "Auditing " + present.Int(total) + " chunks… " + present.Int(read) + " read"
	}
	return "Auditing the chunks… " + present.Int(read) + " read"
}

// SetSize sets the outer size and re-wraps the report.
func (p *Model) SetSize(w, h int) tea.Cmd {
	if p.Width == w && p.Height == h {
		return nil
	}
	p.Width, p.Height = w, h
	common.FitViewport(&p.Vp, p.Styles.Pane, w, h)
	p.refresh()
	return nil
}

// refresh wraps the report to the pane, section titles styled and
// wrapped rows indented under their start.
func (p *Model) refresh() {
	if p.report == nil {
		return
	}
	w := max(p.Vp.Width(), 10)
	lines := strings.Split(p.Text, "\n")
	for i, l := range lines {
		if l != "" && l[0] != ' ' && strings.HasSuffix(l, ":") {
			lines[i] = p.Styles.Section.Render(common.Truncate(l, w))
			continue
		}
		if ansi.StringWidth(l) > w {
			// A hanging indent keeps a wrapped row readable as one.
			l = strings.ReplaceAll(common.WrapText(l, w-4), "\n", "\n    ")
		}
		lines[i] = l
	}
	common.SetContent(&p.Vp, strings.Join(lines, "\n"), false)
}

// Update scrolls.
func (p *Model) Update(msg tea.Msg) tea.Cmd {
	if km, ok := msg.(tea.KeyPressMsg); ok && p.report != nil {
		common.Scroll(&p.Vp, p.Keys, km)
	}
	return nil
}

// View draws the pane.
func (p *Model) View() string {
	f := p.Frame()
	iw := f.W
	title := "Chunks · chunk audit of the collection"
	if r := p.report; r != nil {
		title = "Chunks · audit of " + present.Int(r.Chunks) + " " + present.Plural(r.Chunks, "chunk", "chunks") + " · " + common.ScrollPercent(&p.Vp)
	}
	var b strings.Builder
	b.WriteString(f.Title(title) + "\n")
	switch {
	case p.Loading:
		b.WriteString(p.Styles.Meta.Render(common.WrapText(p.progress()+" (esc cancels)", iw)))
	case p.err != nil:
		b.WriteString(p.Styles.StatusErr.Render(common.WrapText("Could not audit the chunks: "+common.ErrorText(p.err), iw)))
	case p.report == nil:
		b.WriteString(p.Styles.Meta.Render(common.WrapText("The audit was cancelled.", iw)))
	default:
		b.WriteString(p.Vp.View())
	}
	return f.Box(b.String())
}

// ShortHelp implements pane.
func (p *Model) ShortHelp() []key.Binding {
	k := p.Keys
	if p.Loading {
		return []key.Binding{common.LeaveHelp(k, "cancel audit"), k.QuitQ, k.Help}
	}
	return []key.Binding{k.Down, k.PageDown, k.Top, k.Bottom, common.LeaveHelp(k, "close chunks"), k.QuitQ, k.Help}
}

// FullHelp implements pane: every key of the pane is in the key map.
func (p *Model) FullHelp() [][]key.Binding { return nil }
