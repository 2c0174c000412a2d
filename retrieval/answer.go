package retrieval

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// ErrNoGenerator is returned by Generate when no chat model is configured.
var ErrNoGenerator = fmt.Errorf("%w: no chat model configured", ErrConfig)

// Generator writes an answer from a prompt with a chat model. Providers
// implement it in their own packages (retrieval/provider/cohere, retrieval/provider/openai).
// Implementations must be safe for concurrent use and honour ctx: when it
// ends, Stream stops and emit is not called again.
type Generator interface {
	// Stream sends p and calls emit with each piece of the answer, in
	// order, as it arrives. Citations in a Delta carry offsets into the
	// whole answer text. It returns when the answer is complete.
	Stream(ctx context.Context, p Prompt, emit func(Delta)) error
	// Model is the chat model's name.
	Model() string
	// Provider names the provider ("cohere", "openai").
	Provider() string
}

// Prompt is what a Generator sends: the question and exactly the grounded
// result the context pane shows.
type Prompt struct {
	// Question is the user's question.
	Question string
	// Mode is the retrieval mode the context was built in.
	Mode Mode
	// Instruction and Context are Grounded.Instruction and Grounded.Context.
	Instruction string
	Context     string
	// Sources are the context's sources in [Source N] order.
	Sources []PromptSource
	// Schema, when set, asks for structured output: the answer must be a
	// JSON value of this schema, sent through the provider's own option
	// (OpenAI's response_format json_schema, Cohere's json_object with a
	// schema). The answer is still untrusted: parse it tolerantly.
	Schema *Schema
}

// Schema is a named JSON schema for structured output.
type Schema struct {
	// Name names the schema (letters, digits, _ and -; at most 64).
	Name string
	// JSON is the JSON schema object.
	JSON map[string]any
}

// PromptSource is the N-th source of a prompt's context.
type PromptSource struct {
	// N is the source's number in "[Source N: …]", from 1.
	N int
	// Rank is the rank of the hit the source is.
	Rank int
	// Title, Section and URL describe the source.
	Title, Section, URL string
	// Text is the source's text as it appears in the context.
	Text string
}

// NewPrompt builds the prompt of a result: the grounded instruction and
// context, and the sources in the order the context numbers them (the
// hits in ContextOrder; in selected-text mode, the selection).
func NewPrompt(res Result) Prompt {
	p := Prompt{Question: res.Question, Mode: res.Mode, Instruction: res.Grounded.Instruction, Context: res.Grounded.Context}
	if !res.Grounded.Sufficient {
		return p
	}
	for i, h := range ContextOrder(res.Hits) {
		p.Sources = append(p.Sources, PromptSource{
			N: i + 1, Rank: h.Rank, Title: h.Chunk.Title, Section: h.Chunk.Section,
			URL: h.Citation.URL, Text: strings.TrimSpace(h.Chunk.Text),
		})
	}
	return p
}

// Delta is one piece of a streamed answer.
type Delta struct {
	// Text continues the answer.
	Text string
	// Citations are citations that became known with this piece.
	Citations []AnswerCitation
	// Usage, when set, is the call's token use (usually on the last piece).
	Usage *Usage
	// FinishReason, when set, is why the model stopped.
	FinishReason string
}

// AnswerCitation ties a span of the answer to the sources it rests on.
type AnswerCitation struct {
	// Start and End delimit the span, in characters (runes) of Answer.Text:
	// [Start, End).
	Start int `json:"start"`
	End   int `json:"end"`
	// Text is the cited span.
	Text string `json:"text"`
	// Sources are the [Source N] numbers cited.
	Sources []int `json:"sources"`
	// Ranks are the result ranks of Sources, in the same order; 0 for a
	// source number the context does not have.
	Ranks []int `json:"ranks"`
	// Marker is the citation as written in the answer ("[Source 2]") when
	// the model cited inline; "" for a provider's native citation.
	Marker string `json:"marker,omitempty"`
}

// Usage is a generation's token use.
type Usage struct {
	InputTokens  int `json:"input_tokens"`
	OutputTokens int `json:"output_tokens"`
}

// AnswerTimings record how long generation took.
type AnswerTimings struct {
	// FirstToken is the time from sending to the first piece of text.
	FirstToken time.Duration
	// Total is the time from sending to the last piece.
	Total time.Duration
}

