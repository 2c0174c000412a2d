package ui

import (
	"context"
	"errors"
	"strconv"
	"strings"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/spinner"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"ragscope/present"
	"ragscope/retrieval"
	"ragscope/termsafe"
	"ragscope/ui/common"
)

// answerDeltaMsg is one streamed piece of the generation Gen.
type answerDeltaMsg struct {
	Gen    int
	Delta  retrieval.Delta
	stream *answerStream
}

// answerDoneMsg ends the generation Gen.
type answerDoneMsg struct {
	Gen    int
	Answer retrieval.Answer
	Err    error
}

// answerStream carries a generation's pieces from its goroutine to
// Update, in order; done holds the outcome once pieces is closed.
type answerStream struct {
	pieces chan answerDeltaMsg
	done   chan answerDoneMsg
}

// answerBuffer is how many pieces may wait for Update.
const answerBuffer = 256

// generateCmd starts a generation of res with g under ctx and returns the
// command that delivers its first message. The goroutine captures only
// its arguments; once ctx ends it sends nothing more.
func generateCmd(ctx context.Context, g retrieval.Generator, res retrieval.Result, gen int) tea.Cmd {
	s := &answerStream{pieces: make(chan answerDeltaMsg, answerBuffer), done: make(chan answerDoneMsg, 1)}
	go func() {
		a, err := retrieval.Generate(ctx, g, res, func(d retrieval.Delta) {
			select {
			case s.pieces <- answerDeltaMsg{Gen: gen, Delta: d, stream: s}:
			case <-ctx.Done():
			}
		})
		s.done <- answerDoneMsg{Gen: gen, Answer: a, Err: err}
		close(s.pieces)
	}()
	return s.next
}

// next waits for the stream's next message.
func (s *answerStream) next() tea.Msg {
	if m, ok := <-s.pieces; ok {
		return m
	}
	return <-s.done
}

// answerPane shows the answer of the turn on show: streamed with a
// spinner, citations as result ranks, the cited hits with their link
// states, the uncited ones, warnings, the model and its token use.
// Nothing is generated until asked (the Answer key, or the setting that
// answers after every retrieval).
type answerPane struct {
	common.Base
	links map[string]common.LinkStatus

	base context.Context
	gen  retrieval.Generator
	// hint says which settings enable a chat model (shown when gen is nil).
	hint string
	// auto answers after every retrieval.
	auto bool
	spin spinner.Model

	// seq numbers generations; a message of another number is stale.
	seq    int
	cancel context.CancelFunc
	live   *common.AnswerState

	// The turn on show.
	shown *common.AnswerState
	res   retrieval.Result
	turnN int
	has   bool

	// lines is the drawn body; offset its first visible line; follow
	// keeps the newest text in view while it streams.
	lines  []string
	offset int
	follow bool
	// wraps caches wrapped paragraphs for wrapW: a streamed piece
	// re-wraps only the paragraph it continues.
	wraps map[string]wrapped
	wrapW int
	// tail is the last paragraph wrapped as the last one, and tailWrap its
	// lines: the next piece usually continues it.
	tail     string
	tailWrap wrapped
}

func newAnswerPane(ctx context.Context, keys *common.KeyMap, st *common.Styles, links map[string]common.LinkStatus, g retrieval.Generator, hint string) answerPane {
	return answerPane{
		Base: common.Base{Keys: keys, Styles: st}, links: links, base: ctx, gen: g, hint: hint,
		spin: spinner.New(spinner.WithSpinner(spinner.Dot)), follow: true, wraps: map[string]wrapped{},
	}
}

// SetSize sets the outer size and re-wraps.
func (p *answerPane) SetSize(w, h int) tea.Cmd {
	if p.Width == w && p.Height == h {
		return nil
	}
	p.Width, p.Height = w, h
	p.refresh()
	return nil
}

// Show makes t the turn on show.
func (p *answerPane) Show(t *common.Turn) {
	p.shown, p.res, p.turnN, p.has = t.Answer, t.Result, t.N, true
	p.offset, p.follow = 0, true
	p.refresh()
}

