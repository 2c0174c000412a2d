// Package judge grades retrieved hits with a chat model: each hit's
// relevance to its question on TREC's UMBRELA scale (0 unrelated,
// 1 related, 2 partly answers, 3 answers) with a one-line reason, asked
// through the provider's structured-output option and read tolerantly. An
// answer out of the schema or out of range leaves the hit not judged,
// with why; a grade is never made up. Judgements are cached on disk,
// keyed by the judge model, the prompt version, the question and a hash
// of the passage, so a re-run makes no call for unchanged hits. It also
// computes the label-free metrics (judged precision@k, judged nDCG@k,
// "nothing answers") and the judge's agreement with labels (Cohen's
// kappa).
package judge

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"ragscope/retrieval"
	"ragscope/retrieval/provider/chatcache"
	"ragscope/retrieval/provider/chattask"
)

// DefaultConcurrency is the number of judge calls in flight at once.
const DefaultConcurrency = 4

// Relevant is the lowest grade that counts as relevant (2: partly
// answers) in precision, "nothing answers" and the agreement.
const Relevant = 2

// Judgement is one hit's grade, or why it has none.
type Judgement struct {
	// Grade is 0-3; nil when the hit was not judged.
	Grade *int `json:"grade"`
	// Reason is the judge's one-line reason (untrusted text: sanitise
	// before drawing).
	Reason string `json:"reason"`
	// Status is Judged, or why the hit was not judged.
	Status Status `json:"status"`
	// Detail says why a hit was not judged ("" when judged).
	Detail string `json:"detail,omitempty"`
	// Cached is true when the judgement came from the cache (no call).
	Cached bool `json:"cached"`
}

// IsJudged reports whether j has a grade.
func (j Judgement) IsJudged() bool { return j.Grade != nil }

// Item is one hit to judge against its question.
type Item struct {
	Question string
	Hit      retrieval.Hit
}

// Stats count what judging cost.
type Stats struct {
	// Calls is the number of judge calls made (cache misses sent).
	Calls int `json:"calls"`
	// Cached is the number of judgements read from the cache.
	Cached int `json:"cached"`
	// NotJudged is the number of hits left without a grade.
	NotJudged int `json:"not_judged"`
	// Usage is the calls' token use.
	Usage retrieval.Usage `json:"usage"`
}

// Add adds o to s.
func (s *Stats) Add(o Stats) {
	s.Calls += o.Calls
	s.Cached += o.Cached
	s.NotJudged += o.NotJudged
	s.Usage.InputTokens += o.Usage.InputTokens
	s.Usage.OutputTokens += o.Usage.OutputTokens
}

// Options configure a Judge.
type Options struct {
	// Cache, when set, keeps judgements between runs.
	Cache *chatcache.Cache
	// Concurrency is the number of calls in flight; default
	// DefaultConcurrency. The provider's client retries 429 and honours
	// Retry-After within each call.
	Concurrency int
}

// Judge grades hits with a chat model. It is safe for concurrent use.
type Judge struct {
	gen         retrieval.Generator
	cache       *chatcache.Cache
	concurrency int
	prompt      prompt
	faith       prompt
	schema      *retrieval.Schema
	// memo holds the cache entries this process read or wrote, by key:
	// Pending and the run after it read the disk once.
	memo *chattask.Memo
}

// New returns a Judge asking gen.
func New(gen retrieval.Generator, opts Options) (*Judge, error) {
	if gen == nil {
		return nil, retrieval.ErrNoGenerator
	}
	p, err := loadPrompt(relevanceFile)
	if err != nil {
		return nil, err
	}
	fp, err := loadPrompt(faithfulnessFile)
	if err != nil {
		return nil, err
	}
	n := opts.Concurrency
	if n <= 0 {
		n = DefaultConcurrency
	}
	return &Judge{gen: gen, cache: opts.Cache, memo: chattask.NewMemo(opts.Cache), concurrency: n, prompt: p, faith: fp, schema: relevanceSchema()}, nil
}

// Model names the judge model: "provider/model".
func (j *Judge) Model() string { return j.gen.Provider() + "/" + j.gen.Model() }

// PromptVersion is the relevance prompt's version (its file's name and a
// hash of its text).
func (j *Judge) PromptVersion() string { return j.prompt.version }

// key is it's cache key: judge model, prompt version, question, and a
// hash of the passage as the prompt shows it.
func (j *Judge) key(it Item) string {
	c := it.Hit.Chunk
	return chatcache.Key(j.Model(), j.prompt.version, it.Question, chatcache.Hash(c.Title+"\x00"+c.Section+"\x00"+strings.TrimSpace(c.Text)))
}

// cached is it's judgement in the cache.
func (j *Judge) cached(it Item) (Judgement, bool) {
	b, ok := j.get(j.key(it))
	if !ok {
		return Judgement{}, false
	}
	var e struct {
		Grade  *int   `json:"grade"`
		Reason string `json:"reason"`
	}
	if json.Unmarshal(b, &e) != nil || e.Grade == nil || *e.Grade < 0 || *e.Grade > 3 {
		return Judgement{}, false
	}
	return Judgement{Grade: e.Grade, Reason: oneLine(e.Reason), Status: Judged, Cached: true}, true
}

// Pending is the number of items the cache cannot answer: the calls
// Relevance would make.
func (j *Judge) Pending(items []Item) int { return pending(items, j.cached) }

// pending is the number of items cached cannot answer.
func pending[I, R any](items []I, cached func(I) (R, bool)) int {
	n := 0
	for _, it := range items {
		if _, ok := cached(it); !ok {
			n++
		}
	}
	return n
}