// Answer is a generated answer and what it cites.
type Answer struct {
	// Text is the answer as the model wrote it (untrusted: sanitise before
	// drawing).
	Text string
	// Citations in answer order.
	Citations []AnswerCitation
	// Cited are the ranks of the hits the answer cites, ascending; Uncited
	// the ranks of the context's other hits.
	Cited, Uncited []int
	// Unknown are the source numbers cited that the context does not have.
	Unknown []int
	// Refused is true when the context was insufficient: nothing was sent
	// and Text is the refusal.
	Refused bool
	// Mode is the retrieval mode of the context the answer rests on.
	Mode Mode
	// Provider and Model name the chat model ("" when not sent).
	Provider, Model string
	Usage           Usage
	Timings         AnswerTimings
	FinishReason    string
}

// RefusalText is the answer shown when the context is insufficient and no
// model is asked.
const RefusalText = "The textbook does not cover this question: nothing relevant was retrieved, so no answer was generated."

// Generate answers a result's question with g from exactly its grounded
// context. When the context is insufficient nothing is sent and the answer
// is the refusal. onDelta, when not nil, is called after each piece with
// the answer so far (Cited, Uncited and Unknown are filled in at the end).
func Generate(ctx context.Context, g Generator, res Result, onDelta func(Delta)) (Answer, error) {
	p := NewPrompt(res)
	if !res.Grounded.Sufficient {
		return Answer{Text: RefusalText, Refused: true, Mode: res.Mode, Citations: []AnswerCitation{}, Cited: []int{}, Uncited: []int{}, Unknown: []int{}}, nil
	}
	if g == nil {
		return Answer{}, ErrNoGenerator
	}
	b := NewAnswerBuilder(p)
	start := time.Now()
	err := g.Stream(ctx, p, func(d Delta) {
		if d.Text != "" && b.first == 0 {
			b.first = time.Since(start)
		}
		b.Add(d)
		if onDelta != nil {
			onDelta(d)
		}
	})
	a := b.Answer()
	a.Mode = res.Mode
	a.Provider, a.Model = g.Provider(), g.Model()
	a.Timings = AnswerTimings{FirstToken: b.first, Total: time.Since(start)}
	if err != nil {
		if ctx.Err() != nil && !errors.Is(err, ctx.Err()) {
			err = fmt.Errorf("%w: %w", ctx.Err(), err)
		}
		return a, fmt.Errorf("generate answer: %w", err)
	}
	return a, nil
}

// AnswerBuilder accumulates a streamed answer. Adding a piece costs time in
// the piece's length, not in the answer's. It is not safe for concurrent
// use.
type AnswerBuilder struct {
	prompt    Prompt
	text      strings.Builder
	runes     int
	citations []AnswerCitation
	usage     Usage
	finish    string
	first     time.Duration
}

// NewAnswerBuilder starts an empty answer to p.
func NewAnswerBuilder(p Prompt) *AnswerBuilder { return &AnswerBuilder{prompt: p} }

// Add appends a piece.
func (b *AnswerBuilder) Add(d Delta) {
	b.text.WriteString(d.Text)
	b.runes += utf8.RuneCountInString(d.Text)
	for _, c := range d.Citations {
		b.citations = append(b.citations, b.resolve(c))
	}
	if d.Usage != nil {
		b.usage = *d.Usage
	}
	if d.FinishReason != "" {
		b.finish = d.FinishReason
	}
}

// Len is the answer's length so far, in characters.
func (b *AnswerBuilder) Len() int { return b.runes }

// Text is the answer so far.
func (b *AnswerBuilder) Text() string { return b.text.String() }

// Citations are the citations so far (shared; do not modify).
func (b *AnswerBuilder) Citations() []AnswerCitation { return b.citations }

// resolve fills in the ranks of c's sources.
func (b *AnswerBuilder) resolve(c AnswerCitation) AnswerCitation {
	c.Ranks = make([]int, len(c.Sources))
	for i, n := range c.Sources {
		if n >= 1 && n <= len(b.prompt.Sources) {
			c.Ranks[i] = b.prompt.Sources[n-1].Rank
		}
	}
	return c
}

