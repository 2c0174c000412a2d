package judge

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"ragscope/retrieval"
	"ragscope/retrieval/provider/chatcache"
	"ragscope/retrieval/provider/chattask"
)

// faithfulnessFile is the faithfulness prompt's file (see relevanceFile).
const faithfulnessFile = "prompts/faithfulness-v1.txt"

// MaxClaims bounds the claims read from one answer; the rest are dropped.
const MaxClaims = 50

// Claim is one claim of an answer and whether its sources support it.
type Claim struct {
	// Text is the claim (untrusted text: sanitise before drawing).
	Text string `json:"claim"`
	// Supported is nil when the judge's answer did not say (the claim is
	// not judged).
	Supported *bool `json:"supported"`
	// Sources are the [Source N] numbers the judge says support it.
	Sources []int  `json:"sources"`
	Reason  string `json:"reason"`
}

// Faithfulness is an answer's claims and the share its sources support.
type Faithfulness struct {
	// Status is Judged, or why the answer was not judged.
	Status Status  `json:"status"`
	Detail string  `json:"detail,omitempty"`
	Claims []Claim `json:"claims"`
	// Judged is the number of claims with a verdict; Supported of them
	// supported; Share = Supported / Judged (nil when no claim was judged).
	Judged    int      `json:"judged_claims"`
	Supported int      `json:"supported_claims"`
	Share     *float64 `json:"supported_share"`
	Cached    bool     `json:"cached"`
}

// Unsupported are the claims judged not supported.
func (f Faithfulness) Unsupported() []Claim {
	var out []Claim
	for _, c := range f.Claims {
		if c.Supported != nil && !*c.Supported {
			out = append(out, c)
		}
	}
	return out
}

// Source is one numbered source of an answer's context.
type Source struct {
	N    int
	Text string
}

// FaithItem is one answer to check against its context.
type FaithItem struct {
	Question, Answer string
	Sources          []Source
}

// SourcesOf are the sources of a prompt, as the answer cites them.
func SourcesOf(p retrieval.Prompt) []Source {
	out := make([]Source, 0, len(p.Sources))
	for _, s := range p.Sources {
		out = append(out, Source{N: s.N, Text: s.Text})
	}
	return out
}

// faithSchema is the JSON schema of a faithfulness judgement.
func faithSchema() *retrieval.Schema {
	return &retrieval.Schema{Name: "answer_claims", JSON: map[string]any{
		"type": "object",
		"properties": map[string]any{
			"claims": map[string]any{
				"type": "array",
				"items": map[string]any{
					"type": "object",
					"properties": map[string]any{
						"claim":     map[string]any{"type": "string"},
						"supported": map[string]any{"type": "boolean"},
						"sources":   map[string]any{"type": "array", "items": map[string]any{"type": "integer"}},
						"reason":    map[string]any{"type": "string"},
					},
					"required":             []any{"claim", "supported", "sources", "reason"},
					"additionalProperties": false,
				},
			},
		},
		"required":             []any{"claims"},
		"additionalProperties": false,
	}}
}

// faithKey is it's cache key: judge model, prompt version, question, and
// hashes of the answer and of its sources.
func (j *Judge) faithKey(it FaithItem) string {
	var b strings.Builder
	for _, s := range it.Sources {
		fmt.Fprintf(&b, "%d\x00%s\x00", s.N, strings.TrimSpace(s.Text))
	}
	return chatcache.Key(j.Model(), j.faith.version, it.Question, chatcache.Hash(it.Answer), chatcache.Hash(b.String()))
}

func (j *Judge) faithCached(it FaithItem) (Faithfulness, bool) {
	b, ok := j.get(j.faithKey(it))
	if !ok {
		return Faithfulness{}, false
	}
	f := parseFaithfulness(string(b))
	if f.Status != Judged {
		return Faithfulness{}, false
	}
	f.Cached = true
	return f, true
}

// PendingFaithfulness is the number of items the cache cannot answer.
func (j *Judge) PendingFaithfulness(items []FaithItem) int { return pending(items, j.faithCached) }

