package eval

import (
	"encoding/json"
	"fmt"
	"io"
	"ragscope/retrieval/assess/explain"
	"sort"
	"strings"
	"time"

	"ragscope/internal/jsonsafe"
	"ragscope/retrieval"
	"ragscope/retrieval/assess/judge"
)

// Schema names the version of the JSON report. Fields are only ever added
// within a version.
const Schema = "ragscope.eval/v1"

// Status is a case's outcome.
type Status string

// Case statuses. Only StatusFail and StatusError fail a run by themselves;
// misses count against the run's hit@k, MRR and keyword thresholds.
const (
	// StatusPass: every expectation and check was met.
	StatusPass Status = "pass"
	// StatusMiss: no relevant hit in the top k, or expected keywords missing.
	StatusMiss Status = "miss"
	// StatusFail: a hard check failed (latency, no-answer, selected-text).
	StatusFail Status = "fail"
	// StatusError: the case could not run (embedding or search error).
	StatusError Status = "error"
)

// answerCheck is CaseResult.AnswerCheck for c.
func answerCheck(c Case) string {
	if checks := c.Expect.AnswerChecks(); len(checks) > 0 {
		return "not run: " + strings.Join(checks, ", ")
	}
	return ""
}

// String returns the status's name.
func (s Status) String() string { return string(s) }

// Kind is what a case checks.
type Kind string

// Case kinds.
const (
	// KindRanking: a normal question with module/chapter/doc/URL expectations.
	KindRanking Kind = "ranking"
	// KindKeywords: a normal question that only lists keywords.
	KindKeywords Kind = "keywords"
	// KindNoAnswer: nothing relevant should reach the threshold.
	KindNoAnswer Kind = "no_answer"
	// KindSelectedText: a selected-text question (no vector search).
	KindSelectedText Kind = "selected_text"
	// KindUnlabelled: a normal question with no expectation at all (as
	// golden import writes them); only a judge (eval --judge) measures it.
	KindUnlabelled Kind = "unlabelled"
)

// String returns the kind's name.
func (k Kind) String() string { return string(k) }

// KindOf returns the kind of c.
func KindOf(c Case) Kind {
	switch {
	case c.mode() == retrieval.ModeSelectedText:
		return KindSelectedText
	case c.Expect.NoAnswer:
		return KindNoAnswer
	case c.Expect.HasRelevance():
		return KindRanking
	case len(c.Expect.Keywords) == 0 && len(c.Expect.AnswerChecks()) == 0:
		return KindUnlabelled
	}
	return KindKeywords
}

// Latency is a case's latency in milliseconds. EmbedMS is the case's share
// of its batch's embed call (call time / texts in the batch); EmbedCallMS
// is the whole call; SearchMS is the batch's search call (a case run alone
// for the latency sample has its own three). TotalMS = EmbedMS + SearchMS
// + PostMS (and its rerank call), not the time it waited behind the
// batch's other cases.
type Latency struct {
	EmbedMS     float64 `json:"embed_ms"`
	EmbedCallMS float64 `json:"embed_call_ms"`
	SearchMS    float64 `json:"search_ms"`
	PostMS      float64 `json:"post_ms"`
	TotalMS     float64 `json:"total_ms"`
}

// HitResult is one retrieved chunk as the evaluation saw it.
type HitResult struct {
	// Rank is the kept rank (0 for a hit the threshold cut).
	Rank     int     `json:"rank"`
	Score    float64 `json:"score"`
	Grade    int     `json:"grade"`
	Relevant bool    `json:"relevant"`
	ChunkID  string  `json:"chunk_id"`
	Title    string  `json:"title"`
	Section  string  `json:"section"`
	DocPath  string  `json:"doc_path"`
	URL      string  `json:"url"`
	Module   string  `json:"module"`
	Chapter  string  `json:"chapter"`
	// Metadata is the fraction of text, URL, title, section and
	// module-or-chapter the hit has; MissingMetadata names the rest.
	Metadata        float64  `json:"metadata"`
	MissingMetadata []string `json:"missing_metadata,omitempty"`
	// BelowThreshold marks a hit the run's threshold cut: it does not count
	// in the metrics but its score feeds the calibration.
	BelowThreshold bool `json:"below_threshold,omitempty"`
	// NotRelevant marks a kept hit the case's author marked not relevant
	// (expect.not_relevant) and no expectation makes relevant.
	NotRelevant bool `json:"not_relevant,omitempty"`
	// Judge is the judge's grade of a kept hit (eval --judge).
	Judge *judge.Judgement `json:"judge,omitempty"`
}