// Relevance grades each item, in order. Cached judgements cost no call;
// the rest are asked, Concurrency at a time. A failed call leaves its hit
// Failed; an error that no call can get past (a refused key, an unknown
// model: retrieval.ErrAuth or ErrConfig), the model failing call after
// call (a *chattask.DownError) or ctx ending stops the judge, leaves the
// rest Skipped and is returned with the judgements made. progress, when
// set, is called after each item.
func (j *Judge) Relevance(ctx context.Context, items []Item, progress func(done, total int)) ([]Judgement, Stats, error) {
	return judgeEach(ctx, j, "hit", items, progress, j.cached, j.one, Judgement.IsJudged,
		func(why string) Judgement { return Judgement{Status: Skipped, Detail: why} })
}

// judgeEach answers each item, in order, with chattask.Run, Concurrency
// at a time: from the cache when cached can, else with ask, whose answer
// counts as a call judged when judged says so. skipped is the answer of
// an item left when the judge stops, with why on one line; noun names one
// item in the messages.
func judgeEach[I, R any](ctx context.Context, j *Judge, noun string, items []I, progress func(done, total int),
	cached func(I) (R, bool), ask func(context.Context, I) (R, retrieval.Usage, error),
	judged func(R) bool, skipped func(why string) R) ([]R, Stats, error) {
	out := make([]R, len(items))
	c, err := chattask.Run(ctx, j.concurrency, len(items), progress, chattask.Task{
		Noun: noun,
		Cached: func(i int) bool {
			r, ok := cached(items[i])
			out[i] = r
			return ok
		},
		Ask: func(ctx context.Context, i int) (bool, retrieval.Usage, error) {
			r, u, err := ask(ctx, items[i])
			out[i] = r
			return judged(r), u, err
		},
		Skip: func(i int, why string) { out[i] = skipped(oneLine(why)) },
	})
	return out, Stats{Calls: c.Calls, Cached: c.Cached, NotJudged: c.Failed, Usage: c.Usage}, err
}

// one asks the judge about one item and caches a valid judgement.
func (j *Judge) one(ctx context.Context, it Item) (Judgement, retrieval.Usage, error) {
	c := it.Hit.Chunk
	p, err := j.prompt.render(passage{Question: it.Question, Title: c.Title, Section: c.Section, Text: strings.TrimSpace(c.Text)}, j.schema)
	if err != nil {
		return Judgement{Status: Failed, Detail: err.Error()}, retrieval.Usage{}, err
	}
	text, usage, err := j.ask(ctx, p)
	if err != nil {
		return Judgement{Status: Failed, Detail: oneLine(err.Error())}, usage, err
	}
	pr := parseRelevance(text)
	if pr.status != Judged {
		return Judgement{Status: pr.status, Detail: pr.detail}, usage, nil
	}
	g := pr.grade
	jd := Judgement{Grade: &g, Reason: pr.reason, Status: Judged}
	if b, err := json.Marshal(struct {
		Grade  int    `json:"grade"`
		Reason string `json:"reason"`
	}{g, pr.reason}); err == nil {
		j.put(j.key(it), b)
	}
	return jd, usage, nil
}

// get is key's cache entry, from memory or disk.
func (j *Judge) get(key string) ([]byte, bool) { return j.memo.Get(key) }

// put stores a valid judgement in memory and on disk.
func (j *Judge) put(key string, b []byte) { j.memo.Put(key, b) }

// ask sends p and returns the answer's text and the call's token use.
func (j *Judge) ask(ctx context.Context, p retrieval.Prompt) (string, retrieval.Usage, error) {
	return chattask.Ask(ctx, j.gen, p)
}

// String is a short account of s: "12 judge calls (1,234 in + 210 out
// tokens), 8 cached, 1 not judged".
func (s Stats) String() string {
	return fmt.Sprintf("%d judge calls (%d in + %d out tokens), %d cached, %d not judged", s.Calls, s.Usage.InputTokens, s.Usage.OutputTokens, s.Cached, s.NotJudged)
}

// Unjudged counts the hits of js without a grade and says why, on one
// line: the detail of the first failed call (the judge's model down, a
// timeout), else of the first hit not judged otherwise (an answer out of
// the schema). why is "" when every hit was judged.
func Unjudged(js []Judgement) (n int, why string) {
	first := ""
	for _, j := range js {
		if j.IsJudged() {
			continue
		}
		n++
		d := oneLine(j.Detail)
		if d == "" {
			d = string(j.Status)
		}
		if why == "" && j.Status == Failed {
			why = d
		}
		if first == "" {
			first = d
		}
	}
	if why == "" {
		why = first
	}
	return n, why
}

// NoneJudgedError is a judging that graded none of its hits: the gate
// fails closed (retrieval.ErrUnavailable, exit 3) rather than reporting
// hits without grades as a success.
type NoneJudgedError struct {
	// Hits is the number of hits to judge; Why the cause (Unjudged).
	Hits int
	Why  string
}

// Error says that nothing was judged, and why.
func (e *NoneJudgedError) Error() string {
	return fmt.Sprintf("the judge could judge none of the %d hits: %s", e.Hits, e.Why)
}

// Is makes the error a retrieval.ErrUnavailable: the judge's model did
// not give a usable answer.
func (e *NoneJudgedError) Is(target error) bool { return target == retrieval.ErrUnavailable }

// Gate is a *NoneJudgedError when js has hits and none was judged; nil
// otherwise (some judged, or nothing to judge).
func Gate(js []Judgement) error {
	n, why := Unjudged(js)
	if len(js) == 0 || n < len(js) {
		return nil
	}
	return &NoneJudgedError{Hits: n, Why: why}
}