// Faithfulness checks each answer against its sources, one call per
// answer, as Relevance does (cache, concurrency, failures).
func (j *Judge) Faithfulness(ctx context.Context, items []FaithItem, progress func(done, total int)) ([]Faithfulness, Stats, error) {
	return judgeEach(ctx, j, "answer", items, progress, j.faithCached, j.oneFaith,
		func(f Faithfulness) bool { return f.Status == Judged },
		func(why string) Faithfulness { return Faithfulness{Status: Skipped, Detail: why, Claims: []Claim{}} })
}

func (j *Judge) oneFaith(ctx context.Context, it FaithItem) (Faithfulness, retrieval.Usage, error) {
	var buf bytes.Buffer
	if err := j.faith.user.Execute(&buf, struct {
		Question, Answer string
		Sources          []Source
	}{it.Question, strings.TrimSpace(it.Answer), it.Sources}); err != nil {
		return Faithfulness{Status: Failed, Detail: err.Error(), Claims: []Claim{}}, retrieval.Usage{}, fmt.Errorf("judge prompt: %w", err)
	}
	p := retrieval.Prompt{Instruction: j.faith.system, Question: strings.TrimSpace(buf.String()), Schema: faithSchema()}
	text, usage, err := j.ask(ctx, p)
	if err != nil {
		return Faithfulness{Status: Failed, Detail: oneLine(err.Error()), Claims: []Claim{}}, usage, err
	}
	f := parseFaithfulness(text)
	if f.Status == Judged {
		if b, err := json.Marshal(struct {
			Claims []Claim `json:"claims"`
		}{f.Claims}); err == nil {
			j.put(j.faithKey(it), b)
		}
	}
	return f, usage, nil
}

// parseFaithfulness reads a faithfulness answer tolerantly: a JSON object
// with a "claims" array (in any case, in a fence or amid text); each claim
// needs its text, and "supported" as a boolean or yes/no/true/false
// (anything else leaves that claim without a verdict). No claims array is
// Invalid.
func parseFaithfulness(text string) Faithfulness {
	f := Faithfulness{Claims: []Claim{}}
	obj, ok := chattask.FindObject(text)
	var fields map[string]json.RawMessage
	if !ok || json.Unmarshal(obj, &fields) != nil {
		f.Status, f.Detail = Invalid, "the answer is not a JSON object: "+excerpt(text)
		return f
	}
	raw, ok := chattask.Field(fields, "claims")
	var items []map[string]json.RawMessage
	if !ok || json.Unmarshal(raw, &items) != nil {
		f.Status, f.Detail = Invalid, "the answer has no list of claims: "+excerpt(text)
		return f
	}
	for _, it := range items {
		if len(f.Claims) == MaxClaims {
			break
		}
		var c Claim
		if r, ok := chattask.Field(it, "claim"); ok {
			_ = json.Unmarshal(r, &c.Text)
		}
		c.Text = oneLine(c.Text)
		if c.Text == "" {
			continue
		}
		if r, ok := chattask.Field(it, "supported"); ok {
			c.Supported = chattask.Verdict(r)
		}
		if r, ok := chattask.Field(it, "reason"); ok {
			_ = json.Unmarshal(r, &c.Reason)
		}
		c.Reason = oneLine(c.Reason)
		c.Sources = []int{}
		if r, ok := chattask.Field(it, "sources"); ok {
			var raws []json.RawMessage
			_ = json.Unmarshal(r, &raws)
			for _, s := range raws {
				if n, ok := sourceNumber(s); ok {
					c.Sources = append(c.Sources, n)
				}
			}
		}
		f.Claims = append(f.Claims, c)
		if c.Supported != nil {
			f.Judged++
			if *c.Supported {
				f.Supported++
			}
		}
	}
	f.Status = Judged
	if f.Judged > 0 {
		s := float64(f.Supported) / float64(f.Judged)
		f.Share = &s
	}
	return f
}

// sourceNumber reads 2, "2" or "Source 2".
func sourceNumber(raw json.RawMessage) (int, bool) {
	if n, ok := integer(raw); ok && n > 0 {
		return n, true
	}
	var s string
	if json.Unmarshal(raw, &s) != nil {
		return 0, false
	}
	s = strings.TrimSpace(strings.TrimPrefix(strings.TrimSuffix(strings.TrimPrefix(strings.TrimSpace(s), "["), "]"), "Source"))
	n, err := strconv.Atoi(strings.TrimSpace(s))
	return n, err == nil && n > 0
}