// CaseResult is the outcome of one case.
type CaseResult struct {
	// Index is the case's position in the set (report order).
	Index    int            `json:"index"`
	ID       string         `json:"id"`
	Question string         `json:"question"`
	Category string         `json:"category"`
	Kind     Kind           `json:"kind"`
	Mode     retrieval.Mode `json:"mode"`
	// Query is the query as run; a UI can open it as a normal query turn.
	Query  retrieval.Query `json:"query"`
	Status Status          `json:"status"`
	// Reasons say why the case did not pass (empty when it passed).
	Reasons []string `json:"reasons"`
	// Ranking metrics (ranking cases; zero otherwise).
	HitAt1            bool    `json:"hit_at_1"`
	HitAtK            bool    `json:"hit_at_k"`
	FirstRelevantRank int     `json:"first_relevant_rank"`
	ReciprocalRank    float64 `json:"reciprocal_rank"`
	NDCG              float64 `json:"ndcg"`
	Recall            float64 `json:"recall"`
	// KnownItems and FoundItems are recall's denominator and numerator
	// (0 and 0 when the case names no doc path or URL).
	KnownItems int `json:"known_items"`
	FoundItems int `json:"found_items"`
	// KeywordCoverage is nil when the case lists no keywords.
	KeywordCoverage *float64 `json:"keyword_coverage"`
	MissingKeywords []string `json:"missing_keywords,omitempty"`
	// MetadataCompleteness is nil when there was no hit.
	MetadataCompleteness *float64 `json:"metadata_completeness"`
	// TopScore is the best kept score (nil with no hit).
	TopScore *float64 `json:"top_score"`
	Latency  Latency  `json:"latency"`
	// Arms, after a fused (hybrid) search, are the case's figures with
	// each arm's own ranking alone (ranking cases).
	Arms []ArmFigures `json:"arms,omitempty"`
	// Hits are the kept hits in rank order, then the hits the threshold cut.
	Hits  []HitResult `json:"hits"`
	Error string      `json:"error,omitempty"`
	// AnswerCheck is "not run: refuse, answer_keywords" when the case
	// carries answer-level expectations and the run generates no answers;
	// with answers (Options.Generator) it is "pass", "fail: …" or "error".
	AnswerCheck string `json:"answer_check,omitempty"`
	// Answer is the generated answer (eval --answer), nil otherwise.
	Answer *AnswerResult `json:"answer,omitempty"`
	// Judged are the case's label-free figures (eval --judge).
	Judged *CaseJudged `json:"judged,omitempty"`
	// Expected says, for a missed ranking case, where its expected pages
	// went (rank, score, the stage that cut each); also in Reasons.
	Expected []retrieval.Expected `json:"expected,omitempty"`
	// FilterPoints is how many points a filtered case's filter leaves
	// (nil without a filter, or when the backend cannot count).
	FilterPoints *int64 `json:"filter_points,omitempty"`
	// Labels are the figures of the author's not-relevant marks (nil when
	// the case has none).
	Labels *CaseLabels `json:"labels,omitempty"`
	// Expect is the case's expectation, for a UI that opens the case (the
	// explorer shows its marks); not in the JSON report.
	Expect Expect `json:"-"`
}

// IsHit is the case's "hit" for baseline comparison: hit@k for ranking
// cases, passing for the others.
func (c CaseResult) IsHit() bool {
	if c.Kind == KindRanking {
		return c.HitAtK
	}
	return c.Status == StatusPass
}

// LatencySummary aggregates total latency over the normal-mode cases that
// ran (selected-text cases do no I/O and would flatter the figures).
type LatencySummary struct {
	// P50MS and P95MS are nearest-rank percentiles of TotalMS.
	P50MS        float64 `json:"p50_ms"`
	P95MS        float64 `json:"p95_ms"`
	MeanMS       float64 `json:"mean_ms"`
	MaxMS        float64 `json:"max_ms"`
	MeanEmbedMS  float64 `json:"mean_embed_ms"`
	MeanSearchMS float64 `json:"mean_search_ms"`
	// Cases is the number of latencies aggregated.
	Cases int `json:"cases"`
}

// Summary aggregates case results. Ranking metrics are means over ranking
// cases (an errored ranking case counts as a miss).
// ArmFigures are hit@k and the reciprocal rank (per case) or their means
// (in a summary) of one arm of a fused search ranked alone.
type ArmFigures struct {
	Label  string  `json:"label"`
	Vector string  `json:"vector"`
	HitAtK float64 `json:"hit_at_k"`
	MRR    float64 `json:"mrr"`
}

