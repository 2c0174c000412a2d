package answer

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
	"ragscope/retrieval/assess/judge"
	"ragscope/termsafe"
	"ragscope/ui/common"
)

// DeltaMsg is one streamed piece of the generation Gen.
type DeltaMsg struct {
	Gen    int
	Delta  retrieval.Delta
	Pieces *Stream
}

// DoneMsg ends the generation Gen.
type DoneMsg struct {
	Gen    int
	Answer retrieval.Answer
	Err    error
}

// Stream carries a generation's pieces from its goroutine to
// Update, in order; done holds the outcome once pieces is closed.
type Stream struct {
	pieces chan DeltaMsg
	done   chan DoneMsg
}

// answerBuffer is how many pieces may wait for Update.
const buffer = 256

// generateCmd starts a generation of res with g under ctx and returns the
// command that delivers its first message. The goroutine captures only
// its arguments; once ctx ends it sends nothing more.
func generateCmd(ctx context.Context, g retrieval.Generator, res retrieval.Result, gen int) tea.Cmd {
	s := &Stream{pieces: make(chan DeltaMsg, buffer), done: make(chan DoneMsg, 1)}
	go func() {
		a, err := retrieval.Generate(ctx, g, res, func(d retrieval.Delta) {
			select {
			case s.pieces <- DeltaMsg{Gen: gen, Delta: d, Pieces: s}:
			case <-ctx.Done():
			}
		})
		s.done <- DoneMsg{Gen: gen, Answer: a, Err: err}
		close(s.pieces)
	}()
	return s.next
}

// next waits for the stream's next message.
func (s *Stream) next() tea.Msg {
	if m, ok := <-s.pieces; ok {
		return m
	}
	return <-s.done
}

// Model shows the answer of the turn on show: streamed with a
// spinner, citations as result ranks, the cited hits with their link
// states, the uncited ones, warnings, the model and its token use.
// Nothing is generated until asked (the Answer key, or the setting that
// answers after every retrieval).
type Model struct {
	common.Base
	links map[string]common.LinkStatus

	base context.Context
	Gen  retrieval.Generator
	// hint says which settings enable a chat model (shown when gen is nil).
	Hint string
	// auto answers after every retrieval.
	Auto bool
	Spin spinner.Model

	// seq numbers generations; a message of another number is stale.
	Seq    int
	cancel context.CancelFunc
	Live   *common.AnswerState

	// The turn on show.
	Shown *common.AnswerState
	Res   retrieval.Result
	turnN int
	has   bool

	// lines is the drawn body; offset its first visible line; follow
	// keeps the newest text in view while it streams.
	Lines  []string
	offset int
	follow bool
	// wraps caches wrapped paragraphs for wrapW: a streamed piece
	// re-wraps only the paragraph it continues.
	wraps map[string]Wrapped
	wrapW int
	// tail is the last paragraph wrapped as the last one, and tailWrap its
	// lines: the next piece usually continues it.
	tail     string
	tailWrap Wrapped
}

// New is the answer pane asking g under ctx; hint says how to set a chat
// model up when g is nil.
func New(ctx context.Context, keys *common.KeyMap, st *common.Styles, links map[string]common.LinkStatus, g retrieval.Generator, hint string) Model {
	return Model{
		Base: common.Base{Keys: keys, Styles: st}, links: links, base: ctx, Gen: g, Hint: hint,
		Spin: spinner.New(spinner.WithSpinner(spinner.Dot)), follow: true, wraps: map[string]Wrapped{},
	}
}

// SetSize sets the outer size and re-wraps.
func (p *Model) SetSize(w, h int) tea.Cmd {
	if p.Width == w && p.Height == h {
		return nil
	}
	p.Width, p.Height = w, h
	p.Refresh()
	return nil
}

// Show makes t the turn on show.
func (p *Model) Show(t *common.Turn) {
	p.Shown, p.Res, p.turnN, p.has = t.Answer, t.Result, t.N, true
	p.offset, p.follow = 0, true
	p.Refresh()
}

