package cli

import (
	"encoding/json"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"

	"ragscope/retrieval/provider/openai/openaitest"
)

// judgeServer is a chat fake whose structured answers are, call by call:
// grade 3, grade 5 (out of range), prose (out of schema), then grade 1.
func judgeServer(t *testing.T) (*openaitest.Server, map[string]string) {
	t.Helper()
	srv := openaitest.NewServer("sk-judge")
	t.Cleanup(srv.Close)
	var mu sync.Mutex
	n := 0
	srv.Structured(func(openaitest.ChatRequest) string {
		mu.Lock()
		defer mu.Unlock()
		n++
		switch n {
		case 1:
			return `{"grade": 3, "reason": "It says how nodes talk.\u001b[31m"}`
		case 2:
			return `{"grade": 5, "reason": "very relevant"}`
		case 3:
			return `This passage is relevant.`
		}
		return `{"grade": 1, "reason": "Related only."}`
	})
	env := map[string]string{"OPENAI_API_KEY": "sk-judge", "OPENAI_BASE_URL": srv.URL, "RAGSCOPE_CHAT_PROVIDER": "openai", "XDG_CACHE_HOME": t.TempDir()}
	return srv, env
}

func TestQueryJudgeText(t *testing.T) {
	srv, env := judgeServer(t)
	code, out, errs := run(t, env, "", "query", "--judge", "--judge-concurrency", "1", "how do ROS 2 nodes communicate?")
	if code != ExitOK {
		t.Fatalf("exit %d\n%s\n%s", code, out, errs)
	}
	for _, want := range []string{
		" 1. [3 answers] [", "    judge: It says how nodes talk.",
		" 2. [not judged] [", "judge: not judged (out_of_range): grade 5 is outside 0-3",
		" 3. [not judged] [", "judge: not judged (invalid): the answer is not a JSON object",
		" 4. [1 related] [", "judge: Related only.",
		"Judge openai/gpt-4o-mini · prompt relevance-v1+", "5 judge calls (", "0 cached, 2 not judged",
		"judged precision@5 0.33 · judged nDCG@5 ",
		"2 of 5 hits not judged: grade 5 is outside 0-3",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("no %q in:\n%s", want, out)
		}
	}
	if strings.Contains(out, "\x1b") {
		t.Error("judge text drawn unsanitised")
	}
	if srv.Chats() != 5 || srv.LastChat().ResponseFormat == nil {
		t.Fatalf("%d chats, response_format %+v", srv.Chats(), srv.LastChat().ResponseFormat)
	}
	// Re-run: the 3 judged hits come from the cache; only the 2 not
	// judged are asked again (now graded 1).
	code, out, _ = run(t, env, "", "query", "--judge", "how do ROS 2 nodes communicate?")
	if code != ExitOK || srv.Chats() != 7 || !strings.Contains(out, "2 judge calls (") || !strings.Contains(out, "3 cached, 0 not judged") {
		t.Fatalf("re-run: exit %d, %d chats\n%s", code, srv.Chats(), out)
	}
	// Everything cached: no call at all.
	code, out, _ = run(t, env, "", "query", "--judge", "how do ROS 2 nodes communicate?")
	if code != ExitOK || srv.Chats() != 7 || !strings.Contains(out, "0 judge calls (0 in + 0 out tokens), 5 cached") {
		t.Fatalf("warm cache: exit %d, %d chats\n%s", code, srv.Chats(), out)
	}
}

func TestQueryJudgeJSON(t *testing.T) {
	_, env := judgeServer(t)
	code, out, errs := run(t, env, "", "query", "--json", "--judge", "--judge-concurrency", "1", "how do ROS 2 nodes communicate?")
	if code != ExitOK {
		t.Fatalf("exit %d\n%s\n%s", code, out, errs)
	}
	var raw struct {
		Results []struct {
			Judge *struct {
				Grade  *int    `json:"grade"`
				Reason *string `json:"reason"`
				Status string  `json:"status"`
			} `json:"judge"`
		} `json:"results"`
		Judging *JudgeRunJSON `json:"judging"`
	}
	if err := json.Unmarshal([]byte(out), &raw); err != nil {
		t.Fatal(err)
	}
	if len(raw.Results) != 5 || raw.Judging == nil || raw.Judging.Calls != 5 || raw.Judging.NotJudged != 2 || raw.Judging.InputTokens == 0 {
		t.Fatalf("%s", out)
	}
	wantStatus := []string{"judged", "out_of_range", "invalid", "judged", "judged"}
	for i, r := range raw.Results {
		if r.Judge == nil || r.Judge.Reason == nil || r.Judge.Status != wantStatus[i] || (r.Judge.Grade == nil) != (wantStatus[i] != "judged") {
			t.Fatalf("result %d judge %+v", i+1, r.Judge)
		}
	}
	// grade is present as null, not left out.
	if !strings.Contains(out, `"grade": null`) {
		t.Fatalf("no null grade:\n%s", out)
	}
}