// Start asks the chat model to answer t (the turn on show), cancelling a
// generation in flight. With insufficient context nothing is sent and the
// refusal is the answer; without a chat model the pane says what enables
// one.
func (p *answerPane) Start(t *common.Turn) tea.Cmd {
	p.Cancel()
	res := t.Result
	st := &common.AnswerState{Sufficient: res.Grounded.Sufficient}
	switch {
	case !res.Grounded.Sufficient:
		// Generate sends nothing for an insufficient context.
		st.Final, _ = retrieval.Generate(p.base, nil, res, nil)
		st.Phase = common.AnswerDone
	case p.gen == nil:
		p.Show(t)
		return nil
	default:
		st.Phase = common.AnswerStreaming
		st.Builder = retrieval.NewAnswerBuilder(retrieval.NewPrompt(res))
		st.Provider, st.Model = p.gen.Provider(), p.gen.Model()
	}
	t.Answer = st
	p.Show(t)
	if st.Phase != common.AnswerStreaming {
		return nil
	}
	p.seq++
	ctx, cancel := context.WithCancel(p.base)
	p.cancel, p.live = cancel, st
	return tea.Batch(generateCmd(ctx, p.gen, res, p.seq), p.spin.Tick)
}

// Streaming reports whether a generation is in flight.
func (p *answerPane) Streaming() bool { return p.live != nil }

// Cancel stops the generation in flight: its context is cancelled and
// its later pieces are dropped; the turn keeps what had arrived.
func (p *answerPane) Cancel() {
	if p.live == nil {
		return
	}
	p.cancel()
	p.seq++
	st := p.live
	st.Final = st.Answer()
	st.Phase, st.Builder = common.AnswerCancelled, nil
	p.live, p.cancel = nil, nil
	if st == p.shown {
		p.refresh()
	}
}

// Update takes the stream's messages, spinner ticks and scroll keys.
func (p *answerPane) Update(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case answerDeltaMsg:
		if msg.Gen != p.seq || p.live == nil {
			return nil
		}
		p.live.Builder.Add(msg.Delta)
		if p.live == p.shown {
			p.refresh()
		}
		return msg.stream.next
	case answerDoneMsg:
		if msg.Gen != p.seq || p.live == nil {
			return nil
		}
		st := p.live
		p.cancel()
		p.live, p.cancel = nil, nil
		st.Final, st.Builder, st.Phase = msg.Answer, nil, common.AnswerDone
		if msg.Err != nil {
			st.Err, st.Phase = msg.Err, common.AnswerFailed
			if errors.Is(msg.Err, context.Canceled) {
				st.Phase = common.AnswerCancelled
			}
		}
		if st == p.shown {
			p.refresh()
		}
		return nil
	case spinner.TickMsg:
		if p.live == nil {
			return nil
		}
		var cmd tea.Cmd
		p.spin, cmd = p.spin.Update(msg)
		return cmd
	case tea.KeyPressMsg:
		p.scroll(msg)
	}
	return nil
}

// bodyHeight is the number of body lines that fit under the two heading
// lines.
func (p *answerPane) bodyHeight() int {
	_, ih := common.InnerSize(p.Styles.Pane, p.Width, p.Height)
	return max(ih-2, 1)
}

func (p *answerPane) scroll(km tea.KeyPressMsg) {
	h := p.bodyHeight()
	last := max(len(p.lines)-h, 0)
	k := p.Keys
	switch {
	case key.Matches(km, k.Up):
		p.offset--
	case key.Matches(km, k.Down):
		p.offset++
	case key.Matches(km, k.PageUp):
		p.offset -= h
	case key.Matches(km, k.PageDown):
		p.offset += h
	case key.Matches(km, k.Top):
		p.offset = 0
	case key.Matches(km, k.Bottom):
		p.offset = last
	default:
		return
	}
	p.offset = min(max(p.offset, 0), last)
	p.follow = p.offset == last
}

