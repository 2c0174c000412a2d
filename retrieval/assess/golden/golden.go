// Package golden writes golden question sets from a book: it samples
// sections across its pages (Sections, Sample), asks a chat model for
// questions a reader would ask that each section answers, in two styles
// (a specific fact; an abstract how or why), and filters them in a second
// pass: questions the section does not answer (a chat check), ones that
// copy the heading, and near-duplicates are dropped, each drop counted
// with its reason. Every call asks for JSON through the provider's
// structured-output option and the answer is read tolerantly; an answer
// that cannot be read drops its question, never a second request without
// the schema. Answers are cached on disk, keyed by the model, the prompt
// version and the section's text (and the question for the check), so a
// re-run on an unchanged book makes no call.
package golden

import (
	"context"
	"embed"
	"encoding/json"
	"fmt"
	"strings"
	"sync"

	"ragscope/retrieval"
	"ragscope/retrieval/provider/chatcache"
	"ragscope/retrieval/provider/chattask"
)

// DefaultConcurrency is the number of sections worked on at once (each
// makes its calls one after another, so at most this many calls are in
// flight).
const DefaultConcurrency = 8

// Styles of question.
const (
	// Specific asks for one fact the section states.
	Specific = "specific"
	// Abstract asks how or why, as the section explains it.
	Abstract = "abstract"
)

// Styles are the styles asked of each section, in order.
var styles = [...]string{Specific, Abstract}

// Reason says why a question was dropped.
type Reason string

// The reasons a question is dropped.
const (
	// NotAnswered: the check says the section does not answer it.
	NotAnswered Reason = "not answered by its section"
	// CopiesHeading: the question restates the section's heading.
	CopiesHeading Reason = "copies the heading"
	// NotAQuestion: under three words ("1.", "Gazebo?") or code rather
	// than words (notAQuestion).
	NotAQuestion Reason = "not a question"
	// NearDuplicate: an earlier question says nearly the same.
	NearDuplicate Reason = "near-duplicate"
	// Malformed: an answer (the question's, or its check's) was not JSON
	// of the schema.
	Malformed Reason = "malformed answer"
	// CallFailed: a call failed (after the provider's retries).
	CallFailed Reason = "call failed"
)

// Reasons are the drop reasons in report order.
var Reasons = []Reason{NotAnswered, CopiesHeading, NotAQuestion, NearDuplicate, Malformed, CallFailed}

//go:embed prompts/*.txt
var promptFiles embed.FS

// The prompt files; their names carry their versions.
const (
	questionsFile = "prompts/questions-v1.txt"
	checkFile     = "prompts/check-v1.txt"
)

// Question is a generated question that passed both passes.
type Question struct {
	// Text is the question.
	Text string
	// Style is Specific or Abstract.
	Style string
	// Section is the section that answers it.
	Section Section
}

// Result is what a Run wrote and dropped, and what it cost.
type Result struct {
	// Questions are the questions kept, in section order.
	Questions []Question
	// Asked is the number of questions asked for: two per section worked
	// on (Sections - NotRun of them).
	Asked int
	// Dropped counts the questions dropped, by reason.
	Dropped map[Reason]int
	// Sections is the number of sections sampled and NotRun the number
	// not worked on because the run stopped (Ctrl+C, a refused key).
	Sections, NotRun int
	// Calls and CachedSections count the calls made and the sections
	// answered wholly from the cache; Usage is the calls' token use.
	Calls, CachedSections int
	Usage                 retrieval.Usage
	// CallErr is the last failed call's error (nil: none failed): the
	// cause to name when the chat model is down and nothing was kept.
	CallErr error
}

// DroppedTotal is the number of questions dropped.
func (r Result) DroppedTotal() int {
	n := 0
	for _, v := range r.Dropped {
		n += v
	}
	return n
}

// Options configure a Generator.
type Options struct {
	// Cache, when set, keeps answers between runs.
	Cache *chatcache.Cache
	// Concurrency is the number of sections worked on at once; default
	// DefaultConcurrency. The provider's client retries 429 and honours
	// Retry-After within each call.
	Concurrency int
}

// Generator writes golden questions with a chat model. It is safe for
// concurrent use.
type Generator struct {
	gen         retrieval.Generator
	memo        *chattask.Memo
	concurrency int
	questions   chattask.Prompt
	check       chattask.Prompt
}

// New returns a Generator asking gen; nil gen is retrieval.ErrNoGenerator.
func New(gen retrieval.Generator, opts Options) (*Generator, error) {
	if gen == nil {
		return nil, retrieval.ErrNoGenerator
	}
	q, err := chattask.LoadPrompt(promptFiles, questionsFile)
	if err != nil {
		return nil, err
	}
	c, err := chattask.LoadPrompt(promptFiles, checkFile)
	if err != nil {
		return nil, err
	}
	n := opts.Concurrency
	if n <= 0 {
		n = DefaultConcurrency
	}
	return &Generator{gen: gen, memo: chattask.NewMemo(opts.Cache), concurrency: n, questions: q, check: c}, nil
}