func TestQueryJudgeNeedsChatModel(t *testing.T) {
	code, out, errs := run(t, map[string]string{"XDG_CACHE_HOME": t.TempDir()}, "", "query", "--judge", "what is ROS 2?")
	if code != ExitConfig || out != "" || !strings.Contains(errs, "Configuration: --judge needs a chat model: no chat model") || !strings.Contains(errs, "OPENAI_API_KEY") || strings.Contains(strings.ToLower(errs), "configuration error") {
		t.Fatalf("exit %d\n%s\n%s", code, out, errs)
	}
	// Without --judge, no judge field.
	code, out, _ = run(t, nil, "", "query", "--json", "what is ROS 2?")
	if code != ExitOK || strings.Contains(out, `"judge"`) || strings.Contains(out, `"judging"`) {
		t.Fatalf("exit %d\n%s", code, out)
	}
}

func TestAskJudgeGradesHitsAndChecksTheAnswer(t *testing.T) {
	srv := openaitest.NewServer("sk-judge")
	t.Cleanup(srv.Close)
	srv.Structured(func(r openaitest.ChatRequest) string {
		if r.ResponseFormat.JSONSchema.Name == "answer_claims" {
			return `{"claims": [{"claim": "Nodes talk over topics.", "supported": true, "sources": [1], "reason": "Source 1 says so."},
				{"claim": "Nodes run on GPUs.", "supported": false, "sources": [], "reason": "No source says so."}]}`
		}
		return `{"grade": 2, "reason": "Partly answers."}`
	})
	env := map[string]string{"OPENAI_API_KEY": "sk-judge", "OPENAI_BASE_URL": srv.URL, "RAGSCOPE_CHAT_PROVIDER": "openai", "XDG_CACHE_HOME": t.TempDir()}
	code, out, errs := run(t, env, "", "ask", "--judge", "how do ROS 2 nodes communicate?")
	if code != ExitOK {
		t.Fatalf("exit %d\n%s\n%s", code, out, errs)
	}
	// 1 answer + 5 grades + 1 faithfulness check.
	if srv.Chats() != 7 {
		t.Fatalf("%d chats", srv.Chats())
	}
	for _, want := range []string{" 1. [2 partly answers] [", "6 judge calls (", "Faithfulness: 1 of 2 claims supported by the sources (50%)",
		"  supported     Nodes talk over topics. (Source 1 says so.)", "  NOT SUPPORTED Nodes run on GPUs. (No source says so.)"} {
		if !strings.Contains(out, want) {
			t.Errorf("no %q in:\n%s", want, out)
		}
	}
	code, out, _ = run(t, env, "", "ask", "--json", "--judge", "how do ROS 2 nodes communicate?")
	var doc struct {
		Judging *JudgeRunJSON `json:"judging"`
		Results []HitJSON     `json:"results"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil || code != ExitOK {
		t.Fatalf("exit %d %v\n%s", code, err, out)
	}
	// Warm cache: only the answer was asked again (5 grades and the
	// faithfulness check cached).
	if srv.Chats() != 8 || doc.Judging == nil || doc.Judging.Calls != 0 || doc.Judging.Cached != 6 ||
		doc.Judging.Faithfulness == nil || !doc.Judging.Faithfulness.Cached || doc.Results[0].Judge == nil {
		t.Fatalf("%d chats, %+v", srv.Chats(), doc.Judging)
	}
}

// downJudge is a chat fake that fails every request with status (and
// Retry-After 0: retried at once).
func downJudge(t *testing.T, status int) map[string]string {
	t.Helper()
	srv := openaitest.NewServer("sk-judge")
	t.Cleanup(srv.Close)
	fails := make([]openaitest.Failure, 200)
	for i := range fails {
		fails[i] = openaitest.Failure{Status: status, RetryAfter: "0"}
	}
	srv.Fail(fails...)
	return map[string]string{"OPENAI_API_KEY": "sk-judge", "OPENAI_BASE_URL": srv.URL, "RAGSCOPE_CHAT_PROVIDER": "openai", "XDG_CACHE_HOME": t.TempDir()}
}

// A judge whose model is down grades nothing: query --judge fails closed
// (exit 3 with the cause), after printing the hits "not judged".
func TestQueryJudgeModelDownFailsClosed(t *testing.T) {
	closed := func(t *testing.T) map[string]string {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		root := "http://" + ln.Addr().String() + "/v1"
		ln.Close()
		return map[string]string{"OPENAI_API_KEY": "sk-judge", "OPENAI_BASE_URL": root, "RAGSCOPE_CHAT_PROVIDER": "openai", "XDG_CACHE_HOME": t.TempDir()}
	}
	for _, c := range []struct {
		name string
		env  func(t *testing.T) map[string]string
		say  string
	}{
		{"5xx", func(t *testing.T) map[string]string { return downJudge(t, http.StatusServiceUnavailable) }, "unavailable (503)"},
		{"429 after retries", func(t *testing.T) map[string]string { return downJudge(t, http.StatusTooManyRequests) }, "(429) after 3 attempts"},
		{"refused", closed, "Cannot reach the chat server"},
	} {
		t.Run(c.name, func(t *testing.T) {
			code, out, errs := run(t, c.env(t), "", "query", "--judge", "--judge-concurrency", "5", "how do ROS 2 nodes communicate?")
			if code != ExitBackend {
				t.Fatalf("exit %d, want 3\n%s\n%s", code, out, errs)
			}
			if !strings.Contains(errs, "the judge could judge none of the 5 hits") || !strings.Contains(errs, c.say) {
				t.Errorf("stderr does not give the cause %q:\n%s", c.say, errs)
			}
			if strings.Count(out, "[not judged]") != 5 || !strings.Contains(out, "No hit could be judged (") {
				t.Errorf("the hits are printed, each not judged:\n%s", out)
			}
		})
	}
	// --json: the document is written, and the exit is still 3.
	code, out, _ := run(t, downJudge(t, http.StatusBadGateway), "", "query", "--json", "--judge", "--judge-concurrency", "5", "how do ROS 2 nodes communicate?")
	if code != ExitBackend || !json.Valid([]byte(out)) {
		t.Fatalf("--json: exit %d\n%s", code, out)
	}
}

// ask --judge: the answer comes, but the judge's answers are unusable for
// every hit: exit 3, saying why.
func TestAskJudgeNothingJudgedFailsClosed(t *testing.T) {
	srv := openaitest.NewServer("sk-judge")
	t.Cleanup(srv.Close)
	srv.Structured(func(openaitest.ChatRequest) string { return "This passage is relevant." })
	env := map[string]string{"OPENAI_API_KEY": "sk-judge", "OPENAI_BASE_URL": srv.URL, "RAGSCOPE_CHAT_PROVIDER": "openai", "XDG_CACHE_HOME": t.TempDir()}
	code, out, errs := run(t, env, "", "ask", "--judge", "how do ROS 2 nodes communicate?")
	if code != ExitBackend {
		t.Fatalf("exit %d, want 3\n%s\n%s", code, out, errs)
	}
	if !strings.Contains(out, "Answer · openai") || !strings.Contains(errs, "the judge could judge none of the 5 hits: the answer is not a JSON object") {
		t.Errorf("the answer is printed, and the cause said:\n%s\n%s", out, errs)
	}
}

// query --judge whose model goes down after one answer: the judged hit
// is kept and shown, the judge stops after 3 failed calls, and the run
// exits 3 saying how many hits were not judged and why.
func TestQueryJudgeModelGoesDownMidway(t *testing.T) {
	srv := openaitest.NewServer("sk-judge")
	t.Cleanup(srv.Close)
	var once sync.Once
	srv.Structured(func(openaitest.ChatRequest) string {
		once.Do(func() { srv.Fail(failuresOf(openaitest.Failure{Status: http.StatusBadGateway}, 50)...) })
		return `{"grade": 3, "reason": "answers"}`
	})
	env := map[string]string{"OPENAI_API_KEY": "sk-judge", "OPENAI_BASE_URL": srv.URL, "RAGSCOPE_CHAT_PROVIDER": "openai", "XDG_CACHE_HOME": t.TempDir()}
	code, out, errs := run(t, env, "", "query", "--judge", "--judge-concurrency", "1", "how do ROS 2 nodes communicate?")
	if code != ExitBackend || !strings.Contains(errs, "--judge: the judge could not judge 4 of 5 hits: the chat model failed 3 times in a row: ") ||
		!strings.Contains(errs, "(502)") || !strings.Contains(errs, "; the other hit was not tried") {
		t.Fatalf("exit %d\n%s\n%s", code, out, errs)
	}
	if strings.Count(out, "[not judged]") != 4 || !strings.Contains(out, "[3 answers]") || srv.Requests() != 1+3*3 {
		t.Fatalf("%d requests\n%s", srv.Requests(), out)
	}
}