// refresh rebuilds the body lines of the turn on show.
func (p *answerPane) refresh() {
	iw, _ := common.InnerSize(p.Styles.Pane, p.Width, p.Height)
	w := max(iw, 10)
	if w != p.wrapW {
		p.wraps, p.wrapW = map[string]wrapped{}, w
		p.tail, p.tailWrap = "", wrapped{}
	}
	p.lines = p.lines[:0]
	st := p.shown
	switch {
	case !p.has:
		p.addWrapped(p.Styles.Meta, "Ask a question first. Then "+p.Keys.Answer.Help().Key+" answers it from exactly the grounded context the context pane shows; it costs tokens, so nothing is sent until you ask. The setting 'answer' (s) answers after every retrieval.")
	case st == nil && p.gen == nil && p.res.Grounded.Sufficient:
		p.addWrapped(p.Styles.LinkWarn, "No chat model configured, so no answer can be generated.")
		p.lines = append(p.lines, "")
		p.addWrapped(p.Styles.Meta, p.hint)
	case st == nil:
		p.addWrapped(p.Styles.Meta, "Not answered yet. Press "+p.Keys.Answer.Help().Key+" to answer "+strconv.Quote(termsafe.Line(p.res.Question))+
			" from its "+present.Count(len(p.res.Grounded.Sources), "source", "sources")+" (it costs tokens).")
	default:
		p.addAnswer(st, w)
	}
	if h := p.bodyHeight(); p.follow {
		p.offset = max(len(p.lines)-h, 0)
	} else {
		p.offset = min(p.offset, max(len(p.lines)-h, 0))
	}
}

// addWrapped adds text wrapped to the pane in style.
func (p *answerPane) addWrapped(style interface{ Render(...string) string }, text string) {
	for _, l := range strings.Split(common.WrapText(text, p.wrapW), "\n") {
		p.lines = append(p.lines, style.Render(l))
	}
}

// addAnswer adds the answer's text, with citations as result ranks, then
// the cited hits with their link states, the uncited ones and warnings.
func (p *answerPane) addAnswer(st *common.AnswerState, w int) {
	a := st.Answer()
	if a.Refused {
		p.addWrapped(p.Styles.LinkWarn, "Not generated: nothing relevant was retrieved, so nothing was sent. The refusal:")
		p.lines = append(p.lines, "")
		p.addWrapped(p.Styles.Value, a.Text)
		return
	}
	text := termsafe.Text(a.Annotated())
	fresh := make(map[string]wrapped, len(p.wraps))
	paras := strings.Split(text, "\n")
	for i, para := range paras {
		wp, ok := p.wraps[para]
		switch {
		case ok:
		case i == len(paras)-1:
			// The paragraph being streamed: most pieces continue it.
			wp = extend(p.tail, p.tailWrap, para, w)
			p.tail, p.tailWrap = para, wp
		default:
			wp = wrapPara(para, w)
		}
		fresh[para] = wp
		p.lines = append(p.lines, wp.lines...)
	}
	p.wraps = fresh
	switch st.Phase {
	case common.AnswerStreaming:
		return
	case common.AnswerCancelled:
		p.lines = append(p.lines, "", p.Styles.LinkWarn.Render("Cancelled: "+p.Keys.Answer.Help().Key+" asks again."))
	case common.AnswerFailed:
		p.lines = append(p.lines, "")
		p.addWrapped(p.Styles.StatusErr, "✗ "+common.ErrorText(st.Err))
	case common.AnswerDone:
		p.addFaith(st)
	}
	byRank := make(map[int]*retrieval.Hit, len(p.res.Hits))
	for i := range p.res.Hits {
		byRank[p.res.Hits[i].Rank] = &p.res.Hits[i]
	}
	r := &p.Styles.Rows
	if len(a.Cited) > 0 {
		p.lines = append(p.lines, "", p.Styles.Section.Render("Cited"))
		for _, rank := range a.Cited {
			h := byRank[rank]
			if h == nil {
				continue
			}
			head := " " + r.Highlight.Paint("["+strconv.Itoa(rank)+"]") + " "
			title := present.Title(&h.Chunk)
			u := h.Citation.URL
			if u == "" {
				p.lines = append(p.lines, common.Truncate(head+title+" "+p.Styles.Missing.Render("(no citation URL)"), w))
				continue
			}
			mid := " · "
			if ls, ok := p.links[u]; ok {
				label := "checking…"
				if ls.State != "" {
					label = common.LinkLabel(ls)
				}
				mid += r.Link(ls.State).Paint(label) + " "
			}
			// The URL keeps its end (the page and #anchor), as in the
			// results list: it gets the room left by the title, and at
			// least half the line, the title giving way.
			fixed := ansi.StringWidth(head) + ansi.StringWidth(mid)
			uw := ansi.StringWidth(present.URL(u))
			url := present.FitURL(u, min(uw, max(w-fixed-ansi.StringWidth(title), w/2)))
			title = common.Truncate(title, max(w-fixed-ansi.StringWidth(url), 1))
			p.lines = append(p.lines, common.Truncate(head+title+mid+r.URL.Paint(url), w))
		}
	}
	if len(a.Uncited) > 0 {
		parts := make([]string, 0, len(a.Uncited))
		for _, rank := range a.Uncited {
			if h := byRank[rank]; h != nil {
				parts = append(parts, "["+strconv.Itoa(rank)+"] "+present.Title(&h.Chunk))
			}
		}
		p.lines = append(p.lines, "")
		p.addWrapped(p.Styles.Meta, "Not cited: "+strings.Join(parts, " · "))
	}
	if warns := a.Warnings(st.Sufficient); len(warns) > 0 && st.Phase == common.AnswerDone {
		p.lines = append(p.lines, "")
		for _, warn := range warns {
			p.addWrapped(p.Styles.LinkWarn, "⚠ "+warn)
		}
	}
}