// Model names the chat model: "provider/model".
func (g *Generator) Model() string { return g.gen.Provider() + "/" + g.gen.Model() }

// PromptVersion names both prompts' versions: "questions-v1+…, check-v1+…".
func (g *Generator) PromptVersion() string { return g.questions.Version + ", " + g.check.Version }

// outcome is one question of a section and why it was dropped ("" kept).
type outcome struct {
	text, style string
	drop        Reason
}

// sectionRun is the work of one section: its outcomes and its calls.
type sectionRun struct {
	g     *Generator
	sec   Section
	calls bool // calls may be made (false: the cache alone)
	n     int
	usage retrieval.Usage
	out   []outcome
	miss  bool // a call was needed but not allowed
}

// Run works on secs, Concurrency sections at a time: the questions of
// each, then the check of each question. A section the cache answers
// wholly makes no call. An error no call can get past (retrieval.ErrAuth,
// retrieval.ErrConfig), the chat model failing call after call (a
// *chattask.DownError) or ctx ending stops the run: the result then holds
// the sections finished so far and the error is returned. progress, when
// set, is called after each section.
func (g *Generator) Run(ctx context.Context, secs []Section, progress func(done, total int)) (Result, error) {
	runs := make([]*sectionRun, len(secs))
	var (
		mu      sync.Mutex
		calls   int
		usage   retrieval.Usage
		callErr error
	)
	_, err := chattask.Run(ctx, g.concurrency, len(secs), progress, chattask.Task{
		Noun: "section",
		Cached: func(i int) bool {
			r := &sectionRun{g: g, sec: secs[i]}
			if err := r.run(ctx); err != nil || r.miss {
				return false
			}
			runs[i] = r
			return true
		},
		Ask: func(ctx context.Context, i int) (bool, retrieval.Usage, error) {
			r := &sectionRun{g: g, sec: secs[i], calls: true}
			err := r.run(ctx)
			mu.Lock()
			calls += r.n
			usage.InputTokens += r.usage.InputTokens
			usage.OutputTokens += r.usage.OutputTokens
			if err != nil {
				callErr = err
			}
			mu.Unlock()
			if err != nil && (ctx.Err() != nil || chattask.IsFatal(err)) {
				return false, r.usage, err // not finished: not written
			}
			runs[i] = r
			return err == nil, r.usage, err
		},
		Skip: func(int, string) {},
	})
	res := Result{Sections: len(secs), Dropped: map[Reason]int{}, Calls: calls, Usage: usage, CallErr: callErr}
	var kept []Question
	for i, r := range runs {
		if r == nil {
			res.NotRun++
			continue
		}
		if !r.calls {
			res.CachedSections++
		}
		res.Asked += len(styles)
		for _, o := range r.out {
			if o.drop != "" {
				res.Dropped[o.drop]++
				continue
			}
			kept = append(kept, Question{Text: o.text, Style: o.style, Section: secs[i]})
		}
	}
	var seen [][]string
	for _, q := range kept {
		qc := contentWords(q.Text)
		if nearDuplicate(seen, qc) {
			res.Dropped[NearDuplicate]++
			continue
		}
		seen = append(seen, qc)
		res.Questions = append(res.Questions, q)
	}
	return res, err
}

// run works on one section: an answer that cannot be read or a failed
// call drops the questions it concerns. The error is the first failed
// call's.
func (r *sectionRun) run(ctx context.Context) error {
	qs, err := r.ask(ctx)
	if err != nil || r.miss {
		for _, st := range styles {
			r.out = append(r.out, outcome{style: st, drop: dropFor(err)})
		}
		return err
	}
	var first error
	for _, st := range styles {
		q, ok := qs[st]
		switch {
		case !ok:
			r.out = append(r.out, outcome{style: st, drop: Malformed})
			continue
		case notAQuestion(q):
			r.out = append(r.out, outcome{text: q, style: st, drop: NotAQuestion})
			continue
		case copiesHeading(q, r.sec.Heading) || copiesHeading(q, r.sec.Title):
			r.out = append(r.out, outcome{text: q, style: st, drop: CopiesHeading})
			continue
		}
		answered, err := r.checkOne(ctx, q)
		if r.miss {
			return nil
		}
		o := outcome{text: q, style: st}
		switch {
		case err != nil:
			o.drop = dropFor(err)
			if first == nil {
				first = err
			}
		case answered == nil:
			o.drop = Malformed
		case !*answered:
			o.drop = NotAnswered
		}
		r.out = append(r.out, o)
		if err != nil && (ctx.Err() != nil || chattask.IsFatal(err)) {
			return err
		}
	}
	return first
}