type Summary struct {
	Cases        int `json:"cases"`
	Passed       int `json:"passed"`
	Missed       int `json:"missed"`
	Failed       int `json:"failed"`
	Errors       int `json:"errors"`
	RankingCases int `json:"ranking_cases"`
	// Unlabelled counts the cases with no expectation: they pass unless a
	// case check (an error) fails them, never by ranking.
	Unlabelled int     `json:"unlabelled"`
	HitAt1     float64 `json:"hit_at_1"`
	HitAtK     float64 `json:"hit_at_k"`
	MRR        float64 `json:"mrr"`
	NDCG       float64 `json:"ndcg"`
	Recall     float64 `json:"recall"`
	// Arms, after a fused (hybrid) search, are hit@k and MRR of each arm
	// alone over the ranking cases, beside the fused HitAtK and MRR.
	Arms []ArmFigures `json:"arms,omitempty"`
	// KeywordCoverage is the mean over cases with keywords (nil: none).
	KeywordCoverage *float64 `json:"keyword_coverage"`
	// MetadataCompleteness is the mean over every kept hit of normal-mode
	// cases (nil: no hit).
	MetadataCompleteness *float64       `json:"metadata_completeness"`
	Latency              LatencySummary `json:"latency"`
	// AnswerChecksNotRun counts the cases with answer-level expectations
	// (refuse, answer keywords) that were not checked: the run generated
	// no answers.
	AnswerChecksNotRun int `json:"answer_checks_not_run"`
	// Answers counts the answers generated (eval --answer), and
	// AnswerChecksFailed those whose answer-level checks failed.
	Answers            int `json:"answers,omitempty"`
	AnswerChecksFailed int `json:"answer_checks_failed,omitempty"`
	// CitationCoverage is the share of answered ranking cases whose answer
	// cites at least one relevant hit (nil: no answers).
	CitationCoverage *float64 `json:"citation_coverage,omitempty"`
	// LabelledCases counts the cases with hits marked not relevant;
	// LabelledPrecision is the mean of their precision over labelled hits
	// (nil: none labelled a top-k hit), and NotRelevantAbove the cases
	// where a hit marked not relevant ranked above the relevant one.
	LabelledCases     int      `json:"labelled_cases,omitempty"`
	LabelledPrecision *float64 `json:"labelled_precision,omitempty"`
	NotRelevantAbove  int      `json:"not_relevant_above_relevant,omitempty"`
}

// SampleMethod describes how LatencySample was measured.
const SampleMethod = "single queries run beside the batched run, each embedding its question in its own call and searching alone"

// LatencySample is query latency measured on cases re-run singly: a
// batched run shares each embed and search call among many questions, so
// its per-case times are not a question's latency.
type LatencySample struct {
	Method string  `json:"method"`
	Cases  int     `json:"cases"`
	P50MS  float64 `json:"p50_ms"`
	P95MS  float64 `json:"p95_ms"`
	MaxMS  float64 `json:"max_ms"`
	// IDs are the sampled cases.
	IDs []string `json:"ids"`
}

// MarshalJSON writes s with its ranking metrics (hit@1, hit@k, MRR, nDCG,
// recall) null when no ranking case ran: a mean over no case is not 0.
func (s Summary) MarshalJSON() ([]byte, error) {
	type plain Summary
	if s.RankingCases > 0 {
		return json.Marshal(plain(s))
	}
	return json.Marshal(struct {
		plain
		HitAt1 *float64 `json:"hit_at_1"`
		HitAtK *float64 `json:"hit_at_k"`
		MRR    *float64 `json:"mrr"`
		NDCG   *float64 `json:"ndcg"`
		Recall *float64 `json:"recall"`
	}{plain: plain(s)})
}

// CategorySummary is the summary of one category ("" for uncategorised).
type CategorySummary struct {
	Category string `json:"category"`
	Summary
}

// MarshalJSON writes the category's name and its Summary's fields (the
// Summary's own MarshalJSON would otherwise stand for the whole).
func (c CategorySummary) MarshalJSON() ([]byte, error) {
	sum, err := c.Summary.MarshalJSON()
	if err != nil {
		return nil, err
	}
	name, err := json.Marshal(c.Category)
	if err != nil {
		return nil, err
	}
	out := append([]byte(`{"category":`), name...)
	if len(sum) > 2 {
		out = append(out, ',')
	}
	return append(out, sum[1:]...), nil
}

// BackendInfo names what answered.
type BackendInfo struct {
	Backend    string `json:"backend"`
	Collection string `json:"collection"`
	Model      string `json:"model"`
	// Ranking is how the store ranked (retrieval.Params.Ranking): "" for
	// vector similarity, "hybrid" or "bm25" on the local index.
	Ranking string `json:"ranking,omitempty"`
}