// heading is the pane's second line: the model and its token use, or
// what is happening.
func (p *answerPane) heading() string {
	st := p.shown
	switch {
	case st == nil:
		if p.gen == nil {
			return "no chat model"
		}
		return termsafe.Line(p.gen.Provider() + " " + p.gen.Model())
	case st.Phase == common.AnswerDone && st.Final.Refused:
		return "not sent: the context was insufficient"
	}
	a := st.Answer()
	s := termsafe.Line(st.Provider + " " + st.Model)
	if st.Phase == common.AnswerStreaming {
		return p.spin.View() + " " + s + " · streaming · " + present.Count(len(strings.Fields(a.Text)), "word", "words")
	}
	return s + " · " + usageText(a.Usage)
}

// usageText is an answer's token use, or "usage not reported" when the
// server reported none (a real request is never 0 tokens in).
func usageText(u retrieval.Usage) string {
	if u == (retrieval.Usage{}) {
		return "usage not reported"
	}
	return present.Int(u.InputTokens) + " in + " + present.Int(u.OutputTokens) + " out tokens"
}

// View draws the pane.
func (p *answerPane) View() string {
	style, tstyle := p.Styles.Frame(p.Focused)
	iw, _ := common.InnerSize(style, p.Width, p.Height)
	title := "Answer"
	if p.has {
		title += " · turn #" + strconv.Itoa(p.turnN)
		if p.res.Mode == retrieval.ModeSelectedText {
			title += " · from the selection only"
		}
	}
	var b strings.Builder
	b.WriteString(tstyle.Render(common.Truncate(title, iw)) + "\n")
	b.WriteString(p.Styles.Meta.Render(common.Truncate(p.heading(), iw)))
	end := min(p.offset+p.bodyHeight(), len(p.lines))
	for i := p.offset; i < end; i++ {
		b.WriteByte('\n')
		b.WriteString(p.lines[i])
	}
	return common.Box(style, p.Width, p.Height, b.String())
}

// LinkChanged redraws the cited hits when url is one of the shown turn's.
func (p *answerPane) LinkChanged(url string) {
	if p.shown == nil || url == "" {
		return
	}
	for _, h := range p.res.Hits {
		if h.Citation.URL == url {
			p.refresh()
			return
		}
	}
}