// dropFor is the reason of a question whose answer was err (nil: the
// answer could not be read).
func dropFor(err error) Reason {
	if err != nil {
		return CallFailed
	}
	return Malformed
}

// call answers p from the cache under key, or, when calls are allowed,
// with a call; the answer is nil when there was none (miss set).
func (r *sectionRun) call(ctx context.Context, key string, p retrieval.Prompt) ([]byte, bool, error) {
	if b, ok := r.g.memo.Get(key); ok {
		return b, true, nil
	}
	if !r.calls {
		r.miss = true
		return nil, false, nil
	}
	text, u, err := chattask.Ask(ctx, r.g.gen, p)
	r.n++
	r.usage.InputTokens += u.InputTokens
	r.usage.OutputTokens += u.OutputTokens
	return []byte(text), false, err
}

// ask is the section's questions by style; a style missing is a question
// whose answer could not be read. Only a whole answer is cached.
func (r *sectionRun) ask(ctx context.Context) (map[string]string, error) {
	s := r.sec
	key := chatcache.Key(r.g.Model(), r.g.questions.Version, s.Hash())
	p, err := r.g.questions.Render(s, questionsSchema())
	if err != nil {
		return nil, err
	}
	b, cached, err := r.call(ctx, key, p)
	if err != nil || b == nil {
		return nil, err
	}
	qs := parseQuestions(string(b))
	if !cached && len(qs) == len(styles) {
		if v, err := json.Marshal(qs); err == nil {
			r.g.memo.Put(key, v)
		}
	}
	return qs, nil
}

// checkOne asks whether the section answers q; nil when the answer could
// not be read.
func (r *sectionRun) checkOne(ctx context.Context, q string) (*bool, error) {
	s := r.sec
	key := chatcache.Key(r.g.Model(), r.g.check.Version, s.Hash(), q)
	p, err := r.g.check.Render(struct {
		Question, Title, Heading, Text string
	}{q, s.Title, s.Heading, s.Text}, checkSchema())
	if err != nil {
		return nil, err
	}
	b, cached, err := r.call(ctx, key, p)
	if err != nil || b == nil {
		return nil, err
	}
	ans := parseCheck(string(b))
	if ans != nil && !cached {
		r.g.memo.Put(key, []byte(fmt.Sprintf(`{"answered": %t}`, *ans)))
	}
	return ans, nil
}

// questionsSchema is the JSON schema of pass 1's answer.
func questionsSchema() *retrieval.Schema {
	return &retrieval.Schema{Name: "golden_questions", JSON: map[string]any{
		"type": "object",
		"properties": map[string]any{
			Specific: map[string]any{"type": "string", "description": "a question asking for one fact the section states"},
			Abstract: map[string]any{"type": "string", "description": "a how or why question the section explains"},
		},
		"required":             []any{Specific, Abstract},
		"additionalProperties": false,
	}}
}

// checkSchema is the JSON schema of pass 2's answer.
func checkSchema() *retrieval.Schema {
	return &retrieval.Schema{Name: "golden_check", JSON: map[string]any{
		"type": "object",
		"properties": map[string]any{
			"answered": map[string]any{"type": "boolean", "description": "whether the section answers the question"},
			"reason":   map[string]any{"type": "string", "description": "one short sentence"},
		},
		"required":             []any{"answered", "reason"},
		"additionalProperties": false,
	}}
}

// MaxQuestion bounds a question, in bytes: a longer one is not a
// question a reader types, and is dropped as malformed.
const MaxQuestion = 300

// parseQuestions reads pass 1's answer tolerantly (the object alone, in a
// code fence or amid words; keys in any case): each style whose value is
// a non-empty one-line string of at most MaxQuestion bytes.
func parseQuestions(text string) map[string]string {
	out := map[string]string{}
	fields, ok := chattask.Fields(text)
	if !ok {
		return out
	}
	for _, st := range styles {
		raw, ok := chattask.Field(fields, st)
		var q string
		if !ok || json.Unmarshal(raw, &q) != nil {
			continue
		}
		q = strings.Join(strings.Fields(q), " ")
		if q != "" && len(q) <= MaxQuestion && !strings.ContainsFunc(q, isControl) {
			out[st] = q
		}
	}
	return out
}

// isControl reports a control character (terminal escapes): a question
// holding one is not written.
func isControl(r rune) bool { return r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) }

// parseCheck reads pass 2's answer tolerantly: "answered" as a boolean or
// a yes or no in words (chattask.Verdict); nil otherwise.
func parseCheck(text string) *bool {
	fields, ok := chattask.Fields(text)
	if !ok {
		return nil
	}
	raw, ok := chattask.Field(fields, "answered")
	if !ok {
		return nil
	}
	return chattask.Verdict(raw)
}
