package golden

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"ragscope/retrieval"
	"ragscope/retrieval/assess/eval"
	"ragscope/retrieval/provider/chatcache"
	"ragscope/retrieval/provider/chattask"
	"ragscope/retrieval/provider/cohere"
	"ragscope/retrieval/provider/cohere/coheretest"
	"ragscope/retrieval/provider/openai"
	"ragscope/retrieval/provider/openai/openaitest"
)

// para is a section text of about n words, its first word w.
func para(w string, n int) string {
	return w + " " + strings.Repeat("robots move joints with motors and sensors ", n/7)
}

// bookServer is a chat fake that honours the schemas: pass 1 writes
// questions from the section's first word ("MALFORMED" answers prose,
// "COPY" restates the heading, "TWIN" writes the questions of section
// "alpha", "HALF" writes only the specific one); pass 2 says answered
// unless the question holds "unanswerable" ("weird" gets "maybe").
func bookServer(t *testing.T) *openaitest.Server {
	t.Helper()
	srv := openaitest.NewServer("sk-gold")
	t.Cleanup(srv.Close)
	srv.Structured(func(r openaitest.ChatRequest) string {
		user := r.Messages[len(r.Messages)-1].Content
		switch r.ResponseFormat.JSONSchema.Name {
		case "golden_questions":
			_, text, _ := strings.Cut(user, "\n\n")
			first := strings.Fields(text)[0]
			heading := between(user, "Section: ", "\n")
			switch first {
			case "MALFORMED":
				return "Here are two questions about robots."
			case "COPY":
				return fmt.Sprintf(`{"specific": "What is %s?", "abstract": "Why would a robot need %s words here?"}`, heading, first)
			case "TWIN":
				first = "alpha"
			case "HALF":
				return "```json\n{\"Specific\": \"Which motor drives the HALF joint?\"}\n```"
			case "NOTQ":
				return `{"specific": "1.", "abstract": "rclpy.init(args=args); node = rclpy.create_node('talker')"}`
			case "SHORT":
				return `{"specific": "Gazebo setup?", "abstract": "How does rclpy.init() prepare a node for the SHORT arm?"}`
			}
			return fmt.Sprintf(`{"specific": "Which motor does the %s arm use?", "abstract": "How does the %s controller keep a joint steady under load?"}`, first, first)
		case "golden_check":
			q := between(user, "Question: ", "\n")
			switch {
			case strings.Contains(q, "unanswerable"):
				return `{"answered": false, "reason": "not in the text"}`
			case strings.Contains(q, "weird"):
				return `{"answered": "maybe", "reason": "?"}`
			}
			return `{"answered": true, "reason": "stated"}`
		}
		t.Errorf("unexpected schema %q", r.ResponseFormat.JSONSchema.Name)
		return "{}"
	})
	return srv
}

func between(s, from, to string) string {
	_, rest, _ := strings.Cut(s, from)
	v, _, _ := strings.Cut(rest, to)
	return v
}

