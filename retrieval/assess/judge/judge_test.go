package judge

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"ragscope/retrieval"
	"ragscope/retrieval/provider/chatcache"
	"ragscope/retrieval/provider/chattask"
	"ragscope/retrieval/provider/cohere"
	"ragscope/retrieval/provider/cohere/coheretest"
	"ragscope/retrieval/provider/openai"
	"ragscope/retrieval/provider/openai/openaitest"
)

func item(q, text string) Item {
	return Item{Question: q, Hit: retrieval.Hit{Rank: 1, Chunk: retrieval.Chunk{ID: text, Title: "T", Text: text}}}
}

// gradeByText answers a structured chat with the grade written in the
// passage ("grade=N"), so concurrent calls grade deterministically.
func gradeByText(user string) string {
	_, rest, ok := strings.Cut(user, "grade=")
	if !ok {
		return `{"grade": 0, "reason": "unrelated"}`
	}
	return rest[:strings.IndexAny(rest+" \n", " \n")]
}

func TestRelevanceOpenAIWithSchemaAndCache(t *testing.T) {
	srv := openaitest.NewServer("sk-test")
	defer srv.Close()
	srv.Structured(func(r openaitest.ChatRequest) string {
		last := r.Messages[len(r.Messages)-1].Content
		v := gradeByText(last)
		if strings.HasPrefix(v, "{") {
			return v
		}
		return fmt.Sprintf(`{"grade": %s, "reason": "graded %s"}`, v, v)
	})
	gen, err := openai.NewChat(openai.ChatOptions{APIKey: srv.Key, BaseURL: srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	cache := chatcache.Open(filepath.Join(t.TempDir(), "judge"))
	j, err := New(gen, Options{Cache: cache, Concurrency: 3})
	if err != nil {
		t.Fatal(err)
	}
	items := []Item{item("q", "a grade=3 b"), item("q", "grade=1 x"), item("q", "nothing"), item("q", "grade=7 y"), item("q", "grade=2 z")}
	var mu sync.Mutex
	progress := 0
	js, st, err := j.Relevance(context.Background(), items, func(done, total int) { mu.Lock(); progress = done; mu.Unlock() })
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"3", "1", "0", "out_of_range", "2"}
	for i, jd := range js {
		got := string(jd.Status)
		if jd.IsJudged() {
			got = fmt.Sprint(*jd.Grade)
		}
		if got != want[i] {
			t.Fatalf("item %d: %+v, want %s", i, jd, want[i])
		}
	}
	if js[0].Reason != "graded 3" || js[3].Detail != "grade 7 is outside 0-3" {
		t.Fatalf("%+v", js)
	}
	if st.Calls != 5 || st.Cached != 0 || st.NotJudged != 1 || st.Usage.InputTokens == 0 || progress != 5 || srv.Chats() != 5 {
		t.Fatalf("stats %+v, progress %d, chats %d", st, progress, srv.Chats())
	}
	if srv.LastChat().Schema()["type"] != "object" || srv.LastChat().ResponseFormat.JSONSchema.Name != "relevance_grade" {
		t.Fatalf("schema not sent: %+v", srv.LastChat().ResponseFormat)
	}
	// Re-run: judged hits come from the cache; the out-of-range one is
	// asked again (not judged is never cached).
	if n := j.Pending(items); n != 1 {
		t.Fatalf("pending %d", n)
	}
	js2, st2, err := j.Relevance(context.Background(), items, nil)
	if err != nil {
		t.Fatal(err)
	}
	if st2.Calls != 1 || st2.Cached != 4 || srv.Chats() != 6 || !js2[0].Cached || *js2[0].Grade != 3 || js2[0].Reason != "graded 3" {
		t.Fatalf("re-run stats %+v, chats %d, %+v", st2, srv.Chats(), js2[0])
	}
	// A changed chunk text is a miss.
	if n := j.Pending([]Item{item("q", "a grade=3 b!")}); n != 1 {
		t.Fatalf("changed text hit the cache")
	}
}

func TestCacheKeyParts(t *testing.T) {
	j := &Judge{gen: fakeGen{}, prompt: prompt{version: "relevance-v1+aaaa"}}
	base := j.key(item("q", "text"))
	j2 := &Judge{gen: fakeGen{}, prompt: prompt{version: "relevance-v2+bbbb"}}
	diff := map[string]string{
		"prompt version": j2.key(item("q", "text")),
		"question":       j.key(item("q2", "text")),
		"chunk text":     j.key(item("q", "text2")),
		"model":          (&Judge{gen: fakeGen{model: "other"}, prompt: j.prompt}).key(item("q", "text")),
	}
	for what, k := range diff {
		if k == base {
			t.Fatalf("%s does not change the key", what)
		}
	}
	// The chunk id and rank are not part of it: a re-chunked or re-ranked
	// passage with the same text is a hit.
	it := item("q", "text")
	it.Hit.Rank, it.Hit.Chunk.ID = 4, "other-id"
	if j.key(it) != base {
		t.Fatal("rank or id in the key")
	}
}

func TestRelevanceCohereSchemaAndBrokenAnswers(t *testing.T) {
	srv := coheretest.NewServer("k-123")
	defer srv.Close()
	gen, err := cohere.NewChat(cohere.ChatOptions{APIKey: srv.Key, BaseURL: srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	j, err := New(gen, Options{Concurrency: 1})
	if err != nil {
		t.Fatal(err)
	}
	srv.Reply(
		coheretest.ChatReply{Pieces: []string{"```json\n{\"grade\": 2,", " \"reason\": \"partly\"}\n```"}},
		coheretest.ChatReply{Pieces: []string{"I think it is relevant."}},
		coheretest.ChatReply{Pieces: []string{`{"grade": "3.5"}`}},
	)
	js, st, err := j.Relevance(context.Background(), []Item{item("q", "a"), item("q", "b"), item("q", "c")}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if *js[0].Grade != 2 || js[1].Status != Invalid || js[1].Grade != nil || js[2].Status != Invalid || st.NotJudged != 2 || st.Calls != 3 {
		t.Fatalf("%+v %+v", js, st)
	}
	if rf := srv.LastChat().ResponseFormat; rf == nil || rf.Type != "json_object" {
		t.Fatalf("response_format %+v", rf)
	}
}

func TestRelevanceRefusedKeyStopsAndSkips(t *testing.T) {
	srv := openaitest.NewServer("sk-test")
	defer srv.Close()
	gen, err := openai.NewChat(openai.ChatOptions{APIKey: "sk-wrong", BaseURL: srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	j, _ := New(gen, Options{Concurrency: 1})
	js, st, err := j.Relevance(context.Background(), []Item{item("q", "a"), item("q", "b"), item("q", "c")}, nil)
	if !errors.Is(err, retrieval.ErrAuth) {
		t.Fatalf("err %v", err)
	}
	if js[0].Status != Failed || js[1].Status != Skipped || js[2].Status != Skipped || !strings.Contains(js[1].Detail, "earlier call failed") || st.Calls != 1 || st.NotJudged != 3 {
		t.Fatalf("%+v %+v", js, st)
	}
}

// fakeGen answers with text, or fails with err.
type fakeGen struct {
	model string
	text  string
	err   error
}

func (f fakeGen) Stream(_ context.Context, _ retrieval.Prompt, emit func(retrieval.Delta)) error {
	if f.err != nil {
		return f.err
	}
	emit(retrieval.Delta{Text: f.text, Usage: &retrieval.Usage{InputTokens: 10, OutputTokens: 5}})
	return nil
}
func (f fakeGen) Model() string    { return "m" + f.model }
func (f fakeGen) Provider() string { return "fake" }

func TestRelevanceFailedCallIsNotJudged(t *testing.T) {
	j, _ := New(fakeGen{err: errors.New("the answer stream broke off")}, Options{})
	js, st, err := j.Relevance(context.Background(), []Item{item("q", "a"), item("q", "b")}, nil)
	if err != nil {
		t.Fatal(err) // a transient failure is per hit, not fatal
	}
	if js[0].Status != Failed || js[0].Grade != nil || !strings.Contains(js[0].Detail, "broke off") || st.NotJudged != 2 || st.Calls != 2 {
		t.Fatalf("%+v %+v", js, st)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	js, _, err = newJudge(t, fakeGen{text: `{"grade":1}`}).Relevance(ctx, []Item{item("q", "a")}, nil)
	if !errors.Is(err, context.Canceled) || js[0].Status != Skipped {
		t.Fatalf("cancelled: %v %+v", err, js)
	}
}

func newJudge(t *testing.T, g retrieval.Generator) *Judge {
	t.Helper()
	j, err := New(g, Options{})
	if err != nil {
		t.Fatal(err)
	}
	return j
}

// A 429 with Retry-After is retried by the provider's client inside the
// call: the hit is judged, one chat answered after two requests.
func TestRelevanceRateLimitedIsRetried(t *testing.T) {
	srv := openaitest.NewServer("sk-test")
	defer srv.Close()
	srv.Fail(openaitest.Failure{Status: 429, RetryAfter: "0"})
	srv.Structured(func(openaitest.ChatRequest) string { return `{"grade": 3, "reason": "answers"}` })
	gen, err := openai.NewChat(openai.ChatOptions{APIKey: srv.Key, BaseURL: srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	j, _ := New(gen, Options{Concurrency: 1})
	js, st, err := j.Relevance(context.Background(), []Item{item("q", "a")}, nil)
	if err != nil || js[0].Grade == nil || *js[0].Grade != 3 || st.Calls != 1 || srv.Requests() != 2 || srv.Chats() != 1 {
		t.Fatalf("err %v, %+v, %+v, %d requests, %d chats", err, js, st, srv.Requests(), srv.Chats())
	}
}

// The gate fails closed: no hit judged is an unavailable judge with the
// failed call's cause; some judged, or nothing to judge, is no error.
func TestGateFailsClosedWithTheCause(t *testing.T) {
	g := 2
	failed := Judgement{Status: Failed, Detail: "Cohere is unavailable (503)."}
	invalid := Judgement{Status: Invalid, Detail: "the answer is not a JSON object"}
	err := Gate([]Judgement{invalid, failed, failed})
	var ne *NoneJudgedError
	if !errors.As(err, &ne) || !errors.Is(err, retrieval.ErrUnavailable) || err.Error() != "the judge could judge none of the 3 hits: Cohere is unavailable (503)." {
		t.Fatalf("none judged: %v", err)
	}
	if err := Gate([]Judgement{{Grade: &g, Status: Judged}, failed}); err != nil {
		t.Fatalf("one judged: %v", err)
	}
	if n, why := Unjudged([]Judgement{{Grade: &g, Status: Judged}, invalid}); n != 1 || why != "the answer is not a JSON object" {
		t.Fatalf("Unjudged = %d, %q", n, why)
	}
	if err := Gate(nil); err != nil {
		t.Fatalf("nothing to judge: %v", err)
	}
}

// failures is n copies of f, for a fake that keeps failing.
func failures(f openaitest.Failure, n int) []openaitest.Failure {
	out := make([]openaitest.Failure, n)
	for i := range out {
		out[i] = f
	}
	return out
}

// The judge's model answering 500 to everything: the judge stops after
// chattask.MaxFailuresInARow failed calls (plus those in flight), not
// one call per hit; the judgements cached before stay valid.
func TestRelevanceStopsWhenTheModelIsDown(t *testing.T) {
	srv := openaitest.NewServer("sk-test")
	defer srv.Close()
	srv.Structured(func(openaitest.ChatRequest) string { return `{"grade": 3, "reason": "answers"}` })
	gen, err := openai.NewChat(openai.ChatOptions{APIKey: srv.Key, BaseURL: srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	const conc, hits = 4, 100
	j, _ := New(gen, Options{Concurrency: conc, Cache: chatcache.Open(filepath.Join(t.TempDir(), "judge"))})
	items := make([]Item, hits)
	for i := range items {
		items[i] = item("q", fmt.Sprintf("passage %d", i))
	}
	if _, _, err := j.Relevance(context.Background(), items[:2], nil); err != nil {
		t.Fatal(err)
	}
	srv.Fail(failures(openaitest.Failure{Status: 500}, 10*hits*openai.DefaultMaxAttempts)...)
	before := srv.Requests()
	js, st, err := j.Relevance(context.Background(), items, nil)
	made := srv.Requests() - before
	var down *chattask.DownError
	if !errors.As(err, &down) || !errors.Is(err, retrieval.ErrUnavailable) || !strings.Contains(err.Error(), "the chat model failed 3 times in a row: The chat server is unavailable (500)") {
		t.Fatalf("err %v", err)
	}
	if limit := (chattask.MaxFailuresInARow + conc) * openai.DefaultMaxAttempts; made > limit {
		t.Fatalf("%d requests for %d hits, want at most %d", made, hits, limit)
	}
	if !js[0].IsJudged() || !js[0].Cached || !js[1].IsJudged() || st.Cached != 2 || st.NotJudged != hits-2 {
		t.Fatalf("the cached judgements were not kept: %+v %+v", js[:2], st)
	}
	if js[hits-1].Status != Skipped || !strings.HasPrefix(js[hits-1].Detail, "not sent: the chat model failed 3 times in a row") {
		t.Fatalf("last hit %+v", js[hits-1])
	}
	if !strings.HasSuffix(err.Error(), fmt.Sprintf("the other %d hits were not tried", down.NotTried)) || down.NotTried < hits-2-chattask.MaxFailuresInARow-conc {
		t.Fatalf("err %v", err)
	}
}

// Two failed calls, then a success, three times over: a success resets
// the count, so a judge whose model fails now and then goes on.
func TestRelevanceSuccessResetsTheBreaker(t *testing.T) {
	srv := openaitest.NewServer("sk-test")
	defer srv.Close()
	srv.Structured(func(openaitest.ChatRequest) string { return `{"grade": 3, "reason": "answers"}` })
	gen, err := openai.NewChat(openai.ChatOptions{APIKey: srv.Key, BaseURL: srv.URL, MaxAttempts: 1})
	if err != nil {
		t.Fatal(err)
	}
	j, _ := New(gen, Options{Concurrency: 1})
	items := make([]Item, 9)
	for i := range items {
		items[i] = item("q", fmt.Sprintf("passage %d", i))
	}
	// One call at a time: the failure for item i is queued once item i-1
	// is done; items 2, 5 and 8 are answered.
	failIf := func(i int) {
		if i%3 != 2 {
			srv.Fail(openaitest.Failure{Status: 500})
		}
	}
	failIf(0)
	js, st, err := j.Relevance(context.Background(), items, func(done, _ int) { failIf(done) })
	if err != nil || srv.Requests() != 9 || st.Calls != 9 || st.NotJudged != 6 || !js[8].IsJudged() {
		t.Fatalf("err %v, %d requests, %+v", err, srv.Requests(), st)
	}
}
