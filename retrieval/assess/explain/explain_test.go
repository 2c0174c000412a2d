package explain

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"ragscope/retrieval"
	"ragscope/retrieval/assess/chunkaudit"
	"ragscope/retrieval/store/local"
	"ragscope/retrieval/store/local/embed"
)

// fixture is a small local index whose pages make every part of an
// explanation reachable: the expected page says "curriculum" and "joint"
// where the question says "course" and "joints"; a logistics page repeats
// "course" and wins.
func fixture(t *testing.T) (*retrieval.Pipeline, *local.Index) {
	t.Helper()
	long := strings.Repeat("Motors drive each joint through a gearbox and an encoder reads its angle. ", 60)
	chunks := []retrieval.Chunk{
		{ID: "a", DocPath: "docs/curriculum.md", Title: "Curriculum", Section: "Overview", Text: "## Overview\nThe curriculum covers speech recognition and how a robot joint is controlled by a motor."},
		{ID: "b", DocPath: "docs/logistics.md", Title: "Logistics", Section: "Schedule", Text: "## Schedule\nThe course meets weekly. Every course session has a lab; the course ends with a project.", Module: "admin"},
		{ID: "c", DocPath: "docs/sensors.md", Title: "Sensors", Section: "Lidar", Text: "## Lidar\nA lidar measures distance with laser pulses and builds a point cloud."},
		{ID: "d", DocPath: "docs/motors.md", Title: "Motors", Section: "Drives", Text: "## Drives\n" + long},
		{ID: "e", DocPath: "docs/nav.md", Title: "Navigation", Section: "Costmaps", Text: "## Costmaps\nA costmap marks obstacles so the planner avoids them."},
		{ID: "f", DocPath: "docs/sim.md", Title: "Simulation", Section: "Gazebo", Text: "## Gazebo\nGazebo simulates physics, sensors and a robot in a world."},
	}
	texts := make([]string, len(chunks))
	for i := range chunks {
		texts[i] = chunks[i].Text
	}
	m := embed.New(texts)
	vecs, err := m.Embed(context.Background(), texts)
	if err != nil {
		t.Fatal(err)
	}
	ix, err := local.NewIndex(chunks, vecs, local.IndexInfo{Backend: "local", Name: "fixture", Model: m.Name()})
	if err != nil {
		t.Fatal(err)
	}
	return &retrieval.Pipeline{Embedder: m, Store: ix, Backend: "local", Collection: "fixture"}, ix
}

// run diagnoses question for refs and explains the expected sources and
// the #1 hit.
func run(t *testing.T, p *retrieval.Pipeline, x *Explainer, q retrieval.Query, refs ...string) (retrieval.Result, []retrieval.Expected, Report) {
	t.Helper()
	ctx := context.Background()
	var rs []retrieval.ExpectRef
	for _, r := range refs {
		er, err := retrieval.ParseExpectRef(r)
		if err != nil {
			t.Fatal(err)
		}
		rs = append(rs, er)
	}
	if q.TopK == 0 {
		q.TopK = 1
	}
	q.Mode = retrieval.ModeNormal
	pend := x.Start(ctx, q.Question)
	res, d, err := p.Diagnose(ctx, q, rs, false)
	if err != nil {
		t.Fatal(err)
	}
	var targets []Target
	if len(res.Hits) > 0 {
		targets = append(targets, Target{ID: res.Hits[0].Chunk.ID, Rank: 1})
	}
	for i := range d.Expected {
		targets = append(targets, Target{ID: d.Expected[i].PointID, Rank: d.Expected[i].Rank, Expected: &d.Expected[i]})
	}
	rep, err := x.Explain(ctx, pend, q, &res, targets)
	if err != nil {
		t.Fatal(err)
	}
	return res, d.Expected, rep
}

func explainer(p *retrieval.Pipeline, ix *local.Index) *Explainer {
	return &Explainer{Store: ix, Embedder: p.Embedder, Ranking: ix.Ranking(), Limit: chunkaudit.Limit{Model: ix.Info().Model, Known: true}}
}

func term(e *Explanation, w string) Term {
	for _, t := range e.Terms {
		if t.Term == w {
			return t
		}
	}
	return Term{}
}