// Start asks the chat model to answer t (the turn on show), cancelling a
// generation in flight. With insufficient context nothing is sent and the
// refusal is the answer; without a chat model the pane says what enables
// one.
func (p *Model) Start(t *common.Turn) tea.Cmd {
	p.Cancel()
	res := t.Result
	st := &common.AnswerState{Sufficient: res.Grounded.Sufficient}
	switch {
	case !res.Grounded.Sufficient:
		// Generate sends nothing for an insufficient context.
		st.Final, _ = retrieval.Generate(p.base, nil, res, nil)
		st.Phase = common.AnswerDone
	case p.Gen == nil:
		p.Show(t)
		return nil
	default:
		st.Phase = common.AnswerStreaming
		st.Builder = retrieval.NewAnswerBuilder(retrieval.NewPrompt(res))
		st.Provider, st.Model = p.Gen.Provider(), p.Gen.Model()
	}
	t.Answer = st
	p.Show(t)
	if st.Phase != common.AnswerStreaming {
		return nil
	}
	p.Seq++
	ctx, cancel := context.WithCancel(p.base)
	p.cancel, p.Live = cancel, st
	return tea.Batch(generateCmd(ctx, p.Gen, res, p.Seq), p.Spin.Tick)
}

// Streaming reports whether a generation is in flight.
func (p *Model) Streaming() bool { return p.Live != nil }

// Cancel stops the generation in flight: its context is cancelled and
// its later pieces are dropped; the turn keeps what had arrived.
func (p *Model) Cancel() {
	if p.Live == nil {
		return
	}
	p.cancel()
	p.Seq++
	st := p.Live
	st.Final = st.Answer()
	st.Phase, st.Builder = common.AnswerCancelled, nil
	p.Live, p.cancel = nil, nil
	if st == p.Shown {
		p.Refresh()
	}
}

// Update takes the stream's messages, spinner ticks and scroll keys.
func (p *Model) Update(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case DeltaMsg:
		if msg.Gen != p.Seq || p.Live == nil {
			return nil
		}
		p.Live.Builder.Add(msg.Delta)
		if p.Live == p.Shown {
			p.Refresh()
		}
		return msg.Pieces.next
	case DoneMsg:
		if msg.Gen != p.Seq || p.Live == nil {
			return nil
		}
		st := p.Live
		p.cancel()
		p.Live, p.cancel = nil, nil
		st.Final, st.Builder, st.Phase = msg.Answer, nil, common.AnswerDone
		if msg.Err != nil {
			st.Err, st.Phase = msg.Err, common.AnswerFailed
			if errors.Is(msg.Err, context.Canceled) {
				st.Phase = common.AnswerCancelled
			}
		}
		if st == p.Shown {
			p.Refresh()
		}
		return nil
	case spinner.TickMsg:
		if p.Live == nil {
			return nil
		}
		var cmd tea.Cmd
		p.Spin, cmd = p.Spin.Update(msg)
		return cmd
	case tea.KeyPressMsg:
		p.scroll(msg)
	}
	return nil
}

// bodyHeight is the number of body lines that fit under the two heading
// lines.
func (p *Model) bodyHeight() int {
	_, ih := common.InnerSize(p.Styles.Pane, p.Width, p.Height)
	return max(ih-2, 1)
}