// RunParams are the parameters of a run.
type RunParams struct {
	// TopK is the default top_k (cases may override it).
	TopK        int     `json:"top_k"`
	Threshold   float64 `json:"threshold"`
	Concurrency int     `json:"concurrency"`
	BatchSize   int     `json:"batch_size"`
	// EmbedCalls is the number of Embedder.Embed calls made.
	EmbedCalls int `json:"embed_calls"`
}

// Report is the outcome of a run, serialised as the "ragscope.eval/v1" JSON
// document.
type Report struct {
	Schema    string      `json:"schema"`
	Set       string      `json:"set"`
	Source    string      `json:"source,omitempty"`
	Backend   BackendInfo `json:"backend"`
	StartedAt time.Time   `json:"started_at"`
	// WallMS is the run's wall time.
	WallMS float64   `json:"wall_ms"`
	Params RunParams `json:"params"`
	// ThroughputPerSec is cases per second over the batched run.
	ThroughputPerSec float64 `json:"throughput_per_s"`
	// LatencySample is query latency on cases run singly (nil: none ran);
	// max_p95_ms is judged on it when present.
	LatencySample *LatencySample `json:"latency_sample,omitempty"`
	Thresholds    Thresholds     `json:"thresholds"`
	// Passed is true when no threshold and no case check failed.
	Passed bool `json:"passed"`
	// Reasons say why the run failed (empty when it passed).
	Reasons []string `json:"reasons"`
	// Notes say what the run could not show and why (a store that
	// refused Count); they do not fail it.
	Notes []string `json:"notes,omitempty"`
	// Verdict is one line naming the rule that decided the run: "all 20
	// cases passed", "2 misses allowed by min_hit_at_k 0.80", "1 case
	// missed and no thresholds are set: must-miss", …
	Verdict     string            `json:"verdict"`
	Summary     Summary           `json:"summary"`
	Categories  []CategorySummary `json:"categories"`
	Calibration Calibration       `json:"calibration"`
	Cases       []CaseResult      `json:"cases"`
	// Baseline is the comparison with a previous report, when asked for.
	Baseline *Diff `json:"baseline,omitempty"`
	// Rerank compares the reranked run with the vector order.
	Rerank *RerankReport `json:"rerank,omitempty"`
	// Judging is the judge's report (eval --judge).
	Judging *JudgeReport `json:"judging,omitempty"`
	// ANN compares approximate and exact search (eval --ann-check).
	ANN *ANNReport `json:"ann_check,omitempty"`
	// Unlabelled is what the unlabelled cases show without labels: their
	// best-score distribution and content gaps (nil: none in the run).
	Unlabelled *UnlabelledReport `json:"unlabelled,omitempty"`
	// Explain is eval --explain's: the set's vocabulary gaps across its
	// missed cases and each miss explained (nil without --explain).
	Explain *explain.SetReport `json:"explain,omitempty"`
}

// WriteJSON writes r as indented JSON, C1 and bidi controls escaped
// (jsonsafe).
func (r Report) WriteJSON(w io.Writer) error {
	if err := jsonsafe.Encode(w, r); err != nil {
		return fmt.Errorf("write report: %w", err)
	}
	return nil
}

// ReadReport decodes a JSON report written by WriteJSON (a baseline).
func ReadReport(rd io.Reader) (Report, error) {
	var r Report
	if err := json.NewDecoder(rd).Decode(&r); err != nil {
		return Report{}, fmt.Errorf("read report: %w", err)
	}
	if !strings.HasPrefix(r.Schema, "ragscope.eval/") {
		return Report{}, fmt.Errorf("read report: schema %q is not a ragscope eval report (want %s)", r.Schema, Schema)
	}
	if r.Schema != Schema {
		return Report{}, fmt.Errorf("read report: schema %q is not supported (want %s)", r.Schema, Schema)
	}
	return r, nil
}

// Summarize aggregates results (see Summary for which cases count where).
func Summarize(results []CaseResult) Summary {
	var s Summary
	var sums summarySums
	for _, c := range results {
		s.count(c)
		sums.add(&s, c)
	}
	sums.fill(&s)
	labelsSummary(&s, results)
	return s
}

// count counts c by status and kind.
func (s *Summary) count(c CaseResult) {
	s.Cases++
	switch c.Status {
	case StatusPass:
		s.Passed++
	case StatusMiss:
		s.Missed++
	case StatusFail:
		s.Failed++
	case StatusError:
		s.Errors++
	}
	if c.Kind == KindUnlabelled {
		s.Unlabelled++
	}
}