func TestExplainTheWordsAndTheBM25Parts(t *testing.T) {
	p, ix := fixture(t)
	_, exp, rep := run(t, p, explainer(p, ix), retrieval.Query{Question: "What does the course teach about robot joints?"}, "docs/curriculum.md")
	if exp[0].Cut != retrieval.CutTopK {
		t.Fatalf("the fixture should cut the expected page by top_k: %+v", exp[0])
	}
	win, e := rep.Explained[0], rep.Explained[1]
	if win.ChunkID != "b" || e.ChunkID != "a" {
		t.Fatalf("explained %s and %s, want the logistics page (#1) and the curriculum", win.ChunkID, e.ChunkID)
	}
	if got := QuestionTerms("What does the course teach about robot joints?"); !slices.Equal(got, []string{"course", "teach", "robot", "joints"}) {
		t.Fatalf("question terms %v", got)
	}
	if c := term(win, "course"); !c.InText || c.Count != 3 {
		t.Errorf("winner's course: %+v, want in text ×3", c)
	}
	if r := term(e, "robot"); !r.InText || r.Count != 1 || r.InTitle {
		t.Errorf("robot: %+v", r)
	}
	if j := term(e, "joints"); j.InText || j.Form != "joint" {
		t.Errorf("joints: %+v, want absent with the form joint", j)
	}
	var course *Missing
	for i := range e.Missing {
		if e.Missing[i].Term == "course" {
			course = &e.Missing[i]
		}
	}
	if course == nil || len(course.Nearest) == 0 || course.Nearest[0].Word != "curriculum" {
		t.Fatalf("course's nearest words in the chunk: %+v, want curriculum first", course)
	}
	// The parts add up to the score the search gave.
	for _, x := range []*Explanation{e, win} {
		sum := *x.TitleContribution
		for _, t := range x.Terms {
			sum += *t.Contribution
		}
		if math.Abs(sum-x.Score) > 1e-6 {
			t.Errorf("%s: parts add to %.6f, the score is %.6f", x.ChunkID, sum, x.Score)
		}
	}
	if ct := term(e, "course").Contribution; ct == nil || *ct != 0 {
		t.Errorf("an absent word contributes %v", ct)
	}
	if e.AttributionNote == "" || len(e.Attribution) > 0 {
		t.Errorf("BM25 needs no leave-one-out: %+v %q", e.Attribution, e.AttributionNote)
	}
	if e.Versus == nil || !slices.Equal(e.Versus.WinnerOnly, []string{"course"}) || !slices.Contains(e.Versus.ExpectedOnly, "robot") {
		t.Fatalf("versus: %+v", e.Versus)
	}
	want := []string{
		fmt.Sprintf("-k %d would include it (it ranks #%d)", exp[0].Rank, exp[0].Rank),
		`the page lacks "course" (it says "curriculum"`,
		`the page says "joint" where the question says "joints"`,
		`the #1 hit wins on "course", which this chunk lacks`,
	}
	for _, w := range want {
		if !slices.ContainsFunc(e.Suggestions, func(s string) bool { return strings.HasPrefix(s, w) }) {
			t.Errorf("no suggestion %q in %q", w, e.Suggestions)
		}
	}
}

// Each cut has its suggestion, reachable on purpose in the fixture.
func TestSuggestionsFromTheCuts(t *testing.T) {
	p, ix := fixture(t)
	x := explainer(p, ix)
	cases := []struct {
		name string
		q    retrieval.Query
		ref  string
		want string
	}{
		{"threshold", retrieval.Query{Question: "what does a lidar measure for a robot?", TopK: 5, Threshold: 0.9}, "docs/sensors.md", "--threshold 0."},
		{"filter leaves nothing", retrieval.Query{Question: "what does a lidar measure?", TopK: 5, Filters: retrieval.Filters{Modules: []string{"nowhere"}}}, "docs/sensors.md", "the filter leaves 0 points: "},
		{"filter cuts it", retrieval.Query{Question: "what does a lidar measure?", TopK: 5, Filters: retrieval.Filters{Modules: []string{"admin"}}}, "docs/sensors.md", "the filter module=admin leaves it out"},
		{"top_k", retrieval.Query{Question: "how does the robot joint motor work in gazebo?", TopK: 1}, "docs/sim.md", "-k "},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, exp, rep := run(t, p, x, c.q, c.ref)
			e := rep.Explained[len(rep.Explained)-1]
			if e == nil {
				t.Fatalf("not explained: %+v", exp)
			}
			if !slices.ContainsFunc(e.Suggestions, func(s string) bool { return strings.HasPrefix(s, c.want) }) {
				t.Fatalf("cut %s: suggestions %q, want one starting %q", exp[0].Cut, e.Suggestions, c.want)
			}
		})
	}
}

