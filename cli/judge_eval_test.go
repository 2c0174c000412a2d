package cli

import (
	"bytes"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"ragscope/retrieval/assess/eval"
	"ragscope/retrieval/provider/openai/openaitest"
)

// judgeEvalEnv is a chat fake that grades a passage 2 when it mentions
// ROS, else 0, and an eval set with two unlabelled cases and one labelled.
func judgeEvalEnv(t *testing.T) (*openaitest.Server, map[string]string, string) {
	t.Helper()
	srv := openaitest.NewServer("sk-judge")
	t.Cleanup(srv.Close)
	srv.Structured(func(r openaitest.ChatRequest) string {
		if r.ResponseFormat.JSONSchema.Name == "answer_claims" {
			return `{"claims": [{"claim": "From the textbook.", "supported": true, "sources": [1], "reason": "ok"}, {"claim": "Robots dream.", "supported": false, "sources": [], "reason": "No source says so."}]}`
		}
		_, passage, _ := strings.Cut(r.Messages[len(r.Messages)-1].Content, "Passage")
		if strings.Contains(passage, "ROS") {
			return `{"grade": 2, "reason": "mentions ROS"}`
		}
		return `{"grade": 0, "reason": "unrelated"}`
	})
	env := map[string]string{"OPENAI_API_KEY": "sk-judge", "OPENAI_BASE_URL": srv.URL, "RAGSCOPE_CHAT_PROVIDER": "openai", "XDG_CACHE_HOME": t.TempDir()}
	file := filepath.Join(t.TempDir(), "set.yaml")
	set := `cases:
  - id: talk
    question: how do ROS 2 nodes communicate?
    category: ros
  - id: sim
    question: how do I simulate a robot in Gazebo?
    category: sim
  - id: labelled
    question: what is URDF?
    category: ros
    expected_modules: [module-1-ros2]
`
	if err := os.WriteFile(file, []byte(set), 0o600); err != nil {
		t.Fatal(err)
	}
	return srv, env, file
}

func TestEvalJudgeText(t *testing.T) {
	srv, env, file := judgeEvalEnv(t)
	code, out, errs := run(t, env, "", "eval", "--judge", "--latency-sample", "0", file)
	if code != ExitOK && code != ExitCheck {
		t.Fatalf("exit %d\n%s\n%s", code, out, errs)
	}
	calls := srv.Chats()
	if calls != 15 {
		t.Fatalf("%d judge calls for 3 cases × 5 hits", calls)
	}
	for _, want := range []string{
		"Judge openai/gpt-4o-mini · prompt relevance-v1+", "15 judge calls (", "0 cached, 0 not judged",
		"judged precision@k ", "(mean of 3 cases with a judged hit, of 3)", "nothing answers (no hit graded 2 or 3): ",
		"per category:", "agreement with your labels: ", "judged relevant ", "labelled relevant",
		"UNLABELLED best ",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("no %q in:\n%s", want, out)
		}
	}
	// Warm cache: no judge call.
	code, out, _ = run(t, env, "", "eval", "--judge", "--latency-sample", "0", file)
	if (code != ExitOK && code != ExitCheck) || srv.Chats() != calls || !strings.Contains(out, "0 judge calls (0 in + 0 out tokens), 15 cached") {
		t.Fatalf("warm cache: exit %d, %d chats\n%s", code, srv.Chats(), out)
	}
}

func TestEvalJudgeJSON(t *testing.T) {
	_, env, file := judgeEvalEnv(t)
	code, out, errs := run(t, env, "", "eval", "--json", "--judge", "--latency-sample", "0", file)
	if code != ExitOK && code != ExitCheck {
		t.Fatalf("exit %d\n%s\n%s", code, out, errs)
	}
	var rep eval.Report
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	jr := rep.Judging
	if jr == nil || jr.Stats.Calls != 15 || jr.Measured != 3 || jr.Precision == nil || jr.Agreement == nil || len(jr.Categories) != 2 {
		t.Fatalf("judging %+v", jr)
	}
	if a := jr.Agreement; a.Confusion.N() != 5 || (a.Kappa == nil) == (a.Undefined == "") {
		t.Fatalf("agreement %+v", a)
	}
	for _, c := range rep.Cases {
		if c.Judged == nil {
			t.Fatalf("case %s not judged", c.ID)
		}
		for _, h := range c.Hits {
			if !h.BelowThreshold && (h.Judge == nil || h.Judge.Grade == nil || h.Judge.Reason == "") {
				t.Fatalf("case %s hit %d: %+v", c.ID, h.Rank, h.Judge)
			}
		}
	}
	if rep.Cases[0].Kind != eval.KindUnlabelled {
		t.Fatalf("kind %s", rep.Cases[0].Kind)
	}
}