// ShortHelp implements pane.
func (p *answerPane) ShortHelp() []key.Binding {
	k := p.Keys
	again := k.Answer
	again.SetHelp(k.Answer.Help().Key, "answer again")
	if p.shown == nil {
		again = k.Answer
	}
	return append(append([]key.Binding{again}, k.JudgeHelp()...), k.Down, k.PageDown, common.LeaveHelp(k, "results"), k.QuitQ, k.Help, k.NextPane)
}

// FullHelp implements pane: the judge first.
func (p *answerPane) FullHelp() [][]key.Binding { return [][]key.Binding{{p.Keys.Judge}} }

// answerLine sums up a turn's answer in one line for the turn comparison.
func answerLine(t *common.Turn) string {
	st := t.Answer
	if st == nil {
		return "not asked"
	}
	a := st.Answer()
	if a.Refused {
		return "refused (nothing sent: the context was insufficient)"
	}
	var s string
	switch st.Phase {
	case common.AnswerStreaming:
		s = "streaming · "
	case common.AnswerCancelled:
		s = "cancelled · "
	case common.AnswerFailed:
		s = "failed · "
	}
	if len(a.Cited) == 0 {
		s += "cites nothing"
	} else {
		cited := make([]string, len(a.Cited))
		for i, r := range a.Cited {
			cited[i] = strconv.Itoa(r)
		}
		s += "cites [" + strings.Join(cited, ",") + "]"
	}
	if n := len(a.Warnings(st.Sufficient)); n > 0 && st.Phase == common.AnswerDone {
		s += " · " + present.Count(n, "warning", "warnings")
	}
	if st.Faith != nil {
		s += " · " + faithLine(st.Faith)
	}
	if text := termsafe.Line(a.Annotated()); text != "" {
		s += " · " + text
	}
	return s
}

// askAnswer answers the turn on show (the Answer key): it shows the Answer
// pane and starts a generation, unless the turn's answer is streaming or
// done and the pane is not focused yet (then it only shows it).
func (m *Model) askAnswer() tea.Cmd {
	i := m.turns.current
	if i < 0 || i >= len(m.turns.turns) {
		return m.setFocus(focusAnswer)
	}
	t := &m.turns.turns[i]
	if t.Answer != nil && t.Answer.Phase != common.AnswerCancelled && t.Answer.Phase != common.AnswerFailed && m.focus != focusAnswer {
		return m.setFocus(focusAnswer)
	}
	focus := m.setFocus(focusAnswer)
	return tea.Batch(focus, m.answer.Start(t))
}

// autoAnswer starts the answer of the newest turn when the setting asks
// for it, showing the Answer pane beside the results unless a side pane
// has the keyboard (changing settings must not be interrupted).
func (m *Model) autoAnswer() tea.Cmd {
	if !m.answer.auto || len(m.turns.turns) == 0 {
		return nil
	}
	if m.slot(m.focus).place != placeSide {
		m.right = focusAnswer
	}
	return m.answer.Start(&m.turns.turns[len(m.turns.turns)-1])
}

// answerCompare is the turn comparison's line for each turn's answer.
func answerCompare(cur, old *common.Turn, w int) string {
	return common.Truncate("answer #"+strconv.Itoa(cur.N)+": "+answerLine(cur), w) + "\n" +
		common.Truncate("answer #"+strconv.Itoa(old.N)+": "+answerLine(old), w) + "\n"
}

// answerLeft cancels the generation in flight when the Answer pane leaves
// the side column (another side pane or the eval view replaced it).
func (m *Model) answerLeft() {
	if m.right != focusAnswer || m.slot(m.focus).place == placeWhole {
		m.answer.Cancel()
	}
}

// ShownAnswer returns the finished answer of the turn on show and the
// turn's result; ok is false when there is none yet (for tests).
func (m Model) ShownAnswer() (a retrieval.Answer, res retrieval.Result, ok bool) {
	p := m.answer
	if p.shown == nil || p.shown.Phase == common.AnswerStreaming {
		return retrieval.Answer{}, p.res, false
	}
	return p.shown.Final, p.res, true
}

// Answering reports whether an answer is streaming (for tests).
func (m Model) Answering() bool { return m.answer.Streaming() }