// Answer is the answer built so far, with cited, uncited and unknown
// sources worked out.
func (b *AnswerBuilder) Answer() Answer {
	a := Answer{
		Text: b.text.String(), Citations: append([]AnswerCitation{}, b.citations...),
		Usage: b.usage, FinishReason: b.finish,
		Cited: []int{}, Uncited: []int{}, Unknown: []int{},
	}
	slices.SortStableFunc(a.Citations, func(x, y AnswerCitation) int { return x.Start - y.Start })
	cited := map[int]bool{}
	for _, c := range a.Citations {
		for i, r := range c.Ranks {
			if r == 0 {
				if !slices.Contains(a.Unknown, c.Sources[i]) {
					a.Unknown = append(a.Unknown, c.Sources[i])
				}
				continue
			}
			cited[r] = true
		}
	}
	for _, s := range b.prompt.Sources {
		if cited[s.Rank] {
			a.Cited = append(a.Cited, s.Rank)
		} else {
			a.Uncited = append(a.Uncited, s.Rank)
		}
	}
	slices.Sort(a.Cited)
	slices.Sort(a.Uncited)
	slices.Sort(a.Unknown)
	return a
}

// Annotated returns the answer's text with each citation shown as the
// ranks it cites ("[1]", "[2,4]", "[?7]" for a source that does not
// exist): an inline marker is replaced, a native citation's ranks follow
// its span.
func (a Answer) Annotated() string {
	if len(a.Citations) == 0 {
		return a.Text
	}
	runes := []rune(a.Text)
	cs := slices.Clone(a.Citations)
	slices.SortStableFunc(cs, func(x, y AnswerCitation) int { return x.End - y.End })
	var b strings.Builder
	pos := 0
	for i := 0; i < len(cs); i++ {
		end := min(max(cs[i].End, pos), len(runes))
		cut := end
		if m := utf8.RuneCountInString(cs[i].Marker); m > 0 && end-m >= pos {
			cut = end - m
		}
		b.WriteString(string(runes[pos:cut]))
		// Native citations that end at the same place show once.
		var ranks []string
		for j := i; j < len(cs) && min(max(cs[j].End, pos), len(runes)) == end; j++ {
			for k, r := range cs[j].Ranks {
				s := strconv.Itoa(r)
				if r == 0 {
					s = "?" + strconv.Itoa(cs[j].Sources[k])
				}
				if !slices.Contains(ranks, s) {
					ranks = append(ranks, s)
				}
			}
			i = j
		}
		b.WriteString("[" + strings.Join(ranks, ",") + "]")
		pos = end
	}
	b.WriteString(string(runes[pos:]))
	return b.String()
}

// Warnings are the problems of an answer a reader should see: it cites
// nothing (in selected-text mode the selection is the only source, and
// the instruction asks for no citation), it cites a source the context
// does not have, or it answers although the context was insufficient.
func (a Answer) Warnings(sufficient bool) []string {
	var out []string
	if a.Refused {
		return nil
	}
	if !sufficient && strings.TrimSpace(a.Text) != "" {
		out = append(out, "the model answered although the context was insufficient")
	}
	if len(a.Citations) == 0 && a.Mode != ModeSelectedText && !LooksLikeRefusal(a.Text) {
		out = append(out, "the answer cites no source")
	}
	for _, n := range a.Unknown {
		out = append(out, fmt.Sprintf("the answer cites [Source %d], which the context does not have", n))
	}
	return out
}

// refusalPhrases are how models decline to answer from a context.
var refusalPhrases = []string{
	"does not cover", "doesn't cover", "do not cover", "not covered",
	"does not contain", "doesn't contain", "do not contain", "don't contain",
	"not enough information", "insufficient information", "no information",
	"cannot answer", "can't answer", "unable to answer", "cannot be answered",
	"does not mention", "doesn't mention", "not mentioned", "does not provide", "doesn't provide",
	"i don't know", "i do not know", "no relevant",
}

// LooksLikeRefusal reports whether text declines to answer (the textbook
// does not cover it, not enough information, …), case-insensitively.
func LooksLikeRefusal(text string) bool {
	t := strings.ToLower(strings.ReplaceAll(text, "’", "'"))
	for _, p := range refusalPhrases {
		if strings.Contains(t, p) {
			return true
		}
	}
	return false
}