func TestEvalUnlabelledSetRunsAndJudgeNeedsModel(t *testing.T) {
	_, _, file := judgeEvalEnv(t)
	code, out, errs := run(t, map[string]string{"XDG_CACHE_HOME": t.TempDir()}, "", "eval", "--latency-sample", "0", file)
	if code != ExitOK && code != ExitCheck {
		t.Fatalf("a set with unlabelled cases: exit %d\n%s\n%s", code, out, errs)
	}
	if strings.Contains(out, "Judge ") {
		t.Fatalf("judge section without --judge:\n%s", out)
	}
	code, _, errs = run(t, map[string]string{"XDG_CACHE_HOME": t.TempDir()}, "", "eval", "--judge", file)
	if code != ExitConfig || !strings.Contains(errs, "--judge needs a chat model") {
		t.Fatalf("exit %d\n%s", code, errs)
	}
}

func TestEvalJudgeRefusedKeyExits3(t *testing.T) {
	_, env, file := judgeEvalEnv(t)
	env["OPENAI_API_KEY"] = "sk-wrong"
	code, _, errs := run(t, env, "", "eval", "--judge", "--latency-sample", "0", file)
	if code != ExitBackend || !strings.Contains(errs, "the judge stopped after") || !strings.Contains(errs, "OPENAI_API_KEY") {
		t.Fatalf("exit %d\n%s", code, errs)
	}
}

func TestConfirmJudge(t *testing.T) {
	var errb bytes.Buffer
	if !confirmJudge(strings.NewReader(""), &errb, true, false, 10, 10, "openai/m") || errb.Len() != 0 {
		t.Fatal("within the budget: asked")
	}
	if !confirmJudge(strings.NewReader(""), &errb, false, false, 10, 500, "openai/m") || errb.Len() != 0 {
		t.Fatal("not a terminal: asked")
	}
	if !confirmJudge(strings.NewReader(""), &errb, true, true, 10, 500, "openai/m") || errb.Len() != 0 {
		t.Fatal("--yes: asked")
	}
	if confirmJudge(strings.NewReader("n\n"), &errb, true, false, 10, 500, "openai/m") ||
		!strings.Contains(errb.String(), "500 calls to openai/m (more than --judge-max-calls 10). Make them? [y/N]") || !strings.Contains(errb.String(), "No judge calls made") {
		t.Fatalf("declined: %s", errb.String())
	}
	errb.Reset()
	if !confirmJudge(strings.NewReader("Yes\n"), &errb, true, false, 10, 500, "openai/m") {
		t.Fatal("yes not taken")
	}
	if confirmJudge(strings.NewReader(""), &errb, true, false, 10, 500, "openai/m") {
		t.Fatal("end of input taken as yes")
	}
}

func TestEvalAnswerJudgeFaithfulness(t *testing.T) {
	srv, env, file := judgeEvalEnv(t)
	code, out, errs := run(t, env, "", "eval", "--answer", "--judge", "--latency-sample", "0", file)
	if code != ExitOK && code != ExitCheck {
		t.Fatalf("exit %d\n%s\n%s", code, out, errs)
	}
	// 3 answers + 15 hits + 3 faithfulness checks.
	if srv.Chats() != 21 {
		t.Fatalf("%d chats", srv.Chats())
	}
	for _, want := range []string{"18 judge calls (", "faithfulness: 50% of 6 claims supported by their sources (3 answers checked)",
		"unsupported · talk: Robots dream. (No source says so.)"} {
		if !strings.Contains(out, want) {
			t.Errorf("no %q in:\n%s", want, out)
		}
	}
}