// A chunk longer than the model's input limit says so.
func TestSuggestionOverTheModelsLimit(t *testing.T) {
	p, ix := fixture(t)
	x := explainer(p, ix)
	x.Limit = chunkaudit.Limit{Model: "embed-english-v3.0", Tokens: 512, Known: true}
	_, _, rep := run(t, p, x, retrieval.Query{Question: "what reads the angle of a costmap?", TopK: 1}, "docs/motors.md")
	e := rep.Explained[len(rep.Explained)-1]
	if e.Tokens <= 512 || e.TokenLimit != 512 {
		t.Fatalf("tokens %d of %d", e.Tokens, e.TokenLimit)
	}
	want := "the expected chunk is " + thousands(e.Tokens) + " tokens, over the model's 512: the match may sit in the text the model never saw"
	if !slices.Contains(e.Suggestions, want) {
		t.Fatalf("suggestions %q, want %q", e.Suggestions, want)
	}
}

func TestVariants(t *testing.T) {
	vs, note := Variants("How do ROS 2 nodes talk to nodes?")
	var texts []string
	for _, v := range vs {
		texts = append(texts, v.Word+"="+v.Text)
	}
	want := []string{"ros2=How do nodes talk to nodes?", "nodes=How do ROS 2 talk to ?", "talk=How do ROS 2 nodes to nodes?"}
	if note != "" || !slices.Equal(texts, want) {
		t.Fatalf("variants %q (%q), want %q", texts, note, want)
	}
	if vs, note := Variants("joints?"); len(vs) != 0 || note != "a one-word question has no word to leave out" {
		t.Fatalf("one word: %v %q", vs, note)
	}
}

// failingEmbedder embeds one text at a time and fails a batch (the
// leave-one-out call), counting calls.
type failingEmbedder struct {
	retrieval.Embedder
	calls int
}

func (f *failingEmbedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	f.calls++
	if len(texts) > 1 {
		return nil, errors.New("503 from the provider")
	}
	return f.Embedder.Embed(ctx, texts)
}

// In the hybrid mode the offline embedder's share is attributed by
// leave-one-out; a failed embed call leaves the lexical table and says
// what failed; no embedder says why there is no attribution.
func TestAttributionAndItsAbsence(t *testing.T) {
	p, ix := fixture(t)
	hy, err := ix.WithMode(local.ModeHybrid)
	if err != nil {
		t.Fatal(err)
	}
	p.Store = hy
	q := retrieval.Query{Question: "What does the course teach about robot joints?"}
	x := &Explainer{Store: hy, Embedder: p.Embedder, Ranking: hy.Ranking()}
	_, _, rep := run(t, p, x, q, "docs/curriculum.md")
	e := rep.Explained[1]
	if len(e.Attribution) != 4 || e.Cosine == nil {
		t.Fatalf("attribution %+v, cosine %v", e.Attribution, e.Cosine)
	}
	sum := *e.TitleContribution + *e.CosineContribution
	for _, t := range e.Terms {
		sum += *t.Contribution
	}
	if math.Abs(sum-e.Score) > 1e-6 {
		t.Fatalf("hybrid parts add to %.6f, the score is %.6f", sum, e.Score)
	}

	fe := &failingEmbedder{Embedder: p.Embedder}
	x.Embedder = fe
	_, _, rep = run(t, p, x, q, "docs/curriculum.md")
	e = rep.Explained[1]
	if len(e.Attribution) != 0 || e.AttributionNote != "the leave-one-out embed call failed" || len(e.Terms) != 4 {
		t.Fatalf("after a failed call: %+v %q, %d terms", e.Attribution, e.AttributionNote, len(e.Terms))
	}
	if len(rep.Notes) != 1 || !strings.Contains(rep.Notes[0], "503 from the provider") {
		t.Fatalf("notes %q", rep.Notes)
	}

	x.Embedder, x.NoEmbedder = nil, "COHERE_API_KEY is not set"
	_, _, rep = run(t, p, x, q, "docs/curriculum.md")
	if e := rep.Explained[1]; e == nil || e.AttributionNote != "COHERE_API_KEY is not set" || len(e.Terms) != 4 {
		t.Fatalf("without an embedder: %+v", e)
	}
}