// summarySums gather the cases' figures that a Summary gives the mean or
// a percentile of.
type summarySums struct {
	hit1, hitk, rr, ndcg, rec, kw, lat, emb, srch []float64
	mdSum                                         float64
	mdN, citing, citesRelevant                    int
}

// add takes c's figures: ranking metrics (and the arms'), keyword
// coverage, answers and, for a case that searched, its latency and
// metadata completeness.
func (a *summarySums) add(s *Summary, c CaseResult) {
	if c.Kind == KindRanking {
		s.RankingCases++
		a.hit1 = append(a.hit1, b2f(c.HitAt1))
		a.hitk = append(a.hitk, b2f(c.HitAtK))
		a.rr = append(a.rr, c.ReciprocalRank)
		a.ndcg = append(a.ndcg, c.NDCG)
		a.rec = append(a.rec, c.Recall)
		addArms(s, c.Arms)
	}
	if c.KeywordCoverage != nil {
		a.kw = append(a.kw, *c.KeywordCoverage)
	}
	if strings.HasPrefix(c.AnswerCheck, "not run") {
		s.AnswerChecksNotRun++
	}
	if ans := c.Answer; ans != nil && ans.Error == "" {
		s.Answers++
		if strings.HasPrefix(c.AnswerCheck, "fail") {
			s.AnswerChecksFailed++
		}
		if ans.CitesRelevant != nil {
			a.citing++
			if *ans.CitesRelevant {
				a.citesRelevant++
			}
		}
	}
	if c.Mode != retrieval.ModeSelectedText && c.Status != StatusError {
		a.lat = append(a.lat, c.Latency.TotalMS)
		a.emb = append(a.emb, c.Latency.EmbedMS)
		a.srch = append(a.srch, c.Latency.SearchMS)
		for _, h := range c.Hits {
			if !h.BelowThreshold {
				a.mdSum += metadataScore(h)
				a.mdN++
			}
		}
	}
}

// fill sets s's means, shares and latency percentiles from the sums.
func (a *summarySums) fill(s *Summary) {
	s.HitAt1, s.HitAtK, s.MRR, s.NDCG, s.Recall = Mean(a.hit1), Mean(a.hitk), Mean(a.rr), Mean(a.ndcg), Mean(a.rec)
	for i := range s.Arms {
		if s.RankingCases > 0 {
			s.Arms[i].HitAtK /= float64(s.RankingCases)
			s.Arms[i].MRR /= float64(s.RankingCases)
		}
	}
	if len(a.kw) > 0 {
		m := Mean(a.kw)
		s.KeywordCoverage = &m
	}
	if a.citing > 0 {
		m := float64(a.citesRelevant) / float64(a.citing)
		s.CitationCoverage = &m
	}
	if a.mdN > 0 {
		m := a.mdSum / float64(a.mdN)
		s.MetadataCompleteness = &m
	}
	s.Latency = LatencySummary{
		P50MS: Percentile(a.lat, 50), P95MS: Percentile(a.lat, 95), MeanMS: Mean(a.lat),
		MeanEmbedMS: Mean(a.emb), MeanSearchMS: Mean(a.srch), Cases: len(a.lat),
	}
	for _, v := range a.lat {
		if v > s.Latency.MaxMS {
			s.Latency.MaxMS = v
		}
	}
}

// Categorize returns one summary per category, sorted by name.
func Categorize(results []CaseResult) []CategorySummary {
	by := map[string][]CaseResult{}
	for _, c := range results {
		by[c.Category] = append(by[c.Category], c)
	}
	out := make([]CategorySummary, 0, len(by))
	for cat, cs := range by {
		out = append(out, CategorySummary{Category: cat, Summary: Summarize(cs)})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Category < out[j].Category })
	return out
}

func metadataScore(h HitResult) float64 { return h.Metadata }

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// addArms adds a ranking case's arm figures to the summary's sums (means
// once every case is in). Cases with other arms than the first one's
// (never, in one run) are left out.
func addArms(s *Summary, arms []ArmFigures) {
	if len(arms) == 0 {
		return
	}
	if s.Arms == nil {
		s.Arms = make([]ArmFigures, len(arms))
		for i, a := range arms {
			s.Arms[i] = ArmFigures{Label: a.Label, Vector: a.Vector}
		}
	}
	if len(s.Arms) != len(arms) {
		return
	}
	for i, a := range arms {
		s.Arms[i].HitAtK += a.HitAtK
		s.Arms[i].MRR += a.MRR
	}
}