func newGen(t *testing.T, srv *openaitest.Server, dir string, conc int) *Generator {
	t.Helper()
	chat, err := openai.NewChat(openai.ChatOptions{APIKey: srv.Key, BaseURL: srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	var cache *chatcache.Cache
	if dir != "" {
		cache = chatcache.Open(dir)
	}
	g, err := New(chat, Options{Cache: cache, Concurrency: conc})
	if err != nil {
		t.Fatal(err)
	}
	return g
}

func sec(page, heading, first string) Section {
	text := para(first, 30)
	return Section{DocPath: "docs/" + page + ".md", URL: "https://book.example/docs/" + page + "#" + heading, Title: page, Heading: heading, Text: text, Words: len(strings.Fields(text))}
}

func TestRunDropsCachesAndWritesALoadableSet(t *testing.T) {
	srv := bookServer(t)
	dir := filepath.Join(t.TempDir(), "golden")
	secs := []Section{
		sec("intro", "Getting started", "alpha"),
		sec("intro", "Quality of Service", "COPY"),
		sec("arm", "Motors", "MALFORMED"),
		sec("arm", "Joints", "TWIN"),
		sec("arm", "Limits", "unanswerable"),
		sec("legs", "Gait", "weird"),
		sec("legs", "Balance", "HALF"),
	}
	g := newGen(t, srv, dir, 3)
	var mu sync.Mutex
	last := 0
	res, err := g.Run(context.Background(), secs, func(done, total int) { mu.Lock(); last = done; mu.Unlock() })
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, q := range res.Questions {
		got = append(got, q.Style+":"+q.Text)
	}
	want := []string{
		"specific:Which motor does the alpha arm use?",
		"abstract:How does the alpha controller keep a joint steady under load?",
		"abstract:Why would a robot need COPY words here?",
		"specific:Which motor drives the HALF joint?",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("kept:\n%s", strings.Join(got, "\n"))
	}
	wantDrops := map[Reason]int{NotAnswered: 2, CopiesHeading: 1, NearDuplicate: 2, Malformed: 5}
	for _, why := range Reasons {
		if res.Dropped[why] != wantDrops[why] {
			t.Errorf("%s: %d dropped, want %d (%v)", why, res.Dropped[why], wantDrops[why], res.Dropped)
		}
	}
	if res.Asked != 14 || res.DroppedTotal() != 10 || last != 7 || res.NotRun != 0 {
		t.Fatalf("asked %d, dropped %d, progress %d, not run %d", res.Asked, res.DroppedTotal(), last, res.NotRun)
	}
	// 7 question calls; checks: alpha 2, COPY 1, TWIN 2, unanswerable 2,
	// weird 2, HALF 1.
	if res.Calls != 17 || srv.Chats() != 17 || res.Usage.InputTokens == 0 {
		t.Fatalf("calls %d, chats %d, usage %+v", res.Calls, srv.Chats(), res.Usage)
	}
	if s := srv.LastChat().Schema(); s == nil || s["type"] != "object" {
		t.Fatal("no schema sent")
	}
	// Re-run on the unchanged book, another Generator: the sections whose
	// answers were all readable make no call; the malformed ones are
	// asked again (never cached).
	g2 := newGen(t, srv, dir, 3)
	res2, err := g2.Run(context.Background(), secs, nil)
	if err != nil {
		t.Fatal(err)
	}
	if res2.Calls != 4 || res2.CachedSections != 4 || len(res2.Questions) != len(res.Questions) {
		t.Fatalf("re-run: %d calls, %d cached sections, %d questions", res2.Calls, res2.CachedSections, len(res2.Questions))
	}
	clean := []Section{secs[0], secs[3], secs[4]}
	res3, err := g2.Run(context.Background(), clean, nil)
	if err != nil || res3.Calls != 0 || res3.CachedSections != 3 {
		t.Fatalf("warm cache: %d calls, %v", res3.Calls, err)
	}
	// The file loads as a golden set, every case with its expected source.
	b, err := Encode("book", Header{Model: g.Model(), PromptVersion: g.PromptVersion(), Date: time.Date(2026, 11, 26, 7, 0, 0, 0, time.UTC), Source: "docs folder docs", N: 14, Seed: 1, Result: res})
	if err != nil {
		t.Fatal(err)
	}
	text := string(b)
	for _, w := range []string{Marker, "# model: openai/gpt-4o-mini", "# prompt: questions-v1+", "check-v1+", "# date: 2026-11-26T07:00:00Z", "# source: docs folder docs", "14 questions asked, 4 kept, 10 dropped (2 not answered by its section, 1 copies the heading, 2 near-duplicate, 5 malformed answer)", "# section: intro › Getting started"} {
		if !strings.Contains(text, w) {
			t.Errorf("no %q in:\n%s", w, text)
		}
	}
	if !strings.HasPrefix(text, Marker) {
		t.Errorf("file does not start with the marker:\n%s", text)
	}
	set, err := eval.Parse(b, "book.yaml")
	if err != nil {
		t.Fatalf("%v\n%s", err, text)
	}
	if len(set.Cases) != 4 || set.Cases[0].ID != "gen-001" || set.Cases[0].Expect.DocPaths[0] != "docs/intro.md" || set.Cases[0].Expect.URLs[0] != "https://book.example/docs/intro#Getting started" || set.Cases[1].Category != Abstract {
		t.Fatalf("%+v", set.Cases)
	}
}

func TestRunFaults(t *testing.T) {
	secs := []Section{sec("a", "One", "wheel"), sec("b", "Two", "gripper"), sec("c", "Three", "camera")}
	t.Run("401 stops the run", func(t *testing.T) {
		srv := bookServer(t)
		srv.Fail(openaitest.Failure{Status: 401})
		g := newGen(t, srv, "", 1)
		res, err := g.Run(context.Background(), secs, nil)
		if !errors.Is(err, retrieval.ErrAuth) || len(res.Questions) != 0 || res.NotRun != 3 || srv.Requests() > 1 {
			t.Fatalf("err %v, %+v, %d requests", err, res, srv.Requests())
		}
	})
	t.Run("500 drops the section's questions", func(t *testing.T) {
		srv := bookServer(t)
		srv.Fail(openaitest.Failure{Status: 500}, openaitest.Failure{Status: 500}, openaitest.Failure{Status: 500})
		g := newGen(t, srv, "", 1)
		res, err := g.Run(context.Background(), secs, nil)
		if err != nil || res.Dropped[CallFailed] != 2 || len(res.Questions) != 4 {
			t.Fatalf("err %v, dropped %v, %d kept", err, res.Dropped, len(res.Questions))
		}
	})
	t.Run("a model down stops after failures in a row", func(t *testing.T) {
		srv := bookServer(t)
		many := make([]Section, 12)
		for i := range many {
			many[i] = sec(fmt.Sprintf("p%d", i), "Part", "wheel")
		}
		fails := make([]openaitest.Failure, 10*len(many)*openai.DefaultMaxAttempts)
		for i := range fails {
			fails[i] = openaitest.Failure{Status: 500}
		}
		srv.Fail(fails...)
		const conc = 2
		res, err := newGen(t, srv, "", conc).Run(context.Background(), many, nil)
		var down *chattask.DownError
		if !errors.As(err, &down) || !errors.Is(err, retrieval.ErrUnavailable) || !strings.Contains(err.Error(), "sections were not tried") || len(res.Questions) != 0 {
			t.Fatalf("err %v, %+v", err, res)
		}
		if limit := (chattask.MaxFailuresInARow + conc) * openai.DefaultMaxAttempts; srv.Requests() > limit {
			t.Fatalf("%d requests for %d sections, want at most %d", srv.Requests(), len(many), limit)
		}
	})
	t.Run("429 with Retry-After is waited out", func(t *testing.T) {
		srv := bookServer(t)
		srv.Fail(openaitest.Failure{Status: 429, RetryAfter: "0"})
		g := newGen(t, srv, "", 2)
		res, err := g.Run(context.Background(), secs, nil)
		if err != nil || len(res.Questions) != 6 || res.DroppedTotal() != 0 {
			t.Fatalf("err %v, %+v", err, res)
		}
	})
	t.Run("a hung answer drops its questions", func(t *testing.T) {
		srv := bookServer(t)
		srv.Reply(openaitest.ChatReply{Pieces: []string{`{"specific": `, `"x"}`}, Stall: 1})
		chat, err := openai.NewChat(openai.ChatOptions{APIKey: srv.Key, BaseURL: srv.URL, Timeout: 100 * time.Millisecond, MaxAttempts: 1})
		if err != nil {
			t.Fatal(err)
		}
		g, _ := New(chat, Options{Concurrency: 1})
		res, err := g.Run(context.Background(), secs, nil)
		if err != nil || res.Dropped[CallFailed] != 2 || len(res.Questions) != 4 {
			t.Fatalf("err %v, dropped %v, %d kept", err, res.Dropped, len(res.Questions))
		}
	})
	t.Run("cancel keeps the finished sections", func(t *testing.T) {
		srv := bookServer(t)
		g := newGen(t, srv, "", 1)
		ctx, cancel := context.WithCancel(context.Background())
		res, err := g.Run(ctx, secs, func(done, _ int) {
			if done == 1 {
				cancel()
			}
		})
		if !errors.Is(err, context.Canceled) || len(res.Questions) != 2 || res.NotRun != 2 {
			t.Fatalf("err %v, %d kept, %d not run", err, len(res.Questions), res.NotRun)
		}
	})
}

func TestRunCohereAsksForTheSchema(t *testing.T) {
	srv := coheretest.NewServer("k-gold")
	defer srv.Close()
	srv.Structured(func(r coheretest.ChatRequest) string {
		if r.Schema()["properties"].(map[string]any)["answered"] != nil {
			return `{"answered": true, "reason": "yes"}`
		}
		return `{"specific": "Which gear ratio does the wrist use?", "abstract": "Why is the wrist geared down?"}`
	})
	chat, err := cohere.NewChat(cohere.ChatOptions{APIKey: srv.Key, BaseURL: srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	g, _ := New(chat, Options{})
	res, err := g.Run(context.Background(), []Section{sec("wrist", "Gears", "gear")}, nil)
	if err != nil || len(res.Questions) != 2 || res.Calls != 3 {
		t.Fatalf("err %v, %+v", err, res)
	}
	if rf := srv.LastChat().ResponseFormat; rf == nil || rf.Type != "json_object" || rf.JSONSchema["required"] == nil {
		t.Fatalf("response_format %+v", rf)
	}
}

func TestSectionsAndSample(t *testing.T) {
	long := para("x", 40)
	chunks := []retrieval.Chunk{
		{ID: "3", DocPath: "docs/b.md", Title: "B", Section: "Later", Text: long, ChunkIndex: retrieval.IntPtr(2)},
		{ID: "1", DocPath: "docs/b.md", Title: "B", Section: "Setup", Text: "first part " + long, ChunkIndex: retrieval.IntPtr(0)},
		{ID: "2", DocPath: "docs/b.md", Title: "B", Section: "Setup", Text: "second part", ChunkIndex: retrieval.IntPtr(1)},
		{ID: "4", DocPath: "docs/a.md", Title: "A", Section: "Stub", Text: "too short to ask about", ChunkIndex: retrieval.IntPtr(0)},
		{ID: "5", Title: "no page", Text: long},
	}
	secs := Sections(chunks, retrieval.URLBuilder{DocsBase: "https://book.example/docs/"})
	if len(secs) != 3 || secs[0].DocPath != "docs/a.md" || secs[1].Heading != "Setup" || !strings.HasPrefix(secs[1].Text, "first part") || !strings.HasSuffix(secs[1].Text, "second part") || secs[1].URL != "https://book.example/docs/b#setup" {
		t.Fatalf("%+v", secs)
	}
	picked := Sample(secs, 10, 1)
	if len(picked) != 2 || picked[0].Heading != "Setup" || picked[1].Heading != "Later" {
		t.Fatalf("stub sampled or order lost: %+v", picked)
	}
	// Many pages: the same sample for the same seed, another for another
	// seed, and no page twice while pages are left.
	var many []Section
	for p := range 40 {
		for h := range 3 {
			many = append(many, sec(fmt.Sprintf("p%02d", p), fmt.Sprintf("h%d", h), "w"))
		}
	}
	a, b, c := Sample(many, 20, 7), Sample(many, 20, 7), Sample(many, 20, 8)
	if fmt.Sprint(a) != fmt.Sprint(b) || fmt.Sprint(a) == fmt.Sprint(c) || len(a) != 20 {
		t.Fatal("sampling is not deterministic per seed")
	}
	pages := map[string]bool{}
	for _, s := range a {
		if pages[s.DocPath] {
			t.Fatalf("page %s sampled twice of 40", s.DocPath)
		}
		pages[s.DocPath] = true
	}
	if len(Sample(many, 200, 1)) != 120 {
		t.Fatal("asking more than there is does not take all")
	}
}

func TestCopiesHeadingAndNearDuplicate(t *testing.T) {
	for _, c := range []struct {
		q, h string
		want bool
	}{
		{"What is Quality of Service?", "Quality of Service", true},
		{"How do I set quality of service for a topic?", "Quality of Service", true},
		{"What is URDF?", "URDF", true},
		{"How do I describe a robot's joints in URDF?", "URDF", false},
		{"Why does my subscriber get nothing?", "Quality of Service", false},
		{"Anything?", "", false},
	} {
		if got := copiesHeading(c.q, c.h); got != c.want {
			t.Errorf("copiesHeading(%q, %q) = %v", c.q, c.h, got)
		}
	}
	dup := func(a, b string) bool { return nearDuplicate([][]string{contentWords(a)}, contentWords(b)) }
	seen := "How do ROS 2 nodes talk to each other?"
	if !dup(seen, "How do ROS 2 nodes talk with one another?") || !dup(seen, "how do ros 2 nodes talk to each other") ||
		!dup(seen, "Why do ROS 2 nodes talk to each other?") || dup(seen, "What is a ROS 2 launch file for?") ||
		dup("Which motor does the left arm use?", "Which motor does the right arm use?") ||
		dup("Which motor does joint 1 use?", "Which motor does joint 2 use?") ||
		!dup("How do I limit the torque of the elbow joints in simulation?", "How do I limit the torque of the elbow joint in a simulation run?") {
		t.Fatal("near-duplicate detection")
	}
}

func TestParseTolerant(t *testing.T) {
	qs := parseQuestions("Sure:\n```json\n{\"SPECIFIC\": \"  What  motor?\", \"abstract\": 3}\n```")
	if qs[Specific] != "What motor?" || len(qs) != 1 {
		t.Fatalf("%v", qs)
	}
	if len(parseQuestions(`{"specific": "a\u001b[31m?", "abstract": ""}`)) != 0 {
		t.Fatal("control characters or empty questions kept")
	}
	for in, want := range map[string]string{`{"answered": true}`: "true", `{"Answered": "no"}`: "false", `{"answered": 1}`: "nil", `yes`: "nil"} {
		got := "nil"
		if b := parseCheck(in); b != nil {
			got = fmt.Sprint(*b)
		}
		if got != want {
			t.Errorf("parseCheck(%s) = %s, want %s", in, got, want)
		}
	}
}

func TestPromptsLoad(t *testing.T) {
	g, err := New(fakeChat{}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(g.PromptVersion(), "questions-v1+") || !strings.Contains(g.PromptVersion(), ", check-v1+") {
		t.Fatal(g.PromptVersion())
	}
	if _, err := New(nil, Options{}); !errors.Is(err, retrieval.ErrNoGenerator) {
		t.Fatal(err)
	}
}

type fakeChat struct{}

func (fakeChat) Stream(context.Context, retrieval.Prompt, func(retrieval.Delta)) error { return nil }
func (fakeChat) Model() string                                                         { return "m" }
func (fakeChat) Provider() string                                                      { return "p" }

// TestEncodeKeepsBidiControlsOutOfTheFile checks that a hostile heading's
// bidi controls never reach the written set raw: stripped from the
// "# section:" comment (a comment cannot escape), escaped in a question,
// which still loads as written.
func TestEncodeKeepsBidiControlsOutOfTheFile(t *testing.T) {
	sec := Section{DocPath: "docs/evil.md", URL: "https://x.test/docs/evil#h", Title: "Evil \u202etitle\u202c", Heading: "Head \u2066ing\u2069 \u200f\x1b[31m"}
	q := "Why does \u202etorque\u202c rise \u061c?"
	b, err := Encode("book", Header{Model: "m\u202e", Date: time.Date(2026, 11, 26, 7, 0, 0, 0, time.UTC), Source: "docs \u202e", Result: Result{Questions: []Question{{Text: q, Style: Specific, Section: sec}}}})
	if err != nil {
		t.Fatal(err)
	}
	out := string(b)
	for i, r := range out {
		if (r >= 0x202a && r <= 0x202e) || (r >= 0x2066 && r <= 0x2069) || r == 0x200e || r == 0x200f || r == 0x061c || r == 0x1b {
			t.Fatalf("raw %U at byte %d:\n%s", r, i, out)
		}
	}
	if !strings.Contains(out, "# section: Evil title › Head ing [31m\n") {
		t.Errorf("section comment not cleaned:\n%s", out)
	}
	set, err := eval.Parse(b, "golden.yaml")
	if err != nil {
		t.Fatalf("eval cannot load the set: %v\n%s", err, out)
	}
	if len(set.Cases) != 1 || set.Cases[0].Question != q {
		t.Errorf("cases %+v, want the question %q", set.Cases, q)
	}
}

// TestRunDropsWhatIsNotAQuestion: an answer of "1.", of code, or of under
// three words is dropped and counted as not a question, with no check
// call; a question that names code is kept.
func TestRunDropsWhatIsNotAQuestion(t *testing.T) {
	srv := bookServer(t)
	g := newGen(t, srv, "", 1)
	res, err := g.Run(context.Background(), []Section{sec("arm", "Motors", "NOTQ"), sec("arm", "Nodes", "SHORT")}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Questions) != 1 || res.Questions[0].Text != "How does rclpy.init() prepare a node for the SHORT arm?" {
		t.Fatalf("kept %+v", res.Questions)
	}
	if res.Dropped[NotAQuestion] != 3 || res.DroppedTotal() != 3 || !strings.Contains(DropSummary(res), "3 not a question") {
		t.Fatalf("dropped %v (%s)", res.Dropped, DropSummary(res))
	}
	if res.Calls != 3 { // two question calls, one check
		t.Fatalf("%d calls, want 3", res.Calls)
	}
}

func TestNotAQuestion(t *testing.T) {
	for q, want := range map[string]bool{
		"1.":                 true,
		"ROS 2?":             true,
		"Gazebo setup?":      true,
		"What is URDF?":      false,
		"def talker(): pass": true,
		"ros2 run demo_nodes_cpp talker --ros-args": true,
		"std::vector<int> v{1, 2, 3};":              true,
		"How do I launch Gazebo with ros2 launch?":  false,
		"What does rclpy.init() set up for a node?": false,
		"Why is max_speed capped at 2 m/s?":         false,
	} {
		if got := notAQuestion(q); got != want {
			t.Errorf("notAQuestion(%q) = %v, want %v", q, got, want)
		}
	}
}