// eval --judge with the judge's model down fails closed: exit 3 with the
// cause, and neither the JUnit nor the Markdown report calls it a pass.
func TestEvalJudgeModelDownFailsClosed(t *testing.T) {
	_, _, file := judgeEvalEnv(t)
	env := downJudge(t, http.StatusInternalServerError)
	dir := t.TempDir()
	junit, md := filepath.Join(dir, "junit.xml"), filepath.Join(dir, "summary.md")
	code, out, errs := run(t, env, "", "eval", "--judge", "--judge-concurrency", "8", "--latency-sample", "0", "--junit", junit, "--markdown", md, file)
	if code != ExitBackend {
		t.Fatalf("exit %d, want 3\n%s\n%s", code, out, errs)
	}
	if !strings.Contains(errs, "eval --judge: the judge could judge none of the 15 hits (talk, sim, labelled): ") || !strings.Contains(errs, "unavailable (500)") {
		t.Errorf("stderr does not give the cause:\n%s", errs)
	}
	if !strings.Contains(out, "not judged: 15 of 15 hits: ") {
		t.Errorf("the text report does not say what was not judged:\n%s", out)
	}
	x, err := os.ReadFile(junit)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(x, []byte(`type="judge"`)) || !bytes.Contains(x, []byte(`errors="3"`)) || !bytes.Contains(x, []byte(`name="ragscope eval verdict"`)) {
		t.Errorf("JUnit: every case must be an error of the judge:\n%s", x)
	}
	m, err := os.ReadFile(md)
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(m, []byte("PASS")) || !bytes.Contains(m, []byte("| judge error |")) {
		t.Errorf("Markdown calls a run the judge could not judge a pass:\n%s", m)
	}
}

// Some hits judged, some not: the run fails closed too, saying how many
// were not and why; the JSON report counts them.
func TestEvalJudgePartlyJudged(t *testing.T) {
	srv, env, file := judgeEvalEnv(t)
	var calls atomic.Int32
	srv.Structured(func(openaitest.ChatRequest) string {
		if calls.Add(1) == 1 {
			return "context too long for a grade" // out of the schema
		}
		return `{"grade": 2, "reason": "fine"}`
	})
	code, out, errs := run(t, env, "", "eval", "--json", "--judge", "--judge-concurrency", "1", "--latency-sample", "0", file)
	if code != ExitBackend {
		t.Fatalf("exit %d, want 3\n%s\n%s", code, out, errs)
	}
	var rep eval.Report
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	if j := rep.Judging; j == nil || j.Hits != 15 || j.NotJudged != 1 || !strings.Contains(j.NotJudgedWhy, "not a JSON object") || rep.Passed {
		t.Fatalf("judging %+v, passed %v", rep.Judging, rep.Passed)
	}
	if !strings.Contains(errs, "the judge could not judge 1 of 15 hits (talk): ") {
		t.Errorf("stderr: %s", errs)
	}
}

// eval --judge against a judge's model that answers 500 to everything:
// the judge stops after chattask.MaxFailuresInARow failed calls (each
// with its retries) instead of trying every hit, the reports are still
// written, and the run exits 3 naming the cause and what was not tried.
func TestEvalJudgeModelDownStopsEarly(t *testing.T) {
	srv, env, file := judgeEvalEnv(t)
	srv.Fail(failuresOf(openaitest.Failure{Status: http.StatusInternalServerError}, 200)...)
	junit := filepath.Join(t.TempDir(), "junit.xml")
	code, out, errs := run(t, env, "", "eval", "--judge", "--judge-concurrency", "1", "--latency-sample", "0", "--junit", junit, file)
	if code != ExitBackend {
		t.Fatalf("exit %d, want 3\n%s\n%s", code, out, errs)
	}
	// 3 failed calls of 3 attempts each, where every one of the 15 hits
	// was tried before (45 requests).
	if srv.Requests() != 9 {
		t.Errorf("%d requests, want 9", srv.Requests())
	}
	want := "eval --judge: the judge could judge none of the 15 hits (talk, sim, labelled): the chat model failed 3 times in a row: The chat server is unavailable (500)"
	if !strings.Contains(errs, want) || !strings.Contains(errs, "; the other 12 hits were not tried") {
		t.Errorf("stderr:\n%s\nwant %q", errs, want)
	}
	if !strings.Contains(out, "not judged: 15 of 15 hits: the chat model failed 3 times in a row: ") {
		t.Errorf("the text report:\n%s", out)
	}
	if x, err := os.ReadFile(junit); err != nil || !bytes.Contains(x, []byte(`errors="3"`)) {
		t.Errorf("JUnit: %v\n%s", err, x)
	}
}

// failuresOf is n copies of f.
func failuresOf(f openaitest.Failure, n int) []openaitest.Failure {
	out := make([]openaitest.Failure, n)
	for i := range out {
		out[i] = f
	}
	return out
}