// firstFirst is a reranker that gives document i the relevance rel[i]
// (0.9 − i/100 when not given: the vector order).
type firstFirst struct{ rel []float64 }

func (f firstFirst) Name() string { return "first-first" }

func (f firstFirst) Rerank(_ context.Context, _ string, docs []string, topN int) ([]retrieval.Relevance, error) {
	var out []retrieval.Relevance
	for i := range docs {
		r := 0.9 - float64(i)/100
		if i < len(f.rel) {
			r = f.rel[i]
		}
		out = append(out, retrieval.Relevance{Index: i, Score: r})
	}
	slices.SortStableFunc(out, func(a, b retrieval.Relevance) int { return cmp.Compare(b.Score, a.Score) })
	return out[:min(topN, len(out))], nil
}

// After a rerank, the way past a cut reads the reranker's record: a
// chunk beyond the candidates sent to the reranker is placed by no -k
// alone (a larger pool sends it); one the reranker placed below its
// top_k, or below its threshold, says so.
func TestSuggestionsAfterARerank(t *testing.T) {
	p, ix := fixture(t)
	x := explainer(p, ix)
	const question = "how does the robot joint motor work in gazebo?"
	suggestions := func(t *testing.T, rr firstFirst, q retrieval.Query) (retrieval.Expected, []string) {
		t.Helper()
		rp := *p
		rp.Reranker = rr
		q.Question, q.TopK = question, 1
		_, exp, rep := run(t, &rp, x, q, "docs/sim.md")
		e := rep.Explained[len(rep.Explained)-1]
		if e == nil {
			t.Fatalf("not explained: %+v", exp)
		}
		return exp[0], e.Suggestions
	}
	// The plain query: -k reaches it.
	_, plain := suggestions(t, firstFirst{}, retrieval.Query{})
	if !slices.ContainsFunc(plain, func(s string) bool { return strings.HasPrefix(s, "-k ") }) {
		t.Fatalf("without a rerank: %q", plain)
	}
	// One candidate goes to the reranker: the chunk, lower, is not sent.
	exp, got := suggestions(t, firstFirst{}, retrieval.Query{Rerank: retrieval.RerankOptions{On: true, Candidates: 1}})
	want := fmt.Sprintf("-k alone does not bring it: it ranks #%d in the vector search, beyond the 1 candidate sent to the reranker; --rerank-candidates %d (rerank_candidates: top_k 1 × %[2]d = %[2]d candidates) sends it, and the reranker then places it", exp.Rank, exp.Rank)
	if exp.Cut != retrieval.CutTopK || exp.Rank < 2 || !slices.Contains(got, want) {
		t.Fatalf("beyond the pool: cut %s rank %d: %q, want %q", exp.Cut, exp.Rank, got, want)
	}
	if slices.ContainsFunc(got, func(s string) bool { return strings.HasPrefix(s, "-k ") && strings.Contains(s, "would include it") }) {
		t.Errorf("a -k that cannot place it: %q", got)
	}
	// All six go to the reranker, which keeps the vector order: the chunk
	// is below its top 1.
	exp, got = suggestions(t, firstFirst{}, retrieval.Query{Rerank: retrieval.RerankOptions{On: true, Candidates: 6}})
	want = fmt.Sprintf("the reranker placed it below its top 1 of the 6 candidates (it returns no more, so its place among them is not recorded): without --rerank it ranks #%d", exp.Rank)
	if exp.Cut != retrieval.CutRerank || !slices.Contains(got, want) {
		t.Fatalf("below the reranker's top_k: cut %s: %q, want %q", exp.Cut, got, want)
	}
	// The chunk (the vector search's #2) is the reranker's first, below
	// its threshold.
	q := retrieval.Query{Question: question, TopK: 1, Rerank: retrieval.RerankOptions{On: true, Candidates: 6, Threshold: 0.5}}
	exp, got = suggestions(t, firstFirst{rel: []float64{0.1, 0.234, 0.1, 0.1, 0.1, 0.1}}, q)
	if exp.Cut != retrieval.CutRerank || !slices.ContainsFunc(got, func(s string) bool {
		return s == "--rerank-threshold 0.23 would keep it (its relevance 0.234 is below 0.50)"
	}) {
		t.Fatalf("below the rerank threshold: cut %s %q: %q", exp.Cut, exp.Detail, got)
	}
}