func (p *Model) scroll(km tea.KeyPressMsg) {
	h := p.bodyHeight()
	last := max(len(p.Lines)-h, 0)
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

// Refresh rebuilds the body lines of the turn on show.
func (p *Model) Refresh() {
	iw, _ := common.InnerSize(p.Styles.Pane, p.Width, p.Height)
	w := max(iw, 10)
	if w != p.wrapW {
		p.wraps, p.wrapW = map[string]Wrapped{}, w
		p.tail, p.tailWrap = "", Wrapped{}
	}
	p.Lines = p.Lines[:0]
	st := p.Shown
	switch {
	case !p.has:
		p.addWrapped(p.Styles.Meta, "Ask a question first. Then "+p.Keys.Answer.Help().Key+" answers it from exactly the grounded context the context pane shows; it costs tokens, so nothing is sent until you ask. The setting 'answer' (s) answers after every retrieval.")
	case st == nil && p.Gen == nil && p.Res.Grounded.Sufficient:
		p.addWrapped(p.Styles.LinkWarn, "No chat model configured, so no answer can be generated.")
		p.Lines = append(p.Lines, "")
		p.addWrapped(p.Styles.Meta, p.Hint)
	case st == nil:
		p.addWrapped(p.Styles.Meta, "Not answered yet. Press "+p.Keys.Answer.Help().Key+" to answer "+strconv.Quote(termsafe.Line(p.Res.Question))+
			" from its "+present.Count(len(p.Res.Grounded.Sources), "source", "sources")+" (it costs tokens).")
	default:
		p.addAnswer(st, w)
	}
	if h := p.bodyHeight(); p.follow {
		p.offset = max(len(p.Lines)-h, 0)
	} else {
		p.offset = min(p.offset, max(len(p.Lines)-h, 0))
	}
}

// addWrapped adds text wrapped to the pane in style.
func (p *Model) addWrapped(style interface{ Render(...string) string }, text string) {
	for _, l := range strings.Split(common.WrapText(text, p.wrapW), "\n") {
		p.Lines = append(p.Lines, style.Render(l))
	}
}

// addAnswer adds the answer's text, with citations as result ranks, then
// the cited hits with their link states, the uncited ones and warnings.
func (p *Model) addAnswer(st *common.AnswerState, w int) {
	a := st.Answer()
	if a.Refused {
		p.addWrapped(p.Styles.LinkWarn, "Not generated: nothing relevant was retrieved, so nothing was sent. The refusal:")
		p.Lines = append(p.Lines, "")
		p.addWrapped(p.Styles.Value, a.Text)
		return
	}
	text := termsafe.Text(a.Annotated())
	fresh := make(map[string]Wrapped, len(p.wraps))
	paras := strings.Split(text, "\n")
	for i, para := range paras {
		wp, ok := p.wraps[para]
		switch {
		case ok:
		case i == len(paras)-1:
			// The paragraph being streamed: most pieces continue it.
			wp = Extend(p.tail, p.tailWrap, para, w)
			p.tail, p.tailWrap = para, wp
		default:
			wp = WrapPara(para, w)
		}
		fresh[para] = wp
		p.Lines = append(p.Lines, wp.Lines...)
	}
	p.wraps = fresh
	switch st.Phase {
	case common.AnswerStreaming:
		return
	case common.AnswerCancelled:
		p.Lines = append(p.Lines, "", p.Styles.LinkWarn.Render("Cancelled: "+p.Keys.Answer.Help().Key+" asks again."))
	case common.AnswerFailed:
		p.Lines = append(p.Lines, "")
		p.addWrapped(p.Styles.StatusErr, "✗ "+common.ErrorText(st.Err))
	case common.AnswerDone:
		p.addFaith(st)
	}
	byRank := make(map[int]*retrieval.Hit, len(p.Res.Hits))
	for i := range p.Res.Hits {
		byRank[p.Res.Hits[i].Rank] = &p.Res.Hits[i]
	}
	p.addCited(a.Cited, byRank, w)
	if len(a.Uncited) > 0 {
		parts := make([]string, 0, len(a.Uncited))
		for _, rank := range a.Uncited {
			if h := byRank[rank]; h != nil {
				parts = append(parts, "["+strconv.Itoa(rank)+"] "+present.Title(&h.Chunk))
			}
		}
		p.Lines = append(p.Lines, "")
		p.addWrapped(p.Styles.Meta, "Not cited: "+strings.Join(parts, " · "))
	}
	if warns := a.Warnings(st.Sufficient); len(warns) > 0 && st.Phase == common.AnswerDone {
		p.Lines = append(p.Lines, "")
		for _, warn := range warns {
			p.addWrapped(p.Styles.LinkWarn, "⚠ "+warn)
		}
	}
}

// addCited lists the cited hits by rank: title, link state and URL.
func (p *Model) addCited(cited []int, byRank map[int]*retrieval.Hit, w int) {
	if len(cited) == 0 {
		return
	}
	r := &p.Styles.Rows
	p.Lines = append(p.Lines, "", p.Styles.Section.Render("Cited"))
	for _, rank := range cited {
		h := byRank[rank]
		if h == nil {
			continue
		}
		head := " " + r.Highlight.Paint("["+strconv.Itoa(rank)+"]") + " "
		title := present.Title(&h.Chunk)
		u := h.Citation.URL
		if u == "" {
			p.Lines = append(p.Lines, common.Truncate(head+title+" "+p.Styles.Missing.Render("(no citation URL)"), w))
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
		p.Lines = append(p.Lines, common.Truncate(head+title+mid+r.URL.Paint(url), w))
	}
}

// heading is the pane's second line: the model and its token use, or
// what is happening.
func (p *Model) heading() string {
	st := p.Shown
	switch {
	case st == nil:
		if p.Gen == nil {
			return "no chat model"
		}
		return termsafe.Line(p.Gen.Provider() + " " + p.Gen.Model())
	case st.Phase == common.AnswerDone && st.Final.Refused:
		return "not sent: the context was insufficient"
	}
	a := st.Answer()
	s := termsafe.Line(st.Provider + " " + st.Model)
	if st.Phase == common.AnswerStreaming {
		return p.Spin.View() + " " + s + " · streaming · " + present.Count(len(strings.Fields(a.Text)), "word", "words")
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
func (p *Model) View() string {
	style, tstyle := p.Styles.Frame(p.Focused)
	iw, _ := common.InnerSize(style, p.Width, p.Height)
	title := "Answer"
	if p.has {
		title += " · turn #" + strconv.Itoa(p.turnN)
		if p.Res.Mode == retrieval.ModeSelectedText {
			title += " · from the selection only"
		}
	}
	var b strings.Builder
	b.WriteString(tstyle.Render(common.Truncate(title, iw)) + "\n")
	b.WriteString(p.Styles.Meta.Render(common.Truncate(p.heading(), iw)))
	end := min(p.offset+p.bodyHeight(), len(p.Lines))
	for i := p.offset; i < end; i++ {
		b.WriteByte('\n')
		b.WriteString(p.Lines[i])
	}
	return common.Box(style, p.Width, p.Height, b.String())
}

// LinkChanged redraws the cited hits when url is one of the shown turn's.
func (p *Model) LinkChanged(url string) {
	if p.Shown == nil || url == "" {
		return
	}
	for _, h := range p.Res.Hits {
		if h.Citation.URL == url {
			p.Refresh()
			return
		}
	}
}

// ShortHelp implements pane.
func (p *Model) ShortHelp() []key.Binding {
	k := p.Keys
	again := k.Answer
	again.SetHelp(k.Answer.Help().Key, "answer again")
	if p.Shown == nil {
		again = k.Answer
	}
	return append(append([]key.Binding{again}, k.JudgeHelp()...), k.Down, k.PageDown, common.LeaveHelp(k, "results"), k.QuitQ, k.Help, k.NextPane)
}

// FullHelp implements pane: the judge first.
func (p *Model) FullHelp() [][]key.Binding { return [][]key.Binding{{p.Keys.Judge}} }

// addFaith adds the judge's check of the answer under its text: the share
// of supported claims, then each unsupported claim with the result ranks
// the judge tied it to and its reason.
func (p *Model) addFaith(st *common.AnswerState) {
	fs := st.Faith
	if fs == nil {
		return
	}
	p.Lines = append(p.Lines, "")
	line := common.FaithLine(fs)
	style := p.Styles.Section
	if fs.Err != nil || (fs.Verdict != nil && (fs.Verdict.Status != judge.Judged || len(fs.Verdict.Unsupported()) > 0)) {
		style = p.Styles.LinkWarn
	}
	p.addWrapped(style, "Judge · "+line)
	if fs.Verdict == nil {
		return
	}
	ranks := retrieval.NewPrompt(p.Res).Sources
	for _, c := range fs.Verdict.Unsupported() {
		text := "✗ unsupported: " + termsafe.Line(c.Text)
		var refs []string
		for _, n := range c.Sources {
			if n >= 1 && n <= len(ranks) {
				refs = append(refs, "["+strconv.Itoa(ranks[n-1].Rank)+"]")
			}
		}
		if len(refs) > 0 {
			text += " " + strings.Join(refs, "")
		} else {
			text += " (no source)"
		}
		p.addWrapped(p.Styles.LinkBad, text)
		if r := termsafe.Line(c.Reason); r != "" {
			p.addWrapped(p.Styles.Meta, "  judge: "+r)
		}
	}
	if n := len(fs.Verdict.Claims) - fs.Verdict.Judged; n > 0 {
		p.addWrapped(p.Styles.Meta, present.Count(n, "claim", "claims")+" without a verdict")
	}
}
